/* rows.h — one writer for every command that prints rows.
 *
 * The four formats every such command takes (--format table|tsv|csv|json):
 * an aligned table for people, TSV (with output.c's escapes) and CSV
 * (RFC 4180) with a header row, and JSON as one array of objects, the
 * same shape whatever the command.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "row.h"

G_BEGIN_DECLS

typedef enum {
  ROW_FORMAT_TABLE,
  ROW_FORMAT_TSV,
  ROW_FORMAT_CSV,
  ROW_FORMAT_JSON,
} RowFormat;

#define ROW_FORMAT_NAMES "table|tsv|csv|json"

gboolean row_format_parse (const char *text, RowFormat fallback, RowFormat *format);
const char *row_get (const RowValue *values, guint n, const char *name);
const RowValue *row_find (const RowValue *values, guint n, const char *name);

/* A row kept beyond its callback (rows from several databases, merged):
 * its names and texts are its own. */
typedef struct {
  guint n;
  RowValue *values;
} RowCopy;

RowCopy *row_copy_new (const RowValue *values, guint n, const char *extra_name,
                       const char *extra_text);
void row_copy_free (RowCopy *row);

typedef struct _RowWriter RowWriter;

RowWriter *row_writer_new (RowFormat format, FILE *out);
void row_writer_add (RowWriter *writer, const RowValue *values, guint n);
gboolean row_writer_add_func (const RowValue *values, guint n, gpointer writer);
guint64 row_writer_rows (const RowWriter *writer);
void row_writer_finish (RowWriter *writer);

G_END_DECLS
