/* store-thread.c — threading's reads and writes.
 *
 * Threading sees cross-file references and duplicates, so its input is
 * the whole database, or one batch of whole connected components of it
 * (store-thread-batches.c): for each message, its Message-ID, date,
 * subject, references and a hash of its content; the strings live in one
 * GStringChunk.  The results are written back in one transaction,
 * replacing those of the previous threading.
 */
#include "store-private.h"
#include "fnv.h"

#include <string.h>

/* deja_content_hash(a, b, …): FNV-1a over the arguments' text, to tell
 * copies of a Message-ID with different content apart without loading
 * every body into memory. */
static void
content_hash (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  guint64 h = FNV_START;

  for (int i = 0; i < argc; i++)
    h = fnv_field (h, (const char *) sqlite3_value_text (argv[i]), sqlite3_value_bytes (argv[i]));
  sqlite3_result_int64 (ctx, (sqlite3_int64) h);
}

/* The same hash, in C, of an id column (0 is NULL) or a text column. */
static guint64
fnv_id (guint64 h, gint64 id)
{
  char digits[32];

  if (id == 0)
    return fnv_field (h, NULL, 0);
  return fnv_field (h, digits, g_snprintf (digits, sizeof digits, "%" G_GINT64_FORMAT, id));
}

static guint64
fnv_text (guint64 h, const char *s)
{
  return fnv_field (h, s, s ? strlen (s) : 0);
}

/**
 * store_find_canonical_id:
 * @message_id: a normalised Message-ID
 * @func: called with the canonical message of @message_id, when one is
 *   stored: its Message-ID, id, thread (its own id when not threaded
 *   yet), date and content hash (as threading compares copies); the
 *   strings are borrowed for the call
 *
 * What the ingest-time thread guess (pipeline/thread-guess.c) asks about
 * the messages stored before it: one index lookup each.
 */
gboolean
store_find_canonical_id (Store *store, const char *message_id, StoreIdFunc func,
                         gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_FIND_CANONICAL];
  int rc;

  sqlite3_bind_text (stmt, 1, message_id, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    func ((const char *) sqlite3_column_text (stmt, 0), sqlite3_column_int64 (stmt, 1),
          sqlite3_column_int64 (stmt, 2), (const char *) sqlite3_column_text (stmt, 3),
          (guint64) sqlite3_column_int64 (stmt, 4), user_data);
  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read message ids", error);
}

/**
 * store_has_messages:
 * @any: (out): whether any message is stored
 */
gboolean
store_has_messages (Store *store, gboolean *any, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM messages LIMIT 1", &one, any, error);
}

