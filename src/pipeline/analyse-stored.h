/* analyse-stored.h — language and prose signals for messages stored without them. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

gboolean analyse_stored_text (Store *store, gboolean force, guint threads, gint64 *analysed,
                              GError **error);

G_END_DECLS
