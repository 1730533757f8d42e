/* ingest.c — the ingest pipeline for one file.
 *
 *   input (mmap) → split (this thread) → decode (worker threads)
 *                → store (this thread, one savepoint) → free (a thread)
 *
 * The splitter runs ahead of the decoders by a bounded number of batches;
 * decoded batches are written in archive order, so ids follow the file.
 * The content hash of a new file is computed on a thread of its own
 * while the pipeline runs; a file already in the database is hashed
 * first and skipped when unchanged.  A file that grew at its end (an
 * archive's usual way) is split whole, for exact context, but only the
 * messages after its old end are decoded and stored: the old part is
 * verified by hash.  Any failure rolls the file back to its savepoint:
 * the database keeps exactly what it had before the file.
 */
#include "ingest.h"
#include "cpus.h"
#include "profile.h"
#include "charset.h"
#include "links.h"
#include "input.h"
#include "split.h"
#include "walk.h"
#include "decode-pool.h"
#include "ahead.h"
#include "analyse-stored.h"
#include "analyse.h"
#include "progress.h"
#include "thread-guess.h"
#include "spawn.h"

#include <string.h>

struct _IngestSession {
  Store *store;
  IngestOptions options;
  ThreadGuesser *guesser;    /* NULL until the first file, and after a rollback */
  GAsyncQueue *analysers;    /* of TextAnalyser, kept from file to file (dictionaries
                                load once); NULL when not analysing */
  guint threads;             /* decoding threads */
  DecodePool *pool;          /* the decoders, from file to file (NULL until the first) */
  GThreadPool *freer;        /* frees stored batches, off the writer's thread (NULL until
                                the first file): the writer is the bottleneck and the
                                decoders wait for it; freeing a batch (thousands of small
                                blocks from the workers' arenas) on a thread of its own
                                keeps the writer writing; one for the session, not
                                one a file */
  gboolean no_freer;         /* its thread could not start: the writer frees them */
  Ahead *ahead;              /* new small files prepared ahead (ingest_session_expect()),
                                or NULL */
  IngestDictionary *dictionary;  /* the dictionary of the last stored message's
                                    language, or NULL (preload_dictionary()) */
};

static gpointer
hold_dictionary (gpointer lang)
{
  TextDictionary *held = text_dictionary_hold (lang);

  g_free (lang);
  return held;
}

struct _IngestDictionary {
  GThread *thread;           /* returns the TextDictionary it holds */
};

/**
 * ingest_preload_dictionary:
 * @lang: (transfer full) (nullable): a language code
 *
 * Loads @lang's Hunspell dictionary on a thread of its own, beside other
 * work, instead of by the first decode worker that meets a message in
 * @lang: the others wait for it there (some 90 ms for en_US).
 *
 * Returns: (transfer full) (nullable): the hold, for
 *   ingest_release_dictionary(); NULL for no language, or when the thread
 *   cannot start (the first worker that meets it loads it)
 */
IngestDictionary *
ingest_preload_dictionary (char *lang)
{
  GThread *thread;
  IngestDictionary *d;

  if (lang == NULL || strcmp (lang, "und") == 0)
    {
      g_free (lang);
      return NULL;
    }
  if ((thread = spawn_thread ("deja-dictionary", hold_dictionary, lang)) == NULL)
    {
      g_free (lang);
      return NULL;
    }
  d = g_new (IngestDictionary, 1);
  d->thread = thread;
  return d;
}

void
ingest_release_dictionary (IngestDictionary *d)
{
  if (d == NULL)
    return;
  text_dictionary_release (g_thread_join (d->thread));
  g_free (d);
}

/* An ingest into a database that holds messages most likely reads more in
 * the language of the last one: its dictionary is loaded while the files
 * are hashed (an append that decodes the old last message again,
 * old_part(), would wait for it). */
static void
preload_dictionary (IngestSession *s)
{
  char *lang = NULL;

  if (s->analysers && store_last_language (s->store, &lang, NULL))
    s->dictionary = ingest_preload_dictionary (lang);
}

G_DEFINE_QUARK (deja-ingest-error-quark, ingest_error)

