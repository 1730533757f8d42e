/* charts.c — the corpus's charts: counts from the store, a layout from
 * the network code, pictures from plot.c.
 *
 * Every chart counts distinct messages (a cross-post or a list archive's
 * second copy once) with a readable date, as deja stats does.
 */
#include "charts.h"

#include "graph.h"
#include "network.h"
#include "roles.h"
#include "rows.h"
#include "id-hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_GROUPS 6          /* lines drawn; the other groups are summed */
#define NETWORK_VERTICES 150  /* the most active authors drawn */
#define NETWORK_LABELS 8      /* of whom this many are named */

static const struct {
  const char *name;
  const char *title;
} charts[N_CHARTS] = {
  [CHART_MESSAGES] = { "messages", "Messages per month" },
  [CHART_AUTHORS] = { "authors", "Authors and new threads per month" },
  [CHART_THREADS] = { "threads", "Thread sizes" },
  [CHART_POSTERS] = { "posters", "Most active authors" },
  [CHART_NETWORK] = { "network", "Reply network of the most active authors" },
  [CHART_LANGUAGES] = { "languages", "Languages of the authors' own text" },
  [CHART_CROSSPOSTS] = { "crossposts", "Groups linked by cross-posted messages" },
  [CHART_DOMAINS] = { "domains", "Most cited domains per year" },
  [CHART_ROLES] = { "roles", "Authors by role" },
};

const char *
chart_name (Chart chart)
{
  return charts[chart].name;
}

const char *
chart_title (Chart chart)
{
  return charts[chart].title;
}

gboolean
chart_parse (const char *name, Chart *chart)
{
  for (guint i = 0; i < N_CHARTS; i++)
    if (g_strcmp0 (name, charts[i].name) == 0)
      {
        *chart = (Chart) i;
        return TRUE;
      }
  return FALSE;
}

/* Every month from @first to @last (YYYY-MM), gaps included. */
static GPtrArray *
month_range (const char *first, const char *last)
{
  GPtrArray *months = g_ptr_array_new_with_free_func (g_free);
  int y = atoi (first), m = atoi (first + 5), ly = atoi (last), lm = atoi (last + 5);

  for (; y < ly || (y == ly && m <= lm); m = m == 12 ? 1 : m + 1, y += m == 1)
    g_ptr_array_add (months, g_strdup_printf ("%04d-%02d", y, m));
  return months;
}

static gboolean
is_month (const char *s)
{
  return strlen (s) == 7 && g_ascii_isdigit (s[0]) && s[4] == '-';
}

static gint
month_index (GPtrArray *months, const char *month)
{
  const char *first = g_ptr_array_index (months, 0);

  return (atoi (month) - atoi (first)) * 12 + atoi (month + 5) - atoi (first + 5);
}

static GBytes *
empty_chart (const PlotPage *page, GError **error)
{
  const char *const labels[] = { "(no dated messages)" };
  const double values[] = { 0 };
  PlotBars bars = { NULL, 1, labels, values };

  return plot_bars (page, &bars, error);
}

typedef struct {
  char *name;
  double total;
  guint index;
} Group;

static gint
by_total (gconstpointer a, gconstpointer b)
{
  const Group *x = *(Group *const *) a, *y = *(Group *const *) b;

  return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp (x->name, y->name);
}

static void
group_free (gpointer data)
{
  Group *g = data;

  g_free (g->name);
  g_free (g);
}

/* A (group, month, messages) row kept for the messages chart. */
typedef struct {
  char *group, *month;
  gint64 messages;
} GroupMonth;

static void
group_month_clear (gpointer data)
{
  GroupMonth *r = data;

  g_free (r->group);
  g_free (r->month);
}

static gboolean
keep_group_month (const StoreGroupPeriodRow *row, gpointer data)
{
  GroupMonth r = { g_strdup (row->newsgroup), g_strdup (row->period), row->messages };

  if (is_month (row->period))
    g_array_append_val (data, r);
  else
    group_month_clear (&r);
  return TRUE;
}

/* Messages per month, one line per newsgroup: the largest TOP_GROUPS,
 * the others summed in one more line. */
