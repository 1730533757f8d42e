/* rows.c — printing rows as a table, TSV, CSV or a JSON array.
 *
 * TSV, CSV and JSON stream: each row is written as it comes.  A table
 * needs its column widths, so it keeps the rows until the end; commands
 * whose rows can be many (export, search) have table layouts of their own
 * or none.
 */
#include "rows.h"

#include "output.h"

#include <string.h>

#define TABLE_MAX_WIDTH 60   /* characters; longer cells are cut with "…" */

struct _RowWriter {
  RowFormat format;
  FILE *out;
  guint64 rows;
  GString *line;
  /* table */
  GPtrArray *names;         /* of char * */
  GArray *numeric;          /* of gboolean, per column: every value a number */
  GPtrArray *cells;         /* of char * (NULL for SQL NULL), row after row */
};

gboolean
row_format_parse (const char *text, RowFormat fallback, RowFormat *format)
{
  static const char *const names[] = { "table", "tsv", "csv", "json" };

  if (text == NULL)
    {
      *format = fallback;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (text, names[i]) == 0)
      {
        *format = (RowFormat) i;
        return TRUE;
      }
  return FALSE;
}

/* The text of the value named @name in a row, or NULL (absent, or SQL NULL). */
const char *
row_get (const RowValue *values, guint n, const char *name)
{
  const RowValue *v = row_find (values, n, name);

  return v ? v->text : NULL;
}

/* The value of column @name, or %NULL when the row has none. */
const RowValue *
row_find (const RowValue *values, guint n, const char *name)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (values[i].name, name) == 0)
      return &values[i];
  return NULL;
}

/**
 * row_copy_new:
 * @extra_name: (nullable): a value put first (the database a row came
 *   from), with @extra_text
 *
 * Returns: (transfer full): a copy of the row, for row_copy_free()
 */
RowCopy *
row_copy_new (const RowValue *values, guint n, const char *extra_name, const char *extra_text)
{
  RowCopy *row = g_new0 (RowCopy, 1);
  guint k = 0;

  row->n = n + (extra_name != NULL);
  row->values = g_new0 (RowValue, row->n);
  if (extra_name)
    row->values[k++] = (RowValue) { g_strdup (extra_name), g_strdup (extra_text), FALSE };
  for (guint i = 0; i < n; i++)
    row->values[k++] = (RowValue) { g_strdup (values[i].name), g_strdup (values[i].text),
                                    values[i].number };
  return row;
}

void
row_copy_free (RowCopy *row)
{
  if (row == NULL)
    return;
  for (guint i = 0; i < row->n; i++)
    {
      g_free ((char *) row->values[i].name);
      g_free ((char *) row->values[i].text);
    }
  g_free (row->values);
  g_free (row);
}

RowWriter *
row_writer_new (RowFormat format, FILE *out)
{
  RowWriter *w = g_new0 (RowWriter, 1);

  w->format = format;
  w->out = out;
  w->line = g_string_new (NULL);
  if (format == ROW_FORMAT_TABLE)
    {
      w->names = g_ptr_array_new_with_free_func (g_free);
      w->numeric = g_array_new (FALSE, FALSE, sizeof (gboolean));
      w->cells = g_ptr_array_new_with_free_func (g_free);
    }
  return w;
}

static void
header (RowWriter *w, const RowValue *v, guint n, void (*field) (GString *, const char *),
        char sep)
{
  for (guint i = 0; i < n; i++)
    {
      field (w->line, v[i].name);
      g_string_append_c (w->line, i + 1 < n ? sep : '\n');
    }
}

static void
delimited (RowWriter *w, const RowValue *v, guint n, void (*field) (GString *, const char *),
           char sep)
{
  if (w->rows == 0)
    header (w, v, n, field, sep);
  for (guint i = 0; i < n; i++)
    {
      field (w->line, v[i].text);
      g_string_append_c (w->line, i + 1 < n ? sep : '\n');
    }
}

static void
keep_for_table (RowWriter *w, const RowValue *v, guint n)
{
  if (w->rows == 0)
    for (guint i = 0; i < n; i++)
      {
        gboolean numeric = TRUE;

        g_ptr_array_add (w->names, g_strdup (v[i].name));
        g_array_append_val (w->numeric, numeric);
      }
  g_return_if_fail (n == w->names->len);
  for (guint i = 0; i < n; i++)
    {
      g_ptr_array_add (w->cells, g_strdup (v[i].text));
      if (v[i].text != NULL && !v[i].number)
        g_array_index (w->numeric, gboolean, i) = FALSE;
    }
}

