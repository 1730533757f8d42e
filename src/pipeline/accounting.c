/* accounting.c — deja groups: social accounting per group and period.
 *
 * What Netscan measured of every newsgroup, on any archive: per group and
 * period, who posted, who came, who stayed, who left, how threads went.
 * The store gives two row streams (store-groups.c): every dated canonical
 * message in each of its groups, in group and date order, and the reply
 * tree of every canonical message; the arithmetic is here.  Every figure
 * and its formula: docs/groups.md.
 *
 * Memory: one group's periods at a time, plus one entry per threaded
 * message for the thread shapes.
 */
#include "accounting.h"

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
  int y, m = 1;

  if (date == NULL || sscanf (date, "%4d-%2d", &y, &m) < 1 || m < 1 || m > 12)
    return G_MININT64;
  switch (by)
    {
    case ACCOUNTING_BY_MONTH: return (gint64) y * 12 + (m - 1);
    case ACCOUNTING_BY_QUARTER: return (gint64) y * 4 + (m - 1) / 3;
    case ACCOUNTING_BY_YEAR: break;
    }
  return y;
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

/* Seconds since 1970 of "YYYY-MM-DD[THH:MM:SS]" (UTC), or G_MININT64. */
gint64
accounting_seconds (const char *date)
{
  int y, mo, d, h = 0, mi = 0, s = 0, n;
  gint64 days;

  if (date == NULL || (n = sscanf (date, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s)) < 3)
    return G_MININT64;
  /* days from civil (Howard Hinnant's algorithm) */
  y -= mo <= 2;
  {
    gint64 era = (y >= 0 ? y : y - 399) / 400;
    gint64 yoe = y - era * 400;
    gint64 doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    gint64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    days = era * 146097 + doe - 719468;
  }
  return days * 86400 + h * 3600 + mi * 60 + s;
}

/* ---- thread shapes ---- */

typedef struct {
  gint64 parent, thread;
  gint64 seconds;          /* G_MININT64: undated */
  gint depth;              /* -1: not known yet */
} TreeNode;

typedef struct {
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

static gboolean
add_tree_node (const StoreTreePost *row, gpointer data)
{
  GHashTable *nodes = data;
  TreeNode *n = g_new (TreeNode, 1);
  gint64 *key = g_new (gint64, 1);

  *key = row->message;
  *n = (TreeNode) { .parent = row->parent, .thread = row->thread,
                    .seconds = accounting_seconds (row->date), .depth = -1 };
  g_hash_table_insert (nodes, key, n);
  return TRUE;
}

/* The depth of @id below its thread's root: 0 for the root, the parent's
 * + 1, 1 for a message whose parent is not in the archive.  Iterative,
 * and bounded by the number of messages against a loop. */
static gint
depth_of (GHashTable *nodes, gint64 id)
{
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (TreeNode *));
  TreeNode *n = g_hash_table_lookup (nodes, &id), *top;
  guint limit = g_hash_table_size (nodes);
  gint depth;

  while (n != NULL && n->depth < 0 && chain->len <= limit)
    {
      g_array_append_val (chain, n);
      n = n->parent != 0 ? g_hash_table_lookup (nodes, &n->parent) : NULL;
    }
  if (n != NULL && n->depth >= 0)
    depth = n->depth;          /* met a message whose depth is known */
  else if (chain->len == 0)
    return 0;
  else
    {
      /* the top of the chain: the thread's root (0), or a reply whose
       * parent is not in the archive (1, below an absent root) */
      top = g_array_index (chain, TreeNode *, chain->len - 1);
      top->depth = top->parent == 0 && g_hash_table_lookup (nodes, &top->thread) == top ? 0 : 1;
      depth = top->depth;
      chain->len--;
    }
  for (guint i = chain->len; i > 0; i--)
    g_array_index (chain, TreeNode *, i - 1)->depth = ++depth;
  n = g_hash_table_lookup (nodes, &id);
  return n->depth;
}

