/* network.c — building author networks from the database.
 *
 * The store gives rows (store-network.c); this file aggregates them into
 * vertices and weighted edges.  Vertices are authors (authors.id: one
 * person under several addresses is one vertex), with the id "a" +
 * authors.id in every file whatever the filter; every author of a counted
 * message is a vertex, even one nobody answered.
 */
#include "network.h"

#include <string.h>

static void
vertex_free (NetVertex *v)
{
  g_free (v->id);
  g_free (v->address);
  g_free (v->addresses);
  g_free (v->name);
  g_free (v->first_date);
  g_free (v->last_date);
  g_free (v);
}

static void
edge_free (NetEdge *e)
{
  g_free (e->first_date);
  g_free (e->last_date);
  g_clear_pointer (&e->dates, g_ptr_array_unref);
  g_free (e);
}

void
network_free (Network *n)
{
  if (n == NULL)
    return;
  g_ptr_array_unref (n->vertices);
  g_ptr_array_unref (n->edges);
  g_free (n->provenance);
  g_free (n);
}

const char *
network_kind_name (NetworkKind kind)
{
  static const char *const names[] = { "reply", "thread", "group", "crosspost", "site", "link",
                                       "link-message" };
  return names[kind];
}

typedef struct {
  Network *net;
  GHashTable *vertex_of;    /* vertex id ("a12", "g3") -> index + 1 */
  GHashTable *edge_of;      /* "FROM TO" (vertex indexes, "%u %u") -> NetEdge */
  const NetworkOptions *options;
  gint64 thread;            /* NETWORK_THREAD: the thread being read; CROSSPOST: the message */
  GArray *thread_authors;   /* of guint: its authors (its groups) */
  const char *date;         /* CROSSPOST: the message's date */
  char *date_owned;
} Builder;

static void
widen_dates (char **first, char **last, const char *date)
{
  if (date == NULL)
    return;
  if (*first == NULL || strcmp (date, *first) < 0)
    g_free (*first), *first = g_strdup (date);
  if (*last == NULL || strcmp (date, *last) > 0)
    g_free (*last), *last = g_strdup (date);
}

/* The vertex whose id is @key (taken): its index, made (blank, its id
 * set) when new; *made says which. */
static guint
vertex_of_key (Builder *b, char *key, gboolean *made)
{
  gpointer found = g_hash_table_lookup (b->vertex_of, key);
  NetVertex *v;

  *made = found == NULL;
  if (found)
    {
      g_free (key);
      return GPOINTER_TO_UINT (found) - 1;
    }
  v = g_new0 (NetVertex, 1);
  v->id = key;
  g_ptr_array_add (b->net->vertices, v);
  g_hash_table_insert (b->vertex_of, v->id, GUINT_TO_POINTER (b->net->vertices->len));
  return b->net->vertices->len - 1;
}

/* The vertex of author (or newsgroup, @is_group) @id, made when new. */
static guint
vertex_for (Builder *b, gint64 id, gboolean is_group)
{
  gboolean made;
  guint index = vertex_of_key (b, g_strdup_printf ("%c%" G_GINT64_FORMAT, is_group ? 'g' : 'a', id), &made);
  NetVertex *v = g_ptr_array_index (b->net->vertices, index);

  if (made)
    {
      v->author_id = is_group ? 0 : id;
      v->is_group = is_group;
    }
  return index;
}

/* One row per author, in id order. */
static gboolean
add_author (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint index = vertex_for (b, r->author, FALSE);   /* may grow the array: before indexing */
  NetVertex *v = g_ptr_array_index (b->net->vertices, index);

  g_assert (v->name == NULL);
  v->name = g_strdup (r->name);
  v->address = g_strdup (r->address);
  v->addresses = g_strdup (r->addresses);
  v->messages = r->messages;
  v->first_date = g_strdup (r->first_date);
  v->last_date = g_strdup (r->last_date);
  return TRUE;
}

