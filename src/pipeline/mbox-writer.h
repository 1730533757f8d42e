/* mbox-writer.h — stored messages back out as mboxrd or Maildir. */
#pragma once

#include "store.h"

G_BEGIN_DECLS

typedef struct _MboxWriter MboxWriter;

MboxWriter *mbox_writer_new (const char *path, gboolean maildir, GError **error);
gboolean mbox_writer_row (const StoreArchiveRow *row, gpointer writer);
guint64 mbox_writer_count (const MboxWriter *writer);
gboolean mbox_writer_free (MboxWriter *writer, gboolean commit, GError **error);

G_END_DECLS
