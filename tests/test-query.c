/* test-query.c — util/search-query.c: what a researcher types, as FTS5
 * (deja search --db) and as PostgreSQL's to_tsquery() text (--pg). */
#include <glib.h>

#include "search-query.h"

static char *
tsquery_of (const char *typed)
{
  SearchQuery q;
  g_autoptr (GError) error = NULL;
  char *out;

  g_assert_true (search_query_parse (typed, &q, &error));
  g_assert_no_error (error);
  out = q.match ? search_query_tsquery (q.match) : NULL;
  search_query_clear (&q);
  return out;
}

static void
test_tsquery (void)
{
  static const struct {
    const char *typed, *tsquery;
  } cases[] = {
    { "threading", "'threading'" },
    { "deferred callback", "'deferred' & 'callback'" },
    { "\"quantum flux\"", "'quantum flux'" },
    { "e-mail don't", "'e-mail' & 'don''t'" },
    { "C++ OR reactor.run()", "'C++' | 'reactor.run()'" },
    { "twisted NOT perl", "'twisted' & ! 'perl'" },
    { "thread*", "'thread':*" },
    { "(a OR b) c", "('a' | 'b') & 'c'" },
    { "NEAR(reactor loop, 5)", "('reactor' & 'loop')" },
    { "subject:re", "'re'" },
    { "back\\slash", "'back\\\\slash'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = tsquery_of (cases[i].typed);

      g_assert_cmpstr (got, ==, cases[i].tsquery);
    }
}

/* Filters alone make no query */
static void
test_filters_alone (void)
{
  g_autofree char *got = tsquery_of ("from:ann group:comp.*");

  g_assert_null (got);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/query/tsquery", test_tsquery);
  g_test_add_func ("/query/filters-alone", test_filters_alone);
  return g_test_run ();
}
