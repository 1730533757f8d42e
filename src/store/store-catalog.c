/* store-catalog.c — a set of shards read in place as one corpus.
 *
 * A catalog is a deja database that holds no messages of its own: its
 * messages, their full-text index, references, attachments, links,
 * Usenet headers, separator log and files are the shards', read where
 * they lie through deja_shards tables (store-shards.c) that stand, in
 * the TEMP schema of each connection to it, in front of its own empty
 * tables of those names; so do deja's views.  What depends on the whole
 * set is the catalog's own, as a merge would make it: newsgroups (each
 * shard numbers its own), which messages are in which, authors and
 * their addresses, the threads' placeholders, people's decisions, and
 * the thread and author columns of the messages whose values the set
 * changes (a reply in one shard to a post in another): those are kept in
 * deja_catalog_messages and read over the shard's.  Every command reads
 * a catalog as it reads a database.
 *
 * The shards must be numbered ('deja ingest --shard N'), each number
 * once, and hold no file path or content another shard holds (a merge
 * would keep one of them; a catalog cannot leave rows out of a shard).
 * A shard that changed after the catalog was made is refused when the
 * catalog is opened: it is made again.
 */
#include "store-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* The tables read in place, and the table of values changed here (or
 * NULL) for each. */
static const struct {
  const char *table;
  const char *changed;
} in_place[] = {
  { "messages", "deja_catalog_messages" },
  { "messages_fts", NULL },
  { "message_refs", NULL },
  { "attachments", NULL },
  { "links", NULL },
  { "usenet_headers", NULL },
  { "separator_log", NULL },
  { "files", NULL },
};

static const char catalog_sql[] =
  "CREATE TABLE deja_catalog_shards (number INTEGER PRIMARY KEY, path TEXT NOT NULL,"
  " bytes INTEGER NOT NULL, modified INTEGER NOT NULL);"
  "CREATE TABLE deja_catalog_messages (id INTEGER PRIMARY KEY, thread_id INTEGER,"
  " parent_id INTEGER, duplicate_of INTEGER, missing_parent TEXT, thread_flags TEXT,"
  " author_id INTEGER);"
  /* what each table read of each shard when it was first opened
   * (store-shards.c, read_extents()): opening the catalog again reads
   * no shard until a query does */
  "CREATE TABLE deja_catalog_extents (table_name TEXT NOT NULL, shard INTEGER NOT NULL,"
  " position INTEGER NOT NULL, value, PRIMARY KEY (table_name, shard, position)) WITHOUT ROWID;";

/* A catalog is marked unfinished until threads and authors are computed
 * over its set (store_catalog_finish()): one left so by a deja that was
 * killed is refused, not read as a set of fewer shards.  Its authors,
 * none until then, are stale: authors_update() writes them. */
#define CATALOG_UNFINISHED_SQL \
  "INSERT OR REPLACE INTO deja_state (key, value) VALUES ('catalog', 'unfinished'), ('authors', 'stale')"

/* The addresses the decisions of the database attached as "shard" name */
#define MOVED_BY_DECISIONS \
  "SELECT address FROM shard.author_decisions UNION SELECT other FROM shard.author_decisions WHERE other <> ''"
#define MOVED_BY_DECISIONS_SQL "INSERT OR IGNORE INTO temp.catalog_moved (address) " MOVED_BY_DECISIONS

/* What each shard gives the catalog's own tables (attached as "shard"),
 * as deja merge takes them (store-merge.c). */
