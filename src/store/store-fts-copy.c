/* store-fts-copy.c — a shard's full-text index taken over as it is.
 *
 * 'deja merge' tokenised every message of every shard again: on one
 * core, a third of a merge (docs/scale.md).  A shard already has the
 * index of its rows, and FTS5 keeps it in ordinary tables beside the
 * virtual one:
 *
 *   messages_fts_data     rowid 1: the averages record (rows, and tokens
 *                         per column); rowid 10: the structure record
 *                         (the segments, level by level); every other
 *                         rowid: a page of a segment, the segment's id in
 *                         bits 37 and up of the rowid
 *   messages_fts_idx      (segid, term, pgno): the first term of each leaf
 *   messages_fts_docsize  (id, sz): each row's tokens per column
 *
 * A page holds terms, row ids and positions and nothing that names its
 * segment, so a segment moves into another index of the same declaration
 * under a new id with its pages as they are: a copy of rows, no
 * tokenising.  What has to agree is the rows' ids (the pages hold them):
 * the shard's messages keep their ids here, which 'deja merge' allows
 * only when they all come after every id here ('deja ingest --shard').
 *
 * This is FTS5's own file format (its 'version' 4, written by SQLite
 * 3.9 and later), read here beyond its SQL interface; so every record is
 * checked, and the shard's text is indexed again the ordinary way
 * (store-merge.c) whenever anything is not as this code knows it: another
 * version or declaration, a structure record that does not encode back to
 * the same bytes (a later format), pages of a segment that the structure
 * does not list (the tombstones of a later SQLite) or leaves it lists and
 * lacks, a size table that does not match the shard's messages.
 *
 * One rule of FTS5 makes the order matter.  A connection keeps the
 * structure it read last and takes a change of it from another
 * connection's commit (PRAGMA data_version), not from its own writes to
 * these tables: the copy runs on a connection that has not used
 * messages_fts before it (store-merge.c opens one per shard), and may use
 * it after.
 */
#include "store-private.h"

#include <string.h>

#define FTS_VERSION 4           /* FTS5_CURRENT_VERSION */
#define FTS_AVERAGES_ROWID 1
#define FTS_STRUCTURE_ROWID STORE_FTS_STRUCTURE_ROWID
#define FTS_SEGID_SHIFT 37      /* FTS5_DATA_PAGE_B + FTS5_DATA_HEIGHT_B + FTS5_DATA_DLI_B */
#define FTS_MAX_LEVEL 64        /* FTS5_MAX_LEVEL */
#define FTS_MAX_SEGMENT 2000    /* FTS5_MAX_SEGMENT: an index with more takes no writes */
/* Past this many segments, the merge runs FTS5's 'optimize' (one
 * segment) after a copy, so that the next shard's segments fit. */
#define FTS_SEGMENTS_BEFORE_OPTIMIZE 1000

/* SQLite's variable-length integer, as FTS5 writes it: big-endian groups
 * of 7 bits, the high bit set on all but the last; a ninth byte carries 8. */
static gboolean
get_varint (const guint8 **p, const guint8 *end, guint64 *value)
{
  guint64 v = 0;

  for (int i = 0; i < 9; i++)
    {
      guint8 b;

      if (*p >= end)
        return FALSE;
      b = *(*p)++;
      if (i == 8)
        {
          *value = (v << 8) | b;
          return TRUE;
        }
      v = (v << 7) | (b & 0x7f);
      if ((b & 0x80) == 0)
        {
          *value = v;
          return TRUE;
        }
    }
  g_assert_not_reached ();
}

static void
put_varint (GByteArray *out, guint64 v)
{
  guint8 buf[9];
  int n = 0;

  if (v >> 56)
    {
      buf[8] = (guint8) v;
      v >>= 8;
      for (int i = 7; i >= 0; i--, v >>= 7)
        buf[i] = (guint8) ((v & 0x7f) | 0x80);
      g_byte_array_append (out, buf, 9);
      return;
    }
  do
    {
      buf[n++] = (guint8) ((v & 0x7f) | 0x80);
      v >>= 7;
    }
  while (v);
  buf[0] &= 0x7f;
  for (int i = n - 1; i >= 0; i--)
    g_byte_array_append (out, &buf[i], 1);
}

void
_store_fts_structure_clear (StoreFtsStructure *s)
{
  for (guint i = 0; i < s->n_levels; i++)
    g_clear_pointer (&s->levels[i].segments, g_array_unref);
  memset (s, 0, sizeof *s);
}

