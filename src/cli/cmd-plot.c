/* cmd-plot.c — deja plot --db DB CHART --out FILE.svg|png: one chart. */
#include "charts.h"
#include "deja.h"
#include "output.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

int
cmd_plot (DejaRun *run, int argc, char **argv)
{
  g_autofree char *out = NULL, *format_name = NULL;
  int status, width = 900, height = 0;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the picture to write (- for standard output)", "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "svg or png (default: from the file name, else svg)", "svg|png" },
    { "width", 'W', 0, G_OPTION_ARG_INT, &width, "width in points (SVG) or pixels (PNG; default 900)", "N" },
    { "height", 'H', 0, G_OPTION_ARG_INT, &height, "height (default: what the chart needs)", "N" },
    { NULL }
  };
  g_autofree char *description = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) picture = NULL;
  g_autoptr (GString) names = g_string_new (NULL);
  PlotFormat format;
  Chart chart;
  const guchar *data;
  gsize len;

  for (guint i = 0; i < N_CHARTS; i++)
    g_string_append_printf (names, "  %-11s %s\n", chart_name ((Chart) i), chart_title ((Chart) i));
  description = g_strdup_printf (
    "Draws one of the charts of 'deja report', for a paper or a slide: SVG (text as paths,\n"
    "so that it looks the same everywhere) or PNG.\n\nCharts:\n%s", names->str);
  if (!deja_run_parse (run, "CHART — draw one chart of the corpus", entries, description, &argc, &argv,
                       &status))
    return status;
  if (argc != 2 || !chart_parse (argv[1], &chart))
    return deja_usage_error (run->context, "one chart is required: messages, authors, threads, posters, network, languages, crossposts,"
                             " domains or roles");
  if (out == NULL)
    return deja_usage_error (run->context, "--out is required");
  if (format_name == NULL && g_str_has_suffix (out, ".png"))
    format_name = g_strdup ("png");
  if (!plot_format_parse (format_name, &format))
    return deja_usage_error (run->context, "--format must be svg or png");
  if (width < 200 || width > 10000 || (height != 0 && (height < 100 || height > 10000)))
    return deja_usage_error (run->context, "--width and --height must be between 200 (100) and 10000");
  if (!deja_run_open (run, &status))
    return status;
  if ((picture = chart_render (run->store, chart, format, width, height, TRUE, &error)) == NULL)
    {
      deja_error ("cannot draw '%s': %s", argv[1], error->message);
      return DEJA_EXIT_FAILED;
    }
  data = g_bytes_get_data (picture, &len);
  return deja_write_file (out, data, len);
}
