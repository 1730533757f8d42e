/* fuzz-thread.c — threading on arbitrary reference graphs.
 *
 * Each input line is "ID REF REF …" (an empty ID: no Message-ID); ids are
 * whatever bytes the fuzzer makes, so cycles, self-references and
 * duplicates all come up.  Every result must point inside the input. */
#include "fuzz.h"
#include "thread.h"

#include <string.h>

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
  thread_result_clear (&r);
  return 0;
}
