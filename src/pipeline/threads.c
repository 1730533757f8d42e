/* threads.c — the threading stage.
 *
 * Threads are a property of the whole database, not of one file: a reply
 * in one export may answer a post in another, and the same post may be in
 * both.  So threading reads every message's identifiers, threads them
 * (parsers/thread.c) and writes every result back, in one transaction.
 * A large database is threaded in batches of whole connected components
 * (store-thread-batches.c), so that memory stays bounded by the batch.
 */
#include "threads.h"

#include <string.h>

static void
add_counts (ThreadCounts *sum, const ThreadCounts *c)
{
  sum->threads += c->threads;
  sum->orphans += c->orphans;
  sum->cycles += c->cycles;
  sum->time_travel += c->time_travel;
  sum->duplicates += c->duplicates;
  sum->conflicts += c->conflicts;
  sum->subject_joins += c->subject_joins;
}

/* Threads batch @batch (-1: every message) and writes its rows. */
static gboolean
thread_batch (Store *store, gboolean by_subject, gint batch, ThreadCounts *sum, GError **error)
{
  StoreThreadData data;
  ThreadResult result;
  gboolean ok;

  if (!store_load_thread_data (store, by_subject, batch, &data, error))
    return FALSE;
  thread_compute ((const ThreadInput *) data.inputs->data, data.inputs->len, by_subject, &result);
  ok = store_save_threads (store, &data, &result, error);
  add_counts (sum, &result.counts);
  thread_result_clear (&result);
  store_thread_data_clear (&data);
  return ok;
}

/**
 * threads_rebuild:
 * @by_subject: also join threads whose roots share a subject (this
 *   needs every message at once: no batches)
 * @counts: (out) (optional): what threading found
 *
 * (Re)computes thread_id, parent_id, duplicate_of, missing_parent and
 * thread_flags for every message.
 */
gboolean
threads_rebuild (Store *store, gboolean by_subject, ThreadCounts *counts, GError **error)
{
  ThreadCounts sum = { 0 };
  guint batches = 1;
  gboolean ok;

  ok = store_begin_threads (store, error) &&
       store_plan_threads (store, by_subject ? G_MAXUINT : store_thread_batch_messages (), &batches,
                           error);
  if (ok)
    g_debug ("threading in %u batch%s of whole connected components", batches,
             batches == 1 ? "" : "es");
  if (ok && batches == 1)
    ok = thread_batch (store, by_subject, -1, &sum, error);
  for (guint b = 0; ok && batches > 1 && b < batches; b++)
    ok = thread_batch (store, by_subject, (gint) b, &sum, error);
  if (!ok)
    {
      store_abort_threads (store);
      return FALSE;
    }
  if (!store_finish_threads (store, by_subject, error))
    return FALSE;
  if (counts)
    *counts = sum;
  return TRUE;
}

/**
 * threads_rebuild_as_before:
 *
 * threads_rebuild() in the mode the database was last threaded in: an
 * ingest after 'deja thread --subject' joins by subject too, instead of
 * silently undoing it.
 */
gboolean
threads_rebuild_as_before (Store *store, ThreadCounts *counts, GError **error)
{
  gboolean by_subject = FALSE;

  return store_threads_by_subject (store, &by_subject, error) &&
         threads_rebuild (store, by_subject, counts, error);
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