static GBytes *
messages_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GArray) data = g_array_new (FALSE, FALSE, sizeof (GroupMonth));
  g_autoptr (GPtrArray) months = NULL;
  g_autoptr (GHashTable) groups = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (group_free);
  const char *first = NULL, *last = NULL;
  g_autofree double *values = NULL;
  g_autofree const char **names = NULL;
  guint n_series;
  PlotLines lines;

  g_array_set_clear_func (data, group_month_clear);
  if (!store_stats_by_group (store, TRUE, keep_group_month, data, error))
    return NULL;
  for (guint i = 0; i < data->len; i++)
    {
      const GroupMonth *r = &g_array_index (data, GroupMonth, i);
      Group *g;

      if (first == NULL || strcmp (r->month, first) < 0)
        first = r->month;
      if (last == NULL || strcmp (r->month, last) > 0)
        last = r->month;
      if ((g = g_hash_table_lookup (groups, r->group)) == NULL)
        {
          g = g_new0 (Group, 1);
          g->name = g_strdup (strcmp (r->group, "(none)") == 0 ? "(no newsgroup)" : r->group);
          g_hash_table_insert (groups, r->group, g);
          g_ptr_array_add (order, g);
        }
      g->total += (double) r->messages;
    }
  if (first == NULL)
    return empty_chart (page, error);
  g_ptr_array_sort (order, by_total);
  for (guint i = 0; i < order->len; i++)
    ((Group *) g_ptr_array_index (order, i))->index = MIN (i, TOP_GROUPS);
  months = month_range (first, last);
  n_series = MIN (order->len, TOP_GROUPS + 1);
  values = g_new0 (double, n_series * months->len);
  names = g_new0 (const char *, n_series);
  for (guint i = 0; i < n_series; i++)
    names[i] = i < TOP_GROUPS ? ((Group *) g_ptr_array_index (order, i))->name : "other groups";
  for (guint i = 0; i < data->len; i++)
    {
      const GroupMonth *r = &g_array_index (data, GroupMonth, i);
      Group *g = g_hash_table_lookup (groups, r->group);

      values[g->index * months->len + month_index (months, r->month)] += (double) r->messages;
    }
  lines = (PlotLines) { "messages", months->len, (const char *const *) months->pdata, n_series,
                        names, values };
  return plot_lines (page, &lines, error);
}

/* A month's row kept for the authors chart. */
typedef struct {
  char *month;
  gint64 authors, threads;
} Month;

static void
month_clear (gpointer data)
{
  g_free (((Month *) data)->month);
}

static gboolean
keep_month (const StoreMonthRow *row, gpointer data)
{
  Month m = { g_strdup (row->month), row->authors, row->threads };

  g_array_append_val (data, m);
  return TRUE;
}

static GBytes *
authors_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GArray) data = g_array_new (FALSE, FALSE, sizeof (Month));
  g_autoptr (GPtrArray) months = NULL;
  g_autofree double *values = NULL;
  const char *names[] = { "authors who wrote", "threads started" };
  PlotLines lines;

  g_array_set_clear_func (data, month_clear);
  if (!store_stats_monthly (store, keep_month, data, error))
    return NULL;
  if (data->len == 0)
    return empty_chart (page, error);
  months = month_range (g_array_index (data, Month, 0).month,
                        g_array_index (data, Month, data->len - 1).month);
  values = g_new0 (double, 2 * months->len);
  for (guint i = 0; i < data->len; i++)
    {
      const Month *r = &g_array_index (data, Month, i);
      gint m = month_index (months, r->month);

      values[m] = (double) r->authors;
      values[months->len + m] = (double) r->threads;
    }
  lines = (PlotLines) { "per month", months->len, (const char *const *) months->pdata, 2, names,
                        values };
  return plot_lines (page, &lines, error);
}

static gboolean
keep_thread_size (const StoreThreadSizeRow *row, gpointer data)
{
  g_array_append_val (data, *row);
  return TRUE;
}

static GBytes *
threads_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GArray) data = g_array_new (FALSE, FALSE, sizeof (StoreThreadSizeRow));
  g_autofree double *x = NULL, *y = NULL;
  PlotPoints points;

  if (!store_stats_thread_sizes (store, keep_thread_size, data, error))
    return NULL;
  x = g_new0 (double, data->len + 1);
  y = g_new0 (double, data->len + 1);
  for (guint i = 0; i < data->len; i++)
    {
      const StoreThreadSizeRow *r = &g_array_index (data, StoreThreadSizeRow, i);

      x[i] = (double) r->size;
      y[i] = (double) r->threads;
    }
  points = (PlotPoints) { "messages in the thread", "threads", data->len, x, y };
  return plot_points (page, &points, error);
}

