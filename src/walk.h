/* walk.h — command-line paths to archive files. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *path;
  gboolean from_directory;  /* found by walking, not named by the user */
} WalkItem;

GPtrArray *walk_paths (char **paths, const char *verb, guint *n_errors);

G_END_DECLS
