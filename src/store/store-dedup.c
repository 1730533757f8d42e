/* store-dedup.c — near_duplicates and repeated_paragraphs (deja dedup). */
#include "store-private.h"

static gboolean
run (Store *store, sqlite3_stmt *stmt, const char *what, GError **error)
{
  int rc = sqlite3_step (stmt);

  sqlite3_reset (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, what, error);
}

static gboolean
save (Store *store, const StoreNearDuplicate *rows, guint n_rows,
      const StoreRepeatedParagraph *paras, guint n_paras, const char *settings, GError **error)
{
  sqlite3_stmt *dup = NULL, *para = NULL, *link = NULL;
  gboolean ok;
  int rc;

  rc = sqlite3_exec (store->db, "DELETE FROM near_duplicates; DELETE FROM repeated_paragraph_messages;"
                                " DELETE FROM repeated_paragraphs", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO near_duplicates (message_id, cluster_id, similarity, method)"
                                        " VALUES (?1, ?2, ?3, ?4)", -1, &dup, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO repeated_paragraphs (hash, text, messages, authors,"
                                        " first_message_id) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &para, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT OR IGNORE INTO repeated_paragraph_messages (paragraph_id, message_id)"
                                        " VALUES (?1, ?2)", -1, &link, NULL);
  ok = rc == SQLITE_OK || _store_fail (store, rc, "cannot record duplicates", error);
  for (guint i = 0; ok && i < n_rows; i++)
    {
      sqlite3_bind_int64 (dup, 1, rows[i].message_id);
      sqlite3_bind_int64 (dup, 2, rows[i].cluster_id);
      sqlite3_bind_double (dup, 3, rows[i].similarity);
      sqlite3_bind_text (dup, 4, rows[i].method, -1, SQLITE_STATIC);
      ok = run (store, dup, "cannot record duplicates", error);
    }
  for (guint i = 0; ok && i < n_paras; i++)
    {
      gint64 id;

      sqlite3_bind_int64 (para, 1, (sqlite3_int64) paras[i].hash);
      sqlite3_bind_text (para, 2, paras[i].text, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (para, 3, paras[i].messages);
      sqlite3_bind_int64 (para, 4, paras[i].authors);
      sqlite3_bind_int64 (para, 5, paras[i].first_message_id);
      ok = run (store, para, "cannot record repeated paragraphs", error);
      id = sqlite3_last_insert_rowid (store->db);
      for (guint k = 0; ok && k < paras[i].n_message_ids; k++)
        {
          sqlite3_bind_int64 (link, 1, id);
          sqlite3_bind_int64 (link, 2, paras[i].message_ids[k]);
          ok = run (store, link, "cannot record repeated paragraphs", error);
        }
    }
  if (ok)
    {
      sqlite3_stmt *state;

      rc = sqlite3_prepare_v2 (store->db, "INSERT OR REPLACE INTO deja_state (key, value) VALUES ('dedup', ?1)",
                               -1, &state, NULL);
      if (rc == SQLITE_OK)
        {
          sqlite3_bind_text (state, 1, settings, -1, SQLITE_STATIC);
          ok = run (store, state, "cannot record duplicates", error);
          sqlite3_finalize (state);
        }
      else
        ok = _store_fail (store, rc, "cannot record duplicates", error);
    }
  sqlite3_finalize (dup);
  sqlite3_finalize (para);
  sqlite3_finalize (link);
  return ok;
}

/**
 * store_save_dedup:
 *
 * Replaces the clusters and repeated paragraphs, in one transaction.
 */
gboolean
store_save_dedup (Store *store, const StoreNearDuplicate *rows, guint n_rows,
                  const StoreRepeatedParagraph *paras, guint n_paras, const char *settings,
                  GError **error)
{
  if (!store_begin (store, error))
    return FALSE;
  if (!save (store, rows, n_rows, paras, n_paras, settings, error))
    {
      store_rollback (store);
      return FALSE;
    }
  return store_commit (store, error);
}

static const char *const dedup_sql[] = {
  [STORE_DEDUP_CLUSTERS] =
    "SELECT d.cluster_id, d.message_id AS id, printf('%.3f', d.similarity) AS similarity, d.method,"
    " m.date, m.from_addr AS \"from\", m.subject,"
    " substr(replace(replace(coalesce(m.own_text, ''), char(10), ' '), char(9), ' '), 1, 80) AS excerpt"
    " FROM near_duplicates d JOIN messages m ON m.id = d.message_id"
    " ORDER BY d.cluster_id, d.message_id",
  [STORE_DEDUP_PARAGRAPHS] =
    "SELECT id, messages, authors, first_message_id,"
    " substr(replace(replace(text, char(10), ' '), char(9), ' '), 1, 120) AS text"
    " FROM repeated_paragraphs ORDER BY messages DESC, id",
};

/* Calls @func for each cluster member or repeated paragraph. */
gboolean
store_dedup_rows (Store *store, StoreDedupList what, StoreRowFunc func, gpointer user_data,
                  GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, dedup_sql[what], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot list duplicates", error);
  return _store_run_rows (store, stmt, func, user_data, "cannot list duplicates", error);
}
