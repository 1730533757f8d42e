/* graph-read.c — reads a network file back with igraph, for the tests.
 *
 *   graph-read graphml|gml|pajek FILE
 *
 * prints "vertices N", "edges M", then one "edge SOURCE TARGET WEIGHT"
 * line per edge, sorted, with vertices named by their address (the
 * "address" attribute; "name" for groups and sites; or Pajek's "id" labels).
 */
#include <glib.h>
#include <igraph/igraph.h>
#include <stdio.h>
#include <string.h>

static const char *
vertex_name (const igraph_t *g, igraph_integer_t v)
{
  if (igraph_cattribute_has_attr (g, IGRAPH_ATTRIBUTE_VERTEX, "address"))
    return VAS (g, "address", v);
  if (igraph_cattribute_has_attr (g, IGRAPH_ATTRIBUTE_VERTEX, "name"))
    return VAS (g, "name", v);   /* networks of groups and sites */
  if (igraph_cattribute_has_attr (g, IGRAPH_ATTRIBUTE_VERTEX, "id"))
    return VAS (g, "id", v);
  return "?";
}

static gint
compare_lines (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
main (int argc, char **argv)
{
  igraph_t g;
  FILE *f;
  igraph_error_t err;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  if (argc != 3 || (f = fopen (argv[2], "r")) == NULL)
    return 2;
  igraph_set_attribute_table (&igraph_cattribute_table);
  if (strcmp (argv[1], "graphml") == 0)
    err = igraph_read_graph_graphml (&g, f, 0);
  else if (strcmp (argv[1], "gml") == 0)
    err = igraph_read_graph_gml (&g, f);
  else
    err = igraph_read_graph_pajek (&g, f);
  fclose (f);
  if (err != IGRAPH_SUCCESS)
    return 1;
  printf ("vertices %" IGRAPH_PRId "\nedges %" IGRAPH_PRId "\n", igraph_vcount (&g), igraph_ecount (&g));
  for (igraph_integer_t e = 0; e < igraph_ecount (&g); e++)
    {
      double w = igraph_cattribute_has_attr (&g, IGRAPH_ATTRIBUTE_EDGE, "weight") ? EAN (&g, "weight", e) : 1;
      g_ptr_array_add (lines, g_strdup_printf ("edge %s %s %g", vertex_name (&g, IGRAPH_FROM (&g, e)),
                                               vertex_name (&g, IGRAPH_TO (&g, e)), w));
    }
  g_ptr_array_sort (lines, compare_lines);
  for (guint i = 0; i < lines->len; i++)
    puts (g_ptr_array_index (lines, i));
  igraph_destroy (&g);
  return 0;
}
