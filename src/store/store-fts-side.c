/* store-fts-side.c — an ingest's full-text index, made beside its writer.
 *
 * Tokenising is the largest part of an ingest writer's work (38–47 % of
 * its time on the realistic corpus: bench/README.md), and the writer is
 * one thread: past two cores it is what an ingest waits for.  So the
 * rows the writer would give messages_fts go to a thread of its own,
 * which indexes them into a table of the same declaration in a database
 * of its own (a temporary file); at each commit the writer copies that
 * index's segments into messages_fts as rows (store-fts-copy.c, the code
 * deja merge copies a shard's index with) and the batch's file is thrown
 * away.  What the writer still does for the index is that copy.
 *
 * The side follows the writer's transaction statement by statement:
 * BEGIN, each file's SAVEPOINT, RELEASE and ROLLBACK TO, the rows, and a
 * replaced file's old rows, which leave the index as FTS5 delete markers
 * ("delete" with the values they were indexed with, as the writer did on
 * messages_fts).  A rolled-back file's rows thus leave the side's index
 * with it.  Two rules of FTS5 shape the rest:
 *
 *  - a merge whose output is an index's oldest segment drops the delete
 *    markers (nothing older is left to delete from): in the side's index
 *    nothing is older, and the markers are meant for messages_fts.  So
 *    the side merges its segments, when the writer asks it to or past
 *    the number it may leave unmerged (_store_fts_side_unmerged()), as
 *    FTS5 does (on its own thread: a large file's index comes over in
 *    a few) until the batch's first delete, and from then on not at all
 *    (automerge 0, crisismerge at its maximum, set in the same
 *    transaction: a rolled-back file takes the setting back with its
 *    markers); what it leaves unmerged FTS5 merges in messages_fts
 *    (store.c: fts_tidy(), a connection of its own);
 *  - a connection keeps the structure record it read last until another
 *    connection commits.  The writer's connection copies segments behind
 *    FTS5's back, so once it has, it must not use messages_fts itself:
 *    every row, delete and replacement goes through the side from then
 *    on (store.c: fts_beside()).
 *
 * The side's averages record (rows and tokens per column) is its rows
 * less the deleted ones, negative when more left than came; FTS5 writes
 * it as 64-bit integers, so the sum taken at the copy is exact modulo
 * 2^64, which is what FTS5 reads back.
 */
#include "store-private.h"
#include "profile.h"
#include "spawn.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <string.h>

/* The writer's statements the side follows */
static const char *const follow_sql[] = {
  [STORE_FTS_SIDE_BEGIN] = "BEGIN",
  [STORE_FTS_SIDE_SAVEPOINT] = "SAVEPOINT deja_file",
  [STORE_FTS_SIDE_RELEASE] = "RELEASE deja_file",
  [STORE_FTS_SIDE_ROLLBACK_TO] = "ROLLBACK TO deja_file; RELEASE deja_file",
  [STORE_FTS_SIDE_ROLLBACK] = "ROLLBACK",
};

/* messages_fts as deja's schema declares it (schema/008-views.sql): the
 * side's table is declared so, and is made only for a database whose
 * messages_fts is, since the copy takes segments only between two such
 * tables (store-fts-copy.c). */
static const char side_table_sql[] =
  "CREATE VIRTUAL TABLE messages_fts USING fts5 (\n"
  "  subject, own_text,\n"
  "  content=\"messages\", content_rowid=\"id\",\n"
  "  tokenize=\"porter unicode61\"\n"
  ")";

/* No merging in the side's index (FTS5's automerge 0, and crisismerge at
 * its maximum), and FTS5's merging as it is by default */
static const char no_merge_sql[] =
  "INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 0);"
  "INSERT INTO messages_fts (messages_fts, rank) VALUES ('crisismerge', 1999)";
static const char merge_sql[] =
  "INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 4);"
  "INSERT INTO messages_fts (messages_fts, rank) VALUES ('crisismerge', 16)";

typedef enum {
  OP_SQL,       /* a statement mirrored from the writer's transaction */
  OP_INSERT,    /* rows to index */
  OP_DELETE,    /* rows to take out of the index, with their indexed values */
  OP_FINISH,    /* commit the side's transaction and answer */
  OP_QUIT,
  OP_BATCH,     /* ops the writer held, in their order */
} OpKind;

