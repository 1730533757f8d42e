/* output.c — writing results.
 *
 * Field escaping for CSV (RFC 4180), TSV (\t, \n, \\ escapes, as `deja
 * log` writes) and JSON strings; and output files that appear whole: they
 * are written under a temporary name beside the target and renamed into
 * place only when complete, so an interrupted export never leaves a
 * truncated file where a finished one is expected.
 */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- text that anyone wrote, made fit for its reader ----
 *
 * Message text in the database is valid UTF-8 (the decoders make it so),
 * but file paths are bytes, and names and subjects may hold any
 * character, escape sequences included.  Every writer of text goes
 * through one of these. */

/* @text with each byte that is not part of valid UTF-8 replaced by U+FFFD;
 * NULL when @text is valid (use it as it is). */
static char *
valid_copy (const char *text)
{
  return text == NULL || g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
}

/**
 * output_valid_utf8:
 * @owned: (out) (transfer full): where the copy goes, when one is made
 *
 * Returns: (nullable): @text as valid UTF-8 (U+FFFD for each byte that is
 *   not): @text itself when it is valid, else *@owned
 */
const char *
output_valid_utf8 (const char *text, char **owned)
{
  *owned = valid_copy (text);
  return *owned ? *owned : text;
}

/* Whether XML 1.0 allows the character @c (its production Char). */
static gboolean
xml_char (gunichar c)
{
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/**
 * output_xml_text:
 *
 * Returns: (transfer full) (nullable): @text with what XML 1.0 does not
 *   allow (control characters but tab and line ends, U+FFFE, U+FFFF,
 *   bytes that are not UTF-8) replaced by U+FFFD; %NULL for %NULL
 */
char *
output_xml_text (const char *text)
{
  g_autofree char *valid = valid_copy (text);
  const char *p = valid ? valid : text;
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_sized_new (strlen (p));
  for (; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (xml_char (c))
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      else
        g_string_append (out, "\xef\xbf\xbd");
    }
  return g_string_free (out, FALSE);
}

/**
 * output_terminal_text:
 * @lines: keep line ends and tabs (else they become spaces)
 *
 * Appends @text as a terminal may show it: nothing in it can move the
 * cursor, change colours or the window's title, or run a terminal's
 * commands.  C0 control characters and DEL are shown as ^X (as cat -v and
 * less do: ESC is ^[), a carriage return too (it would hide the start of
 * a line), C1 control characters (U+0080 to U+009F, which some terminals
 * take for ESC sequences) and bytes that are not UTF-8 as U+FFFD.
 */
void
output_terminal_text (GString *out, const char *text, gboolean lines)
{
  g_autofree char *valid = valid_copy (text);

  for (const char *p = valid ? valid : text ? text : ""; *p; p = g_utf8_next_char (p))
    {
      const char *run = p;
      gunichar c;

      /* printable ASCII as it is, a run at a time (a line for each file
       * of a Maildir or a news spool went through here a byte at a time) */
      while ((guchar) *p >= 0x20 && (guchar) *p < 0x7f)
        p++;
      if (p > run)
        g_string_append_len (out, run, p - run);
      if (*p == '\0')
        break;
      c = g_utf8_get_char (p);

      if ((c == '\n' || c == '\t') && lines)
        g_string_append_c (out, (char) c);
      else if (c == '\n' || c == '\t')
        g_string_append_c (out, ' ');
      else if (c < 0x20 || c == 0x7f)
        {
          g_string_append_c (out, '^');
          g_string_append_c (out, c == 0x7f ? '?' : (char) (c + '@'));
        }
      else if (c >= 0x80 && c <= 0x9f)
        g_string_append (out, "\xef\xbf\xbd");
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
}

/**
 * output_terminal_copy:
 *
 * Returns: (transfer full) (nullable): output_terminal_text() of @text,
 *   lines kept; %NULL for %NULL
 */
char *
output_terminal_copy (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_new (NULL);
  output_terminal_text (out, text, TRUE);
  return g_string_free (out, FALSE);
}

/* Spreadsheets (Excel, LibreOffice, Google Sheets) take a cell that
 * begins with one of these for a formula (OWASP, "CSV injection"). */
static gboolean csv_for_spreadsheets;

/**
 * output_csv_set_spreadsheet_safe:
 *
 * From now on, output_csv_field() writes a cell that begins with '=',
 * '+', '-', '@', a tab or a carriage return with a "'" before it, so
 * that a spreadsheet shows it as text (OWASP's advice); off by default,
 * since it changes the data ("-1" becomes "'-1").
 */
void
output_csv_set_spreadsheet_safe (gboolean safe)
{
  csv_for_spreadsheets = safe;
}

/* "-1", "+2.5e3": a number, which a spreadsheet reads as one. */
static gboolean
is_number (const char *text)
{
  char *end;

  g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && strpbrk (text, "xXnN") == NULL;   /* no hex, inf, nan */
}

/* NULL and "" are both an empty field (CSV has no NULL). */
void
output_csv_field (GString *out, const char *text)
{
  g_autofree char *valid = valid_copy (text);
  gboolean formula;

  if (valid)
    text = valid;
  formula = csv_for_spreadsheets && text != NULL && text[0] != '\0' &&
            strchr ("=+-@\t\r", text[0]) != NULL && !is_number (text);
  if (text == NULL || (!formula && strpbrk (text, ",\"\r\n") == NULL))
    {
      g_string_append (out, text ? text : "");
      return;
    }
  g_string_append_c (out, '"');
  if (formula)
    g_string_append_c (out, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

void
output_tsv_field (GString *out, const char *text)
{
  g_autofree char *valid = valid_copy (text);

  for (const char *p = valid ? valid : text ? text : ""; *p; p++)
    {
      if (*p == '\t')
        g_string_append (out, "\\t");
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else if (*p == '\r')
        g_string_append (out, "\\r");
      else if (*p == '\\')
        g_string_append (out, "\\\\");
      else
        g_string_append_c (out, *p);
    }
}

/**
 * output_tsv_unescape:
 * @field: (inout): a TSV field as output_tsv_field() wrote it
 *
 * Undoes output_tsv_field() in place: "\\t", "\\n", "\\r" and "\\\\" become
 * the characters; a backslash before anything else stays as written.
 *
 * Returns: (transfer none): @field
 */
char *
output_tsv_unescape (char *field)
{
  char *w = field;

  for (const char *p = field; *p; p++)
    {
      if (*p == '\\' && p[1] != '\0' && strchr ("tnr\\", p[1]) != NULL)
        {
          p++;
          *w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : '\\';
        }
      else
        *w++ = *p;
    }
  *w = '\0';
  return field;
}

/* A JSON string for UTF-8 @text, or null. */
void
output_json_string (GString *out, const char *text)
{
  g_autofree char *valid = valid_copy (text);

  if (text == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) (valid ? valid : text); *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          /* control characters escaped, C1 (U+0080 to U+009F, "\xc2\x80"
           * to "\xc2\x9f") and DEL too, so that JSON shown in a terminal
           * holds no escape sequence */
          if (*p < 0x20 || *p == 0x7f)
            g_string_append_printf (out, "\\u%04x", *p);
          else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            g_string_append_printf (out, "\\u%04x", *++p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

/**
 * output_json_number:
 *
 * @value as a JSON number, or null when it is not finite (JSON has no
 * NaN or infinity: the density of a network of one vertex).  Written
 * with a '.' whatever the locale: printf's "%g" wrote "0,72" under
 * LC_NUMERIC=de_DE.UTF-8, which no JSON reader takes.
 */
void
output_json_number (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (value))
    g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.8g", value));
  else
    g_string_append (out, "null");
}

/* A result row as one JSON object: numbers as numbers, NULL as null. */
void
output_json_object (GString *out, const RowValue *values, guint n)
{
  g_string_append_c (out, '{');
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append (out, ", ");
      output_json_string (out, values[i].name);
      g_string_append (out, ": ");
      if (values[i].number && values[i].text)
        g_string_append (out, values[i].text);
      else
        output_json_string (out, values[i].text);
    }
  g_string_append_c (out, '}');
}

struct _Output {
  FILE *stream;
  char *path;       /* NULL for stdout */
  char *tmp_path;
};

/**
 * output_open:
 * @path: (nullable): a file to create or replace, or %NULL (or "-") for
 *   standard output
 */
Output *
output_open (const char *path, GError **error)
{
  Output *o = g_new0 (Output, 1);
  int fd;

  if (path == NULL || strcmp (path, "-") == 0)
    {
      o->stream = stdout;
      return o;
    }
  o->path = g_strdup (path);
  o->tmp_path = g_strconcat (path, ".tmp-XXXXXX", NULL);
  if ((fd = g_mkstemp (o->tmp_path)) < 0 || (o->stream = fdopen (fd, "w")) == NULL)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create '%s': %s", path, g_strerror (saved));
      if (fd >= 0)
        {
          close (fd);
          g_unlink (o->tmp_path);
        }
      g_free (o->path);
      g_free (o->tmp_path);
      g_free (o);
      return NULL;
    }
  {
    mode_t mask = umask (0);     /* mkstemp makes 0600; give the usual mode */
    umask (mask);
    fchmod (fd, 0666 & ~mask);
  }
  return o;
}

FILE *
output_stream (Output *o)
{
  return o->stream;
}

/* Finishes the output: with @commit, a file is renamed into place; without
 * (or on a write error), it is removed.  Returns FALSE when writing failed.
 * Standard output is checked once for every command, in main.c. */
gboolean
output_close (Output *o, gboolean commit, GError **error)
{
  gboolean ok = o->path == NULL || (fflush (o->stream) == 0 && !ferror (o->stream));
  int saved = errno;

  if (o->path != NULL)
    {
      ok = fclose (o->stream) == 0 && ok;
      saved = ok ? saved : errno;
      if (ok && commit && g_rename (o->tmp_path, o->path) != 0)
        {
          saved = errno;
          ok = FALSE;
        }
      if (!ok || !commit)
        g_unlink (o->tmp_path);
    }
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "cannot write '%s': %s",
                 o->path ? o->path : "standard output", g_strerror (saved));
  g_free (o->path);
  g_free (o->tmp_path);
  g_free (o);
  return ok;
}

/**
 * output_tsv_fields:
 * @line: one line of a TSV file a person may have edited (a spreadsheet
 *   ends lines with CR LF); changed in place
 *
 * Returns: (transfer full): its fields, still escaped; trailing tabs are
 *   empty fields, not dropped
 */
char **
output_tsv_fields (char *line)
{
  gsize n = strlen (line);

  if (n > 0 && line[n - 1] == '\r')
    line[n - 1] = '\0';
  return g_strsplit (line, "\t", -1);
}

/* The index of column @name in a header row, or -1. */
int
output_tsv_column (char **head, const char *name)
{
  for (int i = 0; head && head[i]; i++)
    if (strcmp (head[i], name) == 0)
      return i;
  return -1;
}
