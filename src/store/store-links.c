/* store-links.c — the links cited in own text (deja links).
 *
 * Two statements: the domains cited, optionally per group and period,
 * and every link with its message.  Only canonical messages count, under
 * the filter every command takes.
 */
#include "store-private.h"

static const char *const links_sql[] = {
  [STORE_LINKS_DOMAINS] =
    "SELECT g.name AS \"group\","
    " CASE :by WHEN 'year' THEN substr(m.date, 1, 4) WHEN 'month' THEN substr(m.date, 1, 7)"
    "  WHEN 'quarter' THEN substr(m.date, 1, 4) || '-Q' || ((CAST(substr(m.date, 6, 2) AS INTEGER) + 2) / 3)"
    " END AS period,"
    " coalesce(l.domain, l.host, '(none)') AS domain, count(DISTINCT l.message_id) AS messages,"
    " count(*) AS links, count(DISTINCT m.author_id) AS authors, min(m.date) AS first_date,"
    " max(m.date) AS last_date"
    " FROM links l JOIN messages m ON m.id = l.message_id"
    " LEFT JOIN message_newsgroups mg ON :per_group AND mg.message_id = m.id"
    " LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id"
    " WHERE m.duplicate_of IS NULL AND" STORE_FILTER_SQL
    " AND (:by IS NULL OR m.date IS NOT NULL)"
    " GROUP BY 1, 2, 3 ORDER BY 1, 2, messages DESC, links DESC, 3",
  [STORE_LINKS_URLS] =
    "SELECT m.id AS message_id, m.message_id AS message, m.date, m.from_addr AS author,"
    " l.url, l.normalized, l.host, l.domain, l.wayback"
    " FROM links l JOIN messages m ON m.id = l.message_id"
    " WHERE m.duplicate_of IS NULL AND" STORE_FILTER_SQL
    " ORDER BY m.date IS NULL, m.date, m.id, l.position",
};

/**
 * store_links:
 * @by: (nullable): "year", "month" or "quarter": a row per period too
 * @per_group: a row per group too (a cross-post counts in each)
 *
 * STORE_LINKS_DOMAINS: group, period (NULL unless asked), domain (the
 * registered domain, else the host), messages, links, authors,
 * first_date, last_date.  STORE_LINKS_URLS: every link.
 */
gboolean
store_links (Store *store, StoreLinks query, const StoreFilter *filter, const char *by,
             gboolean per_group, StoreRowFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc, index;

  g_return_val_if_fail (query < G_N_ELEMENTS (links_sql), FALSE);
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, links_sql[query], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the links", error);
  _store_filter_bind (stmt, filter);
  if ((index = sqlite3_bind_parameter_index (stmt, ":by")) > 0)
    _store_bind_text_or_null (stmt, index, by);
  if ((index = sqlite3_bind_parameter_index (stmt, ":per_group")) > 0)
    sqlite3_bind_int (stmt, index, per_group != FALSE);
  return _store_run_rows (store, stmt, func, user_data, "cannot read the links", error);
}
