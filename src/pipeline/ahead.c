/* ahead.c — small archive files split and decoding before the writer
 * reaches them.
 *
 * An archive of many small files (a pipermail month is half a megabyte)
 * was read one file after the other: each file's first batch decoded
 * while the writer waited, its last written while the decoders waited,
 * then the next opened, split and hashed.  Here a thread of its own opens,
 * splits and hashes the files the session will store next, in order, and
 * pushes their batches to the session's decoders, up to AHEAD_BYTES of
 * archive text ahead of the writer: the writer goes from file to file
 * with decoded batches waiting (bench/README.md has the figures).
 *
 * Only what the usual way would read whole is prepared: new paths (the
 * caller passes only those), small regular files.  Anything else (large,
 * not a regular file, unreadable, empty, not an mbox) is left to the
 * usual way, which reads it and reports what it is.
 */
#include "ahead.h"
#include "split.h"
#include "walk.h"
#include "spawn.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#define AHEAD_FILE_MAX ((gint64) 4 << 20)    /* on disk: larger files go the usual way */
#define AHEAD_TEXT_MAX ((gsize) 16 << 20)    /* expanded (a small .gz can hold a lot) */
#define AHEAD_BYTES ((gsize) 8 << 20)        /* archive text prepared and not yet taken */
/* Once it has filled AHEAD_BYTES, the thread waits until the writer has
 * taken a quarter of it: woken for each file taken, it prepared one file
 * and waited again, a wake-up for each file of a Maildir (5 % of the
 * writer's time, in the kernel). */
#define AHEAD_RESUME (AHEAD_BYTES / 4 * 3)

struct _Ahead {
  DecodePool *pool;
  guint threads;
  MboxSplitFlags flags;
  const volatile int *cancel;
  GPtrArray *paths;        /* every file to prepare, in order */
  guint taken;             /* the paths before this one were taken or passed over */
  GThread *thread;
  GMutex lock;
  GCond cond;
  GQueue ready;            /* of AheadFile: paths[taken], paths[taken + 1], … */
  gsize bytes;             /* archive text in ready */
  gboolean full;           /* the thread waits for bytes to fall to AHEAD_RESUME */
  guint resumed;           /* times it went on after waiting so (ahead_resumed()) */
  gboolean stopping;       /* ahead_free() was called */
  gboolean finished;       /* the thread has prepared all it will */
};

static void
push_batch (Ahead *a, AheadFile *f, DecodeBatch *batch)
{
  decode_pool_push (a->pool, batch);
  g_queue_push_tail (&f->batches, batch);
}

/* Opens, splits and hashes @path, its batches pushed to the decoders. */
static AheadFile *
prepare (Ahead *a, const char *path)
{
  AheadFile *f = g_new0 (AheadFile, 1);
  g_autoptr (Input) input = NULL;
  g_autoptr (MboxSplitter) splitter = NULL;
  GStatBuf st;
  MboxSpan span;
  DecodeBatch *batch;
  const MboxLogEntry *log;
  gsize max_bytes, n_log;
  guint max_messages;

  f->path = g_strdup (path);
  g_queue_init (&f->batches);
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > AHEAD_FILE_MAX ||
      (input = input_open (path, NULL)) == NULL || input->len > AHEAD_TEXT_MAX)
    return f;
  splitter = split_new (input, path, a->flags);
  if (!mbox_splitter_next (splitter, &span, NULL))
    return f;
  decode_batch_limits (input->len, a->threads, &max_bytes, &max_messages);
  batch = decode_batch_new (input->data);
  do
    {
      DecodeItem item = { .span = span };

      g_array_append_val (batch->items, item);
      batch->bytes += span.length;
      f->counts.messages++;
      f->counts.adjacent += span.adjacent;
      if (batch->bytes >= max_bytes || batch->items->len >= max_messages)
        {
          push_batch (a, f, batch);
          batch = decode_batch_new (input->data);
        }
    }
  while (mbox_splitter_next (splitter, &span, NULL));
  if (batch->items->len > 0)
    push_batch (a, f, batch);
  else
    decode_batch_free (batch);
  log = mbox_splitter_peek_log (splitter, &n_log);
  f->log = g_array_sized_new (FALSE, FALSE, sizeof (MboxLogEntry), (guint) n_log);
  g_array_append_vals (f->log, log, (guint) n_log);
  f->counts.lines = mbox_splitter_get_lines (splitter);
  f->counts.bytes = input->len;
  f->sha256 = input_sha256 (input);   /* NULL: a read error, which the writer reports */
  f->input = g_steal_pointer (&input);
  return f;
}

static gboolean
cancelled (const Ahead *a)
{
  return a->cancel != NULL && *a->cancel != 0;
}

