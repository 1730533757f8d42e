/* test-text.c — text extraction: fixtures/text/ and tables.
 *
 * Each fixtures/text/<case>.mbox has a <case>.expect beside it: for every
 * message, its charset, flags, line counts, attachments, then its body
 * and own text between markers.  DEJA_UPDATE_EXPECT=1 rewrites the
 * .expect files from the current output (review the diff before
 * committing it).
 */
#include <glib.h>
#include <string.h>

#include "html.h"
#include "mail.h"
#include "fixtures.h"
#include "mbox.h"
#include "quote.h"
#include "text.h"

static void
dump_record (GString *out, const MailRecord *r)
{
  g_autofree char *flags = mail_flags_to_string (r->flags);

  g_string_append_printf (out, "=== message\nsubject %s\nfrom %s <%s>\ndate %s\n", r->subject,
                          r->from_name, r->from_addr, r->date);
  g_string_append_printf (out, "charset %s\nflags %s\nquoted_lines %u\nown_lines %u\n",
                          r->charset, flags ? flags : "", r->quoted_lines, r->own_lines);
  for (guint i = 0; i < r->attachments->len; i++)
    {
      TextAttachment *a = g_ptr_array_index (r->attachments, i);
      g_string_append_printf (out, "attachment %s %s %" G_GINT64_FORMAT " %s\n", a->content_type,
                              a->filename ? a->filename : "-", a->size, a->encoding);
    }
  g_string_append_printf (out, "--- body\n%s\n--- own_text\n%s\n", r->body, r->own_text);
}

static void
extract_file (const char *path, GString *out)
{
  g_autofree char *data = NULL;
  gsize len;
  g_autoptr (MboxSplitter) s = NULL;
  MboxSpan span;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  s = mbox_splitter_new (data, len, MBOX_SPLIT_NONE);
  while (mbox_splitter_next (s, &span, NULL))
    {
      g_autoptr (GBytes) bytes = mbox_span_extract (data, &span);
      gsize n;
      const char *text = g_bytes_get_data (bytes, &n);
      g_autoptr (MailRecord) r = mail_record_parse (text ? text : "", n);

      g_assert_true (g_utf8_validate (r->body, -1, NULL));
      g_assert_true (g_utf8_validate (r->own_text, -1, NULL));
      dump_record (out, r);
    }
}

static void
test_fixture (gconstpointer data)
{
  const char *mbox = data;
  g_autofree char *base = g_strndup (mbox, strlen (mbox) - strlen (".mbox"));
  g_autofree char *expect_path = g_strconcat (base, ".expect", NULL);
  g_autofree char *expected = NULL;
  g_autoptr (GString) actual = g_string_new (NULL);

  extract_file (mbox, actual);
  if (g_getenv ("DEJA_UPDATE_EXPECT"))
    g_assert_true (g_file_set_contents (expect_path, actual->str, -1, NULL));
  g_assert_true (g_file_get_contents (expect_path, &expected, NULL, NULL));
  g_assert_cmpstr (actual->str, ==, expected);
}

/* HTML → text. */
static const struct {
  const char *html;
  const char *text;
} html_cases[] = {
  { "<p>One</p><p>Two</p>", "One\n\nTwo\n" },
  { "a<br>b<br/>c", "a\nb\nc\n" },
  { "  lots   of\n\n  space  ", "lots of space\n" },
  { "<ul><li>x<li>y</ul>after", "* x\n* y\n\nafter\n" },
  { "<pre>  keep\n    this</pre>", "  keep\n    this\n" },
  { "<div>On Monday, Ann wrote:<blockquote>Hi <b>there</b><br>you</blockquote></div>Reply",
    "On Monday, Ann wrote:\n\n> Hi there\n> you\n\nReply\n" },
  { "<table><tr><td>a<td>b</tr><tr><td>c<td>d</table>", "a\tb\nc\td\n" },
  { "<head><title>T</title><style>x{}</style></head><script>bad()</script>ok &amp; &eacute;",
    "ok & \xc3\xa9\n" },
  { "<p>unclosed <b>bold <i>italic", "unclosed bold italic\n" },
  { "", "" },
};

static void
test_html (gconstpointer data)
{
  gsize i = (const __typeof__ (html_cases[0]) *) data - html_cases;
  g_autofree char *text = html_to_text (html_cases[i].html, strlen (html_cases[i].html), NULL);
  if (strcmp (text, html_cases[i].text) != 0)
    g_test_fail_printf ("html case %zu: got '%s', expected '%s'", i, text, html_cases[i].text);
}

/* AOL-era HTML leaves a <FONT> open on every line: libxml2's default
 * limit of 256 nested elements dropped the text after line 254.  Every
 * line is kept, at any depth, and nothing is flagged as cut; the renderer
 * walks the tree without recursion (100,000 levels). */
static void
test_html_deep (void)
{
  for (guint lines = 400; lines <= 100000; lines *= 250)
    {
      g_autoptr (GString) html = g_string_new ("<HTML><BODY>");
      g_autofree char *text = NULL, *last = NULL;
      gboolean cut = TRUE;

      for (guint i = 0; i < lines; i++)
        g_string_append_printf (html, "<FONT FACE=Arial>line %u<BR>\n", i);
      g_string_append (html, "LAST LINE</BODY></HTML>\n");
      text = html_to_text (html->str, html->len, &cut);
      last = g_strdup_printf ("line %u\nLAST LINE\n", lines - 1);
      g_assert_false (cut);
      g_assert_true (g_str_has_prefix (text, "line 0\nline 1\n"));
      g_assert_true (g_str_has_suffix (text, last));
      {
        guint newlines = 0;

        for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
          newlines++;
        g_assert_cmpuint (newlines, ==, lines + 1);
      }
    }
}