/* Bars: a label and a value each. */
typedef struct {
  GPtrArray *labels;
  GArray *values;          /* of double */
} Bars;

static gboolean
poster_bar (const StoreAuthorCountRow *row, gpointer data)
{
  Bars *b = data;
  double value = (double) row->messages;

  g_ptr_array_add (b->labels, row->name && *row->name
                                ? g_strdup_printf ("%s <%s>", row->name, row->address)
                                : g_strdup (row->address ? row->address : ""));
  g_array_append_val (b->values, value);
  return TRUE;
}

/* The twenty languages with most messages. */
static gboolean
language_bar (const StoreLanguageRow *row, gpointer data)
{
  Bars *b = data;
  double value = (double) row->messages;

  if (b->labels->len == 20)
    return FALSE;
  g_ptr_array_add (b->labels, g_strdup_printf ("%s (%" G_GINT64_FORMAT " reliable)", row->lang,
                                               row->reliable));
  g_array_append_val (b->values, value);
  return TRUE;
}

static GBytes *
bars_chart (PlotPage *page, Bars *b, GError **error)
{
  PlotBars bars = { "messages", b->labels->len, (const char *const *) b->labels->pdata,
                    (const double *) b->values->data };

  if (b->labels->len == 0)
    return empty_chart (page, error);
  return plot_bars (page, &bars, error);
}

static GBytes *
posters_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  Bars b = { labels, values };

  if (!store_stats_top_authors (store, poster_bar, &b, error))
    return NULL;
  return bars_chart (page, &b, error);
}

static GBytes *
languages_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  Bars b = { labels, values };

  if (!store_stats_languages (store, language_bar, &b, error))
    return NULL;
  return bars_chart (page, &b, error);
}

static gint
by_messages (gconstpointer a, gconstpointer b, gpointer data)
{
  const Network *net = data;
  const NetVertex *x = g_ptr_array_index (net->vertices, *(const guint *) a);
  const NetVertex *y = g_ptr_array_index (net->vertices, *(const guint *) b);

  if (x->messages != y->messages)
    return x->messages < y->messages ? 1 : -1;
  return strcmp (x->address, y->address);
}

/* The NETWORK_VERTICES vertices with the most messages among those with
 * an edge (authors who replied or were replied to; groups that shared a
 * message), placed by igraph, coloured by community. */
