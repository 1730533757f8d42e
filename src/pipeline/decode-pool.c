/* decode-pool.c — the decode stage: GMime work on worker threads.
 *
 * Splitting and SQLite writes are sequential; decoding (MIME parsing,
 * charset conversion) is the expensive, independent part, so batches of
 * spans go to a thread pool and the writer takes them back in the order
 * they were pushed.  Batches keep the cost of locking per message small.
 *
 * Given analysers, the workers also read each own text's language and
 * prose signals, so that the row is written once, whole (an UPDATE after
 * the files grew every row and split a page in three).  The workers run
 * at a lower priority than the writer: on two cores, three threads at one
 * priority took a third of the writer's core, and the writer is the
 * critical path; below it, they take what the writer leaves.
 */
#include "decode-pool.h"
#include "text.h"
#include "charset.h"

#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#define WORKER_NICENESS 10
/* Own texts whose analysis is kept for the copies that follow: a
 * pipermail month holds most messages twice, a few hundred apart
 * (twisted-python: 32,400 of its 32,464 copies in the same file, 32,401
 * within 512 messages of the first).  Two generations of this many: the
 * last 1,024 to 2,048 texts. */
#define RECENT_TEXTS 1024
/* Decoded messages kept for the copies that follow.  mail_record_parse()
 * reads nothing but a message's bytes (its envelope line is read apart),
 * so a copy whose bytes equal a recent message's shares that message's
 * record instead of being decoded again: 21,192 of twisted-python's
 * 65,706 messages (its other copies differ in a header or in the notice
 * of a scrubbed attachment, and are decoded).  Two generations of
 * RECENT_RECORDS messages or RECENT_RECORD_BYTES of them, whichever
 * comes first; a message larger than RECORD_MAX is not kept. */
#define RECENT_RECORDS 512
#define RECENT_RECORD_BYTES (4 * 1024 * 1024)
#define RECORD_MAX (256 * 1024)

typedef struct {
  GHashTable *newer;       /* RecordKey -> MailRecord (a reference) */
  GHashTable *older;
  gsize newer_bytes;
  GMutex lock;
} RecentRecords;

struct _DecodePool {
  GThreadPool *threads;
  GAsyncQueue *analysers;  /* of TextAnalyser, or NULL: no analysis */
  GMutex recent_lock;
  GHashTable *recent;      /* own text -> TextAnalysis, the newer generation */
  GHashTable *older;
  RecentRecords records;
  GMutex lock;
  GCond cond;
};

/* A recent own text, hashed once (it was hashed three times a message:
 * a lookup in each generation and an insert). */
typedef struct {
  guint hash;
  const char *text;        /* in the same allocation, after the key */
} RecentKey;

static guint
recent_hash (gconstpointer key)
{
  return ((const RecentKey *) key)->hash;
}

static gboolean
recent_equal (gconstpointer a, gconstpointer b)
{
  const RecentKey *x = a, *y = b;

  return x->hash == y->hash && strcmp (x->text, y->text) == 0;
}

static GHashTable *
recent_new (void)
{
  return g_hash_table_new_full (recent_hash, recent_equal, g_free, g_free);
}

/* The analysis of @text (whose g_str_hash() is @hash) if it was made lately. */
static gboolean
recent_find (DecodePool *pool, const char *text, guint hash, TextAnalysis *out)
{
  const RecentKey key = { hash, text };
  const TextAnalysis *found;

  g_mutex_lock (&pool->recent_lock);
  found = g_hash_table_lookup (pool->recent, &key);
  if (found == NULL)
    found = g_hash_table_lookup (pool->older, &key);
  if (found)
    *out = *found;
  g_mutex_unlock (&pool->recent_lock);
  return found != NULL;
}

static void
recent_add (DecodePool *pool, const char *text, guint hash, const TextAnalysis *analysis)
{
  gsize len = strlen (text);
  RecentKey *key = g_malloc (sizeof *key + len + 1);

  key->hash = hash;
  key->text = memcpy ((char *) (key + 1), text, len + 1);
  g_mutex_lock (&pool->recent_lock);
  if (g_hash_table_size (pool->recent) >= RECENT_TEXTS)
    {
      g_hash_table_unref (pool->older);
      pool->older = pool->recent;
      pool->recent = recent_new ();
    }
  g_hash_table_replace (pool->recent, key, g_memdup2 (analysis, sizeof *analysis));
  g_mutex_unlock (&pool->recent_lock);
}

/* A message's bytes, hashed once. */
typedef struct {
  guint hash;
  GBytes *bytes;
} RecordKey;

/* Eight bytes a step (these are whole messages: g_bytes_hash() takes one
 * a step). */
static guint
bytes_hash (const guint8 *p, gsize len)
{
  guint64 h = 0x9E3779B97F4A7C15u ^ len;
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 w;

      memcpy (&w, p + i, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDu;
      h ^= h >> 32;
    }
  for (; i < len; i++)
    h = (h ^ p[i]) * 0x100000001B3u;
  h ^= h >> 29;
  return (guint) h;
}

static guint
record_key_hash (gconstpointer key)
{
  return ((const RecordKey *) key)->hash;
}