static const char *const copy_sql[] = {
  "INSERT OR IGNORE INTO main.newsgroups (name) SELECT name FROM shard.newsgroups ORDER BY id",
  "INSERT OR IGNORE INTO main.message_newsgroups (message_id, newsgroup_id, merged)"
  " SELECT mg.message_id, g2.id, 0 FROM shard.message_newsgroups mg"
  " JOIN shard.newsgroups g ON g.id = mg.newsgroup_id JOIN main.newsgroups g2 ON g2.name = g.name"
  " WHERE mg.merged = 0",
  /* (The placeholders of the threads the set keeps as their shards made
   * them are taken by the catalog's threading, which makes the others:
   * store_clear_thread_placeholders().)  Into a TEMP table, staged_sql
   * (keyed by address, each shard's rows would land all over the
   * catalog's table, and each shard's commit write most of its pages
   * again): each address's author as the first shard that has it says,
   * for authors_update() to keep its id (the authors themselves it writes
   * all anew: none is copied); and where a later shard has another id,
   * the address is marked moved: its messages may have another author in
   * the set than in that shard (one pass over the shard's rows, not a
   * second one joined: 64 shards of the realistic 1 GiB, 0.12 -> 0.07 s) */
  "INSERT INTO temp.catalog_addresses (address, author_id) SELECT address, author_id"
  " FROM shard.author_addresses WHERE 1 ON CONFLICT (address) DO UPDATE SET moved = 1"
  " WHERE author_id IS NOT excluded.author_id",
  /* The other addresses whose messages may have another author in the
   * set than in the shard: */
  /* (an address shared by several people, or one people's decisions
   * name: its messages are given authors by name, not by address) */
  "INSERT OR IGNORE INTO temp.catalog_moved (address) SELECT shared_address FROM shard.authors"
  " WHERE shared_address IS NOT NULL UNION " MOVED_BY_DECISIONS,
  /* Each path and each content once in the set */
  "INSERT INTO temp.catalog_files (path, sha256) SELECT path, sha256 FROM shard.files",
};

/* What the shards gave the TEMP tables of copy_sql, into the catalog's
 * own once (realistic 1 GiB in 64 shards: the log written while the
 * shards are taken 66 -> 26 MB, their commits 0.26 -> 0.06 s) */
#define STAGED_SQL \
  "CREATE TEMP TABLE catalog_addresses (address TEXT PRIMARY KEY, author_id INTEGER NOT NULL," \
  " moved INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID"
static const char staged_sql[] =
  "BEGIN IMMEDIATE;"
  "INSERT INTO main.author_addresses (address, author_id, messages)"
  " SELECT address, author_id, 0 FROM temp.catalog_addresses ORDER BY address;"
  "INSERT OR IGNORE INTO temp.catalog_moved (address) SELECT address FROM temp.catalog_addresses WHERE moved;"
  "COMMIT;"
  "DROP TABLE temp.catalog_addresses";

#define ADDRESS_AUTHOR "(SELECT a.author_id FROM author_addresses a WHERE a.address = messages.from_addr)"
#define AUTHOR_OF_ADDRESS \
  "UPDATE messages SET author_id = " ADDRESS_AUTHOR \
  " WHERE from_addr IN (SELECT address FROM temp.catalog_moved) AND author_id IS NOT " ADDRESS_AUTHOR

/* A shard's number, from its ids (every message and file of shard N has
 * an id in N x 2^32 + 1 ... (N + 1) x 2^32 - 1); 0 when they are not. */
static const char number_sql[] =
  "SELECT CASE WHEN (SELECT count(*) FROM shard.messages) = 0 THEN -1"
  " WHEN (SELECT min(id) >> 32 FROM shard.messages) = (SELECT max(id) >> 32 FROM shard.messages)"
  " AND (SELECT min(id) >> 32 FROM shard.messages) > 0"
  " AND coalesce((SELECT min(id) >> 32 = max(id) >> 32 FROM shard.files), 1)"
  " AND coalesce((SELECT min(id) >> 32 FROM shard.files), 0)"
  "  IN (0, (SELECT min(id) >> 32 FROM shard.messages))"
  " AND (SELECT min(id) & 4294967295 FROM shard.messages) > 0"
  " THEN (SELECT min(id) >> 32 FROM shard.messages) ELSE 0 END";

gboolean
store_is_catalog (Store *store)
{
  return store->catalog;
}

