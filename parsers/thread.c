/* thread.c — threads from References and In-Reply-To, after Jamie
 * Zawinski's algorithm (docs/threads.md says where it departs from it).
 *
 * Every Message-ID, seen or only referenced, gets a container.  Each
 * message's reference chain links its containers parent to child (the
 * last reference is the parent; an In-Reply-To not in References is
 * appended, and stands alone when References is absent); a message's own
 * chain overrides links made by others, and a link that would close a
 * loop is dropped (the message is flagged).  A container whose message is
 * missing is a placeholder: the thread holds together through it, and the
 * messages under it record the missing Message-ID instead of a parent.
 *
 * Of several copies of a Message-ID, the least damaged (fewest '?' and
 * U+FFFD left by lossy charset conversions; of equals, the first in
 * archive order) is canonical; the others are its duplicates, flagged as
 * conflicting when their content differs; they take the canonical copy's
 * thread and no place in the tree.  Everything here is
 * deterministic: inputs are visited in archive order and ties are broken
 * by date, then by position.
 */
#include "thread.h"
#include "flags.h"

#include <string.h>

typedef struct {
  ThreadIndex msg;          /* input index, or -1 for a placeholder */
  const char *id;      /* Message-ID, or NULL */
  ThreadIndex parent;       /* container index, or -1 */
  ThreadIndex root;         /* filled late: root container */
  ThreadIndex depth;
  ThreadIndex up;           /* towards the root, while linking (root_of()) */
} Container;

typedef struct {
  GArray *c;           /* of Container */
  GHashTable *by_id;   /* Message-ID -> container index + 1 */
  gboolean up_stale;   /* a container changed parent: "up" is read again */
} Forest;

static ThreadIndex
new_container (Forest *f, ThreadIndex msg, const char *id)
{
  Container c = { msg, id, -1, -1, -1, (ThreadIndex) f->c->len };

  g_array_append_val (f->c, c);
  if (id)
    g_hash_table_insert (f->by_id, (gpointer) id, GSIZE_TO_POINTER (f->c->len));
  return f->c->len - 1;
}

static ThreadIndex
container_for (Forest *f, const char *id)
{
  gpointer found = g_hash_table_lookup (f->by_id, id);

  return found ? (ThreadIndex) GPOINTER_TO_SIZE (found) - 1 : new_container (f, -1, id);
}

#define C(f, i) (&g_array_index ((f)->c, Container, (i)))

/* The root of @c's tree while chains are linked: a union-find over the
 * parent links, with path halving, so that linking a chain of n
 * references costs about n steps (walking up the parents at each link
 * cost n²: a References of 100,000 ids took 100 s).  When a container
 * that had a parent gets another (a message's own chain overrides
 * another's), the shortcuts are read again from the parents. */
static ThreadIndex
root_of (Forest *f, ThreadIndex c)
{
  if (f->up_stale)
    {
      for (ThreadIndex k = 0; k < (ThreadIndex) f->c->len; k++)
        C (f, k)->up = C (f, k)->parent < 0 ? k : C (f, k)->parent;
      f->up_stale = FALSE;
    }
  while (C (f, c)->up != c)
    {
      C (f, c)->up = C (f, C (f, c)->up)->up;
      c = C (f, c)->up;
    }
  return c;
}

static void
set_parent (Forest *f, ThreadIndex child, ThreadIndex parent)
{
  if (C (f, child)->parent >= 0 && C (f, child)->parent != parent)
    f->up_stale = TRUE;
  else if (!f->up_stale)
    C (f, child)->up = parent;   /* a root joins @parent's tree */
  C (f, child)->parent = parent;
}

/* Would making @parent the parent of @child close a loop?  Only when
 * both are in one tree: a root (most links) is then @parent's root;
 * otherwise the parents are walked. */
static gboolean
would_loop (Forest *f, ThreadIndex child, ThreadIndex parent)
{
  if (root_of (f, parent) != root_of (f, child))
    return FALSE;
  if (C (f, child)->parent < 0)
    return TRUE;
  for (ThreadIndex p = parent; p >= 0; p = C (f, p)->parent)
    if (p == child)
      return TRUE;
  return FALSE;
}

/* The reference chain: References when the message has them, else
 * In-Reply-To's first id.  Where the two disagree, References wins: old
 * mailers filled In-Reply-To with free text whose ids are not always
 * the parent's, and a References chain ending in a message of the
 * archive is the stronger claim (JWZ appends In-Reply-To; that detached
 * replies from parents the archive holds). */
