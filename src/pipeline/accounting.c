/* accounting.c — deja groups: social accounting per group and period.
 *
 * What Netscan measured of every newsgroup, on any archive: per group and
 * period, who posted, who came, who stayed, who left, how threads went.
 * The store gives two row streams (store-groups.c): every dated canonical
 * message in each of its groups, in group and date order, and the reply
 * tree of every canonical message; the arithmetic is here.  Every figure
 * and its formula: docs/groups.md.
 *
 * Messages are read in their order in the database (a sequential scan:
 * reading group by group in date order jumps through the table, and
 * re-read every page as many times as it holds messages), every group
 * and period accumulated at once.
 * Memory: one entry per group, period and author, and one per threaded
 * message for the thread shapes.
 */
#include "accounting.h"
#include "date.h"
#include "id-hash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- periods ---- */

/* The period of an ISO 8601 date as one integer (year, month or quarter
 * count since year 0), or G_MININT64 when the date cannot be read. */
gint64
accounting_period_of (const char *date, AccountingPeriod by)
{
  DateValue v;

  if (!date_iso8601_read (date, &v))
    return G_MININT64;
  switch (by)
    {
    case ACCOUNTING_BY_MONTH: return (gint64) v.year * 12 + (v.month - 1);
    case ACCOUNTING_BY_QUARTER: return (gint64) v.year * 4 + (v.month - 1) / 3;
    case ACCOUNTING_BY_YEAR: break;
    }
  return v.year;
}

char *
accounting_period_name (gint64 period, AccountingPeriod by)
{
  switch (by)
    {
    case ACCOUNTING_BY_MONTH:
      return g_strdup_printf ("%04" G_GINT64_FORMAT "-%02d", period / 12, (int) (period % 12) + 1);
    case ACCOUNTING_BY_QUARTER:
      return g_strdup_printf ("%04" G_GINT64_FORMAT "-Q%d", period / 4, (int) (period % 4) + 1);
    case ACCOUNTING_BY_YEAR: break;
    }
  return g_strdup_printf ("%04" G_GINT64_FORMAT, period);
}

/* ---- thread shapes ---- */

typedef struct {
  gint64 id, parent, thread;
  gint64 seconds;          /* G_MININT64: undated */
  gint depth;              /* -1: not known yet */
} TreeNode;

typedef struct {
  gint64 thread;           /* its root: the table's key */
  gint64 size;             /* canonical messages in the thread */
  gint64 first_reply;      /* seconds of its earliest message but the root, or G_MININT64 */
  gint depth;              /* longest chain of replies below the root */
  GArray *levels;          /* of gint64: messages at each depth (index 0: the root) */
} ThreadShape;

static void
thread_shape_free (gpointer p)
{
  ThreadShape *t = p;

  g_array_unref (t->levels);
  g_free (t);
}

/* Rows come in id order: the array is sorted, and searched by halves. */
static gboolean
add_tree_node (const StoreTreePost *row, gpointer data)
{
  TreeNode n = { .id = row->message, .parent = row->parent, .thread = row->thread,
                 .seconds = date_iso8601_seconds (row->date), .depth = -1 };

  g_array_append_val ((GArray *) data, n);
  return TRUE;
}

