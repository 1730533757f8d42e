/* cpus.c — how many CPUs this process may use.
 *
 * deja starts a decoding thread per CPU, and the full-text index on a
 * thread of its own when there is more than one.  GLib 2.74's
 * g_get_num_processors() counts the machine's CPUs: under `taskset -c 0`,
 * in a Slurm job given 4 CPUs of a 64-core node, or in a container
 * limited to 2 CPUs, deja started as many threads as the node has, which
 * then took turns on the CPUs they were given.  What a process may use is
 * the least of:
 *
 *  - its affinity mask (sched_getaffinity(2)), which taskset, numactl,
 *    Slurm's task/affinity and task/cgroup plugins (cpuset) and
 *    `docker run --cpuset-cpus` set;
 *  - its cgroup v2 CPU quota (`cpu.max`, "QUOTA PERIOD" in microseconds,
 *    or "max"), which `docker run --cpus`, systemd's CPUQuota= and
 *    Kubernetes limits set: QUOTA / PERIOD CPUs' worth of time, rounded
 *    up.  The least quota on the way from the process's cgroup up to the
 *    root counts, as the kernel applies each of them;
 *  - its cgroup v1 CPU quota (`cpu.cfs_quota_us` over `cpu.cfs_period_us`,
 *    -1 for none), on machines that still mount v1 (RHEL 7 and 8, many
 *    clusters; this one's containers too).
 *
 * The cgroup files are found where /proc/self/mountinfo says the
 * hierarchy is mounted, as seen from this process (a container sees its
 * own cgroup as the top).  -j N overrides all of this.
 */
#include "cpus.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/**
 * cgroup_parse_number:
 * @text: (nullable): a cgroup file's number, after any blanks
 * @value: (out): the number
 * @end: (out): where it ends
 *
 * Returns: whether @text begins with a number of 64 bits
 */
gboolean
cgroup_parse_number (const char *text, guint64 *value, char **end)
{
  if (text == NULL)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (!g_ascii_isdigit (*text))
    return FALSE;
  errno = 0;
  *value = g_ascii_strtoull (text, end, 10);
  return errno == 0 && *end != text;
}

/**
 * cpus_parse_cgroup_max:
 * @text: the content of a cgroup v2 `cpu.max` file: "max 100000",
 *   "150000 100000" (the period may be left out: 100000)
 *
 * Returns: the CPUs the quota is worth, rounded up (at least 1), or 0
 *   when there is no quota ("max") or @text is not understood
 */
guint
cpus_parse_cgroup_max (const char *text)
{
  char *end;
  guint64 quota, period = 100000;

  if (!cgroup_parse_number (text, &quota, &end) || quota == 0)
    return 0;
  text = end;
  if (*text == ' ' || *text == '\t')
    {
      while (*text == ' ' || *text == '\t')
        text++;
      if (!g_ascii_isdigit (*text))
        return 0;
      period = g_ascii_strtoull (text, &end, 10);
      if (errno || end == text || period == 0)
        return 0;
      text = end;
    }
  while (g_ascii_isspace (*text))
    text++;
  if (*text != '\0')
    return 0;
  return (guint) MIN (quota / period + (quota % period != 0), (guint64) G_MAXUINT);
}

/**
 * cpus_parse_cfs:
 * @quota: the content of a cgroup v1 `cpu.cfs_quota_us` ("-1": none)
 * @period: that of `cpu.cfs_period_us`
 *
 * Returns: the CPUs the quota is worth, rounded up (at least 1), or 0
 *   when there is none or the texts are not understood
 */
guint
cpus_parse_cfs (const char *quota, const char *period)
{
  g_autofree char *q = NULL, *p = NULL, *both = NULL;

  if (quota == NULL || period == NULL)
    return 0;
  q = g_strstrip (g_strdup (quota));
  p = g_strstrip (g_strdup (period));
  /* Each one number: an empty quota is not the period alone */
  if (!g_ascii_isdigit (*q) || !g_ascii_isdigit (*p) || strpbrk (q, " \t") || strpbrk (p, " \t"))
    return 0;
  both = g_strdup_printf ("%s %s", q, p);
  return cpus_parse_cgroup_max (both);
}

/* Whether @word is one of the comma-separated words of @list (@len bytes) */
static gboolean
has_word (const char *list, gsize len, const char *word)
{
  gsize n = strlen (word);

  for (const char *p = list; p < list + len;)
    {
      const char *comma = memchr (p, ',', (gsize) (list + len - p));
      gsize k = comma ? (gsize) (comma - p) : (gsize) (list + len - p);

      if (k == n && strncmp (p, word, n) == 0)
        return TRUE;
      p += k + 1;
    }
  return FALSE;
}

