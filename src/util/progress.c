/* progress.c — one live line on stderr for long work.
 *
 *   deja: 12/40 files  comp.lang.c.mbox 41%  812.0/2048.0 MiB  180,331 messages  88.1 MiB/s  ETA 0:42
 *
 * A run (progress_run_new(): the files of an ingest, the shards of a
 * merge) and the item under way (progress_new(): one file's bytes) share
 * the line.  Shown only when stderr is a terminal (a log file or a test
 * gets no carriage returns, and sees exactly what it saw before), at most
 * four times a second, and erased before anything else is written.
 */
#include "output.h"
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

struct _Progress {
  char *label;
  guint64 total;
  gint64 start;
  gint64 last;
  gboolean shown;
  gboolean enabled;
};

struct _ProgressRun {
  char *what;             /* "files", "shards" */
  guint items, done;
  guint64 total_bytes;    /* of every item, as on disk */
  guint64 done_bytes;     /* of the items finished */
  guint64 item_bytes;     /* of the item under way */
  guint64 messages;       /* of the items finished */
  gint64 start;
  gboolean enabled;
};

/* The run the items belong to: one at a time, on the thread that writes. */
static ProgressRun *current_run;
static gboolean line_shown;
static gint64 line_last;

static gboolean
wanted (void)
{
  return isatty (STDERR_FILENO) && g_getenv ("DEJA_NO_PROGRESS") == NULL;
}

/**
 * progress_live:
 *
 * Returns: whether a live line is shown (stderr is a terminal and
 *   DEJA_NO_PROGRESS is not set): callers leave out the per-item lines it
 *   replaces
 */
gboolean
progress_live (void)
{
  return wanted ();
}

static void
erase (void)
{
  if (line_shown)
    fputs ("\r\033[K", stderr);
  line_shown = FALSE;
}

/**
 * progress_clear:
 *
 * Erases the live line, before a message is written to stderr.
 */
void
progress_clear (void)
{
  erase ();
  fflush (stderr);
}

/**
 * progress_phase:
 * @what: what the work is doing now ("threading 'x.db'"), shown on the
 *   live line until the next message or line
 *
 * For the corpus-wide steps after a run of items (threads, indexes,
 * authors), which have no count to show: a terminal says what is under
 * way instead of going quiet.  Nothing when no live line is shown.
 */
void
progress_phase (const char *what)
{
  g_autoptr (GString) line = g_string_new ("deja: ");

  if (!wanted ())
    return;
  erase ();
  /* a path quoted as every message quotes it: no escape sequence of its
   * own reaches the terminal */
  output_terminal_text (line, what, FALSE);
  g_string_append (line, "…");
  fputs (line->str, stderr);
  fflush (stderr);
  line_shown = TRUE;
  line_last = g_get_monotonic_time ();
}

static void
format_eta (GString *line, double seconds)
{
  guint s = (guint) (seconds + 0.5);

  if (s >= 3600)
    g_string_append_printf (line, "  ETA %u:%02u:%02u", s / 3600, s / 60 % 60, s % 60);
  else
    g_string_append_printf (line, "  ETA %u:%02u", s / 60, s % 60);
}

/* Draws the line: the run's part, then the item's (NULL: between items). */
static void
draw (const Progress *p, guint64 bytes, guint64 messages)
{
  ProgressRun *r = current_run;
  g_autoptr (GString) line = g_string_new ("\r\033[Kdeja: ");
  gint64 now = g_get_monotonic_time ();
  double fraction = p && p->total ? (double) bytes / p->total : 0;

  if (r != NULL && r->items > 1)
    g_string_append_printf (line, "%u/%u %s  ", r->done, r->items, r->what);
  if (p != NULL)
    g_string_append_printf (line, "%s %3.0f%%  ", p->label, 100.0 * fraction);
  if (r != NULL && r->total_bytes > 0)
    {
      double done = r->done_bytes + fraction * r->item_bytes;
      double secs = (now - r->start) / 1e6;
      double rate = secs > 0 ? done / secs : 0;

      g_string_append_printf (line, "%.1f/%.1f MiB  %'" G_GUINT64_FORMAT " messages  %.1f MiB/s",
                              done / 1048576.0, r->total_bytes / 1048576.0, r->messages + messages,
                              rate / 1048576.0);
      if (rate > 0 && done > 0 && secs >= 2)
        format_eta (line, (r->total_bytes - done) / rate);
    }
  else if (p != NULL)
    {
      double secs = (now - p->start) / 1e6, mib = bytes / 1048576.0;

      g_string_append_printf (line, "%.1f/%.1f MiB  %'" G_GUINT64_FORMAT " messages  %.1f MiB/s",
                              mib, p->total / 1048576.0, messages, secs > 0 ? mib / secs : 0.0);
    }
  fputs (line->str, stderr);
  fflush (stderr);
  line_shown = TRUE;
  line_last = now;
}

Progress *
progress_new (const char *label, guint64 total_bytes)
{
  Progress *p = g_new0 (Progress, 1);

  p->label = g_path_get_basename (label);
  p->total = total_bytes;
  p->start = p->last = g_get_monotonic_time ();
  p->enabled = wanted ();
  return p;
}

void
progress_update (Progress *p, guint64 bytes, guint64 messages)
{
  gint64 now = g_get_monotonic_time ();

  if (!p->enabled || now - p->last < 250000 || now - line_last < 250000)
    return;
  p->last = now;
  p->shown = TRUE;
  draw (p, bytes, messages);
}

void
progress_free (Progress *p)
{
  if (p == NULL)
    return;
  if (p->shown && current_run == NULL)
    progress_clear ();
  g_free (p->label);
  g_free (p);
}

/**
 * progress_run_new:
 * @what: what the items are ("files", "shards")
 * @items: how many
 * @total_bytes: their size on disk, for the rate and the ETA
 *
 * A run of items sharing one live line; the items' own progress
 * (progress_new()) shows on it.
 *
 * Returns: (transfer full): the run
 */
ProgressRun *
progress_run_new (const char *what, guint items, guint64 total_bytes)
{
  ProgressRun *r = g_new0 (ProgressRun, 1);

  r->what = g_strdup (what);
  r->items = items;
  r->total_bytes = total_bytes;
  r->start = g_get_monotonic_time ();
  r->enabled = wanted ();
  current_run = r;
  return r;
}

/* The next item, of @bytes on disk, starts. */
void
progress_run_next (ProgressRun *r, guint64 bytes)
{
  r->item_bytes = bytes;
  if (r->enabled && g_get_monotonic_time () - line_last >= 250000)
    draw (NULL, 0, 0);
}

/* The item under way is done, with @messages stored. */
void
progress_run_done (ProgressRun *r, guint64 messages)
{
  r->done++;
  r->done_bytes += r->item_bytes;
  r->item_bytes = 0;
  r->messages += messages;
  if (r->enabled && g_get_monotonic_time () - line_last >= 250000)
    draw (NULL, 0, 0);
}

void
progress_run_free (ProgressRun *r)
{
  if (r == NULL)
    return;
  if (current_run == r)
    current_run = NULL;
  progress_clear ();
  g_free (r->what);
  g_free (r);
}