/* An author that is a vertex only as the one replied to (whose message
 * the filter left out) still has its name and addresses. */
static gboolean
name_author (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  g_autofree char *key = g_strdup_printf ("a%" G_GINT64_FORMAT, r->author);
  gpointer found = g_hash_table_lookup (b->vertex_of, key);
  NetVertex *v = found ? g_ptr_array_index (b->net->vertices, GPOINTER_TO_UINT (found) - 1) : NULL;

  if (v && v->name == NULL)
    add_author (r, b);
  return TRUE;
}

static NetEdge *
edge_for (Builder *b, guint from, guint to)
{
  g_autofree char *key = NULL;
  NetEdge *e;

  if (!b->net->directed && from > to)
    {
      guint t = from;
      from = to, to = t;
    }
  key = g_strdup_printf ("%u %u", from, to);
  if ((e = g_hash_table_lookup (b->edge_of, key)) != NULL)
    return e;
  e = g_new0 (NetEdge, 1);
  e->from = from;
  e->to = to;
  e->dates = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (b->net->edges, e);
  g_hash_table_insert (b->edge_of, g_steal_pointer (&key), e);
  return e;
}

static void
count_on_edge (NetEdge *e, gint64 weight, const char *first, const char *last)
{
  e->weight += weight;
  widen_dates (&e->first_date, &e->last_date, first);
  widen_dates (&e->first_date, &e->last_date, last);
  if (first)
    g_ptr_array_add (e->dates, g_strdup (first));
}

static gboolean
add_reply (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint from = vertex_for (b, r->author, FALSE), to = vertex_for (b, r->other, FALSE);

  if (from != to || b->options->self_loops)
    count_on_edge (edge_for (b, from, to), 1, r->first_date, r->last_date);
  return TRUE;
}

/* NETWORK_THREAD: rows come grouped by thread; each pair of its authors
 * shares one more thread. */
static void
close_thread (Builder *b)
{
  for (guint i = 0; i < b->thread_authors->len; i++)
    for (guint k = i + 1; k < b->thread_authors->len; k++)
      count_on_edge (edge_for (b, g_array_index (b->thread_authors, guint, i),
                               g_array_index (b->thread_authors, guint, k)), 1, NULL, NULL);
  g_array_set_size (b->thread_authors, 0);
}

static gboolean
add_thread_author (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  gint64 thread = r->thread;
  guint author = vertex_for (b, r->author, FALSE);

  if (thread != b->thread)
    close_thread (b);
  b->thread = thread;
  g_array_append_val (b->thread_authors, author);
  return TRUE;
}

static gboolean
add_group_posting (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint author = vertex_for (b, r->author, FALSE), group = vertex_for (b, r->other, TRUE);
  NetVertex *g = g_ptr_array_index (b->net->vertices, group);
  gint64 count = r->messages;

  if (g->name == NULL)
    g->name = g_strdup (r->name), g->address = g_strdup (r->name);
  g->messages += count;
  widen_dates (&g->first_date, &g->last_date, r->first_date);
  widen_dates (&g->first_date, &g->last_date, r->last_date);
  count_on_edge (edge_for (b, author, group), count, r->first_date, r->last_date);
  return TRUE;
}

/* NETWORK_CROSSPOST: every group is a vertex, with its messages and
 * authors (deja groups's), cross-posted or not. */
static gboolean
add_group_node (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint index = vertex_for (b, r->other, TRUE);   /* may grow the array: before indexing */
  NetVertex *g = g_ptr_array_index (b->net->vertices, index);

  g->name = g_strdup (r->name);
  g->address = g_strdup (r->name);
  g->messages = r->messages;
  g->authors = r->authors;
  g->first_date = g_strdup (r->first_date);
  g->last_date = g_strdup (r->last_date);
  return TRUE;
}

/* Rows come grouped by message; each pair of its groups shares one more
 * message. */
