/* words.h — words of the authors' own text: prose cleaning, ICU word and
 * sentence boundaries, case folding, Snowball stems, stop lists. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Prose out of own text (pure): code-like lines dropped and counted,
 * URLs and mail addresses blanked, hard-wrapped lines of a paragraph
 * joined with a space, paragraphs separated by one blank line. */
void text_prose (const char *text, gsize len, GString *out, guint *code_lines);
gboolean text_line_is_code (const char *line, gsize len);
gboolean text_is_url_or_address (const char *word, gsize len);
const guint8 *text_byte_classes (guint8 table[256], gsize *made, guint8 (*class_of) (guint byte));
#define TEXT_LANES_RUN 65535
const guint64 *text_byte_lanes (guint64 table[256], gsize *made, guint64 (*lanes_of) (guint byte));

/* The count in the 16-bit lane of @sum that starts at bit @shift */
static inline gsize
text_lane (guint64 sum, guint shift)
{
  return (sum >> shift) & 0xFFFF;
}

typedef enum {
  TEXT_TOKEN_WORD,      /* letters of any script (ICU: letter, kana, ideographic) */
  TEXT_TOKEN_NUMBER,
} TextTokenKind;

typedef struct {
  const char *term;     /* folded (and stemmed when asked), NUL-terminated */
  gsize len;
  const char *folded;   /* folded, not stemmed (for stop lists), NUL-terminated */
  const char *raw;      /* as written, in the prose (not NUL-terminated) */
  gsize raw_len;
  TextTokenKind kind;
  gboolean joined;      /* follows the previous word with nothing between
                         * but spaces, hyphens, slashes or apostrophes */
} TextToken;

typedef gboolean (*TextTokenFunc) (const TextToken *token, gpointer user_data);

typedef struct _TextStoplist TextStoplist;
typedef struct _TextWords TextWords;

TextWords *text_words_new (void);
void text_words_free (TextWords *words);
gboolean text_words_each (TextWords *words, const char *prose, gsize len, const char *stem_lang,
                          TextTokenFunc func, gpointer user_data);
gboolean text_words_each_raw (TextWords *words, const char *prose, gsize len, TextTokenFunc func,
                              gpointer user_data);
guint text_words_sentences (TextWords *words, const char *prose, gsize len);
gboolean text_sentences_ascii (const char *prose, gsize len, guint *count);
void text_words_set_icu_only (TextWords *words, gboolean icu_only);
const char *text_fold (TextWords *words, const char *word, gsize len, gsize *out_len);

/* A quick word stream for comparing texts (deja dedup): runs of letters
 * and digits, lower-cased character by character, each ideograph, kana
 * or Thai letter a word of its own; each word as a 64-bit hash. */
typedef void (*TextQuickFunc) (guint64 hash, const char *raw, gsize raw_len, gpointer user_data);
void text_quick_words_each (const char *text, gsize len, TextQuickFunc func, gpointer user_data);

/* Stop lists: one word per line, '|' starts a comment (Snowball's and
 * PostgreSQL's .stop files); compared after case folding. */
TextStoplist *text_stoplist_new (void);
gboolean text_stoplist_add_file (TextStoplist *list, const char *path, GError **error);
void text_stoplist_add (TextStoplist *list, const char *word);
gboolean text_stoplist_has (const TextStoplist *list, const char *folded);
guint text_stoplist_size (const TextStoplist *list);
void text_stoplist_free (TextStoplist *list);
char *text_stoplist_path_for (const char *lang);
const char *text_lang_english_name (const char *code);
const char *text_lang_from_name (const char *name);
const char *text_snowball_language (guint i, const char **code);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TextWords, text_words_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TextStoplist, text_stoplist_free)

G_END_DECLS
