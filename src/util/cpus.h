/* cpus.h — how many CPUs this process may use. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where the count came from, for a note (cpus_describe()) */
typedef struct {
  guint online;     /* the machine's, as g_get_num_processors() says */
  guint affinity;   /* CPUs in the affinity mask; 0 when unknown */
  guint quota;      /* cgroup CPU quota (v2 or v1), rounded up; 0 when none */
  guint available;  /* the least of those known, at least 1 */
} CpuCount;

guint cpus_parse_cgroup_max (const char *text);
guint cpus_parse_cfs (const char *quota, const char *period);
char *cpus_parse_cgroup_path (const char *text, gboolean v2);
gboolean cpus_parse_cgroup_mount (const char *text, gboolean v2, char **root, char **mount_point);
gboolean cgroup_parse_number (const char *text, guint64 *value, char **end);
char *cgroup_parse_path (const char *text, gboolean v2, const char *controller);
gboolean cgroup_parse_mount (const char *text, gboolean v2, const char *controller, char **root,
                             char **mount_point);
guint64 cgroup_least_in (const char *mountinfo, const char *cgroups, gboolean v2, const char *controller,
                         guint64 (*here) (const char *dir, gboolean v2));
void cpus_count (CpuCount *count);
guint cpus_available (void);
char *cpus_describe (const CpuCount *count);

G_END_DECLS
