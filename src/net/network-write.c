/* network-write.c — network files every reader opens.
 *
 * GraphML, GML, CSV and GEXF are written here, not by igraph: node ids
 * are deja's ("a" + authors.id, stable across filters), attributes keep
 * their names and types (integers as integers), GML is ASCII with
 * &#NNNN; escapes (networkx refuses anything else), and GEXF is 1.2, the
 * version both Gephi and networkx read.  XML goes through libxml2's
 * xmlTextWriter: escaping and well-formedness are the writer's job.
 * Pajek stays igraph's (graph.c).  Each file records how it was made
 * (Network.provenance) where its format has a place for it.
 */
#include "network.h"
#include "output.h"

#include <libxml/xmlwriter.h>
#include <string.h>

/* ---- attributes, the same in every format ---- */

typedef enum { ATTR_STRING, ATTR_INTEGER, ATTR_DOUBLE } AttrType;

typedef struct {
  const char *name;
  AttrType type;
} AttrSpec;

typedef struct {
  const char *name;
  char *text;              /* NULL: no value */
} AttrValue;

#define MAX_ATTRS 16

/* The node attributes @net has, in the order files list them. */
static guint
node_specs (const Network *net, AttrSpec *specs)
{
  guint n = 0;
  gboolean of_authors = net->kind != NETWORK_CROSSPOST && net->kind != NETWORK_SITE &&
                        net->kind != NETWORK_LINK_MESSAGE;

  if (of_authors)
    {
      specs[n++] = (AttrSpec) { "author_id", ATTR_INTEGER };
      specs[n++] = (AttrSpec) { "address", ATTR_STRING };
      specs[n++] = (AttrSpec) { "addresses", ATTR_STRING };
    }
  specs[n++] = (AttrSpec) { "name", ATTR_STRING };
  specs[n++] = (AttrSpec) { "messages", ATTR_INTEGER };
  if (net->kind == NETWORK_CROSSPOST)
    specs[n++] = (AttrSpec) { "authors", ATTR_INTEGER };
  specs[n++] = (AttrSpec) { "first_date", ATTR_STRING };
  specs[n++] = (AttrSpec) { "last_date", ATTR_STRING };
  if (net->kind == NETWORK_GROUP || net->kind == NETWORK_LINK || net->kind == NETWORK_LINK_MESSAGE)
    specs[n++] = (AttrSpec) { "type", ATTR_STRING };
  if (net->has_metrics)
    {
      specs[n++] = (AttrSpec) { "in_degree", ATTR_DOUBLE };
      specs[n++] = (AttrSpec) { "out_degree", ATTR_DOUBLE };
      specs[n++] = (AttrSpec) { "strength", ATTR_DOUBLE };
      specs[n++] = (AttrSpec) { "betweenness", ATTR_DOUBLE };
      specs[n++] = (AttrSpec) { "community", ATTR_INTEGER };
    }
  return n;
}

static char *
integer (gint64 v)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, v);
}

static char *
real (double v)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.10g", v));
}

/* The values of @v for node_specs(), in the same order. */
static guint
node_values (const Network *net, const NetVertex *v, AttrValue *values)
{
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);

  for (guint i = 0; i < n; i++)
    {
      const char *name = specs[i].name;
      char *text = NULL;

      if (strcmp (name, "author_id") == 0)
        text = v->author_id > 0 ? integer (v->author_id) : NULL;
      else if (strcmp (name, "address") == 0)
        text = g_strdup (v->address);
      else if (strcmp (name, "addresses") == 0)
        text = g_strdup (v->addresses);
      else if (strcmp (name, "name") == 0)
        text = g_strdup (v->name ? v->name : v->address);
      else if (strcmp (name, "messages") == 0)
        text = integer (v->messages);
      else if (strcmp (name, "authors") == 0)
        text = integer (v->authors);
      else if (strcmp (name, "first_date") == 0)
        text = g_strdup (v->first_date);
      else if (strcmp (name, "last_date") == 0)
        text = g_strdup (v->last_date);
      else if (strcmp (name, "type") == 0)
        text = g_strdup (v->is_group ? "group" : v->is_domain ? "domain" : v->is_message ? "message" : "author");
      else if (strcmp (name, "in_degree") == 0)
        text = real (v->in_degree);
      else if (strcmp (name, "out_degree") == 0)
        text = real (v->out_degree);
      else if (strcmp (name, "strength") == 0)
        text = real (v->strength);
      else if (strcmp (name, "betweenness") == 0)
        text = real (v->betweenness);
      else
        text = integer (v->community);
      values[i] = (AttrValue) { name, text };
    }
  return n;
}

