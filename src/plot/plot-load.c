/* plot-load.c — deja's charts, drawn by a module loaded when first used.
 *
 * The drawing (plot.c) is a module of its own, deja-plot.so, linked with
 * cairo and fontconfig: a deja that draws nothing never loads them and
 * the libraries they bring (util/module.c).  This file gives plot.h's
 * functions and hands each call to the module, or fails with the reason
 * it cannot be loaded. */
#include "plot-module.h"
#include "module.h"

static DejaModule module = DEJA_MODULE_INIT ("drawing charts (cairo)", DEJA_PLOT_MODULE, "deja_plot_module");

/* Whether this deja was built to draw (the module is loaded only when
 * used: plot_module_problem()). */
gboolean
plot_available (void)
{
  return TRUE;
}

/* Why the module cannot be loaded, or NULL (transfer full). */
char *
plot_module_problem (void)
{
  return deja_module_problem (&module);
}

GBytes *
plot_lines (const PlotPage *page, const PlotLines *data, GError **error)
{
  const PlotModule *t = deja_module_table (&module, error);

  return t ? t->lines (page, data, error) : NULL;
}

GBytes *
plot_bars (const PlotPage *page, const PlotBars *data, GError **error)
{
  const PlotModule *t = deja_module_table (&module, error);

  return t ? t->bars (page, data, error) : NULL;
}

GBytes *
plot_points (const PlotPage *page, const PlotPoints *data, GError **error)
{
  const PlotModule *t = deja_module_table (&module, error);

  return t ? t->points (page, data, error) : NULL;
}

GBytes *
plot_network (const PlotPage *page, const PlotNetwork *data, GError **error)
{
  const PlotModule *t = deja_module_table (&module, error);

  return t ? t->network (page, data, error) : NULL;
}
