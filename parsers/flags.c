/* flags.c — bit sets as comma-separated tokens ("no-date,bad-from"). */
#include "flags.h"

#include <string.h>

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

/**
 * flags_from_string:
 * @s: (nullable): tokens as flags_to_string() writes them
 * @names: (array length=n_names): the token of bit i
 * @unknown: (out): whether @s holds a token not in @names
 *
 * Returns: the bits of the tokens of @s (0 for %NULL)
 */
guint
flags_from_string (const char *s, const char *const *names, gsize n_names, gboolean *unknown)
{
  guint flags = 0;

  *unknown = FALSE;
  while (s != NULL && *s != '\0')
    {
      const char *end = strchr (s, ',');
      gsize len = end ? (gsize) (end - s) : strlen (s);
      gsize i = 0;

      while (i < n_names && !(strncmp (names[i], s, len) == 0 && names[i][len] == '\0'))
        i++;
      if (i < n_names)
        flags |= 1u << i;
      else
        *unknown = TRUE;
      s = end ? end + 1 : NULL;
    }
  return flags;
}