static void
values_clear (AttrValue *values, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&values[i].text, g_free);
}

static const NetVertex *
vertex (const Network *net, guint i)
{
  return g_ptr_array_index (net->vertices, i);
}

/* ---- CSV: Gephi's and R's importers ---- */

static void
csv_line (GString *line, const char *const *fields, guint n)
{
  g_string_truncate (line, 0);
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (line, ',');
      output_csv_field (line, fields[i]);
    }
  g_string_append (line, "\r\n");
}

/* "edges.csv" -> "edges-nodes.csv" */
static char *
nodes_path (const char *edges_path)
{
  const char *dot = strrchr (edges_path, '.'), *slash = strrchr (edges_path, '/');

  if (dot == NULL || (slash && dot < slash))
    return g_strconcat (edges_path, "-nodes.csv", NULL);
  return g_strdup_printf ("%.*s-nodes%s", (int) (dot - edges_path), edges_path, dot);
}

/* Id and Label first: Gephi's spreadsheet importer takes them by name,
 * R's graph_from_data_frame() takes the first column as the vertex name. */
static gboolean
write_nodes_csv (const Network *net, FILE *f)
{
  g_autoptr (GString) line = g_string_new (NULL);
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);
  const char *fields[MAX_ATTRS + 2] = { "Id", "Label" };
  gboolean ok;

  for (guint i = 0; i < n; i++)
    fields[i + 2] = specs[i].name;
  csv_line (line, fields, n + 2);
  ok = fputs (line->str, f) >= 0;
  for (guint k = 0; ok && k < net->vertices->len; k++)
    {
      const NetVertex *v = vertex (net, k);
      AttrValue values[MAX_ATTRS];

      node_values (net, v, values);
      fields[0] = v->id;
      fields[1] = v->name ? v->name : v->address;
      for (guint i = 0; i < n; i++)
        fields[i + 2] = values[i].text;
      csv_line (line, fields, n + 2);
      ok = fputs (line->str, f) >= 0;
      values_clear (values, n);
    }
  return ok;
}

static gboolean
write_edges_csv (const Network *net, FILE *f)
{
  g_autoptr (GString) line = g_string_new (NULL);
  const char *head[] = { "Source", "Target", "Weight", "Type", "first_date", "last_date" };
  gboolean ok;

  csv_line (line, head, G_N_ELEMENTS (head));
  ok = fputs (line->str, f) >= 0;
  for (guint i = 0; ok && i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      g_autofree char *weight = integer (e->weight);
      const char *fields[] = { vertex (net, e->from)->id, vertex (net, e->to)->id, weight,
                               net->directed ? "Directed" : "Undirected", e->first_date, e->last_date };

      csv_line (line, fields, G_N_ELEMENTS (fields));
      ok = fputs (line->str, f) >= 0;
    }
  return ok;
}

/**
 * network_write_csv:
 * @edges_path: the edge list; the node list goes beside it, as
 *   NAME-nodes.csv
 */
gboolean
network_write_csv (const Network *net, const char *edges_path, GError **error)
{
  g_autofree char *path = nodes_path (edges_path);
  Output *out;
  gboolean ok;

  if ((out = output_open (edges_path, error)) == NULL)
    return FALSE;
  ok = write_edges_csv (net, output_stream (out));
  if (!output_close (out, ok, error) || !ok)
    return FALSE;
  if ((out = output_open (path, error)) == NULL)
    return FALSE;
  ok = write_nodes_csv (net, output_stream (out));
  return output_close (out, ok, error) && ok;
}

