/* msgid.c — reading message identifiers the way threading needs them.
 *
 * RFC 5322 §3.6.4 writes an id as "<left@right>".  Archives hold much
 * worse: ids without brackets, ids folded across lines, free text around
 * them in In-Reply-To ("Your message of Tue, … <id>"), and Google Groups
 * exports that append "#1/1" to the id.  Normal form: no brackets, no
 * white space, no Google suffix, case kept (the left part is case
 * sensitive).  An id that cannot be read is NULL, never a guess.
 */
#include "msgid.h"
#include "parsers-private.h"

#include <string.h>

/* Copies [s, s+len) without white space and drops a trailing "#n/m". */
static char *
clean_id (const char *s, gsize len)
{
  GString *out = g_string_sized_new (len);
  gsize i;

  for (i = 0; i < len; i++)
    if (!g_ascii_isspace (s[i]) && s[i] != '\0')
      g_string_append_c (out, s[i]);
  /* Google Groups: "<id>#1/1" or "id#1/1". */
  {
    char *hash = strrchr (out->str, '#');
    if (hash != NULL && hash != out->str)
      {
        const char *q = hash + 1;
        gboolean ok = _deja_is_digit (*q);
        while (_deja_is_digit (*q))
          q++;
        ok = ok && *q == '/' && _deja_is_digit (q[1]);
        if (ok)
          {
            q++;
            while (_deja_is_digit (*q))
              q++;
          }
        if (ok && *q == '\0')
          g_string_truncate (out, hash - out->str);
      }
  }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/**
 * msgid_normalize:
 * @raw: a Message-ID header value as bytes
 * @len: its length
 *
 * Takes the first "<…>" (an unterminated "<" runs to the end of the value),
 * or the first white-space-separated token when there are no brackets.
 *
 * Returns: (transfer full) (nullable): the normalised id, or %NULL when
 * the value is empty
 */
char *
msgid_normalize (const char *raw, gsize len)
{
  const char *lt, *gt, *hash_tail;
  DejaToken tok;

  _deja_span_trim (&raw, &len);
  if (len == 0)
    return NULL;
  lt = memchr (raw, '<', len);
  if (lt != NULL)
    {
      gt = memchr (lt, '>', raw + len - lt);
      if (gt == NULL)
        return clean_id (lt + 1, raw + len - lt - 1);
      /* Keep a Google suffix that follows the bracket so clean_id drops it. */
      hash_tail = gt + 1;
      if (hash_tail < raw + len && *hash_tail == '#')
        {
          g_autofree char *joined = g_strdup_printf ("%.*s%.*s", (int) (gt - lt - 1), lt + 1,
                                                     (int) (raw + len - hash_tail), hash_tail);
          return clean_id (joined, strlen (joined));
        }
      return clean_id (lt + 1, gt - lt - 1);
    }
  if (_deja_tokenize (raw, len, &tok, 1) == 0)
    return NULL;
  return clean_id (tok.p, tok.len);
}

/* Past this many ids, repeats are found with a hash set (*@seen, made
 * then): a References of 100,000 ids took 101 s compared pairwise. */
#define LINEAR_IDS 16

static void
add_unique (GPtrArray *ids, GHashTable **seen, char *id)
{
  if (id == NULL)
    return;
  if (*seen == NULL && ids->len < LINEAR_IDS)
    {
      for (guint i = 0; i < ids->len; i++)
        if (strcmp (g_ptr_array_index (ids, i), id) == 0)
          {
            g_free (id);
            return;
          }
      g_ptr_array_add (ids, id);
      return;
    }
  if (*seen == NULL)
    {
      *seen = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < ids->len; i++)
        g_hash_table_add (*seen, g_ptr_array_index (ids, i));
    }
  if (!g_hash_table_add (*seen, id))
    {
      g_free (id);
      return;
    }
  g_ptr_array_add (ids, id);
}

/* Is the word "from" (any case) in [p, p+len)?  "Message from Glyph
 * Lefkowitz <glyph@twistedmatrix.com> of "Thu, 25 Jul 2002 …" <id>":
 * what follows "from" is the sender's address, not an id. */
static gboolean
names_a_sender (const char *p, gsize len)
{
  for (gsize i = 0; i + 4 <= len; i++)
    if (g_ascii_strncasecmp (p + i, "from", 4) == 0 &&
        (i == 0 || !g_ascii_isalnum (p[i - 1])) &&
        (i + 4 == len || !g_ascii_isalnum (p[i + 4])))
      return TRUE;
  return FALSE;
}

static GPtrArray *
parse_bracketed (const char *raw, gsize len, gboolean skip_senders)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = NULL;
  const char *p = raw, *end = raw + len;

  while (p < end)
    {
      const char *lt = memchr (p, '<', end - p), *gt, *last_lt;

      if (lt == NULL)
        break;
      gt = memchr (lt + 1, '>', end - lt - 1);
      if (gt == NULL)
        break;
      /* "<a <b@c>": the first "<" was never closed; the id opens at the
       * last "<" before the ">" (found at once: "<<<<…>" stays linear). */
      last_lt = memrchr (lt + 1, '<', gt - lt - 1);
      if (last_lt != NULL)
        p = lt = last_lt;
      if (!(skip_senders && names_a_sender (p, lt - p)))
        add_unique (ids, &seen, clean_id (lt + 1, gt - lt - 1));
      p = gt + 1;
    }
  return ids;
}

/**
 * msgid_parse_list:
 * @raw: a References value as bytes
 * @len: its length
 *
 * Reads every complete "<…>" in order (ids folded across lines are joined;
 * an unterminated "<" is dropped).  Only bracketed tokens are ids: a bare
 * "glyph@twistedmatrix.com" is an address an old mailer wrote, and taking
 * it for an id joins unrelated threads through it.  Repeated ids are kept
 * once, at their first place.
 *
 * Returns: (transfer full) (element-type utf8): the ids, possibly empty
 */
GPtrArray *
msgid_parse_list (const char *raw, gsize len)
{
  return parse_bracketed (raw, len, FALSE);
}

/**
 * msgid_parse_in_reply_to:
 * @raw: an In-Reply-To value as bytes
 * @len: its length
 *
 * As msgid_parse_list(), and a bracketed token after the word "from" is
 * the sender's address in old mailers' "Message from NAME <addr> of
 * "DATE" <id>", not an id.
 *
 * Returns: (transfer full) (element-type utf8): the ids, possibly empty
 */
GPtrArray *
msgid_parse_in_reply_to (const char *raw, gsize len)
{
  return parse_bracketed (raw, len, TRUE);
}
