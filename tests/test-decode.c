/* test-decode.c — header decoding, identifiers and charsets, as tables. */
#include <glib.h>
#include <string.h>

#include "fixtures.h"

#include "charset.h"
#include "mail.h"
#include "msgid.h"
#include "rfc2047.h"

static const struct {
  const char *raw;
  const char *fallback;
  const char *utf8;
} words[] = {
  /* gmime#133: GMime 3.2.13 gives "Hello" */
  { "=?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?=", NULL, "Hello world" },
  /* a multi-byte character split across two words ("é" = C3 A9) */
  { "=?UTF-8?B?Y2Fmw6k=?= =?UTF-8?Q?=C3?= =?UTF-8?Q?=A9?=", NULL, "caf\xc3\xa9\xc3\xa9" },
  { "=?ISO8859-1?Q?a?=", NULL, "a" },
  { "(=?ISO8859-1?Q?a?= b)", NULL, "(a b)" },
  { "(=?ISO8859-1?Q?a?= =?ISO8859-1?Q?b?=)", NULL, "(ab)" },
  { "(=?ISO8859-1?Q?a?=  =?ISO8859-1?Q?b?=)", NULL, "(ab)" },
  { "(=?ISO8859-1?Q?a?=\n    =?ISO8859-1?Q?b?=)", NULL, "(ab)" },
  { "(=?ISO8859-1?Q?a_b?=)", NULL, "(a b)" },
  { "(=?ISO8859-1?Q?a?= =?ISO8859-2?Q?_b?=)", NULL, "(a b)" },
  { "=?ISO8859-1?Q?Olle_J=E4rnefors?=", NULL, "Olle J\xc3\xa4rnefors" },
  { "=?iso-8859-1?q?G=F6ran?= Lastname", NULL, "G\xc3\xb6ran Lastname" },
  { "=?utf-8*en?q?caf=C3=A9?=", NULL, "caf\xc3\xa9" },
  { "=?x-unknown?q?caf=E9?=", NULL, "caf\xc3\xa9" },   /* bad charset: windows-1252 */
  /* raw 8-bit: UTF-8 kept, Latin-1 converted (GMime drops these) */
  { "Caf\xc3\xa9 cr\xc3\xa8me", NULL, "Caf\xc3\xa9 cr\xc3\xa8me" },
  { "Caf\xe9 cr\xe8me", NULL, "Caf\xc3\xa9 cr\xc3\xa8me" },
  { "\xc4pfel", "iso-8859-1", "\xc3\x84pfel" },
  { "Prix: 5 \x80", NULL, "Prix: 5 \xe2\x82\xac" },   /* windows-1252 euro */
  { "=?UTF-8?B?broken", NULL, "=?UTF-8?B?broken" },
  /* white space inside an encoded word (twisted-python): decoded */
  { "=?iso-8859-1?q?a\tpackage?=", NULL, "a package" },
  { "=?iso-8859-1?q?caf=E9 cr=E8me?= =?iso-8859-1?q?_br=FBl=E9e?=", NULL, "caf\xc3\xa9 cr\xc3\xa8me br\xc3\xbbl\xc3\xa9" "e" },
  /* an unclosed word before another is not a word */
  { "=?iso-8859-1?q?open =?iso-8859-1?q?b?=", NULL, "=?iso-8859-1?q?open b" },
  { "plain\ttext  here", NULL, "plain text  here" },
  { "", NULL, "" },
};

static void
test_rfc2047 (gconstpointer data)
{
  gsize i = (const __typeof__ (words[0]) *) data - words;
  g_autofree char *got = rfc2047_decode (words[i].raw, strlen (words[i].raw), words[i].fallback);
  if (strcmp (got, words[i].utf8) != 0)
    g_test_fail_printf ("'%s': got '%s', expected '%s'", words[i].raw, got, words[i].utf8);
  g_assert_true (g_utf8_validate (got, -1, NULL));
}

