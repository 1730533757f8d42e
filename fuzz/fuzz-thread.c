/* fuzz-thread.c — threading on arbitrary reference graphs.
 *
 * Each input line is "ID REF REF …" (an empty ID: no Message-ID); ids are
 * whatever bytes the fuzzer makes, so cycles, self-references and
 * duplicates all come up.  Every result must point inside the input, and
 * (without subject joining) threading each connected component alone must
 * give what threading everything at once gives: deja threads large
 * databases in batches of whole components (src/store-thread-batches.c). */
#include "fuzz.h"
#include "thread.h"

#include <string.h>

static guint
find (guint *parent, guint x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* Each message's component, named by its first message: messages joined
 * by the Message-IDs they carry and cite.  Nodes are messages, then
 * Message-IDs. */
static guint *
components (const ThreadInput *in, guint n)
{
  g_autoptr (GHashTable) node = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GArray) parent = g_array_new (FALSE, FALSE, sizeof (guint));
  guint *comp = g_new (guint, n);

  for (guint i = 0; i < n; i++)
    g_array_append_val (parent, i);
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k <= in[i].n_references; k++)
      {
        const char *id = k == 0 ? in[i].message_id : in[i].references[k - 1];
        gpointer found;
        guint x;

        if (id == NULL)
          continue;
        if (!(found = g_hash_table_lookup (node, id)))
          {
            x = parent->len;
            g_array_append_val (parent, x);
            g_hash_table_insert (node, (gpointer) id, GUINT_TO_POINTER (x + 1));
          }
        else
          x = GPOINTER_TO_UINT (found) - 1;
        x = find ((guint *) parent->data, x);
        g_array_index (parent, guint, find ((guint *) parent->data, i)) = x;
      }
  /* Named by their first message, so that a component is < n. */
  {
    g_autofree guint *first = g_new (guint, parent->len);

    memset (first, 0xff, parent->len * sizeof *first);
    for (guint i = 0; i < n; i++)
      {
        guint root = find ((guint *) parent->data, i);

        comp[i] = first[root] == G_MAXUINT ? (first[root] = i) : first[root];
      }
  }
  return comp;
}

static ThreadIndex
global (const guint *members, ThreadIndex local)
{
  return local < 0 ? -1 : (ThreadIndex) members[local];
}

/* Threads each component alone and compares with @all. */
static void
check_components (const ThreadInput *in, guint n, const ThreadResult *all)
{
  g_autofree guint *comp = components (in, n);
  g_autofree gboolean *done = g_new0 (gboolean, n);
  guint placeholders = 0;

  for (guint first = 0; first < n; first++)
    {
      g_autoptr (GArray) sub = g_array_new (FALSE, FALSE, sizeof (ThreadInput));
      g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint));
      ThreadResult r;

      if (done[comp[first]])
        continue;
      done[comp[first]] = TRUE;
      for (guint i = first; i < n; i++)
        if (comp[i] == comp[first])
          {
            g_array_append_val (sub, in[i]);
            g_array_append_val (members, i);
          }
      thread_compute ((const ThreadInput *) sub->data, sub->len, FALSE, &r);
      for (guint l = 0; l < sub->len; l++)
        {
          const ThreadOutput *a = &all->out[g_array_index (members, guint, l)], *b = &r.out[l];
          const guint *m = (const guint *) members->data;

          g_assert_cmpint (a->thread, ==, global (m, b->thread));
          g_assert_cmpint (a->parent, ==, global (m, b->parent));
          g_assert_cmpint (a->duplicate_of, ==, global (m, b->duplicate_of));
          g_assert_cmpstr (a->missing_parent, ==, b->missing_parent);
          g_assert_cmpint (a->flags, ==, b->flags);
        }
      placeholders += r.placeholders->len;
      thread_result_clear (&r);
    }
  g_assert_cmpuint (placeholders, ==, all->placeholders->len);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto (GStrv) lines = g_strsplit (text, "\n", 2000);
  guint n = g_strv_length (lines);
  g_autofree ThreadInput *in = g_new0 (ThreadInput, n);
  g_autoptr (GPtrArray) words = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  ThreadResult r;

  for (guint i = 0; i < n; i++)
    {
      char **w = g_strsplit (lines[i], " ", 64);
      guint k = g_strv_length (w);

      g_ptr_array_add (words, w);
      in[i].message_id = k > 0 && *w[0] ? w[0] : NULL;
      in[i].references = k > 1 ? (const char *const *) w + 1 : NULL;
      in[i].n_references = k > 1 ? k - 1 : 0;
      in[i].content = i % 3;
    }
  thread_compute (in, n, size % 2, &r);
  for (guint i = 0; i < n; i++)
    {
      g_assert (r.out[i].thread >= 0 && r.out[i].thread < (ThreadIndex) n);
      g_assert (r.out[i].parent >= -1 && r.out[i].parent < (ThreadIndex) n);
      g_assert (r.out[i].parent != (ThreadIndex) i);
    }
  if (size % 2 == 0 && n > 0)
    check_components (in, n, &r);
  thread_result_clear (&r);
  return 0;
}
