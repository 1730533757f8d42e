/* pg-none.c — the PostgreSQL reader of a deja built without libpq
 * (meson option libpq=disabled, or libpq-dev missing): --pg is an error
 * that says so. */
#include "pg.h"

G_DEFINE_QUARK (deja-pg-error-quark, pg_error)

gboolean
pg_available (void)
{
  return FALSE;
}

char *
pg_module_problem (void)
{
  return NULL;
}

PgCorpus *
pg_corpus_open (const char *conninfo, const char *schema, GError **error)
{
  (void) conninfo;
  (void) schema;
  g_set_error_literal (error, PG_ERROR, PG_ERROR_FAILED,
                       "reading PostgreSQL needs libpq, and this deja was built without it"
                       " (install libpq-dev and build again)");
  return NULL;
}

void
pg_corpus_close (PgCorpus *corpus)
{
  (void) corpus;
}

gboolean
pg_corpus_search (PgCorpus *corpus, const PgSearch *search, PgRowFunc func, gpointer user_data,
                  GError **error)
{
  g_return_val_if_reached (FALSE);
}

gboolean
pg_corpus_stats (PgCorpus *corpus, PgStats what, gboolean by_month, PgRowFunc func,
                 gpointer user_data, GError **error)
{
  g_return_val_if_reached (FALSE);
}