static void
close_crosspost (Builder *b)
{
  for (guint i = 0; i < b->thread_authors->len; i++)
    for (guint k = i + 1; k < b->thread_authors->len; k++)
      count_on_edge (edge_for (b, g_array_index (b->thread_authors, guint, i),
                               g_array_index (b->thread_authors, guint, k)), 1, b->date_owned, b->date_owned);
  g_array_set_size (b->thread_authors, 0);
}

static gboolean
add_crosspost (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint group = vertex_for (b, r->other, TRUE);

  if (r->message != b->thread)
    {
      close_crosspost (b);
      g_free (b->date_owned);
      b->date_owned = g_strdup (r->first_date);
    }
  b->thread = r->message;
  g_array_append_val (b->thread_authors, group);
  return TRUE;
}

/* The diagnostic keywords of a Path (RFC 5537 3.2.1), upper case as
 * servers write them: "posted" is a host name's word too */
static const char *const path_diagnostics[] = { "POSTED", "MISMATCH", "SEEN" };

/* Whether the Path element @e is a diagnostic, and which: RFC 5537's
 * form (".POSTED.dialup123.isp.example", ".MISMATCH.10.1.2.3") or the
 * older one of INN and Highwinds' servers, the keyword after a name
 * ("nwrddc03.gnilink.net.POSTED", "217.209.241.210.MISMATCH").  In the
 * older form, *@named is the length of the name before the keyword. */
static const char *
path_diagnostic (const char *e, gsize *named)
{
  gsize len = strlen (e);

  *named = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (path_diagnostics); i++)
    {
      const char *k = path_diagnostics[i];
      gsize n = strlen (k);

      if (e[0] == '.' && strncmp (e + 1, k, n) == 0 && (e[1 + n] == '\0' || e[1 + n] == '.'))
        return k;
      if (len > n + 1 && e[len - n - 1] == '.' && strcmp (e + len - n, k) == 0)
        {
          *named = len - n - 1;
          return k;
        }
    }
  return NULL;
}

/**
 * network_path_sites:
 * @path: a Path header ("utzoo!decvax!ucbvax!ann")
 *
 * The news sites of @path, newest first, lower case: its "!"-separated
 * elements but the last (the poster's user name, or not-for-mail) and
 * empty ones ("!!"), without diagnostics (path_diagnostic()).  The site
 * a POSTED diagnostic names ("nwrddc03.gnilink.net.POSTED") is where the
 * article was posted, the last site: what follows it was written by the
 * posting side, not by news servers ("!8b1f9295!not-for-mail", a
 * server's code for its customer).  MISMATCH and SEEN say how a hop was
 * made, and are left out.
 *
 * Returns: (transfer full) (element-type utf8): the sites
 */
GPtrArray *
network_path_sites (const char *path)
{
  GPtrArray *sites = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) parts = g_strsplit (path ? path : "", "!", -1);
  guint n = g_strv_length (parts);

  for (guint i = 0; i + 1 < n; i++)
    {
      char *element = g_strstrip (parts[i]);
      gsize named;
      const char *diagnostic = path_diagnostic (element, &named);

      if (diagnostic == NULL && *element != '\0' && *element != '.')
        g_ptr_array_add (sites, g_ascii_strdown (element, -1));
      else if (diagnostic == path_diagnostics[0])
        {
          if (named > 0)
            g_ptr_array_add (sites, g_ascii_strdown (element, (gssize) named));
          break;
        }
    }
  return sites;
}

/* The vertex of a site ("s:") or a domain ("d:"), made when new. */
static guint
named_vertex (Builder *b, const char *prefix, const char *name)
{
  gboolean made;
  guint index = vertex_of_key (b, g_strconcat (prefix, name, NULL), &made);
  NetVertex *v = g_ptr_array_index (b->net->vertices, index);

  if (made)
    {
      v->name = g_strdup (name);
      v->address = g_strdup (name);
      v->is_site = prefix[0] == 's';
      v->is_domain = prefix[0] == 'd';
    }
  return index;
}

