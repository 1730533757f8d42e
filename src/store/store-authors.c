/* store-authors.c — authors: sender addresses grouped into people.
 *
 * The grouping itself is util/identity.c's; this file reads what it needs
 * from the messages and people's decisions, and writes authors,
 * author_addresses and messages.author_id.  It runs after every ingest
 * that stored a file (deja_state 'authors' is then 'stale'), after every
 * decision, and once when a database made before authors is opened.
 */
#include "store-private.h"
#include "identity.h"

#include <string.h>

/* Per address (or per person of a shared address): what resolution and
 * the tables need. */
typedef struct {
  char *address;            /* the key: the address, or "address (name)" for a shared one */
  char *name;               /* used most with this address */
  gint64 name_count;
  gint64 copies;            /* messages with this address, copies included */
  gint64 messages;          /* distinct (duplicate_of IS NULL) */
  gint64 first_id;
  char *first_date, *last_date;
  char *shared;             /* the shared address this person's messages came from, or NULL */
  GPtrArray *raw_names;     /* shared: the from_name values of its messages (NULL for none) */
} Sender;

static void
sender_free (Sender *s)
{
  g_free (s->address);
  g_free (s->name);
  g_free (s->first_date);
  g_free (s->last_date);
  g_free (s->shared);
  if (s->raw_names)
    g_ptr_array_unref (s->raw_names);
  g_free (s);
}

static void
widen (char **first, char **last, const char *first_date, const char *last_date)
{
  if (first_date && (*first == NULL || strcmp (first_date, *first) < 0))
    g_free (*first), *first = g_strdup (first_date);
  if (last_date && (*last == NULL || strcmp (last_date, *last) > 0))
    g_free (*last), *last = g_strdup (last_date);
}

/* A name wins by count; ties go to the one that sorts first. */
static gboolean
better_name (const char *name, gint64 count, const char *best, gint64 best_count)
{
  return name && (count > best_count || (count == best_count && (best == NULL || strcmp (name, best) < 0)));
}

typedef struct {
  GPtrArray *senders;       /* of Sender, by address */
  GHashTable *name_counts;  /* "address\nname" -> gint64*: every name of every address */
} Senders;

/* One (address, name) row of the messages. */
typedef struct {
  char *name;               /* or NULL */
  gint64 copies, messages, first_id;
  char *first_date, *last_date;
} NameRow;

static void
name_row_clear (NameRow *r)
{
  g_free (r->name);
  g_free (r->first_date);
  g_free (r->last_date);
}

/* Adds @r to @sender (and its name to the counts, under @sender's key). */
static void
add_name_row (Senders *out, Sender *sender, const NameRow *r)
{
  sender->copies += r->copies;
  sender->messages += r->messages;
  sender->first_id = MIN (sender->first_id, r->first_id);
  widen (&sender->first_date, &sender->last_date, r->first_date, r->last_date);
  if (sender->raw_names)
    g_ptr_array_add (sender->raw_names, g_strdup (r->name));
  if (r->name && *r->name)
    {
      g_autofree char *key = g_strconcat (sender->address, "\n", r->name, NULL);
      gint64 *count = g_hash_table_lookup (out->name_counts, key);

      if (count == NULL)
        g_hash_table_insert (out->name_counts, g_steal_pointer (&key), count = g_new0 (gint64, 1));
      *count += r->copies;
      if (better_name (r->name, *count, sender->name, sender->name_count))
        {
          g_free (sender->name);
          sender->name = g_strdup (r->name);
          sender->name_count = *count;
        }
    }
}

static Sender *
sender_new (const char *key, const char *shared)
{
  Sender *s = g_new0 (Sender, 1);

  s->address = g_strdup (key);
  s->first_id = G_MAXINT64;
  if (shared)
    {
      s->shared = g_strdup (shared);
      s->raw_names = g_ptr_array_new_with_free_func (g_free);
    }
  return s;
}

/* The senders of one address: itself, or one per person when several
 * people used it under their own names (identity_shared_split()). */
