/* network-write.c — the network formats igraph does not write.
 *
 * CSV: an edge list and a node list (RFC 4180), for R, pandas and
 * spreadsheets.  GEXF 1.3 for Gephi, written with libxml2's xmlTextWriter
 * (escaping and well-formedness are the writer's job, not string
 * concatenation's); the dynamic variant gives each edge one spell per
 * reply, so that Gephi's timeline plays the network's growth.
 */
#include "network.h"
#include "output.h"

#include <libxml/xmlwriter.h>
#include <string.h>

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

static gboolean
write_csv_file (const char *path, const Network *net, gboolean nodes, GError **error)
{
  Output *out = output_open (path, error);
  g_autoptr (GString) line = g_string_new (NULL);
  gboolean ok = TRUE;

  if (out == NULL)
    return FALSE;
  if (nodes)
    {
      const char *head[] = { "address", "name", "messages", "first_date", "last_date", "type" };
      csv_line (line, head, G_N_ELEMENTS (head));
      ok = fputs (line->str, output_stream (out)) >= 0;
      for (guint i = 0; ok && i < net->vertices->len; i++)
        {
          NetVertex *v = g_ptr_array_index (net->vertices, i);
          g_autofree char *messages = g_strdup_printf ("%" G_GINT64_FORMAT, v->messages);
          const char *f[] = { v->address, v->name, messages, v->first_date, v->last_date,
                              v->is_group ? "group" : "author" };
          csv_line (line, f, G_N_ELEMENTS (f));
          ok = fputs (line->str, output_stream (out)) >= 0;
        }
    }
  else
    {
      const char *head[] = { "source", "target", "weight", "first_date", "last_date" };
      csv_line (line, head, G_N_ELEMENTS (head));
      ok = fputs (line->str, output_stream (out)) >= 0;
      for (guint i = 0; ok && i < net->edges->len; i++)
        {
          NetEdge *e = g_ptr_array_index (net->edges, i);
          NetVertex *a = g_ptr_array_index (net->vertices, e->from);
          NetVertex *b = g_ptr_array_index (net->vertices, e->to);
          g_autofree char *weight = g_strdup_printf ("%" G_GINT64_FORMAT, e->weight);
          const char *f[] = { a->address, b->address, weight, e->first_date, e->last_date };
          csv_line (line, f, G_N_ELEMENTS (f));
          ok = fputs (line->str, output_stream (out)) >= 0;
        }
    }
  return output_close (out, ok, error);
}

/**
 * network_write_csv:
 * @edges_path: the edge list; the node list goes beside it, as
 *   NAME-nodes.csv
 */
gboolean
network_write_csv (const Network *net, const char *edges_path, GError **error)
{
  g_autofree char *nodes = nodes_path (edges_path);

  return write_csv_file (edges_path, net, FALSE, error) && write_csv_file (nodes, net, TRUE, error);
}

/* GEXF wants dates as YYYY-MM-DD (timeformat="date"). */
static char *
day (const char *date)
{
  return date ? g_strndup (date, 10) : NULL;
}

#define W(call) do { if ((call) < 0) goto fail; } while (0)

static int
attribute_decl (xmlTextWriterPtr w, const char *id, const char *title, const char *type)
{
  if (xmlTextWriterStartElement (w, BAD_CAST "attribute") < 0 ||
      xmlTextWriterWriteAttribute (w, BAD_CAST "id", BAD_CAST id) < 0 ||
      xmlTextWriterWriteAttribute (w, BAD_CAST "title", BAD_CAST title) < 0 ||
      xmlTextWriterWriteAttribute (w, BAD_CAST "type", BAD_CAST type) < 0)
    return -1;
  return xmlTextWriterEndElement (w);
}

static int
attvalue (xmlTextWriterPtr w, const char *id, const char *value)
{
  if (value == NULL)
    return 0;
  if (xmlTextWriterStartElement (w, BAD_CAST "attvalue") < 0 ||
      xmlTextWriterWriteAttribute (w, BAD_CAST "for", BAD_CAST id) < 0 ||
      xmlTextWriterWriteAttribute (w, BAD_CAST "value", BAD_CAST value) < 0)
    return -1;
  return xmlTextWriterEndElement (w);
}

