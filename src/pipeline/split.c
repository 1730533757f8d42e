/* split.c — counting and describing the splitter's judgements. */
#include "split.h"
#include "charset.h"
#include "walk.h"

void
split_count_log (SplitCounts *c, const MboxLogEntry *e, gsize n)
{
  for (gsize i = 0; i < n; i++)
    switch (e[i].verdict)
      {
      case MBOX_VERDICT_ACCEPTED: c->accepted++; break;
      case MBOX_VERDICT_REJECTED: c->rejected++; break;
      case MBOX_VERDICT_BODY: c->body++; break;
      }
}

/**
 * split_line_text:
 *
 * Returns: (transfer full): the logged line as UTF-8 (raw 8-bit bytes
 * read as UTF-8 or windows-1252), without its line ending
 */
char *
split_line_text (const char *buf, const MboxLogEntry *e)
{
  return charset_to_utf8 (buf + e->offset, e->length, NULL, NULL);
}

/* Returns: (transfer full): "N messages, A separators accepted against
 * context, R envelope-shaped lines rejected, L lines where a liberal
 * parser would split and deja does not" (L = rejected + body lines),
 * and how many certain separators followed their message without a
 * blank line, when there are any. */
char *
split_counts_describe (const SplitCounts *c)
{
  g_autofree char *adjacent = c->adjacent == 0 ? g_strdup ("") :
    g_strdup_printf (" (%" G_GUINT64_FORMAT " certain separators right after the message"
                     " before, without a blank line, not logged)", c->adjacent);

  return g_strdup_printf ("%" G_GUINT64_FORMAT " messages, %" G_GUINT64_FORMAT
                          " separators accepted against context, %" G_GUINT64_FORMAT
                          " envelope-shaped lines rejected, %" G_GUINT64_FORMAT
                          " lines where a liberal parser would split and deja does not%s",
                          c->messages, c->accepted, c->rejected, c->rejected + c->body, adjacent);
}

/**
 * split_new:
 * @input: (transfer none): what to split; must outlive the splitter
 * @path: its path, which says whether it is one message (a Maildir file)
 * @force: %MBOX_SPLIT_FORCE, or %MBOX_SPLIT_NONE
 *
 * The splitter for @input as scan and ingest read it: a Maildir file is
 * one message, a container that knows its messages (a public-inbox
 * epoch) gives their bounds.
 *
 * Returns: (transfer full): the splitter
 */
MboxSplitter *
split_new (const Input *input, const char *path, MboxSplitFlags force)
{
  MboxSplitter *s = mbox_splitter_new (input->data, input->len,
                                       force | (walk_is_maildir_message (path) ? MBOX_SPLIT_SINGLE : 0));

  if (input->starts != NULL)
    mbox_splitter_set_bounds (s, (const goffset *) input->starts->data, input->starts->len);
  return s;
}
