/* lang.h — the language of a text (CLD2, behind a C++ shim in lang.cc;
 * lang-none.c in a build without CLD2: text_lang_available() is FALSE). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Below this many letters a text is "und": CLD2 is built for 200+
 * characters and guesses (English, by default) on a few words. */
#define TEXT_LANG_MIN_LETTERS 30

typedef struct {
  char code[16];        /* "en", "de", "zh-Hant", …; "und" when unknown */
  gboolean reliable;    /* CLD2's is_reliable, and enough letters */
  int percent;          /* share of the text in that language */
  char second[16];      /* the next language, or "" */
} TextLang;

gboolean text_lang_available (void);
void text_lang_detect (const char *utf8, gsize len, TextLang *out);
guint text_lang_letters (const char *utf8, gsize len, guint enough);
const char *const *text_lang_charsets (const char *lang);
gboolean text_lang_writes_in (const char *lang, const char *charset);

G_END_DECLS
