/* input.c — opening archives: plain files are mapped, compressed ones expanded.
 *
 * The splitter needs random look-ahead (a header block after a candidate,
 * a closing MIME boundary far below it), so an archive is presented as
 * one read-only buffer.  A plain file is mmap()ed.  A compressed file
 * (detected by its magic bytes, not its name) is expanded by streaming
 * into an unlinked temporary file, which is then mapped; a truncated or
 * corrupt stream is an error before any of it is used.  gzip goes through
 * zlib; bzip2, xz and the members of a zip archive through libarchive.
 * A member of a zip is named like a file in a folder:
 * "usenet-comp.mbox.zip/comp.lang.c.mbox", always inside it
 * (input_member_name()).  A zip archive is expanded once, all its members
 * into one temporary file, when its first member is opened.
 *
 * A public-inbox repository (input-git.c) is expanded the same way, its
 * messages one after another, their starts kept in input->starts.
 *
 * Expansion is bounded: past INPUT_MAX_EXPANSION times the compressed
 * size (at least INPUT_EXPANSION_FLOOR), or when the temporary folder's
 * disk would be left with less than INPUT_KEEP_FREE, the file is refused
 * as a likely compression bomb, and the temporary file goes with it.
 *
 * Nothing copies a whole archive into memory: input_release() drops
 * pages the pipeline has finished with, so resident memory stays flat on
 * archives of any size.
 */
#include "input-private.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <zlib.h>
#include <archive.h>
#include <archive_entry.h>
#include <nettle/sha2.h>

G_DEFINE_QUARK (input-error-quark, input_error)

#define CHUNK (256 * 1024)

/* Pages are dropped in steps this large: each madvise() in a threaded
 * process costs a TLB shoot-down on every core, and smaller steps keep no
 * less resident. */
#define RELEASE_STEP ((goffset) 32 * 1024 * 1024)

static gboolean
set_errno_error (GError **error, InputError code, const char *what, int err)
{
  g_set_error (error, INPUT_ERROR, code, "%s: %s", what, g_strerror (err));
  return FALSE;
}

static int
open_temp (GError **error)
{
  g_autofree char *name = NULL;
  int fd = g_file_open_tmp ("deja-XXXXXX", &name, error);

  if (fd >= 0)
    unlink (name);
  return fd;
}

/* Keep at least this much of the temporary folder's disk free. */
#define INPUT_KEEP_FREE ((guint64) 512 * 1024 * 1024)
/* How often (in bytes written) free space is looked at. */
#define FREE_CHECK_STEP ((guint64) 64 * 1024 * 1024)

/* Where expanded bytes go, and how many may go there. */
typedef struct {
  int fd;
  guint64 written;
  guint64 limit;
  guint64 next_check;
  guint64 ratio;
} Sink;

static Sink
sink_new (gint64 compressed_size, GError **error)
{
  const char *env = g_getenv ("DEJA_MAX_EXPANSION");
  guint64 ratio = env ? g_ascii_strtoull (env, NULL, 10) : INPUT_MAX_EXPANSION;
  Sink sink = { -1, 0, 0, 0, 0 };

  sink.ratio = ratio ? ratio : INPUT_MAX_EXPANSION;
  sink.limit = MAX ((guint64) INPUT_EXPANSION_FLOOR, sink.ratio * (guint64) MAX (compressed_size, 0));
  sink.fd = open_temp (error);
  return sink;
}

static gboolean
sink_write (Sink *sink, const unsigned char *p, gsize n, GError **error)
{
  if (sink->written + n > sink->limit)
    {
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_TOO_LARGE,
                   "expands past %" G_GUINT64_FORMAT " MiB (%" G_GUINT64_FORMAT " times its"
                   " compressed size, at least 64 MiB): refused as a likely compression bomb"
                   " (DEJA_MAX_EXPANSION=RATIO allows more)", sink->limit >> 20, sink->ratio);
      return FALSE;
    }
  if (sink->written + n >= sink->next_check)
    {
      struct statvfs vfs;

      sink->next_check = sink->written + n + FREE_CHECK_STEP;
      if (fstatvfs (sink->fd, &vfs) == 0 &&
          (guint64) vfs.f_bavail * vfs.f_frsize < INPUT_KEEP_FREE + n)
        {
          g_set_error (error, INPUT_ERROR, INPUT_ERROR_TOO_LARGE,
                       "expanding it would fill the disk of the temporary folder (%s) after %"
                       G_GUINT64_FORMAT " MiB: set TMPDIR to a larger disk", g_get_tmp_dir (),
                       sink->written >> 20);
          return FALSE;
        }
    }
  while (n > 0)
    {
      ssize_t w = write (sink->fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return set_errno_error (error, INPUT_ERROR_READ, "cannot write temporary file", errno);
      p += w, n -= w;
      sink->written += w;
    }
  return TRUE;
}

