/* quote.c — the author's own words: a body without what it quotes.
 *
 * Line by line, a body is the author's text, or
 *   - a quoted line: ">" (nested, spaced or not, after up to three spaces),
 *     "|" or ":" at the start of the line followed by a space, another
 *     quote mark or nothing, or a Supercite "AB>" prefix;
 *   - an attribution: one to three lines ending in ":" just before quoted
 *     lines, that name the quoting ("wrote", "writes", "In article <…>",
 *     "On DATE, X wrote:", and their translations); "In article <…>, X
 *     writes:" counts wherever it stands;
 *   - a Google Groups marker ("- Hide quoted text -", "- Show quoted
 *     text -");
 *   - the signature: from the last "-- " line to the end (also "--"
 *     without the space, when at most 10 lines follow);
 *   - a forwarded or top-posted original: from "-----Original
 *     Message-----", "Begin forwarded message:" or "---------- Forwarded
 *     message ----------" to the end.
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
} LineKind;

typedef struct {
  const char *p;
  gsize len;
  LineKind kind;
} Line;

static GArray *
split_lines (const char *text)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  const char *p = text;

  while (*p)
    {
      const char *nl = strchr (p, '\n');
      Line line = { p, nl ? (gsize) (nl - p) : strlen (p), LINE_OWN };

      g_array_append_val (lines, line);
      p = nl ? nl + 1 : p + line.len;
    }
  return lines;
}

static gboolean
is_blank (const Line *l)
{
  for (gsize i = 0; i < l->len; i++)
    if (!g_ascii_isspace (l->p[i]))
      return FALSE;
  return TRUE;
}

/* The line without leading and trailing white space. */
static void
trimmed (const Line *l, const char **p, gsize *len)
{
  const char *s = l->p, *e = l->p + l->len;

  while (s < e && g_ascii_isspace (*s))
    s++;
  while (e > s && g_ascii_isspace (e[-1]))
    e--;
  *p = s;
  *len = e - s;
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

static gboolean
equals_ci (const char *p, gsize len, const char *word)
{
  return len == strlen (word) && g_ascii_strncasecmp (p, word, len) == 0;
}

static gboolean
is_marker (const Line *l)
{
  const char *p;
  gsize len;

  trimmed (l, &p, &len);
  return equals_ci (p, len, "- Hide quoted text -") || equals_ci (p, len, "- Show quoted text -");
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

static gboolean
contains_ci (const char *p, gsize len, const char *word)
{
  gsize n = strlen (word);

  for (gsize i = 0; i + n <= len; i++)
    if (g_ascii_strncasecmp (p + i, word, n) == 0)
      return TRUE;
  return FALSE;
}

/* Does the text read like "X wrote:"?  (Several languages.) */
static gboolean
names_quoting (const char *p, gsize len)
{
  static const char *const words[] = {
    "wrote", "writes", "said", "says", "schrieb", "crit", "escribi", "scripsit", "skrev",
    "kirjoitti", "scrisse", "napisa", "In article", "In message", "In <", "quoted",
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
  if (len == 0 || p[len - 1] != ':')
    return;
  while (first > 0 && last - first + 1 < ATTRIBUTION_MAX_LINES &&
         g_array_index (lines, Line, first - 1).kind == LINE_OWN &&
         !ends_sentence (&g_array_index (lines, Line, first - 1)))
    first--;
  for (guint i = first; i <= last && !named; i++)
    named = names_quoting (g_array_index (lines, Line, i).p, g_array_index (lines, Line, i).len);
  for (guint i = first; named && i <= last; i++)
    g_array_index (lines, Line, i).kind = LINE_ATTRIBUTION;
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
  /* Attributions: the paragraph before a quote block. */
  for (guint i = 0; i < n; i++)
    {
      LineKind k = g_array_index (lines, Line, i).kind;
      gboolean quote_follows = FALSE;
      guint j = i + 1;

      if (k != LINE_OWN)
        continue;
      while (j < n && g_array_index (lines, Line, j).kind == LINE_BLANK)
        j++;
      if (j < n && j > i)
        {
          LineKind next = g_array_index (lines, Line, j).kind;
          quote_follows = next == LINE_QUOTE || next == LINE_MARKER;
        }
      if (quote_follows || usenet_attribution_near (lines, i))
        mark_attribution (lines, i);
    }
}

/* Marks everything from @from on as @kind. */
static void
mark_rest (GArray *lines, guint from, LineKind kind)
{
  for (guint i = from; i < lines->len; i++)
    if (g_array_index (lines, Line, i).kind != LINE_BLANK)
      g_array_index (lines, Line, i).kind =
        g_array_index (lines, Line, i).kind == LINE_QUOTE ? LINE_QUOTE : kind;
}

static void
cut_tail (GArray *lines)
{
  guint n = lines->len;
  int sig = -1;

  for (guint i = 0; i < n; i++)
    {
      Line *l = &g_array_index (lines, Line, i);

      if (l->kind == LINE_OWN && is_original (l))
        {
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

static void
append_line (GString *out, const Line *l, gboolean *blank_owed)
{
  if (*blank_owed && out->len > 0)
    g_string_append_c (out, '\n');
  *blank_owed = FALSE;
  g_string_append_len (out, l->p, l->len);
  g_string_append_c (out, '\n');
}

/**
 * quote_own_text:
 * @body: a message's text (UTF-8, LF line ends)
 * @own: (out caller-allocates): the author's text and the counts
 *
 * Fills @own (see the file comment); free own->text with g_free().
 */
void
quote_own_text (const char *body, OwnText *own)
{
  GArray *lines = split_lines (body);
  GString *out = g_string_sized_new (strlen (body) / 2 + 1);
  gboolean blank_owed = FALSE;

  classify (lines);
  cut_tail (lines);
  own->quoted_lines = own->own_lines = 0;
  for (guint i = 0; i < lines->len; i++)
    {
      Line *l = &g_array_index (lines, Line, i);

      switch (l->kind)
        {
        case LINE_OWN:
          append_line (out, l, &blank_owed);
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
}
