/* module.c — code that few commands need, loaded when one needs it.
 *
 * Every process loads every library its executable links before main()
 * runs, with the libraries those link: libpq (Kerberos, LDAP, GnuTLS),
 * libgit2 (mbed TLS, libssh2) and igraph (BLAS, LAPACK, GLPK, gfortran)
 * brought 37 of deja's 94 and 17 ms of each command's 27 ms, which a
 * team ingesting a thousand small shards paid a thousand times for a
 * PostgreSQL reader, a git reader and a graph library it never used.
 * The code that needs them is built as a module of its own (meson's
 * shared_module()) exporting one table of functions, and loaded the
 * first time a command calls it (GModule: dlopen()).
 *
 * Which file: the one in the build tree when the running deja is the
 * build tree's (tests, and the README's way of running it), else the
 * one of that name in DEJA_MODULE_DIR, where meson installs them; never a
 * path from the environment or the command line.
 * A module of another build (its version differs) is refused.
 */
#include "module.h"

#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (deja-module-error-quark, deja_module_error)

#if !defined (DEJA_BUILD_ROOT) || !defined (DEJA_MODULE_DIR)
#error "DEJA_BUILD_ROOT (meson.project_build_root()) and DEJA_MODULE_DIR (where modules are installed)"
#endif

/* Whether this process is a deja of the build tree: its executable is
 * under DEJA_BUILD_ROOT (both without symbolic links). */
static gboolean
running_built (void)
{
  static gsize done;
  static gboolean built;

  if (g_once_init_enter (&done))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      char *root = realpath (DEJA_BUILD_ROOT, NULL);
      gsize n = root ? strlen (root) : 0;

      built = exe && root && strncmp (exe, root, n) == 0 && exe[n] == '/';
      free (root);
      g_once_init_leave (&done, 1);
    }
  return built;
}

/* The file deja_module_table() loads for @module (transfer full). */
char *
deja_module_path (const DejaModule *module)
{
  g_autofree char *name = NULL;

  if (running_built ())
    return g_strdup (module->built);
  name = g_path_get_basename (module->built);
  return g_build_filename (DEJA_MODULE_DIR, name, NULL);
}

static char *
load (DejaModule *m)
{
  g_autofree char *path = deja_module_path (m);
  GModule *module = g_module_open (path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  gpointer table = NULL;

  if (module == NULL)
    return g_strdup_printf ("%s needs %s, which cannot be loaded: %s", m->what, path, g_module_error ());
  if (!g_module_symbol (module, m->symbol, &table) || table == NULL)
    {
      char *why = g_strdup_printf ("%s needs %s, which is not deja's module (no %s)", m->what, path,
                                   m->symbol);

      g_module_close (module);
      return why;
    }
  /* every table begins with the version it was built as */
  if (strcmp (*(const char *const *) table, PACKAGE_VERSION) != 0)
    {
      char *why = g_strdup_printf ("%s needs %s of deja %s, and that one is of deja %s", m->what, path,
                                   PACKAGE_VERSION, *(const char *const *) table);

      g_module_close (module);
      return why;
    }
  g_module_make_resident (module);
  m->table = table;
  return NULL;
}

/**
 * deja_module_table:
 * @module: a module (DEJA_MODULE_INIT()), which keeps what is found
 *
 * Loads @module the first time (any thread), then gives what it gave.
 *
 * Returns: (transfer none) (nullable): its table of functions, or %NULL
 *   with @error (DEJA_MODULE_ERROR) saying which file and why
 */
gconstpointer
deja_module_table (DejaModule *module, GError **error)
{
  if (g_once_init_enter (&module->done))
    {
      module->why = load (module);
      g_once_init_leave (&module->done, 1);
    }
  if (module->table == NULL)
    g_set_error_literal (error, DEJA_MODULE_ERROR, DEJA_MODULE_ERROR_LOAD, module->why);
  return module->table;
}

/**
 * deja_module_problem:
 *
 * Loads @module if not yet (deja --version checks each one this way).
 *
 * Returns: (transfer full) (nullable): why it cannot be used, or %NULL
 */
char *
deja_module_problem (DejaModule *module)
{
  g_autoptr (GError) error = NULL;

  return deja_module_table (module, &error) ? NULL : g_strdup (error->message);
}
