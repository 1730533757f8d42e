/* fnv.h — FNV-1a over fields, the content hash threading compares. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FNV_START 14695981039346656037ull

guint64 fnv_field (guint64 h, const char *s, gsize n);

G_END_DECLS
