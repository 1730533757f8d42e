/* graph-load.c — deja's igraph code, loaded when first used.
 *
 * Pajek files, network statistics and layouts (graph.c) are a module of
 * their own, deja-graph.so, linked with igraph: a deja that never asks
 * for them never loads igraph and the numerical libraries it brings
 * (BLAS, LAPACK, GLPK, gfortran; util/module.c).  This file gives
 * graph.h's functions to the commands and hands each call to the module,
 * or fails with the reason it cannot be loaded. */
#include "graph-module.h"
#include "module.h"

static DejaModule module = DEJA_MODULE_INIT ("network files and statistics (igraph)", DEJA_GRAPH_MODULE,
                                             "deja_graph_module");

/* Why the module cannot be loaded, or NULL (transfer full). */
char *
graph_module_problem (void)
{
  return deja_module_problem (&module);
}

/* Writes @network as Pajek: vertices labelled with their ids ("a12"),
 * arcs (or edges) weighted.  The other formats are network-write.c's. */
gboolean
graph_write_pajek (const Network *network, FILE *out, GError **error)
{
  const GraphModule *t = deja_module_table (&module, error);

  return t && t->write_pajek (network, out, error);
}

/**
 * graph_compute_metrics:
 * @stats: (out caller-allocates)
 *
 * Computes the network's statistics and each vertex's degrees,
 * betweenness and community; sets network->has_metrics.
 */
gboolean
graph_compute_metrics (Network *network, GraphStats *stats, GError **error)
{
  const GraphModule *t = deja_module_table (&module, error);

  return t && t->compute_metrics (network, stats, error);
}

/**
 * graph_layout:
 * @keep: the vertices to place (indexes into @network's vertices)
 * @xy: (out caller-allocates): 2 * @n_keep coordinates, x then y
 *
 * Places the vertices @keep and the edges among them, the same picture
 * for the same network every time.
 */
gboolean
graph_layout (const Network *network, const guint *keep, guint n_keep, double *xy, GError **error)
{
  const GraphModule *t = deja_module_table (&module, error);

  return t && t->layout (network, keep, n_keep, xy, error);
}
