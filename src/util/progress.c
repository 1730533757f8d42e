/* progress.c — "deja: name  41% 412.0/1000.0 MiB  180,331 messages  88.1 MiB/s".
 *
 * Shown only when stderr is a terminal (a log file or a test gets no
 * carriage returns), at most four times a second, and erased at the end.
 */
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

Progress *
progress_new (const char *label, guint64 total_bytes)
{
  Progress *p = g_new0 (Progress, 1);

  p->label = g_path_get_basename (label);
  p->total = total_bytes;
  p->start = p->last = g_get_monotonic_time ();
  p->enabled = isatty (STDERR_FILENO) && g_getenv ("DEJA_NO_PROGRESS") == NULL;
  return p;
}

void
progress_update (Progress *p, guint64 bytes, guint64 messages)
{
  gint64 now = g_get_monotonic_time ();
  double secs = (now - p->start) / 1e6, mib = bytes / 1048576.0;

  if (!p->enabled || now - p->last < 250000)
    return;
  p->last = now;
  p->shown = TRUE;
  fprintf (stderr, "\r\033[Kdeja: %s  %3.0f%% %.1f/%.1f MiB  %'" G_GUINT64_FORMAT
           " messages  %.1f MiB/s", p->label,
           p->total ? 100.0 * bytes / p->total : 100.0, mib, p->total / 1048576.0,
           messages, secs > 0 ? mib / secs : 0.0);
  fflush (stderr);
}

void
progress_free (Progress *p)
{
  if (p == NULL)
    return;
  if (p->shown)
    fputs ("\r\033[K", stderr);
  g_free (p->label);
  g_free (p);
}
