/* graph-module.h — the table of functions the igraph module (graph.c,
 * deja-graph.so) exports, and graph-load.c calls. */
#pragma once

#include "graph.h"

G_BEGIN_DECLS

typedef struct {
  const char *version;     /* PACKAGE_VERSION: first, as util/module.c reads it */
  gboolean (*write_pajek) (const Network *network, FILE *out, GError **error);
  gboolean (*compute_metrics) (Network *network, GraphStats *stats, GError **error);
  gboolean (*layout) (const Network *network, const guint *keep, guint n_keep, double *xy,
                      GError **error);
} GraphModule;

G_END_DECLS