static GHashTable *
thread_shapes (Store *store, GError **error)
{
  g_autoptr (GHashTable) nodes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  GHashTable *shapes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, thread_shape_free);
  GHashTableIter it;
  gpointer key, value;

  if (!store_reply_tree (store, add_tree_node, nodes, error))
    {
      g_hash_table_unref (shapes);
      return NULL;
    }
  g_hash_table_iter_init (&it, nodes);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      gint64 id = *(gint64 *) key;
      TreeNode *n = value;
      ThreadShape *t = g_hash_table_lookup (shapes, &n->thread);
      gint depth = depth_of (nodes, id);
      gint64 zero = 0;

      if (t == NULL)
        {
          gint64 *k = g_new (gint64, 1);

          *k = n->thread;
          t = g_new0 (ThreadShape, 1);
          t->first_reply = G_MININT64;
          t->levels = g_array_new (FALSE, TRUE, sizeof (gint64));
          g_hash_table_insert (shapes, k, t);
        }
      t->size++;
      t->depth = MAX (t->depth, depth);
      while (t->levels->len <= (guint) depth)
        g_array_append_val (t->levels, zero);
      g_array_index (t->levels, gint64, depth)++;
      if (id != n->thread && n->seconds != G_MININT64 &&
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

/* ---- one group's periods ---- */

typedef struct {
  gint64 period;
  gint64 messages, replies, threads, unanswered, crossposts;
  gint64 controls, cancels, cancelled, superseded, approved;
  GHashTable *authors;        /* author id -> messages in the period */
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
  p->authors = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
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

/* Adds one to @table's count of @key (an int64 or a string, by @int_key). */
static void
bump (GHashTable *table, gconstpointer key, gboolean int_key)
{
  gint64 *count = g_hash_table_lookup (table, key);

  if (count == NULL)
    {
      gpointer k = int_key ? g_memdup2 (key, sizeof (gint64)) : g_strdup (key);

      count = g_new0 (gint64, 1);
      g_hash_table_insert (table, k, count);
    }
  (*count)++;
}

typedef struct {
  const AccountingOptions *options;
  GHashTable *shapes;         /* thread root -> ThreadShape */
  StoreRowFunc func;
  gpointer user_data;
  gboolean stopped;
  /* the group being read */
  gint64 group_id;
  char *group;
  GPtrArray *periods;         /* of Period, in period order (rows come by date) */
  GHashTable *first, *last;   /* author -> first and last period in the group */
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

static Period *
period_at (Accounting *a, gint64 period)
{
  Period *last = a->periods->len ? g_ptr_array_index (a->periods, a->periods->len - 1) : NULL;

  if (last != NULL && last->period == period)
    return last;
  g_ptr_array_add (a->periods, period_new (period));
  return g_ptr_array_index (a->periods, a->periods->len - 1);
}

/* ---- rows ---- */

#define N_COLUMNS 27

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
    g_array_append_val (counts, *(gint64 *) v);
  if (counts->len == 0)
    return NAN;
  g_array_sort (counts, compare_int64);
  n = (counts->len + 9) / 10;
  for (guint i = 0; i < n; i++)
    top += g_array_index (counts, gint64, counts->len - 1 - i);
  return ratio (top, authored);
}

static gboolean
emit_period (Accounting *a, const Period *p, const Period *previous)
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
      gint64 first = *(gint64 *) g_hash_table_lookup (a->first, k);

      new_authors += first == p->period;
      returning += previous != NULL && previous->period == p->period - 1 &&
                   g_hash_table_contains (previous->authors, k);
      authored += *(gint64 *) v;
      g_array_append_val (per_author, *(gint64 *) v);
    }
  if (previous != NULL && previous->period == p->period - 1)
    {
      g_hash_table_iter_init (&it, previous->authors);
      while (g_hash_table_iter_next (&it, &k, NULL))
        lost += *(gint64 *) g_hash_table_lookup (a->last, k) == previous->period;
    }
  put (&r, "group", g_strdup (a->group), FALSE);
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
  put (&r, "languages", top_counts (p->langs, 5), FALSE);
  put_int (&r, "approved", p->approved);
  put_int (&r, "cancelled", p->cancelled);
  put_int (&r, "superseded", p->superseded);
  put_int (&r, "control_messages", p->controls);
  put_int (&r, "cancels", p->cancels);
  ok = a->func (r.values, r.n, a->user_data);
  a->rows++;
  return ok;
}

/* Writes the rows of the group read so far, and forgets it. */
static gboolean
close_group (Accounting *a)
{
  gboolean ok = TRUE;

  for (guint i = 0; ok && i < a->periods->len; i++)
    ok = emit_period (a, g_ptr_array_index (a->periods, i),
                      i > 0 ? g_ptr_array_index (a->periods, i - 1) : NULL);
  g_ptr_array_set_size (a->periods, 0);
  g_hash_table_remove_all (a->first);
  g_hash_table_remove_all (a->last);
  g_clear_pointer (&a->group, g_free);
  return ok;
}

static gboolean
add_post (const StoreGroupPost *row, gpointer data)
{
  Accounting *a = data;
  gint64 period = accounting_period_of (row->date, a->options->by);
  Period *p;

  if (a->stopped)
    return FALSE;
  if (a->group != NULL && row->group_id != a->group_id && !close_group (a))
    return !(a->stopped = TRUE);
  if (a->group == NULL)
    {
      a->group = g_strdup (row->group);
      a->group_id = row->group_id;
    }
  if (period == G_MININT64)
    return TRUE;
  p = period_at (a, period);
  if (row->control)
    {
      /* a control message is not a post: counted apart */
      p->controls++;
      p->cancels += row->cancel;
      return TRUE;
    }
  p->messages++;
  p->approved += row->approved;
  p->cancelled += row->cancelled;
  p->superseded += row->superseded;
  if (row->author != 0)
    {
      gint64 *first = g_hash_table_lookup (a->first, &row->author);

      bump (p->authors, &row->author, TRUE);
      if (first == NULL)
        g_hash_table_insert (a->first, g_memdup2 (&row->author, sizeof (gint64)),
                             g_memdup2 (&period, sizeof period));
      g_hash_table_insert (a->last, g_memdup2 (&row->author, sizeof (gint64)),
                           g_memdup2 (&period, sizeof period));
    }
  p->replies += row->reply;
  if (row->thread == row->message && !row->reply)
    {
      ThreadShape *t = g_hash_table_lookup (a->shapes, &row->message);
      gint64 start = accounting_seconds (row->date);

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
  if (row->other_groups != NULL)
    {
      g_auto (GStrv) others = g_strsplit (row->other_groups, " ", -1);

      p->crossposts++;
      for (char **o = others; *o; o++)
        if (**o)
          bump (p->others, *o, FALSE);
    }
  if (row->words >= 0)
    g_array_append_val (p->words, row->words);
  if (row->lang != NULL)
    bump (p->langs, row->lang, FALSE);
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
    .periods = g_ptr_array_new_with_free_func (period_free),
    .first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free),
    .last = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free),
  };
  gboolean ok;

  a.shapes = thread_shapes (store, error);
  ok = a.shapes != NULL && store_group_posts (store, &options->filter, add_post, &a, error);
  if (ok && !a.stopped && a.group != NULL)
    close_group (&a);
  if (rows)
    *rows = a.rows;
  g_free (a.group);
  g_ptr_array_unref (a.periods);
  g_hash_table_unref (a.first);
  g_hash_table_unref (a.last);
  if (a.shapes)
    g_hash_table_unref (a.shapes);
  return ok;
}
