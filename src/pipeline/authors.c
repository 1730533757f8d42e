/* authors.c — who is who: sender addresses grouped into authors.
 *
 * The shape threads have (threads.c): the store gives rows (the senders
 * of the messages, people's decisions, the authors as they were), the
 * rules of util/identity.c decide (merges that are certain, people's
 * decisions, a shared address split by name; docs/people.md), this file
 * picks each author's primary address and name and hands the store the
 * rows to write.  Run after every ingest that stored a file (deja_state
 * 'authors' is then 'stale'), after every decision, and when a command
 * opens a database whose authors are stale (an older schema marks them
 * so).
 */
#include "authors.h"
#include "identity.h"
#include "id-hash.h"

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

/* Adds @r to @sender (and, when @named, its name to the counts, under
 * @sender's key: the messages a shared address keeps have no name, or
 * one that is no name, "release@bot", which must not name nobody). */
static void
add_name_row (Senders *out, Sender *sender, const NameRow *r, gboolean named)
{
  sender->copies += r->copies;
  sender->messages += r->messages;
  sender->first_id = MIN (sender->first_id, r->first_id);
  widen (&sender->first_date, &sender->last_date, r->first_date, r->last_date);
  if (sender->raw_names)
    g_ptr_array_add (sender->raw_names, g_strdup (r->name));
  if (named && r->name && *r->name)
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

  g_autofree gint64 *counts = g_new (gint64, MAX (rows->len, 1));

  for (guint i = 0; i < rows->len; i++)
    {
      names[i] = g_array_index (rows, NameRow, i).name;
      counts[i] = g_array_index (rows, NameRow, i).messages;
    }
  person = identity_shared_split (address, names, counts, rows->len, &n_people);
  if (person == NULL)
    {
      Sender *s = sender_new (address, NULL);

      for (guint i = 0; i < rows->len; i++)
        add_name_row (out, s, &g_array_index (rows, NameRow, i), TRUE);
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
                  &g_array_index (rows, NameRow, i), person[i] != G_MAXUINT);
  for (guint k = 0; k < n_people; k++)
    g_ptr_array_add (out->senders, people->pdata[k]);
  if (nameless)
    g_ptr_array_add (out->senders, nameless);
}

/* Rows of one address, until the next address comes. */
typedef struct {
  Senders *out;
  GArray *rows;             /* of NameRow */
  char *current;
} Reading;

static gboolean
add_sender_row (const StoreSenderRow *r, gpointer data)
{
  Reading *rd = data;
  NameRow row = {
    .name = g_strdup (r->name),
    .copies = r->copies,
    .messages = r->messages,
    .first_id = r->first_id,
    .first_date = g_strdup (r->first_date),
    .last_date = g_strdup (r->last_date),
  };

  if (rd->current != NULL && strcmp (rd->current, r->address) != 0)
    {
      add_address (rd->out, rd->current, rd->rows);
      g_array_set_size (rd->rows, 0);
    }
  if (rd->current == NULL || strcmp (rd->current, r->address) != 0)
    {
      g_free (rd->current);
      rd->current = g_strdup (r->address);
    }
  g_array_append_val (rd->rows, row);
  return TRUE;
}

static gboolean
load_senders (Store *store, Senders *out, GError **error)
{
  Reading rd = { .out = out, .rows = g_array_new (FALSE, FALSE, sizeof (NameRow)) };
  gboolean ok;

  g_array_set_clear_func (rd.rows, (GDestroyNotify) name_row_clear);
  ok = store_author_senders (store, add_sender_row, &rd, error);
  if (ok && rd.current != NULL)
    add_address (out, rd.current, rd.rows);
  g_array_unref (rd.rows);
  g_free (rd.current);
  return ok;
}