static gboolean
record_key_equal (gconstpointer a, gconstpointer b)
{
  const RecordKey *x = a, *y = b;

  return x->hash == y->hash && g_bytes_equal (x->bytes, y->bytes);
}

static void
record_key_free (gpointer key)
{
  g_bytes_unref (((RecordKey *) key)->bytes);
  g_free (key);
}

static GHashTable *
records_new (void)
{
  return g_hash_table_new_full (record_key_hash, record_key_equal, record_key_free,
                                (GDestroyNotify) mail_record_free);
}

/* Returns: (transfer full) (nullable): the record of a recent message
 * whose bytes are @bytes */
static MailRecord *
records_find (RecentRecords *rr, GBytes *bytes, guint hash)
{
  const RecordKey key = { hash, bytes };
  MailRecord *found;

  g_mutex_lock (&rr->lock);
  found = g_hash_table_lookup (rr->newer, &key);
  if (found == NULL)
    found = g_hash_table_lookup (rr->older, &key);
  if (found)
    mail_record_ref (found);
  g_mutex_unlock (&rr->lock);
  return found;
}

static void
records_add (RecentRecords *rr, GBytes *bytes, guint hash, MailRecord *record)
{
  RecordKey *key = g_new (RecordKey, 1);

  key->hash = hash;
  key->bytes = g_bytes_ref (bytes);
  g_mutex_lock (&rr->lock);
  if (g_hash_table_size (rr->newer) >= RECENT_RECORDS || rr->newer_bytes >= RECENT_RECORD_BYTES)
    {
      g_hash_table_unref (rr->older);
      rr->older = rr->newer;
      rr->newer = records_new ();
      rr->newer_bytes = 0;
    }
  if (!g_hash_table_contains (rr->newer, key))
    rr->newer_bytes += g_bytes_get_size (bytes);
  g_hash_table_replace (rr->newer, key, mail_record_ref (record));
  g_mutex_unlock (&rr->lock);
}

#define BATCH_BYTES (1024 * 1024)
#define BATCH_MESSAGES 512
#define BATCH_MIN_BYTES (16 * 1024)

/**
 * decode_batch_limits:
 * @len: bytes of archive text to decode
 * @bytes: (out): a batch is full at this many bytes of messages ...
 * @messages: (out): ... or this many messages
 *
 * Batches keep locking cheap, but a file of fewer than a few of them
 * would be one batch decoded by one worker while the writer waits, then
 * written while the workers wait: a small file (a pipermail month) is cut
 * into batches enough for every worker and the writer to have one at a
 * time (twisted-python's 248 months: 10.8 -> 7.1 s).
 */
void
decode_batch_limits (gsize len, guint threads, gsize *bytes, guint *messages)
{
  gsize share = len / ((gsize) threads * 8 + 8);

  *bytes = CLAMP (share, BATCH_MIN_BYTES, BATCH_BYTES);
  *messages = (guint) MAX (BATCH_MESSAGES * *bytes / BATCH_BYTES, 16);
}

/* A batch of messages of the archive text @buf (which outlives it). */
DecodeBatch *
decode_batch_new (const char *buf)
{
  DecodeBatch *batch = g_new0 (DecodeBatch, 1);

  batch->buf = buf;
  batch->items = g_array_sized_new (FALSE, TRUE, sizeof (DecodeItem), 256);
  return batch;
}

void
decode_batch_free (DecodeBatch *batch)
{
  if (batch == NULL)
    return;
  for (guint i = 0; i < batch->items->len; i++)
    {
      DecodeItem *item = &g_array_index (batch->items, DecodeItem, i);
      mail_record_free (item->record);
      g_free (item->envelope);
      g_free (item->flags);
      g_clear_pointer (&item->attachments, g_array_unref);
    }
  g_array_unref (batch->items);
  g_free (batch);
}

/* Messages are decoded from at most their first 8 MiB: decoding takes a
 * few times a message's size in memory, and a message this large is a
 * binary posting, not text.  The row still spans the whole message. */
#define DECODE_MAX ((goffset) 8 * 1024 * 1024)

static MailRecord *
decode_span (DecodePool *pool, const char *buf, const MboxSpan *span)
{
  MboxSpan cut = *span;
  g_autoptr (GBytes) bytes = NULL;
  MailRecord *record;
  gsize len;
  const char *text;
  gboolean keep;
  guint hash = 0;

  if (cut.length > DECODE_MAX && cut.body - cut.offset < DECODE_MAX)
    cut.length = DECODE_MAX;
  bytes = mbox_span_extract (buf, &cut);
  text = g_bytes_get_data (bytes, &len);
  keep = cut.length == span->length && len <= RECORD_MAX;
  if (keep)
    {
      hash = bytes_hash ((const guint8 *) text, len);
      if ((record = records_find (&pool->records, bytes, hash)))
        return record;
    }
  record = mail_record_parse (text ? text : "", len);
  if (cut.length < span->length)
    record->flags |= MAIL_FLAG_TRUNCATED;
  if (keep)
    records_add (&pool->records, bytes, hash, record);
  return record;
}