/* The temp tables and views that read the shards, on @store's
 * connection; @set goes to SQLite. */
static gboolean
read_in_place (Store *store, StoreShards *set, GError **error)
{
  GHashTable *objects = _store_schema_objects (error);
  GHashTableIter iter;
  gpointer key, value;
  int rc = _store_shards_register (store->db, set);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the catalog's shards", error);
  store->shards = set;
  /* The keys of its own rows are messages of the shards, which its own
   * (empty) tables do not hold */
  if (!_store_exec_sql (store, "PRAGMA foreign_keys = OFF", error))
    return FALSE;
  if (objects == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (in_place); i++)
    {
      g_autofree char *sql = g_strdup_printf ("CREATE VIRTUAL TABLE temp.%s USING deja_shards (%s%s%s)",
                                              in_place[i].table, in_place[i].table,
                                              in_place[i].changed ? ", " : "",
                                              in_place[i].changed ? in_place[i].changed : "");
      char *message = NULL;

      rc = sqlite3_exec (store->db, sql, NULL, NULL, &message);
      if (rc != SQLITE_OK)
        {
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot read the shards' %s: %s",
                       in_place[i].table, message ? message : sqlite3_errstr (rc));
          sqlite3_free (message);
          return FALSE;
        }
    }
  /* deja's views, of its own schema (never SQL read from a file), in
   * front of the catalog's: a view in main reads main's tables */
  g_hash_table_iter_init (&iter, objects);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *sql = value;
      g_autofree char *temp = NULL;

      if (!g_str_has_prefix (key, "view ") || !g_str_has_prefix (sql, "CREATE VIEW "))
        continue;
      temp = g_strconcat ("CREATE TEMP VIEW ", sql + strlen ("CREATE VIEW "), NULL);
      rc = sqlite3_exec (store->db, temp, NULL, NULL, NULL);
      if (rc != SQLITE_OK)
        return _store_fail (store, rc, "cannot make the catalog's views", error);
    }
  return TRUE;
}

/* Whether shard @path is all in its file: the catalog reads its shards
 * immutable (no locks, no log looked at for each statement,
 * store-shards.c), so a write-ahead log a writer left beside it (one at
 * work, or stopped), whose commits the file does not hold yet, or a
 * journal to undo, is refused with @error saying which. */
static gboolean
shard_whole (const char *path, const char *shard, GError **error)
{
  if (!_store_left_a_log (path, NULL))
    return TRUE;
  g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
               "%s%s%sa write-ahead log or journal beside it holds changes its file does not yet:"
               " let the deja writing it finish, or open it once (deja stats --db)",
               shard ? "its shard '" : "", shard ? shard : "", shard ? "': " : "");
  return FALSE;
}

/* The shards of the catalog @store has open, checked unchanged. */
static StoreShards *
read_shards (Store *store, GError **error)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) numbers = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *dir = g_path_get_dirname (store->path);
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, "SELECT number, path, bytes, modified FROM deja_catalog_shards"
                               " ORDER BY number", &stmt);

  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 number = sqlite3_column_int64 (stmt, 0);
      const char *stored = (const char *) sqlite3_column_text (stmt, 1);
      char *path = stored == NULL ? NULL
                   : g_path_is_absolute (stored) ? g_strdup (stored) : g_build_filename (dir, stored, NULL);
      GStatBuf st;

      rc = SQLITE_OK;
      if (path == NULL)
        {
          /* (deja writes none: a hand-made catalog) */
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "its shard %" G_GINT64_FORMAT " has no path",
                       number);
          sqlite3_finalize (stmt);
          return NULL;
        }
      g_ptr_array_add (paths, path);
      g_array_append_val (numbers, number);
      if (g_stat (path, &st) != 0)
        {
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "its shard '%s' is gone: %s", path,
                       g_strerror (errno));
          sqlite3_finalize (stmt);
          return NULL;
        }
      if ((gint64) st.st_size != sqlite3_column_int64 (stmt, 2) ||
          (gint64) st.st_mtime != sqlite3_column_int64 (stmt, 3))
        {
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                       "its shard '%s' changed after the catalog was made: make it again"
                       " (deja catalog)", path);
          sqlite3_finalize (stmt);
          return NULL;
        }
      /* (what a writer committed may still be in its log, the file as it was) */
      if (!shard_whole (path, path, error))
        {
          sqlite3_finalize (stmt);
          return NULL;
        }
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      _store_fail (store, rc, "cannot read the catalog", error);
      return NULL;
    }
  {
    StoreShards *set = _store_shards_new ((const char *const *) paths->pdata, (const gint64 *) numbers->data,
                                          paths->len);

    _store_shards_deja_only (set);
    return set;
  }
}