/**
 * _store_fts_structure_decode:
 *
 * Reads FTS5's structure record: a 4-byte cookie, then varints: levels,
 * segments, writes; per level, its segments in a merge under way and its
 * segments; per segment, its id and first and last page.  %FALSE for
 * anything else (a later format among it), @s cleared.
 */
gboolean
_store_fts_structure_decode (const guint8 *data, gsize len, StoreFtsStructure *s)
{
  const guint8 *p = data, *end = data + len;
  guint64 levels, segments, seen = 0;

  memset (s, 0, sizeof *s);
  if (len < 4)
    return FALSE;
  s->cookie = (guint32) data[0] << 24 | (guint32) data[1] << 16 | (guint32) data[2] << 8 | data[3];
  p += 4;
  if (!get_varint (&p, end, &levels) || !get_varint (&p, end, &segments) ||
      !get_varint (&p, end, &s->writes) || levels > FTS_MAX_LEVEL || segments > FTS_MAX_SEGMENT)
    return FALSE;
  for (guint i = 0; i < levels; i++)
    {
      StoreFtsLevel *level = &s->levels[i];
      guint64 n;

      level->segments = g_array_new (FALSE, FALSE, sizeof (StoreFtsSegment));
      s->n_levels = i + 1;
      if (!get_varint (&p, end, &level->merging) || !get_varint (&p, end, &n) ||
          n > segments - seen || level->merging > n)
        goto bad;
      for (guint64 j = 0; j < n; j++)
        {
          StoreFtsSegment seg;

          if (!get_varint (&p, end, &seg.id) || !get_varint (&p, end, &seg.first) ||
              !get_varint (&p, end, &seg.last) || seg.id == 0 || seg.id >= 1 << 16)
            goto bad;
          g_array_append_val (level->segments, seg);
        }
      seen += n;
    }
  if (p != end || seen != segments)
    goto bad;
  return TRUE;
bad:
  _store_fts_structure_clear (s);
  return FALSE;
}

GByteArray *
_store_fts_structure_encode (const StoreFtsStructure *s)
{
  GByteArray *out = g_byte_array_new ();
  guint8 cookie[4] = { s->cookie >> 24, s->cookie >> 16, s->cookie >> 8, s->cookie };
  guint64 segments = 0;

  for (guint i = 0; i < s->n_levels; i++)
    segments += s->levels[i].segments->len;
  g_byte_array_append (out, cookie, 4);
  put_varint (out, s->n_levels);
  put_varint (out, segments);
  put_varint (out, s->writes);
  for (guint i = 0; i < s->n_levels; i++)
    {
      const StoreFtsLevel *level = &s->levels[i];

      put_varint (out, level->merging);
      put_varint (out, level->segments->len);
      for (guint j = 0; j < level->segments->len; j++)
        {
          const StoreFtsSegment *seg = &g_array_index (level->segments, StoreFtsSegment, j);

          put_varint (out, seg->id);
          put_varint (out, seg->first);
          put_varint (out, seg->last);
        }
    }
  return out;
}

guint
_store_fts_structure_segments (const StoreFtsStructure *s)
{
  guint n = 0;

  for (guint i = 0; i < s->n_levels; i++)
    n += s->levels[i].segments->len;
  return n;
}

/**
 * _store_fts_structure_add:
 * @into: the structure here, given the segments of @from at the same
 *   levels, each under the lowest id @into does not use
 * @ids: (out): pairs (id in @from, id here), appended
 *
 * A merge under way at a level is left off (its level's count of
 * segments being merged becomes 0): its output and the rest of its
 * inputs are whole segments at every step, which FTS5 merges later as
 * any others, and the output of one no longer need be its level's last.
 */
