/* graph.c — igraph: GraphML, GML and Pajek files, metrics and statistics.
 *
 * The only file that includes igraph.h.  igraph reports errors through a
 * global handler; deja's handler records the reason (per thread), frees
 * igraph's partial allocations and lets the call return its error code,
 * which graph_fail() turns into a GError.  Vertex and edge attributes go
 * through igraph's C attribute handler, so the writers emit them: vertex
 * address, name, messages, first_date, last_date (and type for group
 * networks, and the metrics with --with-metrics); edge weight,
 * first_date, last_date.
 *
 * A module of its own (deja-graph.so, util/module.c), which graph-load.c
 * loads when a command first needs igraph: igraph and the numerical
 * libraries it brings are not loaded by every other command.
 */
#include "graph-module.h"

#include <gmodule.h>

#include <igraph/igraph.h>
#include <math.h>
#include <string.h>

#define GRAPH_ERROR (graph_error_quark ())
static G_DEFINE_QUARK (deja-graph-error-quark, graph_error)

/* Exact betweenness is O(V·E); beyond this many vertices, only paths of
 * length up to BETWEENNESS_CUTOFF count. */
#define BETWEENNESS_EXACT_MAX 20000
#define BETWEENNESS_CUTOFF 4

/* igraph's random numbers, seeded before each use: the same network gets
 * the same communities and the same picture every time */
#define GRAPH_SEED 20261123

static GPrivate last_reason = G_PRIVATE_INIT (g_free);

static void
record_error (const char *reason, const char *file, int line, igraph_error_t err)
{
  g_private_replace (&last_reason, g_strdup_printf ("%s (%s)", reason, igraph_strerror (err)));
  IGRAPH_FINALLY_FREE ();
}

static void
graph_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      igraph_set_error_handler (record_error);
      igraph_set_warning_handler (igraph_warning_handler_ignore);
      igraph_set_attribute_table (&igraph_cattribute_table);
      g_once_init_leave (&done, 1);
    }
}

static gboolean
graph_fail (igraph_error_t err, const char *what, GError **error)
{
  const char *reason = g_private_get (&last_reason);

  g_set_error (error, GRAPH_ERROR, err, "%s: %s", what, reason ? reason : igraph_strerror (err));
  return FALSE;
}

#define TRY(call, what) do { igraph_error_t e_ = (call); if (e_ != IGRAPH_SUCCESS) return graph_fail (e_, what, error); } while (0)

/* Builds @g from @net (with Pajek's attributes when @attributes: the
 * vertex label "id" and the edge "weight"). */
static gboolean
build (igraph_t *g, const Network *net, gboolean attributes, GError **error)
{
  igraph_vector_int_t edges;
  igraph_error_t err;

  graph_init ();
  TRY (igraph_vector_int_init (&edges, 2 * (igraph_integer_t) net->edges->len), "cannot build the graph");
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      VECTOR (edges)[2 * i] = e->from;
      VECTOR (edges)[2 * i + 1] = e->to;
    }
  err = igraph_empty (g, net->vertices->len, net->directed);
  if (err == IGRAPH_SUCCESS && (err = igraph_add_edges (g, &edges, NULL)) == IGRAPH_SUCCESS && attributes)
    {
      for (guint i = 0; i < net->vertices->len && err == IGRAPH_SUCCESS; i++)
        err = SETVAS (g, "id", i, ((const NetVertex *) g_ptr_array_index (net->vertices, i))->id);
      for (guint i = 0; i < net->edges->len && err == IGRAPH_SUCCESS; i++)
        err = SETEAN (g, "weight", i, (igraph_real_t) ((const NetEdge *) g_ptr_array_index (net->edges, i))->weight);
    }
  igraph_vector_int_destroy (&edges);
  if (err != IGRAPH_SUCCESS)
    {
      igraph_destroy (g);
      return graph_fail (err, "cannot build the graph", error);
    }
  return TRUE;
}

