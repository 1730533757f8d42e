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
 *
 * One thread of it was an ingest's ceiling past three cores: it takes 27
 * % of the CPU of the realistic corpus, more than the writer's own work
 * beside the decoders.  So the side has lanes, one for each two cores
 * (pipeline/ingest.c), each a thread with its own database, following
 * every statement of the writer's; rows go to them in turn, a batch each,
 * and at the commit their segments are copied one lane after the other,
 * lane 0 last.  FTS5 applies a delete marker to the segments older than
 * its own: a marker goes to the lane that indexed its row in this
 * transaction (which then holds the row's size too), else to lane 0, and
 * from the first marker of a transaction on every row goes to lane 0, so
 * that a replaced message's new row, of the same id, is newer than the
 * marker that takes its old one.  The index is the same as one thread's
 * but for how it is cut in segments.
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

/* One thread of the side and the index it makes: each batch a database
 * of its own */
typedef struct {
  GThread *thread;
  GAsyncQueue *ops;          /* of Op, to the lane's thread */
  GAsyncQueue *answers;      /* of char * (an error) or the lane itself (done) */
  sqlite3 *db;               /* the batch's database; NULL between batches */
  char *path;
  guint number;              /* in lane_names */
  sqlite3_stmt *insert, *delete;
  sqlite3_stmt *kept[STORE_FTS_SIDE_ROLLBACK + 1];   /* each file's SAVEPOINT and RELEASE */
  GPtrArray *held;           /* of Op, the writer's, not handed over yet */
  guint held_rows;           /* the rows of those */
  char *error;               /* the batch's first failure: the rest of it is skipped */
  guint unmerged;            /* while FTS5 does not merge: the most segments it may leave */
  gboolean merging;          /* FTS5 merges the batch's segments */
  gboolean deleted;          /* the batch took rows out: FTS5 must not merge from then on */
  sqlite3_stmt *structure;   /* the lane's structure record */
  gboolean attached;         /* to the writer's connection (lane_names) */
} Lane;

/* Each lane's database attached to the writer's connection under a name
 * of its own, for the copy (store-fts-copy.c reads "shard." as it) */
static const struct {
  const char *schema, *attach, *detach;
} lane_names[] = {
  { "fts_side0", "ATTACH ?1 AS fts_side0", "DETACH fts_side0" },
  { "fts_side1", "ATTACH ?1 AS fts_side1", "DETACH fts_side1" },
  { "fts_side2", "ATTACH ?1 AS fts_side2", "DETACH fts_side2" },
  { "fts_side3", "ATTACH ?1 AS fts_side3", "DETACH fts_side3" },
};
G_STATIC_ASSERT (G_N_ELEMENTS (lane_names) == STORE_FTS_LANES_MAX);
G_STATIC_ASSERT (STORE_FTS_LANES_MAX <= PROFILE_BESIDE_THREADS_MAX);

struct _StoreFtsSide {
  Lane *lanes;
  guint n_lanes;
  guint next;                /* the lane the next rows go to */
  gboolean deleted;          /* the batch took rows out: lane 0 takes the rest of it */
  GHashTable *elsewhere;     /* id -> lane, of the batch's rows not in lane 0 */
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
fail (Lane *lane, const char *what, int rc)
{
  if (lane->error != NULL)
    return;
  lane->error = g_strdup_printf ("%s: %s", what, sqlite3_errcode (lane->db) != SQLITE_OK ? sqlite3_errmsg (lane->db)
                                                                                      : sqlite3_errstr (rc));
}

static void
index_rows (Lane *lane, sqlite3_stmt *stmt, GArray *rows)
{
  for (guint i = 0; i < rows->len && lane->error == NULL; i++)
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
        fail (lane, stmt == lane->insert ? "cannot index message" : "cannot take a message out of the index", rc);
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
    }
}

/* @statement on the side: each file's SAVEPOINT and RELEASE kept
 * prepared (two statements compiled for each file of a Maildir
 * otherwise), the others run as they come. */
static int
follow (Lane *lane, StoreFtsSideStatement statement)
{
  sqlite3_stmt *stmt = lane->kept[statement];
  int rc;

  if (stmt == NULL)
    return sqlite3_exec (lane->db, follow_sql[statement], NULL, NULL, NULL);
  rc = sqlite3_step (stmt);
  sqlite3_reset (stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* How many segments the side's index has now (0 when not known) */
static guint
side_segments (Lane *lane)
{
  guint n = 0;

  if (sqlite3_step (lane->structure) == SQLITE_ROW)
    n = _store_fts_record_segments (sqlite3_column_blob (lane->structure, 0),
                                    (gsize) sqlite3_column_bytes (lane->structure, 0));
  sqlite3_reset (lane->structure);
  return n;
}

/* A batch that makes more segments than the writer foresaw (an archive
 * whose text is denser than most, a compressed file counted by its size
 * on disk) is merged as FTS5 does from there on, unless it took rows out
 * (above). */
static void
merge_past_limit (Lane *lane)
{
  int rc;

  if (lane->merging || lane->deleted || lane->error != NULL || side_segments (lane) <= lane->unmerged)
    return;
  if ((rc = sqlite3_exec (lane->db, merge_sql, NULL, NULL, NULL)) != SQLITE_OK)
    fail (lane, "cannot merge the index", rc);
  lane->merging = TRUE;
}

/* Runs @op on the side.  Returns: FALSE for OP_QUIT */
static gboolean
run_op (Lane *lane, Op *op)
{
  int rc;

  switch (op->kind)
    {
    case OP_SQL:
      /* A rollback runs whatever failed before it, in a transaction */
      if ((op->statement >= STORE_FTS_SIDE_ROLLBACK_TO ? !sqlite3_get_autocommit (lane->db)
                                                      : lane->error == NULL) &&
          (rc = follow (lane, op->statement)) != SQLITE_OK)
        fail (lane, "cannot follow the writer's transaction", rc);
      break;
    case OP_DELETE:
      /* No more merging: the markers must reach messages_fts (above) */
      lane->deleted = TRUE;
      lane->merging = FALSE;
      if (lane->error == NULL &&
          (rc = sqlite3_exec (lane->db, no_merge_sql, NULL, NULL, NULL)) != SQLITE_OK)
        fail (lane, "cannot take messages out of the index", rc);
      G_GNUC_FALLTHROUGH;
    case OP_INSERT:
      if (lane->error == NULL)
        index_rows (lane, op->kind == OP_INSERT ? lane->insert : lane->delete, op->rows);
      merge_past_limit (lane);
      break;
    case OP_FINISH:
      if (lane->error == NULL && !sqlite3_get_autocommit (lane->db) &&
          (rc = sqlite3_exec (lane->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        fail (lane, "cannot write the full-text index", rc);
      g_async_queue_push (lane->answers, lane->error ? g_strdup (lane->error) : (gpointer) lane);
      break;
    case OP_BATCH:
      for (guint i = 0; i < op->batch->len; i++)
        run_op (lane, g_ptr_array_index (op->batch, i));   /* (no OP_QUIT is held) */
      break;
    case OP_QUIT:
      return FALSE;
    }
  return TRUE;
}

static gpointer
side_thread (gpointer data)
{
  Lane *lane = data;

  /* DEJA_STORE_FAULT_SIDE counts this thread's calls (store-checked.c) */
  _store_checked_on_side ();
  for (;;)
    {
      Op *op = g_async_queue_pop (lane->ops);
      gint64 cpu = profile_cpu_start ();
      gboolean go_on = run_op (lane, op);

      profile_beside_cpu_stop (lane->number, cpu);
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
hand_over (Lane *lane)
{
  Op *op;

  if (lane->held == NULL || lane->held->len == 0)
    return;
  op = g_new0 (Op, 1);
  op->kind = OP_BATCH;
  op->batch = g_steal_pointer (&lane->held);
  lane->held_rows = 0;
  g_atomic_int_inc (&handed_over);
  g_async_queue_push (lane->ops, op);
}

static void
push (Lane *lane, OpKind kind, StoreFtsSideStatement statement, GArray *rows)
{
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->statement = statement;
  op->rows = rows;
  if (kind == OP_INSERT || kind == OP_DELETE ||
      (kind == OP_SQL && (statement == STORE_FTS_SIDE_SAVEPOINT || statement == STORE_FTS_SIDE_RELEASE)))
    {
      if (lane->held == NULL)
        lane->held = g_ptr_array_new_with_free_func ((GDestroyNotify) op_free);
      g_ptr_array_add (lane->held, op);
      lane->held_rows += rows ? rows->len : 0;
      if (lane->held->len >= HELD_OPS || lane->held_rows >= HELD_ROWS)
        hand_over (lane);
      return;
    }
  hand_over (lane);
  g_atomic_int_inc (&handed_over);
  g_async_queue_push (lane->ops, op);
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

static void
lane_free (Lane *lane)
{
  g_clear_pointer (&lane->held, g_ptr_array_unref);
  g_async_queue_unref (lane->ops);
  g_async_queue_unref (lane->answers);
}

/**
 * _store_fts_side_new:
 * @lanes: how many threads index the rows, each into a database of its
 *   own (at least one)
 *
 * Returns: (nullable): the side, or %NULL when not one of its threads
 *   could start (the writer then indexes its rows itself)
 */
StoreFtsSide *
_store_fts_side_new (guint lanes)
{
  StoreFtsSide *side = g_new0 (StoreFtsSide, 1);

  sweep_left_behind ();
  lanes = CLAMP (lanes, 1, STORE_FTS_LANES_MAX);
  side->lanes = g_new0 (Lane, lanes);
  for (guint k = 0; k < lanes; k++)
    {
      Lane *lane = &side->lanes[side->n_lanes];

      lane->ops = g_async_queue_new_full ((GDestroyNotify) op_free);
      lane->answers = g_async_queue_new ();
      lane->number = side->n_lanes;
      if ((lane->thread = spawn_thread ("deja-fts", side_thread, lane)) == NULL)
        {
          lane_free (lane);
          memset (lane, 0, sizeof *lane);
          break;   /* those that started are the side */
        }
      side->n_lanes++;
    }
  if (side->n_lanes == 0)
    {
      g_free (side->lanes);
      g_free (side);
      return NULL;
    }
  return side;
}

/* How many threads the side has */
guint
_store_fts_side_lanes (const StoreFtsSide *side)
{
  return side ? side->n_lanes : 0;
}

gboolean
_store_fts_side_open (const StoreFtsSide *side)
{
  return side != NULL && side->lanes[0].db != NULL;
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
make_table (Lane *lane, Store *store)
{
  g_autoptr (GByteArray) seed = NULL;
  sqlite3_stmt *from = NULL, *to = NULL;
  gint64 columns = 0;
  int rc = sqlite3_exec (lane->db, side_table_sql, NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = _store_prepare_sql (store, "SELECT k, v FROM main.messages_fts_config"
                             " WHERE k NOT IN ('version', 'automerge', 'crisismerge', 'usermerge')", &from);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (lane->db, "INSERT INTO messages_fts (messages_fts, rank) VALUES (?1, ?2)", -1, &to,
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

      rc = sqlite3_prepare_v2 (lane->db, "SELECT count(*) FROM pragma_table_info('messages_fts')", -1, &count, NULL);
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
  if (rc == SQLITE_OK && !lane->merging)
    rc = sqlite3_exec (lane->db, no_merge_sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return rc;
  seed = _store_fts_side_seed ((guint) columns);
  rc = sqlite3_prepare_v2 (lane->db, "INSERT OR REPLACE INTO messages_fts_data (id, block) VALUES (1, ?1)", -1,
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
close_batch (Lane *lane)
{
  sqlite3_finalize (lane->insert);
  sqlite3_finalize (lane->delete);
  sqlite3_finalize (lane->structure);
  lane->insert = lane->delete = lane->structure = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (lane->kept); i++)
    g_clear_pointer (&lane->kept[i], sqlite3_finalize);
  sqlite3_close (lane->db);
  lane->db = NULL;
  if (lane->path)
    g_unlink (lane->path);
  g_clear_pointer (&lane->path, g_free);
  g_clear_pointer (&lane->error, g_free);
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

/* A new batch of one lane: a new temporary database holding an empty
 * table declared as messages_fts, and BEGIN on it. */
static gboolean
lane_begin (Lane *lane, Store *store, guint unmerged, GError **error)
{
  g_autoptr (GError) tmp_error = NULL;
  int fd, rc;

  g_autofree char *template = g_strdup_printf ("deja-fts-%d-XXXXXX.db", (int) getpid ());

  g_return_val_if_fail (lane->db == NULL, FALSE);
  if ((fd = g_file_open_tmp (template, &lane->path, &tmp_error)) < 0)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE,
                   "cannot make a temporary file for the full-text index: %s", tmp_error->message);
      return FALSE;
    }
  close (fd);
  rc = sqlite3_open_v2 (lane->path, &lane->db, SQLITE_OPEN_READWRITE | STORE_OPEN_ONE_THREAD, NULL);
  /* Its own transactions roll back (a file's savepoint), in memory: it
   * is thrown away after the batch, whatever happens */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (lane->db, "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;"
                       " PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
  lane->unmerged = unmerged;
  lane->merging = unmerged == 0;
  lane->deleted = FALSE;
  if (rc == SQLITE_OK)
    rc = make_table (lane, store);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (lane->db, "SELECT block FROM messages_fts_data WHERE id = "
                             G_STRINGIFY (STORE_FTS_STRUCTURE_ROWID), -1, &lane->structure, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (lane->db, "INSERT INTO messages_fts (rowid, subject, own_text) VALUES (?1, ?2, ?3)",
                             -1, &lane->insert, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (lane->db, "INSERT INTO messages_fts (messages_fts, rowid, subject, own_text)"
                             " VALUES ('delete', ?1, ?2, ?3)", -1, &lane->delete, NULL);
  for (StoreFtsSideStatement k = STORE_FTS_SIDE_SAVEPOINT; rc == SQLITE_OK && k <= STORE_FTS_SIDE_RELEASE; k++)
    rc = sqlite3_prepare_v2 (lane->db, follow_sql[k], -1, &lane->kept[k], NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "cannot make the full-text index beside the writer: %s",
                   lane->db == NULL ? g_strerror (ENOMEM)
                   : sqlite3_errcode (lane->db) != SQLITE_OK ? sqlite3_errmsg (lane->db)
                   : sqlite3_errstr (rc));
      close_batch (lane);
      return FALSE;
    }
  push (lane, OP_SQL, STORE_FTS_SIDE_BEGIN, NULL);
  return TRUE;
}

/* Waits for @lane to be idle: what is queued is undone with its batch */
static void
lane_end (Lane *lane, Store *store)
{
  gpointer answer;

  if (lane->db == NULL)
    return;
  push (lane, OP_SQL, STORE_FTS_SIDE_ROLLBACK, NULL);
  push (lane, OP_FINISH, 0, NULL);
  if ((answer = g_async_queue_pop (lane->answers)) != lane)
    g_free (answer);
  if (lane->attached)
    sqlite3_exec (store->db, lane_names[lane->number].detach, NULL, NULL, NULL);
  lane->attached = FALSE;
  close_batch (lane);
}

/**
 * _store_fts_side_begin:
 * @unmerged: how many segments the side may leave as FTS5 wrote them
 *   (_store_fts_side_unmerged()); 0: it merges them as FTS5 does
 *
 * A new batch: on each lane a new temporary database holding an empty
 * table declared as messages_fts, and BEGIN on it.  The lanes share
 * @unmerged.
 */
gboolean
_store_fts_side_begin (StoreFtsSide *side, Store *store, guint unmerged, GError **error)
{
  side->next = 0;
  side->deleted = FALSE;
  if (side->elsewhere)
    g_hash_table_remove_all (side->elsewhere);
  for (guint k = 0; k < side->n_lanes; k++)
    if (!lane_begin (&side->lanes[k], store, unmerged / side->n_lanes, error))
      {
        while (k-- > 0)
          lane_end (&side->lanes[k], store);
        return FALSE;
      }
  return TRUE;
}

/* The writer's @statement, run on each lane in turn. */
void
_store_fts_side_follow (StoreFtsSide *side, StoreFtsSideStatement statement)
{
  if (!_store_fts_side_open (side))
    return;
  for (guint k = 0; k < side->n_lanes; k++)
    push (&side->lanes[k], OP_SQL, statement, NULL);
}

/* @rows (of StoreFtsRow) that the lanes' delete markers go to: each to
 * the lane that indexed it in this batch, the others (rows of earlier
 * batches, in messages_fts) to lane 0; each array taken by its lane. */
static void
push_deletes (StoreFtsSide *side, GArray *rows)
{
  g_autofree GArray **of = g_new0 (GArray *, side->n_lanes);

  for (guint i = 0; i < rows->len; i++)
    {
      StoreFtsRow *row = &g_array_index (rows, StoreFtsRow, i);
      gpointer key = GSIZE_TO_POINTER ((gsize) row->id);
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (side->elsewhere, key));

      g_hash_table_remove (side->elsewhere, key);
      if (of[k] == NULL)
        of[k] = _store_fts_rows_new (0);
      g_array_append_val (of[k], *row);
      row->subject = row->own_text = NULL;   /* (now of[k]'s) */
    }
  g_array_unref (rows);
  for (guint k = 0; k < side->n_lanes; k++)
    if (of[k] != NULL)
      push (&side->lanes[k], OP_DELETE, 0, of[k]);
}

/* @rows (of StoreFtsRow; taken) indexed, or with @delete taken out.
 * Rows go to the lanes in turn, a batch each, until the batch takes a
 * row out.  FTS5 deletes what a marker names in the segments older than
 * the marker's, and the lanes' segments are copied lane 0 last
 * (_store_fts_side_schema()): so a marker goes to the lane that indexed
 * its row in this batch, else to lane 0, and from the first marker on
 * every row goes to lane 0 (a replaced message's new row has the old
 * one's id: its marker is then older than it). */
void
_store_fts_side_rows (StoreFtsSide *side, GArray *rows, gboolean delete)
{
  guint k = 0;

  g_return_if_fail (_store_fts_side_open (side));
  if (delete)
    {
      side->deleted = TRUE;
      if (side->elsewhere != NULL && g_hash_table_size (side->elsewhere) > 0)
        {
          push_deletes (side, rows);
          return;
        }
      push (&side->lanes[0], OP_DELETE, 0, rows);
      return;
    }
  if (!side->deleted)
    {
      k = side->next;
      side->next = (side->next + 1) % side->n_lanes;
    }
  /* (an id of a file rolled back may come again, in another lane) */
  if (k != 0 && side->elsewhere == NULL)
    side->elsewhere = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; side->elsewhere != NULL && i < rows->len; i++)
    {
      gpointer key = GSIZE_TO_POINTER ((gsize) g_array_index (rows, StoreFtsRow, i).id);

      if (k != 0)
        g_hash_table_insert (side->elsewhere, key, GUINT_TO_POINTER (k));
      else
        g_hash_table_remove (side->elsewhere, key);
    }
  push (&side->lanes[k], OP_INSERT, 0, rows);
}

/**
 * _store_fts_side_finish:
 *
 * Waits for every lane to index what it was given, commits their
 * transactions and attaches their databases to @store
 * (_store_fts_side_schema()), in @store's transaction: attached before,
 * they would be locked by @store's BEGIN IMMEDIATE, and the lanes could
 * not write.
 *
 * Returns: %FALSE with @error when anything of the batch failed
 */
gboolean
_store_fts_side_finish (StoreFtsSide *side, Store *store, GError **error)
{
  g_autofree char *failed = NULL;
  int rc = SQLITE_OK;

  g_return_val_if_fail (_store_fts_side_open (side), FALSE);
  for (guint k = 0; k < side->n_lanes; k++)
    push (&side->lanes[k], OP_FINISH, 0, NULL);
  for (guint k = 0; k < side->n_lanes; k++)
    {
      gpointer answer = g_async_queue_pop (side->lanes[k].answers);

      if (answer != &side->lanes[k] && failed == NULL)
        failed = answer;
      else if (answer != &side->lanes[k])
        g_free (answer);
    }
  if (failed)
    {
      g_set_error (error, STORE_ERROR, STORE_ERROR_SQLITE, "%s", failed);
      return FALSE;
    }
  for (guint k = 0; k < side->n_lanes && rc == SQLITE_OK; k++)
    {
      Lane *lane = &side->lanes[k];
      sqlite3_stmt *attach;

      rc = sqlite3_prepare_v2 (store->db, lane_names[lane->number].attach, -1, &attach, NULL);
      if (rc == SQLITE_OK)
        {
          sqlite3_bind_text (attach, 1, lane->path, -1, SQLITE_STATIC);
          rc = _store_done (sqlite3_step (attach));
          sqlite3_finalize (attach);
        }
      lane->attached = rc == SQLITE_OK;
    }
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the full-text index made beside the writer", error);
  return TRUE;
}

/* The schema of the @k-th lane to copy, once finished: lane 0, which
 * takes the rows out, last. */
const char *
_store_fts_side_schema (const StoreFtsSide *side, guint k)
{
  g_return_val_if_fail (k < side->n_lanes, NULL);
  return lane_names[side->lanes[side->n_lanes - 1 - k].number].schema;
}

/**
 * _store_fts_side_end:
 *
 * After @store's transaction ended (committed or rolled back): the
 * batch's databases are detached and deleted; what the lanes were given
 * and have not done yet is not done.
 */
void
_store_fts_side_end (StoreFtsSide *side, Store *store)
{
  if (!_store_fts_side_open (side))
    return;
  for (guint k = 0; k < side->n_lanes; k++)
    lane_end (&side->lanes[k], store);
}

void
_store_fts_side_free (StoreFtsSide *side, Store *store)
{
  if (side == NULL)
    return;
  _store_fts_side_end (side, store);
  for (guint k = 0; k < side->n_lanes; k++)
    push (&side->lanes[k], OP_QUIT, 0, NULL);
  for (guint k = 0; k < side->n_lanes; k++)
    {
      g_thread_join (side->lanes[k].thread);
      lane_free (&side->lanes[k]);
    }
  g_clear_pointer (&side->elsewhere, g_hash_table_unref);
  g_free (side->lanes);
  g_free (side);
}