gboolean
_store_fts_structure_add (StoreFtsStructure *into, const StoreFtsStructure *from, GArray *ids)
{
  g_autoptr (GHashTable) used = g_hash_table_new (NULL, NULL);
  guint64 next = 1;

  if (_store_fts_structure_segments (into) + _store_fts_structure_segments (from) > FTS_MAX_SEGMENT)
    return FALSE;
  for (guint i = 0; i < into->n_levels; i++)
    for (guint j = 0; j < into->levels[i].segments->len; j++)
      g_hash_table_add (used, GSIZE_TO_POINTER (g_array_index (into->levels[i].segments,
                                                                StoreFtsSegment, j).id));
  for (guint i = 0; i < from->n_levels; i++)
    {
      if (i >= into->n_levels)
        {
          into->levels[i].segments = g_array_new (FALSE, FALSE, sizeof (StoreFtsSegment));
          into->levels[i].merging = 0;
          into->n_levels = i + 1;
        }
      for (guint j = 0; j < from->levels[i].segments->len; j++)
        {
          StoreFtsSegment seg = g_array_index (from->levels[i].segments, StoreFtsSegment, j);
          guint64 pair[2] = { seg.id, 0 };

          while (g_hash_table_contains (used, GSIZE_TO_POINTER (next)))
            next++;
          seg.id = pair[1] = next++;
          g_array_append_val (into->levels[i].segments, seg);
          g_array_append_vals (ids, pair, 2);
        }
    }
  for (guint i = 0; i < into->n_levels; i++)
    into->levels[i].merging = 0;
  into->writes += from->writes;
  return TRUE;
}

/* The averages record: rows, then tokens per column, as varints. */
static gboolean
decode_averages (const guint8 *data, gsize len, guint64 *values, guint n)
{
  const guint8 *p = data, *end = data + len;

  for (guint i = 0; i < n; i++)
    if (!get_varint (&p, end, &values[i]))
      return FALSE;
  return p == end;
}

/* A blob of messages_fts_data here or in the shard. */
static gboolean
read_record (Store *store, gboolean in_shard, gint64 rowid, GBytes **record, GError **error)
{
  static const char *const record_sql[] = {
    "SELECT block FROM main.messages_fts_data WHERE id = ?1",
    "SELECT block FROM shard.messages_fts_data WHERE id = ?1",
  };
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, record_sql[in_shard != FALSE], &stmt);

  *record = NULL;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the full-text index", error);
  sqlite3_bind_int64 (stmt, 1, rowid);
  if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    *record = g_bytes_new (sqlite3_column_blob (stmt, 0), (gsize) sqlite3_column_bytes (stmt, 0));
  sqlite3_finalize (stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? TRUE
         : _store_fail (store, rc, "cannot read the full-text index", error);
}

static gboolean
read_structure (Store *store, gboolean in_shard, StoreFtsStructure *s, gboolean *ok, GError **error)
{
  g_autoptr (GBytes) record = NULL;
  g_autoptr (GByteArray) again = NULL;
  gsize len;
  const guint8 *data;

  *ok = FALSE;
  if (!read_record (store, in_shard, FTS_STRUCTURE_ROWID, &record, error))
    return FALSE;
  if (record == NULL)
    return TRUE;
  data = g_bytes_get_data (record, &len);
  if (!_store_fts_structure_decode (data, len, s))
    return TRUE;
  /* What this code does not write back exactly, it does not know */
  again = _store_fts_structure_encode (s);
  *ok = again->len == len && memcmp (again->data, data, len) == 0;
  if (!*ok)
    _store_fts_structure_clear (s);
  return TRUE;
}

/**
 * _store_fts_record_segments:
 * @data: (nullable): a structure record's bytes
 *
 * Returns: how many segments it lists (0 when it is not one this code
 *   reads)
 */
guint
_store_fts_record_segments (const guint8 *data, gsize len)
{
  StoreFtsStructure s = { 0 };
  guint n = data && _store_fts_structure_decode (data, len, &s) ? _store_fts_structure_segments (&s) : 0;

  _store_fts_structure_clear (&s);
  return n;
}

/**
 * _store_fts_segments:
 * @n: (out): how many segments messages_fts has here (0 when its
 *   structure record is not one this code knows)
 */
gboolean
_store_fts_segments (Store *store, guint *n, GError **error)
{
  StoreFtsStructure s = { 0 };
  gboolean known;

  *n = 0;
  if (!read_structure (store, FALSE, &s, &known, error))
    return FALSE;
  if (known)
    *n = _store_fts_structure_segments (&s);
  _store_fts_structure_clear (&s);
  return TRUE;
}

/* @sql with ?1 and ?2 (where it has them) bound to @a and @b. */
static gboolean
exec_bound (Store *store, const char *sql, gint64 a, gint64 b, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, sql, &stmt);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot copy the full-text index", error);
  if (sqlite3_bind_parameter_count (stmt) >= 2)
    {
      sqlite3_bind_int64 (stmt, 1, a);
      sqlite3_bind_int64 (stmt, 2, b);
    }
  rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot copy the full-text index", error);
}

