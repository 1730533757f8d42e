/* fixtures.c — one GTest case per fixtures/SUBDIR/NAME.mbox, in name order. */
#include "fixtures.h"

#include <string.h>

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Adds PREFIX/NAME calling @func with the .mbox path; returns how many. */
void
table_tests_add (const char *prefix, gconstpointer rows, gsize row_size, gsize n_rows,
                 GTestDataFunc func)
{
  for (gsize i = 0; i < n_rows; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/%03zu", prefix, i);
      g_test_add_data_func (name, (const char *) rows + i * row_size, func);
    }
}

guint
fixture_tests_add (const char *subdir, const char *prefix, GTestDataFunc func)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, subdir, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".mbox"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *test = g_strdup_printf ("%s/%.*s", prefix, (int) strlen (n) - 5, n);
      g_test_add_data_func_full (test, g_build_filename (dir, n, NULL), func, g_free);
    }
  return names->len;
}
