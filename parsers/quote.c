/* quote.c — the author's own words: a body without what it quotes.
 *
 * Line by line, a body is the author's text, or
 *   - a quoted line: ">" (nested, spaced or not, after up to three spaces),
 *     "|" or ":" at the start of the line followed by a space, another
 *     quote mark or nothing ("|" followed by anything just under an
 *     attribution), or a Supercite "AB>" prefix; Supercite's
 *     citation by a name after up to four spaces (" Daniel> ") where an
 *     attribution names that name; a paragraph of two or more lines
 *     quoted with ">" at one indentation of four spaces or more
 *     ("    > text"), but Python's ">>> " prompt;
 *   - an attribution: one to three lines ending in ":" just before quoted
 *     lines (or a snip mark, "[snip]", which stands for them), that name
 *     the quoting ("wrote", "writes", "In article <…>",
 *     "On DATE, X wrote:", and their translations); "In article <…>, X
 *     writes:" counts wherever it stands; Outlook Express's "X wrote in
 *     message news:<id>..." ends in its "..." instead;
 *   - a Google Groups marker ("- Hide quoted text -", "- Show quoted
 *     text -");
 *   - the signature: from the last "-- " line to the end (also "--"
 *     without the space, when at most 10 lines follow);
 *   - a forwarded or top-posted original: from "-----Original
 *     Message-----" (or a dash-framed title in another language followed
 *     by a header line), "Begin forwarded message:" or "---------- Forwarded
 *     message ----------" to the end, mutt's "----- Forwarded message
 *     from …" and MH's "------- Forwarded Message" to their end line; but
 *     when what follows the marker and its header lines ("From:",
 *     "Sent:", …) is quoted, the marker is only an attribution and a
 *     reply written below the quote is kept
 *     (Outlook Express quotes the original with ">"); Outlook's header
 *     block alone ("From:", then "Sent:", "To:", "Subject:" and the like,
 *     in its languages; Outlook for Mac's and Foxmail's "From:", "Date:",
 *     "To:", "Subject:" in that order; GMX's "Gesendet:", "Von:", "An:",
 *     "Betreff:"), below the reply and not quoted,
 *     marks the original the same way;
 *   - text the list software added, which is nobody's own words:
 *     pipermail's attachment notice (from "-------------- next part
 *     --------------" to the end, and "An HTML attachment was
 *     scrubbed..." with its Name/Type/Size/Desc/URL lines), Mailman's
 *     footer (a line of underscores, or a run of them glued to the end
 *     of the last line, followed within a few lines by the list's name
 *     or listinfo address, to the end), Google Groups' footer
 *     ("You received this message because you are subscribed to the
 *     Google Groups …", with the "--~--~-" line before it) and Yahoo!
 *     Groups' ("Yahoo! Groups Links").
 * An attribution is the line that names the quoting, with the lines
 * before it only when they begin it ("On Mon, 3 Mar 2003, Bob Smith" /
 * "<bob@example.org> wrote:"): the author's own line just above "On …
 * wrote:" stays the author's.
 * Runs of blank lines left behind become one; leading and trailing blank
 * lines go.
 */
#include "quote.h"

#include <string.h>

#define SIGNATURE_MAX_LINES 10   /* after a bare "--" */
#define ATTRIBUTION_MAX_LINES 3

typedef enum {
  LINE_OWN,
  LINE_BLANK,
  LINE_QUOTE,
  LINE_ATTRIBUTION,
  LINE_MARKER,
  LINE_SIGNATURE,
  LINE_ORIGINAL,
  LINE_NOTICE,          /* added by the list software */
} LineKind;

typedef struct {
  const char *p;
  gsize len;
  gsize lead, trimmed_len;   /* trimmed(): its white space found once, not at each rule's ask */
  LineKind kind;
} Line;

/* @l's bytes: @len at @p */
static void
line_set (Line *l, const char *p, gsize len)
{
  const char *s = p, *e = p + len;

  while (s < e && g_ascii_isspace (*s))
    s++;
  while (e > s && g_ascii_isspace (e[-1]))
    e--;
  l->p = p;
  l->len = len;
  l->lead = s - p;
  l->trimmed_len = e - s;
}

static GArray *
split_lines (const char *text)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  const char *p = text;

  while (*p)
    {
      const char *nl = strchr (p, '\n');
      Line line = { .kind = LINE_OWN };

      line_set (&line, p, nl ? (gsize) (nl - p) : strlen (p));
      g_array_append_val (lines, line);
      p = nl ? nl + 1 : p + line.len;
    }
  return lines;
}

static gboolean
is_blank (const Line *l)
{
  return l->trimmed_len == 0;
}

/* The line without leading and trailing white space. */
static void
trimmed (const Line *l, const char **p, gsize *len)
{
  *p = l->p + l->lead;
  *len = l->trimmed_len;
}

static gboolean
is_quote (const Line *l)
{
  gsize i = 0;

  while (i < l->len && i < 3 && l->p[i] == ' ')
    i++;
  if (i < l->len && l->p[i] == '>')
    return TRUE;
  if (l->len > 0 && (l->p[0] == '|' || l->p[0] == ':'))
    return l->len == 1 || l->p[1] == ' ' || l->p[1] == '>' || l->p[1] == l->p[0];
  /* Supercite: "AB> text" */
  i = 0;
  while (i < l->len && i < 4 && g_ascii_isalpha (l->p[i]))
    i++;
  return i > 0 && i < l->len && l->p[i] == '>' && (i + 1 == l->len || l->p[i + 1] == ' ') &&
         g_ascii_isupper (l->p[0]);
}

/* g_ascii_tolower() without a call */
static inline char
lower (char c)
{
  return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
}

/* (the first letters compared before the length is counted: most lines
 * differ there) */
static gboolean
equals_ci (const char *p, gsize len, const char *word)
{
  return len > 0 && lower (p[0]) == lower (word[0]) && len == strlen (word) &&
         g_ascii_strncasecmp (p, word, len) == 0;
}

static gboolean
ends_with (const char *p, gsize len, const char *suffix)
{
  gsize n = strlen (suffix);

  return len >= n && memcmp (p + len - n, suffix, n) == 0;
}

static gboolean
starts_with_ci (const char *p, gsize len, const char *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && g_ascii_strncasecmp (p, prefix, n) == 0;
}

static gboolean
line_starts (const Line *l, const char *text)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return starts_with_ci (p, len, text);
}

static gboolean
is_marker (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return equals_ci (p, len, "- Hide quoted text -") || equals_ci (p, len, "- Show quoted text -");
}

