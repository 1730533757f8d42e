/* pg.c — a corpus deja export-pg loaded into PostgreSQL, read back with
 * libpq: deja search --pg CONNINFO and deja stats --pg CONNINFO.
 *
 * Every statement is a literal here; what a user typed arrives as a
 * parameter, never as SQL text.  The schema is set once, by
 * set_config('search_path', quote_ident(...)).  The full-text column
 * (tsv) holds each message's subject and own text stemmed in its
 * language's Snowball configuration (export-pg): a query is made in every
 * one of them (and 'simple'), and a message matches when it matches in
 * any; its rank is the best of them, its snippet made in its own
 * language's configuration.
 *
 * A module of its own (deja-pg.so, util/module.c), which pg-load.c loads
 * when a command first reads PostgreSQL: libpq and its libraries are not
 * loaded by every other command.
 */
#include "pg-module.h"

#include <gmodule.h>
#include <libpq-fe.h>
#include <string.h>

G_DEFINE_QUARK (deja-pg-error-quark, pg_error)

struct _PgCorpus {
  PGconn *conn;
  char *codes;             /* the languages export-pg stems, as a text[] literal */
  char *configs;           /* and their configurations, 'simple' last */
};

/* Notices (a query of stop words only) are not for the user. */
static void
ignore_notice (void *arg, const char *message)
{
  (void) arg;
  (void) message;
}

