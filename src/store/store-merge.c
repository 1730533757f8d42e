/* store-merge.c — a shard database's rows into this one (deja merge).
 *
 * A shard is an ordinary deja database made by 'deja ingest' from part of
 * an archive.  Merging it copies what its files gave — files, messages,
 * references, newsgroups, attachments, separator log, FTS entries, the
 * per-message text analysis — and the decisions people made in it, under
 * new ids after every id here, in one transaction (small shards share
 * one: store_merge_shards()): a shard that fails or is interrupted leaves
 * this database as it was before it.  What depends on the
 * whole corpus (threads, duplicate copies, authors) is marked stale, for
 * threads_rebuild() and authors_update() to compute again over
 * everything, as after an ingest.  The files follow ingest's rules: a
 * path already here with the same content is left alone, content already
 * here under another path is not stored twice, and a path here with other
 * content has its rows replaced.
 */
#include "store-private.h"
#include "profile.h"
#include "identity.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* Columns of messages whose shard values mean nothing here: ids of other
 * rows and of authors (computed again), and the row's own id and file. */
/* A shard's threads, parents and duplicates are kept (shifted) where they
 * point at a message that comes along: threading over everything then
 * rewrites only the rows whose thread changed (a reply in one shard to a
 * post in another), not every row, which with the text of every message
 * costs as much as the copy.  A parent or a canonical copy in a file that
 * stays behind (its content is here under another path) is NULL until
 * then.  Authors are the ones here with the same address, or new
 * provisional ones (as an ingest makes), grouped by
 * authors_update(). */
#define COMES_ALONG(column) \
  "CASE WHEN EXISTS (SELECT 1 FROM temp.merge_ids i WHERE i.id = " column ")" \
  " THEN " column " + :base END"
static const struct {
  const char *column;
  const char *value;
} message_overrides[] = {
  { "id", "m.id + :base" },
  { "file_id", "f.out_id" },
  { "thread_id", "m.thread_id + :base" },
  { "parent_id", COMES_ALONG ("m.parent_id") },
  { "duplicate_of", COMES_ALONG ("m.duplicate_of") },
  { "author_id", "(SELECT a.author_id FROM main.author_addresses a WHERE a.address = m.from_addr)" },
};

/* Every other column of messages is copied as it is: a column a later
 * schema adds is merged without a change here. */
static gboolean
messages_sql (Store *store, char **sql, GError **error)
{
  sqlite3_stmt *stmt;
  g_autoptr (GString) columns = g_string_new (NULL);
  g_autoptr (GString) values = g_string_new (NULL);
  int rc = _store_prepare_sql (store, "SELECT name FROM pragma_table_info('messages', 'main')"
                               " ORDER BY cid", &stmt);

  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      const char *value = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (message_overrides); i++)
        if (strcmp (name, message_overrides[i].column) == 0)
          value = message_overrides[i].value;
      g_string_append_printf (columns, "%s\"%s\"", columns->len ? ", " : "", name);
      if (value)
        g_string_append_printf (values, "%s%s", values->len ? ", " : "", value);
      else
        g_string_append_printf (values, "%sm.\"%s\"", values->len ? ", " : "", name);
      rc = SQLITE_OK;
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read the columns of messages", error);
  *sql = g_strdup_printf ("INSERT INTO main.messages (%s) SELECT %s FROM shard.messages m"
                          " JOIN temp.merge_files f ON f.shard_id = m.file_id ORDER BY m.id",
                          columns->str, values->str);
  return TRUE;
}

/* The ids of the shard's messages that come along (their file does),
 * which the rows that hang off them are joined with (temp.merge_ids is
 * made with temp.merge_files, by take_files()).  Read from the shard's
 * index on file_id: joining each of those rows with the shard's messages
 * instead read the table's pages again for each kind of row. */
static const char ids_sql[] =
  "INSERT INTO temp.merge_ids (id) SELECT m.id FROM shard.messages m"
  " WHERE m.file_id IN (SELECT shard_id FROM temp.merge_files)";

/* IDENTITY_KEYED_BASE, and the end of keyed ids (2^53), in SQL */
#define KEYED_BASE_SQL "4503599627370496"
#define KEYED_END_SQL "9007199254740992"
G_STATIC_ASSERT (IDENTITY_KEYED_BASE == G_GINT64_CONSTANT (4503599627370496));

/* The rows that hang off the copied messages and files; :base is the
 * highest message id before the merge (a shard's message N is N + :base
 * here). */
/* Provisional authors for the addresses new here, numbered after every
 * author there is (but those keyed by address: identity_keyed_id()), in
 * the order their first messages come. */
static const char *const authors_sql[] = {
  "INSERT INTO main.authors (id, name, address, messages)"
  " SELECT (SELECT coalesce(max(id), 0) FROM main.authors WHERE id < " KEYED_BASE_SQL ")"
  " + row_number () OVER (ORDER BY min(m.id)),"
  " m.from_addr, m.from_addr, 0 FROM shard.messages m CROSS JOIN temp.merge_ids i ON i.id = m.id"
  " WHERE m.from_addr IS NOT NULL"
  " AND NOT EXISTS (SELECT 1 FROM main.author_addresses a WHERE a.address = m.from_addr)"
  " GROUP BY m.from_addr",
  "INSERT INTO main.author_addresses (address, author_id, messages)"
  " SELECT a.address, a.id, 0 FROM main.authors a"
  " WHERE NOT EXISTS (SELECT 1 FROM main.author_addresses x WHERE x.address = a.address)",
};

