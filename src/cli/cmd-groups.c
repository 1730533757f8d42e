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
cmd_groups (DejaRun *run, int argc, char **argv)
{
  g_autofree char *by = NULL;
  g_autoptr (GError) error = NULL;
  AccountingOptions options = { .by = ACCOUNTING_BY_YEAR };
  static const char *const periods[] = { "year", "month", "quarter" };
  RowWriter *writer;
  gint64 rows = 0;
  int status;
  gboolean ok, known;
  GOptionEntry entries[] = {
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, "period (default: year)", "year|month|quarter" },
    { NULL }
  };

  if (!deja_run_parse (run, "— social accounting per group and period", entries,
    "One row per group and period with messages: group, period, messages, authors,\n"
    "new_authors (first message in the group), returning_authors (also active in the\n"
    "period before), lost_authors (last active in the period before), messages_per_author,\n"
    "median_messages_per_author, top_decile_share, threads (started), replies, reply_share,\n"
    "unanswered_threads, unanswered_share, median_hours_to_first_reply, mean_thread_depth,\n"
    "mean_thread_breadth, crossposts, crosspost_groups, median_words, quoted_share, languages,\n"
    "approved, followups_elsewhere, cancelled, superseded, control_messages, cancels.\n"
    "Canonical copies only; a cross-post counts once in each group it went to; undated\n"
    "messages are in no period.  Formulas: docs/groups.md.", &argc, &argv, &status))
    return status;
  known = by == NULL;
  for (guint i = 0; by != NULL && i < G_N_ELEMENTS (periods); i++)
    if (g_strcmp0 (by, periods[i]) == 0)
      options.by = (AccountingPeriod) i, known = TRUE;
  if (by != NULL && !known)
    return deja_usage_error (run->context, "--by must be year, month or quarter");
  options.filter = run->filter_sql;
  if (!deja_run_open (run, &status))
    return status;
  writer = row_writer_new (run->format, stdout);
  ok = accounting_run (run->store, &options, row_writer_add_func, writer, &rows, &error);
  row_writer_finish (writer);
  if (!ok)
    {
      deja_error ("cannot account for the groups of '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GINT64_FORMAT " rows (group and %s)", rows, periods[options.by]);
  return DEJA_EXIT_OK;
}
