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
#include "spawn.h"

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

/* What threading reads of a batch, kept here: the store hands it over
 * row by row.  All references share one array (a GPtrArray per message
 * cost four times the pointers it held); each message records where its
 * run starts, and the pointers are set once the array has stopped
 * moving. */
typedef struct {
  GArray *inputs;          /* of ThreadInput */
  GArray *ids;             /* of gint64: messages.id of each input */
  GArray *stored;          /* of guint64: the row's threading columns, hashed */
  GArray *starts;          /* of guint: 2 per input, its first reference and in-reply-to */
  GPtrArray *refs;
  GStringChunk *strings;
  guint cursor;            /* the input references are being read for */
} ThreadData;

static void
thread_data_init (ThreadData *d)
{
  d->inputs = g_array_new (FALSE, TRUE, sizeof (ThreadInput));
  d->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  d->stored = g_array_new (FALSE, FALSE, sizeof (guint64));
  d->starts = g_array_new (FALSE, TRUE, sizeof (guint));
  d->refs = g_ptr_array_new ();
  d->strings = g_string_chunk_new (1024 * 1024);
  d->cursor = 0;
}

static void
thread_data_clear (ThreadData *d)
{
  g_clear_pointer (&d->inputs, g_array_unref);
  g_clear_pointer (&d->ids, g_array_unref);
  g_clear_pointer (&d->stored, g_array_unref);
  g_clear_pointer (&d->starts, g_array_unref);
  g_clear_pointer (&d->refs, g_ptr_array_unref);
  g_clear_pointer (&d->strings, g_string_chunk_free);
}

static const char *
keep (ThreadData *d, const char *s)
{
  return s ? g_string_chunk_insert_const (d->strings, s) : NULL;
}

static void
on_message (const StoreThreadMessage *row, gpointer p)
{
  ThreadData *d = p;
  ThreadInput in = {
    .message_id = keep (d, row->message_id),
    .date = keep (d, row->date),
    .subject = keep (d, row->subject),
    .content = row->content,
    .damage = row->damage,
  };

  g_array_append_val (d->inputs, in);
  g_array_append_val (d->ids, row->id);
  g_array_append_val (d->stored, row->stored);
  g_array_set_size (d->starts, d->starts->len + 2);
}

/* References come in the messages' order: walk the messages in step. */
static void
on_ref (const StoreThreadRef *row, gpointer p)
{
  ThreadData *d = p;
  ThreadInput *in;
  guint i;

  while (d->cursor < d->ids->len && g_array_index (d->ids, gint64, d->cursor) < row->message)
    d->cursor++;
  i = d->cursor;
  if (i == d->ids->len || g_array_index (d->ids, gint64, i) != row->message)
    return;
  in = &g_array_index (d->inputs, ThreadInput, i);
  if (row->in_reply_to ? in->n_in_reply_to++ == 0 : in->n_references++ == 0)
    g_array_index (d->starts, guint, 2 * i + row->in_reply_to) = d->refs->len;
  g_ptr_array_add (d->refs, (gpointer) keep (d, row->ref));
}

static void
set_ref_pointers (ThreadData *d)
{
  const char *const *base = (const char *const *) d->refs->pdata;

  for (guint k = 0; k < d->ids->len; k++)
    {
      ThreadInput *in = &g_array_index (d->inputs, ThreadInput, k);

      in->references = in->n_references ? base + g_array_index (d->starts, guint, 2 * k) : NULL;
      in->in_reply_to = in->n_in_reply_to ? base + g_array_index (d->starts, guint, 2 * k + 1) : NULL;
    }
}

static gboolean
load_batch (Store *store, gboolean by_subject, gint batch, ThreadData *d, GError **error)
{
  StoreThreadReader reader = { .message = on_message, .ref = on_ref, .user_data = d };

  thread_data_init (d);
  if (!store_load_thread_data (store, by_subject, batch, &reader, error))
    {
      thread_data_clear (d);
      return FALSE;
    }
  set_ref_pointers (d);
  return TRUE;
}

/* A batch's threading data and what threading found in it. */
typedef struct {
  ThreadData data;
  ThreadResult result;
  gboolean done;           /* data and result are filled */
} Computed;

static void
computed_clear (Computed *c)
{
  if (!c->done)
    return;
  thread_result_clear (&c->result);
  thread_data_clear (&c->data);
  c->done = FALSE;
}

