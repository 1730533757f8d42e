/* cmd-ingest.c — deja ingest --db DB PATH... */
#include "deja.h"
#include "cpus.h"
#include "profile.h"
#include "ingest.h"
#include "progress.h"
#include "threads.h"
#include "walk.h"
#include "analyse.h"
#include "spawn.h"

#include <stdio.h>
#include <glib/gstdio.h>

static void
report (const char *path, const IngestResult *r)
{
  g_autofree char *counts = split_counts_describe (&r->counts);

  /* On a terminal, the live line says it, unless --verbose */
  if (progress_live () && !deja_is_verbose ())
    return;
  if (r->unchanged)
    deja_note ("'%s' is unchanged since it was ingested", path);
  else if (r->empty)
    deja_note ("'%s' is empty: no messages", path);
  else if (r->duplicate_of)
    deja_note ("'%s' has the same content as '%s', already ingested: not stored again",
               path, r->duplicate_of);
  else if (r->appended_at > 0)
    deja_note ("'%s' grew at its end: its first %.1f MiB were kept (verified by hash, not read"
               " again); after them, %s", path, r->appended_at / 1048576.0, counts);
  else
    deja_note ("ingested '%s': %s", path, counts);
}

/* The size of the files about to be read (compressed ones as they are on
 * disk): a new database for large archives gets larger pages. */
/* The files stored since the last commit, and their messages: if the
 * commit fails, the summary does not count them. */
typedef struct {
  guint files;
  guint64 messages;
} Pending;

static void
forget_pending (Pending *pending, guint *stored, guint64 *messages)
{
  if (pending->files > 0)
    deja_error ("the last %u file%s read (%" G_GUINT64_FORMAT " messages) %s not stored",
                pending->files, pending->files == 1 ? "" : "s", pending->messages,
                pending->files == 1 ? "is" : "are");
  *stored -= MIN (*stored, pending->files);
  *messages -= MIN (*messages, pending->messages);
  *pending = (Pending) { 0, 0 };
}

static gpointer
free_session (gpointer session)
{
  ingest_session_free (session);
  return NULL;
}

/* The bytes of @items: the size the walk found, else the file's now (a
 * stat() more for each file of a Maildir was 3 % of its writer's time) */
static gint64
archive_bytes (GPtrArray *items)
{
  gint64 total = 0;

  for (guint i = 0; i < items->len; i++)
    {
      WalkItem *item = g_ptr_array_index (items, i);
      GStatBuf st;

      if (item->error == NULL && item->size >= 0)
        total += item->size;
      else if (item->error == NULL && g_stat (item->path, &st) == 0)
        total += st.st_size;
    }
  return total;
}

/* The paths of @items that the walk could read (the others are
 * reported when their turn comes) */
static GPtrArray *
readable_paths (GPtrArray *items)
{
  GPtrArray *readable = g_ptr_array_new ();

  for (guint i = 0; i < items->len; i++)
    if (((WalkItem *) g_ptr_array_index (items, i))->error == NULL)
      g_ptr_array_add (readable, ((WalkItem *) g_ptr_array_index (items, i))->path);
  return readable;
}

