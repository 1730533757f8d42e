/* memory.c — how much memory this process may use.
 *
 * Where deja may trade memory for time (the threading plan, held in
 * memory up to a number of messages: store-thread-batches.c), it asks
 * what the process may use: the least of the machine's memory and the
 * cgroup memory limits on the way from the process's cgroup up to the
 * top (v2 `memory.max`, "max" for none; v1 `memory.limit_in_bytes`, a
 * number near 2^63 for none), which Slurm's task/cgroup plugin, `docker
 * run --memory`, systemd's MemoryMax= and Kubernetes limits set.  The
 * hierarchy is found as for CPUs (cpus.c).
 */
#include "memory.h"
#include "cpus.h"

#include <unistd.h>

/* A v1 limit this large is none: the kernel's default is the largest
 * page-aligned number under 2^63 */
#define NO_LIMIT (G_GUINT64_CONSTANT (1) << 62)

/**
 * memory_parse_limit:
 * @text: the content of a cgroup v2 `memory.max` or v1
 *   `memory.limit_in_bytes` file
 *
 * Returns: the limit in bytes, or 0 when there is none ("max", a v1
 *   number past 2^62) or @text is not understood
 */
guint64
memory_parse_limit (const char *text)
{
  char *end;
  guint64 bytes;

  if (!cgroup_parse_number (text, &bytes, &end) || bytes >= NO_LIMIT)
    return 0;
  while (g_ascii_isspace (*end))
    end++;
  return *end == '\0' ? bytes : 0;
}

/* The limit of one cgroup directory, 0 when none */
static guint64
limit_here (const char *dir, gboolean v2)
{
  g_autofree char *file = g_build_filename (dir, v2 ? "memory.max" : "memory.limit_in_bytes", NULL);
  g_autofree char *text = NULL;

  return g_file_get_contents (file, &text, NULL, NULL) ? memory_parse_limit (text) : 0;
}

static guint64
least (guint64 a, guint64 b)
{
  return a && b ? MIN (a, b) : MAX (a, b);
}

/**
 * memory_cgroup_limit:
 * @mountinfo: the content of /proc/self/mountinfo
 * @cgroups: the content of /proc/self/cgroup
 *
 * Returns: the least memory limit of the cgroups (v2 and v1) from the
 *   process's up to the top, 0 when none
 */
guint64
memory_cgroup_limit (const char *mountinfo, const char *cgroups)
{
  return least (cgroup_least_in (mountinfo, cgroups, TRUE, "memory", limit_here),
                cgroup_least_in (mountinfo, cgroups, FALSE, "memory", limit_here));
}

/**
 * memory_available:
 *
 * Returns: the bytes this process may use: the machine's memory, or
 *   less where a cgroup limits it; 0 when unknown
 */
guint64
memory_available (void)
{
  g_autofree char *mountinfo = NULL, *cgroups = NULL;
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  guint64 bytes = pages > 0 && page > 0 ? (guint64) pages * (guint64) page : 0;

  if (g_file_get_contents ("/proc/self/mountinfo", &mountinfo, NULL, NULL) &&
      g_file_get_contents ("/proc/self/cgroup", &cgroups, NULL, NULL))
    bytes = least (bytes, memory_cgroup_limit (mountinfo, cgroups));
  return bytes;
}
