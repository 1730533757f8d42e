/* cmd-catalog.c — deja catalog --db CATALOG SHARD...: shards read in
 * place as one corpus (store-catalog.c), instead of merged. */
#include "deja.h"
#include "progress.h"
#include "store.h"

#include <glib/gstdio.h>
#include <stdio.h>

/* On a terminal, the live line: shards opened and checked of all, their
 * MiB; then the step over the whole set, said */
static void
next_shard (const char *shard, gint64 messages, gpointer data)
{
  GStatBuf st;

  if (shard == NULL)
    {
      progress_phase ("taking the newsgroups, addresses and people's decisions of the shards");
      return;
    }
  progress_run_next (data, g_stat (shard, &st) == 0 ? (guint64) st.st_size : 0);
  progress_run_done (data, (guint64) MAX (messages, 0));
}

/* A catalog that could not be made goes: nothing would read it */
static int
forget (Store **store, const char *db)
{
  g_clear_pointer (store, store_close);
  g_unlink (db);
  {
    g_autofree char *wal = g_strconcat (db, "-wal", NULL);
    g_autofree char *shm = g_strconcat (db, "-shm", NULL);

    g_unlink (wal);
    g_unlink (shm);
  }
  return DEJA_EXIT_FAILED;
}

int
cmd_catalog (DejaRun *run, int argc, char **argv)
{
  g_autofree char *db = NULL;
  g_autofree char *decisions = NULL;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "the catalog to make (a new file)", "CATALOG" },
    { "decisions", 0, 0, G_OPTION_ARG_FILENAME, &decisions,
      "take the decisions of this deja database too (a catalog made before, which holds those made in it: authors', threads by subject)", "DB" },
    { NULL }
  };
  g_autoptr (GOptionContext) context =
    g_option_context_new ("SHARD... — read shard databases in place as one corpus");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  g_autoptr (GTimer) step = g_timer_new ();
  g_autoptr (GArray) ranges = NULL;
  const char *failed = NULL;
  ProgressRun *progress = NULL;
  gint64 shard_bytes = 0;
  gboolean ok;

  (void) run;
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Each SHARD is a deja database made by 'deja ingest --shard N' from part of an archive,\n"
    "each N once.  CATALOG becomes a database that every command reads as it reads one\n"
    "('--db CATALOG'), with the same rows a merge of the shards would have, without copying\n"
    "their messages: those, their full-text index, references, attachments, links, Usenet\n"
    "headers, separator log and files are read in the shards, where they lie.  The catalog\n"
    "holds what depends on the whole set: newsgroups, authors, people's decisions, and the\n"
    "threads that cross shards.  It names the shards from its own folder when they are in\n"
    "it (the folder can move whole), else by their full path; a shard that changed after\n"
    "is refused when the catalog is opened: make the catalog again; so is a shard whose\n"
    "write-ahead log holds commits its file does not yet (a deja writing it).  A catalog\n"
    "is read, not written: ingest into a shard, then make the catalog again (or merge,\n"
    "'deja merge').\n"
    "What is the set's own is the exception: authors' decisions ('deja authors --merge'\n"
    "and the others), threads ('deja thread --subject') and near-duplicates ('deja dedup')\n"
    "made on the catalog go into it, never into a shard; '--decisions OLD' takes the\n"
    "decisions and threads by subject of OLD into the next catalog.\n"
    "A file in two shards (its path or its content) is refused: a merge keeps one of them.\n"
    "Exit status: 0 when the catalog was made, 1 when not, 2 on usage errors.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (argc < 2)
    return deja_usage_error (context, "no SHARD given");
  if (g_file_test (db, G_FILE_TEST_EXISTS))
    {
      deja_error ("'%s' exists: a catalog is made in a new file", db);
      return DEJA_EXIT_FAILED;
    }
  if ((store = store_open (db, &error)) == NULL)
    {
      deja_error ("cannot make '%s': %s", db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("cataloguing %d shard%s in '%s'", argc - 1, argc == 2 ? "" : "s", db);
  shard_bytes = deja_files_bytes (argv + 1, argc - 1);
  progress = progress_run_new ("shards", (guint) (argc - 1), (guint64) shard_bytes);
  ok = store_catalog_make (store, (const char *const *) argv + 1, (guint) (argc - 1), decisions, next_shard, progress,
                           &failed, &ranges, &error);
  g_clear_pointer (&progress, progress_run_free);
  if (!ok)
    {
      if (failed && failed == decisions)
        deja_error ("cannot take the decisions of '%s': %s", failed, error->message);
      else if (failed)
        deja_error ("cannot catalogue '%s': %s", failed, error->message);
      else
        deja_error ("cannot make '%s': %s", db, error->message);
      return forget (&store, db);
    }
  deja_note ("shards read in %.1f s", g_timer_elapsed (timer, NULL));
  /* What the set changes: threads across shards, then authors */
  g_timer_start (step);
  if (!deja_rethread_keeping (store, db, ranges))
    return forget (&store, db);
  deja_note ("threads in %.1f s", g_timer_elapsed (step, NULL));
  g_timer_start (step);
  if (!deja_update_authors (store, db))
    return forget (&store, db);
  deja_note ("authors in %.1f s", g_timer_elapsed (step, NULL));
  if (!store_catalog_finish (store, &error))
    {
      deja_error ("cannot finish '%s': %s", db, error->message);
      return forget (&store, db);
    }
  deja_note ("done in %.1f s: '%s' reads %d shard%s", g_timer_elapsed (timer, NULL), db, argc - 1,
             argc == 2 ? "" : "s");
  return DEJA_EXIT_OK;
}