static const struct {
  const char *raw;
  const char *id;
} ids[] = {
  { "<abc@example.com>", "abc@example.com" },
  { "  <abc@example.com>  ", "abc@example.com" },
  { "<abc@example.com>#1/1", "abc@example.com" },
  { "<abc@example.com#1/1>", "abc@example.com" },
  { "<abc@googlegroups.com>#12/34", "abc@googlegroups.com" },
  { "abc@example.com", "abc@example.com" },
  { "<abc@exa\n mple.com>", "abc@example.com" },
  { "<abc@example.com", "abc@example.com" },
  { "<abc#1@example.com>", "abc#1@example.com" },
  { "", NULL },
  { "   ", NULL },
  { "<>", NULL },
};

static void
test_msgid (gconstpointer data)
{
  gsize i = (const __typeof__ (ids[0]) *) data - ids;
  g_autofree char *got = msgid_normalize (ids[i].raw, strlen (ids[i].raw));
  if (g_strcmp0 (got, ids[i].id) != 0)
    g_test_fail_printf ("'%s': got %s, expected %s", ids[i].raw, got ? got : "NULL",
             ids[i].id ? ids[i].id : "NULL");
}

static const struct {
  const char *raw;
  const char *joined;  /* ids joined by spaces */
} lists[] = {
  { "<a@x> <b@x>\n <c@x>", "a@x b@x c@x" },
  { "<a@x><b@x>", "a@x b@x" },
  { "<a@x> <a@x> <b@x>", "a@x b@x" },
  /* only bracketed tokens are ids: an address is not (twisted-python) */
  { "glyph@twistedmatrix.com", "" },
  { "a@x b@y", "" },
  { "Other person's message of \"Sat, 07 Apr 2007\" <200704070053.46646.other.person@example.com>",
    "200704070053.46646.other.person@example.com" },
  { "<200704070053.46646.other.person@example.com", "" },
  { "<broken <a@x>", "a@x" },
  { "a@x b@x", "" },
  { "a@x\n b@x", "" },
  { "<a@x>#1/1", "a@x" },
  { "", "" },
};

/* In-Reply-To as old mailers wrote it. */
static const struct {
  const char *raw;
  const char *joined;
} in_reply_to[] = {
  { "Message from Glyph Lefkowitz <glyph@twistedmatrix.com> \n"
    "   of \"Thu, 25 Jul 2002 01:59:47 CDT.\" <20020725.015947.78705508.glyph@twistedmatrix.com>",
    "20020725.015947.78705508.glyph@twistedmatrix.com" },
  { "<20011023.A1@mel.interspace.dk>; from sune-twisted@mel.interspace.dk on Wed, Oct 23, 2001",
    "20011023.A1@mel.interspace.dk" },
  { "Your message at 10:20:30 on Monday, 9 November 2009", "" },
  { "glyph@twistedmatrix.com", "" },
  { "<a@x> (Bob's message of \"Mon, 1 Jan 2001\")", "a@x" },
  { "<a@x> <b@x>", "a@x b@x" },
};

/* Checks that @parse reads @raw as the ids in @joined (space-separated). */
static void
check_ids (GPtrArray *(*parse) (const char *, gsize), const char *raw, const char *expected)
{
  g_autoptr (GPtrArray) got = parse (raw, strlen (raw));
  g_autofree char *joined = NULL;

  g_ptr_array_add (got, NULL);
  joined = g_strjoinv (" ", (char **) got->pdata);
  if (strcmp (joined, expected) != 0)
    g_test_fail_printf ("'%s': got '%s', expected '%s'", raw, joined, expected);
}

static void
test_in_reply_to (gconstpointer data)
{
  gsize i = (const __typeof__ (in_reply_to[0]) *) data - in_reply_to;

  check_ids (msgid_parse_in_reply_to, in_reply_to[i].raw, in_reply_to[i].joined);
}

static void
test_lists (gconstpointer data)
{
  gsize i = (const __typeof__ (lists[0]) *) data - lists;

  check_ids (msgid_parse_list, lists[i].raw, lists[i].joined);
}

