/* store-thread.c — threading's reads and writes.
 *
 * Threading sees cross-file references and duplicates, so its input is
 * the whole database, or one batch of whole connected components of it
 * (store-thread-batches.c): for each message, its Message-ID, date,
 * subject, references and a hash of its content, handed to the pipeline
 * row by row (pipeline/threads.c keeps them).  The results are written
 * back in one transaction, replacing those of the previous threading.
 * A catalog's batch is read in its shards themselves where it can be
 * (load_in_shards()).
 */
#include "store-private.h"
#include "fnv.h"
#include "id-hash.h"

#include <string.h>

/* deja_content_hash(a, b, …): FNV-1a over the arguments' text, to tell
 * copies of a Message-ID with different content apart without loading
 * every body into memory. */
static void
content_hash (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  guint64 h = FNV_START;

  for (int i = 0; i < argc; i++)
    h = fnv_field (h, (const char *) sqlite3_value_text (argv[i]), sqlite3_value_bytes (argv[i]));
  sqlite3_result_int64 (ctx, (sqlite3_int64) h);
}

/* The same hash, in C, of an id column (0 is NULL) or a text column. */
static guint64
fnv_id (guint64 h, gint64 id)
{
  char digits[32];

  if (id == 0)
    return fnv_field (h, NULL, 0);
  return fnv_field (h, digits, _store_decimal (digits, id));
}

static guint64
fnv_text (guint64 h, const char *s)
{
  return fnv_field (h, s, s ? strlen (s) : 0);
}

/**
 * store_find_canonical_id:
 * @message_id: a normalised Message-ID
 * @func: called with the canonical message of @message_id, when one is
 *   stored: its Message-ID, id, thread (its own id when not threaded
 *   yet), date and content hash (as threading compares copies); the
 *   strings are borrowed for the call
 *
 * What the ingest-time thread guess (pipeline/thread-guess.c) asks about
 * the messages stored before it: one index lookup each.
 */