/* graph_write_pajek(), which graph-load.c hands here.
 *
 * Writes @net as Pajek: vertices labelled with their ids ("a12"), arcs
 * (or edges) weighted.  The other formats are network-write.c's.
 */
static gboolean
write_pajek (const Network *net, FILE *out, GError **error)
{
  igraph_t g;
  igraph_error_t err;

  if (!build (&g, net, TRUE, error))
    return FALSE;
  err = igraph_write_graph_pajek (&g, out);
  igraph_destroy (&g);
  return err == IGRAPH_SUCCESS ? TRUE : graph_fail (err, "cannot write the graph", error);
}

/* Each vertex's degrees and strength; @g numbered by @pos */
static gboolean
degrees (igraph_t *g, Network *net, const guint *pos, const igraph_vector_t *w, GError **error)
{
  igraph_vector_t in, out, all;

  TRY (igraph_vector_init (&in, 0), "cannot compute degrees");
  igraph_vector_init (&out, 0);
  igraph_vector_init (&all, 0);
  if (igraph_strength (g, &in, igraph_vss_all (), IGRAPH_IN, TRUE, NULL) != IGRAPH_SUCCESS ||
      igraph_strength (g, &out, igraph_vss_all (), IGRAPH_OUT, TRUE, NULL) != IGRAPH_SUCCESS ||
      igraph_strength (g, &all, igraph_vss_all (), IGRAPH_ALL, TRUE, w) != IGRAPH_SUCCESS)
    {
      igraph_vector_destroy (&in), igraph_vector_destroy (&out), igraph_vector_destroy (&all);
      return graph_fail (IGRAPH_FAILURE, "cannot compute degrees", error);
    }
  for (guint i = 0; i < net->vertices->len; i++)
    {
      NetVertex *v = g_ptr_array_index (net->vertices, i);
      v->in_degree = VECTOR (in)[pos[i]];
      v->out_degree = VECTOR (out)[pos[i]];
      v->strength = VECTOR (all)[pos[i]];
    }
  igraph_vector_destroy (&in), igraph_vector_destroy (&out), igraph_vector_destroy (&all);
  return TRUE;
}

/* Each vertex's betweenness; @g numbered by @pos */
static gboolean
betweenness (igraph_t *g, Network *net, const guint *pos, GraphStats *stats, GError **error)
{
  igraph_vector_t b;
  igraph_error_t err;

  stats->betweenness_exact = net->vertices->len <= BETWEENNESS_EXACT_MAX;
  TRY (igraph_vector_init (&b, 0), "cannot compute betweenness");
  err = igraph_betweenness_cutoff (g, &b, igraph_vss_all (), net->directed, NULL,
                                   stats->betweenness_exact ? -1 : BETWEENNESS_CUTOFF);
  for (guint i = 0; err == IGRAPH_SUCCESS && i < net->vertices->len; i++)
    ((NetVertex *) g_ptr_array_index (net->vertices, i))->betweenness = VECTOR (b)[pos[i]];
  igraph_vector_destroy (&b);
  return err == IGRAPH_SUCCESS ? TRUE : graph_fail (err, "cannot compute betweenness", error);
}

static gboolean
components (igraph_t *g, igraph_connectedness_t mode, gint64 *count, gint64 *largest,
            GError **error)
{
  igraph_vector_int_t membership, sizes;
  igraph_integer_t n = 0;
  igraph_error_t err;

  TRY (igraph_vector_int_init (&membership, 0), "cannot compute components");
  igraph_vector_int_init (&sizes, 0);
  err = igraph_connected_components (g, &membership, &sizes, &n, mode);
  *count = n;
  *largest = err == IGRAPH_SUCCESS && n > 0 ? igraph_vector_int_max (&sizes) : 0;
  igraph_vector_int_destroy (&membership);
  igraph_vector_int_destroy (&sizes);
  return err == IGRAPH_SUCCESS ? TRUE : graph_fail (err, "cannot compute components", error);
}

