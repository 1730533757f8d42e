/* flags.h — bit sets as comma-separated tokens, for storing and printing. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *flags_to_string (guint flags, const char *const *names, gsize n_names);
guint flags_from_string (const char *s, const char *const *names, gsize n_names, gboolean *unknown);

G_END_DECLS
