/* headers.c — a message's header fields, read by deja where GMime would
 * read them the same.
 *
 * Nearly every archived message is one text/plain entity (pipermail keeps
 * no Content-Type at all; 97 % of the realistic benchmark corpus is
 * plain), and for those GMime's parser, its objects and its streams were
 * a third of decoding.  mail_headers_read() reads a header block only
 * when it is plain: field names of printable ASCII followed by a colon,
 * continuation lines starting with a space or tab, an empty line at its
 * end, no CR but before a newline, no NUL.  Anything else (a From-line
 * before the fields, a name with a space, a block that runs to the end)
 * is left to GMime, whose reading of odd blocks deja keeps.  A field's
 * value is what GMime 3.2 keeps as its raw value (gmime-parser.c,
 * header_buffer_parse()): every byte after the colon to the end of the
 * field, folds and the last newline included.
 *
 * mail_headers_plain_text() then says whether the Content-* fields make
 * the entity plain text GMime would hand over unchanged: text/plain or no
 * Content-Type, in a form whose charset parameter reads one way (tokens
 * and quoted strings without escapes, comments or encoded words), an
 * identity transfer encoding, no Content-Disposition.  Both are proved
 * against GMime on every message of every corpus and fixture and on
 * generated variants (tests/test-reader.c).
 */
#include "headers.h"

#include <string.h>

typedef struct {
  gsize name, name_len, value, value_len;
} FieldSpan;

static gboolean
is_name_byte (guchar c)
{
  return c > 0x20 && c < 0x7f && c != ':';
}

static void
headers_fill (const char *data, const FieldSpan *spans, guint n, MailHeaders *out)
{
  gsize size = 0;
  char *w;

  for (guint i = 0; i < n; i++)
    size += spans[i].name_len + spans[i].value_len + 2;
  out->owned = w = g_malloc (size);
  out->v = g_new (MailHeader, n);
  out->n = n;
  for (guint i = 0; i < n; i++)
    {
      out->v[i].name = w;
      memcpy (w, data + spans[i].name, spans[i].name_len);
      w += spans[i].name_len;
      *w++ = '\0';
      out->v[i].value = w;
      memcpy (w, data + spans[i].value, spans[i].value_len);
      w += spans[i].value_len;
      *w++ = '\0';
    }
}

/**
 * mail_headers_read:
 * @data: (array length=len): a message, its header block first
 * @out: (out caller-allocates): its fields; mail_headers_clear() them
 * @body: (out): where the body starts, after the empty line
 *
 * Reads a plain header block (see the file comment).
 *
 * Returns: %FALSE, with @out empty, when the block is not plain and only
 *   GMime's reading of it holds
 */
gboolean
mail_headers_read (const char *data, gsize len, MailHeaders *out, gsize *body)
{
  g_autoptr (GArray) fields = g_array_sized_new (FALSE, FALSE, sizeof (FieldSpan), 32);
  const char *p = data, *end = data + len;

  memset (out, 0, sizeof *out);
  while (TRUE)
    {
      const char *lf = memchr (p, '\n', end - p);
      gsize line;

      if (lf == NULL)
        return FALSE;   /* the block runs to the end */
      line = lf - p;
      if (line > 0 && p[line - 1] == '\r')
        line--;
      if (memchr (p, '\r', line) != NULL || memchr (p, '\0', lf - p) != NULL)
        return FALSE;
      if (line == 0)
        {
          if (fields->len == 0)
            return FALSE;   /* no field before the empty line */
          *body = lf + 1 - data;
          break;
        }
      if (*p == ' ' || *p == '\t')
        {
          FieldSpan *last;

          if (fields->len == 0)
            return FALSE;
          last = &g_array_index (fields, FieldSpan, fields->len - 1);
          last->value_len = lf + 1 - data - last->value;
        }
      else
        {
          const char *q = p;
          FieldSpan f;

          while (q < p + line && is_name_byte (*q))
            q++;
          if (q == p || q == p + line || *q != ':')
            return FALSE;
          f = (FieldSpan) { p - data, q - p, q + 1 - data, lf - q };
          g_array_append_val (fields, f);
        }
      p = lf + 1;
    }
  headers_fill (data, (const FieldSpan *) (void *) fields->data, fields->len, out);
  return TRUE;
}

/**
 * mail_headers_from_gmime:
 * @object: a parsed message or entity; must outlive @out
 * @out: (out caller-allocates): its fields, borrowed from GMime
 */
void
mail_headers_from_gmime (GMimeObject *object, MailHeaders *out)
{
  GMimeHeaderList *list = g_mime_object_get_header_list (object);
  int n = list ? g_mime_header_list_get_count (list) : 0;

  memset (out, 0, sizeof *out);
  out->v = g_new (MailHeader, MAX (n, 1));
  for (int i = 0; i < n; i++)
    {
      GMimeHeader *h = g_mime_header_list_get_header_at (list, i);

      out->v[out->n].name = g_mime_header_get_name (h);
      out->v[out->n].value = g_mime_header_get_raw_value (h);
      out->n++;
    }
}

