/* charset.h — bytes in a declared (or no) charset to valid UTF-8. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *used;    /* lower-case charset name (static, interned) */
  gboolean guessed;    /* the declaration was absent, unknown or wrong */
} CharsetResult;

char *charset_to_utf8 (const char *bytes, gsize len, const char *charset, CharsetResult *result);
char *charset_to_utf8_reading (const char *bytes, gsize len, const char *charset, const char *reading,
                               CharsetResult *result);
char *charset_sanitize_utf8 (char *text);
const char *charset_detect (const char *bytes, gsize len);
guint charset_anomalies (const char *utf8);

G_END_DECLS
