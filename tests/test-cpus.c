/* test-cpus.c — util/cpus.c: the CPUs deja may use, from the texts the
 * kernel gives (cgroup v2 and v1 quotas, /proc/self/cgroup and
 * /proc/self/mountinfo as found on Debian 12, on a hybrid cgroup host and
 * in a container), and the count on this machine. */
#include "cpus.h"
#include "memory.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include <sched.h>
#include <stdlib.h>
#include <string.h>

static void
test_cgroup_max (void)
{
  static const struct {
    const char *text;
    guint cpus;
  } cases[] = {
    { "max 100000\n", 0 },          /* no quota */
    { "max\n", 0 },
    { "100000 100000\n", 1 },
    { "150000 100000\n", 2 },       /* 1.5 CPUs' time: 2 threads */
    { "50000 100000", 1 },          /* half a CPU: still one */
    { "400000 100000\n", 4 },
    { "200000\n", 2 },              /* the period left out: 100000 */
    { "  300000\t100000  \n", 3 },
    { "0 100000", 0 },
    { "100000 0", 0 },
    { "-1 100000", 0 },
    { "", 0 },
    { "abc", 0 },
    { "100000 100000 7", 0 },
    { "100000x 100000", 0 },
    { "18446744073709551615 1", G_MAXUINT },
    { "18446744073709551615 3", G_MAXUINT },     /* no overflow rounding up */
    { "18446744073709551616 1", 0 },             /* past 2^64 - 1: ERANGE */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpuint (cpus_parse_cgroup_max (cases[i].text), ==, cases[i].cpus);
  g_assert_cmpuint (cpus_parse_cgroup_max (NULL), ==, 0);
}

static void
test_cfs (void)
{
  g_assert_cmpuint (cpus_parse_cfs ("-1\n", "100000\n"), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs ("50000\n", "100000\n"), ==, 1);
  g_assert_cmpuint (cpus_parse_cfs ("250000\n", "100000\n"), ==, 3);
  g_assert_cmpuint (cpus_parse_cfs ("200000\n", "50000\n"), ==, 4);
  g_assert_cmpuint (cpus_parse_cfs ("", "100000"), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs (NULL, "100000"), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs ("100000", "x"), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs ("100000", ""), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs ("1 2", "100000"), ==, 0);
  g_assert_cmpuint (cpus_parse_cfs ("100000", "100000 7"), ==, 0);
}

/* /proc/self/cgroup: unified only (Debian 12), hybrid (v1 controllers and
 * the unified "0::" line), v1 only, a container's own view */
static void
test_cgroup_path (void)
{
  static const char unified[] = "0::/user.slice/user-1000.slice/session-3.scope\n";
  static const char hybrid[] =
    "12:cpuset:/slurm/uid_1000/job_42/step_0\n"
    "4:cpu,cpuacct:/slurm/uid_1000/job_42/step_0\n"
    "3:cpuacct:/other\n"
    "1:name=systemd:/system.slice/slurmd.service\n"
    "0::/system.slice/slurmd.service\n";
  static const char cpu_alone[] = "2:cpuacct:/a\n1:cpu:/\n";
  static const char v1_only[] = "5:memory:/m\n2:cpuset:/c\n";
  static const char no_newline[] = "0::/x y";
  g_autofree char *a = cpus_parse_cgroup_path (unified, TRUE);
  g_autofree char *b = cpus_parse_cgroup_path (unified, FALSE);
  g_autofree char *c = cpus_parse_cgroup_path (hybrid, TRUE);
  g_autofree char *d = cpus_parse_cgroup_path (hybrid, FALSE);
  g_autofree char *e = cpus_parse_cgroup_path (cpu_alone, FALSE);
  g_autofree char *f = cpus_parse_cgroup_path (v1_only, FALSE);
  g_autofree char *g = cpus_parse_cgroup_path (v1_only, TRUE);
  g_autofree char *h = cpus_parse_cgroup_path (no_newline, TRUE);
  g_autofree char *i = cpus_parse_cgroup_path ("", TRUE);

  g_assert_cmpstr (a, ==, "/user.slice/user-1000.slice/session-3.scope");
  g_assert_null (b);
  g_assert_cmpstr (c, ==, "/system.slice/slurmd.service");
  /* "cpu" as a controller of its own, not "cpuacct" or "cpuset" */
  g_assert_cmpstr (d, ==, "/slurm/uid_1000/job_42/step_0");
  g_assert_cmpstr (e, ==, "/");
  g_assert_null (f);
  g_assert_null (g);
  g_assert_cmpstr (h, ==, "/x y");
  g_assert_null (i);
}

/* /proc/self/mountinfo: Debian 12's cgroup2 at /sys/fs/cgroup; a hybrid
 * host with v1 hierarchies and cgroup2 under unified/; optional fields
 * before the dash; a mount point with a space, escaped */
static void
test_cgroup_mount (void)
{
  static const char debian[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
    "28 22 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2"
    " rw,nsdelegate,memory_recursiveprot\n";
  static const char hybrid[] =
    "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "31 30 0:28 /docker/abc /sys/fs/cgroup/cpu\\040here rw,relatime - cgroup cgroup rw,cpu\n"
    "33 30 0:30 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  char *root, *mount_point;

  g_assert_true (cpus_parse_cgroup_mount (debian, TRUE, &root, &mount_point));
  g_assert_cmpstr (root, ==, "/");
  g_assert_cmpstr (mount_point, ==, "/sys/fs/cgroup");
  g_free (root);
  g_free (mount_point);
  g_assert_false (cpus_parse_cgroup_mount (debian, FALSE, &root, &mount_point));
  g_assert_null (root);
  g_assert_null (mount_point);

  g_assert_true (cpus_parse_cgroup_mount (hybrid, FALSE, &root, &mount_point));
  g_assert_cmpstr (root, ==, "/docker/abc");
  g_assert_cmpstr (mount_point, ==, "/sys/fs/cgroup/cpu here");
  g_free (root);
  g_free (mount_point);
  g_assert_true (cpus_parse_cgroup_mount (hybrid, TRUE, &root, &mount_point));
  g_assert_cmpstr (mount_point, ==, "/sys/fs/cgroup/unified");
  g_free (root);
  g_free (mount_point);
  g_assert_false (cpus_parse_cgroup_mount ("garbage\n\n- - -\n", TRUE, &root, &mount_point));
}

/* The count here: never more than the machine's or the affinity mask's,
 * never 0, and cpus_available() agrees with it */
static void
test_count_here (void)
{
  CpuCount count;
  cpu_set_t set;
  g_autofree char *described = NULL, *all = NULL, *of = NULL;

  cpus_count (&count);
  g_assert_cmpuint (count.online, >=, 1);
  g_assert_cmpuint (count.available, >=, 1);
  g_assert_cmpuint (count.available, <=, count.online);
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    {
      g_assert_cmpuint (count.affinity, ==, (guint) CPU_COUNT (&set));
      g_assert_cmpuint (count.available, <=, count.affinity);
    }
  if (count.quota)
    g_assert_cmpuint (count.available, <=, count.quota);
  g_assert_cmpuint (cpus_available (), ==, count.available);
  described = cpus_describe (&count);
  all = g_strdup_printf (count.online == 1 ? "%u CPU" : "%u CPUs", count.online);
  of = g_strdup_printf (" of %u: ", count.online);
  if (count.available == count.online)
    g_assert_cmpstr (described, ==, all);
  else
    g_assert_nonnull (strstr (described, of));
}

/* util/memory.c: a limit's text, v2 and v1 */
static void
test_memory_limit (void)
{
  static const struct {
    const char *text;
    guint64 bytes;
  } cases[] = {
    { "max\n", 0 },
    { "1073741824\n", G_GUINT64_CONSTANT (1073741824) },
    { "  536870912  \n", G_GUINT64_CONSTANT (536870912) },
    { "9223372036854771712\n", 0 },       /* v1's "none" */
    { "4611686018427387904", 0 },          /* 2^62: none */
    { "4611686018427387903", G_GUINT64_CONSTANT (4611686018427387903) },
    { "", 0 },
    { "-1", 0 },
    { "12 34", 0 },
    { "12k", 0 },
    { "18446744073709551616", 0 },         /* past 2^64 - 1 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpuint (memory_parse_limit (cases[i].text), ==, cases[i].bytes);
  g_assert_cmpuint (memory_parse_limit (NULL), ==, 0);
}

static void
put (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* The least limit on the way up, in a cgroup2 tree and a v1 memory
 * hierarchy made in a temporary folder (as a Slurm job's: the job's
 * limit above the step's "max") */
static void
test_memory_cgroups (void)
{
  g_autofree char *top = g_dir_make_tmp ("deja-memory-XXXXXX", NULL);
  g_autofree char *v2 = g_build_filename (top, "v2", NULL);
  g_autofree char *v1 = g_build_filename (top, "v1", NULL);
  g_autofree char *job2 = g_build_filename (v2, "job_42", NULL);
  g_autofree char *step2 = g_build_filename (job2, "step_0", NULL);
  g_autofree char *job1 = g_build_filename (v1, "slurm", "job_42", NULL);
  g_autofree char *mountinfo = g_strdup_printf (
    "28 22 0:24 / %s rw - cgroup2 cgroup2 rw\n"
    "29 22 0:25 / %s rw - cgroup cgroup rw,memory\n", v2, v1);
  g_autofree char *only_v2 = g_strdup_printf ("28 22 0:24 / %s rw - cgroup2 cgroup2 rw\n", v2);
  static const char cgroups[] = "5:memory:/slurm/job_42\n0::/job_42/step_0\n";

  put (v2, "memory.max", "max\n");
  put (job2, "memory.max", "8589934592\n");
  put (step2, "memory.max", "max\n");
  put (v1, "memory.limit_in_bytes", "9223372036854771712\n");
  put (job1, "memory.limit_in_bytes", "4294967296\n");
  g_assert_cmpuint (memory_cgroup_limit (only_v2, cgroups), ==, G_GUINT64_CONSTANT (8589934592));
  g_assert_cmpuint (memory_cgroup_limit (mountinfo, cgroups), ==, G_GUINT64_CONSTANT (4294967296));
  g_assert_cmpuint (memory_cgroup_limit (only_v2, "0::/elsewhere\n"), ==, 0);
  g_assert_cmpuint (memory_cgroup_limit ("", cgroups), ==, 0);
  /* and this machine's: some, never more than its memory */
  g_assert_cmpuint (memory_available (), >, 0);
  g_assert_cmpuint (memory_available (), <=, (guint64) sysconf (_SC_PHYS_PAGES) * (guint64) sysconf (_SC_PAGESIZE));
  {
    g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", top);
    g_assert_cmpint (system (rm), ==, 0);
  }
}

static void
test_describe (void)
{
  static const struct {
    CpuCount count;
    const char *text;
  } cases[] = {
    { { 2, 2, 0, 2 }, "2 CPUs" },
    { { 1, 1, 0, 1 }, "1 CPU" },
    { { 2, 1, 0, 1 }, "1 CPU of 2: affinity mask" },
    { { 64, 64, 4, 4 }, "4 CPUs of 64: cgroup CPU quota" },
    { { 64, 0, 4, 4 }, "4 CPUs of 64: cgroup CPU quota" },
    { { 64, 3, 4, 3 }, "3 CPUs of 64: affinity mask" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = cpus_describe (&cases[i].count);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpus/cgroup-max", test_cgroup_max);
  g_test_add_func ("/cpus/cfs", test_cfs);
  g_test_add_func ("/cpus/cgroup-path", test_cgroup_path);
  g_test_add_func ("/cpus/cgroup-mount", test_cgroup_mount);
  g_test_add_func ("/cpus/describe", test_describe);
  g_test_add_func ("/cpus/count-here", test_count_here);
  g_test_add_func ("/memory/limit", test_memory_limit);
  g_test_add_func ("/memory/cgroups", test_memory_cgroups);
  return g_test_run ();
}