typedef struct {
  Store *store;
  ThreadGuesser *guesser;
  Input *input;
  DecodePool *pool;
  GQueue inflight;           /* of DecodeBatch, in archive order */
  guint max_inflight;
  gsize batch_bytes;         /* a batch is pushed at this size ... */
  guint batch_messages;      /* ... or this many messages */
  GThread *hasher;           /* hashing the input; NULL when the hash is known */
  IngestResult *result;
  Progress *progress;
  guint64 written;           /* messages stored */
  GThreadPool *freer;        /* frees stored batches, off the writer's thread */
  const volatile int *cancel;
  goffset skip;              /* appending: the old part, stored already; 0: none */
  gint64 grown_offset;       /* appending: the old last message, now longer by the blank
                                line before the new one; -1: none */
  gint64 grown_length;
  gboolean diverged;         /* appending: the old part does not end where a message does */
  const char *list[1];       /* a pipermail month's list (its folder), the group of its
                                messages that name none; NULL: none */
} Pipeline;

static gboolean
cancelled (const Pipeline *p, GError **error)
{
  if (p->cancel == NULL || *p->cancel == 0)
    return FALSE;
  g_set_error (error, INGEST_ERROR, INGEST_ERROR_CANCELLED, "interrupted");
  return TRUE;
}

void
ingest_result_clear (IngestResult *result)
{
  g_free (result->duplicate_of);
  memset (result, 0, sizeof *result);
}

/* The content hash runs on its own thread, beside the splitter and the
 * decoders: on the writer thread it cost a tenth of an ingest. */
static gpointer
hash_input (gpointer data)
{
  return input_sha256 (data);
}

/* How many threads index the full text beside the writer, for @cpus that
 * deja may use and @threads decoders: none on one core (or -j 1); else
 * one for each two cores, up to STORE_FTS_LANES_MAX.  Tokenising is the
 * largest part of an ingest that does not parallelise by itself (27 % of
 * the CPU of the realistic 64 MiB, the writer 18 %, the decoders the
 * rest, which grow with the cores): with one thread for it, more cores
 * than three leave the ingest waiting for that thread (bench/README.md). */
guint
ingest_index_threads (guint cpus, guint threads)
{
  if (cpus < 2 || threads < 2)
    return 0;
  return MIN (MAX (cpus / 2, 1), STORE_FTS_LANES_MAX);
}

/**
 * ingest_session_new:
 * @store: (transfer none): an open database, which outlives the session
 *
 * Returns: (transfer full): a session for ingest_file()
 */
IngestSession *
ingest_session_new (Store *store, const IngestOptions *options)
{
  IngestSession *s = g_new0 (IngestSession, 1);
  guint cpus = cpus_available ();

  s->store = store;
  s->options = *options;
  s->threads = options->threads ? options->threads : cpus;
  store_index_beside (store, ingest_index_threads (cpus, s->threads));
  if (options->analyse)
    s->analysers = g_async_queue_new_full ((GDestroyNotify) text_analyser_free);
  preload_dictionary (s);
  return s;
}

void
ingest_session_free (IngestSession *s)
{
  if (s == NULL)
    return;
  ahead_free (s->ahead);
  if (s->freer)
    g_thread_pool_free (s->freer, FALSE, TRUE);
  decode_pool_free (s->pool);
  thread_guesser_free (s->guesser);
  if (s->analysers)
    g_async_queue_unref (s->analysers);
  ingest_release_dictionary (s->dictionary);
  input_forget_archives ();   /* the expanded copy of the last zip read */
  g_free (s);
}

/**
 * ingest_session_expect:
 * @paths: (element-type filename): the files ingest_file() will be given,
 *   in that order
 *
 * Lets the session split and decode the new small files among @paths
 * ahead of the writer (ahead.c).  Only an optimisation: ingest_file()
 * stores exactly what it would without it, whatever it is given.
 */
void
ingest_session_expect (IngestSession *s, GPtrArray *paths)
{
  g_autoptr (GPtrArray) fresh = g_ptr_array_new_with_free_func (g_free);
  gboolean any_decisions = TRUE;

  /* With decisions (deja review), the splitter needs the hash first. */
  if (s->ahead != NULL || s->options.reingest || paths->len < 2 ||
      !store_has_decisions (s->store, &any_decisions, NULL) || any_decisions)
    return;
  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *abs = g_canonicalize_filename (g_ptr_array_index (paths, i), NULL);
      StoreFileRecord record;
      gboolean found = TRUE;

      if (!store_file_record (s->store, abs, &record, &found, NULL))
        continue;
      if (found)
        store_file_record_clear (&record);
      else
        g_ptr_array_add (fresh, g_strdup (g_ptr_array_index (paths, i)));
    }
  if (fresh->len < 2)
    return;
  /* (only an optimisation: without decoders, ingest_file() says why) */
  if (s->pool == NULL && (s->pool = decode_pool_new (s->threads, s->analysers, NULL)) == NULL)
    return;
  s->ahead = ahead_start (s->pool, s->threads,
                          s->options.force ? MBOX_SPLIT_FORCE : MBOX_SPLIT_NONE,
                          s->options.cancel, g_steal_pointer (&fresh));
}

