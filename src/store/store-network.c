/* store-network.c — the rows networks are built from.
 *
 * Vertices are authors (authors.id), so that one person under several
 * addresses is one vertex, with the same id whatever the filter.  Only
 * canonical messages count (duplicate_of IS NULL: a cross-posted article
 * is one post), and only those with an author; the filter is every
 * command's (store-filter.c).
 */
#include "store-private.h"

#define NET_FILTER " m.duplicate_of IS NULL AND m.author_id IS NOT NULL AND" STORE_FILTER_SQL
/* Networks of groups and sites count every canonical message, with an
 * author or not. */
#define ANY_FILTER " m.duplicate_of IS NULL AND" STORE_FILTER_SQL

/* Each reply's author, its parent's and its thread's first message's:
 * of messages, or of the copy of its columns store-authors.c makes
 * (STORE_AUTHOR_ROWS_COPY), where the two lookups a reply takes are in
 * a small table (of a catalog, not each a question to a shard: the
 * realistic 1 GiB in 64 shards, deja authors --roles 6.9-7.2 -> 4.0 s;
 * one database of it 3.4-3.6 -> 3.0 s) */
#define REPLY_STARTERS_SQL(MESSAGES) \
    "SELECT m.author_id, p.author_id, coalesce(r.author_id, 0) FROM " MESSAGES " m" \
    " JOIN " MESSAGES " p ON p.id = m.parent_id LEFT JOIN " MESSAGES " r ON r.id = m.thread_id" \
    " WHERE m.duplicate_of IS NULL AND m.author_id IS NOT NULL AND p.author_id IS NOT NULL" \
    " ORDER BY m.id"

/* Messages are read in rowid order (NOT INDEXED, and CROSS JOIN to keep
 * them the outer loop): through an index (author, date, thread, group)
 * SQLite re-reads each page once per message on it (bench/README.md,
 * sixth session).
 * A temporary B-tree sorts what must come in another order. */
static const char *const net_sql[] = {
  [STORE_NET_AUTHORS] =
    "SELECT a.id, a.name, a.address, count(*) AS messages, min(m.date) AS first_date,"
    " max(m.date) AS last_date,"
    " (SELECT group_concat(address, ' ') FROM (SELECT address FROM author_addresses aa"
    "   WHERE aa.author_id = a.id ORDER BY aa.messages DESC, aa.address)) AS addresses"
    " FROM messages m NOT INDEXED CROSS JOIN authors a ON a.id = m.author_id WHERE" NET_FILTER
    " GROUP BY a.id ORDER BY a.id",
  [STORE_NET_REPLIES] =
    "SELECT m.author_id AS source, p.author_id AS target, m.date FROM messages m NOT INDEXED"
    " CROSS JOIN messages p ON p.id = m.parent_id WHERE p.author_id IS NOT NULL AND" NET_FILTER
    " ORDER BY m.date, m.id",
  [STORE_NET_THREADS] =
    "SELECT m.thread_id, m.author_id, min(m.date) AS date FROM messages m NOT INDEXED"
    " WHERE m.thread_id IS NOT NULL AND" NET_FILTER
    " GROUP BY m.thread_id, m.author_id ORDER BY m.thread_id, m.author_id",
  [STORE_NET_GROUPS] =
    "SELECT m.author_id, g2.id, g2.name, count(*) AS messages, min(m.date) AS first_date,"
    " max(m.date) AS last_date FROM messages m NOT INDEXED"
    " CROSS JOIN message_newsgroups mg2 ON mg2.message_id = m.id"
    " JOIN newsgroups g2 ON g2.id = mg2.newsgroup_id WHERE" NET_FILTER
    " GROUP BY m.author_id, g2.id ORDER BY m.author_id, g2.name",
  [STORE_NET_EVERY_AUTHOR] =
    "SELECT a.id, a.name, a.address, 0, NULL, NULL,"
    " (SELECT group_concat(address, ' ') FROM (SELECT address FROM author_addresses aa"
    "   WHERE aa.author_id = a.id ORDER BY aa.messages DESC, aa.address)) AS addresses"
    " FROM authors a ORDER BY a.id",
  [STORE_NET_GROUP_NODES] =
    "SELECT g.id, g.name, count(*), count(DISTINCT m.author_id), min(m.date), max(m.date)"
    " FROM messages m NOT INDEXED CROSS JOIN message_newsgroups mg ON mg.message_id = m.id"
    " JOIN newsgroups g ON g.id = mg.newsgroup_id WHERE" ANY_FILTER
    " AND NOT EXISTS (SELECT 1 FROM usenet_headers u WHERE u.message_id = m.id AND u.control IS NOT NULL)"
    " GROUP BY g.id ORDER BY g.id",
  [STORE_NET_CROSSPOSTS] =
    "SELECT m.id, mg.newsgroup_id, m.date FROM messages m NOT INDEXED"
    " CROSS JOIN message_newsgroups mg ON mg.message_id = m.id WHERE" ANY_FILTER
    " AND m.id IN (SELECT message_id FROM message_newsgroups GROUP BY message_id HAVING count(*) > 1)"
    " ORDER BY m.id, mg.newsgroup_id",
  [STORE_NET_PATHS] =
    "SELECT m.id, u.path, m.date FROM messages m JOIN usenet_headers u ON u.message_id = m.id"
    " WHERE u.path IS NOT NULL AND" ANY_FILTER " ORDER BY m.id",
  [STORE_NET_LINKS] =
    "SELECT m.author_id, coalesce(l.domain, l.host, '(none)'), count(DISTINCT m.id), min(m.date),"
    " max(m.date) FROM links l CROSS JOIN messages m ON m.id = l.message_id WHERE" NET_FILTER
    " GROUP BY 1, 2 ORDER BY 1, 2",
  [STORE_NET_LINK_MESSAGES] =
    "SELECT m.id, coalesce(l.domain, l.host, '(none)'), m.message_id, count(*), m.date"
    " FROM links l CROSS JOIN messages m ON m.id = l.message_id WHERE" ANY_FILTER
    " GROUP BY 1, 2 ORDER BY 1, 2",
  [STORE_NET_REPLY_STARTERS] = REPLY_STARTERS_SQL ("messages"),
  [STORE_NET_THREAD_STARTS] =
    "SELECT m.author_id FROM messages m WHERE m.duplicate_of IS NULL AND m.author_id IS NOT NULL"
    " AND m.id = m.thread_id AND m.parent_id IS NULL AND m.missing_parent IS NULL ORDER BY m.id",
};