/**
 * _store_catalog_open:
 *
 * Where @store's database is a catalog (it has deja_catalog_shards),
 * makes its connection read the shards.  Called by every open; one that
 * did not finish is refused but where @unfinished (the reader beside
 * the threading of the deja making it).
 */
gboolean
_store_catalog_open (Store *store, gboolean unfinished, GError **error)
{
  gint64 one = 0;
  gboolean found = FALSE;
  StoreShards *set;

  if (!_store_query_int (store, "SELECT 1 FROM sqlite_schema WHERE name = 'deja_catalog_shards'"
                         " AND type = 'table'", &one, &found, error))
    return FALSE;
  if (!found)
    return TRUE;
  if (!unfinished)
    {
      if (!_store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'catalog'", &one, &found, error))
        return FALSE;
      if (found)
        {
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                       "a catalog whose making did not finish (deja was stopped): make it again"
                       " (deja catalog) in a new file");
          return FALSE;
        }
    }
  if ((set = read_shards (store, error)) == NULL)
    return FALSE;
  store->catalog = TRUE;
  return read_in_place (store, set, error);
}

/* How the catalog names shard @path: from its own folder when the shard
 * is under it (the two move together), else from the root. */
static char *
stored_path (Store *store, const char *path)
{
  g_autofree char *shard = g_canonicalize_filename (path, NULL);
  g_autofree char *folder = g_path_get_dirname (store->path);
  g_autofree char *base = g_canonicalize_filename (folder, NULL);
  g_autofree char *prefix = g_str_has_suffix (base, G_DIR_SEPARATOR_S) ? g_strdup (base)
                            : g_strconcat (base, G_DIR_SEPARATOR_S, NULL);

  if (g_str_has_prefix (shard, prefix))
    return g_strdup (shard + strlen (prefix));
  return g_steal_pointer (&shard);
}

/* Attaches @path as "shard", read-only. */
static gboolean
attach (Store *store, const char *path, GError **error)
{
  g_autofree char *uri = _store_file_uri (path, "mode=ro");
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, "ATTACH ?1 AS shard", &stmt);

  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, uri, -1, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (stmt));
      sqlite3_finalize (stmt);
    }
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot attach it", error);
}

static void
detach (Store *store)
{
  sqlite3_exec (store->db, "DETACH shard", NULL, NULL, NULL);
}

/* Attaches @path as "shard" in a transaction begun, where @check (one
 * of store.c's _store_attached_is_*()) finds it may be read; else says
 * @refusal. */
static gboolean
attach_and_begin (Store *store, const char *path, gboolean (*check) (Store *, gboolean *, GError **),
                  const char *refusal, GError **error)
{
  gboolean may = FALSE;

  if (!attach (store, path, error))
    return FALSE;
  if (!_store_exec_sql (store, "BEGIN IMMEDIATE", error))
    {
      detach (store);
      return FALSE;
    }
  if (check (store, &may, error) && may)
    return TRUE;
  if (!may && error && *error == NULL)
    g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s", refusal);
  _store_exec_sql (store, "ROLLBACK", NULL);
  detach (store);
  return FALSE;
}

