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
#include "id-hash.h"

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

#define ADDRESS_AUTHOR "(SELECT a.author_id FROM author_addresses a WHERE a.address = messages.from_addr)"
#define AUTHOR_OF_ADDRESS \
  "UPDATE messages SET author_id = " ADDRESS_AUTHOR \
  " WHERE from_addr IN (SELECT address FROM temp.catalog_moved) AND author_id IS NOT " ADDRESS_AUTHOR

/* A shard's number, from its ids (every message and file of shard N has
 * an id in N x 2^32 + 1 ... (N + 1) x 2^32 - 1); 0 when they are not. */
static const char number_sql[] =
  "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM shard.messages) THEN -1"
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

/* Takes the decisions @path holds (authors', separators'; with
 * @threading, threads joined by subject) into the catalog being made:
 * a shard's that holds some, or those of a catalog made before (deja
 * authors, deja thread --subject on it), which its shards do not hold,
 * or of any deja database.  The later of two decisions on the same
 * addresses wins, as in a merge. */
static gboolean
take_decisions (Store *store, const char *path, gboolean threading, GError **error)
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
  ok = ok && (!threading ||
              _store_exec_sql (store, "INSERT OR REPLACE INTO main.deja_state (key, value) SELECT key, value"
                               " FROM shard.deja_state WHERE key = 'threading' AND value = 'subject'", error)) &&
       _store_exec_sql (store, MOVED_BY_DECISIONS_SQL, error);
  return end_attached (store, ok, error);
}

/* ---- the shards taken: each read on its own connection, at once ---- */

/* What a shard is, as check_shard() finds it */
typedef struct {
  gint64 number;
  StoreIdRange ids;
  gint64 decisions;       /* it holds people's decisions (taken by take_decisions()) */
  gint64 messages;        /* (for the caller's progress) */
} ShardFacts;

static const char decisions_held_sql[] =
  "SELECT EXISTS (SELECT 1 FROM shard.separator_decisions) OR EXISTS (SELECT 1 FROM shard.author_decisions)";

/* In a worker, on shard @i's own connection @db: whether it may be
 * catalogued (a deja database of this version with no work left, not a
 * catalog, numbered, with messages), and its facts.  store.c's checks
 * of a shard attached, where its "shard." is the connection's "main."
 * (_store_prepare_sql()). */
static char *
check_shard (sqlite3 *db, guint i, gpointer data)
{
  ShardFacts *facts = &((ShardFacts *) data)[i];
  Store probe = { .db = db, .shard_schema = "main" };
  g_autoptr (GError) error = NULL;
  gboolean current = FALSE;

  if (!_store_attached_is_current (&probe, &current, &error))
    return g_strdup (error->message);
  if (!current)
    return g_strdup ("made by an older deja, or with work left: open it once with this deja (deja stats --db)");
  if (!_store_query_int (&probe, number_sql, &facts->number, NULL, &error))
    return g_strdup (error->message);
  if (facts->number == 0)
    return g_strdup ("not a numbered shard: a catalog reads shards made with 'deja ingest --shard N'"
                     " (deja merge takes any database)");
  if (facts->number < 0)
    return g_strdup ("it holds no messages");
  if (!_store_query_int (&probe, "SELECT min(id) FROM shard.messages", &facts->ids.first, NULL, &error) ||
      !_store_query_int (&probe, "SELECT max(id) FROM shard.messages", &facts->ids.last, NULL, &error) ||
      !_store_query_int (&probe, decisions_held_sql, &facts->decisions, NULL, &error) ||
      !_store_query_int (&probe, "SELECT count(*) FROM shard.messages", &facts->messages, NULL, &error))
    return g_strdup (error->message);
  return NULL;
}

/* An address's author as the first shard that has it says; moved where
 * a later one says another: its messages may have another author in the
 * set than in that shard */
typedef struct {
  gint64 author_id;
  gboolean moved;
} AddressAuthor;

/* ---- deja_pairs(P): rows (a, b) of integers from memory ----
 *
 * A shard's rows of message_newsgroups go in by one INSERT ... SELECT
 * from this table of the pairs read in the shard, bound as a pointer
 * (sqlite3_bind_pointer(), of type "deja_pairs"): stepped once a row,
 * an INSERT seeks its place from the root each time, where one
 * statement appends to the page its cursor is on (the realistic 1 GiB's
 * 575,080 rows: 0.59-0.67 s against 0.23-0.32 s). */

