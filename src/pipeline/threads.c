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

/* A batch's threading data and what threading found in it. */
typedef struct {
  StoreThreadData data;
  ThreadResult result;
  gboolean done;           /* data and result are filled */
} Computed;

static void
computed_clear (Computed *c)
{
  if (!c->done)
    return;
  thread_result_clear (&c->result);
  store_thread_data_clear (&c->data);
  c->done = FALSE;
}

/* Reads batch @batch (-1: every message) and threads it. */
static gboolean
compute_batch (Store *store, gboolean by_subject, gint batch, Computed *c, GError **error)
{
  if (!store_load_thread_data (store, by_subject, batch, &c->data, error))
    return FALSE;
  thread_compute ((const ThreadInput *) c->data.inputs->data, c->data.inputs->len, by_subject,
                  &c->result);
  c->done = TRUE;
  return TRUE;
}

/* Writes @c's rows, and clears it. */
static gboolean
save_computed (Store *store, Computed *c, ThreadCounts *sum, GError **error)
{
  gboolean ok = store_save_threads (store, &c->data, &c->result, error);

  add_counts (sum, &c->result.counts);
  computed_clear (c);
  return ok;
}

static gboolean
thread_batch (Store *store, gboolean by_subject, gint batch, ThreadCounts *sum, GError **error)
{
  Computed c = { .done = FALSE };

  return compute_batch (store, by_subject, batch, &c, error) && save_computed (store, &c, sum, error);
}

/* threads_rebuild(); @ahead: (nullable): the whole database read and
 * threaded on another connection when the writer's PRAGMA data_version
 * was @version, written instead of reading again if nothing was committed
 * by another connection since and the database is one batch. */
static gboolean
rebuild (Store *store, gboolean by_subject, Computed *ahead, gint64 version, ThreadCounts *counts,
         GError **error)
{
  ThreadCounts sum = { 0 };
  guint batches = 1;
  gint64 now = -1;
  gboolean ok;

  ok = store_begin_threads (store, error) &&
       store_plan_threads (store, by_subject ? G_MAXUINT : store_thread_batch_messages (), &batches,
                           error);
  if (ok && ahead && ahead->done &&
      !(batches == 1 && (ok = store_data_version (store, &now, error)) && now == version))
    {
      g_debug ("threads read again: the database changed while they were read");
      computed_clear (ahead);
    }
  if (ok && ahead && ahead->done)
    g_debug ("threads read beside the writer");
  else if (ok)
    g_debug ("threading in %u batch%s of whole connected components", batches,
             batches == 1 ? "" : "es");
  if (ok && batches == 1)
    ok = ahead && ahead->done ? save_computed (store, ahead, &sum, error)
                              : thread_batch (store, by_subject, -1, &sum, error);
  for (guint b = 0; ok && batches > 1 && b < batches; b++)
    ok = thread_batch (store, by_subject, (gint) b, &sum, error);
  if (ahead)
    computed_clear (ahead);
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
  return rebuild (store, by_subject, NULL, 0, counts, error);
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

/* Threads read and computed on a connection of their own (a thread of
 * its own too), while the writer's connection does something else.  What
 * they hold (about 300 bytes a message) then adds to what the writer
 * holds instead of following it: at 298,252 messages (650 MB) the peak
 * went from 222 to 256 MiB.  So only databases of up to BESIDE_MAX
 * messages are read beside (30 MiB at most); larger ones after. */
#define BESIDE_MAX MIN (100000u, store_thread_batch_messages ())

typedef struct {
  const char *path;
  gboolean by_subject;
  Computed computed;
} Beside;

static gpointer
read_beside (gpointer p)
{
  Beside *b = p;
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) reader = store_open_reader (b->path, &error);
  gint64 n = 0;

  if (reader && store_count_messages (reader, &n, &error) && n <= (gint64) BESIDE_MAX)
    compute_batch (reader, b->by_subject, -1, &b->computed, &error);
  if (error)
    g_debug ("threads not read beside the writer: %s", error->message);
  return NULL;
}

/**
 * threads_rebuild_beside:
 * @path: the database file of @store
 * @meanwhile: work on @store while the threads are read and computed on
 *   a connection of their own (an ingest's first index build: both read
 *   the whole table, on two cores instead of one after the other); its
 *   result goes to @meanwhile_ok
 * @counts: (out) (optional): what threading found
 *
 * threads_rebuild_as_before(), with @meanwhile run first.  The threads
 * read beside are written only when no other connection committed since
 * they were read (PRAGMA data_version) and the database is one batch;
 * otherwise they are read again, after @meanwhile, as always.
 */
gboolean
threads_rebuild_beside (Store *store, const char *path, gboolean (*meanwhile) (Store *store, gpointer data),
                        gpointer data, gboolean *meanwhile_ok, ThreadCounts *counts, GError **error)
{
  Beside b = { path, FALSE, { .done = FALSE } };
  gint64 version = 0;
  GThread *reader;

  if (!store_threads_by_subject (store, &b.by_subject, error) ||
      !store_data_version (store, &version, error))
    {
      *meanwhile_ok = meanwhile (store, data);
      return FALSE;
    }
  reader = g_thread_new ("deja-threads", read_beside, &b);
  *meanwhile_ok = meanwhile (store, data);
  g_thread_join (reader);
  return rebuild (store, b.by_subject, &b.computed, version, counts, error);
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
