/* quote.h — a message's own text, without quotes, attributions, signature. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *text;           /* UTF-8; "" when nothing is the author's */
  guint quoted_lines;   /* quoted (and forwarded-original) lines removed */
  guint own_lines;      /* non-blank lines kept */
  gboolean html_scrubbed;  /* the archive replaced an HTML part by a notice
                            * ("An HTML attachment was scrubbed...") */
} OwnText;

void quote_own_text (const char *body, OwnText *own);

G_END_DECLS
