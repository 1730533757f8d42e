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
#include "spawn.h"
#include "profile.h"
#include "lang.h"
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
 * 65,706 messages are such copies, 15,888 of them within reach (its
 * other copies differ in a header or in the notice of a scrubbed
 * attachment, and are decoded).  Two generations of
 * RECENT_RECORDS messages or RECENT_RECORD_BYTES of them, whichever
 * comes first; a message larger than RECORD_MAX is not kept. */
#define RECENT_RECORDS 512
#define RECENT_RECORD_BYTES (4 * 1024 * 1024)
#define RECORD_MAX (256 * 1024)

/* What was made of recent inputs, for the copies that follow: two
 * generations of a hash table, the older dropped when the newer holds
 * max_entries or max_bytes.  Keys start with their hash (HashedKey). */
typedef struct {
  GHashTable *newer;
  GHashTable *older;
  gsize newer_bytes;
  guint max_entries;
  gsize max_bytes;
  GEqualFunc equal;
  GDestroyNotify key_free;
  GDestroyNotify value_free;
  GMutex lock;
} Recent;

struct _DecodePool {
  GThreadPool *threads;
  GAsyncQueue *analysers;  /* of TextAnalyser, or NULL: no analysis */
  Recent texts;            /* TextKey -> TextAnalysis */
  Recent records;          /* RecordKey -> MailRecord (a reference) */
  GMutex lock;
  GCond cond;
};

typedef struct {
  guint hash;
} HashedKey;

static guint
hashed_key_hash (gconstpointer key)
{
  return ((const HashedKey *) key)->hash;
}

static void
recent_init (Recent *r, GEqualFunc equal, GDestroyNotify key_free, GDestroyNotify value_free,
             guint max_entries, gsize max_bytes)
{
  *r = (Recent) { NULL, NULL, 0, max_entries, max_bytes, equal, key_free, value_free, { 0 } };
  g_mutex_init (&r->lock);
  r->newer = g_hash_table_new_full (hashed_key_hash, equal, key_free, value_free);
  r->older = g_hash_table_new_full (hashed_key_hash, equal, key_free, value_free);
}

static void
recent_clear (Recent *r)
{
  g_hash_table_unref (r->newer);
  g_hash_table_unref (r->older);
  g_mutex_clear (&r->lock);
}

/* Whether @key was seen lately; if so, @take gets its value, under the
 * lock (to copy it, or to take a reference). */
static gboolean
recent_find (Recent *r, gconstpointer key, void (*take) (gpointer value, gpointer out), gpointer out)
{
  gpointer found;

  g_mutex_lock (&r->lock);
  found = g_hash_table_lookup (r->newer, key);
  if (found == NULL)
    found = g_hash_table_lookup (r->older, key);
  if (found)
    take (found, out);
  g_mutex_unlock (&r->lock);
  return found != NULL;
}

/* Keeps @value for @key (both owned by the cache from now on); @bytes
 * counts against max_bytes. */
static void
recent_add (Recent *r, gpointer key, gpointer value, gsize bytes)
{
  g_mutex_lock (&r->lock);
  if (g_hash_table_size (r->newer) >= r->max_entries || r->newer_bytes >= r->max_bytes)
    {
      g_hash_table_unref (r->older);
      r->older = r->newer;
      r->newer = g_hash_table_new_full (hashed_key_hash, r->equal, r->key_free, r->value_free);
      r->newer_bytes = 0;
    }
  r->newer_bytes += bytes;
  g_hash_table_replace (r->newer, key, value);
  g_mutex_unlock (&r->lock);
}

/* A recent own text, hashed once (it was hashed three times a message:
 * a lookup in each generation and an insert), eight bytes a step
 * (bytes_hash(); g_str_hash() takes one). */
typedef struct {
  guint hash;
  const char *text;        /* in the same allocation, after the key */
} TextKey;

static gboolean
text_key_equal (gconstpointer a, gconstpointer b)
{
  const TextKey *x = a, *y = b;

  return x->hash == y->hash && strcmp (x->text, y->text) == 0;
}

static TextKey *
text_key_new (const char *text, guint hash)
{
  gsize len = strlen (text);
  TextKey *key = g_malloc (sizeof *key + len + 1);

  key->hash = hash;
  key->text = memcpy ((char *) (key + 1), text, len + 1);
  return key;
}