typedef struct {
  const gint64 *values;     /* a, b, a, b ... */
  gsize n;                  /* pairs */
} Pairs;

typedef struct {
  sqlite3_vtab_cursor base;
  const Pairs *pairs;
  gsize at;
} PairsCursor;

static int
pairs_connect (sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **vtab, char **error)
{
  int rc = sqlite3_declare_vtab (db, "CREATE TABLE x (a INTEGER, b INTEGER, pairs HIDDEN)");

  (void) aux, (void) argc, (void) argv, (void) error;
  if (rc == SQLITE_OK && (*vtab = sqlite3_malloc (sizeof **vtab)) == NULL)
    return SQLITE_NOMEM;
  if (rc == SQLITE_OK)
    memset (*vtab, 0, sizeof **vtab);
  return rc;
}

static int
pairs_disconnect (sqlite3_vtab *vtab)
{
  sqlite3_free (vtab);
  return SQLITE_OK;
}

/* Read only with its pointer given (= on the hidden column) */
static int
pairs_best_index (sqlite3_vtab *vtab, sqlite3_index_info *info)
{
  (void) vtab;
  for (int i = 0; i < info->nConstraint; i++)
    if (info->aConstraint[i].iColumn == 2 && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ &&
        info->aConstraint[i].usable)
      {
        info->aConstraintUsage[i].argvIndex = 1;
        info->aConstraintUsage[i].omit = 1;
        info->estimatedCost = 1;
        return SQLITE_OK;
      }
  return SQLITE_CONSTRAINT;
}

static int
pairs_open (sqlite3_vtab *vtab, sqlite3_vtab_cursor **cursor)
{
  PairsCursor *c = sqlite3_malloc (sizeof *c);

  (void) vtab;
  if (c == NULL)
    return SQLITE_NOMEM;
  memset (c, 0, sizeof *c);
  *cursor = &c->base;
  return SQLITE_OK;
}

static int
pairs_close (sqlite3_vtab_cursor *cursor)
{
  sqlite3_free (cursor);
  return SQLITE_OK;
}

static int
pairs_filter (sqlite3_vtab_cursor *cursor, int index, const char *index_name, int argc, sqlite3_value **argv)
{
  PairsCursor *c = (PairsCursor *) cursor;

  (void) index, (void) index_name;
  c->pairs = argc == 1 ? sqlite3_value_pointer (argv[0], "deja_pairs") : NULL;
  c->at = 0;
  return SQLITE_OK;
}

static int
pairs_next (sqlite3_vtab_cursor *cursor)
{
  ((PairsCursor *) cursor)->at++;
  return SQLITE_OK;
}

static int
pairs_eof (sqlite3_vtab_cursor *cursor)
{
  PairsCursor *c = (PairsCursor *) cursor;

  return c->pairs == NULL || c->at >= c->pairs->n;
}

static int
pairs_column (sqlite3_vtab_cursor *cursor, sqlite3_context *ctx, int column)
{
  PairsCursor *c = (PairsCursor *) cursor;

  if (column < 2)
    sqlite3_result_int64 (ctx, c->pairs->values[2 * c->at + (gsize) column]);
  return SQLITE_OK;
}

static int
pairs_rowid (sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid)
{
  *rowid = (sqlite3_int64) ((PairsCursor *) cursor)->at;
  return SQLITE_OK;
}

static sqlite3_module pairs_module = {
  .xConnect = pairs_connect,
  .xBestIndex = pairs_best_index,
  .xDisconnect = pairs_disconnect,
  .xOpen = pairs_open,
  .xClose = pairs_close,
  .xFilter = pairs_filter,
  .xNext = pairs_next,
  .xEof = pairs_eof,
  .xColumn = pairs_column,
  .xRowid = pairs_rowid,
};

/* What the shards' records are taken into, shard after shard */
typedef struct {
  Store *store;
  const char *const *paths;
  const ShardFacts *facts;  /* of each, once checked */
  guint at;                 /* the shard whose records come next */
  StoreCatalogEach each;
  gpointer each_data;
  sqlite3_stmt *stmt[2];    /* the statements of the scan under way */
  GHashTable *seen[2];      /* the set's file paths and contents (GBytes) -> SeenFile */
  GHashTable **groups;      /* of each shard: its newsgroup ids -> the catalog's (gint64 *) */
  GHashTable *addresses;    /* address (GBytes) -> AddressAuthor */
  guint twice;              /* files the set holds twice (take_files()) */
  int rc;                   /* the first failure, */
  guint failed;             /* its shard (G_MAXUINT: none), */
  char *why;                /* and what it was, when not the connection's */
} Taking;

