/* store-filter.c — which messages a command covers, as SQL, in one place.
 *
 * Every command that selects messages (search, export, export-mbox,
 * network) takes the same filter (cli.c parses it once): any number of
 * group globs and of author texts, a date range, and for search and
 * export a full-text query.  Globs and author texts are rows of two
 * temporary tables, so that any number of them binds as data, never as
 * SQL text; STORE_FILTER_SQL (store-private.h) reads them.
 */
#include "store-private.h"

/* [table][0] empties it, [table][1] adds a value. */
static const char *const fill_sql[2][2] = {
  { "CREATE TEMP TABLE IF NOT EXISTS deja_filter_groups (value TEXT);"
    " DELETE FROM temp.deja_filter_groups;",
    "INSERT INTO temp.deja_filter_groups VALUES (lower(?1))" },
  { "CREATE TEMP TABLE IF NOT EXISTS deja_filter_authors (value TEXT);"
    " DELETE FROM temp.deja_filter_authors;",
    "INSERT INTO temp.deja_filter_authors VALUES (lower(?1))" },
};

static gboolean
fill (Store *store, int table, const char *const *values, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_exec (store->db, fill_sql[table][0], NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, fill_sql[table][1], -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot prepare the filter", error);
  for (gsize i = 0; values && values[i] && rc == SQLITE_OK; i++)
    {
      sqlite3_bind_text (stmt, 1, values[i], -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot prepare the filter", error);
}

/**
 * _store_filter_fill:
 *
 * Fills the filter's temporary tables; before a statement using
 * STORE_FILTER_SQL is prepared (SQLite wants the tables to exist then).
 */
gboolean
_store_filter_fill (Store *store, const StoreFilter *filter, GError **error)
{
  return fill (store, 0, filter->groups, error) && fill (store, 1, filter->authors, error);
}

/**
 * _store_filter_bind:
 * @stmt: a statement using STORE_FILTER_SQL (and perhaps :match, :limit,
 *   :canonical), prepared after _store_filter_fill()
 *
 * Binds the filter's parameters.
 */
void
_store_filter_bind (sqlite3_stmt *stmt, const StoreFilter *filter)
{
  int i;

  if ((i = sqlite3_bind_parameter_index (stmt, ":grouped")) > 0)
    sqlite3_bind_int (stmt, i, filter->groups != NULL && filter->groups[0] != NULL);
  if ((i = sqlite3_bind_parameter_index (stmt, ":authored")) > 0)
    sqlite3_bind_int (stmt, i, filter->authors != NULL && filter->authors[0] != NULL);
  if ((i = sqlite3_bind_parameter_index (stmt, ":canonical")) > 0)
    sqlite3_bind_int (stmt, i, filter->canonical_only);
  if ((i = sqlite3_bind_parameter_index (stmt, ":no_archive")) > 0)
    sqlite3_bind_int (stmt, i, filter->no_archive);
  if ((i = sqlite3_bind_parameter_index (stmt, ":distinct_text")) > 0)
    sqlite3_bind_int (stmt, i, filter->distinct_text);
  if ((i = sqlite3_bind_parameter_index (stmt, ":limit")) > 0)
    sqlite3_bind_int64 (stmt, i, filter->limit > 0 ? filter->limit : -1);
  _store_bind_named (stmt, ":match", filter->match);
  _store_bind_named (stmt, ":since", filter->since);
  _store_bind_named (stmt, ":until", filter->until);
  _store_bind_named (stmt, ":lang", filter->lang);
}