/* ---- XML (GraphML, GEXF) ---- */

#define W(call) do { if ((call) < 0) goto fail; } while (0)

typedef int (*XmlBody) (xmlTextWriterPtr w, const Network *net, gconstpointer data);

/* Streams @body to @out: the writer owns its output buffer, which leaves
 * @out open. */
static gboolean
write_xml (const Network *net, FILE *out, XmlBody body, gconstpointer data, const char *what,
           GError **error)
{
  xmlOutputBufferPtr buffer = xmlOutputBufferCreateFile (out, NULL);
  xmlTextWriterPtr w = buffer ? xmlNewTextWriter (buffer) : NULL;
  gboolean ok = w != NULL && xmlTextWriterSetIndent (w, 1) >= 0 &&
                xmlTextWriterStartDocument (w, NULL, "UTF-8", NULL) >= 0 &&
                body (w, net, data) >= 0 && xmlTextWriterEndDocument (w) >= 0;

  if (w)
    xmlFreeTextWriter (w);
  else if (buffer)
    xmlOutputBufferClose (buffer);
  if (!ok)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s", what);
  return ok;
}

/* Every text written into XML goes through output_xml_text(): one name
 * holding a control character or U+FFFE made the whole file unreadable. */
static int
attribute (xmlTextWriterPtr w, const char *name, const char *value)
{
  g_autofree char *text = output_xml_text (value);

  return xmlTextWriterWriteAttribute (w, BAD_CAST name, BAD_CAST text);
}

static int
xml_string (xmlTextWriterPtr w, const char *value)
{
  g_autofree char *text = output_xml_text (value);

  return xmlTextWriterWriteString (w, BAD_CAST text);
}

/* ---- GraphML ---- */

static const char *
graphml_type (AttrType t)
{
  return t == ATTR_INTEGER ? "long" : t == ATTR_DOUBLE ? "double" : "string";
}

