/* test-store.c — the store's contracts, one GTest case each, on a
 * database in a scratch folder (WAL needs a file; SQLite's :memory: has
 * no write-ahead log).  SQLite itself is used only to break a database
 * on purpose: "failed" and "not found" must be different answers. */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "store.h"
#include "store-private.h"
#include "mbox.h"
#include "schema.h"

typedef struct {
  char *dir;
  char *path;
  Store *store;
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  f->dir = g_dir_make_tmp ("deja-store-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "t.db", NULL);
  f->store = store_open (f->path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->store);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (f->path, "-shm", NULL);

  g_clear_pointer (&f->store, store_close);
  g_unlink (f->path);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

/* Runs @sql on the database through a connection of its own. */
static void
break_with (Fixture *f, const char *sql)
{
  sqlite3 *db;
  char *message = NULL;

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  sqlite3_exec (db, sql, NULL, NULL, &message);
  g_assert_cmpstr (message, ==, NULL);   /* SQLite's reason, when it failed */
  sqlite3_close (db);
}

static gint64
count (Fixture *f, const char *sql)
{
  sqlite3 *db;
  sqlite3_stmt *stmt;
  gint64 n = -1;

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* Stores one file of one message and one log row. */
/* Begins a file and stores its one message and log line. */
static void
begin_one_file (Fixture *f, const char *path, gboolean *replaced)
{
  g_autoptr (GError) error = NULL;
  const char *refs[] = { "root@example.com" };
  const char *groups[] = { "comp.lang.c" };
  StoreAttachment att = { "image/gif", "a.gif", 42, "mime" };
  StoreFileMeta meta = { .path = path, .size = 100, .stored_size = 100 };
  StoreLogEntry log = { 3, 40, "From what I hear", "body", "prose", 'T' };
  StoreMessage m = { 0 };

  g_assert_true (store_begin_file (f->store, &meta, replaced, &error));
  g_assert_no_error (error);
  m.byte_length = 100;
  m.id = store_message_id (f->store, 0, 0);
  m.line_no = 1;
  m.message_id = "m1@example.com";
  m.subject = "Subject";
  m.from_addr = "a@example.com";
  m.body = "Body text\n";
  m.own_text = "Body text\n";
  m.flags = "no-date";
  m.attachments = &att;
  m.n_attachments = 1;
  m.references = refs;
  m.n_references = 1;
  m.newsgroups = groups;
  m.n_newsgroups = 1;
  m.guess = (StoreThreadGuess) { m.id, 0, 0, "root@example.com", "orphan" };
  g_assert_true (store_add_message (f->store, &m, &error));
  g_assert_true (store_add_log (f->store, &log, &error));
}

static void
store_one_file (Fixture *f, const char *path, const char *sha256, gboolean *replaced)
{
  g_autoptr (GError) error = NULL;

  begin_one_file (f, path, replaced);
  g_assert_true (store_finish_file (f->store, sha256, 1, 10, &error));
  g_assert_no_error (error);
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
}

/* Files are committed together (an ingest of many small files commits
 * every 64 MiB of archive text), each undone alone: a file that fails
 * leaves the files finished before it, which the commit keeps; files left
 * uncommitted are committed by store_close(). */
static void
test_files_are_committed_together_and_undone_alone (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  begin_one_file (f, "/a.mbox", NULL);
  g_assert_true (store_finish_file (f->store, "abc", 1, 10, &error));
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 0);   /* not yet committed */
  begin_one_file (f, "/b.mbox", NULL);
  store_abort_file (f->store);
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count (f, "SELECT count(*) FROM files WHERE path = '/a.mbox'"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'body'"), ==, 1);
  /* A failed first file of a transaction is rolled back with it. */
  begin_one_file (f, "/c.mbox", NULL);
  store_abort_file (f->store);
  g_assert_true (store_commit (f->store, &error));
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 1);
  /* Finished and left uncommitted: closing commits. */
  begin_one_file (f, "/d.mbox", NULL);
  g_assert_true (store_finish_file (f->store, "def", 1, 10, &error));
  g_clear_pointer (&f->store, store_close);
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 2);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 2);
}

static gboolean
count_row (const StoreValue *values, guint n, gpointer user_data)
{
  *(gint64 *) user_data = g_ascii_strtoll (values[0].text, NULL, 10);
  return TRUE;
}

/* Messages matching @match, through the store's own connection (inside
 * its transaction). */
static gint64
search_count (Fixture *f, const char *match)
{
  g_autoptr (GError) error = NULL;
  StoreFilter filter = { .match = match };
  gint64 n = -1;

  g_assert_true (store_search (f->store, &filter, STORE_SEARCH_COUNT, NULL, NULL, count_row, &n, &error));
  g_assert_no_error (error);
  return n;
}

/* Stores @n messages of 64 KiB of own text each, "zebra" in every one. */
static void
add_large_messages (Fixture *f, guint n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);

  while (text->len < 64 * 1024)
    g_string_append (text, "zebra crossing words enough to fill a line of text\n");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *msgid = g_strdup_printf ("large%u@example.com", i);
      StoreMessage m = { 0 };

      m.byte_offset = (gint64) i * 70000;
      m.byte_length = 70000;
      m.id = store_message_id (f->store, m.byte_offset, i + 1);
      m.line_no = 1 + i * 1400;
      m.message_id = msgid;
      m.subject = "large";
      m.from_addr = "a@example.com";
      m.body = m.own_text = text->str;
      m.content_hash = i + 1;
      m.guess = (StoreThreadGuess) { m.id, 0, 0, NULL, "root" };
      g_assert_true (store_add_message (f->store, &m, &error));
      g_assert_no_error (error);
    }
}

/* A file after the first of a transaction keeps its full-text rows for
 * after its savepoint, but no more than 4 MiB of text: past that it
 * indexes them as they come (memory stays bounded whatever the file's
 * size), inside its savepoint, so that rolling it back still takes them
 * all.  FTS5's own check holds after each. */
static void
test_a_large_file_is_indexed_as_it_goes (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  StoreFileMeta meta = { .path = "/large.mbox", .size = 80 * 70000, .stored_size = 80 * 70000 };

  begin_one_file (f, "/a.mbox", NULL);
  g_assert_true (store_finish_file (f->store, "abc", 1, 10, &error));
  /* 40 messages, 2.5 MiB: they wait */
  g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
  add_large_messages (f, 40);
  g_assert_cmpint (search_count (f, "zebra"), ==, 0);
  store_abort_file (f->store);
  /* 80 messages, 5 MiB: past 4 MiB they are indexed as they come */
  g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
  add_large_messages (f, 80);
  g_assert_cmpint (search_count (f, "zebra"), >, 0);
  store_abort_file (f->store);
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zebra'"), ==, 0);
  break_with (f, "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)");
  /* and kept: all of them, once */
  begin_one_file (f, "/b.mbox", NULL);
  g_assert_true (store_finish_file (f->store, "def", 1, 10, &error));
  g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
  add_large_messages (f, 80);
  g_assert_true (store_finish_file (f->store, "ghi", 80, 80 * 1400, &error));
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zebra'"), ==, 80);
  break_with (f, "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)");
}

/* What threads read beside the writer rely on (pipeline/threads.c): a
 * reader sees what was committed, and PRAGMA data_version tells the
 * writer when another connection committed, not when it did itself. */
static void
test_a_reader_beside_the_writer (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) reader = NULL;
  gint64 before = 0, after = 0, n = -1;

  store_one_file (f, "/a.mbox", "abc", NULL);
  reader = store_open_reader (f->path, &error);
  g_assert_no_error (error);
  g_assert_true (store_count_messages (reader, &n, &error));
  g_assert_cmpint (n, ==, 1);
  g_assert_true (store_data_version (f->store, &before, &error));
  store_one_file (f, "/b.mbox", "def", NULL);
  g_assert_true (store_count_messages (reader, &n, &error));
  g_assert_cmpint (n, ==, 2);
  g_assert_true (store_data_version (f->store, &after, &error));
  g_assert_cmpint (after, ==, before);
  break_with (f, "INSERT INTO deja_state (key, value) VALUES ('elsewhere', '1')");
  g_assert_true (store_data_version (f->store, &after, &error));
  g_assert_cmpint (after, !=, before);
}

static void
test_never_ingested_is_not_a_failure (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  char *sha = (char *) "not set";   /* an out parameter: overwritten */

  g_assert_true (store_file_sha256 (f->store, "/no/such.mbox", &sha, &error));
  g_assert_no_error (error);
  g_assert_null (sha);
}

