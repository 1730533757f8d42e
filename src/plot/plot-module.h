/* plot-module.h — the table of functions the cairo module (plot.c,
 * deja-plot.so) exports, and plot-load.c calls. */
#pragma once

#include "plot.h"

G_BEGIN_DECLS

typedef struct {
  const char *version;     /* PACKAGE_VERSION: first, as util/module.c reads it */
  GBytes *(*lines) (const PlotPage *page, const PlotLines *data, GError **error);
  GBytes *(*bars) (const PlotPage *page, const PlotBars *data, GError **error);
  GBytes *(*points) (const PlotPage *page, const PlotPoints *data, GError **error);
  GBytes *(*network) (const PlotPage *page, const PlotNetwork *data, GError **error);
} PlotModule;

G_END_DECLS
