/* ingest.h — one archive file into the database, in one transaction. */
#pragma once

#include <glib.h>

#include "split.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct {
  gboolean force;          /* accept a file without a leading envelope */
  guint threads;           /* decoding threads; 0 = one per processor */
  gboolean reingest;       /* read the file again even if unchanged (new decisions) */
} IngestOptions;

typedef struct {
  SplitCounts counts;
  gboolean unchanged;      /* already ingested with this content */
  gboolean empty;          /* a valid mbox with no messages */
  char *duplicate_of;      /* same content already ingested under this path */
} IngestResult;

gboolean ingest_file (Store *store, const char *path, const IngestOptions *options,
                      IngestResult *result, GError **error);
void ingest_result_clear (IngestResult *result);

G_END_DECLS