/* Ends what attach_and_begin() began: commits where @ok, else rolls
 * back; detaches.  Returns whether it was committed. */
static gboolean
end_attached (Store *store, gboolean ok, GError **error)
{
  ok = ok && _store_exec_sql (store, "COMMIT", error);
  if (!ok)
    _store_exec_sql (store, "ROLLBACK", NULL);
  detach (store);
  return ok;
}

/* Takes shard @path into the catalog being made: checks it and copies
 * what is the catalog's own; says its number and the first and last id
 * of its messages (@ids). */
static gboolean
take_shard (Store *store, const char *path, gint64 *number, StoreIdRange *ids, GError **error)
{
  GStatBuf st;
  gboolean found = FALSE;

  if (g_stat (path, &st) != 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot read it: %s", g_strerror (errno));
      return FALSE;
    }
  if (!shard_whole (path, NULL, error))
    return FALSE;
  if (!attach_and_begin (store, path, _store_attached_is_current,
                         "made by an older deja, or with work left: open it once with this deja"
                         " (deja stats --db)", error))
    return FALSE;
  if (!_store_query_int (store, number_sql, number, NULL, error))
    goto fail;
  if (*number == 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "not a numbered shard: a catalog reads shards made with 'deja ingest --shard N'"
                   " (deja merge takes any database)");
      goto fail;
    }
  if (*number < 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "it holds no messages");
      goto fail;
    }
  if (!_store_query_int (store, "SELECT min(id) FROM shard.messages", &ids->first, &found, error) ||
      !_store_query_int (store, "SELECT max(id) FROM shard.messages", &ids->last, &found, error))
    goto fail;
  {
    sqlite3_stmt *stmt;
    int rc = _store_prepare_sql (store, "SELECT 1 FROM deja_catalog_shards WHERE number = ?1", &stmt);
    gboolean taken = FALSE;

    if (rc == SQLITE_OK)
      {
        sqlite3_bind_int64 (stmt, 1, *number);
        rc = sqlite3_step (stmt);
        taken = rc == SQLITE_ROW;
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_finalize (stmt);
      }
    if (rc != SQLITE_OK)
      {
        _store_fail (store, rc, "cannot read the catalog", error);
        goto fail;
      }
    if (taken)
      {
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                     "another shard of the set has its number, %" G_GINT64_FORMAT, *number);
        goto fail;
      }
  }
  for (guint i = 0; i < G_N_ELEMENTS (copy_sql) + STORE_N_DECISIONS; i++)
    {
      const char *sql = i < G_N_ELEMENTS (copy_sql) ? copy_sql[i] : _store_decisions_sql[i - G_N_ELEMENTS (copy_sql)];
      int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);

      if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        {
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                       "a file of it is in another shard of the set too (its path or its content):"
                       " merge them (deja merge), which keeps one");
          goto fail;
        }
      if (rc != SQLITE_OK)
        {
          _store_fail (store, rc, "cannot read it", error);
          goto fail;
        }
    }
  {
    sqlite3_stmt *stmt;
    g_autofree char *named = stored_path (store, path);
    int rc = _store_prepare_sql (store, "INSERT INTO deja_catalog_shards (number, path, bytes, modified)"
                                 " VALUES (?1, ?2, ?3, ?4)", &stmt);

    if (rc == SQLITE_OK)
      {
        sqlite3_bind_int64 (stmt, 1, *number);
        sqlite3_bind_text (stmt, 2, named, -1, SQLITE_STATIC);
        sqlite3_bind_int64 (stmt, 3, st.st_size);
        sqlite3_bind_int64 (stmt, 4, st.st_mtime);
        rc = _store_done (sqlite3_step (stmt));
        sqlite3_finalize (stmt);
      }
    if (rc != SQLITE_OK)
      {
        _store_fail (store, rc, "cannot write the catalog", error);
        goto fail;
      }
  }
  return end_attached (store, TRUE, error);