/* Body → own text, quoted lines, own lines. */
static const struct {
  const char *body;
  const char *own;
  guint quoted;
  guint own_lines;
} quote_cases[] = {
  { "Hello\n", "Hello\n", 0, 1 },
  { "Bob wrote:\n> hi\n\nYes.\n", "Yes.\n", 1, 1 },
  { "On Mon, 3 Mar 2003, Bob Smith\n<bob@example.org> wrote:\n>> deep\n> shallow\nMine.\n", "Mine.\n", 2, 1 },
  { "In article <x@y>, bob@z (Bob) writes:\n|> old\n:-) smiley stays\n", ":-) smiley stays\n", 1, 1 },
  { "I agree.\nBob wrote:\n> text\n", "I agree.\n", 1, 1 },
  { "Text\n\n-- \nSig line\n", "Text\n", 0, 1 },
  { "Text\n--\nSig\n", "Text\n", 0, 1 },
  { "Text\n--\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "Text\n--\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", 0, 13 },
  { "Top\n\n-----Original Message-----\nFrom: x\n\nold text\n", "Top\n", 3, 1 },
  /* the same marker in German (with its umlaut lost to a charset) and Portuguese */
  { "Top\n\n-----Urspr?ngliche Nachricht-----\nVon: x\nBetreff: y\n\nalter Text\n", "Top\n", 4, 1 },
  { "Top\n-----Mensagem original-----\nDe: x\nold\n", "Top\n", 3, 1 },
  /* Outlook's top-post: its header block alone, no "Original Message" line */
  { "Sounds good.\n\nFrom: Bob Smith [mailto:bob@example.org]\nSent: Monday, March 03, 2003 10:15 AM\n"
    "To: list@example.org\nSubject: RE: plans\n\nThe whole original.\nSecond line.\n",
    "Sounds good.\n", 6, 1 },
  /* Horde/IMP's and mutt's "Quoting X:" */
  { "Quoting Kevin Turner <acapnotic at twistedmatrix.com>:\n\n> q\nmine\n", "mine\n", 1, 1 },
  { "Quoting Bob <b@x.org> (2002-07-19 09:11:36 BST):\n> q\nok\n", "ok\n", 1, 1 },
  /* a quote indented as a block: a paragraph of two or more lines, each
   * ">" at the same indentation of four spaces or more (or a tab) */
  { "    > I know that is great news for\n    > python\n\nI wonder.\n", "I wonder.\n", 2, 1 },
  { "Bob wrote:\n\n    >> a\n    >> \n    > b\n\nMine.\n", "Mine.\n", 3, 1 },
  { "\t> a\n\t> b\n\nok\n", "ok\n", 2, 1 },
  { ">>>>> \"glyph\" == Bob <b@x.org> writes:\n\n    glyph> <j@x.org> wrote:\n    >> a\n    >> b\n\n"
    "    glyph> c\n\nok\n", "ok\n", 5, 1 },
  /* "|" with no space, just under an attribution, up to a blank line */
  { "Moshe Zadka wrote:\n|page = open(PAGE, 'w')\n|is safer.\n\nRight.\n", "Right.\n", 2, 1 },
  { "Bob wrote:\n|a\n| b\n||c\n\nok\n", "ok\n", 3, 1 },
  /* a table under a colon that names no quoting, or a bar line before the reply, stays */
  { "The result:\n|a|b|\n|1|2|\n", "The result:\n|a|b|\n|1|2|\n", 0, 3 },
  { "Bob wrote:\n|a\nok\n", "Bob wrote:\n|a\nok\n", 0, 3 },
  { "Bob wrote:\n\n|a\n\nok\n", "Bob wrote:\n\n|a\n\nok\n", 0, 3 },
  /* a session, a prompt, one line or two indentations in a paragraph are the author's */
  { "    >>> import x\n    >>> x.y()\n", "    >>> import x\n    >>> x.y()\n", 0, 2 },
  { "Got:\n\n    > openssl s_client\n    CONNECTED\n", "Got:\n\n    > openssl s_client\n    CONNECTED\n", 0, 3 },
  { "Type:\n\n    > make\n\nok\n", "Type:\n\n    > make\n\nok\n", 0, 3 },
  { "    > a\n      > b\n", "    > a\n      > b\n", 0, 2 },
  { "\t    > a\n    \t> b\n\nok\n", "\t    > a\n    \t> b\n\nok\n", 0, 3 },
  { "Run:\n    > a\n    > b\n", "Run:\n    > a\n    > b\n", 0, 3 },
  { "    > a\n    > b\nok\n", "    > a\n    > b\nok\n", 0, 3 },
  { "    >open mailbox\n    >read leaflet\n", "    >open mailbox\n    >read leaflet\n", 0, 2 },
  /* an attribution whose quote the author cut to a snip mark: the mark stays theirs */
  { "On Mon, 13 Aug 2001, Chris Hadgis wrote:\n\n[snip]\n\nThe web interface.\n",
    "[snip]\n\nThe web interface.\n", 0, 2 },
  { "Mark Crispin <mrc@panda.com> writes:\n\n...\n...\n\nok\n", "...\n...\n\nok\n", 0, 3 },
  { "Bob wrote:\n<SNIP>\n> rest\nmine\n", "<SNIP>\nmine\n", 1, 2 },
  { "Glyph wrote:\n[..snip..]\nyes\n", "[..snip..]\nyes\n", 0, 2 },
  { "Jp wrote:\n-- snip --\nyes\n", "-- snip --\nyes\n", 0, 2 },
  { "Chris wrote:\n\n<snipped agreement on the axioms>\n\nset it\n[...]\n",
    "<snipped agreement on the axioms>\n\nset it\n[...]\n", 0, 3 },
  { "Jason wrote:\n[\xe2\x80\xa6]\nHmm\n", "[\xe2\x80\xa6]\nHmm\n", 0, 2 },
  /* a summary in brackets, or dots that begin a sentence, are no snip mark */
  { "As the manual says:\n\n[ see below ]\n", "As the manual says:\n\n[ see below ]\n", 0, 2 },
  { "He wrote:\n\n... and then left.\n", "He wrote:\n\n... and then left.\n", 0, 2 },
  { "Bob wrote:\n-----\nmine\n", "Bob wrote:\n-----\nmine\n", 0, 3 },
  { "Bob wrote:\nsnip this line\n", "Bob wrote:\nsnip this line\n", 0, 2 },
  /* Outlook for Mac's and Foxmail's block: Date where Outlook writes Sent,
   * in the order they write it */
  { "Thanks.\n\nFrom: Bob <bob@x.org>\nReply-To: list@x.org\nDate: Tuesday, 6. April 2021 at 19:50\n"
    "To: list@x.org\nSubject: plans\n\nold\n", "Thanks.\n", 6, 1 },
  { "Thanks. ^_^\nFrom: Daniel Sank\nDate: 2013-11-25 15:30\nTo: Twisted general discussion\nCc: Bob\n"
    "Subject: Re: trial\nNeither do I.\n", "Thanks. ^_^\n", 6, 1 },
  /* GMX's and web.de's: Sent first, then From and two of To, Cc, Subject */
  { "Thank you!\n \n\nGesendet: Mittwoch, 23. August 2017 um 06:21 Uhr\nVon: Glyph <g@x.org>\n"
    "An: \"Twisted\" <t@x.org>\nBetreff: Re: SSL\n\nold\n", "Thank you!\n", 5, 1 },
  { "Ok.\n\nSent: Monday\nFrom: Bob\nTo: list\nCc: Al\n\nold\n", "Ok.\n", 5, 1 },
  { "Ok.\n\nSent: Monday\nFrom: Bob\nTo: list\n\nmine\n", "Ok.\n\nSent: Monday\nFrom: Bob\nTo: list\n\nmine\n", 0, 5 },
  { "Ok.\n\nSent: Monday\nTo: list\nFrom: Bob\nSubject: x\n\nmine\n",
    "Ok.\n\nSent: Monday\nTo: list\nFrom: Bob\nSubject: x\n\nmine\n", 0, 6 },
  /* in another order it is a writer's own quoting of headers, and stays */
  { "Here is his mail:\n===\nFrom: Bob\nTo: Val\nDate: Fri, 1 Oct 2004\nSubject: Re: gz\n\nYes.\n===\nmine\n",
    "Here is his mail:\n===\nFrom: Bob\nTo: Val\nDate: Fri, 1 Oct 2004\nSubject: Re: gz\n\nYes.\n===\nmine\n",
    0, 9 },
  { "Me.\n\nFrom: Kevin\nSubject: browser\nDate: Sun, 11 Nov 2001\n\n[snip]\n\nThe plan.\n",
    "Me.\n\nFrom: Kevin\nSubject: browser\nDate: Sun, 11 Nov 2001\n\n[snip]\n\nThe plan.\n", 0, 6 },
  { "Me.\n\nFrom: Kevin\nTo: list\nSubject: browser\n\nThe plan.\n",
    "Me.\n\nFrom: Kevin\nTo: list\nSubject: browser\n\nThe plan.\n", 0, 5 },
  { "Me.\n\nFrom: Kevin\nDate: Sun, 11 Nov 2001\nSubject: browser\n\nThe plan.\n",
    "Me.\n\nFrom: Kevin\nDate: Sun, 11 Nov 2001\nSubject: browser\n\nThe plan.\n", 0, 5 },
  /* mutt's and MH's forwarded message, to its end line when it has one */
  { "Look:\n\n----- Forwarded message from Bob <bob@x.org> -----\nFrom: Bob <bob@x.org>\nSubject: y\n\nold text\n\n"
    "----- End forwarded message -----\n\nMy comment after.\n", "Look:\n\nMy comment after.\n", 5, 2 },
  { "See:\n----- Forwarded message excerpt from Bob -----\nold\n----- End forwarded message excerpt -----\nok\n",
    "See:\nok\n", 3, 2 },
  { "FYI\n\n------- Forwarded Message\n\nFrom: x\n\nold\n\n------- End of Forwarded Message\n", "FYI\n", 4, 1 },
  { "FYI\n----- Forwarded message from x -----\nold\n\nolder\n", "FYI\n", 3, 1 },
  /* an end line alone is the author's */
  { "Mine.\n----- End forwarded message -----\n", "Mine.\n----- End forwarded message -----\n", 0, 2 },
  /* its From wrapped, as a list's 76 columns wrap "… On Behalf Of Name" */
  { "Agreed.\n\n_____\n\nFrom: list-bounces@example.org\n[mailto:list-bounces@example.org] On Behalf Of\n"
    "Bob Smith\nSent: Friday, November 10, 2006 11:49 PM\nTo: list@example.org\nSubject: RE: x\n\nold\n",
    "Agreed.\n\n_____\n", 7, 2 },
  /* but no more than two lines of it, nor a blank line in it */
  { "Top\n\nFrom: a\nb\nc\nd\nSent: Friday\nTo: list\n\nold\n",
    "Top\n\nFrom: a\nb\nc\nd\nSent: Friday\nTo: list\n\nold\n", 0, 8 },
  { "Top\n\nFrom: a\n\nb\nSent: Friday\nTo: list\n\nold\n",
    "Top\n\nFrom: a\n\nb\nSent: Friday\nTo: list\n\nold\n", 0, 6 },
  { "Einverstanden.\n\nVon: Bob\nGesendet: Montag, 3. M\xc3\xa4rz 2003 10:15\nAn: Liste\nBetreff: Pl\xc3\xa4ne\n\nalt\n",
    "Einverstanden.\n", 5, 1 },
  /* Gmail and Google Groups' web form: the original unquoted under "On … wrote:" */
  { "Yes, merged.\n\nOn Tue, Jan 5, 2010 at 10:20 AM, Bob <bob@x.org> wrote:\nShall I merge it?\nThanks\n",
    "Yes, merged.\n", 3, 1 },
  /* Yahoo! Mail's, with three dashes before it and the original's headers after */
  { "Sure.\n\n--- On Wed, 4/21/10, Don <d@x.org> wrote:\n\nFrom: Don <d@x.org>\nSubject: Re: x\n"
    "To: list@x.org\nDate: Wednesday, April 21, 2010, 7:54 AM\n\nold text\n", "Sure.\n", 6, 1 },
  { "--- On Wed, 4/21/10, Don wrote:\nmine\n", "--- On Wed, 4/21/10, Don wrote:\nmine\n", 0, 2 },
  { "Sure.\n---- On Wed, Don wrote:\nmine\n", "Sure.\n---- On Wed, Don wrote:\nmine\n", 0, 3 },
  /* Yahoo! Mail's earlier one: a name and its address before "wrote:" */
  { "Bill\n\nItamar Shtull-Trauring <itamar at itamarst.org> wrote:\nUse LoopingCall.\nYahoo! ad\n",
    "Bill\n", 3, 1 },
  { "Thanks.\n\nMatt <matt@x.org> wrote:  \n\nOpen a bdb.\n", "Thanks.\n", 2, 1 },
  { "Matt <matt@x.org> wrote:\nmine\n", "Matt <matt@x.org> wrote:\nmine\n", 0, 2 },
  { "Thanks.\nMatt (matt) wrote:\nmine\n", "Thanks.\nMatt (matt) wrote:\nmine\n", 0, 3 },
  { "Thanks.\nSee <notes> as he wrote:\nmine\n", "Thanks.\nSee <notes> as he wrote:\nmine\n", 0, 3 },
  { "Thanks.\nThe <manual> wrote:\nmine\n", "Thanks.\nThe <manual> wrote:\nmine\n", 0, 3 },
  /* a writer who quotes with "# " and answers between the quotes keeps his answers */
  { "# On Sat, 29 Oct 2005, Clive\n# <clive at x.za> wrote:\n#>q\n#\n# old\n\nMine.\n",
    "# On Sat, 29 Oct 2005, Clive\n# <clive at x.za> wrote:\n#>q\n#\n# old\n\nMine.\n", 0, 6 },
  { "Ok\n\n\"Glyph L\" <g at x.com> wrote:\nold\n", "Ok\n", 2, 1 },
  /* an unquoted original that opens with its own attribution and quote */
  { "Much appreciated.\n\nOn 11/3/09 4:08 PM, \"e\" <e at x.com> wrote:\n\nOn 3 Nov, r at x.com wrote:\n"
    ">q\n\nI'm not sure.\n", "Much appreciated.\n", 4, 1 },
  { "Bill\n\nMatt <m at x.org> wrote:\nOn Fri, Bill wrote:\n> q\n\nOpen a bdb.\n", "Bill\n", 4, 1 },
  { "My reply.\n\nOn Mon, Bob wrote:\n> On Sun, Alice wrote:\n> > text\nmore reply\n",
    "My reply.\n\nmore reply\n", 2, 2 },
  /* such a line before quoted text is an attribution only */
  { "Yes.\nOn Tue, Jan 5, 2010, Bob wrote:\n> Merge?\nDone.\n", "Yes.\nDone.\n", 1, 2 },
  { "Yes.\n--- On Tue, Jan 5, 2010, Bob wrote:\n> Merge?\nDone.\n", "Yes.\nDone.\n", 1, 2 },
  /* two header-like lines in the author's own text are no such block */
  { "The form wants:\nFrom: your name\nTo: the office\n\nThanks.\n",
    "The form wants:\nFrom: your name\nTo: the office\n\nThanks.\n", 0, 4 },
  { "Top\n________________________________\nVan: x\nVerzonden: y\n\nold\n", "Top\n", 4, 1 },
  /* Swedish, and with its letters lost to a charset */
  { "Top\n\nFr\xc3\xa5n: x genom y\nSkickat: den 11 januari 2011 14:11\nTill: list\n\xc3\x84mne: Re: z\n\nold\n",
    "Top\n", 5, 1 },
  { "Top\n-----Ursprungligt meddelande-----\nFr?n: x\nSkickat: y\nTill: z\n?mne: w\n\nold\n", "Top\n", 6, 1 },
  { "Top\n\nFr?n: x\nSkickat: y\n?mne: w\n\nold\n", "Top\n", 4, 1 },
  /* and quoted after them, as Outlook quotes: the reply under the quote is the author's */
  { "-----Ursprungligt meddelande-----\nFr?n: x\nSkickat: y\nTill: z\n?mne: w\n\n> old\n\nMine.\n",
    "Mine.\n", 1, 1 },
  /* a dash-framed title not followed by header lines is the author's */
  { "Top\n----- cut here -----\ncode()\n", "Top\n----- cut here -----\ncode()\n", 0, 3 },
  { "a\n- Hide quoted text -\n> q\n- Show quoted text -\nb\n", "a\nb\n", 1, 2 },
  { "The list is as follows:\n> not an attribution, still quoted\n",
    "The list is as follows:\n", 1, 1 },
  { "\n\nFirst\n\n\n\nSecond\n\n", "First\n\nSecond\n", 0, 2 },
  { "JS> supercite\nok\n", "ok\n", 1, 1 },
  { "OoO En ce milieu de nuit du mardi 15 janvier 2008, vers 03:53,\nJustin <j@x> disait:\n\n> q\n\nCan we?\n",
    "Can we?\n", 1, 1 },
  /* the names in any case: the first letter, a verb, a header block */
  { "Top\n\nbegin forwarded message:\n\nFrom: x\nold\n", "Top\n", 3, 1 },
  { "Bob WROTE:\n> hi\n\nYes.\n", "Yes.\n", 1, 1 },
  { "Earlier, bob in article 123:\n> q\nok\n", "ok\n", 1, 1 },
  { "Sounds good.\n\nFROM: Bob Smith\nSENT: Monday\nTO: list\nSUBJECT: RE: plans\n\nThe whole original.\n",
    "Sounds good.\n", 5, 1 },
  /* Outlook Express's news attribution: no colon, the article's id last,
   * "..." after it, often wrapped before "news:"; in its languages */
  { "\"Bob\" <bob@x.org> wrote in message\nnews:abc$1@news.example.com...\n> q\n\nMine.\n", "Mine.\n", 1, 1 },
  { "<bob@x.org> wrote in message news:abc@host...\n>\n> q\nMine.\n", "Mine.\n", 2, 1 },
  { "\"Bob\" <b@x> schrieb im Newsbeitrag\nnews:abc@host...\n> q\nJa.\n", "Ja.\n", 1, 1 },
  { "\"Bob\" <b@x> a \xc3\xa9" "crit dans le message de news: abc@host...\n\n> q\nOui.\n", "Oui.\n", 1, 1 },
  /* "news:" and "..." without a quote after, or naming no quoting, stay */
  { "It was in\nnews:comp.lang.c...\n\nThanks.\n", "It was in\nnews:comp.lang.c...\n\nThanks.\n", 0, 3 },
  { "Read it in\nnews:comp.lang.c...\n> q\nok\n", "Read it in\nnews:comp.lang.c...\nok\n", 1, 3 },
  { "He wrote in message news:a@b... and left\n> q\nok\n", "He wrote in message news:a@b... and left\nok\n", 1, 2 },
  { "Bob wrote in message news:a@b...\n\nThanks.\n", "Bob wrote in message news:a@b...\n\nThanks.\n", 0, 2 },
  /* Supercite's (Gnus's) citation by name, after a leader of spaces: a
   * quote where an attribution names that name */
  { ">>>>> On Mon, 3 Apr 2000, Daniel Seagraves (\"Daniel\") writes:\n Daniel> old point\n"
    " Daniel> Keith> older\n\nDaniel,\n\nmine.\n", "Daniel,\n\nmine.\n", 3, 2 },
  { ">>>>> \"Kent\" == Kent M Pitman <kmp@x> writes:\n\n    Kent> a\n    Kent>\n    Kent> b\nok\n",
    "ok\n", 4, 1 },
  /* a prompt the attributions do not name, or a name with no space after its ">", stays */
  { "Bob wrote:\n> q\nTry:\n mysql> select 1;\n", "Try:\n mysql> select 1;\n", 1, 2 },
  { "Daniel wrote:\n> q\n Daniel>not cited\n", " Daniel>not cited\n", 1, 1 },
  { " Daniel> nobody named him\n", " Daniel> nobody named him\n", 0, 1 },
  /* a wrapped attribution's address is no name */
  { "On Fri, 13 Jan 2006, Yves <y at\nsita.lu> wrote:\n> sita.lu> wrote:\n>> q\nok\n", "ok\n", 2, 1 },
  { "Run it in mysql:\n mysql> select 1;\n", "Run it in mysql:\n mysql> select 1;\n", 0, 2 },
  { " Daniel> as Bob wrote:\nok\n", " Daniel> as Bob wrote:\nok\n", 0, 2 },
  { ">>>>> Danielle writes:\n Daniel> x\n", " Daniel> x\n", 1, 1 },
  { "In article <a@comtele.org>, Eli wrote:\n> q\n<thomas at apestaart dot\norg> License: GPL\n",
    "<thomas at apestaart dot\norg> License: GPL\n", 1, 2 },
  { " >>Dennis Ritchie <dmr@bell-labs.com> wrote:\n dmr>> old\nnew\n", "new\n", 2, 1 },
  /* Supercite's initials of the name before the address (Emacs's "|--==>" attribution) */
  { "|--==> On Fri, 10 Feb 2012, Jonathan Lange <jml at x.net> said:\n\n  JL> old\n  >>older\nnew\n",
    "new\n", 2, 1 },
  { "|--==> On Tue, 9 Mar 2010, \"Esteve Fernandez\" <e at x.net> said:\n  EF> old\nnew\n", "new\n", 1, 1 },
  { "|--==> On Wed, 8 Feb 2012, Glyph <glyph at x.com> said:\n  G> old\nnew\n", "new\n", 1, 1 },
  { "Glyph Lefkowitz <glyph at x.com> writes:\n  GL> old\nnew\n", "new\n", 1, 1 },
  /* every capitalised word counts, and capitals only */
  { "Ramiro Alba Queipo <raq at x.es> said:\n> q\n  AQ> kept\n", "  AQ> kept\n", 1, 1 },
  { "Jonathan Lange <jml at x.net> said:\n> q\n  jl> kept\n", "  jl> kept\n", 1, 1 },
  { "Bob Smith <b at x.net> said:\n> q\n  JL> kept\n", "  JL> kept\n", 1, 1 },
  { "", "", 0, 0 },
};

/* A body of 20,000 lines each cited by another name, and 20,000 lines
 * naming the quoting: each name is looked up in few lines, a few times
 * (all of them in all, once a line, were 10^8 comparisons); the cited
 * lines no attribution gives stay, the one given is quoted wherever it
 * comes back. */
static void
test_quote_many_names (void)
{
  g_autoptr (GString) body = g_string_new ("Kent wrote:\n");
  OwnText own;

  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (body, " Kent> k\n n%u> x\nBob wrote %u\n", i, i);
  quote_own_text (body->str, &own);
  g_assert_cmpuint (own.quoted_lines, ==, 20000);
  g_assert_cmpuint (own.own_lines, ==, 40000);
  own_text_clear (&own);
}

/* The text the spans of @body make. */
static char *
spans_text (const char *body, const GArray *spans)
{
  GString *out = g_string_new (NULL);

  for (guint k = 0; k < spans->len; k++)
    g_string_append_len (out, body + g_array_index (spans, OwnSpan, k).offset,
                         g_array_index (spans, OwnSpan, k).length);
  return g_string_free (out, FALSE);
}

static void
test_quote (gconstpointer data)
{
  gsize i = (const __typeof__ (quote_cases[0]) *) data - quote_cases;
  OwnText own;

  quote_own_text (quote_cases[i].body, &own);
  if (strcmp (own.text, quote_cases[i].own) != 0 || own.quoted_lines != quote_cases[i].quoted ||
      own.own_lines != quote_cases[i].own_lines)
    g_test_fail_printf ("quote case %zu: got '%s' (%u quoted, %u own), expected '%s' (%u, %u)", i,
             own.text, own.quoted_lines, own.own_lines, quote_cases[i].own,
             quote_cases[i].quoted, quote_cases[i].own_lines);
  /* Every case's own text is made of pieces of its body. */
  if (own.spans == NULL)
    g_test_fail_printf ("quote case %zu: no spans", i);
  else
    {
      g_autofree char *joined = spans_text (quote_cases[i].body, own.spans);

      if (strcmp (joined, own.text) != 0)
        g_test_fail_printf ("quote case %zu: spans give '%s', not '%s'", i, joined, own.text);
    }
  own_text_clear (&own);
}

/* Where own text is in the body: blank lines collapsed into the line
 * end before the next line, a last line without its end, and the one
 * body whose own text is not made of its pieces. */
static void
test_quote_spans (void)
{
  static const struct {
    const char *body;
    guint n;               /* spans; G_MAXUINT: none (NULL) */
    guint32 spans[6];
  } cases[] = {
    { "A\n\nB\n", 1, { 0, 5 } },                       /* the whole body */
    { "A\n   \nB\n", 2, { 0, 2, 5, 3 } },               /* the blank line is not empty */
    { "A\n\n\n\nB\n", 2, { 0, 2, 4, 3 } },              /* a run of blank lines is one */
    { "> q\nA\n> q\nB\n", 2, { 4, 2, 10, 2 } },          /* interleaved */
    { "x\ny", 2, { 0, 3, 1, 1 } },                       /* "x\ny" then a line end */
    { "\n\nx\n\n", 1, { 2, 2 } },
    { "", 0, { 0 } },
    { "only", G_MAXUINT, { 0 } },                        /* "only\n": no line end to take */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      OwnText own;

      quote_own_text (cases[i].body, &own);
      if (cases[i].n == G_MAXUINT)
        g_assert_null (own.spans);
      else
        {
          g_autofree char *joined = NULL;

          g_assert_nonnull (own.spans);
          g_assert_cmpuint (own.spans->len, ==, cases[i].n);
          for (guint k = 0; k < cases[i].n; k++)
            {
              g_assert_cmpuint (g_array_index (own.spans, OwnSpan, k).offset, ==, cases[i].spans[2 * k]);
              g_assert_cmpuint (g_array_index (own.spans, OwnSpan, k).length, ==, cases[i].spans[2 * k + 1]);
            }
          joined = spans_text (cases[i].body, own.spans);
          g_assert_cmpstr (joined, ==, own.text);
        }
      own_text_clear (&own);
    }
}

/* Text → text without binaries, and what was found. */
static void
test_binary (void)
{
  /* Ten full uuencoded lines without "begin": a later part of a split post. */
  g_autoptr (GString) bare = g_string_new ("part 2 of 3\n");
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) text_attachment_free);
  g_autoptr (GString) prose = g_string_new ("MAKE NO MISTAKE\nbegin 644\nend\n");
  TextFlags flags;

  for (int i = 0; i < 10; i++)
    g_string_append (bare, "M5&AE('%U:6-K(&)R;W=N(&9O>\"!J=6UP<R!O=F5R('1H92!L87IY(&1O9R$A\n");
  g_string_append (bare, "thanks\n");
  flags = binary_strip (bare, found);
  g_assert_cmpstr (bare->str, ==, "part 2 of 3\nthanks\n");
  g_assert_cmpint (flags, ==, TEXT_FLAG_UUENCODE);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpint (((TextAttachment *) found->pdata[0])->size, ==, 450);

  /* Prose that merely looks like it is left alone. */
  flags = binary_strip (prose, found);
  g_assert_cmpstr (prose->str, ==, "MAKE NO MISTAKE\nbegin 644\nend\n");
  g_assert_cmpint (flags, ==, 0);
}

