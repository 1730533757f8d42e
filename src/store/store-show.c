/* store-show.c — one message, or one thread, for reading (deja show).
 *
 * Every statement is a constant; values are bound.
 */
#include "store-private.h"

/* The canonical copy of a Message-ID first: a post present in several
 * files is one message to a reader. */
gboolean
store_find_message (Store *store, gint64 number, const char *message_id, gint64 *id,
                    GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  rc = sqlite3_prepare_v2 (store->db,
                           "SELECT id FROM messages WHERE id = ?1"
                           " UNION ALL SELECT * FROM (SELECT id FROM messages WHERE message_id = ?2"
                           "   ORDER BY duplicate_of IS NOT NULL, id LIMIT 1)"
                           " LIMIT 1",
                           -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot look up the message", error);
  sqlite3_bind_int64 (stmt, 1, number);
  _store_bind_text_or_null (stmt, 2, message_id);
  rc = sqlite3_step (stmt);
  *id = rc == SQLITE_ROW ? sqlite3_column_int64 (stmt, 0) : 0;
  sqlite3_finalize (stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot look up the message", error);
  return TRUE;
}

static const char *const show_sql[] = {
  [STORE_SHOW_MESSAGE] =
    "SELECT m.id, m.message_id, m.date, m.date_raw, m.from_name, m.from_addr, m.subject,"
    " (SELECT group_concat(name, ',') FROM (SELECT g.name FROM message_newsgroups mg"
    "   JOIN newsgroups g ON g.id = mg.newsgroup_id WHERE mg.message_id = m.id ORDER BY g.name))"
    "   AS newsgroups,"
    " (SELECT group_concat(ref, ' ') FROM (SELECT ref FROM message_refs WHERE message_id = m.id"
    "   AND kind = 0 ORDER BY position)) AS \"references\","
    " (SELECT group_concat(ref, ' ') FROM (SELECT ref FROM message_refs WHERE message_id = m.id"
    "   AND kind = 1 ORDER BY position)) AS in_reply_to,"
    " m.thread_id, m.parent_id, m.duplicate_of, m.missing_parent, m.flags, m.thread_flags,"
    " m.charset, f.path AS file, f.sha256 AS file_sha256, m.line_no, m.byte_offset, m.byte_length, m.envelope,"
    " m.quoted_lines, m.own_lines, m.own_text, m.body"
    " FROM messages m JOIN files f ON f.id = m.file_id WHERE m.id = ?1",
  [STORE_SHOW_ATTACHMENTS] =
    "SELECT position, content_type, filename, size, encoding FROM attachments"
    " WHERE message_id = ?1 ORDER BY position",
  [STORE_SHOW_LOG] =
    "SELECT l.line_no, l.byte_offset, l.verdict, l.reason, l.shape, l.line_text"
    " FROM messages m JOIN separator_log l ON l.file_id = m.file_id"
    " WHERE m.id = ?1 AND l.line_no >= m.line_no"
    "   AND l.byte_offset < m.byte_offset + m.byte_length ORDER BY l.line_no",
  [STORE_SHOW_THREAD] =
    "SELECT m.id, m.parent_id, m.date, m.from_name, m.from_addr, m.subject, m.message_id,"
    " m.missing_parent, m.flags"
    " FROM messages m WHERE m.thread_id = (SELECT thread_id FROM messages WHERE id = ?1)"
    "   AND m.duplicate_of IS NULL"
    " ORDER BY m.date IS NULL, m.date, m.id",
  [STORE_SHOW_COPIES] =
    "SELECT c.id, f.path AS file, c.line_no FROM messages m"
    " JOIN messages c ON c.duplicate_of = coalesce(m.duplicate_of, m.id)"
    "   OR c.id = coalesce(m.duplicate_of, m.id)"
    " JOIN files f ON f.id = c.file_id"
    " WHERE m.id = ?1 AND c.id != m.id ORDER BY c.id",
};

/**
 * store_show:
 * @what: which rows about message @id
 *
 * Calls @func with the rows of @what for message @id (above: the
 * message's columns; its attachments; the separator-log lines inside it;
 * every canonical message of its thread, oldest first; its other copies).
 */
gboolean
store_show (Store *store, StoreShow what, gint64 id, StoreRowFunc func, gpointer user_data,
            GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (what < G_N_ELEMENTS (show_sql), FALSE);
  rc = sqlite3_prepare_v2 (store->db, show_sql[what], -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the message", error);
  sqlite3_bind_int64 (stmt, 1, id);
  return _store_run_rows (store, stmt, func, user_data, "cannot read the message", error);
}
