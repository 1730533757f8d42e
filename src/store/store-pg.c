/* store-pg.c — the rows deja export-pg writes for PostgreSQL: the tables
 * researchers query, messages with the two keys they are partitioned by
 * (the newsgroup hierarchy and the year). */
#include "store-private.h"

/* A message's hierarchy: the first label of its first newsgroup in name
 * order ("comp" for comp.lang.c), lower case; '' when it has none (a
 * mailing list).  Its year: of its date, 0 when undated. */
#define PG_KEYS \
  "coalesce((SELECT lower(CASE WHEN instr(g.name, '.') > 0 THEN substr(g.name, 1, instr(g.name, '.') - 1)" \
  "  ELSE g.name END) FROM message_newsgroups mg JOIN newsgroups g ON g.id = mg.newsgroup_id" \
  "  WHERE mg.message_id = m.id AND mg.merged = 0 ORDER BY g.name LIMIT 1), '') AS hierarchy," \
  " coalesce(CAST(substr(m.date, 1, 4) AS INTEGER), 0) AS year"
/* The filter's messages, of ids from :id_lo up to (not with) :id_hi: a
 * part of a parallel load (store_pg_part_bounds()). */
#define PG_SELECTED " WHERE" STORE_FILTER_SQL " AND" STORE_NO_ARCHIVE_SQL \
  " AND m.id >= :id_lo AND m.id < :id_hi"

static const char *const pg_sql[] = {
  [STORE_PG_FILES] =
    "SELECT id, path, size, stored_size, mtime, sha256, compression, messages, lines, ingested_at,"
    " deja_version FROM files ORDER BY id",
  [STORE_PG_NEWSGROUPS] = "SELECT id, name FROM newsgroups ORDER BY id",
  [STORE_PG_AUTHORS] =
    "SELECT id, name, address, messages, first_date, last_date FROM authors ORDER BY id",
  [STORE_PG_AUTHOR_ADDRESSES] =
    "SELECT address, author_id, name, messages FROM author_addresses ORDER BY address",
  [STORE_PG_MESSAGES] =
    "SELECT " PG_KEYS ", m.id, m.file_id, m.byte_offset, m.byte_length, m.line_no, m.envelope,"
    " m.message_id, m.subject, m.from_addr, m.from_name, m.date, m.date_raw, m.body, m.own_text,"
    " m.charset, m.flags, m.thread_id, m.parent_id, m.duplicate_of, m.missing_parent,"
    " m.thread_flags, m.quoted_lines, m.own_lines, m.attachment_count, m.content_hash,"
    " m.text_damage, m.author_id, m.lang, m.lang_reliable, m.words, m.sentences, m.code_lines,"
    " m.nonletter_share, m.digit_share, m.upper_share, m.oov_share"
    " FROM messages m" PG_SELECTED " ORDER BY m.id",
  [STORE_PG_MESSAGE_NEWSGROUPS] =
    "SELECT mg.message_id, mg.newsgroup_id, mg.merged FROM message_newsgroups mg"
    " JOIN messages m ON m.id = mg.message_id" PG_SELECTED " ORDER BY 1, 2",
  [STORE_PG_REFS] =
    "SELECT r.message_id, r.kind, r.position, r.ref FROM refs r JOIN messages m ON m.id = r.message_id"
    PG_SELECTED " ORDER BY 1, 2, 3",
  [STORE_PG_PARTITIONS] =
    "SELECT hierarchy, year, count(*) AS messages FROM (SELECT " PG_KEYS " FROM messages m"
    PG_SELECTED ") GROUP BY 1, 2 ORDER BY 1, 2",
};

static const char *const bounds_sql[] = {
  [STORE_PG_PARTS_EQUAL] = "SELECT m.id FROM messages m" PG_SELECTED " ORDER BY m.id",
  /* the first id of each shard (deja ingest --shard) */
  [STORE_PG_PARTS_SHARDS] =
    "SELECT min(m.id) FROM messages m" PG_SELECTED " GROUP BY m.id >> 32 ORDER BY 1",
};
G_STATIC_ASSERT (STORE_SHARD_IDS == G_GINT64_CONSTANT (1) << 32);

static void
bind_range (sqlite3_stmt *stmt, const StorePgRange *range)
{
  sqlite3_bind_int64 (stmt, sqlite3_bind_parameter_index (stmt, ":id_lo"), range ? range->lo : G_MININT64);
  sqlite3_bind_int64 (stmt, sqlite3_bind_parameter_index (stmt, ":id_hi"), range ? range->hi : G_MAXINT64);
}

/**
 * store_pg_rows:
 * @filter: which messages (messages, their newsgroups and references,
 *   and the partitions they fill); the other tables are whole
 * @range: (nullable): of those, the ones in this range of ids
 *
 * Calls @func for each row of @table, with the columns docs/scale.md
 * lists for PostgreSQL.
 */
gboolean
store_pg_rows (Store *store, const StoreFilter *filter, const StorePgRange *range, StorePgTable table,
               StoreRowFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (table < G_N_ELEMENTS (pg_sql), FALSE);
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, pg_sql[table], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot export", error);
  _store_filter_bind (stmt, filter);
  if (sqlite3_bind_parameter_index (stmt, ":id_lo") > 0)
    bind_range (stmt, range);
  return _store_run_rows (store, stmt, func, user_data, "cannot export", error);
}

/**
 * store_pg_part_bounds:
 * @parts: how many, for STORE_PG_PARTS_EQUAL
 * @bounds: (out) (transfer full): of gint64: the first id of each part,
 *   in order (the first part takes every id before the second's); as
 *   many as there are parts, fewer than @parts when there are fewer
 *   messages, none when there is no message
 *
 * Cuts the filter's messages into parts of a parallel load: @parts of
 * about the same count, or one per shard the database was merged from.
 */
gboolean
store_pg_part_bounds (Store *store, const StoreFilter *filter, StorePgParts how, guint parts,
                      GArray **bounds, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (how < G_N_ELEMENTS (bounds_sql), FALSE);
  *bounds = NULL;
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, bounds_sql[how], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot export", error);
  _store_filter_bind (stmt, filter);
  bind_range (stmt, NULL);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);

      g_array_append_val (ids, id);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot export", error);
  if (how == STORE_PG_PARTS_EQUAL && ids->len > 0)
    {
      GArray *equal = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint n = MIN (MAX (parts, 1), ids->len);

      for (guint k = 0; k < n; k++)
        g_array_append_val (equal, g_array_index (ids, gint64, (guint64) k * ids->len / n));
      *bounds = equal;
    }
  else
    *bounds = g_steal_pointer (&ids);
  return TRUE;
}

/**
 * store_pg_columns:
 * @names: (out) (transfer full): the column names of @table's rows
 */
gboolean
store_pg_columns (Store *store, StorePgTable table, GPtrArray **names, GError **error)
{
  StoreFilter none = { 0 };
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (table < G_N_ELEMENTS (pg_sql), FALSE);
  if (!_store_filter_fill (store, &none, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, pg_sql[table], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot export", error);
  *names = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < sqlite3_column_count (stmt); i++)
    g_ptr_array_add (*names, g_strdup (sqlite3_column_name (stmt, i)));
  sqlite3_finalize (stmt);
  return TRUE;
}
