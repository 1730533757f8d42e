/* decode-pool.c — the decode stage: GMime work on worker threads.
 *
 * Splitting and SQLite writes are sequential; decoding (MIME parsing,
 * charset conversion) is the expensive, independent part, so batches of
 * spans go to a thread pool and the writer takes them back in the order
 * they were pushed.  Batches keep the cost of locking per message small.
 */
#include "decode-pool.h"
#include "text.h"
#include "charset.h"

struct _DecodePool {
  GThreadPool *threads;
  const char *buf;
  GMutex lock;
  GCond cond;
};

DecodeBatch *
decode_batch_new (void)
{
  DecodeBatch *batch = g_new0 (DecodeBatch, 1);

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
decode_span (const char *buf, const MboxSpan *span)
{
  MboxSpan cut = *span;
  g_autoptr (GBytes) bytes = NULL;
  MailRecord *record;
  gsize len;
  const char *text;

  if (cut.length > DECODE_MAX && cut.body - cut.offset < DECODE_MAX)
    cut.length = DECODE_MAX;
  bytes = mbox_span_extract (buf, &cut);
  text = g_bytes_get_data (bytes, &len);
  record = mail_record_parse (text ? text : "", len);
  if (cut.length < span->length)
    record->flags |= MAIL_FLAG_TRUNCATED;
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

static void
decode_worker (gpointer data, gpointer user_data)
{
  DecodeBatch *batch = data;
  DecodePool *pool = user_data;

  for (guint i = 0; i < batch->items->len; i++)
    {
      DecodeItem *item = &g_array_index (batch->items, DecodeItem, i);

      item->record = decode_span (pool->buf, &item->span);
      /* What the store writes as text is made here, off the writer. */
      item->flags = mail_flags_to_string (item->record->flags);
      item->attachments = attachment_rows (item->record);
      if (item->span.envelope_length)
        item->envelope = charset_to_utf8 (pool->buf + item->span.offset,
                                          item->span.envelope_length, NULL, NULL);
    }
  g_mutex_lock (&pool->lock);
  batch->done = TRUE;
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

/**
 * decode_pool_new:
 * @buf: (transfer none): the archive the spans point into
 * @n_threads: worker threads
 *
 * Returns: (transfer full): a pool
 */
DecodePool *
decode_pool_new (const char *buf, guint n_threads)
{
  DecodePool *pool = g_new0 (DecodePool, 1);

  mail_init ();
  pool->buf = buf;
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->cond);
  pool->threads = g_thread_pool_new (decode_worker, pool, MAX (n_threads, 1), FALSE, NULL);
  return pool;
}

/* Waits for every pushed batch, then frees the pool (not the batches). */
void
decode_pool_free (DecodePool *pool)
{
  if (pool == NULL)
    return;
  g_thread_pool_free (pool->threads, FALSE, TRUE);
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