static GBytes *
network_chart (Store *store, PlotPage *page, NetworkKind kind, GError **error)
{
  NetworkOptions options = { .kind = kind, .min_weight = 1 };
  g_autoptr (Network) net = network_load (store, &options, error);
  g_autoptr (GArray) keep = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GHashTable) degree = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) position = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) ends = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) weights = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *xy = NULL, *size = NULL;
  g_autofree gint64 *group = NULL;
  g_autofree const char **labels = NULL;
  g_autofree char *note = NULL;
  GraphStats stats;
  PlotNetwork drawing;

  if (net == NULL || !graph_compute_metrics (net, &stats, error))
    return NULL;
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      g_hash_table_add (degree, GUINT_TO_POINTER (e->from + 1));
      g_hash_table_add (degree, GUINT_TO_POINTER (e->to + 1));
    }
  for (guint i = 0; i < net->vertices->len; i++)
    if (g_hash_table_contains (degree, GUINT_TO_POINTER (i + 1)))
      g_array_append_val (keep, i);
  g_array_sort_with_data (keep, by_messages, net);
  g_array_set_size (keep, MIN (keep->len, NETWORK_VERTICES));
  if (keep->len == 0)
    return empty_chart (page, error);
  xy = g_new0 (double, 2 * keep->len);
  if (!graph_layout (net, (const guint *) keep->data, keep->len, xy, error))
    return NULL;
  size = g_new0 (double, keep->len);
  group = g_new0 (gint64, keep->len);
  labels = g_new0 (const char *, keep->len);
  for (guint i = 0; i < keep->len; i++)
    {
      const NetVertex *v = g_ptr_array_index (net->vertices, g_array_index (keep, guint, i));

      g_hash_table_insert (position, GUINT_TO_POINTER (g_array_index (keep, guint, i) + 1),
                           GUINT_TO_POINTER (i + 1));
      size[i] = v->messages;
      group[i] = v->community;
      labels[i] = i < NETWORK_LABELS ? (v->name && *v->name ? v->name : v->address) : NULL;
    }
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      guint a = GPOINTER_TO_UINT (g_hash_table_lookup (position, GUINT_TO_POINTER (e->from + 1)));
      guint b = GPOINTER_TO_UINT (g_hash_table_lookup (position, GUINT_TO_POINTER (e->to + 1)));
      double w = (double) e->weight;

      if (a == 0 || b == 0)
        continue;
      a--, b--;
      g_array_append_val (ends, a);
      g_array_append_val (ends, b);
      g_array_append_val (weights, w);
    }
  /* Communities are numbered by size only by chance: colour the largest
   * ones among the drawn vertices, grey the rest. */
  {
    g_autoptr (GHashTable) count = deja_id_table_new (NULL, NULL);
    g_autoptr (GHashTable) rank = deja_id_table_new (NULL, NULL);
    for (guint i = 0; i < keep->len; i++)
      {
        gint64 *key = &group[i];
        g_hash_table_insert (count, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (count, key)) + 1));
      }
    for (guint r = 0; r < 7; r++)
      {
        gint64 *best = NULL;
        guint best_n = 0;
        GHashTableIter it;
        gpointer k, v;

        g_hash_table_iter_init (&it, count);
        while (g_hash_table_iter_next (&it, &k, &v))
          /* (of communities as large, the lowest numbered: not the
           * table's order) */
          if (!g_hash_table_contains (rank, k) &&
              (GPOINTER_TO_UINT (v) > best_n ||
               (GPOINTER_TO_UINT (v) == best_n && best && *(gint64 *) k < *best)))
            best = k, best_n = GPOINTER_TO_UINT (v);
        if (best == NULL || best_n < 2)
          break;
        g_hash_table_insert (rank, best, GUINT_TO_POINTER (r + 1));
      }
    /* The tables' keys point into group[]: look every rank up first. */
    g_autofree gint64 *colour = g_new0 (gint64, keep->len);
    for (guint i = 0; i < keep->len; i++)
      colour[i] = (gint64) GPOINTER_TO_UINT (g_hash_table_lookup (rank, &group[i])) - 1;
    memcpy (group, colour, keep->len * sizeof (gint64));
  }
  note = g_strdup_printf ("%u of %" G_GINT64_FORMAT " %s, %" G_GINT64_FORMAT
                          " %s in all; colours: the largest communities (Louvain)",
                          keep->len, stats.vertices, kind == NETWORK_CROSSPOST ? "groups" : "authors",
                          stats.edges, kind == NETWORK_CROSSPOST ? "cross-post links" : "reply links");
  if (page->note == NULL)
    page->note = note;
  drawing = (PlotNetwork) { keep->len, xy, size, group, labels, ends->len / 2,
                            (const guint *) ends->data, (const double *) weights->data };
  return plot_network (page, &drawing, error);
}

/* Messages citing each of the six most cited domains, per year. */
static gboolean
collect_domain (const StoreValue *v, guint n, gpointer data)
{
  const char *period = row_get (v, n, "period"), *domain = row_get (v, n, "domain");
  const char *messages = row_get (v, n, "messages");
  char **row = g_new0 (char *, 4);

  row[0] = g_strdup (period ? period : "");
  row[1] = g_strdup (domain ? domain : "");
  row[2] = g_strdup (messages ? messages : "0");
  g_ptr_array_add (data, row);
  return TRUE;
}

