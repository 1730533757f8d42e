/* profile.c — summed stage times for deja ingest --profile. */
#include "profile.h"

#include <time.h>

static gboolean enabled;
static gint64 spent[PROFILE_N_STAGES];   /* microseconds, added atomically */
static guint beside_threads;             /* that PROFILE_FTS_BESIDE is summed over */
static gint64 beside_spent[PROFILE_BESIDE_THREADS_MAX];   /* each one's part of it */

static const char *const names[PROFILE_N_STAGES] = {
  [PROFILE_WAIT] = "waiting for decoders",
  [PROFILE_ROW] = "making rows",
  [PROFILE_FILES] = "files begun, finished",
  [PROFILE_MESSAGES] = "messages rows",
  [PROFILE_FTS] = "full-text index",
  [PROFILE_OTHER_ROWS] = "other rows",
  [PROFILE_COMMIT] = "commits",
  [PROFILE_INDEXES] = "secondary indexes",
  [PROFILE_THREADS] = "threads",
  [PROFILE_AUTHORS] = "authors",
  [PROFILE_ANALYSIS] = "analysis after",
  [PROFILE_DECODE] = "decoding",
  [PROFILE_SIGNALS] = "language and signals",
  [PROFILE_FTS_BESIDE] = "full-text index",
};

void
profile_enable (void)
{
  enabled = TRUE;
}

gboolean
profile_enabled (void)
{
  return enabled;
}

/* The time now, or 0 when profiling is off. */
gint64
profile_start (void)
{
  return enabled ? g_get_monotonic_time () : 0;
}

/* The CPU time of the calling thread, or 0 when profiling is off. */
gint64
profile_cpu_start (void)
{
  struct timespec now;

  if (!enabled || clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now) != 0)
    return 0;
  return (gint64) now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

/* The calling thread's CPU time since @started (profile_cpu_start()),
 * or 0 */
static gint64
cpu_since (gint64 started)
{
  gint64 now = profile_cpu_start ();

  return enabled && started > 0 && now > started ? now - started : 0;
}

/* Adds the calling thread's CPU time since @started (profile_cpu_start())
 * to @stage. */
void
profile_cpu_stop (ProfileStage stage, gint64 started)
{
  __atomic_fetch_add (&spent[stage], cpu_since (started), __ATOMIC_RELAXED);
}

/* Adds the time since @started (profile_start()) to @stage. */
void
profile_stop (ProfileStage stage, gint64 started)
{
  if (enabled)
    __atomic_fetch_add (&spent[stage], g_get_monotonic_time () - started, __ATOMIC_RELAXED);
}

/* How many threads make the full-text index beside the writer */
void
profile_beside_threads (guint n)
{
  beside_threads = MIN (n, PROFILE_BESIDE_THREADS_MAX);
}

/* profile_cpu_stop() of PROFILE_FTS_BESIDE, for the @thread'th of those
 * threads: its own part is kept too. */
void
profile_beside_cpu_stop (guint thread, gint64 started)
{
  gint64 spent_here = cpu_since (started);

  __atomic_fetch_add (&spent[PROFILE_FTS_BESIDE], spent_here, __ATOMIC_RELAXED);
  if (thread < PROFILE_BESIDE_THREADS_MAX)
    __atomic_fetch_add (&beside_spent[thread], spent_here, __ATOMIC_RELAXED);
}

/* The CPU seconds of the @k'th thread beside the writer */
static double
beside_seconds (guint k)
{
  return (double) __atomic_load_n (&beside_spent[k], __ATOMIC_RELAXED) / 1e6;
}

/* The CPU seconds of the busiest of them */
static double
busiest_beside (void)
{
  double most = 0;

  for (guint k = 0; k < beside_threads; k++)
    most = MAX (most, beside_seconds (k));
  return most;
}

double
profile_seconds (ProfileStage stage)
{
  return (double) __atomic_load_n (&spent[stage], __ATOMIC_RELAXED) / 1e6;
}

/* The archive's MiB/s were each stage given all the cores it can use:
 * the writer's work beside the decoders, or the busiest of the threads
 * that make the full-text index, whichever is longer; then the writer's
 * work at the end (secondary indexes, threads, authors), which nothing
 * goes beside. */
static double
ceiling (guint64 bytes, double writer_during, double writer_after)
{
  return bytes / 1048576.0 / MAX (MAX (writer_during, busiest_beside ()) + writer_after, 1e-6);
}

/* One line per stage: seconds, and the writer's share of @wall_seconds;
 * the writer's stages first, then the decoders' CPU time; with @bytes
 * (of archive read), the speed and the ceilings. */
char *
profile_describe (double wall_seconds, guint64 bytes)
{
  GString *s = g_string_new (NULL);
  double writer = 0, after = 0;

  for (int i = PROFILE_WAIT; i < PROFILE_DECODE; i++)
    {
      double secs = profile_seconds ((ProfileStage) i);

      writer += i == PROFILE_WAIT ? 0 : secs;
      after += i >= PROFILE_INDEXES ? secs : 0;
      g_string_append_printf (s, "  writer  %-22s %8.2f s  %5.1f %%\n", names[i], secs,
                              wall_seconds > 0 ? 100 * secs / wall_seconds : 0);
    }
  g_string_append_printf (s, "  writer  %-22s %8.2f s  %5.1f %%\n", "busy (all but waiting)", writer,
                          wall_seconds > 0 ? 100 * writer / wall_seconds : 0);
  for (int i = PROFILE_DECODE; i < PROFILE_N_STAGES; i++)
    {
      g_string_append_printf (s, "  %-7s %-22s %8.2f s CPU", i == PROFILE_FTS_BESIDE ? "beside" : "workers",
                              names[i], profile_seconds ((ProfileStage) i));
      /* the threads' parts, when they are several: how evenly the rows went */
      for (guint k = 0; i == PROFILE_FTS_BESIDE && beside_threads > 1 && k < beside_threads; k++)
        g_string_append_printf (s, "%s%.2f%s", k == 0 ? " (" : ", ", beside_seconds (k),
                                k + 1 == beside_threads ? " s a thread)" : "");
      g_string_append_c (s, '\n');
    }
  g_string_append_printf (s, "  wall %.2f s", wall_seconds);
  /* The writer cannot go faster than its own work allows, whatever the
   * cores: the ceiling more decoders approach; nor the full-text index
   * made beside it faster than its threads allow. */
  if (bytes > 0 && writer > 0)
    g_string_append_printf (s, "; %.1f MiB/s, the writer's ceiling %.1f MiB/s",
                            bytes / 1048576.0 / MAX (wall_seconds, 1e-3), bytes / 1048576.0 / writer);
  if (bytes > 0 && writer > 0 && beside_threads > 0)
    g_string_append_printf (s, ", with the full-text index's %u thread%s %.1f MiB/s", beside_threads,
                            beside_threads == 1 ? "" : "s", ceiling (bytes, writer - after, after));
  return g_string_free (s, FALSE);
}
