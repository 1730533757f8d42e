/* authors.h — who is who: sender addresses grouped into authors. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

typedef struct {
  gint64 addresses, authors;
  gboolean updated;          /* FALSE: nothing had changed */
} AuthorCounts;

gboolean authors_update (Store *store, gboolean force, AuthorCounts *counts, GError **error);
gboolean authors_suggest (Store *store, int min_score, StoreRowFunc func, gpointer user_data,
                          GError **error);

G_END_DECLS
