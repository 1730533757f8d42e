/* corpus.c — a parallel map over the own text of selected messages.
 *
 * The store streams rows (store_export) on this thread; batches of them
 * go to worker threads, each with a state of its own (ICU iterators,
 * stemmers), and come back in the order they left, so that reducing is
 * sequential and deterministic.  At most a few batches are in flight:
 * memory stays bounded whatever the selection. */
#include "corpus.h"
#include "spawn.h"
#include "cpus.h"
#include "rows.h"
#include "words.h"

#define BATCH 512

typedef struct {
  GPtrArray *docs;         /* of CorpusDoc* */
  gboolean done;
} Batch;

typedef struct {
  const CorpusFuncs *funcs;
  gpointer user_data;
  GThreadPool *pool;
  GAsyncQueue *states;
  GMutex lock;
  GCond cond;
  GQueue inflight;
  guint max_inflight;
  Batch *filling;
  GError *error;
  gboolean stopped;
} Mapper;

gpointer
corpus_worker_new (gpointer user_data)
{
  CorpusWorker *w = g_new0 (CorpusWorker, 1);

  w->words = text_words_new ();
  w->prose = g_string_sized_new (4096);
  return w;
}

void
corpus_worker_free (gpointer p)
{
  CorpusWorker *w = p;

  text_words_free (w->words);
  g_string_free (w->prose, TRUE);
  g_free (w);
}

static void
doc_free (gpointer p)
{
  CorpusDoc *d = p;

  g_free (d->date);
  g_free (d->groups);
  g_free (d->author);
  g_free (d->lang);
  g_free (d->text);
  g_free (d);
}

static void
batch_free (Batch *b, const CorpusFuncs *funcs)
{
  for (guint i = 0; funcs->result_free && i < b->docs->len; i++)
    {
      CorpusDoc *d = b->docs->pdata[i];

      if (d->result)
        funcs->result_free (d->result);
    }
  g_ptr_array_unref (b->docs);
  g_free (b);
}

static void
work (gpointer data, gpointer user_data)
{
  Batch *b = data;
  Mapper *m = user_data;
  gpointer state = g_async_queue_try_pop (m->states);

  if (state == NULL && m->funcs->state_new)
    state = m->funcs->state_new (m->user_data);
  for (guint i = 0; i < b->docs->len; i++)
    m->funcs->map (b->docs->pdata[i], state, m->user_data);
  if (state)
    g_async_queue_push (m->states, state);
  g_mutex_lock (&m->lock);
  b->done = TRUE;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
}

/* Reduces the oldest batch, after waiting for it. */
static void
drain_one (Mapper *m)
{
  Batch *b = g_queue_pop_head (&m->inflight);

  g_mutex_lock (&m->lock);
  while (!b->done)
    g_cond_wait (&m->cond, &m->lock);
  g_mutex_unlock (&m->lock);
  for (guint i = 0; !m->stopped && i < b->docs->len; i++)
    if (!m->funcs->reduce (b->docs->pdata[i], m->user_data, &m->error))
      m->stopped = TRUE;
  batch_free (b, m->funcs);
}

static void
send (Mapper *m)
{
  if (m->filling == NULL)
    return;
  g_queue_push_tail (&m->inflight, m->filling);
  if (m->pool)
    g_thread_pool_push (m->pool, g_steal_pointer (&m->filling), NULL);
  else
    work (g_steal_pointer (&m->filling), m);   /* no thread could start */
  while (m->inflight.length > m->max_inflight)
    drain_one (m);
}

static char *
dup_value (const StoreValue *v, guint n, const char *name)
{
  return g_strdup (row_get (v, n, name));
}

static gboolean
take_row (const StoreValue *v, guint n, gpointer user_data)
{
  Mapper *m = user_data;
  CorpusDoc *d = g_new0 (CorpusDoc, 1);
  const char *text = row_get (v, n, "own_text");

  d->id = g_ascii_strtoll (row_get (v, n, "id"), NULL, 10);
  d->date = dup_value (v, n, "date");
  d->groups = dup_value (v, n, "newsgroups");
  d->author = dup_value (v, n, "author");
  d->lang = dup_value (v, n, "lang");
  d->text = g_strdup (text ? text : "");
  if (m->filling == NULL)
    {
      m->filling = g_new0 (Batch, 1);
      m->filling->docs = g_ptr_array_new_with_free_func (doc_free);
    }
  g_ptr_array_add (m->filling->docs, d);
  if (m->filling->docs->len >= BATCH)
    send (m);
  return !m->stopped;
}

/**
 * corpus_map:
 * @filter: which messages (canonical_only is the caller's to set)
 * @threads: worker threads; 0 = one per processor
 */
gboolean
corpus_map (Store *store, const StoreFilter *filter, guint threads, const CorpusFuncs *funcs,
            gpointer user_data, GError **error)
{
  static const char *const fields[] = { "id", "date", "newsgroups", "author", "lang", "own_text", NULL };
  Mapper m = { .funcs = funcs, .user_data = user_data };
  gboolean ok;

  threads = threads ? threads : cpus_available ();
  m.states = g_async_queue_new_full (funcs->state_free);
  g_mutex_init (&m.lock);
  g_cond_init (&m.cond);
  g_queue_init (&m.inflight);
  m.max_inflight = threads * 2 + 1;
  m.pool = spawn_pool ("deja-corpus", work, &m, threads, "its work is done on this thread");
  ok = store_export (store, filter, fields, take_row, &m, error);
  if (ok)
    send (&m);
  else if (m.filling)
    batch_free (g_steal_pointer (&m.filling), funcs);
  while (m.inflight.length > 0)
    drain_one (&m);
  if (m.pool)
    g_thread_pool_free (m.pool, FALSE, TRUE);
  g_async_queue_unref (m.states);
  g_mutex_clear (&m.lock);
  g_cond_clear (&m.cond);
  if (ok && m.error)
    {
      g_propagate_error (error, m.error);
      return FALSE;
    }
  g_clear_error (&m.error);
  return ok;
}
