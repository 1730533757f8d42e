/* spawn.c — threads that may not start.
 *
 * g_thread_new() aborts the process when a thread cannot be made: a
 * container's or a systemd unit's pids limit (TasksMax=), `ulimit -u`,
 * or an address-space limit (`ulimit -v`, as some clusters set) with no
 * room for another stack.  deja on a large machine starts a decoding
 * thread per CPU and a few helpers, so such a limit was an abort with a
 * core file.  spawn_thread() says why once for each kind of thread and
 * returns NULL; each caller then does the thread's work without it (on
 * its own thread, or with fewer decoders), or fails with the reason.
 *
 * DEJA_THREAD_FAULT (a comma-separated list of thread names, or "all")
 * refuses those threads as a limit would, for the tests
 * (tests/test_habits.py).
 */
#include "spawn.h"

#include <string.h>

/**
 * spawn_refused:
 * @name: a thread's name ("deja-fts")
 *
 * Returns: whether DEJA_THREAD_FAULT asks for @name to be refused
 */
gboolean
spawn_refused (const char *name)
{
  const char *list = g_getenv ("DEJA_THREAD_FAULT");
  g_auto (GStrv) names = NULL;

  if (list == NULL || *list == '\0')
    return FALSE;
  if (strcmp (list, "all") == 0)
    return TRUE;
  names = g_strsplit (list, ",", -1);
  return g_strv_contains ((const char *const *) names, name);
}

/**
 * spawn_note:
 * @name: the thread's name
 * @why: why it could not start
 * @instead: what is done instead ("its work is done on this thread")
 *
 * Says so on stderr, once for each @name.
 */
void
spawn_note (const char *name, const char *why, const char *instead)
{
  static GHashTable *said;
  G_LOCK_DEFINE_STATIC (said);
  gboolean first;

  G_LOCK (said);
  if (said == NULL)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = g_hash_table_add (said, g_strdup (name));
  G_UNLOCK (said);
  if (first)
    g_printerr ("deja: cannot start a thread (%s): %s; %s (a limit on threads or address space: "
                "ulimit -u, ulimit -v, a container's pids limit)\n", name, why, instead);
}

/**
 * spawn_thread:
 * @name: the thread's name
 * @func: what it runs
 * @data: given to @func
 *
 * Returns: (nullable): the thread, or NULL when it could not start (said
 *   on stderr, once for each @name)
 */
GThread *
spawn_thread (const char *name, GThreadFunc func, gpointer data)
{
  g_autoptr (GError) error = NULL;
  GThread *thread = NULL;

  if (spawn_refused (name))
    g_set_error_literal (&error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN, "refused (DEJA_THREAD_FAULT)");
  else
    thread = g_thread_try_new (name, func, data, &error);
  if (thread == NULL)
    spawn_note (name, error->message, "its work is done without it");
  return thread;
}

/**
 * spawn_pool:
 * @name: its threads' kind, for the note and DEJA_THREAD_FAULT ("deja-decode")
 * @func: what its threads run on each item
 * @data: given to @func
 * @threads: how many threads it should have
 * @without: what the caller does when not one starts, for the note
 *
 * A pool of threads of its own (exclusive), as many as could start: when
 * fewer than @threads did, it keeps those (said on stderr, once).
 *
 * Returns: (nullable): the pool, or NULL when not one thread started
 */
GThreadPool *
spawn_pool (const char *name, GFunc func, gpointer data, guint threads, const char *without)
{
  g_autoptr (GError) error = NULL;
  GThreadPool *pool;
  guint started;

  threads = MAX (threads, 1);
  if (spawn_refused (name))
    {
      spawn_note (name, "refused (DEJA_THREAD_FAULT)", without);
      return NULL;
    }
  pool = g_thread_pool_new (func, data, (gint) threads, TRUE, &error);
  if (error == NULL)
    return pool;
  started = g_thread_pool_get_num_threads (pool);
  if (started == 0)
    {
      g_thread_pool_free (pool, TRUE, TRUE);
      spawn_note (name, error->message, without);
      return NULL;
    }
  /* the others are not asked for again at every item */
  g_thread_pool_set_max_threads (pool, (gint) started, NULL);
  {
    g_autofree char *instead = g_strdup_printf ("going on with %u of %u", started, threads);

    spawn_note (name, error->message, instead);
  }
  return pool;
}