static void
taking_fail (Taking *t, int rc, const char *why)
{
  if (t->rc != SQLITE_OK)
    return;
  t->rc = rc;
  t->failed = t->at;
  t->why = why ? g_strdup (why) : NULL;
}

static GBytes *
unpack_bytes (const GArray *records, gsize *at)
{
  gint32 length;
  const char *text = _store_unpack_text (records, at, &length);

  return text ? g_bytes_new (text, (gsize) length) : NULL;
}

static void
convert_texts (sqlite3_stmt *stmt, GArray *records)
{
  for (int column = 0; column < (sqlite3_column_count) (stmt); column++)
    _store_pack_text (records, stmt, column);
}

static void
convert_ints (sqlite3_stmt *stmt, GArray *records)
{
  for (int column = 0; column < (sqlite3_column_count) (stmt); column++)
    _store_pack_int (records, (sqlite3_column_int64) (stmt, column));
}

static void
convert_int_text (sqlite3_stmt *stmt, GArray *records)
{
  _store_pack_int (records, (sqlite3_column_int64) (stmt, 0));
  _store_pack_text (records, stmt, 1);
}

/* Where a path or a content was first seen: its shard, and the path
 * it had there */
typedef struct {
  guint shard;
  GBytes *path;
} SeenFile;

static void
seen_file_free (gpointer data)
{
  SeenFile *seen = data;

  if (seen->path)
    g_bytes_unref (seen->path);
  g_free (seen);
}

/* A path's bytes as text, for a message */
static char *
path_text (GBytes *path)
{
  gsize length = 0;
  const char *bytes = path ? g_bytes_get_data (path, &length) : NULL;

  return bytes ? g_utf8_make_valid (bytes, (gssize) length) : g_strdup ("(no path)");
}

/* What is wrong with a file of shard @t->at that @other holds too (its
 * path, @k 0; its content, @k 1) */
static char *
held_twice (const Taking *t, guint k, GBytes *path, const SeenFile *other)
{
  g_autofree char *mine = path_text (path);
  g_autofree char *theirs = path_text (other->path);

  if (k == 0)
    return g_strdup_printf ("its file '%s' is in another shard of the set too, '%s'", mine,
                            t->paths[other->shard]);
  return g_strdup_printf ("its file '%s' is in another shard of the set too, '%s', as '%s' (the same content)",
                          mine, t->paths[other->shard], theirs);
}

/* Each path and each content once in the set: a merge keeps one of
 * two, a catalog cannot leave rows out of a shard.  The refusal names
 * both files and the other shard: most often a month kept plain and
 * compressed (pipermail's 2004-March.txt and 2004-March.txt.gz), cut
 * into two shards, and then more than one; the first is the refusal's,
 * every one is a debug line (--verbose), and their number is counted
 * (take_shards() says it). */
static void
take_files (const GArray *records, gpointer data)
{
  Taking *t = data;
  gsize at = 0;

  while (at < records->len)
    {
      GBytes *value[2];

      value[0] = unpack_bytes (records, &at);
      value[1] = unpack_bytes (records, &at);
      for (guint k = 0; k < 2; k++)
        {
          const SeenFile *other = value[k] ? g_hash_table_lookup (t->seen[k], value[k]) : NULL;
          SeenFile *seen;

          if (other)
            {
              g_autofree char *why = held_twice (t, k, value[0], other);

              g_debug ("%s: %s", t->paths[t->at], why);
              if (t->twice++ == 0)
                {
                  g_autofree char *advice = g_strconcat (why, k == 0 ? ": merge them (deja merge), which keeps one,"
                                                         " or give each file to one shard"
                                                         : ": merge them (deja merge), which keeps one, or give a"
                                                         " file and its copies (compressed, a zip's member) to"
                                                         " one shard", NULL);

                  taking_fail (t, SQLITE_CONSTRAINT_UNIQUE, advice);
                }
              break;   /* (a path held twice is its content too, most often) */
            }
          if (value[k] == NULL)
            continue;
          seen = g_new (SeenFile, 1);
          *seen = (SeenFile) { t->at, value[0] ? g_bytes_ref (value[0]) : NULL };
          g_hash_table_insert (t->seen[k], g_bytes_ref (value[k]), seen);
        }
      for (guint k = 0; k < 2; k++)
        if (value[k])
          g_bytes_unref (value[k]);
    }
  t->at++;
}

