/* analyse.h — what deja stores of each message's own text: its language
 * and the prose signals researchers filter on (docs/text-analysis.md). */
#pragma once

#include <glib.h>
#include "lang.h"
#include "words.h"

G_BEGIN_DECLS

typedef struct {
  TextLang lang;
  gint64 words;            /* words (letters), as ICU counts them */
  gint64 sentences;
  gint64 code_lines;       /* lines left out as code */
  gboolean has_chars;      /* the shares below are defined */
  double nonletter_share;  /* of non-space characters: not letters */
  double digit_share;      /* of non-space characters: digits */
  double upper_share;      /* of letters: upper case */
  double oov_share;        /* of checked words: not in the dictionary; < 0 when none */
} TextAnalysis;

typedef struct _TextAnalyser TextAnalyser;

TextAnalyser *text_analyser_new (void);
void text_analyser_free (TextAnalyser *analyser);
void text_analyse (TextAnalyser *analyser, const char *own_text, gsize len, TextAnalysis *out);
TextWords *text_analyser_words (TextAnalyser *analyser);
gboolean text_spell_available (void);
char *text_spell_dictionary_for (const char *lang);
char *text_spell_only_language (void);

typedef struct _TextDictionary TextDictionary;
TextDictionary *text_dictionary_hold (const char *lang);
void text_dictionary_release (TextDictionary *held);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TextAnalyser, text_analyser_free)

G_END_DECLS