static GPtrArray *
chain_of (const ThreadInput *m)
{
  GPtrArray *chain = g_ptr_array_new ();

  for (guint i = 0; i < m->n_references; i++)
    g_ptr_array_add (chain, (gpointer) m->references[i]);
  if (chain->len == 0 && m->n_in_reply_to > 0)
    g_ptr_array_add (chain, (gpointer) m->in_reply_to[0]);
  return chain;
}

/* Dates compare as text; a day-only date compares by its day. */
static int
compare_dates (const char *a, const char *b)
{
  gsize n;

  if (a == NULL || b == NULL)
    return a ? -1 : b ? 1 : 0;
  n = MIN (strlen (a), strlen (b));
  return strncmp (a, b, n);
}

/* Is @date before @parent_date (both known)?  What "time-travel" means. */
gboolean
thread_date_before (const char *date, const char *parent_date)
{
  return date && parent_date && compare_dates (date, parent_date) < 0;
}

/**
 * thread_parent_reference:
 * @message: its Message-ID and references (the rest is not used)
 *
 * Returns: (transfer none) (nullable): the Message-ID threading takes
 *   as the parent: the last of the reference chain, self-citations aside
 */
const char *
thread_parent_reference (const ThreadInput *message)
{
  g_autoptr (GPtrArray) chain = chain_of (message);
  const char *self = message->message_id;

  for (guint k = chain->len; k > 0; k--)
    if (self == NULL || strcmp (chain->pdata[k - 1], self) != 0)
      return chain->pdata[k - 1];
  return NULL;
}

/* Step 1: a container per Message-ID, holding its best copy (the least
 * damaged; of equals, the first); the other copies are duplicates. */
static void
place_messages (Forest *f, const ThreadInput *in, gsize n, ThreadResult *r, ThreadIndex *own)
{
  for (gsize i = 0; i < n; i++)
    {
      ThreadIndex c;

      r->out[i] = (ThreadOutput) { -1, -1, -1, NULL, 0 };
      if (in[i].message_id == NULL)
        {
          own[i] = new_container (f, i, NULL);
          continue;
        }
      c = container_for (f, in[i].message_id);
      if (C (f, c)->msg < 0 || in[i].damage < in[C (f, c)->msg].damage)
        C (f, c)->msg = i;
      own[i] = c;
    }
  for (gsize i = 0; i < n; i++)
    {
      ThreadOutput *o = &r->out[i];
      ThreadIndex best;

      if (own[i] < 0 || (best = C (f, own[i])->msg) == (ThreadIndex) i)
        continue;
      o->duplicate_of = best;
      o->flags |= THREAD_FLAG_DUPLICATE;
      if (in[i].content != in[best].content)
        o->flags |= THREAD_FLAG_CONFLICT;
      own[i] = -1;
    }
}

/* Step 2: link each message's reference chain, then the message itself. */
static void
link_chains (Forest *f, const ThreadInput *in, gsize n, ThreadResult *r, const ThreadIndex *own)
{
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GPtrArray) chain = NULL;
      ThreadIndex prev = -1;

      if (own[i] < 0)
        continue;
      chain = chain_of (&in[i]);
      for (guint k = 0; k < chain->len; k++)
        {
          ThreadIndex rc;

          if (in[i].message_id && strcmp (chain->pdata[k], in[i].message_id) == 0)
            continue;   /* a message that cites itself */
          rc = container_for (f, chain->pdata[k]);
          if (prev >= 0 && rc != prev && C (f, rc)->parent < 0 && !would_loop (f, rc, prev))
            set_parent (f, rc, prev);
          prev = rc;
        }
      if (prev < 0)
        continue;
      if (would_loop (f, own[i], prev))
        r->out[i].flags |= THREAD_FLAG_CYCLE;
      else
        set_parent (f, own[i], prev);
    }
}