/**
 * cpus_parse_cgroup_path:
 * @text: the content of /proc/self/cgroup
 * @v2: the cgroup v2 path ("0::PATH"); %FALSE: the cgroup v1 path of the
 *   hierarchy whose controllers include "cpu" ("4:cpu,cpuacct:PATH")
 *
 * Returns: (transfer full) (nullable): the process's cgroup path ("/" or
 *   "/user.slice/…"), or %NULL when it has none
 */
char *
cpus_parse_cgroup_path (const char *text, gboolean v2)
{
  return cgroup_parse_path (text, v2, "cpu");
}

/* cpus_parse_cgroup_path() of the v1 hierarchy of @controller */
char *
cgroup_parse_path (const char *text, gboolean v2, const char *controller)
{
  for (const char *line = text; line && *line;)
    {
      const char *end = strchr (line, '\n');
      gsize len = end ? (gsize) (end - line) : strlen (line);
      const char *a = memchr (line, ':', len), *b;

      if (a && (b = memchr (a + 1, ':', (gsize) (line + len - a - 1))) && b[1] == '/')
        {
          gboolean is_v2 = a - line == 1 && line[0] == '0' && b == a + 1;

          if (v2 ? is_v2 : !is_v2 && has_word (a + 1, (gsize) (b - a - 1), controller))
            return g_strndup (b + 1, (gsize) (line + len - b - 1));
        }
      line = end ? end + 1 : NULL;
    }
  return NULL;
}

/* A path of /proc/self/mountinfo, whose spaces, tabs, newlines and
 * backslashes are written as octal escapes (\040) */
static gboolean
is_octal (char c)
{
  return c >= '0' && c <= '7';
}