/* Where a vertex is in the order communities are looked for in (below) */
static int
vertex_rank (const NetVertex *v)
{
  return v->is_message ? 4 : v->is_domain ? 3 : v->is_site ? 2 : v->is_group ? 1 : 0;
}

static gint
by_key (gconstpointer x, gconstpointer y, gpointer data)
{
  const GPtrArray *vertices = data;
  const NetVertex *a = g_ptr_array_index (vertices, *(const guint *) x);
  const NetVertex *b = g_ptr_array_index (vertices, *(const guint *) y);
  int c = vertex_rank (a) - vertex_rank (b);

  if (c == 0)
    c = g_strcmp0 (a->address, b->address);
  if (c == 0)
    c = g_strcmp0 (a->name, b->name);
  return c ? c : g_strcmp0 (a->id, b->id);
}

/* Each vertex's place when @net's vertices are sorted by what they are,
 * then address, name and id (transfer full) */
static guint *
key_positions (const Network *net)
{
  guint n = net->vertices->len;
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  guint *pos = g_new (guint, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (guint), by_key, net->vertices);
  for (guint i = 0; i < n; i++)
    pos[order[i]] = i;
  return pos;
}

/* An edge, its ends numbered by key_positions() */
typedef struct {
  guint a, b;
  double weight;
} Pair;

static gint
by_ends (gconstpointer x, gconstpointer y)
{
  const Pair *p = x, *q = y;

  return p->a != q->a ? (p->a < q->a ? -1 : 1) : p->b != q->b ? (p->b < q->b ? -1 : 1) : 0;
}

/* @net's edges, their ends numbered by @pos, sorted by them; @undirected:
 * each edge from its lower end, the two directions between two vertices
 * one edge whose weights add up (reply counts in both directions: the
 * projection Louvain works on; an undirected network's edges are each
 * once already) */
static GArray *
pairs_by_key (const Network *net, const guint *pos, gboolean undirected)
{
  GArray *pairs = g_array_sized_new (FALSE, FALSE, sizeof (Pair), net->edges->len);
  guint kept = 0;

  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      Pair p = { pos[e->from], pos[e->to], (double) e->weight };

      if (undirected && p.a > p.b)
        p = (Pair) { p.b, p.a, p.weight };
      g_array_append_val (pairs, p);
    }
  g_array_sort (pairs, by_ends);
  for (guint i = 0; undirected && i < pairs->len; i++)
    {
      Pair *p = &g_array_index (pairs, Pair, i);

      if (kept > 0 && by_ends (p, &g_array_index (pairs, Pair, kept - 1)) == 0)
        g_array_index (pairs, Pair, kept - 1).weight += p->weight;
      else
        g_array_index (pairs, Pair, kept++) = *p;
    }
  if (undirected)
    g_array_set_size (pairs, kept);
  return pairs;
}

/* Builds @g, of @n vertices, with the edges @pairs (pairs_by_key()) in
 * their order, their weights in @w (made here).  What is computed on it
 * does not depend on the order a database gives vertices and edges in,
 * down to the last bit of a sum (betweenness adds up the shortest paths
 * in the vertices' order: ITS's group network's top five, tied, came in
 * another order from a catalog) */
static gboolean
graph_of_pairs (igraph_t *g, guint n, gboolean directed, const GArray *pairs, igraph_vector_t *w,
                GError **error)
{
  igraph_vector_int_t ends;
  igraph_error_t err;

  graph_init ();
  TRY (igraph_vector_int_init (&ends, 2 * (igraph_integer_t) pairs->len), "cannot build the graph");
  if ((err = igraph_vector_init (w, pairs->len)) != IGRAPH_SUCCESS)
    {
      igraph_vector_int_destroy (&ends);
      return graph_fail (err, "cannot build the graph", error);
    }
  for (guint i = 0; i < pairs->len; i++)
    {
      const Pair *p = &g_array_index (pairs, Pair, i);

      VECTOR (ends)[2 * i] = p->a;
      VECTOR (ends)[2 * i + 1] = p->b;
      VECTOR (*w)[i] = p->weight;
    }
  err = igraph_empty (g, n, directed);
  if (err == IGRAPH_SUCCESS && (err = igraph_add_edges (g, &ends, NULL)) != IGRAPH_SUCCESS)
    igraph_destroy (g);
  igraph_vector_int_destroy (&ends);
  if (err == IGRAPH_SUCCESS)
    return TRUE;
  igraph_vector_destroy (w);
  return graph_fail (err, "cannot build the graph", error);
}