gboolean
_store_register_functions (Store *store, GError **error)
{
  int rc = sqlite3_create_function (store->db, "deja_content_hash", -1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, content_hash,
                                    NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot register functions", error);
}

void
store_thread_data_clear (StoreThreadData *data)
{
  g_clear_pointer (&data->inputs, g_array_unref);
  g_clear_pointer (&data->refs, g_ptr_array_unref);
  g_clear_pointer (&data->ids, g_array_unref);
  g_clear_pointer (&data->stored, g_array_unref);
  g_clear_pointer (&data->strings, g_string_chunk_free);
}

static const char *
chunk_text (StoreThreadData *data, sqlite3_stmt *stmt, int col)
{
  const char *s = (const char *) sqlite3_column_text (stmt, col);

  return s ? g_string_chunk_insert_const (data->strings, s) : NULL;
}

#define THREAD_COLUMNS \
  "SELECT m.id, m.message_id, m.date, CASE WHEN ?1 THEN m.subject END," \
  " coalesce(m.content_hash, deja_content_hash(m.from_addr, m.subject, m.body))," \
  " deja_content_hash(m.thread_id, m.parent_id, m.duplicate_of, m.missing_parent," \
  " m.thread_flags), coalesce(m.text_damage, 0)"

/* What threading reads, of every message ([0]) or of one batch ([1],
 * store-thread-batches.c). */
static const char *const messages_sql[2] = {
  THREAD_COLUMNS " FROM messages m ORDER BY m.id",
  THREAD_COLUMNS " FROM temp.thread_batch b JOIN messages m ON m.id = b.id"
  " WHERE b.batch = ?2 ORDER BY m.id",
};
/* A reference that is some author's address in this archive, and no
 * message's Message-ID, is an address an old mailer bracketed into
 * References ("<elloyd@lancaster.lib.pa.us>", twisted-python 2002): it
 * would join unrelated threads through one placeholder, so threading
 * does not read it (message_refs keeps it, as written). */
#define NOT_AN_ADDRESS(r) \
  " (" r " NOT IN (SELECT from_addr FROM messages WHERE from_addr IS NOT NULL)" \
  "  OR " r " IN (SELECT message_id FROM messages WHERE message_id IS NOT NULL))"

static const char *const refs_sql[2] = {
  "SELECT message_id, kind = 0, ref FROM message_refs WHERE" NOT_AN_ADDRESS ("ref")
  " ORDER BY message_id, kind, position",
  "SELECT r.message_id, r.kind = 0, r.ref"
  " FROM temp.thread_batch b JOIN message_refs r ON r.message_id = b.id"
  " WHERE b.batch = ?1 AND" NOT_AN_ADDRESS ("r.ref")
  " ORDER BY r.message_id, r.kind, r.position",
};

/* The messages of @batch, or all (-1). */
static gboolean
load_messages (Store *store, StoreThreadData *data, gboolean subjects, gint batch, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, messages_sql[batch >= 0], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  sqlite3_bind_int (stmt, 1, subjects);
  sqlite3_bind_int (stmt, 2, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      ThreadInput in = { chunk_text (data, stmt, 1), NULL, 0, NULL, 0, chunk_text (data, stmt, 2),
                         chunk_text (data, stmt, 3), (guint64) sqlite3_column_int64 (stmt, 4),
                         (guint) sqlite3_column_int64 (stmt, 6) };

      guint64 now = (guint64) sqlite3_column_int64 (stmt, 5);

      g_array_append_val (data->ids, id);
      g_array_append_val (data->inputs, in);
      g_array_append_val (data->stored, now);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* References, walked in step with the messages (both in id order).  All
 * references share one array (a GPtrArray per message cost four times
 * the pointers it held); each message records where its run starts, and
 * the pointers are set once the array has stopped moving. */
static gboolean
load_refs (Store *store, StoreThreadData *data, gint batch, GError **error)
{
  sqlite3_stmt *stmt;
  gsize i = 0;
  int rc = sqlite3_prepare_v2 (store->db, refs_sql[batch >= 0], -1, &stmt, NULL);
  g_autofree guint *starts = NULL;

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read references", error);
  sqlite3_bind_int (stmt, 1, batch);
  starts = g_new0 (guint, 2 * data->ids->len);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      gboolean is_ref = sqlite3_column_int (stmt, 1);
      ThreadInput *in;

      while (i < data->ids->len && g_array_index (data->ids, gint64, i) < id)
        i++;
      if (i == data->ids->len || g_array_index (data->ids, gint64, i) != id)
        continue;
      in = &g_array_index (data->inputs, ThreadInput, i);
      /* "references" rows come first (kind DESC), then "in-reply-to". */
      if (is_ref ? in->n_references++ == 0 : in->n_in_reply_to++ == 0)
        starts[2 * i + !is_ref] = data->refs->len;
      g_ptr_array_add (data->refs, (gpointer) chunk_text (data, stmt, 2));
    }
  sqlite3_finalize (stmt);
  for (gsize k = 0; k < data->ids->len; k++)
    {
      ThreadInput *in = &g_array_index (data->inputs, ThreadInput, k);
      const char *const *base = (const char *const *) data->refs->pdata;
      in->references = in->n_references ? base + starts[2 * k] : NULL;
      in->in_reply_to = in->n_in_reply_to ? base + starts[2 * k + 1] : NULL;
    }
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read references", error);
}

/* Whether a file was stored after threads were last computed (an ingest
 * stopped between the two). */
gboolean
store_threads_stale (Store *store, gboolean *stale, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'threads'", &one, stale,
                           error);
}

/* Loads what threading needs, for every message of @batch (see
 * store_plan_threads(); -1: every message), in archive order (subjects
 * only when @subjects: they are needed only to join by subject). */
gboolean
store_load_thread_data (Store *store, gboolean subjects, gint batch, StoreThreadData *data,
                        GError **error)
{
  gboolean ok;

  memset (data, 0, sizeof *data);
  /* A whole-table scan gains nothing from a large page cache, which would
   * only fill with message bodies: read through a small one. */
  sqlite3_exec (store->db, "PRAGMA cache_size = -4096", NULL, NULL, NULL);
  sqlite3_db_release_memory (store->db);
  data->inputs = g_array_new (FALSE, TRUE, sizeof (ThreadInput));
  data->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  data->refs = g_ptr_array_new ();
  data->stored = g_array_new (FALSE, FALSE, sizeof (guint64));
  data->strings = g_string_chunk_new (1024 * 1024);
  ok = load_messages (store, data, subjects, batch, error) && load_refs (store, data, batch, error);
  sqlite3_exec (store->db, "PRAGMA cache_size = " G_STRINGIFY (STORE_CACHE_KIB), NULL, NULL, NULL);
  if (ok)
    return TRUE;
  store_thread_data_clear (data);
  return FALSE;
}

static void
bind_id_or_null (sqlite3_stmt *stmt, int col, const StoreThreadData *data, gint64 index)
{
  if (index >= 0)
    sqlite3_bind_int64 (stmt, col, g_array_index (data->ids, gint64, index));
  else
    sqlite3_bind_null (stmt, col);
}

static gint64
id_or_zero (const StoreThreadData *data, gint64 index)
{
  return index >= 0 ? g_array_index (data->ids, gint64, index) : 0;
}

/* Is the stored row already what threading found?  Rows are compared by
 * a hash of the five columns (8 bytes a message instead of the values). */
static gboolean
unchanged (const StoreThreadData *data, gsize i, const ThreadOutput *o, const char *flags)
{
  guint64 h = fnv_id (fnv_id (fnv_id (FNV_START, id_or_zero (data, o->thread)),
                              id_or_zero (data, o->parent)),
                      id_or_zero (data, o->duplicate_of));

  h = fnv_text (fnv_text (h, o->missing_parent), flags);
  return h == g_array_index (data->stored, guint64, i);
}

static gboolean
save_messages (Store *store, const StoreThreadData *data, const ThreadResult *r, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "UPDATE messages SET thread_id = ?1, parent_id = ?2, duplicate_of = ?3,"
                               " missing_parent = ?4, thread_flags = ?5 WHERE id = ?6",
                               -1, &stmt, NULL);

  guint changed = 0;

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record threads", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < data->ids->len; i++)
    {
      const ThreadOutput *o = &r->out[i];
      g_autofree char *flags = thread_flags_to_string (o->flags);

      if (unchanged (data, i, o, flags))
        continue;
      changed++;
      bind_id_or_null (stmt, 1, data, o->thread);
      bind_id_or_null (stmt, 2, data, o->parent);
      bind_id_or_null (stmt, 3, data, o->duplicate_of);
      _store_bind_text_or_null (stmt, 4, o->missing_parent);
      _store_bind_text_or_null (stmt, 5, flags);
      sqlite3_bind_int64 (stmt, 6, g_array_index (data->ids, gint64, i));
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
      if (rc != SQLITE_DONE)
        break;
    }
  sqlite3_finalize (stmt);
  g_debug ("threads: %u of %u rows changed (the rest as guessed when stored)", changed,
           data->ids->len);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record threads", error);
}

