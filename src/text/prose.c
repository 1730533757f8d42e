/* prose.c — the prose of own text, for counting words and sentences.
 *
 * Own text (parsers/quote.c) has no quotes or signature, but it keeps
 * what authors paste: code, tracebacks, URLs, addresses.  Counting those
 * as words floods every list of "top words" with `self`, `def` and
 * `http`, and hard wraps make every line a sentence for ICU (UAX #29
 * rule SB4 breaks after every line feed).  So: code-like lines go (and
 * are counted), URLs and addresses become spaces, the lines of a
 * paragraph are joined.  Pure: bytes in, bytes out. */
#include <string.h>
#include "words.h"

static gboolean
starts_with (const char *s, gsize len, const char *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && memcmp (s, prefix, n) == 0;
}

static gboolean
ends_with_char (const char *s, gsize len, const char *chars)
{
  while (len > 0 && g_ascii_isspace (s[len - 1]))
    len--;
  return len > 0 && strchr (chars, s[len - 1]) != NULL;
}

static gboolean
has_call (const char *s, gsize len)
{
  /* an identifier right before "(": foo(, self.bar( */
  for (gsize i = 1; i < len; i++)
    if (s[i] == '(' && (g_ascii_isalnum (s[i - 1]) || s[i - 1] == '_'))
      return TRUE;
  return FALSE;
}

static gboolean
has_text (const char *s, gsize len, const char *needle)
{
  return g_strstr_len (s, len, needle) != NULL;
}

static const char *const code_keywords[] = {
  "def ", "class ", "if ", "elif ", "else:", "for ", "while ", "try:", "except", "finally:",
  "return", "import ", "from ", "with ", "raise ", "yield ", "print ", "print(", "self.",
  "public ", "private ", "static ", "void ", "int ", "char ", "#include", "#define", "var ",
  "function ", "}", "{",
};

/**
 * text_byte_classes:
 * @table: a static table of 256 classes, made here once
 * @made: its g_once_init_enter() guard
 * @class_of: the class of a byte
 *
 * Scanning code counts several classes of each byte with one lookup in a
 * table made once (one lookup where there were two to five).  Returns:
 * @table
 */
const guint8 *
text_byte_classes (guint8 table[256], gsize *made, guint8 (*class_of) (guint byte))
{
  if (g_once_init_enter (made))
    {
      for (guint c = 0; c < 256; c++)
        table[c] = class_of (c);
      g_once_init_leave (made, 1);
    }
  return table;
}

/**
 * text_byte_lanes:
 * @table: a static table of 256 sums, made here once
 * @made: its g_once_init_enter() guard
 * @lanes_of: what a byte adds to each of four 16-bit lanes
 *
 * Counting four things of each byte with one lookup and one addition:
 * the sums of a run of at most TEXT_LANES_RUN bytes, whose lanes do not
 * overflow (counters kept apart were a dependency a byte in memory).
 * Returns: @table
 */
const guint64 *
text_byte_lanes (guint64 table[256], gsize *made, guint64 (*lanes_of) (guint byte))
{
  if (g_once_init_enter (made))
    {
      for (guint c = 0; c < 256; c++)
        table[c] = lanes_of (c);
      g_once_init_leave (made, 1);
    }
  return table;
}

/* What text_line_is_code() counts of a byte, each in a lane: a digit,
 * not white space, a character of code (not white space, and not a
 * letter: ASCII or any byte of a UTF-8 sequence). */
enum { CODE_DIGIT = 0, CODE_NONSPACE = 16, CODE_SYMBOL = 32 };

static guint64
code_lanes (guint c)
{
  static const char symbols[] = "{}[]()<>=;_$#\\/*|&^~@%+`";
  gboolean letter = c >= 0x80 || g_ascii_isalpha (c), space = g_ascii_isspace (c);

  return (guint64) (g_ascii_isdigit (c) ? 1 : 0) << CODE_DIGIT | (guint64) (space ? 0 : 1) << CODE_NONSPACE |
         /* a NUL too, as strchr() found it (its terminator) */
         (guint64) (!letter && !space && (c == 0 || strchr (symbols, c)) ? 1 : 0) << CODE_SYMBOL;
}

/**
 * text_line_is_code:
 *
 * Whether a line of own text looks like program text, a prompt or a
 * traceback rather than prose.  The rules (docs/text-analysis.md):
 * a Python, shell or preprocessor prompt or a traceback line; a
 * directory listing; def/class/import at the margin; a line ending in
 * ';', '{' or '}'; a line indented by four or more with a call, an assignment or a
 * keyword; a line that is a third or more symbols, or two fifths or more
 * symbols and digits.
 */
