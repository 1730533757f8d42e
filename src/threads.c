/* threads.c — the threading stage.
 *
 * Threads are a property of the whole database, not of one file: a reply
 * in one export may answer a post in another, and the same post may be in
 * both.  So threading reads every message's identifiers, threads them all
 * (parsers/thread.c) and writes every result back, in one transaction.
 */
#include "threads.h"

#include <string.h>

/**
 * threads_rebuild:
 * @by_subject: also join threads whose roots share a subject
 * @counts: (out) (optional): what threading found
 *
 * (Re)computes thread_id, parent_id, duplicate_of, missing_parent and
 * thread_flags for every message.
 */
gboolean
threads_rebuild (Store *store, gboolean by_subject, ThreadCounts *counts, GError **error)
{
  StoreThreadData data;
  ThreadResult result;
  gboolean ok;

  if (!store_load_thread_data (store, by_subject, &data, error))
    return FALSE;
  thread_compute ((const ThreadInput *) data.inputs->data, data.inputs->len, by_subject, &result);
  ok = store_save_threads (store, &data, &result, error);
  if (ok && counts)
    *counts = result.counts;
  thread_result_clear (&result);
  store_thread_data_clear (&data);
  return ok;
}

char *
threads_describe (const ThreadCounts *c)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%" G_GUINT64_FORMAT " threads, %" G_GUINT64_FORMAT
                          " replies whose parent is not in the archive, %" G_GUINT64_FORMAT
                          " reference cycles broken, %" G_GUINT64_FORMAT
                          " replies dated before their parent, %" G_GUINT64_FORMAT
                          " duplicate copies (%" G_GUINT64_FORMAT " with different content)",
                          c->threads, c->orphans, c->cycles, c->time_travel, c->duplicates,
                          c->conflicts);
  if (c->subject_joins)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " messages joined by subject",
                            c->subject_joins);
  return g_string_free (s, FALSE);
}