/* Inflates @in (gzip, possibly several members) into @out.  The input
 * must end exactly where a member ends: anything else is truncation. */
static gboolean
gunzip (int in, Sink *out, GError **error)
{
  g_autofree unsigned char *ibuf = g_malloc (CHUNK), *obuf = g_malloc (CHUNK);
  z_stream z = { 0 };
  gboolean ok = FALSE, ended = FALSE;
  ssize_t n;

  if (inflateInit2 (&z, 15 + 16) != Z_OK)
    return set_errno_error (error, INPUT_ERROR_GZIP, "cannot start gzip", ENOMEM);
  while ((n = read (in, ibuf, CHUNK)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, INPUT_ERROR_READ, "cannot read", errno);
          goto out;
        }
      z.next_in = ibuf;
      z.avail_in = n;
      for (;;)
        {
          int zrc;

          if (ended && z.avail_in == 0)
            break;
          if (ended)
            inflateReset (&z);   /* the next member of a multi-member file */
          z.next_out = obuf;
          z.avail_out = CHUNK;
          zrc = inflate (&z, Z_NO_FLUSH);
          if (zrc == Z_BUF_ERROR)
            break;               /* needs more input */
          if (zrc != Z_OK && zrc != Z_STREAM_END)
            {
              g_set_error (error, INPUT_ERROR, INPUT_ERROR_GZIP, "corrupt gzip data (%s)",
                           z.msg ? z.msg : "inflate failed");
              goto out;
            }
          if (!sink_write (out, obuf, CHUNK - z.avail_out, error))
            goto out;
          ended = zrc == Z_STREAM_END;
          /* Output left in zlib's window shows as a full buffer. */
          if (z.avail_in == 0 && z.avail_out != 0)
            break;
        }
    }
  if (!ended)
    {
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_GZIP, "truncated gzip data");
      goto out;
    }
  ok = TRUE;
out:
  inflateEnd (&z);
  return ok;
}


typedef enum { PLAIN, GZIP, BZIP2, XZ, ZIP, TAR } Format;

static Format
format_of (int fd)
{
  unsigned char m[6] = { 0 };
  ssize_t n = pread (fd, m, sizeof m, 0);

  if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
    return GZIP;
  if (n >= 3 && memcmp (m, "BZh", 3) == 0)
    return BZIP2;
  if (n >= 6 && memcmp (m, "\xfd" "7zXZ\0", 6) == 0)
    return XZ;
  if (n >= 4 && (memcmp (m, "PK\x03\x04", 4) == 0 || memcmp (m, "PK\x05\x06", 4) == 0))
    return ZIP;
  if (pread (fd, m, 5, 257) == 5 && memcmp (m, "ustar", 5) == 0)
    return TAR;
  return PLAIN;
}

/* Whether the compressed file @path holds a tar archive (.tar.gz, .tgz,
 * .tar.bz2, .tar.xz): libarchive reads its first header. */
static gboolean
compressed_tar (const char *path)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gboolean tar;

  archive_read_support_filter_gzip (a);
  archive_read_support_filter_bzip2 (a);
  archive_read_support_filter_xz (a);
  archive_read_support_format_tar (a);
  tar = archive_read_open_filename (a, path, CHUNK) == ARCHIVE_OK &&
        archive_read_next_header (a, &entry) == ARCHIVE_OK;
  archive_read_free (a);
  return tar;
}

static gboolean
archive_fail (struct archive *a, const char *what, GError **error)
{
  const char *msg = archive_error_string (a);

  g_set_error (error, INPUT_ERROR, INPUT_ERROR_GZIP, "%s%s%s", what, msg ? ": " : "",
               msg ? msg : "");
  return FALSE;
}