static TreeNode *
node_of (GArray *nodes, gint64 id)
{
  gsize lo = 0, hi = nodes->len;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      TreeNode *n = &g_array_index (nodes, TreeNode, mid);

      if (n->id == id)
        return n;
      if (n->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

/* The depth of @n below its thread's root: 0 for the root, the parent's
 * + 1, 1 for a message whose parent is not in the archive.  Iterative,
 * and bounded by the number of messages against a loop. */
static gint
depth_of (GArray *nodes, TreeNode *start, GPtrArray *chain)
{
  TreeNode *n = start, *top;
  guint limit = nodes->len;
  gint depth;

  g_ptr_array_set_size (chain, 0);
  while (n != NULL && n->depth < 0 && chain->len <= limit)
    {
      g_ptr_array_add (chain, n);
      n = n->parent != 0 ? node_of (nodes, n->parent) : NULL;
    }
  if (n != NULL && n->depth >= 0)
    depth = n->depth;          /* met a message whose depth is known */
  else
    {
      /* the top of the chain: the thread's root (0), or a reply whose
       * parent is not in the archive (1, below an absent root) */
      top = g_ptr_array_index (chain, chain->len - 1);
      top->depth = top->parent == 0 && top->id == top->thread ? 0 : 1;
      depth = top->depth;
      chain->len--;
    }
  for (guint i = chain->len; i > 0; i--)
    ((TreeNode *) g_ptr_array_index (chain, i - 1))->depth = ++depth;
  return start->depth;
}

/* Thread root -> ThreadShape, whose own member is the key. */
static GHashTable *
thread_shapes (Store *store, GError **error)
{
  g_autoptr (GArray) nodes = g_array_new (FALSE, FALSE, sizeof (TreeNode));
  g_autoptr (GPtrArray) chain = g_ptr_array_new ();
  GHashTable *shapes;

  if (!store_reply_tree (store, add_tree_node, nodes, error))
    return NULL;
  shapes = deja_id_table_new (NULL, thread_shape_free);
  for (guint i = 0; i < nodes->len; i++)
    {
      TreeNode *n = &g_array_index (nodes, TreeNode, i);
      gint depth = depth_of (nodes, n, chain);
      ThreadShape *t = g_hash_table_lookup (shapes, &n->thread);
      gint64 zero = 0;

      if (t == NULL)
        {
          t = g_new0 (ThreadShape, 1);
          t->thread = n->thread;
          t->first_reply = G_MININT64;
          t->levels = g_array_new (FALSE, TRUE, sizeof (gint64));
          g_hash_table_insert (shapes, &t->thread, t);
        }
      t->size++;
      t->depth = MAX (t->depth, depth);
      while (t->levels->len <= (guint) depth)
        g_array_append_val (t->levels, zero);
      g_array_index (t->levels, gint64, depth)++;
      if (n->id != n->thread && n->seconds != G_MININT64 &&
          (t->first_reply == G_MININT64 || n->seconds < t->first_reply))
        t->first_reply = n->seconds;
    }
  return shapes;
}

static gint64
thread_breadth (const ThreadShape *t)
{
  gint64 most = 0;

  for (guint i = 1; i < t->levels->len; i++)
    most = MAX (most, g_array_index (t->levels, gint64, i));
  return most;
}

/* ---- the periods of a group ---- */

typedef struct {
  gint64 period;
  gint64 messages, replies, threads, unanswered, crossposts;
  gint64 controls, cancels, cancelled, superseded, approved, followups_elsewhere;
  gint64 quoted_lines, own_lines;
  GHashTable *authors;        /* author id -> messages in the period (both in pointers) */
  GArray *reply_hours;        /* of double: time to first reply, of threads started */
  gint64 depth_sum, breadth_sum;
  GArray *words;              /* of gint64 */
  GHashTable *langs;          /* lang -> count */
  GHashTable *others;         /* other group -> cross-posted messages */
} Period;

static Period *
period_new (gint64 period)
{
  Period *p = g_new0 (Period, 1);

  p->period = period;
  p->authors = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->reply_hours = g_array_new (FALSE, FALSE, sizeof (double));
  p->words = g_array_new (FALSE, FALSE, sizeof (gint64));
  p->langs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->others = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

static void
period_free (gpointer data)
{
  Period *p = data;

  g_hash_table_unref (p->authors);
  g_array_unref (p->reply_hours);
  g_array_unref (p->words);
  g_hash_table_unref (p->langs);
  g_hash_table_unref (p->others);
  g_free (p);
}

/* Adds one to @table's count of the string @key. */
static void
bump (GHashTable *table, const char *key)
{
  gint64 *count = g_hash_table_lookup (table, key);

  if (count == NULL)
    {
      count = g_new0 (gint64, 1);
      g_hash_table_insert (table, g_strdup (key), count);
    }
  (*count)++;
}

#define AUTHOR_KEY(id) GSIZE_TO_POINTER ((gsize) (id))
#define COUNT_OF(p) ((gint64) GPOINTER_TO_SIZE (p))

/* One group: its periods, and each author's first and last period. */
typedef struct {
  gint64 id;                  /* newsgroups.id: the key */
  char *name;
  GHashTable *periods;        /* period (Period.period, the key) -> Period */
  GHashTable *first, *last;   /* author -> period + 1 (both in pointers) */
} GroupAcc;

static void
group_acc_free (gpointer data)
{
  GroupAcc *g = data;

  g_free (g->name);
  g_hash_table_unref (g->periods);
  g_hash_table_unref (g->first);
  g_hash_table_unref (g->last);
  g_free (g);
}

enum { REVISED_CANCELLED = 1, REVISED_SUPERSEDED = 2 };

typedef struct {
  const AccountingOptions *options;
  GHashTable *shapes;         /* thread root -> ThreadShape */
  GHashTable *crossposts;     /* messages.id -> GPtrArray of its groups' names (from names) */
  GHashTable *names;          /* group names, owned here */
  GHashTable *revised;        /* messages.id -> REVISED_* bits */
  StoreRowFunc func;
  gpointer user_data;
  GHashTable *groups;         /* newsgroups.id -> GroupAcc */
  gint64 rows;
} Accounting;

static gint
compare_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The median of a sorted array of @n values read by @get. */
static double
median_of (GArray *values, gboolean doubles)
{
  guint n = values->len;

  if (n == 0)
    return NAN;
  g_array_sort (values, doubles ? compare_double : compare_int64);
#define AT(i) (doubles ? g_array_index (values, double, (i)) : (double) g_array_index (values, gint64, (i)))
  return n % 2 ? AT (n / 2) : (AT (n / 2 - 1) + AT (n / 2)) / 2;
#undef AT
}

typedef struct {
  const char *key;
  gint64 count;
} Counted;

static gint
by_count (gconstpointer a, gconstpointer b)
{
  const Counted *x = a, *y = b;
  return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp (x->key, y->key);
}

/* "key:count key:count", most first (ties by key), at most @most. */
static char *
top_counts (GHashTable *table, guint most)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Counted));
  GString *out;
  GHashTableIter it;
  gpointer k, v;

  if (g_hash_table_size (table) == 0)
    return NULL;
  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      Counted c = { k, *(gint64 *) v };
      g_array_append_val (all, c);
    }
  g_array_sort (all, by_count);
  out = g_string_new (NULL);
  for (guint i = 0; i < all->len && i < most; i++)
    g_string_append_printf (out, "%s%s:%" G_GINT64_FORMAT, i ? " " : "",
                            g_array_index (all, Counted, i).key, g_array_index (all, Counted, i).count);
  return g_string_free (out, FALSE);
}