/* The set's newsgroups, each name once, in the order the shards give
 * them; each shard's ids of them mapped to the catalog's */
static void
take_newsgroups (const GArray *records, gpointer data)
{
  Taking *t = data;
  gsize at = 0;

  t->groups[t->at] = deja_id_table_new (g_free, g_free);
  while (t->rc == SQLITE_OK && at < records->len)
    {
      gint64 id = _store_unpack_int (records, &at), catalog = 0;
      gint32 length;
      const char *name = _store_unpack_text (records, &at, &length);
      int rc;

      if (name == NULL)
        continue;   /* (as the join of a merge leaves it out) */
      for (guint k = 0; k < 2; k++)
        sqlite3_bind_text (t->stmt[k], 1, name, length, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (t->stmt[0]));
      sqlite3_reset (t->stmt[0]);
      if (rc == SQLITE_OK && (rc = sqlite3_step (t->stmt[1])) == SQLITE_ROW)
        {
          catalog = sqlite3_column_int64 (t->stmt[1], 0);
          rc = SQLITE_OK;
        }
      sqlite3_reset (t->stmt[1]);
      if (rc != SQLITE_OK)
        taking_fail (t, rc == SQLITE_DONE ? SQLITE_ERROR : rc, NULL);
      else
        g_hash_table_insert (t->groups[t->at], g_memdup2 (&id, sizeof id), g_memdup2 (&catalog, sizeof catalog));
    }
  t->at++;
}

/* Which message is in which of those (deja_pairs) */
static void
take_message_newsgroups (const GArray *records, gpointer data)
{
  Taking *t = data;
  g_autoptr (GArray) values = g_array_sized_new (FALSE, FALSE, sizeof (gint64), records->len / sizeof (gint64));
  Pairs pairs;
  gsize at = 0;
  int rc;

  if (t->rc != SQLITE_OK)
    goto next;
  while (at < records->len)
    {
      gint64 message = _store_unpack_int (records, &at), group = _store_unpack_int (records, &at);
      const gint64 *catalog = g_hash_table_lookup (t->groups[t->at], &group);

      /* (a row of no newsgroup the shard has: the merge's join leaves it out) */
      if (catalog)
        {
          g_array_append_val (values, message);
          g_array_append_val (values, *catalog);
        }
    }
  pairs = (Pairs) { (const gint64 *) values->data, values->len / 2 };
  sqlite3_bind_pointer (t->stmt[0], 1, &pairs, "deja_pairs", NULL);
  rc = _store_done (sqlite3_step (t->stmt[0]));
  sqlite3_reset (t->stmt[0]);
  sqlite3_clear_bindings (t->stmt[0]);
  if (rc != SQLITE_OK)
    taking_fail (t, rc, NULL);
next:
  t->at++;
}

/* Each address's author, the first shard's (authors_update() keeps its
 * id; the authors themselves it writes all anew: none is copied) */
static void
take_addresses (const GArray *records, gpointer data)
{
  Taking *t = data;
  gsize at = 0;

  while (at < records->len)
    {
      gint64 author = _store_unpack_int (records, &at);
      GBytes *address = unpack_bytes (records, &at);
      AddressAuthor *first;

      if (address == NULL)
        continue;
      if ((first = g_hash_table_lookup (t->addresses, address)) != NULL)
        {
          first->moved |= first->author_id != author;
          g_bytes_unref (address);
          continue;
        }
      first = g_new (AddressAuthor, 1);
      *first = (AddressAuthor) { author, FALSE };
      g_hash_table_insert (t->addresses, address, first);
    }
  t->at++;
}

/* The other addresses whose messages may have another author in the
 * set than in the shard: one shared by several people (their messages
 * are given authors by name, not by address) */
