/* standalone.c — runs a fuzz target without libFuzzer (as libvips does).
 *
 *   fuzz-TARGET FILE|DIR...
 *
 * feeds each file (each file of each directory, recursively) to
 * LLVMFuzzerTestOneInput once.  Every normal build links the targets with
 * this main, and `meson test` replays fixtures/ and fuzz/corpus/ through
 * them, so that a crash found by fuzzing stays fixed.
 */
#include "fuzz.h"

#include <glib.h>
#include <stdio.h>

static guint
run_path (const char *path)
{
  guint n = 0;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          n += run_path (child);
        }
      return n;
    }
  {
    g_autofree char *data = NULL;
    gsize len;

    if (!g_file_get_contents (path, &data, &len, NULL))
      return 0;
    LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  }
  return 1;
}

int
main (int argc, char **argv)
{
  guint n = 0;

  for (int i = 1; i < argc; i++)
    n += run_path (argv[i]);
  printf ("%u inputs\n", n);
  return n > 0 ? 0 : 1;
}
