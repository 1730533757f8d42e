/* store.c — deja's SQLite database: opening, migrating, ingesting.
 *
 * Only store*.c include sqlite3.h (reads are in store-query.c): every
 * SQLite return code becomes a GError (_store_fail()), and every statement
 * binds its values (no SQL is ever built from data).  The schema lives in schema/NNN-*.sql and is
 * applied in order; PRAGMA user_version holds the version and
 * PRAGMA application_id marks the file as deja's, so that deja refuses a
 * database made by another program or by a newer deja instead of
 * modifying it.
 *
 * Each archive file is stored all or nothing (store_begin_file() …
 * store_finish_file(), a savepoint, or the transaction for the first
 * file in it); store_abort_file() leaves the
 * database exactly as it was before the file.  Files are committed
 * together, up to STORE_COMMIT_BYTES of archive text (store_commit()).
 * The database is in WAL mode, so that readers (deja's read
 * commands, sqlite3, Python, R) query it while an ingest writes, without
 * waiting; during an ingest the log is checkpointed on a thread of its
 * own (store-checkpoint.c), and when deja closes the database SQLite
 * checkpoints what is left and deletes the log: at rest the database is
 * one file again.
 */
#include "store-private.h"
#include "schema.h"
#include "schema-final.h"
#include "profile.h"
#include "identity.h"
#include "id-hash.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define DEJA_APPLICATION_ID 0x64656a61 /* "deja" */

#define SCHEMA_VERSION ((int) G_N_ELEMENTS (deja_schema))
G_STATIC_ASSERT (DEJA_SCHEMA_FINAL_VERSION == SCHEMA_VERSION);
/* Past this many pages in the log (256 MiB), a new file's transaction
 * waits for the checkpointer so that it starts the log afresh: a log that
 * only grows makes every page lookup slower. */
#define WAL_RESTART_FRAMES 16384

G_DEFINE_QUARK (store-error-quark, store_error)

static const char *const stmt_sql[N_STMTS] = {
  [STMT_INSERT_MESSAGE] =
    "INSERT INTO messages (file_id, byte_offset, byte_length, line_no, envelope,"
    " message_id, subject, from_addr, from_name, date, date_raw, body, charset, flags,"
    " own_text_stored, quoted_lines, own_lines, attachment_count,"
    " id, thread_id, parent_id, duplicate_of, missing_parent, thread_flags, content_hash,"
    " text_damage, author_id, own_spans, lang, lang_reliable, words, sentences, code_lines,"
    " nonletter_share, digit_share, upper_share, oov_share)"
    " VALUES (:file_id, :byte_offset, :byte_length, :line_no, :envelope,"
    " :message_id, :subject, :from_addr, :from_name, :date, :date_raw, :body, :charset, :flags,"
    " :own_text_stored, :quoted_lines, :own_lines, :attachment_count,"
    " :id, :thread_id, nullif(:parent_id, 0), nullif(:duplicate_of, 0), :missing_parent,"
    " :thread_flags, :content_hash, :text_damage, nullif(:author_id, 0), :own_spans,"
    " :lang, :lang_reliable, :words, :sentences, :code_lines,"
    " :nonletter_share, :digit_share, :upper_share, :oov_share)",
  [STMT_SET_TEXT] =
    "UPDATE messages SET lang = :lang, lang_reliable = :lang_reliable, words = :words,"
    " sentences = :sentences, code_lines = :code_lines, nonletter_share = :nonletter_share,"
    " digit_share = :digit_share, upper_share = :upper_share, oov_share = :oov_share"
    " WHERE id = :id",
  [STMT_INSERT_REF] =
    "INSERT OR IGNORE INTO message_refs (message_id, kind, position, ref) VALUES (?1, ?2, ?3, ?4)",
  [STMT_INSERT_GROUP] = "INSERT OR IGNORE INTO newsgroups (name) VALUES (?1)",
  [STMT_SELECT_GROUP] = "SELECT id FROM newsgroups WHERE name = ?1",
  [STMT_INSERT_MESSAGE_GROUP] =
    "INSERT OR IGNORE INTO message_newsgroups (message_id, newsgroup_id) VALUES (?1, ?2)",
  [STMT_INSERT_LOG] =
    "INSERT INTO separator_log (file_id, line_no, byte_offset, line_text, verdict, reason, shape)"
    " VALUES (:file_id, :line_no, :byte_offset, :line_text, :verdict, :reason, :shape)",
  [STMT_INSERT_ATTACHMENT] =
    "INSERT INTO attachments (message_id, position, content_type, filename, size, encoding)"
    " VALUES (:id, :position, :content_type, :filename, :size, :encoding)",
  /* messages_fts has external content: rows leave the index by being
   * "deleted" with the values they were indexed with, before the
   * messages themselves go.  New rows are indexed as they are inserted,
   * from the values in hand, faster than one INSERT … SELECT per file,
   * which reads every row back. */
  [STMT_FTS_DELETE_FILE] =
    "INSERT INTO messages_fts (messages_fts, rowid, subject, own_text)"
    " SELECT 'delete', m.id, m.subject, m.own_text FROM messages m"
    " JOIN files f ON f.id = m.file_id WHERE f.path = ?1",
  [STMT_FTS_INSERT] =
    "INSERT INTO messages_fts (rowid, subject, own_text) VALUES (?1, ?2, ?3)",
  /* The canonical message of a Message-ID (store_find_canonical_id()). */
  [STMT_FIND_CANONICAL] =
    "SELECT message_id, id, coalesce(thread_id, id), date,"
    " coalesce(content_hash, deja_content_hash(from_addr, subject, body)) FROM messages"
    " WHERE message_id = ?1 AND duplicate_of IS NULL ORDER BY id LIMIT 1",
  /* A new address's provisional author, until authors_update(). */
  [STMT_INSERT_AUTHOR] =
    "INSERT INTO authors (id, name, address, messages) VALUES (?1, ?2, ?2, 0)",
  [STMT_INSERT_AUTHOR_ADDRESS] =
    "INSERT INTO author_addresses (address, author_id, messages) VALUES (?2, ?1, 0)",
  [STMT_INSERT_USENET] =
    "INSERT INTO usenet_headers (message_id, path, control, cancels, supersedes, approved, followup_to)"
    " VALUES (:id, :path, :control, :cancels, :supersedes, :approved, :followup_to)",
  [STMT_INSERT_LINK] =
    "INSERT INTO links (message_id, position, url, normalized, host, domain, wayback)"
    " VALUES (:id, :position, :url, :normalized, :host, :domain, :wayback)",
};


gboolean
_store_fail (Store *store, int rc, const char *what, GError **error)
{
  /* the connection's message, unless it has none for this failure (one
   * that store-checked.c made) */
  if (rc == SQLITE_OK && _store_injected () != SQLITE_OK)
    rc = _store_injected ();
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s: %s", what,
               store->db && sqlite3_errcode (store->db) != SQLITE_OK ? sqlite3_errmsg (store->db)
                                                                   : sqlite3_errstr (rc));
  return FALSE;
}

/* _store_fail() where a shard may have failed: @why, what
 * _store_shards_scan() and its kind said of it, or else the
 * connection's own failure */
gboolean
_store_fail_why (Store *store, int rc, const char *why, const char *what, GError **error)
{
  if (why == NULL)
    return _store_fail (store, rc, what, error);
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s: %s", what, why);
  return FALSE;
}

/* The page cache a connection keeps but while it scans
 * (_store_scan_cache()): smaller for a command about to store archives. */
static const char *
cache_size_sql (Store *store)
{
  return store->expected_bytes > 0 ? "PRAGMA cache_size = " G_STRINGIFY (STORE_APPEND_CACHE_KIB)
                                   : "PRAGMA cache_size = " G_STRINGIFY (STORE_CACHE_KIB);
}

/* Whole-table scans (threading's reads and its plan, CREATE INDEX) and a
 * merge's appends into an empty database (store-merge.c) go through a
 * small page cache (@on), then the writer's again.  A large
 * one only fills with pages read once, each copied into a slot of 64 MiB
 * gone cold in the CPU's caches: the 1 GiB merge's seven index builds
 * took 4.0-4.4 s through it against 2.6-3.2 s through 2 to 16 MiB.
 * SQLite's sorts keep as much of the cache's size in memory before they
 * spill to temporary files. */
void
_store_scan_cache (Store *store, gboolean on)
{
  if (on)
    {
      sqlite3_exec (store->db, "PRAGMA cache_size = " G_STRINGIFY (STORE_SCAN_CACHE_KIB), NULL, NULL, NULL);
      sqlite3_db_release_memory (store->db);
    }
  else
    sqlite3_exec (store->db, cache_size_sql (store), NULL, NULL, NULL);
}

static gboolean
exec (Store *store, const char *sql, GError **error)
{
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "database error", error);
}

gboolean
_store_exec_sql (Store *store, const char *sql, GError **error)
{
  return exec (store, sql, error);
}

/**
 * _store_prepare_sql:
 * @sql: one statement, as a literal
 *
 * sqlite3_prepare_v2() of @sql on @store.  On deja merge's writer, which
 * attaches a group of shards at once (store-merge.c), "shard." in @sql
 * names the shard being merged: the schema in @store->shard_schema.
 *
 * Returns: SQLite's result code
 */
int
_store_prepare_sql (Store *store, const char *sql, sqlite3_stmt **stmt)
{
  g_auto (GStrv) parts = NULL;
  g_autofree char *schema = NULL, *in_slot = NULL;

  if (store->shard_schema == NULL || strcmp (store->shard_schema, "shard") == 0 ||
      strstr (sql, "shard.") == NULL)
    return sqlite3_prepare_v2 (store->db, sql, -1, stmt, NULL);
  parts = g_strsplit (sql, "shard.", -1);
  schema = g_strconcat (store->shard_schema, ".", NULL);
  in_slot = g_strjoinv (schema, parts);
  return sqlite3_prepare_v2 (store->db, in_slot, -1, stmt, NULL);
}

/* Statements kept prepared by their SQL, at most this many a connection
 * (more are prepared for each use) */
#define CACHED_MAX 64

static void
finalize_stmt (gpointer stmt)
{
  sqlite3_finalize (stmt);
}

/**
 * _store_cached:
 * @sql: one statement
 *
 * @sql prepared on @store once and kept for the connection's life, as
 * SQLite's own shell and Python's sqlite3 keep theirs: what an ingest
 * reads and writes for each file was compiled again for each (a DELETE
 * with every cascade of the foreign keys, a join with the generated
 * own_text), which took an ingest of a Maildir of 8,000 messages 1.7 ms
 * of the writer's time a file, most of its 14 s.  Give it back with
 * _store_release(), never sqlite3_finalize().
 *
 * Returns: SQLite's result code
 */
int
_store_cached (Store *store, const char *sql, sqlite3_stmt **stmt)
{
  int rc;

  if (store->cached == NULL)
    store->cached = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, finalize_stmt);
  if ((*stmt = g_hash_table_lookup (store->cached, sql)) != NULL)
    return SQLITE_OK;
  rc = sqlite3_prepare_v3 (store->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL);
  if (rc == SQLITE_OK && g_hash_table_size (store->cached) < CACHED_MAX)
    g_hash_table_insert (store->cached, g_strdup (sql), *stmt);
  return rc;
}

/* Done with @stmt of _store_cached(): reset for its next use (its
 * parameters cleared: what they pointed to may go), or finalized when it
 * was not kept. */
void
_store_release (Store *store, sqlite3_stmt *stmt)
{
  if (stmt == NULL)
    return;
  if (store->cached != NULL && g_hash_table_lookup (store->cached, sqlite3_sql (stmt)) == stmt)
    {
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
    }
  else
    sqlite3_finalize (stmt);
}

/* sqlite3_exec() of the one statement @sql, kept prepared
 * (_store_cached()): for what runs once for each file. */
