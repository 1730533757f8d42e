/* test-graph.c — the network statistics of src/net/graph.c (through
 * graph-load.c and the igraph module it loads): what they find must not
 * depend on how the vertices happen to be numbered, nor on what the
 * process asked igraph before.
 *
 * One network of authors is built twice: as one ingest numbers its
 * authors (as found) and as a shard does (from each address's hash),
 * so the same people and replies come in another order, with other ids.
 * Louvain's communities, their modularity and every vertex's community,
 * betweenness and strength must be the same in both, to the last bit,
 * and the same again after a layout. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "graph.h"
#include "network.h"

#define PEOPLE 150
#define CIRCLES 6

/* Replies among PEOPLE people: mostly within their circle, some across,
 * with weights; the same for the same @seed. */
typedef struct {
  guint from, to;
  gint64 weight;
} Reply;

static GArray *
replies_of (guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GArray *replies = g_array_new (FALSE, FALSE, sizeof (Reply));

  for (guint a = 0; a < PEOPLE; a++)
    for (guint b = 0; b < PEOPLE; b++)
      {
        gboolean near = a % CIRCLES == b % CIRCLES;

        if (a != b && g_rand_double (rand) < (near ? 0.12 : 0.025))
          {
            Reply r = { a, b, g_rand_int_range (rand, 1, 4) };
            g_array_append_val (replies, r);
          }
      }
  return replies;
}

/* The network of @replies with person p as vertex @place[p], author id
 * @ids[p], and the replies given in the order @reversed or not. */
static Network *
network_of (const GArray *replies, const guint *place, const gint64 *ids, gboolean reversed)
{
  Network *net = network_new (NETWORK_REPLY);

  g_ptr_array_set_size (net->vertices, PEOPLE);
  for (guint p = 0; p < PEOPLE; p++)
    {
      NetVertex *v = g_new0 (NetVertex, 1);

      v->author_id = ids[p];
      v->id = g_strdup_printf ("a%" G_GINT64_FORMAT, ids[p]);
      v->address = g_strdup_printf ("person%03u@example.org", p);
      v->name = g_strdup_printf ("Person %u", p);
      v->messages = 1;
      net->vertices->pdata[place[p]] = v;
    }
  for (guint i = 0; i < replies->len; i++)
    {
      const Reply *r = &g_array_index (replies, Reply, reversed ? replies->len - 1 - i : i);
      NetEdge *e = g_new0 (NetEdge, 1);

      e->from = place[r->from];
      e->to = place[r->to];
      e->weight = r->weight;
      g_ptr_array_add (net->edges, e);
    }
  return net;
}

/* What a person's vertex was given */
typedef struct {
  gint64 community;
  double betweenness, strength, in_degree;
} Measured;