/* What an author leaves where they cut a quote: "[snip]", "<SNIP>",
 * "[..snip..]", "-- snip --", "*snip*", "[...]", "...", "<snipped the
 * rest>": dots alone, or in brackets; the word snip (snipped, snippage)
 * alone among dots, dashes, stars and brackets; or a bracket that opens
 * with it. */
static gboolean
is_snip_mark (const Line *l)
{
  static const char *const words[] = { "snip", "snipped", "snippage", "snipage" };
  const char *p;
  gsize len, a = 0, b, dots = 0, letters = 0;
  gboolean bracketed;
  char word[10];

  trimmed (l, &p, &len);
  if (len < 3 || len > 80)
    return FALSE;
  b = len;
  bracketed = strchr ("[<(", p[0]) && p[len - 1] == (p[0] == '[' ? ']' : p[0] == '<' ? '>' : ')');
  if (bracketed)
    {
      a = 1;
      b = len - 1;
    }
  for (; a < b && strchr (" .-*", p[a]); a++)
    dots += p[a] == '.';
  for (; b > a && strchr (" .-*", p[b - 1]); b--)
    dots += p[b - 1] == '.';
  if (a == b)   /* "...", "[...]", "[..]": dots alone, or in brackets */
    return dots >= 2;
  if (b - a == 3 && memcmp (p + a, "\xe2\x80\xa6", 3) == 0)
    return TRUE;   /* "…", "[…]" */
  while (a + letters < b && letters < sizeof word - 1 && g_ascii_isalpha (p[a + letters]))
    {
      word[letters] = lower (p[a + letters]);
      letters++;
    }
  word[letters] = '\0';
  for (gsize k = 0; k < G_N_ELEMENTS (words); k++)
    if (strcmp (word, words[k]) == 0)
      return a + letters == b || (bracketed && (p[a + letters] == ' ' || p[a + letters] == ':'));
  return FALSE;
}

/* 1 for "-- ", 2 for the variants without the trailing space, else 0. */
static int
signature_kind (const Line *l)
{
  gsize len = l->len;

  if (len > 0 && l->p[len - 1] == '\r')
    len--;
  if (len == 3 && memcmp (l->p, "-- ", 3) == 0)
    return 1;
  while (len > 2 && (l->p[len - 1] == ' ' || l->p[len - 1] == '\t'))
    len--;
  if (len == 2 && memcmp (l->p, "--", 2) == 0)
    return 2;
  return 0;
}

static gboolean
is_original (const Line *l)
{
  static const char *const starts[] = {
    "-----Original Message-----", "----- Original Message -----",
    "-------- Original Message --------", "Begin forwarded message:",
    "---------- Forwarded message ----------", "-------- Forwarded Message --------",
  };
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  for (gsize i = 0; i < G_N_ELEMENTS (starts); i++)
    if (equals_ci (p, len, starts[i]))
      return TRUE;
  return FALSE;
}

/* mutt's "----- Forwarded message from Bob <bob@x.org> -----" (and its
 * "excerpt"), MH's "------- Forwarded Message": a forwarded message that
 * ends at its end line, when it has one (forwarded_end()). */
static gboolean
is_forwarded_start (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return (len > 30 && (starts_with_ci (p, len, "----- Forwarded message from ") ||
                       starts_with_ci (p, len, "----- Forwarded message excerpt from ")) &&
          ends_with (p, len, "-----")) ||
         equals_ci (p, len, "------- Forwarded Message");
}

/* The line after the end line of the forwarded message that begins at
 * @i ("----- End forwarded message -----", "----- End forwarded message
 * excerpt -----", "------- End of Forwarded Message"), or 0 when none
 * follows: the forward goes to the end. */
static guint
forwarded_end (GArray *lines, guint i)
{
  static const char *const ends[] = {
    "----- End forwarded message -----", "----- End forwarded message excerpt -----",
    "------- End of Forwarded Message",
  };

  for (guint j = i + 1; j < lines->len; j++)
    {
      const char *p;
      gsize len;

      trimmed (&g_array_index (lines, Line, j), &p, &len);
      for (gsize k = 0; k < G_N_ELEMENTS (ends); k++)
        if (equals_ci (p, len, ends[k]))
          return j + 1;
    }
  return 0;
}

static gboolean
contains_ci (const char *p, gsize len, const char *word)
{
  gsize n = strlen (word);
  char first = lower (word[0]);

  /* the first byte before the call: most positions are not a match */
  for (gsize i = 0; i + n <= len; i++)
    if (lower (p[i]) == first && g_ascii_strncasecmp (p + i, word, n) == 0)
      return TRUE;
  return FALSE;
}

