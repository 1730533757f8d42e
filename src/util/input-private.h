/* input-private.h — what input.c and input-git.c share. */
#pragma once

#include "input.h"
#include "git-module.h"

G_BEGIN_DECLS

gint64 _input_git_stored_size (const char *path);
gboolean _input_git_expand (const char *path, InputWriteFunc write, gpointer sink, GArray *starts,
                            InputGitInfo *info, GError **error);

G_END_DECLS