gboolean
store_find_canonical_id (Store *store, const char *message_id, StoreIdFunc func,
                         gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt = store->stmts[STMT_FIND_CANONICAL];
  int rc;

  sqlite3_bind_text (stmt, 1, message_id, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    func ((const char *) sqlite3_column_text (stmt, 0), sqlite3_column_int64 (stmt, 1),
          sqlite3_column_int64 (stmt, 2), (const char *) sqlite3_column_text (stmt, 3),
          (guint64) sqlite3_column_int64 (stmt, 4), user_data);
  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read message ids", error);
}

/**
 * store_has_messages:
 * @any: (out): whether any message is stored
 */
gboolean
store_has_messages (Store *store, gboolean *any, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM messages LIMIT 1", &one, any, error);
}

gboolean
_store_register_functions (Store *store, GError **error)
{
  int rc = _store_register_content_hash (store->db);

  if (rc == SQLITE_OK)
    rc = _store_register_sender_group (store->db);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot register functions", error);
}

/* deja_content_hash() on @db: a store's, or a shard's a catalog reads
 * threading's columns in (store-shards.c) */
int
_store_register_content_hash (sqlite3 *db)
{
  return sqlite3_create_function (db, "deja_content_hash", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                  content_hash, NULL, NULL);
}

/* (@subjects: the parameter that says whether subjects are read) */
#define THREAD_COLUMNS_ASKING(subjects) \
  "SELECT m.id, m.message_id, m.date, CASE WHEN " subjects " THEN m.subject END," \
  " coalesce(m.content_hash, deja_content_hash(m.from_addr, m.subject, m.body))," \
  " deja_content_hash(m.thread_id, m.parent_id, m.duplicate_of, m.missing_parent," \
  " m.thread_flags), coalesce(m.text_damage, 0)"
#define THREAD_COLUMNS THREAD_COLUMNS_ASKING ("?1")

/* What threading reads, of every message ([0]) or of one batch ([1],
 * store-thread-batches.c). */
static const char *const messages_sql[2] = {
  THREAD_COLUMNS " FROM messages m ORDER BY m.id",
  THREAD_COLUMNS " FROM temp.thread_batch b JOIN messages m ON m.id = b.id"
  " WHERE b.batch = ?2 ORDER BY m.id",
};
/* A reference that is some author's address in this archive, and no
 * message's Message-ID, is an address an old mailer bracketed into
 * References ("<elloyd@lancaster.lib.pa.us>", twisted-python 2002): it
 * would join unrelated threads through one placeholder, so threading
 * does not read it (message_refs keeps it, as written). */
#define NOT_AN_ADDRESS(r) \
  " (" r " NOT IN (SELECT from_addr FROM messages WHERE from_addr IS NOT NULL)" \
  "  OR " r " IN (SELECT message_id FROM messages WHERE message_id IS NOT NULL))"

/* [catalog][batch]: a catalog's messages are its shards' table
 * (store-shards.c), where SQLite would read every message of every shard
 * to make each list of NOT_AN_ADDRESS; its references are read whole and
 * sorted out by wanted_ref(). */
static const char *const refs_sql[2][2] = {
  {
    "SELECT message_id, kind = 0, ref FROM message_refs WHERE" NOT_AN_ADDRESS ("ref")
    " ORDER BY message_id, kind, position",
    "SELECT r.message_id, r.kind = 0, r.ref"
    " FROM temp.thread_batch b JOIN message_refs r ON r.message_id = b.id"
    " WHERE b.batch = ?1 AND" NOT_AN_ADDRESS ("r.ref")
    " ORDER BY r.message_id, r.kind, r.position",
  },
  {
    "SELECT message_id, kind = 0, ref FROM message_refs ORDER BY message_id, kind, position",
    "SELECT r.message_id, r.kind = 0, r.ref"
    " FROM temp.thread_batch b JOIN message_refs r ON r.message_id = b.id"
    " WHERE b.batch = ?1 ORDER BY r.message_id, r.kind, r.position",
  },
};

/* ---- a catalog's references: NOT_AN_ADDRESS in C ---- */

/* Every shard's senders, from each one's index, at once: each shard's
 * records are bytes (_store_pack_text()) */
static void
convert_sender (sqlite3_stmt *stmt, GArray *bytes)
{
  _store_pack_text (bytes, stmt, 0);
}

static void
take_senders (const GArray *bytes, gpointer senders)
{
  gsize at = 0;

  while (at < bytes->len)
    {
      gint32 length;
      const char *address = _store_unpack_text (bytes, &at, &length);

      g_hash_table_add (senders, g_bytes_new (address, (gsize) length));
    }
}

/* The set's senders (store->senders), read once a connection: a shard's
 * never change while a catalog reads it. */
static gboolean
set_senders (Store *store, GError **error)
{
  g_autofree char *why = NULL;
  GHashTable *senders;
  int rc;

  if (store->senders)
    return TRUE;
  senders = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  rc = _store_shards_scan (store->shards, "SELECT DISTINCT from_addr FROM main.messages WHERE from_addr IS NOT NULL",
                           convert_sender, 1, take_senders, senders, &why);
  if (rc != SQLITE_OK)
    {
      g_hash_table_unref (senders);
      return _store_fail_why (store, rc, why, "cannot read senders", error);
    }
  store->senders = senders;
  return TRUE;
}

/* NOT_AN_ADDRESS of reference @ref (@length bytes) in a catalog: no
 * sender's address, or a message's Message-ID (looked up in each shard's
 * index: a reference that is an address is rare). */
static gboolean
wanted_ref (Store *store, const char *ref, gsize length, gboolean *wanted, GError **error)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static (ref, length);
  sqlite3_stmt *stmt;
  int rc;

  *wanted = !g_hash_table_contains (store->senders, bytes);
  if (*wanted)
    return TRUE;
  rc = _store_cached (store, "SELECT 1 FROM messages WHERE message_id = ?1 LIMIT 1", &stmt);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read references", error);
  sqlite3_bind_text (stmt, 1, ref, (int) length, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  *wanted = rc == SQLITE_ROW;
  sqlite3_reset (stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read references", error);
}

/* Hands reference @ref (@length bytes) of message @message to @reader
 * where threading reads it (NOT_AN_ADDRESS). */
static gboolean
hand_ref (Store *store, gint64 message, gboolean in_reply_to, const char *ref, gsize length,
          const StoreThreadReader *reader, GError **error)
{
  gboolean wanted = TRUE;

  if (ref == NULL)
    return TRUE;
  if (store->catalog && !wanted_ref (store, ref, length, &wanted, error))
    return FALSE;
  if (wanted)
    reader->ref (&(StoreThreadRef) { .message = message, .in_reply_to = in_reply_to, .ref = ref },
                 reader->user_data);
  return TRUE;
}

/* The messages of @batch, or all (-1). */
static gboolean
load_messages (Store *store, gboolean subjects, gint batch, const StoreThreadReader *reader,
               GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, messages_sql[batch >= 0], -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  sqlite3_bind_int (stmt, 1, subjects);
  sqlite3_bind_int (stmt, 2, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreThreadMessage row = {
        .id = sqlite3_column_int64 (stmt, 0),
        .message_id = (const char *) sqlite3_column_text (stmt, 1),
        .date = (const char *) sqlite3_column_text (stmt, 2),
        .subject = (const char *) sqlite3_column_text (stmt, 3),
        .content = (guint64) sqlite3_column_int64 (stmt, 4),
        .stored = (guint64) sqlite3_column_int64 (stmt, 5),
        .damage = (guint) sqlite3_column_int64 (stmt, 6),
      };

      reader->message (&row, reader->user_data);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* References of the same messages, in the same order: for each message
 * its References oldest first, then its In-Reply-To. */
static gboolean
load_refs (Store *store, gint batch, const StoreThreadReader *reader, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, refs_sql[store->catalog][batch >= 0], -1, &stmt, NULL);
  gboolean ok = TRUE;

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read references", error);
  sqlite3_bind_int (stmt, 1, batch);
  while (ok && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *ref = (const char *) sqlite3_column_text (stmt, 2);

      ok = hand_ref (store, sqlite3_column_int64 (stmt, 0), !sqlite3_column_int (stmt, 1), ref,
                     (gsize) sqlite3_column_bytes (stmt, 2), reader, error);
    }
  sqlite3_finalize (stmt);
  if (!ok)
    return FALSE;
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read references", error);
}

/* ---- a catalog's batch read in its shards, at once ---- */

/* The columns a catalog keeps of each message (store-catalog.c:
 * deja_catalog_messages), read with threading's as the shard has them:
 * a row threading changes is then saved without its shard being asked
 * for them again (save_in_catalog()) */
#define SHARD_KEPT_COLUMNS ", m.thread_id, m.parent_id, m.duplicate_of, m.missing_parent, m.thread_flags, m.author_id"
#define N_SHARD_KEPT 6
#define FIRST_SHARD_KEPT 7      /* the column of the first */

/* A message threading read in its shard, and where its values of those
 * columns are in store->thread_shard_values */
typedef struct {
  gint64 id;
  gsize at;
} StoreShardValues;

/* Drops what threading kept of its last load (and store_close()) */
void
_store_forget_shard_values (Store *store)
{
  g_clear_pointer (&store->thread_shard_rows, g_array_unref);
  g_clear_pointer (&store->thread_shard_values, g_byte_array_unref);
}

static int
by_shard_id (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const StoreShardValues *) a)->id, y = ((const StoreShardValues *) b)->id;

  return (x > y) - (x < y);
}

/* The values message @id has in its shard, packed, N_SHARD_KEPT of
 * them; NULL where threading did not read it there */
static const guint8 *
shard_values_of (Store *store, gint64 id)
{
  const StoreShardValues key = { id, 0 };
  const StoreShardValues *found;

  if (store->thread_shard_rows == NULL)
    return NULL;
  found = bsearch (&key, store->thread_shard_rows->data, store->thread_shard_rows->len,
                   sizeof (StoreShardValues), by_shard_id);
  return found ? store->thread_shard_values->data + found->at : NULL;
}

/* What threading reads of the messages of each shard ([0]) or of some
 * ([1]: the ids ?1, a JSON array), on its own tables; ?2 as ?1 of
 * messages_sql */
static const char *const shard_messages_sql[2] = {
  THREAD_COLUMNS_ASKING ("?2") SHARD_KEPT_COLUMNS " FROM main.messages m ORDER BY m.id",
  THREAD_COLUMNS_ASKING ("?2") SHARD_KEPT_COLUMNS " FROM main.messages m"
  " WHERE m.id IN (SELECT value FROM json_each(?1)) ORDER BY m.id",
};
/* and of their references (all: wanted_ref() sorts them) */
static const char *const shard_refs_sql[2] = {
  "SELECT message_id, kind = 0, ref FROM main.message_refs ORDER BY message_id, kind, position",
  "SELECT message_id, kind = 0, ref FROM main.message_refs"
  " WHERE message_id IN (SELECT value FROM json_each(?1)) ORDER BY message_id, kind, position",
};

/* What each shard is asked: its messages of the batch */
typedef struct {
  GHashTable *ids;        /* shard number (gint64 *) -> GString, a JSON array; NULL: all */
  gboolean subjects;
} Asked;

static int
bind_asked (sqlite3_stmt *stmt, gint64 number, gconstpointer data)
{
  const Asked *asked = data;
  int rc = asked->ids ? _store_bind_shard_ids (stmt, 1, asked->ids, number, FALSE) : SQLITE_OK;

  if (rc == SQLITE_OK && (sqlite3_bind_parameter_count) (stmt) >= 2)
    rc = (sqlite3_bind_int) (stmt, 2, asked->subjects);
  return rc;
}

/* Each shard's messages of batch @batch, as JSON arrays in @asked */
static gboolean
ask_batch (Store *store, gint batch, Asked *asked, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT id FROM temp.thread_batch WHERE batch = ?1 ORDER BY id", -1,
                               &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the threading plan", error);
  asked->ids = _store_shard_ids_new ();
  sqlite3_bind_int (stmt, 1, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    _store_shard_ids_add (asked->ids, sqlite3_column_int64 (stmt, 0));
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read the threading plan", error);
  _store_shard_ids_close (asked->ids);
  return TRUE;
}

static void
convert_thread_message (sqlite3_stmt *stmt, GArray *bytes)
{
  _store_pack_int (bytes, (sqlite3_column_int64) (stmt, 0));
  for (int column = 1; column <= 3; column++)
    _store_pack_text (bytes, stmt, column);
  for (int column = 4; column <= 6; column++)
    _store_pack_int (bytes, (sqlite3_column_int64) (stmt, column));
  for (int column = FIRST_SHARD_KEPT; column < FIRST_SHARD_KEPT + N_SHARD_KEPT; column++)
    _store_pack_value (bytes, stmt, column);
}

static void
convert_thread_ref (sqlite3_stmt *stmt, GArray *bytes)
{
  _store_pack_int (bytes, (sqlite3_column_int64) (stmt, 0));
  _store_pack_int (bytes, (sqlite3_column_int) (stmt, 1));
  _store_pack_text (bytes, stmt, 2);
}

/* What a shard's records are handed to */
typedef struct {
  Store *store;
  const StoreThreadReader *reader;
  GError **error;
  gboolean ok;
  GHashTable *changed;    /* id (gint64 *) -> the hash of its thread columns as the catalog
                             holds them (gint64 *), where they are not the shard's */
  gboolean unsorted;      /* the messages kept (keep_shard_values()) came out of id order */
} Handing;

/* The packed values at *@at, kept for message @id */
static void
keep_shard_values (Handing *h, gint64 id, const GArray *bytes, gsize *at)
{
  Store *store = h->store;
  GArray *rows = store->thread_shard_rows;
  StoreShardValues row = { id, store->thread_shard_values->len };
  gsize start = *at;

  for (int k = 0; k < N_SHARD_KEPT; k++)
    *at += _store_packed_value_size ((const guint8 *) bytes->data + *at);
  g_assert (*at <= bytes->len);
  g_byte_array_append (store->thread_shard_values, (const guint8 *) bytes->data + start, (guint) (*at - start));
  if (rows->len > 0 && g_array_index (rows, StoreShardValues, rows->len - 1).id >= id)
    h->unsorted = TRUE;
  g_array_append_val (rows, row);
}

static void
take_thread_messages (const GArray *bytes, gpointer data)
{
  Handing *h = data;
  gsize at = 0;

  while (at < bytes->len)
    {
      StoreThreadMessage row = { .id = _store_unpack_int (bytes, &at) };
      gint32 length;

      row.message_id = _store_unpack_text (bytes, &at, &length);
      row.date = _store_unpack_text (bytes, &at, &length);
      row.subject = _store_unpack_text (bytes, &at, &length);
      row.content = (guint64) _store_unpack_int (bytes, &at);
      row.stored = (guint64) _store_unpack_int (bytes, &at);
      row.damage = (guint) _store_unpack_int (bytes, &at);
      keep_shard_values (h, row.id, bytes, &at);
      if (h->changed)
        {
          const gint64 *here = g_hash_table_lookup (h->changed, &row.id);

          if (here)
            row.stored = (guint64) *here;
        }
      h->reader->message (&row, h->reader->user_data);
    }
}

static void
take_thread_refs (const GArray *bytes, gpointer data)
{
  Handing *h = data;
  gsize at = 0;

  while (h->ok && at < bytes->len)
    {
      gint64 message = _store_unpack_int (bytes, &at);
      gboolean in_reply_to = !_store_unpack_int (bytes, &at);
      gint32 length;
      const char *ref = _store_unpack_text (bytes, &at, &length);

      h->ok = hand_ref (h->store, message, in_reply_to, ref, (gsize) MAX (length, 0), h->reader, h->error);
    }
}

/* The hash of the thread columns (as THREAD_COLUMNS has it) of each
 * message of @batch (-1: any) whose values the catalog changed, as it
 * holds them */
static const char *const changed_sql[2] = {
  "SELECT id, deja_content_hash(thread_id, parent_id, duplicate_of, missing_parent, thread_flags)"
  " FROM main.deja_catalog_messages",
  "SELECT c.id, deja_content_hash(c.thread_id, c.parent_id, c.duplicate_of, c.missing_parent, c.thread_flags)"
  " FROM temp.thread_batch b JOIN main.deja_catalog_messages c ON c.id = b.id WHERE b.batch = ?1",
};

static gboolean
read_changed (Store *store, gint batch, GHashTable **changed, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, changed_sql[batch >= 0], -1, &stmt, NULL);

  *changed = NULL;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  if (batch >= 0)
    sqlite3_bind_int (stmt, 1, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0), hash = sqlite3_column_int64 (stmt, 1);

      if (*changed == NULL)
        *changed = deja_id_table_new (g_free, g_free);
      g_hash_table_insert (*changed, g_memdup2 (&id, sizeof id), g_memdup2 (&hash, sizeof hash));
    }
  sqlite3_finalize (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  g_clear_pointer (changed, g_hash_table_unref);
  return _store_fail (store, rc, "cannot read messages", error);
}

/* load_messages() and load_refs() of a catalog: each shard reads its
 * own, a shard a worker (_store_shards_scan()), instead of each message
 * and its references being asked of its shard by id through deja_shards;
 * the thread columns the catalog changed (deja_catalog_messages) are
 * compared as it holds them (their hash, read here).  Realistic 1 GiB, 2
 * cores: the 43,042 messages of the threads that cross 64 shards and
 * their references in 0.12 s (0.46 s through deja_shards, with
 * NOT_AN_ADDRESS's lists in SQL); the 4,884 of 8 shards in 0.03 s (0.21
 * s).  Where the catalog had changed values already, all went through
 * deja_shards: 'deja thread --subject' on the 64 shards' catalog 4.13 s
 * -> 2.37 s, 'deja thread' after it 5.50 -> 3.73 s; the threads of 1,000
 * shards, in two batches, 3.6-5.1 -> 3.1-3.3 s. */
static gboolean
load_in_shards (Store *store, gboolean subjects, gint batch, const StoreThreadReader *reader, GError **error)
{
  Asked asked = { .ids = NULL, .subjects = subjects };
  Handing handing = { store, reader, error, TRUE, NULL, FALSE };
  g_autofree char *why = NULL;
  int rc;

  _store_forget_shard_values (store);
  if (!read_changed (store, batch, &handing.changed, error))
    return FALSE;
  store->thread_shard_rows = g_array_new (FALSE, FALSE, sizeof (StoreShardValues));
  store->thread_shard_values = g_byte_array_new ();
  if (batch >= 0 && !ask_batch (store, batch, &asked, error))
    {
      g_clear_pointer (&handing.changed, g_hash_table_unref);
      return FALSE;
    }
  rc = _store_shards_scan_bound (store->shards, shard_messages_sql[batch >= 0], bind_asked, &asked,
                                 convert_thread_message, 1, take_thread_messages, &handing, &why);
  if (rc == SQLITE_OK)
    rc = _store_shards_scan_bound (store->shards, shard_refs_sql[batch >= 0], bind_asked, &asked,
                                   convert_thread_ref, 1, take_thread_refs, &handing, &why);
  g_clear_pointer (&asked.ids, g_hash_table_unref);
  g_clear_pointer (&handing.changed, g_hash_table_unref);
  if (handing.unsorted)
    g_array_sort (store->thread_shard_rows, by_shard_id);
  if (!handing.ok)
    return FALSE;   /* (@error says why) */
  return rc == SQLITE_OK ? TRUE : _store_fail_why (store, rc, why, "cannot read messages", error);
}

/* Whether a file was stored after threads were last computed (an ingest
 * stopped between the two). */
gboolean
store_threads_stale (Store *store, gboolean *stale, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'threads'", &one, stale,
                           error);
}

