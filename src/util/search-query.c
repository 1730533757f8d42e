/* search-query.c — what a researcher types, as an FTS5 query and filters.
 *
 * FTS5 reads "e-mail" as the column "e" minus "mail", and "don't", "C++",
 * "twisted.internet" and "reactor.run()" as syntax errors.  People type
 * words, so every plain word becomes an FTS5 string ("e-mail" is the
 * phrase e mail, as the tokenizer splits it in the text too), while what
 * is plainly FTS5 syntax keeps its meaning:
 *
 *   "exact phrase"       a phrase (an unclosed quote is closed at the end)
 *   AND OR NOT           operators (upper case; "and" is a word)
 *   word*                a prefix
 *   NEAR(a b, 5)         passed through
 *   ( … )                grouping, when the parentheses stand outside a
 *                        word ("(a OR b)"; "run()" is a word)
 *   subject:word         the subject column (subject:"a phrase" too)
 *
 * and a few prefixes narrow the search instead of matching text:
 *
 *   from:bob             author address or name contains "bob"
 *   group:comp.lang.*    posted to a group (a glob)
 *   since:1999-01 until:2001   dates (also after: / before:)
 *   lang:de              own text in a language (messages.lang)
 *
 * Nothing here sees SQLite: the result is text the store binds.
 */
#include "search-query.h"

#include <string.h>

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || (guchar) c >= 0x80;
}

static gboolean
has_word_char (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (is_word_char (s[i]))
      return TRUE;
  return FALSE;
}

/* Appends @s as an FTS5 string: "…" with inner quotes doubled. */
static void
append_string (GString *out, const char *s, gsize len)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, s[i]);
    }
  g_string_append_c (out, '"');
}

/* An operand ("word", NEAR(…), a column filter, "(") right after
 * another operand (or ")") gets an explicit AND: FTS5 takes "a b" as a
 * AND b, but refuses "(a OR b) c". */
static void
append_piece (GString *out, const char *piece)
{
  gboolean is_operator = strcmp (piece, "AND") == 0 || strcmp (piece, "OR") == 0 ||
                         strcmp (piece, "NOT") == 0;
  gboolean opens = !is_operator && strcmp (piece, ")") != 0;
  gboolean after_operand = out->len > 0 && !g_str_has_suffix (out->str, " AND") &&
                           !g_str_has_suffix (out->str, " OR") && !g_str_has_suffix (out->str, " NOT") &&
                           !g_str_has_suffix (out->str, "(") && strcmp (out->str, "AND") != 0 &&
                           strcmp (out->str, "OR") != 0 && strcmp (out->str, "NOT") != 0;

  if (opens && after_operand)
    g_string_append (out, " AND");
  if (out->len > 0)
    g_string_append_c (out, ' ');
  g_string_append (out, piece);
}

/* A plain word: a prefix query when it is letters and a final "*",
 * else a string; NULL when it has nothing the tokenizer would keep. */
