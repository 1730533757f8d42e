/* walk.h — command-line paths to archive files. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *path;
  gboolean from_directory;  /* found by walking, not named by the user */
  char *error;              /* why @path cannot be read as a folder or zip
                             * archive, or NULL: the caller reports it */
  gint64 size;              /* bytes, as the walk found it; -1: not known
                             * (named on the command line, an archive's member) */
} WalkItem;

GPtrArray *walk_paths (char **paths);
gboolean walk_is_maildir_message (const char *path);
char *walk_pipermail_list (const char *path);

G_END_DECLS
