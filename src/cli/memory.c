/* memory.c — the allocator deja's executable runs with.
 *
 * Built with mimalloc (meson_options.txt), the executable's malloc and
 * free are mimalloc's, for every library it calls (SQLite, GMime, GLib,
 * ICU, CLD2): Debian's SQLite is built without its lookaside allocator,
 * so each row's values are malloc()ed and freed, on every thread, and
 * glibc's arenas cost 3-6 % of an ingest and of a catalog where
 * mimalloc's per-thread pages do not (bench/README.md).  Without it,
 * glibc's malloc is told to keep some slack. */
#include "deja.h"

#if DEJA_HAVE_MIMALLOC
#include <mimalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

/* Decoding a message allocates and frees many small blocks on every
 * thread; glibc's default is to give the top of the heap back to the
 * kernel at each free, and the page faults and TLB shootdowns that follow
 * cost a fifth of an ingest.  Keep a little slack instead.
 *
 * mimalloc gives freed memory back 25 ms after (its decommit delay), and
 * an ingest frees and takes again its batches' memory all the time: each
 * page given back is a page fault when it is taken again, and on a
 * virtual machine whose host takes back what its guest frees, 10 us or
 * more (bench/host.py).  A second keeps what a pipeline takes again and
 * still gives back what a step is done with (twisted-python's ingest:
 * 89,744 page faults, 54,716 with it).  MIMALLOC_DECOMMIT_DELAY, when
 * set, still says otherwise. */
void
deja_memory_tune (void)
{
#if DEJA_HAVE_MIMALLOC
  if (g_getenv ("MIMALLOC_DECOMMIT_DELAY") == NULL)
    mi_option_set (mi_option_decommit_delay, 1000);
#elif defined(__GLIBC__)
  mallopt (M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  mallopt (M_TOP_PAD, 16 * 1024 * 1024);
#endif
}

/* What was freed goes back to the system, before a step that allocates
 * its own: the two peaks do not add up. */
void
deja_memory_release (void)
{
#if DEJA_HAVE_MIMALLOC
  mi_collect (TRUE);
#elif defined(__GLIBC__)
  malloc_trim (0);
#endif
}

/* Whether malloc() is mimalloc's: linked, and first (a block calloc()
 * hands out is in mimalloc's heap), for deja --version. */
gboolean
deja_memory_mimalloc (void)
{
#if DEJA_HAVE_MIMALLOC
  void *block = calloc (1, 64);
  gboolean ours = block != NULL && mi_is_in_heap_region (block);

  free (block);
  return ours;
#else
  return FALSE;
#endif
}