static gpointer
prepare_thread (gpointer data)
{
  Ahead *a = data;

  for (guint i = 0; i < a->paths->len && !cancelled (a); i++)
    {
      AheadFile *f;

      g_mutex_lock (&a->lock);
      if (a->bytes >= AHEAD_BYTES)
        a->full = TRUE;
      while (a->full && a->bytes > AHEAD_RESUME && !a->stopping)
        g_cond_wait (&a->cond, &a->lock);
      a->resumed += a->full;
      a->full = FALSE;
      g_mutex_unlock (&a->lock);
      if (a->stopping)
        break;
      f = prepare (a, g_ptr_array_index (a->paths, i));
      g_mutex_lock (&a->lock);
      g_queue_push_tail (&a->ready, f);
      a->bytes += f->input ? f->input->len : 0;
      g_cond_broadcast (&a->cond);
      g_mutex_unlock (&a->lock);
    }
  g_mutex_lock (&a->lock);
  a->finished = TRUE;
  g_cond_broadcast (&a->cond);
  g_mutex_unlock (&a->lock);
  return NULL;
}

/**
 * ahead_start:
 * @pool: (transfer none): the decoders, which outlive the #Ahead
 * @threads: how many (for the batch size)
 * @cancel: (nullable): preparing stops when it becomes non-zero
 * @paths: (transfer full): the files to prepare, in the order they will be
 *   taken (ahead_take()); of char *
 *
 * Returns: (transfer full) (nullable): the preparer, started, or NULL when
 *   its thread could not start
 */
Ahead *
ahead_start (DecodePool *pool, guint threads, MboxSplitFlags flags, const volatile int *cancel,
             GPtrArray *paths)
{
  Ahead *a = g_new0 (Ahead, 1);

  a->pool = pool;
  a->threads = threads;
  a->flags = flags;
  a->cancel = cancel;
  a->paths = paths;
  g_mutex_init (&a->lock);
  g_cond_init (&a->cond);
  g_queue_init (&a->ready);
  if ((a->thread = spawn_thread ("deja-ahead", prepare_thread, a)) == NULL)
    {
      /* only an optimisation: the files are prepared as they are stored */
      ahead_free (a);
      return NULL;
    }
  return a;
}

/**
 * ahead_take:
 * @ahead: (nullable): the preparer, or NULL
 * @path: the file the writer is about to store
 *
 * The prepared @path, waiting for it if it is being prepared.  Files
 * before it in the list that were not taken are passed over (their
 * batches freed).
 *
 * Returns: (transfer full) (nullable): the file as prepared (its input
 *   NULL when it was not), or NULL when @path is not in the list ahead
 */
AheadFile *
ahead_take (Ahead *ahead, const char *path)
{
  AheadFile *f = NULL;
  guint want;

  if (ahead == NULL)
    return NULL;
  for (want = ahead->taken; want < ahead->paths->len; want++)
    if (strcmp (g_ptr_array_index (ahead->paths, want), path) == 0)
      break;
  if (want == ahead->paths->len)
    return NULL;
  g_mutex_lock (&ahead->lock);
  while (ahead->taken <= want)
    {
      guint index = ahead->taken;

      while (g_queue_is_empty (&ahead->ready) && !ahead->finished)
        g_cond_wait (&ahead->cond, &ahead->lock);
      if (g_queue_is_empty (&ahead->ready))
        break;                          /* stopped before it (cancelled) */
      f = g_queue_pop_head (&ahead->ready);
      ahead->bytes -= f->input ? f->input->len : 0;
      ahead->taken++;
      if (ahead->full && ahead->bytes <= AHEAD_RESUME)
        g_cond_broadcast (&ahead->cond);
      if (index == want)
        break;
      g_mutex_unlock (&ahead->lock);
      ahead_file_free (f, ahead->pool);
      f = NULL;
      g_mutex_lock (&ahead->lock);
    }
  g_mutex_unlock (&ahead->lock);
  return f;
}

/* How many times the thread went on preparing after it had filled
 * AHEAD_BYTES, and whether it waits so now (tests/test-pipeline.c). */
guint
ahead_resumed (Ahead *ahead, gboolean *waiting)
{
  guint n;

  g_mutex_lock (&ahead->lock);
  n = ahead->resumed;
  if (waiting)
    *waiting = ahead->full;
  g_mutex_unlock (&ahead->lock);
  return n;
}

/* Frees @file, once the decoders are done with its batches. */
void
ahead_file_free (AheadFile *file, DecodePool *pool)
{
  DecodeBatch *batch;

  if (file == NULL)
    return;
  while ((batch = g_queue_pop_head (&file->batches)) != NULL)
    {
      decode_pool_wait (pool, batch);
      decode_batch_free (batch);
    }
  input_free (file->input);
  if (file->log)
    g_array_unref (file->log);
  g_free (file->sha256);
  g_free (file->path);
  g_free (file);
}

/* Stops the preparer and frees what it prepared and was not taken. */
void
ahead_free (Ahead *ahead)
{
  AheadFile *f;

  if (ahead == NULL)
    return;
  g_mutex_lock (&ahead->lock);
  ahead->stopping = TRUE;
  g_cond_broadcast (&ahead->cond);
  g_mutex_unlock (&ahead->lock);
  if (ahead->thread)
    g_thread_join (ahead->thread);
  while ((f = g_queue_pop_head (&ahead->ready)) != NULL)
    ahead_file_free (f, ahead->pool);
  g_ptr_array_unref (ahead->paths);
  g_mutex_clear (&ahead->lock);
  g_cond_clear (&ahead->cond);
  g_free (ahead);
}