static int
exec_kept (Store *store, const char *sql)
{
  sqlite3_stmt *stmt;
  int rc = _store_cached (store, sql, &stmt);

  if (rc != SQLITE_OK)
    return rc;
  rc = sqlite3_step (stmt);
  _store_release (store, stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Closes the connection, with the statements kept on it. */
static void
close_db (Store *store)
{
  g_clear_pointer (&store->cached, g_hash_table_unref);
  sqlite3_close (store->db);
  store->db = NULL;
}

/**
 * _store_query_int:
 * @sql: one statement, its result's first column an integer
 * @value: (out): that column of the first row
 * @found: (out) (optional): whether there was a row (*@value is 0 when not)
 *
 * Returns: %FALSE with @error when SQLite fails; "no row" is not a failure
 */
gboolean
_store_query_int (Store *store, const char *sql, gint64 *value, gboolean *found, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = store->shard_schema ? _store_prepare_sql (store, sql, &stmt) : _store_cached (store, sql, &stmt);

  *value = 0;
  if (found)
    *found = FALSE;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read database", error);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      *value = sqlite3_column_int64 (stmt, 0);
      if (found)
        *found = TRUE;
    }
  _store_release (store, stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read database", error);
}

/**
 * _store_query_text:
 * @sql: one statement with ?1 (bound to @param) and, if it wants, ?2
 *   (bound to @number)
 * @value: (out) (transfer full) (nullable): the first column of the first
 *   row, or %NULL when there is no row (or the value is NULL)
 *
 * Returns: %FALSE with @error when SQLite fails; "no row" is not a failure
 */
gboolean
_store_query_text (Store *store, const char *sql, const char *param, gint64 number, char **value,
                   GError **error)
{
  sqlite3_stmt *stmt;
  int rc = _store_cached (store, sql, &stmt);

  *value = NULL;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read database", error);
  sqlite3_bind_text (stmt, 1, param, -1, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count (stmt) >= 2)
    sqlite3_bind_int64 (stmt, 2, number);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW && sqlite3_column_type (stmt, 0) != SQLITE_NULL)
    *value = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  _store_release (store, stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read database", error);
}

/**
 * _store_schema_index_sql:
 *
 * The CREATE statement of the index @name in deja's schema (the last
 * migration that creates it), without its ';'.
 *
 * Returns: (transfer full) (nullable): the statement, %NULL when no
 *   migration creates @name
 */
char *
_store_schema_index_sql (const char *name)
{
  g_autofree char *head = g_strdup_printf ("CREATE INDEX %s ON ", name);

  for (int v = SCHEMA_VERSION - 1; v >= 0; v--)
    {
      const char *start = strstr (deja_schema[v], head), *end;

      if (start != NULL && (start == deja_schema[v] || start[-1] == '\n') &&
          (end = strchr (start, ';')) != NULL)
        return g_strndup (start, end - start);
    }
  return NULL;
}

/* The views and triggers of deja's own schema at @version, as sqlite_schema
 * holds them: "type name" -> CREATE statement.  Made once per version:
 * the current one's as the build wrote them (schema/final.c), an older
 * one's by applying its migrations to an empty database in memory. */
static GHashTable *
schema_objects (gint64 version, GError **error)
{
  static GHashTable *made[G_N_ELEMENTS (deja_schema) + 1];
  G_LOCK_DEFINE_STATIC (made);
  GHashTable *objects;
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc;

  g_assert (version >= 0 && version <= SCHEMA_VERSION);
  G_LOCK (made);
  if ((objects = made[version]) != NULL)
    {
      G_UNLOCK (made);
      return objects;
    }
  objects = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (version == SCHEMA_VERSION)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (deja_schema_objects); i++)
        g_hash_table_insert (objects, g_strdup_printf ("%s %s", deja_schema_objects[i][0], deja_schema_objects[i][1]),
                             g_strdup (deja_schema_objects[i][2]));
      rc = SQLITE_DONE;
    }
  else
    {
      rc = sqlite3_open_v2 (":memory:", &db, SQLITE_OPEN_READWRITE | STORE_OPEN_ONE_THREAD, NULL);
      for (gint64 v = 0; rc == SQLITE_OK && v < version; v++)
        rc = sqlite3_exec (db, deja_schema[v], NULL, NULL, NULL);
      if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2 (db, "SELECT type, name, sql FROM sqlite_schema"
                                 " WHERE type IN ('view', 'trigger')", -1, &stmt, NULL);
      while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          g_hash_table_insert (objects, g_strdup_printf ("%s %s", sqlite3_column_text (stmt, 0),
                                                         sqlite3_column_text (stmt, 1)),
                               g_strdup ((const char *) sqlite3_column_text (stmt, 2)));
          rc = SQLITE_OK;
        }
      sqlite3_finalize (stmt);
    }
  if (rc != SQLITE_DONE)
    {
      if (rc == SQLITE_OK || rc == SQLITE_ROW || (db && sqlite3_errcode (db) == SQLITE_OK))
        rc = _store_injected () != SQLITE_OK ? _store_injected () : rc;
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "cannot make the reference schema of version %" G_GINT64_FORMAT ": %s", version,
                   db && sqlite3_errcode (db) != SQLITE_OK ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      g_hash_table_unref (objects);
      objects = NULL;
    }
  else
    made[version] = objects;
  sqlite3_close (db);
  G_UNLOCK (made);
  return objects;
}

/* Whether @db's main database says it is a deja database of this
 * schema (its header's application id and version: a shard read by a
 * catalog, which makes no connection of the store's to it) */
gboolean
_store_is_current_deja (sqlite3 *db)
{
  sqlite3_stmt *stmt;
  gint64 app = 0, version = -1;

  if (sqlite3_prepare_v2 (db, "PRAGMA application_id", -1, &stmt, NULL) == SQLITE_OK)
    {
      if (sqlite3_step (stmt) == SQLITE_ROW)
        app = sqlite3_column_int64 (stmt, 0);
      sqlite3_finalize (stmt);
    }
  if (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL) == SQLITE_OK)
    {
      if (sqlite3_step (stmt) == SQLITE_ROW)
        version = sqlite3_column_int64 (stmt, 0);
      sqlite3_finalize (stmt);
    }
  return app == DEJA_APPLICATION_ID && version == SCHEMA_VERSION;
}

/* The views and triggers of deja's current schema: "view NAME" -> SQL */
GHashTable *
_store_schema_objects (GError **error)
{
  return schema_objects (SCHEMA_VERSION, error);
}

/* What identifies a deja database, read on the main database or on one
 * attached as "shard" (deja merge): literals for each, not SQL built. */
enum { ID_APP, ID_VERSION, ID_TABLES, ID_OBJECTS, ID_DEFERRED, N_ID };
#define IDENTITY_SQL(schema) {                                                         \
    [ID_APP] = "PRAGMA " schema ".application_id",                                     \
    [ID_VERSION] = "PRAGMA " schema ".user_version",                                   \
    [ID_TABLES] = "SELECT count(*) FROM " schema ".sqlite_schema",                     \
    [ID_OBJECTS] = "SELECT type, name, sql FROM " schema ".sqlite_schema"              \
                   " WHERE type IN ('view', 'trigger') ORDER BY type, name",           \
    [ID_DEFERRED] = "SELECT 1 FROM " schema ".deja_state WHERE key = '"                \
                    STORE_DEFERRED_INDEXES_KEY "'" }
enum { SCHEMA_MAIN, SCHEMA_SHARD };
static const char *const identity_sql[][N_ID] = {
  [SCHEMA_MAIN] = IDENTITY_SQL ("main"),
  [SCHEMA_SHARD] = IDENTITY_SQL ("shard"),
};

/* Refuses a database whose schema holds a view or a trigger that deja's
 * schema of its version does not (or holds differently): such SQL would
 * run when deja reads or writes the tables it touches. */
static gboolean
check_schema_objects (Store *store, int schema, gint64 version, GError **error)
{
  GHashTable *objects = schema_objects (version, error);
  const char *const *sql = identity_sql[schema];
  sqlite3_stmt *stmt;
  int rc;

  if (objects == NULL)
    return FALSE;
  rc = _store_prepare_sql (store, sql[ID_OBJECTS], &stmt);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the schema", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *type = (const char *) sqlite3_column_text (stmt, 0);
      const char *name = (const char *) sqlite3_column_text (stmt, 1);
      const char *stored = (const char *) sqlite3_column_text (stmt, 2);
      g_autofree char *key = g_strdup_printf ("%s %s", type, name);
      const char *ours = g_hash_table_lookup (objects, key);

      if (ours == NULL || stored == NULL || strcmp (ours, stored) != 0)
        {
          g_autofree char *shown = g_strescape (name ? name : "", NULL);

          g_set_error (error, STORE_ERROR, STORE_ERROR_FOREIGN,
                       "its schema holds a %s '%s' that deja did not make; deja does not open a"
                       " database whose stored SQL it did not write (drop the %s with sqlite3,"
                       " or ingest the archives again)", type, shown, type);
          sqlite3_finalize (stmt);
          return FALSE;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the schema", error);
}

/* Refuses databases deja did not make, that a newer deja made, or whose
 * schema holds SQL deja did not write. */
static gboolean
read_identity (Store *store, int schema, gint64 *version_out, GError **error)
{
  const char *const *sql = identity_sql[schema];
  gint64 app, version, tables;

  if (!_store_query_int (store, sql[ID_APP], &app, NULL, error) ||
      !_store_query_int (store, sql[ID_VERSION], &version, NULL, error) ||
      !_store_query_int (store, sql[ID_TABLES], &tables, NULL, error))
    return FALSE;
  if (version_out)
    *version_out = version;
  if (version < 0 || (app != DEJA_APPLICATION_ID && (tables > 0 || version != 0)))
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_FOREIGN,
                   "not a deja database (made by another program)");
      return FALSE;
    }
  if (version > SCHEMA_VERSION)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_NEWER,
                   "database has schema version %" G_GINT64_FORMAT
                   ", newer than this deja understands (%d); upgrade deja",
                   version, SCHEMA_VERSION);
      return FALSE;
    }
  return check_schema_objects (store, schema, version, error);
}

/* read_identity() in one snapshot of the database.  Another deja creating
 * the same file commits its schema, version and mark at once; reads in
 * transactions of their own could fall either side of that commit and
 * see tables without the mark, or a schema newer than the version read
 * ("not a deja database": 2 in 150 of two ingests started together on a
 * new file).  A savepoint: check_identity() also runs inside migrate()'s
 * transaction. */
static gboolean
check_schema_identity (Store *store, int schema, gint64 *version, GError **error)
{
  gboolean ok;
  int rc = sqlite3_exec (store->db, "SAVEPOINT deja_identity", NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the database", error);
  ok = read_identity (store, schema, version, error);
  sqlite3_exec (store->db, "RELEASE deja_identity", NULL, NULL, NULL);
  return ok;
}

static gboolean
check_identity (Store *store, GError **error)
{
  return check_schema_identity (store, SCHEMA_MAIN, NULL, error);
}

static gboolean
migrate (Store *store, GError **error)
{
  gint64 version;
  gboolean ok = TRUE;

  if (!_store_query_int (store, "PRAGMA user_version", &version, NULL, error))
    return FALSE;
  if (version >= SCHEMA_VERSION)
    return TRUE;
  /* The version again under the write lock: another deja creating the
   * same new database may have made the schema since. */
  if (!exec (store, "BEGIN IMMEDIATE", error))
    return FALSE;
  if (!_store_query_int (store, "PRAGMA user_version", &version, NULL, error) ||
      (version > 0 && !check_identity (store, error)))
    {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      return FALSE;
    }
  if (version >= SCHEMA_VERSION)
    return exec (store, "COMMIT", error);
  /* A new database is made in one go, the migrations' result as the
   * build wrote it (schema/final.c: 40 ms less than replaying them); an
   * older one is migrated from its version */
  if (version == 0)
    ok = exec (store, deja_schema_new, error);
  else
    for (gint64 v = version; ok && v < SCHEMA_VERSION; v++)
      ok = exec (store, deja_schema[v], error);
  if (!ok)
    {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      return FALSE;
    }
  /* A migration that changes what authors are marks them stale
   * (deja_state): the store decides nothing about people, the first
   * command that opens the database has them computed
   * (pipeline/authors.c). */
  {
    g_autofree char *pragmas = g_strdup_printf ("PRAGMA application_id = %d; PRAGMA user_version = %d",
                                                DEJA_APPLICATION_ID, SCHEMA_VERSION);
    if (!exec (store, pragmas, error) || !exec (store, "COMMIT", error))
      {
        sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
        return FALSE;
      }
  }
  return TRUE;
}

/* The index of named parameter :@name in the statement whose indexes
 * @param holds. */
#define P(name) (param[PARAM_##name])

#define STORE_PARAM_NAME(name) [PARAM_##name] = ":" #name,
static const char *const param_names[N_PARAMS] = { STORE_PARAMS (STORE_PARAM_NAME) };
#undef STORE_PARAM_NAME

static gboolean
prepare_one (Store *store, int i, GError **error)
{
  int named = 0;
  int rc = sqlite3_prepare_v3 (store->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &store->stmts[i], NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot prepare statement", error);
  for (int p = 0; p < N_PARAMS; p++)
    named += (store->params[i][p] = sqlite3_bind_parameter_index (store->stmts[i], param_names[p])) > 0;
  /* a statement bound by STORE_PARAMS has every parameter in the list */
  g_warn_if_fail (named == 0 || named == sqlite3_bind_parameter_count (store->stmts[i]) ||
                  i == STMT_INSERT_USENET || i == STMT_INSERT_LINK);
  return TRUE;
}

static gboolean
prepare_all (Store *store, GError **error)
{
  for (int i = 0; i < N_STMTS; i++)
    if (!prepare_one (store, i, error))
      return FALSE;
  return TRUE;
}

/**
 * _store_stmt:
 * @i: one of the STMT_ values
 *
 * Statement @i of @store, prepared now if it was not (a connection from
 * _store_open_second() prepares none when it opens).
 *
 * Returns: (transfer none) (nullable): the statement, or %NULL with
 *   @error set
 */
sqlite3_stmt *
_store_stmt (Store *store, int i, GError **error)
{
  if (store->stmts[i] == NULL && !prepare_one (store, i, error))
    return NULL;
  return store->stmts[i];
}


/* Puts the database in WAL mode (it stays so).  A database deja may only
 * read is read in the mode it is in. */
static gboolean
use_wal (Store *store, GError **error)
{
  g_autofree char *mode = NULL;
  g_autoptr (GError) local = NULL;
  gboolean ok = _store_query_text (store, "PRAGMA journal_mode = WAL", NULL, 0, &mode, &local);

  /* SQLite changes the journal mode without calling the busy handler:
   * another deja creating the same database holds it for a moment. */
  for (gint64 waited = 0; !ok && (sqlite3_errcode (store->db) & 0xff) == SQLITE_BUSY &&
       waited < STORE_BUSY_TIMEOUT_MS; waited += 10)
    {
      g_clear_error (&local);
      g_usleep (10 * 1000);
      ok = _store_query_text (store, "PRAGMA journal_mode = WAL", NULL, 0, &mode, &local);
    }

  if (ok && mode != NULL && g_ascii_strcasecmp (mode, "wal") == 0)
    return TRUE;
  if (sqlite3_db_readonly (store->db, "main") == 1)
    return TRUE;
  if (!ok || mode == NULL)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot switch the database to WAL mode: %s",
                   local ? local->message : "no answer");
      return FALSE;
    }
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
               "cannot switch the database to WAL mode (it stays in '%s' mode)", mode);
  return FALSE;
}