static gboolean
add_previous (gint64 id, const char *key, gpointer data)
{
  g_hash_table_insert (data, g_strdup (key), GSIZE_TO_POINTER ((gsize) id));
  return TRUE;
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
  GHashTable *authors = deja_id_table_new (NULL,
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

/* The tables' rows, for the store to write. */
static gboolean
write_authors (Store *store, const Senders *in, const gint64 *author_of, GHashTable *authors,
               GHashTable *previous, GError **error)
{
  g_autoptr (GArray) author_rows = g_array_new (FALSE, FALSE, sizeof (StoreAuthorRow));
  g_autoptr (GArray) key_rows = g_array_new (FALSE, FALSE, sizeof (StoreAuthorKeyRow));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, authors);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Author *a = value;
      StoreAuthorRow row = {
        .id = a->id,
        .name = a->name ? a->name : a->primary->address,
        .address = a->primary->address,
        .messages = a->messages,
        .first_date = a->first_date,
        .last_date = a->last_date,
        .shared_address = a->primary->shared,
      };

      g_array_append_val (author_rows, row);
    }
  for (guint i = 0; i < in->senders->len; i++)
    {
      const Sender *s = in->senders->pdata[i];
      StoreAuthorKeyRow row = {
        .key = s->address,
        .author_id = author_of[i],
        .name = s->name,
        .messages = s->messages,
        .previous = (gint64) GPOINTER_TO_SIZE (g_hash_table_lookup (previous, s->address)),
        .shared = s->shared,
        .raw_names = s->raw_names ? (const char *const *) s->raw_names->pdata : NULL,
        .n_raw_names = s->raw_names ? s->raw_names->len : 0,
      };

      g_array_append_val (key_rows, row);
    }
  return store_write_authors (store, (const StoreAuthorRow *) author_rows->data, author_rows->len,
                              (const StoreAuthorKeyRow *) key_rows->data, key_rows->len, error);
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

typedef struct {
  GArray *decisions;       /* of IdentityDecision */
  GStringChunk *strings;
} Decisions;

static void
add_decision (const StoreAuthorDecisionRow *r, gpointer data)
{
  Decisions *d = data;
  IdentityDecision decision = {
    .verdict = strcmp (r->decision, "merge") == 0 ? IDENTITY_MERGE
             : strcmp (r->decision, "split") == 0 ? IDENTITY_SPLIT : IDENTITY_NEVER,
    .address = g_string_chunk_insert_const (d->strings, r->address),
    .other = r->other ? g_string_chunk_insert_const (d->strings, r->other) : NULL,
  };

  g_array_append_val (d->decisions, decision);
}

/* People's decisions, as identity.c takes them; the strings live in
 * @strings. */
static gboolean
load_decisions (Store *store, GArray *decisions, GStringChunk *strings, GError **error)
{
  Decisions d = { .decisions = decisions, .strings = strings };

  return store_author_decisions (store, add_decision, &d, error);
}

/**
 * authors_update:
 * @force: even when no file was stored since the authors were written
 * @counts: (out) (optional): addresses and authors
 *
 * Groups every sender address into authors (util/identity.c: merges
 * that are certain, people's decisions; a shared address split by name)
 * and has the store write them, in one transaction.  Nothing is done
 * when no file was stored since and @force is %FALSE.
 */
gboolean
authors_update (Store *store, gboolean force, AuthorCounts *counts, GError **error)
{
  gboolean needed, own = FALSE, ok;
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
  gboolean keyed = FALSE;

  if (counts)
    memset (counts, 0, sizeof *counts);
  ok = store_authors_begin (store, force, &needed, &own, error);
  if (ok && !needed)
    {
      g_ptr_array_unref (in.senders);
      g_hash_table_unref (in.name_counts);
      return TRUE;
    }
  ok = ok && load_senders (store, &in, error) && store_author_previous (store, add_previous, previous, error) &&
       load_decisions (store, decisions, strings, error) && store_authors_keyed (store, &keyed, error);
  if (ok)
    {
      g_ptr_array_sort (in.senders, by_address);
      addresses = g_new0 (IdentityAddress, MAX (in.senders->len, 1));
      for (guint i = 0; i < in.senders->len; i++)
        {
          const Sender *s = in.senders->pdata[i];

          addresses[i] = (IdentityAddress) {
            .address = s->address,
            .name = s->name,
            .messages = s->copies,
            .first_id = s->first_id,
            .previous = (gint64) GPOINTER_TO_SIZE (g_hash_table_lookup (previous, s->address)),
          };
          g_hash_table_insert (address_index, s->address, GUINT_TO_POINTER (i + 1));
        }
      author_of = identity_resolve (addresses, in.senders->len, (IdentityDecision *) decisions->data,
                                    decisions->len, keyed, &n_authors);
      authors = gather_authors (&in, author_of);
      name_authors (&in, address_index, author_of, authors);
      ok = write_authors (store, &in, author_of, authors, previous, error);
    }
  if (needed)
    ok = store_authors_end (store, own, ok, ok ? error : NULL);
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

typedef struct {
  GArray *aliases;          /* of IdentityAlias */
  GStringChunk *strings;
  GHashTable *info;         /* author id -> AuthorInfo */
} Aliases;

static gboolean
add_alias (const StoreAliasRow *r, gpointer data)
{
  Aliases *al = data;
  IdentityAlias alias = {
    .author = r->author,
    .address = g_string_chunk_insert_const (al->strings, r->key),
    .name = r->name ? g_string_chunk_insert_const (al->strings, r->name) : NULL,
  };
  AuthorInfo *a = g_hash_table_lookup (al->info, &alias.author);

  g_array_append_val (al->aliases, alias);
  if (a == NULL)
    {
      a = g_new0 (AuthorInfo, 1);
      a->id = alias.author;
      a->name = g_strdup (r->author_name);
      a->address = g_strdup (r->author_address);
      a->messages = r->author_messages;
      a->addresses = g_strdup (alias.address);
      g_hash_table_insert (al->info, &a->id, a);
    }
  else
    {
      char *joined = g_strconcat (a->addresses, " ", alias.address, NULL);
      g_free (a->addresses);
      a->addresses = joined;
    }
  return TRUE;
}

/* One (author, signature) per pair used in two distinct messages or more. */
typedef struct {
  GArray *signatures;       /* of IdentitySignature */
  GHashTable *seen;         /* "author signature" -> uses */
} Signatures;

/* One (author, signature) per pair used in two distinct messages or more:
 * once may be someone else's, quoted without '>' (Outlook's "Original
 * Message"). */
static gboolean
add_body (gint64 author, const char *body, gpointer data)
{
  Signatures *sg = data;
  IdentitySignature s = { .author = author, .signature = identity_signature (body, strlen (body)) };
  char *key;
  guint count;

  if (s.signature == 0)
    return TRUE;
  key = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_MODIFIER "x", s.author, s.signature);
  count = GPOINTER_TO_UINT (g_hash_table_lookup (sg->seen, key)) + 1;
  g_hash_table_replace (sg->seen, key, GUINT_TO_POINTER (count));
  if (count == 2)
    g_array_append_val (sg->signatures, s);
  return TRUE;
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
    ROW_NUMBER ("score", score), ROW_TEXT ("evidence", evidence),
    ROW_NUMBER ("author_a", ida), ROW_TEXT ("name_a", a->name), ROW_TEXT ("address_a", a->address),
    ROW_NUMBER ("messages_a", ma), ROW_TEXT ("addresses_a", a->addresses),
    ROW_NUMBER ("author_b", idb), ROW_TEXT ("name_b", b->name), ROW_TEXT ("address_b", b->address),
    ROW_NUMBER ("messages_b", mb), ROW_TEXT ("addresses_b", b->addresses),
  };

  return func (v, G_N_ELEMENTS (v), user_data);
}

