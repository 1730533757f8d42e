/* test-module.c — util/module.c: a module loaded once, from the build
 * tree for a program of the build tree, and refused with the reason
 * when it is missing, not deja's, or of another version. */
#include <string.h>

#include "module.h"
#include "module-fixture.h"

static void
test_loads_once (void)
{
  static DejaModule m = DEJA_MODULE_INIT ("testing", MODULE_FIXTURE, "deja_fixture_now");
  g_autoptr (GError) error = NULL;
  g_autofree char *path = deja_module_path (&m);
  const FixtureTable *t;

  /* a test program of the build tree: the build tree's file */
  g_assert_cmpstr (path, ==, MODULE_FIXTURE);
  t = deja_module_table (&m, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  g_assert_cmpint (t->answer (), ==, 42);
  g_assert_true (deja_module_table (&m, NULL) == t);
  g_assert_null (deja_module_problem (&m));
}

/* @symbol of @path refused, the reason holding @words */
static void
refused (const char *path, const char *symbol, const char *const *words)
{
  DejaModule m = DEJA_MODULE_INIT ("testing", path, symbol);
  g_autoptr (GError) error = NULL;
  g_autofree char *problem = NULL;

  g_assert_null (deja_module_table (&m, &error));
  g_assert_error (error, DEJA_MODULE_ERROR, DEJA_MODULE_ERROR_LOAD);
  g_assert_true (g_str_has_prefix (error->message, "testing needs "));
  for (guint i = 0; words[i]; i++)
    if (strstr (error->message, words[i]) == NULL)
      g_error ("'%s' does not say '%s'", error->message, words[i]);
  /* the failure is kept: asked again, the same answer */
  problem = deja_module_problem (&m);
  g_assert_cmpstr (problem, ==, error->message);
  g_free (m.why);
}

static void
test_refused (void)
{
  refused ("/nonexistent/deja-fixture.so", "deja_fixture_now",
           (const char *[]) { "/nonexistent/deja-fixture.so", "cannot be loaded", NULL });
  refused (MODULE_FIXTURE, "deja_fixture_none",
           (const char *[]) { MODULE_FIXTURE, "not deja's module", "deja_fixture_none", NULL });
  refused (MODULE_FIXTURE, "deja_fixture_old",
           (const char *[]) { "of deja " PACKAGE_VERSION, "that one is of deja 0.0.1-old", NULL });
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/module/loads-once", test_loads_once);
  g_test_add_func ("/module/refused", test_refused);
  return g_test_run ();
}