gboolean
text_line_is_code (const char *line, gsize len)
{
  static guint64 table[256];
  static gsize made;
  const guint64 *lanes = text_byte_lanes (table, &made, code_lanes);
  gsize indent = 0, nonspace = 0, symbols = 0, digits = 0;
  const char *s;
  gsize n;

  while (indent < len && (line[indent] == ' ' || line[indent] == '\t'))
    indent += line[indent] == '\t' ? 4 : 1;
  indent = MIN (indent, len);
  for (n = 0; n < len && (line[n] == ' ' || line[n] == '\t'); n++)
    ;
  s = line + n;
  n = len - n;
  while (n > 0 && g_ascii_isspace (s[n - 1]))
    n--;
  if (n == 0)
    return FALSE;
  if (starts_with (line, len, ">>> ") || starts_with (line, len, "... ")
      || starts_with (s, n, "$ ") || starts_with (s, n, "#include") || starts_with (s, n, "#define")
      || starts_with (s, n, "#!/") || starts_with (s, n, "Traceback (most recent call last)")
      || (starts_with (s, n, "File \"") && has_text (s, n, "\", line ")))
    return TRUE;
  /* "-rw-r--r-- 1 root …": a directory listing */
  if (n >= 10 && strchr ("-dlcbps", s[0]) && strspn (s + 1, "rwxsStT-") >= 9)
    return TRUE;
  /* Python at the margin: "class X(Y):", "def f(self):", "from a import b", "import os" */
  if (((starts_with (s, n, "def ") || starts_with (s, n, "class ")) && ends_with_char (s, n, ":"))
      || (starts_with (s, n, "from ") && has_text (s, n, " import ") && !ends_with_char (s, n, ".?!"))
      || (starts_with (s, n, "import ") && !has_text (s, n, ". ") && !ends_with_char (s, n, ".?!")))
    return TRUE;
  for (gsize i = 0; i < n; )
    {
      gsize stop = i + MIN (n - i, TEXT_LANES_RUN);
      guint64 sum = 0;

      for (; i < stop; i++)
        sum += lanes[(guchar) s[i]];
      digits += text_lane (sum, CODE_DIGIT);
      nonspace += text_lane (sum, CODE_NONSPACE);
      symbols += text_lane (sum, CODE_SYMBOL);
    }
  if ((ends_with_char (s, n, ";{}") && symbols >= 2) || symbols == nonspace)
    return TRUE;
  if (indent >= 4)
    {
      if (has_call (s, n) || has_text (s, n, " = ") || has_text (s, n, "==")
          || has_text (s, n, "->") || has_text (s, n, "+="))
        return TRUE;
      for (gsize k = 0; k < G_N_ELEMENTS (code_keywords); k++)
        if (starts_with (s, n, code_keywords[k]) && (ends_with_char (s, n, ":;{}),") || symbols > 0))
          return TRUE;
    }
  /* a third symbols, or two fifths symbols and digits: data, logs, listings
   * (a symbol is no letter: such a line is never all letters) */
  return (nonspace >= 6 && symbols * 10 >= nonspace * 3)
         || (nonspace >= 10 && (symbols + digits) * 10 >= nonspace * 4);
}

/* A whitespace-delimited word that is a URL, a mail address or a file
 * path (/usr/lib/python2.3/…, C:\\dir\\file, ~/x). */
gboolean
text_is_url_or_address (const char *w, gsize len)
{
  const char *at;
  gsize slashes = 0;

  while (len > 0 && (*w == '<' || *w == '(' || *w == '[' || *w == '"' || *w == '\''))
    w++, len--;
  if (has_text (w, len, "://") || starts_with (w, len, "www.") || starts_with (w, len, "mailto:")
      || starts_with (w, len, "news:"))
    return TRUE;
  for (gsize i = 0; i < len; i++)
    slashes += w[i] == '/' || w[i] == '\\';
  if (slashes >= 2 || (len > 1 && (w[0] == '/' || starts_with (w, len, "~/"))))
    return TRUE;
  at = memchr (w, '@', len);
  return at != NULL && at > w && memchr (at, '.', len - (at - w)) != NULL;
}

/* What append_blanked() asks of a byte, by table: white space or a
 * control character (BLANK_SPACE), or a byte that a URL, an address or a
 * path has one of (BLANK_URL, text_is_url_or_address(): a word without
 * them, and not "www.", is prose without asking). */
enum { BLANK_SPACE = 1, BLANK_URL = 2 };

static guint8
blank_class (guint c)
{
  return (g_ascii_isspace (c) || g_ascii_iscntrl (c) ? BLANK_SPACE : 0) |
         (c == ':' || c == '/' || c == '\\' || c == '@' ? BLANK_URL : 0);
}

static gboolean
may_be_url_or_address (const char *w, gsize len, gboolean has_url_byte)
{
  if (has_url_byte)
    return TRUE;
  while (len > 0 && (*w == '<' || *w == '(' || *w == '[' || *w == '"' || *w == '\''))
    w++, len--;
  return len >= 4 && memcmp (w, "www.", 4) == 0;
}

/* A byte append_blanked() may change: a blank other than a space, or a
 * byte of URLs. */
