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
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NULL and "" are both an empty field (CSV has no NULL). */
void
output_csv_field (GString *out, const char *text)
{
  if (text == NULL || strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (out, text ? text : "");
      return;
    }
  g_string_append_c (out, '"');
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
  for (const char *p = text ? text : ""; *p; p++)
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
  if (text == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
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
