/* input.h — an archive file as one read-only buffer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define INPUT_ERROR (input_error_quark ())
GQuark input_error_quark (void);

typedef enum {
  INPUT_ERROR_OPEN,
  INPUT_ERROR_READ,
  INPUT_ERROR_GZIP,        /* any compressed format that cannot be read */
  INPUT_ERROR_TOO_LARGE,   /* expands past the limit: a compression bomb? */
  INPUT_ERROR_CHANGED,     /* truncated while it was read */
} InputError;

/* A compressed file may expand to this many times its size (and always
 * to INPUT_EXPANSION_FLOOR): mail compresses 3 to 15 times; a bomb, a
 * thousand times and more.  DEJA_MAX_EXPANSION overrides the ratio. */
#define INPUT_MAX_EXPANSION 100
#define INPUT_EXPANSION_FLOOR ((gint64) 64 << 20)

typedef struct {
  const char *data;        /* the mbox text */
  gsize len;
  gint64 stored_size;      /* bytes on disk */
  gint64 mtime;
  const char *compression;   /* NULL, "gzip", "bzip2", "xz", "zip", "tar" or "git" */
  /* A container that knows where its messages begin (a public-inbox
   * epoch, one message per commit): their offsets, ascending, for
   * mbox_splitter_set_bounds(); NULL for a file the splitter reads. */
  GArray *starts;
  char *format;              /* what it is ("public-inbox v2, 12 commits"), or NULL */
  guint removed;             /* messages the container removed, left out */
  /* private */
  void *map;
  gsize map_len;
  char *copy;              /* a small file's text, read instead of mapped */
  gboolean short_read;     /* and it was shorter than its size said */
  goffset base;            /* of data in fd */
  int bus_faults;          /* input_check_unchanged() */
  int fd;
  goffset released;
} Input;

Input *input_open (const char *path, GError **error);
void input_release (Input *input, goffset upto);
void input_free (Input *input);
GPtrArray *input_zip_members (const char *path, GError **error);
gboolean input_is_zip (const char *path);
gboolean input_is_git_repository (const char *path);
gboolean input_git_available (void);
char *input_git_module_problem (void);
GPtrArray *input_inbox_epochs (const char *dir);
char *input_member_name (const char *raw);
gboolean input_check_unchanged (const Input *input, GError **error);
void input_forget_archives (void);
char *input_sha256 (const Input *input);
char *input_sha256_prefix (const Input *input, gsize len, char **whole);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Input, input_free)

G_END_DECLS