/**
 * mail_headers_get:
 *
 * Returns: (transfer none) (nullable): the raw value of the first field
 *   called @name (any case)
 */
const char *
mail_headers_get (const MailHeaders *headers, const char *name)
{
  char first = g_ascii_tolower (name[0]);

  /* a message's fields are looked up a dozen times: the first letter
   * before the whole name */
  for (guint i = 0; i < headers->n; i++)
    {
      const char *hname = headers->v[i].name;

      if (g_ascii_tolower (hname[0]) == first && g_ascii_strcasecmp (hname, name) == 0)
        return headers->v[i].value;
    }
  return NULL;
}

void
mail_headers_clear (MailHeaders *headers)
{
  g_free (headers->v);
  g_free (headers->owned);
  memset (headers, 0, sizeof *headers);
}

/* RFC 2045's token characters. */
static gboolean
is_token_byte (guchar c)
{
  return c > 0x20 && c < 0x7f && strchr ("()<>@,;:\\\"/[]?=", c) == NULL;
}

static void
skip_space (const char **p)
{
  while (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n')
    (*p)++;
}

static gsize
token_len (const char *p)
{
  gsize n = 0;

  while (is_token_byte (p[n]))
    n++;
  return n;
}

static gboolean
token_is (const char *p, gsize len, const char *word)
{
  return len == strlen (word) && g_ascii_strncasecmp (p, word, len) == 0;
}

/* A parameter value: a token, or a quoted string of printable ASCII
 * without escapes or encoded words.  Sets *value and *len; returns FALSE
 * for any other form. */
static gboolean
param_value (const char **p, const char **value, gsize *len)
{
  const char *s = *p;

  if (*s != '"')
    {
      *value = s;
      *len = token_len (s);
      *p = s + *len;
      return *len > 0;
    }
  s++;
  *value = s;
  while (*s != '"')
    {
      if ((guchar) *s < 0x20 || (guchar) *s >= 0x7f || *s == '\\' || (*s == '=' && s[1] == '?'))
        return FALSE;
      s++;
    }
  *len = s - *value;
  *p = s + 1;
  return TRUE;
}

/* "text/plain" and parameters of one reading; the charset's value in
 * *charset (NULL when none). */
static gboolean
plain_content_type (const char *v, char **charset)
{
  const char *p = v;
  gsize n;

  skip_space (&p);
  n = token_len (p);
  if (!token_is (p, n, "text") || p[n] != '/')
    return FALSE;
  p += n + 1;
  n = token_len (p);
  if (!token_is (p, n, "plain"))
    return FALSE;
  p += n;
  while (TRUE)
    {
      const char *name, *value;
      gsize name_len, value_len;

      skip_space (&p);
      if (*p == '\0')
        return TRUE;
      if (*p++ != ';')
        return FALSE;
      skip_space (&p);
      if (*p == '\0')
        return TRUE;
      name = p;
      name_len = token_len (p);
      if (name_len == 0 || memchr (name, '*', name_len) != NULL)
        return FALSE;
      p += name_len;
      skip_space (&p);
      if (*p++ != '=')
        return FALSE;
      skip_space (&p);
      if (!param_value (&p, &value, &value_len))
        return FALSE;
      if (token_is (name, name_len, "charset"))
        {
          if (*charset != NULL)
            return FALSE;
          *charset = g_strndup (value, value_len);
        }
    }
}

/* A Content-Transfer-Encoding GMime does not decode, in one reading. */
static gboolean
identity_encoding (const char *v)
{
  static const char *const names[] = { "7bit", "8bit", "7-bit", "8-bit", "binary" };
  const char *p = v;
  gsize n;

  skip_space (&p);
  n = strlen (p);
  while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
    n--;
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (token_is (p, n, names[i]))
      return TRUE;
  return FALSE;
}

/**
 * mail_headers_plain_text:
 * @headers: a plain entity's fields (mail_headers_read())
 * @out: (out caller-allocates): what they declare; g_free() its charset
 *
 * Returns: whether the entity is plain text that GMime would give as its
 *   bytes (see the file comment)
 */
gboolean
mail_headers_plain_text (const MailHeaders *headers, MailPlainType *out)
{
  gboolean type = FALSE, encoding = FALSE;

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < headers->n; i++)
    {
      const char *name = headers->v[i].name;

      if (g_ascii_strncasecmp (name, "Content-", 8) != 0)
        continue;
      if (g_ascii_strcasecmp (name + 8, "Type") == 0)
        {
          if (type || !plain_content_type (headers->v[i].value, &out->charset))
            goto not_plain;
          type = TRUE;
          out->type_declared = TRUE;
        }
      else if (g_ascii_strcasecmp (name + 8, "Transfer-Encoding") == 0)
        {
          if (encoding || !identity_encoding (headers->v[i].value))
            goto not_plain;
          encoding = TRUE;
          out->encoding_declared = TRUE;
        }
      else if (g_ascii_strcasecmp (name + 8, "Disposition") == 0)
        goto not_plain;
    }
  return TRUE;

not_plain:
  g_clear_pointer (&out->charset, g_free);
  return FALSE;
}