static GroupAcc *
group_of (Accounting *a, const StoreGroupPost *row)
{
  GroupAcc *g = g_hash_table_lookup (a->groups, &row->group_id);

  if (g == NULL)
    {
      g = g_new0 (GroupAcc, 1);
      g->id = row->group_id;
      g->name = g_strdup (row->group);
      g->periods = deja_id_table_new (NULL, period_free);
      g->first = g_hash_table_new (g_direct_hash, g_direct_equal);
      g->last = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_hash_table_insert (a->groups, &g->id, g);
    }
  return g;
}

static Period *
period_at (GroupAcc *g, gint64 period)
{
  Period *p = g_hash_table_lookup (g->periods, &period);

  if (p == NULL)
    {
      p = period_new (period);
      g_hash_table_insert (g->periods, &p->period, p);
    }
  return p;
}

/* ---- rows ---- */

#define N_COLUMNS 29

typedef struct {
  RowValue values[N_COLUMNS];
  char *owned[N_COLUMNS];
  guint n;
} RowBuild;

static void
put (RowBuild *r, const char *name, char *text, gboolean number)
{
  g_assert (r->n < N_COLUMNS);
  r->owned[r->n] = text;
  r->values[r->n] = (RowValue) { .name = name, .text = text, .number = number };
  r->n++;
}

