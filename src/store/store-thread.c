/* store-thread.c — threading's reads and writes.
 *
 * Threading sees cross-file references and duplicates, so its input is
 * the whole database, or one batch of whole connected components of it
 * (store-thread-batches.c): for each message, its Message-ID, date,
 * subject, references and a hash of its content, handed to the pipeline
 * row by row (pipeline/threads.c keeps them).  The results are written
 * back in one transaction, replacing those of the previous threading.
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
load_messages (Store *store, gboolean subjects, gint batch, const StoreThreadReader *reader,
               GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, messages_sql[batch >= 0], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  sqlite3_bind_int (stmt, 1, subjects);
  sqlite3_bind_int (stmt, 2, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreThreadMessage row = {
        .id = sqlite3_column_int64 (stmt, 0),
        .message_id = (const char *) sqlite3_column_text (stmt, 1),
        .date = (const char *) sqlite3_column_text (stmt, 2),
        .subject = (const char *) sqlite3_column_text (stmt, 3),
        .content = (guint64) sqlite3_column_int64 (stmt, 4),
        .stored = (guint64) sqlite3_column_int64 (stmt, 5),
        .damage = (guint) sqlite3_column_int64 (stmt, 6),
      };

      reader->message (&row, reader->user_data);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* References of the same messages, in the same order: for each message
 * its References oldest first, then its In-Reply-To. */
static gboolean
load_refs (Store *store, gint batch, const StoreThreadReader *reader, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, refs_sql[batch >= 0], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read references", error);
  sqlite3_bind_int (stmt, 1, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreThreadRef row = {
        .message = sqlite3_column_int64 (stmt, 0),
        .in_reply_to = !sqlite3_column_int (stmt, 1),
        .ref = (const char *) sqlite3_column_text (stmt, 2),
      };

      if (row.ref != NULL)
        reader->ref (&row, reader->user_data);
    }
  sqlite3_finalize (stmt);
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

/**
 * store_load_thread_data:
 * @subjects: read subjects too (needed only to join by subject)
 * @batch: a batch of store_plan_threads(), or -1: every message
 * @reader: given each message, then each reference
 *
 * Reads what threading needs, in archive order.
 */
gboolean
store_load_thread_data (Store *store, gboolean subjects, gint batch,
                        const StoreThreadReader *reader, GError **error)
{
  gboolean ok;

  /* A whole-table scan gains nothing from a large page cache, which would
   * only fill with message bodies: read through a small one. */
  _store_scan_cache (store, TRUE);
  ok = load_messages (store, subjects, batch, reader, error) &&
       load_refs (store, batch, reader, error);
  _store_scan_cache (store, FALSE);
  return ok;
}

static void
bind_id_or_null (sqlite3_stmt *stmt, int col, gint64 id)
{
  if (id != 0)
    sqlite3_bind_int64 (stmt, col, id);
  else
    sqlite3_bind_null (stmt, col);
}

/* Is the stored row already what threading found?  Rows are compared by
 * a hash of the five columns (8 bytes a message instead of the values). */
static gboolean
unchanged (const StoreThreadRow *row)
{
  guint64 h = fnv_id (fnv_id (fnv_id (FNV_START, row->thread_id), row->parent_id),
                      row->duplicate_of);

  h = fnv_text (fnv_text (h, row->missing_parent), row->flags);
  return h == row->stored;
}

/**
 * store_save_threads:
 * @rows: (array length=n): what threading found, inside
 *   store_begin_threads() and store_finish_threads()
 */
gboolean
store_save_threads (Store *store, const StoreThreadRow *rows, gsize n, gsize *changed,
                    GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "UPDATE messages SET thread_id = :thread, parent_id = :parent,"
                               " duplicate_of = :duplicate_of, missing_parent = :missing_parent,"
                               " thread_flags = :flags WHERE id = :id",
                               -1, &stmt, NULL);
  int c_thread = sqlite3_bind_parameter_index (stmt, ":thread");
  int c_parent = sqlite3_bind_parameter_index (stmt, ":parent");
  int c_duplicate = sqlite3_bind_parameter_index (stmt, ":duplicate_of");
  int c_missing = sqlite3_bind_parameter_index (stmt, ":missing_parent");
  int c_flags = sqlite3_bind_parameter_index (stmt, ":flags");
  int c_id = sqlite3_bind_parameter_index (stmt, ":id");

  *changed = 0;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record threads", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < n && rc == SQLITE_DONE; i++)
    {
      const StoreThreadRow *row = &rows[i];

      if (unchanged (row))
        continue;
      (*changed)++;
      bind_id_or_null (stmt, c_thread, row->thread_id);
      bind_id_or_null (stmt, c_parent, row->parent_id);
      bind_id_or_null (stmt, c_duplicate, row->duplicate_of);
      _store_bind_text_or_null (stmt, c_missing, row->missing_parent);
      _store_bind_text_or_null (stmt, c_flags, row->flags);
      sqlite3_bind_int64 (stmt, c_id, row->id);
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record threads", error);
}

/**
 * store_save_thread_placeholders:
 * @rows: (array length=n): inside store_begin_threads() and
 *   store_finish_threads(), which begins by removing the old ones
 */
gboolean
store_save_thread_placeholders (Store *store, const StoreThreadPlaceholderRow *rows, gsize n,
                                GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT OR REPLACE INTO thread_placeholders (message_id, thread_id, children)"
                               " VALUES (?1, ?2, ?3)",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record placeholders", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < n && rc == SQLITE_DONE; i++)
    {
      sqlite3_bind_text (stmt, 1, rows[i].message_id, -1, SQLITE_STATIC);
      bind_id_or_null (stmt, 2, rows[i].thread_id);
      sqlite3_bind_int (stmt, 3, (int) rows[i].children);
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
  int rc = sqlite3_exec (store->db, "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE;", NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    return TRUE;
  _store_fail (store, rc, "cannot record threads", error);
  store_abort_threads (store);
  return FALSE;
}

/**
 * store_clear_thread_placeholders:
 * @batches_only: only those of the threads of the messages in the plan's
 *   batches (a partial plan: StoreThreadKeep), not every one
 *
 * After store_begin_threads() and the plan, before the placeholders
 * threading finds are saved.  A placeholder's thread is its first
 * message's, which is in the same component: a plan that keeps a
 * component as it is keeps its placeholders, and the others go.  That
 * thread's id is its root's, a message of the component too, so the
 * batches' ids tell which go without reading a message (the threads of
 * the batches' messages did: in a catalog, every message of every shard
 * read for it, 0.10-0.14 s of the realistic 1 GiB's).
 */
gboolean
store_clear_thread_placeholders (Store *store, gboolean batches_only, GError **error)
{
  static const char *const clear_sql[2] = {
    "DELETE FROM thread_placeholders",
    "DELETE FROM thread_placeholders WHERE thread_id IN (SELECT id FROM temp.thread_batch)",
  };
  int rc = sqlite3_exec (store->db, clear_sql[batches_only != FALSE], NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot record placeholders", error);
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
