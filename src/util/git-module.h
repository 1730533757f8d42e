/* git-module.h — the table of functions the git module (git.c,
 * deja-git.so) exports, and input-git.c calls. */
#pragma once

#include "input.h"

G_BEGIN_DECLS

typedef gboolean (*InputWriteFunc) (const void *p, gsize n, gpointer sink, GError **error);

typedef struct {
  int version;        /* public-inbox format: 1 or 2 (0: no commit yet) */
  guint commits;
  guint removed;      /* messages removed by a later commit, left out */
} InputGitInfo;

typedef struct {
  const char *version;     /* PACKAGE_VERSION: first, as util/module.c reads it */
  /* @path's messages, each ending in a newline, through @write; where
   * each starts in @starts; @later: the epochs after @path's in its
   * inbox (NULL-terminated), whose removals count too */
  gboolean (*expand) (const char *path, const char *const *later, InputWriteFunc write, gpointer sink,
                      GArray *starts, InputGitInfo *info, GError **error);
} GitModule;

G_END_DECLS
