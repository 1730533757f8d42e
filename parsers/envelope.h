/* envelope.h — the shapes of an mbox "From " line (docs/splitter.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  MBOX_SHAPE_NONE = 0,   /* not a candidate: does not begin with "From " */
  MBOX_SHAPE_G = 'G',    /* Google Groups export: From -?digits */
  MBOX_SHAPE_R = 'R',    /* RFC 4155: From sender asctime-date */
  MBOX_SHAPE_P = 'P',    /* partial: no date, or a date the grammar cannot read */
  MBOX_SHAPE_T = 'T',    /* text: a body line a liberal parser would split on */
} MboxShape;

MboxShape mbox_envelope_shape (const char *line, gsize len);
gboolean mbox_envelope_is_candidate (const char *line, gsize len);

G_END_DECLS
