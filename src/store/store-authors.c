/* store-authors.c — the rows authors are made of, and the tables they
 * are written to.
 *
 * Who is who is decided elsewhere (pipeline/authors.c, with the rules of
 * util/identity.c): this file reads the senders of the messages, people's
 * decisions and the authors as they were, and writes authors,
 * author_addresses and messages.author_id as it is told, in one
 * transaction.
 */
#include "store-private.h"
#include "id-hash.h"
#include "fnv.h"

#include <string.h>

/* Begin, commit, roll back: inside a running transaction, and in one of
 * their own ([TRUE]). */
static const char *const tx_sql[2][3] = {
  { "SAVEPOINT authors", "RELEASE authors", "ROLLBACK TO authors; RELEASE authors" },
  { "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK" },
};

/**
 * store_authors_begin:
 * @force: even when no file was stored since the authors were written
 * @needed: (out): whether the authors are to be written again (when
 *   %FALSE, nothing was begun)
 * @own: (out): whether the transaction is the authors' own (else a
 *   savepoint inside a running one)
 *
 * Begins writing authors: outside a transaction, one that takes the
 * write lock before it reads (a read transaction that then writes fails
 * at once, SQLITE_BUSY, when another deja wrote in between, whatever the
 * busy timeout).  End with store_authors_end().
 */
gboolean
store_authors_begin (Store *store, gboolean force, gboolean *needed, gboolean *own, GError **error)
{
  gint64 one;
  gboolean stale = FALSE;

  *needed = FALSE;
  if (!force && (!_store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'authors'", &one,
                                    &stale, error) || !stale))
    return error == NULL || *error == NULL;
  *own = sqlite3_get_autocommit (store->db) != 0;
  if (sqlite3_exec (store->db, tx_sql[*own][0], NULL, NULL, NULL) != SQLITE_OK)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot begin", error);
  *needed = TRUE;
  return TRUE;
}

/**
 * store_authors_end:
 * @ok: whether everything in between succeeded: commit, else roll back
 *
 * Returns: %FALSE with @error when @ok but the commit failed
 */
gboolean
store_authors_end (Store *store, gboolean own, gboolean ok, GError **error)
{
  if (ok && sqlite3_exec (store->db, tx_sql[own][1], NULL, NULL, NULL) != SQLITE_OK)
    ok = _store_fail (store, sqlite3_errcode (store->db), "cannot commit authors", error);
  if (!ok)
    sqlite3_exec (store->db, tx_sql[own][2], NULL, NULL, NULL);
  _store_forget_authors (store);     /* ids may have moved */
  return ok;
}

/* ---- deja_sender_group(): a sender's rows in one aggregate ---- */

/* What store_author_senders() hands on of each (address, name) took five
 * aggregates, two of them min() and max() of a CASE: 33 ms of a shard's
 * 58,710 rows where reading them took 12 ms, and each group's end freed
 * five contexts (64 shards of the realistic 1 GiB have 168,914 groups).
 * deja_sender_group(distinct, id, date) is all five at once: the rows
 * (count(*)), the distinct ones (sum(distinct)), min(id), and the least
 * and greatest date of the distinct ones, as min() and max() keep them
 * (compared as SQLite compares values of any type: NULL left out,
 * numbers before text before blobs, text and blobs by their bytes; the
 * first of equals kept), each handed on as its text.  Its value is a blob
 * packed as _store_pack_int() and _store_pack_bytes() pack: copies,
 * messages, first id, first date, last date. */
typedef struct {
  int order;               /* 0: none yet; 1 a number, 2 text, 3 a blob */
  gboolean integer;
  gint64 i;
  double r;
  const char *bytes;       /* text or blob: the candidate's, or else the kept copy's */
  gint32 length;
} DateValue;

typedef struct {
  DateValue value;
  char *text;              /* the kept value as text: inline or g_malloc()ed */
  gint32 text_length;
  gsize size;              /* of a g_malloc()ed text; 0: inline */
  char inline_text[40];
} DateKept;

typedef struct {
  gint64 copies, messages, first_id;
  DateKept first, last;
} SenderGroupState;

/* As SQLite compares an integer with a double (sqlite3IntFloatCompare()
 * where there is no long double) */
static int
compare_int_double (gint64 i, double r)
{
  gint64 y;
  double s;

  if (r < -9223372036854775808.0)
    return 1;
  if (r >= 9223372036854775808.0)
    return -1;
  y = (gint64) r;
  if (i != y)
    return i < y ? -1 : 1;
  s = (double) i;
  return (s > r) - (s < r);
}

/* Text compared as SQLite compares it (BINARY), NULL first */
static int
compare_text (const char *a, gint32 a_length, const char *b, gint32 b_length)
{
  int c;

  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);
  c = memcmp (a, b, (gsize) MIN (a_length, b_length));
  return c ? c : (a_length > b_length) - (a_length < b_length);
}

static int
compare_date_values (const DateValue *a, const DateValue *b)
{
  if (a->order != b->order)
    return a->order < b->order ? -1 : 1;
  if (a->order != 1)
    return compare_text (a->bytes, a->length, b->bytes, b->length);   /* (a blob's bytes as text's) */
  if (a->integer && b->integer)
    return (a->i > b->i) - (a->i < b->i);
  if (!a->integer && !b->integer)
    return (a->r > b->r) - (a->r < b->r);
  return a->integer ? compare_int_double (a->i, b->r) : -compare_int_double (b->i, a->r);
}

