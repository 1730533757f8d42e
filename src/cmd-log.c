/* cmd-log.c — deja log --db DB: the separator log, for review. */
#include "deja.h"
#include "output.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

static void
print_text (const StoreLogRow *row, gpointer user_data)
{
  printf ("%s:%" G_GINT64_FORMAT ": %s %s [%s] %s\n", row->path, row->line_no, row->verdict,
          row->reason, row->shape, row->line_text);
}

/* TSV: tabs, newlines and backslashes in fields are escaped (output.c). */
static void
print_tsv (const StoreLogRow *row, gpointer user_data)
{
  g_autoptr (GString) line = g_string_new (NULL);
  const char *fields[] = { row->path, NULL, NULL, row->verdict, row->reason, row->shape,
                           row->line_text };
  g_autofree char *line_no = g_strdup_printf ("%" G_GINT64_FORMAT, row->line_no);
  g_autofree char *offset = g_strdup_printf ("%" G_GINT64_FORMAT, row->byte_offset);

  fields[1] = line_no;
  fields[2] = offset;
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      output_tsv_field (line, fields[i]);
      g_string_append_c (line, i + 1 < G_N_ELEMENTS (fields) ? '\t' : '\n');
    }
  fputs (line->str, stdout);
}

int
cmd_log (int argc, char **argv)
{
  g_autofree char *db = NULL, *verdict = NULL, *format = NULL, *file = NULL;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "verdict", 0, 0, G_OPTION_ARG_STRING, &verdict, "only rows with this verdict", "accepted|rejected|body" },
    { "file", 0, 0, G_OPTION_ARG_FILENAME, &file, "only rows of this archive file", "PATH" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "output format (default: text)", "text|tsv" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— print the separator log");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autofree char *abs = NULL;
  StoreLogFilter filter = { 0 };
  StoreLogFunc func = print_text;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Every line where the splitter had to judge: separators accepted against part of the\n"
    "evidence, envelope-shaped lines rejected, and body lines a liberal parser would have\n"
    "split on.  Text format: path:line: verdict reasons [shape] text.  TSV columns: path,\n"
    "line_no, byte_offset, verdict, reason, shape, line_text.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (verdict && strcmp (verdict, "accepted") && strcmp (verdict, "rejected") && strcmp (verdict, "body"))
    return deja_usage_error (context, "--verdict must be accepted, rejected or body");
  if (format && strcmp (format, "text") == 0)
    func = print_text;
  else if (format && strcmp (format, "tsv") == 0)
    {
      func = print_tsv;
      puts ("path\tline_no\tbyte_offset\tverdict\treason\tshape\tline_text");
    }
  else if (format)
    return deja_usage_error (context, "--format must be text or tsv");
  if ((store = deja_open_existing_store (db)) == NULL)
    return DEJA_EXIT_FAILED;
  filter.verdict = verdict;
  if (file)
    filter.path = abs = g_canonicalize_filename (file, NULL);
  if (!store_foreach_log (store, &filter, func, NULL, &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}
