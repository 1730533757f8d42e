/* charset.c — converting archive bytes to UTF-8, never failing.
 *
 * Declared charsets in old mail are often wrong or missing, and a
 * conversion error must not lose a message.  The order is: the declared
 * charset (through GMime's alias table, which knows "iso8859-1",
 * "x-unknown", "latin1" and friends); UTF-8 if the bytes are valid UTF-8;
 * windows-1252 (what undeclared 8-bit Western mail almost always is);
 * ISO-8859-1, which maps every byte and so always succeeds.  The result
 * never holds NUL or invalid UTF-8: it is safe to store as SQLite TEXT.
 */
#include "charset.h"

#include <gmime/gmime.h>
#include <string.h>


/* GMime's charset alias table needs g_mime_init(); it is reference
 * counted, so callers that also initialise GMime are unaffected. */
static void
ensure_gmime (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      g_mime_init ();
      g_once_init_leave (&done, 1);
    }
}

static void
close_converter (gpointer cd)
{
  if (cd != (gpointer) -1)
    g_iconv_close ((GIConv) cd);
}

/* Converters are kept open per thread, by charset name: opening one loads
 * (and closing the last one unloads) a gconv module, which costs more than
 * converting a message. */
static GIConv
converter_for (const char *name)
{
  static GPrivate cache_key = G_PRIVATE_INIT ((GDestroyNotify) g_hash_table_unref);
  GHashTable *cache = g_private_get (&cache_key);
  gpointer cd;

  if (cache == NULL)
    {
      cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, close_converter);
      g_private_set (&cache_key, cache);
    }
  if (!g_hash_table_lookup_extended (cache, name, NULL, &cd))
    {
      cd = (gpointer) g_iconv_open ("UTF-8", name);
      g_hash_table_insert (cache, g_strdup (name), cd);
    }
  return (GIConv) cd;
}

/* Converts all of @bytes from @name, or returns NULL. */
static char *
convert_from (const char *bytes, gsize len, const char *name)
{
  GIConv cd = converter_for (name);

  if (cd == (GIConv) -1)
    return NULL;
  g_iconv (cd, NULL, NULL, NULL, NULL);      /* reset any shift state */
  return g_convert_with_iconv (bytes, len, cd, NULL, NULL, NULL);
}

static char *
try_convert (const char *bytes, gsize len, const char *charset)
{
  const char *name;

  ensure_gmime ();
  name = g_mime_charset_iconv_name (charset);
  if (name == NULL)
    return NULL;
  if (g_ascii_strcasecmp (name, "UTF-8") == 0)
    return g_utf8_validate_len (bytes, len, NULL) ? g_strndup (bytes, len) : NULL;
  return convert_from (bytes, len, name);
}

static gboolean
is_ascii (const char *bytes, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if ((guchar) bytes[i] >= 0x80)
      return FALSE;
  return TRUE;
}

/* ISO-2022-*, UTF-7 and HZ spell non-ASCII text with ASCII bytes, so
 * ASCII-only input in these charsets still needs converting. */
static gboolean
is_seven_bit_encoding (const char *charset)
{
  static const char *const prefixes[] = { "iso-2022", "iso2022", "utf-7", "utf7", "hz", "x-utf-7" };

  if (charset == NULL)
    return FALSE;
  while (g_ascii_isspace (*charset) || *charset == '"')
    charset++;
  for (gsize i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_ascii_strncasecmp (charset, prefixes[i], strlen (prefixes[i])) == 0)
      return TRUE;
  return FALSE;
}

/* Drops an RFC 2231 language suffix ("utf-8*en") and surrounding quotes. */
static char *
clean_charset_name (const char *charset)
{
  char *name = g_strdup (charset), *star;

  g_strstrip (name);
  if ((star = strchr (name, '*')) != NULL)
    *star = '\0';
  return name;
}

static char *
convert_any (const char *bytes, gsize len, const char *charset, gboolean *fallback)
{
  char *out = NULL;

  if (charset != NULL && *charset != '\0')
    {
      g_autofree char *name = clean_charset_name (charset);
      out = try_convert (bytes, len, name);
    }
  if (out != NULL)
    return out;
  *fallback = charset != NULL && *charset != '\0';
  if (g_utf8_validate_len (bytes, len, NULL))
    return g_strndup (bytes, len);
  *fallback = TRUE;
  out = convert_from (bytes, len, "WINDOWS-1252");
  if (out == NULL)
    out = convert_from (bytes, len, "ISO-8859-1");
  g_assert (out != NULL);
  return out;
}

/* Replaces each SUB (0x1A) with U+FFFD. */
static char *
replace_sub (char *text)
{
  GString *out;

  if (strchr (text, '\x1a') == NULL)
    return text;
  out = g_string_sized_new (strlen (text) + 16);
  for (const char *p = text; *p; p++)
    {
      if (*p == '\x1a')
        g_string_append (out, "\xEF\xBF\xBD");
      else
        g_string_append_c (out, *p);
    }
  g_free (text);
  return g_string_free (out, FALSE);
}

/**
 * charset_to_utf8:
 * @bytes: (array length=len): text in some charset; may hold NUL bytes
 * @len: its length
 * @charset: (nullable): the declared charset, if any
 * @guessed: (out) (optional): set to %TRUE when the declared charset was
 *   absent, unknown or wrong for these bytes and a fallback was used
 *
 * Returns: (transfer full): valid UTF-8 without NUL bytes
 */
char *
charset_to_utf8 (const char *bytes, gsize len, const char *charset, gboolean *guessed)
{
  g_autofree char *copy = NULL;
  char *out = NULL;
  gboolean fallback = FALSE, has_nul = len > 0 && memchr (bytes, '\0', len) != NULL;

  if (guessed)
    *guessed = FALSE;
  if (len == 0)
    return g_strdup ("");
  if (has_nul)
    {
      /* NUL cannot live in a C string: carry it through the conversion as
       * SUB (0x1A, the same in every ASCII-based charset), then make it
       * U+FFFD. */
      copy = g_memdup2 (bytes, len);
      for (gsize i = 0; i < len; i++)
        if (copy[i] == '\0')
          copy[i] = '\x1a';
      bytes = copy;
    }
  if (is_ascii (bytes, len) && !is_seven_bit_encoding (charset))
    out = g_strndup (bytes, len);
  else
    out = convert_any (bytes, len, charset, &fallback);
  if (guessed)
    *guessed = fallback;
  if (has_nul)
    out = replace_sub (out);
  return charset_sanitize_utf8 (out);
}

/**
 * charset_sanitize_utf8:
 * @text: (transfer full): NUL-terminated text
 *
 * Makes @text safe to store: invalid UTF-8 sequences become U+FFFD.
 *
 * Returns: (transfer full): valid UTF-8 (possibly @text itself)
 */
char *
charset_sanitize_utf8 (char *text)
{
  char *valid;

  if (g_utf8_validate (text, -1, NULL))
    return text;
  valid = g_utf8_make_valid (text, -1);
  g_free (text);
  return valid;
}
