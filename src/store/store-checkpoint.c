/* store-checkpoint.c — checkpoints the write-ahead log on a thread of its
 * own while an ingest goes on.
 *
 * In WAL mode every page a transaction writes goes to the log first, and
 * a checkpoint copies it into the database file afterwards (syncing the
 * log first: with synchronous=NORMAL, COMMIT itself does not).  SQLite's
 * automatic checkpoint does that inside COMMIT, on the writer's thread,
 * where the ingest waits for it.  Here COMMIT only wakes this thread,
 * which copies the file's pages with a connection of its own while the
 * writer goes on with the next file or with threading, and the sync
 * happens here too, off the writer's path.  A PASSIVE checkpoint
 * never blocks the writer or the readers; what it leaves (pages committed
 * after it started) is copied by the next one, or by the final checkpoint
 * SQLite makes when deja closes the database.
 */
#include "store-private.h"
#include "spawn.h"

struct _StoreCheckpointer {
  sqlite3 *db;
  GThread *thread;
  GMutex lock;
  GCond cond;
  gboolean pending;    /* a commit happened since the last checkpoint began */
  gboolean running;
  gboolean stopping;
};

static gpointer
checkpoint_thread (gpointer data)
{
  StoreCheckpointer *c = data;

  g_mutex_lock (&c->lock);
  for (;;)
    {
      while (!c->pending && !c->stopping)
        g_cond_wait (&c->cond, &c->lock);
      if (c->stopping)
        break;
      c->pending = FALSE;
      c->running = TRUE;
      g_mutex_unlock (&c->lock);
      /* SQLITE_BUSY (another process is checkpointing) is not an error:
       * the pages are copied by that checkpoint or by the next. */
      sqlite3_wal_checkpoint_v2 (c->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
      g_mutex_lock (&c->lock);
      c->running = FALSE;
      g_cond_broadcast (&c->cond);
    }
  g_mutex_unlock (&c->lock);
  return NULL;
}

/* Starts a checkpointer for the database at @path; NULL (and the caller
 * keeps SQLite's automatic checkpoint) when it cannot open it or its
 * thread cannot start. */
StoreCheckpointer *
_store_checkpointer_new (const char *path)
{
  StoreCheckpointer *c = g_new0 (StoreCheckpointer, 1);

  if (sqlite3_open_v2 (path, &c->db, SQLITE_OPEN_READWRITE | STORE_OPEN_ONE_THREAD, NULL) != SQLITE_OK)
    {
      sqlite3_close (c->db);
      g_free (c);
      return NULL;
    }
  /* Its close must not checkpoint (or delete the log) by itself: the
   * writer's close does that, last. */
  sqlite3_db_config (c->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  /* Until it has read the database, a connection does not know it is in
   * WAL mode, and a checkpoint does nothing. */
  sqlite3_exec (c->db, "PRAGMA journal_mode", NULL, NULL, NULL);
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  if ((c->thread = spawn_thread ("deja-checkpoint", checkpoint_thread, c)) == NULL)
    {
      sqlite3_close (c->db);
      g_mutex_clear (&c->lock);
      g_cond_clear (&c->cond);
      g_free (c);
      return NULL;
    }
  return c;
}

/* Asks for a checkpoint of what has been committed so far. */
void
_store_checkpointer_kick (StoreCheckpointer *c)
{
  g_mutex_lock (&c->lock);
  c->pending = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
}

/* Waits until every commit so far has been checkpointed (as far as the
 * readers of the moment allow). */
void
_store_checkpointer_wait (StoreCheckpointer *c)
{
  g_mutex_lock (&c->lock);
  while (c->pending || c->running)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

/* Lets a checkpoint under way finish (the database would be as correct
 * without it: the log holds the pages), then stops the thread. */
void
_store_checkpointer_free (StoreCheckpointer *c)
{
  if (c == NULL)
    return;
  g_mutex_lock (&c->lock);
  c->stopping = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
  g_thread_join (c->thread);
  sqlite3_close (c->db);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}
