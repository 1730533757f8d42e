/* module.h — code that few commands need, loaded when one needs it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DEJA_MODULE_ERROR (deja_module_error_quark ())
GQuark deja_module_error_quark (void);

typedef enum {
  DEJA_MODULE_ERROR_LOAD,  /* missing, unreadable, not deja's, or of another build */
} DejaModuleError;

/* One loadable module: a shared object built with deja whose one
 * exported symbol is a table of functions (its first member the
 * PACKAGE_VERSION it was built as).  Declared static by the layer that
 * uses it; loaded once, by deja_module_table(). */
typedef struct {
  const char *what;        /* for messages: "reading PostgreSQL (libpq)" */
  const char *built;       /* its path in the build tree; installed, its name in DEJA_MODULE_DIR */
  const char *symbol;      /* its table's name */
  /* < private > */
  gsize done;
  gconstpointer table;
  char *why;
} DejaModule;

#define DEJA_MODULE_INIT(what, built, symbol) { what, built, symbol, 0, NULL, NULL }

gconstpointer deja_module_table (DejaModule *module, GError **error);
char *deja_module_path (const DejaModule *module);
char *deja_module_problem (DejaModule *module);

G_END_DECLS