/* Bytes, declared charset → text, charset used, guessed. */
static const struct {
  const char *bytes;
  const char *declared;
  const char *text;
  const char *used;
  gboolean guessed;
} charset_cases[] = {
  { "caf\xe9", "iso-8859-1", "caf\xc3\xa9", "windows-1252", FALSE },
  { "\x93quoted\x94", "iso-8859-1", "\xe2\x80\x9cquoted\xe2\x80\x9d", "windows-1252", FALSE },
  { "caf\xc3\xa9", "us-ascii", "caf\xc3\xa9", "utf-8", TRUE },       /* label wrong: UTF-8 */
  { "caf\xc3\xa9", "iso-8859-1", "caf\xc3\xa9", "utf-8", TRUE },
  { "caf\xc3\xa9", NULL, "caf\xc3\xa9", "utf-8", FALSE },            /* undeclared UTF-8 */
  { "caf\xe9", NULL, "caf\xc3\xa9", "windows-1252", TRUE },           /* too short to detect */
  { "caf\xe9", "utf-8", "caf\xc3\xa9", "windows-1252", TRUE },        /* invalid in label */
  { "caf\xe9", "x-unknown", "caf\xc3\xa9", "windows-1252", TRUE },
  { "plain", "utf-8", "plain", "us-ascii", FALSE },
  /* Russian in windows-1251 and KOI8-R, undeclared: uchardet's job */
  { "\xcf\xf0\xe8\xe2\xe5\xf2, \xea\xe0\xea \xe4\xe5\xeb\xe0? \xdd\xf2\xee \xf2\xe5\xf1\xf2 "
    "\xed\xe0 \xf0\xf3\xf1\xf1\xea\xee\xec \xff\xe7\xfb\xea\xe5.", NULL,
    "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xba\xd0\xb0\xd0\xba "
    "\xd0\xb4\xd0\xb5\xd0\xbb\xd0\xb0? \xd0\xad\xd1\x82\xd0\xbe \xd1\x82\xd0\xb5\xd1\x81\xd1\x82 "
    "\xd0\xbd\xd0\xb0 \xd1\x80\xd1\x83\xd1\x81\xd1\x81\xd0\xba\xd0\xbe\xd0\xbc "
    "\xd1\x8f\xd0\xb7\xd1\x8b\xd0\xba\xd0\xb5.", "windows-1251", TRUE },
  { "\xf0\xd2\xc9\xd7\xc5\xd4, \xcb\xc1\xcb \xc4\xc5\xcc\xc1? \xfc\xd4\xcf \xd4\xc5\xd3\xd4 "
    "\xce\xc1 \xd2\xd5\xd3\xd3\xcb\xcf\xcd \xd1\xda\xd9\xcb\xc5.", NULL,
    "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xba\xd0\xb0\xd0\xba "
    "\xd0\xb4\xd0\xb5\xd0\xbb\xd0\xb0? \xd0\xad\xd1\x82\xd0\xbe \xd1\x82\xd0\xb5\xd1\x81\xd1\x82 "
    "\xd0\xbd\xd0\xb0 \xd1\x80\xd1\x83\xd1\x81\xd1\x81\xd0\xba\xd0\xbe\xd0\xbc "
    "\xd1\x8f\xd0\xb7\xd1\x8b\xd0\xba\xd0\xb5.", "koi8-r", TRUE },
};

static void
test_charset (gconstpointer data)
{
  gsize i = (const __typeof__ (charset_cases[0]) *) data - charset_cases;
  CharsetResult cs;
  g_autofree char *out = charset_to_utf8 (charset_cases[i].bytes, strlen (charset_cases[i].bytes),
                                          charset_cases[i].declared, &cs);

  if (g_strcmp0 (out, charset_cases[i].text) != 0 || g_strcmp0 (cs.used, charset_cases[i].used) != 0 ||
      cs.guessed != charset_cases[i].guessed)
    g_test_fail_printf ("case %zu: got '%s' (%s, guessed %d), expected '%s' (%s, guessed %d)", i, out,
             cs.used, cs.guessed, charset_cases[i].text, charset_cases[i].used,
             charset_cases[i].guessed);
}

