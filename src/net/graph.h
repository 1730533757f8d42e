/* graph.h — networks through igraph: file formats and statistics. */
#pragma once

#include <stdio.h>

#include "network.h"

G_BEGIN_DECLS

typedef struct {
  gint64 vertices, edges;
  double total_weight;          /* replies (or shared threads, or postings) */
  double density, reciprocity;
  gint64 weak_components, largest_weak, strong_components, largest_strong;
  gint64 communities;
  double modularity;
  gboolean betweenness_exact;
} GraphStats;

char *graph_module_problem (void);
gboolean graph_write_pajek (const Network *network, FILE *out, GError **error);
gboolean graph_compute_metrics (Network *network, GraphStats *stats, GError **error);
gboolean graph_layout (const Network *network, const guint *keep, guint n_keep, double *xy,
                       GError **error);

G_END_DECLS
