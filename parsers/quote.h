/* quote.h — a message's own text, without quotes, attributions, signature. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A byte range of the body. */
typedef struct {
  guint32 offset;
  guint32 length;
} OwnSpan;

typedef struct {
  char *text;           /* UTF-8; "" when nothing is the author's */
  GArray *spans;        /* (element-type OwnSpan) (nullable): byte ranges of
                         * the body whose concatenation, in order, is text,
                         * adjacent ranges joined; NULL when text cannot be
                         * so made (a body of one line without its line end) */
  guint quoted_lines;   /* quoted (and forwarded-original) lines removed */
  guint own_lines;      /* non-blank lines kept */
  gboolean html_scrubbed;  /* the archive replaced an HTML part by a notice
                            * ("An HTML attachment was scrubbed...") */
} OwnText;

void quote_own_text (const char *body, OwnText *own);
void own_text_clear (OwnText *own);

G_END_DECLS
