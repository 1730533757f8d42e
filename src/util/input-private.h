/* input-private.h — what input.c and input-git.c share. */
#pragma once

#include "input.h"

G_BEGIN_DECLS

typedef gboolean (*InputWriteFunc) (const void *p, gsize n, gpointer sink, GError **error);

typedef struct {
  int version;        /* public-inbox format: 1 or 2 (0: no commit yet) */
  guint commits;
  guint removed;      /* messages removed by a later commit, left out */
} InputGitInfo;

gint64 _input_git_stored_size (const char *path);
gboolean _input_git_expand (const char *path, InputWriteFunc write, gpointer sink, GArray *starts,
                            InputGitInfo *info, GError **error);

G_END_DECLS
