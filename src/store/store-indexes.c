/* store-indexes.c — the secondary indexes of a first ingest, built once at its end.
 *
 * Every message row goes into indexes besides its table (dates, threads,
 * parents, copies, authors, senders, languages, newsgroups and
 * attachments).  Their keys come in no order, so each row changes pages
 * all over them: each commit writes those pages again, and pages split
 * at random are left a third empty.  An ingest that starts on a database
 * with no message drops those indexes and builds them once after its
 * last file (CREATE INDEX sorts its keys first and fills its pages: a
 * fraction of a second for 65,000 messages; twisted-python's database
 * 1.1 MB smaller).
 *
 * Nothing during such an ingest needs them: its thread guess holds the
 * Message-IDs it stored, and after a file rolled back or replaced guesses
 * without the stored ones while their index is away (pipeline/ingest.c:
 * a guess is only a guess, threading sets every row right); no stored
 * row is deleted or replaced but for a path ingested twice (the foreign
 * keys then find their rows by a scan: slower, still right), and the
 * indexes that the file loop uses (messages by file, files by hash, the
 * separator log by file) stay.  A reader during the ingest gets the same
 * answers, more slowly.
 *
 * The names of the indexes dropped are kept in deja_state
 * ('deferred_indexes') in the transaction that drops them: if the ingest
 * is killed before it builds them, the next deja that opens the database
 * builds them (store_open(), before it upgrades the schema: an upgrade
 * finds the indexes of the version they were taken from), so that the
 * schema is whole again whatever happened.  Their statements come from
 * deja's own schema (_store_schema_index_sql()), never from the
 * database: a database made by someone else could hold any SQL there
 * (older deja kept the statements themselves: such a row is read for the
 * names it holds, and its text is never run).
 */
#include "store-private.h"

#include <string.h>

/* The indexes an ingest into an empty database builds at its end, and
 * how it drops them.  messages_message_id is one since each file's
 * Message-IDs go all over it: each file's savepoint kept the pages they
 * changed in its journal (twisted-python: 4,072 pages of 64 KiB written
 * to a temporary file, once per month a leaf was in). */
/* Some hold the child keys of a foreign key to messages.  A merge copies
 * a shard's messages with one INSERT … SELECT, and inside one statement
 * SQLite looks for the child rows of every parent row it inserts while a
 * reference made earlier in that statement is unresolved (a reply copied
 * before its parent): without these indexes each look reads the whole
 * table (twisted-python in 8 shards: 41 s instead of 3).  An
 * ingest inserts one row a statement and never looks; a merge keeps
 * them (STORE_DEFER_KEEP_CHILD_KEYS). */
#define DEFERRABLE(name) { name, "DROP INDEX IF EXISTS " name, FALSE }
#define CHILD_KEYS(name) { name, "DROP INDEX IF EXISTS " name, TRUE }
static const struct {
  const char *name;
  const char *drop;
  gboolean child_keys;
} deferrable[] = {
  DEFERRABLE ("messages_message_id"), DEFERRABLE ("messages_date"), DEFERRABLE ("messages_thread"), CHILD_KEYS ("messages_parent"),
  CHILD_KEYS ("messages_duplicate_of"), DEFERRABLE ("messages_author"),
  DEFERRABLE ("messages_sender"), DEFERRABLE ("messages_lang"),
  DEFERRABLE ("message_newsgroups_group"), CHILD_KEYS ("attachments_message"),
};

#define STATE_KEY STORE_DEFERRED_INDEXES_KEY
/* A word of the state: messages_file was filled in the order of its keys */
#define IN_ORDER "messages_file_in_order"

static gboolean
exec (Store *store, const char *sql, GError **error)
{
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot change the indexes", error);
}

/* The names of the deferrable indexes the database has, one a line
 * (without those of child keys if @keep_child_keys). */