static int
write_gexf_nodes (xmlTextWriterPtr w, const Network *net, gboolean dynamic)
{
  W (xmlTextWriterStartElement (w, BAD_CAST "nodes"));
  for (guint i = 0; i < net->vertices->len; i++)
    {
      NetVertex *v = g_ptr_array_index (net->vertices, i);
      g_autofree char *id = g_strdup_printf ("n%u", i);
      g_autofree char *messages = g_strdup_printf ("%" G_GINT64_FORMAT, v->messages);
      g_autofree char *start = day (v->first_date);

      W (xmlTextWriterStartElement (w, BAD_CAST "node"));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "id", BAD_CAST id));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "label", BAD_CAST (v->name ? v->name : v->address)));
      if (dynamic && start)
        W (xmlTextWriterWriteAttribute (w, BAD_CAST "start", BAD_CAST start));
      W (xmlTextWriterStartElement (w, BAD_CAST "attvalues"));
      W (attvalue (w, "address", v->address));
      W (attvalue (w, "name", v->name));
      W (attvalue (w, "messages", messages));
      W (attvalue (w, "first_date", v->first_date));
      W (attvalue (w, "last_date", v->last_date));
      W (attvalue (w, "type", v->is_group ? "group" : "author"));
      W (xmlTextWriterEndElement (w));
      W (xmlTextWriterEndElement (w));
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
write_spells (xmlTextWriterPtr w, const NetEdge *e)
{
  W (xmlTextWriterStartElement (w, BAD_CAST "spells"));
  for (guint k = 0; k < e->dates->len; k++)
    {
      g_autofree char *d = day (g_ptr_array_index (e->dates, k));
      W (xmlTextWriterStartElement (w, BAD_CAST "spell"));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "start", BAD_CAST d));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "end", BAD_CAST d));
      W (xmlTextWriterEndElement (w));
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
write_gexf_edges (xmlTextWriterPtr w, const Network *net, gboolean dynamic)
{
  W (xmlTextWriterStartElement (w, BAD_CAST "edges"));
  for (guint i = 0; i < net->edges->len; i++)
    {
      NetEdge *e = g_ptr_array_index (net->edges, i);
      g_autofree char *id = g_strdup_printf ("e%u", i);
      g_autofree char *source = g_strdup_printf ("n%u", e->from);
      g_autofree char *target = g_strdup_printf ("n%u", e->to);
      g_autofree char *weight = g_strdup_printf ("%" G_GINT64_FORMAT, e->weight);

      W (xmlTextWriterStartElement (w, BAD_CAST "edge"));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "id", BAD_CAST id));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "source", BAD_CAST source));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "target", BAD_CAST target));
      W (xmlTextWriterWriteAttribute (w, BAD_CAST "weight", BAD_CAST weight));
      W (xmlTextWriterStartElement (w, BAD_CAST "attvalues"));
      W (attvalue (w, "first_date", e->first_date));
      W (attvalue (w, "last_date", e->last_date));
      W (xmlTextWriterEndElement (w));
      if (dynamic && e->dates->len > 0)
        W (write_spells (w, e));
      W (xmlTextWriterEndElement (w));
    }
  return xmlTextWriterEndElement (w);
fail:
  return -1;
}

static int
write_gexf (xmlTextWriterPtr w, const Network *net, gboolean dynamic)
{
  W (xmlTextWriterSetIndent (w, 1));
  W (xmlTextWriterStartDocument (w, NULL, "UTF-8", NULL));
  W (xmlTextWriterStartElement (w, BAD_CAST "gexf"));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "xmlns", BAD_CAST "http://gexf.net/1.3"));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "version", BAD_CAST "1.3"));
  W (xmlTextWriterStartElement (w, BAD_CAST "meta"));
  W (xmlTextWriterWriteElement (w, BAD_CAST "creator", BAD_CAST "deja " PACKAGE_VERSION));
  W (xmlTextWriterWriteElement (w, BAD_CAST "description", BAD_CAST network_kind_name (net->kind)));
  W (xmlTextWriterEndElement (w));
  W (xmlTextWriterStartElement (w, BAD_CAST "graph"));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "defaultedgetype",
                                  BAD_CAST (net->directed ? "directed" : "undirected")));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "mode", BAD_CAST (dynamic ? "dynamic" : "static")));
  if (dynamic)
    W (xmlTextWriterWriteAttribute (w, BAD_CAST "timeformat", BAD_CAST "date"));
  W (xmlTextWriterStartElement (w, BAD_CAST "attributes"));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "class", BAD_CAST "node"));
  W (attribute_decl (w, "address", "address", "string"));
  W (attribute_decl (w, "name", "name", "string"));
  W (attribute_decl (w, "messages", "messages", "integer"));
  W (attribute_decl (w, "first_date", "first_date", "string"));
  W (attribute_decl (w, "last_date", "last_date", "string"));
  W (attribute_decl (w, "type", "type", "string"));
  W (xmlTextWriterEndElement (w));
  W (xmlTextWriterStartElement (w, BAD_CAST "attributes"));
  W (xmlTextWriterWriteAttribute (w, BAD_CAST "class", BAD_CAST "edge"));
  W (attribute_decl (w, "first_date", "first_date", "string"));
  W (attribute_decl (w, "last_date", "last_date", "string"));
  W (xmlTextWriterEndElement (w));
  W (write_gexf_nodes (w, net, dynamic));
  W (write_gexf_edges (w, net, dynamic));
  return xmlTextWriterEndDocument (w);
fail:
  return -1;
}

/* Writes GEXF 1.3 to @out. */
gboolean
network_write_gexf (const Network *net, FILE *out, gboolean dynamic, GError **error)
{
  /* Streamed: the writer owns the output buffer, which leaves @out open. */
  xmlOutputBufferPtr buffer = xmlOutputBufferCreateFile (out, NULL);
  xmlTextWriterPtr w = buffer ? xmlNewTextWriter (buffer) : NULL;
  gboolean ok = w != NULL && write_gexf (w, net, dynamic) >= 0;

  if (w)
    xmlFreeTextWriter (w);
  else if (buffer)
    xmlOutputBufferClose (buffer);
  if (!ok)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write GEXF");
  return ok;
}
