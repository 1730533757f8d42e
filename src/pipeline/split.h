/* split.h — what scan and ingest share around the splitter. */
#pragma once

#include <glib.h>

#include "input.h"
#include "mbox.h"

G_BEGIN_DECLS

typedef struct {
  guint64 messages;
  guint64 accepted;   /* separators accepted against some evidence */
  guint64 rejected;   /* envelope-shaped lines judged body */
  guint64 body;       /* prose a liberal parser would split on */
  guint64 adjacent;   /* certain separators right after a message's last line */
  guint64 lines;
  guint64 bytes;      /* of mbox text read */
} SplitCounts;

void split_count_log (SplitCounts *counts, const MboxLogEntry *entries, gsize n);
char *split_line_text (const char *buf, const MboxLogEntry *entry);
char *split_counts_describe (const SplitCounts *counts);
MboxSplitter *split_new (const Input *input, const char *path, MboxSplitFlags force);

G_END_DECLS
