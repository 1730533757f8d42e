/* store-network.c — the rows networks are built from.
 *
 * Only canonical messages count (duplicate_of IS NULL: a cross-posted
 * article is one post), and only those with an address; the filter is
 * every command's (store-filter.c).
 */
#include "store-private.h"

#define NET_FILTER " m.duplicate_of IS NULL AND m.from_addr IS NOT NULL AND" STORE_FILTER_SQL

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

gboolean
store_network_rows (Store *store, StoreNetQuery query, const StoreFilter *filter,
                    StoreRowFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (query < G_N_ELEMENTS (net_sql), FALSE);
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, net_sql[query], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the network", error);
  _store_filter_bind (stmt, filter);
  return _store_run_rows (store, stmt, func, user_data, "cannot read the network", error);
}
