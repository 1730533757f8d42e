/* lexicon.h — scores of own text with a researcher's word list. */
#pragma once

#include <glib.h>

#include "store.h"
#include "terms.h"

G_BEGIN_DECLS

typedef struct _Lexicon Lexicon;

Lexicon *lexicon_load (const char *path, GError **error);
void lexicon_free (Lexicon *lexicon);
guint lexicon_size (const Lexicon *lexicon);
guint lexicon_n_categories (const Lexicon *lexicon);
const char *lexicon_category (const Lexicon *lexicon, guint i);

typedef struct {
  gint64 id;
  const char *date, *slice;
  gint64 words;
  const gint64 *matches;   /* per category */
  const double *scores;    /* per category: sum of weights */
} LexiconMessage;

typedef gboolean (*LexiconMessageFunc) (const LexiconMessage *m, gpointer user_data, GError **error);

typedef struct {
  char *slice;
  gint64 messages, words;
  gint64 *matches;         /* per category */
  double *scores;
  double *message_means;   /* per category: sum over messages of score / words */
  gint64 scored_messages;  /* messages with words */
} LexiconSlice;

gboolean lexicon_score (Store *store, const StoreFilter *filter, const Lexicon *lexicon,
                        TermsBy by, gboolean negation, guint threads, LexiconMessageFunc func,
                        gpointer user_data, GPtrArray **slices, GError **error);
void lexicon_slice_free (LexiconSlice *slice);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Lexicon, lexicon_free)

G_END_DECLS
