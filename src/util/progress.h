/* progress.h — one live line on stderr for long work. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _Progress Progress;
typedef struct _ProgressRun ProgressRun;

Progress *progress_new (const char *label, guint64 total_bytes);
void progress_update (Progress *progress, guint64 bytes, guint64 messages);
void progress_free (Progress *progress);

ProgressRun *progress_run_new (const char *what, guint items, guint64 total_bytes);
void progress_run_next (ProgressRun *run, guint64 bytes);
void progress_run_done (ProgressRun *run, guint64 messages);
void progress_run_free (ProgressRun *run);

void progress_phase (const char *what);
gboolean progress_live (void);
void progress_clear (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Progress, progress_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProgressRun, progress_run_free)

G_END_DECLS
