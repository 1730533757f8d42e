/* store-thread.c — threading's reads and writes.
 *
 * Threading sees every message at once (cross-file references and
 * duplicates), so its input is loaded whole: for each message, its
 * Message-ID, date, subject, references and a hash of its content; the
 * strings live in one GStringChunk.  The results are written back in one
 * transaction, replacing those of the previous threading.
 */
#include "store-private.h"

#include <string.h>

/* deja_content_hash(a, b, …): FNV-1a over the arguments' text, to tell
 * copies of a Message-ID with different content apart without loading
 * every body into memory. */
static void
content_hash (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  guint64 h = 14695981039346656037ull;

  for (int i = 0; i < argc; i++)
    {
      const unsigned char *s = sqlite3_value_text (argv[i]);
      int n = sqlite3_value_bytes (argv[i]);

      for (int k = 0; s && k < n; k++)
        h = (h ^ s[k]) * 1099511628211ull;
      h = (h ^ 0xff) * 1099511628211ull;     /* field separator */
    }
  sqlite3_result_int64 (ctx, (sqlite3_int64) h);
}

/* Threading runs over the whole database after an ingest, and an UPDATE
 * rewrites a message row whole, body included.  So each message is
 * stored with where threading will most likely put it: under its parent
 * when the parent is already stored, in a thread of its own otherwise.
 * In archives where parents come before replies (almost all), threading
 * then finds nearly every row already right and rewrites only the rest. */
typedef struct {
  gint64 id, thread;
  char *date;
} StoreKnown;

static void
known_free (StoreKnown *k)
{
  g_free (k->date);
  g_free (k);
}

static void
known_add (Store *store, const char *message_id, gint64 id, gint64 thread, const char *date)
{
  StoreKnown *k = g_new (StoreKnown, 1);

  *k = (StoreKnown) { id, thread, g_strdup (date) };
  g_hash_table_insert (store->known, g_strdup (message_id), k);
}

/* Loads the canonical messages' ids, threads and dates by Message-ID. */
gboolean
_store_known_load (Store *store, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT message_id, id, coalesce(thread_id, id), date FROM messages"
                               " WHERE message_id IS NOT NULL AND duplicate_of IS NULL ORDER BY id",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read message ids", error);
  store->known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) known_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *mid = (const char *) sqlite3_column_text (stmt, 0);
      if (!g_hash_table_contains (store->known, mid))
        known_add (store, mid, sqlite3_column_int64 (stmt, 1), sqlite3_column_int64 (stmt, 2),
                   (const char *) sqlite3_column_text (stmt, 3));
    }
  sqlite3_finalize (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  g_clear_pointer (&store->known, g_hash_table_unref);
  return _store_fail (store, rc, "cannot read message ids", error);
}

/* The same rules as parsers/thread.c, for one message seen in order. */
void
_store_guess_thread (Store *store, gint64 id, const MailRecord *r, StoreThreadGuess *g)
{
  StoreKnown *self = r->message_id ? g_hash_table_lookup (store->known, r->message_id) : NULL;
  const char *ref = thread_parent_reference (r->references, r->in_reply_to, r->message_id);
  StoreKnown *parent = ref ? g_hash_table_lookup (store->known, ref) : NULL;
  ThreadFlags flags = 0;

  *g = (StoreThreadGuess) { id, 0, 0, NULL, NULL };
  if (self != NULL)
    {
      g->duplicate_of = self->id;
      g->thread_id = self->thread;
      g->flags = thread_flags_to_string (THREAD_FLAG_DUPLICATE);
      return;
    }
  if (parent != NULL)
    {
      g->parent_id = parent->id;
      g->thread_id = parent->thread;
      if (thread_date_before (r->date, parent->date))
        flags |= THREAD_FLAG_TIME_TRAVEL;
    }
  else if (ref != NULL)
    {
      g->missing_parent = ref;
      flags |= THREAD_FLAG_ORPHAN;
    }
  g->flags = thread_flags_to_string (flags);
  if (r->message_id)
    known_add (store, r->message_id, id, g->thread_id, r->date);
}