static Store *
store_new (const char *path)
{
  Store *store = g_new0 (Store, 1);

  store->path = g_strdup (path);
  store->claim_fd = -1;
  store->group_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  store->spans_json = g_string_new (NULL);
  store->fts_rows = _store_fts_rows_new (0);
  return store;
}

/* Once, before SQLite starts: without the counts of memory in use that
 * nothing here reads, an allocation takes no global mutex (a tenth of
 * the writer's time went to malloc, free and that mutex); and statement
 * journals in memory (store-subjournal.c). */
static gpointer
configure_sqlite (gpointer unused)
{
  (void) unused;
  sqlite3_config (SQLITE_CONFIG_MEMSTATUS, 0);
  if (g_strcmp0 (g_getenv ("DEJA_SUBJOURNAL_FILE"), "1") != 0 && _store_subjournal_register () != SQLITE_OK)
    g_warning ("statement journals stay in files: SQLite's default VFS could not be wrapped");
  return NULL;
}

static gboolean
open_db (Store *store, const char *filename, int flags, GError **error)
{
  static GOnce once = G_ONCE_INIT;
  int rc;

  g_once (&once, configure_sqlite, NULL);
  rc = sqlite3_open_v2 (filename, &store->db, flags | STORE_OPEN_ONE_THREAD, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot open database", error);
  if (!_store_make_safe (store, error))
    return FALSE;
  sqlite3_busy_timeout (store->db, STORE_BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes (store->db, 1);
  return TRUE;
}

/**
 * store_open:
 * @path: the database file; created with the current schema if missing
 *
 * Opens (or creates) a deja database, upgrading an older schema.  A file
 * that is not a deja database, or a newer one, is refused unmodified.
 *
 * Returns: (transfer full) (nullable): the store, or %NULL with @error set
 */
Store *
store_open (const char *path, GError **error)
{
  return store_open_sized (path, 0, 0, error);
}

/* The page size of a new database for @archive_bytes of archives in
 * @files files (0: not known).  Rows are written in archive order and
 * fill a page but for the last row that does not fit: about half a row
 * (1–1.5 KiB) is left free at the end of every page, whatever its size.
 * 16 KiB pages hold a message row of a few KiB without overflow pages
 * (faster to ingest than 4 KiB) and keep a small archive's database
 * small (every table and index takes a page at least); 64 KiB pages
 * leave a quarter of that free space in a large one, as fast to ingest
 * and to search.  But a file of one message each (a Maildir, a news
 * spool) is stored in a savepoint of its own, which copies each page it
 * changes to its journal first: the realistic corpus as a Maildir took
 * 3.98-4.38 s with 16 KiB pages against 4.27-6.12 s with 64 KiB, its
 * database 0.8 % larger (twisted-python's: 7.29-8.46 s against
 * 7.68-12.40 s, 2 % smaller), searches as fast. */
static const char *
page_size_sql (gint64 archive_bytes, guint files)
{
  gboolean small_files = files > 0 && archive_bytes / files < STORE_SMALL_FILES;

  return archive_bytes >= STORE_LARGE_ARCHIVE && !small_files ? "PRAGMA page_size = 65536"
                                                              : "PRAGMA page_size = 16384";
}

/**
 * store_set_shard:
 * @shard: 1 to STORE_MAX_SHARD
 *
 * Makes this database shard @shard of a set for 'deja merge': the
 * messages stored from now on get ids from @shard × STORE_SHARD_IDS + 1
 * on (or after every id there is, if that is more).  Shards merged in
 * the order of their numbers keep their ids, and so their full-text
 * index is copied, not built again (store-fts-copy.c).
 */
void
store_set_shard (Store *store, guint shard)
{
  g_return_if_fail (shard >= 1 && shard <= STORE_MAX_SHARD);
  store->first_id = (gint64) shard * STORE_SHARD_IDS + 1;
}

/* Records which file @store has open (@first %NULL), or checks that it
 * is the one @first has. */
static gboolean
same_file (Store *store, const Store *first, GError **error)
{
  GStatBuf st;

  if (g_stat (store->path, &st) != 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot open database: %s",
                   g_strerror (errno));
      return FALSE;
    }
  store->dev = st.st_dev;
  store->ino = st.st_ino;
  if (first && (first->dev != store->dev || first->ino != store->ino))
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "cannot open database: another file took its place");
      return FALSE;
    }
  return TRUE;
}

/* Rolls back the transaction a killed writer left in @path's rollback
 * journal (a killed deja merge: store_write_once_begin()), as any SQLite
 * program opening the file for writing would.  It writes back the pages
 * the journal kept, nothing of deja's. */
static gboolean
roll_back_journal (const char *path, GError **error)
{
  g_autoptr (Store) store = store_new (path);

  return open_db (store, path, SQLITE_OPEN_READWRITE, error) &&
         exec (store, "SELECT count(*) FROM sqlite_schema", error);
}

/**
 * _store_has_journal:
 *
 * Whether @path has a rollback journal beside it: a transaction a killed
 * deja merge left (store_write_once_begin()), which only a connection
 * that can write may roll back.
 */
gboolean
_store_has_journal (const char *path)
{
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  GStatBuf st;

  return g_stat (journal, &st) == 0 && st.st_size > 0;
}

/* check_identity() on @store, a read-only connection to @path.  A hot
 * rollback journal beside the file cannot be rolled back on it (SQLite
 * says SQLITE_READONLY_ROLLBACK, and the read fails): that is done first. */
static gboolean
identify_read_only (Store *store, const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (check_identity (store, &local))
    return TRUE;
  if (!_store_has_journal (path))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  close_db (store);
  return roll_back_journal (path, error) &&
         open_db (store, path, SQLITE_OPEN_READONLY, error) && check_identity (store, error);
}

/* Whether another deja has claimed @path for writing
 * (store_claim_writing()).  Readers probe with a shared lock, so that two
 * of them never see each other as a writer. */
gboolean
_store_claimed_by_another (const char *path)
{
  gboolean busy = FALSE;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0)
    return FALSE;
  if (flock (fd, LOCK_SH | LOCK_NB) != 0)
    busy = errno == EWOULDBLOCK;
  close (fd);
  return busy;
}

/* How every writing connection runs. */
static gboolean
set_writing_pragmas (Store *store, GError **error)
{
  /* In WAL mode, NORMAL syncs the log when it is checkpointed (on the
   * checkpointer's thread, seconds after each commit; store-checkpoint.c)
   * rather than in COMMIT on the writer's, which then returns at once
   * (bench/README.md).  A crash or kill loses nothing
   * committed; a power cut in those seconds can undo the last file's
   * commit (the database stays consistent, and that file is not
   * recorded as ingested).  Closing checkpoints and syncs the rest. */
  return exec (store, "PRAGMA synchronous = NORMAL", error) &&
         /* The log is truncated to 64 MiB when it starts afresh. */
         exec (store, "PRAGMA journal_size_limit = 67108864", error) &&
         exec (store, "PRAGMA foreign_keys = ON", error) &&
         exec (store, cache_size_sql (store), error);
}

/**
 * store_open_sized:
 * @archive_bytes: how much archive text is about to be stored, when the
 *   caller knows (0 otherwise): a database created for
 *   STORE_LARGE_ARCHIVE bytes or more gets larger pages
 * @files: in how many files (0: not known); files of less than
 *   STORE_SMALL_FILES on average keep the smaller pages
 *
 * store_open() for a command about to store @archive_bytes.  An existing
 * database keeps its page size.
 */
Store *
store_open_sized (const char *path, gint64 archive_bytes, guint files, GError **error)
{
  g_autoptr (Store) store = store_new (path);
  g_autofree char *uri = NULL;

  /* Identify an existing file on a read-only connection first, so that
   * a database deja refuses is never opened for writing. */
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      if (!open_db (store, path, SQLITE_OPEN_READONLY, error) ||
          !identify_read_only (store, path, error))
        return NULL;
      close_db (store);
    }
  /* A URI, so that the databases it attaches can be too (deja merge
   * attaches its shards read-only). */
  uri = _store_file_uri (path, NULL);
  if (!open_db (store, uri, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, error))
    return NULL;
  /* While a deja ingest or merge is at work on it (store_claim_writing()),
   * the journal mode and the indexes it builds at its end are its own: a
   * merge copies in a rollback journal, and a reader building its
   * indexes between two shards would have the rest copied with every
   * index kept in step. */
  store->other_writer = _store_claimed_by_another (path);
  store->expected_bytes = archive_bytes;
  /* New databases only (before WAL mode is set: a WAL database keeps its
   * page size). */
  if (!exec (store, page_size_sql (archive_bytes, files), error) ||
      (!store->other_writer && !use_wal (store, error)) ||
      !set_writing_pragmas (store, error) ||
      (!store->other_writer && !_store_build_left_indexes (store, error)) || !migrate (store, error) ||
      !_store_register_functions (store, error) || !prepare_all (store, error) ||
      !same_file (store, NULL, error) || !_store_catalog_open (store, FALSE, error))
    return NULL;
  return g_steal_pointer (&store);
}

/**
 * _store_open_second:
 * @first: a database this process opened with store_open_sized() and
 *   still holds
 *
 * Another connection to @first's database, set to write as @first is.
 * What store_open_sized() did once is not done again: the database is
 * not identified, migrated or indexed (it is the same file, checked by
 * its device and inode), and no statement is prepared until
 * _store_stmt() asks for it.  For deja merge, whose per-shard writer
 * would otherwise spend 5 ms a shard on that (64 shards: 0.3 s of 3.3).
 *
 * Returns: (transfer full) (nullable): the store, or %NULL with @error set
 */
Store *
_store_open_second (Store *first, GError **error)
{
  g_autoptr (Store) store = store_new (first->path);
  g_autofree char *uri = _store_file_uri (first->path, NULL);

  if (!open_db (store, uri, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, error) ||
      !same_file (store, first, error) || !set_writing_pragmas (store, error) ||
      (first->write_once && !exec (store, "PRAGMA synchronous = FULL", error)) ||
      !_store_register_functions (store, error))
    return NULL;
  return g_steal_pointer (&store);
}

/**
 * store_write_once_begin:
 * @begun: (out): whether the database is now in a rollback journal
 *
 * Before a long write of new pages (deja merge's copy of its shards).  In
 * WAL mode each page is written twice: to the log, then into the
 * database when the log is checkpointed.  A rollback journal keeps what a
 * transaction overwrites, and a new page overwrites nothing: so new pages
 * are written once (the 1 GiB merge of bench/README.md wrote 3.19 GB in WAL
 * mode, 1.77 GB so).  Each transaction stays atomic and durable
 * (synchronous FULL on this connection and on those of
 * _store_open_second(), while it lasts).  What changes for others is that
 * a program reading the database waits while a transaction commits.
 *
 * The switch needs the database to itself: when another connection has
 * it open, it stays in WAL mode and @begun is FALSE.  A deja killed in
 * between leaves the journal for the next connection to roll back
 * (store_open_sized()), and the next deja puts it back in WAL mode.
 */
gboolean
store_write_once_begin (Store *store, gboolean *begun, GError **error)
{
  g_autofree char *mode = NULL;
  g_autoptr (GError) local = NULL;

  *begun = FALSE;
  if (!_store_query_text (store, "PRAGMA journal_mode = DELETE", NULL, 0, &mode, &local))
    {
      if ((sqlite3_errcode (store->db) & 0xff) == SQLITE_BUSY)
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (mode == NULL || g_ascii_strcasecmp (mode, "delete") != 0)
    return TRUE;
  store->write_once = TRUE;
  *begun = exec (store, "PRAGMA synchronous = FULL", error);
  return *begun;
}

/**
 * store_write_once_end:
 *
 * Puts the database back in WAL mode after store_write_once_begin(), once
 * no other connection of this process is open on it, and before any
 * reads it beside a writer (store_open_reader(): in a rollback journal a
 * reader would hold the writer's commit back).  Does nothing if it was
 * not begun.
 */
gboolean
store_write_once_end (Store *store, GError **error)
{
  if (!store->write_once)
    return TRUE;
  store->write_once = FALSE;
  return use_wal (store, error) && set_writing_pragmas (store, error);
}

/**
 * store_claim_writing:
 *
 * Tells other deja processes that this one is writing the database until
 * it closes it (deja ingest, deja merge), so that those that only read
 * leave to it what it computes at its end (store_writer_at_work()).  The
 * claim is an exclusive flock(2) on the file, a lock SQLite's own (fcntl
 * byte ranges) never meet, which the kernel drops with the process however
 * it ends.  It is advice, not a guard: when another writer holds it (two
 * ingests into one database), or the file system has no flock, this one
 * writes unclaimed, and SQLite's locks keep the writes apart as before.
 */
void
store_claim_writing (Store *store)
{
  int fd;

  if (store->claim_fd >= 0 || (fd = g_open (store->path, O_RDONLY | O_CLOEXEC, 0)) < 0)
    return;
  /* A reader's probe holds the lock for a moment: try again for 0.1 s */
  for (int tries = 0; tries < 100; tries++)
    {
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        {
          store->claim_fd = fd;
          return;
        }
      if (errno != EWOULDBLOCK && errno != EINTR)
        break;
      g_usleep (1000);
    }
  close (fd);
}

/**
 * store_writer_at_work:
 *
 * Whether another deja (deja ingest, deja merge) was writing the database
 * when @store opened it: store_open_sized() looked, and left that
 * writer's end to it (its journal mode, its deferred indexes); a reader
 * leaves it the authors too.
 */
gboolean
store_writer_at_work (Store *store)
{
  return store->other_writer;
}

/* Whether nothing can be created beside @path (a read-only directory or
 * file system), where SQLite cannot make a WAL database's index: such a
 * database is read as immutable (here, and by deja merge for a shard). */
gboolean
_store_cannot_write_beside (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  return g_access (dir, W_OK) != 0;
}

/**
 * _store_file_uri:
 * @query: (nullable): the URI's parameters ("mode=ro"), without '?'
 *
 * @path as an SQLite URI filename, for connections opened with
 * SQLITE_OPEN_URI (and databases they attach).
 */
char *
_store_file_uri (const char *path, const char *query)
{
  g_autofree char *escaped = g_uri_escape_string (path, G_URI_RESERVED_CHARS_ALLOWED_IN_PATH, FALSE);

  return g_strconcat ("file:", escaped, query ? "?" : NULL, query, NULL);
}

/* A read-only database that nothing can change: no WAL index is needed. */
static Store *
open_immutable (const char *path, GError **error)
{
  gint64 version;
  g_autoptr (Store) store = store_new (path);
  g_autofree char *uri = _store_file_uri (path, "immutable=1");

  if (!open_db (store, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, error) ||
      !check_identity (store, error))
    return NULL;
  if (!_store_query_int (store, "PRAGMA user_version", &version, NULL, error))
    return NULL;
  if (version != SCHEMA_VERSION)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "made by an older deja and in a read-only place: open it once where it can be"
                   " written, so that deja upgrades it");
      return NULL;
    }
  if (!exec (store, "PRAGMA cache_size = " G_STRINGIFY (STORE_CACHE_KIB), error) ||
      !_store_register_functions (store, error) || !prepare_all (store, error) ||
      !_store_catalog_open (store, FALSE, error))
    return NULL;
  return g_steal_pointer (&store);
}