/* Root and depth of every container, iteratively (threads can be deep). */
static void
find_roots (Forest *f)
{
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (ThreadIndex));

  for (ThreadIndex i = 0; i < (ThreadIndex) f->c->len; i++)
    {
      ThreadIndex p = i, root, depth;

      g_array_set_size (path, 0);
      while (C (f, p)->root < 0 && C (f, p)->parent >= 0)
        {
          g_array_append_val (path, p);
          p = C (f, p)->parent;
        }
      if (C (f, p)->root < 0)
        {
          C (f, p)->root = p;
          C (f, p)->depth = 0;
        }
      root = C (f, p)->root;
      depth = C (f, p)->depth;
      for (ThreadIndex k = (ThreadIndex) path->len - 1; k >= 0; k--)
        {
          Container *c = C (f, g_array_index (path, ThreadIndex, k));
          c->root = root;
          c->depth = ++depth;
        }
    }
}

/* Is message @a a better thread root than @b: shallower, earlier, first? */
static gboolean
better_root (Forest *f, const ThreadInput *in, const ThreadIndex *own, ThreadIndex a, ThreadIndex b)
{
  ThreadIndex da = C (f, own[a])->depth, db = C (f, own[b])->depth;
  int d;

  if (da != db)
    return da < db;
  d = compare_dates (in[a].date, in[b].date);
  return d != 0 ? d < 0 : a < b;
}

/* Step 3: parents, threads, placeholders, time travel. */
static void
resolve (Forest *f, const ThreadInput *in, gsize n, ThreadResult *r, const ThreadIndex *own)
{
  g_autofree ThreadIndex *best = g_new (ThreadIndex, f->c->len);   /* root container -> message */
  g_autofree guint *children = g_new0 (guint, f->c->len);

  for (gsize k = 0; k < f->c->len; k++)
    best[k] = -1;
  for (gsize i = 0; i < n; i++)
    {
      ThreadIndex root;

      if (own[i] < 0)
        continue;
      root = C (f, own[i])->root;
      if (best[root] < 0 || better_root (f, in, own, i, best[root]))
        best[root] = i;
    }
  for (gsize k = 0; k < f->c->len; k++)
    if (C (f, k)->parent >= 0)
      children[C (f, k)->parent]++;
  for (gsize i = 0; i < n; i++)
    {
      ThreadOutput *o = &r->out[i];
      ThreadIndex p;

      if (own[i] < 0)
        continue;
      o->thread = best[C (f, own[i])->root];
      if ((p = C (f, own[i])->parent) < 0)
        continue;
      if (C (f, p)->msg >= 0)
        {
          o->parent = C (f, p)->msg;
          if (thread_date_before (in[i].date, in[o->parent].date))
            o->flags |= THREAD_FLAG_TIME_TRAVEL;
        }
      else
        {
          o->missing_parent = C (f, p)->id;
          o->flags |= THREAD_FLAG_ORPHAN;
        }
    }
  for (gsize k = 0; k < f->c->len; k++)
    if (C (f, k)->msg < 0 && children[k] > 0 && best[C (f, k)->root] >= 0)
      {
        ThreadPlaceholder ph = { C (f, k)->id, best[C (f, k)->root], children[k] };
        g_array_append_val (r->placeholders, ph);
      }
}

/**
 * thread_subject_key:
 *
 * Returns: (transfer full) (nullable): @subject without "Re:", "Fwd:",
 *   "AW:", "[list]" prefixes and white space, case-folded; NULL when
 *   nothing is left
 */
char *
thread_subject_key (const char *subject)
{
  static const char *const prefixes[] = { "re:", "fwd:", "fw:", "aw:", "sv:", "vs:", "antw:" };
  g_autofree char *folded = NULL;
  const char *s;
  gboolean again = TRUE;

  if (subject == NULL)
    return NULL;
  folded = g_utf8_casefold (subject, -1);
  s = folded;
  while (again)
    {
      again = FALSE;
      while (g_ascii_isspace (*s))
        s++;
      for (gsize i = 0; i < G_N_ELEMENTS (prefixes); i++)
        if (g_str_has_prefix (s, prefixes[i]))
          s += strlen (prefixes[i]), again = TRUE;
      if (*s == '[' && strchr (s, ']'))
        s = strchr (s, ']') + 1, again = TRUE;
    }
  return *s ? g_strstrip (g_strdup (s)) : NULL;
}

