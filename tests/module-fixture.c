/* module-fixture.c — a module for tests/test-module.c: one table of
 * this build's version, one of another. */
#include <glib.h>
#include <gmodule.h>

#include "module-fixture.h"

static int
answer (void)
{
  return 42;
}

G_MODULE_EXPORT const FixtureTable deja_fixture_now = { PACKAGE_VERSION, answer };
G_MODULE_EXPORT const FixtureTable deja_fixture_old = { "0.0.1-old", answer };
