/* cmd-merge.c — deja merge --db OUT SHARD...: shard databases into one.
 *
 * Each shard is one transaction (store_merge_shard()); then threads,
 * authors and the text analysis of rows that lack it are computed over
 * the whole result, as an ingest of every shard's files would. */
#include "deja.h"
#include "profile.h"
#include "progress.h"
#include "store.h"

#include <stdio.h>
#include <glib/gstdio.h>

static void
report (const char *shard, const StoreMergeCounts *c, double seconds)
{
  g_autoptr (GString) s = g_string_new (NULL);

  /* On a terminal, the live line says it, unless --verbose */
  if (progress_live () && !deja_is_verbose ())
    return;
  g_string_append_printf (s, "merged '%s' in %.1f s: %" G_GINT64_FORMAT " file%s, %"
                          G_GINT64_FORMAT " message%s", shard, seconds, c->files,
                          c->files == 1 ? "" : "s", c->messages, c->messages == 1 ? "" : "s");
  if (c->replaced)
    g_string_append_printf (s, " (%" G_GINT64_FORMAT " replacing other content under the same path)",
                            c->replaced);
  if (c->unchanged)
    g_string_append_printf (s, "; %" G_GINT64_FORMAT " file%s already here", c->unchanged,
                            c->unchanged == 1 ? "" : "s");
  if (c->same_content)
    g_string_append_printf (s, "; %" G_GINT64_FORMAT " file%s whose content is here under another"
                            " path, not stored twice", c->same_content, c->same_content == 1 ? "" : "s");
  if (c->decisions)
    g_string_append_printf (s, "; %" G_GINT64_FORMAT " decision%s", c->decisions,
                            c->decisions == 1 ? "" : "s");
  if (c->messages && c->rows_rebuilt)
    g_string_append_printf (s, "; messages written again row by row: %s", c->rows_rebuilt);
  else if (c->messages && c->authors_moved)
    g_string_append_printf (s, "; messages copied as stored (%" G_GINT64_FORMAT " given the author"
                            " their address has here)", c->authors_moved);
  else if (c->messages)
    g_string_append (s, "; messages copied as stored");
  if (c->messages && c->fts_rebuilt)
    g_string_append_printf (s, "; full-text index made again: %s", c->fts_rebuilt);
  else if (c->messages)
    g_string_append (s, "; full-text index copied");
  deja_note ("%s", s->str);
}

static gint
by_first (gconstpointer a, gconstpointer b)
{
  const StoreIdRange *x = a, *y = b;

  return (x->first > y->first) - (x->first < y->first);
}

/* Sorts @ranges; whether none overlaps another (each shard's messages
 * take ids after those before it: they never do). */
static gboolean
ranges_apart (GArray *ranges)
{
  g_array_sort (ranges, by_first);
  for (guint i = 1; i < ranges->len; i++)
    if (g_array_index (ranges, StoreIdRange, i).first <= g_array_index (ranges, StoreIdRange, i - 1).last)
      return FALSE;
  return TRUE;
}

