/* output.h — writing results: field escaping, and files that appear whole. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "row.h"

G_BEGIN_DECLS

const char *output_valid_utf8 (const char *text, char **owned);
char *output_xml_text (const char *text);
void output_terminal_text (GString *out, const char *text, gboolean lines);
char *output_terminal_copy (const char *text);
void output_csv_set_spreadsheet_safe (gboolean safe);
void output_csv_field (GString *out, const char *text);
void output_tsv_field (GString *out, const char *text);
char *output_tsv_unescape (char *field);
char **output_tsv_fields (char *line);
int output_tsv_column (char **head, const char *name);
void output_json_string (GString *out, const char *text);
void output_json_object (GString *out, const RowValue *values, guint n);
void output_json_number (GString *out, double value);

typedef struct _Output Output;

Output *output_open (const char *path, GError **error);
FILE *output_stream (Output *output);
gboolean output_close (Output *output, gboolean commit, GError **error);

G_END_DECLS
