/* store-network.c — the rows networks are built from.
 *
 * Only canonical messages count (duplicate_of IS NULL: a cross-posted
 * article is one post), and only those with an address.  Group filters
 * are globs kept in a temporary table, so that any number of them binds
 * as data.
 */
#include "store-private.h"

#define NET_FILTER \
  " m.duplicate_of IS NULL AND m.from_addr IS NOT NULL" \
  " AND (:since IS NULL OR m.date >= :since)" \
  " AND (:until IS NULL OR substr(m.date, 1, length(:until)) <= :until)" \
  " AND (NOT :grouped OR EXISTS (SELECT 1 FROM message_newsgroups mg" \
  "   JOIN newsgroups g ON g.id = mg.newsgroup_id JOIN temp.deja_net_groups t" \
  "   WHERE mg.message_id = m.id AND g.name GLOB t.pattern))"

static const char *const net_sql[] = {
  [STORE_NET_AUTHORS] =
    "SELECT m.from_addr, m.from_name, count(*) AS messages, min(m.date) AS first_date,"
    " max(m.date) AS last_date FROM messages m WHERE" NET_FILTER
    " GROUP BY m.from_addr, m.from_name ORDER BY m.from_addr",
  [STORE_NET_REPLIES] =
    "SELECT m.from_addr AS source, p.from_addr AS target, m.date FROM messages m"
    " JOIN messages p ON p.id = m.parent_id WHERE p.from_addr IS NOT NULL AND" NET_FILTER
    " ORDER BY m.date, m.id",
  [STORE_NET_THREADS] =
    "SELECT m.thread_id, m.from_addr, min(m.date) AS date FROM messages m"
    " WHERE m.thread_id IS NOT NULL AND" NET_FILTER
    " GROUP BY m.thread_id, m.from_addr ORDER BY m.thread_id, m.from_addr",
  [STORE_NET_GROUPS] =
    "SELECT m.from_addr, g2.name, count(*) AS messages, min(m.date) AS first_date,"
    " max(m.date) AS last_date FROM messages m"
    " JOIN message_newsgroups mg2 ON mg2.message_id = m.id"
    " JOIN newsgroups g2 ON g2.id = mg2.newsgroup_id WHERE" NET_FILTER
    " GROUP BY m.from_addr, g2.name ORDER BY m.from_addr, g2.name",
};

static gboolean
fill_groups (Store *store, const char *const *groups, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_exec (store->db,
                         "CREATE TEMP TABLE IF NOT EXISTS deja_net_groups (pattern TEXT);"
                         "DELETE FROM temp.deja_net_groups;",
                         NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO temp.deja_net_groups VALUES (?1)", -1,
                             &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot prepare the group filter", error);
  for (gsize i = 0; groups && groups[i] && rc == SQLITE_OK; i++)
    {
      sqlite3_bind_text (stmt, 1, groups[i], -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot prepare the group filter", error);
}

gboolean
store_network_rows (Store *store, StoreNetQuery query, const StoreNetFilter *filter,
                    StoreRowFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (query < G_N_ELEMENTS (net_sql), FALSE);
  if (!fill_groups (store, filter->groups, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, net_sql[query], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the network", error);
  _store_bind_named (stmt, ":since", filter->since);
  _store_bind_named (stmt, ":until", filter->until);
  sqlite3_bind_int (stmt, sqlite3_bind_parameter_index (stmt, ":grouped"),
                    filter->groups && filter->groups[0]);
  return _store_run_rows (store, stmt, func, user_data, "cannot read the network", error);
}
