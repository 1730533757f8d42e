/* cmd-scan.c — deja scan PATH...: the splitter alone, no database.
 *
 * How a researcher audits an archive before ingesting it, and how the
 * splitter's raw speed is measured: nothing is decoded or stored.
 */
#include "deja.h"
#include "input.h"
#include "split.h"
#include "walk.h"

#include <stdio.h>

static void
print_entry (const char *path, const char *buf, const MboxLogEntry *e)
{
  g_autofree char *text = split_line_text (buf, e);
  g_autofree char *reasons = mbox_reasons_to_string (e->reasons);

  deja_print ("%s:%" G_GUINT64_FORMAT ": %s %s [%c] %s\n", path, e->line_no,
          mbox_verdict_to_string (e->verdict), reasons, (char) e->shape, text);
}

/* Splits one file; returns FALSE with @error when it is not an mbox. */
/* What the file was read as (deja scan's last words on it). */
static char *
shape_of (const char *path, const Input *input, MboxSplitter *splitter)
{
  const char *what = input->format ? input->format
                     : !mbox_splitter_is_single (splitter) ? "an mbox file"
                     : walk_is_maildir_message (path) ? "one message (a Maildir file)"
                     : "one message (a header block and no envelope: a news article, MH or .eml file)";

  return input->compression && !input->format ? g_strdup_printf ("%s, from %s", what, input->compression) : g_strdup (what);
}

static gboolean
scan_file (const char *path, gboolean force, gboolean log, SplitCounts *counts, char **shape,
           GError **error)
{
  g_autoptr (Input) input = input_open (path, error);
  g_autoptr (MboxSplitter) splitter = NULL;
  MboxSpan span;
  GError *split_error = NULL;

  if (input == NULL)
    return FALSE;
  splitter = split_new (input, path, force ? MBOX_SPLIT_FORCE : MBOX_SPLIT_NONE);
  while (mbox_splitter_next (splitter, &span, &split_error))
    {
      gsize n;
      const MboxLogEntry *entries = mbox_splitter_peek_log (splitter, &n);

      counts->messages++;
      counts->adjacent += span.adjacent;
      split_count_log (counts, entries, n);
      for (gsize i = 0; log && i < n; i++)
        print_entry (path, input->data, &entries[i]);
      mbox_splitter_clear_log (splitter);
      if ((counts->messages & 0xfff) == 0)
        input_release (input, span.offset);
    }
  if (split_error)
    {
      g_propagate_error (error, split_error);
      return FALSE;
    }
  counts->lines = mbox_splitter_get_lines (splitter);
  *shape = shape_of (path, input, splitter);
  return input_check_unchanged (input, error);
}

int
cmd_scan (DejaRun *run, int argc, char **argv)
{
  g_auto (GStrv) paths = NULL;
  gboolean log = FALSE, force = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "log", 'l', 0, G_OPTION_ARG_NONE, &log,
      "list every line the splitter judged: path:line: verdict reasons [shape] text", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "read a file that does not start with a 'From ' envelope", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, "PATH..." },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("PATH... — split mbox files and report, storing nothing");
  g_autoptr (GPtrArray) items = NULL;
  guint failures = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "For each file: messages found, separators accepted against context, lines rejected,\n"
    "and the lines a liberal parser (Python's mailbox, for one) would have split on.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (paths == NULL || paths[0] == NULL)
    return deja_usage_error (context, "no PATH given");

  items = walk_paths (paths);
  for (guint i = 0; i < items->len; i++)
    {
      WalkItem *item = g_ptr_array_index (items, i);
      g_autoptr (GError) error = NULL;
      g_autofree char *shape = NULL;
      SplitCounts counts = { 0 };

      if (item->error != NULL)
        {
          deja_error ("cannot scan '%s': %s", item->path, item->error);
          failures++;
        }
      else if (scan_file (item->path, force, log, &counts, &shape, &error))
        {
          g_autofree char *text = split_counts_describe (&counts);
          deja_print ("%s: %s; read as %s\n", item->path, text, shape);
          if (counts.messages == 0)
            deja_note ("'%s' is empty: no messages", item->path);
        }
      else if (item->from_directory && g_error_matches (error, MBOX_ERROR, MBOX_ERROR_NOT_MBOX))
        deja_note ("skipping '%s': %s", item->path, error->message);
      else
        {
          deja_error ("cannot scan '%s': %s", item->path, error->message);
          failures++;
        }
      fflush (stdout);
    }
  return failures ? DEJA_EXIT_FAILED : DEJA_EXIT_OK;
}
