/* excerpt.h — lines of an archive around a line, for a person to judge. */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

void excerpt_print (FILE *out, const char *path, goffset offset, guint64 line_no, int context);

G_END_DECLS
