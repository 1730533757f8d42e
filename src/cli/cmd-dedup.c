/* cmd-dedup.c — deja dedup: exact and near-duplicate own text, repeated
 * paragraphs; stored as flags in near_duplicates and repeated_paragraphs
 * for review (docs/text-analysis.md).  Nothing is deleted. */
#include "deja.h"
#include "dedup.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>

int
cmd_dedup (DejaRun *run, int argc, char **argv)
{
  g_autofree char *format_name = NULL;
  double threshold = 0.8;
  int min_words = 20, window = 0, threads = 0, min_paragraph_words = 8, min_paragraph_messages = 3;
  gboolean list = FALSE, paragraphs = FALSE, duplicates = FALSE;
  GOptionEntry entries[] = {
    { "threshold", 't', 0, G_OPTION_ARG_DOUBLE, &threshold,
      "near-duplicates: estimated Jaccard similarity of 5-word shingles (default 0.8)", "0..1" },
    { "min-words", 0, 0, G_OPTION_ARG_INT, &min_words,
      "texts with fewer words are only compared as exact copies (default 20)", "N" },
    { "window", 'w', 0, G_OPTION_ARG_INT, &window,
      "only pair messages dated at most DAYS apart (default: any)", "DAYS" },
    { "paragraph-words", 0, 0, G_OPTION_ARG_INT, &min_paragraph_words,
      "repeated paragraphs: of this many words or more (default 8)", "N" },
    { "paragraph-messages", 0, 0, G_OPTION_ARG_INT, &min_paragraph_messages,
      "repeated paragraphs: in this many messages or more (default 3)", "N" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "print every cluster's messages after the run", NULL },
    { "paragraphs", 'p', 0, G_OPTION_ARG_NONE, &paragraphs, "print the repeated paragraphs after the run", NULL },
    { "duplicates", 0, 0, G_OPTION_ARG_NONE, &duplicates, "compare later copies of a Message-ID too", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "format of --list and --paragraphs (default: tsv)", ROW_FORMAT_NAMES },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "worker threads (default: one per CPU deja may use)", "N" },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  DedupOptions options;
  DedupCounts counts;
  RowFormat format;
  int status;

  if (!deja_run_parse (run, "— exact and near-duplicate own text, repeated paragraphs", entries,
    "Compares the own text of the selected messages: the same words (case-folded) are an\n"
    "exact copy; MinHash (128 hashes) with LSH banding finds pairs whose 5-word shingles\n"
    "overlap at least --threshold, checked on the whole signature; pairs join into clusters\n"
    "named by their first message.  Results replace the last run's in near_duplicates and\n"
    "repeated_paragraphs; messages are flagged, never deleted.  --distinct-text on other\n"
    "commands then counts one message per cluster.  See docs/text-analysis.md.",
    &argc, &argv, &status))
    return status;
  if (!(threshold > 0 && threshold <= 1))
    return deja_usage_error (run->context, "--threshold must be above 0 and at most 1");
  if (min_words < 0 || window < 0 || threads < 0 || min_paragraph_words < 1 || min_paragraph_messages < 2)
    return deja_usage_error (run->context, "--min-words, --window and --threads take 0 or more,"
                             " --paragraph-words 1 or more, --paragraph-messages 2 or more");
  if (!row_format_parse (format_name, ROW_FORMAT_TSV, &format))
    return deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
  if (run->filter.distinct_text)
    return deja_usage_error (run->context, "--distinct-text would hide what dedup compares");
  run->filter_sql.canonical_only = !duplicates;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  options = (DedupOptions) { threshold, (guint) min_words, window, (guint) min_paragraph_words,
                             (guint) min_paragraph_messages, (guint) threads };
  if (!dedup_run (store, &run->filter_sql, &options, &counts, &error))
    {
      deja_error ("cannot find duplicates in '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GINT64_FORMAT " messages (%.1f MiB of own text) in %.1f s: %" G_GINT64_FORMAT
             " clusters of exact copies, %" G_GINT64_FORMAT " with near-duplicates, %" G_GINT64_FORMAT
             " messages flagged (not first of their cluster); %" G_GINT64_FORMAT
             " repeated paragraphs; LSH %u bands of %u rows, %" G_GINT64_FORMAT " candidate pairs checked",
             counts.messages, counts.bytes / 1048576.0, g_timer_elapsed (timer, NULL),
             counts.exact_clusters, counts.near_clusters, counts.flagged, counts.paragraphs,
             counts.bands, counts.rows, counts.candidates);
  if (list || paragraphs)
    {
      RowWriter *writer = row_writer_new (format, stdout);
      gboolean ok = store_dedup_rows (store, list ? STORE_DEDUP_CLUSTERS : STORE_DEDUP_PARAGRAPHS,
                                      row_writer_add_func, writer, &error);

      row_writer_finish (writer);
      if (ok && list && paragraphs)
        {
          putchar ('\n');
          writer = row_writer_new (format, stdout);
          ok = store_dedup_rows (store, STORE_DEDUP_PARAGRAPHS, row_writer_add_func, writer, &error);
          row_writer_finish (writer);
        }
      if (!ok)
        {
          deja_error ("cannot list duplicates in '%s': %s", run->db, error->message);
          return DEJA_EXIT_FAILED;
        }
    }
  return DEJA_EXIT_OK;
}