/* Louvain (multilevel) on the undirected projection.  The method visits
 * vertices in an order it draws at random, and what it finds depends on
 * that order and on the vertices' numbers: the vertices are numbered in
 * the order of their keys (the caller's @pos, key_positions()), not of
 * the authors' ids, which differ between one ingest, a shard, a catalog
 * and a merge of the same messages, and igraph's random numbers are
 * seeded here, as for a layout drawn before in the same process.  The
 * same network then has the same communities however its database was
 * made (twisted-python: 293 communities from one ingest and 296 from a
 * shard before). */
static gboolean
communities (const Network *net, const guint *pos, GraphStats *stats, GError **error)
{
  g_autoptr (GArray) pairs = pairs_by_key (net, pos, TRUE);
  igraph_t u;
  igraph_vector_int_t membership;
  igraph_vector_t w;
  igraph_error_t err = IGRAPH_SUCCESS;

  if (!graph_of_pairs (&u, net->vertices->len, FALSE, pairs, &w, error))
    return FALSE;
  igraph_vector_int_init (&membership, 0);
  if (pairs->len > 0 && (err = igraph_rng_seed (igraph_rng_default (), GRAPH_SEED)) == IGRAPH_SUCCESS &&
      (err = igraph_community_multilevel (&u, &w, 1.0, &membership, NULL, NULL)) == IGRAPH_SUCCESS)
    err = igraph_modularity (&u, &membership, &w, 1.0, FALSE, &stats->modularity);
  /* an edgeless network: every vertex is a community of its own, and
   * modularity (a share of the edges' weight) is undefined */
  if (err == IGRAPH_SUCCESS && pairs->len == 0)
    stats->modularity = NAN;
  if (err == IGRAPH_SUCCESS)
    {
      stats->communities = pairs->len > 0 ? igraph_vector_int_max (&membership) + 1 : net->vertices->len;
      for (guint i = 0; i < net->vertices->len; i++)
        ((NetVertex *) g_ptr_array_index (net->vertices, i))->community =
          pairs->len > 0 ? VECTOR (membership)[pos[i]] : (gint64) pos[i];
    }
  igraph_destroy (&u);
  igraph_vector_destroy (&w);
  igraph_vector_int_destroy (&membership);
  return err == IGRAPH_SUCCESS ? TRUE : graph_fail (err, "cannot detect communities", error);
}

/* graph_compute_metrics(), which graph-load.c hands here.
 * @stats: (out caller-allocates)
 *
 * Computes the network's statistics and each vertex's degrees,
 * betweenness (unweighted: reply counts are not distances) and
 * community, on the graph numbered by the vertices' keys
 * (key_positions(), pairs_by_key()); sets net->has_metrics.
 */