gboolean
_store_register_functions (Store *store, GError **error)
{
  int rc = sqlite3_create_function (store->db, "deja_content_hash", -1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, content_hash,
                                    NULL, NULL);

  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot register functions", error);
}

void
store_thread_data_clear (StoreThreadData *data)
{
  for (gsize i = 0; data->inputs && i < data->inputs->len; i++)
    {
      ThreadInput *in = &g_array_index (data->inputs, ThreadInput, i);
      g_clear_pointer (&in->references, g_ptr_array_unref);
      g_clear_pointer (&in->in_reply_to, g_ptr_array_unref);
    }
  g_clear_pointer (&data->inputs, g_array_unref);
  g_clear_pointer (&data->ids, g_array_unref);
  g_clear_pointer (&data->stored, g_array_unref);
  g_clear_pointer (&data->strings, g_string_chunk_free);
}

static const char *
chunk_text (StoreThreadData *data, sqlite3_stmt *stmt, int col)
{
  const char *s = (const char *) sqlite3_column_text (stmt, col);

  return s ? g_string_chunk_insert_const (data->strings, s) : NULL;
}

static gboolean
load_messages (Store *store, StoreThreadData *data, gboolean subjects, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT id, message_id, date, CASE WHEN ?1 THEN subject END,"
                               " deja_content_hash(from_addr, subject, body),"
                               " coalesce(thread_id, 0), coalesce(parent_id, 0), coalesce(duplicate_of, 0),"
                               " missing_parent, thread_flags FROM messages ORDER BY id",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  sqlite3_bind_int (stmt, 1, subjects);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      ThreadInput in = { chunk_text (data, stmt, 1), NULL, NULL, chunk_text (data, stmt, 2),
                         chunk_text (data, stmt, 3), (guint64) sqlite3_column_int64 (stmt, 4) };

      StoreThreadRow now = { sqlite3_column_int64 (stmt, 5), sqlite3_column_int64 (stmt, 6),
                             sqlite3_column_int64 (stmt, 7), chunk_text (data, stmt, 8),
                             chunk_text (data, stmt, 9) };

      g_array_append_val (data->ids, id);
      g_array_append_val (data->inputs, in);
      g_array_append_val (data->stored, now);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* References, walked in step with the messages (both in id order). */
static gboolean
load_refs (Store *store, StoreThreadData *data, GError **error)
{
  sqlite3_stmt *stmt;
  gsize i = 0;
  int rc = sqlite3_prepare_v2 (store->db,
                               "SELECT message_id, kind = 'references', ref FROM refs"
                               " ORDER BY message_id, kind, position",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read references", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      ThreadInput *in;
      GPtrArray **list;

      while (i < data->ids->len && g_array_index (data->ids, gint64, i) < id)
        i++;
      if (i == data->ids->len || g_array_index (data->ids, gint64, i) != id)
        continue;
      in = &g_array_index (data->inputs, ThreadInput, i);
      list = sqlite3_column_int (stmt, 1) ? &in->references : &in->in_reply_to;
      if (*list == NULL)
        *list = g_ptr_array_new ();
      g_ptr_array_add (*list, (gpointer) chunk_text (data, stmt, 2));
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read references", error);
}

/* Loads what threading needs, for every message, in archive order
 * (subjects only when @subjects: they are needed only to join by subject). */
gboolean
store_load_thread_data (Store *store, gboolean subjects, StoreThreadData *data, GError **error)
{
  memset (data, 0, sizeof *data);
  data->inputs = g_array_new (FALSE, TRUE, sizeof (ThreadInput));
  data->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  data->stored = g_array_new (FALSE, FALSE, sizeof (StoreThreadRow));
  data->strings = g_string_chunk_new (1024 * 1024);
  if (load_messages (store, data, subjects, error) && load_refs (store, data, error))
    return TRUE;
  store_thread_data_clear (data);
  return FALSE;
}

static void
bind_id_or_null (sqlite3_stmt *stmt, int col, const StoreThreadData *data, gint64 index)
{
  if (index >= 0)
    sqlite3_bind_int64 (stmt, col, g_array_index (data->ids, gint64, index));
  else
    sqlite3_bind_null (stmt, col);
}

static gint64
id_or_zero (const StoreThreadData *data, gint64 index)
{
  return index >= 0 ? g_array_index (data->ids, gint64, index) : 0;
}

/* Is the stored row already what threading found? */
static gboolean
unchanged (const StoreThreadData *data, gsize i, const ThreadOutput *o, const char *flags)
{
  const StoreThreadRow *now = &g_array_index (data->stored, StoreThreadRow, i);

  return now->thread_id == id_or_zero (data, o->thread) && now->parent_id == id_or_zero (data, o->parent) &&
         now->duplicate_of == id_or_zero (data, o->duplicate_of) &&
         g_strcmp0 (now->missing_parent, o->missing_parent) == 0 && g_strcmp0 (now->flags, flags) == 0;
}

static gboolean
save_messages (Store *store, const StoreThreadData *data, const ThreadResult *r, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "UPDATE messages SET thread_id = ?1, parent_id = ?2, duplicate_of = ?3,"
                               " missing_parent = ?4, thread_flags = ?5 WHERE id = ?6",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record threads", error);
  rc = SQLITE_DONE;
  for (gsize i = 0; i < data->ids->len; i++)
    {
      const ThreadOutput *o = &r->out[i];
      g_autofree char *flags = thread_flags_to_string (o->flags);

      if (unchanged (data, i, o, flags))
        continue;
      bind_id_or_null (stmt, 1, data, o->thread);
      bind_id_or_null (stmt, 2, data, o->parent);
      bind_id_or_null (stmt, 3, data, o->duplicate_of);
      _store_bind_text_or_null (stmt, 4, o->missing_parent);
      _store_bind_text_or_null (stmt, 5, flags);
      sqlite3_bind_int64 (stmt, 6, g_array_index (data->ids, gint64, i));
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
      if (rc != SQLITE_DONE)
        break;
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record threads", error);
}

static gboolean
save_placeholders (Store *store, const StoreThreadData *data, const ThreadResult *r, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db,
                               "INSERT OR REPLACE INTO thread_placeholders (message_id, thread_id, children)"
                               " VALUES (?1, ?2, ?3)",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot record placeholders", error);
  rc = SQLITE_DONE;
  for (guint i = 0; i < r->placeholders->len && rc == SQLITE_DONE; i++)
    {
      const ThreadPlaceholder *p = &g_array_index (r->placeholders, ThreadPlaceholder, i);

      sqlite3_bind_text (stmt, 1, p->message_id, -1, SQLITE_STATIC);
      bind_id_or_null (stmt, 2, data, p->thread);
      sqlite3_bind_int (stmt, 3, (int) p->children);
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot record placeholders", error);
}

/* Writes threading's results in one transaction: threads, duplicates
 * (with their newsgroups merged into the canonical copy) and
 * placeholders, replacing the previous ones. */
gboolean
store_save_threads (Store *store, const StoreThreadData *data, const ThreadResult *r,
                    GError **error)
{
  static const char merge_groups[] =
    "DELETE FROM message_newsgroups WHERE merged = 1;"
    "INSERT OR IGNORE INTO message_newsgroups (message_id, newsgroup_id, merged)"
    " SELECT d.duplicate_of, mg.newsgroup_id, 1 FROM messages d"
    " JOIN message_newsgroups mg ON mg.message_id = d.id WHERE d.duplicate_of IS NOT NULL;"
    "DELETE FROM thread_placeholders;";
  int rc;

  if ((rc = sqlite3_exec (store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot record threads", error);
  if (save_messages (store, data, r, error) &&
      ((rc = sqlite3_exec (store->db, merge_groups, NULL, NULL, NULL)) == SQLITE_OK ||
       _store_fail (store, rc, "cannot merge newsgroups", error)) &&
      save_placeholders (store, data, r, error) &&
      ((rc = sqlite3_exec (store->db, "COMMIT", NULL, NULL, NULL)) == SQLITE_OK ||
       _store_fail (store, rc, "cannot commit threads", error)))
    return TRUE;
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  return FALSE;
}