static void
take_moved (const GArray *records, gpointer data)
{
  Taking *t = data;
  gsize at = 0;

  while (t->rc == SQLITE_OK && at < records->len)
    {
      gint32 length;
      const char *address = _store_unpack_text (records, &at, &length);
      int rc;

      if (address == NULL)
        continue;
      sqlite3_bind_text (t->stmt[0], 1, address, length, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (t->stmt[0]));
      sqlite3_reset (t->stmt[0]);
      if (rc != SQLITE_OK)
        taking_fail (t, rc, NULL);
    }
  t->at++;
}

/* What each shard gives the catalog's own tables, read in the shard (a
 * worker a CPU) and written here, as deja merge takes them
 * (store-merge.c).  Each row goes to its shard's take, shard after
 * shard. */
static const struct {
  const char *sql;
  StoreShardsRowFunc convert;
  StoreShardsTakeFunc take;
  const char *write[2];
} scans[] = {
  { "SELECT path, sha256 FROM main.files", convert_texts, take_files, { NULL, NULL } },
  { "SELECT id, name FROM main.newsgroups ORDER BY id", convert_int_text, take_newsgroups,
    { "INSERT OR IGNORE INTO main.newsgroups (name) VALUES (?1)", "SELECT id FROM main.newsgroups WHERE name = ?1" } },
  { "SELECT message_id, newsgroup_id FROM main.message_newsgroups WHERE merged = 0", convert_ints,
    take_message_newsgroups,
    { "INSERT OR IGNORE INTO main.message_newsgroups (message_id, newsgroup_id, merged)"
      " SELECT a, b, 0 FROM temp.deja_pairs (?1)", NULL } },
  { "SELECT author_id, address FROM main.author_addresses", convert_int_text, take_addresses, { NULL, NULL } },
  /* (and those people's decisions name: take_decisions()) */
  { "SELECT DISTINCT shared_address FROM main.authors WHERE shared_address IS NOT NULL", convert_texts, take_moved,
    { "INSERT OR IGNORE INTO temp.catalog_moved (address) VALUES (?1)", NULL } },
};

/* The addresses, in the order of their table's key (appended) */
static int
by_address (const void *a, const void *b)
{
  return g_bytes_compare (*(GBytes *const *) a, *(GBytes *const *) b);
}

static int
write_addresses (Taking *t)
{
  guint n_keys = 0;
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array (t->addresses, &n_keys);
  sqlite3_stmt *stmt[2] = { NULL, NULL };
  int rc = _store_prepare_sql (t->store, "INSERT INTO main.author_addresses (address, author_id, messages)"
                               " VALUES (?1, ?2, 0)", &stmt[0]);

  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (t->store, "INSERT OR IGNORE INTO temp.catalog_moved (address) VALUES (?1)", &stmt[1]);
  qsort (keys, n_keys, sizeof *keys, by_address);
  for (guint i = 0; rc == SQLITE_OK && i < n_keys; i++)
    {
      GBytes *address = keys[i];
      const AddressAuthor *first = g_hash_table_lookup (t->addresses, address);
      gsize length;
      const char *text = g_bytes_get_data (address, &length);

      for (guint k = 0; k < 2; k++)
        sqlite3_bind_text (stmt[k], 1, text, (int) length, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt[0], 2, first->author_id);
      rc = _store_done (sqlite3_step (stmt[0]));
      sqlite3_reset (stmt[0]);
      if (rc == SQLITE_OK && first->moved)
        rc = _store_done (sqlite3_step (stmt[1]));
      sqlite3_reset (stmt[1]);
    }
  for (guint k = 0; k < 2; k++)
    sqlite3_finalize (stmt[k]);
  return rc;
}