fail:
  return end_attached (store, FALSE, error);
}

/* Takes the decisions @path holds (authors', separators', threads
 * joined by subject) into the catalog being made, as a shard's are
 * taken: those made in a catalog before (deja authors, deja thread
 * --subject on it), which its shards do not hold, or those of any deja
 * database.  The later of two decisions on the same addresses wins, as
 * in a merge. */
static gboolean
take_decisions (Store *store, const char *path, GError **error)
{
  gboolean ok = TRUE;

  if (!attach_and_begin (store, path, _store_attached_is_this_version,
                         "not a deja database of this version: open it once with this deja (deja stats --db)",
                         error))
    return FALSE;
  for (guint i = 0; ok && i < STORE_N_DECISIONS; i++)
    ok = _store_exec_sql (store, _store_decisions_sql[i], error);
  /* and how its threads were last made: joined by subject too (deja
   * thread --subject), which the catalog's threading then does; the
   * addresses they name: their messages are given authors again */
  ok = ok && _store_exec_sql (store, "INSERT OR REPLACE INTO main.deja_state (key, value) SELECT key, value"
                              " FROM shard.deja_state WHERE key = 'threading' AND value = 'subject'", error) &&
       _store_exec_sql (store, MOVED_BY_DECISIONS_SQL, error);
  return end_attached (store, ok, error);
}

static gint
by_first (gconstpointer a, gconstpointer b)
{
  const StoreIdRange *x = a, *y = b;

  return (x->first > y->first) - (x->first < y->first);
}

/**
 * store_catalog_make:
 * @store: a new, empty database
 * @shards: (array length=n): the shards' databases
 * @decisions: (nullable): a deja database whose decisions the catalog
 *   takes too (a catalog made before, which holds those made in it)
 * @each: (nullable): called with each shard before it is taken (progress)
 * @failed: (out): the shard that was refused, when one was
 * @ranges: (out) (transfer full): of StoreIdRange, each shard's message
 *   ids, for threading what crosses shards (threads_rebuild_beside())
 *
 * Makes @store a catalog of @shards, in one transaction: what is the
 * set's own is copied, the rest is read where it lies.  Threads and
 * authors are then computed over the set, as after a merge (the
 * commands' finish.c), on @store.
 */
