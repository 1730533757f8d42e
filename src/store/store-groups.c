/* store-groups.c — the rows deja groups accounts from.
 *
 * Two typed row streams, no arithmetic (pipeline/accounting.c does it):
 * every canonical message in each of its groups, in message order,
 * under the command's filter; and the reply tree of every
 * canonical message, unfiltered, for thread shapes.
 */
#include "store-private.h"

/* Every canonical message in each of its groups, with its Usenet
 * headers (HEADERS: usenet_headers, or a catalog's copy of it below) */
#define GROUP_POSTS_SQL(HEADERS) \
  "SELECT g.id, g.name, m.id, m.date, m.author_id, m.thread_id," \
  " (m.parent_id IS NOT NULL OR m.missing_parent IS NOT NULL) AS reply, m.words, m.lang," \
  " u.control, u.cancels IS NOT NULL AS cancel, u.approved IS NOT NULL AS approved, u.followup_to," \
  " m.quoted_lines, m.own_lines" \
  /* CROSS JOIN keeps messages the outer loop: a sequential scan (SQLite \
   * would start from the groups' index, and sort) */ \
  " FROM messages m CROSS JOIN message_newsgroups mg ON mg.message_id = m.id" \
  " JOIN newsgroups g ON g.id = mg.newsgroup_id LEFT JOIN " HEADERS " u ON u.message_id = m.id" \
  " WHERE m.duplicate_of IS NULL AND m.date IS NOT NULL AND" STORE_FILTER_SQL \
  " AND (NOT :grouped OR EXISTS (SELECT 1 FROM temp.deja_filter_groups t WHERE g.name GLOB t.value))" \
  " ORDER BY m.id"

/* A catalog's posts look their headers up in a copy of the columns they
 * read, made for them: in the shards each lookup was a question to a
 * shard's connection, for every message in each of its groups (realistic
 * 1 GiB in 64 shards: 781,131 of them).  Declared as usenet_headers
 * declares them. */
#define GROUP_HEADERS_COPY "temp.deja_group_headers"
#define GROUP_HEADERS_DROP_SQL "DROP TABLE IF EXISTS " GROUP_HEADERS_COPY
static const char group_headers_copy_sql[] =
  GROUP_HEADERS_DROP_SQL ";"
  "CREATE TEMP TABLE deja_group_headers (message_id INTEGER PRIMARY KEY, control TEXT, cancels TEXT,"
  " approved TEXT, followup_to TEXT);"
  "INSERT INTO " GROUP_HEADERS_COPY
  " SELECT message_id, control, cancels, approved, followup_to FROM usenet_headers ORDER BY message_id";

static const char *const group_posts_sql[2] = {
  GROUP_POSTS_SQL ("usenet_headers"),
  GROUP_POSTS_SQL (GROUP_HEADERS_COPY),
};

/**
 * store_group_posts:
 *
 * Calls @func with every dated canonical message the filter takes, once
 * per group it was posted to (only the groups the filter names, when it
 * names some), in message order (a sequential read of messages).
 */
gboolean
store_group_posts (Store *store, const StoreFilter *filter, StoreGroupPostFunc func,
                   gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  gboolean copy, ok;
  int rc;

  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  copy = store->catalog && _store_copy_begin (store, group_headers_copy_sql);
  if ((rc = sqlite3_prepare_v2 (store->db, group_posts_sql[copy], -1, &stmt, NULL)) != SQLITE_OK)
    {
      ok = _store_fail (store, rc, "cannot read the groups", error);
      if (copy)
        _store_copy_end (store, GROUP_HEADERS_DROP_SQL);
      return ok;
    }
  _store_filter_bind (stmt, filter);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreGroupPost row = {
        .group_id = sqlite3_column_int64 (stmt, 0),
        .group = (const char *) sqlite3_column_text (stmt, 1),
        .message = sqlite3_column_int64 (stmt, 2),
        .date = (const char *) sqlite3_column_text (stmt, 3),
        .author = sqlite3_column_int64 (stmt, 4),
        .thread = sqlite3_column_int64 (stmt, 5),
        .reply = sqlite3_column_int (stmt, 6) != 0,
        .words = sqlite3_column_type (stmt, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64 (stmt, 7),
        .lang = (const char *) sqlite3_column_text (stmt, 8),
        .control = sqlite3_column_type (stmt, 9) != SQLITE_NULL,
        .cancel = sqlite3_column_int (stmt, 10) != 0,
        .approved = sqlite3_column_int (stmt, 11) != 0,
        .followup_to = (const char *) sqlite3_column_text (stmt, 12),
        .quoted_lines = sqlite3_column_int64 (stmt, 13),
        .own_lines = sqlite3_column_int64 (stmt, 14),
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  ok = rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the groups", error);
  if (copy)
    _store_copy_end (store, GROUP_HEADERS_DROP_SQL);
  return ok;
}

/* Reads (integer, text) rows of a statement without parameters. */
static gboolean
pairs (Store *store, const char *sql, StorePairFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the groups", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    if (!func (sqlite3_column_int64 (stmt, 0), (const char *) sqlite3_column_text (stmt, 1), user_data))
      {
        rc = SQLITE_DONE;
        break;
      }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the groups", error);
}

/**
 * store_crosspost_groups:
 *
 * Calls @func with (messages.id, group name) for every message posted to
 * two groups or more, in message order.
 */
gboolean
store_crosspost_groups (Store *store, StorePairFunc func, gpointer user_data, GError **error)
{
  return pairs (store,
                "SELECT mg.message_id, g.name FROM message_newsgroups mg"
                " JOIN newsgroups g ON g.id = mg.newsgroup_id WHERE mg.message_id IN"
                " (SELECT message_id FROM message_newsgroups GROUP BY message_id HAVING count(*) > 1)"
                " ORDER BY mg.message_id, g.name",
                func, user_data, error);
}

/**
 * store_revisions:
 *
 * Calls @func with (messages.id, "cancelled" or "superseded") for every
 * article a cancel names or a later article supersedes (message_revisions).
 */
gboolean
store_revisions (Store *store, StorePairFunc func, gpointer user_data, GError **error)
{
  return pairs (store, "SELECT DISTINCT message_id, kind FROM message_revisions", func, user_data, error);
}

/**
 * store_reply_tree:
 *
 * Calls @func with every canonical message in a thread: its id, parent,
 * thread and date (NULL when undated), in id order.
 */
gboolean
store_reply_tree (Store *store, StoreTreePostFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  rc = sqlite3_prepare_v2 (store->db,
                           "SELECT id, parent_id, thread_id, date FROM messages"
                           " WHERE duplicate_of IS NULL AND thread_id IS NOT NULL ORDER BY id",
                           -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the threads", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreTreePost row = {
        .message = sqlite3_column_int64 (stmt, 0),
        .parent = sqlite3_column_int64 (stmt, 1),
        .thread = sqlite3_column_int64 (stmt, 2),
        .date = (const char *) sqlite3_column_text (stmt, 3),
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the threads", error);
}