static void
date_keep_text (DateKept *k, const char *text, gint32 length)
{
  gsize need = (gsize) length + 1;

  if (k->size == 0 && need > sizeof k->inline_text)
    {
      k->text = g_malloc (need);
      k->size = need;
    }
  else if (k->size > 0 && need > k->size)
    {
      k->text = g_realloc (k->text, need);
      k->size = need;
    }
  else if (k->size == 0)
    k->text = k->inline_text;
  memcpy (k->text, text, (gsize) length);
  k->text[length] = '\0';
  k->text_length = length;
}

/* Keeps @value in @k when it is less (@sign -1) or greater (1) than
 * what @k keeps, or the first not NULL.  Returns: FALSE when SQLite had
 * no memory for its text */
static gboolean
date_offer (DateKept *k, sqlite3_value *value, int sign)
{
  int type = sqlite3_value_type (value);
  DateValue c = { 0 };
  const char *text;

  if (type == SQLITE_NULL)
    return TRUE;
  c.order = type == SQLITE_INTEGER || type == SQLITE_FLOAT ? 1 : type == SQLITE_TEXT ? 2 : 3;
  if (type == SQLITE_INTEGER)
    c.integer = TRUE, c.i = sqlite3_value_int64 (value);
  else if (type == SQLITE_FLOAT)
    c.r = sqlite3_value_double (value);
  else
    {
      c.bytes = type == SQLITE_TEXT ? (const char *) sqlite3_value_text (value) : sqlite3_value_blob (value);
      c.length = sqlite3_value_bytes (value);
      if (c.bytes == NULL)
        c.bytes = "", c.length = 0;
    }
  if (k->value.order != 0 && sign * compare_date_values (&c, &k->value) <= 0)
    return TRUE;
  /* (an empty blob's text is empty; no text of anything else: no memory) */
  if ((text = (const char *) sqlite3_value_text (value)) == NULL && sqlite3_value_bytes (value) > 0)
    return FALSE;
  date_keep_text (k, text ? text : "", text ? sqlite3_value_bytes (value) : 0);
  k->value = c;
  if (c.order != 1)
    k->value.bytes = k->text;   /* a blob's bytes are its text's */
  return TRUE;
}

/* deja_sender_group(distinct, id, date [, left out]): @left out, bound
 * with sqlite3_bind_pointer() as "deja_sorted_ids", a GArray of ids in
 * increasing order whose rows are left out (a group of those alone is
 * NULL) */
static void
sender_group_step (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const GArray *left_out = argc > 3 ? sqlite3_value_pointer (argv[3], "deja_sorted_ids") : NULL;
  gint64 id = sqlite3_value_int64 (argv[1]);
  SenderGroupState *g;

  if (left_out && _store_sorted_ids_have (left_out, id))
    return;
  if ((g = sqlite3_aggregate_context (ctx, sizeof *g)) == NULL)
    {
      sqlite3_result_error_nomem (ctx);
      return;
    }
  if (g->copies == 0 || id < g->first_id)
    g->first_id = id;
  g->copies++;
  if (sqlite3_value_int (argv[0]) == 0)
    return;
  g->messages++;
  if (!date_offer (&g->first, argv[2], -1) || !date_offer (&g->last, argv[2], 1))
    sqlite3_result_error_nomem (ctx);
}

static void
date_kept_pack (GArray *bytes, DateKept *k)
{
  _store_pack_bytes (bytes, k->value.order ? k->text : NULL, k->text_length);
  if (k->size > 0)
    g_free (k->text);
}

static void
sender_group_final (sqlite3_context *ctx)
{
  SenderGroupState *g = sqlite3_aggregate_context (ctx, 0);
  GArray *bytes;
  guint length;

  if (g == NULL)
    {
      sqlite3_result_null (ctx);
      return;
    }
  bytes = g_array_sized_new (FALSE, FALSE, 1, 3 * sizeof (gint64) + 64);
  _store_pack_int (bytes, g->copies);
  _store_pack_int (bytes, g->messages);
  _store_pack_int (bytes, g->first_id);
  date_kept_pack (bytes, &g->first);
  date_kept_pack (bytes, &g->last);
  length = bytes->len;
  sqlite3_result_blob64 (ctx, g_array_free (bytes, FALSE), length, g_free);
}

/* deja_sender_group() on @db: a store's, or a shard's a catalog groups
 * senders in (store-shards.c) */
int
_store_register_sender_group (sqlite3 *db)
{
  int rc = SQLITE_OK;

  for (int args = 3; args <= 4 && rc == SQLITE_OK; args++)
    rc = sqlite3_create_function (db, "deja_sender_group", args, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                  sender_group_step, sender_group_final);
  return rc;
}

/* Reads a deja_sender_group() value into @row's counts and dates (its
 * strings borrowed from @data); FALSE when it is not one */
