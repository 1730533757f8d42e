/* charset.c — converting archive bytes to UTF-8, never failing.
 *
 * Declared charsets in old mail are often wrong or missing, and a
 * conversion error must not lose a message.  The order is: the declared
 * charset (through GMime's alias table, which knows "iso8859-1",
 * "x-unknown", "latin1" and friends) when the bytes fit it; UTF-8 if the
 * bytes are valid UTF-8; what uchardet detects; windows-1252 (what
 * undeclared 8-bit Western mail almost always is); ISO-8859-1, which maps
 * every byte and so always succeeds.  The result never holds NUL or
 * invalid UTF-8: it is safe to store as SQLite TEXT.  See
 * charset_to_utf8() for the details.
 */
#include "charset.h"

#include <gmime/gmime.h>
#include <uchardet/uchardet.h>
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

static gboolean
is_ascii (const char *bytes, gsize len)
{
  guint64 high = 0;
  gsize i = 0;

  /* eight bytes at a time: most bodies are ASCII, read whole */
  for (; i + 8 <= len; i += 8)
    {
      guint64 word;

      memcpy (&word, bytes + i, 8);
      high |= word;
    }
  for (; i < len; i++)
    high |= (guchar) bytes[i];
  return (high & G_GUINT64_CONSTANT (0x8080808080808080)) == 0;
}

/* Does the charset name (quotes and spaces before it aside) start with
 * one of @prefixes, in any case? */
static gboolean
name_has_prefix (const char *charset, const char *const *prefixes, gsize n)
{
  if (charset == NULL)
    return FALSE;
  while (g_ascii_isspace (*charset) || *charset == '"')
    charset++;
  for (gsize i = 0; i < n; i++)
    if (g_ascii_strncasecmp (charset, prefixes[i], strlen (prefixes[i])) == 0)
      return TRUE;
  return FALSE;
}

/* ISO-2022-*, UTF-7 and HZ spell non-ASCII text with ASCII bytes, so
 * ASCII-only input in these charsets still needs converting. */
static gboolean
is_seven_bit_encoding (const char *charset)
{
  static const char *const prefixes[] = { "iso-2022", "iso2022", "utf-7", "utf7", "hz", "x-utf-7" };

  return name_has_prefix (charset, prefixes, G_N_ELEMENTS (prefixes));
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

/* The name recorded for a charset: lower case, Windows code pages by
 * their MIME names ("cp1252" is "windows-1252"). */
static const char *
canonical_name (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);
  g_autofree char *windows = NULL;

  if (g_str_has_prefix (lower, "cp125") && strlen (lower) == 6)
    return g_intern_string (windows = g_strconcat ("windows-", lower + 2, NULL));
  return g_intern_string (lower);
}

/* ISO-8859-1 and US-ASCII labels are read as windows-1252, as browsers
 * do (WHATWG Encoding): its printable 0x80-0x9F (curly quotes, dashes,
 * the euro sign) are what such bytes meant in mail from Windows mailers;
 * the C1 controls they would be in Latin-1 never were. */
static const char *
effective_name (const char *iconv_name)
{
  if (g_ascii_strcasecmp (iconv_name, "iso-8859-1") == 0 ||
      g_ascii_strcasecmp (iconv_name, "us-ascii") == 0)
    return "windows-1252";
  return iconv_name;
}

/* Latin-script results of the detector: on short text it picks among
 * them almost at random, so they count only with enough evidence. */
static gboolean
is_latin_family (const char *name)
{
  static const char *const latin[] = {
    "iso-8859-1", "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-9", "iso-8859-10",
    "iso-8859-13", "iso-8859-15", "iso-8859-16", "windows-1250", "windows-1252",
    "windows-1254", "windows-1257", "ibm852", "ibm865", "mac-centraleurope",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (latin); i++)
    if (g_ascii_strcasecmp (name, latin[i]) == 0)
      return TRUE;
  return FALSE;
}

static gsize
count_8bit (const char *bytes, gsize len)
{
  gsize n = 0;

  for (gsize i = 0; i < len; i++)
    n += (guchar) bytes[i] >= 0x80;
  return n;
}

#define DETECT_LATIN_MIN_8BIT 16

static void
free_detector (gpointer ud)
{
  uchardet_delete ((uchardet_t) ud);
}