static void
test_a_file_round_trip (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *sha = NULL, *other = NULL;
  gboolean replaced = TRUE, stale = FALSE;

  store_one_file (f, "/a.mbox", "abc", &replaced);
  g_assert_false (replaced);
  g_assert_true (store_file_sha256 (f->store, "/a.mbox", &sha, &error));
  g_assert_cmpstr (sha, ==, "abc");
  g_assert_true (store_threads_stale (f->store, &stale, &error));
  g_assert_true (stale);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages WHERE flags = 'no-date'"
                             " AND thread_flags = 'orphan' AND missing_parent = 'root@example.com'"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM attachments WHERE filename = 'a.gif'"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM separator_log WHERE shape = 'T'"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'body'"), ==, 1);
  /* The same content seen from another file's transaction. */
  {
    StoreFileMeta meta = { .path = "/b.mbox", .size = 100, .stored_size = 100 };
    g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
    g_assert_true (store_path_with_sha256 (f->store, "abc", &other, &error));
    g_assert_cmpstr (other, ==, "/a.mbox");
    store_abort_file (f->store);
    g_assert_true (store_commit (f->store, &error));
  }
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 1);
}

static void
test_a_path_stored_again_replaces_its_rows (Fixture *f, gconstpointer data)
{
  gboolean replaced = FALSE;

  store_one_file (f, "/a.mbox", "abc", &replaced);
  store_one_file (f, "/a.mbox", "def", &replaced);
  g_assert_true (replaced);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'body'"), ==, 1);
}

/* Stores file @path of @n messages whose own text is "@word N", in the
 * transaction open (not committed). */
static void
store_words (Fixture *f, const char *path, const char *sha256, guint n, const char *word)
{
  g_autoptr (GError) error = NULL;
  StoreFileMeta meta = { .path = path, .size = 100 * n, .stored_size = 100 * n };

  g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("%s %u\n", word, i);
      g_autofree char *msgid = g_strdup_printf ("%s%u@example.com", word, i);
      StoreMessage m = { 0 };

      m.id = store_message_id (f->store, 0, 0);
      m.byte_offset = 100 * i;
      m.byte_length = 100;
      m.line_no = 1 + 3 * i;
      m.message_id = msgid;
      m.subject = word;
      m.body = text;
      m.own_text = text;
      m.guess = (StoreThreadGuess) { m.id, 0, 0, NULL, NULL };
      g_assert_true (store_add_message (f->store, &m, &error));
      g_assert_no_error (error);
    }
  g_assert_true (store_finish_file (f->store, sha256, n, 3 * n, &error));
  g_assert_no_error (error);
}

/* With several threads indexing beside the writer (store-fts-side.c),
 * rows go to them in turn, 256 at a time, and each thread's segments are
 * copied in turn, lane 0 last.  A file at a path stored earlier in the
 * same transaction (the same path twice in one ingest, changed in
 * between) takes rows out that other lanes indexed: each marker must go
 * to the lane that holds its row, or its size row stays (copied from
 * that lane) and the new row's collides with it. */
static void
test_fts_lanes_take_out_their_own_rows (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  store_index_beside (f->store, 3);
  store_words (f, "/z.mbox", "z1", 1, "zeppelin");
  g_assert_true (store_commit (f->store, &error));
  /* /z again, changed: the first file that takes rows out commits the
   * files before it, and from then on no file does */
  store_words (f, "/z.mbox", "z2", 1, "zeppelin");
  g_assert_true (store_commit (f->store, &error));
  /* the first file of a transaction indexes as it goes, 256 rows a lane */
  store_words (f, "/a.mbox", "a1", 700, "lighthouse");
  store_words (f, "/a.mbox", "a2", 3, "orchard");
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (_store_fts_side_lanes (f->store->fts_side), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 4);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts_docsize"), ==, 4);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'lighthouse'"), ==, 0);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'orchard'"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zeppelin'"), ==, 1);
  break_with (f, "INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')");

  /* A message replaced in the file that stored it (an append's old last
   * message), in lane 1 of five batches of rows (lanes 0, 1, 2, 0, 1):
   * its marker goes to lane 1, its new row, of the same id, to lane 0,
   * copied after lane 1's marker, which would take the new row's words
   * that the old one had. */
  {
    StoreFileMeta meta = { .path = "/c.mbox", .size = 100, .stored_size = 100 };
    StoreMessage m = { 0 };
    gint64 id;

    store_words (f, "/b.mbox", "b1", 1, "glacier");
    g_assert_true (store_commit (f->store, &error));
    g_assert_true (store_begin_file (f->store, &meta, NULL, &error));
    for (guint i = 0; i < 1100; i++)
      {
        m = (StoreMessage) { .id = store_message_id (f->store, 0, 0), .byte_offset = 100 * i,
                             .byte_length = 100, .line_no = 1 + 3 * i, .subject = "meridian",
                             .body = "meridian\n", .own_text = "meridian\n" };
        m.guess = (StoreThreadGuess) { m.id, 0, 0, NULL, NULL };
        g_assert_true (store_add_message (f->store, &m, &error));
      }
    id = m.id - 1099 + 299;   /* the 300th: in the second batch of rows */
    m = (StoreMessage) { .byte_offset = 100 * 299, .byte_length = 120, .line_no = 1 + 3 * 299,
                         .subject = "meridian", .body = "meridian violin\n", .own_text = "meridian violin\n" };
    g_assert_true (store_replace_message (f->store, &m, &error));
    g_assert_no_error (error);
    g_assert_cmpint (m.id, ==, id);
    g_assert_true (store_finish_file (f->store, "c1", 1100, 3300, &error));
    g_assert_true (store_commit (f->store, &error));
    g_assert_no_error (error);
    g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts_docsize"), ==, 1105);
    g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'meridian'"), ==, 1100);
    g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'violin'"), ==, 1);
    g_assert_cmpint (count (f, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'subject:meridian'"),
                     ==, 1100);
    break_with (f, "INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')");
  }
}

/* PRAGMA foreign_keys of the store's connection, now */
static gint64
keys_checked (Fixture *f)
{
  g_autoptr (GError) error = NULL;
  gint64 on = -1;

  g_assert_true (_store_query_int (f->store, "PRAGMA foreign_keys", &on, NULL, &error));
  g_assert_no_error (error);
  return on;
}

/* Files at new paths go in without SQLite checking their foreign keys;
 * a file at a path stored before deletes the old rows, and SQLite's
 * cascades take what hangs off them: the files before it are committed
 * first, so that it is checked (SQLite changes the setting only outside
 * a transaction), and so are the files after it.  Outside the files'
 * transactions keys are checked. */