/**
 * _store_attached_is_current:
 * @current: (out): whether the database attached as "shard" on @store is
 *   a deja database of this schema with nothing left to build or upgrade
 *
 * What store_open_to_read() would find out of it, read where it is
 * attached: deja merge checks each shard so, without a connection of its
 * own (64 shards: 0.25 s of 3.4 s went to opening them; then 0.07 s to
 * reading each shard's schema once more on a connection of its own).
 * Attaching reads a schema and runs none of it.  %FALSE with @error set
 * for a database deja refuses (another program's, a newer deja's, or
 * one holding SQL deja did not write); @current %FALSE when it must be
 * opened to be upgraded or indexed.
 */
gboolean
_store_attached_is_current (Store *store, gboolean *current, GError **error)
{
  gint64 version = 0, one = 0;
  gboolean left = TRUE;

  *current = FALSE;
  if (!check_schema_identity (store, SCHEMA_SHARD, &version, error))
    return FALSE;
  /* A catalog holds no messages of its own: its shards are what to give */
  if (!_store_query_int (store, "SELECT 1 FROM shard.sqlite_schema WHERE name = 'deja_catalog_shards'",
                         &one, &left, error))
    return FALSE;
  if (left)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "it is a catalog of shards (deja catalog), which holds none of their messages:"
                   " give its shards instead");
      return FALSE;
    }
  left = TRUE;
  if (version != SCHEMA_VERSION)
    return TRUE;
  if (!_store_query_int (store, identity_sql[SCHEMA_SHARD][ID_DEFERRED], &one, &left, error))
    return FALSE;
  *current = !left;
  return TRUE;
}

/* Whether the database attached as "shard" is a deja database of this
 * schema's version (a catalog too: its own tables are a database's),
 * for what a catalog takes of it besides its shards' rows. */
gboolean
_store_attached_is_this_version (Store *store, gboolean *current, GError **error)
{
  gint64 version = 0;

  *current = FALSE;
  if (!check_schema_identity (store, SCHEMA_SHARD, &version, error))
    return FALSE;
  *current = version == SCHEMA_VERSION;
  return TRUE;
}

/**
 * store_open_to_read:
 * @path: an existing database
 *
 * Like store_open(), for commands that only read.  A database in a place
 * where nothing can be written (a corpus shared read-only) is opened
 * immutable: SQLite could not create the index of its write-ahead log
 * beside it.  That is refused when a log was left there by an ingest that
 * did not finish, whose committed pages would be missed.
 *
 * Returns: (transfer full) (nullable): the store, or %NULL with @error set
 */
Store *
store_open_to_read (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  Store *store = store_open (path, &local);

  if (store != NULL)
    return store;
  if (!_store_cannot_write_beside (path) || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (_store_left_a_log (path, error))
    return NULL;
  return open_immutable (path, error);
}

/**
 * _store_left_a_log:
 * @path: a database in a read-only place
 *
 * Whether a writer that did not finish left a write-ahead log or a
 * rollback journal beside @path, which a connection that opens it
 * immutable would not read (committed pages in the log, a transaction to
 * undo in the journal).
 *
 * Returns: %TRUE with @error set saying which and what to do
 */
gboolean
_store_left_a_log (const char *path, GError **error)
{
  g_autofree char *log = g_strconcat (path, "-wal", NULL);
  GStatBuf st;

  if (g_stat (log, &st) == 0 && st.st_size > 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "its write-ahead log '%s' may hold changes, which cannot be applied in a"
                   " read-only place (open the database once where it can be written)", log);
      return TRUE;
    }
  if (_store_has_journal (path))
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "its rollback journal '%s-journal' may hold a transaction to undo, which cannot be"
                   " undone in a read-only place (open the database once where it can be"
                   " written)", path);
      return TRUE;
    }
  return FALSE;
}

/**
 * store_open_reader:
 *
 * A read-only connection to a database of the current schema that
 * another connection of this process is writing: nothing is migrated,
 * built or checkpointed, and it sees what was committed when each of its
 * reads began.  For reading beside the writer (threads.c).
 *
 * Returns: (transfer full) (nullable): the store, or %NULL with @error set
 */
Store *
store_open_reader (const char *path, GError **error)
{
  g_autoptr (Store) store = store_new (path);
  gint64 version = 0;

  if (!open_db (store, path, SQLITE_OPEN_READONLY, error) || !check_identity (store, error) ||
      !_store_query_int (store, "PRAGMA user_version", &version, NULL, error) ||
      !_store_register_functions (store, error))
    return NULL;
  if (version != SCHEMA_VERSION)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "database has schema version %" G_GINT64_FORMAT ", not %d", version,
                   SCHEMA_VERSION);
      return NULL;
    }
  if (!_store_catalog_open (store, TRUE, error))
    return NULL;
  return g_steal_pointer (&store);
}

/**
 * store_data_version:
 *
 * PRAGMA data_version: it changes when another connection commits.
 */
gboolean
store_data_version (Store *store, gint64 *version, GError **error)
{
  return _store_query_int (store, "PRAGMA data_version", version, NULL, error);
}

void
store_close (Store *store)
{
  if (store == NULL)
    return;
  if (store->uncommitted_files > 0 && store->db)
    {
      g_autoptr (GError) error = NULL;

      if (!store_commit (store, &error))
        g_warning ("%s", error->message);
    }
  _store_fts_side_free (store->fts_side, store);
  g_clear_pointer (&store->fts_side_rows, g_array_unref);
  /* The checkpointer's connection goes first, so that the writer's is the
   * last: closing it checkpoints the rest of the log and deletes it. */
  _store_checkpointer_free (store->checkpointer);
  for (int i = 0; i < N_STMTS; i++)
    sqlite3_finalize (store->stmts[i]);
  if (store->db)
    close_db (store);
  if (store->claim_fd >= 0)
    close (store->claim_fd);   /* and with it the claim */
  g_hash_table_unref (store->group_ids);
  g_clear_pointer (&store->senders, g_hash_table_unref);
  _store_forget_shard_values (store);
  _store_forget_authors (store);
  if (store->previous)
    g_array_unref (store->previous);
  g_string_free (store->spans_json, TRUE);
  g_array_unref (store->fts_rows);
  g_free (store->path);
  g_free (store);
}

/**
 * store_file_sha256:
 * @path: an absolute path
 * @sha256: (out) (transfer full) (nullable): the content hash recorded
 *   for @path, or %NULL when it was never ingested
 *
 * Returns: %FALSE with @error when the database cannot be read
 */
gboolean
store_file_sha256 (Store *store, const char *path, char **sha256, GError **error)
{
  return _store_query_text (store, "SELECT sha256 FROM files WHERE path = ?1", path, 0, sha256, error);
}

/* Appending: the old last message of the current file now ends further
 * on (the blank line before the message appended after it). */
gboolean
store_set_message_length (Store *store, gint64 offset, gint64 length, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (store->file_id > 0, FALSE);
  if ((rc = sqlite3_prepare_v2 (store->db, "UPDATE messages SET byte_length = ?3"
                                " WHERE file_id = ?1 AND byte_offset = ?2", -1, &stmt, NULL)) == SQLITE_OK)
    {
      sqlite3_bind_int64 (stmt, 1, store->file_id);
      sqlite3_bind_int64 (stmt, 2, offset);
      sqlite3_bind_int64 (stmt, 3, length);
      rc = sqlite3_step (stmt);
      sqlite3_finalize (stmt);
    }
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record the message's length", error);
}

/**
 * store_file_record:
 * @found: (out): whether @path was ingested
 *
 * What the database recorded of @path (its content's hash and size, its
 * messages and lines): an ingest compares it with the file now.
 */