/**
 * store_load_thread_data:
 * @subjects: read subjects too (needed only to join by subject)
 * @batch: a batch of store_plan_threads(), or -1: every message
 * @reader: given each message, then each reference
 *
 * Reads what threading needs, in archive order.
 */
gboolean
store_load_thread_data (Store *store, gboolean subjects, gint batch,
                        const StoreThreadReader *reader, GError **error)
{
  gboolean ok;

  /* A whole-table scan gains nothing from a large page cache, which would
   * only fill with message bodies: read through a small one. */
  _store_scan_cache (store, TRUE);
  if (store->catalog && !set_senders (store, error))
    ok = FALSE;
  else if (store->catalog && store->shards)
    ok = load_in_shards (store, subjects, batch, reader, error);
  else
    ok = load_messages (store, subjects, batch, reader, error) &&
         load_refs (store, batch, reader, error);
  _store_scan_cache (store, FALSE);
  return ok;
}

static void
bind_id_or_null (sqlite3_stmt *stmt, int col, gint64 id)
{
  if (id != 0)
    sqlite3_bind_int64 (stmt, col, id);
  else
    sqlite3_bind_null (stmt, col);
}

/* Is the stored row already what threading found?  Rows are compared by
 * a hash of the five columns (8 bytes a message instead of the values). */
