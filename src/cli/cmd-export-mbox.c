/* cmd-export-mbox.c — deja export-mbox: the archive back out, cleanly. */
#include "deja.h"
#include "export-mbox.h"

#include <string.h>

int
cmd_export_mbox (DejaRun *run, int argc, char **argv)
{
  g_autofree char *out = NULL, *format = NULL;
  int status;
  gboolean include_no_archive = FALSE;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the mbox file (or the Maildir directory) to write", "PATH" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "mboxrd (default) or maildir", "mboxrd|maildir" },
    { "include-no-archive", 0, 0, G_OPTION_ARG_NONE, &include_no_archive,
      "also posts whose authors asked not to be archived (X-No-Archive: yes)", NULL },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  ExportMbox *writer;
  gboolean maildir, ok;

  if (!deja_run_parse (run, "— write the messages as a clean mbox", entries,
    "Writes every canonical message (duplicates once), in archive order, read back from its\n"
    "archive file: a well-formed 'From ' envelope (sender and date), the message as deja read\n"
    "it, and mboxrd quoting (one more '>' on every line matching ^>*From ), so that Python's\n"
    "mailbox, mutt and git find exactly deja's messages.  The archives must still be where\n"
    "they were ingested, unchanged.  --format maildir writes one file per message into\n"
    "PATH/cur.  Posts marked X-No-Archive: yes are left out unless --include-no-archive.",
    &argc, &argv, &status))
    return status;
  if (out == NULL)
    return deja_usage_error (run->context, "--out is required");
  if (format && strcmp (format, "mboxrd") && strcmp (format, "maildir"))
    return deja_usage_error (run->context, "--format must be mboxrd or maildir");
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  maildir = format && strcmp (format, "maildir") == 0;
  if ((writer = export_mbox_new (out, maildir, &error)) == NULL)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  run->filter_sql.canonical_only = TRUE;
  run->filter_sql.no_archive = include_no_archive ? STORE_NO_ARCHIVE_INCLUDE : STORE_NO_ARCHIVE_SKIP;
  ok = store_archive_rows (store, &run->filter_sql, export_mbox_row, writer, &error);
  {
    guint64 n = export_mbox_count (writer);
    ok = export_mbox_free (writer, ok, ok ? &error : NULL) && ok;
    if (!ok)
      {
        deja_error ("cannot export to '%s': %s", out, error ? error->message : "failed");
        return DEJA_EXIT_FAILED;
      }
    deja_note ("wrote %" G_GUINT64_FORMAT " messages to '%s'", n, out);
  }
  return DEJA_EXIT_OK;
}