/* @rule leaves each of @texts as it is, and says so. */
static void
assert_stays (TextFlags (*rule) (GString *), const char *const *texts, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GString) text = g_string_new (texts[i]);

      g_assert_cmpint (rule (text), ==, 0);
      g_assert_cmpstr (text->str, ==, texts[i]);
    }
}

/* pipermail keeps a base64 body without its Content-Transfer-Encoding:
 * all of a part that is one base64 body and reads as text is decoded;
 * base64 among prose, a single line, a digest in hex, lines of two
 * widths and binary data stay as they are. */
static void
test_undeclared_base64 (void)
{
  static const char *const stay[] = {
    "Hi,\nSGksCgpJIGFtIHdyaXRpbmcgYW4gYXBwbGljYXRpb24gd2hpY2ggdHJhbnNmZXIgZGF0YSBiZXR3\n"
    "ZWVuIGNsaWVudHMgd2hpY2ggYXJlCg==\n",
    "SGksCgpJIGFtIHdyaXRpbmcgYW4gYXBwbGljYXRpb24gd2hpY2ggdHJhbnNmZXIgZGF0YSBiZXR3\n",
    "da39a3ee5e6b4b0d3255bfef95601890afd80709da39a3ee5e6b4b0d3255bfef95601890afd80709\n"
    "da39a3ee5e6b4b0d3255bfef95601890afd80709da39a3ee5e6b4b0d3255bfef95601890afd80709\n",
    "SGksCgpJIGFtIHdyaXRpbmcgYW4gYXBwbGljYXRpb24gd2hp\n"
    "SGksCgpJIGFtIHdyaXRpbmcgYW4gYXBwbGljYXRpb24gd2hpY2ggdHJhbnNmZXIgZGF0YSBiZXR3\n",
    "SGksCgpJIGFtIHdyaXRpbmcgYW4gYXBwbGljYXRpb24gd2hpY2ggdHJhbnNmZXIgZGF0YSBiZXR3\n"
    "ZWVuIGNsaWVudHMgd2hpY2ggYXJlCg==\nthanks\n",
    "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdead\n"
    "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdead\n",
    /* a gzip file's first 57 bytes, twice */
    "H4sIAAAAAAAAA+3OMQrCQBBG4alzij2BZHYzZgvBg1jYWEhIE2Ih3j2xEHsRBHnfK/5iptlqTmOZ\n"
    "H4sIAAAAAAAAA+3OMQrCQBBG4alzij2BZHYzZgvBg1jYWEhIE2Ih3j2xEHsRBHnfK/5iptlqTmOZ\n",
  };

  assert_stays (undeclared_base64, stay, G_N_ELEMENTS (stay));
  {
    /* "Hi,\r\n\r\nI am writing an application which transfer data between\r\n
     * clients which are\r\nconnected" in lines of 76, blank lines around */
    g_autoptr (GString) text = g_string_new (
      "\nSGksDQoNCkkgYW0gd3JpdGluZyBhbiBhcHBsaWNhdGlvbiB3aGljaCB0cmFuc2ZlciBkYXRhIGJl\n"
      "dHdlZW4NCmNsaWVudHMgd2hpY2ggYXJlDQpjb25uZWN0ZWQ=\n\n\n");

    g_assert_cmpint (undeclared_base64 (text), ==, TEXT_FLAG_BASE64_UNDECLARED);
    g_assert_cmpstr (text->str, ==,
                     "Hi,\n\nI am writing an application which transfer data between\nclients which are\nconnected");
  }
}

