/* rfc2047.h — header text with encoded words, to UTF-8. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *rfc2047_decode (const char *raw, gsize len, const char *fallback_charset);
char *rfc2047_unfold (const char *raw, gsize len, gsize *out_len);

G_END_DECLS
