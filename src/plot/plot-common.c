/* plot-common.c — what the chart layer has with or without cairo
 * (plot.c, plot-none.c). */
#include "plot.h"

gboolean
plot_format_parse (const char *name, PlotFormat *format)
{
  if (name == NULL || g_ascii_strcasecmp (name, "svg") == 0)
    *format = PLOT_SVG;
  else if (g_ascii_strcasecmp (name, "png") == 0)
    *format = PLOT_PNG;
  else
    return FALSE;
  return TRUE;
}

const char *
plot_format_mime (PlotFormat format)
{
  return format == PLOT_PNG ? "image/png" : "image/svg+xml";
}
