/* fixtures.h — GTest cases from the files of a fixtures/ directory. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint fixture_tests_add (const char *subdir, const char *prefix, GTestDataFunc func);
void table_tests_add (const char *prefix, gconstpointer rows, gsize row_size, gsize n_rows,
                      GTestDataFunc func);

/* One GTest case per row of a static table: a failing row is named and
 * the others still run ("/date/row/017"). */
#define TABLE_TESTS_ADD(prefix, table, func) \
  table_tests_add ((prefix), (table), sizeof (table)[0], G_N_ELEMENTS (table), (func))

G_END_DECLS
