/* progress.h — a progress line on stderr for long work. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _Progress Progress;

Progress *progress_new (const char *label, guint64 total_bytes);
void progress_update (Progress *progress, guint64 bytes, guint64 messages);
void progress_free (Progress *progress);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Progress, progress_free)

G_END_DECLS