static gboolean
index_names (Store *store, gboolean keep_child_keys, GString *names, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT 1 FROM sqlite_schema WHERE type = 'index'"
                               " AND name = ?1", -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the schema", error);
  for (guint i = 0; i < G_N_ELEMENTS (deferrable) && rc == SQLITE_OK; i++)
    {
      if (keep_child_keys && deferrable[i].child_keys)
        continue;
      rc = sqlite3_bind_text (stmt, 1, deferrable[i].name, -1, SQLITE_STATIC);
      if (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
        g_string_append_printf (names, "%s\n", deferrable[i].name);
      rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? sqlite3_reset (stmt) : rc;
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot read the schema", error);
}

/* Whether @name is one of the words of @state (names, or the statements
 * an older deja kept). */
static gboolean
state_names (const char *state, const char *name)
{
  gsize len = strlen (name);

  for (const char *p = strstr (state, name); p != NULL; p = strstr (p + 1, name))
    if ((p == state || !(g_ascii_isalnum (p[-1]) || p[-1] == '_')) &&
        !(g_ascii_isalnum (p[len]) || p[len] == '_'))
      return TRUE;
  return FALSE;
}

/* The statements that build the indexes named in @state: deja's own, from
 * its schema; messages_file first (see below). */
static gboolean
build_sql (Store *store, const char *state, GString *sql, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (deferrable); i++)
    if (state_names (state, deferrable[i].name))
      {
        g_autofree char *create = _store_schema_index_sql (deferrable[i].name);

        if (create == NULL)
          {
            g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                         "the schema has no index '%s'", deferrable[i].name);
            return FALSE;
          }
        g_string_append_printf (sql, "DROP INDEX IF EXISTS %s;\n%s;\n", deferrable[i].name, create);
      }
  /* messages_file stays, and fills in the order its keys come (a tenth
   * to a fifth of its pages empty): it is built again, sorted, before
   * the others, which take the pages it leaves.  Not after a merge, whose
   * rows come in the order of its keys (IN_ORDER): its pages are 87 %
   * full already (99 % rebuilt; realistic 1 GiB in 8 shards: 1.2 MB more
   * in 1.5 GB, 0.6 s less). */
  if (sql->len > 0 && !state_names (state, IN_ORDER))
    g_string_prepend (sql, "REINDEX messages_file;\n");
  return TRUE;
}

static gboolean
set_state (Store *store, const char *value, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "INSERT OR REPLACE INTO deja_state (key, value)"
                               " VALUES ('" STATE_KEY "', ?1)", -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, value, -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt);
      sqlite3_finalize (stmt);
    }
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot change the indexes", error);
}

/**
 * store_defer_indexes:
 * @flags: STORE_DEFER_KEEP_CHILD_KEYS for a command that copies rows with
 *   INSERT … SELECT (deja merge)
 * @deferred: (out): whether they were dropped
 *
 * Drops the secondary indexes that a first ingest does not read (see
 * above) when the database holds no message, keeping their definitions
 * for store_build_deferred_indexes().  Call it outside a transaction.
 */
gboolean
store_defer_indexes (Store *store, StoreDeferFlags flags, gboolean *deferred, GError **error)
{
  gboolean keep = (flags & STORE_DEFER_KEEP_CHILD_KEYS) != 0;
  g_autoptr (GString) names = g_string_new (NULL);
  gint64 one = 0;
  gboolean found = FALSE, ok;

  *deferred = FALSE;
  g_return_val_if_fail (sqlite3_get_autocommit (store->db), FALSE);
  /* Most ingests go into a database that holds messages: they find it
   * out without the write lock (another ingest may hold it). */
  if (!_store_query_int (store, "SELECT 1 FROM messages LIMIT 1", &one, &found, error))
    return FALSE;
  if (found)
    return TRUE;
  if (!exec (store, "BEGIN IMMEDIATE", error))
    return FALSE;
  ok = _store_query_int (store, "SELECT 1 FROM messages LIMIT 1", &one, &found, error);
  if (ok && !found)
    ok = _store_query_int (store, "SELECT 1 FROM deja_state WHERE key = '" STATE_KEY "'", &one,
                           &found, error);
  if (ok && !found)
    ok = index_names (store, keep, names, error);
  if (ok && !found && names->len > 0)
    {
      if (keep)
        g_string_append (names, IN_ORDER "\n");
      ok = set_state (store, names->str, error);
      for (guint i = 0; ok && i < G_N_ELEMENTS (deferrable); i++)
        if (!(keep && deferrable[i].child_keys))
          ok = exec (store, deferrable[i].drop, error);
      *deferred = ok;
    }
  if (!ok || !exec (store, "COMMIT", error))
    {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      *deferred = FALSE;
      return FALSE;
    }
  store->indexes_deferred = *deferred;
  return TRUE;
}

