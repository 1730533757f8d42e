/* rfc2047.c — decoding header text (RFC 2047 encoded words, raw 8-bit).
 *
 * GMime 3.2.13, as shipped by Debian 12, keeps only the first of adjacent
 * B-encoded words (gmime#133: "=?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?="
 * gives "Hello") and silently drops raw 8-bit bytes it cannot place.
 * Both are common in Usenet archives, so deja takes the raw header value
 * from GMime and decodes it here:
 *
 *  - white space between two encoded words is dropped (RFC 2047 §6.2);
 *  - adjacent words in the same charset are joined as bytes before the
 *    charset conversion, so a multi-byte character split across two
 *    words (as many mailers write them) comes out whole;
 *  - encoded words are recognised where they touch other text, as in
 *    "(=?ISO8859-1?Q?a?=)", and with white space inside them, because
 *    real mail does both;
 *  - runs of raw bytes are UTF-8 if valid, else @fallback_charset, else
 *    windows-1252 (charset.c), so nothing is dropped.
 */
#include "rfc2047.h"
#include "charset.h"

#include <string.h>

typedef struct {
  GString *out;
  GByteArray *pending;       /* decoded bytes of adjacent encoded words */
  char charset[64];          /* their charset */
  const char *fallback;
} Decoder;

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  c = g_ascii_tolower (c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static void
decode_q (const char *s, gsize len, GByteArray *out)
{
  for (gsize i = 0; i < len; i++)
    {
      guint8 c = s[i];
      int hi, lo;

      if (c == '_')
        c = ' ';
      else if (c == '=' && i + 2 < len && (hi = hex_value (s[i + 1])) >= 0 &&
               (lo = hex_value (s[i + 2])) >= 0)
        {
          c = (guint8) (hi << 4 | lo);
          i += 2;
        }
      g_byte_array_append (out, &c, 1);
    }
}

static void
decode_b (const char *s, gsize len, GByteArray *out)
{
  gsize old = out->len;
  gint state = 0;
  guint save = 0;
  gsize n;

  g_byte_array_set_size (out, old + len * 3 / 4 + 3);
  n = g_base64_decode_step (s, len, out->data + old, &state, &save);
  g_byte_array_set_size (out, old + n);
}

/* Parses "=?charset?enc?text?=" at s; returns its length or 0. */
static gsize
parse_word (const char *s, gsize len, const char **cs, gsize *cs_len,
            char *enc, const char **text, gsize *text_len)
{
  gsize i = 2, start;

  if (len < 8 || s[0] != '=' || s[1] != '?')
    return 0;
  start = i;
  while (i < len && s[i] != '?' && !g_ascii_isspace (s[i]))
    i++;
  if (i == len || s[i] != '?' || i == start || i - start >= 64)
    return 0;
  *cs = s + start;
  *cs_len = i - start;
  i++;
  if (i + 1 >= len || s[i + 1] != '?')
    return 0;
  *enc = g_ascii_toupper (s[i]);
  if (*enc != 'B' && *enc != 'Q')
    return 0;
  i += 2;
  start = i;
  /* White space inside the text is against RFC 2047 §5, but mailers
   * wrote it ("=?iso-8859-1?q?a\tpackage?="): it is kept as it is, as
   * long as the word closes before another one opens. */
  while (i + 1 < len && !(s[i] == '?' && s[i + 1] == '='))
    {
      if (g_ascii_isspace (s[i]) && i + 2 < len && s[i + 1] == '=' && s[i + 2] == '?')
        return 0;
      i++;
    }
  if (i + 1 >= len)
    return 0;
  *text = s + start;
  *text_len = i - start;
  return i + 2;
}

static gboolean
all_space (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isspace (s[i]))
      return FALSE;
  return TRUE;
}

static void
flush_pending (Decoder *d)
{
  char *text;

  if (d->pending->len == 0)
    return;
  text = charset_to_utf8 ((const char *) d->pending->data, d->pending->len,
                          d->charset, NULL);
  g_string_append (d->out, text);
  g_free (text);
  g_byte_array_set_size (d->pending, 0);
}

static void
append_raw (Decoder *d, const char *s, gsize len)
{
  char *text;

  if (len == 0)
    return;
  flush_pending (d);
  text = charset_to_utf8 (s, len, d->fallback, NULL);
  g_string_append (d->out, text);
  g_free (text);
}

static void
append_word (Decoder *d, const char *cs, gsize cs_len, char enc,
             const char *text, gsize text_len)
{
  /* Join with the previous word only when the charset is the same. */
  if (d->pending->len > 0 &&
      !(strlen (d->charset) == cs_len && g_ascii_strncasecmp (d->charset, cs, cs_len) == 0))
    flush_pending (d);
  memcpy (d->charset, cs, cs_len);
  d->charset[cs_len] = '\0';
  if (enc == 'B')
    decode_b (text, text_len, d->pending);
  else
    decode_q (text, text_len, d->pending);
}

/**
 * rfc2047_unfold:
 * @raw: a header value as bytes
 * @len: its length
 * @out_len: (out): length of the result
 *
 * Removes line breaks (RFC 5322 §2.2.3 unfolding), keeping the white
 * space that followed them; a lone CR or LF also goes.
 *
 * Returns: (transfer full): the unfolded bytes (NUL-terminated, but may
 * hold NUL bytes; use @out_len)
 */
char *
rfc2047_unfold (const char *raw, gsize len, gsize *out_len)
{
  char *out = g_malloc (len + 1);
  gsize n = 0;

  for (gsize i = 0; i < len; i++)
    if (raw[i] != '\r' && raw[i] != '\n')
      out[n++] = raw[i];
  out[n] = '\0';
  *out_len = n;
  return out;
}

/**
 * rfc2047_decode:
 * @raw: a header value as it is in the message (folded, with encoded
 *   words and perhaps raw 8-bit bytes)
 * @len: its length
 * @fallback_charset: (nullable): charset for raw 8-bit bytes that are not
 *   UTF-8 (the message's body charset is a good hint)
 *
 * Unfolds and decodes a header value.  Tabs become spaces and the result
 * is trimmed; it is otherwise left as written.
 *
 * Returns: (transfer full): valid UTF-8
 */
char *
rfc2047_decode (const char *raw, gsize len, const char *fallback_charset)
{
  gsize n, i = 0, text_start = 0;
  g_autofree char *s = rfc2047_unfold (raw, len, &n);
  Decoder d = { g_string_sized_new (n), g_byte_array_new (), "", fallback_charset };
  gboolean after_word = FALSE;

  while (i < n)
    {
      const char *cs, *text;
      gsize cs_len, text_len, wlen;
      char enc;

      if (s[i] != '=' || i + 1 >= n || s[i + 1] != '?' ||
          (wlen = parse_word (s + i, n - i, &cs, &cs_len, &enc, &text, &text_len)) == 0)
        {
          i++;
          continue;
        }
      /* White space alone between two encoded words is not text. */
      if (!(after_word && all_space (s + text_start, i - text_start)))
        append_raw (&d, s + text_start, i - text_start);
      append_word (&d, cs, cs_len, enc, text, text_len);
      i += wlen;
      text_start = i;
      after_word = TRUE;
    }
  append_raw (&d, s + text_start, n - text_start);
  flush_pending (&d);
  g_byte_array_unref (d.pending);

  g_strdelimit (d.out->str, "\t", ' ');
  g_strstrip (d.out->str);
  return charset_sanitize_utf8 (g_string_free (d.out, FALSE));
}
