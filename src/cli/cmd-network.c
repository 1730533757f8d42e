/* cmd-network.c — deja network: author networks for Gephi, R and networkx. */
#include "deja.h"
#include "graph.h"
#include "network.h"
#include "output.h"
#include "people.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_N 10

typedef enum { FMT_GRAPHML, FMT_GML, FMT_PAJEK, FMT_CSV, FMT_GEXF, FMT_JSON } Format;

static const char *const format_names[] = { "graphml", "gml", "pajek", "csv", "gexf", "json" };

static gboolean
parse_choice (const char *s, const char *const *names, gsize n, int *out)
{
  for (gsize i = 0; s && i < n; i++)
    if (strcmp (s, names[i]) == 0)
      {
        *out = (int) i;
        return TRUE;
      }
  return FALSE;
}

/* Vertex indexes sorted by a metric, largest first (ties: by address). */
typedef double (*Metric) (const NetVertex *v);
static double m_in (const NetVertex *v) { return v->in_degree; }
static double m_out (const NetVertex *v) { return v->out_degree; }
static double m_strength (const NetVertex *v) { return v->strength; }
static double m_betweenness (const NetVertex *v) { return v->betweenness; }

static const struct {
  const char *name;
  Metric metric;
} rankings[] = {
  { "in_degree", m_in },
  { "out_degree", m_out },
  { "strength", m_strength },
  { "betweenness", m_betweenness },
};

static gint
by_metric (gconstpointer a, gconstpointer b, gpointer data)
{
  const NetVertex *va = *(NetVertex *const *) a, *vb = *(NetVertex *const *) b;
  Metric m = (Metric) data;
  double x = m (va), y = m (vb);

  return x > y ? -1 : x < y ? 1 : strcmp (va->address, vb->address);
}

static GPtrArray *
top (const Network *net, Metric metric)
{
  GPtrArray *sorted = g_ptr_array_new ();

  for (guint i = 0; i < net->vertices->len; i++)
    if ((net->kind != NETWORK_GROUP || !((NetVertex *) g_ptr_array_index (net->vertices, i))->is_group) &&
        !((NetVertex *) g_ptr_array_index (net->vertices, i))->is_domain)
      g_ptr_array_add (sorted, g_ptr_array_index (net->vertices, i));
  g_ptr_array_sort_with_data (sorted, by_metric, (gpointer) metric);
  if (sorted->len > TOP_N)
    g_ptr_array_set_size (sorted, TOP_N);
  return sorted;
}

/* @value with @format, or "-" where it is undefined (NaN: the density of
 * no vertices, the reciprocity and modularity of no edges) */
static void
append_measure (GString *out, const char *format, double value)
{
  if (isnan (value))
    g_string_append (out, "-");
  else
    g_string_append_printf (out, format, value);
}

static void
stats_text (GString *out, const Network *net, const GraphStats *s)
{
  g_string_append_printf (out, "network: %s (%s), %" G_GINT64_FORMAT " vertices, %" G_GINT64_FORMAT
                          " edges, total weight %.0f\n",
                          network_kind_name (net->kind), net->directed ? "directed" : "undirected",
                          s->vertices, s->edges, s->total_weight);
  g_string_append (out, "density ");
  append_measure (out, "%.6f", s->density);
  if (net->directed)
    {
      g_string_append (out, ", reciprocity ");
      append_measure (out, "%.4f", s->reciprocity);
    }
  g_string_append_printf (out, "\nweakly connected components: %" G_GINT64_FORMAT " (largest %" G_GINT64_FORMAT ")",
                          s->weak_components, s->largest_weak);
  if (net->directed)
    g_string_append_printf (out, "; strongly connected: %" G_GINT64_FORMAT " (largest %" G_GINT64_FORMAT ")",
                            s->strong_components, s->largest_strong);
  g_string_append_printf (out, "\ncommunities (Louvain, undirected projection): %" G_GINT64_FORMAT
                          ", modularity ", s->communities);
  append_measure (out, "%.4f", s->modularity);
  g_string_append_c (out, '\n');
  if (!s->betweenness_exact)
    g_string_append (out, "betweenness: approximate (shortest paths of length 4 or less)\n");
  for (gsize r = 0; r < G_N_ELEMENTS (rankings); r++)
    {
      g_autoptr (GPtrArray) best = top (net, rankings[r].metric);

      if (!net->directed && (r == 0 || r == 1))
        continue;   /* undirected: in = out = degree; strength says it */
      g_string_append_printf (out, "top by %s:\n", rankings[r].name);
      for (guint i = 0; i < best->len; i++)
        {
          const NetVertex *v = g_ptr_array_index (best, i);
          g_string_append_printf (out, "  %2u. %-12g %s <%s>\n", i + 1, rankings[r].metric (v),
                                  v->name ? v->name : "", v->address);
        }
    }
}