gboolean
store_file_record (Store *store, const char *path, StoreFileRecord *record, gboolean *found,
                   GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  memset (record, 0, sizeof *record);
  record->last_offset = -1;
  *found = FALSE;
  if ((rc = _store_cached (store,
                                "SELECT f.sha256, f.size, f.messages, f.lines, m.byte_offset, m.line_no"
                                " FROM files f LEFT JOIN messages m ON m.id ="
                                "  (SELECT id FROM messages WHERE file_id = f.id"
                                "   ORDER BY byte_offset DESC LIMIT 1)"
                                " WHERE f.path = ?1",
                                &stmt)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read database", error);
  sqlite3_bind_text (stmt, 1, path, -1, SQLITE_STATIC);
  if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      *found = TRUE;
      record->sha256 = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
      record->size = sqlite3_column_int64 (stmt, 1);
      record->messages = sqlite3_column_int64 (stmt, 2);
      record->lines = sqlite3_column_int64 (stmt, 3);
      if (sqlite3_column_type (stmt, 4) != SQLITE_NULL)
        {
          record->last_offset = sqlite3_column_int64 (stmt, 4);
          record->last_line_no = sqlite3_column_int64 (stmt, 5);
        }
    }
  _store_release (store, stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read database", error);
}

void
store_file_record_clear (StoreFileRecord *record)
{
  g_clear_pointer (&record->sha256, g_free);
}

/**
 * store_path_with_sha256:
 * @path: (out) (transfer full) (nullable): the path of an ingested file
 *   with this content (outside the current transaction's file), or %NULL
 *
 * Returns: %FALSE with @error when the database cannot be read
 */
gboolean
store_path_with_sha256 (Store *store, const char *sha256, char **path, GError **error)
{
  return _store_query_text (store, "SELECT path FROM files WHERE sha256 = ?1 AND id != ?2",
                            sha256, store->file_id, path, error);
}

/* @text of @len bytes (0: measured), or NULL. */
static void
bind_text_len (sqlite3_stmt *stmt, int i, const char *text, gsize len)
{
  if (text)
    sqlite3_bind_text (stmt, i, text, len ? (int) MIN (len, (gsize) G_MAXINT) : -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, i);
}

/**
 * store_last_language:
 * @lang: (out) (transfer full) (nullable): the language of the last
 *   message stored, or %NULL (none, or not analysed)
 */
gboolean
store_last_language (Store *store, char **lang, GError **error)
{
  return _store_query_text (store, "SELECT lang FROM messages ORDER BY id DESC LIMIT 1", NULL, 0, lang,
                            error);
}

void
_store_bind_text_or_null (sqlite3_stmt *stmt, int i, const char *text)
{
  bind_text_len (stmt, i, text, 0);
}

/* Runs a bound statement to completion and resets it. */
static int
step_reset (sqlite3_stmt *stmt)
{
  int rc = sqlite3_step (stmt);

  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
  return rc;
}

static int
on_commit (void *data, sqlite3 *db, const char *name, int frames)
{
  Store *store = data;

  (void) db;
  (void) name;
  store->wal_frames = frames;
  _store_checkpointer_kick (store->checkpointer);
  return SQLITE_OK;
}

/* From the first file on, commits are checkpointed by the checkpointer
 * (instead of by SQLite inside COMMIT); a long log is first emptied. */
static void
start_checkpointer (Store *store)
{
  if (store->checkpointer == NULL)
    {
      store->checkpointer = _store_checkpointer_new (store->path);
      if (store->checkpointer != NULL)
        sqlite3_wal_hook (store->db, on_commit, store);
    }
  else if (store->wal_frames > WAL_RESTART_FRAMES)
    {
      g_debug ("waiting for the checkpoint: %d pages in the write-ahead log", store->wal_frames);
      _store_checkpointer_wait (store->checkpointer);
    }
}

/* The rows of the file's earlier content, in archive order (24 bytes a
 * message, for this one file). */
static gboolean
load_previous (Store *store, const char *path, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if (store->previous == NULL)
    store->previous = g_array_new (FALSE, FALSE, sizeof (StorePrevious));
  g_array_set_size (store->previous, 0);
  store->previous_pos = 0;
  rc = _store_cached (store,
                      "SELECT m.byte_offset, m.content_hash, m.id FROM messages m"
                      " JOIN files f ON f.id = m.file_id WHERE f.path = ?1 ORDER BY m.id", &stmt);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the file's rows", error);
  sqlite3_bind_text (stmt, 1, path, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StorePrevious row = { sqlite3_column_int64 (stmt, 0), (guint64) sqlite3_column_int64 (stmt, 1),
                            sqlite3_column_int64 (stmt, 2) };
      g_array_append_val (store->previous, row);
    }
  _store_release (store, stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read the file's rows", error);
  return TRUE;
}

/* Full-text rows of the files after the first of a transaction wait
 * here and are indexed outside any savepoint: FTS5 writes what it holds
 * to the database at every SAVEPOINT and RELEASE, so that each pipermail
 * month made a segment of its own and the segments were merged again and
 * again, a quarter of the writer's time on twisted-python.  They are indexed before a savepoint is opened once
 * FTS_WAITING_BYTES of text wait (FTS5 itself writes a segment per
 * `hashsize` it holds, 4 MiB: schema 13), before a file is replaced (its
 * old rows leave the index) and before the commit; a file whose own rows
 * reach FTS_WAITING_BYTES indexes them as they come (add_fts()). */
#define FTS_WAITING_BYTES (4 * 1024 * 1024)

static void
fts_forget (Store *store, guint from)
{
  for (guint i = from; i < store->fts_rows->len; i++)
    store->fts_bytes -= g_array_index (store->fts_rows, StoreFtsRow, i).bytes;
  if (from < store->fts_rows->len)
    g_array_set_size (store->fts_rows, from);
}

/* Whether the rows go to the index made beside the writer (store-fts-side.c) */
static gboolean
fts_beside (Store *store)
{
  return _store_fts_side_open (store->fts_side);
}

/* Rows for the side go in batches of this many (a wake-up of its thread each) */
#define FTS_SIDE_BATCH 256

/* Hands the rows batched for the side over, in the order of the writer's
 * statements: before each statement the side mirrors. */
static void
fts_side_push (Store *store)
{
  if (store->fts_side_rows == NULL || store->fts_side_rows->len == 0)
    return;
  _store_fts_side_rows (store->fts_side, g_steal_pointer (&store->fts_side_rows), FALSE);
}

/* @statement, which the writer ran, run by the side in turn. */
static void
fts_side_follow (Store *store, StoreFtsSideStatement statement)
{
  if (!fts_beside (store))
    return;
  if (statement >= STORE_FTS_SIDE_ROLLBACK_TO)
    g_clear_pointer (&store->fts_side_rows, g_array_unref);   /* the rolled-back file's */
  else
    fts_side_push (store);
  _store_fts_side_follow (store->fts_side, statement);
}

/* A full-text row that owns a copy of its text (@own_text_len 0: up to
 * its NUL). */
static StoreFtsRow
fts_row_copy (gint64 id, const char *subject, const char *own_text, gsize own_text_len)
{
  StoreFtsRow row = { id, g_strdup (subject), NULL, 0, 0 };

  if (own_text != NULL)
    {
      row.own_text_len = own_text_len ? own_text_len : strlen (own_text);
      row.own_text = g_memdup2 (own_text, row.own_text_len + 1);
    }
  row.bytes = (row.subject ? strlen (row.subject) : 0) + row.own_text_len;
  return row;
}

/* A row for the side, handed over with the next batch. */
static void
fts_side_add (Store *store, gint64 id, const char *subject, const char *own_text, gsize own_text_len)
{
  StoreFtsRow row = fts_row_copy (id, subject, own_text, own_text_len);

  if (store->fts_side_rows == NULL)
    store->fts_side_rows = _store_fts_rows_new (FTS_SIDE_BATCH);
  g_array_append_val (store->fts_side_rows, row);
  if (store->fts_side_rows->len >= FTS_SIDE_BATCH)
    fts_side_push (store);
}

static gboolean
fts_insert (Store *store, gint64 id, const char *subject, const char *own_text, gsize own_text_len,
            GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_FTS_INSERT];
  int rc;

  gint64 started = profile_start ();

  if (fts_beside (store))
    {
      fts_side_add (store, id, subject, own_text, own_text_len);
      profile_stop (PROFILE_FTS, started);
      return TRUE;
    }
  /* FTS5 on this connection would not see what was copied (store-fts-side.c) */
  g_return_val_if_fail (!store->fts_copied, FALSE);
  store->fts_used = TRUE;

  sqlite3_bind_int64 (stmt, 1, id);
  _store_bind_text_or_null (stmt, 2, subject);
  bind_text_len (stmt, 3, own_text, own_text_len);
  rc = step_reset (stmt);
  profile_stop (PROFILE_FTS, started);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot index message", error);
  return TRUE;
}

/* Indexes the rows that wait from the @from'th on.  A failure leaves the
 * transaction to be rolled back. */
static gboolean
fts_flush_from (Store *store, guint from, GError **error)
{
  gboolean ok = TRUE;

  if (fts_beside (store))
    {
      GArray *rows = _store_fts_rows_new (store->fts_rows->len - MIN (from, store->fts_rows->len));

      fts_side_push (store);
      for (guint i = from; i < store->fts_rows->len; i++)
        {
          StoreFtsRow *row = &g_array_index (store->fts_rows, StoreFtsRow, i);

          g_array_append_val (rows, *row);
          row->subject = row->own_text = NULL;   /* the side's now */
        }
      if (rows->len > 0)
        _store_fts_side_rows (store->fts_side, rows, FALSE);
      else
        g_array_unref (rows);
      fts_forget (store, from);
      return TRUE;
    }
  for (guint i = from; ok && i < store->fts_rows->len; i++)
    {
      const StoreFtsRow *row = &g_array_index (store->fts_rows, StoreFtsRow, i);

      ok = fts_insert (store, row->id, row->subject, row->own_text, row->own_text_len, error);
    }
  fts_forget (store, from);
  return ok;
}

/* Indexes every row that waits (outside any savepoint). */
static gboolean
fts_flush (Store *store, GError **error)
{
  return fts_flush_from (store, 0, error);
}

/* Foreign keys of an ingest's files.  Each row of a file refers to
 * rows stored before it in the same transaction (its message, its file,
 * its newsgroup, its author), and SQLite looked each of those up again
 * for every row inserted: 0.10 s of the 0.38 s the realistic corpus's
 * messages rows took, 0.07 of its other rows' 0.22 s (twisted-python's
 * 165,100 references, 0.15 of 0.71 s).  A file at a path stored before
 * deletes its old rows, and only SQLite's cascades take what hangs off
 * them: so a transaction of files at new paths runs without SQLite's
 * checks, as deja merge copies a group that replaces no file
 * (store-merge.c), and a file that deletes rows is checked, the files
 * finished before it committed first (SQLite changes the setting only
 * outside a transaction); the store's later transactions are checked
 * too.  Outside the files' transactions (threads, authors) keys are
 * always checked.  tests/test-store.c reads PRAGMA foreign_key_check
 * after both kinds of files. */
void
_store_keys_checked_again (Store *store)
{
  if (store->keys_unchecked && sqlite3_get_autocommit (store->db) &&
      sqlite3_exec (store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) == SQLITE_OK)
    store->keys_unchecked = FALSE;
}

/* Before BEGIN of a transaction that deletes no row (an ingest's files
 * at new paths, a merge's group that replaces no file): unchecked until
 * _store_keys_checked_again().  (A failure leaves them checked: slower,
 * still right.) */
void
_store_keys_unchecked_from_here (Store *store)
{
  if (!store->keys_always_checked && !store->keys_unchecked && sqlite3_get_autocommit (store->db) &&
      sqlite3_exec (store->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) == SQLITE_OK)
    store->keys_unchecked = TRUE;
}

/* Rolls back the whole transaction: what was cached of it goes too. */
static void
drop_transaction (Store *store)
{
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  _store_keys_checked_again (store);
  g_clear_pointer (&store->fts_side_rows, g_array_unref);
  _store_fts_side_end (store->fts_side, store);
  store->uncommitted = 0;
  store->uncommitted_files = 0;
  fts_forget (store, 0);
  g_hash_table_remove_all (store->group_ids);
  _store_forget_authors (store);
}

/* How many segments the side may leave unmerged in the batch it begins
 * (_store_fts_side_unmerged()) */
static gboolean
fts_side_unmerged (Store *store, GError **error, guint *unmerged)
{
  guint segments = 0;

  if (!_store_fts_segments (store, &segments, error))
    return FALSE;
  *unmerged = _store_fts_side_unmerged (segments, store->expected_bytes, store->begun_bytes,
                                       store->first_id > STORE_SHARD_IDS);
  return TRUE;
}

/* BEGIN, with a new batch of the index made beside the writer when the
 * ingest asked for one (store_index_beside()). */
static gboolean
begin_transaction (Store *store, GError **error)
{
  g_autoptr (GError) side_error = NULL;
  gboolean fits = TRUE;
  guint unmerged = 0;

  /* Only where the copy will take the side's segments */
  if (store->fts_beside && !store->fts_copied && !_store_fts_side_fits (store, &fits, error))
    return FALSE;
  if (!fits)
    {
      g_debug ("the full-text index is made by the writer: messages_fts is not declared as deja declares it");
      store->fts_beside = FALSE;
    }
  if (store->fts_beside && !store->fts_used)
    {
      if (store->fts_side == NULL)
        {
          guint lanes;

          store->fts_side = _store_fts_side_new (store->fts_lanes);
          lanes = _store_fts_side_lanes (store->fts_side);
          profile_beside_threads (lanes);
          if (lanes > 0)
            g_debug ("the full-text index made beside the writer, on %u thread%s of its own", lanes,
                     lanes == 1 ? "" : "s");
        }
      if (store->fts_side == NULL)
        store->fts_beside = FALSE;   /* its thread could not start */
      else if (!fts_side_unmerged (store, &side_error, &unmerged) ||
               !_store_fts_side_begin (store->fts_side, store, unmerged, &side_error))
        {
          /* Once a batch was copied, this connection cannot index itself */
          if (store->fts_copied)
            {
              g_propagate_error (error, g_steal_pointer (&side_error));
              return FALSE;
            }
          g_debug ("the full-text index is made by the writer: %s", side_error->message);
          store->fts_beside = FALSE;
        }
    }
  if (exec (store, "BEGIN IMMEDIATE", error))
    return TRUE;
  _store_fts_side_end (store->fts_side, store);
  return FALSE;
}

/* The rows that @sql selects (id, subject, own_text; ?1 bound to @text,
 * or to @id when @text is NULL) leave the index beside the writer with
 * the values they were indexed with, and their sizes leave
 * messages_fts_docsize here (the side has none of them).  Returns
 * SQLITE_DONE, or SQLite's failure. */
static int
fts_side_delete (Store *store, const char *sql, const char *text, gint64 id)
{
  g_autoptr (GArray) rows = _store_fts_rows_new (0);
  sqlite3_stmt *stmt, *size;
  int rc;

  fts_side_push (store);
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return rc;
  if (text)
    sqlite3_bind_text (stmt, 1, text, -1, SQLITE_STATIC);
  else
    sqlite3_bind_int64 (stmt, 1, id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreFtsRow row = { sqlite3_column_int64 (stmt, 0), g_strdup ((const char *) sqlite3_column_text (stmt, 1)),
                          NULL, 0, 0 };

      if (sqlite3_column_type (stmt, 2) != SQLITE_NULL)
        {
          row.own_text_len = (gsize) sqlite3_column_bytes (stmt, 2);
          row.own_text = g_memdup2 (sqlite3_column_text (stmt, 2), row.own_text_len + 1);
        }
      g_array_append_val (rows, row);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE || rows->len == 0)
    return rc;
  /* The tables of a virtual table take writes from its module only, in
   * SQLite's defensive mode (store-safe.c): off for this statement. */
  sqlite3_db_config (store->db, SQLITE_DBCONFIG_DEFENSIVE, 0, NULL);
  rc = sqlite3_prepare_v2 (store->db, "DELETE FROM main.messages_fts_docsize WHERE id = ?1", -1, &size, NULL);
  for (guint i = 0; rc == SQLITE_OK && i < rows->len; i++)
    {
      sqlite3_bind_int64 (size, 1, g_array_index (rows, StoreFtsRow, i).id);
      rc = _store_done (sqlite3_step (size));
      sqlite3_reset (size);
    }
  if (size)
    sqlite3_finalize (size);
  if (sqlite3_db_config (store->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK && rc == SQLITE_OK)
    rc = SQLITE_ERROR;
  if (rc != SQLITE_OK)
    return rc;
  _store_fts_side_rows (store->fts_side, g_steal_pointer (&rows), TRUE);
  return SQLITE_DONE;
}

/* Whether @path has rows in the database (or in this transaction). */
static gboolean
path_known (Store *store, const char *path)
{
  g_autofree char *sha = NULL;

  return !_store_query_text (store, "SELECT sha256 FROM files WHERE path = ?1", path, 0, &sha, NULL)
         || sha != NULL;
}

/* Undoes the file under way, back to its savepoint: the files finished
 * before it in the same transaction stay.  When SQLite has rolled back
 * the whole transaction itself (a full disk, an I/O error), those are
 * gone too: store_commit() says so. */
static void
rollback_file (Store *store)
{
  if (sqlite3_get_autocommit (store->db))
    store->lost_files += store->uncommitted_files;
  else if (store->uncommitted_files == 0)   /* the first file: no savepoint of its own */
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  else
    {
      sqlite3_exec (store->db, "ROLLBACK TO deja_file; RELEASE deja_file", NULL, NULL, NULL);
      fts_side_follow (store, STORE_FTS_SIDE_ROLLBACK_TO);
    }
  if (sqlite3_get_autocommit (store->db))
    {
      _store_keys_checked_again (store);
      g_clear_pointer (&store->fts_side_rows, g_array_unref);
      _store_fts_side_end (store->fts_side, store);
      store->uncommitted = 0;
      store->uncommitted_files = 0;
      fts_forget (store, 0);
    }
  else
    fts_forget (store, store->fts_mark);
}

/**
 * store_begin_file:
 *
 * Opens the file's transaction: an earlier version of the same path is
 * deleted with all its rows (the new content replaces it), and a files
 * row is created for what follows.
 */
/* The file grew at its end: its rows stay (and keep their ids, their FTS
 * entries, their log); the new messages are added after them. */
static gboolean
begin_append (Store *store, const StoreFileMeta *meta, gboolean *replaced, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_clear_pointer (&store->previous, g_array_unref);   /* no id to take over */
  if (replaced != NULL)
    *replaced = FALSE;
  rc = sqlite3_prepare_v2 (store->db,
                           "UPDATE files SET size = ?2, stored_size = ?3, mtime = ?4, ingested_at ="
                           " strftime('%Y-%m-%dT%H:%M:%S', 'now'), deja_version = ?5 WHERE path = ?1"
                           " RETURNING id", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, meta->path, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt, 2, meta->size);
      sqlite3_bind_int64 (stmt, 3, meta->stored_size);
      sqlite3_bind_int64 (stmt, 4, meta->mtime);
      sqlite3_bind_text (stmt, 5, PACKAGE_VERSION, -1, SQLITE_STATIC);
      if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        store->file_id = sqlite3_column_int64 (stmt, 0);
      sqlite3_finalize (stmt);
    }
  if (store->file_id > 0)
    {
      g_debug ("'%s': transaction begun, appending to its rows", meta->path);
      return TRUE;
    }
  _store_fail (store, rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_NOTFOUND : rc, "cannot record file", error);
  rollback_file (store);
  return FALSE;
}

/* The rows of @path's earlier content: out of the full-text index (with
 * the values they were indexed with), then deleted with everything that
 * hangs off them.  *@replaced: whether there were any. */
static gboolean
delete_path (Store *store, const char *path, gboolean *replaced, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (fts_beside (store))
    rc = fts_side_delete (store, "SELECT m.id, m.subject, m.own_text FROM messages m"
                          " JOIN files f ON f.id = m.file_id WHERE f.path = ?1", path, 0);
  else
    {
      g_return_val_if_fail (!store->fts_copied, FALSE);
      store->fts_used = TRUE;
      sqlite3_bind_text (store->stmts[STMT_FTS_DELETE_FILE], 1, path, -1, SQLITE_STATIC);
      rc = step_reset (store->stmts[STMT_FTS_DELETE_FILE]);
    }
  if (rc == SQLITE_DONE)
    rc = sqlite3_prepare_v2 (store->db, "DELETE FROM files WHERE path = ?1", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, path, -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt);
      sqlite3_finalize (stmt);
    }
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record file", error);
  if (replaced != NULL)
    *replaced = sqlite3_changes (store->db) > 0;   /* the path's old rows are gone */
  g_debug ("'%s': the rows of its earlier content deleted", path);
  return TRUE;
}

static gboolean begin_file (Store *store, const StoreFileMeta *meta, gboolean *replaced, GError **error);

gboolean
store_begin_file (Store *store, const StoreFileMeta *meta, gboolean *replaced, GError **error)
{
  gint64 started = profile_start ();
  gboolean ok = begin_file (store, meta, replaced, error);

  profile_stop (PROFILE_FILES, started);
  return ok;
}

/* Whether SQLite checks the foreign keys of @meta's rows (see
 * _store_keys_checked_again()): a file that may delete rows (@deletes: at a
 * path stored before, or appended to) is the first to, after a commit of
 * the files before it where they were not; the others are not checked,
 * until the first that is. */
static gboolean
keys_for_file (Store *store, const StoreFileMeta *meta, gboolean deletes, GError **error)
{
  if (!deletes)
    {
      if (sqlite3_get_autocommit (store->db))
        _store_keys_unchecked_from_here (store);
      return TRUE;
    }
  if (!store->keys_always_checked)
    g_debug ("'%s' may delete rows: foreign keys checked from here on", meta->path);
  store->keys_always_checked = TRUE;
  if (store->keys_unchecked && !sqlite3_get_autocommit (store->db) && !store_commit (store, error))
    return FALSE;
  _store_keys_checked_again (store);
  /* (never deleted unchecked, whatever failed) */
  if (store->keys_unchecked)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot check foreign keys", error);
  return TRUE;
}

static gboolean
begin_file (Store *store, const StoreFileMeta *meta, gboolean *replaced, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *known = NULL;   /* @meta's path, when it has rows here */
  int rc;

  g_return_val_if_fail (store->file_id == 0, FALSE);
  start_checkpointer (store);
  /* Appending keeps every row: none to take an id over from (reading
   * them all read the whole table through its overflow pages, most of
   * what an append cost).  A path never ingested has none either, and
   * nothing to take out of the index or delete: a Maildir or a news
   * spool is a new path for each message. */
  if ((!meta->append && !_store_query_text (store, "SELECT path FROM files WHERE path = ?1", meta->path,
                                            0, &known, error)) ||
      !keys_for_file (store, meta, meta->append || known != NULL, error))
    return FALSE;
  if (sqlite3_get_autocommit (store->db) && !begin_transaction (store, error))
    {
      _store_keys_checked_again (store);
      return FALSE;
    }
  store->savepoint = store->uncommitted_files > 0;
  if (store->savepoint && store->fts_rows->len > 0 &&
      (store->fts_bytes >= FTS_WAITING_BYTES || path_known (store, meta->path)) &&
      !fts_flush (store, error))
    {
      /* the files finished in this transaction cannot be indexed: they
       * are lost (store_commit() says so) */
      store->lost_files += store->uncommitted_files;
      drop_transaction (store);
      return FALSE;
    }
  store->fts_mark = store->fts_rows->len;
  store->fts_mark_bytes = store->fts_bytes;
  store->fts_direct = FALSE;
  if (store->savepoint && (rc = exec_kept (store, "SAVEPOINT deja_file")) != SQLITE_OK)
    {
      _store_fail (store, rc, "database error", error);
      rollback_file (store);
      return FALSE;
    }
  if (store->savepoint)
    fts_side_follow (store, STORE_FTS_SIDE_SAVEPOINT);
  store->file_bytes = meta->size;
  store->begun_bytes += meta->size;
  /* Ids are kept where the content is (an unchanged start, an archive
   * that grew at its end), and new rows come after every id there was. */
  g_clear_pointer (&store->previous, g_array_unref);
  if ((known && !load_previous (store, meta->path, error)) ||
      !_store_query_int (store, "SELECT coalesce(max(id), 0) + 1 FROM messages", &store->next_id,
                         NULL, error))
    {
      rollback_file (store);
      return FALSE;
    }
  store->next_id = MAX (store->next_id, store->first_id);
  if (meta->append)
    return begin_append (store, meta, replaced, error);
  if (replaced != NULL)
    *replaced = FALSE;
  if (known && !delete_path (store, meta->path, replaced, error))
    {
      rollback_file (store);
      return FALSE;
    }
  rc = _store_cached (store,
                      "INSERT INTO files (id, path, size, stored_size, mtime, sha256, compression,"
                      " messages, lines, ingested_at, deja_version)"
                      " VALUES (CASE WHEN ?7 > 0 THEN max(?7, (SELECT coalesce(max(id), 0) + 1 FROM files)) END,"
                      " ?1, ?2, ?3, ?4, '', ?5, 0, 0, strftime('%Y-%m-%dT%H:%M:%S', 'now'), ?6)", &stmt);
  if (rc != SQLITE_OK)
    goto fail;
  sqlite3_bind_text (stmt, 1, meta->path, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, meta->size);
  sqlite3_bind_int64 (stmt, 3, meta->stored_size);
  sqlite3_bind_int64 (stmt, 4, meta->mtime);
  sqlite3_bind_text (stmt, 5, meta->compression, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 6, PACKAGE_VERSION, -1, SQLITE_STATIC);
  /* A shard's files are numbered as its messages are: a merge keeps
   * their ids (store-merge.c) */
  sqlite3_bind_int64 (stmt, 7, store->first_id);
  rc = sqlite3_step (stmt);
  _store_release (store, stmt);
  if (rc != SQLITE_DONE)
    goto fail;
  store->file_id = sqlite3_last_insert_rowid (store->db);
  return TRUE;

fail:
  _store_fail (store, rc, "cannot record file", error);
  rollback_file (store);
  return FALSE;
}

static gint64
group_id (Store *store, const char *name, GError **error)
{
  gpointer id;
  sqlite3_stmt *ins = store->stmts[STMT_INSERT_GROUP], *sel = store->stmts[STMT_SELECT_GROUP];
  gint64 value = -1;
  int rc;

  if (g_hash_table_lookup_extended (store->group_ids, name, NULL, &id))
    return GPOINTER_TO_SIZE (id);
  sqlite3_bind_text (ins, 1, name, -1, SQLITE_STATIC);
  if ((rc = step_reset (ins)) != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record newsgroup", error), -1;
  sqlite3_bind_text (sel, 1, name, -1, SQLITE_STATIC);
  rc = sqlite3_step (sel);
  if (rc == SQLITE_ROW)
    value = sqlite3_column_int64 (sel, 0);
  sqlite3_reset (sel);
  sqlite3_clear_bindings (sel);
  if (value < 0)
    {
      /* the row just inserted (or there before) must be found */
      _store_fail (store, rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_INTERNAL : rc,
                   "cannot find newsgroup", error);
      return -1;
    }
  g_hash_table_insert (store->group_ids, g_strdup (name), GSIZE_TO_POINTER (value));
  return value;
}

static gboolean
add_refs (Store *store, gint64 id, StoreRefKind kind, const char *const *ids, guint n,
          GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_REF];

  for (guint i = 0; i < n; i++)
    {
      int rc;

      sqlite3_bind_int64 (stmt, 1, id);
      sqlite3_bind_int (stmt, 2, kind);
      sqlite3_bind_int (stmt, 3, (int) i);
      sqlite3_bind_text (stmt, 4, ids[i], -1, SQLITE_STATIC);
      if ((rc = step_reset (stmt)) != SQLITE_DONE)
        return _store_fail (store, rc, "cannot record reference", error);
    }
  return TRUE;
}

static gboolean
add_groups (Store *store, gint64 id, const char *const *groups, guint n, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_MESSAGE_GROUP];

  for (guint i = 0; i < n; i++)
    {
      gint64 gid = group_id (store, groups[i], error);
      int rc;

      if (gid < 0)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, id);
      sqlite3_bind_int64 (stmt, 2, gid);
      if ((rc = step_reset (stmt)) != SQLITE_DONE)
        return _store_fail (store, rc, "cannot record newsgroup", error);
    }
  return TRUE;
}

