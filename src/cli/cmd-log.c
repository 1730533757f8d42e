/* cmd-log.c — deja log --db DB: the separator log, for review. */
#include "deja.h"
#include "excerpt.h"
#include "output.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef enum { LOG_TABLE, LOG_TSV, LOG_JSON } LogFormat;

typedef struct {
  LogFormat format;
  int context;              /* lines around each row (table), or 0 */
  GString *line;
  guint64 rows;
  char *file;               /* the file being summed */
  guint64 accepted, rejected, body;
} LogPrinter;

static void
file_summary (LogPrinter *p)
{
  if (p->file && p->format == LOG_TABLE)
    printf ("%s: %" G_GUINT64_FORMAT " separators accepted against context, %" G_GUINT64_FORMAT
            " lines rejected, %" G_GUINT64_FORMAT " lines a liberal parser would split on\n",
            p->file, p->accepted, p->rejected, p->body);
  g_clear_pointer (&p->file, g_free);
  p->accepted = p->rejected = p->body = 0;
}

static void
count (LogPrinter *p, const StoreLogRow *row)
{
  if (g_strcmp0 (p->file, row->path) != 0)
    {
      file_summary (p);
      p->file = g_strdup (row->path);
    }
  p->accepted += strcmp (row->verdict, "accepted") == 0;
  p->rejected += strcmp (row->verdict, "rejected") == 0;
  p->body += strcmp (row->verdict, "body") == 0;
}

static void
print_table (LogPrinter *p, const StoreLogRow *row)
{
  printf ("%s:%" G_GINT64_FORMAT ": %s %s [%s] %s\n", row->path, row->line_no, row->verdict,
          row->reason, row->shape, row->line_text);
  if (p->context > 0)
    {
      excerpt_print (stdout, row->path, row->byte_offset, row->line_no, p->context);
      putchar ('\n');
    }
}

/* TSV: tabs, newlines and backslashes in fields are escaped (output.c). */
static void
print_tsv (LogPrinter *p, const StoreLogRow *row)
{
  g_autofree char *line_no = g_strdup_printf ("%" G_GINT64_FORMAT, row->line_no);
  g_autofree char *offset = g_strdup_printf ("%" G_GINT64_FORMAT, row->byte_offset);
  const char *fields[] = { row->path, line_no, offset, row->verdict, row->reason, row->shape,
                           row->line_text };

  g_string_truncate (p->line, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      output_tsv_field (p->line, fields[i]);
      g_string_append_c (p->line, i + 1 < G_N_ELEMENTS (fields) ? '\t' : '\n');
    }
  fputs (p->line->str, stdout);
}

static void
print_json (LogPrinter *p, const StoreLogRow *row)
{
  g_autofree char *line_no = g_strdup_printf ("%" G_GINT64_FORMAT, row->line_no);
  g_autofree char *offset = g_strdup_printf ("%" G_GINT64_FORMAT, row->byte_offset);
  StoreValue v[] = {
    { "path", row->path, FALSE }, { "line_no", line_no, TRUE }, { "byte_offset", offset, TRUE },
    { "verdict", row->verdict, FALSE }, { "reason", row->reason, FALSE },
    { "shape", row->shape, FALSE }, { "line_text", row->line_text, FALSE },
  };

  g_string_assign (p->line, p->rows ? ",\n  " : "[\n  ");
  output_json_object (p->line, v, G_N_ELEMENTS (v));
  fputs (p->line->str, stdout);
}

static void
print_row (const StoreLogRow *row, gpointer data)
{
  LogPrinter *p = data;

  count (p, row);
  if (p->format == LOG_TABLE)
    print_table (p, row);
  else if (p->format == LOG_TSV)
    print_tsv (p, row);
  else
    print_json (p, row);
  p->rows++;
}

static gboolean
parse_format (const char *s, LogFormat *f)
{
  if (s == NULL || strcmp (s, "table") == 0 || strcmp (s, "text") == 0)
    *f = LOG_TABLE;
  else if (strcmp (s, "tsv") == 0)
    *f = LOG_TSV;
  else if (strcmp (s, "json") == 0)
    *f = LOG_JSON;
  else
    return FALSE;
  return TRUE;
}

int
cmd_log (int argc, char **argv)
{
  g_autofree char *db = NULL, *verdict = NULL, *format = NULL, *file = NULL, *reason = NULL;
  int status, context = 0;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "verdict", 0, 0, G_OPTION_ARG_STRING, &verdict, "only rows with this verdict", "accepted|rejected|body" },
    { "reason", 0, 0, G_OPTION_ARG_STRING, &reason, "only rows with this reason (prose, no-header-block, inside-mime-part, no-date, no-blank-before, length-mismatch, reviewed…)", "REASON" },
    { "file", 0, 0, G_OPTION_ARG_FILENAME, &file, "only rows of this archive file", "PATH" },
    { "context", 'C', 0, G_OPTION_ARG_INT, &context, "show N lines of the archive around each row (table format)", "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "output format (default: table)", "table|tsv|json" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— print the separator log");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autofree char *abs = NULL;
  StoreLogFilter filter = { 0 };
  LogPrinter p = { LOG_TABLE, 0, NULL, 0, NULL, 0, 0, 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "Every line where the splitter had to judge: separators accepted against part of the\n"
    "evidence, envelope-shaped lines rejected, and body lines a liberal parser would have\n"
    "split on.  Table: path:line: verdict reasons [shape] text (with --context, the archive\n"
    "around it, read back by byte offset), and a summary line per file.  TSV columns and\n"
    "JSON keys: path, line_no, byte_offset, verdict, reason, shape, line_text.");
  if (!deja_parse_options (ctx, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (ctx, db, argc, argv)) != 0)
    return status;
  if (verdict && strcmp (verdict, "accepted") && strcmp (verdict, "rejected") && strcmp (verdict, "body"))
    return deja_usage_error (ctx, "--verdict must be accepted, rejected or body");
  if (!parse_format (format, &p.format))
    return deja_usage_error (ctx, "--format must be table, tsv or json");
  if (context < 0)
    return deja_usage_error (ctx, "--context must be 0 or more");
  if ((store = deja_open_store_to_read (db)) == NULL)
    return DEJA_EXIT_FAILED;
  p.context = context;
  p.line = g_string_new (NULL);
  if (p.format == LOG_TSV)
    puts ("path\tline_no\tbyte_offset\tverdict\treason\tshape\tline_text");
  filter.verdict = verdict;
  filter.reason = reason;
  if (file)
    filter.path = abs = g_canonicalize_filename (file, NULL);
  if (!store_foreach_log (store, &filter, print_row, &p, &error))
    {
      deja_error ("%s", error->message);
      g_string_free (p.line, TRUE);
      return DEJA_EXIT_FAILED;
    }
  file_summary (&p);
  if (p.format == LOG_JSON)
    fputs (p.rows ? "\n]\n" : "[]\n", stdout);
  g_string_free (p.line, TRUE);
  return DEJA_EXIT_OK;
}