/* A text[] literal of @items: {"a","b"}, each quoted, '"' and '\' escaped. */
static char *
array_literal (const char *const *items, guint n)
{
  GString *s = g_string_new ("{");

  for (guint i = 0; i < n; i++)
    {
      g_string_append (s, i ? ",\"" : "\"");
      for (const char *p = items[i]; *p; p++)
        {
          if (*p == '"' || *p == '\\')
            g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
      g_string_append_c (s, '"');
    }
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

static gboolean
result_ok (PGresult *r, const char *what, GError **error)
{
  ExecStatusType status = PQresultStatus (r);
  const char *state;

  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK)
    return TRUE;
  g_autofree char *message = g_strchomp (g_strdup (PQresultErrorMessage (r)));

  state = PQresultErrorField (r, PG_DIAG_SQLSTATE);
  /* 42601 syntax error, 22023 invalid parameter, 2201B invalid regular expression */
  g_set_error (error, PG_ERROR,
               state && (strcmp (state, "42601") == 0 || strcmp (state, "22023") == 0 ||
                         strcmp (state, "2201B") == 0) ? PG_ERROR_QUERY : PG_ERROR_FAILED,
               "%s: %s", what, message);
  return FALSE;
}

/* Runs @sql with @params (text, NULL for NULL) and gives each row to
 * @func, integers and reals as numbers. */
static gboolean
run_rows (PgCorpus *c, const char *sql, int n, const char *const *params, PgRowFunc func,
          gpointer user_data, const char *what, GError **error)
{
  PGresult *r = PQexecParams (c->conn, sql, n, NULL, params, NULL, NULL, 0);
  gboolean ok = r != NULL && result_ok (r, what, error);

  if (r == NULL)
    g_set_error (error, PG_ERROR, PG_ERROR_FAILED, "%s: %s", what, PQerrorMessage (c->conn));
  if (ok && func)
    {
      int columns = PQnfields (r);
      g_autofree RowValue *v = g_new0 (RowValue, MAX (columns, 1));

      for (int i = 0; i < columns; i++)
        {
          Oid type = PQftype (r, i);

          v[i].name = PQfname (r, i);
          /* int8, int4, int2, float8, float4, numeric */
          v[i].number = type == 20 || type == 23 || type == 21 || type == 701 || type == 700 || type == 1700;
        }
      for (int row = 0; row < PQntuples (r); row++)
        {
          for (int i = 0; i < columns; i++)
            v[i].text = PQgetisnull (r, row, i) ? NULL : PQgetvalue (r, row, i);
          if (!func (v, (guint) columns, user_data))
            break;
        }
    }
  PQclear (r);
  return ok;
}

static gboolean
found_row (const RowValue *v, guint n, gpointer data)
{
  (void) v;
  (void) n;
  *(gboolean *) data = TRUE;
  return TRUE;
}

static void
corpus_close (PgCorpus *c)
{
  if (c == NULL)
    return;
  if (c->conn)
    PQfinish (c->conn);
  g_free (c->codes);
  g_free (c->configs);
  g_free (c);
}

/* corpus_open()'s connection and checks, on @c */
static gboolean
corpus_connect (PgCorpus *c, const char *conninfo, const char *schema, const char *const *codes,
                const char *const *configs, GError **error)
{
  const char *params[1] = { schema };
  gboolean found = FALSE;

  c->conn = PQconnectdb (conninfo);
  if (PQstatus (c->conn) != CONNECTION_OK)
    {
      g_autofree char *message = g_strchomp (g_strdup (PQerrorMessage (c->conn)));

      g_set_error (error, PG_ERROR, PG_ERROR_FAILED, "cannot connect: %s", message);
      return FALSE;
    }
  PQsetNoticeProcessor (c->conn, ignore_notice, NULL);
  c->codes = array_literal (codes, g_strv_length ((char **) codes));
  c->configs = array_literal (configs, g_strv_length ((char **) configs));
  if (!run_rows (c, "SELECT set_config('search_path', quote_ident($1), false)", 1, params, NULL, NULL,
                 "cannot read PostgreSQL", error) ||
      !run_rows (c, "SELECT 1 WHERE to_regclass('messages') IS NOT NULL AND to_regclass('files') IS NOT NULL",
                 0, NULL, found_row, &found, "cannot read PostgreSQL", error))
    return FALSE;
  if (!found)
    g_set_error (error, PG_ERROR, PG_ERROR_FAILED,
                 "no corpus in schema '%s' there (deja export-pg loads one)", schema);
  return found;
}

/* pg_corpus_open(), with the languages export-pg stems (@codes, NULL
 * ended) and their text search configurations (@configs, 'simple' last) */
static PgCorpus *
corpus_open (const char *conninfo, const char *schema, const char *const *codes,
             const char *const *configs, GError **error)
{
  PgCorpus *c = g_new0 (PgCorpus, 1);

  if (corpus_connect (c, conninfo, schema, codes, configs, error))
    return c;
  corpus_close (c);
  return NULL;
}

/* The queries, one per configuration ($9), and the filter; see PgSearch.
 * $1 tsquery text, $2 authors, $3 group patterns (regular expressions),
 * $4 since, $5 until, $6 lang. */
#define PG_QUERIES \
  "WITH qs AS (SELECT CASE WHEN $1::text IS NULL THEN NULL" \
  "  ELSE array_agg(to_tsquery(c, $1::text)) END AS q FROM unnest($9::regconfig[]) c)"
#define PG_MATCHING \
  " FROM messages m, qs WHERE m.duplicate_of IS NULL" \
  " AND (qs.q IS NULL OR m.tsv @@ ANY (qs.q))" \
  " AND ($2::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($2::text[]) a" \
  "   WHERE strpos(lower(coalesce(m.from_addr, '')), lower(a)) > 0" \
  "      OR strpos(lower(coalesce(m.from_name, '')), lower(a)) > 0))" \
  " AND ($3::text[] IS NULL OR EXISTS (SELECT 1 FROM message_newsgroups mg" \
  "   JOIN newsgroups g ON g.id = mg.newsgroup_id, unnest($3::text[]) r" \
  "   WHERE mg.message_id = m.id AND lower(g.name) ~ r))" \
  " AND ($4::text IS NULL OR m.date >= $4::text)" \
  " AND ($5::text IS NULL OR substr(m.date, 1, length($5::text)) <= $5::text)" \
  " AND ($6::text IS NULL OR m.lang = $6::text OR left(m.lang, length($6::text) + 1) = $6::text || '-')"

static const char *const search_sql[] = {
  /* messages, best first; the snippet in the message's own configuration
   * ($7 ts_headline's options, $8 the languages' codes, $10 the limit) */
  PG_QUERIES ", hits AS (SELECT m.id, m.date, m.from_name, m.from_addr, m.subject, m.own_text,"
  " m.lang, m.file_id, m.byte_offset, m.thread_id,"
  " CASE WHEN qs.q IS NULL THEN 0 ELSE (SELECT max(ts_rank(m.tsv, x)) FROM unnest(qs.q) x) END AS rank"
  PG_MATCHING
  " ORDER BY rank DESC, m.date DESC NULLS LAST, m.id DESC LIMIT $10::bigint)"
  " SELECT h.id, h.date, h.from_name, h.from_addr, h.subject,"
  " CASE WHEN $1::text IS NULL THEN left(coalesce(h.own_text, ''), 160)"
  "  ELSE ts_headline(l.cfg, coalesce(h.own_text, ''), to_tsquery(l.cfg, $1::text), $7::text) END AS snippet,"
  " f.path AS file, h.byte_offset, h.thread_id"
  " FROM hits h JOIN files f ON f.id = h.file_id"
  " CROSS JOIN LATERAL (SELECT coalesce((SELECT x.cfg FROM unnest($8::text[], $9::regconfig[]) x (code, cfg)"
  "   WHERE h.lang = x.code OR left(h.lang, length(x.code) + 1) = x.code || '-' LIMIT 1),"
  "   'simple'::regconfig) AS cfg) l"
  " ORDER BY h.rank DESC, h.date DESC NULLS LAST, h.id DESC",
  /* --count: every parameter is named, unused ones too, so that
   * PostgreSQL can type them (they are sent untyped) */
  PG_QUERIES " SELECT count(*) AS messages, count(DISTINCT m.thread_id) AS threads" PG_MATCHING
  " AND $7::text IS NOT DISTINCT FROM $7::text AND $8::text[] IS NOT DISTINCT FROM $8::text[]"
  " AND $10::bigint IS NOT DISTINCT FROM $10::bigint",
};

/* A group glob (lower case, as deja's filter takes it) as an anchored
 * regular expression: * any text, ? one character, [...] a class. */
static char *
glob_regex (const char *glob)
{
  GString *s = g_string_new ("^");
  g_autofree char *lower = g_utf8_strdown (glob, -1);

  for (const char *p = lower; *p; p++)
    {
      if (*p == '*')
        g_string_append (s, ".*");
      else if (*p == '?')
        g_string_append_c (s, '.');
      else if (*p == '[' && p[1] && strchr (p + 2, ']'))
        {
          const char *close = strchr (p + 2, ']');

          g_string_append_c (s, '[');
          p++;
          if (*p == '^' || *p == '!')
            {
              g_string_append_c (s, '^');
              p++;
            }
          for (; p < close; p++)
            {
              if (*p == '\\')
                g_string_append_c (s, '\\');
              g_string_append_c (s, *p);
            }
          g_string_append_c (s, ']');
        }
      else
        {
          if (strchr (".^$+(){}|\\[]", *p))
            g_string_append_c (s, '\\');
          g_string_append_c (s, *p);
        }
    }
  g_string_append_c (s, '$');
  return g_string_free (s, FALSE);
}

static char *
strv_literal (const char *const *items, gboolean regex)
{
  g_autoptr (GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);

  if (items == NULL || items[0] == NULL)
    return NULL;
  for (guint i = 0; items[i]; i++)
    g_ptr_array_add (shown, regex ? glob_regex (items[i]) : g_strdup (items[i]));
  return array_literal ((const char *const *) shown->pdata, shown->len);
}

/* ts_headline's options: the marks in double quotes (a mark may hold
 * anything but a double quote: deja's are "[", "]" or escape sequences). */
static char *
headline_options (const char *open, const char *close)
{
  g_autofree char *o = g_strdelimit (g_strdup (open ? open : "["), "\"", '\'');
  g_autofree char *e = g_strdelimit (g_strdup (close ? close : "]"), "\"", '\'');

  return g_strdup_printf ("StartSel=\"%s\", StopSel=\"%s\", MaxWords=20, MinWords=8, MaxFragments=1",
                          o, e);
}

/* pg_corpus_search(): rows as deja search gives them: id, date,
 * from_name, from_addr, subject, snippet, file, byte_offset, thread_id
 * (best first); with @search->count one row: messages, threads.  Copies
 * of a cross-post are left out (duplicate_of), as deja search does. */
static gboolean
corpus_search (PgCorpus *c, const PgSearch *s, PgRowFunc func, gpointer user_data, GError **error)
{
  g_autofree char *authors = strv_literal (s->authors, FALSE);
  g_autofree char *groups = strv_literal (s->groups, TRUE);
  g_autofree char *options = headline_options (s->mark_open, s->mark_close);
  g_autofree char *limit = s->limit > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, s->limit) : NULL;
  const char *params[10] = { s->tsquery, authors, groups, s->since, s->until, s->lang, options,
                             c->codes, c->configs, limit };

  return run_rows (c, search_sql[s->count != FALSE], G_N_ELEMENTS (params), params, func, user_data,
                   "cannot search", error);
}

