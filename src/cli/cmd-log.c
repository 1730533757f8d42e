/* cmd-log.c — deja log --db DB: the separator log, for review. */
#include "deja.h"
#include "excerpt.h"
#include "output.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  RowWriter *writer;        /* tsv, csv, json; NULL: the table */
  int context;              /* lines around each row (table), or 0 */
  guint64 rows;
  char *file;               /* the file being summed */
  guint64 accepted, rejected, body;
} LogPrinter;

static void
file_summary (LogPrinter *p)
{
  if (p->file && p->writer == NULL)
    deja_print ("%s: %" G_GUINT64_FORMAT " separators accepted against context, %" G_GUINT64_FORMAT
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
  deja_print ("%s:%" G_GINT64_FORMAT ": %s %s [%s] %s\n", row->path, row->line_no, row->verdict,
          row->reason, row->shape, row->line_text);
  if (p->context > 0)
    {
      excerpt_print (stdout, row->path, row->byte_offset, row->line_no, p->context);
      putchar ('\n');
    }
}

static void
print_fields (LogPrinter *p, const StoreLogRow *row)
{
  g_autofree char *line_no = g_strdup_printf ("%" G_GINT64_FORMAT, row->line_no);
  g_autofree char *offset = g_strdup_printf ("%" G_GINT64_FORMAT, row->byte_offset);
  RowValue v[] = {
    { "path", row->path, FALSE }, { "line_no", line_no, TRUE }, { "byte_offset", offset, TRUE },
    { "verdict", row->verdict, FALSE }, { "reason", row->reason, FALSE },
    { "shape", row->shape, FALSE }, { "line_text", row->line_text, FALSE },
  };

  row_writer_add (p->writer, v, G_N_ELEMENTS (v));
}

static void
print_row (const StoreLogRow *row, gpointer data)
{
  LogPrinter *p = data;

  count (p, row);
  if (p->writer == NULL)
    print_table (p, row);
  else
    print_fields (p, row);
  p->rows++;
}

int
cmd_log (DejaRun *run, int argc, char **argv)
{
  g_autofree char *verdict = NULL, *format_name = NULL, *file = NULL, *reason = NULL;
  int status, context = 0;
  GOptionEntry entries[] = {
    { "verdict", 0, 0, G_OPTION_ARG_STRING, &verdict, "only rows with this verdict", "accepted|rejected|body" },
    { "reason", 0, 0, G_OPTION_ARG_STRING, &reason, "only rows with this reason (prose, no-header-block, inside-mime-part, no-date, no-blank-before, length-mismatch, reviewed…)", "REASON" },
    { "file", 0, 0, G_OPTION_ARG_FILENAME, &file, "only rows of this archive file", "PATH" },
    { "context", 'C', 0, G_OPTION_ARG_INT, &context, "show N lines of the archive around each row (table format)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", ROW_FORMAT_NAMES },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  g_autofree char *abs = NULL;
  StoreLogFilter filter = { 0 };
  LogPrinter p = { NULL, 0, 0, NULL, 0, 0, 0 };
  RowFormat format;

  if (!deja_run_parse (run, "— print the separator log", entries,
    "Every line where the splitter had to judge: separators accepted against part of the\n"
    "evidence, envelope-shaped lines rejected, and body lines a liberal parser would have\n"
    "split on.  Table: path:line: verdict reasons [shape] text (with --context, the archive\n"
    "around it, read back by byte offset), and a summary line per file.  TSV and CSV\n"
    "columns and JSON keys: path, line_no, byte_offset, verdict, reason, shape, line_text.",
    &argc, &argv, &status))
    return status;
  if (verdict && strcmp (verdict, "accepted") && strcmp (verdict, "rejected") && strcmp (verdict, "body"))
    return deja_usage_error (run->context, "--verdict must be accepted, rejected or body");
  /* "text": the table's name in earlier versions. */
  if (!row_format_parse (g_strcmp0 (format_name, "text") ? format_name : "table", ROW_FORMAT_TABLE,
                         &format))
    return deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
  if (context < 0)
    return deja_usage_error (run->context, "--context must be 0 or more");
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  p.context = context;
  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  filter.verdict = verdict;
  filter.reason = reason;
  if (file)
    filter.path = abs = g_canonicalize_filename (file, NULL);
  if (!store_foreach_log (store, &filter, print_row, &p, &error))
    {
      deja_error ("%s", error->message);
      if (p.writer)
        row_writer_finish (p.writer);
      g_free (p.file);
      return DEJA_EXIT_FAILED;
    }
  file_summary (&p);
  if (p.writer)
    row_writer_finish (p.writer);
  return DEJA_EXIT_OK;
}