int
cmd_ingest (DejaRun *run, int argc, char **argv)
{
  g_autofree char *db = NULL;
  g_auto (GStrv) paths = NULL;
  gboolean force = FALSE, no_analysis = FALSE, reingest = FALSE, profile = FALSE, no_languages;
  int threads = 0, status, shard = 0;
  gint64 total;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file (created if missing)", "DB" },
    { "shard", 0, 0, G_OPTION_ARG_INT, &shard,
      "DB is shard N (1, 2, ...) of an archive cut for 'deja merge': its message ids start after"
      " N x 2^32, so that merging the shards in the order of N copies their full-text index", "N" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "read a file that does not start with a 'From ' envelope (the text before the first"
      " separator becomes a message)", NULL },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "decoding threads (default: one per CPU deja may use)", "N" },
    { "no-analysis", 0, 0, G_OPTION_ARG_NONE, &no_analysis,
      "leave language and prose signals for a later 'deja analyse' (they are NULL until then)", NULL },
    { "profile", 0, 0, G_OPTION_ARG_NONE, &profile,
      "at the end, print where the time went, stage by stage (stderr)", NULL },
    { "reingest", 0, 0, G_OPTION_ARG_NONE, &reingest,
      "read every file again, even unchanged: its rows get what this deja stores and an older one"
      " did not (links, Usenet headers)", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, "PATH..." },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("PATH... — store mbox archives in a database");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autoptr (GPtrArray) items = NULL;
  g_autoptr (GPtrArray) readable = NULL;   /* of the paths in items */
  g_autoptr (IngestSession) session = NULL;
  g_autoptr (IngestDictionary) dictionary = NULL;
  IngestOptions options = { 0 };
  guint failures = 0, stored = 0;
  gboolean stale = FALSE, deferred = FALSE, rethread = FALSE;
  g_autoptr (GTimer) timer = NULL;
  ProgressRun *progress = NULL;
  GThread *freeing;
  guint64 messages = 0, bytes = 0;
  Pending pending = { 0, 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Each PATH is an mbox file (plain or gzip) or a directory of them.  Each file goes in\n"
    "whole or not at all: a file that fails leaves the database as it was, and the others\n"
    "still go in.  Files are committed together, every 64 MiB of archive text and at the end.\n"
    "When any file was stored, threads are computed again over the whole database at the end\n"
    "(see 'deja thread').\n"
    "Ctrl-C rolls back the file being read, keeps the files before it and stops (a second\n"
    "Ctrl-C stops at once: what was not committed is rolled back).\n"
    "Exit status: 0 when every file went in, 1 when any failed or was not read, 2 on usage errors.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (paths == NULL || paths[0] == NULL)
    return deja_usage_error (context, "no PATH given");
  if (threads < 0)
    return deja_usage_error (context, "--threads must be positive");
  if (shard < 0 || shard > STORE_MAX_SHARD)
    return deja_usage_error (context, "--shard must be from 1 to " G_STRINGIFY (STORE_MAX_SHARD));

  /* Ctrl-C: the file being read stops at once and is rolled back (to its
   * savepoint), the files stored before it stay (committed after the loop). */
  deja_catch_interrupt ("deja: stopping: the file being read is rolled back, the files before it stay\n");
  /* A new database has no last language to go by (ingest.c): when the
   * machine's dictionaries are all of one language, it is loaded while
   * the database opens, not by the first decode worker while the other
   * waits for it. */
  if (!no_analysis && deja_feature_available (DEJA_FEATURE_CLD2))
    dictionary = ingest_preload_dictionary (text_spell_only_language ());
  items = walk_paths (paths);
  total = archive_bytes (items);
  readable = readable_paths (items);
  store = store_open_sized (db, total, readable->len, &error);
  if (store == NULL)
    {
      deja_error ("cannot open database '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (deja_refuses_catalog (store, db, "ingest into one of its shards, then make it again"))
    return DEJA_EXIT_FAILED;
  /* Readers meanwhile leave the authors to this ingest's end */
  store_claim_writing (store);
  if (shard > 0)
    store_set_shard (store, (guint) shard);
  /* A first ingest builds its secondary indexes at its end
   * (store-indexes.c). */
  if (!store_defer_indexes (store, STORE_DEFER_ALL, &deferred, &error))
    {
      deja_error ("cannot prepare '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (profile)
    profile_enable ();
  options.force = force;
  options.reingest = reingest;
  options.threads = threads;
  /* Without CLD2 no language can be identified: the signals stay NULL
   * ('deja analyse' with a deja that has it fills them in later). */
  no_languages = !no_analysis && !deja_feature_available (DEJA_FEATURE_CLD2);
  no_analysis |= no_languages;
  options.analyse = !no_analysis;
  options.cancel = &deja_interrupted;
  session = ingest_session_new (store, &options);
  timer = g_timer_new ();
  /* The files after the first are split and decoded while it is written. */
  ingest_session_expect (session, readable);
  /* What will be read, before the work starts (a log file shows it too). */
  deja_note ("reading %u file%s into '%s'", items->len, items->len == 1 ? "" : "s", db);
  if (deja_is_verbose ())
    {
      CpuCount cpus;
      g_autofree char *described = NULL;

      cpus_count (&cpus);
      described = cpus_describe (&cpus);
      if (threads)
        deja_note ("decoding threads: %d (-j); deja may use %s", threads, described);
      else
        deja_note ("decoding threads: %u, one per CPU deja may use (%s)", cpus.available, described);
    }
  if (no_languages)
    deja_note ("language and prose signals left NULL: this deja was built without %s",
               deja_feature_name (DEJA_FEATURE_CLD2));
  progress = progress_run_new ("files", items->len, (guint64) total);
  for (guint i = 0; i < items->len; i++)
    {
      WalkItem *item = g_ptr_array_index (items, i);
      IngestResult result = { 0 };
      guint commits = store_commits (store);
      gboolean ingested = FALSE;
      GStatBuf st;

      g_clear_error (&error);
      progress_run_next (progress, item->error == NULL && g_stat (item->path, &st) == 0 ? (guint64) st.st_size : 0);
      if (item->error == NULL)
        {
          ingested = ingest_file (session, item->path, &result, &error);
          /* The files before it were committed when it began, stored
           * or not then (store.c: keys_for_file()), or at its end. */
          if (store_commits (store) != commits)
            pending = (Pending) { 0, 0 };
        }
      if (item->error != NULL)
        {
          deja_error ("cannot ingest '%s': %s", item->path, item->error);
          failures++;
        }
      else if (ingested)
        {
          report (item->path, &result);
          stored += !result.unchanged && !result.empty && !result.duplicate_of;
          if (!result.unchanged && !result.duplicate_of)
            {
              messages += result.counts.messages;
              bytes += result.counts.bytes;
              pending.files += !result.empty;
              pending.messages += result.counts.messages;
            }
          if (store_uncommitted_files (store) == 0)
            pending = (Pending) { 0, 0 };   /* committed */
        }
      else if (g_error_matches (error, INGEST_ERROR, INGEST_ERROR_CANCELLED))
        {
          deja_error ("interrupted: '%s' rolled back; %u of %u files not read", item->path,
                      items->len - i, items->len);
          failures++;
          ingest_result_clear (&result);
          break;
        }
      else if (g_error_matches (error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN))
        {
          /* not one decoder could start: no later file would fare better */
          deja_error ("cannot ingest '%s': %s; %u of %u files not read", item->path, error->message,
                      items->len - i - 1, items->len);
          failures++;
          ingest_result_clear (&result);
          break;
        }
      else if (item->from_directory && g_error_matches (error, MBOX_ERROR, MBOX_ERROR_NOT_MBOX))
        deja_note ("skipping '%s': %s", item->path, error->message);
      else
        {
          deja_error ("cannot ingest '%s': %s", item->path, error->message);
          failures++;
        }
      progress_run_done (progress, result.unchanged || result.duplicate_of ? 0 : result.counts.messages);
      ingest_result_clear (&result);
      /* A failure that rolled back the whole transaction (a full disk)
       * took the files finished before it with it: they are not stored. */
      if (pending.files > 0 && store_uncommitted_files (store) == 0)
        {
          forget_pending (&pending, &stored, &messages);
          failures++;
        }
      if (deja_interrupted && i + 1 < items->len)
        {
          deja_error ("interrupted: stopped after '%s'; %u of %u files not read",
                      item->path, items->len - i - 1, items->len);
          failures++;
          break;
        }
    }
  g_clear_pointer (&progress, progress_run_free);
  /* What reading the files held (the decode workers, their analysers with
   * the Hunspell dictionaries and the speller tables, the thread guess:
   * 25 MiB and more) is not needed for what comes next, and the peak of
   * a large ingest comes next.  It is freed beside the last commit and
   * the index builds, which take far longer than freeing it (Hunspell's
   * dictionaries are thousands of small blocks), and long before the
   * threads are computed. */
  if ((freeing = spawn_thread ("deja-free", free_session, session)) == NULL)
    free_session (session);   /* its thread could not start */
  session = NULL;
  /* The files read since the last commit (which the loop makes every
   * 64 MiB of archive text). */
  g_clear_error (&error);
  if (!store_commit (store, &error))
    {
      deja_error ("cannot store in '%s': %s", db, error->message);
      forget_pending (&pending, &stored, &messages);
      failures++;
    }
  /* Threads are also stale when an earlier ingest stopped after storing a
   * file and before threading. */
  g_clear_error (&error);
  if (!store_threads_stale (store, &stale, &error))
    {
      deja_error ("cannot read '%s': %s", db, error->message);
      failures++;
    }
  else if (deja_interrupted && (stored > 0 || stale))
    deja_note ("threads not computed: the next 'deja ingest' or 'deja thread' computes them");
  else if (stored > 0 || stale)
    rethread = TRUE;
  /* A first ingest builds the indexes it left for its end, and the
   * threads are read beside it. */
  g_clear_error (&error);
  if (deferred && rethread)
    failures += deja_rethread_and_index (store, db, NULL) ? 0 : 1;
  else
    {
      if (deferred && !deja_build_deferred_indexes (store, db))
        failures++;
      if (rethread && !deja_rethread (store, db))
        failures++;
    }
  if (freeing)
    g_thread_join (freeing);
  /* Authors, when a file was stored since they were last computed. */
  if (!deja_interrupted && !deja_update_authors (store, db))
    failures++;
  /* Language and prose signals of rows stored without them: by an older
   * deja, or by --no-analysis before (what this run stored has them,
   * from the decode workers), on every core (pipeline/analyse-stored.c). */
  {
    gint64 started = profile_start ();

    if (!deja_interrupted && !no_analysis && !deja_analyse_stored (store, db, FALSE, threads, &deja_interrupted))
      failures++;
    profile_stop (PROFILE_ANALYSIS, started);
  }
  /* One line for the whole run, whatever stderr is. */
  deja_note ("done in %.1f s: %u file%s stored, %" G_GUINT64_FORMAT " messages, %.1f MiB/s;"
             " %u failed", g_timer_elapsed (timer, NULL), stored, stored == 1 ? "" : "s", messages,
             bytes / 1048576.0 / MAX (g_timer_elapsed (timer, NULL), 1e-3), failures);
  if (profile)
    deja_profile_report (g_timer_elapsed (timer, NULL), bytes);
  return failures ? DEJA_EXIT_FAILED : DEJA_EXIT_OK;
}
