/* spawn.h — threads that may not start. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GThread *spawn_thread (const char *name, GThreadFunc func, gpointer data);
gboolean spawn_refused (const char *name);
GThreadPool *spawn_pool (const char *name, GFunc func, gpointer data, guint threads, const char *without);
void spawn_note (const char *name, const char *why, const char *instead);

G_END_DECLS