static char *
unescape (const char *s)
{
  gsize len = strlen (s);
  GString *out = g_string_sized_new (len);

  for (gsize i = 0; i < len; i++)
    if (s[i] == '\\' && i + 3 < len && is_octal (s[i + 1]) && is_octal (s[i + 2]) && is_octal (s[i + 3]))
      {
        g_string_append_c (out, (char) ((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
        i += 3;
      }
    else
      g_string_append_c (out, s[i]);
  return g_string_free (out, FALSE);
}

/**
 * cpus_parse_cgroup_mount:
 * @text: the content of /proc/self/mountinfo
 * @v2: the cgroup2 mount; %FALSE: the cgroup v1 mount of the "cpu"
 *   controller
 * @root: (out) (transfer full): the cgroup the mount shows as its top
 * @mount_point: (out) (transfer full): where it is mounted
 *
 * Returns: whether there is such a mount (the first one)
 */
gboolean
cpus_parse_cgroup_mount (const char *text, gboolean v2, char **root, char **mount_point)
{
  return cgroup_parse_mount (text, v2, "cpu", root, mount_point);
}

/* cpus_parse_cgroup_mount() of the v1 mount of @controller */
gboolean
cgroup_parse_mount (const char *text, gboolean v2, const char *controller, char **root, char **mount_point)
{
  *root = *mount_point = NULL;
  for (const char *line = text; line && *line;)
    {
      const char *end = strchr (line, '\n');
      g_autofree char *copy = g_strndup (line, end ? (gsize) (end - line) : strlen (line));
      g_auto (GStrv) fields = g_strsplit (copy, " ", -1);
      guint n = g_strv_length (fields), dash;

      line = end ? end + 1 : NULL;
      /* id parent major:minor root mount-point options [optional...] - type source super-options */
      for (dash = 6; dash < n && strcmp (fields[dash], "-") != 0; dash++)
        ;
      if (n < 6 || dash + 3 >= n)
        continue;
      if (v2 ? strcmp (fields[dash + 1], "cgroup2") != 0
             : strcmp (fields[dash + 1], "cgroup") != 0 ||
               !has_word (fields[dash + 3], strlen (fields[dash + 3]), controller))
        continue;
      *root = unescape (fields[3]);
      *mount_point = unescape (fields[4]);
      return TRUE;
    }
  return FALSE;
}

/* CPUs in the affinity mask, 0 when unknown.  The mask is grown until it
 * holds every CPU the kernel knows (more than CPU_SETSIZE, 1,024, on the
 * largest machines). */
static guint
affinity_count (void)
{
  for (int n = CPU_SETSIZE; n <= 1 << 20; n *= 2)
    {
      cpu_set_t *set = CPU_ALLOC (n);
      gsize size = CPU_ALLOC_SIZE (n);
      int count = 0;

      if (set == NULL)
        return 0;
      CPU_ZERO_S (size, set);
      if (sched_getaffinity (0, size, set) == 0)
        count = CPU_COUNT_S (size, set);
      else if (errno == EINVAL)
        count = -1;
      CPU_FREE (set);
      if (count >= 0)
        return (guint) count;
    }
  return 0;
}

/* The quota of one cgroup directory, 0 when none */
static guint64
quota_here (const char *dir, gboolean v2)
{
  g_autofree char *max = NULL, *quota = NULL, *period = NULL;
  g_autofree char *max_file = g_build_filename (dir, "cpu.max", NULL);
  g_autofree char *quota_file = g_build_filename (dir, "cpu.cfs_quota_us", NULL);
  g_autofree char *period_file = g_build_filename (dir, "cpu.cfs_period_us", NULL);

  if (v2)
    return g_file_get_contents (max_file, &max, NULL, NULL) ? cpus_parse_cgroup_max (max) : 0;
  if (!g_file_get_contents (quota_file, &quota, NULL, NULL) ||
      !g_file_get_contents (period_file, &period, NULL, NULL))
    return 0;
  return cpus_parse_cfs (quota, period);
}

/* The least limit (@here's of each directory, 0 for none) from the
 * process's cgroup up to the top of the mount that shows it, in cgroup
 * v2 or v1 (@v2, of @controller), 0 when none */
guint64
cgroup_least_in (const char *mountinfo, const char *cgroups, gboolean v2, const char *controller,
                 guint64 (*here) (const char *dir, gboolean v2))
{
  g_autofree char *root = NULL, *mount_point = NULL, *path = NULL, *dir = NULL;
  const char *relative;
  gsize top;
  guint64 least = 0;

  if (!cgroup_parse_mount (mountinfo, v2, controller, &root, &mount_point) ||
      (path = cgroup_parse_path (cgroups, v2, controller)) == NULL)
    return 0;
  /* The path is from the hierarchy's top, the mount shows it from root */
  relative = path;
  if (strcmp (root, "/") != 0 && g_str_has_prefix (path, root) &&
      (path[strlen (root)] == '/' || path[strlen (root)] == '\0'))
    relative = path + strlen (root);
  dir = g_build_filename (mount_point, relative, NULL);
  top = strlen (mount_point);
  for (;;)
    {
      guint64 limit = here (dir, v2);
      char *slash;

      if (limit > 0)
        least = least ? MIN (least, limit) : limit;
      if (strlen (dir) <= top || (slash = strrchr (dir, '/')) == NULL || (gsize) (slash - dir) < top)
        break;
      *slash = '\0';
    }
  return least;
}

/* The least cgroup CPU quota that applies to this process, 0 when none */
static guint
quota_count (void)
{
  g_autofree char *mountinfo = NULL, *cgroups = NULL;
  guint v2, v1;

  if (!g_file_get_contents ("/proc/self/mountinfo", &mountinfo, NULL, NULL) ||
      !g_file_get_contents ("/proc/self/cgroup", &cgroups, NULL, NULL))
    return 0;
  v2 = (guint) MIN (cgroup_least_in (mountinfo, cgroups, TRUE, "cpu", quota_here), G_MAXUINT);
  v1 = (guint) MIN (cgroup_least_in (mountinfo, cgroups, FALSE, "cpu", quota_here), G_MAXUINT);
  return v2 && v1 ? MIN (v2, v1) : MAX (v2, v1);
}

/**
 * cpus_count:
 * @count: (out caller-allocates): the counts, and the least of them
 *
 * Reads the affinity mask and the cgroup quota now (they can change).
 */
void
cpus_count (CpuCount *count)
{
  guint available;

  count->online = MAX (g_get_num_processors (), 1);
  count->affinity = affinity_count ();
  count->quota = quota_count ();
  available = count->online;
  if (count->affinity > 0)
    available = MIN (available, count->affinity);
  if (count->quota > 0)
    available = MIN (available, count->quota);
  count->available = MAX (available, 1);
}

/**
 * cpus_available:
 *
 * Returns: how many CPUs this process may use (at least 1): the default
 *   number of threads wherever deja takes -j N
 */
guint
cpus_available (void)
{
  CpuCount count;

  cpus_count (&count);
  return count.available;
}

/**
 * cpus_describe:
 *
 * Returns: (transfer full): "2 CPUs", or "1 CPU of 2: affinity mask",
 *   "4 CPUs of 64: cgroup CPU quota", for a note
 */
char *
cpus_describe (const CpuCount *count)
{
  const char *why;

  if (count->available >= count->online)
    return g_strdup_printf ("%u CPU%s", count->available, count->available == 1 ? "" : "s");
  if (count->quota > 0 && count->quota == count->available &&
      (count->affinity == 0 || count->affinity > count->quota))
    why = "cgroup CPU quota";
  else
    why = "affinity mask";
  return g_strdup_printf ("%u CPU%s of %u: %s", count->available, count->available == 1 ? "" : "s",
                          count->online, why);
}
