/* network.h — author networks, built from the database. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "store.h"

G_BEGIN_DECLS

typedef enum {
  NETWORK_REPLY,    /* replier -> author replied to, directed */
  NETWORK_THREAD,   /* authors posting in the same thread, undirected */
  NETWORK_GROUP,    /* author -- newsgroup, bipartite, undirected */
} NetworkKind;

typedef struct {
  char *address;         /* author address, or newsgroup name */
  char *name;            /* most frequent display name (or the group name) */
  gint64 messages;
  char *first_date, *last_date;
  gboolean is_group;     /* a newsgroup vertex (NETWORK_GROUP) */
  /* metrics, filled by graph_compute_metrics() */
  double in_degree, out_degree, strength, betweenness;
  gint64 community;
} NetVertex;

typedef struct {
  guint from, to;        /* vertex indexes */
  gint64 weight;
  char *first_date, *last_date;
  GPtrArray *dates;      /* (element-type utf8) one per reply, for dynamic GEXF */
} NetEdge;

typedef struct {
  NetworkKind kind;
  gboolean directed;
  GPtrArray *vertices;   /* (element-type NetVertex) */
  GPtrArray *edges;      /* (element-type NetEdge) */
  gboolean has_metrics;
} Network;

typedef struct {
  NetworkKind kind;
  StoreFilter filter;
  gint64 min_weight;
  gboolean self_loops;
} NetworkOptions;

Network *network_load (Store *store, const NetworkOptions *options, GError **error);
void network_free (Network *network);
const char *network_kind_name (NetworkKind kind);

/* Writers that need no igraph (network-write.c). */
gboolean network_write_csv (const Network *network, const char *edges_path, GError **error);
gboolean network_write_gexf (const Network *network, FILE *out, gboolean dynamic, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Network, network_free)

G_END_DECLS