void
row_writer_add (RowWriter *w, const RowValue *v, guint n)
{
  g_string_truncate (w->line, 0);
  switch (w->format)
    {
    case ROW_FORMAT_TABLE:
      keep_for_table (w, v, n);
      break;
    case ROW_FORMAT_TSV:
      delimited (w, v, n, output_tsv_field, '\t');
      break;
    case ROW_FORMAT_CSV:
      delimited (w, v, n, output_csv_field, ',');
      break;
    case ROW_FORMAT_JSON:
      g_string_append (w->line, w->rows ? ",\n  " : "[\n  ");
      output_json_object (w->line, v, n);
      break;
    }
  fwrite (w->line->str, 1, w->line->len, w->out);
  w->rows++;
}

gboolean
row_writer_add_func (const RowValue *values, guint n, gpointer writer)
{
  row_writer_add (writer, values, n);
  return TRUE;
}

guint64
row_writer_rows (const RowWriter *w)
{
  return w->rows;
}

/* A cell as one line: control characters become spaces, and a cell
 * longer than TABLE_MAX_WIDTH characters is cut. */
static char *
table_cell (const char *text)
{
  GString *s = g_string_new (NULL);
  g_autoptr (GString) shown = g_string_new (NULL);
  glong chars = 0;

  /* escape sequences and bytes that are not UTF-8 made harmless, lines
   * joined (output_terminal_text()) */
  output_terminal_text (shown, text ? text : "-", FALSE);
  text = shown->str;
  for (const char *p = text; *p; p = g_utf8_next_char (p), chars++)
    {
      const char *next = g_utf8_next_char (p);

      if (chars == TABLE_MAX_WIDTH - 1 && *next != '\0')
        {
          g_string_append (s, "…");
          break;
        }
      if ((guchar) *p < 0x20)
        g_string_append_c (s, ' ');
      else
        g_string_append_len (s, p, next - p);
    }
  return g_string_free (s, FALSE);
}

static void
pad (GString *line, const char *cell, glong width, gboolean right)
{
  glong len = g_utf8_strlen (cell, -1);

  if (right)
    for (glong i = len; i < width; i++)
      g_string_append_c (line, ' ');
  g_string_append (line, cell);
  if (!right)
    for (glong i = len; i < width; i++)
      g_string_append_c (line, ' ');
}

static void
print_table (RowWriter *w)
{
  guint n = w->names->len;
  g_autofree glong *width = g_new0 (glong, n);
  g_autoptr (GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    width[i] = g_utf8_strlen (g_ptr_array_index (w->names, i), -1);
  for (guint c = 0; c < w->cells->len; c++)
    {
      char *cell = table_cell (g_ptr_array_index (w->cells, c));

      width[c % n] = MAX (width[c % n], g_utf8_strlen (cell, -1));
      g_ptr_array_add (shown, cell);
    }
  for (guint r = 0; r <= w->rows; r++)
    {
      g_string_truncate (w->line, 0);
      for (guint i = 0; i < n; i++)
        {
          const char *cell = r == 0 ? g_ptr_array_index (w->names, i)
                                    : g_ptr_array_index (shown, (r - 1) * n + i);
          gboolean right = g_array_index (w->numeric, gboolean, i);

          if (i > 0)
            g_string_append (w->line, "  ");
          /* The last column is not padded on the right. */
          pad (w->line, cell, i + 1 < n || right ? width[i] : 0, right);
        }
      g_string_append_c (w->line, '\n');
      fwrite (w->line->str, 1, w->line->len, w->out);
    }
}

/* Ends the output (a table is printed now; a JSON array is closed) and
 * frees @w. */
void
row_writer_finish (RowWriter *w)
{
  if (w->format == ROW_FORMAT_TABLE && w->rows > 0)
    print_table (w);
  else if (w->format == ROW_FORMAT_JSON)
    fputs (w->rows ? "\n]\n" : "[]\n", w->out);
  g_string_free (w->line, TRUE);
  if (w->names)
    {
      g_ptr_array_free (w->names, TRUE);
      g_array_free (w->numeric, TRUE);
      g_ptr_array_free (w->cells, TRUE);
    }
  g_free (w);
}