static gboolean
compute_metrics (Network *net, GraphStats *stats, GError **error)
{
  g_autofree guint *pos = key_positions (net);
  g_autoptr (GArray) pairs = pairs_by_key (net, pos, !net->directed);
  igraph_t g;
  igraph_vector_t w;
  igraph_real_t value;
  gboolean ok;

  memset (stats, 0, sizeof *stats);
  if (!graph_of_pairs (&g, net->vertices->len, net->directed, pairs, &w, error))
    return FALSE;
  stats->vertices = net->vertices->len;
  stats->edges = net->edges->len;
  for (guint i = 0; i < net->edges->len; i++)
    stats->total_weight += ((const NetEdge *) g_ptr_array_index (net->edges, i))->weight;
  if (igraph_density (&g, &value, FALSE) == IGRAPH_SUCCESS)
    stats->density = value;
  if (net->directed && igraph_reciprocity (&g, &value, TRUE, IGRAPH_RECIPROCITY_DEFAULT) == IGRAPH_SUCCESS)
    stats->reciprocity = value;
  ok = components (&g, IGRAPH_WEAK, &stats->weak_components, &stats->largest_weak, error) &&
       components (&g, IGRAPH_STRONG, &stats->strong_components, &stats->largest_strong, error) &&
       degrees (&g, net, pos, &w, error) && betweenness (&g, net, pos, stats, error) &&
       communities (net, pos, stats, error);
  igraph_vector_destroy (&w);
  igraph_destroy (&g);
  net->has_metrics = ok;
  return ok;
}

/* graph_layout(), which graph-load.c hands here.
 * @keep: the vertices to place (indexes into @net's vertices)
 * @xy: (out caller-allocates): 2 * @n_keep coordinates, x then y
 *
 * Places the vertices @keep and the edges among them with
 * Fruchterman and Reingold's force-directed layout (edges pull with the
 * logarithm of their weight).  igraph's random numbers are seeded with a
 * constant: the same network gets the same picture every time.
 */
static gboolean
layout (const Network *net, const guint *keep, guint n_keep, double *xy, GError **error)
{
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  igraph_vector_int_t edges;
  igraph_vector_t w;
  igraph_matrix_t res;
  igraph_t g;
  igraph_error_t err;
  guint n_edges = 0;

  graph_init ();
  for (guint i = 0; i < n_keep; i++)
    g_hash_table_insert (index, GUINT_TO_POINTER (keep[i] + 1), GUINT_TO_POINTER (i + 1));
  TRY (igraph_vector_int_init (&edges, 0), "cannot lay out the graph");
  igraph_vector_init (&w, 0);
  igraph_matrix_init (&res, n_keep, 2);
  err = igraph_empty (&g, n_keep, IGRAPH_UNDIRECTED);
  for (guint i = 0; err == IGRAPH_SUCCESS && i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      guint a = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (e->from + 1)));
      guint b = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (e->to + 1)));

      if (a == 0 || b == 0 || a == b)
        continue;
      if ((err = igraph_vector_int_push_back (&edges, a - 1)) == IGRAPH_SUCCESS &&
          (err = igraph_vector_int_push_back (&edges, b - 1)) == IGRAPH_SUCCESS)
        err = igraph_vector_push_back (&w, 1 + log1p ((double) e->weight));
      n_edges++;
    }
  if (err == IGRAPH_SUCCESS)
    err = igraph_add_edges (&g, &edges, NULL);
  if (err == IGRAPH_SUCCESS)
    err = igraph_rng_seed (igraph_rng_default (), GRAPH_SEED);
  if (err == IGRAPH_SUCCESS && n_keep > 0)
    err = igraph_layout_fruchterman_reingold (&g, &res, FALSE, 500, sqrt ((double) n_keep),
                                              IGRAPH_LAYOUT_AUTOGRID, n_edges ? &w : NULL,
                                              NULL, NULL, NULL, NULL);
  for (guint i = 0; err == IGRAPH_SUCCESS && i < n_keep; i++)
    {
      xy[2 * i] = MATRIX (res, i, 0);
      xy[2 * i + 1] = MATRIX (res, i, 1);
    }
  igraph_destroy (&g);
  igraph_matrix_destroy (&res);
  igraph_vector_destroy (&w);
  igraph_vector_int_destroy (&edges);
  return err == IGRAPH_SUCCESS ? TRUE : graph_fail (err, "cannot lay out the graph", error);
}

G_MODULE_EXPORT const GraphModule deja_graph_module = {
  .version = PACKAGE_VERSION,
  .write_pajek = write_pajek,
  .compute_metrics = compute_metrics,
  .layout = layout,
};