static char *
term (const char *s, gsize len)
{
  g_autoptr (GString) out = g_string_new (NULL);
  gboolean prefix = len > 1 && s[len - 1] == '*';

  if (!has_word_char (s, len))
    return NULL;
  for (gsize i = 0; prefix && i + 1 < len; i++)
    prefix = is_word_char (s[i]);
  append_string (out, s, prefix ? len - 1 : len);
  if (prefix)
    g_string_append_c (out, '*');
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gsize
count_char (const char *s, gsize len, char c)
{
  gsize n = 0;

  for (gsize i = 0; i < len; i++)
    n += s[i] == c;
  return n;
}

static gboolean
starts_ci (const char *s, gsize len, const char *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && g_ascii_strncasecmp (s, prefix, n) == 0;
}

/* Reads one whitespace-delimited word at @p, taking a quoted part that
 * follows a ':' ("subject:"two words"") and a whole NEAR(…) group. */
static const char *
read_word (const char *p, gsize *len)
{
  const char *s = p;

  if (g_str_has_prefix (p, "NEAR("))
    {
      const char *close = strchr (p, ')');
      *len = close ? (gsize) (close - p + 1) : strlen (p);
      return p;
    }
  while (*p && !g_ascii_isspace (*p))
    {
      if (*p == '"' && p > s && p[-1] == ':')
        {
          const char *close = strchr (p + 1, '"');
          p = close ? close + 1 : p + strlen (p);
          continue;
        }
      p++;
    }
  *len = p - s;
  return s;
}

/* The value after "name:", without quotes. */
static char *
prefix_value (const char *s, gsize len, gsize name_len)
{
  const char *v = s + name_len;
  gsize n = len - name_len;

  if (n >= 1 && v[0] == '"')
    {
      v++, n--;
      if (n > 0 && v[n - 1] == '"')
        n--;
    }
  return g_strndup (v, n);
}

static gboolean
take_prefix (SearchQuery *q, GString *out, const char *s, gsize len, GError **error)
{
  static const struct {
    const char *name;
    gsize offset;
  } filters[] = {
    { "from:", G_STRUCT_OFFSET (SearchQuery, author) },
    { "group:", G_STRUCT_OFFSET (SearchQuery, group) },
    { "since:", G_STRUCT_OFFSET (SearchQuery, since) },
    { "after:", G_STRUCT_OFFSET (SearchQuery, since) },
    { "until:", G_STRUCT_OFFSET (SearchQuery, until) },
    { "before:", G_STRUCT_OFFSET (SearchQuery, until) },
    { "lang:", G_STRUCT_OFFSET (SearchQuery, lang) },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (filters); i++)
    if (starts_ci (s, len, filters[i].name))
      {
        char **slot = G_STRUCT_MEMBER_P (q, filters[i].offset);
        g_autofree char *value = prefix_value (s, len, strlen (filters[i].name));

        if (*value == '\0')
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "'%.*s' needs a value", (int) len, s);
            return FALSE;
          }
        if (*slot != NULL)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "'%s' is given twice", filters[i].name);
            return FALSE;
          }
        *slot = g_steal_pointer (&value);
        return TRUE;
      }
  if (starts_ci (s, len, "subject:"))
    {
      g_autofree char *value = prefix_value (s, len, strlen ("subject:"));
      g_autofree char *t = term (value, strlen (value));

      if (t != NULL)
        {
          g_autofree char *piece = g_strconcat ("subject : ", t, NULL);
          append_piece (out, piece);
        }
      return TRUE;
    }
  return FALSE;
}

/**
 * search_query_parse:
 * @text: what the user typed
 * @query: (out caller-allocates): the FTS5 expression and the filters
 *   (clear with search_query_clear())
 *
 * Returns: %FALSE with @error set when a filter prefix is empty or given
 *   twice; every other text gives a query (FTS5 may still refuse one
 *   whose operators do not fit, as "a AND": the store says so)
 */
gboolean
search_query_parse (const char *text, SearchQuery *query, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);
  const char *p = text;

  memset (query, 0, sizeof *query);
  while (*p)
    {
      const char *s;
      gsize len;

      while (g_ascii_isspace (*p))
        p++;
      if (*p == '\0')
        break;
      if (*p == '"')
        {
          const char *close = strchr (p + 1, '"');
          gsize n = close ? (gsize) (close - p - 1) : strlen (p + 1);

          if (has_word_char (p + 1, n))
            {
              g_autoptr (GString) phrase = g_string_new (NULL);

              append_string (phrase, p + 1, n);
              p = close ? close + 1 : p + 1 + n;
              if (*p == '*')
                {
                  g_string_append_c (phrase, '*');
                  p++;
                }
              append_piece (out, phrase->str);
            }
          else
            p = close ? close + 1 : p + 1 + n;
          continue;
        }
      s = read_word (p, &len);
      p = s + len;
      if ((len == 3 && (strncmp (s, "AND", 3) == 0 || strncmp (s, "NOT", 3) == 0)) ||
          (len == 2 && strncmp (s, "OR", 2) == 0) || g_str_has_prefix (s, "NEAR("))
        {
          g_autofree char *piece = g_strndup (s, len);
          append_piece (out, piece);
          continue;
        }
      {
        g_autoptr (GError) local = NULL;

        if (take_prefix (query, out, s, len, &local))
          continue;
        if (local != NULL)
          {
            g_propagate_error (error, g_steal_pointer (&local));
            search_query_clear (query);
            return FALSE;
          }
      }
      /* Grouping parentheses stand outside the word: "(a", "b)". */
      while (len > 0 && s[0] == '(' && count_char (s, len, '(') > count_char (s, len, ')'))
        {
          append_piece (out, "(");
          s++, len--;
        }
      {
        gsize close = 0;
        g_autofree char *t = NULL;

        while (len > 0 && s[len - 1] == ')' && count_char (s, len, ')') > count_char (s, len, '('))
          close++, len--;
        t = term (s, len);
        if (t != NULL)
          append_piece (out, t);
        for (gsize i = 0; i < close; i++)
          append_piece (out, ")");
      }
    }
  query->match = out->len > 0 ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
  /* '"', '*', '?' or '-' alone: nothing to search for, and no filter.
   * Matching every message would answer a question nobody asked. */
  if (query->match == NULL && query->author == NULL && query->group == NULL &&
      query->since == NULL && query->until == NULL && query->lang == NULL &&
      text[strspn (text, " \t\r\n")] != '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "the query '%s' has no word to search for", text);
      return FALSE;
    }
  return TRUE;
}