static void
add_address (Senders *out, const char *address, GArray *rows)
{
  g_autofree const char **names = g_new (const char *, MAX (rows->len, 1));
  g_autofree guint *person = NULL;
  g_autoptr (GPtrArray) people = NULL;
  Sender *nameless = NULL;
  guint n_people;

  for (guint i = 0; i < rows->len; i++)
    names[i] = g_array_index (rows, NameRow, i).name;
  person = identity_shared_split (address, names, rows->len, &n_people);
  if (person == NULL)
    {
      Sender *s = sender_new (address, NULL);

      for (guint i = 0; i < rows->len; i++)
        add_name_row (out, s, &g_array_index (rows, NameRow, i));
      g_ptr_array_add (out->senders, s);
      return;
    }
  people = g_ptr_array_new ();
  for (guint k = 0; k < n_people; k++)
    {
      const char *best = NULL;
      gint64 best_count = 0;
      g_autofree char *lower = NULL, *key = NULL;

      for (guint i = 0; i < rows->len; i++)
        {
          const NameRow *r = &g_array_index (rows, NameRow, i);

          if (person[i] == k && better_name (r->name, r->copies, best, best_count))
            best = r->name, best_count = r->copies;
        }
      lower = g_utf8_strdown (best, -1);
      key = g_strdup_printf ("%s (%s)", address, lower);
      g_ptr_array_add (people, sender_new (key, address));
    }
  /* messages without a name are nobody's we know: the address's own */
  for (guint i = 0; i < rows->len; i++)
    if (person[i] == G_MAXUINT && nameless == NULL)
      nameless = sender_new (address, address);
  for (guint i = 0; i < rows->len; i++)
    add_name_row (out, person[i] == G_MAXUINT ? nameless : people->pdata[person[i]],
                  &g_array_index (rows, NameRow, i));
  for (guint k = 0; k < n_people; k++)
    g_ptr_array_add (out->senders, people->pdata[k]);
  if (nameless)
    g_ptr_array_add (out->senders, nameless);
}

static gboolean
load_senders (Store *store, Senders *out, GError **error)
{
  static const char sql[] =
    "SELECT from_addr, from_name, count(*), sum(duplicate_of IS NULL), min(id),"
    " min(CASE WHEN duplicate_of IS NULL THEN date END),"
    " max(CASE WHEN duplicate_of IS NULL THEN date END)"
    " FROM messages WHERE from_addr IS NOT NULL GROUP BY from_addr, from_name"
    " ORDER BY from_addr, from_name";   /* messages_sender: the index alone */
  sqlite3_stmt *stmt;
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (NameRow));
  g_autofree char *current = NULL;
  int rc;

  g_array_set_clear_func (rows, (GDestroyNotify) name_row_clear);
  if ((rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read senders", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *address = (const char *) sqlite3_column_text (stmt, 0);
      const char *name = (const char *) sqlite3_column_text (stmt, 1);
      NameRow row = {
        .name = g_strdup (name),
        .copies = sqlite3_column_int64 (stmt, 2),
        .messages = sqlite3_column_int64 (stmt, 3),
        .first_id = sqlite3_column_int64 (stmt, 4),
        .first_date = g_strdup ((const char *) sqlite3_column_text (stmt, 5)),
        .last_date = g_strdup ((const char *) sqlite3_column_text (stmt, 6)),
      };

      if (current != NULL && strcmp (current, address) != 0)
        {
          add_address (out, current, rows);
          g_array_set_size (rows, 0);
        }
      if (current == NULL || strcmp (current, address) != 0)
        {
          g_free (current);
          current = g_strdup (address);
        }
      g_array_append_val (rows, row);
    }
  if (current != NULL && rc == SQLITE_DONE)
    add_address (out, current, rows);
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read senders", error);
}

/* Decisions as identity.c takes them; the strings live in @strings. */
static gboolean
load_decisions (Store *store, GArray *decisions, GStringChunk *strings, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT decision, address, other FROM author_decisions"
                                " ORDER BY decided_at, address, other", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read decisions", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *verdict = (const char *) sqlite3_column_text (stmt, 0);
      const char *other = (const char *) sqlite3_column_text (stmt, 2);
      IdentityDecision d = {
        strcmp (verdict, "merge") == 0 ? IDENTITY_MERGE :
        strcmp (verdict, "split") == 0 ? IDENTITY_SPLIT : IDENTITY_NEVER,
        g_string_chunk_insert_const (strings, (const char *) sqlite3_column_text (stmt, 1)),
        other && *other ? g_string_chunk_insert_const (strings, other) : NULL,
      };
      g_array_append_val (decisions, d);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read decisions", error);
}