/* A shard's messages copied as SQLite stored them (its transfer of a
 * table into another: records and index entries as they are, not a row
 * read and written again), where every value of theirs is the one it
 * gets here: ids kept (a shard made with --shard N), every file come and
 * under its own id, the references inside the shard, and each address
 * with the author id it has here, or new here (a shard's author ids are
 * keyed by address: identity_keyed_id()).  The 1 GiB in 8 shards: the
 * shards' messages in 1.8-2.1 s this way against 3.7-3.8 s row by row
 * (three merges each, in turns).  SQLite
 * does so only when it does not check foreign keys: the group is merged
 * so where it replaces no file (keys_unchecked).  Each check says why
 * not, for --verbose. */
static const struct {
  const char *sql;
  const char *why;
} stored_checks[] = {
  { "SELECT NOT EXISTS (SELECT 1 FROM temp.merge_files WHERE out_id <> shard_id)",
    "its files have other ids here (a shard made without --shard N, or by an older deja)" },
  { "SELECT (SELECT sql FROM main.sqlite_schema WHERE name = 'messages')"
    " IS (SELECT sql FROM shard.sqlite_schema WHERE name = 'messages')",
    "its table of messages is declared otherwise" },
  /* Through its indexes: none of these reads the rows */
  { "SELECT NOT EXISTS (SELECT 1 FROM shard.messages m INDEXED BY messages_parent"
    "  WHERE m.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shard.messages p WHERE p.id = m.parent_id))"
    " AND NOT EXISTS (SELECT 1 FROM shard.messages m INDEXED BY messages_duplicate_of"
    "  WHERE m.duplicate_of IS NOT NULL"
    "  AND NOT EXISTS (SELECT 1 FROM shard.messages p WHERE p.id = m.duplicate_of))"
    " AND NOT EXISTS (SELECT 1 FROM shard.messages m INDEXED BY messages_file"
    "  WHERE m.file_id NOT IN (SELECT id FROM shard.files))"
    " AND NOT EXISTS (SELECT 1 FROM shard.messages m INDEXED BY messages_author"
    "  WHERE m.author_id IS NOT NULL AND m.author_id NOT IN (SELECT id FROM shard.authors))"
    " AND NOT EXISTS (SELECT 1 FROM shard.author_addresses a"
    "  WHERE a.author_id NOT IN (SELECT id FROM shard.authors))",
    "some of its messages point at rows it does not have" },
  /* Ids a deja gives (a stranger's shard could hold any) */
  { "SELECT NOT EXISTS (SELECT 1 FROM shard.authors WHERE id < 1 OR id >= " KEYED_END_SQL ")",
    "its author ids are not ones deja gives" },
  /* A shared address's people are authors by their names (docs/people.md) */
  { "SELECT NOT EXISTS (SELECT 1 FROM shard.authors WHERE shared_address IS NOT NULL)"
    " AND NOT EXISTS (SELECT 1 FROM main.authors WHERE shared_address IS NOT NULL)",
    "an address here or there is shared by several people" },
};

/* The shard's addresses that have another author id here (an address
 * its shard grouped otherwise, or a shard's authors numbered 1, 2, 3),
 * their messages found through the shard's index of senders: a few are
 * given this database's author after the copy as stored (their rows
 * written again); more than an eighth of the shard's messages, and the
 * shard goes row by row. */
#define AUTHORS_DIFFER \
  " (SELECT s.address FROM shard.author_addresses s JOIN main.author_addresses a" \
  "  ON a.address = s.address WHERE a.author_id IS NOT s.author_id)"
static const char authors_differ_sql[] =
  "SELECT count(*) FROM shard.messages m INDEXED BY messages_sender WHERE m.from_addr IN" AUTHORS_DIFFER;
static const char authors_fix_sql[] =
  "UPDATE main.messages SET author_id = (SELECT a.author_id FROM main.author_addresses a"
  " WHERE a.address = main.messages.from_addr) WHERE id IN (SELECT m.id FROM shard.messages m"
  " INDEXED BY messages_sender WHERE m.from_addr IN" AUTHORS_DIFFER ")";

/* Its authors and addresses new here, under their own ids from :least
 * on (provisional, as authors_sql's: authors_update() writes them all at
 * the end): all of them for a copy as stored; its keyed ones otherwise,
 * so that the shards after it still agree with this database (an
 * address's messages all have one author here, whichever it is: where
 * a shard's id is another author's here, authors_update() tells them
 * apart). */
static const char *const own_authors_sql[] = {
  "INSERT INTO main.authors (id, name, address, messages) SELECT a.id, a.address, a.address, 0"
  " FROM shard.authors a WHERE a.id >= :least AND a.id < " KEYED_END_SQL
  " AND NOT EXISTS (SELECT 1 FROM main.authors x WHERE x.id = a.id) ORDER BY a.id",
  "INSERT INTO main.author_addresses (address, author_id, messages) SELECT a.address, a.author_id, 0"
  " FROM shard.author_addresses a WHERE a.author_id >= :least AND a.author_id < " KEYED_END_SQL
  " AND NOT EXISTS (SELECT 1 FROM main.author_addresses x WHERE x.address = a.address)",
};

/* No column list and every column: SQLite's transfer (with a column
 * list, or a table declared otherwise, it fails to compile: one value
 * too many, the generated own_text, and the rows are copied as always). */
static const char stored_messages_sql[] = "INSERT INTO main.messages SELECT * FROM shard.messages";

/* A statement that copies the rows of one of the shard's tables. */
typedef struct {
  const char *table;       /* the shard's table it reads */
  const char *sql;
} ShardRows;