/* Each shard's row of deja_catalog_shards */
static int
write_shards (Store *store, const char *const *paths, const ShardFacts *facts, const GStatBuf *st, guint n,
              guint *failed)
{
  g_autoptr (GHashTable) numbers = g_hash_table_new (g_int64_hash, g_int64_equal);
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, "INSERT INTO deja_catalog_shards (number, path, bytes, modified)"
                               " VALUES (?1, ?2, ?3, ?4)", &stmt);

  for (guint i = 0; rc == SQLITE_OK && i < n; i++)
    {
      g_autofree char *named = stored_path (store, paths[i]);

      if (!g_hash_table_add (numbers, (gpointer) &facts[i].number))
        {
          *failed = i;
          rc = SQLITE_CONSTRAINT_PRIMARYKEY;
          break;
        }
      sqlite3_bind_int64 (stmt, 1, facts[i].number);
      sqlite3_bind_text (stmt, 2, named, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (stmt, 3, st[i].st_size);
      sqlite3_bind_int64 (stmt, 4, st[i].st_mtime);
      rc = _store_done (sqlite3_step (stmt));
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc;
}

/* A shard checked (and opened: most of what a catalog reads of it
 * alone), said to the caller's StoreCatalogEach */
static void
shard_checked (guint i, gpointer data)
{
  const Taking *t = data;

  t->each (t->paths[i], t->facts[i].messages, t->each_data);
}

/* Takes the shards of @probe (@paths, in the order given) into the
 * catalog being made, in one transaction: checks each, gives it its
 * number (@facts) and copies what is the catalog's own.  @failed: the
 * shard refused, or G_MAXUINT when the failure is no one shard's. */
static gboolean
take_shards (Store *store, StoreShards *probe, const char *const *paths, const GStatBuf *st, guint n,
             StoreCatalogEach each, gpointer data, ShardFacts *facts, guint *failed, GError **error)
{
  Taking t = { .store = store, .paths = paths, .facts = facts, .each = each, .each_data = data,
               .failed = G_MAXUINT, .groups = g_new0 (GHashTable *, MAX (n, 1)),
               .addresses = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                                   g_free) };
  g_autofree char *why = NULL;
  gboolean ok = FALSE;
  int rc;

  *failed = G_MAXUINT;
  for (guint k = 0; k < 2; k++)
    t.seen[k] = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, seen_file_free);
  rc = _store_shards_each (probe, check_shard, facts, t.each ? shard_checked : NULL, &t, failed, &why);
  if (rc == SQLITE_OK && t.each)
    t.each (NULL, 0, t.each_data);   /* what follows is the set's */
  for (guint i = 0; rc == SQLITE_OK && i < n; i++)
    _store_shards_set_number (probe, i, facts[i].number);
  if (rc == SQLITE_OK && !_store_exec_sql (store, "BEGIN IMMEDIATE", error))
    goto done;
  if (rc == SQLITE_OK && (rc = write_shards (store, paths, facts, st, n, failed)) == SQLITE_CONSTRAINT_PRIMARYKEY)
    why = g_strdup_printf ("another shard of the set has its number, %" G_GINT64_FORMAT, facts[*failed].number);
  for (guint s = 0; rc == SQLITE_OK && s < G_N_ELEMENTS (scans); s++)
    {
      t.at = 0;
      for (guint k = 0; rc == SQLITE_OK && k < 2; k++)
        if (scans[s].write[k])
          rc = _store_prepare_sql (store, scans[s].write[k], &t.stmt[k]);
      if (rc == SQLITE_OK)
        rc = _store_shards_scan (probe, scans[s].sql, scans[s].convert, 1, scans[s].take, &t, &why);
      for (guint k = 0; k < 2; k++)
        g_clear_pointer (&t.stmt[k], sqlite3_finalize);
      if (rc == SQLITE_OK && t.rc != SQLITE_OK)
        {
          rc = t.rc;
          *failed = t.failed;
          why = g_steal_pointer (&t.why);
          if (t.twice > 1)
            {
              g_autofree char *first = g_steal_pointer (&why);

              why = g_strdup_printf ("%s; %u more file%s of the set %s in two shards (--verbose names them)", first,
                                     t.twice - 1, t.twice == 2 ? "" : "s", t.twice == 2 ? "is" : "are");
            }
        }
    }
  if (rc == SQLITE_OK)
    rc = write_addresses (&t);
  if (rc == SQLITE_OK && !_store_exec_sql (store, "COMMIT", error))
    {
      _store_exec_sql (store, "ROLLBACK", NULL);
      goto done;
    }
  if (rc != SQLITE_OK)
    {
      if (sqlite3_get_autocommit (store->db) == 0)
        _store_exec_sql (store, "ROLLBACK", NULL);
      if (why && *failed != G_MAXUINT)
        g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s", why);   /* (what is wrong with that shard) */
      else
        _store_fail_why (store, rc, why, "cannot read it", error);
      goto done;
    }
  /* People's decisions, rare in a shard: it is attached for them, as a
   * database given with --decisions is (in the set's order, before it:
   * the later of two decisions on the same thing wins) */
  ok = TRUE;
  for (guint i = 0; ok && i < n; i++)
    if (facts[i].decisions && !(ok = take_decisions (store, paths[i], FALSE, error)))
      *failed = i;

