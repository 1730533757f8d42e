/* test-shards.c — store-shards.c: a set of shards read as one table each.
 *
 * Three shards numbered as 'deja ingest --shard N' numbers them (ids
 * from N x 2^32 + 1), and one database holding all their rows: every
 * query asked of the set through deja_shards tables must answer as the
 * whole database does, whatever the planner pushes down to the shards
 * (comparisons, IS NULL, LIKE, MATCH, lookups by id, the id order). */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store-private.h"

#define N_SHARDS 3
static const gint64 numbers[N_SHARDS] = { 1, 2, 5 };

typedef struct {
  char *dir;
  char *paths[N_SHARDS];
  sqlite3 *whole;      /* every row in one database */
  sqlite3 *set;        /* the shards through deja_shards */
  StoreShards *module_set;   /* the set registered on it (owned by the module) */
} Fixture;

static const char schema[] =
  "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT);"
  "CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, subject TEXT, date TEXT,"
  " thread_id INTEGER, parent_id INTEGER REFERENCES messages (id), lang TEXT, body TEXT,"
  " file_id INTEGER REFERENCES files (id));"
  "CREATE INDEX messages_file ON messages (file_id);"
  "CREATE INDEX messages_parent ON messages (parent_id);"
  "CREATE INDEX messages_thread ON messages (thread_id);"
  "CREATE INDEX messages_message_id ON messages (message_id);"
  "CREATE TABLE message_newsgroups (message_id INTEGER REFERENCES messages (id), newsgroup TEXT COLLATE NOCASE,"
  " PRIMARY KEY (message_id, newsgroup)) WITHOUT ROWID;"
  "CREATE VIRTUAL TABLE messages_fts USING fts5 (subject, body, content='messages',"
  " content_rowid='id');"
  /* ids of its own in each shard, 1, 2, 3 */
  "CREATE TABLE links (id INTEGER PRIMARY KEY, message_id INTEGER REFERENCES messages (id), url TEXT);"
  "CREATE INDEX links_message ON links (message_id);";

static const char *const words[] = { "telescope", "mirror", "lens", "comet", "orbit", "dust" };

/* The rows of shard @s (and of the whole): 40 messages, replies to the
 * one before in threads of four, some without a date or a language. */