/* What uchardet makes of @bytes, or NULL when it has no useful answer. */
static const char *
detect (const char *bytes, gsize len)
{
  static GPrivate key = G_PRIVATE_INIT (free_detector);
  uchardet_t ud = g_private_get (&key);
  const char *found;

  if (ud == NULL)
    {
      ud = uchardet_new ();
      g_private_set (&key, ud);
    }
  uchardet_reset (ud);
  if (uchardet_handle_data (ud, bytes, len) != 0)
    return NULL;
  uchardet_data_end (ud);
  found = uchardet_get_charset (ud);
  if (found == NULL || *found == '\0' || g_ascii_strcasecmp (found, "ascii") == 0 ||
      g_ascii_strcasecmp (found, "utf-8") == 0)
    return NULL;
  if (is_latin_family (found) && count_8bit (bytes, len) < DETECT_LATIN_MIN_8BIT)
    return NULL;
  return canonical_name (found);
}

/**
 * charset_detect:
 * @bytes: (array length=len): 8-bit text that is not UTF-8
 * @len: its length
 *
 * What uchardet reads @bytes as (a Latin-script answer only with at
 * least 16 8-bit bytes of evidence, as for bodies).
 *
 * Returns: (transfer none) (nullable): a canonical charset name, or
 *   %NULL when there is no useful answer
 */
const char *
charset_detect (const char *bytes, gsize len)
{
  return detect (bytes, len);
}

/* Tries the declared charset; NULL when it is unknown or wrong for the
 * bytes (which are not pure ASCII). */
static char *
convert_declared (const char *bytes, gsize len, const char *charset, CharsetResult *result)
{
  g_autofree char *clean = clean_charset_name (charset);
  const char *name;
  char *out;

  ensure_gmime ();
  if ((name = g_mime_charset_iconv_name (clean)) == NULL)
    return NULL;
  if (g_ascii_strcasecmp (name, "UTF-8") == 0)
    {
      if (!g_utf8_validate_len (bytes, len, NULL))
        return NULL;
      result->used = "utf-8";
      return g_strndup (bytes, len);
    }
  /* Valid UTF-8 with 8-bit bytes is UTF-8 whatever the label says:
   * Latin text is practically never valid UTF-8 by chance. */
  if (!is_seven_bit_encoding (name) && g_utf8_validate_len (bytes, len, NULL))
    return NULL;
  name = effective_name (name);
  if ((out = convert_from (bytes, len, name)) != NULL)
    result->used = canonical_name (name);
  return out;
}

/* ---- which reading of undeclared 8-bit text ---- */

static gboolean
is_western (const char *name)
{
  return g_ascii_strcasecmp (name, "windows-1252") == 0 || g_ascii_strcasecmp (name, "iso-8859-1") == 0 ||
         g_ascii_strcasecmp (name, "iso-8859-15") == 0;
}

/* Whether @c ends a word for charset_anomalies(): ASCII space,
 * punctuation (but the apostrophe) and controls. */
static gboolean
word_break (gunichar c)
{
  return c < 0x80 && !g_ascii_isalnum ((char) c) && c != '\'';
}

/**
 * charset_anomalies:
 * @utf8: a reading of some text
 *
 * How implausible @utf8 is as the text its writer typed, in points:
 * mojibake leaves signs of itself that real text, in any language, does
 * not (docs/text.md, "Charsets").  Per word (a run between ASCII spaces
 * and punctuation): 3 for each C1 control or U+FFFD; 2 for each non-ASCII
 * sign (not a letter) between two letters, or before a lower-case letter
 * at a word's start ("¾ádná", "¿aden": Latin-2 read as windows-1252); 2
 * for a word whose letters are of two scripts ("per貌": Latin-1 read as
 * GB18030); 1 for a word of three letters or more all of them accented
 * Latin ("ðÒÉ×ÅÔ": KOI8-R read as windows-1252); 1 for a word with a
 * non-ASCII capital after a small letter ("пРИВЕТ": windows-1251 read as
 * KOI8-R).  Where two readings tie, the first tried stays.
 *
 * Returns: the points; 0 for text that shows no sign of a wrong reading
 */
