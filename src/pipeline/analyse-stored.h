/* analyse-stored.h — language and prose signals for messages stored without them. */
#pragma once

#include <glib.h>

#include "analyse.h"
#include "store.h"

G_BEGIN_DECLS

#define ANALYSE_ERROR (analyse_error_quark ())
GQuark analyse_error_quark (void);

typedef enum {
  ANALYSE_ERROR_CANCELLED,   /* *cancel became non-zero: what was analysed is kept */
} AnalyseError;

gboolean analyse_stored_text (Store *store, gboolean force, guint threads,
                              const volatile int *cancel, gint64 *analysed, GError **error);
void analyse_signals_of (const TextAnalysis *analysis, StoreTextSignals *signals);

G_END_DECLS