static GArray *
attachment_rows (const MailRecord *r)
{
  GArray *rows;

  if (r->attachments == NULL || r->attachments->len == 0)
    return NULL;
  rows = g_array_sized_new (FALSE, FALSE, sizeof (StoreAttachment), r->attachments->len);
  for (guint i = 0; i < r->attachments->len; i++)
    {
      const TextAttachment *a = g_ptr_array_index (r->attachments, i);
      StoreAttachment row = { a->content_type, a->filename, a->size, a->encoding };

      g_array_append_val (rows, row);
    }
  return rows;
}

/* Lowers the calling thread's priority below the writer's, once per
 * thread (Linux schedules threads as tasks; elsewhere, nothing). */
static void
yield_to_writer (void)
{
#ifdef __linux__
  static GPrivate lowered;

  if (g_private_get (&lowered) == NULL)
    {
      int now = getpriority (PRIO_PROCESS, (id_t) gettid ());

      if (now < WORKER_NICENESS)
        (void) setpriority (PRIO_PROCESS, (id_t) gettid (), WORKER_NICENESS);
      g_private_set (&lowered, GINT_TO_POINTER (1));
    }
#endif
}

static void
analyse_batch (DecodePool *pool, DecodeBatch *batch)
{
  TextAnalyser *analyser = g_async_queue_try_pop (pool->analysers);

  if (analyser == NULL)
    analyser = text_analyser_new ();
  for (guint i = 0; i < batch->items->len; i++)
    {
      DecodeItem *item = &g_array_index (batch->items, DecodeItem, i);
      const char *own = item->record->own_text ? item->record->own_text : "";
      guint hash = g_str_hash (own);

      if (!recent_find (pool, own, hash, &item->analysis))
        {
          text_analyse (analyser, own, strlen (own), &item->analysis);
          recent_add (pool, own, hash, &item->analysis);
        }
      item->analysed = TRUE;
    }
  g_async_queue_push (pool->analysers, analyser);
}

static void
decode_worker (gpointer data, gpointer user_data)
{
  DecodeBatch *batch = data;
  DecodePool *pool = user_data;

  yield_to_writer ();
  for (guint i = 0; i < batch->items->len; i++)
    {
      DecodeItem *item = &g_array_index (batch->items, DecodeItem, i);

      item->record = decode_span (pool, batch->buf, &item->span);
      /* What the store writes as text is made here, off the writer. */
      item->flags = mail_flags_to_string (item->record->flags);
      item->attachments = attachment_rows (item->record);
      if (item->span.envelope_length)
        item->envelope = charset_to_utf8 (batch->buf + item->span.offset,
                                          item->span.envelope_length, NULL, NULL);
    }
  if (pool->analysers)
    analyse_batch (pool, batch);
  g_mutex_lock (&pool->lock);
  batch->done = TRUE;
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

/**
 * decode_pool_new:
 * @n_threads: worker threads
 * @analysers: (nullable) (transfer none): of TextAnalyser, which the
 *   workers take and give back (a new one when none is free): each
 *   message is also analysed; NULL: not
 *
 * Returns: (transfer full): a pool
 */
DecodePool *
decode_pool_new (guint n_threads, GAsyncQueue *analysers)
{
  DecodePool *pool = g_new0 (DecodePool, 1);

  mail_init ();
  pool->analysers = analysers ? g_async_queue_ref (analysers) : NULL;
  g_mutex_init (&pool->recent_lock);
  pool->recent = recent_new ();
  pool->older = recent_new ();
  g_mutex_init (&pool->records.lock);
  pool->records.newer = records_new ();
  pool->records.older = records_new ();
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->cond);
  /* Threads of its own (exclusive), since they give up priority. */
  pool->threads = g_thread_pool_new (decode_worker, pool, MAX (n_threads, 1), TRUE, NULL);
  return pool;
}

/* Waits for every pushed batch, then frees the pool (not the batches). */
void
decode_pool_free (DecodePool *pool)
{
  if (pool == NULL)
    return;
  g_thread_pool_free (pool->threads, FALSE, TRUE);
  if (pool->analysers)
    g_async_queue_unref (pool->analysers);
  g_hash_table_unref (pool->recent);
  g_hash_table_unref (pool->older);
  g_mutex_clear (&pool->recent_lock);
  g_hash_table_unref (pool->records.newer);
  g_hash_table_unref (pool->records.older);
  g_mutex_clear (&pool->records.lock);
  g_mutex_clear (&pool->lock);
  g_cond_clear (&pool->cond);
  g_free (pool);
}

/* Queues @batch for decoding; the caller keeps ownership. */
void
decode_pool_push (DecodePool *pool, DecodeBatch *batch)
{
  g_thread_pool_push (pool->threads, batch, NULL);
}

/* Blocks until @batch is decoded. */
void
decode_pool_wait (DecodePool *pool, DecodeBatch *batch)
{
  g_mutex_lock (&pool->lock);
  while (!batch->done)
    g_cond_wait (&pool->cond, &pool->lock);
  g_mutex_unlock (&pool->lock);
}
