/* thread-guess.c — where a message will most likely be threaded, as it is stored.
 *
 * Threading runs over the whole database after an ingest, and an UPDATE
 * rewrites a message row whole, body included.  So each message is
 * stored with where threading will most likely put it: under its parent
 * when the parent is already stored, in a thread of its own otherwise.
 * In archives where parents come before replies (almost all), threading
 * then finds nearly every row already right and rewrites only the rest.
 * The rules are parsers/thread.c's (thread_parent_reference(),
 * thread_date_before()), applied to one message seen in order; nothing
 * here reads or writes the database (the ingest session fills the
 * guesser, and gives it store_find_canonical_id() to ask).
 *
 * The Message-IDs seen last are kept in two generations of at most
 * @max_per_generation each (150,000 in deja): when the newer is full, the
 * older goes.  Memory stays bounded (about 120 bytes a Message-ID, 35 MiB
 * at most) however large the database; without a look-up (below), a reply
 * to a message older than that is guessed wrong and set right by
 * threading.  In each generation the strings live in one chunk, the rows
 * in one array, and the table maps a Message-ID to its row + 1.
 *
 * A guesser given a look-up (thread_guesser_set_lookup()) asks it for
 * what it does not hold: the messages stored before the session, one
 * Message-ID at a time, instead of being filled with all of them first.
 * An append of a few messages to a large database asks a few questions
 * where reading every row took most of its time.
 */
#include "thread-guess.h"
#include "thread.h"

typedef struct {
  gint64 id, thread;
  const char *date;        /* in the generation's strings */
  guint64 content;         /* MailRecord.content_hash: a copy that differs conflicts */
} Known;

typedef struct {
  GHashTable *table;
  GArray *rows;            /* of Known */
  GStringChunk *strings;
} Generation;

struct _ThreadGuesser {
  Generation gen[2];       /* [0] the newer */
  guint max;               /* Message-IDs a generation holds */
  ThreadGuessLookup lookup;  /* NULL: what it holds is all there is */
  gpointer lookup_data;
};

static void
generation_init (Generation *g)
{
  g->table = g_hash_table_new (g_str_hash, g_str_equal);
  g->rows = g_array_new (FALSE, FALSE, sizeof (Known));
  g->strings = g_string_chunk_new (1024 * 1024);
}

static void
generation_clear (Generation *g)
{
  g_clear_pointer (&g->table, g_hash_table_unref);
  g_clear_pointer (&g->rows, g_array_unref);
  g_clear_pointer (&g->strings, g_string_chunk_free);
}

/* Returns: (transfer full): an empty guesser */
ThreadGuesser *
thread_guesser_new (guint max_per_generation)
{
  ThreadGuesser *t = g_new0 (ThreadGuesser, 1);

  t->max = MAX (max_per_generation, 1);
  generation_init (&t->gen[0]);
  return t;
}

void
thread_guesser_free (ThreadGuesser *t)
{
  if (t == NULL)
    return;
  generation_clear (&t->gen[0]);
  generation_clear (&t->gen[1]);
  g_free (t);
}

static Known *
held (ThreadGuesser *t, const char *message_id)
{
  for (int i = 0; message_id && i < 2; i++)
    {
      Generation *g = &t->gen[i];
      guint row = g->table ? GPOINTER_TO_UINT (g_hash_table_lookup (g->table, message_id)) : 0;

      if (row)
        return &g_array_index (g->rows, Known, row - 1);
    }
  return NULL;
}

static void
add (ThreadGuesser *t, const char *message_id, gint64 id, gint64 thread, const char *date,
     guint64 content)
{
  Generation *g = &t->gen[0];
  Known k = { id, thread, NULL, content };

  if (g->rows->len >= t->max)
    {
      generation_clear (&t->gen[1]);
      t->gen[1] = *g;
      generation_init (g);
    }
  k.date = date ? g_string_chunk_insert_const (g->strings, date) : NULL;
  g_array_append_val (g->rows, k);
  g_hash_table_insert (g->table, g_string_chunk_insert (g->strings, message_id),
                       GUINT_TO_POINTER (g->rows->len));
}

/* What @t holds of @message_id, or what its look-up finds (then held). */
static Known *
lookup (ThreadGuesser *t, const char *message_id)
{
  Known *k = held (t, message_id);

  if (k == NULL && message_id != NULL && t->lookup != NULL)
    {
      t->lookup (message_id, t, t->lookup_data);
      k = held (t, message_id);
    }
  return k;
}

/**
 * thread_guesser_set_lookup:
 * @func: (nullable): called with a Message-ID the guesser does not hold;
 *   it calls thread_guesser_know() when that message is stored
 *
 * Makes @t ask @func rather than take what it does not hold as absent.
 */
void
thread_guesser_set_lookup (ThreadGuesser *t, ThreadGuessLookup func, gpointer data)
{
  t->lookup = func;
  t->lookup_data = data;
}

/**
 * thread_guesser_know:
 * @message_id: a canonical message's Message-ID (copied)
 * @id, @thread, @date, @content: its row, thread, date and content hash
 *
 * Records a stored message; the first record of a Message-ID wins.
 */
void
thread_guesser_know (ThreadGuesser *t, const char *message_id, gint64 id, gint64 thread,
                     const char *date, guint64 content)
{
  if (message_id != NULL && held (t, message_id) == NULL)
    add (t, message_id, id, thread, date, content);
}

/**
 * thread_guesser_guess:
 * @id: the row @record will be stored as
 * @guess: (out caller-allocates): where it will most likely be threaded;
 *   guess->missing_parent points into @record, guess->flags is static
 *
 * Then records @record as stored, so that its replies find it.
 */
void
thread_guesser_guess (ThreadGuesser *t, gint64 id, const MailRecord *r, StoreThreadGuess *g)
{
  /* A Known is read before the next lookup: a lookup that asks the store
   * adds a row, which may move the rows or drop the older generation. */
  Known *self = lookup (t, r->message_id), *parent;
  ThreadInput as_input = {
    .message_id = r->message_id,
    .references = r->references ? (const char *const *) r->references->pdata : NULL,
    .n_references = r->references ? r->references->len : 0,
    .in_reply_to = r->in_reply_to ? (const char *const *) r->in_reply_to->pdata : NULL,
    .n_in_reply_to = r->in_reply_to ? r->in_reply_to->len : 0,
  };
  const char *ref;

  *g = (StoreThreadGuess) { .thread_id = id };
  if (self != NULL)
    {
      /* Flagged as threading flags it (parsers/thread.c), so that the row
       * is not rewritten: half of twisted-python's copies differ from the
       * first (a footer, a header): 16,556 rows. */
      static const char *const duplicate_flags[2] = { "duplicate",
                                                      "duplicate,conflicting-duplicate" };

      g->duplicate_of = self->id;
      g->thread_id = self->thread;
      g->flags = duplicate_flags[self->content != r->content_hash];
      return;
    }
  ref = thread_parent_reference (&as_input);
  parent = lookup (t, ref);
  if (parent != NULL)
    {
      g->parent_id = parent->id;
      g->thread_id = parent->thread;
      if (thread_date_before (r->date, parent->date))
        g->flags = thread_flag_name (THREAD_FLAG_TIME_TRAVEL);
    }
  else if (ref != NULL)
    {
      g->missing_parent = ref;
      g->flags = thread_flag_name (THREAD_FLAG_ORPHAN);
    }
  if (r->message_id)
    add (t, r->message_id, id, g->thread_id, r->date, r->content_hash);
}