static void
stats_json (GString *out, const Network *net, const GraphStats *s)
{
  g_string_append_printf (out, "{\n  \"kind\": \"%s\",\n  \"directed\": %s,\n", network_kind_name (net->kind),
                          net->directed ? "true" : "false");
  g_string_append_printf (out, "  \"vertices\": %" G_GINT64_FORMAT ",\n  \"edges\": %" G_GINT64_FORMAT
                          ",\n  \"total_weight\": %.0f,\n", s->vertices, s->edges, s->total_weight);
  g_string_append (out, "  \"density\": ");
  output_json_number (out, s->density);
  g_string_append (out, ",\n  \"reciprocity\": ");
  output_json_number (out, s->reciprocity);
  g_string_append (out, ",\n");
  g_string_append_printf (out, "  \"weak_components\": %" G_GINT64_FORMAT ",\n  \"largest_weak_component\": %"
                          G_GINT64_FORMAT ",\n", s->weak_components, s->largest_weak);
  g_string_append_printf (out, "  \"strong_components\": %" G_GINT64_FORMAT ",\n  \"largest_strong_component\": %"
                          G_GINT64_FORMAT ",\n", s->strong_components, s->largest_strong);
  g_string_append_printf (out, "  \"communities\": %" G_GINT64_FORMAT ",\n  \"modularity\": ", s->communities);
  output_json_number (out, s->modularity);
  g_string_append (out, ",\n");
  g_string_append_printf (out, "  \"betweenness_exact\": %s,\n  \"top\": {", s->betweenness_exact ? "true" : "false");
  for (gsize r = 0; r < G_N_ELEMENTS (rankings); r++)
    {
      g_autoptr (GPtrArray) best = top (net, rankings[r].metric);

      g_string_append_printf (out, "%s\n    \"%s\": [", r ? "," : "", rankings[r].name);
      for (guint i = 0; i < best->len; i++)
        {
          const NetVertex *v = g_ptr_array_index (best, i);
          g_string_append (out, i ? ", {\"address\": " : "{\"address\": ");
          output_json_string (out, v->address);
          g_string_append (out, ", \"name\": ");
          output_json_string (out, v->name);
          g_string_append (out, ", \"value\": ");
          output_json_number (out, rankings[r].metric (v));
          g_string_append_c (out, '}');
        }
      g_string_append_c (out, ']');
    }
  g_string_append (out, "\n  }\n}\n");
}

/* Writes the network file (not CSV, which is two files). */
static gboolean
write_one (const Network *net, Format format, gboolean dynamic, int window, FILE *out,
           const GraphStats *s, GError **error)
{
  g_autoptr (GString) json = NULL;

  switch (format)
    {
    case FMT_GRAPHML: return network_write_graphml (net, out, error);
    case FMT_GML: return network_write_gml (net, out, error);
    case FMT_PAJEK: return graph_write_pajek (net, out, error);
    case FMT_GEXF: return network_write_gexf (net, out, dynamic, window, error);
    default:
      json = g_string_new (NULL);
      stats_json (json, net, s);
      return fputs (json->str, out) >= 0;
    }
}