/* The same for quoted-printable, whose signs are weaker: every "=" an
 * escape or a soft line break, no line over 76, and two signs (a soft
 * break at 76, "=3D", an 8-bit byte, a trailing "=20") outside URLs and
 * OpenPGP armor. */
static void
test_undeclared_qp (void)
{
  static const char *const stay[] = {
    "x = 3\nCaf=E9 =E9\n",                                   /* a bare "=" */
    "see http://x.org/forum.php?id=92&f=55&g=C3\n",           /* a URL's query */
    "one =E9 only\n",                                         /* one sign */
    "virtual task !=\nphysical thread =E9\n",                /* a short line's "=" */
    "Signed.\n-----BEGIN PGP SIGNATURE-----\n\niD8DBQE/o4IHIxrewQRu18vXlPyU=\n=B5+C\n"
    "-----END PGP SIGNATURE-----\n> -----BEGIN PGP SIGNATURE-----\n-----BEGIN PGP SIGNATURE-----\n"
    "YyvmDKCM1rWq7ZeicPPwQMU=\n=D5Wy\n-----END PGP SIGNATURE-----\n",
    "Caf=E9 =E9 but this line is longer than seventy-six characters, which no encoder writes\n",
    "Caf=e9 =e9\n",                                            /* small hex digits */
  };

  assert_stays (undeclared_qp, stay, G_N_ELEMENTS (stay));
  {
    g_autoptr (GString) text = g_string_new (
      "Fr=E9d=E9ric wrote:\n> hello =3D world\nThe caf=E9 on the corner of the street we walked along yesterday=\n"
      " is closed=20\nsee http://x.org/?id=3D1\n");

    g_assert_cmpint (undeclared_qp (text), ==, TEXT_FLAG_QP_UNDECLARED);
    g_assert_cmpstr (text->str, ==,
                     "Fr\xe9" "d\xe9ric wrote:\n> hello = world\nThe caf\xe9 on the corner of the street we walked "
                     "along yesterday is closed \nsee http://x.org/?id=1\n");
  }
}