/* UTF-16 and UTF-32 parts: NUL bytes are half of every character. */
static void
test_charset_wide (void)
{
  static const struct {
    const char *bytes;
    gsize len;
    const char *declared;
    const char *text;
    const char *used;
  } cases[] = {
    { "h\0i\0!\0", 6, "utf-16le", "hi!", "utf-16le" },
    { "\0h\0i", 4, "UTF-16BE", "hi", "utf-16be" },
    { "\xff\xfeh\0\xe9\0", 6, "utf-16", "h\xc3\xa9", "utf-16" },     /* BOM, little-endian */
    { "h\0\0\0i\0\0\0", 8, "utf-32le", "hi", "utf-32le" },
    { "\0\0h\0", 4, "utf-16le", "\xef\xbf\xbdh", "utf-16le" },         /* U+0000 */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CharsetResult cs;
      g_autofree char *out = charset_to_utf8 (cases[i].bytes, cases[i].len, cases[i].declared, &cs);

      if (strcmp (out, cases[i].text) != 0 || strcmp (cs.used, cases[i].used) != 0 || cs.guessed)
        g_error ("wide case %zu: got '%s' (%s, guessed %d)", i, out, cs.used, cs.guessed);
    }
  {
    /* Odd length: not UTF-16 after all; read as bytes, and guessed. */
    CharsetResult cs;
    g_autofree char *out = charset_to_utf8 ("abc", 3, "utf-16le", &cs);
    g_assert_cmpstr (out, ==, "abc");
  }
}

static void
test_charset_nul (void)
{
  g_autofree char *c = charset_to_utf8 ("a\0b", 3, NULL, NULL);
  g_autofree char *d = charset_to_utf8 ("\x81\x8d", 2, NULL, NULL);

  g_assert_cmpstr (c, ==, "a\xef\xbf\xbd" "b");
  g_assert_true (g_utf8_validate (d, -1, NULL));
}

/* Text is ASCII, copied as it is, only when no byte of it is 0x80 or
 * more: one é (Latin-1) at each place of 21 bytes, in the eight-byte
 * blocks and in the tail, is converted; ASCII with a SUB stays valid. */
static void
test_charset_ascii (void)
{
  for (gsize at = 0; at < 21; at++)
    {
      char bytes[22], want[23];
      g_autofree char *out = NULL;

      memset (bytes, 'a', 21);
      bytes[21] = '\0';
      bytes[at] = '\xe9';
      memset (want, 'a', 22);
      want[22] = '\0';
      memcpy (want + at, "\xc3\xa9", 2);
      out = charset_to_utf8 (bytes, 21, "iso-8859-1", NULL);
      g_assert_cmpstr (out, ==, want);
    }
  {
    g_autofree char *sub = charset_to_utf8 ("a\x1a" "b", 3, "us-ascii", NULL);

    g_assert_cmpstr (sub, ==, "a\xef\xbf\xbd" "b");
  }
}

/* Converters are cached per thread: a failed or stateful conversion must
 * not leave state behind for the next message in the same charset. */
static void
test_charset_reuse (void)
{
  /* "日本" in ISO-2022-JP: ESC $ B, two JIS characters, ESC ( B */
  static const char jis[] = "\x1b$BF|K\\\x1b(B";
  static const char truncated[] = "\x1b$BF|K";    /* ends in the JIS shift */

  for (int round = 0; round < 2; round++)
    {
      CharsetResult cs;
      g_autofree char *a = charset_to_utf8 (jis, strlen (jis), "iso-2022-jp", &cs);
      g_autofree char *b = charset_to_utf8 (truncated, strlen (truncated), "iso-2022-jp", NULL);
      g_autofree char *c = charset_to_utf8 ("\xe9t\xe9", 3, "iso-8859-1", NULL);

      g_assert_cmpstr (a, ==, "\xe6\x97\xa5\xe6\x9c\xac");
      g_assert_cmpstr (cs.used, ==, "iso-2022-jp");
      g_assert_false (cs.guessed);
      g_assert_true (g_utf8_validate (b, -1, NULL));
      g_assert_cmpstr (c, ==, "\xc3\xa9t\xc3\xa9");
    }
}