gboolean
_store_sender_group_read (const guint8 *data, gsize size, StoreSenderRow *row)
{
  gint64 numbers[3];
  const char *dates[2];
  gsize at = sizeof numbers;

  if (data == NULL || size < at)
    return FALSE;
  memcpy (numbers, data, sizeof numbers);
  for (int d = 0; d < 2; d++)
    {
      gint32 length;

      if (at + sizeof length > size)
        return FALSE;
      memcpy (&length, data + at, sizeof length);
      at += sizeof length;
      dates[d] = NULL;
      if (length < 0)
        continue;
      if ((gsize) length + 1 > size - at || data[at + (gsize) length] != '\0')
        return FALSE;
      dates[d] = (const char *) data + at;
      at += (gsize) length + 1;
    }
  row->copies = numbers[0];
  row->messages = numbers[1];
  row->first_id = numbers[2];
  row->first_date = dates[0];
  row->last_date = dates[1];
  return at == size;
}

/* ---- a catalog's senders: grouped in each shard at once ---- */

/* What each shard of a catalog groups of its messages (as
 * store_author_senders() does) but of those whose duplicate_of the
 * catalog holds (?1: their ids, left out by the aggregate: as "id NOT IN
 * (SELECT value FROM json_each(?1))" each row looked its id up in a
 * table made of the list, 10 -> 30 ms a shard of 58,710 rows for 2,000
 * ids), and [1] those, one by one: that column is the catalog's.  The
 * groups are put together by their text, as store_author_senders() hands
 * them on (sqlite3_column_text()): a value of another type in a shard (a
 * stranger's) is grouped with the text it reads as, where SQLite would
 * keep a group of each type. */
static const char *const shard_senders_sql[2] = {
  "SELECT from_addr, from_name, deja_sender_group(duplicate_of IS NULL, id, date, ?1)"
  " FROM main.messages WHERE from_addr IS NOT NULL GROUP BY from_addr, from_name ORDER BY from_addr, from_name",
  "SELECT from_addr, from_name, 1, 0, id, date, date FROM main.messages"
  " WHERE from_addr IS NOT NULL AND id IN (SELECT value FROM json_each(?1))",
};

/* A group of senders' rows: borrowed from a shard's records */
typedef struct {
  const char *address, *name, *first_date, *last_date;
  gint32 address_length, name_length, first_length, last_length;   /* -1: NULL */
  gint64 copies, messages, first_id;
} SenderGroup;

typedef struct {
  GHashTable *changed;        /* id (gint64 *) -> its duplicate_of IS NULL here, + 1 */
  GHashTable *lists;          /* their ids by shard (_store_shard_ids_new()) */
  GHashTable *sorted;         /* and again (_store_shard_sorted_ids_new()) */
  GArray *groups;             /* of SenderGroup */
  GPtrArray *records;         /* the shards' records they point into */
} CatalogSenders;

/* A group ([0]): the address, the name, and deja_sender_group()'s value
 * as it is packed */
static void
convert_sender_group (sqlite3_stmt *stmt, GArray *bytes)
{
  StoreSenderRow row;
  const guint8 *value;
  gsize size;

  if ((sqlite3_column_type) (stmt, 2) == SQLITE_NULL)
    return;   /* every row of the group is the catalog's ([1]) */
  value = (sqlite3_column_blob) (stmt, 2);
  size = (gsize) (sqlite3_column_bytes) (stmt, 2);
  _store_pack_text (bytes, stmt, 0);
  _store_pack_text (bytes, stmt, 1);
  if (!_store_sender_group_read (value, size, &row))
    g_error ("deja_sender_group(): a value that is not its own");
  g_array_append_vals (bytes, value, (guint) size);
}

/* A changed message ([1]), its columns as a group's */
static void
convert_sender_row (sqlite3_stmt *stmt, GArray *bytes)
{
  for (int column = 0; column < 7; column++)
    if (column == 0 || column == 1 || column == 5 || column == 6)
      _store_pack_text (bytes, stmt, column);
    else
      _store_pack_int (bytes, (sqlite3_column_int64) (stmt, column));
}

/* Takes a shard's groups ([0]) or its rows of changed messages ([1]) */
static void
take_sender_groups (const GArray *bytes, CatalogSenders *c, gboolean changed)
{
  gsize at = 0;

  g_ptr_array_add (c->records, g_array_ref ((GArray *) bytes));
  while (at < bytes->len)
    {
      SenderGroup g;

      g.address = _store_unpack_text (bytes, &at, &g.address_length);
      g.name = _store_unpack_text (bytes, &at, &g.name_length);
      g.copies = _store_unpack_int (bytes, &at);
      g.messages = _store_unpack_int (bytes, &at);
      g.first_id = _store_unpack_int (bytes, &at);
      g.first_date = _store_unpack_text (bytes, &at, &g.first_length);
      g.last_date = _store_unpack_text (bytes, &at, &g.last_length);
      if (changed)
        {
          /* one message, distinct where the catalog says so */
          g.messages = GPOINTER_TO_INT (g_hash_table_lookup (c->changed, &g.first_id)) == 2;
          if (!g.messages)
            g.first_date = g.last_date = NULL, g.first_length = g.last_length = -1;
        }
      if (g.address)
        g_array_append_val (c->groups, g);
    }
}

static void
take_unchanged (const GArray *bytes, gpointer data)
{
  take_sender_groups (bytes, data, FALSE);
}

static void
take_changed (const GArray *bytes, gpointer data)
{
  take_sender_groups (bytes, data, TRUE);
}

/* Every shard groups its own, but its changed messages ... */
static int
bind_unchanged (sqlite3_stmt *stmt, gint64 number, gconstpointer data)
{
  return _store_bind_shard_sorted_ids (stmt, 1, ((const CatalogSenders *) data)->sorted, number);
}

