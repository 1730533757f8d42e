/* row.h — one named value of a result row, as the output writers take it.
 *
 * The store hands rows to field-name-driven output (export, search, stats,
 * the thread report) as arrays of these; the writers in output.c format
 * them without knowing where they came from.  Values are borrowed: valid
 * only during the callback that receives them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;
  const char *text;       /* NULL for SQL NULL */
  gboolean number;        /* an integer or a real: written unquoted */
} RowValue;

/* A text value and a number value, for rows built by hand. */
#define ROW_TEXT(n, t) ((RowValue) { .name = (n), .text = (t), .number = FALSE })
#define ROW_NUMBER(n, t) ((RowValue) { .name = (n), .text = (t), .number = TRUE })

G_END_DECLS
