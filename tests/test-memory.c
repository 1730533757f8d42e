/* test-memory.c — src/cli/memory.c: the allocator settings the deja
 * executable runs with.  Built where mimalloc is (tests/meson.build). */
#include <mimalloc.h>

#include "deja.h"

/* mimalloc keeps what is freed for a second before giving it back, where
 * its 25 ms made an ingest fault its batches' pages in again and again */
static void
test_decommit_delay (void)
{
  g_unsetenv ("MIMALLOC_DECOMMIT_DELAY");
  mi_option_set (mi_option_decommit_delay, 25);
  deja_memory_tune ();
  g_assert_cmpint (mi_option_get (mi_option_decommit_delay), ==, 1000);

  /* what the user's environment says stays (mimalloc read it at start) */
  g_setenv ("MIMALLOC_DECOMMIT_DELAY", "7", TRUE);
  mi_option_set (mi_option_decommit_delay, 7);
  deja_memory_tune ();
  g_assert_cmpint (mi_option_get (mi_option_decommit_delay), ==, 7);
}

/* the executable's malloc is mimalloc's (deja --version says so) */
static void
test_malloc_is_mimalloc (void)
{
  g_assert_true (deja_memory_mimalloc ());
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/decommit-delay", test_decommit_delay);
  g_test_add_func ("/memory/malloc-is-mimalloc", test_malloc_is_mimalloc);
  return g_test_run ();
}
