/* store-groups.c — the rows deja groups accounts from.
 *
 * Two typed row streams, no arithmetic (pipeline/accounting.c does it):
 * every canonical message in each of its groups, in group and date
 * order, under the command's filter; and the reply tree of every
 * canonical message, unfiltered, for thread shapes.
 */
#include "store-private.h"

static const char group_posts_sql[] =
  "SELECT g.id, g.name, m.id, m.date, m.author_id, m.thread_id,"
  " (m.parent_id IS NOT NULL OR m.missing_parent IS NOT NULL) AS reply, m.words, m.lang,"
  " (SELECT group_concat(g2.name, ' ') FROM message_newsgroups x JOIN newsgroups g2"
  "   ON g2.id = x.newsgroup_id WHERE x.message_id = m.id AND x.newsgroup_id <> g.id) AS others,"
  " u.control, u.cancels IS NOT NULL AS cancel, u.approved IS NOT NULL AS approved,"
  " EXISTS (SELECT 1 FROM usenet_headers c WHERE c.cancels = m.message_id) AS cancelled,"
  " EXISTS (SELECT 1 FROM usenet_headers s WHERE s.supersedes = m.message_id) AS superseded"
  " FROM newsgroups g JOIN message_newsgroups mg ON mg.newsgroup_id = g.id"
  " JOIN messages m ON m.id = mg.message_id LEFT JOIN usenet_headers u ON u.message_id = m.id"
  " WHERE m.duplicate_of IS NULL AND m.date IS NOT NULL AND" STORE_FILTER_SQL
  " AND (NOT :grouped OR EXISTS (SELECT 1 FROM temp.deja_filter_groups t WHERE g.name GLOB t.value))"
  " ORDER BY g.name, m.date, m.id";

/**
 * store_group_posts:
 *
 * Calls @func with every dated canonical message the filter takes, once
 * per group it was posted to (only the groups the filter names, when it
 * names some), in group name and date order.
 */
gboolean
store_group_posts (Store *store, const StoreFilter *filter, StoreGroupPostFunc func,
                   gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, group_posts_sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the groups", error);
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
        .other_groups = (const char *) sqlite3_column_text (stmt, 9),
        .control = sqlite3_column_type (stmt, 10) != SQLITE_NULL,
        .cancel = sqlite3_column_int (stmt, 11) != 0,
        .approved = sqlite3_column_int (stmt, 12) != 0,
        .cancelled = sqlite3_column_int (stmt, 13) != 0,
        .superseded = sqlite3_column_int (stmt, 14) != 0,
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the groups", error);
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
