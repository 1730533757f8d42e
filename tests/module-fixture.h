/* module-fixture.h — the table tests/module-fixture.c exports twice. */
#pragma once

typedef struct {
  const char *version;     /* first, as util/module.c reads it */
  int (*answer) (void);
} FixtureTable;