static void
put_int (RowBuild *r, const char *name, gint64 v)
{
  put (r, name, g_strdup_printf ("%" G_GINT64_FORMAT, v), TRUE);
}

/* A ratio or mean; NULL when it has no value (0/0, no data). */
static void
put_real (RowBuild *r, const char *name, double v)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  put (r, name, isnan (v) ? NULL : g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.4f", v)), TRUE);
}

static void
row_build_clear (RowBuild *r)
{
  for (guint i = 0; i < r->n; i++)
    g_free (r->owned[i]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RowBuild, row_build_clear)

static double
ratio (gint64 a, gint64 b)
{
  return b == 0 ? NAN : (double) a / (double) b;
}

/* The share of @p's messages written by its most active tenth of
 * authors (at least one author). */
static double
top_decile_share (const Period *p, gint64 authored)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTableIter it;
  gpointer v;
  gint64 top = 0;
  guint n;

  g_hash_table_iter_init (&it, p->authors);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      gint64 count = COUNT_OF (v);
      g_array_append_val (counts, count);
    }
  if (counts->len == 0)
    return NAN;
  g_array_sort (counts, compare_int64);
  n = (counts->len + 9) / 10;
  for (guint i = 0; i < n; i++)
    top += g_array_index (counts, gint64, counts->len - 1 - i);
  return ratio (top, authored);
}

static gboolean
emit_period (Accounting *a, const GroupAcc *g, const Period *p, const Period *previous)
{
  g_auto (RowBuild) r = { 0 };
  g_autoptr (GArray) per_author = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTableIter it;
  gpointer k, v;
  gint64 new_authors = 0, returning = 0, lost = 0, authored = 0;
  gboolean ok;

  g_hash_table_iter_init (&it, p->authors);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      gint64 count = COUNT_OF (v);

      new_authors += COUNT_OF (g_hash_table_lookup (g->first, k)) - 1 == p->period;
      returning += previous != NULL && previous->period == p->period - 1 &&
                   g_hash_table_contains (previous->authors, k);
      authored += count;
      g_array_append_val (per_author, count);
    }
  if (previous != NULL && previous->period == p->period - 1)
    {
      g_hash_table_iter_init (&it, previous->authors);
      while (g_hash_table_iter_next (&it, &k, NULL))
        lost += COUNT_OF (g_hash_table_lookup (g->last, k)) - 1 == previous->period;
    }
  put (&r, "group", g_strdup (g->name), FALSE);
  put (&r, "period", accounting_period_name (p->period, a->options->by), FALSE);
  put_int (&r, "messages", p->messages);
  put_int (&r, "authors", g_hash_table_size (p->authors));
  put_int (&r, "new_authors", new_authors);
  put_int (&r, "returning_authors", returning);
  put_int (&r, "lost_authors", lost);
  put_real (&r, "messages_per_author", ratio (authored, g_hash_table_size (p->authors)));
  put_real (&r, "median_messages_per_author", median_of (per_author, FALSE));
  put_real (&r, "top_decile_share", top_decile_share (p, authored));
  put_int (&r, "threads", p->threads);
  put_int (&r, "replies", p->replies);
  put_real (&r, "reply_share", ratio (p->replies, p->messages));
  put_int (&r, "unanswered_threads", p->unanswered);
  put_real (&r, "unanswered_share", ratio (p->unanswered, p->threads));
  put_real (&r, "median_hours_to_first_reply", median_of (p->reply_hours, TRUE));
  put_real (&r, "mean_thread_depth", ratio (p->depth_sum, p->threads));
  put_real (&r, "mean_thread_breadth", ratio (p->breadth_sum, p->threads));
  put_int (&r, "crossposts", p->crossposts);
  put (&r, "crosspost_groups", top_counts (p->others, 5), FALSE);
  put_real (&r, "median_words", median_of (p->words, FALSE));
  put_real (&r, "quoted_share", ratio (p->quoted_lines, p->quoted_lines + p->own_lines));
  put (&r, "languages", top_counts (p->langs, 5), FALSE);
  put_int (&r, "approved", p->approved);
  put_int (&r, "followups_elsewhere", p->followups_elsewhere);
  put_int (&r, "cancelled", p->cancelled);
  put_int (&r, "superseded", p->superseded);
  put_int (&r, "control_messages", p->controls);
  put_int (&r, "cancels", p->cancels);
  ok = a->func (r.values, r.n, a->user_data);
  a->rows++;
  return ok;
}

