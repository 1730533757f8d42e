/* stoplist.c — stop lists read from files: the Snowball lists Debian
 * installs with PostgreSQL (tsearch_data/LANGUAGE.stop) or the user's own.
 * deja ships none: the lists are data with licences of their own. */
#include <string.h>
#include "words.h"

struct _TextStoplist {
  GHashTable *words;
};

static const struct {
  const char *code, *name;
} languages[] = {
  { "ar", "arabic" }, { "hy", "armenian" }, { "eu", "basque" }, { "ca", "catalan" },
  { "da", "danish" }, { "nl", "dutch" }, { "en", "english" }, { "fi", "finnish" },
  { "fr", "french" }, { "de", "german" }, { "el", "greek" }, { "hi", "hindi" },
  { "hu", "hungarian" }, { "id", "indonesian" }, { "ga", "irish" }, { "it", "italian" },
  { "lt", "lithuanian" }, { "ne", "nepali" }, { "no", "norwegian" }, { "nb", "norwegian" },
  { "nn", "norwegian" }, { "pt", "portuguese" }, { "ro", "romanian" }, { "ru", "russian" },
  { "sr", "serbian" }, { "es", "spanish" }, { "sv", "swedish" }, { "ta", "tamil" },
  { "tr", "turkish" }, { "yi", "yiddish" },
};

/* "english" for "en"; NULL when unknown. */
const char *
text_lang_english_name (const char *code)
{
  for (gsize i = 0; code && i < G_N_ELEMENTS (languages); i++)
    if (g_ascii_strcasecmp (code, languages[i].code) == 0)
      return languages[i].name;
  return NULL;
}

/**
 * text_snowball_language:
 * @i: 0, 1, … in turn
 * @code: (out): the language's code ("en")
 *
 * The languages that have a Snowball stemmer, one by one (deja
 * export-pg maps them to PostgreSQL's text search configurations).
 *
 * Returns: its Snowball name ("english"); NULL after the last
 */
const char *
text_snowball_language (guint i, const char **code)
{
  if (i >= G_N_ELEMENTS (languages))
    return NULL;
  *code = languages[i].code;
  return languages[i].name;
}

/* "en" for "english" or "en"; NULL when unknown. */
const char *
text_lang_from_name (const char *name)
{
  for (gsize i = 0; name && i < G_N_ELEMENTS (languages); i++)
    if (g_ascii_strcasecmp (name, languages[i].name) == 0
        || g_ascii_strcasecmp (name, languages[i].code) == 0)
      return languages[i].code;
  return NULL;
}

/**
 * text_stoplist_path_for:
 * @lang: a code ("en") or a Snowball name ("english")
 *
 * The stop list installed for @lang: $DEJA_STOPWORDS_DIR/NAME.stop, or
 * PostgreSQL's tsearch_data/NAME.stop (any installed version).
 * Returns: (transfer full) (nullable): the path, NULL when none is found
 */
char *
text_stoplist_path_for (const char *lang)
{
  const char *code = text_lang_from_name (lang);
  const char *name = code ? text_lang_english_name (code) : NULL;
  const char *dir = g_getenv ("DEJA_STOPWORDS_DIR");
  g_autofree char *file = NULL;
  g_autoptr (GDir) pg = NULL;
  const char *version;

  if (name == NULL)
    return NULL;
  file = g_strconcat (name, ".stop", NULL);
  if (dir && *dir)
    {
      char *path = g_build_filename (dir, file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
      return NULL;
    }
  pg = g_dir_open ("/usr/share/postgresql", 0, NULL);
  while (pg && (version = g_dir_read_name (pg)))
    {
      char *path = g_build_filename ("/usr/share/postgresql", version, "tsearch_data", file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  return NULL;
}

TextStoplist *
text_stoplist_new (void)
{
  TextStoplist *list = g_new0 (TextStoplist, 1);

  list->words = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return list;
}

void
text_stoplist_free (TextStoplist *list)
{
  if (list == NULL)
    return;
  g_hash_table_destroy (list->words);
  g_free (list);
}

void
text_stoplist_add (TextStoplist *list, const char *word)
{
  char *folded = g_utf8_casefold (word, -1);

  g_hash_table_add (list->words, folded);
}

gboolean
text_stoplist_add_file (TextStoplist *list, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  char **lines;

  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  if (!g_utf8_validate (text, len, NULL))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not UTF-8 text", path);
      return FALSE;
    }
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      char *bar = strchr (*l, '|'), *save = NULL;

      if (bar)
        *bar = '\0';
      g_strstrip (*l);
      /* Snowball's lists put several words on a line now and then */
      for (char *word = strtok_r (*l, " \t\r", &save); word; word = strtok_r (NULL, " \t\r", &save))
        text_stoplist_add (list, word);
    }
  g_strfreev (lines);
  return TRUE;
}

gboolean
text_stoplist_has (const TextStoplist *list, const char *folded)
{
  return list && g_hash_table_contains (list->words, folded);
}

guint
text_stoplist_size (const TextStoplist *list)
{
  return list ? g_hash_table_size (list->words) : 0;
}
