/* charts.h — the corpus's charts, from the database to a picture
 * (deja report and deja plot draw the same ones). */
#pragma once

#include <glib.h>

#include "plot.h"
#include "store.h"

G_BEGIN_DECLS

typedef enum {
  CHART_MESSAGES,       /* messages per month, per newsgroup (the largest six, then the rest) */
  CHART_AUTHORS,        /* authors writing per month, and threads started */
  CHART_THREADS,        /* thread size distribution, on log axes */
  CHART_POSTERS,        /* the 25 authors with the most messages */
  CHART_NETWORK,        /* the reply network of the most active authors */
  CHART_LANGUAGES,      /* messages per language of own text */
  CHART_CROSSPOSTS,     /* the network of groups by shared messages */
  CHART_DOMAINS,        /* citing messages per year of the most cited domains */
  CHART_ROLES,          /* authors per role (deja authors --roles) */
  N_CHARTS
} Chart;

const char *chart_name (Chart chart);
const char *chart_title (Chart chart);
gboolean chart_parse (const char *name, Chart *chart);
GBytes *chart_render (Store *store, Chart chart, PlotFormat format, int width, int height,
                      gboolean titled, GError **error);

G_END_DECLS