static gboolean
unchanged (const StoreThreadRow *row)
{
  guint64 h = fnv_id (fnv_id (fnv_id (FNV_START, row->thread_id), row->parent_id),
                      row->duplicate_of);

  h = fnv_text (fnv_text (h, row->missing_parent), row->flags);
  return h == row->stored;
}

/* How each changed row is saved: an UPDATE of messages; in a catalog,
 * a row of catalog_save_sql's, given to the shards' table with the
 * values the shard has (_store_shards_update_begin()): each UPDATE of the
 * catalog's messages looked the row up in its shard twice, and the rows
 * written at once through a TEMP table asked each shard for them again
 * (realistic 1 GiB in 1,000 shards, 140,000 rows: 1.1 s). */
static const char update_sql[] =
  "UPDATE messages SET thread_id = ?2, parent_id = ?3, duplicate_of = ?4, missing_parent = ?5,"
  " thread_flags = ?6 WHERE id = ?1";
static const char catalog_save_sql[] =
  "SELECT ?1, ?2 AS thread_id, ?3 AS parent_id, ?4 AS duplicate_of, ?5 AS missing_parent,"
  " ?6 AS thread_flags, ?7 AS \"shard.thread_id\", ?8 AS \"shard.parent_id\","
  " ?9 AS \"shard.duplicate_of\", ?10 AS \"shard.missing_parent\", ?11 AS \"shard.thread_flags\","
  " ?12 AS \"shard.author_id\"";

