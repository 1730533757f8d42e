/* cmd-analyse.c — deja analyse --db DB: language and prose signals of
 * messages stored without them (a database from before schema 10), or of
 * all messages again with --force (after installing a dictionary). */
#include "deja.h"
#include "analyse-stored.h"
#include "store.h"

/* Shared with deja ingest, which analyses what an older deja stored. */
gboolean
deja_analyse_stored (Store *store, const char *db, gboolean force, guint threads,
                     const volatile int *cancel)
{
  g_autoptr (GError) error = NULL;
  gint64 analysed = 0;

  if (!analyse_stored_text (store, force, threads, cancel, &analysed, &error))
    {
      if (g_error_matches (error, ANALYSE_ERROR, ANALYSE_ERROR_CANCELLED))
        deja_error ("language and prose signals %s: the next 'deja ingest' or 'deja analyse'"
                    " goes on", error->message);
      else
        deja_error ("cannot analyse the text of '%s': %s", db, error->message);
      return FALSE;
    }
  if (analysed > 0)
    deja_note ("language and prose signals of %" G_GINT64_FORMAT " message%s", analysed,
               analysed == 1 ? "" : "s");
  return TRUE;
}

int
cmd_analyse (int argc, char **argv)
{
  g_autofree char *db = NULL;
  gboolean force = FALSE;
  int threads = 0, status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      "analyse every message again, not only those never analysed", NULL },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "worker threads (default: one per processor)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— language and prose signals of own text");
  g_autoptr (Store) store = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Sets messages.lang, lang_reliable, words, sentences, code_lines, nonletter_share,\n"
    "digit_share, upper_share and oov_share (docs/text-analysis.md).  deja ingest sets them\n"
    "for every message it stores and for any an older deja stored; --force computes them\n"
    "again, as after installing a Hunspell dictionary (hunspell-de-de, …).");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (threads < 0)
    return deja_usage_error (context, "--threads must be 0 or more");
  if ((store = deja_open_existing_store (db)) == NULL)
    return DEJA_EXIT_FAILED;
  return deja_analyse_stored (store, db, force, (guint) threads, NULL) ? DEJA_EXIT_OK : DEJA_EXIT_FAILED;
}