/* Why the shard's index cannot be taken as it is (a static string), or
 * NULL when it can: the same declaration and version, its sizes the
 * shard's messages.  Reads only. */
static gboolean
check_declaration (Store *store, StoreFtsCopyFrom from, const char **why, GError **error)
{
  static const struct {
    const char *sql, *why;
  } checks[] = {
    { "SELECT (SELECT sql FROM main.sqlite_schema WHERE name = 'messages_fts')"
      " IS (SELECT sql FROM shard.sqlite_schema WHERE name = 'messages_fts')",
      "its full-text index is declared otherwise" },
    { "SELECT (SELECT v FROM main.messages_fts_config WHERE k = 'version') = " G_STRINGIFY (FTS_VERSION)
      " AND (SELECT v FROM shard.messages_fts_config WHERE k = 'version') = " G_STRINGIFY (FTS_VERSION),
      "its full-text index has another format version" },
    { "SELECT (SELECT count(*) FROM shard.messages_fts_docsize) = (SELECT count(*) FROM shard.messages)"
      " AND NOT EXISTS (SELECT 1 FROM shard.messages_fts_docsize d"
      "  WHERE NOT EXISTS (SELECT 1 FROM shard.messages m WHERE m.id = d.id))",
      "its full-text index does not have the rows of its messages" },
  };

  /* The index made beside an ingest's writer has no messages of its own */
  guint n = from == STORE_FTS_COPY_BESIDE ? G_N_ELEMENTS (checks) - 1 : G_N_ELEMENTS (checks);

  *why = NULL;
  for (guint i = 0; i < n && *why == NULL; i++)
    {
      gint64 yes;

      if (!_store_query_int (store, checks[i].sql, &yes, NULL, error))
        return FALSE;
      if (!yes)
        *why = checks[i].why;
    }
  return TRUE;
}

/* The averages record the index made beside an ingest's writer starts
 * from (store-fts-side.c), instead of none: FTS5 refuses to take a row
 * out of an index that counts no rows ("database disk image is
 * malformed"), and the side's index holds only a batch's rows, while
 * what it takes out are rows copied here before.  The copy subtracts it
 * again. */
#define FTS_SIDE_SEED (G_GUINT64_CONSTANT (1) << 48)

GByteArray *
_store_fts_side_seed (guint columns)
{
  GByteArray *out = g_byte_array_new ();

  for (guint i = 0; i <= columns; i++)
    put_varint (out, FTS_SIDE_SEED);
  return out;
}

/* The averages record here with the shard's added (rows, and the tokens
 * of each column), or *@out NULL when one of them cannot be read. */
static gboolean
add_averages (Store *store, StoreFtsCopyFrom from, GByteArray **out, GError **error)
{
  g_autoptr (GBytes) here = NULL, there = NULL;
  gint64 columns;
  guint64 a[16] = { 0 }, b[16] = { 0 };
  gsize len;
  const guint8 *data;

  *out = NULL;
  if (!_store_query_int (store, "SELECT count(*) FROM pragma_table_info('messages_fts', 'main')",
                         &columns, NULL, error) ||
      !read_record (store, FALSE, FTS_AVERAGES_ROWID, &here, error) ||
      !read_record (store, TRUE, FTS_AVERAGES_ROWID, &there, error))
    return FALSE;
  if (columns < 1 || columns >= (gint64) G_N_ELEMENTS (a))
    return TRUE;
  /* A table that never had a row has no record */
  if (there != NULL && (data = g_bytes_get_data (there, &len), !decode_averages (data, len, b, (guint) columns + 1)))
    return TRUE;
  if (here != NULL && (data = g_bytes_get_data (here, &len), !decode_averages (data, len, a, (guint) columns + 1)))
    return TRUE;
  *out = g_byte_array_new ();
  for (gint64 i = 0; i <= columns; i++)
    put_varint (*out, a[i] + b[i] - (from == STORE_FTS_COPY_BESIDE ? FTS_SIDE_SEED : 0));
  return TRUE;
}

static gboolean
write_record (Store *store, gint64 rowid, const GByteArray *record, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, "INSERT OR REPLACE INTO main.messages_fts_data (id, block)"
                               " VALUES (?1, ?2)", &stmt);

  if (rc == SQLITE_OK)
    {
      sqlite3_bind_int64 (stmt, 1, rowid);
      sqlite3_bind_blob (stmt, 2, record->data, (int) record->len, SQLITE_STATIC);
      rc = sqlite3_step (stmt);
      sqlite3_finalize (stmt);
    }
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot copy the full-text index", error);
}

