/* finish.c — what ingest and merge share: stopping on Ctrl-C between
 * transactions, and the corpus-wide steps after the rows changed
 * (threads, then authors). */
#include "authors.h"
#include "deja.h"
#include "profile.h"
#include "progress.h"
#include "store.h"
#include "threads.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile int deja_interrupted;
static const char *interrupt_message;

/* Ctrl-C (or SIGTERM): the transaction under way stops and is rolled
 * back, what was committed before it stays.  A second signal kills deja
 * outright; that transaction never committed either. */
static void
on_interrupt (int sig)
{
  deja_interrupted = 1;
  signal (sig, SIG_DFL);
  if (write (STDERR_FILENO, interrupt_message, strlen (interrupt_message)) < 0)
    return;
}

/**
 * deja_catch_interrupt:
 * @message: what stderr is told at the first signal ("deja: …\n")
 */
void
deja_catch_interrupt (const char *message)
{
  struct sigaction sa;

  interrupt_message = message;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
}

/* On a terminal, the live line says which corpus-wide step is under way
 * (util/progress.c). */
static void
phase (const char *doing, const char *db)
{
  g_autofree char *what = g_strdup_printf ("%s '%s'", doing, db);

  progress_phase (what);
}

/* Threads span files (and shards): after any change, they are computed
 * again over the whole database. */
gboolean
deja_rethread (Store *store, const char *db)
{
  return deja_rethread_keeping (store, db, NULL);
}

/* The same, a component of the reference graph within one of @kept's id
 * ranges keeping its shard's threads (deja catalog) */
gboolean
deja_rethread_keeping (Store *store, const char *db, GArray *kept)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  ThreadCounts counts;

  /* The freed buffers of what came before go back to the system before
   * threading allocates its own: the two peaks do not add up. */
  deja_memory_release ();
  gint64 started = profile_start ();
  gint64 on_disk;

  phase ("threading", db);
  if (!threads_rebuild_keeping (store, kept ? (const StoreIdRange *) kept->data : NULL, kept ? kept->len : 0,
                                &counts, &error))
    {
      deja_error ("cannot thread '%s': %s", db, error->message);
      return FALSE;
    }
  profile_stop (PROFILE_THREADS, started);
  /* (a catalog of many shards gets there first: it plans over the set) */
  if ((on_disk = store_thread_planned_on_disk (store)) > 0)
    deja_note ("'%s' holds %" G_GINT64_FORMAT " messages, more than threading plans in memory"
               " (%" G_GINT64_FORMAT "): it is planned on disk, some twenty times slower%s; where"
               " the machine has 70 bytes a message to spare, DEJA_THREAD_PLAN_MEMORY=%" G_GINT64_FORMAT
               " plans it in memory", db, on_disk, store_thread_plan_memory (),
               kept ? ", and every thread is made again" : "", on_disk);
  summary = threads_describe (&counts);
  deja_note ("threaded '%s': %s", db, summary);
  return TRUE;
}

static gboolean
build_indexes (Store *store, gpointer db)
{
  g_autoptr (GError) error = NULL;
  gint64 started = profile_start ();
  gboolean ok = store_build_deferred_indexes (store, &error);

  profile_stop (PROFILE_INDEXES, started);
  if (ok)
    return TRUE;
  deja_error ("cannot index '%s': %s", (const char *) db, error->message);
  return FALSE;
}

/* The indexes a first ingest or a merge into an empty database left for
 * its end, when there are no threads to read beside them.  Returns FALSE
 * when that failed (it said so). */
gboolean
deja_build_deferred_indexes (Store *store, const char *db)
{
  phase ("building the indexes of", db);
  return build_indexes (store, (gpointer) db);
}

/* deja_rethread() after a first ingest or a merge into an empty
 * database: the indexes it left for its end are built while the threads
 * are read beside (pipeline/threads.c).  @kept (nullable): the ranges of
 * ids whose threads may be kept (deja merge: threads_rebuild_beside()).
 * Returns FALSE when either failed (each said so). */
gboolean
deja_rethread_and_index (Store *store, const char *db, GArray *kept)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  ThreadCounts counts;
  gboolean indexed = FALSE;

  deja_memory_release ();
  gint64 started = profile_start ();
  double indexes = profile_seconds (PROFILE_INDEXES);

  phase ("building the indexes and threading", db);
  if (!threads_rebuild_beside (store, db, build_indexes, (gpointer) db, &indexed,
                              kept ? (const StoreIdRange *) kept->data : NULL, kept ? kept->len : 0,
                              &counts, &error))
    {
      deja_error ("cannot thread '%s': %s", db, error->message);
      return FALSE;
    }
  /* threads: the whole step but the index build beside it */
  profile_stop (PROFILE_THREADS, started + (gint64) ((profile_seconds (PROFILE_INDEXES) - indexes) * 1e6));
  summary = threads_describe (&counts);
  deja_note ("threaded '%s': %s", db, summary);
  return indexed;
}

/* Authors, when rows changed since they were last computed
 * (docs/people.md). */
gboolean
deja_update_authors (Store *store, const char *db)
{
  g_autoptr (GError) error = NULL;
  AuthorCounts counts;

  gint64 started = profile_start ();

  phase ("finding the authors of", db);
  if (!authors_update (store, FALSE, &counts, &error))
    {
      deja_error ("cannot find the authors of '%s': %s", db, error->message);
      return FALSE;
    }
  profile_stop (PROFILE_AUTHORS, started);
  if (counts.updated)
    deja_note ("authors: %" G_GINT64_FORMAT " from %" G_GINT64_FORMAT " addresses",
               counts.authors, counts.addresses);
  return TRUE;
}

/* deja ingest/merge --profile: where the time went (util/profile.c), on
 * standard error, after the run's last line. */
void
deja_profile_report (double wall_seconds, guint64 bytes)
{
  g_autofree char *where = profile_describe (wall_seconds, bytes);

  progress_clear ();
  fprintf (stderr, "deja: where the time went (--profile):\n%s\n", where);
}