/* A whole message through GMime: the fields deja stores. */
static void
test_message (void)
{
  static const char msg[] =
    "From: =?UTF-8?B?SsO8cmdlbg==?= =?UTF-8?B?IE3DvGxsZXI=?= <Juergen@Example.COM>\n"
    "Subject: =?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?=\n"
    "Date: Mon, 17 Nov 97 10:20:30 EST\n"
    "Message-ID: <x1@example.com>#1/1\n"
    "References: <r1@example.com>\n <r2@example.com>\n"
    "In-Reply-To: <r2@example.com>\n"
    "Newsgroups: comp.lang.c,Comp.Std.C\n"
    "Content-Type: text/plain; charset=iso-8859-1\n"
    "Content-Transfer-Encoding: quoted-printable\n"
    "\n"
    "Gr=FC=DFe\n";
  g_autoptr (MailRecord) r = NULL;

  mail_init ();
  r = mail_record_parse (msg, sizeof msg - 1);
  g_assert_cmpstr (r->from_name, ==, "J\xc3\xbcrgen M\xc3\xbcller");
  g_assert_cmpstr (r->from_addr, ==, "juergen@example.com");
  g_assert_cmpstr (r->subject, ==, "Hello world");
  g_assert_cmpstr (r->date, ==, "1997-11-17T15:20:30");
  g_assert_cmpstr (r->message_id, ==, "x1@example.com");
  g_assert_cmpuint (r->references->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (r->references, 1), ==, "r2@example.com");
  g_assert_cmpuint (r->in_reply_to->len, ==, 1);
  g_assert_cmpuint (r->newsgroups->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (r->newsgroups, 1), ==, "comp.std.c");
  g_assert_cmpstr (r->body, ==, "Gr\xc3\xbc\xc3\x9f" "e\n");
  g_assert_cmpint (r->flags, ==, 0);
}

/* Broken mail is data: NULLs and flags, never a refusal. */
static void
test_broken_message (void)
{
  static const char msg[] =
    "From: nobody\n"
    "Date: RANDOM_Wed, 20 Jan 2016\n"
    "Message-ID:\n"
    "Subject: Caf\xe9\n"
    "\n"
    "body \xe9\n";
  g_autoptr (MailRecord) r = NULL;
  g_autofree char *flags = NULL;

  mail_init ();
  r = mail_record_parse (msg, sizeof msg - 1);
  g_assert_null (r->message_id);
  g_assert_null (r->date);
  g_assert_cmpstr (r->date_raw, ==, "RANDOM_Wed, 20 Jan 2016");
  g_assert_cmpstr (r->subject, ==, "Caf\xc3\xa9");
  g_assert_cmpstr (r->body, ==, "body \xc3\xa9\n");
  flags = mail_flags_to_string (r->flags);
  g_assert_nonnull (strstr (flags, "no-message-id"));
  g_assert_nonnull (strstr (flags, "bad-date"));
  g_assert_nonnull (strstr (flags, "raw-8bit-headers"));
  g_assert_nonnull (strstr (flags, "charset-guessed"));
}

/* A message is read as a MIME entity (GMime's message object also reads
 * addresses and dates, which deja does itself), with what GMime's
 * message gave: its own headers are those that are not Content-*, and a
 * From-line before the headers is skipped. */
static void
test_entity_headers (void)
{
  static const char content_only[] = "Content-Type: text/plain; charset=utf-8\n\nhello\n";
  static const char content_8bit[] =
    "Subject: plain\nFrom: a@example.com\nContent-Description: caf\xe9\n\nbody\n";
  static const char from_line[] =
    "From old@example.com Mon Jan  1 00:00:00 2001\nSubject: after a From-line\n"
    "From: a@example.com\n\nbody\n";
  g_autoptr (MailRecord) a = NULL, b = NULL, c = NULL;

  mail_init ();
  a = mail_record_parse (content_only, sizeof content_only - 1);
  g_assert_true (a->flags & MAIL_FLAG_NO_HEADERS);
  g_assert_cmpstr (a->body, ==, "hello\n");
  b = mail_record_parse (content_8bit, sizeof content_8bit - 1);
  g_assert_false (b->flags & MAIL_FLAG_NO_HEADERS);
  g_assert_false (b->flags & MAIL_FLAG_RAW_8BIT_HEADERS);
  g_assert_cmpstr (b->subject, ==, "plain");
  c = mail_record_parse (from_line, sizeof from_line - 1);
  g_assert_false (c->flags & MAIL_FLAG_NO_HEADERS);
  g_assert_cmpstr (c->subject, ==, "after a From-line");
  g_assert_cmpstr (c->from_addr, ==, "a@example.com");
  g_assert_cmpstr (c->body, ==, "body\n");
}