/* Optional: threads whose roots share a subject become one thread. */
static void
join_by_subject (const ThreadInput *in, gsize n, ThreadResult *r)
{
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree ThreadIndex *merged = g_new (ThreadIndex, n);

  for (gsize i = 0; i < n; i++)
    merged[i] = -1;
  for (gsize i = 0; i < n; i++)   /* roots, in archive order */
    {
      char *key;
      gpointer to;

      if (r->out[i].thread != (ThreadIndex) i || (key = thread_subject_key (in[i].subject)) == NULL)
        continue;
      if (g_hash_table_lookup_extended (first, key, NULL, &to))
        {
          merged[i] = GPOINTER_TO_SIZE (to);
          g_free (key);
        }
      else
        g_hash_table_insert (first, key, GSIZE_TO_POINTER (i));
    }
  for (gsize i = 0; i < n; i++)
    {
      ThreadIndex t = r->out[i].thread;
      if (t >= 0 && merged[t] >= 0)
        {
          r->out[i].thread = merged[t];
          r->out[i].flags |= THREAD_FLAG_SUBJECT;
        }
    }
}

/**
 * thread_counts_add:
 * @copy: the message is a later copy of a Message-ID
 * @root: it is its thread's first message
 *
 * Counts one message's result in @counts: how threading sums up what it
 * found, and what a merge counts of the threads it keeps as they were
 * stored (store-thread-batches.c).
 */
void
thread_counts_add (ThreadCounts *c, gboolean copy, gboolean root, ThreadFlags flags)
{
  if (copy)
    {
      c->duplicates++;
      c->conflicts += (flags & THREAD_FLAG_CONFLICT) != 0;
      return;
    }
  c->threads += root != FALSE;
  c->orphans += (flags & THREAD_FLAG_ORPHAN) != 0;
  c->cycles += (flags & THREAD_FLAG_CYCLE) != 0;
  c->time_travel += (flags & THREAD_FLAG_TIME_TRAVEL) != 0;
  c->subject_joins += (flags & THREAD_FLAG_SUBJECT) != 0;
}

static void
count (gsize n, ThreadResult *r)
{
  for (gsize i = 0; i < n; i++)
    {
      ThreadOutput *o = &r->out[i];

      if (o->duplicate_of >= 0)
        o->thread = r->out[o->duplicate_of].thread;
      thread_counts_add (&r->counts, o->duplicate_of >= 0, o->thread == (ThreadIndex) i, o->flags);
    }
}

/**
 * thread_compute:
 * @in: (array length=n): the messages, in archive order
 * @by_subject: also join threads whose roots share a subject
 * @result: (out caller-allocates): free with thread_result_clear()
 */
void
thread_compute (const ThreadInput *in, gsize n, gboolean by_subject, ThreadResult *result)
{
  Forest f = { .c = g_array_sized_new (FALSE, FALSE, sizeof (Container), n + n / 2),
               .by_id = g_hash_table_new (g_str_hash, g_str_equal) };
  g_autofree ThreadIndex *own = g_new (ThreadIndex, n);

  memset (result, 0, sizeof *result);
  result->out = g_new0 (ThreadOutput, n);
  result->placeholders = g_array_new (FALSE, FALSE, sizeof (ThreadPlaceholder));
  place_messages (&f, in, n, result, own);
  link_chains (&f, in, n, result, own);
  find_roots (&f);
  resolve (&f, in, n, result, own);
  if (by_subject)
    join_by_subject (in, n, result);
  count (n, result);
  g_array_unref (f.c);
  g_hash_table_unref (f.by_id);
}

void
thread_result_clear (ThreadResult *result)
{
  g_free (result->out);
  g_clear_pointer (&result->placeholders, g_array_unref);
  memset (result, 0, sizeof *result);
}

static const char *const flag_names[] = {
  "orphan", "cycle-broken", "time-travel", "duplicate", "conflicting-duplicate", "subject-joined",
};

/* Returns: (transfer full) (nullable): the flags' names, comma-separated;
 * NULL for none. */
char *
thread_flags_to_string (ThreadFlags flags)
{
  return flags_to_string (flags, flag_names, G_N_ELEMENTS (flag_names));
}

/* The flags thread_flags_to_string() wrote; @unknown: (out): whether
 * @s holds a name it does not write. */
ThreadFlags
thread_flags_from_string (const char *s, gboolean *unknown)
{
  return (ThreadFlags) flags_from_string (s, flag_names, G_N_ELEMENTS (flag_names), unknown);
}

/* Returns: (transfer none): the name of one flag ("orphan"); NULL for
 * none or several. */
const char *
thread_flag_name (ThreadFlags flag)
{
  for (gsize i = 0; i < G_N_ELEMENTS (flag_names); i++)
    if (flag == (ThreadFlags) (1u << i))
      return flag_names[i];
  return NULL;
}
