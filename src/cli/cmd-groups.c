/* cmd-groups.c — deja groups: social accounting per group and period.
 *
 *   deja groups --db DB [--by year|month|quarter] [--format table|tsv|csv|json]
 *
 * One row per group (newsgroup or mailing list) and period in which it
 * had messages; the measures and their formulas are in docs/groups.md
 * (pipeline/accounting.c computes them).
 */
#include "deja.h"
#include "accounting.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>

int
cmd_groups (int argc, char **argv)
{
  g_autofree char *db = NULL, *by = NULL, *format_name = NULL;
  g_auto (DejaFilter) filter = { 0 };
  g_autoptr (GOptionContext) context = g_option_context_new ("— social accounting per group and period");
  g_autoptr (Store) store = NULL;
  g_autoptr (GError) error = NULL;
  AccountingOptions options = { .by = ACCOUNTING_BY_YEAR };
  static const char *const periods[] = { "year", "month", "quarter" };
  RowFormat format;
  RowWriter *writer;
  gint64 rows = 0;
  int status;
  gboolean ok, known;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, "period (default: year)", "year|month|quarter" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", ROW_FORMAT_NAMES },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  deja_filter_add_options (context, &filter);
  g_option_context_set_description (context,
    "One row per group and period with messages: group, period, messages, authors,\n"
    "new_authors (first message in the group), returning_authors (also active in the\n"
    "period before), lost_authors (last active in the period before), messages_per_author,\n"
    "median_messages_per_author, top_decile_share, threads (started), replies, reply_share,\n"
    "unanswered_threads, unanswered_share, median_hours_to_first_reply, mean_thread_depth,\n"
    "mean_thread_breadth, crossposts, crosspost_groups, median_words, quoted_share, languages,\n"
    "approved, followups_elsewhere, cancelled, superseded, control_messages, cancels.\n"
    "Canonical copies only; a cross-post counts once in each group it went to; undated\n"
    "messages are in no period.  Formulas: docs/groups.md.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  known = by == NULL;
  for (guint i = 0; by != NULL && i < G_N_ELEMENTS (periods); i++)
    if (g_strcmp0 (by, periods[i]) == 0)
      options.by = (AccountingPeriod) i, known = TRUE;
  if (by != NULL && !known)
    return deja_usage_error (context, "--by must be year, month or quarter");
  if (!row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
    return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
  if ((status = deja_filter_finish (context, &filter, NULL, &options.filter)) != 0)
    return status;
  if ((store = deja_open_store_to_read (db)) == NULL)
    return DEJA_EXIT_FAILED;
  writer = row_writer_new (format, stdout);
  ok = accounting_run (store, &options, row_writer_add_func, writer, &rows, &error);
  row_writer_finish (writer);
  if (!ok)
    {
      deja_error ("cannot account for the groups of '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GINT64_FORMAT " rows (group and %s)", rows, periods[options.by]);
  return DEJA_EXIT_OK;
}