done:
  for (guint i = 0; i < n; i++)
    if (t.groups[i])
      g_hash_table_unref (t.groups[i]);
  g_free (t.groups);
  g_hash_table_unref (t.addresses);
  for (guint k = 0; k < 2; k++)
    g_hash_table_unref (t.seen[k]);
  g_free (t.why);
  return ok;
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
 * @each: (nullable): called with each shard as it is taken (progress)
 * @failed: (out): the shard that was refused, when one was
 * @ranges: (out) (transfer full): of StoreIdRange, each shard's message
 *   ids, for threading what crosses shards (threads_rebuild_beside())
 *
 * Makes @store a catalog of @shards: what is the set's own is copied,
 * the rest is read where it lies.  Threads and authors are then
 * computed over the set, as after a merge (the commands' finish.c), on
 * @store.  A catalog that fails half-way is deleted (deja catalog).
 */
gboolean
store_catalog_make (Store *store, const char *const *shards, guint n, const char *decisions,
                    StoreCatalogEach each, gpointer data, const char **failed, GArray **ranges,
                    GError **error)
{
  gint64 messages = 1;
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (StoreIdRange));
  g_autoptr (GTimer) timer = g_timer_new ();
  g_autofree GStatBuf *st = g_new0 (GStatBuf, MAX (n, 1));
  g_autofree ShardFacts *facts = g_new0 (ShardFacts, MAX (n, 1));
  gboolean deferred = FALSE, ok;
  guint refused = G_MAXUINT;
  StoreShards *set, *probe;

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
  if (!_store_exec_sql (store, "PRAGMA foreign_keys = OFF", error) ||
      !_store_exec_sql (store, "BEGIN IMMEDIATE;" CATALOG_UNFINISHED_SQL "; COMMIT", error) ||
      !_store_exec_sql (store, catalog_sql, error) ||
      !_store_exec_sql (store, "CREATE TEMP TABLE catalog_moved (address TEXT PRIMARY KEY)", error))
    return FALSE;
  if (sqlite3_create_module (store->db, "deja_pairs", &pairs_module, NULL) != SQLITE_OK)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot make the catalog", error);
  /* Each shard's newsgroup rows go all over message_newsgroups_group:
   * it is built once, after the last shard (store-indexes.c), and the
   * catalog's own tables of messages, empty, lose nothing by it */
  if (!store_defer_indexes (store, STORE_DEFER_ALL, &deferred, error))
    return FALSE;
  g_timer_start (timer);
  for (guint i = 0; i < n; i++)
    if (g_stat (shards[i], &st[i]) != 0 || !shard_whole (shards[i], NULL, error))
      {
        if (error == NULL || *error == NULL)
          g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot read it: %s", g_strerror (errno));
        *failed = shards[i];
        return FALSE;
      }
  /* Each shard read on a connection of its own, a worker a CPU (the
   * set's once the catalog reads it), not attached here one after the
   * other, each in a transaction of its own (attaching parses a shard's
   * schema, and SQLite detaches none inside a transaction): the
   * realistic 1 GiB in 1,000 shards, its rows taken 1.8 -> 1.0 s */
  {
    g_autofree gint64 *unknown = g_new0 (gint64, MAX (n, 1));   /* (check_shard() finds them) */

    probe = _store_shards_new (shards, unknown, n);
  }
  ok = take_shards (store, probe, shards, st, n, each, data, facts, &refused, error);
  if (!ok)
    {
      _store_shards_free (probe);
      if (refused != G_MAXUINT)
        *failed = shards[refused];
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    g_array_append_val (found, facts[i].ids);
  /* in the order of their ids, for the threads each shard keeps
   * (store_plan_threads()) */
  g_array_sort (found, by_first);
  if (decisions && !take_decisions (store, decisions, TRUE, error))
    {
      _store_shards_free (probe);
      *failed = decisions;
      return FALSE;
    }
  if (deferred && !store_build_deferred_indexes (store, error))
    {
      _store_shards_free (probe);
      return FALSE;
    }
  g_debug ("catalog: shards' own rows copied in %.2f s", g_timer_elapsed (timer, NULL));
  g_timer_start (timer);
  set = read_shards (store, error);
  if (set)
    _store_shards_adopt (set, probe);
  _store_shards_free (probe);
  if (set == NULL)
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
