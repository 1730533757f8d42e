/* ahead.h — small archive files split and decoding before the writer
 * reaches them. */
#pragma once

#include <glib.h>

#include "decode-pool.h"
#include "input.h"
#include "mbox.h"
#include "split.h"

G_BEGIN_DECLS

/* A file as the preparer left it. */
typedef struct {
  char *path;              /* as ingest_file() is given it */
  Input *input;            /* NULL: not prepared (large, compressed past the limit, not
                              a regular file, unreadable, empty or not an mbox: the usual
                              way reads it and says what it is) */
  char *sha256;            /* of the whole text */
  GQueue batches;          /* of DecodeBatch, every message, pushed to the pool in
                              archive order */
  GArray *log;             /* of MboxLogEntry: the separator log of the whole file */
  SplitCounts counts;      /* messages, adjacent, lines, bytes (the log's counts are
                              added as it is stored) */
} AheadFile;

typedef struct _Ahead Ahead;

Ahead *ahead_start (DecodePool *pool, guint threads, MboxSplitFlags flags,
                    const volatile int *cancel, GPtrArray *paths);
AheadFile *ahead_take (Ahead *ahead, const char *path);
void ahead_file_free (AheadFile *file, DecodePool *pool);
void ahead_free (Ahead *ahead);
guint ahead_resumed (Ahead *ahead, gboolean *waiting);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Ahead, ahead_free)

G_END_DECLS