/* Whether every page and leaf term of the shard's index belongs to a
 * segment its structure lists (@ids: pairs, the shard's id first). */
static gboolean
all_pages_listed (Store *store, GArray *ids, gboolean *all, GError **error)
{
  static const char *const pages_sql[] = {
    "SELECT count(*) FROM shard.messages_fts_data WHERE id >= ?1 << " G_STRINGIFY (FTS_SEGID_SHIFT)
    " AND id < (?1 + 1) << " G_STRINGIFY (FTS_SEGID_SHIFT),
    "SELECT count(*) FROM shard.messages_fts_idx WHERE segid = ?1",
  };
  static const char *const totals[] = {
    "SELECT count(*) FROM shard.messages_fts_data WHERE id NOT IN ("
    G_STRINGIFY (FTS_AVERAGES_ROWID) ", " G_STRINGIFY (FTS_STRUCTURE_ROWID) ")",
    "SELECT count(*) FROM shard.messages_fts_idx",
  };

  *all = TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (pages_sql) && *all; k++)
    {
      gint64 total, listed = 0;
      sqlite3_stmt *stmt;
      int rc;

      if (!_store_query_int (store, totals[k], &total, NULL, error))
        return FALSE;
      if ((rc = _store_prepare_sql (store, pages_sql[k], &stmt)) != SQLITE_OK)
        return _store_fail (store, rc, "cannot read the full-text index", error);
      for (guint i = 0; rc == SQLITE_OK && i < ids->len; i += 2)
        {
          sqlite3_bind_int64 (stmt, 1, (gint64) g_array_index (ids, guint64, i));
          if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
            {
              listed += sqlite3_column_int64 (stmt, 0);
              rc = SQLITE_OK;
            }
          sqlite3_reset (stmt);
        }
      sqlite3_finalize (stmt);
      if (rc != SQLITE_OK)
        return _store_fail (store, rc, "cannot read the full-text index", error);
      *all = listed == total;
    }
  return TRUE;
}

/* Whether every leaf the shard's structure lists is there: a segment's
 * leaves are the pages from its first to its last, one rowid each. */
static gboolean
all_leaves_there (Store *store, const StoreFtsStructure *s, gboolean *all, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = _store_prepare_sql (store, "SELECT count(*) FROM shard.messages_fts_data"
                               " WHERE id BETWEEN (?1 << " G_STRINGIFY (FTS_SEGID_SHIFT) ") + ?2"
                               " AND (?1 << " G_STRINGIFY (FTS_SEGID_SHIFT) ") + ?3", &stmt);

  *all = TRUE;
  for (guint i = 0; rc == SQLITE_OK && *all && i < s->n_levels; i++)
    for (guint j = 0; rc == SQLITE_OK && *all && j < s->levels[i].segments->len; j++)
      {
        const StoreFtsSegment *seg = &g_array_index (s->levels[i].segments, StoreFtsSegment, j);

        if (seg->first < 1 || seg->last < seg->first || seg->last >= G_GUINT64_CONSTANT (1) << 31)
          {
            *all = FALSE;
            break;
          }
        sqlite3_bind_int64 (stmt, 1, (gint64) seg->id);
        sqlite3_bind_int64 (stmt, 2, (gint64) seg->first);
        sqlite3_bind_int64 (stmt, 3, (gint64) seg->last);
        if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
          {
            *all = sqlite3_column_int64 (stmt, 0) == (gint64) (seg->last - seg->first + 1);
            rc = SQLITE_OK;
          }
        sqlite3_reset (stmt);
      }
  if (stmt)
    sqlite3_finalize (stmt);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot read the full-text index", error);
}

/**
 * _store_fts_copy:
 * @from: a shard's index (attached as "shard" or @store->shard_schema),
 *   or the one made beside an ingest's writer (attached as "fts_side":
 *   store-fts-side.c)
 * @segments: (out) (optional): how many segments the index here has
 *   after the copy
 * @why: (out): why the index was not copied (a static string; nothing
 *   was written then), or %NULL when it was
 *
 * Adds that index to the one here, in the transaction under way.  Every
 * message it holds must be here under its own id (a shard's after every
 * id that was here), and this connection must not have used
 * messages_fts before (see above).  A shard's copy that leaves more than
 * FTS_SEGMENTS_BEFORE_OPTIMIZE segments has FTS5 optimize the index; the
 * side's leaves that to its caller, which must not use messages_fts on
 * this connection.
 *
 * Returns: %FALSE with @error when SQLite fails (roll back then)
 */