typedef struct {
  OpKind kind;
  StoreFtsSideStatement statement;   /* OP_SQL */
  GArray *rows;              /* of StoreFtsRow */
  GPtrArray *batch;          /* OP_BATCH: of Op */
} Op;

/* The writer holds the ops of its files (each file's SAVEPOINT, rows and
 * RELEASE) and hands them over this many at a time, or as soon as they
 * hold HELD_ROWS rows: one at a time, each woke the side's thread, three
 * wake-ups for each file of a Maildir (futex, 7 % of its writer's time);
 * held by the op, the rows of a large mbox (256 an op) waited for 64
 * ops, the side idle meanwhile.  The others (BEGIN, a rollback, FINISH)
 * go at once, after what is held. */
#define HELD_OPS 64
#define HELD_ROWS 256

struct _StoreFtsSide {
  GThread *thread;
  GAsyncQueue *ops;          /* of Op, to the side's thread */
  GAsyncQueue *answers;      /* of char * (an error) or the side itself (done) */
  sqlite3 *db;               /* the batch's database; NULL between batches */
  char *path;
  sqlite3_stmt *insert, *delete;
  sqlite3_stmt *kept[STORE_FTS_SIDE_ROLLBACK + 1];   /* each file's SAVEPOINT and RELEASE */
  GPtrArray *held;           /* of Op, the writer's, not handed over yet */
  guint held_rows;           /* the rows of those */
  char *error;               /* the batch's first failure: the rest of it is skipped */
  guint unmerged;            /* while FTS5 does not merge: the most segments it may leave */
  gboolean merging;          /* FTS5 merges the batch's segments */
  gboolean deleted;          /* the batch took rows out: FTS5 must not merge from then on */
  sqlite3_stmt *structure;   /* the side's structure record */
  gboolean attached;         /* to the writer's connection, as "fts_side" */
};

static void
row_clear (gpointer p)
{
  StoreFtsRow *row = p;

  g_free (row->subject);
  g_free (row->own_text);
}

/* An array of StoreFtsRow, which owns their text. */
GArray *
_store_fts_rows_new (guint reserve)
{
  GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (StoreFtsRow), reserve);

  g_array_set_clear_func (rows, row_clear);
  return rows;
}

static void
op_free (Op *op)
{
  if (op->rows)
    g_array_unref (op->rows);
  if (op->batch)
    g_ptr_array_unref (op->batch);
  g_free (op);
}

/* The batch's first failure (@rc, SQLite's or one store-checked.c made) */
static void
fail (StoreFtsSide *side, const char *what, int rc)
{
  if (side->error != NULL)
    return;
  side->error = g_strdup_printf ("%s: %s", what, sqlite3_errcode (side->db) != SQLITE_OK ? sqlite3_errmsg (side->db)
                                                                                      : sqlite3_errstr (rc));
}

static void
index_rows (StoreFtsSide *side, sqlite3_stmt *stmt, GArray *rows)
{
  for (guint i = 0; i < rows->len && side->error == NULL; i++)
    {
      const StoreFtsRow *row = &g_array_index (rows, StoreFtsRow, i);
      int rc;

      sqlite3_bind_int64 (stmt, 1, row->id);
      _store_bind_text_or_null (stmt, 2, row->subject);
      if (row->own_text)
        sqlite3_bind_text (stmt, 3, row->own_text, (int) row->own_text_len, SQLITE_STATIC);
      else
        sqlite3_bind_null (stmt, 3);
      if ((rc = sqlite3_step (stmt)) != SQLITE_DONE)
        fail (side, stmt == side->insert ? "cannot index message" : "cannot take a message out of the index", rc);
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
    }
}

/* @statement on the side: each file's SAVEPOINT and RELEASE kept
 * prepared (two statements compiled for each file of a Maildir
 * otherwise), the others run as they come. */