static const ShardRows rows_sql[] = {
  { "message_refs",
    "INSERT INTO main.message_refs (message_id, kind, position, ref)"
    " SELECT r.message_id + :base, r.kind, r.position, r.ref FROM shard.message_refs r"
    " CROSS JOIN temp.merge_ids i ON i.id = r.message_id" },
  { "attachments",
    "INSERT INTO main.attachments (message_id, position, content_type, filename, size, encoding)"
    " SELECT a.message_id + :base, a.position, a.content_type, a.filename, a.size, a.encoding"
    " FROM shard.attachments a CROSS JOIN temp.merge_ids i ON i.id = a.message_id ORDER BY a.id" },
  { "newsgroups",
    "INSERT OR IGNORE INTO main.newsgroups (name) SELECT name FROM shard.newsgroups ORDER BY id" },
  /* A duplicate's groups were merged into its canonical copy (merged =
   * 1) by the shard's threading: threading here does it again. */
  { "message_newsgroups",
    "INSERT OR IGNORE INTO main.message_newsgroups (message_id, newsgroup_id, merged)"
    " SELECT mg.message_id + :base, g2.id, 0 FROM shard.message_newsgroups mg"
    " CROSS JOIN temp.merge_ids i ON i.id = mg.message_id"
    " JOIN shard.newsgroups g ON g.id = mg.newsgroup_id JOIN main.newsgroups g2 ON g2.name = g.name"
    " WHERE mg.merged = 0" },
  { "separator_log",
    "INSERT INTO main.separator_log (file_id, line_no, byte_offset, line_text, verdict, reason, shape)"
    " SELECT f.out_id, l.line_no, l.byte_offset, l.line_text, l.verdict, l.reason, l.shape"
    " FROM shard.separator_log l JOIN temp.merge_files f ON f.shard_id = l.file_id ORDER BY l.id" },
  { "usenet_headers",
    "INSERT INTO main.usenet_headers (message_id, path, control, cancels, supersedes, approved,"
    " followup_to) SELECT u.message_id + :base, u.path, u.control, u.cancels, u.supersedes,"
    " u.approved, u.followup_to FROM shard.usenet_headers u"
    " CROSS JOIN temp.merge_ids i ON i.id = u.message_id" },
  { "links",
    "INSERT INTO main.links (message_id, position, url, normalized, host, domain, wayback)"
    " SELECT l.message_id + :base, l.position, l.url, l.normalized, l.host, l.domain, l.wayback"
    " FROM shard.links l CROSS JOIN temp.merge_ids i ON i.id = l.message_id ORDER BY l.id" },
  /* Kept with the threads they hold together where threading keeps
   * those (pipeline/threads.c); otherwise it replaces them all.  One
   * that another shard has too is in a component threaded again. */
  { "thread_placeholders",
    "INSERT OR IGNORE INTO main.thread_placeholders (message_id, thread_id, children)"
    " SELECT p.message_id, p.thread_id + :base, p.children FROM shard.thread_placeholders p"
    " CROSS JOIN temp.merge_ids i ON i.id = p.thread_id" },
};

/* People's decisions: where both databases decided the same thing, the
 * later decision stands, as it would in one database (a catalog takes
 * its shards' so too: store-catalog.c). */
const char *const _store_decisions_sql[STORE_N_DECISIONS] = {
  "INSERT INTO main.separator_decisions (file_sha256, line_no, decision, note, decided_at)"
  " SELECT file_sha256, line_no, decision, note, decided_at FROM shard.separator_decisions WHERE 1"
  " ON CONFLICT (file_sha256, line_no) DO UPDATE SET decision = excluded.decision,"
  " note = excluded.note, decided_at = excluded.decided_at"
  " WHERE excluded.decided_at > separator_decisions.decided_at",
  "INSERT INTO main.author_decisions (address, other, decision, note, decided_at)"
  " SELECT address, other, decision, note, decided_at FROM shard.author_decisions WHERE 1"
  " ON CONFLICT (address, other) DO UPDATE SET decision = excluded.decision,"
  " note = excluded.note, decided_at = excluded.decided_at"
  " WHERE excluded.decided_at > author_decisions.decided_at",
};
static const ShardRows decisions_sql[] = {
  { "separator_decisions", NULL },
  { "author_decisions", NULL },
};

/* Runs @sql with @value bound to its parameter @name (if it has it) */
static gboolean
run_with (Store *store, const char *sql, const char *name, gint64 value, gint64 *changes, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, sql, &stmt);
  int index;

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot merge", error);
  if ((index = sqlite3_bind_parameter_index (stmt, name)) > 0)
    sqlite3_bind_int64 (stmt, index, value);
  rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot merge", error);
  if (changes)
    *changes += sqlite3_changes64 (store->db);
  return TRUE;
}

static gboolean
run (Store *store, const char *sql, gint64 base, gint64 *changes, GError **error)
{
  return run_with (store, sql, ":base", base, changes, error);
}

/* Which of @rows read a table the shard holds rows in (bit i for
 * rows[i]), asked in one query: most shards have no attachments, Usenet
 * headers or decisions, and the INSERT for an empty table cost more to
 * compile (0.07-0.14 ms) than its EXISTS.  The table names are this
 * file's constants, not data. */