static gboolean
add_usenet (Store *store, gint64 id, const StoreUsenet *u, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_USENET];
  int rc;

  if (!u->path && !u->control && !u->cancels && !u->supersedes && !u->approved && !u->followup_to)
    return TRUE;
  sqlite3_bind_int64 (stmt, sqlite3_bind_parameter_index (stmt, ":id"), id);
  _store_bind_named (stmt, ":path", u->path);
  _store_bind_named (stmt, ":control", u->control);
  _store_bind_named (stmt, ":cancels", u->cancels);
  _store_bind_named (stmt, ":supersedes", u->supersedes);
  _store_bind_named (stmt, ":approved", u->approved);
  _store_bind_named (stmt, ":followup_to", u->followup_to);
  if ((rc = step_reset (stmt)) != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record Usenet headers", error);
  return TRUE;
}

static gboolean
add_links (Store *store, gint64 id, const StoreLink *links, guint n, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_LINK];

  for (guint i = 0; i < n; i++)
    {
      int rc;

      sqlite3_bind_int64 (stmt, sqlite3_bind_parameter_index (stmt, ":id"), id);
      sqlite3_bind_int64 (stmt, sqlite3_bind_parameter_index (stmt, ":position"), i);
      _store_bind_named (stmt, ":url", links[i].url);
      _store_bind_named (stmt, ":normalized", links[i].normalized);
      _store_bind_named (stmt, ":host", links[i].host);
      _store_bind_named (stmt, ":domain", links[i].domain);
      _store_bind_named (stmt, ":wayback", links[i].wayback);
      if ((rc = step_reset (stmt)) != SQLITE_DONE)
        return _store_fail (store, rc, "cannot record a link", error);
    }
  return TRUE;
}

/* A file with a savepoint has its full-text rows indexed after it
 * (fts_flush()); the first of a transaction, as they come.  So does a
 * file with a savepoint once its own rows hold FTS_WAITING_BYTES of text:
 * memory stays bounded whatever its size, and a file that large is worth
 * a segment of its own anyway. */
static gboolean
add_fts (Store *store, const StoreMessage *m, GError **error)
{
  StoreFtsRow row;

  if (!store->savepoint || store->fts_direct)
    return fts_insert (store, m->id, m->subject, m->own_text, m->own_text_len, error);
  row = fts_row_copy (m->id, m->subject, m->own_text, m->own_text_len);
  store->fts_bytes += row.bytes;
  g_array_append_val (store->fts_rows, row);
  if (store->fts_bytes - store->fts_mark_bytes < FTS_WAITING_BYTES)
    return TRUE;
  /* inside the file's savepoint: rolled back with it */
  store->fts_direct = TRUE;
  return fts_flush_from (store, store->fts_mark, error);
}

