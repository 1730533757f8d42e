/* decode-pool.h — decoding messages on worker threads, in archive order. */
#pragma once

#include <glib.h>

#include "analyse.h"
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
  gboolean analysed;       /* analysis is set (the pool was given analysers) */
  TextAnalysis analysis;   /* language and prose signals of the own text */
  gboolean replaces;       /* an append's old last message, decoded again: its row is replaced */
} DecodeItem;

typedef struct {
  const char *buf;         /* the archive text the spans point into */
  GArray *items;           /* of DecodeItem */
  gsize bytes;             /* message bytes in the batch */
  gboolean done;           /* guarded by the pool's lock */
} DecodeBatch;

typedef struct _DecodePool DecodePool;

DecodePool *decode_pool_new (guint n_threads, GAsyncQueue *analysers, GError **error);
void decode_pool_free (DecodePool *pool);
void decode_batch_limits (gsize len, guint threads, gsize *bytes, guint *messages);
DecodeBatch *decode_batch_new (const char *buf);
void decode_batch_free (DecodeBatch *batch);
void decode_pool_push (DecodePool *pool, DecodeBatch *batch);
void decode_pool_wait (DecodePool *pool, DecodeBatch *batch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DecodePool, decode_pool_free)

G_END_DECLS