/* Copies the current entry's data of @a into @out. */
static gboolean
archive_copy (struct archive *a, Sink *out, const char *what, GError **error)
{
  g_autofree unsigned char *buf = g_malloc (CHUNK);

  for (;;)
    {
      la_ssize_t n = archive_read_data (a, buf, CHUNK);

      if (n == 0)
        return TRUE;
      if (n < 0)
        return archive_fail (a, what, error);
      if (!sink_write (out, buf, n, error))
        return FALSE;
    }
}

/* A bzip2 or xz stream: one file, expanded whole. */
static gboolean
unpack_stream (int in, Format format, Sink *out, GError **error)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  const char *what = format == BZIP2 ? "corrupt or truncated bzip2 data"
                                     : "corrupt or truncated xz data";
  gboolean ok;

  if (format == BZIP2)
    archive_read_support_filter_bzip2 (a);
  else
    archive_read_support_filter_xz (a);
  archive_read_support_format_raw (a);
  ok = archive_read_open_fd (a, in, CHUNK) == ARCHIVE_OK &&
       archive_read_next_header (a, &entry) == ARCHIVE_OK;
  if (!ok)
    archive_fail (a, what, error);
  else
    ok = archive_copy (a, out, what, error);
  archive_read_free (a);
  return ok;
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/**
 * input_member_name:
 * @raw: a member's name as its archive gives it
 *
 * The member's path inside its archive: '/'-separated, relative, with no
 * empty, "." or ".." component, so that "ARCHIVE/NAME" always names a
 * place inside the archive ("../b.mbox" is "b.mbox", "/etc/x" is
 * "etc/x"), whatever the archive says.  Pure.
 *
 * Returns: (transfer full): the name; "unnamed" when nothing is left
 */