static GBytes *
domains_chart (Store *store, PlotPage *page, GError **error)
{
  g_autoptr (GPtrArray) data = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr (GHashTable) totals = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (group_free);
  g_autoptr (GPtrArray) years = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree double *values = NULL;
  StoreFilter all = { 0 };
  PlotLines lines;
  int first = G_MAXINT, last = G_MININT;
  guint n;

  if (!store_links (store, STORE_LINKS_DOMAINS, &all, "year", FALSE, collect_domain, data, error))
    return NULL;
  if (data->len == 0)
    return empty_chart (page, error);
  for (guint i = 0; i < data->len; i++)
    {
      char **r = g_ptr_array_index (data, i);
      Group *g = g_hash_table_lookup (totals, r[1]);

      if (g == NULL)
        {
          g = g_new0 (Group, 1);
          g->name = g_strdup (r[1]);
          g_ptr_array_add (order, g);
          g_hash_table_insert (totals, g->name, g);
        }
      g->total += g_ascii_strtod (r[2], NULL);
      first = MIN (first, atoi (r[0]));
      last = MAX (last, atoi (r[0]));
    }
  g_ptr_array_sort (order, by_total);
  n = MIN (order->len, TOP_GROUPS);
  for (int y = first; y <= last; y++)
    g_ptr_array_add (years, g_strdup_printf ("%d", y));
  values = g_new0 (double, (gsize) n * years->len);
  for (guint k = 0; k < n; k++)
    {
      Group *g = g_ptr_array_index (order, k);

      g->index = k + 1;
      g_ptr_array_add (names, g->name);
    }
  for (guint i = 0; i < data->len; i++)
    {
      char **r = g_ptr_array_index (data, i);
      Group *g = g_hash_table_lookup (totals, r[1]);

      if (g->index > 0)
        values[(g->index - 1) * years->len + (guint) (atoi (r[0]) - first)] += g_ascii_strtod (r[2], NULL);
    }
  lines = (PlotLines) { .y_label = "messages citing it", .n_x = years->len,
                        .x_labels = (const char *const *) years->pdata, .n_series = n,
                        .series = (const char *const *) names->pdata, .values = values };
  return plot_lines (page, &lines, error);
}

/* Authors per role, by deja authors --roles's rule. */
typedef struct {
  const Roles *roles;
  GHashTable *counts;   /* role (static) -> count */
} RoleCount;

static gint64
value_of (const StoreValue *v, guint n, const char *name)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (v[i].name, name) == 0)
      return v[i].text ? g_ascii_strtoll (v[i].text, NULL, 10) : 0;
  return 0;
}

static gboolean
count_role (const StoreValue *v, guint n, gpointer data)
{
  RoleCount *c = data;
  const char *role = roles_label (value_of (v, n, "messages"), value_of (v, n, "replies_received"),
                                  roles_facts (c->roles, value_of (v, n, "author_id")));

  g_hash_table_insert (c->counts, (gpointer) role,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (c->counts, role)) + 1));
  return TRUE;
}

static GBytes *
roles_chart (Store *store, PlotPage *page, GError **error)
{
  static const char *const order[] = { "answer person", "discussion person", "thread starter",
                                       "unanswered starter", "mixed", "occasional" };
  g_autoptr (Roles) roles = NULL;
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  RoleCount c = { NULL, counts };
  double values[G_N_ELEMENTS (order)];
  PlotBars bars;
  gboolean ok;

  /* the replies and the list read one copy of messages' columns */
  store_author_rows_hold (store);
  c.roles = roles = roles_load (store, error);
  ok = roles != NULL && store_authors (store, STORE_AUTHORS_LIST, 0, count_role, &c, error);
  store_author_rows_let_go (store);
  if (!ok)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    values[i] = GPOINTER_TO_UINT (g_hash_table_lookup (counts, order[i]));
  bars = (PlotBars) { .x_label = "authors", .n = G_N_ELEMENTS (order), .labels = order, .values = values };
  return plot_bars (page, &bars, error);
}

GBytes *
chart_render (Store *store, Chart chart, PlotFormat format, int width, int height,
              gboolean titled, GError **error)
{
  PlotPage page = { format, width, height, titled ? charts[chart].title : NULL, NULL };

  switch (chart)
    {
    case CHART_MESSAGES:
      return messages_chart (store, &page, error);
    case CHART_AUTHORS:
      return authors_chart (store, &page, error);
    case CHART_THREADS:
      return threads_chart (store, &page, error);
    case CHART_POSTERS:
      if (height <= 0)
        page.height = 120 + 18 * 25;
      return posters_chart (store, &page, error);
    case CHART_LANGUAGES:
      if (height <= 0)
        page.height = 120 + 18 * 20;
      return languages_chart (store, &page, error);
    case CHART_CROSSPOSTS:
      if (height <= 0)
        page.height = 640;
      return network_chart (store, &page, NETWORK_CROSSPOST, error);
    case CHART_DOMAINS:
      return domains_chart (store, &page, error);
    case CHART_ROLES:
      if (height <= 0)
        page.height = 120 + 18 * 6;
      return roles_chart (store, &page, error);
    case CHART_NETWORK:
    default:
      if (height <= 0)
        page.height = 640;
      return network_chart (store, &page, NETWORK_REPLY, error);
    }
}