/* Does the text read like "X wrote:"?  (Several languages.) */
static gboolean
names_quoting (const char *p, gsize len)
{
  static const char *const words[] = {
    "wrote", "writes", "said", "says", "schrieb", "crit", "disait", "a dit", "escribi", "scripsit", "skrev",
    "kirjoitti", "scrisse", "scritto", "napisa", "napsal", "schreef", "escreveu", "a scris",
    "va escriure", "yazd\xc4\xb1", "\xc3\xadrta", "menulis", "\xc4\x91\xc3\xa3 vi\xe1\xba\xbft",
    "In article", "In message", "In <", "quoted", "Quoting",
    "\xd0\xbd\xd0\xb0\xd0\xbf\xd0\xb8\xd1\x81\xd0\xb0",               /* написа(л, в): ru, uk */
    "\xd0\xbf\xd0\xb8\xd1\x88\xd0\xb5\xd1\x82",                       /* пишет */
    "\xe5\x86\x99\xe9\x81\x93", "\xe5\xaf\xab\xe9\x81\x93",          /* 写道 寫道 */
    "\xe6\x9b\xb8\xe3\x81\x8d\xe3\x81\xbe\xe3\x81\x97\xe3\x81\x9f", /* 書きました */
    "\xe6\x9b\xb8\xe3\x81\x8d\xe8\xbe\xbc",                           /* 書き込 */
    "\xe3\x81\xae\xe3\x83\xa1\xe3\x83\x83\xe3\x82\xbb\xe3\x83\xbc\xe3\x82\xb8", /* のメッセージ */
    "\xec\x9e\x91\xec\x84\xb1",                                         /* 작성 */
    "\xce\xad\xce\xb3\xcf\x81\xce\xb1\xcf\x88\xce\xb5",               /* έγραψε */
    "\xd7\x9b\xd7\xaa\xd7\x91",                                         /* כתב */
    "\xd9\x83\xd8\xaa\xd8\xa8",                                         /* كتب */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (contains_ci (p, len, words[i]))
      return TRUE;
  return FALSE;
}

/* "In article <…>, X writes:", which marks itself. */
static gboolean
is_usenet_attribution (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return len > 12 && (g_ascii_strncasecmp (p, "In article <", 12) == 0 ||
                      g_ascii_strncasecmp (p, "In message <", 12) == 0);
}

static gboolean
ends_sentence (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return len == 0 || strchr (".!?", p[len - 1]) != NULL;
}

/* ":" or the full-width "：" (U+FF1A) of Chinese and Japanese mailers. */
static gboolean
ends_in_colon (const char *p, gsize len)
{
  return (len > 0 && p[len - 1] == ':') ||
         (len >= 3 && memcmp (p + len - 3, "\xef\xbc\x9a", 3) == 0);
}

static gboolean
line_ends_in_colon (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return ends_in_colon (p, len);
}

/* "… <local@host>:" */
static gboolean
ends_in_address_colon (const char *p, gsize len)
{
  const char *lt;

  if (len < 6 || p[len - 1] != ':' || p[len - 2] != '>')
    return FALSE;
  lt = g_strrstr_len (p, len, "<");
  return lt != NULL && memchr (lt, '@', p + len - lt) != NULL;
}

/* Does the line open an attribution ("On …", "Am …", "Le …", a date
 * "2023年11月20日…", "于2023年…", "In article <…>")? */
static gboolean
begins_attribution (const Line *l)
{
  static const char *const openers[] = {
    "On ", "Am ", "Le ", "El ", "Il ", "Em ", "Op ", "Den ", "Dne ", "W dniu ", "At ", "Quoting ",
    "Citando ", "Zitat von ", "Excerpts from ", "In article", "In message", "In <", "* ",
    "OoO ",                                          /* Gnus's French "OoO En ce … disait :" */
    "\xd0\x92 ", "\xd0\x92\xd1\x8b ",                  /* В, Вы (ru) */
    "\xe4\xba\x8e", "\xe5\x9c\xa8", "\xe6\x96\xbc",         /* 于 在 於 */
  };
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  if (len > 0 && g_ascii_isdigit (p[0]))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (openers); i++)
    if (len >= strlen (openers[i]) && memcmp (p, openers[i], strlen (openers[i])) == 0)
      return TRUE;
  return FALSE;
}

/* Marks the attribution ending at @last, if it is one: the line, with up
 * to two lines before it that it continues (a wrapped "On DATE, X\n<x>
 * wrote:"), when together they name the quoting. */
static void
mark_attribution (GArray *lines, guint last)
{
  const char *p;
  gsize len;
  guint first = last;
  gboolean named = FALSE;

  trimmed (&g_array_index (lines, Line, last), &p, &len);
  if (!ends_in_colon (p, len))
    return;
  /* The lines before belong to it only when one of them begins it, as a
   * wrapped "On DATE, X\n<x> wrote:" does; the author's own "i think u
   * want --ignore-ext right? ;)" just above "On … wrote:" does not. */
  if (!begins_attribution (&g_array_index (lines, Line, last)))
    for (guint j = last; j > 0 && last - (j - 1) + 1 <= ATTRIBUTION_MAX_LINES; j--)
      {
        const Line *before = &g_array_index (lines, Line, j - 1);

        if (before->kind != LINE_OWN || ends_sentence (before))
          break;
        if (begins_attribution (before))
          {
            first = j - 1;
            break;
          }
      }
  /* Gmail in Japanese, Russian and others writes no verb: "2023年11月
   * 20日(月) 13:47 山田太郎 <yamada@example.jp>:" before the quote. */
  named = ends_in_address_colon (p, len);
  for (guint i = first; i <= last && !named; i++)
    named = names_quoting (g_array_index (lines, Line, i).p, g_array_index (lines, Line, i).len);
  for (guint i = first; named && i <= last; i++)
    g_array_index (lines, Line, i).kind = LINE_ATTRIBUTION;
}

/* Outlook Express's attribution of a news article, which ends in no
 * colon but in the article's id and "...": "\"Bob\" <bob@x.org> wrote in
 * message news:abc@host..." (in its languages: "schrieb im Newsbeitrag
 * news:", "a écrit dans le message de news:"), wrapped by it before
 * "news:" when long.  Marks the line ending at @last, with the line
 * before when @last is the wrapped "news:…..." alone, when they name
 * the quoting. */
static void
mark_news_attribution (GArray *lines, guint last)
{
  Line *l = &g_array_index (lines, Line, last);
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  if (len < 9 || !ends_with (p, len, "...") || !contains_ci (p, len, "news:"))
    return;
  if (names_quoting (p, len))
    l->kind = LINE_ATTRIBUTION;
  else if (last > 0 && g_ascii_strncasecmp (p, "news:", 5) == 0)
    {
      Line *before = &g_array_index (lines, Line, last - 1);

      if (before->kind == LINE_OWN && names_quoting (before->p, before->len))
        before->kind = l->kind = LINE_ATTRIBUTION;
    }
}

/* Does an "In article <…>" line start at or shortly before @i? */
static gboolean
usenet_attribution_near (GArray *lines, guint i)
{
  for (guint j = i >= ATTRIBUTION_MAX_LINES - 1 ? i - (ATTRIBUTION_MAX_LINES - 1) : 0; j <= i; j++)
    if (is_usenet_attribution (&g_array_index (lines, Line, j)))
      return TRUE;
  return FALSE;
}

#define CITED_NAME_MAX 20

/* Supercite's citation by name ("sc-citation-leader" spaces, a name, ">"):
 * " Daniel> text", "    Kent> Bob> text", "Kent>".  The name's place and
 * length, or FALSE. */
static gboolean
cited_name (const Line *l, const char **name, gsize *len)
{
  gsize i = 0, start;

  while (i < l->len && i < 4 && l->p[i] == ' ')
    i++;
  start = i;
  if (i >= l->len || !g_ascii_isalpha (l->p[i]))
    return FALSE;
  while (i < l->len && i - start < CITED_NAME_MAX &&
         (g_ascii_isalnum (l->p[i]) || l->p[i] == '-' || l->p[i] == '_'))
    i++;
  *name = l->p + start;
  *len = i - start;
  if (i >= l->len || l->p[i] != '>')
    return FALSE;
  while (i < l->len && l->p[i] == '>')
    i++;
  return i == l->len || l->p[i] == ' ' || l->p[i] == '\t';
}

/* Does @p (@n bytes) hold @name as a word, in its case?  A word may be
 * an address's local part or a domain's first label, as Supercite takes
 * a name from an address ("dmr" of "<dmr@bell-labs.com>", "lvh" of
 * "lvh.io"), but not a later label or the rest of a word ("org" of
 * "<x@comtele.org>", "Daniel" of "Danielle"). */
