/* export-mbox.h — stored messages back out as mboxrd or Maildir. */
#pragma once

#include "store.h"

G_BEGIN_DECLS

typedef struct _ExportMbox ExportMbox;

ExportMbox *export_mbox_new (const char *path, gboolean maildir, GError **error);
gboolean export_mbox_row (const StoreArchiveRow *row, gpointer writer);
guint64 export_mbox_count (const ExportMbox *writer);
gboolean export_mbox_free (ExportMbox *writer, gboolean commit, GError **error);

G_END_DECLS