/* Reads batch @batch (-1: every message) and threads it. */
static gboolean
compute_batch (Store *store, gboolean by_subject, gint batch, Computed *c, GError **error)
{
  if (!load_batch (store, by_subject, batch, &c->data, error))
    return FALSE;
  thread_compute ((const ThreadInput *) c->data.inputs->data, c->data.inputs->len, by_subject,
                  &c->result);
  c->done = TRUE;
  return TRUE;
}

/* The messages.id of input @index, or 0 (none). */
static gint64
id_of (const ThreadData *d, ThreadIndex index)
{
  return index >= 0 ? g_array_index (d->ids, gint64, index) : 0;
}

/* Rows are handed to the store this many at a time (3.5 MiB of them; a
 * catalog reads the shards' values of each chunk's changed rows at once,
 * so that a catalog's threads across shards are one chunk, not eleven:
 * realistic 1 GiB in 64 shards, 43,042 rows) */
#define SAVE_CHUNK 65536

static gboolean
save_rows (Store *store, const Computed *c, GError **error)
{
  const ThreadData *d = &c->data;
  g_autofree StoreThreadRow *rows = g_new (StoreThreadRow, SAVE_CHUNK);
  g_autofree char **flags = g_new (char *, SAVE_CHUNK);
  gsize changed = 0, now;
  gboolean ok = TRUE;

  for (guint first = 0; ok && first < d->ids->len; first += SAVE_CHUNK)
    {
      guint n = MIN (SAVE_CHUNK, d->ids->len - first);

      for (guint k = 0; k < n; k++)
        {
          const ThreadOutput *o = &c->result.out[first + k];

          flags[k] = thread_flags_to_string (o->flags);
          rows[k] = (StoreThreadRow) {
            .id = g_array_index (d->ids, gint64, first + k),
            .thread_id = id_of (d, o->thread),
            .parent_id = id_of (d, o->parent),
            .duplicate_of = id_of (d, o->duplicate_of),
            .missing_parent = o->missing_parent,
            .flags = flags[k],
            .stored = g_array_index (d->stored, guint64, first + k),
          };
        }
      ok = store_save_threads (store, rows, n, &now, error);
      changed += now;
      for (guint k = 0; k < n; k++)
        g_free (flags[k]);
    }
  g_debug ("threads: %" G_GSIZE_FORMAT " of %u rows changed (the rest as guessed when stored)",
           changed, d->ids->len);
  return ok;
}

static gboolean
save_placeholders (Store *store, const Computed *c, GError **error)
{
  GArray *placeholders = c->result.placeholders;
  g_autoptr (GArray) rows = g_array_sized_new (FALSE, FALSE, sizeof (StoreThreadPlaceholderRow),
                                               placeholders->len);

  for (guint i = 0; i < placeholders->len; i++)
    {
      const ThreadPlaceholder *p = &g_array_index (placeholders, ThreadPlaceholder, i);
      StoreThreadPlaceholderRow row = {
        .message_id = p->message_id,
        .thread_id = id_of (&c->data, p->thread),
        .children = p->children,
      };

      g_array_append_val (rows, row);
    }
  return store_save_thread_placeholders (store, (const StoreThreadPlaceholderRow *) rows->data,
                                         rows->len, error);
}