guint
charset_anomalies (const char *utf8)
{
  guint points = 0;
  const char *p = utf8;

  while (*p)
    {
      gunichar word[64];
      guint n = 0, letters = 0, accented = 0;
      GUnicodeScript script = G_UNICODE_SCRIPT_COMMON;
      gboolean mixed = FALSE, small = FALSE, camel = FALSE;

      while (*p && word_break (g_utf8_get_char (p)))
        p = g_utf8_next_char (p);
      for (; *p && !word_break (g_utf8_get_char (p)); p = g_utf8_next_char (p))
        {
          gunichar c = g_utf8_get_char (p);
          GUnicodeScript sc;

          if (n < G_N_ELEMENTS (word))
            word[n++] = c;
          if (!g_unichar_isalpha (c))
            continue;
          letters++;
          accented += c >= 0x80 && g_unichar_get_script (c) == G_UNICODE_SCRIPT_LATIN;
          camel = camel || (small && c >= 0x80 && g_unichar_isupper (c));
          small = small || g_unichar_islower (c);
          sc = g_unichar_get_script (c);
          if (sc != G_UNICODE_SCRIPT_COMMON && sc != G_UNICODE_SCRIPT_INHERITED)
            {
              if (script != G_UNICODE_SCRIPT_COMMON && sc != script)
                mixed = TRUE;
              script = sc;
            }
        }
      for (guint i = 0; i < n; i++)
        {
          gunichar c = word[i];
          gboolean left, right;

          if (c < 0x80)
            continue;
          if ((c >= 0x80 && c <= 0x9f) || c == 0xfffd)
            {
              points += 3;
              continue;
            }
          if (g_unichar_isalpha (c) || g_unichar_ismark (c))
            continue;
          left = i > 0 && g_unichar_isalpha (word[i - 1]);
          right = i + 1 < n && g_unichar_isalpha (word[i + 1]);
          if ((left && right) || (i == 0 && right && g_unichar_islower (word[i + 1])))
            points += 2;
        }
      points += mixed ? 2 : 0;
      points += letters >= 3 && accented == letters;
      points += camel;
    }
  return points;
}

/* Readings tried when the windows-1252 one shows signs of a wrong
 * reading and the detector said nothing better: Central European and
 * Cyrillic mail, the undeclared 8-bit text of the archives after Western. */
static const char *const second_readings[] = { "ISO-8859-2", "WINDOWS-1250", "KOI8-R", "WINDOWS-1251" };

/* Undeclared 8-bit text that is not UTF-8: the windows-1252 reading
 * (ISO-8859-1 for the five bytes it leaves undefined), unless another
 * reading (the detector's, else a Central European or Cyrillic one)
 * shows fewer signs of being wrong (charset_anomalies()).  A detector's
 * answer other than Western needs that evidence: on Latin text it
 * wanders (GB18030, VISCII, IBM852 for Catalan). */
static char *
convert_undeclared (const char *bytes, gsize len, CharsetResult *result)
{
  const char *detected, *best_name = "windows-1252";
  char *best;
  guint best_points;

  if (g_utf8_validate_len (bytes, len, NULL))
    {
      result->used = "utf-8";
      return g_strndup (bytes, len);
    }
  if ((best = convert_from (bytes, len, "WINDOWS-1252")) == NULL)
    {
      best_name = "iso-8859-1";
      best = convert_from (bytes, len, "ISO-8859-1");
    }
  g_assert (best != NULL);
  best_points = charset_anomalies (best);
  detected = detect (bytes, len);
  if (best_points > 0 && detected != NULL && !is_western (detected))
    {
      char *other = convert_from (bytes, len, effective_name (detected));
      guint points = other ? charset_anomalies (other) : G_MAXUINT;

      if (points < best_points)
        {
          g_free (best);
          best = other, best_name = canonical_name (effective_name (detected)), best_points = points;
        }
      else
        g_free (other);
    }
  for (gsize i = 0; best_points > 0 && (detected == NULL || is_western (detected)) &&
                    i < G_N_ELEMENTS (second_readings); i++)
    {
      char *other = convert_from (bytes, len, second_readings[i]);
      guint points = other ? charset_anomalies (other) : G_MAXUINT;

      if (points < best_points)
        {
          g_free (best);
          best = other, best_name = canonical_name (second_readings[i]), best_points = points;
        }
      else
        g_free (other);
    }
  result->used = best_name;
  return best;
}

static char *
convert_any (const char *bytes, gsize len, const char *charset, const char *reading,
             CharsetResult *result)
{
  gboolean declared = charset != NULL && *charset != '\0';
  char *out = NULL;

  if (declared && (out = convert_declared (bytes, len, charset, result)) != NULL)
    return out;
  if (reading != NULL && !g_utf8_validate_len (bytes, len, NULL) &&
      (out = convert_from (bytes, len, reading)) != NULL)
    result->used = canonical_name (reading);
  else
    out = convert_undeclared (bytes, len, result);
  /* Undeclared UTF-8 is what mail has become; other undeclared text and
   * every overruled declaration is a guess. */
  result->guessed = declared || strcmp (result->used, "utf-8") != 0;
  return out;
}

