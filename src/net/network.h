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
  NETWORK_CROSSPOST,/* newsgroup -- newsgroup, by messages posted to both, undirected */
  NETWORK_SITE,     /* news site -> news site of Path:, as news travelled, directed */
  NETWORK_LINK,     /* author -> domain cited in own text, bipartite, directed */
  NETWORK_LINK_MESSAGE, /* message -> domain it cites, bipartite, directed */
} NetworkKind;

typedef struct {
  char *id;              /* "a" + authors.id, "g" + newsgroups.id, "s:" + a site's name or
                          * "d:" + a domain's:
                          * stable across filters */
  gint64 author_id;      /* 0 for a newsgroup */
  char *address;         /* the author's primary address, or the newsgroup's name */
  char *addresses;       /* every address of the author, space-separated; NULL for groups */
  char *name;            /* the author's name (authors.name, never empty), or the group's */
  gint64 messages;       /* a site: the articles that passed through it */
  gint64 authors;        /* NETWORK_CROSSPOST: distinct authors of the group's messages */
  char *first_date, *last_date;
  gboolean is_group;     /* a newsgroup vertex (NETWORK_GROUP, NETWORK_CROSSPOST) */
  gboolean is_site;      /* a news site (NETWORK_SITE) */
  gboolean is_domain;    /* a domain cited (NETWORK_LINK, NETWORK_LINK_MESSAGE) */
  gboolean is_message;   /* a message (NETWORK_LINK_MESSAGE): id "m" + messages.id */
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
  char *provenance;      /* how it was made (deja version, database, filters, date), or NULL */
} Network;

typedef struct {
  NetworkKind kind;
  StoreFilter filter;
  gint64 min_weight;
  gboolean self_loops;
} NetworkOptions;

Network *network_new (NetworkKind kind);
Network *network_load (Store *store, const NetworkOptions *options, GError **error);
void network_free (Network *network);
const char *network_kind_name (NetworkKind kind);
GPtrArray *network_path_sites (const char *path);

/* Writers that need no igraph (network-write.c). */
gboolean network_write_csv (const Network *network, const char *edges_path, GError **error);
gboolean network_write_gexf (const Network *network, FILE *out, gboolean dynamic, int window_days,
                             GError **error);
gboolean network_write_graphml (const Network *network, FILE *out, GError **error);
gboolean network_write_gml (const Network *network, FILE *out, GError **error);

/* Replaces every author's name, address and id by @pseudonym of its
 * primary address; the list of addresses goes. */
typedef char *(*NetworkPseudonymFunc) (const char *address, gpointer user_data);
void network_pseudonymise (Network *network, NetworkPseudonymFunc pseudonym, gpointer user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Network, network_free)

G_END_DECLS