static void
test_foreign_keys_of_files (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  gboolean replaced = FALSE;
  guint commits = store_commits (f->store);

  (void) data;
  g_assert_cmpint (keys_checked (f), ==, 1);
  begin_one_file (f, "/a.mbox", NULL);
  g_assert_cmpint (keys_checked (f), ==, 0);
  g_assert_true (store_finish_file (f->store, "abc", 1, 10, &error));
  begin_one_file (f, "/b.mbox", NULL);
  g_assert_cmpint (keys_checked (f), ==, 0);
  g_assert_true (store_finish_file (f->store, "bcd", 1, 10, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (store_commits (f->store), ==, commits);
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 0);
  /* /a.mbox again, changed: the two files committed before it begins */
  begin_one_file (f, "/a.mbox", &replaced);
  g_assert_true (replaced);
  g_assert_cmpuint (store_commits (f->store), ==, commits + 1);
  g_assert_cmpuint (store_uncommitted_files (f->store), ==, 0);
  g_assert_cmpint (keys_checked (f), ==, 1);
  g_assert_true (store_finish_file (f->store, "cde", 1, 10, &error));
  begin_one_file (f, "/c.mbox", NULL);
  g_assert_cmpint (keys_checked (f), ==, 1);
  g_assert_true (store_finish_file (f->store, "def", 1, 10, &error));
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (keys_checked (f), ==, 1);
  /* the first /a.mbox's rows went with it, all of them */
  g_assert_cmpint (count (f, "SELECT count(*) FROM files"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM message_refs"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM attachments"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM message_newsgroups"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM separator_log"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
}

/* A file rolled back alone, or with its transaction, leaves the keys
 * checked outside it */
static void
test_foreign_keys_after_a_rollback (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  (void) data;
  begin_one_file (f, "/a.mbox", NULL);
  store_abort_file (f->store);
  g_assert_cmpint (keys_checked (f), ==, 1);
  begin_one_file (f, "/a.mbox", NULL);
  g_assert_true (store_finish_file (f->store, "abc", 1, 10, &error));
  begin_one_file (f, "/b.mbox", NULL);
  store_abort_file (f->store);
  g_assert_cmpint (keys_checked (f), ==, 0);   /* /a.mbox's transaction goes on */
  g_assert_true (store_commit (f->store, &error));
  g_assert_no_error (error);
  g_assert_cmpint (keys_checked (f), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 1);
  g_assert_cmpint (count (f, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
}

static void
test_decisions (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) lines = NULL;
  g_autoptr (GPtrArray) paths = NULL;
  gboolean any = TRUE, changed = FALSE;

  g_assert_true (store_has_decisions (f->store, &any, &error));
  g_assert_false (any);
  store_one_file (f, "/a.mbox", "abc", NULL);
  g_assert_true (store_set_decision (f->store, "abc", 3, STORE_DECISION_SPLIT, "a note", &changed, &error));
  g_assert_no_error (error);
  g_assert_true (changed);
  g_assert_true (store_has_decisions (f->store, &any, &error));
  g_assert_true (any);
  g_assert_true (store_decisions_for (f->store, "abc", &lines, &error));
  g_assert_cmpuint (g_hash_table_size (lines), ==, 1);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (lines, GSIZE_TO_POINTER (3))), ==, STORE_DECISION_SPLIT);
  g_assert_true (store_paths_for_sha256 (f->store, "abc", &paths, &error));
  g_assert_cmpuint (paths->len, ==, 1);
}

/* A database that cannot answer is a failure, never "no decisions" (which
 * would split a file without the people's decisions). */
static void
test_failure_is_not_none (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) lines = NULL;
  g_autofree char *sha = NULL;
  gboolean any = FALSE;

  break_with (f, "DROP TABLE separator_decisions; ALTER TABLE files RENAME TO files_gone");
  g_assert_false (store_has_decisions (f->store, &any, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQLITE);
  g_clear_error (&error);
  g_assert_false (store_decisions_for (f->store, "abc", &lines, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQLITE);
  g_assert_null (lines);
  g_clear_error (&error);
  g_assert_false (store_file_sha256 (f->store, "/a.mbox", &sha, &error));
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQLITE);
}

static void
test_foreign_database_is_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("deja-store-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "other.db", NULL);
  sqlite3 *db;
  Store *store;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "CREATE TABLE t (x)", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  store = store_open (path, &error);
  g_assert_null (store);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_FOREIGN);
  g_unlink (path);
  g_rmdir (dir);
}

/* The side leaves a batch unmerged when the index, with what the rest of
 * the command's archives will add (a segment per 6 MiB at most), stays
 * within STORE_FTS_SEGMENTS_MAX (64), and up to 48 segments in all; a
 * command of unknown size is left unmerged up to those 48; a shard is
 * merged. */
static void
test_fts_side_unmerged (void)
{
  static const struct {
    guint segments;
    gint64 expected, begun;
    gboolean shard;
    guint unmerged;
  } cases[] = {
    { 0, 0, 0, FALSE, 48 },                         /* size not known */
    { 0, 64 << 20, 0, TRUE, 0 },                    /* a shard: merged */
    { 40, 0, 0, FALSE, 8 },
    { 0, 64 << 20, 0, FALSE, 48 },                  /* 11 segments ahead */
    { 10, 64 << 20, 0, FALSE, 38 },
    { 0, G_GINT64_CONSTANT (1) << 30, 0, FALSE, 0 }, /* 171 ahead: merged */
    { 0, G_GINT64_CONSTANT (1) << 30, (G_GINT64_CONSTANT (1) << 30) - (64 << 20), FALSE, 48 },
    { 47, 60 << 20, 0, FALSE, 1 },                  /* 47 + 10 + 1: at the most */
    { 47, 102 << 20, 0, FALSE, 0 },                 /* 47 + 17 + 1 */
    { 48, 0, 0, FALSE, 0 },                         /* 48 in all */
    { 60, 1 << 20, 2 << 20, FALSE, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpuint (_store_fts_side_unmerged (cases[i].segments, cases[i].expected, cases[i].begun,
                                                  cases[i].shard), ==, cases[i].unmerged);
    }
}

/* FTS5's structure record (store-fts-copy.c), as SQLite 3.40 wrote it
 * for a shard of 6,032 messages: cookie 2, one level, two segments (ids
 * 1 and 2, pages 1–13 and 1–160), 173 leaves written. */
static const guint8 two_segments[] = {
  0x00, 0x00, 0x00, 0x02, 0x01, 0x02, 0x81, 0x2d, 0x00, 0x02,
  0x01, 0x01, 0x0d, 0x02, 0x01, 0x81, 0x20
};

static void
test_fts_structure_round_trip (void)
{
  StoreFtsStructure s;
  g_autoptr (GByteArray) again = NULL;
  const StoreFtsSegment *seg;

  g_assert_true (_store_fts_structure_decode (two_segments, sizeof two_segments, &s));
  g_assert_cmpuint (s.cookie, ==, 2);
  g_assert_cmpuint (s.writes, ==, 173);
  g_assert_cmpuint (s.n_levels, ==, 1);
  g_assert_cmpuint (_store_fts_structure_segments (&s), ==, 2);
  seg = &g_array_index (s.levels[0].segments, StoreFtsSegment, 1);
  g_assert_cmpuint (seg->id, ==, 2);
  g_assert_cmpuint (seg->first, ==, 1);
  g_assert_cmpuint (seg->last, ==, 160);
  again = _store_fts_structure_encode (&s);
  g_assert_cmpmem (again->data, again->len, two_segments, sizeof two_segments);
  _store_fts_structure_clear (&s);
}

/* What is not exactly this format is refused, never half read. */
static void
test_fts_structure_refuses_what_it_does_not_know (void)
{
  StoreFtsStructure s;
  guint8 longer[sizeof two_segments + 1];
  guint8 more_segments[sizeof two_segments];
  /* A later SQLite's structure (secure-delete): 0xff 0x00 0x00 0x01 after the cookie */
  static const guint8 v2[] = { 0, 0, 0, 2, 0xff, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00 };
  static const guint8 no_segment_zero[] = { 0, 0, 0, 2, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x01 };
  static const guint8 merging_more_than_it_has[] = { 0, 0, 0, 2, 0x01, 0x01, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01 };

  memcpy (longer, two_segments, sizeof two_segments);
  longer[sizeof two_segments] = 0;
  memcpy (more_segments, two_segments, sizeof two_segments);
  more_segments[5] = 3;
  for (gsize cut = 0; cut < sizeof two_segments; cut++)
    g_assert_false (_store_fts_structure_decode (two_segments, cut, &s));
  g_assert_false (_store_fts_structure_decode (longer, sizeof longer, &s));
  g_assert_false (_store_fts_structure_decode (more_segments, sizeof more_segments, &s));
  g_assert_false (_store_fts_structure_decode (v2, sizeof v2, &s));
  g_assert_false (_store_fts_structure_decode (no_segment_zero, sizeof no_segment_zero, &s));
  g_assert_false (_store_fts_structure_decode (merging_more_than_it_has, sizeof merging_more_than_it_has, &s));
  g_assert_cmpuint (s.n_levels, ==, 0);
}

/* A shard's segments join the same levels under ids not used here; a
 * merge under way is left off. */
static void
test_fts_structure_add (void)
{
  StoreFtsStructure here, there;
  /* here: level 0 holds segment 2, level 1 segment 1, merging 1 */
  static const guint8 here_bytes[] = { 0, 0, 0, 2, 0x02, 0x02, 0x05, 0x01, 0x01, 0x02, 0x01, 0x04,
                                       0x00, 0x01, 0x01, 0x01, 0x09 };
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GByteArray) bytes = NULL;
  StoreFtsStructure back;

  g_assert_true (_store_fts_structure_decode (here_bytes, sizeof here_bytes, &here));
  g_assert_cmpuint (here.levels[0].merging, ==, 1);
  g_assert_true (_store_fts_structure_decode (two_segments, sizeof two_segments, &there));
  g_assert_true (_store_fts_structure_add (&here, &there, ids));
  g_assert_cmpuint (ids->len, ==, 4);
  /* the shard's 1 and 2 become 3 and 4: 1 and 2 are taken here */
  g_assert_cmpuint (g_array_index (ids, guint64, 0), ==, 1);
  g_assert_cmpuint (g_array_index (ids, guint64, 1), ==, 3);
  g_assert_cmpuint (g_array_index (ids, guint64, 2), ==, 2);
  g_assert_cmpuint (g_array_index (ids, guint64, 3), ==, 4);
  g_assert_cmpuint (here.levels[0].segments->len, ==, 3);
  g_assert_cmpuint (here.levels[0].merging, ==, 0);
  g_assert_cmpuint (here.writes, ==, 5 + 173);
  bytes = _store_fts_structure_encode (&here);
  g_assert_true (_store_fts_structure_decode (bytes->data, bytes->len, &back));
  g_assert_cmpuint (_store_fts_structure_segments (&back), ==, 4);
  _store_fts_structure_clear (&back);
  _store_fts_structure_clear (&here);
  _store_fts_structure_clear (&there);
}

/* Another connection changes the schema (the CI run of a9a7500: one of
 * two ingests creating the same database dropped its deferred indexes,
 * then built them, while the other prepared its statements).  FTS5's
 * constructor reads the table's records first (PRAGMA data_version, then
 * a blob); SQLite does not reload a schema inside a constructor, so those
 * reads fail with SQLITE_SCHEMA, and sqlite3_prepare() tries once more
 * only: two changes in that window failed it with "vtable constructor
 * failed: messages_fts".  The authorizer runs here where the constructor
 * reads data_version, and has the other connection change the schema
 * each of the first @left times. */
typedef struct {
  sqlite3 *other;
  int changes;
  int left;
} SchemaChanger;

static int
change_schema_in_constructor (void *data, int action, const char *a, const char *b, const char *c,
                              const char *d)
{
  SchemaChanger *ch = data;

  (void) b, (void) c, (void) d;
  if (action == SQLITE_PRAGMA && g_strcmp0 (a, "data_version") == 0 && ch->left > 0)
    {
      ch->left--;
      g_assert_cmpint (sqlite3_exec (ch->other, ch->changes++ % 2 ? "DROP INDEX probe"
                                                                  : "CREATE INDEX probe ON files (path)",
                                     NULL, NULL, NULL), ==, SQLITE_OK);
    }
  return SQLITE_OK;
}

/* Everything @db holds: sqlite_schema (type, name, table, SQL; not the
 * pages) and the rows of every table, the full-text index's own too,
 * each value with its type */
static char *
database_text (sqlite3 *db)
{
  GString *text = g_string_new (NULL);
  g_autoptr (GPtrArray) tables = g_ptr_array_new_with_free_func (g_free);
  sqlite3_stmt *stmt;

  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT 'schema', type, name, tbl_name, sql FROM sqlite_schema"
                                       " UNION ALL SELECT 'table', schema, name, type, ncol || ' ' || wr || ' ' || strict"
                                       " FROM pragma_table_list WHERE schema = 'main' ORDER BY 1, 2, 3",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      for (int c = 0; c < 5; c++)
        g_string_append_printf (text, "%s|", sqlite3_column_text (stmt, c) ? (const char *) sqlite3_column_text (stmt, c) : "NULL");
      g_string_append_c (text, '\n');
      if (strcmp ((const char *) sqlite3_column_text (stmt, 0), "table") == 0 &&
          strcmp ((const char *) sqlite3_column_text (stmt, 2), "sqlite_schema") != 0 &&
          (strcmp ((const char *) sqlite3_column_text (stmt, 3), "table") == 0 ||
           strcmp ((const char *) sqlite3_column_text (stmt, 3), "shadow") == 0))
        g_ptr_array_add (tables, g_strdup ((const char *) sqlite3_column_text (stmt, 2)));
    }
  sqlite3_finalize (stmt);
  for (guint i = 0; i < tables->len; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT * FROM \"%s\"", (const char *) tables->pdata[i]);

      g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      g_string_append_printf (text, "rows of %s:\n", (const char *) tables->pdata[i]);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          for (int c = 0; c < sqlite3_column_count (stmt); c++)
            {
              const guint8 *bytes = sqlite3_column_blob (stmt, c);

              g_string_append_printf (text, "%d:", sqlite3_column_type (stmt, c));
              for (int b = 0; b < sqlite3_column_bytes (stmt, c); b++)
                g_string_append_printf (text, "%02x", bytes[b]);
              g_string_append_c (text, ' ');
            }
          g_string_append_c (text, '\n');
        }
      sqlite3_finalize (stmt);
    }
  return g_string_free (text, FALSE);
}