static gboolean
write_network (const Network *net, Format format, gboolean dynamic, int window, const char *path,
               const GraphStats *s, GError **error)
{
  Output *out;
  gboolean ok;

  if (format == FMT_CSV)
    return network_write_csv (net, path, error);
  if ((out = output_open (path, error)) == NULL)
    return FALSE;
  ok = write_one (net, format, dynamic, window, output_stream (out), s, error);
  return output_close (out, ok, ok ? error : NULL) && ok;
}

typedef struct {
  DejaRun *run;            /* --db and the filter */
  char *format, *kind, *out, *key, *statement, *command;
  gint64 min_weight;
  int window;
  gboolean self_loops, stats, with_metrics, dynamic;
} Args;

static int
check_args (GOptionContext *context, Args *a, int argc, char **argv, Format *format, NetworkKind *kind)
{
  static const char *const kinds[] = { "reply", "thread", "group", "crosspost", "site", "link",
                                       "link-message" };

  if (!parse_choice (a->format ? a->format : "graphml", format_names, G_N_ELEMENTS (format_names), (int *) format))
    return deja_usage_error (context, "--format must be graphml, gml, pajek, csv, gexf or json");
  if (!parse_choice (a->kind ? a->kind : "reply", kinds, G_N_ELEMENTS (kinds), (int *) kind))
    return deja_usage_error (context, "--kind must be reply, thread, group, crosspost, site, link or link-message");
  if (*format == FMT_CSV && (a->out == NULL || strcmp (a->out, "-") == 0))
    return deja_usage_error (context, "--format csv writes two files: give --out EDGES.csv");
  if (a->dynamic && *format != FMT_GEXF)
    return deja_usage_error (context, "--dynamic is for --format gexf");
  if (a->window < 0 || (a->window > 0 && !a->dynamic))
    return deja_usage_error (context, "--window takes a number of days, with --dynamic");
  if (a->statement && (a->out == NULL || strcmp (a->out, "-") == 0))
    return deja_usage_error (context, "--statement describes a file: give --out too");
  if (a->min_weight < 0)
    return deja_usage_error (context, "--min-weight must be 0 or more");
  return 0;
}

/* How the file was made, for the formats that have a place for it. */
static char *
provenance (const Args *a)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *when = g_date_time_format_iso8601 (now);
  g_autofree char *db = g_canonicalize_filename (a->run->db, NULL);

  return g_strdup_printf ("deja %s; database %s; made %s with: %s%s", PACKAGE_VERSION, db, when, a->command,
                          a->key ? "; authors pseudonymised (HMAC-SHA-256 under a secret key)" : "");
}

static char *
pseudonym (const char *address, gpointer p)
{
  return deja_pseudonym (p, address);
}