/* ... which only the shards that have some read */
static int
bind_changed (sqlite3_stmt *stmt, gint64 number, gconstpointer data)
{
  return _store_bind_shard_ids (stmt, 1, ((const CatalogSenders *) data)->lists, number, FALSE);
}

static int
by_sender (gconstpointer x, gconstpointer y)
{
  const SenderGroup *a = x, *b = y;
  int c = compare_text (a->address, a->address_length, b->address, b->address_length);

  return c ? c : compare_text (a->name, a->name_length, b->name, b->name_length);
}

static int
by_sender_pointer (gconstpointer x, gconstpointer y)
{
  return by_sender (*(SenderGroup *const *) x, *(SenderGroup *const *) y);
}

static guint
sender_hash (gconstpointer x)
{
  const SenderGroup *g = x;

  return (guint) fnv_field (fnv_field (FNV_START, g->address, (gsize) MAX (g->address_length, 0)), g->name,
                            (gsize) MAX (g->name_length, 0));
}

static gboolean
same_sender (gconstpointer a, gconstpointer b)
{
  return by_sender (a, b) == 0;
}

/* min() and max() of text, which leave NULL out */
static void
keep_date (const char **date, gint32 *length, const char *other, gint32 other_length, int sign)
{
  if (other && (*date == NULL || sign * compare_text (other, other_length, *date, *length) < 0))
    *date = other, *length = other_length;
}

/* The groups put together across shards, in the statement's order */
static gboolean
catalog_senders (Store *store, StoreSenderFunc func, gpointer user_data, GError **error)
{
  CatalogSenders c = {
    .changed = deja_id_table_new (g_free, NULL),
    .lists = _store_shard_ids_new (),
    .sorted = _store_shard_sorted_ids_new (),
    .groups = g_array_new (FALSE, FALSE, sizeof (SenderGroup)),
    .records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref),
  };
  g_autofree char *why = NULL;
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT id, duplicate_of IS NULL FROM main.deja_catalog_messages"
                               " ORDER BY id", -1, &stmt, NULL);

  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);

      g_hash_table_insert (c.changed, g_memdup2 (&id, sizeof id), GINT_TO_POINTER (1 + sqlite3_column_int (stmt, 1)));
      _store_shard_ids_add (c.lists, id);
      _store_shard_sorted_ids_add (c.sorted, id);
      rc = SQLITE_OK;
    }
  sqlite3_finalize (stmt);
  _store_shard_ids_close (c.lists);
  if (rc == SQLITE_DONE)
    rc = _store_shards_scan_bound (store->shards, shard_senders_sql[0], bind_unchanged, &c, convert_sender_group, 1,
                                   take_unchanged, &c, &why);
  if (rc == SQLITE_OK)
    rc = _store_shards_scan_bound (store->shards, shard_senders_sql[1], bind_changed, &c, convert_sender_row, 1,
                                   take_changed, &c, &why);
  if (rc == SQLITE_OK)
    {
      /* each (address, name) once, its groups added up into its first;
       * then those in order (fewer than the shards' groups: 5,996
       * addresses have 168,914 groups in 64 shards) */
      g_autoptr (GHashTable) first = g_hash_table_new (sender_hash, same_sender);
      g_autoptr (GPtrArray) sums = g_ptr_array_new ();

      for (guint i = 0; i < c.groups->len; i++)
        {
          SenderGroup *g = &g_array_index (c.groups, SenderGroup, i);
          SenderGroup *sum = g_hash_table_lookup (first, g);

          if (sum == NULL)
            {
              g_hash_table_add (first, g);
              g_ptr_array_add (sums, g);
              continue;
            }
          sum->copies += g->copies;
          sum->messages += g->messages;
          sum->first_id = MIN (sum->first_id, g->first_id);
          keep_date (&sum->first_date, &sum->first_length, g->first_date, g->first_length, 1);
          keep_date (&sum->last_date, &sum->last_length, g->last_date, g->last_length, -1);
        }
      g_ptr_array_sort (sums, by_sender_pointer);
      for (guint i = 0; i < sums->len; i++)
        {
          const SenderGroup *sum = sums->pdata[i];

          if (!func (&(StoreSenderRow) { .address = sum->address, .name = sum->name, .copies = sum->copies,
                                         .messages = sum->messages, .first_id = sum->first_id,
                                         .first_date = sum->first_date, .last_date = sum->last_date },
                     user_data))
            break;
        }
    }
  g_hash_table_unref (c.changed);
  g_hash_table_unref (c.lists);
  g_hash_table_unref (c.sorted);
  g_array_unref (c.groups);
  g_ptr_array_unref (c.records);
  return rc == SQLITE_OK ? TRUE : _store_fail_why (store, rc, why, "cannot read senders", error);
}

/**
 * store_author_senders:
 *
 * Calls @func with every (address, display name) of the messages, in
 * address and name order: how many copies and distinct messages, the
 * first message's id, the first and last date of the distinct ones.
 * A catalog's are grouped in each shard, a worker a CPU, and put
 * together here (realistic 1 GiB, 2 cores: 0.46 -> 0.13 s in 8 shards,
 * 0.49 -> 0.23 s in 64); each group is one aggregate of deja's, which
 * leaves out the rows the catalog holds (deja_sender_group(): the
 * shards' groups 0.14-0.18 -> 0.08-0.09 s in 8 shards, 0.29-0.30 ->
 * 0.15-0.17 s in 64).
 */
