/* store-shards.c — a set of shard databases read as one table each.
 *
 * The virtual table module "deja_shards": a table declared with it
 *
 *   CREATE VIRTUAL TABLE temp.T USING deja_shards (T [, CHANGED])
 *
 * reads table T of every shard of a set, each shard on a read-only
 * connection of its own, so that a set is not bound by the ten databases
 * SQLite attaches to a connection.  Its columns are those of the
 * connection's own table T (a catalog's, of deja's schema: only plain
 * names reach the shards' SQL).  The shards' ids are the ones 'deja ingest
 * --shard N' gives (N x 2^32 + 1 on), so that their rows never share an
 * id and shard N's come before shard N + 1's: a table is read shard after
 * shard, in id order.  A table whose ids are each shard's own (1, 2, 3)
 * gets them after the largest of the shards before, as a merge gives them.
 *
 * What a query asks of a table goes to the shards as SQL: the columns it
 * uses, its comparisons with values (=, <, >, IS, IS NULL, LIKE, GLOB,
 * MATCH ...), and an ORDER BY on the id; each shard then answers through
 * its own indexes.  A row asked for by id is read only in the shard that
 * holds it.
 *
 * CHANGED, a table of the connection's, holds values the set gives some
 * rows instead of their shard's (a catalog's threads across shards):
 * they are read over the shard's, an UPDATE of those columns writes
 * there, and a comparison on them is still asked of the shards, with the
 * changed rows read after, by id.  Nothing of a shard is ever written.
 *
 * An FTS5 table ranks its rows as one table holding every shard's rows
 * would (see "full-text ranking" below), and snippet() and highlight()
 * of a row are asked of its shard.
 */
#include "store-private.h"
#include "cpus.h"
#include "id-hash.h"
#include "spawn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static void sorted_ids_have (sqlite3_context *ctx, int argc, sqlite3_value **argv);

typedef struct {
  char *path;
  gint64 number;          /* N of --shard N */
  sqlite3 *db;            /* opened when first read */
  char *term;             /* a word its full-text index holds (set_counts()), or NULL */
} Shard;

struct _StoreShards {
  GPtrArray *shards;      /* of Shard *, in number order */
  gboolean deja_only;     /* shards must be deja databases of this schema */
  char *error;            /* why a shard could not be opened */
  GPtrArray *read;        /* of Extents *: what tables read of shards, for a catalog to keep
                             (_store_shards_keep_extents()) */
  GHashTable *tables;     /* name -> ShardsTable * of the connection's that have an overlay
                             (_store_shards_update_begin()); the module outlives its tables */
};

/* What a table read of a shard when it was opened (read_extents()): its
 * answer, kept in a catalog's deja_catalog_extents so that opening the
 * catalog again asks no shard (it checks that none changed). */
typedef struct {
  char *table;
  gint64 number;
  guint width;
  sqlite3_value **values;
} Extents;

static void
values_clear (sqlite3_value **values, guint width)
{
  for (guint k = 0; k < width; k++)
    g_clear_pointer (&values[k], sqlite3_value_free);
}

static void
extents_free (gpointer data)
{
  Extents *e = data;

  values_clear (e->values, e->width);
  g_free (e->values);
  g_free (e->table);
  g_free (e);
}

typedef struct {
  sqlite3_vtab base;
  StoreShards *set;
  char *table;            /* its name in every shard */
  guint n_columns;
  char **columns;         /* the shard's names, NULL for the hidden ones of an FTS5 table */
  int id_column;          /* the column that is the rowid, or -1 */
  gboolean fts;           /* an FTS5 table: its hidden column takes MATCH, rank is a column */
  gboolean has_rowid;     /* else WITHOUT ROWID: rows are numbered as read */
  gint64 rows;            /* the shards' rows, estimated once */
  GHashTable *idle;       /* SQL -> of each shard, a GPtrArray of its statements prepared and
                             not in use, or NULL (idle_of()) */
  gint64 *offsets;        /* added to each shard's ids, where they are the shard's own
                             (numbered 1, 2, 3 in each): NULL where they are the set's */
  double *key_rows;       /* of each column that names a message or a file (Key): the rows
                             a value has, about; else 0 */
  gboolean *routes;       /* of each: it names a message, and every shard's values are of
                             that shard: an equality on it is asked of one shard */
  /* Values changed here (a catalog's threads across shards, its
   * authors): the rows of a table of the connection's (the second
   * argument), whose columns are the id and some of the table's. */
  sqlite3 *db;            /* the connection the table is on */
  char *overlay;          /* that table's name, or NULL */
  int *overlay_of;        /* each column's in the overlay's values, or -1 */
  guint n_overlay;        /* the overlay's columns but the id */
  int *overlaid;          /* and the table's column of each */
  gboolean *leads_index;  /* of each column: a whole index of the shards' table starts with it */
  GHashTable *changed;    /* id (gint64 *) -> sqlite3_value *[n_overlay]; NULL: to be read */
  GPtrArray *replaced;    /* values a cursor may still be on, freed at the end of a statement */
  GArray *changed_ids;    /* changed's ids in order (of gint64), or NULL to be made again */
  GHashTable **by_value;  /* of each overlay column, or NULL to be made again: an integer
                             value (gint64 *) -> the changed rows' ids with it, in order */
  char *values_sql;       /* what a shard has of the overlay's columns, of one row */
  char **column_sql;      /* of each column, NULL or what reads it of one row (read_column()) */
  char *counts_for;       /* the last full-text query ranked, and the set's counts of it */
  sqlite3_value *counts;  /* (set_counts(): the same for every row a join looks up) */
  sqlite3_stmt *write[2]; /* on db: the overlay's row deleted, or written (shards_update()) */
} ShardsTable;

/* A comparison of a column the overlay changes: its value there (slot),
 * the constraint (SQLITE_INDEX_CONSTRAINT_*) and its argument (a number
 * of xFilter's, 0 for none) */
typedef struct {
  int slot, op, arg;
} OverlayCheck;

#define OVERLAY_CHECKS 8

typedef struct {
  sqlite3_vtab_cursor base;
  ShardsTable *table;
  char *sql;              /* the statement each shard runs */
  sqlite3_value **args;   /* its parameters */
  int n_args;
  int *to_stmt;           /* the statement's column of each of the table's, or -1 */
  guint next;             /* the shard after the one being read */
  guint last;             /* the shard after the last one to read */
  sqlite3_stmt *stmt;     /* the shard being read's, on a row; NULL at the end */
  sqlite3_stmt **held;    /* each shard's statement of sql, kept for the next xFilter */
  gint64 row;             /* rows read (the rowid of a table without one) */
  sqlite3_value **over;   /* the row's values changed here, or NULL */
  sqlite3_value *match;   /* an FTS5 table's query, or NULL */
  guint shard;            /* the shard of the row the cursor is on */
  /* Where the shards were asked on a column the overlay changes, the
   * rows it changes are not taken from them but read after, by id (their
   * values here are the ones compared) */
  gboolean by_overlay;
  char *sql_by_id;        /* the same columns, of one row */
  GArray *overlay_ids;    /* of gint64, in order; NULL before that phase */
  guint overlay_pos;
  sqlite3_stmt *by_id_stmt;  /* that phase's statement, of shard c->shard */
  guint by_overlay_first, by_overlay_last;   /* the shards it reads */
  gboolean one_id;           /* the query asks for one id: */
  gint64 only_id;            /* this one */
  sqlite3_stmt **held_by_id; /* each shard's statement of sql_by_id */
  /* what the query asks of the values changed here that tells without
   * the shard that a changed row is not wanted (overlay_may_match()) */
  OverlayCheck checks[OVERLAY_CHECKS];
  guint n_checks;
  gboolean lazy;          /* columns the statement leaves out are read when asked (read_column()) */
} ShardsCursor;

static void
shard_free (gpointer data)
{
  Shard *shard = data;

  if (shard->db)
    sqlite3_close_v2 (shard->db);
  g_free (shard->term);
  g_free (shard->path);
  g_free (shard);
}

/**
 * _store_shards_new:
 * @paths: (array length=n): the shards' databases, in number order
 * @numbers: (array length=n): each one's N of --shard N
 *
 * Returns: (transfer full): the set, for _store_shards_register()
 */
/* A file a shard, on each connection to the set (a catalog's threads
 * read on two): past the 1,024 files a process may open by default,
 * the limit goes up to what the system allows it. */
static void
allow_files (guint n)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= (rlim_t) n * 2 + 64)
    return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? (rlim_t) n * 2 + 64 : MIN (limit.rlim_max, (rlim_t) n * 2 + 64);
  if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
    g_debug ("cannot open more files at once: %s", g_strerror (errno));
}

StoreShards *
_store_shards_new (const char *const *paths, const gint64 *numbers, guint n)
{
  StoreShards *set = g_new0 (StoreShards, 1);

  allow_files (n);

  set->shards = g_ptr_array_new_with_free_func (shard_free);
  for (guint i = 0; i < n; i++)
    {
      Shard *shard = g_new0 (Shard, 1);

      shard->path = g_strdup (paths[i]);
      shard->number = numbers[i];
      g_ptr_array_add (set->shards, shard);
    }
  return set;
}

/* Refuses a shard that is not a deja database of this schema (a catalog's) */
void
_store_shards_deja_only (StoreShards *set)
{
  set->deja_only = TRUE;
}

void
_store_shards_free (StoreShards *set)
{
  if (set == NULL)
    return;
  g_ptr_array_unref (set->shards);
  if (set->read)
    g_ptr_array_unref (set->read);
  if (set->tables)
    g_hash_table_unref (set->tables);
  g_free (set->error);
  g_free (set);
}

/* ---- full-text ranking over the set ----
 *
 * FTS5 ranks a row by BM25 (its bm25(), the default rank): the row's
 * own counts (each phrase's instances, its length in tokens) weighed by
 * numbers of the whole table (its rows, their tokens, and the rows each
 * phrase is in).  A shard knows those of its own table only; a row of
 * the set is ranked here as it would be in one database holding every
 * shard's rows, with the numbers summed over the shards.  Each shard's
 * connection has two functions of FTS5's for that: deja_counts() gives
 * a shard's numbers for a query, deja_bm25() ranks a row with the
 * set's.  Numbers go as blobs of 64-bit integers: rows, tokens, then
 * the rows of each phrase. */

static int
count_row (const Fts5ExtensionApi *api, Fts5Context *fts, void *data)
{
  (void) api;
  (void) fts;
  (*(sqlite3_int64 *) data)++;
  return SQLITE_OK;
}

/* deja_counts(TABLE): its rows, tokens, and the rows of each phrase of
 * the query but the last (fts_counts() adds one that every shard has) */
static void
counts_function (const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int n,
                 sqlite3_value **args)
{
  int phrases = api->xPhraseCount (fts) - 1;
  g_autofree sqlite3_int64 *counts = NULL;
  int rc;

  (void) n;
  (void) args;
  if (phrases < 0)
    phrases = 0;
  counts = g_new0 (sqlite3_int64, phrases + 2);
  rc = api->xRowCount (fts, &counts[0]);
  if (rc == SQLITE_OK)
    rc = api->xColumnTotalSize (fts, -1, &counts[1]);
  for (int i = 0; rc == SQLITE_OK && i < phrases; i++)
    rc = api->xQueryPhrase (fts, i, &counts[2 + i], count_row);
  G_STATIC_ASSERT (sizeof (sqlite3_int64) == sizeof (gint64));
  if (rc != SQLITE_OK)
    {
      sqlite3_result_error_code (ctx, rc);
      return;
    }
  sqlite3_result_blob (ctx, counts, (int) ((phrases + 2) * sizeof (gint64)), SQLITE_TRANSIENT);
}

typedef struct {
  int phrases;
  double average;       /* tokens a row in the set */
  double *idf;          /* each phrase's weight in the set */
  double *frequency;    /* each phrase's instances in the row */
} Bm25;

/* deja_bm25(TABLE, COUNTS): the row's rank, BM25 as FTS5 computes it
 * (k1 = 1.2, b = 0.75, every column of weight 1), with COUNTS the set's */
static void
bm25_function (const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int n,
               sqlite3_value **args)
{
  const double k1 = 1.2, b = 0.75;
  Bm25 *r = api->xGetAuxdata (fts, 0);
  double score = 0.0, length;
  int instances = 0, tokens = 0, rc = SQLITE_OK;

  if (r == NULL)
    {
      const guint8 *blob = n == 1 ? sqlite3_value_blob (args[0]) : NULL;
      int phrases = api->xPhraseCount (fts);
      int bytes = n == 1 ? sqlite3_value_bytes (args[0]) : 0;
      g_autofree gint64 *counts = g_new0 (gint64, phrases + 2);

      if (blob && bytes == (int) ((phrases + 2) * sizeof (gint64)))
        memcpy (counts, blob, bytes);
      if (blob == NULL || bytes != (int) ((phrases + 2) * sizeof (gint64)) || counts[0] <= 0)
        {
          sqlite3_result_error (ctx, "deja_bm25: the set's counts do not fit the query", -1);
          return;
        }
      r = sqlite3_malloc64 (sizeof *r + 2 * (gsize) phrases * sizeof (double));
      if (r == NULL)
        {
          sqlite3_result_error_nomem (ctx);
          return;
        }
      r->phrases = phrases;
      r->idf = (double *) &r[1];
      r->frequency = r->idf + phrases;
      r->average = (double) counts[1] / (double) counts[0];
      for (int i = 0; i < phrases; i++)
        {
          double rows = (double) counts[0], hits = (double) counts[2 + i];
          /* a phrase in more than half the rows weighs almost nothing,
           * not less than nothing */
          double idf = log ((rows - hits + 0.5) / (hits + 0.5));

          r->idf[i] = idf <= 0.0 ? 1e-6 : idf;
        }
      rc = api->xSetAuxdata (fts, r, sqlite3_free);
      if (rc != SQLITE_OK)
        {
          sqlite3_result_error_code (ctx, rc);
          return;
        }
    }
  memset (r->frequency, 0, sizeof (double) * r->phrases);
  rc = api->xInstCount (fts, &instances);
  for (int i = 0; rc == SQLITE_OK && i < instances; i++)
    {
      int phrase, column, offset;

      rc = api->xInst (fts, i, &phrase, &column, &offset);
      if (rc == SQLITE_OK && phrase >= 0 && phrase < r->phrases)
        r->frequency[phrase] += 1.0;
    }
  if (rc == SQLITE_OK)
    rc = api->xColumnSize (fts, -1, &tokens);
  length = (double) tokens;
  for (int i = 0; rc == SQLITE_OK && i < r->phrases; i++)
    score += r->idf[i] * ((r->frequency[i] * (k1 + 1.0))
                          / (r->frequency[i] + k1 * (1 - b + b * length / r->average)));
  if (rc != SQLITE_OK)
    sqlite3_result_error_code (ctx, rc);
  else
    sqlite3_result_double (ctx, -1.0 * score);
}

/* The two functions, on a shard's connection (one without FTS5 has no
 * full-text table to read either). */
