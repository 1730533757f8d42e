/* plot.h — charts for reports and papers, drawn with cairo.
 *
 * The only layer that sees cairo.  Each function draws one chart and
 * returns it as SVG (glyphs as paths: it shows the same everywhere, with
 * no font installed) or PNG.  Data come in as plain arrays; nothing here
 * knows a database or a network.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PLOT_SVG,
  PLOT_PNG,
} PlotFormat;

typedef struct {
  PlotFormat format;
  int width, height;        /* points (SVG) or pixels (PNG) */
  const char *title;
  const char *note;         /* a line under the chart (source, counts), or NULL */
} PlotPage;

/* Lines over categories in order (months): @values holds n_series rows
 * of n_x values.  Labels on the x axis are thinned to fit. */
typedef struct {
  const char *y_label;
  guint n_x;
  const char *const *x_labels;
  guint n_series;
  const char *const *series;   /* names, for the legend */
  const double *values;
} PlotLines;

/* Horizontal bars, one per label, in the order given. */
typedef struct {
  const char *x_label;
  guint n;
  const char *const *labels;
  const double *values;
} PlotBars;

/* Points on logarithmic axes (a size distribution); values > 0. */
typedef struct {
  const char *x_label, *y_label;
  guint n;
  const double *x, *y;
} PlotPoints;

/* A network drawing: positions in any range (scaled to fit), node sizes
 * (a count: the area grows with it), a group per node (its colour), and
 * edges as pairs of node indexes with weights (their width). */
typedef struct {
  guint n_nodes;
  const double *xy;            /* 2 * n_nodes */
  const double *size;
  const gint64 *group;
  const char *const *labels;   /* drawn for the largest nodes; NULL entries drawn not */
  guint n_edges;
  const guint *ends;           /* 2 * n_edges */
  const double *weight;
} PlotNetwork;

GBytes *plot_lines (const PlotPage *page, const PlotLines *data, GError **error);
GBytes *plot_bars (const PlotPage *page, const PlotBars *data, GError **error);
GBytes *plot_points (const PlotPage *page, const PlotPoints *data, GError **error);
GBytes *plot_network (const PlotPage *page, const PlotNetwork *data, GError **error);

gboolean plot_available (void);
char *plot_module_problem (void);
gboolean plot_format_parse (const char *name, PlotFormat *format);
const char *plot_format_mime (PlotFormat format);

G_END_DECLS
