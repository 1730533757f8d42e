/* cmd-thread.c — deja thread --db DB: (re)compute threads, and report. */
#include "deja.h"
#include "output.h"
#include "threads.h"

#include <stdio.h>

static gboolean
print_row (const StoreValue *v, guint n, gpointer user_data)
{
  g_autoptr (GString) line = g_string_new ("  ");

  for (guint i = 0; i < n; i++)
    {
      output_tsv_field (line, v[i].text ? v[i].text : "NULL");
      g_string_append_c (line, i + 1 < n ? '\t' : '\n');
    }
  fputs (line->str, stdout);
  (*(guint64 *) user_data)++;
  return TRUE;
}

static gboolean
print_section (Store *store, StoreReport kind, const char *title, const char *columns,
               GError **error)
{
  guint64 rows = 0;

  printf ("%s\n  %s\n", title, columns);
  if (!store_thread_report (store, kind, print_row, &rows, error))
    return FALSE;
  if (rows == 0)
    printf ("  (none)\n");
  putchar ('\n');
  return TRUE;
}

/* Counts, then every case, so that a researcher can cite and check them. */
static gboolean
print_report (Store *store, const ThreadCounts *c, GError **error)
{
  g_autofree char *summary = threads_describe (c);

  printf ("threading: %s\n\n", summary);
  return print_section (store, STORE_REPORT_ORPHANS, "replies whose parent is not in the archive:",
                        "id\tfile\tbyte_offset\tmessage_id\tmissing_parent\tdate", error) &&
         print_section (store, STORE_REPORT_PLACEHOLDERS,
                        "missing messages that hold threads together:",
                        "message_id\tthread_id\tchildren", error) &&
         print_section (store, STORE_REPORT_CYCLES, "reference cycles broken (the link this message's References made was dropped):",
                        "id\tfile\tbyte_offset\tmessage_id\tsubject", error) &&
         print_section (store, STORE_REPORT_TIME_TRAVEL, "replies dated before their parent:",
                        "id\tmessage_id\tdate\tparent_id\tparent_date", error) &&
         print_section (store, STORE_REPORT_CONFLICTS,
                        "duplicate Message-IDs with different content (the first copy is canonical):",
                        "id\tfile\tbyte_offset\tmessage_id\tduplicate_of\tcanonical_file", error);
}

int
cmd_thread (DejaRun *run, int argc, char **argv)
{
  gboolean by_subject = FALSE, report = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "subject", 0, 0, G_OPTION_ARG_NONE, &by_subject,
      "also join threads whose first messages share a subject (Re: and [list] tags aside)", NULL },
    { "report", 0, 0, G_OPTION_ARG_NONE, &report,
      "print the diagnostics: counts, then every orphan, placeholder, cycle, time-travelling reply and conflicting duplicate", NULL },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  ThreadCounts counts;

  if (!deja_run_parse (run, "— rebuild threads from References and In-Reply-To", entries,
    "Sets thread_id (the id of the thread's first message) and parent_id for every message,\n"
    "across all files; marks later copies of a Message-ID in duplicate_of and merges their\n"
    "newsgroups into the first copy; records parents that are not in the archive in\n"
    "missing_parent and thread_placeholders.  deja ingest runs this at its end, in the mode\n"
    "the database was last threaded in: after --subject, later ingests join by subject\n"
    "too, until 'deja thread' without --subject.  On a catalog of shards (deja catalog)\n"
    "the threads are the catalog's, never written into its shards.  See docs/threads.md.",
    &argc, &argv, &status))
    return status;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if (!threads_rebuild (store, by_subject, &counts, &error) ||
      (report && !print_report (store, &counts, &error)))
    {
      deja_error ("cannot thread '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (!report)
    {
      g_autofree char *summary = threads_describe (&counts);
      deja_note ("threaded '%s': %s", run->db, summary);
    }
  /* a catalog's threads are its own, not its shards' */
  if (by_subject && store_is_catalog (store))
    deja_note ("threads joined by subject are kept in the catalog '%s', not in its shards: make the"
               " next catalog with 'deja catalog --decisions %s' to keep them", run->db, run->db);
  return DEJA_EXIT_OK;
}