/* @row as parameters 1 to 6 of either */
static void
bind_thread_row (sqlite3_stmt *stmt, const StoreThreadRow *row)
{
  sqlite3_bind_int64 (stmt, 1, row->id);
  bind_id_or_null (stmt, 2, row->thread_id);
  bind_id_or_null (stmt, 3, row->parent_id);
  bind_id_or_null (stmt, 4, row->duplicate_of);
  _store_bind_text_or_null (stmt, 5, row->missing_parent);
  _store_bind_text_or_null (stmt, 6, row->flags);
}

/* A catalog's changed rows of @rows: each with its shard's values as
 * threading read them there (a row it did not read there is asked of its
 * shard) */
static int
save_in_catalog (Store *store, const StoreThreadRow *rows, gsize n, gsize *changed, char **why)
{
  sqlite3_stmt *stmt = NULL;
  StoreShardsUpdate *u = NULL;
  int rc = sqlite3_prepare_v2 (store->db, catalog_save_sql, -1, &stmt, NULL);

  if (rc == SQLITE_OK && (u = _store_shards_update_begin (store->db, store->shards, "messages", stmt, why)) == NULL)
    rc = SQLITE_ERROR;
  for (gsize i = 0; i < n && rc == SQLITE_OK; i++)
    {
      const guint8 *shard;

      if (unchanged (&rows[i]))
        continue;
      (*changed)++;
      bind_thread_row (stmt, &rows[i]);
      shard = shard_values_of (store, rows[i].id);
      for (int k = 0; k < N_SHARD_KEPT; k++)
        if (shard)
          {
            _store_bind_packed_value (stmt, 7 + k, shard);
            shard += _store_packed_value_size (shard);
          }
        else
          sqlite3_bind_null (stmt, 7 + k);
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        rc = _store_shards_update_row (u, shard == NULL);
      sqlite3_reset (stmt);
      if (rc == SQLITE_NOTFOUND)
        *why = g_strdup_printf ("no shard has message %" G_GINT64_FORMAT, rows[i].id);
    }
  _store_shards_update_end (u);
  sqlite3_finalize (stmt);
  return rc;
}