void
search_query_clear (SearchQuery *query)
{
  g_clear_pointer (&query->match, g_free);
  g_clear_pointer (&query->author, g_free);
  g_clear_pointer (&query->group, g_free);
  g_clear_pointer (&query->since, g_free);
  g_clear_pointer (&query->until, g_free);
  g_clear_pointer (&query->lang, g_free);
}

/* ---- the same query for PostgreSQL (deja search --pg) ----
 *
 * search_query_parse()'s FTS5 expression as to_tsquery() text: every
 * string a quoted lexeme ('e-mail', a phrase when it holds several
 * words), "pre"* a prefix ('pre':*), AND OR NOT as & | & !, parentheses
 * kept.  NEAR(a b, N) becomes a AND b, and a column filter (subject:)
 * is dropped: PostgreSQL's tsv holds the subject and the own text as
 * one. */

static void
append_lexeme (GString *out, const char *s, gsize len, gboolean prefix)
{
  g_string_append_c (out, '\'');
  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == '\'' || s[i] == '\\')
        g_string_append_c (out, s[i] == '\'' ? '\'' : '\\');
      g_string_append_c (out, s[i]);
    }
  g_string_append_c (out, '\'');
  if (prefix)
    g_string_append (out, ":*");
}

/* An FTS5 string at @p (just after its opening quote) into @text, its
 * doubled quotes made single; returns what follows its closing quote. */
static const char *
read_string (const char *p, GString *text)
{
  g_string_truncate (text, 0);
  while (*p)
    {
      if (*p == '"' && p[1] == '"')
        {
          g_string_append_c (text, '"');
          p += 2;
        }
      else if (*p == '"')
        return p + 1;
      else
        g_string_append_c (text, *p++);
    }
  return p;
}

static void
append_operator (GString *out, const char *op, gboolean *operand)
{
  g_string_append_printf (out, " %s ", op);
  *operand = FALSE;
}

static void
append_term (GString *out, const char *s, gsize len, gboolean prefix, gboolean *operand)
{
  if (*operand)             /* NEAR's words: all of them */
    g_string_append (out, " & ");
  append_lexeme (out, s, len, prefix);
  *operand = TRUE;
}

/**
 * search_query_tsquery:
 * @match: an FTS5 expression made by search_query_parse()
 *
 * Returns: (transfer full): @match as to_tsquery() text
 */
char *
search_query_tsquery (const char *match)
{
  GString *out = g_string_new (NULL);
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean operand = FALSE;
  int near = 0;              /* inside NEAR( … ): 1 before its comma, 2 after */
  const char *p = match;

  while (p && *p)
    {
      if (g_ascii_isspace (*p))
        p++;
      else if (*p == '"')
        {
          p = read_string (p + 1, text);
          if (near != 2)
            append_term (out, text->str, text->len, *p == '*', &operand);
          p += *p == '*';
        }
      else if (*p == '(' || *p == ')')
        {
          if (near && *p == ')')
            near = 0;
          operand = *p == ')';
          g_string_append_c (out, *p++);
        }
      else if (*p == ',' && near)
        {
          near = 2;
          p++;
        }
      else
        {
          const char *s = p;
          gsize len;

          while (*p && !g_ascii_isspace (*p) && *p != '"' && *p != '(' && *p != ')' && *p != ',')
            p++;
          len = p - s;
          {
            const char *after = p;

            while (g_ascii_isspace (*after))
              after++;
            if (*after == ':' && s[len - 1] != ':')   /* "subject : …": a column filter */
              {
                p = after + 1;
                continue;
              }
          }
          if (len == 4 && strncmp (s, "NEAR", 4) == 0 && *p == '(')
            {
              near = 1;
              operand = FALSE;
            }
          else if (near == 2)
            ;                   /* the distance */
          else if (len == 3 && strncmp (s, "AND", 3) == 0)
            append_operator (out, "&", &operand);
          else if (len == 2 && strncmp (s, "OR", 2) == 0)
            append_operator (out, "|", &operand);
          else if (len == 3 && strncmp (s, "NOT", 3) == 0)
            append_operator (out, "& !", &operand);
          else if (s[len - 1] == ':')
            ;                   /* a column filter */
          else
            append_term (out, s, len, FALSE, &operand);
        }
    }
  return g_string_free (out, FALSE);
}