int
cmd_merge (DejaRun *run, int argc, char **argv)
{
  g_autofree char *db = NULL;
  gboolean no_analysis = FALSE, profile = FALSE, reindex = FALSE;
  int threads = 0, status;
  ProgressRun *progress = NULL;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "the database merged into (created if missing)", "OUT" },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "analysis threads (default: one per CPU deja may use)", "N" },
    { "no-analysis", 0, 0, G_OPTION_ARG_NONE, &no_analysis,
      "leave language and prose signals that a shard lacks for a later 'deja analyse'", NULL },
    { "profile", 0, 0, G_OPTION_ARG_NONE, &profile,
      "at the end, print where the time went, stage by stage (stderr)", NULL },
    { "reindex", 0, 0, G_OPTION_ARG_NONE, &reindex,
      "make every shard's full-text index again from its messages instead of copying it"
      " (for shards made by someone else)", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context =
    g_option_context_new ("SHARD... — merge shard databases into one");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  g_autoptr (GTimer) step = g_timer_new ();
  guint failures = 0, merged = 0;
  gint64 messages = 0, shard_bytes = 0;
  gboolean stale = FALSE, deferred = FALSE, told = FALSE, write_once = FALSE, whole = TRUE;
  g_autoptr (GArray) kept = g_array_new (FALSE, FALSE, sizeof (StoreIdRange));
  int last = 1;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Each SHARD is a deja database made by 'deja ingest' from part of an archive (or by an\n"
    "earlier merge).  OUT becomes what one ingest of every shard's files would have made, in\n"
    "the order given: the same messages, duplicate copies folded across shards, threads\n"
    "across shards, authors, decisions, separator log, full-text index and text analysis.\n"
    "A file already in OUT is not copied again, so merging a new shard into an earlier\n"
    "result copies only that shard.  A shard that fails leaves OUT as it was before it, and\n"
    "the others still go in (small shards share one transaction, up to 8 and 32 MiB; an\n"
    "interrupt stops after the group's shard under way).  While they are copied, OUT is in\n"
    "a rollback journal, which writes their pages once (its write-ahead log writes them\n"
    "twice): programs reading OUT wait while a shard commits.  Threads and authors are\n"
    "then computed over all of OUT (into an empty OUT, a thread no other shard touches\n"
    "keeps what its shard computed).  Shards are read, never changed (an older shard is\n"
    "upgraded first where it can be written).  'deja dedup' results are not merged: run it\n"
    "on OUT.\n"
    "A shard's full-text index is copied as it is when its messages keep their ids here:\n"
    "when they all come after those here, as they do for shards made with 'deja ingest\n"
    "--shard N' and merged in the order of N (and for the first shard into a new OUT).\n"
    "Otherwise its messages are indexed again, which takes longer.  Such a shard's messages\n"
    "are also copied as SQLite stored them when its files and authors have the same ids\n"
    "here (shards made with --shard N: author ids come from the address) and no file of\n"
    "its group replaces another; else they are written again row by row.  The note on\n"
    "each shard says which, and why.  See docs/scale.md.\n"
    "Exit status: 0 when every shard went in, 1 when any failed, 2 on usage errors.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (profile)
    profile_enable ();
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (argc < 2)
    return deja_usage_error (context, "no SHARD given");
  if (threads < 0)
    return deja_usage_error (context, "--threads must be positive");
  deja_catch_interrupt ("deja: stopping: the shard being merged is rolled back (small shards merged"
                        " together: once the one under way is in), the shards before it stay\n");
  /* The shards' size stands for the archives': a merge of large ones
   * gets the pages one ingest of their files would have. */
  shard_bytes = deja_files_bytes (argv + 1, argc - 1);
  if ((store = store_open_sized (db, shard_bytes, 0, &error)) == NULL)
    {
      deja_error ("cannot open database '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (deja_refuses_catalog (store, db, "merge its shards into a database of their own instead"))
    return DEJA_EXIT_FAILED;
  /* Readers meanwhile leave the authors to this merge's end */
  store_claim_writing (store);
  /* Into an empty OUT, the secondary indexes are built once at the end,
   * as a first ingest's are (store-indexes.c): the shards' rows come in
   * id order, their keys in none. */
  if (!store_defer_indexes (store, STORE_DEFER_KEEP_CHILD_KEYS, &deferred, &error))
    {
      deja_error ("cannot prepare '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  /* The shards' pages are written once, not to the log and then again
   * (store.c); back in WAL mode before threading reads beside its writer */
  if (!store_write_once_begin (store, &write_once, &error))
    {
      deja_error ("cannot prepare '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (!write_once)
    deja_note ("another program has '%s' open: the shards go through its write-ahead log", db);
  deja_note ("merging %d shard%s into '%s'", argc - 1, argc == 2 ? "" : "s", db);
  progress = progress_run_new ("shards", (guint) (argc - 1), (guint64) shard_bytes);
  for (int i = 1; i < argc && !deja_interrupted; last = i)
    {
      StoreMergeResult results[STORE_MERGE_GROUP];
      guint tried;

      /* Small shards go into one transaction together (store-merge.c) */
      tried = store_merge_shards (store, (const char *const *) argv + i,
                                  MIN ((guint) (argc - i), STORE_MERGE_GROUP), !reindex,
                                  &deja_interrupted, results);
      for (guint k = 0; k < tried; k++, i++)
        {
          StoreMergeResult *r = &results[k];
          GStatBuf st;

          progress_run_next (progress, g_stat (argv[i], &st) == 0 ? (guint64) st.st_size : 0);
          if (r->error == NULL)
            {
              /* Into an empty OUT, a shard copied whole keeps the
               * threads it made where no other shard touches them */
              if (r->counts.messages > 0 && r->counts.whole && r->counts.threaded)
                g_array_append_val (kept, r->counts.ids);
              else if (r->counts.messages > 0)
                whole = FALSE;
              report (argv[i], &r->counts, r->seconds);
              merged += r->counts.files > 0;
              messages += r->counts.messages;
              progress_run_done (progress, (guint64) r->counts.messages);
            }
          else if (g_error_matches (r->error, STORE_ERROR, STORE_ERROR_CANCELLED))
            {
              deja_error ("interrupted: '%s' rolled back; %d of %d shards not merged", argv[i],
                          argc - i, argc - 1);
              told = TRUE;
              failures++;
            }
          else
            {
              deja_error ("cannot merge '%s': %s", argv[i], r->error->message);
              failures++;
            }
          g_clear_error (&r->error);
        }
    }
  /* A group of small shards stops between two of them */
  if (deja_interrupted && !told && last < argc)
    {
      deja_error ("interrupted: %d of %d shards not merged", argc - last, argc - 1);
      failures++;
    }
  g_clear_pointer (&progress, progress_run_free);
  g_clear_error (&error);
  if (!store_write_once_end (store, &error))
    {
      deja_error ("cannot put '%s' back in WAL mode: %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (!store_threads_stale (store, &stale, &error))
    {
      deja_error ("cannot read '%s': %s", db, error->message);
      failures++;
    }
  else if (deja_interrupted && stale)
    deja_note ("threads not computed: the next 'deja merge', 'deja ingest' or 'deja thread'"
               " computes them");
  else if (stale)
    {
      g_timer_start (step);
      if (!(deferred ? deja_rethread_and_index (store, db, whole && ranges_apart (kept) ? kept : NULL)
                     : deja_rethread (store, db)))
        failures++;
      deferred = FALSE;
      deja_note ("threads in %.1f s", g_timer_elapsed (step, NULL));
    }
  /* Not threaded (interrupted, or nothing came): built all the same, as
   * an ingest's are. */
  if (deferred && !deja_build_deferred_indexes (store, db))
    failures++;
  g_timer_start (step);
  if (!deja_interrupted && !deja_update_authors (store, db))
    failures++;
  /* Shards ingested with --no-analysis (or by a deja before it) */
  if (!deja_interrupted && !no_analysis &&
      !deja_analyse_stored (store, db, FALSE, (guint) threads, &deja_interrupted))
    failures++;
  deja_note ("done in %.1f s: %u shard%s with new files, %" G_GINT64_FORMAT " messages; %u failed",
             g_timer_elapsed (timer, NULL), merged, merged == 1 ? "" : "s", messages, failures);
  if (profile)
    deja_profile_report (g_timer_elapsed (timer, NULL), (guint64) shard_bytes);
  return failures ? DEJA_EXIT_FAILED : DEJA_EXIT_OK;
}