/**
 * store_save_threads:
 * @rows: (array length=n): what threading found, inside
 *   store_begin_threads() and store_finish_threads()
 */
gboolean
store_save_threads (Store *store, const StoreThreadRow *rows, gsize n, gsize *changed,
                    GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *changed = 0;
  if (store->catalog && store->shards != NULL)
    {
      g_autofree char *why = NULL;

      rc = save_in_catalog (store, rows, n, changed, &why);
      return rc == SQLITE_OK ? TRUE : _store_fail_why (store, rc, why, "cannot record threads", error);
    }
  rc = sqlite3_prepare_v2 (store->db, update_sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record threads", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < n && rc == SQLITE_DONE; i++)
    {
      if (unchanged (&rows[i]))
        continue;
      (*changed)++;
      bind_thread_row (stmt, &rows[i]);
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record threads", error);
}

/**
 * store_save_thread_placeholders:
 * @rows: (array length=n): inside store_begin_threads() and
 *   store_finish_threads(), which begins by removing the old ones
 */
gboolean
store_save_thread_placeholders (Store *store, const StoreThreadPlaceholderRow *rows, gsize n,
                                GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT OR REPLACE INTO thread_placeholders (message_id, thread_id, children)"
                               " VALUES (?1, ?2, ?3)",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record placeholders", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < n && rc == SQLITE_DONE; i++)
    {
      sqlite3_bind_text (stmt, 1, rows[i].message_id, -1, SQLITE_STATIC);
      bind_id_or_null (stmt, 2, rows[i].thread_id);
      sqlite3_bind_int (stmt, 3, (int) rows[i].children);
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record placeholders", error);
}

static gboolean
exec_foreign_keys_on (Store *store, GError **error)
{
  int rc = sqlite3_exec (store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot check foreign keys again", error);
}

/* Threading's results are written in one transaction: begun here, then
 * each batch's rows, then the newsgroups of duplicates are merged into
 * their canonical copies.
 *
 * Foreign keys are not checked in it: every id it writes is of a row it
 * read in that transaction (BEGIN IMMEDIATE: no other writer), and with
 * the checks on, each UPDATE of a message might fail half-way and so
 * kept the pages it changed in a statement journal, which SQLite keeps
 * in a temporary file past 64 KiB: 1.76 GB written to /var/tmp for the
 * 2,855 rows twisted-python's threading changes.  (Raising that limit,
 * SQLITE_CONFIG_STMTJRNL_SPILL, makes SQLite 3.40.1 fail with "database
 * or disk is full" once a journal does reach it.)  The pragma is a no-op
 * inside a transaction, hence before BEGIN and after COMMIT or ROLLBACK. */
gboolean
store_begin_threads (Store *store, GError **error)
{
  int rc = sqlite3_exec (store->db, "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE;", NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    return TRUE;
  _store_fail (store, rc, "cannot record threads", error);
  store_abort_threads (store);
  return FALSE;
}

/* ---- a catalog's placeholders, taken from its shards ---- */

/* Each shard's placeholders of the threads the plan keeps as the shard
 * made them (?1: the ids of the shard's messages threaded again; a
 * placeholder's thread is a message of its own shard) */
static const char kept_placeholders_sql[] =
  "SELECT message_id, thread_id, children FROM main.thread_placeholders"
  " WHERE thread_id IS NULL OR NOT deja_sorted_ids_have(?1, thread_id)";

static void
convert_placeholder (sqlite3_stmt *stmt, GArray *bytes)
{
  _store_pack_text (bytes, stmt, 0);
  _store_pack_int (bytes, (sqlite3_column_type) (stmt, 1) == SQLITE_NULL);
  _store_pack_int (bytes, (sqlite3_column_int64) (stmt, 1));
  _store_pack_int (bytes, (sqlite3_column_int64) (stmt, 2));
}

typedef struct {
  sqlite3_stmt *insert;
  int rc;
} KeptPlaceholders;

/* A shard's, in the set's order: the first shard's row of a Message-ID
 * is kept, as a merge keeps it */
static void
take_placeholders (const GArray *bytes, gpointer data)
{
  KeptPlaceholders *k = data;
  gsize at = 0;

  while (k->rc == SQLITE_OK && at < bytes->len)
    {
      gint32 length;
      const char *message_id = _store_unpack_text (bytes, &at, &length);
      gboolean no_thread = _store_unpack_int (bytes, &at) != 0;
      gint64 thread_id = _store_unpack_int (bytes, &at);
      gint64 children = _store_unpack_int (bytes, &at);

      if (message_id)
        sqlite3_bind_text (k->insert, 1, message_id, length, SQLITE_STATIC);
      else
        sqlite3_bind_null (k->insert, 1);
      if (no_thread)
        sqlite3_bind_null (k->insert, 2);
      else
        sqlite3_bind_int64 (k->insert, 2, thread_id);
      sqlite3_bind_int64 (k->insert, 3, children);
      k->rc = _store_done (sqlite3_step (k->insert));
      sqlite3_reset (k->insert);
    }
}

static int
bind_threaded_again (sqlite3_stmt *stmt, gint64 number, gconstpointer lists)
{
  return _store_bind_shard_sorted_ids (stmt, 1, (GHashTable *) lists, number);
}

/* The placeholders of the threads a catalog's first threading keeps:
 * read in its shards, a worker a shard, leaving out those of the
 * components threaded again, whose placeholders threading makes.  (They
 * were copied, every one, when each shard was taken, and those deleted
 * here: the realistic 1 GiB in 1,000 shards staged 220,000 rows and kept
 * none, 0.65 s.) */
static gboolean
take_kept_placeholders (Store *store, GError **error)
{
  g_autoptr (GHashTable) lists = _store_shard_sorted_ids_new ();
  g_autofree char *why = NULL;
  KeptPlaceholders k = { NULL, SQLITE_OK };
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT id FROM temp.thread_batch ORDER BY id", -1, &stmt, NULL);

  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      _store_shard_sorted_ids_add (lists, sqlite3_column_int64 (stmt, 0));
      rc = SQLITE_OK;
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot record placeholders", error);
  rc = sqlite3_prepare_v2 (store->db, "INSERT OR IGNORE INTO main.thread_placeholders (message_id, thread_id,"
                           " children) VALUES (?1, ?2, ?3)", -1, &k.insert, NULL);
  if (rc == SQLITE_OK)
    rc = _store_shards_scan_bound (store->shards, kept_placeholders_sql, bind_threaded_again, lists,
                                   convert_placeholder, 1, take_placeholders, &k, &why);
  sqlite3_finalize (k.insert);
  if (rc == SQLITE_OK)
    rc = k.rc;
  return rc == SQLITE_OK ? TRUE : _store_fail_why (store, rc, why, "cannot record placeholders", error);
}

/**
 * store_clear_thread_placeholders:
 * @batches_only: only those of the threads of the messages in the plan's
 *   batches (a partial plan: StoreThreadKeep), not every one
 *
 * After store_begin_threads() and the plan, before the placeholders
 * threading finds are saved.  A placeholder's thread is its first
 * message's, which is in the same component: a plan that keeps a
 * component as it is keeps its placeholders, and the others go.  That
 * thread's id is its root's, a message of the component too, so the
 * batches' ids tell which go without reading a message (the threads of
 * the batches' messages did: in a catalog, every message of every shard
 * read for it, 0.10-0.14 s of the realistic 1 GiB's).
 */
gboolean
store_clear_thread_placeholders (Store *store, gboolean batches_only, GError **error)
{
  static const char *const clear_sql[2] = {
    "DELETE FROM thread_placeholders",
    "DELETE FROM thread_placeholders WHERE thread_id IN (SELECT id FROM temp.thread_batch)",
  };
  int rc;

  if (store->placeholders_in_shards)
    {
      store->placeholders_in_shards = FALSE;
      return batches_only ? take_kept_placeholders (store, error) : TRUE;
    }
  rc = sqlite3_exec (store->db, clear_sql[batches_only != FALSE], NULL, NULL, NULL);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot record placeholders", error);
}

/**
 * store_threads_by_subject:
 * @by_subject: (out): whether the last threading joined threads by
 *   subject (deja thread --subject), which later ingests keep doing
 */
gboolean
store_threads_by_subject (Store *store, gboolean *by_subject, GError **error)
{
  gint64 one;

  return _store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'threading'"
                           " AND value = 'subject'", &one, by_subject, error);
}

/* Commits threading, recording its mode (@by_subject) for the next one. */
gboolean
store_finish_threads (Store *store, gboolean by_subject, GError **error)
{
  static const char *const mode_sql[2] = {
    "DELETE FROM deja_state WHERE key = 'threading'",
    "INSERT OR REPLACE INTO deja_state (key, value) VALUES ('threading', 'subject')",
  };
  static const char merge_groups[] =
    "DELETE FROM message_newsgroups WHERE merged = 1;"
    "INSERT OR IGNORE INTO message_newsgroups (message_id, newsgroup_id, merged)"
    " SELECT d.duplicate_of, mg.newsgroup_id, 1 FROM messages d"
    " JOIN message_newsgroups mg ON mg.message_id = d.id WHERE d.duplicate_of IS NOT NULL;"
    "DELETE FROM deja_state WHERE key = 'threads';";
  int rc;

  _store_forget_shard_values (store);
  if ((rc = sqlite3_exec (store->db, merge_groups, NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot merge newsgroups", error);
  else if ((rc = sqlite3_exec (store->db, mode_sql[by_subject != FALSE], NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot record the threading mode", error);
  else if ((rc = sqlite3_exec (store->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
    _store_fail (store, rc, "cannot commit threads", error);
  else
    return exec_foreign_keys_on (store, error);
  store_abort_threads (store);
  return FALSE;
}

void
store_abort_threads (Store *store)
{
  _store_forget_shard_values (store);
  if (sqlite3_get_autocommit (store->db) == 0)
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec (store->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
}
