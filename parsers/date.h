/* date.h — dates as old archives write them, read into ISO 8601 UTC. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DATE_FLAG_NONE           = 0,
  DATE_FLAG_NO_ZONE        = 1 << 0, /* no zone given: read as UTC */
  DATE_FLAG_UNKNOWN_ZONE   = 1 << 1, /* a zone name deja does not know: read as UTC */
  DATE_FLAG_DAY_ONLY       = 1 << 2, /* the source gives a day, no time */
  DATE_FLAG_TWO_DIGIT_YEAR = 1 << 3, /* year widened per RFC 5322 §4.3 */
  DATE_FLAG_BAD_ZONE       = 1 << 4, /* a zone that is no zone ("+50579034"): read as UTC */
} DateFlags;

typedef struct {
  int year, month, day;       /* civil date as written */
  int hour, minute, second;   /* local time as written; 0 when DAY_ONLY */
  int zone_minutes;           /* offset east of UTC */
  DateFlags flags;
} DateValue;

gboolean date_parse (const char *s, gsize len, DateValue *out);
char *date_value_to_iso8601 (const DateValue *value);
char *date_to_iso8601 (const char *s, gsize len, DateFlags *flags);
gboolean date_iso8601_read (const char *iso, DateValue *out);
gint64 date_iso8601_seconds (const char *iso);

G_END_DECLS