gboolean
store_author_senders (Store *store, StoreSenderFunc func, gpointer user_data, GError **error)
{
  static const char sql[] =
    "SELECT from_addr, from_name, deja_sender_group(duplicate_of IS NULL, id, date)"
    " FROM messages WHERE from_addr IS NOT NULL GROUP BY from_addr, from_name"
    " ORDER BY from_addr, from_name";   /* messages_sender: the index alone */
  sqlite3_stmt *stmt;
  int rc;

  if (store->catalog && store->shards)
    return catalog_senders (store, func, user_data, error);
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read senders", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreSenderRow row = {
        .address = (const char *) sqlite3_column_text (stmt, 0),
        .name = (const char *) sqlite3_column_text (stmt, 1),
      };

      if (!_store_sender_group_read (sqlite3_column_blob (stmt, 2), (gsize) sqlite3_column_bytes (stmt, 2), &row))
        g_error ("deja_sender_group(): a value that is not its own");
      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read senders", error);
}

/**
 * store_author_decisions:
 * @func: called with each of people's decisions, in the order they were
 *   made (the strings borrowed for the call)
 */
gboolean
store_author_decisions (Store *store, StoreAuthorDecisionFunc func, gpointer user_data,
                        GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT decision, address, other, note FROM author_decisions"
                                " ORDER BY decided_at, address, other", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read decisions", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *other = (const char *) sqlite3_column_text (stmt, 2);
      StoreAuthorDecisionRow row = {
        .decision = (const char *) sqlite3_column_text (stmt, 0),
        .address = (const char *) sqlite3_column_text (stmt, 1),
        .other = other && *other ? other : NULL,
        .note = (const char *) sqlite3_column_text (stmt, 3),
      };

      func (&row, user_data);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read decisions", error);
}

/**
 * store_authors_keyed:
 * @keyed: (out): whether new authors here get keyed ids
 *   (identity_keyed_id()): those of a shard (its messages' ids are N x
 *   2^32 on: 'deja ingest --shard N'), of a merge of shards, of a catalog
 */
gboolean
store_authors_keyed (Store *store, gboolean *keyed, GError **error)
{
  gint64 shard = 0;

  *keyed = store->catalog || store->first_id > 0;
  if (*keyed)
    return TRUE;
  if (!_store_query_int (store, "SELECT coalesce((SELECT id FROM messages ORDER BY id LIMIT 1), 0) >= 4294967296",
                         &shard, NULL, error))
    return FALSE;
  *keyed = shard != 0;
  return TRUE;
}

/**
 * store_author_previous:
 *
 * Calls @func with (author id, key) for every row of author_addresses as
 * it is: what each address belonged to before.
 */
gboolean
store_author_previous (Store *store, StorePairFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT author_id, address FROM author_addresses", -1,
                                &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read authors", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    if (!func (sqlite3_column_int64 (stmt, 0), (const char *) sqlite3_column_text (stmt, 1), user_data))
      {
        rc = SQLITE_DONE;
        break;
      }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read authors", error);
}

/**
 * store_write_authors:
 * @authors: (array length=n_authors): every author
 * @keys: (array length=n_keys): every sender key (an address, or a
 *   person of a shared address) with its author
 *
 * Replaces authors and author_addresses, and moves messages to their
 * author: those of a key whose author changed (through from_addr), those
 * of a shared address's person by their from_name values, new ones
 * (author_id NULL) through the index.  Between store_authors_begin() and
 * store_authors_end().
 */