/* A new database is made by one script that the build wrote from the
 * migrations (schema/final.c), not by replaying them: it must be the
 * database they make, schema and rows (FTS5's settings and records
 * included), and the views and triggers every database is checked
 * against must be theirs. */
static void
test_new_database_as_migrated (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "migrated.db", NULL);
  g_autofree char *made_text = NULL, *migrated_text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) objects = NULL;
  sqlite3 *made, *migrated;
  sqlite3_stmt *stmt;
  guint n_objects = 0;

  g_assert_cmpint (sqlite3_open (path, &migrated), ==, SQLITE_OK);
  for (gsize v = 0; v < G_N_ELEMENTS (deja_schema); v++)
    g_assert_cmpint (sqlite3_exec (migrated, deja_schema[v], NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_open_v2 (f->path, &made, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  made_text = database_text (made);
  migrated_text = database_text (migrated);
  g_assert_cmpstr (made_text, ==, migrated_text);
  /* (not an empty comparison: the full-text index's settings are there) */
  g_assert_nonnull (strstr (made_text, "rows of messages_fts_config:\n"));
  g_assert_nonnull (strstr (made_text, "rows of deja_state:\n"));
  g_assert_cmpuint (strlen (made_text), >, 10000);
  objects = g_hash_table_ref (_store_schema_objects (&error));
  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_prepare_v2 (migrated, "SELECT type || ' ' || name, sql FROM sqlite_schema"
                                       " WHERE type IN ('view', 'trigger')", -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      g_assert_cmpstr (g_hash_table_lookup (objects, sqlite3_column_text (stmt, 0)), ==,
                       (const char *) sqlite3_column_text (stmt, 1));
      n_objects++;
    }
  sqlite3_finalize (stmt);
  g_assert_cmpuint (n_objects, >, 0);
  g_assert_cmpuint (g_hash_table_size (objects), ==, n_objects);
  sqlite3_close (made);
  sqlite3_close (migrated);
  g_unlink (path);
}

static void
test_statements_outlast_schema_changes (Fixture *f, gconstpointer data)
{
  SchemaChanger ch = { 0 };
  sqlite3 *db;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_open (f->path, &ch.other), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "SELECT 1 FROM messages", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_set_authorizer (db, change_schema_in_constructor, &ch);

  /* prepared while the schema changes three times */
  ch.left = 3;
  g_assert_cmpint (sqlite3_prepare_v3 (db, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'x'",
                                       -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (ch.changes, ==, 3);

  /* prepared again by its step, when the schema changed since */
  g_assert_cmpint (sqlite3_exec (ch.other, "DROP INDEX probe", NULL, NULL, NULL), ==, SQLITE_OK);
  ch.changes = 0, ch.left = 3;
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  g_assert_cmpint (ch.changes, ==, 3);
  sqlite3_finalize (stmt);

  /* the same, through sqlite3_exec() */
  g_assert_cmpint (sqlite3_exec (ch.other, "DROP INDEX probe", NULL, NULL, NULL), ==, SQLITE_OK);
  ch.changes = 0, ch.left = 3;
  g_assert_cmpint (sqlite3_exec (db, "SELECT count(*) FROM messages_fts; SELECT 1", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  g_assert_cmpint (ch.changes, ==, 3);

  sqlite3_close (ch.other);
  sqlite3_close (db);
}

/* A second connection (deja merge's per-shard writer) is to the same
 * file or to none: a file put in the database's place since it was
 * opened is not written through it.  It prepares a statement when first
 * asked for it. */
static void
test_a_second_connection_is_to_the_same_file (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *other = g_build_filename (f->dir, "other.db", NULL);
  g_autofree char *moved = g_build_filename (f->dir, "moved.db", NULL);
  Store *second, *store;

  second = _store_open_second (f->store, &error);
  g_assert_no_error (error);
  g_assert_nonnull (second);
  g_assert_null (second->stmts[STMT_FTS_DELETE_FILE]);
  g_assert_nonnull (_store_stmt (second, STMT_FTS_DELETE_FILE, &error));
  g_assert_no_error (error);
  g_assert_true (_store_stmt (second, STMT_FTS_DELETE_FILE, NULL) == second->stmts[STMT_FTS_DELETE_FILE]);
  store_close (second);

  /* another deja database in its place */
  store = store_open (other, &error);
  g_assert_no_error (error);
  store_close (store);
  g_assert_cmpint (g_rename (f->path, moved), ==, 0);
  g_assert_cmpint (g_rename (other, f->path), ==, 0);
  second = _store_open_second (f->store, &error);
  g_assert_null (second);
  g_assert_error (error, STORE_ERROR, STORE_ERROR_SQLITE);
  g_assert_nonnull (strstr (error->message, "another file took its place"));
  g_assert_cmpint (g_unlink (f->path), ==, 0);
  g_assert_cmpint (g_rename (moved, f->path), ==, 0);
}

/* Every connection a Store opens is used by one thread at a time, and
 * opened without SQLite's mutex (STORE_OPEN_ONE_THREAD: each bind, step
 * and column took and released it, 4 % of an ingest writer's time) */
static void
test_connections_of_one_thread (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  Store *second, *reader;

  (void) data;
  g_assert_null (sqlite3_db_mutex (f->store->db));
  second = _store_open_second (f->store, &error);
  g_assert_no_error (error);
  g_assert_null (sqlite3_db_mutex (second->db));
  store_close (second);
  reader = store_open_reader (f->path, &error);
  g_assert_no_error (error);
  g_assert_null (sqlite3_db_mutex (reader->db));
  store_close (reader);
}

static gint64
cache_size (Store *store)
{
  g_autoptr (GError) error = NULL;
  gint64 kib = 0;

  g_assert_true (_store_query_int (store, "PRAGMA cache_size", &kib, NULL, &error));
  g_assert_no_error (error);
  return kib;
}

/* A command about to store archives appends: it keeps a smaller page
 * cache than the commands that read (and keeps it after a scan); the
 * next command that only reads has the larger one again. */
static void
test_cache_of_a_command_that_stores (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  Store *store;

  (void) data;
  g_assert_cmpint (cache_size (f->store), ==, STORE_CACHE_KIB);
  g_clear_pointer (&f->store, store_close);
  store = store_open_sized (f->path, STORE_LARGE_ARCHIVE, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cache_size (store), ==, STORE_APPEND_CACHE_KIB);
  _store_scan_cache (store, TRUE);
  g_assert_cmpint (cache_size (store), ==, STORE_SCAN_CACHE_KIB);
  _store_scan_cache (store, FALSE);
  g_assert_cmpint (cache_size (store), ==, STORE_APPEND_CACHE_KIB);
  store_close (store);
  f->store = store_open (f->path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cache_size (f->store), ==, STORE_CACHE_KIB);
  _store_scan_cache (f->store, TRUE);
  _store_scan_cache (f->store, FALSE);
  g_assert_cmpint (cache_size (f->store), ==, STORE_CACHE_KIB);
}

/* deja merge reads a shard's identity where it is attached: a view or a
 * trigger deja did not write, another program's database and a newer
 * deja's are refused; one whose indexes wait is not current. */
static void
test_an_attached_database_is_identified (Fixture *f, gconstpointer data)
{
  static const struct {
    const char *sql;
    int code;
    const char *says;
  } cases[] = {
    { "CREATE VIEW mine AS SELECT 1", STORE_ERROR_FOREIGN, "view 'mine' that deja did not make" },
    { "CREATE TRIGGER spy AFTER INSERT ON files BEGIN SELECT 1; END", STORE_ERROR_FOREIGN,
      "trigger 'spy'" },
    { "PRAGMA application_id = 7", STORE_ERROR_FOREIGN, "not a deja database" },
    { "PRAGMA user_version = 999", STORE_ERROR_NEWER, "newer than this deja" },
    { "INSERT INTO deja_state (key, value) VALUES ('" STORE_DEFERRED_INDEXES_KEY "', 'x')", 0, NULL },
    { "SELECT 1", 0, NULL },
  };
  g_autofree char *shard = g_build_filename (f->dir, "shard.db", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *attach = g_strdup_printf ("ATTACH DATABASE '%s' AS shard", shard);
      Store *made = store_open (shard, &error);
      Store *second;
      sqlite3 *db;
      gboolean current = TRUE;

      g_assert_no_error (error);
      store_close (made);
      g_assert_cmpint (sqlite3_open (shard, &db), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_exec (db, cases[i].sql, NULL, NULL, NULL), ==, SQLITE_OK);
      sqlite3_close (db);
      second = _store_open_second (f->store, &error);
      g_assert_no_error (error);
      g_assert_cmpint (sqlite3_exec (second->db, attach, NULL, NULL, NULL), ==, SQLITE_OK);
      if (cases[i].says)
        {
          g_assert_false (_store_attached_is_current (second, &current, &error));
          g_assert_error (error, STORE_ERROR, cases[i].code);
          g_assert_nonnull (strstr (error->message, cases[i].says));
        }
      else
        {
          g_assert_true (_store_attached_is_current (second, &current, &error));
          g_assert_no_error (error);
          g_assert_true (current == (strcmp (cases[i].sql, "SELECT 1") == 0));
        }
      store_close (second);
      g_unlink (shard);
    }
}

/* A statement journal kept in memory, and one that outgrows its bound
 * and goes on in a file: a savepoint rolled back through either gives
 * the pages back as they were (store-subjournal.c). */
static sqlite3_int64
sum_of_lengths (sqlite3 *db)
{
  sqlite3_stmt *stmt;
  sqlite3_int64 sum;

  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT total(length(b)) + total(n) FROM t", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  sum = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return sum;
}

static void
rolled_back_through_the_journal (const char *path, sqlite3_int64 bound, int rows)
{
  g_autofree char *change = g_strdup_printf ("UPDATE t SET b = randomblob(1000), n = -n WHERE n <= %d", rows);
  sqlite3 *db;
  sqlite3_int64 before;
  int in_memory, on_disk, in_memory_after, on_disk_after;

  _store_subjournal_bound (bound);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA page_size = 65536; PRAGMA journal_mode = WAL;"
                                 " CREATE TABLE t (n INTEGER, b BLOB);"
                                 " WITH RECURSIVE k (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 4000)"
                                 " INSERT INTO t SELECT i, randomblob(900 + i % 200) FROM k", NULL, NULL, NULL), ==, SQLITE_OK);
  before = sum_of_lengths (db);
  _store_subjournal_counts (&in_memory, &on_disk);
  /* A savepoint after the first changes (as each file after the first of
   * an ingest's transaction), whose rows change pages that were there */
  g_assert_cmpint (sqlite3_exec (db, "BEGIN; UPDATE t SET n = n + 1 WHERE n = 1; SAVEPOINT f", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, change, NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "ROLLBACK TO f; RELEASE f; COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sum_of_lengths (db), ==, before + 1);
  /* and one released: its changes stay */
  g_assert_cmpint (sqlite3_exec (db, "BEGIN; UPDATE t SET n = n + 1 WHERE n = 2; SAVEPOINT f;"
                                 " UPDATE t SET b = zeroblob(10) WHERE n <= 100; RELEASE f; COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sum_of_lengths (db), <, before);
  {
    sqlite3_stmt *stmt;

    g_assert_cmpint (sqlite3_prepare_v2 (db, "PRAGMA integrity_check", -1, &stmt, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
    g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==, "ok");
    sqlite3_finalize (stmt);
  }
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
  _store_subjournal_counts (&in_memory_after, &on_disk_after);
  g_assert_cmpint (in_memory_after, >, in_memory);
  g_assert_cmpint (on_disk_after - on_disk, ==, bound < rows * 1000 ? 1 : 0);
  _store_subjournal_bound (8 * 1024 * 1024);
}

static void
test_statement_journal_in_memory (Fixture *f, gconstpointer data)
{
  g_autofree char *a = g_build_filename (f->dir, "journal-a.db", NULL);
  g_autofree char *b = g_build_filename (f->dir, "journal-b.db", NULL);
  g_autofree char *c = g_build_filename (f->dir, "journal-c.db", NULL);

  (void) data;
  rolled_back_through_the_journal (a, 64 * 1024 * 1024, 4000);   /* in memory */
  rolled_back_through_the_journal (b, 1024 * 1024, 4000);        /* goes to a file early */
  rolled_back_through_the_journal (c, 2 * 1024 * 1024, 3000);    /* and later */
  /* the fixture's teardown removes its directory only when empty */
  g_assert_cmpint (g_unlink (a), ==, 0);
  g_assert_cmpint (g_unlink (b), ==, 0);
  g_assert_cmpint (g_unlink (c), ==, 0);
}

/* One query's rows, written out */
static gboolean
dump_row (const StoreValue *values, guint n, gpointer user_data)
{
  GString *out = user_data;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s=%s%s", i ? " " : "", values[i].name,
                            values[i].text ? values[i].text : "NULL", values[i].number ? "#" : "");
  g_string_append_c (out, '\n');
  return TRUE;
}

static char *
stats_dump (Store *store)
{
  g_autoptr (GError) error = NULL;
  GString *out = g_string_new (NULL);

  for (int q = STORE_STATS_TOTALS; q <= STORE_STATS_NEWSGROUPS; q++)
    for (int month = 0; month <= 1; month++)
      {
        g_string_append_printf (out, "-- %d %d\n", q, month);
        g_assert_true (store_stats (store, (StoreStats) q, month, dump_row, out, &error));
        g_assert_no_error (error);
      }
  return g_string_free (out, FALSE);
}

/* deja stats counts a copy of the columns of messages it reads
 * (store_stats_begin()): every query answers as on the table itself,
 * values of a stranger's types included, and after store_stats_end() the
 * table is read again */
static void
test_stats_copy (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *direct = NULL, *copied = NULL, *after = NULL, *changed = NULL;
  gboolean replaced;

  store_one_file (f, "/a.mbox", "abc", &replaced);
  break_with (f, "INSERT INTO messages (id, file_id, byte_offset, byte_length, line_no, body, date, lang,"
                 " lang_reliable, thread_id, words)"
                 " SELECT id + 1, file_id, 200, 10, 5, 'b', '2001-02-03T04:05:06Z', 'en', 1, id + 1, 7 FROM messages;"
                 "INSERT INTO messages (id, file_id, byte_offset, byte_length, line_no, body, date, lang,"
                 " lang_reliable, thread_id, words, duplicate_of, author_id)"
                 " SELECT max(id) + 1, file_id, 300, 10, 9, 'c', x'31393939', 42, 'yes', 'x1', 2.5, NULL, 7"
                 " FROM messages;"
                 "INSERT INTO messages (id, file_id, byte_offset, byte_length, line_no, body, date, lang, thread_id,"
                 " duplicate_of) SELECT max(id) + 1, file_id, 400, 10, 13, 'b', '2001-02-03T04:05:06Z', 'en',"
                 " min(id) + 1, min(id) + 1 FROM messages;"
                 "INSERT INTO message_newsgroups (message_id, newsgroup_id)"
                 " SELECT max(m.id) - 1, g.id FROM messages m, newsgroups g");
  direct = stats_dump (f->store);
  store_stats_begin (f->store);
  copied = stats_dump (f->store);
  g_assert_cmpstr (copied, ==, direct);
  /* what the database held when the copy was made */
  break_with (f, "UPDATE messages SET lang = 'de' WHERE lang = 'en'");
  changed = stats_dump (f->store);
  g_assert_cmpstr (changed, ==, direct);
  store_stats_end (f->store);
  after = stats_dump (f->store);
  g_assert_cmpstr (after, !=, direct);
  g_assert_nonnull (strstr (after, "lang=de"));
  /* no copy made (here: a view of its name is in the way): the table is
   * read, with the same numbers */
  g_assert_cmpint (sqlite3_exec (f->store->db, "CREATE TEMP VIEW deja_stats_messages AS SELECT 1 AS id",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  store_stats_begin (f->store);
  {
    g_autofree char *uncopied = stats_dump (f->store);

    g_assert_cmpstr (uncopied, ==, after);
  }
  store_stats_end (f->store);
}

static char *
authors_dump (Store *store)
{
  g_autoptr (GError) error = NULL;
  GString *out = g_string_new (NULL);

  g_assert_true (store_authors (store, STORE_AUTHORS_LIST, 0, dump_row, out, &error));
  g_assert_no_error (error);
  return g_string_free (out, FALSE);
}

static gboolean
dump_reply_starter (const StoreNetRow *row, gpointer data)
{
  g_string_append_printf (data, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", row->author,
                          row->other, row->thread);
  return TRUE;
}

static char *
reply_starters_dump (Store *store)
{
  g_autoptr (GError) error = NULL;
  GString *out = g_string_new (NULL);
  StoreFilter all = { 0 };

  g_assert_true (store_network_rows (store, STORE_NET_REPLY_STARTERS, &all, dump_reply_starter, out, &error));
  g_assert_no_error (error);
  return g_string_free (out, FALSE);
}

/* The authors' list and the roles' replies read a copy of the columns of
 * messages they need (store-authors.c): the same rows as of the table
 * itself, duplicates left out, values of a stranger's types included;
 * where the copy cannot be made, the table is read, with the same rows */
static void
test_authors_copy (Fixture *f, gconstpointer data)
{
  g_autofree char *copied = NULL, *uncopied = NULL, *starters = NULL, *starters_uncopied = NULL;
  gboolean replaced;
  sqlite3 *db;
  int n = 0;

  store_one_file (f, "/a.mbox", "abc", &replaced);
  break_with (f, "INSERT INTO authors (id, name, address, messages, first_date, last_date) VALUES"
                 " (7, 'Ann', 'ann@x', 4, '2001-01-01', '2001-03-01'), (8, 'Bob', 'bob@x', 1, '2001-01-02', '2001-01-02'),"
                 " (9, 'Cy', 'cy@x', 1, '2001-01-03', '2001-01-03');"
                 "INSERT INTO author_addresses (address, author_id, name, messages) VALUES"
                 " ('ann@x', 7, 'Ann', 4), ('bob@x', 8, 'Bob', 1), ('cy@x', 9, 'Cy', 1);"
                 "INSERT INTO newsgroups (id, name) VALUES (50, 'comp.a'), (51, 'comp.b');"
                 /* a thread: Ann starts it, Bob answers, Ann and Cy answer Bob; a copy
                  * of Bob's answer, Bob's again (left out); a reply of no author */
                 "INSERT INTO messages (id, file_id, byte_offset, byte_length, line_no, body, author_id,"
                 " thread_id, parent_id, duplicate_of, lang)"
                 " SELECT 101, id, 101, 1, 1, 'b', 7, 101, NULL, NULL, 'en' FROM files UNION ALL"
                 " SELECT 102, id, 102, 1, 1, 'b', 8, 101, 101, NULL, 'en' FROM files UNION ALL"
                 " SELECT 103, id, 103, 1, 1, 'b', 7, 101, 102, NULL, 'de' FROM files UNION ALL"
                 " SELECT 104, id, 104, 1, 1, 'b', 8, 101, 101, 102, 'en' FROM files UNION ALL"
                 " SELECT 105, id, 105, 1, 1, 'b', 9, 101, 102, NULL, 'und' FROM files UNION ALL"
                 " SELECT 106, id, 106, 1, 1, 'b', NULL, 101, 103, NULL, 'en' FROM files UNION ALL"
                 /* a stranger's types: a thread id of text, a parent of a real, a language of a number */
                 " SELECT 107, id, 107, 1, 1, 'b', 7, 'x1', 2.5, NULL, 42 FROM files;"
                 "INSERT INTO message_newsgroups (message_id, newsgroup_id) VALUES"
                 " (101, 50), (102, 50), (102, 51), (103, 51), (104, 50), (105, 50)");
  copied = authors_dump (f->store);
  starters = reply_starters_dump (f->store);
  /* nothing of the copy is left */
  g_assert_cmpint (sqlite3_exec (f->store->db, "SELECT 1 FROM temp.deja_author_rows", NULL, NULL, NULL), ==,
                   SQLITE_ERROR);
  /* Ann: started the thread, answered Bob, answered by Bob and by no
   * author; Bob: answered Ann once (his copy left out), answered by Ann
   * and Cy; Cy answered Bob */
  g_assert_nonnull (strstr (copied, "author_id=7# name=Ann address=ann@x addresses=1# messages=4# threads_started=1#"
                                    " replies_given=1# replies_received=2#"));
  g_assert_nonnull (strstr (copied, "author_id=8# name=Bob address=bob@x addresses=1# messages=1# threads_started=0#"
                                    " replies_given=1# replies_received=2#"));
  g_assert_nonnull (strstr (copied, "active_days=60# newsgroups=2# languages=42 1, de 1, en 1 "));
  g_assert_nonnull (strstr (copied, "active_days=1# newsgroups=2# languages=en 1 "));
  g_assert_nonnull (strstr (copied, "author_id=9# name=Cy address=cy@x addresses=1# messages=1# threads_started=0#"
                                    " replies_given=1# replies_received=0#"));
  g_assert_cmpstr (starters, ==, "8 7 7\n7 8 7\n9 8 7\n");
  /* no copy made (here: a view of its name is in the way): the table is
   * read, with the same rows */
  g_assert_cmpint (sqlite3_exec (f->store->db, "CREATE TEMP VIEW deja_author_rows AS SELECT 1 AS id",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  uncopied = authors_dump (f->store);
  starters_uncopied = reply_starters_dump (f->store);
  g_assert_cmpstr (uncopied, ==, copied);
  g_assert_cmpstr (starters_uncopied, ==, starters);
  g_assert_cmpint (sqlite3_exec (f->store->db, "DROP VIEW temp.deja_author_rows", NULL, NULL, NULL), ==, SQLITE_OK);
  /* and no savepoint is left open: another connection writes */
  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE authors SET name = 'Anne' WHERE id = 7", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  sqlite3_close (db);
  g_free (copied);
  copied = authors_dump (f->store);
  g_assert_nonnull (strstr (copied, "name=Anne"));
  for (const char *at = copied; (at = strstr (at, "author_id=")); at++)
    n++;
  g_assert_cmpint (n, ==, 4);   /* and the stored file's one */
  /* held for two queries (deja authors --roles): one copy, one snapshot,
   * until let go */
  store_author_rows_hold (f->store);
  g_assert_cmpint (sqlite3_exec (f->store->db, "SELECT 1 FROM temp.deja_author_rows", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE authors SET name = 'Annie' WHERE id = 7;"
                                     "UPDATE messages SET author_id = 9 WHERE id = 102", NULL, NULL, NULL), ==,
                   SQLITE_OK);
  sqlite3_close (db);
  {
    g_autofree char *held = authors_dump (f->store), *held_starters = reply_starters_dump (f->store);

    g_assert_cmpstr (held, ==, copied);
    g_assert_cmpstr (held_starters, ==, starters);
    g_assert_cmpint (sqlite3_exec (f->store->db, "SELECT 1 FROM temp.deja_author_rows", NULL, NULL, NULL), ==,
                     SQLITE_OK);
  }
  store_author_rows_let_go (f->store);
  g_assert_cmpint (sqlite3_exec (f->store->db, "SELECT 1 FROM temp.deja_author_rows", NULL, NULL, NULL), ==,
                   SQLITE_ERROR);
  g_free (copied);
  copied = authors_dump (f->store);
  g_assert_nonnull (strstr (copied, "name=Annie"));
  g_free (starters);
  starters = reply_starters_dump (f->store);
  g_assert_cmpstr (starters, ==, "9 7 7\n7 9 7\n9 9 7\n");
}

static gboolean
dump_sender (const StoreSenderRow *r, gpointer data)
{
  g_string_append_printf (data, "%s|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s|%s\n",
                          r->address, r->name ? r->name : "(null)", r->copies, r->messages, r->first_id,
                          r->first_date ? r->first_date : "(null)", r->last_date ? r->last_date : "(null)");
  return TRUE;
}

/* The groups of senders as five aggregates of SQLite's made them, each
 * value read as text */
static char *
senders_by_sql (Fixture *f)
{
  static const char sql[] =
    "SELECT from_addr, from_name, count(*), sum(duplicate_of IS NULL), min(id),"
    " min(CASE WHEN duplicate_of IS NULL THEN date END), max(CASE WHEN duplicate_of IS NULL THEN date END)"
    " FROM messages WHERE from_addr IS NOT NULL GROUP BY from_addr, from_name ORDER BY from_addr, from_name";
  GString *out = g_string_new (NULL);
  sqlite3 *db;
  sqlite3_stmt *stmt;

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    dump_sender (&(StoreSenderRow) {
                   .address = (const char *) sqlite3_column_text (stmt, 0),
                   .name = (const char *) sqlite3_column_text (stmt, 1),
                   .copies = sqlite3_column_int64 (stmt, 2),
                   .messages = sqlite3_column_int64 (stmt, 3),
                   .first_id = sqlite3_column_int64 (stmt, 4),
                   .first_date = (const char *) sqlite3_column_text (stmt, 5),
                   .last_date = (const char *) sqlite3_column_text (stmt, 6),
                 },
                 out);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return g_string_free (out, FALSE);
}

/* store_author_senders() groups each (address, name) in one aggregate
 * of deja's (deja_sender_group()): its groups are those of SQLite's own
 * count(), sum(), min() and max() (a date is text, NULL or a blob, which
 * is greater than any text), names and addresses of a stranger's types,
 * dates longer than the aggregate keeps inline, copies left out of the
 * dates */
static void
test_sender_groups (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) got = g_string_new (NULL);
  g_autofree char *want = NULL;
  gboolean replaced;

  store_one_file (f, "/a.mbox", "abc", &replaced);
  break_with (f, "CREATE TEMP TABLE s (n INTEGER PRIMARY KEY, addr, name, date, copy);"
                 "INSERT INTO s (addr, name, date, copy) VALUES"
                 " ('a@x', 'A', '2001-02-03T04:05:06Z', 0), ('a@x', 'A', '1999-01-01', 0),"
                 " ('a@x', 'A', '2005-01-01', 1), ('a@x', 'A', NULL, 0),"
                 " ('a@x', NULL, '2002-01-01', 0), ('a@x', '', '2003', 0), ('a@x', 5, '2004', 0),"
                 " ('b@x', 'B', '2001', 0), ('b@x', 'B', '1990', 0), ('b@x', 'B', x'ff41', 0),"
                 " ('b@x', 'B', x'4142', 0),"
                 " ('d@x', 'D', '2001-01-01 and a date longer than forty bytes, as a stranger writes it', 0),"
                 " ('d@x', 'D', '2001-01-01', 0),"
                 " ('d@x', 'D', '2009-01-01 and a date longer still than forty bytes, as a stranger writes it', 0),"
                 " ('e@x', 'E', '2001', 1), ('e@x', 'E', '2002', 1),"
                 " (7, 'F', '2001', 0), (x'6640', 'G', '2001', 0), ('y@x', 'Y', x'', 0), ('y@x', 'Y', '2001', 0);"
                 "INSERT INTO messages (id, file_id, byte_offset, byte_length, line_no, body, from_addr, from_name,"
                 " date, duplicate_of)"
                 " SELECT (SELECT max(id) FROM messages) + 100 - s.n, m.file_id, s.n * 100, 10, s.n, 'b', s.addr,"
                 " s.name, s.date, CASE WHEN s.copy THEN m.id END"
                 " FROM s, (SELECT min(id) AS id, file_id FROM messages) m ORDER BY s.n");
  want = senders_by_sql (f);
  g_assert_true (store_author_senders (f->store, dump_sender, got, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (got->str, ==, want);
  /* what the values say, lest both be wrong alike */
  g_assert_nonnull (strstr (want, "\na@x|A|4|3|"));
  g_assert_nonnull (strstr (want, "|1999-01-01|2001-02-03T04:05:06Z\n"));
  g_assert_nonnull (strstr (want, "\nb@x|B|4|4|"));
  g_assert_nonnull (strstr (want, "|1990|\xff" "A\n"));
  g_assert_nonnull (strstr (want, "|2001-01-01|2009-01-01 and a date longer still"));
  g_assert_nonnull (strstr (want, "\ne@x|E|2|0|"));
  g_assert_nonnull (strstr (want, "|2001|\n"));   /* y@x: an empty blob, greater than text */
  g_assert_nonnull (strstr (want, "|(null)|(null)\n"));
}

/* deja_sender_group() against SQLite's aggregates where a value may be
 * of any type (a column of no declared type): numbers before text before
 * blobs, an integer and a double compared as SQLite compares them (2^53
 * + 1 is greater than 2^53 as a double), the first of equals kept (5
 * then 5.0: "5"), each kept value handed on as its text */
static void
test_sender_group_types (void)
{
  static const char *const sql =
    "SELECT g, deja_sender_group(d, id, v), count(*), sum(d), min(id), min(CASE WHEN d THEN v END),"
    " max(CASE WHEN d THEN v END) FROM t GROUP BY g ORDER BY g";
  sqlite3 *db;
  sqlite3_stmt *stmt;
  guint groups = 0;

  g_assert_cmpint (sqlite3_open (":memory:", &db), ==, SQLITE_OK);
  g_assert_cmpint (_store_register_sender_group (db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "CREATE TABLE t (n INTEGER PRIMARY KEY, g, d, id, v);"
                                 "INSERT INTO t (g, d, id, v) VALUES"
                                 " (1, 1, 9, 5), (1, 1, 8, 5.0), (1, 1, 7, 4.5), (1, 1, 6, 6.0), (1, 1, 5, 6),"
                                 " (2, 1, 1, 9007199254740993), (2, 1, 2, 9007199254740992.0),"
                                 " (2, 1, 3, -1e300), (2, 0, 4, -1e301),"
                                 " (3, 1, 1, 'text'), (3, 1, 2, 12), (3, 1, 3, x'00'), (3, 1, 4, NULL),"
                                 " (4, 0, 3, 'copy'), (4, 0, 2, 'copy'),"
                                 " (5, 1, 1, 1e18), (5, 1, 2, 1000000000000000001),"
                                 " (6, 1, 1, NULL), (6, 1, 0, -3)",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      StoreSenderRow row = { NULL };

      g_assert_true (_store_sender_group_read (sqlite3_column_blob (stmt, 1), (gsize) sqlite3_column_bytes (stmt, 1),
                                               &row));
      g_assert_cmpint (row.copies, ==, sqlite3_column_int64 (stmt, 2));
      g_assert_cmpint (row.messages, ==, sqlite3_column_int64 (stmt, 3));
      g_assert_cmpint (row.first_id, ==, sqlite3_column_int64 (stmt, 4));
      g_assert_cmpstr (row.first_date, ==, (const char *) sqlite3_column_text (stmt, 5));
      g_assert_cmpstr (row.last_date, ==, (const char *) sqlite3_column_text (stmt, 6));
      switch (sqlite3_column_int (stmt, 0))
        {
        case 1:
          g_assert_cmpstr (row.first_date, ==, "4.5");
          g_assert_cmpstr (row.last_date, ==, "6.0");
          break;
        case 2:
          g_assert_cmpstr (row.first_date, ==, "-1.0e+300");
          g_assert_cmpstr (row.last_date, ==, "9007199254740993");
          break;
        case 3:
          g_assert_cmpstr (row.first_date, ==, "12");
          g_assert_cmpint (row.last_date[0], ==, '\0');   /* x'00' */
          break;
        case 4:
          g_assert_null (row.first_date);
          break;
        case 5:
          g_assert_cmpstr (row.last_date, ==, "1000000000000000001");
          break;
        case 6:
          g_assert_cmpint (row.first_id, ==, 0);
          g_assert_cmpstr (row.first_date, ==, "-3");
          break;
        }
      groups++;
    }
  g_assert_cmpint (groups, ==, 6);
  sqlite3_finalize (stmt);

  /* rows left out by their ids (a catalog's, whose values it holds): as
   * NOT IN leaves them out, and a group of those alone is NULL */
  {
    static const char *const left_out_sql =
      "SELECT g, deja_sender_group(d, id, v, ?1), count(*), sum(d), min(id), min(CASE WHEN d THEN v END),"
      " max(CASE WHEN d THEN v END) FROM t GROUP BY g ORDER BY g";
    static const char *const not_in_sql =
      "SELECT g, count(*), sum(d), min(id), min(CASE WHEN d THEN v END), max(CASE WHEN d THEN v END)"
      " FROM t WHERE id NOT IN (0, 1, 4, 5, 9) GROUP BY g ORDER BY g";
    static const gint64 left_out[] = { 0, 1, 4, 5, 9 };   /* increasing */
    g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
    g_autoptr (GString) got = g_string_new (NULL), want = g_string_new (NULL);
    sqlite3_stmt *with;

    g_array_append_vals (ids, left_out, G_N_ELEMENTS (left_out));
    g_assert_cmpint (sqlite3_prepare_v2 (db, left_out_sql, -1, &with, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_bind_pointer (with, 1, ids, "deja_sorted_ids", NULL), ==, SQLITE_OK);
    while (sqlite3_step (with) == SQLITE_ROW)
      {
        StoreSenderRow row = { NULL };

        if (sqlite3_column_type (with, 1) == SQLITE_NULL)
          {
            g_string_append_printf (got, "%d left out\n", sqlite3_column_int (with, 0));
            continue;
          }
        g_assert_true (_store_sender_group_read (sqlite3_column_blob (with, 1),
                                                 (gsize) sqlite3_column_bytes (with, 1), &row));
        g_string_append_printf (got, "%d|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s|%s\n",
                                sqlite3_column_int (with, 0), row.copies, row.messages, row.first_id,
                                row.first_date ? row.first_date : "(null)", row.last_date ? row.last_date : "(null)");
      }
    sqlite3_finalize (with);
    g_assert_cmpint (sqlite3_prepare_v2 (db, not_in_sql, -1, &stmt, NULL), ==, SQLITE_OK);
    for (int g = 1, more = sqlite3_step (stmt) == SQLITE_ROW; g <= 6; g++)
      {
        if (!more || sqlite3_column_int (stmt, 0) != g)
          {
            g_string_append_printf (want, "%d left out\n", g);
            continue;
          }
        g_string_append_printf (want, "%d|%s|%s|%s|%s|%s\n", g, sqlite3_column_text (stmt, 1),
                                sqlite3_column_text (stmt, 2), sqlite3_column_text (stmt, 3),
                                sqlite3_column_text (stmt, 4) ? (const char *) sqlite3_column_text (stmt, 4) : "(null)",
                                sqlite3_column_text (stmt, 5) ? (const char *) sqlite3_column_text (stmt, 5) : "(null)");
        more = sqlite3_step (stmt) == SQLITE_ROW;
      }
    sqlite3_finalize (stmt);
    g_assert_cmpstr (got->str, ==, want->str);
    g_assert_nonnull (strstr (got->str, "6 left out\n"));   /* ids 0 and 1 */
  }
  sqlite3_close (db);
}

/* _store_decimal() writes what printf writes, at both ends of the range */
static void
test_decimal (void)
{
  static const gint64 values[] = { 0, 1, 9, 10, 99, 100, -1, -10, 1234567890, 4294967296,
                                   G_MAXINT64, G_MININT64, G_MININT64 + 1 };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      char out[24];
      g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, values[i]);
      gsize len = _store_decimal (out, values[i]);

      out[len] = '\0';
      g_assert_cmpstr (out, ==, expected);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) g_test_add ("/store/" name, Fixture, NULL, setup, fn, teardown)
  ADD ("never-ingested-is-not-a-failure", test_never_ingested_is_not_a_failure);
  ADD ("new-database-as-migrated", test_new_database_as_migrated);
  ADD ("stats-copy", test_stats_copy);
  ADD ("authors-copy", test_authors_copy);
  ADD ("sender-groups", test_sender_groups);
  ADD ("a-file-round-trip", test_a_file_round_trip);
  ADD ("a-path-stored-again-replaces-its-rows", test_a_path_stored_again_replaces_its_rows);
  ADD ("fts-lanes-take-out-their-own-rows", test_fts_lanes_take_out_their_own_rows);
  ADD ("files-are-committed-together-and-undone-alone", test_files_are_committed_together_and_undone_alone);
  ADD ("a-large-file-is-indexed-as-it-goes", test_a_large_file_is_indexed_as_it_goes);
  ADD ("a-reader-beside-the-writer", test_a_reader_beside_the_writer);
  ADD ("decisions", test_decisions);
  ADD ("statement-journal-in-memory", test_statement_journal_in_memory);
  ADD ("failure-is-not-none", test_failure_is_not_none);
  ADD ("a-second-connection-is-to-the-same-file", test_a_second_connection_is_to_the_same_file);
  ADD ("connections-of-one-thread", test_connections_of_one_thread);
  ADD ("cache-of-a-command-that-stores", test_cache_of_a_command_that_stores);
  ADD ("foreign-keys-of-files", test_foreign_keys_of_files);
  ADD ("foreign-keys-after-a-rollback", test_foreign_keys_after_a_rollback);
  ADD ("an-attached-database-is-identified", test_an_attached_database_is_identified);
  ADD ("statements-outlast-schema-changes", test_statements_outlast_schema_changes);
#undef ADD
  g_test_add_func ("/store/sender-group-types", test_sender_group_types);
  g_test_add_func ("/store/foreign-database-is-refused", test_foreign_database_is_refused);
  g_test_add_func ("/store/fts-side-unmerged", test_fts_side_unmerged);
  g_test_add_func ("/store/fts-structure-round-trip", test_fts_structure_round_trip);
  g_test_add_func ("/store/fts-structure-refuses-what-it-does-not-know",
                   test_fts_structure_refuses_what_it_does_not_know);
  g_test_add_func ("/store/fts-structure-add", test_fts_structure_add);
  g_test_add_func ("/store/decimal", test_decimal);
  return g_test_run ();
}