/* Signs of a wrong reading (charset_anomalies()), and the reading of
 * undeclared 8-bit text that shows fewest (docs/text.md, "Charsets"). */
static void
test_anomalies (void)
{
  static const struct { const char *text; guint points; } cases[] = {
    { "Però no sé què fer.", 0 },
    { "Grüße aus München, 1½ Stunden, 20 m², ±5 °C.", 0 },
    { "¿Alguien sabe qué pasa? ¡Gracias! « Déjà vu » — 5 €.", 0 },
    { "Příkaz nefunguje a žádná chyba.", 0 },
    { "Привет, как дела?", 0 },
    { "Pøíkaz nefunguje a ¾ádná chyba.", 2 },       /* Latin-2 read as windows-1252 */
    { "nie dzia³a", 2 },
    { "per貌 no", 2 },                               /* Latin-1 read as GB18030 */
    { "ðÒÉ×ÅÔ", 4 },   /* KOI8-R read as windows-1252: a sign inside, all accented, a capital after a small */
    { "пРИВЕТ", 1 },                                /* windows-1251 read as KOI8-R */
    { "caf\xc2\x85 ok", 3 },                                            /* a C1 control */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].text);
      g_assert_cmpuint (charset_anomalies (cases[i].text), ==, cases[i].points);
    }
}

static void
test_undeclared_readings (void)
{
  static const struct { const char *bytes; const char *used; const char *text; } cases[] = {
    /* Latin-2 Polish: its windows-1252 reading has signs inside words */
    { "Cze\xb6\xe6, nie dzia\xb3" "a i \xbf" "aden b\xb3\xb1" "d", "iso-8859-2", "Cześć, nie działa i żaden błąd" },
    /* Catalan stays windows-1252 */
    { "Per\xf2 no s\xe9 qu\xe8 fer amb l'opci\xf3", "windows-1252", "Però no sé què fer amb l'opció" },
    /* KOI8-R: all-accented words in windows-1252, mixed case in windows-1251 */
    { "\xf0\xd2\xc9\xd7\xc5\xd4, \xcb\xc1\xcb \xc4\xc5\xcc\xc1?", "koi8-r", "Привет, как дела?" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CharsetResult cs;
      g_autofree char *text = charset_to_utf8 (cases[i].bytes, strlen (cases[i].bytes), NULL, &cs);

      g_assert_cmpstr (cs.used, ==, cases[i].used);
      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_true (cs.guessed);
    }
  /* a reading given by the caller is used, and is still a guess */
  {
    CharsetResult cs;
    g_autofree char *text = charset_to_utf8_reading ("P\xf8\xedkaz", 6, NULL, "iso-8859-2", &cs);

    g_assert_cmpstr (text, ==, "Příkaz");
    g_assert_cmpstr (cs.used, ==, "iso-8859-2");
    g_assert_true (cs.guessed);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  TABLE_TESTS_ADD ("/decode/rfc2047", words, test_rfc2047);
  TABLE_TESTS_ADD ("/decode/msgid", ids, test_msgid);
  TABLE_TESTS_ADD ("/decode/msgid-list", lists, test_lists);
  TABLE_TESTS_ADD ("/decode/in-reply-to", in_reply_to, test_in_reply_to);
  TABLE_TESTS_ADD ("/decode/charset", charset_cases, test_charset);
  g_test_add_func ("/decode/charset-nul", test_charset_nul);
  g_test_add_func ("/decode/charset-ascii", test_charset_ascii);
  g_test_add_func ("/decode/charset-wide", test_charset_wide);
  g_test_add_func ("/decode/charset-reuse", test_charset_reuse);
  g_test_add_func ("/decode/message", test_message);
  g_test_add_func ("/decode/broken-message", test_broken_message);
  g_test_add_func ("/decode/entity-headers", test_entity_headers);
  g_test_add_func ("/charset/anomalies", test_anomalies);
  g_test_add_func ("/charset/undeclared-readings", test_undeclared_readings);
  return g_test_run ();
}