static const char *const stats_sql[] = {
  [PG_STATS_TOTALS] =
    "SELECT (SELECT count(*) FROM files) AS files, count(*) AS messages,"
    " count(*) FILTER (WHERE duplicate_of IS NULL) AS canonical,"
    " count(*) FILTER (WHERE duplicate_of IS NOT NULL) AS duplicates,"
    " (SELECT count(*) FROM authors) AS authors,"
    " count(DISTINCT thread_id) FILTER (WHERE duplicate_of IS NULL) AS threads,"
    " min(date) AS first_date, max(date) AS last_date,"
    " count(*) FILTER (WHERE date IS NULL) AS undated,"
    " (SELECT count(*) FROM newsgroups) AS newsgroups FROM messages",
  /* (sorted as SQLite sorts: by bytes) */
  [PG_STATS_BY_GROUP] =
    "SELECT * FROM (SELECT coalesce(g.name, '(none)') AS newsgroup,"
    " coalesce(substr(m.date, 1, CASE WHEN $1::boolean THEN 7 ELSE 4 END), '(no date)') AS period,"
    " count(*) AS messages FROM messages m"
    " LEFT JOIN message_newsgroups mg ON mg.message_id = m.id"
    " LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id"
    " WHERE m.duplicate_of IS NULL GROUP BY 1, 2) s"
    " ORDER BY newsgroup COLLATE \"C\", period COLLATE \"C\"",
  [PG_STATS_TOP_AUTHORS] =
    "SELECT address AS from_addr, name AS from_name, messages, first_date, last_date, id AS author_id"
    " FROM authors ORDER BY messages DESC, address COLLATE \"C\" NULLS FIRST, name COLLATE \"C\" NULLS FIRST, id"
    " LIMIT 25",
  [PG_STATS_LANGUAGES] =
    "SELECT lang, count(*) AS messages, sum(lang_reliable) AS reliable, sum(words) AS words"
    " FROM messages WHERE duplicate_of IS NULL AND lang IS NOT NULL"
    " GROUP BY lang ORDER BY messages DESC, lang COLLATE \"C\"",
  [PG_STATS_LANGUAGES_BY_GROUP] =
    "SELECT * FROM (SELECT coalesce(g.name, '(none)') AS newsgroup, m.lang AS lang, count(*) AS messages"
    " FROM messages m LEFT JOIN message_newsgroups mg ON mg.message_id = m.id"
    " LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id"
    " WHERE m.duplicate_of IS NULL AND m.lang IS NOT NULL"
    " GROUP BY 1, 2) s ORDER BY newsgroup COLLATE \"C\", messages DESC, lang COLLATE \"C\"",
  /* each thread's language: the one with most words in it ('und' last) */
  [PG_STATS_THREAD_LANGUAGES] =
    "SELECT lang, count(*) AS threads FROM"
    " (SELECT DISTINCT ON (thread_id) thread_id, lang FROM"
    "   (SELECT thread_id, lang, sum(CASE WHEN lang = 'und' THEN 0 ELSE coalesce(words, 0) END)"
    "     + (lang <> 'und')::int AS w"
    "    FROM messages WHERE duplicate_of IS NULL AND lang IS NOT NULL AND thread_id IS NOT NULL"
    "    GROUP BY thread_id, lang) t"
    "  ORDER BY thread_id, w DESC, lang COLLATE \"C\") b"
    " GROUP BY lang ORDER BY threads DESC, lang COLLATE \"C\"",
};

/* pg_corpus_stats(): the rows deja stats prints for @what, with the
 * store's column names. */
static gboolean
corpus_stats (PgCorpus *c, PgStats what, gboolean by_month, PgRowFunc func, gpointer user_data,
              GError **error)
{
  const char *params[1] = { by_month ? "true" : "false" };

  g_return_val_if_fail (what < G_N_ELEMENTS (stats_sql), FALSE);
  /* only messages per group and period take one ($1, by month) */
  return run_rows (c, stats_sql[what], what == PG_STATS_BY_GROUP, params, func, user_data,
                   "cannot count", error);
}

G_MODULE_EXPORT const PgModule deja_pg_module = {
  .version = PACKAGE_VERSION,
  .open = corpus_open,
  .close = corpus_close,
  .search = corpus_search,
  .stats = corpus_stats,
};