gboolean
store_catalog_make (Store *store, const char *const *shards, guint n, const char *decisions,
                    StoreCatalogEach each, gpointer data, const char **failed, GArray **ranges,
                    GError **error)
{
  gint64 messages = 1;
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (StoreIdRange));
  g_autoptr (GTimer) timer = g_timer_new ();
  gboolean deferred = FALSE;
  StoreShards *set;

  *failed = NULL;
  *ranges = NULL;
  if (!_store_query_int (store, "SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM files)"
                         " + (SELECT count(*) FROM sqlite_schema WHERE name = 'deja_catalog_shards')",
                         &messages, NULL, error))
    return FALSE;
  if (messages != 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "it is not a new database: a catalog is made in a file of its own");
      return FALSE;
    }
  /* A shard is attached outside a transaction (SQLite detaches none
   * inside one): each is a transaction of its own, and a catalog that
   * fails half-way is deleted (deja catalog) */
  if (!_store_exec_sql (store, "PRAGMA foreign_keys = OFF", error) ||
      !_store_exec_sql (store, "BEGIN IMMEDIATE;" CATALOG_UNFINISHED_SQL "; COMMIT", error) ||
      !_store_exec_sql (store, catalog_sql, error) ||
      !_store_exec_sql (store, "CREATE TEMP TABLE catalog_files (path TEXT UNIQUE, sha256 BLOB UNIQUE);"
                        "CREATE TEMP TABLE catalog_moved (address TEXT PRIMARY KEY);" STAGED_SQL, error))
    return FALSE;
  /* Each shard's newsgroup rows go all over message_newsgroups_group, so
   * each shard's commit wrote most of that index again (realistic 1 GiB
   * in 64 shards: 11,300 pages of 16 KiB for a catalog of 1,300): it is
   * built once, after the last shard (store-indexes.c), and the catalog's
   * own tables of messages, empty, lose nothing by it.  Commits: 0.25 s
   * to 0.06 s. */
  if (!store_defer_indexes (store, STORE_DEFER_ALL, &deferred, error))
    return FALSE;
  /* The TEMP tables of copy_sql change at every shard's commit, their
   * rows all over them: their rollback journal is kept in memory while
   * the shards are taken, not written to a file each time (256 shards of
   * the realistic 1 GiB: the shards' rows 2.02-2.49 -> 1.57-1.78 s; 64:
   * 1.01-1.47 -> 0.83-0.96 s) */
  if (!_store_exec_sql (store, "PRAGMA temp.journal_mode = MEMORY", error))
    return FALSE;
  g_timer_start (timer);
  for (guint i = 0; i < n; i++)
    {
      gint64 number = 0;
      StoreIdRange ids = { 0, 0 };

      if (each)
        each (shards[i], data);
      if (!take_shard (store, shards[i], &number, &ids, error))
        {
          *failed = shards[i];
          return FALSE;
        }
      g_array_append_val (found, ids);
    }
  /* in the order of their ids, for the threads each shard keeps
   * (store_plan_threads()) */
  g_array_sort (found, by_first);
  if (decisions && !take_decisions (store, decisions, error))
    {
      *failed = decisions;
      return FALSE;
    }
  if (!_store_exec_sql (store, "DROP TABLE temp.catalog_files", error))
    return FALSE;
  if (!_store_exec_sql (store, staged_sql, error))
    {
      _store_exec_sql (store, "ROLLBACK", NULL);
      return FALSE;
    }
  /* (threading's TEMP tables, of every message, journal to a file again) */
  if (!_store_exec_sql (store, "PRAGMA temp.journal_mode = DELETE", error))
    return FALSE;
  if (deferred && !store_build_deferred_indexes (store, error))
    return FALSE;
  g_debug ("catalog: shards' own rows copied in %.2f s", g_timer_elapsed (timer, NULL));
  g_timer_start (timer);
  if ((set = read_shards (store, error)) == NULL)
    return FALSE;
  store->catalog = TRUE;
  if (!read_in_place (store, set, error))
    return FALSE;
  store->placeholders_in_shards = TRUE;
  {
    int rc = _store_exec_sql (store, "BEGIN IMMEDIATE", error) ? _store_shards_keep_extents (set, store->db)
                                                                : SQLITE_ERROR;

    if (rc != SQLITE_OK || !_store_exec_sql (store, "COMMIT", error))
      {
        _store_exec_sql (store, "ROLLBACK", NULL);
        return rc == SQLITE_OK ? FALSE : _store_fail (store, rc, "cannot write the catalog", error);
      }
  }
  /* Each message has the author its address has in the set, as a merge
   * gives it before the authors are found again over everything: a
   * shard told the people of an address apart that the set may not */
  if (!_store_exec_sql (store, "BEGIN IMMEDIATE; " AUTHOR_OF_ADDRESS "; COMMIT", error))
    {
      _store_exec_sql (store, "ROLLBACK", NULL);
      return FALSE;
    }
  if (!_store_exec_sql (store, "DROP TABLE temp.catalog_moved", error))
    return FALSE;
  g_debug ("catalog: authors of addresses in %.2f s", g_timer_elapsed (timer, NULL));
  *ranges = g_steal_pointer (&found);
  return TRUE;
}

/**
 * store_catalog_finish:
 *
 * Marks the catalog @store is making as made: threads and authors have
 * been computed over its set.
 */
gboolean
store_catalog_finish (Store *store, GError **error)
{
  return _store_exec_sql (store, "DELETE FROM deja_state WHERE key = 'catalog'", error);
}