/* Authors by primary address, then name, then id */
static int
by_author_key (const AuthorInfo *x, const AuthorInfo *y)
{
  int c = g_strcmp0 (x->address, y->address);

  if (c == 0)
    c = g_strcmp0 (x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Strongest first, then by a's and b's keys */
static gint
by_score_and_key (gconstpointer x, gconstpointer y, gpointer data)
{
  const IdentitySuggestion *p = x, *q = y;
  GHashTable *info = data;
  int c;

  if (p->score != q->score)
    return q->score - p->score;
  c = by_author_key (g_hash_table_lookup (info, &p->a), g_hash_table_lookup (info, &q->a));
  return c ? c : by_author_key (g_hash_table_lookup (info, &p->b), g_hash_table_lookup (info, &q->b));
}

/* Each pair with a the author whose primary address sorts first, and the
 * pairs in that order after their scores: not by author ids, which one
 * ingest numbers as it finds authors and a shard derives from addresses
 * (docs/people.md), so that an archive gives the same suggestions, and
 * the same file to review, however its database was made (twisted-python
 * from one ingest and from a shard: the same 444 pairs, 439 of them listed
 * the other way round or in another place). */
static void
order_by_address (GArray *found, GHashTable *info)
{
  for (guint i = 0; i < found->len; i++)
    {
      IdentitySuggestion *sg = &g_array_index (found, IdentitySuggestion, i);

      if (by_author_key (g_hash_table_lookup (info, &sg->a), g_hash_table_lookup (info, &sg->b)) > 0)
        {
          gint64 t = sg->a;

          sg->a = sg->b, sg->b = t;
        }
    }
  g_array_sort_with_data (found, by_score_and_key, info);
}

/**
 * authors_suggest:
 * @min_score: leave out weaker suggestions
 *
 * Possible merges (util/identity.c's identity_suggest()), as rows: score,
 * evidence, then author_a, name_a, address_a, messages_a, addresses_a
 * (space-separated) and the same for b; strongest first, then by
 * address (order_by_address()).
 */
gboolean
authors_suggest (Store *store, int min_score, StoreRowFunc func, gpointer user_data, GError **error)
{
  g_autoptr (GArray) decisions = g_array_new (FALSE, FALSE, sizeof (IdentityDecision));
  g_autoptr (GArray) found = NULL;
  g_autoptr (GStringChunk) strings = g_string_chunk_new (65536);
  g_autoptr (GHashTable) info = deja_id_table_new (NULL,
                                                       (GDestroyNotify) author_info_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) aliases = g_array_new (FALSE, FALSE, sizeof (IdentityAlias));
  g_autoptr (GArray) signatures = g_array_new (FALSE, FALSE, sizeof (IdentitySignature));
  Aliases al = { .aliases = aliases, .strings = strings, .info = info };
  Signatures sg = { .signatures = signatures, .seen = seen };

  if (!store_author_aliases (store, add_alias, &al, error) ||
      !store_author_bodies (store, add_body, &sg, error) ||
      !load_decisions (store, decisions, strings, error))
    return FALSE;
  found = identity_suggest ((IdentityAlias *) aliases->data, aliases->len,
                            (IdentitySignature *) signatures->data, signatures->len,
                            (IdentityDecision *) decisions->data, decisions->len, min_score);
  order_by_address (found, info);
  for (guint i = 0; i < found->len; i++)
    if (!emit_suggestion (&g_array_index (found, IdentitySuggestion, i), info, func, user_data))
      break;
  return TRUE;
}
