/* plot.c — line, bar, point and network charts with cairo.
 *
 * A chart is drawn on a canvas: a white page with the title at the top,
 * an optional note at the bottom, and the plotting area between, framed
 * by axes with "nice" ticks (1, 2 or 5 times a power of ten).  Colours
 * are Okabe and Ito's eight, which colour-blind readers tell apart.
 *
 * A module of its own (deja-plot.so, util/module.c), which plot-load.c
 * loads when a command first draws: cairo, fontconfig and the libraries
 * they bring (FreeType, libpng, pixman, X11's) are not loaded by every
 * other command.
 */
#include "plot-module.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>
#include <gmodule.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans"

static G_DEFINE_QUARK (deja-plot-error-quark, plot_error)
#define PLOT_ERROR (plot_error_quark ())

static const double palette[][3] = {
  { 0.000, 0.447, 0.698 },   /* blue */
  { 0.902, 0.624, 0.000 },   /* orange */
  { 0.000, 0.620, 0.451 },   /* bluish green */
  { 0.800, 0.475, 0.655 },   /* reddish purple */
  { 0.337, 0.706, 0.914 },   /* sky blue */
  { 0.835, 0.369, 0.000 },   /* vermillion */
  { 0.941, 0.894, 0.259 },   /* yellow */
  { 0.000, 0.000, 0.000 },   /* black */
};
#define N_COLOURS G_N_ELEMENTS (palette)

typedef struct {
  PlotFormat format;
  int width, height;
  cairo_surface_t *surface;
  cairo_t *cr;
  GByteArray *bytes;
  /* the plotting area */
  double left, top, right, bottom;
} Canvas;

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static void
colour (cairo_t *cr, guint i, double alpha)
{
  const double *c = palette[i % N_COLOURS];

  cairo_set_source_rgba (cr, c[0], c[1], c[2], alpha);
}

/* x is where the text starts (align 0), is centred (0.5) or ends (1). */
static void
text (cairo_t *cr, double x, double y, const char *s, double align, double size, gboolean bold)
{
  cairo_text_extents_t ext;

  cairo_select_font_face (cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_text_extents (cr, s, &ext);
  cairo_move_to (cr, x - align * ext.x_advance, y);
  cairo_show_text (cr, s);
}

static double
text_width (cairo_t *cr, const char *s, double size)
{
  cairo_text_extents_t ext;

  cairo_select_font_face (cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_text_extents (cr, s, &ext);
  return ext.x_advance;
}

/* cairo keeps its fonts, and fontconfig its configuration, for the life
 * of the process; both are let go at exit, so that a leak checker sees
 * only real leaks. */
static void
release_fonts (void)
{
  cairo_debug_reset_static_data ();
  FcFini ();
}

static Canvas *
begin (const PlotPage *page)
{
  static gsize once = 0;
  Canvas *c = g_new0 (Canvas, 1);

  if (g_once_init_enter (&once))
    {
      atexit (release_fonts);
      g_once_init_leave (&once, 1);
    }

  c->format = page->format;
  c->width = page->width > 0 ? page->width : 720;
  c->height = page->height > 0 ? page->height : 360;
  if (c->format == PLOT_SVG)
    {
      c->bytes = g_byte_array_new ();
      c->surface = cairo_svg_surface_create_for_stream (append_bytes, c->bytes, c->width, c->height);
    }
  else
    c->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, c->width, c->height);
  c->cr = cairo_create (c->surface);
  cairo_set_source_rgb (c->cr, 1, 1, 1);
  cairo_paint (c->cr);
  cairo_set_source_rgb (c->cr, 0.1, 0.1, 0.1);
  if (page->title)
    text (c->cr, 12, 22, page->title, 0, 15, TRUE);
  if (page->note)
    {
      cairo_set_source_rgb (c->cr, 0.35, 0.35, 0.35);
      text (c->cr, 12, c->height - 8, page->note, 0, 10, FALSE);
    }
  c->left = 64;
  c->right = c->width - 20;
  c->top = page->title ? 40 : 12;
  c->bottom = c->height - (page->note ? 44 : 30);
  return c;
}

static GBytes *
end (Canvas *c, GError **error)
{
  cairo_status_t status;
  GBytes *out = NULL;

  cairo_destroy (c->cr);
  cairo_surface_flush (c->surface);
  if (c->format == PLOT_PNG)
    {
      c->bytes = g_byte_array_new ();
      status = cairo_surface_write_to_png_stream (c->surface, append_bytes, c->bytes);
    }
  else
    {
      cairo_surface_finish (c->surface);
      status = cairo_surface_status (c->surface);
    }
  cairo_surface_destroy (c->surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, PLOT_ERROR, 0, "cannot draw the chart: %s", cairo_status_to_string (status));
      g_byte_array_unref (c->bytes);
    }
  else
    out = g_byte_array_free_to_bytes (c->bytes);
  g_free (c);
  return out;
}