static gboolean
shard_tables_with_rows (Store *store, const ShardRows *rows, guint n, guint64 *with_rows,
                        GError **error)
{
  g_autoptr (GString) sql = g_string_new ("SELECT ");
  sqlite3_stmt *stmt;
  int rc;

  g_assert (n <= 64);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (sql, "%sEXISTS (SELECT 1 FROM shard.%s)", i ? ", " : "", rows[i].table);
  if ((rc = _store_prepare_sql (store, sql->str, &stmt)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the shard", error);
  *with_rows = 0;
  if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    for (guint i = 0; i < n; i++)
      *with_rows |= (guint64) (sqlite3_column_int (stmt, (int) i) != 0) << i;
  sqlite3_finalize (stmt);
  return rc == SQLITE_ROW ? TRUE : _store_fail (store, rc, "cannot read the shard", error);
}

typedef struct {
  gint64 id;
  char *path, *sha256;
} ShardFile;

static void
shard_file_clear (ShardFile *f)
{
  g_free (f->path);
  g_free (f->sha256);
}

/* Removes the rows of @path here (other content under that path), FTS
 * entries first: external content, they are deleted with the values
 * they were made of.  Rare, so its statements are prepared when it
 * happens: the DELETE compiles every cascade (1.3 ms), and the other
 * uses messages_fts on this connection, which ends a group of shards
 * (store_merge_shards()). */
static gboolean
drop_path (Store *store, const char *path, GError **error)
{
  sqlite3_stmt *fts_delete, *drop;
  int rc;

  store->fts_used = TRUE;
  if ((fts_delete = _store_stmt (store, STMT_FTS_DELETE_FILE, error)) == NULL)
    return FALSE;
  sqlite3_bind_text (fts_delete, 1, path, -1, SQLITE_STATIC);
  rc = sqlite3_step (fts_delete);
  sqlite3_reset (fts_delete);
  sqlite3_clear_bindings (fts_delete);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot merge the shard's files", error);
  if ((rc = sqlite3_prepare_v2 (store->db, "DELETE FROM main.files WHERE path = ?1", -1, &drop, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot merge the shard's files", error);
  sqlite3_bind_text (drop, 1, path, -1, SQLITE_STATIC);
  rc = sqlite3_step (drop);
  sqlite3_finalize (drop);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot merge the shard's files", error);
}

/* Which of the shard's files come in (ingest's rules, file by file, in
 * the shard's order), with the ids they get here: their own where they
 * come after every file here (a shard's files are numbered as its
 * messages are), else the next ones. */
static gboolean
take_files (Store *store, StoreMergeCounts *counts, GError **error)
{
  static const char copy_sql[] =
    "INSERT INTO main.files (id, path, size, stored_size, mtime, sha256, compression, messages, lines,"
    " ingested_at, deja_version) SELECT CASE WHEN id > (SELECT coalesce(max(id), 0) FROM main.files)"
    " THEN id END, path, size, stored_size, mtime, sha256, compression,"
    " messages, lines, ingested_at, deja_version FROM shard.files WHERE id = ?1";
  g_autoptr (GArray) files = g_array_new (FALSE, TRUE, sizeof (ShardFile));
  sqlite3_stmt *list = NULL, *same = NULL, *known = NULL, *copy = NULL, *map = NULL;
  gboolean told = FALSE;
  int rc;

  g_array_set_clear_func (files, (GDestroyNotify) shard_file_clear);
  rc = sqlite3_exec (store->db, "CREATE TEMP TABLE IF NOT EXISTS merge_files (shard_id INTEGER"
                     " PRIMARY KEY, out_id INTEGER NOT NULL); DELETE FROM temp.merge_files;"
                     " CREATE TEMP TABLE IF NOT EXISTS merge_ids (id INTEGER PRIMARY KEY);"
                     " DELETE FROM temp.merge_ids",
                     NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (store, "SELECT id, path, sha256 FROM shard.files ORDER BY id", &list);
  while (rc == SQLITE_OK && (rc = sqlite3_step (list)) == SQLITE_ROW)
    {
      ShardFile f = { sqlite3_column_int64 (list, 0),
                      g_strdup ((const char *) sqlite3_column_text (list, 1)),
                      g_strdup ((const char *) sqlite3_column_text (list, 2)) };

      g_array_append_val (files, f);
      rc = SQLITE_OK;
    }
  sqlite3_finalize (list);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read the shard's files", error);
  /* The same content: under this path (unchanged), or another one (not
   * stored twice).  '' is the hash of files recorded before version 5,
   * which is no content. */
  rc = _store_prepare_sql (store, "SELECT path = ?2 FROM main.files WHERE sha256 = ?1 AND ?1 <> ''"
                           " ORDER BY path = ?2 DESC LIMIT 1", &same);
  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (store, "SELECT 1 FROM main.files WHERE path = ?1", &known);
  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (store, copy_sql, &copy);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO temp.merge_files (shard_id, out_id) VALUES (?1, ?2)",
                             -1, &map, NULL);
  for (guint i = 0; rc == SQLITE_OK && i < files->len; i++)
    {
      const ShardFile *f = &g_array_index (files, ShardFile, i);

      sqlite3_bind_text (same, 1, f->sha256, -1, SQLITE_STATIC);
      sqlite3_bind_text (same, 2, f->path, -1, SQLITE_STATIC);
      rc = sqlite3_step (same);
      if (rc == SQLITE_ROW)
        {
          if (sqlite3_column_int (same, 0))
            counts->unchanged++;
          else
            counts->same_content++;
          sqlite3_reset (same);
          rc = SQLITE_OK;
          continue;
        }
      sqlite3_reset (same);
      if (rc != SQLITE_DONE)
        break;
      sqlite3_bind_text (known, 1, f->path, -1, SQLITE_STATIC);
      rc = sqlite3_step (known);
      sqlite3_reset (known);
      if (rc == SQLITE_ROW)
        {
          if (!drop_path (store, f->path, error))
            {
              told = TRUE;
              break;
            }
          counts->replaced++;
        }
      else if (rc != SQLITE_DONE)
        break;
      sqlite3_bind_int64 (copy, 1, f->id);
      rc = sqlite3_step (copy);
      sqlite3_reset (copy);
      if (rc != SQLITE_DONE)
        break;
      sqlite3_bind_int64 (map, 1, f->id);
      sqlite3_bind_int64 (map, 2, sqlite3_last_insert_rowid (store->db));
      rc = sqlite3_step (map);
      sqlite3_reset (map);
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
      counts->files++;
    }
  sqlite3_finalize (same);
  sqlite3_finalize (known);
  sqlite3_finalize (copy);
  sqlite3_finalize (map);
  if (told)
    return FALSE;
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot merge the shard's files", error);
}

static int
check_cancel (void *data)
{
  const volatile int *cancel = data;

  return *cancel != 0;
}

/* The shard exists and is not this database itself. */
static gboolean
check_other_file (Store *store, const char *shard, GError **error)
{
  GStatBuf a;

  if (g_stat (shard, &a) != 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s", g_strerror (errno));
      return FALSE;
    }
  if (a.st_dev == store->dev && a.st_ino == store->ino)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "it is the database merged into");
      return FALSE;
    }
  return TRUE;
}

/* Where the shards of a group are attached (_store_prepare_sql() reads
 * "shard." in the SQL here as the one being merged). */
static const char *const slot_schema[STORE_MERGE_GROUP] = {
  "shard", "shard1", "shard2", "shard3", "shard4", "shard5", "shard6", "shard7",
};

/* The URI @shard is attached by: as it is; in a read-only place,
 * immutable, unless an ingest that did not finish left a log beside it,
 * which that would not read (its committed pages missed in silence).
 * Then it is read with the log, through the log's index, where
 * store_open_to_read() can read it so, and refused where it cannot (its
 * error names the log).  A shard another deja is writing is refused: its
 * files so far would go in, and the rest be missing from the result
 * without a word. */
static char *
shard_uri (const char *shard, GError **error)
{
  g_autoptr (Store) other = NULL;

  if (_store_claimed_by_another (shard))
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "another deja is writing it (an ingest or a"
                   " merge under way): merge it when that has ended");
      return NULL;
    }
  if (!_store_cannot_write_beside (shard))
    return _store_file_uri (shard, NULL);
  if (!_store_left_a_log (shard, NULL))
    return _store_file_uri (shard, "immutable=1");
  if ((other = store_open_to_read (shard, error)) == NULL)
    return NULL;
  return _store_file_uri (shard, "mode=ro");
}

/* Attaches @shard to @writer in @slot, as it lies: nothing is written to
 * it (but for SQLite's own recovery: a transaction a killed merge into it
 * left in a rollback journal is rolled back), and as the last connection
 * SQLite removes the log files it made beside it. */
static gboolean
attach (Store *writer, const char *shard, guint slot, GError **error)
{
  g_autofree char *uri = shard_uri (shard, error);
  sqlite3_stmt *stmt;
  int rc;

  if (uri == NULL)
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (writer->db, "ATTACH DATABASE ?1 AS ?2", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (writer, rc, "cannot open the shard", error);
  sqlite3_bind_text (stmt, 1, uri, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, slot_schema[slot], -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (writer, rc, "cannot open the shard", error);
  return TRUE;
}

static void
detach (Store *writer, guint slot)
{
  sqlite3_stmt *stmt;

  if (sqlite3_prepare_v2 (writer->db, "DETACH DATABASE ?1", -1, &stmt, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_text (stmt, 1, slot_schema[slot], -1, SQLITE_STATIC);
  sqlite3_step (stmt);
  sqlite3_finalize (stmt);
}

/* Whether the shard in @slot is a deja database of this schema with
 * nothing left to build.  Its identity is read where it is attached,
 * before any of its tables is, in a read-only place too. */
static gboolean
slot_is_current (Store *writer, guint slot, gboolean *current, GError **error)
{
  writer->shard_schema = slot_schema[slot];
  return _store_attached_is_current (writer, current, error);
}

/* Attaches @shard in slot 0 once it is current (an older one is upgraded
 * first, where it can be written). */
static gboolean
attach_first (Store *writer, const char *shard, GError **error)
{
  g_autoptr (Store) other = NULL;
  gboolean current = FALSE;

  if (!attach (writer, shard, 0, error))
    return FALSE;
  if (!slot_is_current (writer, 0, &current, error))
    {
      detach (writer, 0);
      return FALSE;
    }
  writer->shard_opened = !current;
  if (current)
    return TRUE;
  detach (writer, 0);
  if ((other = store_open_to_read (shard, error)) == NULL)
    return FALSE;
  g_clear_pointer (&other, store_close);
  return attach (writer, shard, 0, error);
}

/* Attaches the shards after the first that go into its transaction: up
 * to STORE_MERGE_GROUP, and STORE_MERGE_GROUP_BYTES of files, each one
 * current.  The first that is not, or that cannot be attached, waits for
 * a group of its own, where it is upgraded or named.  Returns how many
 * shards the group has. */
static guint
attach_others (Store *writer, const char *const *shards, guint n)
{
  gint64 bytes = 0;
  guint k;

  for (k = 0; k < n && k < STORE_MERGE_GROUP; k++)
    {
      gboolean current = FALSE;
      GStatBuf st;

      if (g_stat (shards[k], &st) != 0 || (bytes += st.st_size) > STORE_MERGE_GROUP_BYTES)
        break;
      if (k == 0)
        continue;
      if (!check_other_file (writer, shards[k], NULL) || !attach (writer, shards[k], k, NULL))
        break;
      if (!slot_is_current (writer, k, &current, NULL) || !current)
        {
          detach (writer, k);
          break;
        }
    }
  return MAX (k, 1);
}

/* Whether no file of the group's @n shards takes the place of another:
 * no path of theirs is here or in two of them with other content (or
 * none known: files recorded before version 5).  Then the merge deletes
 * nothing, and every row it copies points at rows here or copied with it
 * (the joins with temp.merge_files and temp.merge_ids, the shards' own
 * references checked through their indexes: stored_checks), so the group
 * goes in without SQLite checking foreign keys, as SQLite copies a table
 * as stored only then.  The schema names are this file's constants. */
static gboolean
group_replaces_nothing (Store *writer, guint n)
{
  g_autoptr (GString) sql = g_string_new ("SELECT NOT EXISTS (SELECT 1 FROM (SELECT path, min(sha256) AS sha,"
                                          " count(DISTINCT sha256) AS contents, count(*) AS n FROM (");
  sqlite3_stmt *stmt;
  gboolean none;

  for (guint k = 0; k < n; k++)
    g_string_append_printf (sql, "%sSELECT path, sha256 FROM %s.files", k ? " UNION ALL " : "", slot_schema[k]);
  g_string_append (sql, ") GROUP BY path) p WHERE p.contents > 1 OR (p.sha = '' AND p.n > 1)"
                   " OR EXISTS (SELECT 1 FROM main.files f WHERE f.path = p.path"
                   " AND (f.sha256 <> p.sha OR f.sha256 = '')))");
  if (sqlite3_prepare_v2 (writer->db, sql->str, -1, &stmt, NULL) != SQLITE_OK)
    return FALSE;
  none = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_int (stmt, 0) == 1;
  sqlite3_finalize (stmt);
  return none;
}

/* The shard's full-text entries: its index copied where its messages
 * all came under their own ids (store-fts-copy.c), else made again from
 * the rows copied after @after.  Says why not copied in @counts. */
static gboolean
index_text (Store *store, gboolean copy, gboolean whole, gint64 base, gint64 after,
            StoreMergeCounts *counts, GError **error)
{
  gint64 started = profile_start ();

  if (!copy)
    counts->fts_rebuilt = "asked to (--reindex)";
  else if (!whole)
    counts->fts_rebuilt = "some of its files are here already (or their content is)";
  else if (base != 0)
    counts->fts_rebuilt = "its message ids do not all come after those here"
                          " (ingest shards with --shard N, merge them in that order)";
  else if (!_store_fts_copy (store, STORE_FTS_COPY_SHARD, NULL, &counts->fts_rebuilt, error))
    return FALSE;
  store->fts_used = store->fts_used || counts->fts_rebuilt != NULL;
  /* (run() binds :base; here it is @after, the rows this merge added) */
  if (counts->fts_rebuilt &&
      !run (store, "INSERT INTO main.messages_fts (rowid, subject, own_text)"
                   " SELECT id, subject, own_text FROM main.messages WHERE id > :base",
            after, NULL, error))
    return FALSE;
  profile_stop (PROFILE_FTS, started);
  return TRUE;
}

/* Why the shard's messages cannot be copied as stored (a static string),
 * or NULL; and how many of them then get this database's author after
 * the copy (@fix). */
static gboolean
stored_copy_refused (Store *store, gboolean whole, gint64 base, const char **why, gint64 *fix,
                     GError **error)
{
  *why = NULL;
  *fix = 0;
  if (!store->keys_unchecked)
    *why = "a file of its group replaces one (foreign keys checked)";
  else if (!whole)
    *why = "some of its files are here already (or their content is)";
  else if (base != 0)
    *why = "its message ids do not all come after those here";
  for (guint i = 0; *why == NULL && i < G_N_ELEMENTS (stored_checks); i++)
    {
      sqlite3_stmt *stmt;
      int rc = _store_prepare_sql (store, stored_checks[i].sql, &stmt);

      /* An index a shard lacks (INDEXED BY) is a no, not an error */
      if (rc != SQLITE_OK)
        {
          *why = stored_checks[i].why;
          break;
        }
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW && sqlite3_column_int (stmt, 0) == 0)
        *why = stored_checks[i].why;
      sqlite3_finalize (stmt);
      if (rc != SQLITE_ROW)
        return _store_fail (store, rc, "cannot merge", error);
    }
  if (*why == NULL)
    {
      gint64 differ = -1, messages = 0;
      sqlite3_stmt *stmt;
      int rc = _store_prepare_sql (store, authors_differ_sql, &stmt);

      if (rc == SQLITE_OK)
        {
          if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
            differ = sqlite3_column_int64 (stmt, 0);
          sqlite3_finalize (stmt);
          if (rc != SQLITE_ROW)
            return _store_fail (store, rc, "cannot merge", error);
        }
      if (!_store_query_int (store, "SELECT count(*) FROM shard.messages", &messages, NULL, error))
        return FALSE;
      /* (-1: the shard has no index of senders) */
      if (differ < 0 || differ > messages / 8)
        *why = "its authors have other ids here (a shard made without --shard N, or by an older deja)";
      *fix = MAX (differ, 0);
    }
  return TRUE;
}

/* The shard's messages, as stored or row by row (with their new authors
 * first: provisional ones numbered after those here for the latter). */
static gboolean
copy_messages (Store *store, gboolean whole, gint64 base, StoreMergeCounts *counts, GError **error)
{
  g_autofree char *messages = NULL;
  sqlite3_stmt *stmt;
  gint64 fix;

  if (!stored_copy_refused (store, whole, base, &counts->rows_rebuilt, &fix, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (own_authors_sql); i++)
    if (!run_with (store, own_authors_sql[i], ":least", counts->rows_rebuilt ? IDENTITY_KEYED_BASE : G_MININT64,
                   NULL, error))
      return FALSE;
  if (counts->rows_rebuilt == NULL)
    {
      if (_store_prepare_sql (store, stored_messages_sql, &stmt) == SQLITE_OK)
        {
          int rc = sqlite3_step (stmt);

          sqlite3_finalize (stmt);
          if (rc != SQLITE_DONE)
            return _store_fail (store, rc, "cannot merge", error);
          counts->messages += sqlite3_changes64 (store->db);
          return fix == 0 || run (store, authors_fix_sql, 0, &counts->authors_moved, error);
        }
      counts->rows_rebuilt = "SQLite cannot copy them as stored";
    }
  for (guint i = 0; i < G_N_ELEMENTS (authors_sql); i++)
    if (!run (store, authors_sql[i], 0, NULL, error))
      return FALSE;
  return messages_sql (store, &messages, error) && run (store, messages, base, &counts->messages, error);
}

static gboolean
merge_rows (Store *store, gboolean copy_index, StoreMergeCounts *counts, GError **error)
{
  gint64 base, after, first, shard_files, by_subject, started, stale;
  guint64 with_rows;
  gboolean subject = FALSE, whole;

  if (!_store_query_int (store, "SELECT count(*) FROM shard.files", &shard_files, NULL, error) ||
      !take_files (store, counts, error))
    return FALSE;
  /* Nothing here was replaced or left out, and messages_fts not used */
  whole = counts->files == shard_files && counts->replaced == 0;
  if (!shard_tables_with_rows (store, decisions_sql, G_N_ELEMENTS (decisions_sql), &with_rows, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (decisions_sql); i++)
    if ((with_rows >> i & 1) && !run (store, _store_decisions_sql[i], 0, &counts->decisions, error))
      return FALSE;
  if (counts->files == 0)
    return TRUE;
  if (!run (store, ids_sql, 0, NULL, error))
    return FALSE;
  started = profile_start ();
  /* A shard whose ids all come after those here keeps them (a shard made
   * with --shard N, or the first); the others' are shifted after them. */
  if (!_store_query_int (store, "SELECT coalesce(max(id), 0) FROM main.messages", &after, NULL, error) ||
      !_store_query_int (store, "SELECT coalesce(min(id), 0) FROM shard.messages", &first, NULL, error))
    return FALSE;
  base = first > after ? 0 : after;
  if (!copy_messages (store, whole, base, counts, error))
    return FALSE;
  profile_stop (PROFILE_MESSAGES, started);
  started = profile_start ();
  if (!shard_tables_with_rows (store, rows_sql, G_N_ELEMENTS (rows_sql), &with_rows, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (rows_sql); i++)
    if ((with_rows >> i & 1) && !run (store, rows_sql[i].sql, base, NULL, error))
      return FALSE;
  profile_stop (PROFILE_OTHER_ROWS, started);
  if (!index_text (store, copy_index, whole, base, after, counts, error))
    return FALSE;
  /* Where the shard came whole and had threaded its messages, threading
   * may keep what it found in a component of them no other shard
   * touches (StoreThreadKeep): the range of their ids here says which. */
  counts->whole = whole;
  if (!_store_query_int (store, "SELECT min(id) FROM temp.merge_ids", &counts->ids.first, NULL, error) ||
      !_store_query_int (store, "SELECT max(id) FROM temp.merge_ids", &counts->ids.last, NULL, error) ||
      !_store_query_int (store, "SELECT 1 FROM shard.deja_state WHERE key = 'threads'", &stale,
                         &counts->threaded, error))
    return FALSE;
  counts->ids.first += base;
  counts->ids.last += base;
  /* Nor where it was upgraded: its threads may be an older deja's (one
   * before thread columns, or before the least damaged copy was the
   * canonical one); nor an older one in a read-only place, read as it
   * lies. */
  counts->threaded = !counts->threaded &&
                     !(store->shard_opened && strcmp (store->shard_schema, slot_schema[0]) == 0);
  /* Threads and authors are computed again over everything; a shard
   * threaded by subject ('deja thread --subject') makes this database so. */
  if (!_store_query_int (store, "SELECT 1 FROM shard.deja_state WHERE key = 'threading'"
                         " AND value = 'subject'", &by_subject, &subject, error) ||
      (subject && !run (store, "INSERT OR REPLACE INTO main.deja_state (key, value)"
                               " VALUES ('threading', 'subject')", 0, NULL, error)) ||
      !run (store, "INSERT OR REPLACE INTO main.deja_state (key, value)"
                   " VALUES ('threads', 'stale'), ('authors', 'stale')", 0, NULL, error))
    return FALSE;
  counts->threaded = counts->threaded && !subject;
  return TRUE;
}

static void
fail_result (StoreMergeResult *r, GError *error)
{
  g_clear_error (&r->error);
  r->error = error;
}

/* The shards of the group that had gone in: undone with the transaction
 * (SQLite rolled it back, or COMMIT failed) */
static void
undo_results (StoreMergeResult *results, guint n, const char *why)
{
  for (guint i = 0; i < n; i++)
    if (results[i].error == NULL)
      fail_result (&results[i], g_error_new (STORE_ERROR, STORE_ERROR_SQLITE, "rolled back with the"
                                             " shards merged beside it: %s", why));
}

/* Merges the group attached to @writer in one transaction.  Returns how
 * many of the shards were tried: fewer than @n when one used FTS5 (the
 * next shard's index could not be copied on this connection) or when
 * @cancel was set.  A shard after the first that fails undoes the
 * transaction, and *@again says how many shards before it to merge
 * again without it.  None of those used FTS5 (the group ends after one
 * that does), and the rollback made FTS5 forget what it had read, so
 * their indexes are copied again as the first time.  A savepoint for
 * each shard instead made SQLite
 * keep, in a temporary file, the pages a shard changed that the shards
 * before it had (twisted-python, 8 shards: 3 % slower). */
static guint
merge_group (Store *writer, guint n, gboolean copy_index, const volatile int *cancel,
             StoreMergeResult *results, guint *again)
{
  GError *error = NULL;
  gint64 started;
  guint i;

  *again = 0;
  memset (results, 0, n * sizeof *results);
  writer->fts_used = FALSE;
  if (sqlite3_exec (writer->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    {
      _store_fail (writer, sqlite3_errcode (writer->db), "cannot begin", &error);
      fail_result (&results[0], error);
      return 1;
    }
  for (i = 0; i < n; i++)
    {
      gint64 shard_started = g_get_monotonic_time ();

      /* A group of small shards is not interrupted half-way (SQLite
       * would undo the whole transaction): it stops between them. */
      if (cancel && *cancel && i > 0)
        break;
      writer->shard_schema = slot_schema[i];
      if (!merge_rows (writer, copy_index, &results[i].counts, &error))
        {
          if (sqlite3_get_autocommit (writer->db) == 0)
            sqlite3_exec (writer->db, "ROLLBACK", NULL, NULL, NULL);
          if (i > 0)
            {
              g_clear_error (&error);
              *again = i;
              return i;
            }
          if (cancel && *cancel)
            {
              g_clear_error (&error);
              error = g_error_new (STORE_ERROR, STORE_ERROR_CANCELLED, "interrupted");
            }
          fail_result (&results[0], error);
          return 1;
        }
      results[i].seconds = (g_get_monotonic_time () - shard_started) / 1e6;
      if ((cancel && *cancel) || writer->fts_used)
        {
          i++;
          break;
        }
    }
  started = profile_start ();
  if (sqlite3_exec (writer->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    {
      _store_fail (writer, sqlite3_errcode (writer->db), "cannot commit", &error);
      if (sqlite3_get_autocommit (writer->db) == 0)
        sqlite3_exec (writer->db, "ROLLBACK", NULL, NULL, NULL);
      undo_results (results, i, error->message);
      g_clear_error (&error);
    }
  profile_stop (PROFILE_COMMIT, started);
  return i;
}

/**
 * store_merge_shards:
 * @shards: (array length=n): deja databases (made by deja ingest, or by
 *   an earlier merge), in the order they are merged
 * @copy_index: take each shard's full-text index as it is where it can
 *   be (store-fts-copy.c); %FALSE: build it again from the rows
 * @cancel: (nullable): when it becomes non-zero, the merge stops
 * @results: (array length=n) (out caller-allocates): what came of each
 *   shard tried; the caller clears their errors
 *
 * Copies the first of @shards, and as many after it as go into the same
 * transaction, into @store, with everything that hangs off their files.
 * Small shards go together, up to STORE_MERGE_GROUP of them and
 * STORE_MERGE_GROUP_BYTES: each commit writes again the last page of
 * every table and index it touched (64 KiB pages in a large database),
 * which cost a shard of 2 MiB 7 ms.  A shard that fails leaves @store as
 * it was before it (results[i].error) and the others go in; when the
 * commit itself fails (a full disk), the results of the whole group say
 * so.  @cancel set during a shard alone rolls it back; a group stops
 * after the shard under way.  Threads and authors are left stale
 * (store_threads_stale()): call threads_rebuild() and authors_update()
 * after the last shard.
 *
 * Returns: how many of @shards were tried (at least one when @n > 0):
 *   the caller goes on from there
 */
guint
store_merge_shards (Store *store, const char *const *shards, guint n, gboolean copy_index,
                    const volatile int *cancel, StoreMergeResult *results)
{
  g_autoptr (Store) writer = NULL;
  GError *error = NULL;
  guint group, attached, tried, again;

  if (n == 0)
    return 0;
  memset (results, 0, n * sizeof *results);
  /* A connection of its own, on which messages_fts has not been used:
   * FTS5 would not see a copy of the index made on one where it had
   * (store-fts-copy.c).  This one sees the copy on its next use, after
   * the commit.  It leaves alone the indexes deja merge deferred into an
   * empty database (store-indexes.c): they are built after the last
   * shard, not on each shard's opening.  (One connection kept for all
   * the groups while FTS5 is not used on it was no faster: 64 shards,
   * less CPU in SQLite, more in the kernel.) */
  if (!check_other_file (store, shards[0], &error) ||
      (writer = _store_open_second (store, &error)) == NULL || !attach_first (writer, shards[0], &error))
    {
      fail_result (&results[0], error);
      return 1;
    }
  /* Into an empty OUT, whose secondary indexes wait for the end, the
   * shards' rows are appended in id order, each page written once: as
   * through a scan, a large page cache only costs (the 1 GiB in 8
   * shards: messages rows 4.7-5.0 s through 64 MiB, 2.8-2.9 s through 4
   * or 16 MiB).  Into one that holds messages, the indexes take keys
   * everywhere and a small cache wrote their pages again and again
   * (twisted-python, 63 shards into the first one's result: 3.4 s
   * against 2.9). */
  if (store->indexes_deferred)
    _store_scan_cache (writer, TRUE);
  group = attached = attach_others (writer, shards, n);
  /* Interrupting a statement undoes the whole transaction: only a
   * shard alone is interrupted half-way. */
  if (cancel && group == 1)
    sqlite3_progress_handler (writer->db, 10000, check_cancel, (void *) cancel);
  /* Outside a transaction, where SQLite takes it */
  if (group_replaces_nothing (writer, group))
    _store_keys_unchecked_from_here (writer);
  /* A shard that fails after the first: the shards before it again,
   * then it alone, in a group of its own (where it fails again, with
   * its reason) */
  while ((tried = merge_group (writer, group, copy_index, cancel, results, &again)), again > 0)
    group = again;
  _store_keys_checked_again (writer);
  sqlite3_progress_handler (writer->db, 0, NULL, NULL);
  for (guint k = 0; k < attached; k++)
    detach (writer, k);
  /* Newsgroup ids and provisional authors are read again. */
  g_hash_table_remove_all (store->group_ids);
  _store_forget_authors (store);
  return tried;
}