static gboolean
load_previous (Store *store, GHashTable *previous, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT address, author_id FROM author_addresses", -1,
                                &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read authors", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_hash_table_insert (previous, g_strdup ((const char *) sqlite3_column_text (stmt, 0)),
                         GSIZE_TO_POINTER ((gsize) sqlite3_column_int64 (stmt, 1)));
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read authors", error);
}

/* One author as written. */
typedef struct {
  gint64 id;
  const Sender *primary;
  char *name;
  gint64 name_count;
  gint64 messages;
  char *first_date, *last_date;
} Author;

static void
author_free (Author *a)
{
  g_free (a->name);
  g_free (a->first_date);
  g_free (a->last_date);
  g_free (a);
}

/* Authors from the resolution: the primary address has the most messages
 * (ties: the first in address order; a masked one only when all are);
 * counts and dates summed. */
static GHashTable *
gather_authors (const Senders *in, const gint64 *author_of)
{
  GHashTable *authors = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                               (GDestroyNotify) author_free);

  for (guint i = 0; i < in->senders->len; i++)
    {
      const Sender *s = in->senders->pdata[i];
      Author *a = g_hash_table_lookup (authors, &author_of[i]);

      if (a == NULL)
        {
          a = g_new0 (Author, 1);
          a->id = author_of[i];
          g_hash_table_insert (authors, &a->id, a);
        }
      /* A masked address ("ann...@") is primary only when there is no other. */
      if (a->primary == NULL ||
          (identity_hidden (a->primary->address) && !identity_hidden (s->address)) ||
          (s->copies > a->primary->copies &&
           identity_hidden (s->address) == identity_hidden (a->primary->address)))
        a->primary = s;
      a->messages += s->messages;
      widen (&a->first_date, &a->last_date, s->first_date, s->last_date);
    }
  return authors;
}

static int
by_address (gconstpointer x, gconstpointer y)
{
  return strcmp ((*(Sender *const *) x)->address, (*(Sender *const *) y)->address);
}