static void
fill (sqlite3 *db, guint s)
{
  sqlite3_stmt *m, *g;
  gint64 base = numbers[s] << 32;

  {
    g_autofree char *file = g_strdup_printf ("INSERT INTO files VALUES (%" G_GINT64_FORMAT ", 'shard-%u.mbox')",
                                             base + 1, s);

    g_assert_cmpint ((sqlite3_exec) (db, file, NULL, NULL, NULL), ==, SQLITE_OK);
  }
  g_assert_cmpint ((sqlite3_prepare_v2) (db, "INSERT INTO messages VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                                         -1, &m, NULL), ==, SQLITE_OK);
  g_assert_cmpint ((sqlite3_prepare_v2) (db, "INSERT INTO message_newsgroups VALUES (?1, ?2)", -1, &g, NULL),
                   ==, SQLITE_OK);
  for (guint i = 1; i <= 40; i++)
    {
      gint64 id = base + i;
      g_autofree char *mid = g_strdup_printf ("<%u.%u@example.org>", s, i);
      g_autofree char *subject = g_strdup_printf ("%s%s %s", i % 4 == 1 ? "" : "Re: ",
                                                  words[(i + s) % 6], words[(i * 7) % 6]);
      g_autofree char *date = g_strdup_printf ("199%u-%02u-%02uT10:00:00Z", s + i % 3, 1 + i % 12, 1 + i % 28);
      g_autofree char *body = g_strdup_printf ("the %s and the %s, said %u", words[i % 6],
                                               words[(i + 2 * s) % 6], i);

      (sqlite3_bind_int64) (m, 1, id);
      (sqlite3_bind_text) (m, 2, mid, -1, SQLITE_TRANSIENT);
      (sqlite3_bind_text) (m, 3, subject, -1, SQLITE_TRANSIENT);
      if (i % 9 == 0)
        (sqlite3_bind_null) (m, 4);
      else
        (sqlite3_bind_text) (m, 4, date, -1, SQLITE_TRANSIENT);
      (sqlite3_bind_int64) (m, 5, base + i - (i - 1) % 4);
      if (i % 4 == 1)
        (sqlite3_bind_null) (m, 6);
      else
        (sqlite3_bind_int64) (m, 6, id - 1);
      (sqlite3_bind_text) (m, 7, i % 5 == 0 ? NULL : (i % 7 == 0 ? "de" : "en"), -1, SQLITE_STATIC);
      (sqlite3_bind_text) (m, 8, body, -1, SQLITE_TRANSIENT);
      (sqlite3_bind_int64) (m, 9, base + 1);
      g_assert_cmpint ((sqlite3_step) (m), ==, SQLITE_DONE);
      (sqlite3_reset) (m);
      for (guint k = 0; k < 1 + i % 2; k++)
        {
          (sqlite3_bind_int64) (g, 1, id);
          (sqlite3_bind_text) (g, 2, k ? "sci.astro" : (s == 1 ? "rec.telescopes" : "sci.optics"), -1,
                               SQLITE_STATIC);
          g_assert_cmpint ((sqlite3_step) (g), ==, SQLITE_DONE);
          (sqlite3_reset) (g);
        }
    }
  (sqlite3_finalize) (m);
  (sqlite3_finalize) (g);
  for (guint i = 1; i <= 40; i += 3)
    {
      g_autofree char *sql = g_strdup_printf ("INSERT INTO links (message_id, url) VALUES"
                                              " (%" G_GINT64_FORMAT ", 'http://example.org/%u/%u')",
                                              base + i, s, i);

      g_assert_cmpint ((sqlite3_exec) (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    }
}

static void
exec_ok (sqlite3 *db, const char *sql)
{
  char *err = NULL;

  if ((sqlite3_exec) (db, sql, NULL, NULL, &err) != SQLITE_OK)
    g_error ("%s: %s", sql, err);
}

static void
set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->dir = g_dir_make_tmp ("deja-shards-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  g_assert_cmpint ((sqlite3_open) (":memory:", &f->whole), ==, SQLITE_OK);
  exec_ok (f->whole, schema);
  for (guint s = 0; s < N_SHARDS; s++)
    {
      sqlite3 *db;
      g_autofree char *name = g_strdup_printf ("shard-%u.db", s);

      f->paths[s] = g_build_filename (f->dir, name, NULL);
      g_assert_cmpint ((sqlite3_open) (f->paths[s], &db), ==, SQLITE_OK);
      exec_ok (db, "PRAGMA journal_mode = WAL");
      exec_ok (db, schema);
      fill (db, s);
      exec_ok (db, "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')");
      (sqlite3_close) (db);
      fill (f->whole, s);
    }
  exec_ok (f->whole, "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')");
  g_assert_cmpint ((sqlite3_open) (":memory:", &f->set), ==, SQLITE_OK);
  /* The tables' declarations, as a catalog has them (empty) */
  exec_ok (f->set, schema);
  f->module_set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  g_assert_cmpint (_store_shards_register (f->set, f->module_set), ==, SQLITE_OK);
  exec_ok (f->set, "CREATE TABLE changed (id INTEGER PRIMARY KEY, thread_id INTEGER, parent_id INTEGER);"
                   "CREATE VIRTUAL TABLE temp.messages USING deja_shards (messages, changed);"
                   "CREATE VIRTUAL TABLE temp.links USING deja_shards (links);"
                   "CREATE VIRTUAL TABLE temp.files USING deja_shards (files);"
                   "CREATE VIRTUAL TABLE temp.message_newsgroups USING deja_shards (message_newsgroups);"
                   "CREATE VIRTUAL TABLE temp.messages_fts USING deja_shards (messages_fts)");
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  (sqlite3_close) (f->set);
  (sqlite3_close) (f->whole);
  for (guint s = 0; s < N_SHARDS; s++)
    {
      g_autofree char *wal = g_strconcat (f->paths[s], "-wal", NULL);
      g_autofree char *shm = g_strconcat (f->paths[s], "-shm", NULL);

      g_unlink (wal);
      g_unlink (shm);
      g_unlink (f->paths[s]);
      g_free (f->paths[s]);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
}

/* Every row of @sql's answer, one line each, or the error. */
static char *
answer (sqlite3 *db, const char *sql)
{
  GString *out = g_string_new (NULL);
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    {
      g_string_append_printf (out, "error: %s", sqlite3_errmsg (db));
      return g_string_free (out, FALSE);
    }
  while ((rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      for (int i = 0; i < sqlite3_column_count (stmt); i++)
        {
          const unsigned char *v = sqlite3_column_text (stmt, i);

          g_string_append_printf (out, "%s%s", i ? "|" : "", v ? (const char *) v : "NULL");
        }
      g_string_append_c (out, '\n');
    }
  if (rc != SQLITE_DONE)
    g_string_append_printf (out, "error: %s", sqlite3_errmsg (db));
  (sqlite3_finalize) (stmt);
  return g_string_free (out, FALSE);
}

static const char *const queries[] = {
  "SELECT count(*), sum(length(body)) FROM messages",
  "SELECT * FROM messages",
  "SELECT id, subject FROM messages ORDER BY id",
  "SELECT id FROM messages ORDER BY id DESC LIMIT 5",
  "SELECT id, date FROM messages WHERE date IS NULL",
  "SELECT count(*) FROM messages WHERE date IS NOT NULL AND lang IS NULL",
  "SELECT id FROM messages WHERE date >= '1993' AND date < '1994-06' ORDER BY date, id",
  "SELECT id, subject FROM messages WHERE subject LIKE 're: comet%' ORDER BY id",
  "SELECT id FROM messages WHERE subject GLOB 'Re: [lm]*' ORDER BY id",
  "SELECT lang, count(*) FROM messages GROUP BY lang ORDER BY lang",
  "SELECT * FROM messages WHERE id = 8589934602",
  "SELECT * FROM messages WHERE id = 21474836481",
  "SELECT count(*) FROM messages WHERE id = 12884901889",   /* no shard 3 */
  "SELECT * FROM messages WHERE id = '8589934602'",
  "SELECT id FROM messages WHERE id IN (4294967297, 21474836520, 8589934600) ORDER BY id",
  "SELECT id FROM messages WHERE id > 8589934630 AND id <= 21474836483 ORDER BY id",
  "SELECT id FROM messages WHERE thread_id = 8589934605 ORDER BY id",
  "SELECT id FROM messages WHERE message_id = '<2.7@example.org>'",
  "SELECT p.id, c.id FROM messages c JOIN messages p ON p.id = c.parent_id"
  " WHERE c.lang = 'de' ORDER BY c.id",
  "SELECT thread_id, count(*), min(date) FROM messages GROUP BY thread_id ORDER BY 2 DESC, 1 LIMIT 7",
  "SELECT g.newsgroup, count(*) FROM message_newsgroups g JOIN messages m ON m.id = g.message_id"
  " WHERE m.lang = 'en' GROUP BY g.newsgroup ORDER BY 1",
  "SELECT message_id FROM message_newsgroups WHERE newsgroup = 'sci.astro' ORDER BY 1 LIMIT 9",
  "SELECT count(*) FROM message_newsgroups",
  "SELECT count(*) FROM message_newsgroups WHERE newsgroup = 'SCI.Astro'",
  "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'comet' ORDER BY rowid",
  "SELECT rowid, subject FROM messages_fts WHERE messages_fts MATCH 'subject:lens AND (body:dust OR body:orbit)'"
  " ORDER BY rowid",
  "SELECT m.id, m.date FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
  " WHERE messages_fts MATCH 'telescope NOT mirror' ORDER BY m.date, m.id",
  "SELECT count(*) FROM messages WHERE id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'orb*')",
  /* ranked as in one database: BM25 with the set's counts, to the last bit */
  "SELECT rowid, printf('%.17e', rank) FROM messages_fts WHERE messages_fts MATCH 'comet' ORDER BY rank, rowid",
  "SELECT rowid, printf('%.17e', rank) FROM messages_fts WHERE messages_fts MATCH 'lens AND mirror'"
  " ORDER BY rank, rowid",
  /* 'orbit' is in shards where no row has both words */
  "SELECT rowid, printf('%.17e', rank) FROM messages_fts WHERE messages_fts MATCH 'orbit AND comet'"
  " ORDER BY rank, rowid",
  "SELECT m.id, printf('%.17e', rank), m.subject FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
  " WHERE messages_fts MATCH 'subject:telescope OR body:mirror' ORDER BY rank, m.id LIMIT 12",
  "SELECT rowid, snippet(messages_fts, -1, '[', ']', '...', 4) FROM messages_fts"
  " WHERE messages_fts MATCH 'lens' ORDER BY rowid",
  "SELECT rowid, highlight(messages_fts, 1, '<', '>') FROM messages_fts WHERE messages_fts MATCH 'dust OR comet'"
  " ORDER BY rank, rowid LIMIT 10",
  "SELECT t.id, (SELECT snippet(messages_fts, -1, '[', ']', '…', 8) FROM messages_fts"
  " WHERE messages_fts MATCH 'mirror' AND rowid = t.id) FROM messages t WHERE t.lang = 'de' ORDER BY t.id",
  /* ids given here after the shards' before, as deja merge gives them */
  "SELECT * FROM links",
  "SELECT id, url FROM links WHERE id > 10 AND id < 20 ORDER BY id",
  "SELECT l.id, m.subject FROM links l JOIN messages m ON m.id = l.message_id WHERE l.id = 16",
  "SELECT count(*) FROM links WHERE message_id > 8589934592",
  /* a column naming a message is asked of that message's shard alone */
  "SELECT id, url FROM links WHERE message_id = 8589934593",
  "SELECT count(*) FROM links WHERE message_id = '8589934596'",
  "SELECT count(*) FROM links WHERE message_id = 8589934596.0",
  "SELECT count(*), 1 FROM links WHERE message_id = 12884901889",   /* no shard 3 */
  "SELECT count(*), 1 FROM links WHERE message_id = NULL",
  "SELECT m.id, l.url FROM messages m JOIN links l ON l.message_id = m.id WHERE m.lang = 'de' ORDER BY l.id",
  "SELECT newsgroup FROM message_newsgroups WHERE message_id = 21474836483 ORDER BY 1",
  "SELECT m.id, g.newsgroup FROM messages m JOIN message_newsgroups g ON g.message_id = m.id"
  " WHERE m.date IS NULL ORDER BY 1, 2",
  /* a row joined on NULL: no shard has one to give, but with IS */
  "SELECT c.id, p.id FROM messages c JOIN messages p ON p.date = c.date WHERE c.id < 4294967315 ORDER BY 1, 2",
  "SELECT c.id, count(p.id) FROM messages c JOIN messages p ON p.date IS c.date WHERE c.date IS NULL"
  " GROUP BY c.id ORDER BY 1",
  "SELECT c.id, p.id FROM messages c LEFT JOIN messages p ON p.id = c.parent_id WHERE c.lang = 'de' ORDER BY 1",
};

static void
test_as_whole (Fixture *f, gconstpointer data)
{
  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (queries); i++)
    {
      g_autofree char *want = answer (f->whole, queries[i]);
      g_autofree char *got = answer (f->set, queries[i]);

      g_test_message ("%s", queries[i]);
      g_assert_false (g_str_has_prefix (want, "error"));
      g_assert_cmpstr (got, ==, want);
      /* not a query that answers nothing */
      g_assert_cmpuint (strlen (want), >, 0);
    }
}

/* Values changed here (a catalog's threads across shards) go to the
 * connection's own table, only where they differ from the shard's, and
 * every query sees them; nothing else of a shard changes. */
static void
test_changed_here (Fixture *f, gconstpointer data)
{
  static const char *const updates[] = {
    "UPDATE messages SET thread_id = 4294967297, parent_id = 4294967300 WHERE id = 8589934597",
    "UPDATE messages SET thread_id = 4294967297 WHERE id IN (8589934598, 8589934599)",
    /* to what it was: nothing to keep */
    "UPDATE messages SET thread_id = thread_id, parent_id = parent_id WHERE lang = 'de'",
    "UPDATE messages SET parent_id = NULL WHERE id = 21474836490",
  };
  static const char *const after[] = {
    "SELECT * FROM messages ORDER BY id",
    "SELECT id, parent_id FROM messages WHERE thread_id = 4294967297 ORDER BY id",
    "SELECT count(*) FROM messages WHERE parent_id IS NULL",
    "SELECT thread_id, count(*) FROM messages GROUP BY thread_id ORDER BY 2 DESC, 1 LIMIT 4",
    "SELECT * FROM messages WHERE id = 8589934598",
    /* asked of the shards on a column changed here */
    "SELECT id FROM messages WHERE parent_id IS NULL ORDER BY id",
    "SELECT id FROM messages WHERE parent_id IS NOT NULL AND thread_id = 4294967297 ORDER BY id",
    "SELECT id, thread_id FROM messages WHERE thread_id > 8589934600 AND thread_id < 8589934620 ORDER BY id",
    "SELECT count(*) FROM messages WHERE thread_id IN (4294967297, 8589934597)",
    "SELECT p.id, c.id FROM messages c JOIN messages p ON p.thread_id = c.parent_id ORDER BY 1, 2",
    /* a changed row is passed over here where its values changed tell it
     * is not wanted: moved out of a thread, or compared with text */
    "SELECT id FROM messages WHERE thread_id = 8589934597 ORDER BY id",
    "SELECT id FROM messages WHERE thread_id = '4294967297' ORDER BY id",
    "SELECT id FROM messages WHERE parent_id = 4294967300",   /* one of its shard, one changed here */
    "SELECT c.id, p.id FROM messages p JOIN messages c ON c.parent_id = p.id WHERE p.lang = 'de' ORDER BY 1",
    "SELECT count(*) FROM messages WHERE parent_id IS NULL AND thread_id = 21474836489",
    "SELECT count(*) FROM messages WHERE parent_id IS NOT NULL AND thread_id = 21474836489",
  };
  char *err = NULL;

  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (updates); i++)
    {
      exec_ok (f->whole, updates[i]);
      exec_ok (f->set, updates[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (after); i++)
    {
      g_autofree char *want = answer (f->whole, after[i]);
      g_autofree char *got = answer (f->set, after[i]);

      g_test_message ("%s", after[i]);
      g_assert_cmpstr (got, ==, want);
    }
  {
    g_autofree char *kept = answer (f->set, "SELECT id, thread_id, parent_id FROM changed ORDER BY id");

    g_assert_cmpstr (kept, ==, "8589934597|4294967297|4294967300\n"
                               "8589934598|4294967297|8589934597\n"
                               "8589934599|4294967297|8589934598\n"
                               "21474836490|21474836489|NULL\n");
  }
  /* Back to the shard's value: the row leaves the table */
  exec_ok (f->set, "UPDATE messages SET parent_id = 21474836489 WHERE id = 21474836490");
  {
    g_autofree char *kept = answer (f->set, "SELECT count(*) FROM changed");

    g_assert_cmpstr (kept, ==, "3\n");
  }
  /* Rows found by a value changed here, changed again (the index of the
   * changed rows by value made anew) */
  {
    static const char move[] = "UPDATE messages SET thread_id = 8589934597 WHERE thread_id = 4294967297"
                               " AND id > 8589934597";
    static const char read[] = "SELECT id, thread_id, parent_id FROM messages WHERE thread_id = 8589934597"
                               " OR thread_id = 4294967297 ORDER BY id";

    exec_ok (f->whole, move);
    exec_ok (f->set, move);
    {
      g_autofree char *want = answer (f->whole, read);
      g_autofree char *got = answer (f->set, read);

      g_assert_cmpstr (got, ==, want);
      g_assert_nonnull (strstr (got, "8589934599|8589934597|8589934598"));
    }
  }
  /* Undone with the transaction */
  exec_ok (f->set, "BEGIN; UPDATE messages SET thread_id = 1 WHERE id = 4294967297; ROLLBACK");
  {
    g_autofree char *got = answer (f->set, "SELECT thread_id FROM messages WHERE id = 4294967297");

    g_assert_cmpstr (got, ==, "4294967297\n");
  }
  /* Other columns, and rows, are the shards' */
  g_assert_cmpint ((sqlite3_exec) (f->set, "UPDATE messages SET lang = 'fr' WHERE id = 4294967297",
                                   NULL, NULL, &err), !=, SQLITE_OK);
  g_assert_nonnull (strstr (err, "columns a catalog holds"));
  sqlite3_free (err);
  err = NULL;
  g_assert_cmpint ((sqlite3_exec) (f->set, "DELETE FROM messages WHERE id = 4294967297", NULL, NULL, &err),
                   !=, SQLITE_OK);
  sqlite3_free (err);
  err = NULL;
  g_assert_cmpint ((sqlite3_exec) (f->set, "UPDATE links SET url = 'x'", NULL, NULL, &err), !=, SQLITE_OK);
  sqlite3_free (err);
}

/* @sql answers on the set as on the whole, its changed rows read again
 * by id after the shards' (@by_id) or not, its shards asked by
 * message_id */
static void
answered_as_whole (Fixture *f, const char *sql, gboolean by_id)
{
  g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", sql, NULL);
  g_autofree char *plan = answer (f->set, explain);
  g_autofree char *want = answer (f->whole, sql);
  g_autofree char *got = answer (f->set, sql);

  g_test_message ("%s\n%s", sql, plan);
  g_assert_cmpstr (got, ==, want);
  g_assert_true ((strstr (plan, "WHERE rowid = ?1") != NULL) == by_id);
  g_assert_nonnull (strstr (plan, "\"message_id\" "));
}

/* A query that asks a column an index of the shards begins with to
 * equal a value (messages_message_id here; a catalog's authors move the
 * messages of one address at a time, by messages_sender), and a changed
 * column only to differ from a value or to be NULL or not, compares the
 * changed columns itself: each shard gives the rows of that value, the
 * changed ones with their values here, and no changed row is read again
 * by id after (once a statement, for each of a catalog's shared
 * addresses, every row it had changed).  Asked for a changed column's
 * value, or of a changed column alone, the changed rows of it are still
 * read after the shards'. */
static void
test_changed_and_indexed (Fixture *f, gconstpointer data)
{
  static const char *const updates[] = {
    "UPDATE messages SET thread_id = 4294967297, parent_id = 4294967300 WHERE id = 8589934597",
    "UPDATE messages SET thread_id = 4294967297 WHERE id IN (8589934598, 8589934599)",
  };
  /* changed row 8589934597 is <1.5@example.org>, its shard's thread 8589934597 */
  static const char *const asked[] = {
    "SELECT id, thread_id, parent_id FROM messages WHERE message_id = '<1.5@example.org>'"
    " AND thread_id IS NOT 8589934597",
    "SELECT id FROM messages WHERE message_id = '<1.5@example.org>' AND thread_id != 4294967297",
    "SELECT id FROM messages WHERE message_id = '<1.5@example.org>' AND thread_id IS NOT 4294967297",
    "SELECT id, parent_id FROM messages WHERE message_id IN ('<1.5@example.org>', '<1.10@example.org>',"
    " '<0.3@example.org>') AND parent_id IS NOT NULL ORDER BY id",
    "SELECT id FROM messages WHERE message_id IS '<1.1@example.org>' AND parent_id IS NULL",
  };
  /* a changed column's value asked: its changed rows by their index here */
  static const char *const by_value[] = {
    "SELECT id, thread_id, parent_id FROM messages WHERE message_id = '<1.5@example.org>'"
    " AND thread_id = 4294967297",
    "SELECT id FROM messages WHERE message_id = '<1.5@example.org>' AND thread_id = 8589934597",
    "SELECT id FROM messages WHERE message_id = '<1.6@example.org>' AND thread_id > 4294967296"
    " AND thread_id < 4294967298",
  };
  static const char move[] = "UPDATE messages SET thread_id = 4294967297 WHERE message_id = '<1.10@example.org>'"
                             " AND thread_id IS NOT 4294967297";
  static const char read[] = "SELECT id, thread_id, parent_id FROM messages ORDER BY id";

  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (updates); i++)
    {
      exec_ok (f->whole, updates[i]);
      exec_ok (f->set, updates[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (asked); i++)
    answered_as_whole (f, asked[i], FALSE);
  /* (the first and the fourth find a row only by its values here) */
  {
    g_autofree char *first = answer (f->set, asked[0]);
    g_autofree char *fourth = answer (f->set, asked[3]);

    g_assert_cmpstr (first, ==, "8589934597|4294967297|4294967300\n");
    g_assert_nonnull (strstr (fourth, "8589934597|4294967300\n"));
  }
  for (guint i = 0; i < G_N_ELEMENTS (by_value); i++)
    answered_as_whole (f, by_value[i], TRUE);
  {
    g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", move, NULL);
    g_autofree char *plan = answer (f->set, explain);

    g_assert_null (strstr (plan, "WHERE rowid = ?1"));
  }
  exec_ok (f->whole, move);
  exec_ok (f->set, move);
  {
    g_autofree char *want = answer (f->whole, read);
    g_autofree char *got = answer (f->set, read);
    g_autofree char *changed = answer (f->set, "SELECT count(*) FROM changed");

    g_assert_cmpstr (got, ==, want);
    g_assert_cmpstr (changed, ==, "4\n");
  }
  /* a changed column alone: the changed rows read after, by id */
  {
    g_autofree char *plan = answer (f->set, "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE thread_id = 4294967297");

    g_assert_nonnull (strstr (plan, "WHERE rowid = ?1"));
  }
}

/* An UPDATE asks each shard for a row's id alone, not for every column
 * (a body read to change a thread); the columns it reads are read one by
 * one, with the values the whole database has. */
static void
test_update_reads (Fixture *f, gconstpointer data)
{
  static const char *const updates[] = {
    /* its new value from a column it does not change */
    "UPDATE messages SET thread_id = thread_id + length(body) WHERE lang = 'de'",
    /* rows chosen by one, and a subquery on the same table given another */
    "UPDATE messages SET parent_id = (SELECT max(m.id) FROM messages m WHERE m.subject = messages.subject"
    " AND m.id < messages.id) WHERE body LIKE '%dust%' AND date IS NOT NULL",
  };
  static const char read[] = "SELECT id, thread_id, parent_id FROM messages ORDER BY id";
  g_autofree char *plan = NULL;

  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (updates); i++)
    {
      g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", updates[i], NULL);

      g_free (plan);
      plan = answer (f->set, explain);
      g_test_message ("%s", plan);
      g_assert_nonnull (strstr (plan, "SELECT rowid FROM main.\"messages\""));
      exec_ok (f->whole, updates[i]);
      exec_ok (f->set, updates[i]);
    }
  {
    g_autofree char *want = answer (f->whole, read);
    g_autofree char *got = answer (f->set, read);
    g_autofree char *changed = answer (f->set, "SELECT count(*) > 10 FROM changed");

    g_assert_cmpstr (got, ==, want);
    g_assert_cmpstr (changed, ==, "1\n");
  }
}

/* Rows applied as a statement's, with the shards' values the caller read
 * there (_store_shards_update_begin(): a catalog's threads saved); their
 * total, each shard's own: _store_shards_update_row() with them, or with
 * its shard read (read_shard), the rows end as the same UPDATEs leave
 * them, one by one */
typedef struct {
  StoreShards *set;
  sqlite3 *db;
  const char *table;
} Applying;

/* Applies every row of @sql; returns the first SQLite code not OK */
static int
apply_rows (const Applying *a, const char *sql, gboolean read_shard, char **why)
{
  sqlite3_stmt *rows = NULL;
  StoreShardsUpdate *u;
  int rc = (sqlite3_prepare_v2) (a->db, sql, -1, &rows, NULL);

  g_assert_cmpint (rc, ==, SQLITE_OK);
  u = _store_shards_update_begin (a->db, a->set, a->table, rows, why);
  if (u == NULL)
    rc = SQLITE_ERROR;
  while (u && (rc = (sqlite3_step) (rows)) == SQLITE_ROW)
    if ((rc = _store_shards_update_row (u, read_shard)) != SQLITE_OK)
      break;
  _store_shards_update_end (u);
  (sqlite3_finalize) (rows);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void
test_update_rows (Fixture *f, gconstpointer data)
{
  static const char *const before[] = {
    "UPDATE messages SET thread_id = 4294967297 WHERE id IN (8589934598, 21474836491)",
    "UPDATE messages SET parent_id = NULL WHERE id = 21474836490",
  };
  static const char *const updates[] = {
    "UPDATE messages SET parent_id = 4294967297 WHERE id = 8589934598",    /* keeps its thread here */
    "UPDATE messages SET parent_id = 21474836489 WHERE id = 21474836490",  /* back to its shard's */
    "UPDATE messages SET parent_id = 8589934597 WHERE id = 4294967300",
    "UPDATE messages SET parent_id = 4294967306 WHERE id = 4294967307",    /* its shard's already */
  };
  static const gint64 ids[] = { 8589934598, 21474836490, 4294967300, 4294967307 };
  static const gint64 parents[] = { 4294967297, 21474836489, 8589934597, 4294967306 };
  static const char given[] = "SELECT id, parent_id, thread_id AS \"shard.thread_id\","
                              " shard_parent AS \"shard.parent_id\" FROM temp.saved ORDER BY id";
  static const char asked[] = "SELECT id, parent_id, NULL AS \"shard.thread_id\", NULL AS \"shard.parent_id\""
                              " FROM temp.saved ORDER BY id";
  static const char read[] = "SELECT * FROM messages ORDER BY id";
  static const char kept[] = "SELECT id, thread_id, parent_id FROM changed ORDER BY id";
  Applying a = { f->module_set, f->set, "messages" };   /* as a catalog's store holds them */
  char *why = NULL;

  (void) data;
  /* the shards' own values, as threading reads them before anything changed */
  exec_ok (f->set, "CREATE TEMP TABLE saved (id INTEGER PRIMARY KEY, parent_id INTEGER, thread_id, shard_parent)");
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT thread_id || ', ' || coalesce(parent_id, 'NULL')"
                                              " FROM messages WHERE id = %" G_GINT64_FORMAT, ids[i]);
      g_autofree char *shard = answer (f->whole, sql);
      g_autofree char *insert = NULL;

      g_strchomp (shard);
      insert = g_strdup_printf ("INSERT INTO temp.saved VALUES (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s)",
                                ids[i], parents[i], shard);
      exec_ok (f->set, insert);
    }
  for (guint i = 0; i < G_N_ELEMENTS (before); i++)
    {
      exec_ok (f->whole, before[i]);
      exec_ok (f->set, before[i]);
    }
  /* undone with the transaction */
  exec_ok (f->set, "BEGIN");
  g_assert_cmpint (apply_rows (&a, given, FALSE, &why), ==, SQLITE_OK);
  g_assert_null (why);
  exec_ok (f->set, "ROLLBACK");
  {
    g_autofree char *want = answer (f->whole, read);
    g_autofree char *got = answer (f->set, read);

    g_assert_cmpstr (got, ==, want);
  }
  for (guint i = 0; i < G_N_ELEMENTS (updates); i++)
    exec_ok (f->whole, updates[i]);
  /* given, or read in the shards: the same rows */
  for (int read_shard = 0; read_shard <= 1; read_shard++)
    {
      exec_ok (f->set, "BEGIN");
      g_assert_cmpint (apply_rows (&a, read_shard ? asked : given, read_shard, &why), ==, SQLITE_OK);
      {
        g_autofree char *want = answer (f->whole, read);
        g_autofree char *got = answer (f->set, read);
        g_autofree char *overlay = answer (f->set, kept);

        g_assert_cmpstr (got, ==, want);
        g_assert_cmpstr (overlay, ==, "4294967300|4294967297|8589934597\n"
                                      "8589934598|4294967297|4294967297\n"
                                      "21474836491|4294967297|21474836490\n");
      }
      exec_ok (f->set, "ROLLBACK");
    }
  /* the shard's values given are the ones compared: told that its shard
   * has the new parent already, a row leaves no value of its own */
  exec_ok (f->set, "BEGIN");
  exec_ok (f->set, "UPDATE temp.saved SET shard_parent = parent_id WHERE id = 4294967300");
  g_assert_cmpint (apply_rows (&a, given, FALSE, &why), ==, SQLITE_OK);
  {
    g_autofree char *overlay = answer (f->set, kept);

    g_assert_cmpstr (overlay, ==, "8589934598|4294967297|4294967297\n"
                                  "21474836491|4294967297|21474836490\n");
  }
  exec_ok (f->set, "ROLLBACK");
  /* what it cannot do: a column the catalog does not hold, one whose
   * shard's value is not given, a row no shard has, a table without
   * values changed here */
  g_assert_cmpint (apply_rows (&a, "SELECT 4294967297, 'fr' AS lang", FALSE, &why), !=, SQLITE_OK);
  g_assert_nonnull (strstr (why, "columns a catalog holds, not in lang"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (apply_rows (&a, "SELECT 4294967297, 1 AS parent_id, 1 AS \"shard.parent_id\"", FALSE, &why),
                   !=, SQLITE_OK);
  g_assert_nonnull (strstr (why, "shard's value of thread_id is not given"));
  g_clear_pointer (&why, g_free);
  g_assert_cmpint (apply_rows (&a, "SELECT 12884901889, NULL AS parent_id, NULL AS \"shard.thread_id\","
                                   " NULL AS \"shard.parent_id\"", TRUE, &why), ==, SQLITE_NOTFOUND);
  g_assert_cmpint (apply_rows (&(Applying) { a.set, a.db, "links" }, given, FALSE, &why), !=, SQLITE_OK);
  g_assert_nonnull (strstr (why, "not changed here"));
  g_clear_pointer (&why, g_free);
}

/* A value of each type packed in a worker's records and bound again
 * (_store_pack_value(): threading keeps a shard's values so, whatever
 * type a stranger's shard gives a column) is the same value */
static void
test_packed_values (void)
{
  static const char *const values[] = {
    "42", "-9223372036854775807 - 1", "2.5", "'text with ' || char(0) || ' in it'", "x'00ff10'", "''", "x''",
    "NULL",
  };
  sqlite3 *db = NULL;
  sqlite3_stmt *back = NULL;
  g_autoptr (GArray) bytes = g_array_new (FALSE, FALSE, 1);
  gsize at = 0;

  g_assert_cmpint ((sqlite3_open) (":memory:", &db), ==, SQLITE_OK);
  g_assert_cmpint ((sqlite3_prepare_v2) (db, "SELECT typeof(?1) || ' ' || length(?1) || ' ' || hex(?1)", -1,
                                         &back, NULL), ==, SQLITE_OK);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT %s, typeof(v) || ' ' || length(v) || ' ' || hex(v)"
                                              " FROM (SELECT %s AS v)", values[i], values[i]);
      sqlite3_stmt *stmt = NULL;
      const guint8 *packed;

      g_assert_cmpint ((sqlite3_prepare_v2) (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      g_assert_cmpint ((sqlite3_step) (stmt), ==, SQLITE_ROW);
      _store_pack_value (bytes, stmt, 0);
      packed = (const guint8 *) bytes->data + at;
      g_assert_cmpuint (at + _store_packed_value_size (packed), ==, bytes->len);
      at = bytes->len;
      g_assert_cmpint (_store_bind_packed_value (back, 1, packed), ==, SQLITE_OK);
      g_assert_cmpint ((sqlite3_step) (back), ==, SQLITE_ROW);
      g_assert_cmpstr ((const char *) (sqlite3_column_text) (back, 0), ==,
                       (const char *) (sqlite3_column_text) (stmt, 1));
      (sqlite3_reset) (back);
      (sqlite3_finalize) (stmt);
    }
  (sqlite3_finalize) (back);
  (sqlite3_close) (db);
}

typedef struct {
  gint64 id;
  char subject[48];
} ScanRow;

static void
scan_convert (sqlite3_stmt *stmt, GArray *records)
{
  ScanRow row = { .id = sqlite3_column_int64 (stmt, 0) };

  g_strlcpy (row.subject, (const char *) sqlite3_column_text (stmt, 1), sizeof row.subject);
  g_array_append_val (records, row);
}

static void
scan_take (const GArray *records, gpointer data)
{
  for (guint i = 0; i < records->len; i++)
    g_string_append_printf (data, "%" G_GINT64_FORMAT "|%s\n", g_array_index (records, ScanRow, i).id,
                            g_array_index (records, ScanRow, i).subject);
}

/* Every shard read at once, by workers (a catalog's threading plan):
 * their rows handed over in the set's order, as one database gives them;
 * a shard that cannot answer is named. */
static void
test_scan (Fixture *f, gconstpointer data)
{
  static const char sql[] = "SELECT rowid, subject FROM main.messages ORDER BY rowid";
  g_autofree char *want = answer (f->whole, "SELECT id, subject FROM messages ORDER BY id");
  StoreShards *set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  g_autoptr (GString) got = g_string_new (NULL);
  char *error = NULL;

  (void) data;
  g_assert_cmpint (_store_shards_scan (set, sql, scan_convert, sizeof (ScanRow), scan_take, got, &error), ==,
                   SQLITE_OK);
  g_assert_null (error);
  g_assert_cmpstr (got->str, ==, want);
  g_assert_cmpuint (strlen (want), >, 100);
  /* a statement one shard cannot run */
  {
    sqlite3 *db;

    g_assert_cmpint ((sqlite3_open) (f->paths[1], &db), ==, SQLITE_OK);
    exec_ok (db, "CREATE TABLE only_here (x)");
    (sqlite3_close) (db);
  }
  _store_shards_free (set);
  set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  g_string_truncate (got, 0);
  g_assert_cmpint (_store_shards_scan (set, "SELECT rowid, 'x' FROM main.only_here", scan_convert,
                                       sizeof (ScanRow), scan_take, got, &error), !=, SQLITE_OK);
  g_assert_nonnull (strstr (error, "shard-0.db"));
  g_assert_nonnull (strstr (error, "no such table"));
  g_clear_pointer (&error, g_free);
  /* a shard gone */
  _store_shards_free (set);
  {
    g_autofree char *moved = g_strconcat (f->paths[2], ".away", NULL);

    g_assert_cmpint (g_rename (f->paths[2], moved), ==, 0);
    set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
    g_assert_cmpint (_store_shards_scan (set, sql, scan_convert, sizeof (ScanRow), scan_take, got, &error), !=,
                     SQLITE_OK);
    g_assert_nonnull (strstr (error, "shard-2.db"));
    g_clear_pointer (&error, g_free);
    _store_shards_free (set);
    g_assert_cmpint (g_rename (moved, f->paths[2]), ==, 0);
  }
}

static void
count_convert (sqlite3_stmt *stmt, GArray *records)
{
  gint64 n = sqlite3_column_int64 (stmt, 0);

  g_array_append_val (records, n);
}

static void
count_take (const GArray *records, gpointer data)
{
  *(gint64 *) data += g_array_index (records, gint64, 0);
}

/* Many shards are opened at once, a worker a CPU: every one read, and
 * of two that cannot be, the first in the set's order is named, however
 * the workers met them. */
static void
test_many (Fixture *f, gconstpointer data)
{
  enum { MANY = 24 };
  char *paths[MANY];
  gint64 many_numbers[MANY], rows = 0;
  StoreShards *set;
  char *error = NULL;

  (void) data;
  for (guint i = 0; i < MANY; i++)
    {
      g_autofree char *name = g_strdup_printf ("copy-%02u.db", i);
      g_autofree char *bytes = NULL;
      gsize length = 0;

      paths[i] = g_build_filename (f->dir, name, NULL);
      g_assert_true (g_file_get_contents (f->paths[i % N_SHARDS], &bytes, &length, NULL));
      g_assert_true (g_file_set_contents (paths[i], bytes, (gssize) length, NULL));
      many_numbers[i] = i + 1;
    }
  set = _store_shards_new ((const char *const *) paths, many_numbers, MANY);
  g_assert_cmpint (_store_shards_scan (set, "SELECT count(*) FROM main.messages", count_convert, sizeof rows,
                                       count_take, &rows, &error), ==, SQLITE_OK);
  g_assert_null (error);
  g_assert_cmpint (rows, ==, MANY * 40);
  _store_shards_free (set);
  g_assert_cmpint (g_unlink (paths[9]), ==, 0);
  g_assert_true (g_file_set_contents (paths[17], "not a database, and long enough to be read as one", -1, NULL));
  for (guint round = 0; round < 8; round++)
    {
      set = _store_shards_new ((const char *const *) paths, many_numbers, MANY);
      g_assert_cmpint (_store_shards_scan (set, "SELECT count(*) FROM main.messages", count_convert, sizeof rows,
                                           count_take, &rows, &error), !=, SQLITE_OK);
      g_assert_nonnull (strstr (error, "copy-09.db"));
      g_clear_pointer (&error, g_free);
      _store_shards_free (set);
    }
  g_assert_cmpint (g_unlink (paths[17]), ==, 0);
  set = _store_shards_new ((const char *const *) paths + 10, many_numbers + 10, MANY - 10);
  g_assert_cmpint (_store_shards_scan (set, "SELECT count(*) FROM main.messages", count_convert, sizeof rows,
                                       count_take, &rows, &error), !=, SQLITE_OK);
  g_assert_nonnull (strstr (error, "copy-17.db"));
  g_clear_pointer (&error, g_free);
  _store_shards_free (set);
  for (guint i = 0; i < MANY; i++)
    {
      g_unlink (paths[i]);
      g_free (paths[i]);
    }
}

/* What each_count() found of each shard */
typedef struct {
  gint64 rows[N_SHARDS];
  gint calls;
} Counted;

static char *
each_count (sqlite3 *db, guint i, gpointer data)
{
  Counted *c = data;
  sqlite3_stmt *stmt;

  g_atomic_int_inc (&c->calls);
  /* a worker reads it while the caller's thread may ask it through
   * deja_shards: it keeps SQLite's mutex, unlike a Store's own */
  g_assert_nonnull (sqlite3_db_mutex (db));
  g_assert_cmpint ((sqlite3_prepare_v2) (db, "SELECT count(*) FROM main.messages", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint ((sqlite3_step) (stmt), ==, SQLITE_ROW);
  c->rows[i] = (sqlite3_column_int64) (stmt, 0);
  (sqlite3_finalize) (stmt);
  /* the last two are said to be wrong */
  return i >= 1 ? g_strdup_printf ("wrong at %u", i) : NULL;
}

/* What the caller's thread was told was done, and on which thread */
typedef struct {
  GThread *caller;
  guint times[N_SHARDS];
  guint elsewhere;
} Handed;

static void
each_done (guint i, gpointer data)
{
  Handed *h = data;

  g_assert_cmpuint (i, <, N_SHARDS);
  h->times[i]++;
  h->elsewhere += g_thread_self () != h->caller;
}

/* A function of each shard's connection, at once (a catalog being made
 * checks its shards so): every shard given to it, and then to the
 * caller's thread, once each, failed ones too (a progress line follows
 * them), the first that fails in the set's order named however the
 * workers met them; the connections then taken by another set of the
 * same shards, which reads them with their files gone. */
static void
test_each (Fixture *f, gconstpointer data)
{
  StoreShards *probe = _store_shards_new ((const char *const *) f->paths, (gint64[N_SHARDS]) { 0 }, N_SHARDS);
  StoreShards *set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  Counted counted = { { 0 }, 0 };
  Handed handed = { g_thread_self (), { 0 }, 0 };
  char *error = NULL;
  guint failed = G_MAXUINT;
  gint64 rows = 0;
  char *moved[N_SHARDS];

  (void) data;
  g_assert_cmpint (_store_shards_each (probe, each_count, &counted, each_done, &handed, &failed, &error), ==,
                   SQLITE_ERROR);
  g_assert_cmpint (counted.calls, ==, N_SHARDS);
  for (guint i = 0; i < N_SHARDS; i++)
    g_assert_cmpuint (handed.times[i], ==, 1);
  g_assert_cmpuint (handed.elsewhere, ==, 0);
  g_assert_cmpuint (failed, ==, 1);
  g_assert_cmpstr (error, ==, "wrong at 1");
  g_clear_pointer (&error, g_free);
  for (guint i = 0; i < N_SHARDS; i++)
    {
      g_assert_cmpint (counted.rows[i], ==, 40);
      _store_shards_set_number (probe, i, numbers[i]);
      moved[i] = g_strconcat (f->paths[i], ".away", NULL);
      g_assert_cmpint (g_rename (f->paths[i], moved[i]), ==, 0);
    }
  _store_shards_adopt (set, probe);
  _store_shards_free (probe);
  g_assert_cmpint (_store_shards_scan (set, "SELECT count(*) FROM main.messages", count_convert, sizeof rows,
                                       count_take, &rows, &error), ==, SQLITE_OK);
  g_assert_null (error);
  g_assert_cmpint (rows, ==, N_SHARDS * 40);
  _store_shards_free (set);
  for (guint i = 0; i < N_SHARDS; i++)
    {
      g_assert_cmpint (g_rename (moved[i], f->paths[i]), ==, 0);
      g_free (moved[i]);
    }
  /* one that cannot be opened: named, without its path (the caller's) */
  g_assert_true (g_file_set_contents (f->paths[2], "not a database, and long enough to be read as one", -1, NULL));
  probe = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  counted = (Counted) { { 0 }, 0 };
  handed = (Handed) { g_thread_self (), { 0 }, 0 };
  g_assert_cmpint (_store_shards_each (probe, each_count, &counted, each_done, &handed, &failed, &error), ==,
                   SQLITE_ERROR);
  g_assert_cmpuint (failed, ==, 1);
  for (guint i = 0; i < N_SHARDS; i++)
    g_assert_cmpuint (handed.times[i], ==, 1);   /* the one not opened too */
  g_clear_pointer (&error, g_free);
  _store_shards_free (probe);
  probe = _store_shards_new ((const char *const *) f->paths + 2, numbers + 2, 1);
  g_assert_cmpint (_store_shards_each (probe, each_count, &counted, NULL, NULL, &failed, &error), ==, SQLITE_ERROR);
  g_assert_cmpuint (failed, ==, 0);
  g_assert_cmpstr (error, ==, "file is not a database");
  g_clear_pointer (&error, g_free);
  _store_shards_free (probe);
}

/* The ids a shard's rows are tested against, a sorted array bound as a
 * pointer: deja_sorted_ids_have() says what "IN (SELECT value FROM
 * json_each(...))" of the same integers says, for numbers, text and NULL,
 * and nothing in a shard none were bound for */
static int
bind_sorted (sqlite3_stmt *stmt, gint64 number, gconstpointer lists)
{
  return _store_bind_shard_sorted_ids (stmt, 1, (GHashTable *) lists, number);
}

static void
sorted_convert (sqlite3_stmt *stmt, GArray *records)
{
  for (int c = 0; c < (sqlite3_column_count) (stmt); c++)
    {
      char have = (char) ('0' + (sqlite3_column_int) (stmt, c));

      g_array_append_val (records, have);
    }
}

static void
sorted_take (const GArray *records, gpointer data)
{
  g_string_append_len (data, records->data, records->len);
  g_string_append_c (data, '|');
}

static void
test_sorted_ids (Fixture *f, gconstpointer data)
{
  static const char sql[] =
    "SELECT deja_sorted_ids_have(?1, (1 << 32) + 3), deja_sorted_ids_have(?1, (1 << 32) + 4),"
    " deja_sorted_ids_have(?1, '4294967299'), deja_sorted_ids_have(?1, NULL),"
    " deja_sorted_ids_have(?1, 4294967299.0), deja_sorted_ids_have(?1, 4294967299.5),"
    " deja_sorted_ids_have(?1, (1 << 32) + 1), deja_sorted_ids_have(?1, (1 << 32) + 9)";
  static const char json[] =
    "SELECT (1 << 32) + 3 IN j, (1 << 32) + 4 IN j, '4294967299' IN j, coalesce(NULL IN j, 0),"
    " 4294967299.0 IN j, 4294967299.5 IN j, (1 << 32) + 1 IN j, (1 << 32) + 9 IN j";
  g_autoptr (GHashTable) lists = _store_shard_sorted_ids_new ();
  StoreShards *set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  g_autoptr (GString) got = g_string_new (NULL);
  g_autoptr (GString) want = g_string_new (NULL);
  g_autoptr (GArray) sqlites = g_array_new (FALSE, FALSE, 1);
  char *error = NULL;
  sqlite3_stmt *stmt;

  (void) data;
  /* shard 1: 1 3 5 9, given out of order and one twice */
  for (gint64 k = 9; k >= 1; k -= 2)
    if (k != 7)
      _store_shard_sorted_ids_add (lists, (G_GINT64_CONSTANT (1) << 32) + k);
  _store_shard_sorted_ids_add (lists, (G_GINT64_CONSTANT (1) << 32) + 3);
  g_assert_cmpuint (((GArray *) g_hash_table_lookup (lists, &(gint64) { 1 }))->len, ==, 4);
  g_assert_cmpint (_store_shards_scan_bound (set, sql, bind_sorted, lists, sorted_convert, 1, sorted_take, got,
                                             &error), ==, SQLITE_OK);
  g_assert_null (error);
  _store_shards_free (set);
  /* SQLite's own answer, on the same integers, for shard 1; none for 2 and 5 */
  exec_ok (f->whole, "CREATE TEMP VIEW j AS SELECT value FROM json_each('[4294967297,4294967299,4294967301,"
                     "4294967305]')");
  g_assert_cmpint ((sqlite3_prepare_v2) (f->whole, json, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint ((sqlite3_step) (stmt), ==, SQLITE_ROW);
  sorted_convert (stmt, sqlites);
  (sqlite3_finalize) (stmt);
  sorted_take (sqlites, want);
  g_string_append (want, "00000000|00000000|");
  g_assert_cmpstr (got->str, ==, want->str);
  g_assert_cmpstr (want->str, ==, "10001011|00000000|00000000|");   /* lest both be wrong alike */
}

static sqlite3 *connect_set (Fixture *f, guint n);

/* The idxNum of the plan of @sql's first scan of a deja_shards table */
static int
plan_index (sqlite3 *db, const char *sql)
{
  g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", sql, NULL);
  g_autofree char *plan = answer (db, explain);
  const char *at = strstr (plan, "VIRTUAL TABLE INDEX ");

  g_test_message ("%s", plan);
  g_assert_nonnull (at);
  return atoi (at + strlen ("VIRTUAL TABLE INDEX "));
}

/* An equality on a column that names a message (a reference to
 * messages.id) goes to that message's shard alone, where every shard's
 * values of that column are its own; where a shard holds one of
 * another's (a damaged database), every shard is asked, and the row is
 * found as in the whole. */
static void
test_routed (Fixture *f, gconstpointer data)
{
  static const char lookup[] = "SELECT message_id, url FROM links WHERE message_id = 21474836484 ORDER BY url";
  static const char stray[] = "INSERT INTO links (message_id, url) VALUES (21474836484, 'http://stray.example/')";
  sqlite3 *db, *other;

  (void) data;
  g_assert_cmpint (plan_index (f->set, lookup), ==, 1 << 16);
  /* A file's messages are many: a search joined with their files reads
   * its hits first (each row looked up with the full-text query would be
   * ranked, and asked of the shards, one by one) */
  {
    static const char search[] = "SELECT m.id, f.path, printf('%.17e', rank) FROM messages_fts"
                                 " JOIN messages m ON m.id = messages_fts.rowid JOIN files f ON f.id = m.file_id"
                                 " WHERE messages_fts MATCH 'comet' ORDER BY rank, m.id";
    g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", search, NULL);
    g_autofree char *plan = answer (f->set, explain);
    g_autofree char *want = answer (f->whole, search);
    g_autofree char *got = answer (f->set, search);

    g_test_message ("%s", plan);
    g_assert_nonnull (strstr (plan, "SCAN messages_fts"));
    g_assert_true (strstr (plan, "SCAN messages_fts") < strstr (plan, "files"));
    g_assert_cmpstr (got, ==, want);
    g_assert_nonnull (strstr (want, "shard-2.mbox"));
  }
  /* not a column naming a message: every shard */
  g_assert_cmpint (plan_index (f->set, "SELECT id FROM links WHERE url = 'http://example.org/1/4'"), ==, 0);
  /* the first shard's link names a message of the third */
  g_assert_cmpint ((sqlite3_open) (f->paths[0], &db), ==, SQLITE_OK);
  exec_ok (db, stray);
  (sqlite3_close) (db);
  exec_ok (f->whole, stray);
  other = connect_set (f, N_SHARDS);
  exec_ok (other, "CREATE VIRTUAL TABLE temp.links USING deja_shards (links)");
  g_assert_cmpint (plan_index (other, lookup), ==, 0);
  {
    g_autofree char *want = answer (f->whole, lookup);
    g_autofree char *got = answer (other, lookup);

    g_assert_nonnull (strstr (want, "stray"));
    g_assert_nonnull (strstr (want, "example.org/2/4"));
    g_assert_cmpstr (got, ==, want);
  }
  (sqlite3_close) (other);
}

/* A new connection to the first @n shards, with the tables' declarations */
static sqlite3 *
connect_set (Fixture *f, guint n)
{
  sqlite3 *db;

  g_assert_cmpint ((sqlite3_open) (":memory:", &db), ==, SQLITE_OK);
  exec_ok (db, schema);
  g_assert_cmpint (_store_shards_register (db, _store_shards_new ((const char *const *) f->paths, numbers, n)),
                   ==, SQLITE_OK);
  return db;
}

/* Making table @table of the set fails, with an error holding @what */
static void
refused (sqlite3 *db, const char *table, const char *what)
{
  g_autofree char *sql = g_strdup_printf ("CREATE VIRTUAL TABLE temp.m USING deja_shards (%s)", table);
  char *err = NULL;

  g_assert_cmpint ((sqlite3_exec) (db, sql, NULL, NULL, &err), !=, SQLITE_OK);
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err, what));
  sqlite3_free (err);
}

/* A shard that is gone is an error naming it, when the table is made
 * (each shard is opened then, for where its ids go). */
static void
test_missing_shard (Fixture *f, gconstpointer data)
{
  sqlite3 *other;

  (void) data;
  g_unlink (f->paths[2]);
  other = connect_set (f, N_SHARDS);
  refused (other, "messages", f->paths[2]);
  (sqlite3_close) (other);
}

/* What the tables read of each shard when they were opened can be kept
 * (a catalog's deja_catalog_extents): a connection that has it opens no
 * shard before a query reads one, and answers as before, the shards'
 * own ids (links) given as before. */
static void
test_kept_extents (Fixture *f, gconstpointer data)
{
  static const char kept[] =
    "CREATE TABLE deja_catalog_extents (table_name TEXT NOT NULL, shard INTEGER NOT NULL,"
    " position INTEGER NOT NULL, value, PRIMARY KEY (table_name, shard, position)) WITHOUT ROWID";
  static const char tables[] =
    "CREATE VIRTUAL TABLE temp.messages USING deja_shards (messages);"
    "CREATE VIRTUAL TABLE temp.links USING deja_shards (links);"
    "CREATE VIRTUAL TABLE temp.message_newsgroups USING deja_shards (message_newsgroups)";
  static const char *const asked[] = {
    "SELECT * FROM links",
    "SELECT l.id, m.subject FROM links l JOIN messages m ON m.id = l.message_id WHERE l.message_id > 8589934600"
    " ORDER BY l.id",
    "SELECT id, url FROM links WHERE message_id = 8589934593",
  };
  g_autofree char *path = g_build_filename (f->dir, "kept.db", NULL);
  StoreShards *set = _store_shards_new ((const char *const *) f->paths, numbers, N_SHARDS);
  sqlite3 *db;

  (void) data;
  g_assert_cmpint ((sqlite3_open) (path, &db), ==, SQLITE_OK);
  exec_ok (db, schema);
  exec_ok (db, kept);
  g_assert_cmpint (_store_shards_register (db, set), ==, SQLITE_OK);
  exec_ok (db, tables);
  g_assert_cmpint (_store_shards_keep_extents (set, db), ==, SQLITE_OK);
  {
    g_autofree char *rows = answer (db, "SELECT count(DISTINCT table_name), count(DISTINCT shard) FROM deja_catalog_extents");

    g_assert_cmpstr (rows, ==, "3|3\n");
  }
  (sqlite3_close) (db);
  g_assert_cmpint ((sqlite3_open) (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (_store_shards_register (db, _store_shards_new ((const char *const *) f->paths, numbers,
                                                                    N_SHARDS)), ==, SQLITE_OK);
  /* No shard read before a query reads it: one gone is not missed by a
   * query that reads another (the first is opened with the tables) */
  {
    g_autofree char *moved = g_strconcat (f->paths[2], ".away", NULL);
    g_autofree char *one = NULL;
    g_autofree char *all = NULL;

    g_assert_cmpint (g_rename (f->paths[2], moved), ==, 0);
    exec_ok (db, tables);
    one = answer (db, "SELECT subject FROM messages WHERE id = 4294967297");
    all = answer (db, "SELECT count(*) FROM messages");
    g_assert_cmpstr (one, ==, "mirror mirror\n");
    g_assert_true (g_str_has_prefix (all, "error"));
    g_assert_nonnull (strstr (all, f->paths[2]));
    g_assert_cmpint (g_rename (moved, f->paths[2]), ==, 0);
  }
  /* and answered as before, from what was kept */
  for (guint i = 0; i < G_N_ELEMENTS (asked); i++)
    {
      g_autofree char *want = answer (f->whole, asked[i]);
      g_autofree char *got = answer (db, asked[i]);

      g_test_message ("%s", asked[i]);
      g_assert_cmpstr (got, ==, want);
    }
  (sqlite3_close) (db);
  g_unlink (path);
}

/* A shard that is not a database is an error naming it, not rows left
 * out; so is a shard without the table, and a name that is not plain. */
static void
test_bad_shard (Fixture *f, gconstpointer data)
{
  sqlite3 *other;

  (void) data;
  g_assert_true (g_file_set_contents (f->paths[1], "From nobody\nnot a database\n", -1, NULL));
  other = connect_set (f, N_SHARDS);
  refused (other, "messages", f->paths[1]);
  (sqlite3_close) (other);
  other = connect_set (f, 1);
  refused (other, "no_such_table", "no table no_such_table");
  /* Only plain names go into the shards' SQL */
  refused (other, "'messages\"--'", "plain names");
  (sqlite3_close) (other);
}

/* Nothing reaches a shard but reads: its connection is read-only. */
static void
test_read_only (Fixture *f, gconstpointer data)
{
  char *err = NULL;

  (void) data;
  g_assert_cmpint ((sqlite3_exec) (f->set, "DELETE FROM messages", NULL, NULL, &err), !=, SQLITE_OK);
  g_assert_nonnull (err);
  sqlite3_free (err);
  g_autofree char *count = answer (f->set, "SELECT count(*) FROM messages");
  g_assert_cmpstr (count, ==, "120\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/shards/as-whole", Fixture, NULL, set_up, test_as_whole, tear_down);
  g_test_add ("/shards/changed-here", Fixture, NULL, set_up, test_changed_here, tear_down);
  g_test_add ("/shards/scan", Fixture, NULL, set_up, test_scan, tear_down);
  g_test_add ("/shards/many", Fixture, NULL, set_up, test_many, tear_down);
  g_test_add ("/shards/each", Fixture, NULL, set_up, test_each, tear_down);
  g_test_add ("/shards/sorted-ids", Fixture, NULL, set_up, test_sorted_ids, tear_down);
  g_test_add ("/shards/changed-and-indexed", Fixture, NULL, set_up, test_changed_and_indexed, tear_down);
  g_test_add ("/shards/update-reads", Fixture, NULL, set_up, test_update_reads, tear_down);
  g_test_add ("/shards/update-rows", Fixture, NULL, set_up, test_update_rows, tear_down);
  g_test_add_func ("/shards/packed-values", test_packed_values);
  g_test_add ("/shards/routed", Fixture, NULL, set_up, test_routed, tear_down);
  g_test_add ("/shards/kept-extents", Fixture, NULL, set_up, test_kept_extents, tear_down);
  g_test_add ("/shards/missing-shard", Fixture, NULL, set_up, test_missing_shard, tear_down);
  g_test_add ("/shards/bad-shard", Fixture, NULL, set_up, test_bad_shard, tear_down);
  g_test_add ("/shards/read-only", Fixture, NULL, set_up, test_read_only, tear_down);
  return g_test_run ();
}
