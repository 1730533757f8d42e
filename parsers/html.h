/* html.h — HTML mail parts to the text a reader sees. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void html_init (void);
char *html_to_text (const char *html, gsize len, gboolean *cut);

G_END_DECLS