/* A multipart body whose Content-Type pipermail dropped: its boundary
 * when at most a short preamble naming MIME comes before "--B", a
 * "Content-" line under it and "--B--" later; else none. */
static void
test_undeclared_multipart (void)
{
  static const struct {
    const char *text;
    const char *boundary;
  } cases[] = {
    { "--b1\nContent-Type: text/plain\n\nhi\n--b1--\n", "b1" },
    { "\nThis is a multi-part message in MIME format.\n\n--=_x y\ncontent-type: text/plain\n\nhi\n--=_x y--\n",
      "=_x y" },
    { "--b1\nContent-Type: text/plain\n\nhi\n", NULL },                       /* no end */
    { "--b1\nX-Type: text/plain\n\nhi\n--b1--\n", NULL },                    /* no Content- line */
    { "--b1\n\nContent-Type: text/plain\n\nhi\n--b1--\n", NULL },
    { "The browser sends:\n--b1\nContent-Type: text/plain\n\nhi\n--b1--\n", NULL },  /* prose */
    { "A MIME message.\nOne.\nTwo.\nThree.\n--b1\nContent-Type: text/plain\n\nhi\n--b1--\n", NULL },
    { "--b1\nContent-Type: text/plain\n\nhi\n--b1--x\n", NULL },
    { "--b\"1\nContent-Type: text/plain\n\nhi\n--b\"1--\n", NULL },         /* no boundary character */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) text = g_string_new (cases[i].text);
      g_autofree char *boundary = undeclared_multipart_boundary (text);

      g_assert_cmpstr (boundary, ==, cases[i].boundary);
    }
}