/* The values of @table (GLib 2.74 has no g_hash_table_get_values_as_ptr_array). */
static GPtrArray *
values_of (GHashTable *table)
{
  GPtrArray *values = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (values, v);
  return values;
}

static gint
by_period (gconstpointer x, gconstpointer y)
{
  const Period *a = *(Period *const *) x, *b = *(Period *const *) y;
  return a->period < b->period ? -1 : a->period > b->period;
}

static gint
by_name (gconstpointer x, gconstpointer y)
{
  const GroupAcc *a = *(GroupAcc *const *) x, *b = *(GroupAcc *const *) y;
  return strcmp (a->name, b->name);
}

/* Writes a group's rows, its periods in order. */
static gboolean
emit_group (Accounting *a, const GroupAcc *g)
{
  g_autoptr (GPtrArray) periods = values_of (g->periods);
  gboolean ok = TRUE;

  g_ptr_array_sort (periods, by_period);
  for (guint i = 0; ok && i < periods->len; i++)
    ok = emit_period (a, g, g_ptr_array_index (periods, i),
                      i > 0 ? g_ptr_array_index (periods, i - 1) : NULL);
  return ok;
}

/* Whether the Followup-To value @followup_to ("comp.lang.c,comp.std.c",
 * "poster") names @group. */
static gboolean
names_group (const char *followup_to, const char *group)
{
  gsize n = strlen (group);

  for (const char *p = followup_to; *p; )
    {
      while (*p == ',' || g_ascii_isspace (*p))
        p++;
      if (g_ascii_strncasecmp (p, group, n) == 0 && (p[n] == '\0' || p[n] == ',' || g_ascii_isspace (p[n])))
        return TRUE;
      while (*p && *p != ',')
        p++;
    }
  return FALSE;
}

/* Keeps @period as @author's first (or last) in @table when it is earlier
 * (later) than the one there. */
static void
widen (GHashTable *table, gint64 author, gint64 period, gboolean earliest)
{
  gint64 known = COUNT_OF (g_hash_table_lookup (table, AUTHOR_KEY (author))) - 1;

  if (known < 0 || (earliest ? period < known : period > known))
    g_hash_table_insert (table, AUTHOR_KEY (author), GSIZE_TO_POINTER ((gsize) (period + 1)));
}