static int
graphml_key (xmlTextWriterPtr w, const char *prefix, const char *domain, const char *name,
             const char *type)
{
  g_autofree char *id = g_strconcat (prefix, name, NULL);

  W (xmlTextWriterStartElement (w, BAD_CAST "key"));
  W (attribute (w, "id", id));
  W (attribute (w, "for", domain));
  W (attribute (w, "attr.name", name));
  W (attribute (w, "attr.type", type));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
graphml_data (xmlTextWriterPtr w, const char *prefix, const char *name, const char *value)
{
  g_autofree char *key = g_strconcat (prefix, name, NULL);

  if (value == NULL)
    return 0;
  W (xmlTextWriterStartElement (w, BAD_CAST "data"));
  W (attribute (w, "key", key));
  W (xml_string (w, value));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
graphml_body (xmlTextWriterPtr w, const Network *net, gconstpointer unused)
{
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);

  W (xmlTextWriterStartElement (w, BAD_CAST "graphml"));
  W (attribute (w, "xmlns", "http://graphml.graphdrawing.org/xmlns"));
  W (attribute (w, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"));
  W (attribute (w, "xsi:schemaLocation", "http://graphml.graphdrawing.org/xmlns "
                "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"));
  W (graphml_key (w, "g_", "graph", "provenance", "string"));
  for (guint i = 0; i < n; i++)
    W (graphml_key (w, "v_", "node", specs[i].name, graphml_type (specs[i].type)));
  W (graphml_key (w, "e_", "edge", "weight", "long"));
  W (graphml_key (w, "e_", "edge", "first_date", "string"));
  W (graphml_key (w, "e_", "edge", "last_date", "string"));
  W (xmlTextWriterStartElement (w, BAD_CAST "graph"));
  W (attribute (w, "id", network_kind_name (net->kind)));
  W (attribute (w, "edgedefault", net->directed ? "directed" : "undirected"));
  W (graphml_data (w, "g_", "provenance", net->provenance));
  for (guint k = 0; k < net->vertices->len; k++)
    {
      const NetVertex *v = vertex (net, k);
      AttrValue values[MAX_ATTRS];
      int rc = 0;

      node_values (net, v, values);
      rc = xmlTextWriterStartElement (w, BAD_CAST "node") < 0 || attribute (w, "id", v->id) < 0 ? -1 : 0;
      for (guint i = 0; rc >= 0 && i < n; i++)
        rc = graphml_data (w, "v_", values[i].name, values[i].text);
      values_clear (values, n);
      W (rc);
      W (xmlTextWriterEndElement (w));
    }
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      g_autofree char *weight = integer (e->weight);

      W (xmlTextWriterStartElement (w, BAD_CAST "edge"));
      W (attribute (w, "source", vertex (net, e->from)->id));
      W (attribute (w, "target", vertex (net, e->to)->id));
      W (graphml_data (w, "e_", "weight", weight));
      W (graphml_data (w, "e_", "first_date", e->first_date));
      W (graphml_data (w, "e_", "last_date", e->last_date));
      W (xmlTextWriterEndElement (w));
    }
  W (xmlTextWriterEndElement (w));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

gboolean
network_write_graphml (const Network *net, FILE *out, GError **error)
{
  return write_xml (net, out, graphml_body, NULL, "GraphML", error);
}

/* ---- GML ---- */

/* A GML string: ASCII only, '"' and '&' and every non-ASCII character as
 * an HTML entity (&#NNNN;), as networkx's read_gml and igraph expect. */
static void
gml_string (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '"')
        g_string_append (out, "&quot;");
      else if (c == '&')
        g_string_append (out, "&amp;");
      else if (c < 0x20 || c >= 0x7f)
        g_string_append_printf (out, "&#%u;", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static void
gml_pair (GString *out, const char *indent, const char *key, const char *value, gboolean number)
{
  if (value == NULL)
    return;
  g_string_append_printf (out, "%s%s ", indent, key);
  if (number)
    g_string_append (out, value);
  else
    gml_string (out, value);
  g_string_append_c (out, '\n');
}

/* Ids are integers in GML: the vertex's place in the file; the stable id
 * ("a12") is its label, which networkx's read_gml takes as the node key. */
gboolean
network_write_gml (const Network *net, FILE *out, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);

  g_string_append (s, "Creator \"deja " PACKAGE_VERSION "\"\ngraph [\n");
  gml_pair (s, "  ", "comment", net->provenance, FALSE);
  g_string_append_printf (s, "  directed %d\n", net->directed ? 1 : 0);
  for (guint k = 0; k < net->vertices->len; k++)
    {
      const NetVertex *v = vertex (net, k);
      AttrValue values[MAX_ATTRS];
      g_autofree char *id = g_strdup_printf ("%u", k);

      node_values (net, v, values);
      g_string_append (s, "  node [\n");
      gml_pair (s, "    ", "id", id, TRUE);
      gml_pair (s, "    ", "label", v->id, FALSE);
      for (guint i = 0; i < n; i++)
        gml_pair (s, "    ", values[i].name, values[i].text, specs[i].type != ATTR_STRING);
      g_string_append (s, "  ]\n");
      values_clear (values, n);
      if (s->len > 65536)
        {
          if (fwrite (s->str, 1, s->len, out) != s->len)
            goto fail;
          g_string_truncate (s, 0);
        }
    }
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);

      g_string_append_printf (s, "  edge [\n    source %u\n    target %u\n    weight %" G_GINT64_FORMAT "\n",
                              e->from, e->to, e->weight);
      gml_pair (s, "    ", "first_date", e->first_date, FALSE);
      gml_pair (s, "    ", "last_date", e->last_date, FALSE);
      g_string_append (s, "  ]\n");
      if (s->len > 65536)
        {
          if (fwrite (s->str, 1, s->len, out) != s->len)
            goto fail;
          g_string_truncate (s, 0);
        }
    }
  g_string_append (s, "]\n");
  if (fwrite (s->str, 1, s->len, out) == s->len)
    return TRUE;
fail:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write GML");
  return FALSE;
}

/* ---- GEXF 1.2 ---- */

/* GEXF wants dates as YYYY-MM-DD (timeformat="date"). */
static char *
day (const char *date)
{
  return date ? g_strndup (date, 10) : NULL;
}

static char *
day_plus (const char *d, int days)
{
  int y, m, dd;
  g_autoptr (GDate) date = NULL;
  char buffer[16];

  if (sscanf (d, "%d-%d-%d", &y, &m, &dd) != 3 || !g_date_valid_dmy (dd, m, y))
    return g_strdup (d);
  date = g_date_new_dmy (dd, m, y);
  g_date_add_days (date, days);
  g_date_strftime (buffer, sizeof buffer, "%Y-%m-%d", date);
  return g_strdup (buffer);
}

static const char *
gexf_type (AttrType t)
{
  return t == ATTR_INTEGER ? "integer" : t == ATTR_DOUBLE ? "double" : "string";
}

static int
gexf_declare (xmlTextWriterPtr w, const char *id, const char *type)
{
  W (xmlTextWriterStartElement (w, BAD_CAST "attribute"));
  W (attribute (w, "id", id));
  W (attribute (w, "title", id));
  W (attribute (w, "type", type));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
gexf_value (xmlTextWriterPtr w, const char *id, const char *value)
{
  if (value == NULL)
    return 0;
  W (xmlTextWriterStartElement (w, BAD_CAST "attvalue"));
  W (attribute (w, "for", id));
  W (attribute (w, "value", value));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

typedef struct {
  gboolean dynamic;
  int window;              /* days an edge lives after each reply; 0: from its first on */
} GexfOptions;

/* With a window: one spell per run of replies less than the window apart. */
static int
gexf_spells (xmlTextWriterPtr w, const NetEdge *e, int window)
{
  g_autofree char *start = NULL, *end = NULL;

  W (xmlTextWriterStartElement (w, BAD_CAST "spells"));
  for (guint k = 0; k <= e->dates->len; k++)
    {
      g_autofree char *d = k < e->dates->len ? day (g_ptr_array_index (e->dates, k)) : NULL;

      if (d && start && strcmp (d, end) <= 0)
        {
          g_free (end);
          end = day_plus (d, window);
          continue;
        }
      if (start)
        {
          W (xmlTextWriterStartElement (w, BAD_CAST "spell"));
          W (attribute (w, "start", start));
          W (attribute (w, "end", end));
          W (xmlTextWriterEndElement (w));
        }
      g_free (start), g_free (end);
      start = d ? g_strdup (d) : NULL;
      end = d ? day_plus (d, window) : NULL;
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
gexf_nodes (xmlTextWriterPtr w, const Network *net, const GexfOptions *o)
{
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);

  W (xmlTextWriterStartElement (w, BAD_CAST "nodes"));
  for (guint k = 0; k < net->vertices->len; k++)
    {
      const NetVertex *v = vertex (net, k);
      g_autofree char *start = day (v->first_date);
      AttrValue values[MAX_ATTRS];
      int rc;

      W (xmlTextWriterStartElement (w, BAD_CAST "node"));
      W (attribute (w, "id", v->id));
      W (attribute (w, "label", v->name ? v->name : v->address));
      if (o->dynamic && start)
        W (attribute (w, "start", start));
      W (xmlTextWriterStartElement (w, BAD_CAST "attvalues"));
      node_values (net, v, values);
      rc = 0;
      for (guint i = 0; rc >= 0 && i < n; i++)
        rc = gexf_value (w, values[i].name, values[i].text);
      values_clear (values, n);
      W (rc);
      W (xmlTextWriterEndElement (w));
      W (xmlTextWriterEndElement (w));
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
gexf_edges (xmlTextWriterPtr w, const Network *net, const GexfOptions *o)
{
  W (xmlTextWriterStartElement (w, BAD_CAST "edges"));
  for (guint i = 0; i < net->edges->len; i++)
    {
      const NetEdge *e = g_ptr_array_index (net->edges, i);
      g_autofree char *id = g_strdup_printf ("e%u", i);
      g_autofree char *weight = integer (e->weight);
      g_autofree char *start = day (e->first_date);

      W (xmlTextWriterStartElement (w, BAD_CAST "edge"));
      W (attribute (w, "id", id));
      W (attribute (w, "source", vertex (net, e->from)->id));
      W (attribute (w, "target", vertex (net, e->to)->id));
      W (attribute (w, "weight", weight));
      if (o->dynamic && o->window == 0 && start)
        W (attribute (w, "start", start));
      W (xmlTextWriterStartElement (w, BAD_CAST "attvalues"));
      W (gexf_value (w, "first_date", e->first_date));
      W (gexf_value (w, "last_date", e->last_date));
      W (xmlTextWriterEndElement (w));
      if (o->dynamic && o->window > 0 && e->dates->len > 0)
        W (gexf_spells (w, e, o->window));
      W (xmlTextWriterEndElement (w));
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
gexf_body (xmlTextWriterPtr w, const Network *net, gconstpointer data)
{
  const GexfOptions *o = data;
  AttrSpec specs[MAX_ATTRS];
  guint n = node_specs (net, specs);
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *today = g_date_time_format (now, "%Y-%m-%d");

  W (xmlTextWriterStartElement (w, BAD_CAST "gexf"));
  W (attribute (w, "xmlns", "http://www.gexf.net/1.2draft"));
  W (attribute (w, "version", "1.2"));
  W (xmlTextWriterStartElement (w, BAD_CAST "meta"));
  W (attribute (w, "lastmodifieddate", today));
  W (xmlTextWriterWriteElement (w, BAD_CAST "creator", BAD_CAST "deja " PACKAGE_VERSION));
  W (xmlTextWriterStartElement (w, BAD_CAST "description"));
  W (xml_string (w, net->provenance ? net->provenance : network_kind_name (net->kind)));
  W (xmlTextWriterEndElement (w));
  W (xmlTextWriterEndElement (w));
  W (xmlTextWriterStartElement (w, BAD_CAST "graph"));
  W (attribute (w, "defaultedgetype", net->directed ? "directed" : "undirected"));
  W (attribute (w, "mode", o->dynamic ? "dynamic" : "static"));
  if (o->dynamic)
    W (attribute (w, "timeformat", "date"));
  W (xmlTextWriterStartElement (w, BAD_CAST "attributes"));
  W (attribute (w, "class", "node"));
  for (guint i = 0; i < n; i++)
    W (gexf_declare (w, specs[i].name, gexf_type (specs[i].type)));
  W (xmlTextWriterEndElement (w));
  W (xmlTextWriterStartElement (w, BAD_CAST "attributes"));
  W (attribute (w, "class", "edge"));
  W (gexf_declare (w, "first_date", "string"));
  W (gexf_declare (w, "last_date", "string"));
  W (xmlTextWriterEndElement (w));
  W (gexf_nodes (w, net, o));
  W (gexf_edges (w, net, o));
  W (xmlTextWriterEndElement (w));
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

/**
 * network_write_gexf:
 * @dynamic: give nodes and edges times, for Gephi's timeline
 * @window_days: dynamic: 0, an edge lives from its first reply on; N, it
 *   lives N days after each reply (one spell per run of replies)
 */
gboolean
network_write_gexf (const Network *net, FILE *out, gboolean dynamic, int window_days, GError **error)
{
  GexfOptions o = { dynamic, window_days };

  return write_xml (net, out, gexf_body, &o, "GEXF", error);
}