static int
follow (StoreFtsSide *side, StoreFtsSideStatement statement)
{
  sqlite3_stmt *stmt = side->kept[statement];
  int rc;

  if (stmt == NULL)
    return sqlite3_exec (side->db, follow_sql[statement], NULL, NULL, NULL);
  rc = sqlite3_step (stmt);
  sqlite3_reset (stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* How many segments the side's index has now (0 when not known) */
static guint
side_segments (StoreFtsSide *side)
{
  guint n = 0;

  if (sqlite3_step (side->structure) == SQLITE_ROW)
    n = _store_fts_record_segments (sqlite3_column_blob (side->structure, 0),
                                    (gsize) sqlite3_column_bytes (side->structure, 0));
  sqlite3_reset (side->structure);
  return n;
}

/* A batch that makes more segments than the writer foresaw (an archive
 * whose text is denser than most, a compressed file counted by its size
 * on disk) is merged as FTS5 does from there on, unless it took rows out
 * (above). */
static void
merge_past_limit (StoreFtsSide *side)
{
  int rc;

  if (side->merging || side->deleted || side->error != NULL || side_segments (side) <= side->unmerged)
    return;
  if ((rc = sqlite3_exec (side->db, merge_sql, NULL, NULL, NULL)) != SQLITE_OK)
    fail (side, "cannot merge the index", rc);
  side->merging = TRUE;
}

/* Runs @op on the side.  Returns: FALSE for OP_QUIT */
static gboolean
run_op (StoreFtsSide *side, Op *op)
{
  int rc;

  switch (op->kind)
    {
    case OP_SQL:
      /* A rollback runs whatever failed before it, in a transaction */
      if ((op->statement >= STORE_FTS_SIDE_ROLLBACK_TO ? !sqlite3_get_autocommit (side->db)
                                                      : side->error == NULL) &&
          (rc = follow (side, op->statement)) != SQLITE_OK)
        fail (side, "cannot follow the writer's transaction", rc);
      break;
    case OP_DELETE:
      /* No more merging: the markers must reach messages_fts (above) */
      side->deleted = TRUE;
      side->merging = FALSE;
      if (side->error == NULL &&
          (rc = sqlite3_exec (side->db, no_merge_sql, NULL, NULL, NULL)) != SQLITE_OK)
        fail (side, "cannot take messages out of the index", rc);
      G_GNUC_FALLTHROUGH;
    case OP_INSERT:
      if (side->error == NULL)
        index_rows (side, op->kind == OP_INSERT ? side->insert : side->delete, op->rows);
      merge_past_limit (side);
      break;
    case OP_FINISH:
      if (side->error == NULL && !sqlite3_get_autocommit (side->db) &&
          (rc = sqlite3_exec (side->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        fail (side, "cannot write the full-text index", rc);
      g_async_queue_push (side->answers, side->error ? g_strdup (side->error) : (gpointer) side);
      break;
    case OP_BATCH:
      for (guint i = 0; i < op->batch->len; i++)
        run_op (side, g_ptr_array_index (op->batch, i));   /* (no OP_QUIT is held) */
      break;
    case OP_QUIT:
      return FALSE;
    }
  return TRUE;
}

static gpointer
side_thread (gpointer data)
{
  StoreFtsSide *side = data;

  /* DEJA_STORE_FAULT_SIDE counts this thread's calls (store-checked.c) */
  _store_checked_on_side ();
  for (;;)
    {
      Op *op = g_async_queue_pop (side->ops);
      gint64 cpu = profile_cpu_start ();
      gboolean go_on = run_op (side, op);

      profile_cpu_stop (PROFILE_FTS_BESIDE, cpu);
      op_free (op);
      if (!go_on)
        return NULL;
    }
}

static gint handed_over;   /* ops pushed to a side's queue (DEJA_STORE_COUNT=1) */

int
_store_fts_side_handed_over (void)
{
  return g_atomic_int_get (&handed_over);
}

/* What the writer held, handed over as one op */
static void
hand_over (StoreFtsSide *side)
{
  Op *op;

  if (side->held == NULL || side->held->len == 0)
    return;
  op = g_new0 (Op, 1);
  op->kind = OP_BATCH;
  op->batch = g_steal_pointer (&side->held);
  side->held_rows = 0;
  g_atomic_int_inc (&handed_over);
  g_async_queue_push (side->ops, op);
}

static void
push (StoreFtsSide *side, OpKind kind, StoreFtsSideStatement statement, GArray *rows)
{
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->statement = statement;
  op->rows = rows;
  if (kind == OP_INSERT || kind == OP_DELETE ||
      (kind == OP_SQL && (statement == STORE_FTS_SIDE_SAVEPOINT || statement == STORE_FTS_SIDE_RELEASE)))
    {
      if (side->held == NULL)
        side->held = g_ptr_array_new_with_free_func ((GDestroyNotify) op_free);
      g_ptr_array_add (side->held, op);
      side->held_rows += rows ? rows->len : 0;
      if (side->held->len >= HELD_OPS || side->held_rows >= HELD_ROWS)
        hand_over (side);
      return;
    }
  hand_over (side);
  g_atomic_int_inc (&handed_over);
  g_async_queue_push (side->ops, op);
}

/* The temporary databases of sides whose deja was killed
 * (deja-fts-PID-XXXXXX.db, PID no longer running): deleted by the next. */
static void
sweep_left_behind (void)
{
  GDir *dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      char *end;
      gint64 pid;

      if (!g_str_has_prefix (name, "deja-fts-") || !g_str_has_suffix (name, ".db"))
        continue;
      pid = g_ascii_strtoll (name + strlen ("deja-fts-"), &end, 10);
      if (pid > 0 && pid <= G_MAXINT && *end == '-' && kill ((pid_t) pid, 0) < 0 && errno == ESRCH)
        {
          g_autofree char *path = g_build_filename (g_get_tmp_dir (), name, NULL);

          if (g_unlink (path) == 0)
            g_debug ("deleted '%s', left by a deja that was stopped", path);
        }
    }
  if (dir)
    g_dir_close (dir);
}

StoreFtsSide *
_store_fts_side_new (void)
{
  StoreFtsSide *side = g_new0 (StoreFtsSide, 1);

  sweep_left_behind ();
  side->ops = g_async_queue_new_full ((GDestroyNotify) op_free);
  side->answers = g_async_queue_new ();
  if ((side->thread = spawn_thread ("deja-fts", side_thread, side)) == NULL)
    {
      g_async_queue_unref (side->ops);
      g_async_queue_unref (side->answers);
      g_free (side);
      return NULL;   /* the writer indexes its rows itself */
    }
  return side;
}

gboolean
_store_fts_side_open (const StoreFtsSide *side)
{
  return side != NULL && side->db != NULL;
}

/* Whether messages_fts here is declared as the side's table is. */
gboolean
_store_fts_side_fits (Store *store, gboolean *fits, GError **error)
{
  g_autofree char *declaration = NULL;

  if (!_store_query_text (store, "SELECT sql FROM main.sqlite_schema WHERE name = ?1", "messages_fts", 0,
                          &declaration, error))
    return FALSE;
  *fits = declaration != NULL && strcmp (declaration, side_table_sql) == 0;
  return TRUE;
}

/* The side's table: declared as messages_fts, configured as it is here
 * (page size, hash size) but for merging (FTS5's defaults when the batch
 * is merged, until a delete, above; else none until past its limit), and
 * counting more rows than any batch deletes (_store_fts_side_seed()). */
static int
make_table (StoreFtsSide *side, Store *store)
{
  g_autoptr (GByteArray) seed = NULL;
  sqlite3_stmt *from = NULL, *to = NULL;
  gint64 columns = 0;
  int rc = sqlite3_exec (side->db, side_table_sql, NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (store, "SELECT k, v FROM main.messages_fts_config"
                             " WHERE k NOT IN ('version', 'automerge', 'crisismerge', 'usermerge')", &from);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (side->db, "INSERT INTO messages_fts (messages_fts, rank) VALUES (?1, ?2)", -1, &to,
                             NULL);
  while (rc == SQLITE_OK && (rc = sqlite3_step (from)) == SQLITE_ROW)
    {
      sqlite3_bind_value (to, 1, sqlite3_column_value (from, 0));
      sqlite3_bind_value (to, 2, sqlite3_column_value (from, 1));
      rc = _store_done (sqlite3_step (to));
      sqlite3_reset (to);
    }
  if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  sqlite3_finalize (from);
  if (rc == SQLITE_OK)
    {
      sqlite3_stmt *count;

      rc = sqlite3_prepare_v2 (side->db, "SELECT count(*) FROM pragma_table_info('messages_fts')", -1, &count, NULL);
      if (rc == SQLITE_OK && (rc = sqlite3_step (count)) == SQLITE_ROW)
        {
          columns = sqlite3_column_int64 (count, 0);
          rc = SQLITE_OK;
        }
      if (count)
        sqlite3_finalize (count);
    }
  if (to)
    sqlite3_finalize (to);
  if (rc == SQLITE_OK && !side->merging)
    rc = sqlite3_exec (side->db, no_merge_sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return rc;
  seed = _store_fts_side_seed ((guint) columns);
  rc = sqlite3_prepare_v2 (side->db, "INSERT OR REPLACE INTO messages_fts_data (id, block) VALUES (1, ?1)", -1,
                           &to, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_blob (to, 1, seed->data, (int) seed->len, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (to));
      sqlite3_finalize (to);
    }
  return rc;
}

static void
close_batch (StoreFtsSide *side)
{
  sqlite3_finalize (side->insert);
  sqlite3_finalize (side->delete);
  sqlite3_finalize (side->structure);
  side->insert = side->delete = side->structure = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (side->kept); i++)
    g_clear_pointer (&side->kept[i], sqlite3_finalize);
  sqlite3_close (side->db);
  side->db = NULL;
  if (side->path)
    g_unlink (side->path);
  g_clear_pointer (&side->path, g_free);
  g_clear_pointer (&side->error, g_free);
}

/* The archive bytes a segment of the side's index stands for, at the
 * least: one per 8.6-9.5 MiB on the realistic corpus and twisted-python */
#define ARCHIVE_BYTES_PER_SEGMENT (6 * 1024 * 1024)

/* The most segments messages_fts holds with a batch left unmerged: room
 * for the segments of the batches after it (a few each, merged) */
#define UNMERGED_MAX (STORE_FTS_SEGMENTS_MAX - 16)

/**
 * _store_fts_side_unmerged:
 * @segments: how many segments messages_fts has
 * @expected_bytes: the archive bytes the command is storing (0: not known)
 * @begun_bytes: of those, the files begun before this batch
 * @shard: whether the database is a shard ('deja ingest --shard N')
 *
 * FTS5 merges an index's segments as they come, four of a level into one
 * of the next, so every posting is written again at each level: on the
 * realistic corpus, a quarter of the side's CPU (256 MiB: 5.1 s with the
 * merges, 3.9 s without) for nothing a search notices (the golden
 * searches on the 1 GiB take 6.11 s in 7 segments, 6.22 s in 51, 7.35 s
 * in 650: bench/README.md).  So the side leaves a batch's segments as it
 * wrote them when the index, with those the rest of the command's
 * archives will make (a segment per ARCHIVE_BYTES_PER_SEGMENT), stays
 * within STORE_FTS_SEGMENTS_MAX, and while it stays within UNMERGED_MAX;
 * past that it merges as FTS5 does.  Left unmerged, they would all be
 * merged at once past STORE_FTS_SEGMENTS_MAX, by fts_tidy() on the
 * writer's time (1 GiB: 8.8 s, where the side's merges cost the writer
 * nothing).  A shard's index is merged as FTS5 does: a merge of many
 * shards takes their segments as they are, and past 1,000 FTS5 writes
 * them all again (store-fts-copy.c).
 *
 * Returns: how many segments the side may leave unmerged in the batch it
 *   begins; 0: it merges from the start
 */
guint
_store_fts_side_unmerged (guint segments, gint64 expected_bytes, gint64 begun_bytes, gboolean shard)
{
  gint64 ahead = MAX (expected_bytes - begun_bytes, 0);

  if (shard || segments >= UNMERGED_MAX ||
      segments + ahead / ARCHIVE_BYTES_PER_SEGMENT + 1 > STORE_FTS_SEGMENTS_MAX)
    return 0;
  return UNMERGED_MAX - segments;
}

/**
 * _store_fts_side_begin:
 * @unmerged: how many segments the side may leave as FTS5 wrote them
 *   (_store_fts_side_unmerged()); 0: it merges them as FTS5 does
 *
 * A new batch: a new temporary database holding an empty table declared
 * as messages_fts, and BEGIN on it.
 */
gboolean
_store_fts_side_begin (StoreFtsSide *side, Store *store, guint unmerged, GError **error)
{
  g_autoptr (GError) tmp_error = NULL;
  int fd, rc;

  g_autofree char *template = g_strdup_printf ("deja-fts-%d-XXXXXX.db", (int) getpid ());

  g_return_val_if_fail (side->db == NULL, FALSE);
  if ((fd = g_file_open_tmp (template, &side->path, &tmp_error)) < 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "cannot make a temporary file for the full-text index: %s", tmp_error->message);
      return FALSE;
    }
  close (fd);
  rc = sqlite3_open_v2 (side->path, &side->db, SQLITE_OPEN_READWRITE | STORE_OPEN_ONE_THREAD, NULL);
  /* Its own transactions roll back (a file's savepoint), in memory: it
   * is thrown away after the batch, whatever happens */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (side->db, "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;"
                       " PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
  side->unmerged = unmerged;
  side->merging = unmerged == 0;
  side->deleted = FALSE;
  if (rc == SQLITE_OK)
    rc = make_table (side, store);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (side->db, "SELECT block FROM messages_fts_data WHERE id = "
                             G_STRINGIFY (STORE_FTS_STRUCTURE_ROWID), -1, &side->structure, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (side->db, "INSERT INTO messages_fts (rowid, subject, own_text) VALUES (?1, ?2, ?3)",
                             -1, &side->insert, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (side->db, "INSERT INTO messages_fts (messages_fts, rowid, subject, own_text)"
                             " VALUES ('delete', ?1, ?2, ?3)", -1, &side->delete, NULL);
  for (StoreFtsSideStatement k = STORE_FTS_SIDE_SAVEPOINT; rc == SQLITE_OK && k <= STORE_FTS_SIDE_RELEASE; k++)
    rc = sqlite3_prepare_v2 (side->db, follow_sql[k], -1, &side->kept[k], NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot make the full-text index beside the writer: %s",
                   side->db == NULL ? g_strerror (ENOMEM)
                   : sqlite3_errcode (side->db) != SQLITE_OK ? sqlite3_errmsg (side->db)
                   : sqlite3_errstr (rc));
      close_batch (side);
      return FALSE;
    }
  push (side, OP_SQL, STORE_FTS_SIDE_BEGIN, NULL);
  return TRUE;
}

/* The writer's @statement, run on the side in turn. */
void
_store_fts_side_follow (StoreFtsSide *side, StoreFtsSideStatement statement)
{
  if (_store_fts_side_open (side))
    push (side, OP_SQL, statement, NULL);
}

/* @rows (of StoreFtsRow; taken) indexed, or with @delete taken out. */
void
_store_fts_side_rows (StoreFtsSide *side, GArray *rows, gboolean delete)
{
  g_return_if_fail (_store_fts_side_open (side));
  push (side, delete ? OP_DELETE : OP_INSERT, 0, rows);
}

/**
 * _store_fts_side_finish:
 *
 * Waits for the side to index what it was given, commits its
 * transaction and attaches its database to @store as "fts_side", in
 * @store's transaction: attached before, it would be locked by @store's
 * BEGIN IMMEDIATE, and the side could not write.
 *
 * Returns: %FALSE with @error when anything of the batch failed
 */
gboolean
_store_fts_side_finish (StoreFtsSide *side, Store *store, GError **error)
{
  gpointer answer;
  sqlite3_stmt *attach;
  int rc;

  g_return_val_if_fail (_store_fts_side_open (side), FALSE);
  push (side, OP_FINISH, 0, NULL);
  answer = g_async_queue_pop (side->answers);
  if (answer != side)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s", (char *) answer);
      g_free (answer);
      return FALSE;
    }
  rc = sqlite3_prepare_v2 (store->db, "ATTACH ?1 AS fts_side", -1, &attach, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (attach, 1, side->path, -1, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (attach));
      sqlite3_finalize (attach);
    }
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the full-text index made beside the writer", error);
  side->attached = TRUE;
  return TRUE;
}

/**
 * _store_fts_side_end:
 *
 * After @store's transaction ended (committed or rolled back): the
 * batch's database is detached and deleted; what the side was given
 * and has not done yet is not done.
 */
void
_store_fts_side_end (StoreFtsSide *side, Store *store)
{
  gpointer answer;

  if (!_store_fts_side_open (side))
    return;
  /* Waits for the side to be idle: what is queued is undone with it */
  push (side, OP_SQL, STORE_FTS_SIDE_ROLLBACK, NULL);
  push (side, OP_FINISH, 0, NULL);
  if ((answer = g_async_queue_pop (side->answers)) != side)
    g_free (answer);
  if (side->attached)
    sqlite3_exec (store->db, "DETACH fts_side", NULL, NULL, NULL);
  side->attached = FALSE;
  close_batch (side);
}

void
_store_fts_side_free (StoreFtsSide *side, Store *store)
{
  if (side == NULL)
    return;
  _store_fts_side_end (side, store);
  push (side, OP_QUIT, 0, NULL);
  g_thread_join (side->thread);
  g_clear_pointer (&side->held, g_ptr_array_unref);
  g_async_queue_unref (side->ops);
  g_async_queue_unref (side->answers);
  g_free (side);
}