static gboolean
add_post (const StoreGroupPost *row, gpointer data)
{
  Accounting *a = data;
  gint64 period = accounting_period_of (row->date, a->options->by);
  GroupAcc *g;
  Period *p;

  if (period == G_MININT64 || period < 0)
    return TRUE;
  g = group_of (a, row);
  p = period_at (g, period);
  if (row->control)
    {
      /* a control message is not a post: counted apart */
      p->controls++;
      p->cancels += row->cancel;
      return TRUE;
    }
  p->messages++;
  p->approved += row->approved;
  p->quoted_lines += row->quoted_lines;
  p->own_lines += row->own_lines;
  p->followups_elsewhere += row->followup_to != NULL && !names_group (row->followup_to, row->group);
  {
    int revised = GPOINTER_TO_INT (g_hash_table_lookup (a->revised, &row->message));

    p->cancelled += (revised & REVISED_CANCELLED) != 0;
    p->superseded += (revised & REVISED_SUPERSEDED) != 0;
  }
  if (row->author > 0)
    {
      gpointer count = g_hash_table_lookup (p->authors, AUTHOR_KEY (row->author));

      g_hash_table_insert (p->authors, AUTHOR_KEY (row->author), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (count) + 1));
      widen (g->first, row->author, period, TRUE);
      widen (g->last, row->author, period, FALSE);
    }
  p->replies += row->reply;
  if (row->thread == row->message && !row->reply)
    {
      ThreadShape *t = g_hash_table_lookup (a->shapes, &row->message);
      gint64 start = date_iso8601_seconds (row->date);

      p->threads++;
      if (t == NULL || t->size <= 1)
        p->unanswered++;
      if (t != NULL)
        {
          p->depth_sum += t->depth;
          p->breadth_sum += thread_breadth (t);
          if (t->first_reply != G_MININT64 && start != G_MININT64)
            {
              double hours = (double) (t->first_reply - start) / 3600.0;
              g_array_append_val (p->reply_hours, hours);
            }
        }
    }
  {
    GPtrArray *groups = g_hash_table_lookup (a->crossposts, &row->message);

    if (groups != NULL)
      {
        p->crossposts++;
        for (guint i = 0; i < groups->len; i++)
          if (strcmp (g_ptr_array_index (groups, i), row->group) != 0)
            bump (p->others, g_ptr_array_index (groups, i));
      }
  }
  if (row->words >= 0)
    g_array_append_val (p->words, row->words);
  if (row->lang != NULL)
    bump (p->langs, row->lang);
  return TRUE;
}

static gboolean
add_crosspost_group (gint64 id, const char *group, gpointer data)
{
  Accounting *a = data;
  GPtrArray *groups = g_hash_table_lookup (a->crossposts, &id);
  char *name = g_hash_table_lookup (a->names, group);

  if (name == NULL)
    {
      name = g_strdup (group);
      g_hash_table_add (a->names, name);
    }
  if (groups == NULL)
    {
      groups = g_ptr_array_new ();
      g_hash_table_insert (a->crossposts, g_memdup2 (&id, sizeof id), groups);
    }
  g_ptr_array_add (groups, name);
  return TRUE;
}

static gboolean
add_revision (gint64 id, const char *kind, gpointer data)
{
  Accounting *a = data;
  int bits = GPOINTER_TO_INT (g_hash_table_lookup (a->revised, &id));

  bits |= g_strcmp0 (kind, "cancelled") == 0 ? REVISED_CANCELLED : REVISED_SUPERSEDED;
  g_hash_table_insert (a->revised, g_memdup2 (&id, sizeof id), GINT_TO_POINTER (bits));
  return TRUE;
}

/**
 * accounting_run:
 * @func: called with each row (group, period, and the measures of
 *   docs/groups.md), groups by name, periods in order
 *
 * Returns: %FALSE with @error when the database cannot be read
 */
gboolean
accounting_run (Store *store, const AccountingOptions *options, StoreRowFunc func,
                gpointer user_data, gint64 *rows, GError **error)
{
  Accounting a = {
    .options = options,
    .func = func,
    .user_data = user_data,
    .groups = deja_id_table_new (NULL, group_acc_free),
    .crossposts = deja_id_table_new (g_free,
                                         (GDestroyNotify) g_ptr_array_unref),
    .names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .revised = deja_id_table_new (g_free, NULL),
  };
  gboolean ok;

  a.shapes = thread_shapes (store, error);
  ok = a.shapes != NULL && store_crosspost_groups (store, add_crosspost_group, &a, error) &&
       store_revisions (store, add_revision, &a, error) &&
       store_group_posts (store, &options->filter, add_post, &a, error);
  if (ok)
    {
      g_autoptr (GPtrArray) groups = values_of (a.groups);

      g_ptr_array_sort (groups, by_name);
      for (guint i = 0; i < groups->len && emit_group (&a, g_ptr_array_index (groups, i)); i++)
        ;
    }
  if (rows)
    *rows = a.rows;
  g_hash_table_unref (a.groups);
  if (a.shapes)
    g_hash_table_unref (a.shapes);
  g_hash_table_unref (a.crossposts);
  g_hash_table_unref (a.names);
  g_hash_table_unref (a.revised);
  return ok;
}
