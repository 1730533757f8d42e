/* binary.c — uuencoded and yEnc binaries inside plain-text bodies.
 *
 * Usenet carried files as text: uuencode ("begin 644 name" … "end"),
 * its base64 form ("begin-base64 644 name" … "===="), and yEnc
 * ("=ybegin … name=" … "=yend").  Posts split across several messages
 * carry uuencoded lines with no "begin" at all, so a run of lines that
 * can only be uuencoded data counts too.  Such data is not text: it is
 * cut out and recorded as an attachment (name and decoded size).
 */
#include "text.h"
#include "parsers-private.h"

#include <stdlib.h>
#include <string.h>

/* A run of bare uuencoded lines this long is data, not prose: a full
 * line is exactly 61 characters from ' ' to '`', no lower case. */
#define UU_RUN_MIN 8

static gboolean
has_prefix (const DejaLine *line, const char *prefix)
{
  gsize n = strlen (prefix);

  return line->len >= n && memcmp (line->p, prefix, n) == 0;
}

static gboolean
line_is (const DejaLine *line, const char *word)
{
  return line->len == strlen (word) && memcmp (line->p, word, line->len) == 0;
}

/* Bytes a uuencoded data line stands for, or -1 when it is not one. */
static int
uu_line_bytes (const DejaLine *line)
{
  int n;
  gsize expected;

  if (line->len == 0 || line->p[0] < ' ' || line->p[0] > '`')
    return -1;
  n = (line->p[0] - ' ') & 63;
  expected = 1 + (gsize) ((n + 2) / 3) * 4;
  /* Trailing spaces were trimmed: padding may be shorter, not longer. */
  if (line->len > expected + 1 || (n > 0 && line->len + 2 < expected))
    return -1;
  for (gsize i = 0; i < line->len; i++)
    if (line->p[i] < ' ' || line->p[i] > '`')
      return -1;
  return n;
}

/* "begin 644 name": the name, or NULL when @line is no such header. */
static char *
uu_begin_name (const DejaLine *line, gboolean *base64)
{
  gsize i;

  *base64 = has_prefix (line, "begin-base64 ");
  if (!*base64 && !has_prefix (line, "begin "))
    return NULL;
  i = *base64 ? 13 : 6;
  if (i + 3 > line->len || !g_ascii_isdigit (line->p[i]))
    return NULL;
  while (i < line->len && line->p[i] >= '0' && line->p[i] <= '7')
    i++;
  if (i >= line->len || line->p[i] != ' ')
    return NULL;
  return g_strndup (line->p + i + 1, line->len - i - 1);
}

/* A yEnc header parameter ("size=123"), or NULL. */
static char *
yenc_param (const DejaLine *line, const char *key)
{
  g_autofree char *copy = g_strndup (line->p, line->len);
  g_autofree char *pattern = g_strdup_printf (" %s=", key);
  const char *at = strstr (copy, pattern), *end;

  if (at == NULL)
    return NULL;
  at += strlen (pattern);
  if (strcmp (key, "name") == 0)   /* the name runs to the end of the line */
    return g_strdup (at);
  end = strchr (at, ' ');
  return g_strndup (at, end ? (gsize) (end - at) : strlen (at));
}

/* Skips a begin…end block from @offset; returns the offset after it. */
static gsize
skip_uu_block (const GString *text, gsize offset, gboolean base64, gint64 *size)
{
  DejaLine line;

  *size = 0;
  while (_deja_line_at (text, offset, &line))
    {
      offset = line.next;
      if (base64 ? line_is (&line, "====") : line_is (&line, "end"))
        break;
      if (base64)
        *size += line.len * 3 / 4;
      else
        *size += MAX (uu_line_bytes (&line), 0);
    }
  return offset;
}

static gsize
skip_yenc_block (const GString *text, gsize offset)
{
  DejaLine line;

  while (_deja_line_at (text, offset, &line))
    {
      offset = line.next;
      if (has_prefix (&line, "=yend"))
        break;
    }
  return offset;
}

/* Length of a run of bare uuencoded lines at @offset (0 when too short);
 * *@scanned is where the uu-shaped lines end either way.  A run that is
 * too short from its first line is too short from any later line too
 * (it ends at the same place with fewer full lines), so the caller does
 * not look for one again before *@scanned: the scan stays linear. */
static gsize
uu_run (const GString *text, gsize offset, gint64 *size, gsize *scanned)
{
  DejaLine line;
  gsize start = offset, full = 0;

  *size = 0;
  while (_deja_line_at (text, offset, &line))
    {
      int n = uu_line_bytes (&line);

      if (n <= 0)
        break;
      full += n == 45;
      *size += n;
      offset = line.next;
    }
  *scanned = offset;
  return full >= UU_RUN_MIN ? offset - start : 0;
}

/* Cuts binary data from @text (in place); adds one attachment per file. */
TextFlags
binary_strip (GString *text, GPtrArray *attachments)
{
  GString *kept = NULL;
  TextFlags flags = 0;
  gsize offset = 0, copied = 0, no_run_until = 0;
  DejaLine line;

  while (_deja_line_at (text, offset, &line))
    {
      gboolean base64;
      g_autofree char *name = uu_begin_name (&line, &base64);
      gint64 size = 0;
      gsize end = 0, run;

      if (name != NULL)
        {
          end = skip_uu_block (text, line.next, base64, &size);
          g_ptr_array_add (attachments, text_attachment_new ("application/octet-stream", name, size,
                                                             "uuencode"));
          flags |= TEXT_FLAG_UUENCODE;
        }
      else if (has_prefix (&line, "=ybegin "))
        {
          g_autofree char *yname = yenc_param (&line, "name");
          g_autofree char *ysize = yenc_param (&line, "size");

          end = skip_yenc_block (text, line.next);
          g_ptr_array_add (attachments,
                           text_attachment_new ("application/octet-stream", yname,
                                                ysize ? g_ascii_strtoll (ysize, NULL, 10) : 0,
                                                "yenc"));
          flags |= TEXT_FLAG_YENC;
        }
      else if (offset >= no_run_until &&
               (run = uu_run (text, offset, &size, &no_run_until)) > 0)
        {
          end = offset + run;
          g_ptr_array_add (attachments, text_attachment_new ("application/octet-stream", NULL, size,
                                                             "uuencode"));
          flags |= TEXT_FLAG_UUENCODE;
        }
      if (end == 0)
        {
          offset = line.next;
          continue;
        }
      if (kept == NULL)
        kept = g_string_sized_new (text->len);
      g_string_append_len (kept, text->str + copied, offset - copied);
      offset = copied = end;
    }
  if (kept != NULL)
    {
      g_string_append_len (kept, text->str + copied, text->len - copied);
      g_string_truncate (text, 0);
      g_string_append_len (text, kept->str, kept->len);
      g_string_free (kept, TRUE);
    }
  return flags;
}