static void
know_id (const char *message_id, gint64 id, gint64 thread, const char *date, guint64 content,
         gpointer guesser)
{
  thread_guesser_know (guesser, message_id, id, thread, date, content);
}

/* A stored message the guesser does not hold: looked up by its index.
 * An error leaves it unknown: the guess is only a guess, and threading
 * after the files sets every row right. */
static void
look_up_id (const char *message_id, ThreadGuesser *guesser, gpointer store)
{
  store_find_canonical_id (store, message_id, know_id, guesser, NULL);
}

/* The guesser of an empty database holds every message it is told of;
 * over stored messages it looks up, one Message-ID at a time, those it
 * has not been told of.  (It was filled with every canonical message
 * first: a read of the whole table, most of what an append of one message
 * cost.)  While a first ingest has the Message-ID
 * index deferred (a file of it rolled back or replaced), a look-up would
 * be a scan of the table: it guesses without the stored messages. */
static gboolean
load_guesser (IngestSession *s, GError **error)
{
  g_autoptr (ThreadGuesser) g = thread_guesser_new (store_thread_batch_messages () / 2);
  gboolean any = FALSE, can = FALSE;

  if (!store_has_messages (s->store, &any, error) ||
      (any && !store_can_find_message_ids (s->store, &can, error)))
    return FALSE;
  if (any && can)
    thread_guesser_set_lookup (g, look_up_id, s->store);
  g_debug ("thread guess %s", !any ? "starts empty"
                              : can ? "looks up the messages already stored"
                                    : "starts empty (the Message-ID index is deferred)");
  s->guesser = g_steal_pointer (&g);
  return TRUE;
}