static gboolean
add_attachments (Store *store, const StoreMessage *m, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_ATTACHMENT];
  const int *param = store->params[STMT_INSERT_ATTACHMENT];
  gint64 id = m->id;

  for (guint i = 0; i < m->n_attachments; i++)
    {
      const StoreAttachment *a = &m->attachments[i];
      int rc;

      sqlite3_bind_int64 (stmt, P (id), id);
      sqlite3_bind_int (stmt, P (position), (int) i);
      sqlite3_bind_text (stmt, P (content_type), a->content_type, -1, SQLITE_STATIC);
      _store_bind_text_or_null (stmt, P (filename), a->filename);
      sqlite3_bind_int64 (stmt, P (size), a->size);
      sqlite3_bind_text (stmt, P (encoding), a->encoding, -1, SQLITE_STATIC);
      if ((rc = step_reset (stmt)) != SQLITE_DONE)
        return _store_fail (store, rc, "cannot record attachment", error);
    }
  return TRUE;
}

/* The id store_add_message() expects next (the pipeline guesses the
 * message's thread with it first). */
/**
 * store_message_id:
 *
 * The id of the next message of the current file: the id it had before
 * when the file's earlier content held the same message (same place, same
 * content hash) and every message before it matched too, so
 * that a file re-ingested after it grew at its end keeps its ids; else a
 * new id, after every id the database ever held for this file.  Ids follow
 * archive order within a file either way.
 */
gint64
store_message_id (Store *store, gint64 offset, guint64 content_hash)
{
  if (store->previous != NULL && store->previous_pos < store->previous->len)
    {
      const StorePrevious *p = &g_array_index (store->previous, StorePrevious, store->previous_pos);

      /* The length may differ where the content does not: the blank
       * line an appending mailer adds after what was the last message. */
      if (p->offset == offset && p->content_hash == content_hash)
        {
          store->previous_pos++;
          return p->id;
        }
      store->previous_pos = G_MAXUINT;   /* diverged: new ids from here on */
    }
  return store->next_id++;
}

/* The provisional mapping of new addresses to authors is dropped when the
 * tables change under it (a rollback, authors_update()). */
void
_store_forget_authors (Store *store)
{
  g_clear_pointer (&store->author_ids, g_hash_table_unref);
  g_clear_pointer (&store->author_ids_used, g_hash_table_unref);
}

static gboolean
load_author_ids (Store *store, GError **error)
{
  sqlite3_stmt *stmt;
  gint64 max = 0;
  gboolean keyed = FALSE;
  int rc;

  store->author_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  rc = sqlite3_prepare_v2 (store->db, "SELECT address, author_id FROM author_addresses", -1, &stmt,
                           NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read authors", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_hash_table_insert (store->author_ids, g_strdup ((const char *) sqlite3_column_text (stmt, 0)),
                         g_memdup2 (&(gint64) { sqlite3_column_int64 (stmt, 1) }, sizeof (gint64)));
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read authors", error);
  if (!_store_query_int (store, "SELECT coalesce(max(id), 0) FROM authors", &max, NULL, error) ||
      !store_authors_keyed (store, &keyed, error))
    return FALSE;
  store->next_author = max + 1;
  /* A shard's authors, or a merge of shards', are keyed: each shard
   * gives an address the same id (the same rule as authors_update()'s) */
  if (keyed || max >= IDENTITY_KEYED_BASE)
    {
      GHashTableIter iter;
      gpointer id;

      store->author_ids_used = deja_id_table_new (g_free, NULL);
      g_hash_table_iter_init (&iter, store->author_ids);
      while (g_hash_table_iter_next (&iter, NULL, &id))
        g_hash_table_add (store->author_ids_used, g_memdup2 (id, sizeof (gint64)));
    }
  return TRUE;
}

/* The id of a new author for @address: after every other one, or keyed */
static gint64
new_author (Store *store, const char *address)
{
  gint64 id;

  if (store->author_ids_used == NULL)
    return store->next_author;
  for (guint64 probe = 0;; probe++)
    if (!g_hash_table_contains (store->author_ids_used, &(gint64) { id = identity_keyed_id (address, probe) }))
      return id;
}

/* The author of a message from @address: its author if the address is
 * known, else a new author of its own (authors_update() merges it
 * at the end of the ingest, moving only the messages whose author
 * changes, rather than writing every new row twice). */
static gboolean
author_for (Store *store, const char *address, gint64 *author, GError **error)
{
  gint64 *known, id;
  sqlite3_stmt *a = store->stmts[STMT_INSERT_AUTHOR], *aa = store->stmts[STMT_INSERT_AUTHOR_ADDRESS];
  int rc;

  if (store->author_ids == NULL && !load_author_ids (store, error))
    {
      _store_forget_authors (store);   /* read again next time */
      return FALSE;
    }
  if ((known = g_hash_table_lookup (store->author_ids, address)) != NULL)
    {
      *author = *known;
      return TRUE;
    }
  id = new_author (store, address);
  sqlite3_bind_int64 (a, 1, id);
  sqlite3_bind_text (a, 2, address, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (aa, 1, id);
  sqlite3_bind_text (aa, 2, address, -1, SQLITE_STATIC);
  rc = sqlite3_step (a);
  if (rc == SQLITE_DONE)
    rc = sqlite3_step (aa);
  sqlite3_reset (a);
  sqlite3_reset (aa);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record author", error);
  if (store->author_ids_used)
    g_hash_table_add (store->author_ids_used, g_memdup2 (&id, sizeof id));
  else
    store->next_author++;
  g_hash_table_insert (store->author_ids, g_strdup (address), g_memdup2 (&id, sizeof id));
  *author = id;
  return TRUE;
}

/* Binds StoreTextSignals to the parameters of their columns. */
static void
bind_text_signals (sqlite3_stmt *stmt, const int *param, const StoreTextSignals *t)
{
  static const int columns[] = { PARAM_lang, PARAM_lang_reliable, PARAM_words, PARAM_sentences,
                                 PARAM_code_lines, PARAM_nonletter_share, PARAM_digit_share,
                                 PARAM_upper_share, PARAM_oov_share };

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    sqlite3_bind_null (stmt, param[columns[i]]);
  if (t->lang == NULL)
    return;
  sqlite3_bind_text (stmt, param[PARAM_lang], t->lang, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, param[PARAM_lang_reliable], t->lang_reliable ? 1 : 0);
  sqlite3_bind_int64 (stmt, param[PARAM_words], t->words);
  sqlite3_bind_int64 (stmt, param[PARAM_sentences], t->sentences);
  sqlite3_bind_int64 (stmt, param[PARAM_code_lines], t->code_lines);
  if (t->has_shares)
    {
      sqlite3_bind_double (stmt, param[PARAM_nonletter_share], t->nonletter_share);
      sqlite3_bind_double (stmt, param[PARAM_digit_share], t->digit_share);
      sqlite3_bind_double (stmt, param[PARAM_upper_share], t->upper_share);
    }
  if (t->oov_share >= 0)
    sqlite3_bind_double (stmt, param[PARAM_oov_share], t->oov_share);
}

/* Own text as where it is in the body (messages.own_spans, a JSON array
 * of offsets and lengths) when it is made of at most
 * STORE_OWN_SPANS_MAX pieces of it, else whole (own_text_stored): the
 * generated column own_text reads either (schema/011-own-spans.sql). */
static void
bind_own_text (Store *store, sqlite3_stmt *stmt, const int *param, const StoreMessage *m)
{
  int text_at = param[PARAM_own_text_stored], spans_at = param[PARAM_own_spans];
  GString *json = store->spans_json;

  if (m->own_spans == NULL || m->n_own_spans == 0 || m->n_own_spans > STORE_OWN_SPANS_MAX)
    {
      bind_text_len (stmt, text_at, m->own_text, m->own_text_len);
      sqlite3_bind_null (stmt, spans_at);
      return;
    }
  g_string_truncate (json, 0);
  g_string_append_c (json, '[');
  for (guint i = 0; i < 2 * m->n_own_spans; i++)
    {
      char number[24];

      if (i)
        g_string_append_c (json, ',');
      g_string_append_len (json, number, (gssize) _store_decimal (number, m->own_spans[i]));
    }
  g_string_append_c (json, ']');
  sqlite3_bind_null (stmt, text_at);
  sqlite3_bind_text (stmt, spans_at, json->str, (int) json->len, SQLITE_TRANSIENT);
}

/**
 * store_replace_message:
 * @message: a message of the current file stored before, decoded again
 *   (its id is found by its byte_offset and set)
 *
 * Replaces the row of the message at @message's offset in the current
 * file (an append's old last message, whose text changed with the blank
 * lines after it): its full-text entry, references, groups, attachments
 * and analysis rows go with the old row; rows that pointed to it as parent
 * or copy point nowhere until threading, which follows every append.
 */
gboolean
store_replace_message (Store *store, StoreMessage *m, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  rc = sqlite3_prepare_v2 (store->db, "SELECT id FROM messages WHERE file_id = ?1 AND byte_offset = ?2",
                           -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot replace a message", error);
  sqlite3_bind_int64 (stmt, 1, store->file_id);
  sqlite3_bind_int64 (stmt, 2, m->byte_offset);
  rc = sqlite3_step (stmt);
  m->id = rc == SQLITE_ROW ? sqlite3_column_int64 (stmt, 0) : 0;
  sqlite3_finalize (stmt);
  if (m->id == 0)
    return _store_fail (store, rc == SQLITE_DONE ? SQLITE_NOTFOUND : rc, "cannot replace a message", error);
  /* its full-text entry first: external content is read from the row */
  if (fts_beside (store))
    rc = fts_side_delete (store, "SELECT id, subject, own_text FROM messages WHERE id = ?1", NULL, m->id);
  else
    {
      g_return_val_if_fail (!store->fts_copied, FALSE);
      store->fts_used = TRUE;
      rc = sqlite3_prepare_v2 (store->db,
                               "INSERT INTO messages_fts (messages_fts, rowid, subject, own_text)"
                               " SELECT 'delete', id, subject, own_text FROM messages WHERE id = ?1",
                               -1, &stmt, NULL);
      if (rc == SQLITE_OK)
        {
          sqlite3_bind_int64 (stmt, 1, m->id);
          rc = sqlite3_step (stmt);
          sqlite3_finalize (stmt);
        }
    }
  if (rc == SQLITE_DONE)
    rc = sqlite3_prepare_v2 (store->db, "DELETE FROM messages WHERE id = ?1", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_int64 (stmt, 1, m->id);
      rc = sqlite3_step (stmt);
      sqlite3_finalize (stmt);
    }
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot replace a message", error);
  return store_add_message (store, m, error);
}

/* Adds one message of the current file, with its attachments, references
 * and groups.  message->id must come from store_message_id(). */
gboolean
store_add_message (Store *store, const StoreMessage *m, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_MESSAGE];
  const int *param = store->params[STMT_INSERT_MESSAGE];
  gint64 author = 0, started;
  gboolean ok;
  int rc;

  g_return_val_if_fail (store->file_id > 0, FALSE);
  g_return_val_if_fail (m->id > 0 && m->id < store->next_id, FALSE);
  if (m->from_addr && !author_for (store, m->from_addr, &author, error))
    return FALSE;
  sqlite3_bind_int64 (stmt, P (file_id), store->file_id);
  sqlite3_bind_int64 (stmt, P (byte_offset), m->byte_offset);
  sqlite3_bind_int64 (stmt, P (byte_length), m->byte_length);
  sqlite3_bind_int64 (stmt, P (line_no), m->line_no);
  _store_bind_text_or_null (stmt, P (envelope), m->envelope);
  _store_bind_text_or_null (stmt, P (message_id), m->message_id);
  _store_bind_text_or_null (stmt, P (subject), m->subject);
  _store_bind_text_or_null (stmt, P (from_addr), m->from_addr);
  _store_bind_text_or_null (stmt, P (from_name), m->from_name);
  _store_bind_text_or_null (stmt, P (date), m->date);
  _store_bind_text_or_null (stmt, P (date_raw), m->date_raw);
  bind_text_len (stmt, P (body), m->body ? m->body : "", m->body ? m->body_len : 0);
  _store_bind_text_or_null (stmt, P (charset), m->charset);
  _store_bind_text_or_null (stmt, P (flags), m->flags);
  bind_own_text (store, stmt, param, m);
  bind_text_signals (stmt, param, &m->text);
  sqlite3_bind_int64 (stmt, P (quoted_lines), m->quoted_lines);
  sqlite3_bind_int64 (stmt, P (own_lines), m->own_lines);
  sqlite3_bind_int64 (stmt, P (attachment_count), m->n_attachments);
  sqlite3_bind_int64 (stmt, P (id), m->id);
  sqlite3_bind_int64 (stmt, P (thread_id), m->guess.thread_id ? m->guess.thread_id : m->id);
  sqlite3_bind_int64 (stmt, P (parent_id), m->guess.parent_id);
  sqlite3_bind_int64 (stmt, P (duplicate_of), m->guess.duplicate_of);
  _store_bind_text_or_null (stmt, P (missing_parent), m->guess.missing_parent);
  _store_bind_text_or_null (stmt, P (thread_flags), m->guess.flags);
  sqlite3_bind_int64 (stmt, P (content_hash), (gint64) m->content_hash);
  sqlite3_bind_int64 (stmt, P (text_damage), m->text_damage);
  sqlite3_bind_int64 (stmt, P (author_id), author);
  started = profile_start ();
  rc = step_reset (stmt);
  profile_stop (PROFILE_MESSAGES, started);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record message", error);
  if (!add_fts (store, m, error))
    return FALSE;
  started = profile_start ();
  ok = add_attachments (store, m, error) &&
       add_refs (store, m->id, STORE_REF_REFERENCES, m->references, m->n_references, error) &&
       add_refs (store, m->id, STORE_REF_IN_REPLY_TO, m->in_reply_to, m->n_in_reply_to, error) &&
       add_groups (store, m->id, m->newsgroups, m->n_newsgroups, error) &&
       add_usenet (store, m->id, &m->usenet, error) &&
       add_links (store, m->id, m->links, m->n_links, error);
  profile_stop (PROFILE_OTHER_ROWS, started);
  return ok;
}

/* Sets one message's text signals (deja analyse). */
gboolean
store_set_text_signals (Store *store, gint64 id, const StoreTextSignals *text, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_SET_TEXT];
  int rc;

  sqlite3_bind_int64 (stmt, store->params[STMT_SET_TEXT][PARAM_id], id);
  bind_text_signals (stmt, store->params[STMT_SET_TEXT], text);
  if ((rc = step_reset (stmt)) != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record text signals", error);
  return TRUE;
}

/**
 * store_text_to_analyse:
 * @copies: FALSE: canonical messages; TRUE: later copies of a Message-ID
 *   whose own text is not their canonical message's (store_copy_text_signals()
 *   gave the others theirs)
 * @ids: (element-type gint64): filled with messages.id, in order
 * @texts: (element-type utf8): filled with their own text ("" for none)
 *
 * The next @limit messages after @after_id whose text signals are not
 * set (or all of them, with @force).
 */
gboolean
store_text_to_analyse (Store *store, gboolean force, gboolean copies, gint64 after_id, guint limit,
                       GArray *ids, GPtrArray *texts, GError **error)
{
  static const char *const sql[2] = {
    "SELECT id, coalesce(own_text, '') FROM messages"
    " WHERE id > ?1 AND duplicate_of IS NULL AND (?2 OR lang IS NULL) ORDER BY id LIMIT ?3",
    "SELECT id, coalesce(own_text, '') FROM messages"
    " WHERE id > ?1 AND duplicate_of IS NOT NULL AND (lang IS NULL OR (?2 AND own_text IS NOT"
    "  (SELECT c.own_text FROM messages c WHERE c.id = messages.duplicate_of)))"
    " ORDER BY id LIMIT ?3",
  };
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, sql[copies != FALSE], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read own text", error);
  sqlite3_bind_int64 (stmt, 1, after_id);
  sqlite3_bind_int (stmt, 2, force ? 1 : 0);
  sqlite3_bind_int64 (stmt, 3, limit);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);

      g_array_append_val (ids, id);
      g_ptr_array_add (texts, g_strdup ((const char *) sqlite3_column_text (stmt, 1)));
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read own text", error);
}