/* The rest of a multipart/alternative after a fragment's text, where
 * Mailman split a message: where its first boundary line is when every
 * part from there on is HTML and nothing but blank lines follows the end
 * line (or the last part runs to the end); else 0. */
static void
test_undeclared_tail (void)
{
  static const struct {
    const char *text;
    gsize tail;
  } cases[] = {
    { "Kevin\n\n--000e\nContent-Type: text/html; charset=ISO-8859-1\n\n<div>x</div>\n\n--000e--\n\n", 7 },
    { "Kevin\n--b1\ncontent-type:text/HTML\n\n<p>x</p>\n--b1\nContent-Type: text/html\n\n<p>y</p>\n--b1--\n", 6 },
    { "Kevin\n--b1\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n", 6 },  /* cut */
    { "Kevin\n--b1\nContent-Type: text/html\n\n<div>the next split cut =\nthis\n", 6 },
    { "Kevin\n--b1\nContent-Type: text/html\n\n<p>--b1x</p>\n--b1--\n", 6 },  /* like the end, longer */
    { "Kevin\n--b1\nContent-Type: text/html\n\n<p>x</p>\n--b1--\nand then?\n", 0 },  /* text after */
    { "Kevin\n--b1\nContent-Type: text/plain\n\nx\n--b1--\n", 0 },
    { "Kevin\n--b1\nContent-Type: text/html\n\nx\n--b1\nContent-Type: image/png\n\nx\n--b1--\n", 0 },
    { "--b1\nContent-Type: text/html\n\n<p>x</p>\n--b1--\n", 0 },       /* no text before */
    { "\n\n--b1\nContent-Type: text/html\n\n<p>x</p>\n--b1--\n", 0 },
    { "The browser sends:\n--b1\nContent-Disposition: form-data; name=\"f\"\n\nx\n--b1--\n", 0 },
    { "Kevin\n--b1\n\nContent-Type: text/html\n\nx\n--b1--\n", 0 },      /* no header under it */
    { "Kevin\n--b1\nContent-Description: a page\n\nx\n--b1--\n", 0 },     /* no type */
    { "Kevin\n-- \nContent-Type: text/html\n\nx\n", 0 },                   /* a signature's mark */
    { "Kevin\n-- \n--b1\nContent-Type: text/html\n\nx\n--b1--\n", 10 },     /* lines in a row */
    { "Kevin\n--a note\n--b1\nContent-Type: text/html\n\nx\n--b1--\n", 15 },
    { "MIME-Version: 1.0\nContent-Type: multipart/alternative;\n\tboundary=\"--4256\"\n\n"
      "----4256\nContent-Type: text/html\n\n<p>Loans!</p>\n----4256--\n", 0 },   /* headers in the body */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) text = g_string_new (cases[i].text);

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpuint (undeclared_alternative_tail (text), ==, cases[i].tail);
    }
}