static int
register_ranking (sqlite3 *db)
{
  fts5_api *api = NULL;
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (db, "SELECT fts5(?1)", -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return SQLITE_OK;
  sqlite3_bind_pointer (stmt, 1, (void *) &api, "fts5_api_ptr", NULL);
  (sqlite3_step) (stmt);
  (sqlite3_finalize) (stmt);
  if (api == NULL)
    return SQLITE_OK;
  rc = api->xCreateFunction (api, "deja_counts", NULL, counts_function, NULL);
  if (rc == SQLITE_OK)
    rc = api->xCreateFunction (api, "deja_bm25", NULL, bm25_function, NULL);
  return rc;
}

/* Opens @shard's connection, read-only: in any thread, for a shard no
 * other thread opens (it touches no other shard, nor the set but to
 * read it); FALSE with @error saying why it cannot be */
/* open_shard(): @why says what is wrong, without the shard's name */
static gboolean
open_shard_why (const StoreShards *set, Shard *shard, char **why)
{
  g_autofree char *uri = NULL;
  int rc;

  if (shard->db)
    return TRUE;
  /* Nothing writes a shard while a catalog reads it (its size and time
   * are checked when the catalog is opened, and a log left beside it is
   * refused): no locks, no log to look at for each statement.  With
   * SQLite's mutex, unlike the store's own (STORE_OPEN_ONE_THREAD): a
   * worker may read it while the catalog's thread asks it something. */
  uri = _store_file_uri (shard->path, "immutable=1");
  rc = (sqlite3_open_v2) (uri, &shard->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, NULL);
  if (rc == SQLITE_OK)
    rc = _store_make_safe_db (shard->db);
  /* Pages read again are the indexes' upper levels: 2 MiB for a few
   * shards, a share of 16 MiB for many (each first touch of a page of
   * memory costs) */
  if (rc == SQLITE_OK)
    {
      g_autofree char *cache = g_strdup_printf ("PRAGMA cache_size = -%u",
                                                MAX (512, MIN (2048, 16384 / MAX (set->shards->len, 1))));

      rc = (sqlite3_exec) (shard->db, cache, NULL, NULL, NULL);
    }
  if (rc == SQLITE_OK)
    rc = register_ranking (shard->db);
  if (rc == SQLITE_OK)
    rc = _store_register_content_hash (shard->db);
  if (rc == SQLITE_OK)
    rc = _store_register_sender_group (shard->db);
  if (rc == SQLITE_OK)
    rc = (sqlite3_create_function) (shard->db, "deja_sorted_ids_have", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                    sorted_ids_have, NULL, NULL);
  /* A catalog names its shards; one of a stranger's could name any file */
  if (rc == SQLITE_OK && set->deja_only && !_store_is_current_deja (shard->db))
    {
      *why = g_strdup ("not a deja database of this version (one made by an older deja is upgraded by"
                       " opening it once; then make the catalog again)");
      sqlite3_close_v2 (shard->db);
      shard->db = NULL;
      return FALSE;
    }
  if (rc != SQLITE_OK)
    {
      *why = g_strdup (shard->db ? sqlite3_errmsg (shard->db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (shard->db);
      shard->db = NULL;
      return FALSE;
    }
  sqlite3_busy_timeout (shard->db, STORE_BUSY_TIMEOUT_MS);
  return TRUE;
}

static gboolean
open_shard (const StoreShards *set, Shard *shard, char **error)
{
  g_autofree char *why = NULL;

  if (open_shard_why (set, shard, &why))
    return TRUE;
  *error = g_strdup_printf ("shard '%s': %s", shard->path, why);
  return FALSE;
}

/* Shard @i's connection, opened the first time: NULL with set->error
 * saying why it cannot be. */
static sqlite3 *
shard_db (StoreShards *set, guint i)
{
  Shard *shard = g_ptr_array_index (set->shards, i);
  char *error = NULL;

  if (!open_shard (set, shard, &error))
    {
      g_free (set->error);
      set->error = error;
      return NULL;
    }
  return shard->db;
}

/* ---- every shard opened at once, and given to a function
 * (open_all(), _store_shards_each()) ---- */

typedef struct {
  StoreShards *set;
  StoreShardsEachFunc func;  /* or NULL: opened only */
  gpointer data;
  StoreShardsDoneFunc done;  /* or NULL */
  gpointer done_data;
  gboolean named;          /* a failure to open says the shard's path */
  gint next;               /* the next shard a worker takes (atomic) */
  char **errors;           /* what each said, or why it could not be opened */
  GMutex lock;             /* around finished (when done) */
  GCond finishing;
  GArray *finished;        /* of guint: the shards done, in the order they were */
} Each;

static gpointer
each_worker (gpointer data)
{
  Each *e = data;
  guint i;

  while ((i = (guint) g_atomic_int_add (&e->next, 1)) < e->set->shards->len)
    {
      Shard *shard = g_ptr_array_index (e->set->shards, i);

      if (e->named ? open_shard (e->set, shard, &e->errors[i]) : open_shard_why (e->set, shard, &e->errors[i]))
        e->errors[i] = e->func ? e->func (shard->db, i, e->data) : NULL;
      if (e->done)
        {
          g_mutex_lock (&e->lock);
          g_array_append_val (e->finished, i);
          g_cond_signal (&e->finishing);
          g_mutex_unlock (&e->lock);
        }
    }
  return NULL;
}

/* e->done called in this thread with each shard as the workers finish
 * it, until all are */
static void
hand_finished (Each *e)
{
  guint n = e->set->shards->len, handed = 0;

  g_mutex_lock (&e->lock);
  while (handed < n)
    {
      while (e->finished->len == handed)
        g_cond_wait (&e->finishing, &e->lock);
      while (handed < e->finished->len)
        {
          guint i = g_array_index (e->finished, guint, handed++);

          g_mutex_unlock (&e->lock);
          e->done (i, e->done_data);
          g_mutex_lock (&e->lock);
        }
    }
  g_mutex_unlock (&e->lock);
}

/* @e run on @workers threads; the first failure in the set's order in
 * @error, its shard in @failed */
static int
run_each (Each *e, guint workers, guint *failed, char **error)
{
  guint n = e->set->shards->len;
  g_autofree GThread **threads = g_new0 (GThread *, MAX (workers, 1));

  *error = NULL;
  e->errors = g_new0 (char *, MAX (n, 1));
  if (e->done)
    {
      g_mutex_init (&e->lock);
      g_cond_init (&e->finishing);
      e->finished = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
    }
  guint started = 0;

  for (guint w = 0; w < workers; w++)
    started += (threads[w] = spawn_thread ("deja-shards", each_worker, e)) != NULL;
  if (started == 0)
    each_worker (e);   /* not one thread could start: every shard on this one */
  if (e->done)
    hand_finished (e);
  for (guint w = 0; w < workers; w++)
    if (threads[w])
      g_thread_join (threads[w]);
  if (e->done)
    {
      g_clear_pointer (&e->finished, g_array_unref);
      g_cond_clear (&e->finishing);
      g_mutex_clear (&e->lock);
    }
  for (guint i = 0; i < n; i++)
    if (e->errors[i] && *error == NULL)
      {
        *failed = i;
        *error = g_steal_pointer (&e->errors[i]);
      }
    else
      g_free (e->errors[i]);
  g_clear_pointer (&e->errors, g_free);
  return *error ? SQLITE_ERROR : SQLITE_OK;
}

/* Every shard's connection, opened a worker a CPU where most are not
 * yet: each reads its shard's schema, 0.5 ms or so a shard.  FALSE with
 * set->error saying why the first that cannot be opened cannot. */
static gboolean
open_all (StoreShards *set)
{
  guint n = set->shards->len, closed = 0, workers, failed;
  Each e = { .set = set, .named = TRUE };
  char *first = NULL;

  for (guint i = 0; i < n; i++)
    closed += ((Shard *) g_ptr_array_index (set->shards, i))->db == NULL;
  workers = MIN (cpus_available (), closed / 4);
  if (workers > 1 && run_each (&e, workers, &failed, &first) != SQLITE_OK)
    {
      g_free (set->error);
      set->error = first;
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (shard_db (set, i) == NULL)
      return FALSE;
  return TRUE;
}

/**
 * _store_shards_each:
 * @func: called in a worker thread with each shard's connection (opened
 *   there) and its place in the set; returns NULL, or what is wrong with
 *   that shard (g_free())
 * @done: (nullable): called in the caller's thread with each shard's
 *   place once @func returned for it (or it could not be opened), in the
 *   order they were done: a progress line follows the workers
 * @failed: (out): the place of the first shard in the set's order that
 *   failed, when one did
 * @error: (out): and what was said of it, or why it could not be opened
 *   (g_free(); without its name)
 *
 * Each shard opened and given to @func, a worker a CPU (a catalog being
 * made checks its shards so, on the connections it then reads them by).
 * Returns an SQLite code.
 */
int
_store_shards_each (StoreShards *set, StoreShardsEachFunc func, gpointer data, StoreShardsDoneFunc done,
                    gpointer done_data, guint *failed, char **error)
{
  Each e = { .set = set, .func = func, .data = data, .done = done, .done_data = done_data };

  return run_each (&e, MAX (1, MIN (cpus_available (), set->shards->len)), failed, error);
}

/* Shard @i of @set (in the order it was made with) is numbered @number */
void
_store_shards_set_number (StoreShards *set, guint i, gint64 number)
{
  ((Shard *) g_ptr_array_index (set->shards, i))->number = number;
}

/**
 * _store_shards_adopt:
 * @from: a set of the same shards (their numbers set), read before
 *
 * @set takes the connections @from has open, by shard number: a catalog
 * just made reads its shards on those it checked them on, not opened
 * again.
 */
void
_store_shards_adopt (StoreShards *set, StoreShards *from)
{
  g_autoptr (GHashTable) by_number = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < from->shards->len; i++)
    {
      Shard *shard = g_ptr_array_index (from->shards, i);

      if (shard->db)
        g_hash_table_insert (by_number, &shard->number, shard);
    }
  for (guint i = 0; i < set->shards->len; i++)
    {
      Shard *shard = g_ptr_array_index (set->shards, i), *open = g_hash_table_lookup (by_number, &shard->number);

      if (shard->db == NULL && open != NULL)
        shard->db = g_steal_pointer (&open->db);
    }
}

/* ---- every shard read at once (_store_shards_scan()) ---- */

typedef struct {
  StoreShards *set;
  const char *sql;
  StoreShardsBindFunc bind;
  gconstpointer bind_data;
  StoreShardsRowFunc convert;
  gsize record_size;
  GMutex lock;
  GCond changed;
  guint next;              /* the next shard a worker takes */
  guint taken;             /* shards the caller has taken */
  guint ahead;             /* how many past that a worker may read */
  gboolean stop;
  GArray **records;        /* each shard's, once read */
  char **errors;           /* or why it could not be */
} Scan;

static gpointer
scan_worker (gpointer data)
{
  Scan *scan = data;

  for (;;)
    {
      GArray *records;
      sqlite3_stmt *stmt = NULL;
      char *error = NULL;
      guint i;
      int rc;

      g_mutex_lock (&scan->lock);
      while (!scan->stop && scan->next < scan->set->shards->len && scan->next >= scan->taken + scan->ahead)
        g_cond_wait (&scan->changed, &scan->lock);
      if (scan->stop || scan->next >= scan->set->shards->len)
        {
          g_mutex_unlock (&scan->lock);
          return NULL;
        }
      i = scan->next++;
      g_mutex_unlock (&scan->lock);

      /* (opened by the caller: shard_db() is not for several threads) */
      records = g_array_new (FALSE, FALSE, (guint) scan->record_size);
      {
        Shard *shard = g_ptr_array_index (scan->set->shards, i);
        sqlite3_mutex *held = (sqlite3_db_mutex) (shard->db);

        /* The shard's mutex held for the whole statement: each call
         * inside takes it again (it is recursive) without an atomic
         * operation.  Taken and released at every step and column, it
         * was 10 % of a catalog's CPU samples (perf, the realistic 1 GiB
         * in 8 or 64 shards), 3.5 % so; a query of the catalog's own
         * thread on this shard waits for the statement's end. */
        (sqlite3_mutex_enter) (held);
        rc = (sqlite3_prepare_v2) (shard->db, scan->sql, -1, &stmt, NULL);
        if (rc == SQLITE_OK && scan->bind)
          rc = scan->bind (stmt, shard->number, scan->bind_data);   /* SQLITE_DONE: nothing asked */
        while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
          {
            rc = SQLITE_OK;
            scan->convert (stmt, records);
          }
        if (rc != SQLITE_DONE)
          error = g_strdup_printf ("shard '%s': %s", shard->path, sqlite3_errmsg (shard->db));
        (sqlite3_finalize) (stmt);
        (sqlite3_mutex_leave) (held);
      }
      g_mutex_lock (&scan->lock);
      if (error)
        {
          scan->errors[i] = error;
          g_array_unref (records);
        }
      else
        scan->records[i] = records;
      g_cond_broadcast (&scan->changed);
      g_mutex_unlock (&scan->lock);
    }
}

/**
 * _store_shards_scan:
 * @sql: a statement each shard runs on its own tables (main.)
 * @convert: called in a worker thread with each row of a shard: appends
 *   what the caller needs of it to @records (of @record_size each)
 * @take: called in the caller's thread with each shard's records, shard
 *   after shard in the set's order (the order of their ids)
 * @error: (out): why a shard could not be read (g_free())
 *
 * Reads every shard at once, a shard a worker, one worker a CPU: a plan
 * over the whole set reads every row of a table, and the shards' files
 * and connections are each their own.  Workers read at most a few
 * shards ahead of @take.  Returns an SQLite code.
 */
int
_store_shards_scan (StoreShards *set, const char *sql, StoreShardsRowFunc convert, gsize record_size,
                    StoreShardsTakeFunc take, gpointer data, char **error)
{
  return _store_shards_scan_bound (set, sql, NULL, NULL, convert, record_size, take, data, error);
}

/**
 * _store_shards_scan_bound:
 * @bind: (nullable): called in a worker thread with each shard's
 *   statement and the shard's number, before it runs: binds its
 *   parameters from @bind_data (which nothing changes meanwhile) and
 *   returns SQLITE_OK; or SQLITE_DONE where nothing is asked of that
 *   shard (no records); or the failure of a bind
 *
 * _store_shards_scan() of a statement with parameters.
 */
int
_store_shards_scan_bound (StoreShards *set, const char *sql, StoreShardsBindFunc bind, gconstpointer bind_data,
                          StoreShardsRowFunc convert, gsize record_size, StoreShardsTakeFunc take, gpointer data,
                          char **error)
{
  guint n = set->shards->len, workers = MAX (1, MIN (cpus_available (), n));
  g_autofree GThread **threads = g_new0 (GThread *, workers);
  Scan scan = { .set = set, .sql = sql, .bind = bind, .bind_data = bind_data, .convert = convert,
                .record_size = record_size, .ahead = 2 * workers + 1 };
  int rc = SQLITE_OK;

  *error = NULL;
  if (!open_all (set))
    {
      *error = g_strdup (set->error);
      return SQLITE_CANTOPEN;
    }
  scan.records = g_new0 (GArray *, MAX (n, 1));
  scan.errors = g_new0 (char *, MAX (n, 1));
  g_mutex_init (&scan.lock);
  g_cond_init (&scan.changed);
  guint started = 0;

  for (guint w = 0; w < workers; w++)
    started += (threads[w] = spawn_thread ("deja-shards", scan_worker, &scan)) != NULL;
  if (started == 0)
    {
      /* not one thread could start: every shard read here first, all of
       * their records held at once */
      scan.ahead = n;
      scan_worker (&scan);
    }
  for (guint i = 0; i < n && rc == SQLITE_OK; i++)
    {
      GArray *records;

      g_mutex_lock (&scan.lock);
      while (scan.records[i] == NULL && scan.errors[i] == NULL)
        g_cond_wait (&scan.changed, &scan.lock);
      records = g_steal_pointer (&scan.records[i]);
      if (scan.errors[i])
        {
          *error = g_steal_pointer (&scan.errors[i]);
          rc = SQLITE_ERROR;
        }
      scan.taken = i + 1;
      g_cond_broadcast (&scan.changed);
      g_mutex_unlock (&scan.lock);
      if (records)
        {
          take (records, data);
          g_array_unref (records);
        }
    }
  g_mutex_lock (&scan.lock);
  scan.stop = TRUE;
  g_cond_broadcast (&scan.changed);
  g_mutex_unlock (&scan.lock);
  for (guint w = 0; w < workers; w++)
    if (threads[w])
      g_thread_join (threads[w]);
  for (guint i = 0; i < n; i++)
    {
      if (scan.records[i])
        g_array_unref (scan.records[i]);
      g_free (scan.errors[i]);
    }
  g_free (scan.records);
  g_free (scan.errors);
  g_mutex_clear (&scan.lock);
  g_cond_clear (&scan.changed);
  return rc;
}

/* ---- ids asked of each shard: a JSON array each, for json_each() ---- */

static void
string_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* Returns: (transfer full): a shard's number -> its ids asked, empty */
GHashTable *
_store_shard_ids_new (void)
{
  return deja_id_table_new (g_free, string_free);
}

/* Adds @id to its shard's (SHARD_OF()) */
void
_store_shard_ids_add (GHashTable *lists, gint64 id)
{
  gint64 number = SHARD_OF (id);
  GString *ids = g_hash_table_lookup (lists, &number);

  if (ids == NULL)
    g_hash_table_insert (lists, g_memdup2 (&number, sizeof number), ids = g_string_new ("["));
  else
    g_string_append_c (ids, ',');
  g_string_append_printf (ids, "%" G_GINT64_FORMAT, id);
}

/* Once every id was added: the arrays closed */
void
_store_shard_ids_close (GHashTable *lists)
{
  GHashTableIter iter;
  gpointer ids;

  g_hash_table_iter_init (&iter, lists);
  while (g_hash_table_iter_next (&iter, NULL, &ids))
    g_string_append_c (ids, ']');
}

/* Binds the ids of shard @number as parameter @param of @stmt (a shard's,
 * in a worker: _store_shards_scan_bound()); where it has none, "[]" if
 * @none_too, else returns SQLITE_DONE (nothing asked of it) */
int
_store_bind_shard_ids (sqlite3_stmt *stmt, int param, GHashTable *lists, gint64 number, gboolean none_too)
{
  const GString *ids = g_hash_table_lookup (lists, &number);

  if (ids == NULL)
    return none_too ? (sqlite3_bind_text) (stmt, param, "[]", -1, SQLITE_STATIC) : SQLITE_DONE;
  return (sqlite3_bind_text) (stmt, param, ids->str, (int) ids->len, SQLITE_STATIC);
}

/* ---- ids left out in each shard: a sorted array each, bound as a
 * pointer ---- */

/* A list of ids per shard that a statement only tests its rows against
 * ("id NOT IN (SELECT value FROM json_each(?1))" looked each row up in a
 * table SQLite made of the JSON text, and the text was printed first:
 * the kept placeholders of 1,000 shards spent 0.09 s printing and 0.12 s
 * in the shards).  Bound with sqlite3_bind_pointer() as
 * "deja_sorted_ids", which SQL cannot forge, and tested with
 * deja_sorted_ids_have(?N, value) or _store_sorted_ids_have(). */

/* Returns: (transfer full): a shard's number -> a GArray of its ids, in
 * increasing order (_store_shard_sorted_ids_add()) */
GHashTable *
_store_shard_sorted_ids_new (void)
{
  return deja_id_table_new (g_free, (GDestroyNotify) g_array_unref);
}

/* Where @id is in @ids (in increasing order), or goes */
static guint
sorted_ids_place (const GArray *ids, gint64 id)
{
  guint lo = 0, hi = ids->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (ids, gint64, mid) < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Adds @id to its shard's: appended when it is greater than every id
 * added before (the callers read ids in order), else put in its place
 * (once only) */
void
_store_shard_sorted_ids_add (GHashTable *lists, gint64 id)
{
  gint64 number = SHARD_OF (id);
  GArray *ids = g_hash_table_lookup (lists, &number);
  guint at;

  if (ids == NULL)
    g_hash_table_insert (lists, g_memdup2 (&number, sizeof number), ids = g_array_new (FALSE, FALSE, sizeof id));
  if (ids->len == 0 || g_array_index (ids, gint64, ids->len - 1) < id)
    {
      g_array_append_val (ids, id);
      return;
    }
  at = sorted_ids_place (ids, id);
  if (g_array_index (ids, gint64, at) != id)
    g_array_insert_val (ids, at, id);
}

/* Binds shard @number's ids as parameter @param of @stmt (NULL: none) */
int
_store_bind_shard_sorted_ids (sqlite3_stmt *stmt, int param, GHashTable *lists, gint64 number)
{
  return (sqlite3_bind_pointer) (stmt, param, g_hash_table_lookup (lists, &number), "deja_sorted_ids", NULL);
}

/* Whether @id is one of @ids (in increasing order) */
gboolean
_store_sorted_ids_have (const GArray *ids, gint64 id)
{
  guint at = sorted_ids_place (ids, id);

  return at < ids->len && g_array_index (ids, gint64, at) == id;
}

/* deja_sorted_ids_have(ids, value): 1 when @value is a number equal to
 * one of @ids (bound as "deja_sorted_ids"; NULL: none), else 0, as
 * "value IN (SELECT value FROM json_each(...))" of integers says (text
 * is never equal to a number there) */
static void
sorted_ids_have (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const GArray *ids = (sqlite3_value_pointer) (argv[0], "deja_sorted_ids");
  int type = (sqlite3_value_type) (argv[1]);
  double r = type == SQLITE_FLOAT ? (sqlite3_value_double) (argv[1]) : 0;
  gboolean have = FALSE;

  if (ids && type == SQLITE_INTEGER)
    have = _store_sorted_ids_have (ids, (sqlite3_value_int64) (argv[1]));
  else if (ids && type == SQLITE_FLOAT && r >= -9223372036854775808.0 && r < 9223372036854775808.0 &&
           r == (double) (gint64) r)
    have = _store_sorted_ids_have (ids, (gint64) r);
  (sqlite3_result_int) (ctx, have);
}

void
_store_pack_int (GArray *bytes, gint64 value)
{
  g_array_append_vals (bytes, &value, sizeof value);
}

void
_store_pack_text (GArray *bytes, sqlite3_stmt *stmt, int column)
{
  const unsigned char *text = (sqlite3_column_text) (stmt, column);

  _store_pack_bytes (bytes, (const char *) text, text ? (gint32) (sqlite3_column_bytes) (stmt, column) : -1);
}

/* @length bytes of @text, or NULL (@text NULL, @length -1), as
 * _store_pack_text() packs a column */
void
_store_pack_bytes (GArray *bytes, const char *text, gint32 length)
{
  static const char nul = '\0';

  if (text == NULL)
    length = -1;
  g_array_append_vals (bytes, &length, sizeof length);
  if (text)
    {
      g_array_append_vals (bytes, text, (guint) length);
      g_array_append_vals (bytes, &nul, 1);
    }
}

/* A value of any type: its type (SQLITE_INTEGER ...), then an integer,
 * a double, or a text's or blob's length and bytes */
void
_store_pack_value (GArray *bytes, sqlite3_stmt *stmt, int column)
{
  guint8 type = (guint8) (sqlite3_column_type) (stmt, column);

  g_array_append_val (bytes, type);
  switch (type)
    {
    case SQLITE_INTEGER:
      _store_pack_int (bytes, (sqlite3_column_int64) (stmt, column));
      break;
    case SQLITE_FLOAT:
      {
        double d = (sqlite3_column_double) (stmt, column);

        g_array_append_vals (bytes, &d, sizeof d);
      }
      break;
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      {
        const void *data = type == SQLITE_TEXT ? (const void *) (sqlite3_column_text) (stmt, column)
                                               : (sqlite3_column_blob) (stmt, column);
        gint32 length = (gint32) (sqlite3_column_bytes) (stmt, column);

        g_array_append_vals (bytes, &length, sizeof length);
        if (length > 0)
          g_array_append_vals (bytes, data, (guint) length);
      }
      break;
    default:
      break;
    }
}

/* The size of the value packed at @data */
gsize
_store_packed_value_size (const guint8 *data)
{
  gint32 length;

  switch (data[0])
    {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
      return 1 + 8;
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      memcpy (&length, data + 1, sizeof length);
      return 1 + sizeof length + (gsize) MAX (length, 0);
    default:
      return 1;
    }
}

/* Binds the value packed at @data (copied: it may go before the step) */
int
_store_bind_packed_value (sqlite3_stmt *stmt, int param, const guint8 *data)
{
  gint64 i;
  double d;
  gint32 length;

  switch (data[0])
    {
    case SQLITE_INTEGER:
      memcpy (&i, data + 1, sizeof i);
      return (sqlite3_bind_int64) (stmt, param, i);
    case SQLITE_FLOAT:
      memcpy (&d, data + 1, sizeof d);
      return (sqlite3_bind_double) (stmt, param, d);
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      memcpy (&length, data + 1, sizeof length);
      return data[0] == SQLITE_TEXT
               ? (sqlite3_bind_text) (stmt, param, (const char *) data + 1 + sizeof length, length, SQLITE_TRANSIENT)
               : (sqlite3_bind_blob) (stmt, param, data + 1 + sizeof length, length, SQLITE_TRANSIENT);
    default:
      return (sqlite3_bind_null) (stmt, param);
    }
}

gint64
_store_unpack_int (const GArray *bytes, gsize *at)
{
  gint64 value;

  g_assert (*at + sizeof value <= bytes->len);
  memcpy (&value, bytes->data + *at, sizeof value);
  *at += sizeof value;
  return value;
}

const char *
_store_unpack_text (const GArray *bytes, gsize *at, gint32 *length)
{
  const char *text;

  g_assert (*at + sizeof *length <= bytes->len);
  memcpy (length, bytes->data + *at, sizeof *length);
  *at += sizeof *length;
  if (*length < 0)
    return NULL;
  g_assert (*at + (gsize) *length + 1 <= bytes->len);
  text = bytes->data + *at;
  *at += (gsize) *length + 1;
  return text;
}

static char *
quoted (const char *name)
{
  GString *s = g_string_new ("\"");

  for (const char *p = name; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

/* Whether @name is a plain SQL name (letters, digits, underscores):
 * the only names put into the SQL the shards run. */
static gboolean
plain_name (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

/* A column's declared type, if it is words and numbers (a
 * stranger's shard could declare anything there): else none. */
static const char *
plain_type (const char *type)
{
  if (type == NULL)
    return "";
  for (const char *p = type; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != ' ' && *p != '_')
      return "";
  return type;
}

/* What is made from the overlay's rows (changed_ids(), changed_with()),
 * after they change: a cursor reading them keeps its own reference */
static void
forget_changed_order (ShardsTable *t)
{
  g_clear_pointer (&t->changed_ids, g_array_unref);
  for (guint k = 0; t->by_value && k < t->n_overlay; k++)
    if (t->by_value[k])
      g_hash_table_unref (t->by_value[k]);
  g_clear_pointer (&t->by_value, g_free);
}

static void
table_free (ShardsTable *t)
{
  if (t == NULL)
    return;
  if (t->set && t->set->tables && g_hash_table_lookup (t->set->tables, t->table) == t)
    g_hash_table_remove (t->set->tables, t->table);
  for (guint i = 0; i < t->n_columns; i++)
    g_free (t->columns[i]);
  g_free (t->columns);
  g_free (t->table);
  if (t->idle)
    g_hash_table_unref (t->idle);
  if (t->changed)
    g_hash_table_unref (t->changed);
  if (t->replaced)
    g_ptr_array_unref (t->replaced);
  forget_changed_order (t);
  g_free (t->offsets);
  g_free (t->key_rows);
  g_free (t->routes);
  g_free (t->values_sql);
  for (guint i = 0; t->column_sql && i < t->n_columns; i++)
    g_free (t->column_sql[i]);
  g_free (t->column_sql);
  g_free (t->counts_for);
  sqlite3_value_free (t->counts);
  for (guint i = 0; i < G_N_ELEMENTS (t->write); i++)
    (sqlite3_finalize) (t->write[i]);
  g_free (t->overlay);
  g_free (t->overlay_of);
  g_free (t->overlaid);
  g_free (t->leads_index);
  sqlite3_free (t);
}

/* Which columns begin an index (not a partial one) of the table in
 * @shard, one of the set (their schemas are deja's, of one version): an
 * equality on such a column is a shard's quick answer (shards_best_index()) */
static int
read_index_leads (ShardsTable *t, sqlite3 *shard, char **err)
{
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (shard, "SELECT ii.name FROM pragma_index_list(?1) il,"
                                 " pragma_index_info(il.name) ii WHERE il.partial = 0 AND ii.seqno = 0",
                                 -1, &stmt, NULL);

  t->leads_index = g_new0 (gboolean, MAX (t->n_columns, 1));
  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_text) (stmt, 1, t->table, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      const char *column = (const char *) (sqlite3_column_text) (stmt, 0);

      rc = SQLITE_OK;
      for (guint i = 0; column && i < t->n_columns; i++)
        if (t->columns[i] && strcmp (t->columns[i], column) == 0)
          t->leads_index[i] = TRUE;
    }
  (sqlite3_finalize) (stmt);
  if (rc == SQLITE_DONE)
    return SQLITE_OK;
  *err = sqlite3_mprintf ("cannot read the indexes of %s in a shard: %s", t->table, (sqlite3_errmsg) (shard));
  return rc;
}

/* The columns of @table in @db's main schema (a catalog's own empty
 * table, of deja's schema), and the declaration of the virtual table:
 * the same names, types and collations (a generated column is an
 * ordinary one here: the shard computes it). */
static int
read_columns (ShardsTable *t, sqlite3 *db, GString *declare, char **err)
{
  sqlite3_stmt *stmt;
  GPtrArray *names = g_ptr_array_new ();
  guint keys = 0;
  int rc = (sqlite3_prepare_v2) (db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1, 'main')"
                                 " ORDER BY cid", -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_text) (stmt, 1, t->table, -1, SQLITE_TRANSIENT);
  t->id_column = -1;
  g_string_append (declare, "CREATE TABLE x(");
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      const char *type = (const char *) sqlite3_column_text (stmt, 1);
      gboolean hidden = sqlite3_column_int (stmt, 3) == 1;
      g_autofree char *q = NULL;

      if (!plain_name (name))
        {
          rc = SQLITE_ERROR;
          break;
        }
      q = quoted (name);

      const char *collation = NULL;

      /* Compared here as in the shard, which is asked first */
      if (!hidden)
        sqlite3_table_column_metadata (db, "main", t->table, name, NULL, &collation, NULL, NULL, NULL);
      if (names->len)
        g_string_append (declare, ", ");
      g_string_append_printf (declare, "%s %s%s", q, plain_type (type), hidden ? " HIDDEN" : "");
      if (collation && g_ascii_strcasecmp (collation, "BINARY") != 0)
        {
          g_autofree char *c = quoted (collation);

          g_string_append_printf (declare, " COLLATE %s", c);
        }
      if (sqlite3_column_int (stmt, 2) == 1 && type && g_ascii_strcasecmp (type, "INTEGER") == 0)
        t->id_column = names->len;
      keys += sqlite3_column_int (stmt, 2) > 0;
      /* An FTS5 table's hidden column named as it takes MATCH only */
      g_ptr_array_add (names, hidden && strcmp (name, t->table) == 0 ? NULL : g_strdup (name));
      t->fts |= hidden && strcmp (name, t->table) == 0;
      rc = SQLITE_OK;
    }
  (sqlite3_finalize) (stmt);
  if (rc != SQLITE_DONE || names->len == 0)
    {
      *err = sqlite3_mprintf ("no table %s here whose columns the shards' are", t->table);
      g_ptr_array_free (names, TRUE);
      return SQLITE_ERROR;
    }
  /* A table without rowid gives its rows numbers of their own */
  t->has_rowid = sqlite3_table_column_metadata (db, "main", t->table, "rowid", NULL, NULL, NULL, NULL,
                                                NULL) == SQLITE_OK;
  /* An INTEGER PRIMARY KEY alone is the rowid */
  if (!t->has_rowid || keys != 1)
    t->id_column = -1;
  g_string_append (declare, ")");
  t->n_columns = names->len;
  t->columns = (char **) g_ptr_array_free (names, FALSE);
  return SQLITE_OK;
}

/* The table of values changed here, @name, of the connection's main
 * database: its id, and columns named as some of the table's. */
static int
read_overlay (ShardsTable *t, const char *name, char **err)
{
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (t->db, "SELECT name FROM pragma_table_info(?1, 'main') WHERE pk = 0"
                                 " ORDER BY cid", -1, &stmt, NULL);

  t->overlay = g_strdup (name);
  t->overlay_of = g_new (int, t->n_columns);
  t->overlaid = g_new (int, t->n_columns);
  for (guint i = 0; i < t->n_columns; i++)
    t->overlay_of[i] = -1;
  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_text) (stmt, 1, name, -1, SQLITE_TRANSIENT);
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      const char *column = (const char *) sqlite3_column_text (stmt, 0);
      guint i;

      rc = SQLITE_OK;
      for (i = 0; i < t->n_columns; i++)
        if (t->columns[i] && column && strcmp (t->columns[i], column) == 0)
          break;
      if (i == t->n_columns || t->n_overlay >= t->n_columns)
        {
          *err = sqlite3_mprintf ("%s has a column %s that %s has not", name, column, t->table);
          rc = SQLITE_ERROR;
          break;
        }
      t->overlay_of[i] = t->n_overlay;
      t->overlaid[t->n_overlay++] = i;
    }
  (sqlite3_finalize) (stmt);
  if (rc == SQLITE_DONE && (t->n_overlay == 0 || !t->has_rowid))
    {
      *err = sqlite3_mprintf ("%s changes nothing of %s", name, t->table);
      return SQLITE_ERROR;
    }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* A column of the table that names a message or a file (a catalog's
 * own declaration of deja's schema says which), but for those whose
 * values may be changed here: its rows a value are estimated from its
 * range (read_extents(); a file's messages are thousands, a message's
 * references a few, and a plan that took a file for a few rows would read
 * file after file and sort every message back into archive order).  One
 * that names a message is a candidate for routing.  Not one that names a
 * file: routed, a file's messages looked cheap enough to SQLite to read
 * every file's to find a message's copies (deja show: 0.10 -> 0.6 s on
 * 64 shards); nor one changed here (a reply's parent): with it, so did
 * they. */
typedef struct {
  guint column;
  gboolean message;   /* else a file: not routed */
} Key;

static int
read_keys (ShardsTable *t, GArray *keys)
{
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (t->db, "SELECT \"from\", \"table\" = 'messages'"
                                 " FROM pragma_foreign_key_list(?1, 'main')"
                                 " WHERE \"table\" IN ('messages', 'files') AND coalesce(\"to\", 'id') = 'id'",
                                 -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_text) (stmt, 1, t->table, -1, SQLITE_TRANSIENT);
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      const char *from = (const char *) sqlite3_column_text (stmt, 0);

      rc = SQLITE_OK;
      for (guint i = 0; from && i < t->n_columns; i++)
        if (t->columns[i] && strcmp (t->columns[i], from) == 0 && (int) i != t->id_column &&
            !(t->overlay_of && t->overlay_of[i] >= 0))
          {
            Key key = { i, sqlite3_column_int (stmt, 1) };

            g_array_append_val (keys, key);
          }
    }
  (sqlite3_finalize) (stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Whether a shard's least and largest values of a column, @lo and @hi,
 * are both of shard @number, or there are none: then every value between
 * is (text or a blob would be the largest). */
static gboolean
of_shard (sqlite3_value *lo, sqlite3_value *hi, gint64 number)
{
  if (sqlite3_value_type (lo) == SQLITE_NULL && sqlite3_value_type (hi) == SQLITE_NULL)
    return TRUE;
  return sqlite3_value_type (lo) == SQLITE_INTEGER && sqlite3_value_type (hi) == SQLITE_INTEGER
         && SHARD_OF (sqlite3_value_int64 (lo)) == number && SHARD_OF (sqlite3_value_int64 (hi)) == number;
}

/* The statement that reads what a catalog kept of a shard's answer to
 * read_extents() for the table (kept_extents()), prepared once a table:
 * NULL where the connection has none (a set that is not a catalog's, a
 * catalog made by an older deja). */
static sqlite3_stmt *
kept_statement (ShardsTable *t)
{
  sqlite3_stmt *stmt;
  gboolean found;

  if ((sqlite3_prepare_v2) (t->db, "SELECT 1 FROM sqlite_schema WHERE name = 'deja_catalog_extents'"
                            " AND type = 'table'", -1, &stmt, NULL) != SQLITE_OK)
    return NULL;
  found = (sqlite3_step) (stmt) == SQLITE_ROW;
  (sqlite3_finalize) (stmt);
  if (!found || (sqlite3_prepare_v2) (t->db, "SELECT position, value FROM main.deja_catalog_extents"
                                      " WHERE table_name = ?1 AND shard = ?2 ORDER BY position",
                                      -1, &stmt, NULL) != SQLITE_OK)
    return NULL;
  (sqlite3_bind_text) (stmt, 1, t->table, -1, SQLITE_TRANSIENT);
  return stmt;
}

/* What the catalog kept of shard @number's answer, into @values (@width
 * of them), read with @kept (kept_statement()): FALSE where it kept none. */
static gboolean
kept_extents (sqlite3_stmt *kept, gint64 number, guint width, sqlite3_value **values)
{
  guint found = 0;

  if (kept == NULL)
    return FALSE;
  (sqlite3_bind_int64) (kept, 2, number);
  while ((sqlite3_step) (kept) == SQLITE_ROW && found < width &&
         sqlite3_column_int64 (kept, 0) == (sqlite3_int64) found)
    values[found++] = sqlite3_value_dup (sqlite3_column_value (kept, 1));
  (sqlite3_reset) (kept);
  if (found == width)
    return TRUE;
  values_clear (values, width);
  return FALSE;
}

/* Keeps what shard @number answered for the set's catalog to write
 * (_store_shards_keep_extents()). */
static void
keep_extents (ShardsTable *t, gint64 number, guint width, sqlite3_value **values)
{
  Extents *e = g_new0 (Extents, 1);

  e->table = g_strdup (t->table);
  e->number = number;
  e->width = width;
  e->values = g_new0 (sqlite3_value *, width + 1);
  for (guint k = 0; k < width; k++)
    e->values[k] = sqlite3_value_dup (values[k]);
  if (t->set->read == NULL)
    t->set->read = g_ptr_array_new_with_free_func (extents_free);
  g_ptr_array_add (t->set->read, e);
}

/**
 * _store_shards_keep_extents:
 * @db: a catalog's connection, in a transaction, whose tables read @set
 *
 * Writes into @db's deja_catalog_extents what its tables read of each
 * shard when they were opened, so that opening the catalog again reads
 * no shard before a query needs it (1,000 shards are 1,000 files).
 */
int
_store_shards_keep_extents (StoreShards *set, sqlite3 *db)
{
  sqlite3_stmt *stmt;
  int rc = (sqlite3_prepare_v2) (db, "INSERT OR REPLACE INTO main.deja_catalog_extents"
                                 " (table_name, shard, position, value) VALUES (?1, ?2, ?3, ?4)", -1, &stmt, NULL);

  for (guint i = 0; rc == SQLITE_OK && set->read && i < set->read->len; i++)
    {
      Extents *e = g_ptr_array_index (set->read, i);

      for (guint k = 0; rc == SQLITE_OK && k < e->width; k++)
        {
          (sqlite3_bind_text) (stmt, 1, e->table, -1, SQLITE_STATIC);
          (sqlite3_bind_int64) (stmt, 2, e->number);
          (sqlite3_bind_int) (stmt, 3, (int) k);
          (sqlite3_bind_value) (stmt, 4, e->values[k]);
          rc = (sqlite3_step) (stmt) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode (db);
          (sqlite3_reset) (stmt);
        }
    }
  (sqlite3_finalize) (stmt);
  return rc;
}

/* Shard @shard's answer to read_extents()'s @sql on @db, into @values
 * (@width of them): NULL, or what went wrong */
static char *
ask_shard_extents (sqlite3 *db, const Shard *shard, const char *sql, guint width, sqlite3_value **values)
{
  sqlite3_stmt *stmt = NULL;
  char *why = NULL;

  if ((sqlite3_prepare_v2) (db, sql, -1, &stmt, NULL) != SQLITE_OK || (sqlite3_step) (stmt) != SQLITE_ROW)
    why = g_strdup_printf ("shard '%s': %s", shard->path, sqlite3_errmsg (db));
  else
    for (guint k = 0; k < width; k++)
      values[k] = sqlite3_value_dup (sqlite3_column_value (stmt, (int) k));
  (sqlite3_finalize) (stmt);
  return why;
}

/* read_extents()'s question to every shard at once, a worker a CPU:
 * each shard's answer in answers[i] */
typedef struct {
  StoreShards *set;
  const char *sql;
  guint width;
  sqlite3_value ***answers;
} ExtentsAsked;

static char *
ask_extents (sqlite3 *db, guint i, gpointer data)
{
  ExtentsAsked *a = data;

  a->answers[i] = g_new0 (sqlite3_value *, a->width + 1);
  return ask_shard_extents (db, g_ptr_array_index (a->set->shards, i), a->sql, a->width, a->answers[i]);
}

static void
answers_free (sqlite3_value ***answers, guint n, guint width)
{
  for (guint i = 0; answers && i < n; i++)
    if (answers[i])
      {
        values_clear (answers[i], width);
        g_free (answers[i]);
      }
  g_free (answers);
}

/* What each shard's table spans, in one statement a shard whose every
 * part is read at one end of an index:
 * - whether its ids are the set's (each shard's from N x 2^32 on): else
 *   each shard's are its own, 1, 2, 3, and they are given here after the
 *   largest of the shards before it, as deja merge gives them;
 * - of each column that names a message (read_keys()), whether
 *   each shard's values are all of that shard (they are in any deja
 *   database: a reference, a link or an attachment is stored with its
 *   message), so that an equality on it is asked of one shard;
 * - the planner's estimate of the rows (table_rows()). */
static int
read_extents (ShardsTable *t, char **err)
{
  guint n = t->set->shards->len;
  g_autofree gint64 *largest = g_new0 (gint64, n);
  g_autofree char *q = quoted (t->table);
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (Key));
  g_autoptr (GString) sql = g_string_new ("SELECT ");
  g_autofree gboolean *routes = NULL;
  g_autofree double *spans = NULL;     /* of each key: its values' ranges, summed */
  g_autofree sqlite3_value **values = NULL;   /* a shard's answer */
  sqlite3_value ***answers = NULL;              /* every shard's, asked at once */
  guint width;
  sqlite3_stmt *kept;
  gboolean own = FALSE;
  gint64 rows = 0;
  int rc;

  /* An FTS5 table's rows are those of its content (and it finds its
   * least and largest rowid by reading every one) */
  if (t->fts)
    return SQLITE_OK;
  if ((rc = read_keys (t, keys)) != SQLITE_OK)
    {
      *err = sqlite3_mprintf ("cannot read the keys of %s: %s", t->table, sqlite3_errstr (rc));
      return rc;
    }
  if (!t->has_rowid && keys->len == 0)
    return SQLITE_OK;
  /* (one min() or max() a SELECT: two would read every row) */
  if (t->has_rowid)
    g_string_append_printf (sql, "(SELECT min(rowid) FROM main.%s), (SELECT max(rowid) FROM main.%s)", q, q);
  else
    g_string_append (sql, "NULL, NULL");
  for (guint k = 0; k < keys->len; k++)
    {
      g_autofree char *c = quoted (t->columns[g_array_index (keys, Key, k).column]);

      /* (IS NOT NULL: an index of the column's values alone, such as
       * messages_duplicate_of, answers then) */
      g_string_append_printf (sql, ", (SELECT min(%s) FROM main.%s WHERE %s IS NOT NULL),"
                              " (SELECT max(%s) FROM main.%s WHERE %s IS NOT NULL)", c, q, c, c, q, c);
    }
  routes = g_new (gboolean, keys->len + 1);
  spans = g_new0 (double, keys->len + 1);
  for (guint k = 0; k < keys->len; k++)
    routes[k] = g_array_index (keys, Key, k).message;
  kept = kept_statement (t);
  width = 2 + 2 * keys->len;
  values = g_new0 (sqlite3_value *, width + 1);
  /* A catalog being made asks every shard, each opened and asked in a
   * worker a CPU (one after the other on this thread, a table at a time,
   * twisted-python's 64 months took 60 ms against 13 ms for 8 shards) */
  if (n > 0 && !kept_extents (kept, ((Shard *) g_ptr_array_index (t->set->shards, 0))->number, width, values))
    {
      ExtentsAsked asked = { t->set, sql->str, width, g_new0 (sqlite3_value **, n) };
      Each e = { .set = t->set, .func = ask_extents, .data = &asked, .named = TRUE };
      guint failed;
      char *why = NULL;

      answers = asked.answers;
      if (run_each (&e, MAX (1, MIN (cpus_available (), n)), &failed, &why) != SQLITE_OK)
        {
          *err = sqlite3_mprintf ("%s", why);
          g_free (why);
          (sqlite3_finalize) (kept);
          answers_free (answers, n, width);
          return SQLITE_ERROR;
        }
    }
  values_clear (values, width);
  for (guint i = 0; i < n; i++)
    {
      Shard *shard = g_ptr_array_index (t->set->shards, i);

      if (answers && answers[i])
        {
          memcpy (values, answers[i], width * sizeof *values);
          g_clear_pointer (&answers[i], g_free);
          keep_extents (t, shard->number, width, values);
        }
      else if (!kept_extents (kept, shard->number, width, values))
        {
          sqlite3 *db = shard_db (t->set, i);
          char *why = db ? ask_shard_extents (db, shard, sql->str, width, values) : g_strdup (t->set->error);

          if (why)
            {
              *err = sqlite3_mprintf ("%s", why);
              g_free (why);
              (sqlite3_finalize) (kept);
              answers_free (answers, n, width);
              return SQLITE_ERROR;
            }
          keep_extents (t, shard->number, width, values);
        }
      if (sqlite3_value_type (values[0]) != SQLITE_NULL)
        {
          own |= SHARD_OF (sqlite3_value_int64 (values[0])) != shard->number
                 || SHARD_OF (sqlite3_value_int64 (values[1])) != shard->number;
          largest[i] = sqlite3_value_int64 (values[1]);
          rows += sqlite3_value_int64 (values[1]) - sqlite3_value_int64 (values[0]) + 1;
        }
      /* a table without rowid: about a row a message it names */
      else if (!t->has_rowid && sqlite3_value_type (values[2]) == SQLITE_INTEGER
               && sqlite3_value_type (values[3]) == SQLITE_INTEGER)
        rows += sqlite3_value_int64 (values[3]) - sqlite3_value_int64 (values[2]) + 1;
      for (guint k = 0; k < keys->len; k++)
        {
          sqlite3_value *lo = values[2 + 2 * k], *hi = values[3 + 2 * k];

          routes[k] &= of_shard (lo, hi, shard->number);
          if (sqlite3_value_type (lo) == SQLITE_INTEGER)
            spans[k] += (double) (sqlite3_value_int64 (hi) - sqlite3_value_int64 (lo) + 1);
        }
      values_clear (values, width);
    }
  (sqlite3_finalize) (kept);
  answers_free (answers, n, width);
  t->rows = rows;
  /* (a message's references: a few rows a value; the messages of a
   * file: thousands) */
  t->key_rows = g_new0 (double, t->n_columns);
  t->routes = g_new0 (gboolean, t->n_columns);
  for (guint k = 0; k < keys->len; k++)
    {
      guint column = g_array_index (keys, Key, k).column;

      t->key_rows[column] = MAX (1.0, (double) rows / MAX (spans[k], 1.0));
      t->routes[column] = routes[k];
    }
  if (!own || !t->has_rowid)
    return SQLITE_OK;
  t->offsets = g_new0 (gint64, n);
  for (guint i = 1; i < n; i++)
    t->offsets[i] = t->offsets[i - 1] + MAX (largest[i - 1], 0);
  return SQLITE_OK;
}

static void
values_free (gpointer data)
{
  sqlite3_value **v = data;

  for (guint i = 0; v[i]; i++)
    sqlite3_value_free (v[i]);
  g_free (v);
}

/* The values changed here, read into memory when first wanted. */
static int
load_overlay (ShardsTable *t)
{
  g_autoptr (GString) sql = NULL;
  g_autofree char *q = NULL;
  sqlite3_stmt *stmt;
  int rc;

  if (t->changed || t->overlay == NULL)
    return SQLITE_OK;
  sql = g_string_new ("SELECT rowid");
  q = quoted (t->overlay);
  for (guint k = 0; k < t->n_overlay; k++)
    {
      g_autofree char *c = quoted (t->columns[t->overlaid[k]]);

      g_string_append_printf (sql, ", %s", c);
    }
  g_string_append_printf (sql, " FROM main.%s", q);
  t->changed = deja_id_table_new (g_free, values_free);
  rc = (sqlite3_prepare_v2) (t->db, sql->str, -1, &stmt, NULL);
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      sqlite3_value **v = g_new0 (sqlite3_value *, t->n_overlay + 1);

      for (guint k = 0; k < t->n_overlay; k++)
        v[k] = sqlite3_value_dup (sqlite3_column_value (stmt, k + 1));
      g_hash_table_insert (t->changed, g_memdup2 (&(gint64) { sqlite3_column_int64 (stmt, 0) }, sizeof (gint64)), v);
      rc = SQLITE_OK;
    }
  (sqlite3_finalize) (stmt);
  if (rc != SQLITE_DONE)
    {
      g_clear_pointer (&t->changed, g_hash_table_unref);
      return rc;
    }
  return SQLITE_OK;
}

static int
shards_connect (sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **vtab,
                char **err)
{
  StoreShards *set = aux;
  g_autoptr (GString) declare = g_string_new (NULL);
  ShardsTable *t;
  sqlite3 *first;
  int rc;

  if (argc < 4 || argc > 5)
    {
      *err = sqlite3_mprintf ("deja_shards takes the name of a table, and of the table of its values"
                              " changed here");
      return SQLITE_ERROR;
    }
  if (set->shards->len == 0 || (first = shard_db (set, 0)) == NULL)
    {
      *err = sqlite3_mprintf ("%s", set->error ? set->error : "a catalog of no shards");
      return SQLITE_ERROR;
    }
  t = sqlite3_malloc (sizeof *t);
  if (t == NULL)
    return SQLITE_NOMEM;
  memset (t, 0, sizeof *t);
  t->set = set;
  t->table = g_strdup (argv[3]);
  t->rows = -1;   /* counted when first wanted (read_extents() estimates most) */
  t->db = db;
  rc = SQLITE_OK;
  if (!plain_name (t->table) || (argc == 5 && !plain_name (argv[4])))
    {
      *err = sqlite3_mprintf ("deja_shards reads tables of plain names");
      rc = SQLITE_ERROR;
    }
  /* The columns are those of this connection's own table of that name
   * (a catalog's, of deja's schema), not a shard's declaration */
  if (rc == SQLITE_OK)
    rc = read_columns (t, db, declare, err);
  if (rc == SQLITE_OK && argc == 5)
    rc = read_overlay (t, argv[4], err);
  if (rc == SQLITE_OK && t->overlay)
    rc = read_index_leads (t, first, err);
  if (rc == SQLITE_OK)
    rc = read_extents (t, err);
  if (rc == SQLITE_OK)
    rc = sqlite3_declare_vtab (db, declare->str);
  if (rc != SQLITE_OK)
    {
      table_free (t);
      return rc;
    }
  sqlite3_vtab_config (db, SQLITE_VTAB_INNOCUOUS);
  t->idle = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  t->replaced = g_ptr_array_new_with_free_func (values_free);
  if (t->overlay)
    {
      if (set->tables == NULL)
        set->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (set->tables, g_strdup (t->table), t);
    }
  *vtab = &t->base;
  return SQLITE_OK;
}

static int
shards_disconnect (sqlite3_vtab *vtab)
{
  table_free ((ShardsTable *) vtab);
  return SQLITE_OK;
}

/* The rows of every shard's table, counted once (an estimate for the
 * planner: the largest rowid less the least, for a table with one). */
static gint64
table_rows (ShardsTable *t)
{
  g_autofree char *q = NULL;
  g_autofree char *sql = NULL;

  if (t->rows >= 0)
    return t->rows;
  t->rows = 0;
  /* An FTS5 table reads every row to count them, or to find its least
   * and largest rowid: those of its sizes' table are read instead */
  if (t->fts)
    {
      g_autofree char *sizes = g_strconcat (t->table, "_docsize", NULL);

      q = quoted (sizes);
    }
  else
    q = quoted (t->table);
  sql = t->has_rowid || t->fts
        ? g_strdup_printf ("SELECT coalesce((SELECT max(rowid) FROM main.%s) - (SELECT min(rowid) FROM main.%s)"
                           " + 1, 0)", q, q)
        : g_strdup_printf ("SELECT count(*) FROM main.%s", q);
  for (guint i = 0; i < t->set->shards->len; i++)
    {
      sqlite3 *db = shard_db (t->set, i);
      sqlite3_stmt *stmt;

      if (db && (sqlite3_prepare_v2) (db, sql, -1, &stmt, NULL) == SQLITE_OK)
        {
          if ((sqlite3_step) (stmt) == SQLITE_ROW)
            t->rows += sqlite3_column_int64 (stmt, 0);
          (sqlite3_finalize) (stmt);
        }
      /* (an index without sizes: costed by its MATCH alone) */
      else if (t->fts)
        return t->rows = 1000000;
    }
  return t->rows;
}

static const char *
operator_sql (unsigned char op)
{
  switch (op)
    {
    case SQLITE_INDEX_CONSTRAINT_EQ: return "=";
    case SQLITE_INDEX_CONSTRAINT_GT: return ">";
    case SQLITE_INDEX_CONSTRAINT_LE: return "<=";
    case SQLITE_INDEX_CONSTRAINT_LT: return "<";
    case SQLITE_INDEX_CONSTRAINT_GE: return ">=";
    case SQLITE_INDEX_CONSTRAINT_NE: return "<>";
    case SQLITE_INDEX_CONSTRAINT_IS: return "IS";
    case SQLITE_INDEX_CONSTRAINT_ISNOT: return "IS NOT";
    case SQLITE_INDEX_CONSTRAINT_ISNULL: return "IS NULL";
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return "IS NOT NULL";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "LIKE";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "GLOB";
    case SQLITE_INDEX_CONSTRAINT_MATCH: return "MATCH";
    default: return NULL;
    }
}

/* The statement each shard runs for a plan goes in idxStr, a line each:
 * the table's columns it gives (their numbers, "-" for none); flags
 * ("M<k>": argument k is an FTS5 query, "R": ranked with the set's
 * counts, bound after the others, "O": the overlay's rows read after,
 * followed by ";slot,op,arg" for each comparison that can tell without
 * the shard that a changed row is not wanted (OverlayCheck), "Z<hex>":
 * the arguments (bit k - 1 for argument k) that give no row when NULL,
 * "-": none); the SQL; and with "O", the SQL that reads one row by id.
 * idxNum's low 16 bits are the number of the argument whose value is the
 * id of the one row wanted (0: none), which only its shard is asked for;
 * the bits above, of an argument equal to a column that names a message
 * of one shard (ShardsTable.routes), which only it is asked. */
#define PLAN_BY_ID(idx) ((idx) & 0xffff)
#define PLAN_ROUTE(idx) ((idx) >> 16)
static int
shards_best_index (sqlite3_vtab *vtab, sqlite3_index_info *info)
{
  ShardsTable *t = (ShardsTable *) vtab;
  g_autoptr (GString) select = g_string_new ("SELECT ");
  g_autoptr (GString) where = g_string_new (NULL);
  g_autoptr (GString) used = g_string_new (NULL);
  g_autofree char *table = quoted (t->table);
  g_autoptr (GString) flags = g_string_new (NULL);
  g_autofree char *columns = NULL;
  int n_args = 0, by_id = 0, route = 0, match_arg = 0;
  gboolean match = FALSE, id_equal = FALSE, ranked = FALSE, by_overlay = FALSE;
  g_autoptr (GString) checks = g_string_new (NULL);
  guint64 null_is_none = 0;
  int overlay_check;
  double rows = (double) table_rows (t) + 1;
  gboolean overlay_here = FALSE;

  /* The columns the query reads: the others are NULL.  An UPDATE says it
   * uses every column (SQLite marks them all, past the table's too) and
   * then reads those it does not change as "unchanged" (shards_column()):
   * a row's columns are then read one by one where it reads them, never
   * its body to change its thread. */
  gboolean lazy = t->has_rowid && !t->fts && t->n_columns < 64 && info->colUsed == ~(sqlite3_uint64) 0;

  g_string_append (select, t->has_rowid ? "rowid" : "NULL");
  for (guint i = 0; i < t->n_columns && !lazy; i++)
    {
      gboolean wanted = i >= 63 ? (info->colUsed >> 63) & 1 : (info->colUsed >> i) & 1;

      if (!wanted || t->columns[i] == NULL)
        continue;
      g_string_append_printf (used, "%s%u", used->len ? "," : "", i);
      /* An FTS5 table's rank: the set's (below), where it has a query */
      if (t->fts && strcmp (t->columns[i], "rank") == 0)
        {
          g_string_append (select, ", \x01");
          ranked = TRUE;
          continue;
        }
      {
        g_autofree char *q = quoted (t->columns[i]);

        g_string_append_printf (select, ", %s", q);
      }
    }
  /* Where the query asks a column an index of the shards begins with to
   * equal a value, and the columns changed here only to differ from one
   * or to be NULL or not (which find no row quickly, in a shard or
   * among the changed: every changed row would be read again by id after
   * the shards'), the columns changed here are compared here alone
   * (SQLite does, none is omitted): each shard gives every row of that
   * value, those changed with their values here.  A catalog's authors
   * move the messages of each shared address so (from_addr = ? AND
   * author_id IS NOT ?), which read every changed row again each time.
   * An equality or a range on a changed column is still asked of the
   * shards (their index of it; the changed rows of that value by theirs). */
  for (int c = 0; c < info->nConstraint && t->leads_index; c++)
    {
      const struct sqlite3_index_constraint *k = &info->aConstraint[c];

      if (k->usable && (k->op == SQLITE_INDEX_CONSTRAINT_EQ || k->op == SQLITE_INDEX_CONSTRAINT_IS) &&
          k->iColumn >= 0 && (guint) k->iColumn < t->n_columns && k->iColumn != t->id_column &&
          t->overlay_of[k->iColumn] < 0 && t->leads_index[k->iColumn])
        overlay_here = TRUE;
    }
  for (int c = 0; c < info->nConstraint && overlay_here; c++)
    {
      const struct sqlite3_index_constraint *k = &info->aConstraint[c];

      if (k->usable && k->iColumn >= 0 && (guint) k->iColumn < t->n_columns && t->overlay_of[k->iColumn] >= 0 &&
          k->op != SQLITE_INDEX_CONSTRAINT_NE && k->op != SQLITE_INDEX_CONSTRAINT_ISNOT &&
          k->op != SQLITE_INDEX_CONSTRAINT_ISNULL && k->op != SQLITE_INDEX_CONSTRAINT_ISNOTNULL)
        overlay_here = FALSE;
    }
  for (int c = 0; c < info->nConstraint; c++)
    {
      const struct sqlite3_index_constraint *k = &info->aConstraint[c];
      const char *op = operator_sql (k->op);
      g_autofree char *lhs = NULL;

      if (!k->usable || op == NULL)
        continue;
      /* A value changed here is compared here too: the rows changed are
       * read after the shards' (by_overlay); an id given here is
       * compared here only */
      if (overlay_here && k->iColumn >= 0 && t->overlay_of[k->iColumn] >= 0)
        continue;
      if (k->iColumn >= 0 && t->overlay_of && t->overlay_of[k->iColumn] >= 0)
        {
          by_overlay = TRUE;
          overlay_check = t->overlay_of[k->iColumn];
        }
      else
        overlay_check = -1;
      if (t->offsets && (k->iColumn == -1 || k->iColumn == t->id_column))
        continue;
      if ((k->iColumn == -1 && t->has_rowid) || k->iColumn == t->id_column)
        lhs = g_strdup ("rowid");
      else if (k->iColumn >= 0 && (guint) k->iColumn < t->n_columns && t->columns[k->iColumn])
        lhs = quoted (t->columns[k->iColumn]);
      else if (t->fts && k->op == SQLITE_INDEX_CONSTRAINT_MATCH && k->iColumn >= 0
               && t->columns[k->iColumn] == NULL)
        lhs = g_strdup (table);
      else
        continue;
      if (k->op == SQLITE_INDEX_CONSTRAINT_MATCH && !t->fts)
        continue;
      g_string_append (where, where->len ? " AND " : " WHERE ");
      if (k->op == SQLITE_INDEX_CONSTRAINT_ISNULL || k->op == SQLITE_INDEX_CONSTRAINT_ISNOTNULL)
        {
          g_string_append_printf (where, "%s %s", lhs, op);
          if (overlay_check >= 0)
            g_string_append_printf (checks, ";%d,%d,0", overlay_check, k->op);
          /* exact in the shard, but for a value changed here */
          info->aConstraintUsage[c].omit = !(k->iColumn >= 0 && t->overlay_of && t->overlay_of[k->iColumn] >= 0);
          rows /= 2;
          continue;
        }
      n_args++;
      g_string_append_printf (where, "%s %s ?%d", lhs, op, n_args);
      info->aConstraintUsage[c].argvIndex = n_args;
      /* (NULL compared so is no row: IS and IS NOT alone take it) */
      if (k->op != SQLITE_INDEX_CONSTRAINT_IS && k->op != SQLITE_INDEX_CONSTRAINT_ISNOT && n_args <= 64)
        null_is_none |= G_GUINT64_CONSTANT (1) << (n_args - 1);
      if (overlay_check >= 0 && k->op == SQLITE_INDEX_CONSTRAINT_EQ)
        g_string_append_printf (checks, ";%d,%d,%d", overlay_check, k->op, n_args);
      /* The shard compares as SQLite would here, but for MATCH, which
       * only the shard can */
      info->aConstraintUsage[c].omit = k->op == SQLITE_INDEX_CONSTRAINT_MATCH;
      if (k->op == SQLITE_INDEX_CONSTRAINT_MATCH)
        {
          match = TRUE;
          if (match_arg == 0)
            match_arg = n_args;
          rows /= 100;
        }
      else if (strcmp (lhs, "rowid") == 0 && k->op == SQLITE_INDEX_CONSTRAINT_EQ)
        {
          id_equal = TRUE;
          if (by_id == 0)
            by_id = n_args;
        }
      else if (k->op == SQLITE_INDEX_CONSTRAINT_EQ && k->iColumn >= 0 && t->key_rows
               && t->key_rows[k->iColumn] > 0)
        {
          if (route == 0 && t->routes[k->iColumn])
            route = n_args;
          rows = MIN (rows, t->key_rows[k->iColumn]);
        }
      else if (k->op == SQLITE_INDEX_CONSTRAINT_EQ || k->op == SQLITE_INDEX_CONSTRAINT_IS)
        rows /= 50;
      else
        rows /= 3;
    }
  if (ranked)
    {
      g_autofree char *rank = match_arg ? g_strdup_printf ("deja_bm25(%s, ?%d)", table, n_args + 1)
                                        : g_strdup ("rank");
      gssize at = strchr (select->str, '\x01') - select->str;

      g_string_erase (select, at, 1);
      g_string_insert (select, at, rank);
    }
  columns = g_strdup (select->str);
  g_string_append_printf (select, " FROM main.%s%s", table, where->str);
  /* What filtering needs to know: the query's argument, and whether the
   * set's counts go after the others */
  if (match_arg)
    g_string_append_printf (flags, "M%d%s", match_arg, ranked ? "R" : "");
  if (null_is_none)
    g_string_append_printf (flags, "Z%" G_GINT64_MODIFIER "x", null_is_none);
  if (lazy)
    g_string_append_c (flags, 'L');
  if (by_overlay)
    g_string_append_printf (flags, "O%s", checks->str);
  if (flags->len == 0)
    g_string_append_c (flags, '-');
  /* Shard after shard is id order: an ORDER BY on the id alone is kept */
  if (!match && !by_overlay && t->has_rowid && info->nOrderBy == 1 && !info->aOrderBy[0].desc
      && (info->aOrderBy[0].iColumn == -1 || info->aOrderBy[0].iColumn == t->id_column))
    {
      g_string_append (select, " ORDER BY rowid");
      info->orderByConsumed = 1;
    }
  if (id_equal)
    {
      info->estimatedRows = 1;
      /* (a row of a full-text query is found by reading the query's
       * terms in its shard) */
      info->estimatedCost = match ? 100 : 10;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    }
  else
    {
      double shards = route ? 1 : t->set->shards->len;

      info->estimatedRows = (sqlite3_int64) (rows < 1 ? 1 : rows);
      info->estimatedCost = 10 * shards + (rows < 1 ? 1 : rows);
    }
  info->idxNum = by_id | route << 16;
  /* and, where the overlay's rows are read after, how one is */
  if (by_overlay)
    g_string_append_printf (select, "\n%s FROM main.%s WHERE rowid = ?1", columns, table);
  info->idxStr = sqlite3_mprintf ("%s\n%s\n%s", used->len ? used->str : "-", flags->str, select->str);
  info->needToFreeIdxStr = 1;
  return info->idxStr ? SQLITE_OK : SQLITE_NOMEM;
}

static void
stmt_free (gpointer stmt)
{
  (sqlite3_finalize) (stmt);
}

static void
shard_idle_free (gpointer statements)
{
  if (statements)
    g_ptr_array_unref (statements);
}

/* The statements of @sql prepared and not in use, of each shard (a
 * GPtrArray each, or NULL) */
static GPtrArray *
idle_of (ShardsTable *t, const char *sql)
{
  GPtrArray *idle = g_hash_table_lookup (t->idle, sql);

  if (idle == NULL)
    {
      idle = g_ptr_array_new_full (t->set->shards->len, shard_idle_free);
      g_ptr_array_set_size (idle, t->set->shards->len);
      g_hash_table_insert (t->idle, g_strdup (sql), idle);
    }
  return idle;
}

/* A statement of @sql on shard @i: one prepared before and not in use,
 * or a new one (a lookup by id in a join runs the same one many times). */
static int
stmt_take (ShardsTable *t, guint i, sqlite3 *db, const char *sql, sqlite3_stmt **stmt)
{
  GPtrArray *idle = g_hash_table_lookup (t->idle, sql);
  GPtrArray *shard = idle && i < idle->len ? g_ptr_array_index (idle, i) : NULL;

  if (shard && shard->len)
    {
      *stmt = g_ptr_array_steal_index_fast (shard, shard->len - 1);
      return SQLITE_OK;
    }
  return (sqlite3_prepare_v3) (db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL);
}

static void
stmt_give (ShardsTable *t, guint i, sqlite3_stmt *stmt)
{
  GPtrArray *idle = idle_of (t, sqlite3_sql (stmt));

  (sqlite3_reset) (stmt);
  sqlite3_clear_bindings (stmt);
  if (g_ptr_array_index (idle, i) == NULL)
    g_ptr_array_index (idle, i) = g_ptr_array_new_with_free_func (stmt_free);
  g_ptr_array_add (g_ptr_array_index (idle, i), stmt);
}

static int
shards_open (sqlite3_vtab *vtab, sqlite3_vtab_cursor **cursor)
{
  ShardsCursor *c = sqlite3_malloc (sizeof *c);

  if (c == NULL)
    return SQLITE_NOMEM;
  memset (c, 0, sizeof *c);
  c->table = (ShardsTable *) vtab;
  c->to_stmt = g_new (int, c->table->n_columns);
  *cursor = &c->base;
  return SQLITE_OK;
}

/* Forgets the plan's arguments; its statements stay with the cursor. */
static void
cursor_reset (ShardsCursor *c)
{
  if (c->stmt)
    (sqlite3_reset) (c->stmt);
  c->stmt = NULL;
  for (int i = 0; i < c->n_args; i++)
    sqlite3_value_free (c->args[i]);
  g_free (c->args);
  c->args = NULL;
  c->n_args = 0;
  g_clear_pointer (&c->match, sqlite3_value_free);
  if (c->by_id_stmt)
    (sqlite3_reset) (c->by_id_stmt);
  c->by_id_stmt = NULL;
  g_clear_pointer (&c->overlay_ids, g_array_unref);
}

/* Gives the statements of the cursor's plan back to its table. */
static void
cursor_forget_plan (ShardsCursor *c)
{
  for (guint i = 0; c->held && i < c->table->set->shards->len; i++)
    if (c->held[i])
      stmt_give (c->table, i, c->held[i]);
  g_free (c->held);
  c->held = NULL;
  for (guint i = 0; c->held_by_id && i < c->table->set->shards->len; i++)
    if (c->held_by_id[i])
      stmt_give (c->table, i, c->held_by_id[i]);
  g_free (c->held_by_id);
  c->held_by_id = NULL;
  g_free (c->sql);
  c->sql = NULL;
  g_free (c->sql_by_id);
  c->sql_by_id = NULL;
}

static int
shards_close (sqlite3_vtab_cursor *cursor)
{
  ShardsCursor *c = (ShardsCursor *) cursor;

  cursor_reset (c);
  cursor_forget_plan (c);
  g_free (c->to_stmt);
  sqlite3_free (c);
  return SQLITE_OK;
}

static int
fail (ShardsCursor *c, const char *what, sqlite3 *db)
{
  sqlite3_free (c->table->base.zErrMsg);
  c->table->base.zErrMsg = sqlite3_mprintf ("%s: %s", what, db ? sqlite3_errmsg (db) : c->table->set->error);
  return SQLITE_ERROR;
}

/* Ids in increasing order */
static gint
by_value (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static guint shard_numbered (StoreShards *set, gint64 number);

/* The overlay's ids in order, made again after a change */
static GArray *
changed_ids (ShardsTable *t)
{
  GHashTableIter iter;
  gpointer key;

  if (t->changed_ids)
    return t->changed_ids;
  t->changed_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_hash_table_iter_init (&iter, t->changed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_array_append_val (t->changed_ids, *(gint64 *) key);
  g_array_sort (t->changed_ids, by_value);
  return t->changed_ids;
}


/* The changed rows whose value of overlay column @slot is the integer
 * @value, in id order (an index of them made when first wanted: a
 * thread's messages are asked for thread after thread); a new
 * reference */
static GArray *
changed_with (ShardsTable *t, guint slot, gint64 value)
{
  GArray *ids;

  if (t->by_value == NULL)
    t->by_value = g_new0 (GHashTable *, t->n_overlay);
  if (t->by_value[slot] == NULL)
    {
      GArray *order = changed_ids (t);

      t->by_value[slot] = deja_id_table_new (g_free,
                                                 (GDestroyNotify) g_array_unref);
      for (guint i = 0; i < order->len; i++)
        {
          gint64 id = g_array_index (order, gint64, i);
          sqlite3_value **over = g_hash_table_lookup (t->changed, &id);
          gint64 v;

          if (sqlite3_value_type (over[slot]) != SQLITE_INTEGER)
            continue;
          v = sqlite3_value_int64 (over[slot]);
          ids = g_hash_table_lookup (t->by_value[slot], &v);
          if (ids == NULL)
            {
              ids = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (t->by_value[slot], g_memdup2 (&v, sizeof v), ids);
            }
          g_array_append_val (ids, id);
        }
    }
  ids = g_hash_table_lookup (t->by_value[slot], &value);
  return ids ? g_array_ref (ids) : g_array_new (FALSE, FALSE, sizeof (gint64));
}

/* The changed rows the cursor's overlay phase reads: those with the
 * value its query asks of an overlay column, where it asks for one
 * integer, else every one; a new reference */
static GArray *
overlay_candidates (ShardsCursor *c)
{
  for (guint i = 0; !c->one_id && i < c->n_checks; i++)
    {
      const OverlayCheck *k = &c->checks[i];

      if (k->op == SQLITE_INDEX_CONSTRAINT_EQ && k->arg > 0 &&
          sqlite3_value_type (c->args[k->arg - 1]) == SQLITE_INTEGER)
        return changed_with (c->table, (guint) k->slot, sqlite3_value_int64 (c->args[k->arg - 1]));
    }
  return g_array_ref (changed_ids (c->table));
}

/* Whether a row whose values changed here are @over may be one the
 * query wants: FALSE only where its comparisons on them fail for sure
 * (IS NULL, IS NOT NULL, = an integer), so that its shard is not asked. */
static gboolean
overlay_may_match (const ShardsCursor *c, sqlite3_value **over)
{
  for (guint i = 0; i < c->n_checks; i++)
    {
      const OverlayCheck *k = &c->checks[i];
      sqlite3_value *v = over[k->slot];
      sqlite3_value *arg = k->arg > 0 ? c->args[k->arg - 1] : NULL;

      switch (k->op)
        {
        case SQLITE_INDEX_CONSTRAINT_ISNULL:
          if (sqlite3_value_type (v) != SQLITE_NULL)
            return FALSE;
          break;
        case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
          if (sqlite3_value_type (v) == SQLITE_NULL)
            return FALSE;
          break;
        case SQLITE_INDEX_CONSTRAINT_EQ:
          if (arg == NULL)
            break;
          if (sqlite3_value_type (v) == SQLITE_NULL || sqlite3_value_type (arg) == SQLITE_NULL)
            return FALSE;
          if (sqlite3_value_type (v) == SQLITE_INTEGER && sqlite3_value_type (arg) == SQLITE_INTEGER &&
              sqlite3_value_int64 (v) != sqlite3_value_int64 (arg))
            return FALSE;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

/* The overlay's rows, one by one from their shards (by_overlay): the
 * one asked for, or every one in the shards read. */
static int
advance_overlay (ShardsCursor *c)
{
  ShardsTable *t = c->table;

  if (c->overlay_ids == NULL)
    {
      c->overlay_ids = overlay_candidates (c);
      c->overlay_pos = 0;
      /* the one asked for: read only if it is changed here */
      if (c->one_id)
        c->overlay_pos = g_hash_table_contains (t->changed, &c->only_id) ? G_MAXUINT : c->overlay_ids->len;
    }
  while (c->overlay_pos < c->overlay_ids->len || c->overlay_pos == G_MAXUINT)
    {
      gint64 id = c->overlay_pos == G_MAXUINT ? c->only_id
                  : g_array_index (c->overlay_ids, gint64, c->overlay_pos);
      guint i = shard_numbered (t->set, SHARD_OF (id));
      sqlite3 *db = i < t->set->shards->len ? shard_db (t->set, i) : NULL;
      int rc;

      c->overlay_pos = c->overlay_pos == G_MAXUINT ? c->overlay_ids->len : c->overlay_pos + 1;
      if (c->by_id_stmt)
        (sqlite3_reset) (c->by_id_stmt);
      c->by_id_stmt = NULL;
      if (db == NULL || i < c->by_overlay_first || i >= c->by_overlay_last)
        continue;
      {
        sqlite3_value **over = g_hash_table_lookup (t->changed, &id);

        if (over && !overlay_may_match (c, over))
          continue;
      }
      c->shard = i;
      if (c->held_by_id[i] == NULL && stmt_take (t, i, db, c->sql_by_id, &c->held_by_id[i]) != SQLITE_OK)
        return fail (c, ((Shard *) g_ptr_array_index (t->set->shards, i))->path, db);
      c->by_id_stmt = c->held_by_id[i];
      (sqlite3_bind_int64) (c->by_id_stmt, 1, id);
      rc = (sqlite3_step) (c->by_id_stmt);
      if (rc == SQLITE_ROW)
        {
          c->stmt = c->by_id_stmt;
          c->row++;
          c->over = g_hash_table_lookup (t->changed, &id);
          return SQLITE_OK;
        }
      if (rc != SQLITE_DONE)
        return fail (c, ((Shard *) g_ptr_array_index (t->set->shards, i))->path, db);
    }
  c->stmt = NULL;
  return SQLITE_OK;
}

/* Moves to the next row, in this shard or the ones after it. */
static int
advance (ShardsCursor *c)
{
  gboolean skip_changed = c->by_overlay;

  if (c->overlay_ids)
    return advance_overlay (c);
  for (;;)
    {
      if (c->stmt)
        {
          int rc = (sqlite3_step) (c->stmt);

          if (rc == SQLITE_ROW)
            {
              c->over = c->table->changed && g_hash_table_size (c->table->changed)
                        ? g_hash_table_lookup (c->table->changed,
                                               &(gint64) { sqlite3_column_int64 (c->stmt, 0) })
                        : NULL;
              if (c->over && skip_changed)
                continue;   /* read with the overlay's rows */
              c->row++;
              return SQLITE_OK;
            }
          (sqlite3_reset) (c->stmt);
          c->stmt = NULL;
          if (rc != SQLITE_DONE)
            {
              Shard *shard = g_ptr_array_index (c->table->set->shards, c->shard);

              return fail (c, shard->path, sqlite3_db_handle (c->held[c->shard]));
            }
        }
      if (c->next >= c->last)
        return skip_changed ? advance_overlay (c) : SQLITE_OK;
      {
        guint i = c->next++;
        Shard *shard = g_ptr_array_index (c->table->set->shards, i);
        sqlite3 *db = shard_db (c->table->set, i);

        if (db == NULL)
          return fail (c, "cannot open", NULL);
        if (c->held[i] == NULL && stmt_take (c->table, i, db, c->sql, &c->held[i]) != SQLITE_OK)
          {
            g_debug ("%s: %s", c->sql, sqlite3_errmsg (db));
            return fail (c, shard->path, db);
          }
        for (int k = 0; k < c->n_args; k++)
          if ((sqlite3_bind_value) (c->held[i], k + 1, c->args[k]) != SQLITE_OK)
            return fail (c, shard->path, db);
        c->shard = i;
        c->stmt = c->held[i];
      }
    }
}

/* The shard whose number is @number, or set->shards->len */
static guint
shard_numbered (StoreShards *set, gint64 number)
{
  guint lo = 0, hi = set->shards->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      Shard *shard = g_ptr_array_index (set->shards, mid);

      if (shard->number == number)
        return mid;
      if (shard->number < number)
        lo = mid + 1;
      else
        hi = mid;
    }
  return set->shards->len;
}

/* The set's counts for FTS5 query @match (see "full-text ranking"
 * above), as a blob for deja_bm25(): NULL with t's error set when a
 * shard cannot give them. */
static sqlite3_value *
set_counts (ShardsTable *t, sqlite3_value *match)
{
  g_autofree char *table = quoted (t->table);
  g_autofree char *vocab = g_strdup_printf ("CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_terms"
                                            " USING fts5vocab (main, %s, row)", table);
  g_autofree char *sql = g_strdup_printf ("SELECT deja_counts(%s) FROM main.%s WHERE %s MATCH ?1 LIMIT 1",
                                          table, table, table);
  g_autoptr (GArray) sum = g_array_new (FALSE, TRUE, sizeof (gint64));
  const char *text = (const char *) sqlite3_value_text (match);
  sqlite3_value *blob = NULL;

  for (guint i = 0; i < t->set->shards->len; i++)
    {
      Shard *shard = g_ptr_array_index (t->set->shards, i);
      sqlite3 *db = shard_db (t->set, i);
      sqlite3_stmt *stmt;
      g_autofree char *query = NULL;
      int rc;

      if (db == NULL)
        return NULL;
      /* A word every shard's index has, in a phrase after the query's:
       * a row of each shard then answers, and gives the counts of the
       * query's phrases, which may all be in no row of it */
      if (shard->term == NULL)
        {
          rc = (sqlite3_exec) (db, vocab, NULL, NULL, NULL);
          if (rc == SQLITE_OK)
            rc = (sqlite3_prepare_v2) (db, "SELECT term FROM temp.deja_terms WHERE term GLOB '[a-z0-9]*'"
                                       " AND term NOT GLOB '*[^a-z0-9]*' LIMIT 1", -1, &stmt, NULL);
          if (rc != SQLITE_OK)
            {
              g_free (t->set->error);
              t->set->error = g_strdup_printf ("shard '%s': %s", shard->path, sqlite3_errmsg (db));
              return NULL;
            }
          shard->term = (sqlite3_step) (stmt) == SQLITE_ROW
                        ? g_strdup ((const char *) sqlite3_column_text (stmt, 0)) : g_strdup ("");
          (sqlite3_finalize) (stmt);
        }
      if (shard->term[0] == '\0')
        continue;   /* an empty index */
      query = g_strdup_printf ("(%s) OR \"%s\"", text ? text : "", shard->term);
      rc = stmt_take (t, i, db, sql, &stmt);
      if (rc == SQLITE_OK)
        rc = (sqlite3_bind_text) (stmt, 1, query, -1, SQLITE_TRANSIENT);
      if (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
        {
          guint n = (guint) (sqlite3_column_bytes (stmt, 0) / sizeof (gint64));
          const guint8 *counts = sqlite3_column_blob (stmt, 0);

          if (sum->len == 0)
            g_array_set_size (sum, n);
          if (n != sum->len)
            rc = SQLITE_MISMATCH;
          for (guint k = 0; rc == SQLITE_ROW && k < n; k++)
            {
              gint64 v;

              memcpy (&v, counts + k * sizeof v, sizeof v);
              g_array_index (sum, gint64, k) += v;
            }
          if (rc == SQLITE_ROW)
            rc = SQLITE_DONE;
        }
      if (rc != SQLITE_DONE)
        {
          g_free (t->set->error);
          t->set->error = g_strdup_printf ("shard '%s': %s", shard->path,
                                           rc == SQLITE_MISMATCH ? "another count of phrases"
                                                                 : sqlite3_errmsg (db));
        }
      if (stmt)
        stmt_give (t, i, stmt);
      if (rc != SQLITE_DONE)
        return NULL;
    }
  /* A blob, through a statement of the connection's own (values are
   * made by SQLite only) */
  {
    sqlite3_stmt *stmt;

    if ((sqlite3_prepare_v2) (t->db, "SELECT ?1", -1, &stmt, NULL) != SQLITE_OK)
      return NULL;
    (sqlite3_bind_blob) (stmt, 1, sum->len ? sum->data : "", (int) (sum->len * sizeof (gint64)),
                         SQLITE_TRANSIENT);
    if ((sqlite3_step) (stmt) == SQLITE_ROW)
      blob = sqlite3_value_dup (sqlite3_column_value (stmt, 0));
    (sqlite3_finalize) (stmt);
  }
  return blob;
}

static int
shards_filter (sqlite3_vtab_cursor *cursor, int idx, const char *plan, int argc, sqlite3_value **argv)
{
  int by_id = PLAN_BY_ID (idx), route = PLAN_ROUTE (idx);
  gboolean nothing = FALSE;
  ShardsCursor *c = (ShardsCursor *) cursor;
  ShardsTable *t = c->table;
  const char *flags = strchr (plan, '\n') + 1;
  const char *sql = strchr (flags, '\n');
  const char *by_id_sql = strchr (sql + 1, '\n');
  g_autofree char *main_sql = by_id_sql ? g_strndup (sql + 1, by_id_sql - sql - 1) : g_strdup (sql + 1);
  g_autofree char *flag_line = g_strndup (flags, sql - flags);
  guint n = t->set->shards->len;
  int match_arg = flag_line[0] == 'M' ? atoi (flag_line + 1) : 0;
  gboolean ranked = match_arg > 0 && strchr (flag_line, 'R') != NULL;

  cursor_reset (c);
  if (load_overlay (t) != SQLITE_OK)
    return fail (c, "cannot read the values changed here", NULL);
  if (c->sql == NULL || strcmp (c->sql, main_sql) != 0)
    {
      cursor_forget_plan (c);
      for (guint i = 0; i < t->n_columns; i++)
        c->to_stmt[i] = -1;
      if (plan[0] != '-')
        {
          g_autofree char *line = g_strndup (plan, flags - 1 - plan);
          g_auto (GStrv) used = g_strsplit (line, ",", -1);

          for (guint k = 0; used[k]; k++)
            {
              guint64 column = g_ascii_strtoull (used[k], NULL, 10);

              if (column < t->n_columns)
                c->to_stmt[column] = k + 1;
            }
        }
      c->sql = g_strdup (main_sql);
      c->sql_by_id = by_id_sql ? g_strdup (by_id_sql + 1) : NULL;
      c->held = g_new0 (sqlite3_stmt *, n ? n : 1);
      c->held_by_id = g_new0 (sqlite3_stmt *, n ? n : 1);
    }
  c->n_args = argc + ranked;
  c->args = g_new0 (sqlite3_value *, c->n_args ? c->n_args : 1);
  for (int i = 0; i < argc; i++)
    if ((c->args[i] = sqlite3_value_dup (argv[i])) == NULL)
      return SQLITE_NOMEM;
  if (match_arg > 0 && match_arg <= argc)
    c->match = sqlite3_value_dup (argv[match_arg - 1]);
  if (ranked)
    {
      const char *text = (const char *) sqlite3_value_text (argv[match_arg - 1]);

      if (t->counts_for == NULL || text == NULL || strcmp (t->counts_for, text) != 0)
        {
          g_clear_pointer (&t->counts_for, g_free);
          g_clear_pointer (&t->counts, sqlite3_value_free);
          if ((t->counts = set_counts (t, argv[match_arg - 1])) == NULL)
            return fail (c, "cannot rank the query's rows over the shards", NULL);
          t->counts_for = g_strdup (text);
        }
      if ((c->args[argc] = sqlite3_value_dup (t->counts)) == NULL)
        return SQLITE_NOMEM;
    }
  /* A join on a column that is NULL in most rows (a cancel's target)
   * asks no shard for them */
  {
    const char *z = strchr (flag_line, 'Z');
    guint64 null_is_none = z ? g_ascii_strtoull (z + 1, NULL, 16) : 0;

    for (int i = 0; i < argc && i < 64; i++)
      if ((null_is_none >> i) & 1 && sqlite3_value_type (argv[i]) == SQLITE_NULL)
        nothing = TRUE;
  }
  c->lazy = strchr (flag_line, 'L') != NULL;
  c->n_checks = 0;
  for (const char *at = strchr (flag_line, 'O'); at && (at = strchr (at, ';')) != NULL; at++)
    {
      OverlayCheck k;

      if (c->n_checks < OVERLAY_CHECKS && sscanf (at, ";%d,%d,%d", &k.slot, &k.op, &k.arg) == 3 &&
          k.slot >= 0 && (guint) k.slot < t->n_overlay && k.arg >= 0 && k.arg <= argc)
        c->checks[c->n_checks++] = k;
    }
  c->next = 0;
  c->last = n;
  c->row = 0;
  c->shard = 0;
  c->one_id = FALSE;
  if (by_id > 0)
    {
      sqlite3_value *id = argv[by_id - 1];

      if (sqlite3_value_numeric_type (id) == SQLITE_INTEGER)
        {
          c->next = shard_numbered (t->set, SHARD_OF (sqlite3_value_int64 (id)));
          c->last = c->next < n ? c->next + 1 : n;
          c->one_id = TRUE;
          c->only_id = sqlite3_value_int64 (id);
        }
      /* id = NULL: no row (a root's parent, in a join) */
      else if (sqlite3_value_type (id) == SQLITE_NULL)
        c->next = c->last = n;
    }
  else if (route > 0)
    {
      sqlite3_value *key = argv[route - 1];

      /* (a value of another kind is asked of every shard, as SQLite
       * would compare it) */
      if (sqlite3_value_numeric_type (key) == SQLITE_INTEGER)
        {
          c->next = shard_numbered (t->set, SHARD_OF (sqlite3_value_int64 (key)));
          c->last = c->next < n ? c->next + 1 : n;
        }
      else if (sqlite3_value_type (key) == SQLITE_NULL)
        c->next = c->last = n;
    }
  if (nothing)
    c->next = c->last = n;
  /* The overlay's rows after the shards', where it has some now */
  c->by_overlay = c->sql_by_id && t->changed && g_hash_table_size (t->changed) > 0 && c->next < c->last;
  c->by_overlay_first = c->next;
  c->by_overlay_last = c->last;
  return advance (c);
}

static int
shards_next (sqlite3_vtab_cursor *cursor)
{
  return advance ((ShardsCursor *) cursor);
}

static int
shards_eof (sqlite3_vtab_cursor *cursor)
{
  return ((ShardsCursor *) cursor)->stmt == NULL;
}

/* What the table adds to the current shard's ids (0: they are the set's) */
static gint64
offset (const ShardsCursor *c)
{
  return c->table->offsets ? c->table->offsets[c->shard] : 0;
}

/* Column @i of the row @c is on, read of its shard by rowid (a lazy
 * cursor's, which left it out) */
static int
read_column (ShardsCursor *c, sqlite3_context *ctx, int i)
{
  ShardsTable *t = c->table;
  sqlite3 *db = shard_db (t->set, c->shard);
  sqlite3_stmt *stmt;
  int rc;

  if (db == NULL)
    return SQLITE_ERROR;
  if (t->column_sql == NULL)
    t->column_sql = g_new0 (char *, t->n_columns);
  if (t->column_sql[i] == NULL)
    {
      g_autofree char *q = quoted (t->columns[i]);
      g_autofree char *table = quoted (t->table);
      GString *sql = g_string_new ("SELECT ");

      g_string_append (sql, q);
      g_string_append_printf (sql, " FROM main.%s WHERE rowid = ?1", table);
      t->column_sql[i] = g_string_free (sql, FALSE);
    }
  rc = stmt_take (t, c->shard, db, t->column_sql[i], &stmt);
  if (rc != SQLITE_OK)
    return rc;
  (sqlite3_bind_int64) (stmt, 1, sqlite3_column_int64 (c->stmt, 0));
  rc = (sqlite3_step) (stmt);
  if (rc == SQLITE_ROW)
    sqlite3_result_value (ctx, sqlite3_column_value (stmt, 0));
  stmt_give (t, c->shard, stmt);
  return rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
}

static int
shards_column (sqlite3_vtab_cursor *cursor, sqlite3_context *ctx, int i)
{
  ShardsCursor *c = (ShardsCursor *) cursor;
  ShardsTable *t = c->table;

  /* An UPDATE does not need what it does not change */
  if (sqlite3_vtab_nochange (ctx))
    return SQLITE_OK;
  if (i == t->id_column && t->has_rowid)
    sqlite3_result_int64 (ctx, sqlite3_column_int64 (c->stmt, 0) + offset (c));
  /* An FTS5 table's column named as it: the row, for snippet() */
  else if (t->fts && i >= 0 && (guint) i < t->n_columns && t->columns[i] == NULL)
    sqlite3_result_pointer (ctx, c, "deja_shards_row", NULL);
  else if (c->over && t->overlay_of[i] >= 0)
    sqlite3_result_value (ctx, c->over[t->overlay_of[i]]);
  else if (i >= 0 && (guint) i < t->n_columns && c->to_stmt[i] > 0)
    sqlite3_result_value (ctx, sqlite3_column_value (c->stmt, c->to_stmt[i]));
  else if (c->lazy && i >= 0 && (guint) i < t->n_columns && t->columns[i])
    return read_column (c, ctx, i);
  return SQLITE_OK;
}

static int
shards_rowid (sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid)
{
  ShardsCursor *c = (ShardsCursor *) cursor;

  *rowid = c->table->has_rowid ? sqlite3_column_int64 (c->stmt, 0) + offset (c) : c->row;
  return SQLITE_OK;
}

static int
refuse (ShardsTable *t, const char *why)
{
  sqlite3_free (t->base.zErrMsg);
  t->base.zErrMsg = sqlite3_mprintf ("%s of the shards %s", t->table, why);
  return SQLITE_READONLY;
}

/* The shard's values of @id's columns in the overlay (new references) */
static int
shard_values (ShardsTable *t, gint64 id, sqlite3_value **values)
{
  guint i = shard_numbered (t->set, SHARD_OF (id));
  sqlite3 *db = i < t->set->shards->len ? shard_db (t->set, i) : NULL;
  sqlite3_stmt *stmt;
  int rc;

  if (db == NULL)
    return SQLITE_NOTFOUND;
  if (t->values_sql == NULL)
    {
      GString *sql = g_string_new ("SELECT ");
      g_autofree char *q = quoted (t->table);

      for (guint k = 0; k < t->n_overlay; k++)
        {
          g_autofree char *c = quoted (t->columns[t->overlaid[k]]);

          g_string_append_printf (sql, "%s%s", k ? ", " : "", c);
        }
      g_string_append_printf (sql, " FROM main.%s WHERE rowid = ?1", q);
      t->values_sql = g_string_free (sql, FALSE);
    }
  rc = stmt_take (t, i, db, t->values_sql, &stmt);
  if (rc != SQLITE_OK)
    return rc;
  (sqlite3_bind_int64) (stmt, 1, id);
  rc = (sqlite3_step) (stmt);
  if (rc == SQLITE_ROW)
    for (guint k = 0; k < t->n_overlay; k++)
      values[k] = sqlite3_value_dup (sqlite3_column_value (stmt, k));
  stmt_give (t, i, stmt);
  return rc == SQLITE_ROW ? SQLITE_OK : SQLITE_NOTFOUND;
}

static gboolean
same_value (sqlite3_value *a, sqlite3_value *b)
{
  int type = sqlite3_value_type (a);

  if (type != sqlite3_value_type (b))
    return FALSE;
  switch (type)
    {
    case SQLITE_NULL: return TRUE;
    case SQLITE_INTEGER: return sqlite3_value_int64 (a) == sqlite3_value_int64 (b);
    case SQLITE_FLOAT: return sqlite3_value_double (a) == sqlite3_value_double (b);
    default:
      return sqlite3_value_bytes (a) == sqlite3_value_bytes (b)
             && memcmp (sqlite3_value_blob (a), sqlite3_value_blob (b), sqlite3_value_bytes (a)) == 0;
    }
}

/* Row @id's overlaid columns set: @given (of t->n_overlay) the new
 * value of each, or NULL where it does not change; @shard the shard's
 * values.  Their values go to the overlay where they differ from the
 * shard's (and a row changed back leaves it). */
static int
overlay_apply (ShardsTable *t, gint64 id, sqlite3_value *const *given, sqlite3_value *const *shard)
{
  sqlite3_value **now = g_new0 (sqlite3_value *, t->n_overlay + 1);
  sqlite3_value **before = g_hash_table_lookup (t->changed, &id);
  gboolean differs = FALSE;
  int rc = SQLITE_OK;

  /* What the row has now, and what changes */
  for (guint k = 0; k < t->n_overlay; k++)
    {
      now[k] = sqlite3_value_dup (given[k] ? given[k] : before ? before[k] : shard[k]);
      if (now[k] == NULL)
        {
          values_free (now);
          return SQLITE_NOMEM;
        }
      differs |= !same_value (now[k], shard[k]);
    }
  /* The overlay's row written, or deleted where the shard's values are
   * the row's again */
  if (t->write[differs] == NULL)
    {
      g_autoptr (GString) sql = g_string_new (NULL);
      g_autofree char *q = quoted (t->overlay);

      if (differs)
        {
          g_string_append_printf (sql, "INSERT OR REPLACE INTO main.%s (rowid", q);
          for (guint k = 0; k < t->n_overlay; k++)
            {
              g_autofree char *c = quoted (t->columns[t->overlaid[k]]);

              g_string_append_printf (sql, ", %s", c);
            }
          g_string_append (sql, ") VALUES (?1");
          for (guint k = 0; k < t->n_overlay; k++)
            g_string_append_printf (sql, ", ?%u", k + 2);
          g_string_append (sql, ")");
        }
      else
        g_string_append_printf (sql, "DELETE FROM main.%s WHERE rowid = ?1", q);
      rc = (sqlite3_prepare_v3) (t->db, sql->str, -1, SQLITE_PREPARE_PERSISTENT, &t->write[differs], NULL);
    }
  if (rc == SQLITE_OK)
    {
      sqlite3_stmt *stmt = t->write[differs];

      (sqlite3_bind_int64) (stmt, 1, id);
      for (guint k = 0; differs && k < t->n_overlay; k++)
        (sqlite3_bind_value) (stmt, k + 2, now[k]);
      rc = _store_done ((sqlite3_step) (stmt));
      (sqlite3_reset) (stmt);
      (sqlite3_clear_bindings) (stmt);
    }
  if (rc != SQLITE_OK)
    {
      values_free (now);
      return rc;
    }
  {
    gpointer key = NULL, old = NULL;

    if (g_hash_table_steal_extended (t->changed, &id, &key, &old))
      {
        g_free (key);
        g_ptr_array_add (t->replaced, old);
      }
  }
  if (differs)
    g_hash_table_insert (t->changed, g_memdup2 (&id, sizeof id), now);
  else
    values_free (now);
  return SQLITE_OK;
}

/* An UPDATE of the columns the overlay holds (overlay_apply()).
 * Nothing else of a shard's rows changes here. */
static int
shards_update (sqlite3_vtab *vtab, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
  ShardsTable *t = (ShardsTable *) vtab;
  sqlite3_value **shard = NULL, **given;
  gint64 id;
  int rc;

  (void) rowid;
  if (t->overlay == NULL || argc == 1 || sqlite3_value_type (argv[0]) == SQLITE_NULL)
    return refuse (t, "are read here, not changed");
  id = sqlite3_value_int64 (argv[0]);
  if (sqlite3_value_int64 (argv[1]) != id || sqlite3_value_type (argv[1]) != SQLITE_INTEGER)
    return refuse (t, "keep their ids");
  for (guint i = 0; i < t->n_columns; i++)
    if (t->overlay_of[i] < 0 && (int) i != t->id_column && !sqlite3_value_nochange (argv[2 + i]))
      return refuse (t, "change here only in the columns a catalog holds");
  if ((rc = load_overlay (t)) != SQLITE_OK)
    return rc;
  shard = g_new0 (sqlite3_value *, t->n_overlay + 1);
  rc = shard_values (t, id, shard);
  if (rc != SQLITE_OK)
    {
      values_free (shard);
      return rc == SQLITE_NOTFOUND ? refuse (t, "have no such row") : rc;
    }
  given = g_new0 (sqlite3_value *, t->n_overlay + 1);
  for (guint k = 0; k < t->n_overlay; k++)
    if (!sqlite3_value_nochange (argv[2 + t->overlaid[k]]))
      given[k] = argv[2 + t->overlaid[k]];
  rc = overlay_apply (t, id, given, shard);
  g_free (given);
  values_free (shard);
  forget_changed_order (t);
  return rc;
}

/* ---- many rows changed at once (_store_shards_update_begin()) ---- */

struct _StoreShardsUpdate {
  ShardsTable *t;
  sqlite3_stmt *rows;      /* the caller's: each of its rows a row changed */
  int *given_column;       /* of each overlay column, the column of @rows with its new value, or -1 */
  int *shard_column;       /* and the one with the shard's value */
  sqlite3_value **given;   /* a row's: overlay_apply()'s arguments (n_overlay + 1 each) */
  sqlite3_value **shard;
};

static void
update_free (StoreShardsUpdate *u)
{
  g_free (u->given_column);
  g_free (u->shard_column);
  g_free (u->given);
  g_free (u->shard);
  g_free (u);
}

/* Where each column of @u->rows goes: a column of the table's overlay by
 * its name, the new value; "shard." and that name, the shard's value */
static int
update_slots (StoreShardsUpdate *u, char **error)
{
  ShardsTable *t = u->t;
  int n = (sqlite3_column_count) (u->rows);

  for (guint k = 0; k < t->n_overlay; k++)
    u->given_column[k] = u->shard_column[k] = -1;
  for (int i = 1; i < n; i++)
    {
      const char *name = sqlite3_column_name (u->rows, i);
      gboolean of_shard = name && g_str_has_prefix (name, "shard.");
      const char *column = of_shard ? name + strlen ("shard.") : name;
      int slot = -1;

      for (guint c = 0; column && c < t->n_columns; c++)
        if (t->columns[c] && strcmp (t->columns[c], column) == 0)
          slot = t->overlay_of[c];
      if (slot < 0)
        {
          *error = g_strdup_printf ("%s of the shards change here only in the columns a catalog holds,"
                                    " not in %s", t->table, name ? name : "a column without a name");
          return SQLITE_ERROR;
        }
      (of_shard ? u->shard_column : u->given_column)[slot] = i;
    }
  for (guint k = 0; k < t->n_overlay; k++)
    if (u->shard_column[k] < 0)
      {
        *error = g_strdup_printf ("%s: the shard's value of %s is not given", t->table,
                                  t->columns[t->overlaid[k]]);
        return SQLITE_ERROR;
      }
  return SQLITE_OK;
}

/**
 * _store_shards_update_begin:
 * @db: the connection @set is registered on (a catalog's)
 * @table: a table read in place whose values changed here the catalog
 *   keeps ("messages")
 * @rows: a statement of the caller's, each row of which
 *   _store_shards_update_row() takes: the id of a row of @table first,
 *   then the new value of some of the columns the catalog keeps (named
 *   as @table names them), and the value of each of those columns that
 *   the row has in its shard ("shard." and the name), as the caller read
 *   it there
 * @error: (out): why not (g_free())
 *
 * What "UPDATE @table SET column = value, ... WHERE id = id" does for each
 * row, in the caller's transaction (which the table joins here: a
 * rollback forgets what it kept in memory), without asking the shards
 * for anything: an UPDATE looks each row up in its shard twice (for its
 * cursor, then for the shard's values: shards_update()).  A catalog's
 * threads are saved so, with the values threading read of each message
 * in its shard: realistic 1 GiB in 1,000 shards, 140,000 rows.
 *
 * Returns: (transfer full) (nullable): for _store_shards_update_end()
 */
StoreShardsUpdate *
_store_shards_update_begin (sqlite3 *db, StoreShards *set, const char *table, sqlite3_stmt *rows, char **error)
{
  ShardsTable *t = set->tables ? g_hash_table_lookup (set->tables, table) : NULL;
  StoreShardsUpdate *u;
  g_autofree char *join = NULL;

  *error = NULL;
  if (t == NULL || t->db != db || t->id_column < 0 || t->n_overlay == 0)
    {
      *error = g_strdup_printf ("%s of the shards are not changed here", table);
      return NULL;
    }
  u = g_new0 (StoreShardsUpdate, 1);
  u->t = t;
  u->rows = rows;
  u->given_column = g_new (int, t->n_overlay);
  u->shard_column = g_new (int, t->n_overlay);
  u->given = g_new0 (sqlite3_value *, t->n_overlay + 1);
  u->shard = g_new0 (sqlite3_value *, t->n_overlay + 1);
  {
    g_autofree char *q = quoted (t->table);
    g_autofree char *id = quoted (t->columns[t->id_column]);
    g_autofree char *column = quoted (t->columns[t->overlaid[0]]);

    join = g_strdup_printf ("UPDATE temp.%s SET %s = %s WHERE %s = -1", q, column, column, id);
  }
  if (update_slots (u, error) == SQLITE_OK &&
      ((sqlite3_exec (db, join, NULL, NULL, NULL)) != SQLITE_OK || load_overlay (t) != SQLITE_OK))
    *error = g_strdup (sqlite3_errmsg (db));
  if (*error)
    {
      update_free (u);
      return NULL;
    }
  return u;
}

/* The row @u's statement is on, applied: with the shard's values it
 * gives, or, where @read_shard, those its shard has (as an UPDATE reads
 * them: for a row the caller did not read there).  Returns an SQLite
 * code: SQLITE_NOTFOUND where no shard has the row. */
int
_store_shards_update_row (StoreShardsUpdate *u, gboolean read_shard)
{
  ShardsTable *t = u->t;
  gint64 id = (sqlite3_column_int64) (u->rows, 0);
  int rc = SQLITE_OK;

  for (guint k = 0; k < t->n_overlay; k++)
    {
      int given = u->given_column[k];

      u->given[k] = given >= 0 ? (sqlite3_column_value) (u->rows, given) : NULL;
    }
  if (read_shard)
    rc = shard_values (t, id, u->shard);
  else
    /* (the statement's values are unprotected: copied to be compared) */
    for (guint k = 0; k < t->n_overlay; k++)
      if ((u->shard[k] = sqlite3_value_dup ((sqlite3_column_value) (u->rows, u->shard_column[k]))) == NULL)
        rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK)
    rc = overlay_apply (t, id, u->given, u->shard);
  for (guint k = 0; k < t->n_overlay; k++)
    g_clear_pointer (&u->shard[k], sqlite3_value_free);
  return rc;
}

void
_store_shards_update_end (StoreShardsUpdate *u)
{
  if (u == NULL)
    return;
  forget_changed_order (u->t);
  update_free (u);
}

static int
shards_ok (sqlite3_vtab *vtab)
{
  (void) vtab;
  return SQLITE_OK;
}

static int
shards_commit (sqlite3_vtab *vtab)
{
  g_ptr_array_set_size (((ShardsTable *) vtab)->replaced, 0);
  return SQLITE_OK;
}

/* What the overlay holds in memory may have been undone */
static int
shards_rollback (sqlite3_vtab *vtab)
{
  ShardsTable *t = (ShardsTable *) vtab;

  g_clear_pointer (&t->changed, g_hash_table_unref);
  forget_changed_order (t);
  g_ptr_array_set_size (t->replaced, 0);
  return SQLITE_OK;
}

/* snippet() and highlight() of an FTS5 table's row: asked of its shard,
 * with the query the row was found by. */
static void
row_function (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  ShardsCursor *c = argc > 0 ? sqlite3_value_pointer (argv[0], "deja_shards_row") : NULL;
  const char *name = sqlite3_user_data (ctx);
  g_autoptr (GString) sql = NULL;
  g_autofree char *table = NULL;
  sqlite3_stmt *stmt = NULL;
  guint i;
  int rc;

  if (c == NULL || c->match == NULL || c->stmt == NULL)
    {
      sqlite3_result_null (ctx);
      return;
    }
  i = c->shard;
  table = quoted (c->table->table);
  sql = g_string_new (NULL);
  g_string_append_printf (sql, "SELECT %s(%s", name, table);
  for (int k = 1; k < argc; k++)
    g_string_append_printf (sql, ", ?%d", k + 2);
  g_string_append_printf (sql, ") FROM main.%s WHERE %s MATCH ?1 AND rowid = ?2", table, table);
  rc = stmt_take (c->table, i, sqlite3_db_handle (c->stmt), sql->str, &stmt);
  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_value) (stmt, 1, c->match);
  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_int64) (stmt, 2, sqlite3_column_int64 (c->stmt, 0));
  for (int k = 1; rc == SQLITE_OK && k < argc; k++)
    rc = (sqlite3_bind_value) (stmt, k + 2, argv[k]);
  if (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    sqlite3_result_value (ctx, sqlite3_column_value (stmt, 0));
  else if (rc == SQLITE_DONE)
    sqlite3_result_null (ctx);
  else
    sqlite3_result_error (ctx, sqlite3_errmsg (sqlite3_db_handle (c->stmt)), -1);
  if (stmt)
    stmt_give (c->table, i, stmt);
}

static int
shards_find_function (sqlite3_vtab *vtab, int n, const char *name,
                      void (**function) (sqlite3_context *, int, sqlite3_value **), void **data)
{
  static const char *const row_functions[] = { "snippet", "highlight" };

  (void) n;
  if (!((ShardsTable *) vtab)->fts)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (row_functions); i++)
    if (g_ascii_strcasecmp (name, row_functions[i]) == 0)
      {
        *function = row_function;
        *data = (void *) row_functions[i];
        return 1;
      }
  return 0;
}

static sqlite3_module shards_module = {
  .iVersion = 0,
  .xCreate = shards_connect,
  .xConnect = shards_connect,
  .xBestIndex = shards_best_index,
  .xDisconnect = shards_disconnect,
  .xDestroy = shards_disconnect,
  .xOpen = shards_open,
  .xClose = shards_close,
  .xFilter = shards_filter,
  .xNext = shards_next,
  .xEof = shards_eof,
  .xColumn = shards_column,
  .xRowid = shards_rowid,
  .xUpdate = shards_update,
  .xBegin = shards_ok,
  .xSync = shards_ok,
  .xCommit = shards_commit,
  .xRollback = shards_rollback,
  .xFindFunction = shards_find_function,
};

/**
 * _store_shards_register:
 * @set: (transfer full): the shards
 *
 * Makes the module deja_shards read @set on @db (which frees it when the
 * module goes).
 */
int
_store_shards_register (sqlite3 *db, StoreShards *set)
{
  return sqlite3_create_module_v2 (db, "deja_shards", &shards_module, set,
                                   (void (*) (void *)) _store_shards_free);
}
