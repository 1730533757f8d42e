/* parsers-private.h — helpers shared inside parsers/, not part of its API.
 *
 * Everything here works on byte spans (pointer + length) and never on
 * NUL-terminated strings, because mbox lines may hold NUL bytes and are
 * not terminated in the mapped archive.
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* Bytes are compared as ASCII; raw 8-bit bytes are never letters here. */
static inline gboolean
_deja_is_space (char c)
{
  return c == ' ' || c == '\t';
}

static inline gboolean
_deja_is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static inline gboolean
_deja_is_alpha (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A token: a run of bytes without spaces or tabs. */
typedef struct {
  const char *p;
  gsize len;
} DejaToken;

/* Splits [s, s+len) on spaces and tabs into at most max tokens; returns
 * how many were found (possibly more than max: the rest are not stored). */
gsize _deja_tokenize (const char *s, gsize len, DejaToken *tokens, gsize max);

/* Case-insensitive comparison of a span with a NUL-terminated ASCII word. */
gboolean _deja_span_equal (const char *s, gsize len, const char *word);

/* 1–12 for an English month name or its three-letter abbreviation, else 0. */
int _deja_month_from_name (const char *s, gsize len);

/* 0–6 (Sunday = 0) for an English weekday name or abbreviation, else -1. */
int _deja_weekday_from_name (const char *s, gsize len);

/* Parses hh:mm or hh:mm:ss (one- or two-digit hour).  Returns FALSE when
 * the span is not exactly a time of day. */
gboolean _deja_parse_time (const char *s, gsize len, int *h, int *m, int *sec);

/* Parses a time zone token: +hhmm, -hhmm, +hh:mm, or a name from the
 * table in date.c (UT, GMT, EST, MET, …).  *minutes is the offset east of
 * UTC.  Returns FALSE when the token is not a zone. */
gboolean _deja_parse_zone (const char *s, gsize len, int *minutes);

/* Removes leading and trailing spaces, tabs, CRs and LFs from a span. */
void _deja_span_trim (const char **s, gsize *len);

/* A line of a text being read (binary.c, undeclared.c). */
typedef struct {
  const char *p;
  gsize len;     /* without the newline, trailing CRs and spaces */
  gsize next;    /* offset of the following line */
} DejaLine;

/* The line of @text at @offset; FALSE at its end. */
static inline gboolean
_deja_line_at (const GString *text, gsize offset, DejaLine *line)
{
  const char *start = text->str + offset, *nl;

  if (offset >= text->len)
    return FALSE;
  nl = (const char *) memchr (start, '\n', text->len - offset);
  line->p = start;
  line->len = nl ? (gsize) (nl - start) : text->len - offset;
  line->next = offset + line->len + (nl != NULL);
  while (line->len > 0 && (line->p[line->len - 1] == '\r' || line->p[line->len - 1] == ' '))
    line->len--;
  return TRUE;
}

G_END_DECLS