static gboolean
holds_word (const char *p, gsize n, const char *name, gsize len)
{
  for (gsize i = 0; i + len <= n; i++)
    if (memcmp (p + i, name, len) == 0 &&
        (i == 0 || !(g_ascii_isalnum (p[i - 1]) || strchr ("._-@", p[i - 1]))) &&
        (i + len == n || !(g_ascii_isalnum (p[i + len]) || p[i + len] == '_' || p[i + len] == '-')))
      return TRUE;
  return FALSE;
}

/* What a message's attributions are looked for in, at most: they are
 * short and few, and a hostile body of 100,000 "a1> x", "a2> x" lines
 * must not be read once a line */
#define ATTRIBUTIONS_MAX 64
#define ATTRIBUTION_MAX_BYTES 1000
#define CITED_NAMES_MAX 64

/* The lines of @lines that name the quoting and are not themselves cited
 * by a name (" Daniel> Bob wrote:"): where a cited name must be given
 * ("Daniel Seagraves (\"Daniel\") writes:", "\"Kent\" == Kent M Pitman
 * <…> writes:") */
static GPtrArray *
attributions_of (GArray *lines)
{
  GPtrArray *found = g_ptr_array_new ();

  for (guint j = 0; j < lines->len && found->len < ATTRIBUTIONS_MAX; j++)
    {
      const Line *a = &g_array_index (lines, Line, j);
      const char *name;
      gsize len;

      if (a->len <= ATTRIBUTION_MAX_BYTES && a->kind != LINE_BLANK && names_quoting (a->p, a->len) &&
          !cited_name (a, &name, &len))
        g_ptr_array_add (found, (gpointer) a);
    }
  return found;
}

/* The word of letters ending at @end in @p: where it starts */
static gsize
word_start (const char *p, gsize end)
{
  while (end > 0 && (g_ascii_isalpha (p[end - 1]) || p[end - 1] == '-' || p[end - 1] == '\''))
    end--;
  return end;
}

/* Is @name (capitals) the initials of the name before an address in @p
 * (@n bytes), as Supercite makes them: "JL" of "Jonathan Lange <jml at
 * …>", "EF" of "\"Esteve Fernandez\" <…>", "G" of "Glyph <glyph at …>"?
 * Every capitalised word just before the "<" (a quote aside) counts: not
 * "AQ" of "Ramiro Alba Queipo <…>". */