/* person p's measures in @net, and @net's statistics */
static Measured *
communities_of (Network *net, GraphStats *stats)
{
  g_autoptr (GError) error = NULL;
  Measured *of = g_new0 (Measured, PEOPLE);

  g_assert_true (graph_compute_metrics (net, stats, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < net->vertices->len; i++)
    {
      const NetVertex *v = g_ptr_array_index (net->vertices, i);
      guint p = (guint) g_ascii_strtoull (v->address + strlen ("person"), NULL, 10);

      of[p] = (Measured) { v->community, v->betweenness, v->strength, v->in_degree };
    }
  return of;
}

/* The same statistics and measures, to the last bit: betweenness adds
 * up paths in the vertices' order, so a sum in another order may differ
 * in its last bits and reorder authors tied on it */
static void
assert_same (const Measured *a, const GraphStats *sa, const Measured *b, const GraphStats *sb)
{
  g_assert_cmpint (sa->communities, ==, sb->communities);
  g_assert_cmpfloat (sa->modularity, ==, sb->modularity);
  for (guint p = 0; p < PEOPLE; p++)
    {
      g_assert_cmpint (a[p].community, ==, b[p].community);
      g_assert_cmpmem (&a[p].betweenness, sizeof (double), &b[p].betweenness, sizeof (double));
      g_assert_cmpfloat (a[p].strength, ==, b[p].strength);
      g_assert_cmpfloat (a[p].in_degree, ==, b[p].in_degree);
    }
}

static void
test_communities_by_key (void)
{
  g_autoptr (GArray) replies = replies_of (1123);
  guint found[PEOPLE], hashed[PEOPLE];
  gint64 found_ids[PEOPLE], hashed_ids[PEOPLE];
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  Network *one, *shard;
  g_autofree Measured *in_one = NULL, *in_shard = NULL, *after_layout = NULL;
  GraphStats s_one, s_shard, s_after;
  g_autofree double *xy = g_new0 (double, 2 * PEOPLE);
  guint keep[PEOPLE];
  g_autoptr (GError) error = NULL;

  /* one ingest: people in the order found, ids 1, 2, ...; a shard: in
   * an order of their own, with large ids */
  for (guint p = 0; p < PEOPLE; p++)
    found[p] = hashed[p] = keep[p] = p, found_ids[p] = p + 1;
  for (guint p = PEOPLE - 1; p > 0; p--)
    {
      guint k = (guint) g_rand_int_range (rand, 0, (gint32) p + 1), t = hashed[p];

      hashed[p] = hashed[k], hashed[k] = t;
    }
  for (guint p = 0; p < PEOPLE; p++)
    hashed_ids[p] = G_GINT64_CONSTANT (4503599627370496) + 7919 * (gint64) hashed[p];
  one = network_of (replies, found, found_ids, FALSE);
  shard = network_of (replies, hashed, hashed_ids, TRUE);

  in_one = communities_of (one, &s_one);
  in_shard = communities_of (shard, &s_shard);
  /* a partition worth comparing: neither one community nor one each */
  g_assert_cmpint (s_one.communities, >, 1);
  g_assert_cmpint (s_one.communities, <, PEOPLE / 2);
  g_assert_cmpfloat (s_one.modularity, >, 0.1);
  assert_same (in_one, &s_one, in_shard, &s_shard);

  /* a layout draws igraph's random numbers: the next statistics are
   * those of before */
  g_assert_true (graph_layout (one, keep, PEOPLE, xy, &error));
  g_assert_no_error (error);
  after_layout = communities_of (one, &s_after);
  assert_same (in_one, &s_one, after_layout, &s_after);

  network_free (one);
  network_free (shard);
}

/* Without edges, each vertex is a community of its own, numbered in the
 * order of the keys, not of the ids */
static void
test_no_edges_by_key (void)
{
  guint found[PEOPLE], reversed[PEOPLE];
  gint64 ids[PEOPLE];
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (Reply));
  Network *a, *b;
  g_autofree Measured *in_a = NULL, *in_b = NULL;
  GraphStats sa, sb;

  for (guint p = 0; p < PEOPLE; p++)
    found[p] = p, reversed[p] = PEOPLE - 1 - p, ids[p] = p + 1;
  a = network_of (none, found, ids, FALSE);
  b = network_of (none, reversed, ids, FALSE);
  in_a = communities_of (a, &sa);
  in_b = communities_of (b, &sb);
  g_assert_cmpint (sa.communities, ==, PEOPLE);
  g_assert_cmpint (sb.communities, ==, PEOPLE);
  /* no edges: no share of their weight, modularity undefined */
  g_assert_true (isnan (sa.modularity) && isnan (sb.modularity));
  for (guint p = 0; p < PEOPLE; p++)
    g_assert_cmpint (in_a[p].community, ==, in_b[p].community);
  g_assert_cmpint (in_a[0].community, ==, 0);
  g_assert_cmpint (in_a[PEOPLE - 1].community, ==, PEOPLE - 1);
  network_free (a);
  network_free (b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph/communities-by-key", test_communities_by_key);
  g_test_add_func ("/graph/no-edges-by-key", test_no_edges_by_key);
  return g_test_run ();
}
