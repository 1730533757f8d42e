/* fnv.c — FNV-1a over a sequence of fields.
 *
 * A message's content hash (from_addr, subject, body) tells two copies of a
 * Message-ID apart.  The decoders compute it as they read each message; the
 * database's deja_content_hash() SQL function computes the same value for
 * rows stored before the column existed.  A NULL field hashes as empty. */
#include "fnv.h"

guint64
fnv_field (guint64 h, const char *s, gsize n)
{
  for (gsize k = 0; s && k < n; k++)
    h = (h ^ (guchar) s[k]) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;     /* field separator */
}