static gboolean
save_placeholders (Store *store, const StoreThreadData *data, const ThreadResult *r, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT OR REPLACE INTO thread_placeholders (message_id, thread_id, children)"
                               " VALUES (?1, ?2, ?3)",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record placeholders", error);
  rc = SQLITE_DONE;
  for (guint i = 0; i < r->placeholders->len && rc == SQLITE_DONE; i++)
    {
      const ThreadPlaceholder *p = &g_array_index (r->placeholders, ThreadPlaceholder, i);

      sqlite3_bind_text (stmt, 1, p->message_id, -1, SQLITE_STATIC);
      bind_id_or_null (stmt, 2, data, p->thread);
      sqlite3_bind_int (stmt, 3, (int) p->children);
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record placeholders", error);
}

static gboolean
exec_foreign_keys_on (Store *store, GError **error)
{
  int rc = sqlite3_exec (store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot check foreign keys again", error);
}

/* Threading's results are written in one transaction: begun here, then
 * each batch's rows, then the newsgroups of duplicates are merged into
 * their canonical copies.
 *
 * Foreign keys are not checked in it: every id it writes is of a row it
 * read in that transaction (BEGIN IMMEDIATE: no other writer), and with
 * the checks on, each UPDATE of a message might fail half-way and so
 * kept the pages it changed in a statement journal, which SQLite keeps
 * in a temporary file past 64 KiB: 1.76 GB written to /var/tmp for the
 * 2,855 rows twisted-python's threading changes.  (Raising that limit,
 * SQLITE_CONFIG_STMTJRNL_SPILL, makes SQLite 3.40.1 fail with "database
 * or disk is full" once a journal does reach it.)  The pragma is a no-op
 * inside a transaction, hence before BEGIN and after COMMIT or ROLLBACK. */
gboolean
store_begin_threads (Store *store, GError **error)
{
  int rc = sqlite3_exec (store->db,
                         "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE; DELETE FROM thread_placeholders;",
                         NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    return TRUE;
  _store_fail (store, rc, "cannot record threads", error);
  store_abort_threads (store);
  return FALSE;
}

/* One batch's threads, duplicates and placeholders. */
gboolean
store_save_threads (Store *store, const StoreThreadData *data, const ThreadResult *r,
                    GError **error)
{
  return save_messages (store, data, r, error) && save_placeholders (store, data, r, error);
}

/**
 * store_threads_by_subject:
 * @by_subject: (out): whether the last threading joined threads by
 *   subject (deja thread --subject), which later ingests keep doing
 */
gboolean
store_threads_by_subject (Store *store, gboolean *by_subject, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'threading'"
                           " AND value = 'subject'", &one, by_subject, error);
}

/* Commits threading, recording its mode (@by_subject) for the next one. */
gboolean
store_finish_threads (Store *store, gboolean by_subject, GError **error)
{
  static const char *const mode_sql[2] = {
    "DELETE FROM deja_state WHERE key = 'threading'",
    "INSERT OR REPLACE INTO deja_state (key, value) VALUES ('threading', 'subject')",
  };
  static const char merge_groups[] =
    "DELETE FROM message_newsgroups WHERE merged = 1;"
    "INSERT OR IGNORE INTO message_newsgroups (message_id, newsgroup_id, merged)"
    " SELECT d.duplicate_of, mg.newsgroup_id, 1 FROM messages d"
    " JOIN message_newsgroups mg ON mg.message_id = d.id WHERE d.duplicate_of IS NOT NULL;"
    "DELETE FROM deja_state WHERE key = 'threads';";
  int rc;

  if ((rc = sqlite3_exec (store->db, merge_groups, NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot merge newsgroups", error);
  else if ((rc = sqlite3_exec (store->db, mode_sql[by_subject != FALSE], NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot record the threading mode", error);
  else if ((rc = sqlite3_exec (store->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot commit threads", error);
  else
    return exec_foreign_keys_on (store, error);
  store_abort_threads (store);
  return FALSE;
}

void
store_abort_threads (Store *store)
{
  if (sqlite3_get_autocommit (store->db) == 0)
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec (store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
}