char *
input_member_name (const char *raw)
{
  g_auto (GStrv) parts = g_strsplit (raw ? raw : "", "/", -1);
  g_autoptr (GString) name = g_string_new (NULL);

  for (char **p = parts; *p; p++)
    if (**p != '\0' && strcmp (*p, ".") != 0 && strcmp (*p, "..") != 0)
      {
        if (name->len > 0)
          g_string_append_c (name, '/');
        g_string_append (name, *p);
      }
  if (name->len == 0)
    g_string_assign (name, "unnamed");
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* The name @name gets among @seen (NAME, NAME;2, NAME;3, …): two members
 * of one name are two files. */
static char *
unique_member_name (GHashTable *seen, char *name)
{
  char *unique = name;

  for (guint n = 2; g_hash_table_contains (seen, unique); n++)
    {
      if (unique != name)
        g_free (unique);
      unique = g_strdup_printf ("%s;%u", name, n);
    }
  if (unique != name)
    g_free (name);
  g_hash_table_add (seen, unique);
  return unique;
}

static struct archive *
zip_open (const char *zip, GError **error)
{
  struct archive *a = archive_read_new ();

  archive_read_support_format_zip (a);
  archive_read_support_format_tar (a);
  archive_read_support_filter_gzip (a);
  archive_read_support_filter_bzip2 (a);
  archive_read_support_filter_xz (a);
  if (archive_read_open_filename (a, zip, CHUNK) != ARCHIVE_OK)
    {
      archive_fail (a, "cannot read archive", error);
      archive_read_free (a);
      return NULL;
    }
  return a;
}

/* A zip archive expanded once, every member into one temporary file: its
 * members are opened from there (reading the archive again for each
 * member made an archive of n members cost n² reads). */
typedef struct {
  goffset offset;          /* in the temporary file */
  gsize len;
  char *error;             /* why it could not be expanded, or NULL */
} Member;

typedef struct {
  char *path;
  dev_t dev;
  ino_t ino;
  gint64 size;
  gint64 mtime;
  int fd;
  gboolean tar;            /* else zip */
  GHashTable *members;     /* unique name -> Member */
} Expanded;

static void
member_free (gpointer p)
{
  Member *m = p;

  g_free (m->error);
  g_free (m);
}

static void
expanded_free (Expanded *x)
{
  if (x == NULL)
    return;
  if (x->fd >= 0)
    close (x->fd);
  g_hash_table_unref (x->members);
  g_free (x->path);
  g_free (x);
}

/* The regular members of @a in archive order, each named by
 * input_member_name() and unique_member_name(); @each is called with
 * the entry positioned at its data. */
typedef gboolean (*MemberFunc) (struct archive *a, const char *name, gpointer data, GError **error);

static gboolean
for_each_member (struct archive *a, MemberFunc each, gpointer data, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  struct archive_entry *entry;
  int rc;

  while ((rc = archive_read_next_header (a, &entry)) == ARCHIVE_OK)
    if (archive_entry_filetype (entry) == AE_IFREG)
      {
        const char *name = unique_member_name (seen, input_member_name (archive_entry_pathname (entry)));

        if (!each (a, name, data, error))
          return FALSE;
      }
  return rc == ARCHIVE_EOF ? TRUE : archive_fail (a, "cannot read archive", error);
}

static gboolean
list_member (struct archive *a, const char *name, gpointer data, GError **error)
{
  g_ptr_array_add (data, g_strdup (name));
  return TRUE;
}

typedef struct {
  Expanded *x;
  Sink *sink;
} ExpandState;

static gboolean
expand_member (struct archive *a, const char *name, gpointer data, GError **error)
{
  ExpandState *state = data;
  Member *m = g_new0 (Member, 1);
  g_autoptr (GError) local = NULL;

  m->offset = state->sink->written;
  g_hash_table_insert (state->x->members, g_strdup (name), m);
  if (!archive_copy (a, state->sink, "corrupt archive member", &local))
    {
      /* the stream cannot be followed past it: this member and those
       * after it fail, those before it are read */
      m->error = g_strdup (local->message);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  m->len = state->sink->written - m->offset;
  return TRUE;
}

/* Expands the zip archive @path (opened as @st) into one temporary file.
 * What cannot be expanded is kept as the error of the member it hit, or
 * as the archive's error for the members after it. */
static Expanded *
expand (const char *path, const struct stat *st, char **failure, GError **error)
{
  struct archive *a = zip_open (path, error);
  Expanded *x;
  Sink sink;
  ExpandState state;
  g_autoptr (GError) local = NULL;

  *failure = NULL;
  if (a == NULL)
    return NULL;
  sink = sink_new (st->st_size, error);
  if (sink.fd < 0)
    {
      archive_read_free (a);
      return NULL;
    }
  x = g_new0 (Expanded, 1);
  x->path = g_strdup (path);
  x->dev = st->st_dev;
  x->ino = st->st_ino;
  x->size = st->st_size;
  x->mtime = st->st_mtime;
  x->fd = sink.fd;
  x->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, member_free);
  state = (ExpandState) { .x = x, .sink = &sink };
  if (!for_each_member (a, expand_member, &state, &local))
    *failure = g_strdup (local->message);
  x->tar = archive_format (a) != 0 && (archive_format (a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR;
  archive_read_free (a);
  return x;
}

/* The last zip archive expanded, for its next members (ingest reads an
 * archive's members one after another, some on a thread of their own). */
static GMutex expanded_lock;
static Expanded *expanded;
static char *expanded_failure;

/**
 * input_forget_archives:
 *
 * Frees the expanded copy of the last zip archive read (it is made again
 * when one of its members is opened).
 */
void
input_forget_archives (void)
{
  g_mutex_lock (&expanded_lock);
  g_clear_pointer (&expanded, expanded_free);
  g_clear_pointer (&expanded_failure, g_free);
  g_mutex_unlock (&expanded_lock);
}

/**
 * input_is_zip:
 * @path: a file
 *
 * Returns: whether @path is a regular file that is an archive of members:
 *   zip, or tar (plain, or compressed with gzip, bzip2 or xz)
 */
gboolean
input_is_zip (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block */
  struct stat st;
  Format format = PLAIN;

  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    format = format_of (fd);
  close (fd);
  if (format == GZIP || format == BZIP2 || format == XZ)
    return compressed_tar (path);
  return format == ZIP || format == TAR;
}

/**
 * input_zip_members:
 * @path: a zip archive
 *
 * The names are input_member_name()'s, always inside the archive; a name
 * that several members have is "NAME" for the first, "NAME;2" for the
 * second, and so on, so that each member is read.
 *
 * Returns: (transfer full) (element-type filename) (nullable): the paths
 *   "@path/MEMBER" of its regular members, sorted, or %NULL with @error
 */
GPtrArray *
input_zip_members (const char *path, GError **error)
{
  struct archive *a = zip_open (path, error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *members;
  gboolean ok;

  if (a == NULL)
    return NULL;
  ok = for_each_member (a, list_member, names, error);
  archive_read_free (a);
  if (!ok)
    return NULL;
  members = g_ptr_array_new_full (names->len, g_free);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (members, g_build_filename (path, g_ptr_array_index (names, i), NULL));
  g_ptr_array_sort (members, compare_paths);
  return members;
}

/* "archive.zip/dir/member.mbox": the zip file and the member, when a
 * leading part of @path is a zip archive (and @path itself is no file). */
static gboolean
split_zip_path (const char *path, char **zip, char **member)
{
  g_autofree char *copy = g_strdup (path);

  for (char *slash = strrchr (copy, '/'); slash != NULL && slash != copy;
       slash = g_strrstr_len (copy, slash - copy, "/"))
    {
      *slash = '\0';
      if (input_is_zip (copy))
        {
          *zip = g_strdup (copy);
          *member = g_strdup (path + (slash - copy) + 1);
          return TRUE;
        }
    }
  return FALSE;
}

/* ---- a file truncated while it is mapped ----
 *
 * Reading a page of a mapping past the end of a file that shrank raises
 * SIGBUS, which killed deja (exit 135, no message).  Every mapping of an
 * archive is registered here; on SIGBUS in one of them, the handler maps
 * a page of zeros where the page was (the reader goes on, reading
 * nonsense) and counts the fault; input_check_unchanged() then refuses
 * the file, whose rows are never stored.  A SIGBUS anywhere else is
 * raised again as it was. */
#define GUARDED_MAPS 64

static struct {
  gpointer start;          /* NULL: a free slot */
  gsize len;
} guarded[GUARDED_MAPS];
static volatile sig_atomic_t bus_faults;
static struct sigaction previous_bus;

static void
on_sigbus (int sig, siginfo_t *info, void *context)
{
  gsize addr = (gsize) info->si_addr;
  long page = sysconf (_SC_PAGESIZE);

  for (guint i = 0; i < GUARDED_MAPS; i++)
    {
      gsize start = (gsize) g_atomic_pointer_get (&guarded[i].start);

      if (start != 0 && addr >= start && addr < start + guarded[i].len &&
          mmap ((void *) (addr / page * page), page, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
        {
          bus_faults++;
          return;
        }
    }
  sigaction (SIGBUS, &previous_bus, NULL);   /* not ours: fault again, as before */
}

static gpointer
install_guard (gpointer unused)
{
  struct sigaction sa = { 0 };

  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGBUS, &sa, &previous_bus);
  return NULL;
}

static void
guard (void *map, gsize len)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, install_guard, NULL);
  for (guint i = 0; i < GUARDED_MAPS; i++)
    if (g_atomic_pointer_get (&guarded[i].start) == NULL)
      {
        guarded[i].len = len;
        if (g_atomic_pointer_compare_and_exchange (&guarded[i].start, NULL, map))
          return;
      }
  /* more than GUARDED_MAPS archives mapped at once: this one unguarded */
}

static void
unguard (void *map)
{
  for (guint i = 0; i < GUARDED_MAPS; i++)
    if (g_atomic_pointer_get (&guarded[i].start) == map)
      g_atomic_pointer_set (&guarded[i].start, NULL);
}

/**
 * input_check_unchanged:
 *
 * Whether the file is still at least as long as when it was opened, and
 * no page of a mapping went missing while it was read.  Call it after
 * reading, before keeping what was read.
 *
 * Returns: %FALSE with @error when it shrank
 */
gboolean
input_check_unchanged (const Input *input, GError **error)
{
  struct stat st;

  if (input->fd >= 0 && fstat (input->fd, &st) == 0 && S_ISREG (st.st_mode) &&
      (goffset) st.st_size < input->base + (goffset) input->len)
    {
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_CHANGED,
                   "the file was truncated while it was read (%" G_GOFFSET_FORMAT " bytes, was %"
                   G_GSIZE_FORMAT "): nothing of it was kept", (goffset) st.st_size, input->len);
      return FALSE;
    }
  if (input->bus_faults != bus_faults || input->short_read)
    {
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_CHANGED,
                   "part of the file went missing while it was read: nothing of it was kept");
      return FALSE;
    }
  return TRUE;
}

/* Files up to this size are read into memory rather than mapped: a
 * Maildir or a news spool is a file for each message, and each mapping
 * undone interrupted every core the process ran on (munmap()'s TLB
 * shootdown: 10 % of the writer's thread on a Maildir of 30,442). */
#define READ_MAX (256 * 1024)

/* Reads @len bytes of @fd from @base into input->copy. */
static gboolean
read_range (Input *input, int fd, goffset base, gsize len, GError **error)
{
  gsize done = 0;

  input->copy = g_malloc (len + 1);
  while (done < len)
    {
      ssize_t n = pread (fd, input->copy + done, len - done, base + (goffset) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return set_errno_error (error, INPUT_ERROR_READ, "cannot read", errno);
      if (n == 0)
        break;
      done += (gsize) n;
    }
  /* shorter than it was: input_check_unchanged() says so, as for a
   * mapping that lost its end */
  memset (input->copy + done, 0, len + 1 - done);
  input->short_read = done < len;
  input->bus_faults = bus_faults;   /* none of this one's: it maps nothing */
  input->data = input->copy;
  return TRUE;
}

/* Maps (or reads) @len bytes of @fd from @base: input->data. */
static gboolean
map_range (Input *input, int fd, goffset base, gsize len, GError **error)
{
  long page = sysconf (_SC_PAGESIZE);
  goffset start = base / page * page;

  input->base = base;
  input->len = len;
  if (len == 0)
    {
      input->data = "";
      return TRUE;
    }
  if (len <= READ_MAX)
    return read_range (input, fd, base, len, error);
  input->map_len = len + (base - start);
  input->map = mmap (NULL, input->map_len, PROT_READ, MAP_PRIVATE, fd, start);
  if (input->map == MAP_FAILED)
    {
      input->map = NULL;
      return set_errno_error (error, INPUT_ERROR_READ, "cannot map", errno);
    }
  madvise (input->map, input->map_len, MADV_SEQUENTIAL);
  input->data = (const char *) input->map + (base - start);
  input->bus_faults = bus_faults;
  guard (input->map, input->map_len);
  return TRUE;
}

static gboolean
map_fd (Input *input, int fd, GError **error)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return set_errno_error (error, INPUT_ERROR_READ, "cannot stat", errno);
  return map_range (input, fd, 0, st.st_size, error);
}

static Input *
open_zip_member (Input *input, const char *zip, const char *name, GError **error)
{
  g_autoptr (Input) owned = input;
  struct stat st;
  Member *m;
  int fd;

  if (stat (zip, &st) < 0)
    {
      set_errno_error (error, INPUT_ERROR_OPEN, "cannot open", errno);
      return NULL;
    }
  g_mutex_lock (&expanded_lock);
  if (expanded == NULL || strcmp (expanded->path, zip) != 0 || expanded->dev != st.st_dev ||
      expanded->ino != st.st_ino || expanded->size != st.st_size || expanded->mtime != st.st_mtime)
    {
      g_clear_pointer (&expanded, expanded_free);
      g_clear_pointer (&expanded_failure, g_free);
      expanded = expand (zip, &st, &expanded_failure, error);
      if (expanded == NULL)
        {
          g_mutex_unlock (&expanded_lock);
          return NULL;
        }
    }
  m = g_hash_table_lookup (expanded->members, name);
  if (m == NULL || m->error != NULL)
    {
      if (m != NULL)
        g_set_error (error, INPUT_ERROR, INPUT_ERROR_GZIP, "%s", m->error);
      else if (expanded_failure != NULL)
        g_set_error (error, INPUT_ERROR, INPUT_ERROR_GZIP, "%s", expanded_failure);
      else
        g_set_error (error, INPUT_ERROR, INPUT_ERROR_OPEN, "no member '%s' in the archive", name);
      g_mutex_unlock (&expanded_lock);
      return NULL;
    }
  fd = fcntl (expanded->fd, F_DUPFD_CLOEXEC, 0);
  g_mutex_unlock (&expanded_lock);
  if (fd < 0)
    {
      set_errno_error (error, INPUT_ERROR_OPEN, "cannot open", errno);
      return NULL;
    }
  owned->stored_size = st.st_size;
  owned->mtime = st.st_mtime;
  owned->compression = expanded->tar ? "tar" : "zip";
  owned->fd = fd;
  if (!map_range (owned, fd, m->offset, m->len, error))
    return NULL;
  return g_steal_pointer (&owned);
}

static gboolean
sink_write_func (const void *p, gsize n, gpointer sink, GError **error)
{
  return sink_write (sink, p, n, error);
}

/* A public-inbox epoch or v1 inbox: its messages, in commit order, into
 * a temporary file (input-git.c). */
static Input *
open_git (Input *input, const char *path, const struct stat *st, GError **error)
{
  g_autoptr (Input) owned = input;
  InputGitInfo info;
  Sink sink;

  owned->stored_size = _input_git_stored_size (path);
  owned->mtime = st->st_mtime;
  owned->compression = "git";
  owned->starts = g_array_new (FALSE, FALSE, sizeof (goffset));
  sink = sink_new (owned->stored_size, error);
  if (sink.fd < 0)
    return NULL;
  owned->fd = sink.fd;
  if (!_input_git_expand (path, sink_write_func, &sink, owned->starts, &info, error))
    return NULL;
  owned->removed = info.removed;
  owned->format = g_strdup_printf ("a public-inbox v%d repository: %u commits, %u messages, %u removed",
                                   MAX (info.version, 1), info.commits, owned->starts->len, info.removed);
  if (!map_fd (owned, owned->fd, error))
    return NULL;
  return g_steal_pointer (&owned);
}

/**
 * input_open:
 * @path: a file (plain, gzip, bzip2, xz), a member of a zip archive
 *   named "ARCHIVE.zip/MEMBER", or a public-inbox repository (a bare git
 *   repository: an epoch, or a v1 inbox)
 *
 * Returns: (transfer full) (nullable): the file's mbox text as a buffer,
 * or %NULL with @error set (the message does not repeat @path)
 */
Input *
input_open (const char *path, GError **error)
{
  g_autoptr (Input) input = g_new0 (Input, 1);
  struct stat st;
  Format format;
  int fd;

  input->fd = -1;
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block */
  if (fd < 0 && (errno == ENOTDIR || errno == ENOENT))
    {
      g_autofree char *zip = NULL, *member = NULL;

      if (split_zip_path (path, &zip, &member))
        return open_zip_member (g_steal_pointer (&input), zip, member, error);
    }
  if (fd < 0)
    {
      set_errno_error (error, INPUT_ERROR_OPEN, "cannot open", errno);
      return NULL;
    }
  if (fstat (fd, &st) < 0)
    {
      int err = errno;
      close (fd);
      set_errno_error (error, INPUT_ERROR_OPEN, "cannot stat", err);
      return NULL;
    }
  if (S_ISDIR (st.st_mode) && input_is_git_repository (path))
    {
      close (fd);
      return open_git (g_steal_pointer (&input), path, &st, error);
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      set_errno_error (error, INPUT_ERROR_OPEN, "not a regular file",
                       S_ISDIR (st.st_mode) ? EISDIR : EINVAL);
      return NULL;
    }
  input->stored_size = st.st_size;
  input->mtime = st.st_mtime;
  format = format_of (fd);
  if (format == ZIP || format == TAR)
    {
      close (fd);
      g_set_error (error, INPUT_ERROR, INPUT_ERROR_OPEN,
                   "an archive of files: name its members (ARCHIVE/MEMBER), or the archive itself"
                   " on the command line");
      return NULL;
    }
  if (format != PLAIN)
    {
      static const char *const names[] = { [GZIP] = "gzip", [BZIP2] = "bzip2", [XZ] = "xz" };
      Sink sink = sink_new (st.st_size, error);
      gboolean ok = sink.fd >= 0 && (format == GZIP ? gunzip (fd, &sink, error)
                                                     : unpack_stream (fd, format, &sink, error));

      input->compression = names[format];
      close (fd);
      if (!ok)
        {
          if (sink.fd >= 0)
            close (sink.fd);
          return NULL;
        }
      fd = sink.fd;
      g_debug ("'%s': %s, %" G_GUINT64_FORMAT " bytes expanded to a temporary file", path,
               input->compression, sink.written);
    }
  input->fd = fd;
  if (!map_fd (input, fd, error))
    return NULL;
  return g_steal_pointer (&input);
}

/**
 * input_release:
 * @upto: offset below which the caller no longer reads the buffer
 *
 * Lets the kernel drop the mapped pages below @upto from this process
 * (they stay in the page cache).
 */
void
input_release (Input *input, goffset upto)
{
  long page = sysconf (_SC_PAGESIZE);
  /* in the mapping, which starts up to a page before the data */
  goffset end = (upto + (input->data - (const char *) input->map)) / page * page;

  if (input->map == NULL || end - input->released < RELEASE_STEP)
    return;
  madvise ((char *) input->map + input->released, end - input->released, MADV_DONTNEED);
  input->released = end;
}

/**
 * input_sha256:
 *
 * Hashes the mbox text with pread() into a small buffer, not through the
 * mapping, so that it adds nothing to the resident set and may run on
 * another thread while the mapping is being read and released.  Nettle's
 * SHA-256 uses the CPU's SHA instructions, several times GLib's GChecksum
 * (a re-ingest hashes before anything else).
 *
 * Returns: (transfer full): the SHA-256 of the mbox text in hex, or %NULL
 *   on a read error
 */
static char *
digest_hex (struct sha256_ctx *sum)
{
  uint8_t digest[SHA256_DIGEST_SIZE];
  char *hex = g_malloc (2 * SHA256_DIGEST_SIZE + 1);

  sha256_digest (sum, SHA256_DIGEST_SIZE, digest);
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
    g_snprintf (hex + 2 * i, 3, "%02x", digest[i]);
  return hex;
}

/* Adds bytes [from, to) of the mbox text to @sum; FALSE on a read error.
 * A small file read whole (read_range()) is hashed from the bytes held,
 * not read again (one that came up short is a read error, as pread()
 * makes it); any other from the file, through *@buf (CHUNK bytes,
 * allocated at its first use). */
static gboolean
hash_range (const Input *input, struct sha256_ctx *sum, goffset from, goffset to, guchar **buf)
{
  if (input->copy != NULL)
    {
      if (input->short_read)
        return FALSE;
      sha256_update (sum, to - from, (const uint8_t *) input->copy + from);
      return TRUE;
    }
  for (goffset off = from; off < to;)
    {
      ssize_t n;

      if (*buf == NULL)
        *buf = g_malloc (CHUNK);
      n = pread (input->fd, *buf, MIN ((goffset) CHUNK, to - off), input->base + off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      sha256_update (sum, n, *buf);
      off += n;
    }
  return TRUE;
}

char *
input_sha256 (const Input *input)
{
  struct sha256_ctx sum;
  g_autofree guchar *buf = NULL;

  sha256_init (&sum);
  return hash_range (input, &sum, 0, input->len, &buf) ? digest_hex (&sum) : NULL;
}

/**
 * input_sha256_prefix:
 * @len: how much of the start to hash (at most the input's length)
 * @whole: (out) (transfer full): the hash of all of it, in the same pass
 *
 * For a file that grew at its end: whether its start is what was
 * ingested, and its new hash, reading it once.
 *
 * Returns: (transfer full) (nullable): the SHA-256 of the first @len
 *   bytes, or %NULL on a read error (and *whole %NULL)
 */
char *
input_sha256_prefix (const Input *input, gsize len, char **whole)
{
  struct sha256_ctx sum, start;
  g_autofree guchar *buf = NULL;

  *whole = NULL;
  len = MIN (len, input->len);
  sha256_init (&sum);
  if (!hash_range (input, &sum, 0, (goffset) len, &buf))
    return NULL;
  start = sum;
  if (!hash_range (input, &sum, (goffset) len, (goffset) input->len, &buf))
    return NULL;
  *whole = digest_hex (&sum);
  return digest_hex (&start);
}

void
input_free (Input *input)
{
  if (input == NULL)
    return;
  if (input->map)
    {
      unguard (input->map);
      munmap (input->map, input->map_len);
    }
  g_free (input->copy);
  if (input->fd >= 0)
    close (input->fd);
  if (input->starts)
    g_array_unref (input->starts);
  g_free (input->format);
  g_free (input);
}