gboolean
_store_fts_copy (Store *store, StoreFtsCopyFrom from, guint *segments, const char **why, GError **error)
{
  StoreFtsStructure here = { 0 }, there = { 0 };
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GByteArray) averages = NULL, structure = NULL;
  gboolean ok = TRUE, known;

  if (segments)
    *segments = 0;
  /* Read and checked first: nothing is written unless all of it can be */
  if (!check_declaration (store, from, why, error))
    return FALSE;
  if (*why == NULL && !read_structure (store, FALSE, &here, &known, error))
    return FALSE;
  if (*why == NULL && !known)
    *why = "the full-text index here is not in a format this deja knows";
  if (*why == NULL && !read_structure (store, TRUE, &there, &known, error))
    ok = FALSE;
  else if (*why == NULL && !known)
    *why = "its full-text index is not in a format this deja knows";
  else if (*why == NULL && !_store_fts_structure_add (&here, &there, ids))
    *why = "the full-text index would have too many segments";
  else if (*why == NULL && (ok = all_leaves_there (store, &there, &known, error)) && !known)
    *why = "its full-text index lacks pages its structure lists";
  _store_fts_structure_clear (&there);
  if (ok && *why == NULL && (ok = all_pages_listed (store, ids, &known, error)) && !known)
    *why = "its full-text index has pages of segments it does not list";
  if (ok && *why == NULL && (ok = add_averages (store, from, &averages, error)) && averages == NULL)
    *why = "its full-text index has an averages record this deja cannot read";
  if (ok && *why == NULL)
    structure = _store_fts_structure_encode (&here);
  if (!ok || *why != NULL)
    {
      _store_fts_structure_clear (&here);
      return ok;
    }

  /* The tables of a virtual table take writes from its module only, in
   * SQLite's defensive mode (store-safe.c): off for these statements. */
  sqlite3_db_config (store->db, SQLITE_DBCONFIG_DEFENSIVE, 0, NULL);
  for (guint i = 0; ok && i < ids->len; i += 2)
    {
      gint64 old_id = (gint64) g_array_index (ids, guint64, i), here_id = (gint64) g_array_index (ids, guint64, i + 1);

      ok = exec_bound (store, "INSERT INTO main.messages_fts_data (id, block)"
                       " SELECT (?2 << " G_STRINGIFY (FTS_SEGID_SHIFT) ")"
                       " | (id & ((1 << " G_STRINGIFY (FTS_SEGID_SHIFT) ") - 1)), block"
                       " FROM shard.messages_fts_data WHERE id >= ?1 << " G_STRINGIFY (FTS_SEGID_SHIFT)
                       " AND id < (?1 + 1) << " G_STRINGIFY (FTS_SEGID_SHIFT), old_id, here_id, error) &&
           exec_bound (store, "INSERT INTO main.messages_fts_idx (segid, term, pgno)"
                       " SELECT ?2, term, pgno FROM shard.messages_fts_idx WHERE segid = ?1",
                       old_id, here_id, error);
    }
  ok = ok && exec_bound (store, "INSERT INTO main.messages_fts_docsize (id, sz)"
                         " SELECT id, sz FROM shard.messages_fts_docsize", 0, 0, error) &&
       write_record (store, FTS_AVERAGES_ROWID, averages, error) &&
       write_record (store, FTS_STRUCTURE_ROWID, structure, error);
  if (sqlite3_db_config (store->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK && ok)
    ok = _store_fail (store, SQLITE_ERROR, "cannot set the connection up safely again", error);
  /* FTS5 takes no writes past FTS_MAX_SEGMENT segments: one segment
   * again, made by FTS5 itself (which reads the records written above). */
  if (segments)
    *segments = _store_fts_structure_segments (&here);
  if (ok && from == STORE_FTS_COPY_SHARD && _store_fts_structure_segments (&here) > FTS_SEGMENTS_BEFORE_OPTIMIZE)
    {
      store->fts_used = TRUE;
      ok = exec_bound (store, "INSERT INTO main.messages_fts (messages_fts) VALUES ('optimize')", 0, 0, error);
    }
  _store_fts_structure_clear (&here);
  return ok;
}
