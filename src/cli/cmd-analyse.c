/* cmd-analyse.c — deja analyse --db DB: language and prose signals of
 * messages stored without them (a database from before schema 10), or of
 * all messages again with --force (after installing a dictionary). */
#include "deja.h"
#include "analyse-stored.h"
#include "store.h"

/* Shared with deja ingest and merge, which analyse what an older deja
 * (or one built without CLD2) stored; a deja without CLD2 leaves the
 * signals NULL for one that has it. */
gboolean
deja_analyse_stored (Store *store, const char *db, gboolean force, guint threads,
                     const volatile int *cancel)
{
  g_autoptr (GError) error = NULL;
  gint64 analysed = 0;

  if (!deja_feature_available (DEJA_FEATURE_CLD2))
    return TRUE;
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
cmd_analyse (DejaRun *run, int argc, char **argv)
{
  gboolean force = FALSE;
  int threads = 0, status;
  GOptionEntry entries[] = {
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      "analyse every message again, not only those never analysed", NULL },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "worker threads (default: one per CPU deja may use)", "N" },
    { NULL }
  };
  Store *store = NULL;

  if (!deja_run_parse (run, "— language and prose signals of own text", entries,
    "Sets messages.lang, lang_reliable, words, sentences, code_lines, nonletter_share,\n"
    "digit_share, upper_share and oov_share (docs/text-analysis.md).  deja ingest sets them\n"
    "for every message it stores and for any an older deja stored; --force computes them\n"
    "again, as after installing a Hunspell dictionary (hunspell-de-de, …).",
    &argc, &argv, &status))
    return status;
  if (threads < 0)
    return deja_usage_error (run->context, "--threads must be 0 or more");
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  return deja_analyse_stored (store, run->db, force, (guint) threads, NULL) ? DEJA_EXIT_OK : DEJA_EXIT_FAILED;
}