/* UTF-16, UTF-32 and UCS-2/4 are not ASCII-compatible: their NUL bytes
 * are half of every Latin character, so they must be converted before
 * anything treats the bytes as text. */
static gboolean
is_wide_encoding (const char *charset)
{
  static const char *const prefixes[] = { "utf-16", "utf16", "utf-32", "utf32", "ucs-2", "ucs2",
                                          "ucs-4", "ucs4", "unicode" };

  return name_has_prefix (charset, prefixes, G_N_ELEMENTS (prefixes));
}

/* @bytes in a wide charset, or NULL when they are not valid in it.  A
 * byte-order mark goes; U+0000 becomes U+FFFD, as NUL does elsewhere. */
static char *
convert_wide (const char *bytes, gsize len, const char *charset, CharsetResult *result)
{
  g_autofree char *clean = clean_charset_name (charset);
  GIConv cd = converter_for (clean);
  g_autofree char *out = NULL;
  gsize written = 0;
  GString *text;

  if (cd == (GIConv) -1)
    return NULL;
  g_iconv (cd, NULL, NULL, NULL, NULL);
  if ((out = g_convert_with_iconv (bytes, len, cd, NULL, &written, NULL)) == NULL)
    return NULL;
  text = g_string_sized_new (written + 8);
  for (gsize i = g_str_has_prefix (out, "\xef\xbb\xbf") ? 3 : 0; i < written; i++)
    {
      if (out[i] == '\0')
        g_string_append (text, "\xef\xbf\xbd");
      else
        g_string_append_c (text, out[i]);
    }
  result->used = canonical_name (clean);
  result->guessed = FALSE;
  return g_string_free (text, FALSE);
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
 * @result: (out) (optional): the charset used, and whether it was guessed
 *
 * Converts @bytes to UTF-8, never failing.  The declared charset is used
 * when the bytes are valid in it (ISO-8859-1 and US-ASCII read as
 * windows-1252; valid UTF-8 overrules any 8-bit label).  Otherwise: UTF-8
 * if valid, else windows-1252 (ISO-8859-1 for its five undefined bytes)
 * unless the reading uchardet detects, or a Central European or Cyrillic
 * one, shows fewer signs of a wrong reading (charset_anomalies()).  result->guessed is %TRUE when a
 * declared charset was overruled, or undeclared 8-bit text was not UTF-8.
 * Pure ASCII is "us-ascii", except in 7-bit encodings (ISO-2022-JP…).
 * NUL bytes, and SUB (0x1A, "substitute", which also ends old DOS files),
 * become U+FFFD.
 *
 * Returns: (transfer full): valid UTF-8 without NUL bytes
 */
char *
charset_to_utf8 (const char *bytes, gsize len, const char *charset, CharsetResult *result)
{
  return charset_to_utf8_reading (bytes, len, charset, NULL, result);
}

/**
 * charset_to_utf8_reading:
 * @reading: (nullable): the charset to read undeclared (or wrongly
 *   declared) 8-bit text in, instead of choosing one
 *
 * charset_to_utf8(), with the choice for undeclared text made by the
 * caller (who knows the text's language: pipeline/decode-pool.c).  The
 * result is still a guess (result->guessed).
 */
char *
charset_to_utf8_reading (const char *bytes, gsize len, const char *charset, const char *reading,
                         CharsetResult *result)
{
  g_autofree char *copy = NULL;
  CharsetResult local = { "us-ascii", FALSE };
  char *out = NULL;
  gboolean has_nul = len > 0 && memchr (bytes, '\0', len) != NULL;

  if (result == NULL)
    result = &local;
  *result = local;
  if (len == 0)
    return g_strdup ("");
  if (is_wide_encoding (charset) && (out = convert_wide (bytes, len, charset, result)) != NULL)
    return charset_sanitize_utf8 (out);
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
  /* SUB means "a character that could not be represented": so does U+FFFD.
   * ASCII is UTF-8 as it is, and stays so. */
  if (is_ascii (bytes, len) && !is_seven_bit_encoding (charset))
    return replace_sub (g_strndup (bytes, len));
  out = convert_any (bytes, len, charset, reading, result);
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