static gboolean
holds_initials (const char *p, gsize n, const char *name, gsize len)
{
  for (gsize lt = 2; lt < n; lt++)
    {
      gsize end, start = 0, k = len;

      if (p[lt] != '<' || p[lt - 1] != ' ')
        continue;
      end = lt - 1;
      if (p[end - 1] == '"')
        end--;
      while (k > 0)
        {
          start = word_start (p, end);
          if (start == end || p[start] != name[k - 1])
            break;
          if (--k > 0)
            {
              if (start < 2 || p[start - 1] != ' ')
                break;
              end = start - 1;
            }
        }
      /* and the word before the first is no more of the name */
      if (k == 0)
        {
          gboolean more = FALSE;

          if (start >= 2 && p[start - 1] == ' ')
            {
              gsize before = word_start (p, start - 1);

              more = before < start - 1 && g_ascii_isupper (p[before]);
            }
          if (!more)
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
name_attributed (const GPtrArray *attributions, const char *name, gsize len)
{
  gboolean capitals = len <= 4;

  for (gsize i = 0; i < len; i++)
    capitals &= g_ascii_isupper (name[i]);
  for (guint j = 0; j < attributions->len; j++)
    {
      const Line *a = attributions->pdata[j];

      if (holds_word (a->p, a->len, name, len) || (capitals && holds_initials (a->p, a->len, name, len)))
        return TRUE;
    }
  return FALSE;
}

/* The author's lines cited by a name that an attribution gives are
 * quoted; a prompt ("mysql> select 1;") is no one's.  Each name is
 * looked up once, CITED_NAMES_MAX names at most a message (later ones
 * stay the author's). */
static void
mark_cited_names (GArray *lines)
{
  g_autoptr (GPtrArray) attributions = NULL;
  struct {
    const char *name;
    gsize len;
    gboolean given;
  } seen[CITED_NAMES_MAX];
  guint n_seen = 0;

  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      const char *name;
      gsize len;
      guint k = 0;

      if (l->kind != LINE_OWN || !cited_name (l, &name, &len))
        continue;
      while (k < n_seen && !(seen[k].len == len && memcmp (seen[k].name, name, len) == 0))
        k++;
      if (k == n_seen)
        {
          if (n_seen == CITED_NAMES_MAX)
            continue;
          if (attributions == NULL)
            attributions = attributions_of (lines);
          seen[n_seen].name = name;
          seen[n_seen].len = len;
          seen[n_seen++].given = name_attributed (attributions, name, len);
        }
      if (seen[k].given)
        l->kind = LINE_QUOTE;
    }
}

/* Marks the lines from @from to before @to as @kind, but blank and
 * quoted ones. */
static void
mark_range (GArray *lines, guint from, guint to, LineKind kind)
{
  for (guint i = from; i < to; i++)
    if (g_array_index (lines, Line, i).kind != LINE_BLANK)
      g_array_index (lines, Line, i).kind =
        g_array_index (lines, Line, i).kind == LINE_QUOTE ? LINE_QUOTE : kind;
}

/* Marks everything from @from on as @kind. */
static void
mark_rest (GArray *lines, guint from, LineKind kind)
{
  mark_range (lines, from, lines->len, kind);
}

/* The length of @l's indentation when it is a quoted line indented as a
 * block ("    > text": four spaces or more, or a tab, then ">" and a
 * space, another ">" or nothing), else 0.  Python's prompt (">>> ") is
 * no quote, nor is a game's or a shell's ">command". */
static gsize
indented_quote (const Line *l)
{
  gsize i = 0, marks = 0;
  gboolean tab = FALSE;

  while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
    tab |= l->p[i++] == '\t';
  if (i < 4 && !tab)
    return 0;
  while (i + marks < l->len && l->p[i + marks] == '>')
    marks++;
  if (marks == 0 || (i + marks < l->len && l->p[i + marks] != ' ') ||
      (marks == 3 && i + marks < l->len))
    return 0;
  return i;
}

/* Whether @l sets a paragraph of the author's apart: blank or quoted. */
static gboolean
apart (const Line *l)
{
  return l->kind == LINE_BLANK || l->kind == LINE_QUOTE;
}

/* A paragraph of two or more lines that are each quoted at one
 * indentation is quoted ("    > text", as some mailers indent a quote,
 * or among Supercite's "    name>" lines); a paragraph where any line is
 * no such quote (a shell session's "    > command" over its output)
 * stays. */
static void
mark_indented_quotes (GArray *lines)
{
  guint n = lines->len;

  for (guint i = 0; i < n;)
    {
      guint j = i;
      gsize indent = indented_quote (&g_array_index (lines, Line, i));
      const Line *first = &g_array_index (lines, Line, i);

      if (indent == 0)
        {
          i++;
          continue;
        }
      while (j < n && g_array_index (lines, Line, j).kind == LINE_OWN &&
             indented_quote (&g_array_index (lines, Line, j)) == indent &&
             memcmp (g_array_index (lines, Line, j).p, first->p, indent) == 0)
        j++;
      if (j - i >= 2 && (i == 0 || apart (&g_array_index (lines, Line, i - 1))) &&
          (j == n || apart (&g_array_index (lines, Line, j))))
        mark_range (lines, i, j, LINE_QUOTE);
      i = j > i ? j : i + 1;
    }
}

static gboolean
bar_line (const Line *l)
{
  return l->len > 0 && l->p[0] == '|';
}

/* "|text" under "X wrote:": some writers quote with a bar and no space
 * (which alone is too like a table's or a pipe's line to be a quote).
 * The lines beginning with "|" just under a line that ends in a colon
 * and names the quoting, up to a blank line or the end, are quoted. */
static void
mark_bar_quotes (GArray *lines)
{
  guint n = lines->len;

  for (guint i = 0; i + 1 < n; i++)
    {
      const Line *l = &g_array_index (lines, Line, i);
      guint j = i + 1;

      if (l->kind != LINE_OWN || !bar_line (&g_array_index (lines, Line, j)) || !line_ends_in_colon (l) ||
          !names_quoting (l->p, l->len))
        continue;
      while (j < n && bar_line (&g_array_index (lines, Line, j)))
        j++;
      if (j == n || apart (&g_array_index (lines, Line, j)))
        mark_range (lines, i + 1, j, LINE_QUOTE);
      i = j - 1;
    }
}

static void
classify (GArray *lines)
{
  guint n = lines->len;

  for (guint i = 0; i < n; i++)
    {
      Line *l = &g_array_index (lines, Line, i);

      if (is_blank (l))
        l->kind = LINE_BLANK;
      else if (is_quote (l))
        l->kind = LINE_QUOTE;
      else if (is_marker (l))
        l->kind = LINE_MARKER;
    }
  mark_cited_names (lines);
  mark_indented_quotes (lines);
  mark_bar_quotes (lines);
  /* Attributions: the paragraph before a quote block. */
  for (guint i = 0; i < n; i++)
    {
      LineKind k = g_array_index (lines, Line, i).kind;
      gboolean quote_follows = FALSE, snip_follows = FALSE, colon;
      guint j = i + 1;

      if (k != LINE_OWN)
        continue;
      while (j < n && g_array_index (lines, Line, j).kind == LINE_BLANK)
        j++;
      /* (mark_attribution() marks only a line that ends in a colon: only
       * such a line asks whether a snip mark follows) */
      colon = line_ends_in_colon (&g_array_index (lines, Line, i));
      if (j < n && j > i)
        {
          LineKind next = g_array_index (lines, Line, j).kind;
          quote_follows = next == LINE_QUOTE || next == LINE_MARKER;
          snip_follows = colon && next == LINE_OWN && is_snip_mark (&g_array_index (lines, Line, j));
        }
      if (colon && (quote_follows || snip_follows || usenet_attribution_near (lines, i)))
        mark_attribution (lines, i);
      else if (quote_follows)
        mark_news_attribution (lines, i);
    }
}

/* "From: x", "Sent: …", "Betreff: …": a header line of a quoted
 * original (a few words, then a colon, then text; a "?" may stand for a
 * letter a charset lost: "Fr?n:", "????:"). */
static gboolean
is_header_line (const Line *l)
{
  const char *p;
  gsize len, words = 1;

  trimmed (l, &p, &len);
  for (gsize i = 0; i < len && i < 40; i++)
    {
      if (p[i] == ':')
        return i > 0 && words <= 3;
      if (p[i] == ' ')
        words++;
      else if (!g_ascii_isalpha (p[i]) && (guchar) p[i] < 0x80 && p[i] != '-' && p[i] != '?')
        return FALSE;
    }
  return FALSE;
}

/* After the original-message marker at @i: its header lines and blank
 * lines, then quoted lines?  Returns the index past the header lines when
 * the original is quoted, else 0. */
static guint
quoted_original_after (GArray *lines, guint i)
{
  guint j = i + 1;

  while (j < lines->len && (g_array_index (lines, Line, j).kind == LINE_BLANK ||
                            (g_array_index (lines, Line, j).kind == LINE_OWN &&
                             is_header_line (&g_array_index (lines, Line, j)))))
    j++;
  return j < lines->len && g_array_index (lines, Line, j).kind == LINE_QUOTE ? j : 0;
}

/* Whether @l's first non-blank byte is one of @set: most lines are ruled
 * out of the header and attribution checks below by it. */
static gboolean
first_byte_in (const Line *l, const char *set)
{
  gsize i = 0;

  while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
    i++;
  if (i == l->len)
    return FALSE;
  for (const char *c = set; *c; c++)   /* a few bytes: no call */
    if (*c == l->p[i])
      return TRUE;
  return FALSE;
}

/* A header name and its length, counted by the compiler */
typedef struct {
  const char *s;
  gsize len;
} Name;
#define NAME(literal) { literal, sizeof (literal) - 1 }

/* Every header name below ends in a colon, within its first
 * FIELD_NAME_MAX bytes ("Enviado el:" has 11): a line with no colon there
 * names no field, and most lines are let go at that (outlook_field()
 * was asked some 35 times a message, each time of every name). */
#define FIELD_NAME_MAX 16

static gboolean
may_name_field (const char *p, gsize len)
{
  return memchr (p, ':', MIN (len, FIELD_NAME_MAX)) != NULL;
}

/* Whether @p (@len bytes, trimmed) begins with one of @names and goes
 * on.  The last byte of a name (its colon) is compared first: most lines
 * differ there. */
static gboolean
starts_with_any (const char *p, gsize len, const Name *names, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      gsize k = names[i].len;

      g_assert (k <= FIELD_NAME_MAX && names[i].s[k - 1] == ':');
      if (len > k && p[k - 1] == ':' && g_ascii_strncasecmp (p, names[i].s, k) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Which of Outlook's header names @l begins with, in the languages
 * Outlook writes them: 1 for From, 2 for Sent (the field only Outlook's
 * block has: a reader's own "From:/Date:/Subject:" lines above a reply
 * are not it), 3 for To, Cc and Subject; 0 for none. */
static int
outlook_field (const Line *l)
{
  static const Name from[] = {
    NAME ("From:"), NAME ("Von:"), NAME ("De:"), NAME ("De :"), NAME ("Da:"), NAME ("Van:"), NAME ("Fra:"),
    NAME ("Od:"), NAME ("Fr\xc3\xa5n:"), NAME ("Fr?n:"),   /* Swedish, its letter lost to a charset or not */
  };
  static const Name sent[] = {
    NAME ("Sent:"), NAME ("Gesendet:"), NAME ("Envoy\xc3\xa9 :"), NAME ("Envoy\xc3\xa9:"), NAME ("Enviado:"),
    NAME ("Enviado el:"), NAME ("Inviato:"), NAME ("Verzonden:"), NAME ("Skickat:"), NAME ("Sendt:"),
    NAME ("Wys\xc5\x82" "ano:"),
  };
  static const Name others[] = {
    NAME ("To:"), NAME ("Cc:"), NAME ("Subject:"), NAME ("An:"), NAME ("Betreff:"),
    NAME ("\xc3\x80 :"), NAME ("\xc3\x80:"), NAME ("Objet :"), NAME ("Objet:"), NAME ("Para:"),
    NAME ("Asunto:"), NAME ("Assunto:"), NAME ("A:"), NAME ("Oggetto:"), NAME ("Aan:"),
    NAME ("Onderwerp:"), NAME ("Till:"), NAME ("\xc3\x84" "mne:"), NAME ("?mne:"), NAME ("Til:"), NAME ("Emne:"),
    NAME ("Do:"), NAME ("Temat:"),
  };

  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  if (!may_name_field (p, len))
    return 0;
  if (starts_with_any (p, len, from, G_N_ELEMENTS (from)))
    return 1;
  if (starts_with_any (p, len, sent, G_N_ELEMENTS (sent)))
    return 2;
  if (starts_with_any (p, len, others, G_N_ELEMENTS (others)))
    return 3;
  return 0;
}

/* "Date:" in the languages Outlook for Mac writes it */
static gboolean
is_date_field (const Line *l)
{
  static const Name date[] = {
    NAME ("Date:"), NAME ("Date :"), NAME ("Datum:"), NAME ("Fecha:"), NAME ("Data:"), NAME ("Dato:"),
  };

  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return may_name_field (p, len) && starts_with_any (p, len, date, G_N_ELEMENTS (date));
}

#define OUTLOOK_FROM_WRAPPED 2

/* The last line of the header block's From line at @i, which may go on
 * over OUTLOOK_FROM_WRAPPED lines more (lines naming no field), or
 * G_MAXUINT when @i is no From line. */
static guint
from_line_end (GArray *lines, guint i)
{
  const Line *l = &g_array_index (lines, Line, i);
  guint end = i;

  if (l->kind != LINE_OWN || !first_byte_in (l, "FfVvDdOo") || outlook_field (l) != 1)
    return G_MAXUINT;
  while (end + 1 < lines->len && end < i + OUTLOOK_FROM_WRAPPED)
    {
      const Line *next = &g_array_index (lines, Line, end + 1);

      if (next->kind != LINE_OWN || outlook_field (next) != 0 || is_date_field (next) ||
          line_starts (next, "Reply-To:"))
        break;
      end++;
    }
  return end;
}

/* Outlook's top-post: the reply above, then the original's header block
 * with no "Original Message" line: "From:", then "Sent:" and at least
 * one of To, Cc, Subject on the lines right after it (two blank lines
 * among them at most), not quoted.  The From line may go on over two
 * lines more, as a list that wraps at 76 columns leaves
 * "From: list-bounces@… [mailto:list-bounces@…] On Behalf Of Bob Smith". */
static gboolean
is_outlook_block (GArray *lines, guint i)
{
  guint others = 0, blanks = 0, from_end = from_line_end (lines, i);
  gboolean sent = FALSE;

  if (from_end == G_MAXUINT)
    return FALSE;
  for (guint j = from_end + 1; j < lines->len && j <= from_end + 8; j++)
    {
      const Line *l = &g_array_index (lines, Line, j);
      int field;

      if (l->kind == LINE_BLANK && ++blanks <= 2)
        continue;
      if (l->kind != LINE_OWN || (field = outlook_field (l)) < 2)
        break;
      sent |= field == 2;
      others += field == 3;
    }
  return sent && others >= 1;
}

/* How many lines from @j on are To, Cc or Subject (outlook_field() 3),
 * one after another. */
static guint
to_cc_subject_at (GArray *lines, guint j)
{
  guint n = 0;

  while (j + n < lines->len && g_array_index (lines, Line, j + n).kind == LINE_OWN &&
         outlook_field (&g_array_index (lines, Line, j + n)) == 3)
    n++;
  return n;
}

/* Outlook for Mac's and Foxmail's top-post write "Date:" where Outlook
 * writes "Sent:", and in their order: "From:" (wrapped as above), maybe
 * "Reply-To:", "Date:", then at least two of To, Cc, Subject, each on
 * the next line.  In another order (From, To, Date, Subject; From,
 * Subject, Date) such lines are a writer's own quoting of headers above
 * a "[snip]" or between "===" lines, and stay. */
static gboolean
is_dated_block (GArray *lines, guint i)
{
  guint j = from_line_end (lines, i);

  if (j == G_MAXUINT)
    return FALSE;
  if (++j < lines->len && g_array_index (lines, Line, j).kind == LINE_OWN &&
      line_starts (&g_array_index (lines, Line, j), "Reply-To:"))
    j++;
  if (j >= lines->len || g_array_index (lines, Line, j).kind != LINE_OWN ||
      !is_date_field (&g_array_index (lines, Line, j)))
    return FALSE;
  return to_cc_subject_at (lines, j + 1) >= 2;
}

/* GMX's and web.de's top-post put "Gesendet:" (Sent) first: "Sent:",
 * then "From:" (wrapped as above), then at least two of To, Cc, Subject,
 * each on the next line. */
static gboolean
is_sent_first_block (GArray *lines, guint i)
{
  const Line *l = &g_array_index (lines, Line, i);
  guint j;

  if (l->kind != LINE_OWN || !first_byte_in (l, "SsGgEeIiVvWw") || outlook_field (l) != 2 ||
      i + 1 >= lines->len || (j = from_line_end (lines, i + 1)) == G_MAXUINT)
    return FALSE;
  return to_cc_subject_at (lines, j + 1) >= 2;
}

/* "Bob Smith <bob@x.org> wrote:" (or "<bob at x.org>", as pipermail
 * masks it): a name and its address before "wrote:", the line beginning
 * with the name ("# <bob@x.org> wrote:" is a quoted attribution's end). */
static gboolean
addressed_wrote (const char *p, gsize len)
{
  const char *lt, *gt;

  if (!g_ascii_isalpha (p[0]) && p[0] != '"' && p[0] != '\'' && (guchar) p[0] < 0x80)
    return FALSE;
  len -= strlen ("wrote:");
  while (len > 0 && p[len - 1] == ' ')
    len--;
  if (len < 5 || p[len - 1] != '>' || (lt = g_strrstr_len (p, len, "<")) == NULL)
    return FALSE;
  gt = p + len - 1;
  return memchr (lt, '@', gt - lt) != NULL || g_strstr_len (lt, gt - lt, " at ") != NULL;
}

/* Google Groups' web form and Gmail, top-posting, put the original
 * unquoted under "On Tue, Jan 5, 2010 at 10:20 AM, Bob <bob@x.org> wrote:",
 * Yahoo! Mail under "--- On Wed, 4/21/10, Bob <bob@x.org> wrote:" and the
 * original's From, Subject, To and Date, or, earlier, under "Bob
 * <bob@x.org> wrote:".  That line (beginning "On ", or naming an address,
 * and ending "wrote:"), below the reply and followed by text that is not
 * quoted, starts the original; so it does when the original opens with an
 * attribution of its own ("On …, Ann wrote:" over ">" lines): two
 * attributions in a row are no reply's. */
static gboolean
is_unquoted_attribution (GArray *lines, guint i)
{
  const Line *l = &g_array_index (lines, Line, i);
  const char *p;
  gsize len;
  guint j;

  if (l->kind != LINE_OWN)
    return FALSE;
  trimmed (l, &p, &len);
  if (len < 12 || len > 200 || !ends_with (p, len, "wrote:"))
    return FALSE;
  if (strncmp (p, "--- ", 4) == 0)   /* Yahoo! Mail's */
    {
      p += 4;
      len -= 4;
    }
  if (strncmp (p, "On ", 3) != 0 && !addressed_wrote (p, len))
    return FALSE;
  for (j = i + 1; j < lines->len && g_array_index (lines, Line, j).kind == LINE_BLANK; j++)
    ;
  /* text, or the original's own attribution of what it quotes next */
  return j < lines->len && (g_array_index (lines, Line, j).kind == LINE_OWN ||
                            g_array_index (lines, Line, j).kind == LINE_ATTRIBUTION);
}

/* "-----Ursprüngliche Nachricht-----", "----- Mensagem original -----",
 * "-----Message d'origine-----": a dash-framed title of a few words in
 * any language, or Outlook's line of underscores, taken as an original's
 * marker only when a header line ("Von: …", "De : …", "From: …") follows. */
static gboolean
is_framed_original (GArray *lines, guint i)
{
  const char *p;
  gsize len, a = 0, b, words = 0;
  gboolean in_word = FALSE;
  guint j;

  trimmed (&g_array_index (lines, Line, i), &p, &len);
  if (len >= 20 && strspn (p, "_") == len)   /* Outlook's rule: "________" */
    {
      for (j = i + 1; j < lines->len && g_array_index (lines, Line, j).kind == LINE_BLANK; j++)
        ;
      return j < lines->len && j <= i + 2 && is_header_line (&g_array_index (lines, Line, j));
    }
  while (a < len && p[a] == '-')
    a++;
  b = len;
  while (b > a && p[b - 1] == '-')
    b--;
  if (a < 3 || len - b < 3 || b <= a)
    return FALSE;
  for (gsize k = a; k < b; k++)
    {
      gboolean letter = (guchar) p[k] >= 0x80 || g_ascii_isalpha (p[k]) || p[k] == '\'' || p[k] == '?';

      if (!letter && p[k] != ' ')
        return FALSE;
      words += letter && !in_word;
      in_word = letter;
    }
  if (words < 1 || words > 4)
    return FALSE;
  for (j = i + 1; j < lines->len && g_array_index (lines, Line, j).kind == LINE_BLANK; j++)
    ;
  return j < lines->len && j <= i + 2 && is_header_line (&g_array_index (lines, Line, j));
}

static gboolean
line_is (const Line *l, const char *text)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return equals_ci (p, len, text);
}

static gboolean
is_underscores (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  if (len < 20)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (p[i] != '_')
      return FALSE;
  return TRUE;
}

/* Mailman's scrubber: "An HTML attachment was scrubbed...", "A
 * non-text attachment …", "An embedded message …", "An embedded and
 * charset-unspecified text was scrubbed...", followed by Name:, Type:,
 * Size:, Desc:, From:, Subject:, Date:, URL: or "Url :" lines. */
static gboolean
is_scrubbed_notice (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return (line_starts (l, "A ") || line_starts (l, "An ")) && len > 20 &&
         ends_with (p, len, " was scrubbed...");
}

#define FOOTER_LOOKAHEAD 6

/* Does a line naming a list follow @i within a few lines? */
static gboolean
names_list_soon (GArray *lines, guint i)
{
  for (guint j = i + 1; j < lines->len && j <= i + FOOTER_LOOKAHEAD; j++)
    {
      const Line *f = &g_array_index (lines, Line, j);

      if (contains_ci (f->p, f->len, "mailing list") || contains_ci (f->p, f->len, "listinfo") ||
          contains_ci (f->p, f->len, "mailman"))
        return TRUE;
    }
  return FALSE;
}

/* Mailman glues its footer's rule to a last line without a line break
 * ("Check it out!_____…"): the length of the text before a run of at
 * least 20 underscores that ends the line, or 0. */
static gsize
text_before_rule (const Line *l)
{
  gsize end = l->len, run;

  while (end > 0 && g_ascii_isspace (l->p[end - 1]))
    end--;
  run = end;
  while (run > 0 && l->p[run - 1] == '_')
    run--;
  return end - run >= 20 && run > 0 ? run : 0;
}

static gboolean
ends_with_underscore (const Line *l)
{
  gsize end = l->len;

  while (end > 0 && g_ascii_isspace (l->p[end - 1]))
    end--;
  return end > 20 && l->p[end - 1] == '_';
}

/* Does a list footer (or pipermail's attachment notice) start at @i?
 * Returns how many lines of it to mark: G_MAXUINT for "to the end". */
static guint
notice_at (GArray *lines, guint i)
{
  const Line *l = &g_array_index (lines, Line, i);
  const char *p;
  gsize len;

  /* Every notice and footer starts with one of these: most lines are
   * ruled out by their first byte. */
  trimmed (l, &p, &len);
  if (len == 0 || strchr ("-_AYS", p[0]) == NULL)
    return 0;

  if (line_is (l, "-------------- next part --------------") ||
      line_starts (l, "You received this message because you are subscribed to the Google") ||
      line_starts (l, "--~--~---------~--~----~") || line_is (l, "Yahoo! Groups Links") ||
      line_starts (l, "------------------------ Yahoo! Groups Sponsor"))
    return G_MAXUINT;
  if (is_underscores (l) && names_list_soon (lines, i))
    return G_MAXUINT;
  /* A scrubbed part whose notice stands alone (HTML-only mail). */
  if (is_scrubbed_notice (l) || line_starts (l, "Skipped content of type "))
    {
      guint j = i + 1;

      while (j < lines->len && g_array_index (lines, Line, j).kind == LINE_OWN &&
             is_header_line (&g_array_index (lines, Line, j)))
        j++;
      return j - i;
    }
  return 0;
}

static void
cut_tail (GArray *lines)
{
  guint n = lines->len;
  int sig = -1;

  for (guint i = 0; i < n; i++)
    {
      Line *l = &g_array_index (lines, Line, i);
      guint notice, end;
      gboolean forwarded;

      if (l->kind != LINE_OWN)
        continue;
      if (ends_with_underscore (l) && text_before_rule (l) > 0 && names_list_soon (lines, i))
        {
          /* The author's text before the glued rule stays. */
          line_set (l, l->p, text_before_rule (l));
          for (guint j = i + 1; j < lines->len; j++)
            g_array_index (lines, Line, j).kind = LINE_NOTICE;
          n = i + 1;
          break;
        }
      if ((notice = notice_at (lines, i)) == G_MAXUINT)
        {
          for (guint j = i; j < lines->len; j++)
            g_array_index (lines, Line, j).kind = LINE_NOTICE;
          n = i;
          break;
        }
      if (notice > 0)
        {
          for (guint j = i; j < i + notice; j++)
            g_array_index (lines, Line, j).kind = LINE_NOTICE;
          i += notice - 1;
          continue;
        }
      forwarded = is_forwarded_start (l);
      if (forwarded && (end = forwarded_end (lines, i)) > 0)
        {
          mark_range (lines, i, end, LINE_ORIGINAL);   /* what follows its end line stays */
          i = end - 1;
          continue;
        }
      if (is_original (l) || forwarded || is_framed_original (lines, i) ||
          (i > 0 && (is_outlook_block (lines, i) || is_dated_block (lines, i) ||
                     is_sent_first_block (lines, i) || is_unquoted_attribution (lines, i))))
        {
          guint quoted = quoted_original_after (lines, i);

          if (quoted > 0)
            {
              for (guint j = i; j < quoted; j++)
                if (g_array_index (lines, Line, j).kind == LINE_OWN)
                  g_array_index (lines, Line, j).kind = LINE_ATTRIBUTION;
              i = quoted - 1;
              continue;
            }
          mark_rest (lines, i, LINE_ORIGINAL);
          n = i;
          break;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      int kind = g_array_index (lines, Line, i).kind == LINE_OWN
                   ? signature_kind (&g_array_index (lines, Line, i)) : 0;
      if (kind == 1 || (kind == 2 && n - i - 1 <= SIGNATURE_MAX_LINES))
        sig = (int) i;
    }
  if (sig >= 0)
    {
      for (guint i = sig; i < n; i++)
        if (g_array_index (lines, Line, i).kind != LINE_QUOTE)
          g_array_index (lines, Line, i).kind = LINE_SIGNATURE;
    }
}

/* Adds body[offset, offset + length) to the spans, joined to the last
 * one when they touch. */
static void
add_span (GArray *spans, gsize offset, gsize length)
{
  OwnSpan *last = spans->len ? &g_array_index (spans, OwnSpan, spans->len - 1) : NULL;

  if (last && (gsize) last->offset + last->length == offset)
    last->length += length;
  else
    {
      OwnSpan span = { (guint32) offset, (guint32) length };

      g_array_append_val (spans, span);
    }
}

/* Appends @l and its line end to @out, after the blank line owed, and
 * the bytes of @body they are to @spans (when not NULL).  The owed blank
 * line is the line end just before @l (a line after another ends one);
 * a last line without its end borrows that one too. */
static void
append_line (GString *out, GArray **spans, const char *body, const Line *l,
             gboolean *blank_owed)
{
  gsize offset = l->p - body;
  gboolean has_end = l->p[l->len] == '\n';

  if (*blank_owed && out->len > 0)
    {
      g_string_append_c (out, '\n');
      if (*spans)
        add_span (*spans, offset - 1, 1);
    }
  *blank_owed = FALSE;
  g_string_append_len (out, l->p, l->len);
  g_string_append_c (out, '\n');
  if (*spans == NULL)
    return;
  add_span (*spans, offset, l->len + (has_end ? 1 : 0));
  if (!has_end && offset > 0)
    add_span (*spans, offset - 1, 1);
  else if (!has_end)
    g_clear_pointer (spans, g_array_unref);
}

/**
 * quote_own_text:
 * @body: a message's text (UTF-8, LF line ends)
 * @own: (out caller-allocates): the author's text, where it is in @body,
 *   and the counts
 *
 * Fills @own (see the file comment); free with own_text_clear().
 */
void
quote_own_text (const char *body, OwnText *own)
{
  GArray *lines = split_lines (body);
  GString *out = g_string_sized_new (strlen (body) / 2 + 1);
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (OwnSpan));
  gboolean blank_owed = FALSE;

  classify (lines);
  cut_tail (lines);
  own->quoted_lines = own->own_lines = 0;
  own->html_scrubbed = FALSE;
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);

      if (l->kind == LINE_NOTICE && line_is (l, "An HTML attachment was scrubbed..."))
        own->html_scrubbed = TRUE;

      switch (l->kind)
        {
        case LINE_OWN:
          append_line (out, &spans, body, l, &blank_owed);
          own->own_lines++;
          break;
        case LINE_BLANK:
          blank_owed = TRUE;
          break;
        case LINE_QUOTE:
        case LINE_ORIGINAL:
          own->quoted_lines++;
          break;
        default:
          break;
        }
    }
  g_array_unref (lines);
  own->text = g_string_free (out, FALSE);
  own->spans = spans;
}

/* Frees what quote_own_text() filled in. */
void
own_text_clear (OwnText *own)
{
  g_clear_pointer (&own->text, g_free);
  g_clear_pointer (&own->spans, g_array_unref);
}
