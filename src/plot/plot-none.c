/* plot-none.c — the chart layer of a deja built without cairo (meson
 * option cairo=disabled, or libcairo2-dev missing): every chart is an
 * error that says so; deja report leaves its charts out with a note. */
#include "plot.h"

static G_DEFINE_QUARK (deja-plot-error-quark, plot_error)

gboolean
plot_available (void)
{
  return FALSE;
}

char *
plot_module_problem (void)
{
  return NULL;
}

static GBytes *
unavailable (GError **error)
{
  g_set_error_literal (error, plot_error_quark (), 1,
                       "charts need cairo, and this deja was built without it"
                       " (install libcairo2-dev and build again)");
  return NULL;
}

GBytes *
plot_lines (const PlotPage *page, const PlotLines *data, GError **error)
{
  return unavailable (error);
}

GBytes *
plot_bars (const PlotPage *page, const PlotBars *data, GError **error)
{
  return unavailable (error);
}

GBytes *
plot_points (const PlotPage *page, const PlotPoints *data, GError **error)
{
  return unavailable (error);
}

GBytes *
plot_network (const PlotPage *page, const PlotNetwork *data, GError **error)
{
  return unavailable (error);
}
