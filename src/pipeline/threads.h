/* threads.h — the threading stage: load, thread (parsers/thread.c), store. */
#pragma once

#include "store.h"
#include "thread.h"

G_BEGIN_DECLS

gboolean threads_rebuild (Store *store, gboolean by_subject, ThreadCounts *counts, GError **error);
gboolean threads_rebuild_as_before (Store *store, ThreadCounts *counts, GError **error);
gboolean threads_rebuild_keeping (Store *store, const StoreIdRange *ranges, guint n_ranges,
                                  ThreadCounts *counts, GError **error);
gboolean threads_rebuild_beside (Store *store, const char *path,
                                 gboolean (*meanwhile) (Store *store, gpointer data), gpointer data,
                                 gboolean *meanwhile_ok, const StoreIdRange *ranges, guint n_ranges,
                                 ThreadCounts *counts, GError **error);
char *threads_describe (const ThreadCounts *counts);

G_END_DECLS
