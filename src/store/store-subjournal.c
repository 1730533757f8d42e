/* store-subjournal.c — statement journals in memory, up to a bound.
 *
 * Every file after the first of an ingest's transaction is written inside
 * a savepoint of its own (store_begin_file()), so that one that fails is
 * undone alone.  Before a page that existed at the savepoint is changed,
 * SQLite copies it to the statement journal, a temporary file: about 19
 * pages of 64 KiB for a file of one message, the last page of every table
 * and index it adds to.  SQLite keeps that journal in memory only up to
 * SQLITE_CONFIG_STMTJRNL_SPILL, in chunks of that size (1 KiB when kept
 * in memory whatever its size) that it frees at each RELEASE, and writes
 * it to a file beyond: for a Maildir that was a write() of 64 KiB into
 * the page cache for every page of every file, a third of the writer's
 * time (perf, 30,442 files).  Larger chunks were slower still (a 32 MiB
 * chunk mapped and unmapped for each file: 21 s against 7.5) and made
 * SQLite 3.40 fail the copy of the full-text index with "database or
 * disk is full".
 *
 * So deja's connections open files through a VFS of its own, which is
 * the default one ("unix") for everything but the statement journal:
 * that one is a single buffer, grown as SQLite writes to it and kept for
 * the next savepoint (SQLite writes a journal it does not know to be in
 * memory from its start again, and closes it with the connection), up to
 * STORE_SUBJOURNAL_MEMORY.  A journal that grows beyond (a large file's
 * rows changing pages all over the indexes) goes to a temporary file
 * through the default VFS, as before, for the rest of its life.  The
 * journal holds nothing a crash needs: SQLite's own in-memory journals
 * (PRAGMA temp_store = MEMORY) are the same thing.
 */
#include "store-private.h"

#include <string.h>

#define STORE_SUBJOURNAL_MEMORY (8 * 1024 * 1024)
#define SPILL_PIECE (64 * 1024)

typedef struct {
  sqlite3_file base;
  unsigned char *data;
  sqlite3_int64 size;        /* the journal's length */
  sqlite3_int64 allocated;
  int flags;                 /* as opened, for the file it may go to */
  sqlite3_file *spilled;     /* that file, once opened */
} SubJournal;

static sqlite3_vfs *os_vfs;   /* the default VFS, which does the rest */
static sqlite3_int64 memory_bound = STORE_SUBJOURNAL_MEMORY;
static gint opened, spilled;

static int
sub_close (sqlite3_file *file)
{
  SubJournal *j = (SubJournal *) file;
  int rc = SQLITE_OK;

  if (j->spilled)
    {
      rc = j->spilled->pMethods ? j->spilled->pMethods->xClose (j->spilled) : SQLITE_OK;
      sqlite3_free (j->spilled);
    }
  sqlite3_free (j->data);
  memset (j, 0, sizeof *j);
  return rc;
}

static int
sub_read (sqlite3_file *file, void *buf, int amount, sqlite3_int64 offset)
{
  SubJournal *j = (SubJournal *) file;
  sqlite3_int64 have;

  if (j->spilled)
    return j->spilled->pMethods->xRead (j->spilled, buf, amount, offset);
  have = offset >= j->size ? 0 : MIN ((sqlite3_int64) amount, j->size - offset);
  if (have > 0)
    memcpy (buf, j->data + offset, have);
  if (have == amount)
    return SQLITE_OK;
  /* (SQLite's rule for a short read: the rest is zeroes) */
  memset ((unsigned char *) buf + MAX (have, 0), 0, amount - MAX (have, 0));
  return SQLITE_IOERR_SHORT_READ;
}

/* The journal to a temporary file of the default VFS, where it goes on. */
static int
spill (SubJournal *j)
{
  sqlite3_file *real = sqlite3_malloc (os_vfs->szOsFile);
  int rc;

  if (real == NULL)
    return SQLITE_IOERR_NOMEM;
  memset (real, 0, os_vfs->szOsFile);
  rc = os_vfs->xOpen (os_vfs, NULL, real, j->flags, NULL);
  /* in pieces: the unix VFS writes at most 128 KiB - 1 at a time (a
   * longer write is cut to its length modulo 128 KiB, and one of a
   * multiple of 128 KiB fails as a full disk) */
  for (sqlite3_int64 at = 0; rc == SQLITE_OK && at < j->size; at += SPILL_PIECE)
    rc = real->pMethods->xWrite (real, j->data + at, (int) MIN (SPILL_PIECE, j->size - at), at);
  if (rc != SQLITE_OK)
    {
      if (real->pMethods)
        real->pMethods->xClose (real);
      sqlite3_free (real);
      return rc;
    }
  j->spilled = real;
  sqlite3_free (j->data);
  j->data = NULL;
  j->allocated = 0;
  g_atomic_int_inc (&spilled);
  return SQLITE_OK;
}

