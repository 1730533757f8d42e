/* pg-load.c — deja's PostgreSQL reader, loaded when first used.
 *
 * The reader itself (pg.c) is a module of its own, deja-pg.so, linked
 * with libpq: a deja that never reads PostgreSQL never loads libpq and
 * the libraries it brings (util/module.c).  This file gives pg.h's
 * functions to the commands and hands each call to the module. */
#include "pg-module.h"
#include "module.h"
#include "words.h"

G_DEFINE_QUARK (deja-pg-error-quark, pg_error)

static DejaModule module = DEJA_MODULE_INIT ("reading PostgreSQL (libpq)", DEJA_PG_MODULE, "deja_pg_module");

/* Whether this deja was built to read PostgreSQL (the module is
 * loaded only when used: pg_module_problem()). */
gboolean
pg_available (void)
{
  return TRUE;
}

/* Why the module cannot be loaded, or NULL (transfer full). */
char *
pg_module_problem (void)
{
  return deja_module_problem (&module);
}

/**
 * pg_corpus_open:
 * @conninfo: libpq's connection string ("dbname=research host=db")
 * @schema: the schema export-pg made (default there: deja)
 *
 * Returns: (transfer full) (nullable): the corpus, or %NULL with @error
 *   set when there is no connection or no deja schema of that name, or
 *   the module cannot be loaded
 */
PgCorpus *
pg_corpus_open (const char *conninfo, const char *schema, GError **error)
{
  const PgModule *t = deja_module_table (&module, error);
  g_autoptr (GPtrArray) codes = g_ptr_array_new ();
  g_autoptr (GPtrArray) configs = g_ptr_array_new ();
  const char *code, *name;

  if (t == NULL)
    return NULL;
  /* the languages export-pg stems, and their configurations */
  for (guint i = 0; (name = text_snowball_language (i, &code)) != NULL; i++)
    {
      g_ptr_array_add (codes, (gpointer) code);
      g_ptr_array_add (configs, (gpointer) name);
    }
  g_ptr_array_add (configs, (gpointer) "simple");
  g_ptr_array_add (codes, NULL);
  g_ptr_array_add (configs, NULL);
  return t->open (conninfo, schema, (const char *const *) codes->pdata,
                  (const char *const *) configs->pdata, error);
}

void
pg_corpus_close (PgCorpus *corpus)
{
  if (corpus)
    ((const PgModule *) deja_module_table (&module, NULL))->close (corpus);
}

/* See pg.c's corpus_search() */
gboolean
pg_corpus_search (PgCorpus *corpus, const PgSearch *search, PgRowFunc func, gpointer user_data,
                  GError **error)
{
  return ((const PgModule *) deja_module_table (&module, NULL))->search (corpus, search, func, user_data,
                                                                          error);
}

/* See pg.c's corpus_stats() */
gboolean
pg_corpus_stats (PgCorpus *corpus, PgStats what, gboolean by_month, PgRowFunc func,
                 gpointer user_data, GError **error)
{
  return ((const PgModule *) deja_module_table (&module, NULL))->stats (corpus, what, by_month, func,
                                                                         user_data, error);
}