/**
 * store_copy_text_signals:
 *
 * Gives later copies of a Message-ID whose own text is their canonical
 * message's the canonical message's signals: they are a function of the
 * own text alone, and half of a list's archive can be such copies.
 */
gboolean
store_copy_text_signals (Store *store, gboolean force, gint64 *copied, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
    "UPDATE messages AS m SET lang = c.lang, lang_reliable = c.lang_reliable, words = c.words,"
    " sentences = c.sentences, code_lines = c.code_lines, nonletter_share = c.nonletter_share,"
    " digit_share = c.digit_share, upper_share = c.upper_share, oov_share = c.oov_share"
    " FROM messages AS c WHERE c.id = m.duplicate_of AND c.lang IS NOT NULL"
    " AND (?1 OR m.lang IS NULL) AND c.own_text IS m.own_text", -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot copy text signals", error);
  sqlite3_bind_int (stmt, 1, force ? 1 : 0);
  rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot copy text signals", error);
  if (copied)
    *copied = sqlite3_changes64 (store->db);
  return TRUE;
}

gboolean
store_count_text_to_analyse (Store *store, gboolean force, gint64 *count, GError **error)
{
  static const char *const count_sql[2] = {
    "SELECT count(*) FROM messages WHERE lang IS NULL",
    "SELECT count(*) FROM messages",
  };

  return _store_query_int (store, count_sql[force != FALSE], count, NULL, error);
}

/* Adds one separator-log row of the current file. */
gboolean
store_add_log (Store *store, const StoreLogEntry *e, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_INSERT_LOG];
  const int *param = store->params[STMT_INSERT_LOG];
  char shape[2] = { e->shape, '\0' };
  int rc;

  sqlite3_bind_int64 (stmt, P (file_id), store->file_id);
  sqlite3_bind_int64 (stmt, P (line_no), e->line_no);
  sqlite3_bind_int64 (stmt, P (byte_offset), e->byte_offset);
  sqlite3_bind_text (stmt, P (line_text), e->line_text, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, P (verdict), e->verdict, -1, SQLITE_STATIC);
  _store_bind_text_or_null (stmt, P (reason), e->reason);
  sqlite3_bind_text (stmt, P (shape), shape, -1, SQLITE_STATIC);
  if ((rc = step_reset (stmt)) != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record separator log", error);
  return TRUE;
}

/* Completes the file's row and commits its transaction. */
gboolean
store_finish_file (Store *store, const char *sha256, gint64 messages, gint64 lines,
                   GError **error)
{
  sqlite3_stmt *stmt;
  gint64 started;
  int rc;

  g_return_val_if_fail (store->file_id > 0, FALSE);
  started = profile_start ();
  rc = _store_cached (store, "UPDATE files SET sha256 = ?1, messages = ?2, lines = ?3 WHERE id = ?4",
                      &stmt);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, sha256, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt, 2, messages);
      sqlite3_bind_int64 (stmt, 3, lines);
      sqlite3_bind_int64 (stmt, 4, store->file_id);
      rc = sqlite3_step (stmt);
      _store_release (store, stmt);
    }
  /* Threads and authors are recomputed after the commit: until then they
   * are stale (threads_rebuild() and authors_update() delete the
   * rows).  Written only where they are not already: a row replaced by
   * the same values changed its page, which each file's savepoint then
   * copied to its journal. */
  if (rc == SQLITE_DONE &&
      (rc = _store_cached (store, "INSERT INTO deja_state (key, value)"
                           " VALUES ('threads', 'stale'), ('authors', 'stale')"
                           " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                           " WHERE value IS NOT excluded.value", &stmt)) == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      _store_release (store, stmt);
    }
  profile_stop (PROFILE_FILES, started);
  started = profile_start ();
  if (rc == SQLITE_DONE && store->savepoint && (rc = exec_kept (store, "RELEASE deja_file")) == SQLITE_OK)
    rc = SQLITE_DONE;
  if (rc == SQLITE_DONE && store->savepoint)
    fts_side_follow (store, STORE_FTS_SIDE_RELEASE);
  profile_stop (PROFILE_COMMIT, started);
  if (rc != SQLITE_DONE)
    {
      _store_fail (store, rc, "cannot record file", error);
      store_abort_file (store);
      return FALSE;
    }
  store->file_id = 0;
  g_clear_pointer (&store->previous, g_array_unref);
  store->uncommitted += store->file_bytes;
  store->uncommitted_files++;
  return store->uncommitted < STORE_COMMIT_BYTES || store_commit (store, error);
}

/**
 * store_uncommitted_files:
 *
 * Returns: how many files were finished since the last commit (they are
 *   lost if the commit fails)
 */
guint
store_uncommitted_files (Store *store)
{
  return store->uncommitted_files;
}

/**
 * store_commits:
 *
 * Returns: how many transactions of files this store has committed: a
 *   caller that counts the files of the one under way sees a commit made
 *   at the start of a file (keys_for_file()) as well as at its end
 */
guint
store_commits (Store *store)
{
  return store->commits;
}

static int
profiled_commit (Store *store)
{
  gint64 started = profile_start ();
  int rc = sqlite3_exec (store->db, "COMMIT", NULL, NULL, NULL);

  profile_stop (PROFILE_COMMIT, started);
  return rc;
}

/* The index made beside the writer for this transaction, added to
 * messages_fts (@segments: how many it has then). */
static gboolean
fts_copy_beside (Store *store, guint *segments, GError **error)
{
  const char *why = NULL;
  gint64 started;
  gboolean ok;

  if (!fts_beside (store))
    return TRUE;
  started = profile_start ();
  fts_side_push (store);
  if (!_store_fts_side_finish (store->fts_side, store, error))
    {
      profile_stop (PROFILE_FTS, started);
      return FALSE;
    }
  /* each lane's segments in turn, the one that took rows out last */
  ok = TRUE;
  for (guint k = 0; ok && why == NULL && k < _store_fts_side_lanes (store->fts_side); k++)
    {
      store->shard_schema = _store_fts_side_schema (store->fts_side, k);
      ok = _store_fts_copy (store, STORE_FTS_COPY_BESIDE, segments, &why, error);
    }
  store->shard_schema = NULL;
  profile_stop (PROFILE_FTS, started);
  if (ok && why != NULL)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "the full-text index made beside the writer cannot be added: %s", why);
      return FALSE;
    }
  store->fts_copied = store->fts_copied || ok;
  return ok;
}

/* FTS5 merges the segments copied from the side as it merges its own, a
 * step at a time (a level that holds 'usermerge', 4, segments or more)
 * until there are STORE_FTS_SEGMENTS_MAX or fewer: on a connection of its
 * own, since this one must not use messages_fts (store-fts-side.c).  The
 * index is whole either way; a failure leaves it in more segments
 * (slower to search), and says so. */
static void
fts_tidy (Store *store, guint segments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) other = NULL;
  gint64 started = profile_start ();
  guint before = segments;

  if ((other = _store_open_second (store, &error)) != NULL)
    for (int step = 0; step < 100000 && segments > STORE_FTS_SEGMENTS_MAX; step++)
      {
        int changes = sqlite3_total_changes (other->db);

        if (sqlite3_exec (other->db, "INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', 500)",
                          NULL, NULL, NULL) != SQLITE_OK)
          {
            _store_fail (other, sqlite3_errcode (other->db), "cannot merge", &error);
            break;
          }
        if (sqlite3_total_changes (other->db) - changes < 2 || !_store_fts_segments (other, &segments, &error))
          break;
      }
  g_debug ("the full-text index merged from %u segments to %u", before, segments);
  if (error)
    g_warning ("the full-text index of '%s' stays in more pieces than it should (searches are slower"
               " until the next ingest): %s", store->path, error->message);
  profile_stop (PROFILE_FTS, started);
}

/**
 * store_index_beside:
 * @lanes: how many threads index an ingest's full-text rows beside the
 *   writer (store-fts-side.c), for when there are cores for them; 0: the
 *   writer indexes them
 *
 * Only before the first file, and only on a connection that has not used
 * messages_fts; DEJA_FTS_BESIDE=0 keeps the index in the writer (to
 * compare them), DEJA_FTS_LANES=N sets how many threads (1 to
 * STORE_FTS_LANES_MAX) where there are any.
 */
void
store_index_beside (Store *store, guint lanes)
{
  const char *env = g_getenv ("DEJA_FTS_BESIDE");
  const char *n = g_getenv ("DEJA_FTS_LANES");

  if (lanes > 0 && n != NULL && *n != '\0')
    lanes = (guint) CLAMP (g_ascii_strtoll (n, NULL, 10), 1, STORE_FTS_LANES_MAX);
  store->fts_lanes = MIN (lanes, STORE_FTS_LANES_MAX);
  store->fts_beside = lanes > 0 && !store->fts_used && !(env && strcmp (env, "0") == 0);
}

/**
 * store_commit:
 *
 * Commits the transaction of store_begin(), or the files finished since
 * the last commit (store_finish_file()
 * commits by itself once they hold STORE_COMMIT_BYTES of archive text:
 * one commit per pipermail month made an ingest slower, each writing
 * again the index pages it touched).  Call it after
 * the last file; store_close() does, for files left uncommitted.
 *
 * Returns: %FALSE with @error when the commit failed (and those files
 * are not in the database), or when a failure earlier rolled back files
 * already finished
 */
gboolean
store_commit (Store *store, GError **error)
{
  guint files = store->uncommitted_files, lost = store->lost_files, segments = 0;
  g_autoptr (GError) side_error = NULL;
  gboolean open = !sqlite3_get_autocommit (store->db);
  int rc = SQLITE_OK;

  g_return_val_if_fail (store->file_id == 0, FALSE);
  store->uncommitted = 0;
  store->uncommitted_files = 0;
  store->lost_files = 0;
  if (open &&
      ((rc = fts_flush (store, NULL) ? SQLITE_OK : sqlite3_errcode (store->db)) != SQLITE_OK ||
       !fts_copy_beside (store, &segments, &side_error) ||
       (rc = profiled_commit (store)) != SQLITE_OK))
    {
      g_autofree char *what = files == 0 ? g_strdup ("cannot commit")
                              : g_strdup_printf ("cannot commit the %u file%s read since the last"
                                                 " commit", files, files == 1 ? "" : "s");

      if (side_error)
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s: %s", what, side_error->message);
      else
        _store_fail (store, rc, what, error);
      drop_transaction (store);
      return FALSE;
    }
  store->commits += open;
  _store_keys_checked_again (store);
  if (fts_beside (store))
    {
      _store_fts_side_end (store->fts_side, store);
      if (segments > STORE_FTS_SEGMENTS_MAX)
        fts_tidy (store, segments);
    }
  if (lost == 0)
    return TRUE;
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
               "%u file%s read before a failed one %s rolled back with it", lost,
               lost == 1 ? "" : "s", lost == 1 ? "was" : "were");
  return FALSE;
}

/* Rolls the current file back: the database is as it was before
 * store_begin_file(). */
void
store_abort_file (Store *store)
{
  if (store->file_id > 0 || sqlite3_get_autocommit (store->db) == 0)
    rollback_file (store);
  /* Groups, authors and messages added in the transaction are gone again. */
  g_hash_table_remove_all (store->group_ids);
  _store_forget_authors (store);
  store->file_id = 0;
  g_clear_pointer (&store->previous, g_array_unref);
}