static int
sub_write (sqlite3_file *file, const void *buf, int amount, sqlite3_int64 offset)
{
  SubJournal *j = (SubJournal *) file;
  sqlite3_int64 end = offset + amount;

  if (j->spilled == NULL && end > j->allocated)
    {
      sqlite3_int64 want = MAX (j->allocated * 2, 1024 * 1024);
      unsigned char *grown = NULL;

      while (want < end)
        want *= 2;
      if (end <= memory_bound)
        grown = sqlite3_realloc64 (j->data, MIN (want, memory_bound));
      if (grown == NULL)
        {
          /* beyond the bound, or no memory: the rest on disk */
          int rc = spill (j);

          if (rc != SQLITE_OK)
            return rc;
        }
      else
        {
          j->data = grown;
          j->allocated = MIN (want, memory_bound);
        }
    }
  if (j->spilled)
    return j->spilled->pMethods->xWrite (j->spilled, buf, amount, offset);
  if (offset > j->size)
    memset (j->data + j->size, 0, offset - j->size);
  memcpy (j->data + offset, buf, amount);
  j->size = MAX (j->size, end);
  return SQLITE_OK;
}

static int
sub_truncate (sqlite3_file *file, sqlite3_int64 size)
{
  SubJournal *j = (SubJournal *) file;

  if (j->spilled)
    return j->spilled->pMethods->xTruncate (j->spilled, size);
  j->size = MIN (j->size, size);
  return SQLITE_OK;
}

static int
sub_sync (sqlite3_file *file, int flags)
{
  SubJournal *j = (SubJournal *) file;

  return j->spilled ? j->spilled->pMethods->xSync (j->spilled, flags) : SQLITE_OK;
}

static int
sub_file_size (sqlite3_file *file, sqlite3_int64 *size)
{
  SubJournal *j = (SubJournal *) file;

  if (j->spilled)
    return j->spilled->pMethods->xFileSize (j->spilled, size);
  *size = j->size;
  return SQLITE_OK;
}

/* A journal is its connection's alone: no locks */
static int
sub_lock (sqlite3_file *file, int level)
{
  (void) file;
  (void) level;
  return SQLITE_OK;
}

static int
sub_check_reserved (sqlite3_file *file, int *reserved)
{
  (void) file;
  *reserved = 0;
  return SQLITE_OK;
}

static int
sub_file_control (sqlite3_file *file, int op, void *arg)
{
  SubJournal *j = (SubJournal *) file;

  return j->spilled ? j->spilled->pMethods->xFileControl (j->spilled, op, arg) : SQLITE_NOTFOUND;
}

static int
sub_sector_size (sqlite3_file *file)
{
  (void) file;
  return 4096;
}

static int
sub_device_characteristics (sqlite3_file *file)
{
  (void) file;
  return 0;
}

static const sqlite3_io_methods sub_methods = {
  .iVersion = 1,
  .xClose = sub_close,
  .xRead = sub_read,
  .xWrite = sub_write,
  .xTruncate = sub_truncate,
  .xSync = sub_sync,
  .xFileSize = sub_file_size,
  .xLock = sub_lock,
  .xUnlock = sub_lock,
  .xCheckReservedLock = sub_check_reserved,
  .xFileControl = sub_file_control,
  .xSectorSize = sub_sector_size,
  .xDeviceCharacteristics = sub_device_characteristics,
};

static int
vfs_open (sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags)
{
  SubJournal *j = (SubJournal *) file;

  (void) vfs;
  if ((flags & SQLITE_OPEN_SUBJOURNAL) == 0)
    return os_vfs->xOpen (os_vfs, name, file, flags, out_flags);
  memset (j, 0, sizeof *j);
  j->base.pMethods = &sub_methods;
  j->flags = flags;
  if (out_flags)
    *out_flags = flags;
  g_atomic_int_inc (&opened);
  return SQLITE_OK;
}