/* A tick step of 1, 2 or 5 times a power of ten giving about @ticks steps
 * up to @max. */
static double
nice_step (double max, int ticks)
{
  double raw = max / ticks, mag, f;

  if (raw <= 0)
    return 1;
  mag = pow (10, floor (log10 (raw)));
  f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* 1234 -> "1,234"; 1500000 -> "1.5M"; 0.25 -> "0.25". */
static char *
number (double v)
{
  if (fabs (v) >= 1e6)
    return g_strdup_printf ("%gM", v / 1e6);
  if (fabs (v - round (v)) > 1e-9)
    return g_strdup_printf ("%g", v);
  {
    g_autofree char *digits = g_strdup_printf ("%.0f", fabs (v));
    GString *s = g_string_new (v < 0 ? "-" : "");
    gsize n = strlen (digits);

    for (gsize i = 0; i < n; i++)
      {
        if (i > 0 && (n - i) % 3 == 0)
          g_string_append_c (s, ',');
        g_string_append_c (s, digits[i]);
      }
    return g_string_free (s, FALSE);
  }
}

/* A grid line across the area at height @y, labelled on the left. */
static void
grid_h (Canvas *c, double y, const char *label)
{
  cairo_set_source_rgb (c->cr, 0.88, 0.88, 0.88);
  cairo_move_to (c->cr, c->left, round (y) + 0.5);
  cairo_line_to (c->cr, c->right, round (y) + 0.5);
  cairo_stroke (c->cr);
  cairo_set_source_rgb (c->cr, 0.25, 0.25, 0.25);
  text (c->cr, c->left - 6, y + 4, label, 1, 10, FALSE);
}

/* A grid line down the area at @x, labelled below it. */
static void
grid_v (Canvas *c, double x, const char *label)
{
  cairo_set_source_rgb (c->cr, 0.88, 0.88, 0.88);
  cairo_move_to (c->cr, round (x) + 0.5, c->top);
  cairo_line_to (c->cr, round (x) + 0.5, c->bottom);
  cairo_stroke (c->cr);
  cairo_set_source_rgb (c->cr, 0.25, 0.25, 0.25);
  text (c->cr, x, c->bottom + 14, label, 0.5, 10, FALSE);
}

/* The value axis's name, turned, left of the area. */
static void
y_label (Canvas *c, const char *label)
{
  if (label == NULL)
    return;
  cairo_save (c->cr);
  cairo_translate (c->cr, 14, (c->top + c->bottom) / 2);
  cairo_rotate (c->cr, -G_PI / 2);
  text (c->cr, 0, 0, label, 0.5, 10, FALSE);
  cairo_restore (c->cr);
}

/* A linear value axis on the left, from 0 to at least @max, with grid
 * lines; returns the top of the axis (a multiple of the step). */
static double
y_axis (Canvas *c, double max, const char *label)
{
  cairo_t *cr = c->cr;
  double step = nice_step (max > 0 ? max : 1, 5);
  double top = ceil ((max > 0 ? max : 1) / step) * step;

  cairo_set_line_width (cr, 1);
  for (double v = 0; v <= top + step / 2; v += step)
    {
      g_autofree char *s = number (v);

      grid_h (c, c->bottom - (c->bottom - c->top) * v / top, s);
    }
  y_label (c, label);
  return top;
}

/* Which categories get a label: when the labels are months (YYYY-MM)
 * spanning more than two years, the Januaries of every @year_every-th
 * year, named by the year; else every @every-th. */
static gboolean
label_here (const char *label, gboolean months, guint i, guint every, guint year_every)
{
  if (months)
    return g_str_has_suffix (label, "-01") && atoi (label) % year_every == 0;
  return i % every == 0;
}

/* The first of 1, 2, 5, 10, 20, 50... that is at least @n. */
static guint
round_up_125 (double n)
{
  static const guint steps[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (steps[i] >= n)
      return steps[i];
  return 1000;
}

static GBytes *
draw_lines (const PlotPage *page, const PlotLines *d, GError **error)
{
  Canvas *c = begin (page);
  cairo_t *cr = c->cr;
  double max = 0, top, dx;
  guint every, year_every;
  gboolean months;

  for (guint i = 0; i < d->n_series * d->n_x; i++)
    max = MAX (max, d->values[i]);
  top = y_axis (c, max, d->y_label);
  dx = d->n_x > 1 ? (c->right - c->left) / (d->n_x - 1) : 0;
  every = MAX (1, (guint) ceil (d->n_x * 48.0 / (c->right - c->left)));
  months = d->n_x > 24 && strlen (d->x_labels[0]) == 7 && d->x_labels[0][4] == '-';
  /* A year label needs about 40 points. */
  year_every = round_up_125 (40.0 / MAX (12 * dx, 1e-9));
  cairo_set_source_rgb (cr, 0.25, 0.25, 0.25);
  for (guint i = 0; i < d->n_x; i++)
    if (label_here (d->x_labels[i], months, i, every, year_every))
      {
        g_autofree char *year = months ? g_strndup (d->x_labels[i], 4) : NULL;
        double x = c->left + dx * i;

        cairo_move_to (cr, x, c->bottom);
        cairo_line_to (cr, x, c->bottom + 4);
        cairo_stroke (cr);
        text (cr, x, c->bottom + 16, year ? year : d->x_labels[i], 0.5, 10, FALSE);
      }
  cairo_set_line_width (cr, 1.6);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint s = 0; s < d->n_series; s++)
    {
      colour (cr, s, 1);
      for (guint i = 0; i < d->n_x; i++)
        {
          double x = c->left + dx * i;
          double y = c->bottom - (c->bottom - c->top) * d->values[s * d->n_x + i] / top;

          if (i == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      if (d->n_x == 1)
        cairo_rel_line_to (cr, 1, 0);
      cairo_stroke (cr);
    }
  /* The legend, top left inside the area, when there is more than one line. */
  for (guint s = 0; d->n_series > 1 && s < d->n_series; s++)
    {
      double y = c->top + 6 + 14 * s;

      cairo_set_source_rgba (cr, 1, 1, 1, 0.85);
      cairo_rectangle (cr, c->left + 6, y - 2, text_width (cr, d->series[s], 10) + 22, 14);
      cairo_fill (cr);
      colour (cr, s, 1);
      cairo_rectangle (cr, c->left + 8, y + 1, 10, 8);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      text (cr, c->left + 22, y + 9, d->series[s], 0, 10, FALSE);
    }
  return end (c, error);
}

static GBytes *
draw_bars (const PlotPage *page, const PlotBars *d, GError **error)
{
  Canvas *c = begin (page);
  cairo_t *cr = c->cr;
  double max = 0, label_w = 0, step, top, h;

  for (guint i = 0; i < d->n; i++)
    {
      max = MAX (max, d->values[i]);
      label_w = MAX (label_w, text_width (cr, d->labels[i], 10));
    }
  c->left = 12 + MIN (label_w, c->width * 0.4) + 8;
  c->right -= 40;   /* room for the value after the longest bar */
  step = nice_step (max > 0 ? max : 1, 5);
  top = ceil ((max > 0 ? max : 1) / step) * step;
  h = d->n ? (c->bottom - c->top) / d->n : 0;
  cairo_set_line_width (cr, 1);
  for (double v = 0; v <= top + step / 2; v += step)
    {
      g_autofree char *s = number (v);

      grid_v (c, c->left + (c->right - c->left) * v / top, s);
    }
  if (d->x_label)
    text (cr, (c->left + c->right) / 2, c->bottom + 27, d->x_label, 0.5, 10, FALSE);
  for (guint i = 0; i < d->n; i++)
    {
      double y = c->top + h * i, w = (c->right - c->left) * d->values[i] / top;
      g_autofree char *s = number (d->values[i]);

      colour (cr, 0, 0.9);
      cairo_rectangle (cr, c->left, y + h * 0.15, w, h * 0.7);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_save (cr);
      cairo_rectangle (cr, 0, y, c->left - 6, h);
      cairo_clip (cr);
      text (cr, c->left - 6, y + h / 2 + 4, d->labels[i], 1, 10, FALSE);
      cairo_restore (cr);
      text (cr, c->left + w + 4, y + h / 2 + 4, s, 0, 9, FALSE);
    }
  return end (c, error);
}

/* A log10 axis tick label: 1, 10, 100, 1k, 10k, ... */
static char *
decade (int e)
{
  static const char *const suffix[] = { "", "k", "M", "G" };

  if (e < 0)
    return g_strdup_printf ("%g", pow (10, e));
  return g_strdup_printf ("%.0f%s", pow (10, e % 3), suffix[MIN (e / 3, 3)]);
}

static GBytes *
draw_points (const PlotPage *page, const PlotPoints *d, GError **error)
{
  Canvas *c = begin (page);
  cairo_t *cr = c->cr;
  double max_x = 1, max_y = 1;
  int dx, dy;

  for (guint i = 0; i < d->n; i++)
    {
      max_x = MAX (max_x, d->x[i]);
      max_y = MAX (max_y, d->y[i]);
    }
  dx = MAX (1, (int) ceil (log10 (max_x) + 1e-9));
  dy = MAX (1, (int) ceil (log10 (max_y) + 1e-9));
  cairo_set_line_width (cr, 1);
  for (int e = 0; e <= dx; e++)
    {
      g_autofree char *s = decade (e);

      grid_v (c, c->left + (c->right - c->left) * e / dx, s);
    }
  for (int e = 0; e <= dy; e++)
    {
      g_autofree char *s = decade (e);

      grid_h (c, c->bottom - (c->bottom - c->top) * e / dy, s);
    }
  if (d->x_label)
    text (cr, (c->left + c->right) / 2, c->bottom + 27, d->x_label, 0.5, 10, FALSE);
  y_label (c, d->y_label);
  colour (cr, 0, 0.8);
  for (guint i = 0; i < d->n; i++)
    {
      if (d->x[i] <= 0 || d->y[i] <= 0)
        continue;
      cairo_new_sub_path (cr);
      cairo_arc (cr, c->left + (c->right - c->left) * log10 (d->x[i]) / dx,
                 c->bottom - (c->bottom - c->top) * log10 (d->y[i]) / dy, 3, 0, 2 * G_PI);
    }
  cairo_fill (cr);
  return end (c, error);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static GBytes *
draw_network (const PlotPage *page, const PlotNetwork *d, GError **error)
{
  Canvas *c = begin (page);
  cairo_t *cr = c->cr;
  double min_x = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_y = -G_MAXDOUBLE;
  double max_size = 1, max_weight = 1, scale, pad = 20;
  g_autofree double *px = g_new (double, d->n_nodes + 1);
  g_autofree double *py = g_new (double, d->n_nodes + 1);
  g_autofree double *radius = g_new (double, d->n_nodes + 1);

  c->left = 12;
  c->right = c->width - 12;
  /* The frame holds the middle 96% of the nodes on each axis: one
   * author linked by a single reply does not shrink the rest to a dot;
   * the few outside are drawn on the frame's edge. */
  {
    g_autofree double *xs = g_new (double, d->n_nodes + 1);
    g_autofree double *ys = g_new (double, d->n_nodes + 1);
    guint lo = d->n_nodes / 50, hi = d->n_nodes - 1 - d->n_nodes / 50;

    for (guint i = 0; i < d->n_nodes; i++)
      {
        xs[i] = d->xy[2 * i];
        ys[i] = d->xy[2 * i + 1];
        max_size = MAX (max_size, d->size[i]);
      }
    qsort (xs, d->n_nodes, sizeof (double), compare_doubles);
    qsort (ys, d->n_nodes, sizeof (double), compare_doubles);
    if (d->n_nodes > 0)
      {
        min_x = xs[lo], max_x = xs[hi];
        min_y = ys[lo], max_y = ys[hi];
      }
  }
  for (guint i = 0; i < d->n_edges; i++)
    max_weight = MAX (max_weight, d->weight[i]);
  scale = MIN ((c->right - c->left - 2 * pad) / MAX (max_x - min_x, 1e-9),
               (c->bottom - c->top - 2 * pad) / MAX (max_y - min_y, 1e-9));
  for (guint i = 0; i < d->n_nodes; i++)
    {
      /* Centred in the area; the node's area grows with its size. */
      px[i] = (c->left + c->right) / 2 + (CLAMP (d->xy[2 * i], min_x, max_x) - (min_x + max_x) / 2) * scale;
      py[i] = (c->top + c->bottom) / 2 + (CLAMP (d->xy[2 * i + 1], min_y, max_y) - (min_y + max_y) / 2) * scale;
      radius[i] = 2 + 14 * sqrt (d->size[i] / max_size);
    }
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint i = 0; i < d->n_edges; i++)
    {
      guint a = d->ends[2 * i], b = d->ends[2 * i + 1];

      if (a >= d->n_nodes || b >= d->n_nodes || a == b)
        continue;
      cairo_set_source_rgba (cr, 0.3, 0.3, 0.3, 0.18 + 0.4 * d->weight[i] / max_weight);
      cairo_set_line_width (cr, 0.5 + 3 * sqrt (d->weight[i] / max_weight));
      cairo_move_to (cr, px[a], py[a]);
      cairo_line_to (cr, px[b], py[b]);
      cairo_stroke (cr);
    }
  for (guint i = 0; i < d->n_nodes; i++)
    {
      gint64 g = d->group ? d->group[i] : 0;

      if (g >= 0 && g < (gint64) N_COLOURS - 1)
        colour (cr, (guint) g, 0.9);
      else
        cairo_set_source_rgba (cr, 0.6, 0.6, 0.6, 0.9);
      cairo_new_sub_path (cr);
      cairo_arc (cr, px[i], py[i], radius[i], 0, 2 * G_PI);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_set_line_width (cr, 0.8);
      cairo_stroke (cr);
    }
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  for (guint i = 0; d->labels && i < d->n_nodes; i++)
    if (d->labels[i])
      text (cr, px[i] + radius[i] + 2, py[i] + 4, d->labels[i], 0, 9, FALSE);
  return end (c, error);
}

G_MODULE_EXPORT const PlotModule deja_plot_module = {
  .version = PACKAGE_VERSION,
  .lines = draw_lines,
  .bars = draw_bars,
  .points = draw_points,
  .network = draw_network,
};