/* NETWORK_SITE: news went from the last site of Path to the first; each
 * hop is an edge, counted once per article (a Path that passes a site
 * twice passes each hop it repeats once); a site counts the articles that
 * passed through it, once each. */
static gboolean
add_path (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  g_autoptr (GPtrArray) sites = network_path_sites (r->name);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) hops = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) index = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < sites->len; i++)
    {
      guint v = named_vertex (b, "s:", g_ptr_array_index (sites, i));
      NetVertex *vertex = g_ptr_array_index (b->net->vertices, v);

      g_array_append_val (index, v);
      if (g_hash_table_add (seen, GUINT_TO_POINTER (v + 1)))
        {
          vertex->messages++;
          widen_dates (&vertex->first_date, &vertex->last_date, r->first_date);
        }
    }
  for (guint i = index->len; i > 1; i--)
    {
      guint from = g_array_index (index, guint, i - 1), to = g_array_index (index, guint, i - 2);

      if (from != to && g_hash_table_add (hops, g_strdup_printf ("%u %u", from, to)))
        count_on_edge (edge_for (b, from, to), 1, r->first_date, r->last_date);
    }
  return TRUE;
}

/* NETWORK_LINK: an author's messages citing a domain. */
static gboolean
add_link (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  guint author = vertex_for (b, r->author, FALSE), domain = named_vertex (b, "d:", r->name);
  NetVertex *d = g_ptr_array_index (b->net->vertices, domain);

  d->messages += r->messages;
  widen_dates (&d->first_date, &d->last_date, r->first_date);
  widen_dates (&d->first_date, &d->last_date, r->last_date);
  count_on_edge (edge_for (b, author, domain), r->messages, r->first_date, r->last_date);
  return TRUE;
}

/* NETWORK_LINK_MESSAGE: a message and the domains it cites. */
static gboolean
add_message_link (const StoreNetRow *r, gpointer data)
{
  Builder *b = data;
  gboolean made;
  guint message = vertex_of_key (b, g_strdup_printf ("m%" G_GINT64_FORMAT, r->message), &made);
  guint domain = named_vertex (b, "d:", r->name);
  NetVertex *m = g_ptr_array_index (b->net->vertices, message), *d;

  if (made)
    {
      m->is_message = TRUE;
      m->name = g_strdup (r->address ? r->address : "");
      m->address = g_strdup (m->name);
      m->messages = 1;
      widen_dates (&m->first_date, &m->last_date, r->first_date);
    }
  d = g_ptr_array_index (b->net->vertices, domain);
  d->messages++;
  widen_dates (&d->first_date, &d->last_date, r->first_date);
  count_on_edge (edge_for (b, message, domain), r->messages, r->first_date, r->last_date);
  return TRUE;
}

static void
drop_light_edges (Network *net, gint64 min_weight)
{
  GPtrArray *kept = g_ptr_array_new_with_free_func ((GDestroyNotify) edge_free);

  for (guint i = 0; i < net->edges->len; i++)
    {
      NetEdge *e = g_ptr_array_index (net->edges, i);
      if (e->weight >= min_weight)
        g_ptr_array_add (kept, e);
      else
        edge_free (e);
    }
  g_ptr_array_set_free_func (net->edges, NULL);
  g_ptr_array_unref (net->edges);
  net->edges = kept;
}

/**
 * network_new:
 *
 * Returns: (transfer full): an empty network of @kind (directed as that
 *   kind is), whose vertices and edges network_free() frees
 */
Network *
network_new (NetworkKind kind)
{
  Network *net = g_new0 (Network, 1);

  net->kind = kind;
  net->directed = kind == NETWORK_REPLY || kind == NETWORK_SITE || kind == NETWORK_LINK ||
                  kind == NETWORK_LINK_MESSAGE;
  net->vertices = g_ptr_array_new_with_free_func ((GDestroyNotify) vertex_free);
  net->edges = g_ptr_array_new_with_free_func ((GDestroyNotify) edge_free);
  return net;
}

