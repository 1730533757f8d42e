/* legacy.c — the 8-bit charsets each language was written in.
 *
 * Mail before Unicode came in the charset of its writer's language; an
 * archive that lost the declaration (pipermail months) leaves deja to
 * guess it, and a guess that gives text of one language in another's
 * charset is a wrong one (pipeline/decode-pool.c).  The table is the
 * ISO 8859 parts, the Windows code pages and the national standards of
 * each language's mail; a language not listed has no opinion.
 */
#include "lang.h"

#include <string.h>

static const struct {
  const char *langs;                 /* space-separated codes, with spaces around */
  const char *const charsets[6];     /* the first is the usual one */
} written[] = {
  { " en fr de es ca it pt nl da sv no nb nn fi is ga gl eu af la oc br cy fo lb rm sq sw id ms tl ",
    { "windows-1252", "iso-8859-1", "iso-8859-15" } },
  { " cs sk pl hu sl hr bs ", { "iso-8859-2", "windows-1250", "ibm852" } },
  { " ro ", { "iso-8859-2", "windows-1250", "iso-8859-16" } },
  { " ru be bg sr mk ", { "koi8-r", "windows-1251", "iso-8859-5", "ibm866" } },
  { " uk ", { "koi8-u", "windows-1251", "koi8-r" } },
  { " el ", { "iso-8859-7", "windows-1253" } },
  { " tr az ", { "iso-8859-9", "windows-1254" } },
  { " et lv lt ", { "iso-8859-13", "windows-1257", "iso-8859-4" } },
  { " he yi iw ", { "windows-1255", "iso-8859-8" } },
  { " ar fa ur ", { "windows-1256", "iso-8859-6" } },
  { " th ", { "tis-620", "windows-874" } },
  { " vi ", { "windows-1258", "viscii" } },
  { " zh ", { "gb18030", "big5" } },
  { " zh-hant ", { "big5", "gb18030" } },
  { " ja ", { "shift_jis", "euc-jp", "iso-2022-jp" } },
  { " ko ", { "euc-kr", "iso-2022-kr" } },
};

/**
 * text_lang_charsets:
 * @lang: a language code ("cs", "zh-Hant")
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   8-bit charsets @lang was written in, the usual first; %NULL when
 *   the table has no opinion
 */
const char *const *
text_lang_charsets (const char *lang)
{
  g_autofree char *lower = lang ? g_ascii_strdown (lang, -1) : NULL;
  g_autofree char *key = lower ? g_strdup_printf (" %s ", lower) : NULL;

  for (gsize i = 0; key && i < G_N_ELEMENTS (written); i++)
    if (strstr (written[i].langs, key) != NULL)
      return written[i].charsets;
  return NULL;
}

/**
 * text_lang_writes_in:
 *
 * Returns: whether @lang was written in @charset (TRUE when the table has
 *   no opinion on @lang)
 */
gboolean
text_lang_writes_in (const char *lang, const char *charset)
{
  const char *const *charsets = text_lang_charsets (lang);

  if (charsets == NULL || charset == NULL)
    return TRUE;
  for (guint i = 0; charsets[i]; i++)
    if (g_ascii_strcasecmp (charsets[i], charset) == 0)
      return TRUE;
  return FALSE;
}