static const char reply_starters_of_copy_sql[] = REPLY_STARTERS_SQL (STORE_AUTHOR_ROWS_COPY);

gboolean
store_network_rows (Store *store, StoreNetQuery query, const StoreFilter *filter,
                    StoreNetFunc func, gpointer user_data, GError **error)
{
  const char *sql = net_sql[query];
  gboolean made = FALSE, ok;
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (query < G_N_ELEMENTS (net_sql), FALSE);
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if (query == STORE_NET_REPLY_STARTERS && _store_author_rows_begin (store, &made))
    sql = reply_starters_of_copy_sql;
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    {
      ok = _store_fail (store, rc, "cannot read the network", error);
      _store_author_rows_end (store, made);
      return ok;
    }
  _store_filter_bind (stmt, filter);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreNetRow row = { 0 };

      switch (query)
        {
        case STORE_NET_AUTHORS:
        case STORE_NET_EVERY_AUTHOR:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.name = (const char *) sqlite3_column_text (stmt, 1);
          row.address = (const char *) sqlite3_column_text (stmt, 2);
          row.messages = sqlite3_column_int64 (stmt, 3);
          row.first_date = (const char *) sqlite3_column_text (stmt, 4);
          row.last_date = (const char *) sqlite3_column_text (stmt, 5);
          row.addresses = (const char *) sqlite3_column_text (stmt, 6);
          break;
        case STORE_NET_LINKS:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.name = (const char *) sqlite3_column_text (stmt, 1);
          row.messages = sqlite3_column_int64 (stmt, 2);
          row.first_date = (const char *) sqlite3_column_text (stmt, 3);
          row.last_date = (const char *) sqlite3_column_text (stmt, 4);
          break;
        case STORE_NET_GROUPS:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.other = sqlite3_column_int64 (stmt, 1);
          row.name = (const char *) sqlite3_column_text (stmt, 2);
          row.messages = sqlite3_column_int64 (stmt, 3);
          row.first_date = (const char *) sqlite3_column_text (stmt, 4);
          row.last_date = (const char *) sqlite3_column_text (stmt, 5);
          break;
        case STORE_NET_REPLIES:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.other = sqlite3_column_int64 (stmt, 1);
          row.messages = 1;
          row.first_date = row.last_date = (const char *) sqlite3_column_text (stmt, 2);
          break;
        case STORE_NET_THREADS:
          row.thread = sqlite3_column_int64 (stmt, 0);
          row.author = sqlite3_column_int64 (stmt, 1);
          row.messages = 1;
          row.first_date = row.last_date = (const char *) sqlite3_column_text (stmt, 2);
          break;
        case STORE_NET_LINK_MESSAGES:
          row.message = sqlite3_column_int64 (stmt, 0);
          row.name = (const char *) sqlite3_column_text (stmt, 1);
          row.address = (const char *) sqlite3_column_text (stmt, 2);
          row.messages = sqlite3_column_int64 (stmt, 3);
          row.first_date = row.last_date = (const char *) sqlite3_column_text (stmt, 4);
          break;
        case STORE_NET_THREAD_STARTS:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.messages = 1;
          break;
        case STORE_NET_REPLY_STARTERS:
          row.author = sqlite3_column_int64 (stmt, 0);
          row.other = sqlite3_column_int64 (stmt, 1);
          row.thread = sqlite3_column_int64 (stmt, 2);
          row.messages = 1;
          break;
        case STORE_NET_GROUP_NODES:
          row.other = sqlite3_column_int64 (stmt, 0);
          row.name = (const char *) sqlite3_column_text (stmt, 1);
          row.messages = sqlite3_column_int64 (stmt, 2);
          row.authors = sqlite3_column_int64 (stmt, 3);
          row.first_date = (const char *) sqlite3_column_text (stmt, 4);
          row.last_date = (const char *) sqlite3_column_text (stmt, 5);
          break;
        case STORE_NET_CROSSPOSTS:
          row.message = sqlite3_column_int64 (stmt, 0);
          row.other = sqlite3_column_int64 (stmt, 1);
          row.messages = 1;
          row.first_date = row.last_date = (const char *) sqlite3_column_text (stmt, 2);
          break;
        case STORE_NET_PATHS:
          row.message = sqlite3_column_int64 (stmt, 0);
          row.name = (const char *) sqlite3_column_text (stmt, 1);
          row.messages = 1;
          row.first_date = row.last_date = (const char *) sqlite3_column_text (stmt, 2);
          break;
        }
      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  ok = rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the network", error);
  _store_author_rows_end (store, made);
  return ok;
}
