/* flags.c — bit sets as comma-separated tokens ("no-date,bad-from"). */
#include "flags.h"

/**
 * flags_to_string:
 * @names: (array length=n_names): the token of bit i
 *
 * Returns: (transfer full) (nullable): the tokens of the bits set in
 *   @flags, in bit order, or %NULL when none is set (a NULL column)
 */
char *
flags_to_string (guint flags, const char *const *names, gsize n_names)
{
  GString *out;

  if (flags == 0)
    return NULL;
  out = g_string_new (NULL);
  for (gsize i = 0; i < n_names; i++)
    if (flags & (1u << i))
      {
        if (out->len)
          g_string_append_c (out, ',');
        g_string_append (out, names[i]);
      }
  return g_string_free (out, FALSE);
}
