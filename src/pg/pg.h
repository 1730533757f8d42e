/* pg.h — a corpus deja export-pg loaded into PostgreSQL, read back:
 * deja search --pg and deja stats --pg.  The only library that sees
 * libpq; it knows nothing of SQLite.  Rows come as RowValue arrays, the
 * same names and shapes the store gives for the same questions, so that
 * the same printers print them. */
#pragma once

#include <glib.h>
#include "row.h"

G_BEGIN_DECLS

#define PG_ERROR (pg_error_quark ())
GQuark pg_error_quark (void);

typedef enum {
  PG_ERROR_FAILED,         /* no connection, no deja schema, the server failed */
  PG_ERROR_QUERY,          /* the server refused the query the user typed */
} PgError;

typedef struct _PgCorpus PgCorpus;
typedef gboolean (*PgRowFunc) (const RowValue *values, guint n, gpointer user_data);

typedef struct {
  const char *tsquery;         /* to_tsquery() text (search_query_tsquery()), or NULL: every
                                  message the filters let through, newest first */
  const char *const *authors;  /* (nullable) texts of which the address or name holds one */
  const char *const *groups;   /* (nullable) globs, one of the message's groups matches */
  const char *since, *until;   /* (nullable) dates, as deja's filter takes them */
  const char *lang;            /* (nullable) messages.lang, or its region variants */
  const char *mark_open, *mark_close;   /* around hits in the snippet */
  gint64 limit;                /* 0: all */
  gboolean count;              /* one row: messages, threads */
} PgSearch;

typedef enum {
  PG_STATS_TOTALS,
  PG_STATS_BY_GROUP,           /* with by_month: per month, else per year */
  PG_STATS_TOP_AUTHORS,
  PG_STATS_LANGUAGES,
  PG_STATS_LANGUAGES_BY_GROUP,
  PG_STATS_THREAD_LANGUAGES,
} PgStats;

gboolean pg_available (void);
char *pg_module_problem (void);
PgCorpus *pg_corpus_open (const char *conninfo, const char *schema, GError **error);
void pg_corpus_close (PgCorpus *corpus);
gboolean pg_corpus_search (PgCorpus *corpus, const PgSearch *search, PgRowFunc func, gpointer user_data,
                           GError **error);
gboolean pg_corpus_stats (PgCorpus *corpus, PgStats what, gboolean by_month, PgRowFunc func,
                          gpointer user_data, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PgCorpus, pg_corpus_close)

G_END_DECLS
