/* terms.h — counts of words and n-grams of own text per slice
 * (docs/text-analysis.md): frequencies, document frequencies, keyness,
 * collocations, and the token streams that MALLET, R and Voyant read. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "store.h"
#include "words.h"

G_BEGIN_DECLS

typedef enum {
  TERMS_BY_ALL,
  TERMS_BY_GROUP,
  TERMS_BY_YEAR,
  TERMS_BY_MONTH,
  TERMS_BY_AUTHOR,
} TermsBy;

typedef enum {
  TERMS_EXPORT_NONE,
  TERMS_EXPORT_MALLET,     /* one line per message: id, label, tokens */
  TERMS_EXPORT_LONG,       /* CSV doc,term,count */
  TERMS_EXPORT_TEXT,       /* a directory, one prose file per message */
} TermsExport;

typedef struct {
  TermsBy by;
  guint ngram;                 /* 1 = words */
  gboolean stem;               /* Snowball, in each message's language */
  const TextStoplist *stop;    /* one list for all, or NULL */
  gboolean stop_auto;          /* the installed list of each message's language */
  gboolean keep_numbers;       /* numbers count as terms */
  guint collocation_window;    /* > 0: count pairs up to this many words apart */
  TermsExport export;
  FILE *export_out;            /* MALLET and long */
  const char *export_dir;      /* text */
  guint threads;
} TermsOptions;

typedef struct {
  const char *term;
  gint64 count;                /* occurrences */
  gint64 messages;             /* messages it occurs in */
} TermsEntry;

typedef struct _TermsTable TermsTable;

TermsTable *terms_count (Store *store, const StoreFilter *filter, const TermsOptions *options,
                         GError **error);
void terms_table_free (TermsTable *table);
char **terms_table_slices (TermsTable *table);
GArray *terms_table_entries (TermsTable *table, const char *slice);
gint64 terms_table_tokens (TermsTable *table, const char *slice);
gint64 terms_table_messages (TermsTable *table, const char *slice);
gint64 terms_table_total_tokens (TermsTable *table);
GArray *terms_table_collocations (TermsTable *table, gint64 min_count);
char *terms_slice_of (TermsBy by, const char *date, const char *group, const char *author);

/* A keyness row: target against reference. */
typedef struct {
  const char *term;
  gint64 target, reference;    /* counts */
  gint64 messages;             /* messages of target and reference it occurs in */
  double g2, log_ratio, p;
} TermsKeyness;

GArray *terms_keyness (TermsTable *table, const char *target, const char *reference,
                       gint64 min_count, gint64 *target_tokens, gint64 *reference_tokens);

typedef struct {
  const char *first, *second;
  gint64 count, first_count, second_count;
  double pmi, g2, t_score;
} TermsCollocation;

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TermsTable, terms_table_free)

G_END_DECLS