/* Lines that are uu-shaped but not full (a shouted 45-character line
 * starting with 'A' claims 33 bytes) were scanned again from each line:
 * 16,000 took 4 s, a message at the 8 MiB limit minutes.  Linear now;
 * and a real run after such lines is still found. */
static void
test_binary_linear (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) text_attachment_free);
  g_autoptr (GTimer) timer = NULL;
  gsize shouting;
  TextFlags flags;

  for (int i = 0; i < 180000; i++)
    g_string_append (text, "ALL CAPS SHOUTING LINE FOR TESTING THE SCAN!!\n");
  shouting = text->len;
  g_string_append (text, "\n");
  for (int i = 0; i < 10; i++)
    g_string_append (text, "M5&AE('%U:6-K(&)R;W=N(&9O>\"!J=6UP<R!O=F5R('1H92!L87IY(&1O9R$A\n");
  g_string_append (text, "after\n");
  timer = g_timer_new ();
  flags = binary_strip (text, found);
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 5.0);
  g_assert_cmpint (flags, ==, TEXT_FLAG_UUENCODE);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpuint (text->len, ==, shouting + strlen ("\nafter\n"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  mail_init ();
  TABLE_TESTS_ADD ("/text/html", html_cases, test_html);
  TABLE_TESTS_ADD ("/text/quote", quote_cases, test_quote);
  g_test_add_func ("/text/quote-many-names", test_quote_many_names);
  g_test_add_func ("/text/quote-spans", test_quote_spans);
  g_test_add_func ("/text/html-deep", test_html_deep);
  g_test_add_func ("/text/binary", test_binary);
  g_test_add_func ("/text/binary-linear", test_binary_linear);
  g_test_add_func ("/text/base64-rule", test_undeclared_base64);
  g_test_add_func ("/text/qp-rule", test_undeclared_qp);
  g_test_add_func ("/text/multipart-rule", test_undeclared_multipart);
  g_test_add_func ("/text/multipart-tail-rule", test_undeclared_tail);
  g_assert_cmpuint (fixture_tests_add ("text", "/text", test_fixture), >=, 9);
  return g_test_run ();
}