static guint8
changing_class (guint c)
{
  return c != ' ' && blank_class (c) != 0;
}

/* Whether append_blanked() may change anything of @s: a byte
 * changing_class() names, or "www." (which starts a URL without one).
 * Most lines of prose have neither: one pass without a branch a byte,
 * where the words one at a time took a branch a word (the analysis
 * harness's text_prose() 70 -> 49 million instructions on the realistic
 * corpus's first 3,000 own texts). */
static gboolean
may_blank (const char *s, gsize len)
{
  static guint8 table[256];
  static gsize made;
  const guint8 *changing = text_byte_classes (table, &made, changing_class);
  guint any = 0;

  for (gsize i = 0; i < len; i++)
    any |= changing[(guchar) s[i]];
  if (any != 0)
    return TRUE;
  /* "www.": a line has few dots */
  for (const char *dot = s + 3, *end = s + len; dot < end && (dot = memchr (dot, '.', end - dot)); dot++)
    if (dot[-1] == 'w' && dot[-2] == 'w' && dot[-3] == 'w')
      return TRUE;
  return FALSE;
}

/* @s as prose: white space and control characters become a space (a
 * vertical tab, a form feed: CLD2 refuses text with them), and a word
 * that is a URL, an address or a path one space.  Runs that stay as they
 * are go in whole (tests/test-analysis.c compares this with a word at a
 * time on random lines). */
static void
append_blanked (GString *out, const char *s, gsize len)
{
  static guint8 table[256];
  static gsize made;
  const guint8 *classes = text_byte_classes (table, &made, blank_class);
  gsize i = 0, kept = 0;   /* s[kept..i) is still to be appended as it is */

  if (!may_blank (s, len))
    i = len;
  while (i < len)
    {
      gsize j = i;
      guint has_url_byte = 0;

      if (classes[(guchar) s[i]] & BLANK_SPACE)
        {
          if (s[i] != ' ')
            {
              g_string_append_len (out, s + kept, i - kept);
              g_string_append_c (out, ' ');
              kept = i + 1;
            }
          i++;
          continue;
        }
      for (guint c; j < len && !((c = classes[(guchar) s[j]]) & BLANK_SPACE); j++)
        has_url_byte |= c;
      if (may_be_url_or_address (s + i, j - i, has_url_byte) && text_is_url_or_address (s + i, j - i))
        {
          g_string_append_len (out, s + kept, i - kept);
          g_string_append_c (out, ' ');
          kept = j;
        }
      i = j;
    }
  g_string_append_len (out, s + kept, len - kept);
}

/* "-----", "_____", "=====", "*****": a rule between text and a footer. */
static gboolean
is_rule (const char *p, gsize n)
{
  while (n > 0 && g_ascii_isspace (p[n - 1]))
    n--;
  while (n > 0 && g_ascii_isspace (*p))
    p++, n--;
  return n >= 3 && (strspn (p, "-") == n || strspn (p, "_") == n || strspn (p, "=") == n
                    || strspn (p, "*") == n);
}

#define FOOTER_MAX_LINES 6

/* Where a footer starts: after the last rule followed by at most
 * FOOTER_MAX_LINES lines (a webmail's or employer's notice, an
 * advertisement); len when there is none. */
static gsize
footer_start (const char *text, gsize len)
{
  const char *end = text + len, *p = end;
  guint lines = 0;

  while (p > text && lines <= FOOTER_MAX_LINES)
    {
      const char *eol = p, *bol;

      if (eol > text && eol[-1] == '\n')
        eol--;
      bol = eol;
      while (bol > text && bol[-1] != '\n')
        bol--;
      if (is_rule (bol, eol - bol))
        return bol - text;
      lines++;
      p = bol;
    }
  return len;
}

/**
 * text_prose:
 * @out: cleared, then filled: paragraphs joined by "\n\n", no other newline
 * @code_lines: (out) (optional): lines left out as code
 *
 * A footer after a rule at the end (at most six lines) is left out too.
 */
void
text_prose (const char *text, gsize len, GString *out, guint *code_lines)
{
  const char *p = text, *end = text + footer_start (text, len);
  gboolean in_paragraph = FALSE;
  guint code = 0;

  g_string_truncate (out, 0);
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *eol = nl ? nl : end;
      gsize n = eol - p;
      gboolean blank = TRUE;

      if (n > 0 && p[n - 1] == '\r')
        n--;
      for (gsize i = 0; i < n && blank; i++)
        blank = g_ascii_isspace (p[i]);
      if (blank || text_line_is_code (p, n))
        {
          code += blank ? 0 : 1;
          in_paragraph = FALSE;
        }
      else
        {
          if (in_paragraph)
            g_string_append_c (out, ' ');
          else if (out->len > 0)
            g_string_append (out, "\n\n");
          append_blanked (out, p, n);
          in_paragraph = TRUE;
        }
      p = nl ? nl + 1 : end;
    }
  if (code_lines)
    *code_lines = code;
}
