/* input.h — an archive file as one read-only buffer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define INPUT_ERROR (input_error_quark ())
GQuark input_error_quark (void);

typedef enum {
  INPUT_ERROR_OPEN,
  INPUT_ERROR_READ,
  INPUT_ERROR_GZIP,
} InputError;

typedef struct {
  const char *data;        /* the mbox text */
  gsize len;
  gint64 stored_size;      /* bytes on disk */
  gint64 mtime;
  gboolean gzip;
  /* private */
  void *map;
  int fd;
  goffset released;
} Input;

Input *input_open (const char *path, GError **error);
void input_release (Input *input, goffset upto);
void input_free (Input *input);
gboolean input_is_gzip_path (const char *path);
char *input_sha256 (const Input *input);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Input, input_free)

G_END_DECLS