static gboolean
write_authors (Store *store, const Senders *in, const gint64 *author_of, GHashTable *authors,
               GHashTable *previous, GError **error)
{
  sqlite3_stmt *insert_author = NULL, *insert_address = NULL, *move = NULL, *move_named = NULL;
  GHashTableIter iter;
  gpointer value;
  int rc;

  rc = sqlite3_exec (store->db, "DELETE FROM author_addresses; DELETE FROM authors", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO authors (id, name, address, messages, first_date,"
                             " last_date, shared_address) VALUES (?, ?, ?, ?, ?, ?, ?)", -1,
                             &insert_author, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO author_addresses (address, author_id, name,"
                             " messages) VALUES (?, ?, ?, ?)", -1, &insert_address, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "UPDATE messages SET author_id = ?1 WHERE from_addr = ?2"
                             " AND author_id IS NOT ?1", -1, &move, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "UPDATE messages SET author_id = ?1 WHERE from_addr = ?2"
                             " AND from_name IS ?3 AND author_id IS NOT ?1", -1, &move_named, NULL);
  g_hash_table_iter_init (&iter, authors);
  while (rc == SQLITE_OK && g_hash_table_iter_next (&iter, NULL, &value))
    {
      Author *a = value;

      sqlite3_bind_int64 (insert_author, 1, a->id);
      sqlite3_bind_text (insert_author, 2, a->name ? a->name : a->primary->address, -1, SQLITE_STATIC);
      sqlite3_bind_text (insert_author, 3, a->primary->address, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (insert_author, 4, a->messages);
      _store_bind_text_or_null (insert_author, 5, a->first_date);
      _store_bind_text_or_null (insert_author, 6, a->last_date);
      _store_bind_text_or_null (insert_author, 7, a->primary->shared);
      rc = _store_done (sqlite3_step (insert_author));
      sqlite3_reset (insert_author);
    }
  for (guint i = 0; rc == SQLITE_OK && i < in->senders->len; i++)
    {
      const Sender *s = in->senders->pdata[i];
      gint64 before = (gint64) GPOINTER_TO_SIZE (g_hash_table_lookup (previous, s->address));

      sqlite3_bind_text (insert_address, 1, s->address, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (insert_address, 2, author_of[i]);
      _store_bind_text_or_null (insert_address, 3, s->name);
      sqlite3_bind_int64 (insert_address, 4, s->messages);
      rc = _store_done (sqlite3_step (insert_address));
      sqlite3_reset (insert_address);
      /* A shared address's messages go to their person by name, every
       * time (new ones too: no author_addresses row has that address). */
      for (guint k = 0; rc == SQLITE_OK && s->raw_names && k < s->raw_names->len; k++)
        {
          sqlite3_bind_int64 (move_named, 1, author_of[i]);
          sqlite3_bind_text (move_named, 2, s->shared, -1, SQLITE_STATIC);
          _store_bind_text_or_null (move_named, 3, s->raw_names->pdata[k]);
          rc = _store_done (sqlite3_step (move_named));
          sqlite3_reset (move_named);
        }
      /* Messages move only when their address changed author; new
       * messages (author_id NULL) are set below, through the index. */
      if (rc == SQLITE_OK && s->shared == NULL && before != 0 && before != author_of[i])
        {
          sqlite3_bind_int64 (move, 1, author_of[i]);
          sqlite3_bind_text (move, 2, s->address, -1, SQLITE_STATIC);
          rc = _store_done (sqlite3_step (move));
          sqlite3_reset (move);
        }
    }
  sqlite3_finalize (insert_author);
  sqlite3_finalize (insert_address);
  sqlite3_finalize (move);
  sqlite3_finalize (move_named);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (store->db,
                       "UPDATE messages SET author_id = (SELECT author_id FROM author_addresses"
                       "  WHERE address = messages.from_addr)"
                       " WHERE author_id IS NULL AND from_addr IS NOT NULL;"
                       "UPDATE messages SET author_id = NULL WHERE author_id IS NOT NULL"
                       "  AND from_addr IS NULL;"
                       "DELETE FROM deja_state WHERE key = 'authors'", NULL, NULL, NULL);
  return rc == SQLITE_OK ? TRUE : _store_fail (store, rc, "cannot write authors", error);
}

/* Each author's name: the display name used most over all its addresses. */
static void
name_authors (const Senders *in, GHashTable *address_index, const gint64 *author_of,
              GHashTable *authors)
{
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr (GHashTable) totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_hash_table_iter_init (&iter, in->name_counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *nl = strchr (key, '\n');
      g_autofree char *address = g_strndup (key, (gsize) (nl - (const char *) key));
      guint i = GPOINTER_TO_UINT (g_hash_table_lookup (address_index, address)) - 1;
      char *total_key = g_strdup_printf ("%" G_GINT64_FORMAT "\n%s", author_of[i], nl + 1);
      gint64 *total = g_hash_table_lookup (totals, total_key);

      if (total == NULL)
        g_hash_table_insert (totals, total_key, total = g_new0 (gint64, 1));
      else
        g_free (total_key);
      *total += *(gint64 *) value;
    }
  g_hash_table_iter_init (&iter, totals);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *nl = strchr (key, '\n');
      gint64 id = g_ascii_strtoll (key, NULL, 10);
      Author *a = g_hash_table_lookup (authors, &id);
      gint64 count = *(gint64 *) value;

      if (a && better_name (nl + 1, count, a->name, a->name_count))
        {
          g_free (a->name);
          a->name = g_strdup (nl + 1);
          a->name_count = count;
        }
    }
}

/* Begin, commit, roll back: inside a running transaction, and in one of
 * their own ([TRUE]). */
static const char *const tx_sql[2][3] = {
  { "SAVEPOINT authors", "RELEASE authors", "ROLLBACK TO authors; RELEASE authors" },
  { "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK" },
};

/**
 * store_update_authors:
 * @force: even when nothing changed since the last time
 * @counts: (out) (optional): addresses and authors
 *
 * Groups every sender address into authors (util/identity.c) and writes
 * the tables, in one transaction (a savepoint inside a running one).
 * Nothing is done when no file was stored since and @force is %FALSE.
 */
gboolean
store_update_authors (Store *store, gboolean force, StoreAuthorCounts *counts, GError **error)
{
  gint64 one;
  gboolean stale = FALSE, own, ok;
  Senders in = { g_ptr_array_new_with_free_func ((GDestroyNotify) sender_free),
                 g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
  g_autoptr (GHashTable) previous = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) address_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GArray) decisions = g_array_new (FALSE, FALSE, sizeof (IdentityDecision));
  g_autoptr (GStringChunk) strings = g_string_chunk_new (4096);
  g_autofree IdentityAddress *addresses = NULL;
  g_autofree gint64 *author_of = NULL;
  g_autoptr (GHashTable) authors = NULL;
  gint64 n_authors = 0;

  if (counts)
    memset (counts, 0, sizeof *counts);
  if (!force && (!_store_query_int (store, "SELECT 1 FROM deja_state WHERE key = 'authors'", &one,
                                    &stale, error) || !stale))
    {
      g_ptr_array_unref (in.senders);
      g_hash_table_unref (in.name_counts);
      return error == NULL || *error == NULL;
    }
  /* Outside a transaction, one that takes the write lock before it reads:
   * a read transaction that then writes fails at once (SQLITE_BUSY) when
   * another deja wrote in between, whatever the busy timeout. */
  own = sqlite3_get_autocommit (store->db) != 0;
  ok = sqlite3_exec (store->db, tx_sql[own][0], NULL, NULL, NULL) == SQLITE_OK ||
       _store_fail (store, sqlite3_errcode (store->db), "cannot begin", error);
  ok = ok && load_senders (store, &in, error) && load_previous (store, previous, error) &&
       load_decisions (store, decisions, strings, error);
  if (ok)
    {
      g_ptr_array_sort (in.senders, by_address);
      addresses = g_new0 (IdentityAddress, MAX (in.senders->len, 1));
      for (guint i = 0; i < in.senders->len; i++)
        {
          const Sender *s = in.senders->pdata[i];

          addresses[i] = (IdentityAddress) { s->address, s->name, s->copies, s->first_id,
                                             (gint64) GPOINTER_TO_SIZE (g_hash_table_lookup (previous, s->address)) };
          g_hash_table_insert (address_index, s->address, GUINT_TO_POINTER (i + 1));
        }
      author_of = identity_resolve (addresses, in.senders->len, (IdentityDecision *) decisions->data,
                                    decisions->len, &n_authors);
      authors = gather_authors (&in, author_of);
      name_authors (&in, address_index, author_of, authors);
      ok = write_authors (store, &in, author_of, authors, previous, error);
    }
  if (ok && sqlite3_exec (store->db, tx_sql[own][1], NULL, NULL, NULL) != SQLITE_OK)
    ok = _store_fail (store, sqlite3_errcode (store->db), "cannot commit authors", error);
  if (!ok)
    sqlite3_exec (store->db, tx_sql[own][2], NULL, NULL, NULL);
  _store_forget_authors (store);     /* ids may have moved */
  if (ok && counts)
    {
      counts->addresses = in.senders->len;
      counts->authors = n_authors;
      counts->updated = TRUE;
    }
  g_ptr_array_unref (in.senders);
  g_hash_table_unref (in.name_counts);
  return ok;
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
 * (store_update_authors() with @force).
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

static const char *const authors_sql[] = {
  [STORE_AUTHORS_LIST] =
    "SELECT a.id AS author_id, a.name, a.address,"
    " (SELECT count(*) FROM author_addresses aa WHERE aa.author_id = a.id) AS addresses,"
    " a.messages, coalesce(s.threads_started, 0) AS threads_started,"
    " coalesce(s.replies_given, 0) AS replies_given,"
    " coalesce(r.replies_received, 0) AS replies_received,"
    " a.first_date, a.last_date,"
    " CAST(julianday(substr(a.last_date, 1, 10)) - julianday(substr(a.first_date, 1, 10)) AS INTEGER) + 1"
    "   AS active_days,"
    " coalesce(g.newsgroups, 0) AS newsgroups,"
    " l.languages, a.shared_address"
    " FROM authors a"
    /* Every aggregate reads messages in rowid order (NOT INDEXED, CROSS
     * JOIN): through messages_author it re-read each page once per message
     * on it (bench/README.md, sixth session) */
    " LEFT JOIN (SELECT m.author_id, sum(m.id = m.thread_id) AS threads_started,"
    "   sum(p.id IS NOT NULL AND p.author_id IS NOT m.author_id) AS replies_given"
    "   FROM messages m NOT INDEXED LEFT JOIN messages p ON p.id = m.parent_id"
    "   WHERE m.duplicate_of IS NULL GROUP BY m.author_id) s ON s.author_id = a.id"
    " LEFT JOIN (SELECT p.author_id, count(*) AS replies_received"
    "   FROM messages m NOT INDEXED CROSS JOIN messages p ON p.id = m.parent_id"
    "   WHERE m.duplicate_of IS NULL AND m.author_id IS NOT p.author_id GROUP BY p.author_id) r"
    "   ON r.author_id = a.id"
    " LEFT JOIN (SELECT m.author_id, count(DISTINCT mg.newsgroup_id) AS newsgroups"
    "   FROM messages m NOT INDEXED CROSS JOIN message_newsgroups mg ON mg.message_id = m.id"
    "   WHERE m.duplicate_of IS NULL GROUP BY m.author_id) g ON g.author_id = a.id"
    /* the author's languages, most messages first: "en 120, de 3" */
    " LEFT JOIN (SELECT author_id, group_concat(lang || ' ' || n, ', ') AS languages"
    "   FROM (SELECT author_id, lang, count(*) AS n FROM messages NOT INDEXED"
    "     WHERE duplicate_of IS NULL AND lang IS NOT NULL AND lang <> 'und'"
    "     GROUP BY author_id, lang ORDER BY author_id, n DESC, lang)"
    "   GROUP BY author_id) l ON l.author_id = a.id"
    " WHERE a.messages >= ?1"
    " ORDER BY a.messages DESC, a.id",
  [STORE_AUTHORS_ADDRESSES] =
    "SELECT aa.author_id, aa.address, aa.name, aa.messages, a.address AS primary_address"
    " FROM author_addresses aa"
    " JOIN authors a ON a.id = aa.author_id WHERE a.messages >= ?1"
    " ORDER BY aa.author_id, aa.messages DESC, aa.address",
  [STORE_AUTHORS_DECISIONS] =
    "SELECT address, nullif(other, '') AS other, decision, note, decided_at FROM author_decisions"
    " WHERE ?1 IS NOT NULL ORDER BY decided_at, address, other",
};

/**
 * store_authors:
 * @min_messages: LIST and ADDRESSES: leave out authors with fewer
 *   distinct messages
 */
gboolean
store_authors (Store *store, StoreAuthors what, gint64 min_messages, StoreRowFunc func,
               gpointer user_data, GError **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (what < G_N_ELEMENTS (authors_sql), FALSE);
  if ((rc = sqlite3_prepare_v2 (store->db, authors_sql[what], -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read authors", error);
  sqlite3_bind_int64 (stmt, 1, min_messages);
  return _store_run_rows (store, stmt, func, user_data, "cannot read authors", error);
}

/* ---- suggestions ---- */

typedef struct {
  gint64 id;
  char *name, *address, *addresses;
  gint64 messages;
} AuthorInfo;

static void
author_info_free (AuthorInfo *a)
{
  g_free (a->name);
  g_free (a->address);
  g_free (a->addresses);
  g_free (a);
}

static gboolean
load_aliases (Store *store, GArray *aliases, GStringChunk *strings, GHashTable *info, GError **error)
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
      const char *name = (const char *) sqlite3_column_text (stmt, 2);
      IdentityAlias alias = { sqlite3_column_int64 (stmt, 0),
                              g_string_chunk_insert_const (strings, (const char *) sqlite3_column_text (stmt, 1)),
                              name ? g_string_chunk_insert_const (strings, name) : NULL };
      AuthorInfo *a = g_hash_table_lookup (info, &alias.author);

      g_array_append_val (aliases, alias);
      if (a == NULL)
        {
          a = g_new0 (AuthorInfo, 1);
          a->id = alias.author;
          a->name = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
          a->address = g_strdup ((const char *) sqlite3_column_text (stmt, 4));
          a->messages = sqlite3_column_int64 (stmt, 5);
          a->addresses = g_strdup (alias.address);
          g_hash_table_insert (info, &a->id, a);
        }
      else
        {
          char *joined = g_strconcat (a->addresses, " ", alias.address, NULL);
          g_free (a->addresses);
          a->addresses = joined;
        }
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read authors", error);
}

/* One (author, signature) per pair used in two distinct messages or more. */
static gboolean
load_signatures (Store *store, GArray *signatures, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  int rc;

  if ((rc = sqlite3_prepare_v2 (store->db, "SELECT author_id, body FROM messages"
                                " WHERE duplicate_of IS NULL AND author_id IS NOT NULL", -1, &stmt, NULL)) != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      IdentitySignature s = { sqlite3_column_int64 (stmt, 0),
                              identity_signature ((const char *) sqlite3_column_text (stmt, 1),
                                                  (gsize) sqlite3_column_bytes (stmt, 1)) };
      char *key;
      guint count;

      if (s.signature == 0)
        continue;
      /* An author's signature is one used twice or more: once may be
       * someone else's, quoted without '>' (Outlook's "Original Message"). */
      key = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_MODIFIER "x", s.author, s.signature);
      count = GPOINTER_TO_UINT (g_hash_table_lookup (seen, key)) + 1;
      g_hash_table_replace (seen, key, GUINT_TO_POINTER (count));
      if (count == 2)
        g_array_append_val (signatures, s);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

static gboolean
emit_suggestion (const IdentitySuggestion *sg, GHashTable *info, StoreRowFunc func, gpointer user_data)
{
  const AuthorInfo *a = g_hash_table_lookup (info, &sg->a), *b = g_hash_table_lookup (info, &sg->b);
  g_autofree char *score = g_strdup_printf ("%d", sg->score);
  g_autofree char *evidence = identity_evidence_text (sg->evidence);
  g_autofree char *ida = g_strdup_printf ("%" G_GINT64_FORMAT, a->id);
  g_autofree char *idb = g_strdup_printf ("%" G_GINT64_FORMAT, b->id);
  g_autofree char *ma = g_strdup_printf ("%" G_GINT64_FORMAT, a->messages);
  g_autofree char *mb = g_strdup_printf ("%" G_GINT64_FORMAT, b->messages);
  StoreValue v[] = {
    { "score", score, TRUE }, { "evidence", evidence, FALSE },
    { "author_a", ida, TRUE }, { "name_a", a->name, FALSE }, { "address_a", a->address, FALSE },
    { "messages_a", ma, TRUE }, { "addresses_a", a->addresses, FALSE },
    { "author_b", idb, TRUE }, { "name_b", b->name, FALSE }, { "address_b", b->address, FALSE },
    { "messages_b", mb, TRUE }, { "addresses_b", b->addresses, FALSE },
  };

  return func (v, G_N_ELEMENTS (v), user_data);
}

/**
 * store_author_suggestions:
 * @min_score: leave out weaker suggestions
 *
 * Rows: score, evidence, then author_a, name_a, address_a, messages_a,
 * addresses_a (space-separated) and the same for b; strongest first.
 */
gboolean
store_author_suggestions (Store *store, int min_score, StoreRowFunc func, gpointer user_data,
                          GError **error)
{
  g_autoptr (GArray) aliases = g_array_new (FALSE, FALSE, sizeof (IdentityAlias));
  g_autoptr (GArray) signatures = g_array_new (FALSE, FALSE, sizeof (IdentitySignature));
  g_autoptr (GArray) decisions = g_array_new (FALSE, FALSE, sizeof (IdentityDecision));
  g_autoptr (GArray) found = NULL;
  g_autoptr (GStringChunk) strings = g_string_chunk_new (65536);
  g_autoptr (GHashTable) info = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                       (GDestroyNotify) author_info_free);

  if (!load_aliases (store, aliases, strings, info, error) ||
      !load_signatures (store, signatures, error) ||
      !load_decisions (store, decisions, strings, error))
    return FALSE;
  found = identity_suggest ((IdentityAlias *) aliases->data, aliases->len,
                            (IdentitySignature *) signatures->data, signatures->len,
                            (IdentityDecision *) decisions->data, decisions->len, min_score);
  for (guint i = 0; i < found->len; i++)
    if (!emit_suggestion (&g_array_index (found, IdentitySuggestion, i), info, func, user_data))
      break;
  return TRUE;
}