/* Builds the indexes kept in deja_state, if any.  @wait: FALSE returns at
 * once (built = FALSE) when another connection is writing. */
static gboolean
build (Store *store, gboolean wait, gboolean *built, GError **error)
{
  g_autofree char *state = NULL;
  g_autoptr (GString) sql = g_string_new (NULL);
  gboolean found = FALSE, ok;
  gint64 one = 0;
  int rc;

  *built = FALSE;
  /* Most opens: nothing to build, and no lock taken to find it out (a new
   * database, or one older than deja_state, has none). */
  if (!_store_query_int (store, "SELECT 1 FROM sqlite_schema WHERE name = 'deja_state'", &one,
                         &found, error))
    return FALSE;
  if (!found)
    return TRUE;
  if (!_store_query_text (store, "SELECT value FROM deja_state WHERE key = '" STATE_KEY "'", NULL, 0,
                          &state, error))
    return FALSE;
  if (state == NULL)
    return TRUE;
  g_clear_pointer (&state, g_free);
  if (!wait)
    sqlite3_busy_timeout (store->db, 0);
  rc = sqlite3_exec (store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  if (!wait)
    sqlite3_busy_timeout (store->db, STORE_BUSY_TIMEOUT_MS);
  if (!wait && (rc == SQLITE_BUSY || rc == SQLITE_BUSY_RECOVERY || rc == SQLITE_BUSY_SNAPSHOT))
    return TRUE;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot change the indexes", error);
  ok = _store_query_text (store, "SELECT value FROM deja_state WHERE key = '" STATE_KEY "'", NULL, 0,
                          &state, error);
  found = state != NULL;
  /* Each CREATE INDEX reads the whole table once */
  _store_scan_cache (store, TRUE);
  if (ok && found)
    ok = build_sql (store, state, sql, error) && exec (store, sql->str, error) &&
         exec (store, "DELETE FROM deja_state WHERE key = '" STATE_KEY "'", error);
  if (!ok || !exec (store, "COMMIT", error))
    {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      _store_scan_cache (store, FALSE);
      return FALSE;
    }
  _store_scan_cache (store, FALSE);
  *built = found;
  store->indexes_deferred = FALSE;
  return TRUE;
}

/**
 * store_can_find_message_ids:
 * @can: (out): whether Message-IDs are found by their index (not while a
 *   first ingest has it deferred)
 */
gboolean
store_can_find_message_ids (Store *store, gboolean *can, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM sqlite_schema WHERE type = 'index'"
                           " AND name = 'messages_message_id'", &one, can, error);
}

/**
 * store_build_deferred_indexes:
 *
 * Builds the indexes store_defer_indexes() dropped, in one transaction.
 */
gboolean
store_build_deferred_indexes (Store *store, GError **error)
{
  gboolean built;

  g_return_val_if_fail (sqlite3_get_autocommit (store->db), FALSE);
  return build (store, TRUE, &built, error);
}

/* store_open(): the indexes an ingest that did not finish left undone,
 * unless another connection is writing (that may be the ingest itself,
 * which builds them at its end). */
gboolean
_store_build_left_indexes (Store *store, GError **error)
{
  gboolean built;

  if (!build (store, FALSE, &built, error))
    return FALSE;
  if (built)
    g_debug ("'%s': built the indexes an unfinished ingest had left undone", store->path);
  return TRUE;
}
