/* store-query.c — reading the database: separator log, search, export.
 *
 * Every statement is a constant or assembled from constant fragments
 * (export fields come from a fixed table); values are always bound.
 */
#include "store-private.h"

#include <string.h>

/**
 * store_foreach_log:
 * @filter: (nullable): which rows
 *
 * Calls @func for each separator log row, by file and line.
 */
gboolean
store_foreach_log (Store *store, const StoreLogFilter *filter, StoreLogFunc func,
                   gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  rc = sqlite3_prepare_v2 (store->db,
                           "SELECT f.path, l.line_no, l.byte_offset, l.line_text, l.verdict,"
                           " l.reason, l.shape FROM separator_log l JOIN files f ON f.id = l.file_id"
                           " WHERE (?1 IS NULL OR l.verdict = ?1) AND (?2 IS NULL OR f.path = ?2)"
                           " AND (?3 IS NULL OR ',' || l.reason || ',' LIKE '%,' || ?3 || ',%')"
                           " ORDER BY f.path, l.line_no",
                           -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read separator log", error);
  _store_bind_text_or_null (stmt, 1, filter ? filter->verdict : NULL);
  _store_bind_text_or_null (stmt, 2, filter ? filter->path : NULL);
  _store_bind_text_or_null (stmt, 3, filter ? filter->reason : NULL);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreLogRow row = {
        (const char *) sqlite3_column_text (stmt, 0),
        sqlite3_column_int64 (stmt, 1),
        sqlite3_column_int64 (stmt, 2),
        (const char *) sqlite3_column_text (stmt, 3),
        (const char *) sqlite3_column_text (stmt, 4),
        (const char *) sqlite3_column_text (stmt, 5),
        (const char *) sqlite3_column_text (stmt, 6),
      };
      func (&row, user_data);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read separator log", error);
  return TRUE;
}

void
_store_bind_named (sqlite3_stmt *stmt, const char *name, const char *text)
{
  int i = sqlite3_bind_parameter_index (stmt, name);

  if (i > 0)
    _store_bind_text_or_null (stmt, i, text);
}


/* Steps @stmt, handing each row to @func (which may stop the walk). */
gboolean
_store_run_rows (Store *store, sqlite3_stmt *stmt, StoreRowFunc func, gpointer user_data,
          const char *what, GError **error)
{
  int n = sqlite3_column_count (stmt), rc;
  g_autofree StoreValue *values = g_new0 (StoreValue, n);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  /* Copies: a statement may be re-prepared by its first step (bound GLOB
   * patterns do that), which frees the names it gave out. */
  for (int i = 0; i < n; i++)
    {
      g_ptr_array_add (names, g_strdup (sqlite3_column_name (stmt, i)));
      values[i].name = g_ptr_array_index (names, i);
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      for (int i = 0; i < n; i++)
        {
          values[i].text = (const char *) sqlite3_column_text (stmt, i);
          values[i].number = sqlite3_column_type (stmt, i) == SQLITE_INTEGER ||
                             sqlite3_column_type (stmt, i) == SQLITE_FLOAT;
        }
      if (!func (values, n, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  if (rc != SQLITE_DONE)
    {
      /* FTS5 reports query syntax errors when the statement runs. */
      const char *msg = sqlite3_errmsg (store->db);
      if (strstr (msg, "fts5") || strstr (msg, "no such column"))
        g_set_error (error, STORE_ERROR, STORE_ERROR_QUERY, "bad search query: %s", msg);
      else
        _store_fail (store, rc, what, error);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE;
}

/**
 * store_search:
 * @filter: which messages; without filter->match, every message the
 *   other members let through, newest first
 * @mark_open, @mark_close: what surrounds each hit in the snippet
 *
 * Calls @func for each matching message (a post present in several
 * files once: later copies are left out), best match first (FTS5's bm25
 * rank; equal ranks in the order of their ids, so that a search gives
 * the same rows whichever way SQLite reads them: a merge and a catalog
 * of the same shards do), with columns id, date, from_name, from_addr, subject, snippet,
 * file, byte_offset, thread_id and rank (bm25: lower is better; 0 without
 * words).
 */
gboolean
store_search (Store *store, const StoreFilter *filter, StoreSearchMode mode,
              const char *mark_open, const char *mark_close, StoreRowFunc func,
              gpointer user_data, GError **error)
{
  /* Per mode, [0]: words; [1]: filters alone (from:bob group:comp.lang.c),
   * newest first, with the start of the own text as the snippet. */
#define HITS_WORDS \
    "SELECT m.id, coalesce(m.thread_id, m.id) AS thread_id, m.date, rank" \
    " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid" \
    " WHERE messages_fts MATCH :match AND m.duplicate_of IS NULL AND" STORE_FILTER_SQL
#define HITS_FILTERS \
    "SELECT m.id, coalesce(m.thread_id, m.id) AS thread_id, m.date, 0 AS rank" \
    " FROM messages m WHERE m.duplicate_of IS NULL AND" STORE_FILTER_SQL
  /* snippet() cannot be used in an aggregate: it is taken for the best
   * hit of each thread afterwards. */
#define SNIPPET_WORDS \
    "(SELECT snippet(messages_fts, -1, :open, :close, '…', 16) FROM messages_fts" \
    " WHERE messages_fts MATCH :match AND rowid = t.id)"
#define SNIPPET_FILTERS \
    "(SELECT substr(replace(coalesce(own_text, ''), char(10), ' '), 1, 120) FROM messages" \
    " WHERE id = t.id)"
#define THREADS(hits, best, order, snippet) \
    "WITH hits AS MATERIALIZED (" hits " ORDER BY 1)" \
    " SELECT t.*, " snippet " AS snippet FROM (" \
    " SELECT h.thread_id, count(*) AS hits," \
    " (SELECT count(*) FROM messages c WHERE c.thread_id = h.thread_id" \
    "   AND c.duplicate_of IS NULL) AS messages," \
    " min(h.date) AS first_date, max(h.date) AS last_date, r.subject, r.from_name, r.from_addr," \
    " " best " AS best, h.id" \
    " FROM hits h LEFT JOIN messages r ON r.id = h.thread_id" \
    " GROUP BY h.thread_id ORDER BY best " order ", h.thread_id LIMIT :limit) t"
  static const char *const search_sql[][2] = {
    [STORE_SEARCH_MESSAGES] = {
      "SELECT m.id, m.date, m.from_name, m.from_addr, m.subject,"
      " snippet(messages_fts, -1, :open, :close, '…', 16) AS snippet,"
      " f.path AS file, m.byte_offset, m.thread_id, rank"
      " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
      " JOIN files f ON f.id = m.file_id"
      " WHERE messages_fts MATCH :match AND m.duplicate_of IS NULL AND" STORE_FILTER_SQL
      " ORDER BY rank, m.id LIMIT :limit",
      "SELECT m.id, m.date, m.from_name, m.from_addr, m.subject,"
      " substr(replace(coalesce(m.own_text, ''), char(10), ' '), 1, 120) AS snippet,"
      " f.path AS file, m.byte_offset, m.thread_id, 0 AS rank"
      " FROM messages m JOIN files f ON f.id = m.file_id"
      " WHERE m.duplicate_of IS NULL AND" STORE_FILTER_SQL
      " ORDER BY m.date DESC, m.id LIMIT :limit",
    },
    [STORE_SEARCH_COUNT] = {
      "SELECT count(*) AS messages, count(DISTINCT coalesce(m.thread_id, m.id)) AS threads"
      " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
      " WHERE messages_fts MATCH :match AND m.duplicate_of IS NULL AND" STORE_FILTER_SQL,
      "SELECT count(*) AS messages, count(DISTINCT coalesce(m.thread_id, m.id)) AS threads"
      " FROM messages m WHERE m.duplicate_of IS NULL AND" STORE_FILTER_SQL,
    },
    /* min(rank): the other bare columns come from the best hit (SQLite's
     * rule for min() and max() aggregates). */
    [STORE_SEARCH_THREADS] = {
      THREADS (HITS_WORDS, "min(h.rank)", "ASC", SNIPPET_WORDS),
      THREADS (HITS_FILTERS, "max(h.date)", "DESC", SNIPPET_FILTERS),
    },
  };
#undef HITS_WORDS
#undef HITS_FILTERS
#undef THREADS
#undef SNIPPET_WORDS
#undef SNIPPET_FILTERS
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (mode < G_N_ELEMENTS (search_sql), FALSE);
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  rc = sqlite3_prepare_v2 (store->db, search_sql[mode][filter->match == NULL], -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot search", error);
  _store_filter_bind (stmt, filter);
  _store_bind_named (stmt, ":open", mark_open);
  _store_bind_named (stmt, ":close", mark_close);
  return _store_run_rows (store, stmt, func, user_data, "cannot search", error);
}

/* Export fields: name and SQL expression over messages m and files f. */
static const struct {
  const char *name;
  const char *sql;
} export_fields[] = {
  { "id", "m.id" },
  { "file", "f.path" },
  { "file_sha256", "f.sha256" },
  { "byte_offset", "m.byte_offset" },
  { "byte_length", "m.byte_length" },
  { "line_no", "m.line_no" },
  { "envelope", "m.envelope" },
  { "message_id", "m.message_id" },
  { "date", "m.date" },
  { "date_raw", "m.date_raw" },
  { "from_addr", "m.from_addr" },
  { "from_name", "m.from_name" },
  { "author_id", "m.author_id" },
  { "subject", "m.subject" },
  { "newsgroups", "(SELECT group_concat(name, ',') FROM (SELECT g.name FROM message_newsgroups mg"
                  " JOIN newsgroups g ON g.id = mg.newsgroup_id WHERE mg.message_id = m.id"
                  " ORDER BY g.name))" },
  { "in_reply_to", "(SELECT ref FROM message_refs WHERE message_id = m.id AND kind = 1"
                   " ORDER BY position LIMIT 1)" },
  { "references", "(SELECT group_concat(ref, ' ') FROM (SELECT ref FROM message_refs"
                  " WHERE message_id = m.id AND kind = 0 ORDER BY position))" },
  { "thread_id", "m.thread_id" },
  { "parent_id", "m.parent_id" },
  { "duplicate_of", "m.duplicate_of" },
  { "charset", "m.charset" },
  { "flags", "m.flags" },
  { "quoted_lines", "m.quoted_lines" },
  { "own_lines", "m.own_lines" },
  { "attachment_count", "m.attachment_count" },
  { "body", "m.body" },
  { "own_text", "m.own_text" },
  { "author", "(SELECT au.address FROM authors au WHERE au.id = m.author_id)" },
  { "lang", "m.lang" },
  { "lang_reliable", "m.lang_reliable" },
  { "words", "m.words" },
  { "sentences", "m.sentences" },
  { "code_lines", "m.code_lines" },
  { "nonletter_share", "m.nonletter_share" },
  { "digit_share", "m.digit_share" },
  { "upper_share", "m.upper_share" },
  { "oov_share", "m.oov_share" },
  { "near_duplicate_of", "(SELECT nd.cluster_id FROM near_duplicates nd"
                         " WHERE nd.message_id = m.id AND nd.cluster_id <> m.id)" },
};

const char *const *
store_export_fields (void)
{
  static const char *names[G_N_ELEMENTS (export_fields) + 1];

  if (names[0] == NULL)
    for (gsize i = 0; i < G_N_ELEMENTS (export_fields); i++)
      names[i] = export_fields[i].name;
  return names;
}

const char *const *
store_export_default_fields (void)
{
  static const char *const names[] = {
    "id", "file", "byte_offset", "message_id", "date", "from_addr", "from_name", "author_id", "subject",
    "newsgroups", "in_reply_to", "thread_id", "parent_id", "quoted_lines", "own_lines",
    "body", "own_text", NULL,
  };
  return names;
}

static const char *
export_field_sql (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (export_fields); i++)
    if (strcmp (export_fields[i].name, name) == 0)
      return export_fields[i].sql;
  return NULL;
}

/**
 * store_export:
 * @fields: names from store_export_fields(); unknown names are a
 *   programming error (check them first)
 *
 * Calls @func for each message the filter selects, in archive order
 * (messages.id), with the given fields.
 */
gboolean
store_export (Store *store, const StoreFilter *filter, const char *const *fields,
              StoreRowFunc func, gpointer user_data, GError **error)
{
  g_autoptr (GString) sql = g_string_new ("SELECT ");
  sqlite3_stmt *stmt;
  int rc;

  for (gsize i = 0; fields[i]; i++)
    {
      const char *expr = export_field_sql (fields[i]);

      g_return_val_if_fail (expr != NULL, FALSE);
      g_string_append_printf (sql, "%s%s AS \"%s\"", i ? ", " : "", expr, fields[i]);
    }
  /* CROSS JOIN keeps messages the outer loop, in archive order: on a
   * catalog, SQLite would read file after file (its first plan ignores
   * the ORDER BY) and then sort every body back */
  g_string_append (sql, " FROM messages m CROSS JOIN files f ON f.id = m.file_id WHERE"
                        " (NOT :canonical OR m.duplicate_of IS NULL) AND" STORE_NO_ARCHIVE_SQL " AND"
                        " (:match IS NULL OR m.id IN (SELECT rowid FROM messages_fts"
                        "  WHERE messages_fts MATCH :match)) AND" STORE_FILTER_SQL
                        " ORDER BY m.id LIMIT :limit");
  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, sql->str, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot export", error);
  _store_filter_bind (stmt, filter);
  return _store_run_rows (store, stmt, func, user_data, "cannot export", error);
}

/**
 * store_archive_rows:
 * @filter: which messages (filter->match is not used)
 *
 * Calls @func with where each selected message lies in its archive, in
 * archive order (messages.id).
 */
gboolean
store_archive_rows (Store *store, const StoreFilter *filter, StoreArchiveFunc func,
                    gpointer user_data, GError **error)
{
  static const char sql[] =
    "SELECT m.id, f.path, f.sha256, m.byte_offset, m.byte_length, m.envelope IS NOT NULL,"
    " m.from_addr, m.date FROM messages m CROSS JOIN files f ON f.id = m.file_id"   /* as store_export() */
    " WHERE (NOT :canonical OR m.duplicate_of IS NULL) AND" STORE_NO_ARCHIVE_SQL " AND" STORE_FILTER_SQL
    " ORDER BY m.id LIMIT :limit";
  sqlite3_stmt *stmt;
  int rc;

  if (!_store_filter_fill (store, filter, error))
    return FALSE;
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  _store_filter_bind (stmt, filter);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreArchiveRow row = {
        sqlite3_column_int64 (stmt, 0), (const char *) sqlite3_column_text (stmt, 1),
        (const char *) sqlite3_column_text (stmt, 2), sqlite3_column_int64 (stmt, 3),
        sqlite3_column_int64 (stmt, 4), sqlite3_column_int (stmt, 5),
        (const char *) sqlite3_column_text (stmt, 6), (const char *) sqlite3_column_text (stmt, 7),
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* Threading diagnostics, each with what a reader needs to find the message. */
static const char *const report_sql[] = {
  [STORE_REPORT_ORPHANS] =
    "SELECT m.id, f.path AS file, m.byte_offset, m.message_id, m.missing_parent, m.date"
    " FROM messages m JOIN files f ON f.id = m.file_id"
    " WHERE m.missing_parent IS NOT NULL ORDER BY m.id",
  [STORE_REPORT_CYCLES] =
    "SELECT m.id, f.path AS file, m.byte_offset, m.message_id, m.subject"
    " FROM messages m JOIN files f ON f.id = m.file_id"
    " WHERE ',' || m.thread_flags || ',' LIKE '%,cycle-broken,%' ORDER BY m.id",
  [STORE_REPORT_TIME_TRAVEL] =
    "SELECT m.id, m.message_id, m.date, p.id AS parent_id, p.date AS parent_date"
    " FROM messages m JOIN messages p ON p.id = m.parent_id"
    " WHERE ',' || m.thread_flags || ',' LIKE '%,time-travel,%' ORDER BY m.id",
  [STORE_REPORT_CONFLICTS] =
    "SELECT m.id, f.path AS file, m.byte_offset, m.message_id, m.duplicate_of,"
    " cf.path AS canonical_file FROM messages m JOIN files f ON f.id = m.file_id"
    " JOIN messages c ON c.id = m.duplicate_of JOIN files cf ON cf.id = c.file_id"
    " WHERE ',' || m.thread_flags || ',' LIKE '%,conflicting-duplicate,%' ORDER BY m.id",
  [STORE_REPORT_PLACEHOLDERS] =
    "SELECT message_id, thread_id, children FROM thread_placeholders"
    " ORDER BY children DESC, message_id",
};

gboolean
store_thread_report (Store *store, StoreReport kind, StoreRowFunc func, gpointer user_data,
                     GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (kind < G_N_ELEMENTS (report_sql), FALSE);
  if ((rc = sqlite3_prepare_v2 (store->db, report_sql[kind], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the threading report", error);
  return _store_run_rows (store, stmt, func, user_data, "cannot read the threading report", error);
}

/**
 * _store_copy_begin:
 * @copy_sql: statements that make a TEMP table of what a query reads
 *
 * Runs @copy_sql in a savepoint that the query reading the copy runs in
 * too, so that both read the database as it was when the copy was made,
 * as one statement would (another deja may commit meanwhile);
 * _store_copy_end() ends it.  Returns: FALSE where the copy cannot be
 * made (no temporary file may be written, say; nothing is left of it):
 * the query reads the tables themselves.
 */
gboolean
_store_copy_begin (Store *store, const char *copy_sql)
{
  if (sqlite3_exec (store->db, "SAVEPOINT deja_copy", NULL, NULL, NULL) != SQLITE_OK)
    return FALSE;
  if (sqlite3_exec (store->db, copy_sql, NULL, NULL, NULL) == SQLITE_OK)
    return TRUE;
  g_debug ("a query reads the tables themselves: no copy (%s)", sqlite3_errmsg (store->db));
  sqlite3_exec (store->db, "ROLLBACK TO deja_copy; RELEASE deja_copy", NULL, NULL, NULL);
  return FALSE;
}

/* Drops what _store_copy_begin() made (@drop_sql), and ends its savepoint */
void
_store_copy_end (Store *store, const char *drop_sql)
{
  sqlite3_exec (store->db, drop_sql, NULL, NULL, NULL);
  sqlite3_exec (store->db, "RELEASE deja_copy", NULL, NULL, NULL);
}

/* deja stats' queries: of the messages table ([0]), or of the copy of
 * the columns they count that store_stats_begin() makes ([1]) */
#define STATS_MESSAGES_COPY "temp.deja_stats_messages"
#define STATS_SQL(MESSAGES) { \
  [STORE_STATS_TOTALS] = \
    "SELECT (SELECT count(*) FROM files) AS files, count(*) AS messages," \
    " count(*) FILTER (WHERE duplicate_of IS NULL) AS canonical," \
    " count(*) FILTER (WHERE duplicate_of IS NOT NULL) AS duplicates," \
    " (SELECT count(*) FROM authors) AS authors," \
    " count(DISTINCT thread_id) FILTER (WHERE duplicate_of IS NULL) AS threads," \
    " min(date) AS first_date, max(date) AS last_date," \
    " count(*) FILTER (WHERE date IS NULL) AS undated," \
    " (SELECT count(*) FROM newsgroups) AS newsgroups FROM " MESSAGES, \
  [STORE_STATS_BY_GROUP] = \
    "SELECT coalesce(g.name, '(none)') AS newsgroup," \
    " coalesce(substr(m.date, 1, CASE WHEN :month THEN 7 ELSE 4 END), '(no date)') AS period," \
    " count(*) AS messages FROM " MESSAGES " m" \
    " LEFT JOIN message_newsgroups mg ON mg.message_id = m.id" \
    " LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id" \
    " WHERE m.duplicate_of IS NULL GROUP BY 1, 2 ORDER BY 1, 2", \
  [STORE_STATS_LOG] = \
    "SELECT verdict, count(*) AS lines FROM separator_log GROUP BY verdict ORDER BY verdict", \
  [STORE_STATS_MONTHLY] = \
    "SELECT substr(date, 1, 7) AS month, count(*) AS messages," \
    " count(DISTINCT author_id) AS authors, sum(id = thread_id) AS threads" \
    " FROM " MESSAGES " WHERE duplicate_of IS NULL AND date IS NOT NULL GROUP BY 1 ORDER BY 1", \
  [STORE_STATS_THREAD_SIZES] = \
    "SELECT size, count(*) AS threads FROM (SELECT count(*) AS size FROM " MESSAGES \
    " WHERE duplicate_of IS NULL AND thread_id IS NOT NULL GROUP BY thread_id)" \
    " GROUP BY size ORDER BY size", \
  [STORE_STATS_TOP_AUTHORS] = \
    "SELECT address AS from_addr, name AS from_name, messages, first_date, last_date, id AS author_id" \
    " FROM authors ORDER BY messages DESC, address, name, id LIMIT 25", \
  [STORE_STATS_FILES] = \
    "SELECT path, size, stored_size, compression, sha256, messages, ingested_at, deja_version" \
    " FROM files ORDER BY path", \
  [STORE_STATS_LOG_REASONS] = \
    "SELECT verdict, reason, count(*) AS lines FROM separator_log GROUP BY 1, 2" \
    " ORDER BY lines DESC, verdict, reason", \
  [STORE_STATS_LANGUAGES] = \
    "SELECT lang, count(*) AS messages, sum(lang_reliable) AS reliable, sum(words) AS words" \
    " FROM " MESSAGES " WHERE duplicate_of IS NULL AND lang IS NOT NULL" \
    " GROUP BY lang ORDER BY messages DESC, lang", \
  [STORE_STATS_LANGUAGES_BY_GROUP] = \
    "SELECT coalesce(g.name, '(none)') AS newsgroup, m.lang AS lang, count(*) AS messages" \
    " FROM " MESSAGES " m LEFT JOIN message_newsgroups mg ON mg.message_id = m.id" \
    " LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id" \
    " WHERE m.duplicate_of IS NULL AND m.lang IS NOT NULL" \
    " GROUP BY 1, 2 ORDER BY 1, messages DESC, 2", \
  /* SQLite takes the bare column lang from the row with max(words) */ \
  [STORE_STATS_THREAD_LANGUAGES] = \
    "SELECT lang, count(*) AS threads FROM" \
    " (SELECT thread_id, lang, max(w) FROM" \
    "   (SELECT thread_id, CASE WHEN lang = 'und' THEN 'und' ELSE lang END AS lang," \
    "     sum(CASE WHEN lang = 'und' THEN 0 ELSE coalesce(words, 0) END) + (lang <> 'und') AS w" \
    "    FROM " MESSAGES " WHERE duplicate_of IS NULL AND lang IS NOT NULL AND thread_id IS NOT NULL" \
    "    GROUP BY thread_id, lang)" \
    "  GROUP BY thread_id)" \
    " GROUP BY lang ORDER BY threads DESC, lang", \
  [STORE_STATS_AUTHORS] = \
    "SELECT address AS from_addr, name AS from_name, messages, first_date, last_date, id AS author_id" \
    " FROM authors ORDER BY messages DESC, address, name, id", \
  [STORE_STATS_NEWSGROUPS] = "SELECT name FROM newsgroups ORDER BY name", \
}

static const char *const stats_sql[2][STORE_STATS_NEWSGROUPS + 1] = {
  STATS_SQL ("messages"),
  STATS_SQL (STATS_MESSAGES_COPY),
};

/* The columns of messages the stats count (every one STATS_SQL reads of
 * it), copied once: each of deja stats' five queries of messages read
 * the table again, most of the database's pages, or found its groups by
 * an index and each row through it (realistic 1 GiB merged: 3.2 s) */
static const char stats_copy_sql[] =
  "DROP TABLE IF EXISTS " STATS_MESSAGES_COPY ";"
  "CREATE TEMP TABLE deja_stats_messages (id, date, duplicate_of, thread_id, author_id, lang, lang_reliable, words);"
  "INSERT INTO " STATS_MESSAGES_COPY
  " SELECT id, date, duplicate_of, thread_id, author_id, lang, lang_reliable, words FROM messages ORDER BY id";

/**
 * store_stats_begin:
 *
 * Copies the columns of messages that store_stats() counts into a TEMP
 * table (of no declared types: each value as the database holds it),
 * which its queries read instead until store_stats_end(), for a command
 * that asks several (deja stats, deja report).  The copy is what the
 * database held then.  Where it cannot be made (no temporary file may be
 * written, say), the queries read messages itself, as slowly as before:
 * the numbers are the same.
 */
void
store_stats_begin (Store *store)
{
  int rc = sqlite3_exec (store->db, stats_copy_sql, NULL, NULL, NULL);

  store->stats_copy = rc == SQLITE_OK;
  if (rc != SQLITE_OK)
    {
      g_debug ("stats read messages itself: no copy (%s)", sqlite3_errmsg (store->db));
      sqlite3_exec (store->db, "DROP TABLE IF EXISTS " STATS_MESSAGES_COPY, NULL, NULL, NULL);
    }
}

void
store_stats_end (Store *store)
{
  if (store == NULL || !store->stats_copy)
    return;
  sqlite3_exec (store->db, "DROP TABLE IF EXISTS " STATS_MESSAGES_COPY, NULL, NULL, NULL);
  store->stats_copy = FALSE;
}

/* Counts for deja stats; one statement per query, values bound. */
gboolean
store_stats (Store *store, StoreStats query, gboolean by_month, StoreRowFunc func,
             gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc, month;

  g_return_val_if_fail (query < G_N_ELEMENTS (stats_sql[0]), FALSE);
  if ((rc = sqlite3_prepare_v2 (store->db, stats_sql[store->stats_copy][query], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot count", error);
  if ((month = sqlite3_bind_parameter_index (stmt, ":month")) > 0)
    sqlite3_bind_int (stmt, month, by_month);
  return _store_run_rows (store, stmt, func, user_data, "cannot count", error);
}

/* The typed readers: each turns the current row of its query's statement
 * into its row type, in the column order of stats_sql, and calls @func. */
typedef gboolean (*RowRead) (sqlite3_stmt *stmt, gpointer func, gpointer user_data);

static gboolean
stats_each (Store *store, StoreStats query, gboolean by_month, RowRead read, gpointer func,
            gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc, month;

  if ((rc = sqlite3_prepare_v2 (store->db, stats_sql[store->stats_copy][query], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot count", error);
  if ((month = sqlite3_bind_parameter_index (stmt, ":month")) > 0)
    sqlite3_bind_int (stmt, month, by_month);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW && read (stmt, func, user_data))
    ;
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? TRUE : _store_fail (store, rc, "cannot count", error);
}

#define TEXT(i) ((const char *) sqlite3_column_text (stmt, (i)))
#define NUMBER(i) (sqlite3_column_int64 (stmt, (i)))

static gboolean
read_group_period (sqlite3_stmt *stmt, gpointer func, gpointer user_data)
{
  StoreGroupPeriodRow row = { .newsgroup = TEXT (0), .period = TEXT (1), .messages = NUMBER (2) };

  return ((gboolean (*) (const StoreGroupPeriodRow *, gpointer)) func) (&row, user_data);
}

static gboolean
read_month (sqlite3_stmt *stmt, gpointer func, gpointer user_data)
{
  StoreMonthRow row = { .month = TEXT (0), .messages = NUMBER (1), .authors = NUMBER (2),
                        .threads = NUMBER (3) };

  return ((gboolean (*) (const StoreMonthRow *, gpointer)) func) (&row, user_data);
}

static gboolean
read_thread_size (sqlite3_stmt *stmt, gpointer func, gpointer user_data)
{
  StoreThreadSizeRow row = { .size = NUMBER (0), .threads = NUMBER (1) };

  return ((gboolean (*) (const StoreThreadSizeRow *, gpointer)) func) (&row, user_data);
}

static gboolean
read_author_count (sqlite3_stmt *stmt, gpointer func, gpointer user_data)
{
  StoreAuthorCountRow row = { .address = TEXT (0), .name = TEXT (1), .messages = NUMBER (2),
                              .first_date = TEXT (3), .last_date = TEXT (4),
                              .author_id = NUMBER (5) };

  return ((gboolean (*) (const StoreAuthorCountRow *, gpointer)) func) (&row, user_data);
}

static gboolean
read_language (sqlite3_stmt *stmt, gpointer func, gpointer user_data)
{
  StoreLanguageRow row = { .lang = TEXT (0), .messages = NUMBER (1), .reliable = NUMBER (2),
                           .words = NUMBER (3) };

  return ((gboolean (*) (const StoreLanguageRow *, gpointer)) func) (&row, user_data);
}

#undef TEXT
#undef NUMBER

/* Canonical messages per newsgroup and year (or month, @by_month). */
gboolean
store_stats_by_group (Store *store, gboolean by_month,
                      gboolean (*func) (const StoreGroupPeriodRow *row, gpointer user_data),
                      gpointer user_data, GError **error)
{
  return stats_each (store, STORE_STATS_BY_GROUP, by_month, read_group_period, (gpointer) func,
                     user_data, error);
}

/* Dated canonical messages, their authors and the threads started, per month. */
gboolean
store_stats_monthly (Store *store, gboolean (*func) (const StoreMonthRow *row, gpointer user_data),
                     gpointer user_data, GError **error)
{
  return stats_each (store, STORE_STATS_MONTHLY, FALSE, read_month, (gpointer) func, user_data, error);
}

/* How many threads have each size (canonical messages). */
gboolean
store_stats_thread_sizes (Store *store, gboolean (*func) (const StoreThreadSizeRow *row, gpointer user_data),
                          gpointer user_data, GError **error)
{
  return stats_each (store, STORE_STATS_THREAD_SIZES, FALSE, read_thread_size, (gpointer) func,
                     user_data, error);
}

/* The 25 authors with most messages, most first. */
gboolean
store_stats_top_authors (Store *store, gboolean (*func) (const StoreAuthorCountRow *row, gpointer user_data),
                         gpointer user_data, GError **error)
{
  return stats_each (store, STORE_STATS_TOP_AUTHORS, FALSE, read_author_count, (gpointer) func,
                     user_data, error);
}

/* Canonical messages analysed, per language, most first. */
gboolean
store_stats_languages (Store *store, gboolean (*func) (const StoreLanguageRow *row, gpointer user_data),
                       gpointer user_data, GError **error)
{
  return stats_each (store, STORE_STATS_LANGUAGES, FALSE, read_language, (gpointer) func, user_data,
                     error);
}