static void
copy_analysis (gpointer value, gpointer out)
{
  *(TextAnalysis *) out = *(const TextAnalysis *) value;
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

static void
ref_record (gpointer value, gpointer out)
{
  *(MailRecord **) out = mail_record_ref (value);
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
 * time.
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

/* A charset deja chose for undeclared 8-bit text must agree with the
 * language of the text it gives: Catalan read as GB18030 ("per貌") or
 * ISO-8859-2 ("Perň"), Czech read as windows-1252 ("Pøíkaz") are wrong
 * readings.  When the language is sure and not written in the charset
 * chosen (text/legacy.c), the message is read again in each charset of
 * its language, and the reading with the fewest signs of mojibake
 * (charset_anomalies()) is kept, unless it shows more than the first.
 * Every such reading stays flagged charset-guessed. */
static MailRecord *
agree_with_language (MailRecord *record, const char *data, gsize len)
{
  const char *const *charsets;
  TextLang lang;
  MailRecord *best = NULL;
  guint best_points;

  if (!(record->flags & MAIL_FLAG_CHARSET_GUESSED) || record->charset == NULL ||
      g_ascii_strcasecmp (record->charset, "utf-8") == 0 ||
      g_ascii_strcasecmp (record->charset, "us-ascii") == 0 || record->own_text == NULL)
    return record;
  text_lang_detect (record->own_text, record->own_text_len, &lang);
  if (!lang.reliable || text_lang_writes_in (lang.code, record->charset) ||
      (charsets = text_lang_charsets (lang.code)) == NULL)
    return record;
  best_points = charset_anomalies (record->body);
  for (guint i = 0; charsets[i]; i++)
    {
      MailRecord *other = mail_record_parse_reading (data, len, charsets[i]);
      guint points = charset_anomalies (other->body);

      if (g_strcmp0 (other->charset, charsets[i]) == 0 && points <= best_points &&
          (best == NULL || points < best_points))
        {
          g_clear_pointer (&best, mail_record_free);
          best = other;
          best_points = points;
        }
      else
        mail_record_free (other);
    }
  if (best == NULL)
    return record;
  g_debug ("a message read as %s in %s: read again as %s", record->charset, lang.code, best->charset);
  mail_record_free (record);
  return best;
}

static MailRecord *
decode_span (DecodePool *pool, const char *buf, const MboxSpan *span)
{
  MboxSpan cut = *span;
  g_autoptr (GBytes) bytes = NULL;
  MailRecord *record;
  gsize len;
  const char *text;
  gboolean keep;
  RecordKey key = { 0, NULL };

  if (cut.length > DECODE_MAX && cut.body - cut.offset < DECODE_MAX)
    cut.length = DECODE_MAX;
  bytes = mbox_span_extract (buf, &cut);
  text = g_bytes_get_data (bytes, &len);
  keep = cut.length == span->length && len <= RECORD_MAX;
  if (keep)
    {
      key = (RecordKey) { bytes_hash ((const guint8 *) text, len), bytes };
      if (recent_find (&pool->records, &key, ref_record, &record))
        return record;
    }
  record = agree_with_language (mail_record_parse (text ? text : "", len), text ? text : "", len);
  if (span->envelope_length > 0)
    mail_record_read_envelope (record, buf + span->offset, span->envelope_length);
  if (cut.length < span->length)
    record->flags |= MAIL_FLAG_TRUNCATED;
  if (keep)
    {
      RecordKey *kept = g_new (RecordKey, 1);

      *kept = (RecordKey) { key.hash, g_bytes_ref (bytes) };
      recent_add (&pool->records, kept, mail_record_ref (record), len);
    }
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
      gsize len = strlen (own);
      const TextKey key = { bytes_hash ((const guint8 *) own, len), own };

      if (!recent_find (&pool->texts, &key, copy_analysis, &item->analysis))
        {
          text_analyse (analyser, own, len, &item->analysis);
          recent_add (&pool->texts, text_key_new (own, key.hash),
                      g_memdup2 (&item->analysis, sizeof item->analysis), 0);
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

  gint64 started;

  yield_to_writer ();
  started = profile_cpu_start ();
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
  profile_cpu_stop (PROFILE_DECODE, started);
  if (pool->analysers)
    {
      started = profile_cpu_start ();
      analyse_batch (pool, batch);
      profile_cpu_stop (PROFILE_SIGNALS, started);
    }
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
 * As many workers as can start (said on stderr when fewer: a limit on
 * threads or address space), at least one.
 *
 * Returns: (transfer full) (nullable): a pool, or NULL with @error when
 *   not one worker could start
 */
DecodePool *
decode_pool_new (guint n_threads, GAsyncQueue *analysers, GError **error)
{
  DecodePool *pool = g_new0 (DecodePool, 1);

  mail_init ();
  pool->analysers = analysers ? g_async_queue_ref (analysers) : NULL;
  recent_init (&pool->texts, text_key_equal, g_free, g_free, RECENT_TEXTS, G_MAXSIZE);
  recent_init (&pool->records, record_key_equal, record_key_free, (GDestroyNotify) mail_record_free,
               RECENT_RECORDS, RECENT_RECORD_BYTES);
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->cond);
  /* Threads of their own (exclusive), since they give up priority. */
  if ((pool->threads = spawn_pool ("deja-decode", decode_worker, pool, n_threads, "nothing can be decoded")) == NULL)
    {
      decode_pool_free (pool);
      g_set_error_literal (error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN,
                           "cannot start a decoding thread (a limit on threads or address space)");
      return NULL;
    }
  return pool;
}

/* Waits for every pushed batch, then frees the pool (not the batches). */
void
decode_pool_free (DecodePool *pool)
{
  if (pool == NULL)
    return;
  if (pool->threads)
    g_thread_pool_free (pool->threads, FALSE, TRUE);
  if (pool->analysers)
    g_async_queue_unref (pool->analysers);
  recent_clear (&pool->texts);
  recent_clear (&pool->records);
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
