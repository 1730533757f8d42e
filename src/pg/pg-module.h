/* pg-module.h — the table of functions the PostgreSQL module (pg.c,
 * deja-pg.so) exports, and pg-load.c calls. */
#pragma once

#include "pg.h"

G_BEGIN_DECLS

typedef struct {
  const char *version;     /* PACKAGE_VERSION: first, as util/module.c reads it */
  PgCorpus *(*open) (const char *conninfo, const char *schema, const char *const *codes,
                     const char *const *configs, GError **error);
  void (*close) (PgCorpus *corpus);
  gboolean (*search) (PgCorpus *corpus, const PgSearch *search, PgRowFunc func, gpointer user_data,
                      GError **error);
  gboolean (*stats) (PgCorpus *corpus, PgStats what, gboolean by_month, PgRowFunc func,
                     gpointer user_data, GError **error);
} PgModule;

G_END_DECLS