/* Writes @c's rows, and clears it. */
static gboolean
save_computed (Store *store, Computed *c, ThreadCounts *sum, GError **error)
{
  gboolean ok = save_rows (store, c, error) && save_placeholders (store, c, error);

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

/* Whether @ahead, read as batch @ahead_batch on another connection, is
 * this connection's: every message (-1) of a database of one batch, or
 * the first batch with the same messages, and nothing committed by
 * another connection since the writer's PRAGMA data_version was
 * @version. */
static gboolean
ahead_holds (Store *store, const Computed *ahead, gint ahead_batch, guint batches, gboolean partial,
             gint64 version, gboolean *holds, GError **error)
{
  gint64 now = -1;

  *holds = FALSE;
  if (ahead_batch < 0 ? batches != 1 || partial : batches < 1)
    return TRUE;
  if (ahead_batch >= 0 &&
      !store_thread_batch_is (store, ahead_batch, (const gint64 *) ahead->data.ids->data,
                              ahead->data.ids->len, holds, error))
    return FALSE;
  if (ahead_batch >= 0 && !*holds)
    return TRUE;
  if (!store_data_version (store, &now, error))
    return FALSE;
  *holds = now == version;
  return TRUE;
}

/* The batches of threading on @store's connection: @handed, the plan the
 * connection beside made, where nothing was committed since the writer's
 * PRAGMA data_version was @version; otherwise planned here.  @keep: see
 * store_plan_threads() (not by subject: that joins threads anywhere). */
static gboolean
plan (Store *store, gboolean by_subject, const StoreThreadPlan *handed, gint64 version,
      StoreThreadKeep *keep, guint *batches, GError **error)
{
  gint64 now = -1;

  if (handed && !store_data_version (store, &now, error))
    return FALSE;
  if (handed && now == version)
    {
      g_debug ("threading planned beside the writer");
      return store_take_thread_plan (store, handed, keep, batches, error);
    }
  return store_plan_threads (store, by_subject ? G_MAXUINT : store_thread_batch_messages (),
                             by_subject ? NULL : keep, batches, NULL, error);
}

/* threads_rebuild(); @ahead: (nullable): the whole database (@ahead_batch
 * -1), or the first batch of several (0), read and threaded on another
 * connection, written instead of reading it again where ahead_holds();
 * @handed: (nullable): the plan of batches made there; @ranges: see
 * threads_rebuild_beside(). */
static gboolean
rebuild (Store *store, gboolean by_subject, Computed *ahead, gint ahead_batch,
         const StoreThreadPlan *handed, gint64 version, const StoreIdRange *ranges, guint n_ranges,
         ThreadCounts *counts, GError **error)
{
  ThreadCounts sum = { 0 };
  StoreThreadKeep keep = { .ranges = ranges, .n_ranges = n_ranges };
  guint batches = 1;
  gboolean ok, holds = FALSE, all;

  ok = store_begin_threads (store, error) &&
       plan (store, by_subject, handed, version, &keep, &batches, error) &&
       store_clear_thread_placeholders (store, keep.partial, error);
  /* every message at once (batch -1), or the plan's batches */
  all = batches == 1 && !keep.partial;
  if (ok && ahead && ahead->done &&
      (ok = ahead_holds (store, ahead, ahead_batch, batches, keep.partial, version, &holds, error)) &&
      !holds)
    {
      g_debug ("threads read again: the database, or its plan of batches, changed while they were read");
      computed_clear (ahead);
    }
  if (ok && keep.partial)
    g_debug ("threads kept as their shards made them: %" G_GINT64_FORMAT " messages", keep.kept);
  if (ok && ahead && ahead->done)
    g_debug ("threads read beside the writer: %s", ahead_batch < 0 ? "all" : "the first batch");
  if (ok && !(ahead && ahead->done && ahead_batch < 0))
    g_debug ("threading in %u batch%s of whole connected components", batches,
             batches == 1 ? "" : "es");
  if (ok && all)
    ok = ahead && ahead->done ? save_computed (store, ahead, &sum, error)
                              : thread_batch (store, by_subject, -1, &sum, error);
  for (guint b = 0; ok && !all && b < batches; b++)
    ok = b == 0 && ahead && ahead->done ? save_computed (store, ahead, &sum, error)
                                        : thread_batch (store, by_subject, (gint) b, &sum, error);
  if (ahead)
    computed_clear (ahead);
  if (!ok)
    {
      store_abort_threads (store);
      return FALSE;
    }
  if (!store_finish_threads (store, by_subject, error))
    return FALSE;
  add_counts (&sum, &(ThreadCounts) { keep.counts.threads, keep.counts.orphans, keep.counts.cycles,
                                      keep.counts.time_travel, keep.counts.duplicates,
                                      keep.counts.conflicts, 0 });
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
  return rebuild (store, by_subject, NULL, -1, NULL, 0, NULL, 0, counts, error);
}

/**
 * threads_rebuild_keeping:
 * @ranges: (array length=n_ranges) (nullable): message ids of shards
 *   whose threads a component no other shard touches keeps
 *   (store_plan_threads()); %NULL: none
 *
 * threads_rebuild() in the mode the database was last threaded in (an
 * ingest after 'deja thread --subject' joins by subject too, instead of
 * silently undoing it), on @store's connection alone: for an ingest, and
 * for a catalog of shards (deja catalog), which has nothing to do
 * meanwhile and whose second connection would read every shard again.
 */
gboolean
threads_rebuild_keeping (Store *store, const StoreIdRange *ranges, guint n_ranges, ThreadCounts *counts,
                         GError **error)
{
  gboolean by_subject = FALSE;

  return store_threads_by_subject (store, &by_subject, error) &&
         rebuild (store, by_subject, NULL, -1, NULL, 0, ranges, n_ranges, counts, error);
}

/* threads_rebuild_keeping() keeping nothing */
gboolean
threads_rebuild_as_before (Store *store, ThreadCounts *counts, GError **error)
{
  return threads_rebuild_keeping (store, NULL, 0, counts, error);
}

/* Threads read and computed on a connection of their own (a thread of
 * its own too), while the writer's connection builds the indexes.  What
 * they hold then adds to what the writer holds instead of following it:
 * at 298,252 messages (650 MB) the peak went from 222 to 256 MiB, when
 * the index builds had 64 MiB of page cache.  They have 4 MiB now
 * (store.c: _store_scan_cache()), so one batch of threading's (300,000
 * messages) is read beside: the whole database when it is one batch,
 * else the first batch of the plan, made there too.  The writer takes
 * that plan where it was made in memory and nothing was committed since
 * (planning again took 0.6 s of 470,404 messages, taking it 0.26 s), and
 * the batch where its plan has the same messages.
 * Threading by subject needs every message at once: beside up to
 * SUBJECT_BESIDE_MAX messages. */
#define SUBJECT_BESIDE_MAX MIN (100000u, store_thread_batch_messages ())

typedef struct {
  const char *path;
  gboolean by_subject;
  Computed computed;
  gint batch;              /* what computed holds: -1 every message, 0 the first batch */
  StoreThreadPlan *plan;   /* (nullable): the batches, as planned beside */
  const StoreIdRange *ranges;
  guint n_ranges;
} Beside;

static gpointer
read_beside (gpointer p)
{
  Beside *b = p;
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) reader = store_open_reader (b->path, &error);
  StoreThreadKeep keep = { .ranges = b->ranges, .n_ranges = b->n_ranges };
  gint64 n = 0;
  guint batches = 1;

  b->batch = -1;
  if (reader == NULL)
    ;
  else if (b->by_subject)
    {
      if (store_count_messages (reader, &n, &error) && n <= (gint64) SUBJECT_BESIDE_MAX)
        compute_batch (reader, TRUE, -1, &b->computed, &error);
    }
  else if (store_plan_threads (reader, store_thread_batch_messages (), &keep, &batches, &b->plan,
                               &error) && batches > 0)
    {
      b->batch = batches == 1 && !keep.partial ? -1 : 0;
      compute_batch (reader, FALSE, b->batch, &b->computed, &error);
    }
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
 * @ranges: (array length=n_ranges) (nullable): after deja merge into a
 *   database that held no message, the ids of each shard it copied whole
 *   with its threads, in increasing order: threading keeps what a shard
 *   found in a component of the reference graph that is its own (no
 *   message of another range or of none, no string another shard has as
 *   a Message-ID, reference or sender), and threads the others
 * @counts: (out) (optional): what threading found, kept threads included
 *
 * threads_rebuild_as_before(), with @meanwhile run first.  The threads
 * read beside are written only when no other connection committed since
 * they were read (PRAGMA data_version) and the database is one batch;
 * otherwise they are read again, after @meanwhile, as always.
 */
gboolean
threads_rebuild_beside (Store *store, const char *path, gboolean (*meanwhile) (Store *store, gpointer data),
                        gpointer data, gboolean *meanwhile_ok, const StoreIdRange *ranges,
                        guint n_ranges, ThreadCounts *counts, GError **error)
{
  Beside b = { path, FALSE, { .done = FALSE }, -1, NULL, ranges, n_ranges };
  gint64 version = 0;
  GThread *reader;
  gboolean ok;

  if (!store_threads_by_subject (store, &b.by_subject, error) ||
      !store_data_version (store, &version, error))
    {
      *meanwhile_ok = meanwhile (store, data);
      return FALSE;
    }
  /* (when its thread cannot start, one after the other) */
  if ((reader = spawn_thread ("deja-threads", read_beside, &b)) == NULL)
    read_beside (&b);
  *meanwhile_ok = meanwhile (store, data);
  if (reader)
    g_thread_join (reader);
  ok = rebuild (store, b.by_subject, &b.computed, b.batch, b.plan, version, ranges, n_ranges, counts,
                error);
  store_thread_plan_free (b.plan);
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
