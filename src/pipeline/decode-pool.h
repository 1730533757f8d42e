/* decode-pool.h — decoding messages on worker threads, in archive order. */
#pragma once

#include <glib.h>

#include "mail.h"
#include "mbox.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct {
  MboxSpan span;
  MailRecord *record;      /* set by a worker */
  char *envelope;          /* the envelope line as UTF-8 (or NULL), set by a worker */
  char *flags;             /* record->flags as text (or NULL), set by a worker */
  GArray *attachments;     /* of StoreAttachment, pointing into record; NULL for none */
} ParseItem;

typedef struct {
  GArray *items;           /* of ParseItem */
  gsize bytes;             /* message bytes in the batch */
  gboolean done;           /* guarded by the pool's lock */
} ParseBatch;

typedef struct _ParsePool ParsePool;

ParsePool *parse_pool_new (const char *buf, guint n_threads);
void parse_pool_free (ParsePool *pool);
ParseBatch *parse_batch_new (void);
void parse_batch_free (ParseBatch *batch);
void parse_pool_push (ParsePool *pool, ParseBatch *batch);
void parse_pool_wait (ParsePool *pool, ParseBatch *batch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ParsePool, parse_pool_free)

G_END_DECLS
