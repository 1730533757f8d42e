/* fixtures.h — GTest cases from the files of a fixtures/ directory. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint fixture_tests_add (const char *subdir, const char *prefix, GTestDataFunc func);

G_END_DECLS