/* Everything else is the default VFS's, called with itself. */
static int
vfs_delete (sqlite3_vfs *vfs, const char *name, int sync)
{
  (void) vfs;
  return os_vfs->xDelete (os_vfs, name, sync);
}

static int
vfs_access (sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
  (void) vfs;
  return os_vfs->xAccess (os_vfs, name, flags, out);
}

static int
vfs_full_pathname (sqlite3_vfs *vfs, const char *name, int n, char *out)
{
  (void) vfs;
  return os_vfs->xFullPathname (os_vfs, name, n, out);
}

static void *
vfs_dl_open (sqlite3_vfs *vfs, const char *name)
{
  (void) vfs;
  return os_vfs->xDlOpen (os_vfs, name);
}

static void
vfs_dl_error (sqlite3_vfs *vfs, int n, char *out)
{
  (void) vfs;
  os_vfs->xDlError (os_vfs, n, out);
}

static void (*vfs_dl_sym (sqlite3_vfs *vfs, void *handle, const char *symbol)) (void)
{
  (void) vfs;
  return os_vfs->xDlSym (os_vfs, handle, symbol);
}

static void
vfs_dl_close (sqlite3_vfs *vfs, void *handle)
{
  (void) vfs;
  os_vfs->xDlClose (os_vfs, handle);
}

static int
vfs_randomness (sqlite3_vfs *vfs, int n, char *out)
{
  (void) vfs;
  return os_vfs->xRandomness (os_vfs, n, out);
}

static int
vfs_sleep (sqlite3_vfs *vfs, int microseconds)
{
  (void) vfs;
  return os_vfs->xSleep (os_vfs, microseconds);
}

static int
vfs_current_time (sqlite3_vfs *vfs, double *out)
{
  (void) vfs;
  return os_vfs->xCurrentTime (os_vfs, out);
}

static int
vfs_last_error (sqlite3_vfs *vfs, int n, char *out)
{
  (void) vfs;
  return os_vfs->xGetLastError ? os_vfs->xGetLastError (os_vfs, n, out) : 0;
}

static int
vfs_current_time_int64 (sqlite3_vfs *vfs, sqlite3_int64 *out)
{
  double days;
  int rc;

  (void) vfs;
  if (os_vfs->iVersion >= 2 && os_vfs->xCurrentTimeInt64)
    return os_vfs->xCurrentTimeInt64 (os_vfs, out);
  rc = os_vfs->xCurrentTime (os_vfs, &days);
  *out = (sqlite3_int64) (days * 86400000.0);
  return rc;
}

static sqlite3_vfs deja_vfs = {
  .iVersion = 2,
  .zName = "deja",
  .xOpen = vfs_open,
  .xDelete = vfs_delete,
  .xAccess = vfs_access,
  .xFullPathname = vfs_full_pathname,
  .xDlOpen = vfs_dl_open,
  .xDlError = vfs_dl_error,
  .xDlSym = vfs_dl_sym,
  .xDlClose = vfs_dl_close,
  .xRandomness = vfs_randomness,
  .xSleep = vfs_sleep,
  .xCurrentTime = vfs_current_time,
  .xGetLastError = vfs_last_error,
  .xCurrentTimeInt64 = vfs_current_time_int64,
};

/**
 * _store_subjournal_register:
 *
 * Makes deja's VFS the default one, once, before any connection is
 * opened (open_db()).  Returns: SQLITE_OK, or why it could not be (the
 * connections then keep SQLite's journals).
 */
int
_store_subjournal_register (void)
{
  if (os_vfs != NULL)
    return SQLITE_OK;
  if ((os_vfs = sqlite3_vfs_find (NULL)) == NULL)
    return SQLITE_ERROR;
  deja_vfs.szOsFile = MAX (os_vfs->szOsFile, (int) sizeof (SubJournal));
  deja_vfs.mxPathname = os_vfs->mxPathname;
  return sqlite3_vfs_register (&deja_vfs, 1);
}

/* How many statement journals were opened in memory, and how many of them
 * went to a file (DEJA_STORE_COUNT=1, tests/test-store.c). */
void
_store_subjournal_counts (int *in_memory, int *on_disk)
{
  *in_memory = g_atomic_int_get (&opened);
  *on_disk = g_atomic_int_get (&spilled);
}

/* For tests: the bound past which a journal goes to a file. */
void
_store_subjournal_bound (sqlite3_int64 bytes)
{
  memory_bound = bytes;
}