static int
export_network (Args *a, Format format, NetworkKind kind)
{
  g_autoptr (GError) error = NULL;
  Store *store;
  g_autoptr (Network) net = NULL;
  g_auto (DejaPseudonyms) pseudonyms = { 0 };
  NetworkOptions options = { kind, a->run->filter_sql, a->min_weight, a->self_loops };
  GraphStats stats = { 0 };
  gboolean need_metrics = a->stats || a->with_metrics || format == FMT_JSON;

  int status;

  if (!deja_run_open (a->run, &status))
    return status;
  store = a->run->store;
  if (a->key && !deja_pseudonyms_open (&pseudonyms, a->key, store))
    return DEJA_EXIT_FAILED;
  if ((net = network_load (store, &options, &error)) == NULL ||
      (need_metrics && !graph_compute_metrics (net, &stats, &error)))
    {
      deja_error ("cannot build the network of '%s': %s", a->run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  net->has_metrics = a->with_metrics;
  net->provenance = provenance (a);
  if (a->key)
    network_pseudonymise (net, pseudonym, &pseudonyms);
  if (!write_network (net, format, a->dynamic, a->window, a->out, &stats, &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (a->stats && format != FMT_JSON)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      gboolean to_stdout = a->out && strcmp (a->out, "-") != 0;

      stats_text (text, net, &stats);
      fputs (text->str, to_stdout ? stdout : stderr);
    }
  deja_note ("%s network: %u vertices, %u edges%s%s", network_kind_name (kind), net->vertices->len,
             net->edges->len, a->out ? " written to " : "", a->out ? a->out : "");
  if (a->statement)
    {
      g_autofree char *what = g_strdup_printf ("%s network of %s, %s", network_kind_name (kind),
                                               kind == NETWORK_CROSSPOST ? "groups" : kind == NETWORK_SITE ? "news sites" : "authors",
                                               format_names[format]);
      g_autofree char *counts = g_strdup_printf ("%u vertices, %u edges", net->vertices->len,
                                                 net->edges->len);
      DejaStatement st = { a->command, a->run->db, what, a->out, counts, a->key ? &pseudonyms : NULL, FALSE, -1 };

      if (!deja_write_statement (a->statement, store, &st))
        return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}

int
cmd_network (DejaRun *run, int argc, char **argv)
{
  Args a = { .run = run };
  int status;
  Format format = FMT_GRAPHML;
  NetworkKind kind = NETWORK_REPLY;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "file format (default: graphml); json: the statistics", "graphml|gml|pajek|csv|gexf|json" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out, "output file (default: standard output; csv: EDGES.csv and EDGES-nodes.csv)", "FILE" },
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &a.kind, "reply (default): replier -> replied-to author; thread: authors in the same thread; group: author -- newsgroup; crosspost: newsgroup -- newsgroup, by messages posted to both; site: news site -> news site of Path:; link: author -> domain cited in own text; link-message: message -> domain", "reply|thread|group|crosspost|site|link|link-message" },
    { "min-weight", 0, 0, G_OPTION_ARG_INT64, &a.min_weight, "drop edges lighter than N", "N" },
    { "self-loops", 0, 0, G_OPTION_ARG_NONE, &a.self_loops, "keep replies to oneself", NULL },
    { "dynamic", 0, 0, G_OPTION_ARG_NONE, &a.dynamic, "GEXF: times for Gephi's timeline (an edge lives from its first reply on)", NULL },
    { "window", 0, 0, G_OPTION_ARG_INT, &a.window, "with --dynamic: an edge lives N days after each reply instead", "DAYS" },
    { "pseudonymise", 0, 0, G_OPTION_ARG_FILENAME, &a.key, "replace authors by keyed pseudonyms (deja keygen makes a key)", "KEYFILE" },
    { "statement", 0, 0, G_OPTION_ARG_FILENAME, &a.statement, "write a data statement (Markdown) describing the file", "FILE" },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &a.stats, "print statistics (stdout, or stderr when the network goes to stdout)", NULL },
    { "with-metrics", 0, 0, G_OPTION_ARG_NONE, &a.with_metrics, "add in_degree, out_degree, strength, betweenness and community to the vertices", NULL },
    { NULL }
  };

  a.command = deja_command_line (argv);
  if (deja_run_parse (run, "— export an author network", entries,
    "One vertex per author (deja authors), id 'a' + author_id in every file whatever the\n"
    "filter, with attributes author_id, address (the primary one), addresses, name (never\n"
    "empty), messages, first_date, last_date.  Reply network: an edge from the\n"
    "replying author to the author of the parent message, weight = number of replies, with\n"
    "first_date and last_date.  Only canonical copies count (duplicate_of IS NULL), and only\n"
    "messages with an address; replies to oneself are left out unless --self-loops.  Threads\n"
    "come from 'deja thread' (run by ingest).  See docs/network.md.", &argc, &argv, &status) &&
      (status = check_args (run->context, &a, argc, argv, &format, &kind)) == 0)
    status = export_network (&a, format, kind);
  g_free (a.format), g_free (a.kind), g_free (a.out);
  g_free (a.key), g_free (a.statement), g_free (a.command);
  return status;
}