/**
 * network_load:
 *
 * Reads and aggregates the network @options describe.
 */
Network *
network_load (Store *store, const NetworkOptions *options, GError **error)
{
  g_autoptr (Network) net = network_new (options->kind);
  Builder b = { .net = net, .vertex_of = g_hash_table_new (g_str_hash, g_str_equal),
                .edge_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
                .options = options, .thread = -1,
                .thread_authors = g_array_new (FALSE, FALSE, sizeof (guint)) };
  gboolean ok;

  if (options->kind == NETWORK_CROSSPOST)
    {
      ok = store_network_rows (store, STORE_NET_GROUP_NODES, &options->filter, add_group_node, &b, error) &&
           store_network_rows (store, STORE_NET_CROSSPOSTS, &options->filter, add_crosspost, &b, error);
      close_crosspost (&b);
      g_free (b.date_owned);
    }
  else if (options->kind == NETWORK_SITE)
    ok = store_network_rows (store, STORE_NET_PATHS, &options->filter, add_path, &b, error);
  else if (options->kind == NETWORK_LINK_MESSAGE)
    ok = store_network_rows (store, STORE_NET_LINK_MESSAGES, &options->filter, add_message_link, &b, error);
  else
    ok = store_network_rows (store, STORE_NET_AUTHORS, &options->filter, add_author, &b, error);
  if (options->kind == NETWORK_CROSSPOST || options->kind == NETWORK_SITE ||
      options->kind == NETWORK_LINK_MESSAGE)
    ;
  else if (ok && options->kind == NETWORK_REPLY)
    ok = store_network_rows (store, STORE_NET_REPLIES, &options->filter, add_reply, &b, error);
  else if (ok && options->kind == NETWORK_LINK)
    ok = store_network_rows (store, STORE_NET_LINKS, &options->filter, add_link, &b, error);
  else if (ok && options->kind == NETWORK_THREAD)
    {
      ok = store_network_rows (store, STORE_NET_THREADS, &options->filter, add_thread_author, &b, error);
      close_thread (&b);
    }
  else if (ok)
    ok = store_network_rows (store, STORE_NET_GROUPS, &options->filter, add_group_posting, &b, error);
  if (ok && net->vertices->len > 0 && options->kind != NETWORK_CROSSPOST && options->kind != NETWORK_SITE &&
      options->kind != NETWORK_LINK_MESSAGE)
    ok = store_network_rows (store, STORE_NET_EVERY_AUTHOR, &options->filter, name_author, &b, error);
  if (ok && options->min_weight > 1)
    drop_light_edges (net, options->min_weight);
  g_hash_table_unref (b.vertex_of);
  g_hash_table_unref (b.edge_of);
  g_array_unref (b.thread_authors);
  return ok ? g_steal_pointer (&net) : NULL;
}

/**
 * network_pseudonymise:
 *
 * Every author vertex gets @pseudonym (of its primary address) as its
 * id, name and address; its list of addresses goes.  Newsgroups keep
 * their names.
 */
void
network_pseudonymise (Network *net, NetworkPseudonymFunc pseudonym, gpointer user_data)
{
  for (guint i = 0; i < net->vertices->len; i++)
    {
      NetVertex *v = g_ptr_array_index (net->vertices, i);
      char *p;

      if (v->is_group || v->is_site || v->is_domain || v->is_message)
        continue;
      p = pseudonym (v->address, user_data);
      g_free (v->id), v->id = g_strdup (p);
      g_free (v->name), v->name = g_strdup (p);
      g_free (v->address), v->address = p;
      g_clear_pointer (&v->addresses, g_free);
      v->author_id = 0;
    }
}