static gboolean
write_log_entries (Pipeline *p, const MboxLogEntry *entries, gsize n, GError **error)
{
  while (n > 0 && entries[0].offset < p->skip)   /* the old part's are stored */
    entries++, n--;
  split_count_log (&p->result->counts, entries, n);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *text = split_line_text (p->input->data, &entries[i]);
      g_autofree char *reason = mbox_reasons_to_string (entries[i].reasons);
      StoreLogEntry row = { (gint64) entries[i].line_no, entries[i].offset, text,
                            mbox_verdict_to_string (entries[i].verdict), reason,
                            (char) entries[i].shape };

      if (!store_add_log (p->store, &row, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_log (Pipeline *p, MboxSplitter *splitter, GError **error)
{
  gsize n;
  const MboxLogEntry *entries = mbox_splitter_peek_log (splitter, &n);

  if (!write_log_entries (p, entries, n, error))
    return FALSE;
  mbox_splitter_clear_log (splitter);
  return TRUE;
}

static const char *const *
strv_of (GPtrArray *array)
{
  return array && array->len ? (const char *const *) array->pdata : NULL;
}

/* The row of a decoded message; its strings are the item's. */
G_STATIC_ASSERT (sizeof (OwnSpan) == 2 * sizeof (guint32));

static void
message_row (Pipeline *p, DecodeItem *item, StoreMessage *m, GArray *links)
{
  const MailRecord *r = item->record;
  const MailUsenet *u = &r->usenet;

  g_array_set_size (links, 0);
  for (guint i = 0; r->links && i < r->links->len; i++)
    {
      const Link *l = g_ptr_array_index (r->links, i);
      StoreLink row = { .url = l->url, .normalized = l->normalized, .host = l->host,
                        .domain = l->domain, .wayback = l->wayback };

      g_array_append_val (links, row);
    }
  *m = (StoreMessage) {
    .id = item->replaces ? 0 : store_message_id (p->store, item->span.offset, r->content_hash),
    .byte_offset = item->span.offset,
    .byte_length = item->span.length,
    .line_no = (gint64) item->span.line_no,
    .envelope = item->envelope,
    .message_id = r->message_id,
    .subject = r->subject,
    .from_addr = r->from_addr,
    .from_name = r->from_name,
    .date = r->date,
    .date_raw = r->date_raw,
    .body = r->body,
    .own_text = r->own_text,
    .own_spans = r->own_spans ? (const guint32 *) r->own_spans->data : NULL,
    .n_own_spans = r->own_spans ? r->own_spans->len : 0,
    .charset = r->charset,
    .flags = item->flags,
    .quoted_lines = r->quoted_lines,
    .own_lines = r->own_lines,
    .content_hash = r->content_hash,
    .text_damage = r->damage,
    .attachments = item->attachments ? (const StoreAttachment *) item->attachments->data : NULL,
    .n_attachments = item->attachments ? item->attachments->len : 0,
    .references = strv_of (r->references),
    .n_references = r->references ? r->references->len : 0,
    .in_reply_to = strv_of (r->in_reply_to),
    .n_in_reply_to = r->in_reply_to ? r->in_reply_to->len : 0,
    .newsgroups = strv_of (r->newsgroups),
    .n_newsgroups = r->newsgroups ? r->newsgroups->len : 0,
    .body_len = r->body_len,
    .own_text_len = r->own_text_len,
    .usenet = { .path = u->path, .control = u->control, .cancels = u->cancels,
                .supersedes = u->supersedes, .approved = u->approved, .followup_to = u->followup_to },
    .links = (const StoreLink *) links->data,
    .n_links = links->len,
  };
  if (m->n_newsgroups == 0 && p->list[0] != NULL)
    {
      m->newsgroups = p->list;
      m->n_newsgroups = 1;
    }
  if (item->analysed)
    analyse_signals_of (&item->analysis, &m->text);
  /* a replaced row keeps no guess: threading, after every append, sets it */
  if (!item->replaces)
    thread_guesser_guess (p->guesser, m->id, r, &m->guess);
}

#define FREE_HERE_ITEMS 8

/* Waits for the oldest batch and stores its messages. */
static gboolean
drain_one (Pipeline *p, GError **error)
{
  DecodeBatch *batch = g_queue_pop_head (&p->inflight);
  gboolean ok = TRUE;
  goffset end = 0;

  g_autoptr (GArray) links = g_array_new (FALSE, FALSE, sizeof (StoreLink));

  gint64 started = profile_start ();

  decode_pool_wait (p->pool, batch);
  profile_stop (PROFILE_WAIT, started);
  for (guint i = 0; ok && i < batch->items->len; i++)
    {
      DecodeItem *item = &g_array_index (batch->items, DecodeItem, i);
      StoreMessage m;

      started = profile_start ();
      message_row (p, item, &m, links);
      profile_stop (PROFILE_ROW, started);
      ok = item->replaces ? store_replace_message (p->store, &m, error)
                          : store_add_message (p->store, &m, error);
      end = item->span.offset + item->span.length;
      p->written++;
    }
  /* a batch of a few messages is freed faster than the freer is woken
   * (a file of one message each: 7 % of the writer's time in futex) */
  if (p->freer && batch->items->len > FREE_HERE_ITEMS)
    g_thread_pool_push (p->freer, batch, NULL);
  else
    decode_batch_free (batch);
  if (ok)
    {
      input_release (p->input, end);
      progress_update (p->progress, end, p->written);
    }
  return ok;
}

static void
free_batch (gpointer batch, gpointer unused)
{
  (void) unused;
  decode_batch_free (batch);
}

static gboolean
push_batch (Pipeline *p, DecodeBatch *batch, GError **error)
{
  decode_pool_push (p->pool, batch);
  g_queue_push_tail (&p->inflight, batch);
  while (g_queue_get_length (&p->inflight) >= p->max_inflight)
    if (!drain_one (p, error))
      return FALSE;
  return TRUE;
}

static gboolean
blank (const char *p, const char *end)
{
  for (; p < end; p++)
    if (*p != '\n' && *p != '\r')
      return FALSE;
  return TRUE;
}

/* Whether the message of @span reads the same as it did when the file
 * ended at @old_end (the blank lines after a message's last line belong
 * to the next separator, or to the end of the file, as far as one). */
static gboolean
reads_as_before (const char *data, const MboxSpan *span, goffset old_end)
{
  MboxSpan before = *span;
  g_autoptr (GBytes) now = NULL, then = NULL;

  before.length = (gsize) (old_end - span->offset);
  now = mbox_span_extract (data, span);
  then = mbox_span_extract (data, &before);
  return g_bytes_equal (now, then);
}

/* Appending: a message of the old part is not decoded again.  The last
 * one may now end further on, by the blank line a mailer writes before
 * the message it appends; when its text is then not what it was (the
 * old file ended in a blank line and the appender wrote another), it is
 * decoded again and its row replaced (*again).  Anything else means the
 * old part does not end where a message ends, and the file is read whole
 * instead. */
static gboolean
old_part (Pipeline *p, const MboxSpan *span, gboolean *again, GError **error)
{
  goffset end = span->offset + span->length;

  *again = FALSE;
  if (end <= p->skip)
    return TRUE;
  if (blank (p->input->data + p->skip, p->input->data + end))
    {
      if (!reads_as_before (p->input->data, span, p->skip))
        {
          *again = TRUE;
          return TRUE;
        }
      p->grown_offset = span->offset;
      p->grown_length = span->length;
      return TRUE;
    }
  p->diverged = TRUE;
  g_set_error (error, INGEST_ERROR, INGEST_ERROR_DIVERGED,
               "the old end is inside a message: read whole");
  return FALSE;
}

/* On failure, lets the workers finish the file's batches before they are
 * freed. */
static void
end_pipeline (Pipeline *p)
{
  DecodeBatch *batch;

  while ((batch = g_queue_pop_head (&p->inflight)) != NULL)
    {
      decode_pool_wait (p->pool, batch);
      decode_batch_free (batch);
    }
}

/* Splits, decodes and stores every message; @span holds the first. */
static gboolean
run_pipeline (Pipeline *p, MboxSplitter *splitter, MboxSpan *span, GError **error)
{
  DecodeBatch *batch = decode_batch_new (p->input->data);
  gboolean have = TRUE, ok = TRUE;

  while (ok && have)
    {
      DecodeItem item = { .span = *span };

      if (cancelled (p, error))
        {
          ok = FALSE;
          break;
        }
      ok = write_log (p, splitter, error);
      if (ok && span->offset < p->skip)
        {
          ok = old_part (p, span, &item.replaces, error);
          if (!ok || !item.replaces)
            {
              have = ok && mbox_splitter_next (splitter, span, NULL);
              continue;
            }
        }
      g_array_append_val (batch->items, item);
      batch->bytes += span->length;
      if (!item.replaces)
        {
          p->result->counts.messages++;
          p->result->counts.adjacent += span->adjacent;
        }
      if (ok && (batch->bytes >= p->batch_bytes || batch->items->len >= p->batch_messages))
        {
          ok = push_batch (p, batch, error);
          batch = decode_batch_new (p->input->data);
        }
      have = mbox_splitter_next (splitter, span, NULL);
    }
  if (ok)
    ok = write_log (p, splitter, error);
  if (ok && batch->items->len > 0)
    ok = push_batch (p, g_steal_pointer (&batch), error);
  decode_batch_free (batch);
  while (ok && !g_queue_is_empty (&p->inflight))
    ok = drain_one (p, error);
  if (ok && cancelled (p, error))
    ok = FALSE;
  if (ok && p->grown_offset >= 0)
    ok = store_set_message_length (p->store, p->grown_offset, p->grown_length, error);
  end_pipeline (p);
  p->result->counts.lines = mbox_splitter_get_lines (splitter);
  p->result->counts.bytes = p->input->len;
  return ok;
}

/* Stores a file the preparer split ahead (ahead.c): its separator log,
 * then its batches as the decoders finish them. */
static gboolean
run_prepared (Pipeline *p, AheadFile *ahead, GError **error)
{
  gboolean ok;

  p->inflight = ahead->batches;
  g_queue_init (&ahead->batches);
  p->result->counts = ahead->counts;
  ok = write_log_entries (p, (const MboxLogEntry *) ahead->log->data, ahead->log->len, error);
  while (ok && !g_queue_is_empty (&p->inflight))
    ok = !cancelled (p, error) && drain_one (p, error);
  end_pipeline (p);
  return ok;
}

/* Sets result->unchanged when @abs holds what the database already has,
 * and result->appended_at when it holds that and more after it; sets
 * *known to the file's hash when the path was ingested with other content
 * (NULL when it never was).  FALSE with @error when the database cannot
 * say. */
static gboolean
check_unchanged (Store *store, Input *input, const char *abs, IngestResult *result, char **known,
                 GError **error)
{
  StoreFileRecord record;
  gboolean found;
  g_autofree char *start = NULL;

  *known = NULL;
  if (!store_file_record (store, abs, &record, &found, error))
    return FALSE;
  if (!found)
    return TRUE;
  /* Grown: the start and the whole hashed in one pass. */
  if (record.size > 0 && (gsize) record.size < input->len)
    start = input_sha256_prefix (input, (gsize) record.size, known);
  else
    *known = input_sha256 (input);
  if (*known == NULL)
    ;                  /* hashed again, and reported, by the pipeline */
  else if (strcmp (record.sha256, *known) == 0)
    {
      result->unchanged = TRUE;
      g_clear_pointer (known, g_free);
    }
  else if (start && strcmp (start, record.sha256) == 0 && input->data[record.size - 1] == '\n')
    {
      result->appended_at = record.size;
      result->resume_at = record.last_offset;
      result->resume_line_no = record.last_line_no;
    }
  store_file_record_clear (&record);
  return TRUE;
}

/* While the splitter reads through a very long message, the pages behind
 * it go: they are file pages, read again from the page cache if the
 * decoder needs the message's beginning. */
static void
release_behind (goffset reached, gpointer data)
{
  input_release (data, reached);
}

/* Finds the first message; a file with none is a valid, empty mbox. */
static gboolean
first_message (MboxSplitter *splitter, MboxSpan *span, IngestResult *result, GError **error)
{
  g_autoptr (GError) split_error = NULL;

  if (mbox_splitter_next (splitter, span, &split_error))
    return TRUE;
  if (split_error)
    g_propagate_error (error, g_steal_pointer (&split_error));
  else
    result->empty = TRUE;
  return FALSE;
}

/* Appending: splitting starts again at the old last message, whose
 * separator was judged before (a separator's verdict rests on its line,
 * the line before and the header block after; a message's MIME and
 * Content-Length state starts at its separator): the old part is not read
 * again.
 * Anything else than that message first reads the file whole. */
static gboolean
resume (MboxSplitter *splitter, const IngestResult *result, MboxSpan *span, GError **error)
{
  if (result->resume_at >= 0 && result->resume_at < result->appended_at && result->resume_line_no > 0)
    {
      mbox_splitter_start_at (splitter, result->resume_at, (guint64) result->resume_line_no);
      if (mbox_splitter_next (splitter, span, NULL) && span->offset == result->resume_at)
        return TRUE;
    }
  g_set_error (error, INGEST_ERROR, INGEST_ERROR_DIVERGED,
               "the old last message is not where splitting starts again: read whole");
  return FALSE;
}

/* The store's decisions (line number -> StoreDecision) as the
 * splitter's (line number -> MboxDecision). */
static GHashTable *
splitter_decisions (GHashTable *stored)
{
  GHashTable *lines = g_hash_table_new (g_direct_hash, g_direct_equal);
  GHashTableIter iter;
  gpointer line, value;

  g_hash_table_iter_init (&iter, stored);
  while (g_hash_table_iter_next (&iter, &line, &value))
    {
      StoreDecision d = GPOINTER_TO_INT (value);
      MboxDecision m = d == STORE_DECISION_SPLIT ? MBOX_DECISION_SPLIT
                     : d == STORE_DECISION_NO_SPLIT ? MBOX_DECISION_NO_SPLIT : MBOX_DECISION_NONE;

      if (m != MBOX_DECISION_NONE)
        g_hash_table_insert (lines, line, GINT_TO_POINTER (m));
    }
  return lines;
}

/* The splitter of @input, with the people's decisions about its lines
 * (deja review), which are keyed by its hash: with any in the database,
 * it is hashed first (*sha256, when NULL). */
static MboxSplitter *
splitter_for (IngestSession *session, Input *input, const char *path, char **sha256,
              IngestResult *result, GError **error)
{
  g_autoptr (MboxSplitter) splitter = NULL;
  g_autoptr (GHashTable) decisions = NULL;
  gboolean any_decisions;

  splitter = split_new (input, path, session->options.force ? MBOX_SPLIT_FORCE : MBOX_SPLIT_NONE);
  mbox_splitter_set_scan_func (splitter, release_behind, input);
  if (!store_has_decisions (session->store, &any_decisions, error))
    return NULL;
  if (any_decisions)
    {
      if (*sha256 == NULL)
        *sha256 = input_sha256 (input);
      if (*sha256 != NULL && !store_decisions_for (session->store, *sha256, &decisions, error))
        return NULL;
      if (decisions != NULL)
        {
          g_autoptr (GHashTable) lines = splitter_decisions (decisions);
          mbox_splitter_set_decisions (splitter, lines);
        }
      /* The old part was split by its own decisions: read whole. */
      result->appended_at = 0;
    }
  return g_steal_pointer (&splitter);
}

/* Reads @input into the database (after check_unchanged: @known, which
 * it takes, is its hash when known, @recorded whether the path was ingested before, and
 * result->appended_at where its new part starts, or 0); @ahead, when not
 * NULL, is @input split and decoding already (a new path, read whole). */
static gboolean
read_content (IngestSession *session, Input *input, const char *abs, char *known, gboolean recorded,
              AheadFile *ahead, IngestResult *result, GError **error)
{
  Store *store = session->store;
  const IngestOptions *options = &session->options;
  g_autoptr (MboxSplitter) splitter = NULL;
  g_autoptr (Progress) progress = NULL;
  g_autofree char *list = NULL;
  Pipeline p = { 0 };
  MboxSpan span;
  StoreFileMeta meta;
  guint threads;
  gboolean ok, replaced;
  gint64 total;
  g_autofree char *sha256 = known;   /* owned from here */

  if (ahead != NULL)
    sha256 = g_strdup (ahead->sha256);   /* a new path: nothing was known */
  else if ((splitter = splitter_for (session, input, abs, &sha256, result, error)) == NULL)
    return FALSE;
  meta = (StoreFileMeta) { .path = abs, .size = input->len, .stored_size = input->stored_size,
                           .mtime = input->mtime, .compression = input->compression,
                           .append = result->appended_at > 0 };
  if (ahead == NULL && result->appended_at > 0 && !resume (splitter, result, &span, error))
    return FALSE;
  if (ahead == NULL && result->appended_at == 0 && !first_message (splitter, &span, result, error))
    {
      /* A file that became empty replaces its old rows with none. */
      if (!result->empty || !recorded)
        return result->empty;
      meta.append = FALSE;
      if (!store_begin_file (store, &meta, NULL, error))
        return FALSE;
      g_clear_pointer (&session->guesser, thread_guesser_free);   /* its rows go */
      if (store_finish_file (store, sha256, 0, 0, error))
        return TRUE;
      store_abort_file (store);
      return FALSE;
    }
  /* Content stored already under another path (a news spool's cross-post,
   * hard-linked in each group's directory) is not stored again.  A file
   * hashed ahead is known to be one before any of its rows is written;
   * the others are found after, and rolled back (below). */
  if (ahead != NULL && sha256 != NULL)
    {
      if (!store_path_with_sha256 (store, sha256, &result->duplicate_of, error))
        return FALSE;
      if (result->duplicate_of != NULL)
        return TRUE;
    }
  if (!store_begin_file (store, &meta, &replaced, error))
    return FALSE;
  if (replaced)
    g_clear_pointer (&session->guesser, thread_guesser_free);   /* the old rows are gone */
  if (session->guesser == NULL && !load_guesser (session, error))
    {
      store_abort_file (store);
      return FALSE;
    }

  threads = session->threads;
  if (session->pool == NULL &&
      (session->pool = decode_pool_new (threads, session->analysers, error)) == NULL)
    {
      store_abort_file (store);
      return FALSE;
    }
  /* (without it, the writer frees them: run_pipeline()) */
  if (session->freer == NULL && !session->no_freer &&
      (session->freer = spawn_pool ("deja-free-batches", free_batch, NULL, 1, "the writer frees the batches")) == NULL)
    session->no_freer = TRUE;
  g_debug ("'%s': %" G_GSIZE_FORMAT " bytes of mbox text%s%s, %u decoding threads, %s%s", abs,
           input->len, input->compression ? " expanded from " : "",
           input->compression ? input->compression : "", threads,
           ahead ? "split and hashed ahead" : sha256 ? "hash known" : "hashing beside the pipeline",
           meta.append ? ", appending" : "");
  progress = progress_new (abs, input->len);
  p = (Pipeline) {
    .store = store,
    .guesser = session->guesser,
    .input = input,
    .pool = session->pool,
    .inflight = G_QUEUE_INIT,
    .max_inflight = threads * 2 + 2,
    .hasher = sha256 || ahead ? NULL : spawn_thread ("deja-hash", hash_input, input),
    .result = result,
    .progress = progress,
    .freer = session->freer,
    .cancel = options->cancel,
    .skip = result->appended_at,
    .grown_offset = -1,
  };
  p.list[0] = list = walk_pipermail_list (abs);
  decode_batch_limits (input->len - (gsize) result->appended_at, threads, &p.batch_bytes,
                       &p.batch_messages);
  ok = ahead ? run_prepared (&p, ahead, error) : run_pipeline (&p, splitter, &span, error);
  if (p.hasher)
    sha256 = g_thread_join (p.hasher);
  else if (ok && sha256 == NULL && ahead == NULL)
    sha256 = input_sha256 (input);   /* its thread could not start */
  if (ok && sha256 == NULL)
    {
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_READ, "read error while hashing");
      ok = FALSE;
    }
  /* (a file hashed ahead was looked up before its rows: nothing else
   * was written since) */
  if (ok && ahead == NULL)
    ok = store_path_with_sha256 (store, sha256, &result->duplicate_of, error);
  if (ok && result->duplicate_of != NULL)
    {
      store_abort_file (store);
      g_clear_pointer (&session->guesser, thread_guesser_free);   /* it knows rows rolled back */
      return TRUE;
    }
  total = result->counts.messages;
  if (ok && meta.append)
    {
      /* The file's row counts what was there and what came. */
      StoreFileRecord before;
      gboolean found;

      ok = store_file_record (store, abs, &before, &found, error);
      total += before.messages;
      store_file_record_clear (&before);
    }
  /* a file truncated while it was read is not kept (input.c) */
  if (ok && input_check_unchanged (input, error) &&
      store_finish_file (store, sha256, total, result->counts.lines, error))
    return TRUE;
  store_abort_file (store);
  g_clear_pointer (&session->guesser, thread_guesser_free);
  return FALSE;
}

/**
 * ingest_file:
 * @session: the command's ingest session (its database and options)
 * @path: an archive file (plain, gzip, bzip2, xz) or a zip member
 * @result: (out caller-allocates): counts, and what happened
 *
 * Stores every message of @path, its references, newsgroups and separator
 * log, all or nothing (a savepoint: store_commit() commits, every
 * STORE_COMMIT_BYTES of files and after the last).  A file that was ingested before is replaced
 * when its content changed, extended when it only grew at its end, and
 * left alone when not; a file whose content is already in the database
 * under another path is not stored twice.
 *
 * Returns: %TRUE on success (including "nothing to do"); %FALSE with
 * @error set when the file cannot be read or is not an mbox, and the
 * database is unchanged
 */
gboolean
ingest_file (IngestSession *session, const char *path, IngestResult *result, GError **error)
{
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  char *sha256 = NULL;
  g_autoptr (Input) input = NULL;
  g_autoptr (GError) local = NULL;
  AheadFile *ahead = ahead_take (session->ahead, path);
  gboolean ok;

  memset (result, 0, sizeof *result);
  if (ahead != NULL && ahead->input != NULL)
    input = g_steal_pointer (&ahead->input);
  else
    {
      ahead_file_free (ahead, session->pool);   /* not prepared: the usual way */
      ahead = NULL;
    }
  if (input == NULL && (input = input_open (path, error)) == NULL)
    return FALSE;
  if (session->options.reingest)
    sha256 = input_sha256 (input);
  else if (!check_unchanged (session->store, input, abs, result, &sha256, error) ||
           result->unchanged)
    {
      ahead_file_free (ahead, session->pool);
      return result->unchanged;
    }
  /* What was prepared is of a file read whole, as new. */
  if (ahead != NULL && (sha256 != NULL || result->appended_at > 0))
    {
      ahead_file_free (ahead, session->pool);
      ahead = NULL;
    }
  /* Here, a hash means the path was ingested before with other content. */
  ok = read_content (session, input, abs, g_strdup (sha256), sha256 != NULL, ahead, result, &local);
  ahead_file_free (ahead, session->pool);   /* before the input its batches point into */
  if (ok)
    {
      g_free (sha256);
      return TRUE;
    }
  if (!g_error_matches (local, INGEST_ERROR, INGEST_ERROR_DIVERGED))
    {
      g_free (sha256);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* It grew, but not after a message's end: the whole file again. */
  g_debug ("'%s': %s", abs, local->message);
  memset (result, 0, sizeof *result);
  return read_content (session, input, abs, sha256, TRUE, NULL, result, error);
}
