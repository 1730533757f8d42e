/* dedup.h — exact copies, near-duplicate own text (MinHash, LSH) and
 * repeated paragraphs, found for review and never deleted. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

typedef struct {
  double threshold;        /* estimated Jaccard similarity of 5-word shingles, 0–1 */
  guint min_words;         /* shorter texts are only compared exactly */
  gint64 window_days;      /* > 0: only pair messages dated this close */
  guint min_paragraph_words;
  guint min_paragraph_messages;
  guint threads;
} DedupOptions;

typedef struct {
  gint64 messages;         /* read */
  gint64 bytes;            /* of own text */
  gint64 exact_clusters, near_clusters, flagged;   /* flagged: messages in a cluster, not first */
  gint64 candidates;       /* pairs LSH proposed */
  gint64 paragraphs;       /* repeated paragraphs */
  guint bands, rows;
} DedupCounts;

gboolean dedup_run (Store *store, const StoreFilter *filter, const DedupOptions *options,
                    DedupCounts *counts, GError **error);

G_END_DECLS
