/* store-review.c — people's decisions about separator lines. */
#include "store-private.h"

#include <string.h>

static const char *
decision_name (StoreDecision d)
{
  return d == STORE_DECISION_SPLIT ? "split" : d == STORE_DECISION_NO_SPLIT ? "no-split" : NULL;
}

/* "split", "no-split", or "" (no decision); FALSE for anything else. */
gboolean
store_parse_decision (const char *text, StoreDecision *decision)
{
  if (text == NULL || *text == '\0')
    *decision = STORE_DECISION_NONE;
  else if (strcmp (text, "split") == 0)
    *decision = STORE_DECISION_SPLIT;
  else if (strcmp (text, "no-split") == 0)
    *decision = STORE_DECISION_NO_SPLIT;
  else
    return FALSE;
  return TRUE;
}

/* Does the database hold any decision?  (If not, ingest need not hash a
 * file before splitting it.) */
gboolean
store_has_decisions (Store *store, gboolean *any, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM separator_decisions LIMIT 1", &one, any, error);
}

/**
 * store_decisions_for:
 * @lines: (out) (transfer full) (nullable): line number -> StoreDecision
 *   for the content @sha256 (the pipeline converts them for the splitter), or %NULL
 *   when there is none
 *
 * Returns: %FALSE with @error when the database cannot be read (then the
 *   file must not be split without the people's decisions)
 */
gboolean
store_decisions_for (Store *store, const char *sha256, GHashTable **lines, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT line_no, decision FROM separator_decisions WHERE file_sha256 = ?1",
                               -1, &stmt, NULL);

  *lines = NULL;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read decisions", error);
  sqlite3_bind_text (stmt, 1, sha256, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreDecision d;

      if (!store_parse_decision ((const char *) sqlite3_column_text (stmt, 1), &d))
        continue;
      if (*lines == NULL)
        *lines = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_hash_table_insert (*lines, GSIZE_TO_POINTER (sqlite3_column_int64 (stmt, 0)), GINT_TO_POINTER (d));
    }
  sqlite3_finalize (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  g_clear_pointer (lines, g_hash_table_unref);
  return _store_fail (store, rc, "cannot read decisions", error);
}

/**
 * store_set_decision:
 * @decision: %STORE_DECISION_NONE removes the decision
 * @changed: (out): whether this changed what the database held
 */
gboolean
store_set_decision (Store *store, const char *sha256, gint64 line_no, StoreDecision decision,
                    const char *note, gboolean *changed, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;
  const char *sql = decision == STORE_DECISION_NONE
    ? "DELETE FROM separator_decisions WHERE file_sha256 = ?1 AND line_no = ?2"
    : "INSERT INTO separator_decisions (file_sha256, line_no, decision, note, decided_at)"
      " VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%S', 'now'))"
      " ON CONFLICT (file_sha256, line_no) DO UPDATE SET decision = ?3, note = ?4,"
      " decided_at = excluded.decided_at WHERE decision IS NOT ?3 OR note IS NOT ?4";

  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot record a decision", error);
  sqlite3_bind_text (stmt, 1, sha256, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, line_no);
  if (decision != STORE_DECISION_NONE)
    {
      sqlite3_bind_text (stmt, 3, decision_name (decision), -1, SQLITE_STATIC);
      _store_bind_text_or_null (stmt, 4, note && *note ? note : NULL);
    }
  rc = sqlite3_step (stmt);
  *changed = rc == SQLITE_DONE && sqlite3_changes (store->db) > 0;
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record a decision", error);
}

/* A transaction around several calls (an import of decisions). */
gboolean
store_begin (Store *store, GError **error)
{
  int rc = sqlite3_exec (store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot begin", error);
}

/* store_commit(), which also commits the files an ingest finished, is in
 * store.c. */

void
store_rollback (Store *store)
{
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
}

/**
 * store_review_rows:
 * @all: also prose lines (verdict "body"), not only accepted and rejected
 * @undecided: only lines without a decision
 *
 * Calls @func with every separator-log line to review, and every decided
 * line, by file and line.
 */
gboolean
store_review_rows (Store *store, gboolean all, gboolean undecided, StoreReviewFunc func,
                   gpointer user_data, GError **error)
{
  static const char sql[] =
    "SELECT f.sha256 AS file_sha256, f.path, l.line_no, l.byte_offset, l.verdict, l.reason,"
    " l.shape, l.line_text, d.decision, d.note"
    " FROM separator_log l JOIN files f ON f.id = l.file_id"
    " LEFT JOIN separator_decisions d ON d.file_sha256 = f.sha256 AND d.line_no = l.line_no"
    " WHERE (:all OR l.verdict != 'body' OR d.decision IS NOT NULL)"
    " AND (NOT :undecided OR d.decision IS NULL)"
    " ORDER BY f.path, l.line_no";
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the separator log", error);
  sqlite3_bind_int (stmt, sqlite3_bind_parameter_index (stmt, ":all"), all);
  sqlite3_bind_int (stmt, sqlite3_bind_parameter_index (stmt, ":undecided"), undecided);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreReviewRow row = {
        (const char *) sqlite3_column_text (stmt, 0), (const char *) sqlite3_column_text (stmt, 1),
        sqlite3_column_int64 (stmt, 2), sqlite3_column_int64 (stmt, 3),
        (const char *) sqlite3_column_text (stmt, 4), (const char *) sqlite3_column_text (stmt, 5),
        (const char *) sqlite3_column_text (stmt, 6), (const char *) sqlite3_column_text (stmt, 7),
        (const char *) sqlite3_column_text (stmt, 8), (const char *) sqlite3_column_text (stmt, 9),
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read the separator log", error);
}

/* Paths of the ingested files with this content (@paths: out, transfer
 * full, empty when there is none). */
gboolean
store_paths_for_sha256 (Store *store, const char *sha256, GPtrArray **paths, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT path FROM files WHERE sha256 = ?1 ORDER BY path",
                               -1, &stmt, NULL);

  *paths = NULL;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read files", error);
  *paths = g_ptr_array_new_with_free_func (g_free);
  sqlite3_bind_text (stmt, 1, sha256, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (*paths, g_strdup ((const char *) sqlite3_column_text (stmt, 0)));
  sqlite3_finalize (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  g_clear_pointer (paths, g_ptr_array_unref);
  return _store_fail (store, rc, "cannot read files", error);
}
