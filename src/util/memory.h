/* memory.h — how much memory this process may use. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint64 memory_parse_limit (const char *text);
guint64 memory_cgroup_limit (const char *mountinfo, const char *cgroups);
guint64 memory_available (void);

G_END_DECLS