gboolean
store_write_authors (Store *store, const StoreAuthorRow *authors, guint n_authors,
                     const StoreAuthorKeyRow *keys, guint n_keys, GError **error)
{
  sqlite3_stmt *insert_author = NULL, *insert_address = NULL, *move = NULL, *move_named = NULL;
  int rc;

  rc = sqlite3_exec (store->db, "DELETE FROM author_addresses; DELETE FROM authors", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO authors (id, name, address, messages, first_date,"
                             " last_date, shared_address) VALUES (:id, :name, :address, :messages,"
                             " :first_date, :last_date, :shared)", -1, &insert_author, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO author_addresses (address, author_id, name,"
                             " messages) VALUES (?, ?, ?, ?)", -1, &insert_address, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "UPDATE messages SET author_id = ?1 WHERE from_addr = ?2"
                             " AND author_id IS NOT ?1", -1, &move, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "UPDATE messages SET author_id = ?1 WHERE from_addr = ?2"
                             " AND from_name IS ?3 AND author_id IS NOT ?1", -1, &move_named, NULL);
  for (guint i = 0; rc == SQLITE_OK && i < n_authors; i++)
    {
      const StoreAuthorRow *a = &authors[i];

      sqlite3_bind_int64 (insert_author, sqlite3_bind_parameter_index (insert_author, ":id"), a->id);
      _store_bind_named (insert_author, ":name", a->name);
      _store_bind_named (insert_author, ":address", a->address);
      sqlite3_bind_int64 (insert_author, sqlite3_bind_parameter_index (insert_author, ":messages"),
                          a->messages);
      _store_bind_named (insert_author, ":first_date", a->first_date);
      _store_bind_named (insert_author, ":last_date", a->last_date);
      _store_bind_named (insert_author, ":shared", a->shared_address);
      rc = _store_done (sqlite3_step (insert_author));
      sqlite3_reset (insert_author);
    }
  for (guint i = 0; rc == SQLITE_OK && i < n_keys; i++)
    {
      const StoreAuthorKeyRow *k = &keys[i];

      sqlite3_bind_text (insert_address, 1, k->key, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (insert_address, 2, k->author_id);
      _store_bind_text_or_null (insert_address, 3, k->name);
      sqlite3_bind_int64 (insert_address, 4, k->messages);
      rc = _store_done (sqlite3_step (insert_address));
      sqlite3_reset (insert_address);
      for (guint n = 0; rc == SQLITE_OK && k->shared && n < k->n_raw_names; n++)
        {
          sqlite3_bind_int64 (move_named, 1, k->author_id);
          sqlite3_bind_text (move_named, 2, k->shared, -1, SQLITE_STATIC);
          _store_bind_text_or_null (move_named, 3, k->raw_names[n]);
          rc = _store_done (sqlite3_step (move_named));
          sqlite3_reset (move_named);
        }
      if (rc == SQLITE_OK && k->shared == NULL && k->previous != 0 && k->previous != k->author_id)
        {
          sqlite3_bind_int64 (move, 1, k->author_id);
          sqlite3_bind_text (move, 2, k->key, -1, SQLITE_STATIC);
          rc = _store_done (sqlite3_step (move));
          sqlite3_reset (move);
        }
    }
  sqlite3_finalize (insert_author);
  sqlite3_finalize (insert_address);
  sqlite3_finalize (move);
  sqlite3_finalize (move_named);
  /* New messages get their address's author; messages without an
   * address, none: those are found by from_addr first, then changed by
   * id (in a catalog, "author_id IS NOT NULL" first read every row whose
   * author it holds from its shard, to look at from_addr: 1,000 shards of
   * the realistic 1 GiB, 173,760 rows, 0.54 -> 0.06 s for both) */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (store->db,
                       "UPDATE messages SET author_id = (SELECT author_id FROM author_addresses"
                       "  WHERE address = messages.from_addr)"
                       " WHERE author_id IS NULL AND from_addr IS NOT NULL;"
                       "UPDATE messages SET author_id = NULL WHERE id IN (SELECT id FROM messages"
                       "  WHERE from_addr IS NULL) AND author_id IS NOT NULL;"
                       "DELETE FROM deja_state WHERE key = 'authors'", NULL, NULL, NULL);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot write authors", error);
}

/* ---- people's decisions ---- */

/**
 * store_set_author_decision:
 * @decision: "merge", "split" or "never"
 * @other: the second address ("merge", "never"); ignored for "split"
 *
 * Keeps a decision, keyed by address, replacing any that contradicts it:
 * a merge undoes a never (and a split of either address), a never or a
 * split undoes a merge.  Authors are brought up to date by the caller
 * (authors_update() with @force, pipeline/authors.c).
 */
gboolean
store_set_author_decision (Store *store, const char *decision, const char *address, const char *other,
                           const char *note, GError **error)
{
  static const char clear_pair[] =
    "DELETE FROM author_decisions WHERE (address = ?1 AND other = ?2) OR (address = ?2 AND other = ?1)";
  static const char clear_split[] =
    "DELETE FROM author_decisions WHERE decision = 'split' AND address IN (?1, ?2)";
  static const char clear_merges[] =
    "DELETE FROM author_decisions WHERE decision = 'merge' AND (address = ?1 OR other = ?1)";
  gboolean split = strcmp (decision, "split") == 0;
  const char *sqls[3] = { NULL, NULL, NULL };
  const char *a = address, *b = split ? "" : other;
  g_autoptr (GDateTime) utc = g_date_time_new_now_utc ();
  g_autofree char *now = g_date_time_format_iso8601 (utc);
  int rc = SQLITE_OK;

  g_return_val_if_fail (split || other != NULL, FALSE);
  if (!split && strcmp (address, other) > 0)
    a = other, b = address;     /* one row per pair, in order */
  if (split)
    sqls[0] = clear_merges, sqls[1] = "DELETE FROM author_decisions WHERE address = ?1 AND other = ''";
  else if (strcmp (decision, "merge") == 0)
    sqls[0] = clear_pair, sqls[1] = clear_split;
  else
    sqls[0] = clear_pair;
  for (int i = 0; rc == SQLITE_OK && i < 3 && sqls[i]; i++)
    {
      sqlite3_stmt *stmt;

      if ((rc = sqlite3_prepare_v2 (store->db, sqls[i], -1, &stmt, NULL)) != SQLITE_OK)
        break;
      sqlite3_bind_text (stmt, 1, a, -1, SQLITE_STATIC);
      if (sqlite3_bind_parameter_count (stmt) >= 2)
        sqlite3_bind_text (stmt, 2, b, -1, SQLITE_STATIC);
      rc = _store_done (sqlite3_step (stmt));
      sqlite3_finalize (stmt);
    }
  if (rc == SQLITE_OK)
    {
      sqlite3_stmt *stmt;

      rc = sqlite3_prepare_v2 (store->db, "INSERT INTO author_decisions (address, other, decision, note,"
                               " decided_at) VALUES (?, ?, ?, ?, ?)", -1, &stmt, NULL);
      if (rc == SQLITE_OK)
        {
          sqlite3_bind_text (stmt, 1, a, -1, SQLITE_STATIC);
          sqlite3_bind_text (stmt, 2, b, -1, SQLITE_STATIC);
          sqlite3_bind_text (stmt, 3, decision, -1, SQLITE_STATIC);
          _store_bind_text_or_null (stmt, 4, note && *note ? note : NULL);
          sqlite3_bind_text (stmt, 5, now, -1, SQLITE_STATIC);
          rc = _store_done (sqlite3_step (stmt));
          sqlite3_finalize (stmt);
        }
    }
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot keep the decision", error);
}

/**
 * store_author_address:
 * @ref: an author ("a12" or "12": its primary address) or an address
 * @address: (out) (transfer full) (nullable): the address, %NULL when
 *   the database has no such author or address
 */
gboolean
store_author_address (Store *store, const char *ref, char **address, GError **error)
{
  const char *digits = ref[0] == 'a' ? ref + 1 : ref;
  gboolean number = *digits != '\0' && strspn (digits, "0123456789") == strlen (digits);
  g_autofree char *lower = g_ascii_strdown (ref, -1);

  *address = NULL;
  if (number)
    return _store_query_text (store, "SELECT address FROM authors WHERE id = ?2", "", g_ascii_strtoll (digits, NULL, 10),
                              address, error);
  return _store_query_text (store, "SELECT address FROM author_addresses WHERE address = ?1", lower, 0,
                            address, error);
}

/* ---- reading ---- */

/* The columns of messages the list of authors reads (every one
 * AUTHORS_LIST_SQL reads of it), copied once into a TEMP table and read
 * there: the list reads messages four times and looks each reply's
 * parent up twice.  Of one database, each reading went through the
 * table's pages with every message's text (realistic 1 GiB: 2.5 s, 2.0-2.2
 * s so); of a catalog, each lookup is a question to a shard (its 64
 * shards: 4.8 s, 2.5-2.6 s so).  Declared as messages declares them, so that
 * each value is the one messages holds (INTEGER affinity given again
 * changes nothing), and so that SQLite indexes the joins on author_id as
 * it does on messages. */
static const char author_rows_copy_sql[] =
  "DROP TABLE IF EXISTS " STORE_AUTHOR_ROWS_COPY ";"
  "CREATE TEMP TABLE deja_author_rows (id INTEGER PRIMARY KEY, thread_id INTEGER, parent_id INTEGER,"
  " duplicate_of INTEGER, author_id INTEGER, lang TEXT);"
  "INSERT INTO " STORE_AUTHOR_ROWS_COPY
  " SELECT id, thread_id, parent_id, duplicate_of, author_id, lang FROM messages ORDER BY id";

/* The list of authors, of messages (MESSAGES "messages", SCAN "NOT
 * INDEXED": every aggregate reads messages in rowid order, CROSS JOIN:
 * through messages_author it re-read each page once per message on it,
 * bench/README.md, sixth session) or of the copy above */
#define AUTHORS_LIST_SQL(MESSAGES, SCAN) \
    "SELECT a.id AS author_id, a.name, a.address," \
    " (SELECT count(*) FROM author_addresses aa WHERE aa.author_id = a.id) AS addresses," \
    " a.messages, coalesce(s.threads_started, 0) AS threads_started," \
    " coalesce(s.replies_given, 0) AS replies_given," \
    " coalesce(r.replies_received, 0) AS replies_received," \
    " a.first_date, a.last_date," \
    " CAST(julianday(substr(a.last_date, 1, 10)) - julianday(substr(a.first_date, 1, 10)) AS INTEGER) + 1" \
    "   AS active_days," \
    " coalesce(g.newsgroups, 0) AS newsgroups," \
    " l.languages, a.shared_address" \
    " FROM authors a" \
    " LEFT JOIN (SELECT m.author_id, sum(m.id = m.thread_id) AS threads_started," \
    "   sum(p.id IS NOT NULL AND p.author_id IS NOT m.author_id) AS replies_given" \
    "   FROM " MESSAGES " m " SCAN " LEFT JOIN " MESSAGES " p ON p.id = m.parent_id" \
    "   WHERE m.duplicate_of IS NULL GROUP BY m.author_id) s ON s.author_id = a.id" \
    " LEFT JOIN (SELECT p.author_id, count(*) AS replies_received" \
    "   FROM " MESSAGES " m " SCAN " CROSS JOIN " MESSAGES " p ON p.id = m.parent_id" \
    "   WHERE m.duplicate_of IS NULL AND m.author_id IS NOT p.author_id GROUP BY p.author_id) r" \
    "   ON r.author_id = a.id" \
    " LEFT JOIN (SELECT m.author_id, count(DISTINCT mg.newsgroup_id) AS newsgroups" \
    "   FROM " MESSAGES " m " SCAN " CROSS JOIN message_newsgroups mg ON mg.message_id = m.id" \
    "   WHERE m.duplicate_of IS NULL GROUP BY m.author_id) g ON g.author_id = a.id" \
    /* the author's languages, most messages first: "en 120, de 3" */ \
    " LEFT JOIN (SELECT author_id, group_concat(lang || ' ' || n, ', ') AS languages" \
    "   FROM (SELECT author_id, lang, count(*) AS n FROM " MESSAGES " " SCAN \
    "     WHERE duplicate_of IS NULL AND lang IS NOT NULL AND lang <> 'und'" \
    "     GROUP BY author_id, lang ORDER BY author_id, n DESC, lang)" \
    "   GROUP BY author_id) l ON l.author_id = a.id" \
    " WHERE a.messages >= ?1" \
    " ORDER BY a.messages DESC, a.address, a.name, a.id"

static const char *const authors_sql[] = {
  [STORE_AUTHORS_LIST] = AUTHORS_LIST_SQL ("messages", "NOT INDEXED"),
  [STORE_AUTHORS_ADDRESSES] =
    "SELECT aa.author_id, aa.address, aa.name, aa.messages, a.address AS primary_address"
    " FROM author_addresses aa"
    " JOIN authors a ON a.id = aa.author_id WHERE a.messages >= ?1"
    " ORDER BY aa.author_id, aa.messages DESC, aa.address",
  [STORE_AUTHORS_DECISIONS] =
    "SELECT address, nullif(other, '') AS other, decision, note, decided_at FROM author_decisions"
    " WHERE ?1 IS NOT NULL ORDER BY decided_at, address, other",
};

static const char authors_list_of_copy_sql[] = AUTHORS_LIST_SQL (STORE_AUTHOR_ROWS_COPY, "");

#define AUTHOR_ROWS_DROP_SQL "DROP TABLE IF EXISTS " STORE_AUTHOR_ROWS_COPY

/* Whether a query may read the copy: the one store_author_rows_hold()
 * keeps, else one made now (@made: then _store_author_rows_end() drops
 * it) */
gboolean
_store_author_rows_begin (Store *store, gboolean *made)
{
  *made = !store->author_rows_held && _store_copy_begin (store, author_rows_copy_sql);
  return store->author_rows_held || *made;
}

void
_store_author_rows_end (Store *store, gboolean made)
{
  if (made)
    _store_copy_end (store, AUTHOR_ROWS_DROP_SQL);
}

/**
 * store_author_rows_hold:
 *
 * Keeps the copy of messages' columns that the list of authors and the
 * roles' replies read (above) until store_author_rows_let_go(), for a
 * command that reads both (deja authors --roles, the report's roles):
 * made once instead of once for each (0.4 s of the realistic 1 GiB), and
 * both read the same snapshot.  Where it cannot be made, each query
 * reads messages, as without it.
 */
void
store_author_rows_hold (Store *store)
{
  if (!store->author_rows_held)
    store->author_rows_held = _store_copy_begin (store, author_rows_copy_sql);
}

void
store_author_rows_let_go (Store *store)
{
  if (store == NULL || !store->author_rows_held)
    return;
  _store_copy_end (store, AUTHOR_ROWS_DROP_SQL);
  store->author_rows_held = FALSE;
}

/**
 * store_authors:
 * @min_messages: LIST and ADDRESSES: leave out authors with fewer
 *   distinct messages
 *
 * LIST reads a copy of the columns of messages it needs, made for it and
 * dropped after; where the copy cannot be made (no temporary file may be
 * written, say), it reads messages itself, as slowly as before: the rows
 * are the same.
 */
gboolean
store_authors (Store *store, StoreAuthors what, gint64 min_messages, StoreRowFunc func,
               gpointer user_data, GError **error)
{
  const char *sql;
  sqlite3_stmt *stmt;
  gboolean made = FALSE, ok;
  int rc;

  g_return_val_if_fail (what < G_N_ELEMENTS (authors_sql), FALSE);
  sql = authors_sql[what];
  if (what == STORE_AUTHORS_LIST && _store_author_rows_begin (store, &made))
    sql = authors_list_of_copy_sql;
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    ok = _store_fail (store, rc, "cannot read authors", error);
  else
    {
      sqlite3_bind_int64 (stmt, 1, min_messages);
      ok = _store_run_rows (store, stmt, func, user_data, "cannot read authors", error);
    }
  _store_author_rows_end (store, made);
  return ok;
}

/* ---- suggestions ---- */

/**
 * store_author_aliases:
 *
 * Calls @func with every row of author_addresses and its author's name,
 * primary address and messages, by author, most used address first.
 */
gboolean
store_author_aliases (Store *store, StoreAliasFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db,
                                "SELECT aa.author_id, aa.address, aa.name, a.name, a.address, a.messages"
                                " FROM author_addresses aa JOIN authors a ON a.id = aa.author_id"
                                " ORDER BY aa.author_id, aa.messages DESC, aa.address", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read authors", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      StoreAliasRow row = {
        .author = sqlite3_column_int64 (stmt, 0),
        .key = (const char *) sqlite3_column_text (stmt, 1),
        .name = (const char *) sqlite3_column_text (stmt, 2),
        .author_name = (const char *) sqlite3_column_text (stmt, 3),
        .author_address = (const char *) sqlite3_column_text (stmt, 4),
        .author_messages = sqlite3_column_int64 (stmt, 5),
      };

      if (!func (&row, user_data))
        {
          rc = SQLITE_DONE;
          break;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read authors", error);
}

/**
 * store_author_bodies:
 *
 * Calls @func with (author id, body) for every distinct message with an
 * author.
 */
gboolean
store_author_bodies (Store *store, StorePairFunc func, gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT author_id, body FROM messages"
                                " WHERE duplicate_of IS NULL AND author_id IS NOT NULL", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    if (!func (sqlite3_column_int64 (stmt, 0), (const char *) sqlite3_column_text (stmt, 1), user_data))
      {
        rc = SQLITE_DONE;
        break;
      }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}
