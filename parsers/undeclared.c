/* undeclared.c — bodies an archive left in a transfer encoding.
 *
 * Mailman's text archives (pipermail) drop a message's headers but a few
 * (From, Date, Subject, Message-ID, References) and keep its body as it
 * came, so a single-part message its sender's mailer wrote in base64 or
 * quoted-printable is archived encoded, with nothing to say so, and a
 * multipart one whole, without the Content-Type naming its boundary.
 * When a text part with no Content-Transfer-Encoding is plainly one such
 * body, it is decoded here, before charset detection reads its bytes;
 * a multipart body's boundary is found here for text.c to read it by.
 */
#include "text.h"
#include "parsers-private.h"

#include <string.h>

/* The shortest line of an undeclared base64 body: encoders write 76
 * (MIME), 72 or 64 (PEM) characters, never fewer than 40. */
#define B64_LINE_MIN 40

static gboolean
is_b64_char (char c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

/* The base64 data lines of @text when it is all one base64 body: blank
 * lines, then lines of one length (a multiple of four, at least
 * B64_LINE_MIN) of the base64 alphabet, the last one as long or shorter
 * and maybe ending in "=" padding, then blank lines only; at least two
 * lines.  Returns the data without newlines, or NULL. */
static GString *
b64_body (const GString *text)
{
  GString *data = NULL;
  gsize offset = 0, width = 0;
  guint lines = 0;
  gboolean ended = FALSE;
  DejaLine line;

  while (_deja_line_at (text, offset, &line) && line.len == 0)
    offset = line.next;
  while (_deja_line_at (text, offset, &line) && line.len > 0 && !ended)
    {
      gsize pad = 0, i = 0;

      while (pad < 2 && pad < line.len && line.p[line.len - 1 - pad] == '=')
        pad++;
      while (i < line.len - pad && is_b64_char (line.p[i]))
        i++;
      if (i != line.len - pad || line.len % 4 != 0 || (width != 0 && line.len > width))
        break;
      if (width == 0)
        width = line.len;
      ended = line.len < width || pad > 0;
      if (data == NULL)
        data = g_string_new (NULL);
      g_string_append_len (data, line.p, line.len);
      lines++;
      offset = line.next;
    }
  while (_deja_line_at (text, offset, &line) && line.len == 0)
    offset = line.next;
  if (data != NULL && (lines < 2 || width < B64_LINE_MIN || offset < text->len))
    {
      g_string_free (data, TRUE);
      data = NULL;
    }
  return data;
}

/* Whether @len decoded bytes read as text in some charset: no NUL, and
 * hardly any control character but white space and ISO-2022's ESC
 * (random bytes have one in ten). */
static gboolean
reads_as_text (const guchar *p, gsize len)
{
  gsize controls = 0;

  for (gsize i = 0; i < len; i++)
    {
      if (p[i] == 0)
        return FALSE;
      controls += p[i] < 0x20 && !g_ascii_isspace (p[i]) && p[i] != 0x1b;
    }
  return controls * 200 <= len;
}

/* Both cases of letters: base64 of text has them, a hex digest not. */
static gboolean
mixed_case (const GString *data)
{
  gboolean upper = FALSE, lower = FALSE;

  for (gsize i = 0; i < data->len && !(upper && lower); i++)
    {
      upper |= g_ascii_isupper (data->str[i]);
      lower |= g_ascii_islower (data->str[i]);
    }
  return upper && lower;
}

/**
 * undeclared_base64:
 * @text: a text part's bytes, no Content-Transfer-Encoding declared
 *
 * Mailman's text archives (pipermail) drop a message's
 * Content-Transfer-Encoding with its other headers, and keep its body as
 * it came: a single-part message sent in base64 is archived as lines of
 * base64.  When all of @text is one such body (b64_body()) and its bytes
 * read as text, @text becomes them (CRLF made LF), for charset detection
 * to read as any undeclared text.  Anything else is left as it is, binary
 * data too (nothing says what it was).
 *
 * Returns: %TEXT_FLAG_BASE64_UNDECLARED when @text was decoded, else 0
 */
TextFlags
undeclared_base64 (GString *text)
{
  g_autoptr (GString) data = b64_body (text);
  gsize len;

  if (data == NULL || !mixed_case (data))
    return 0;
  g_base64_decode_inplace (data->str, &len);
  if (!reads_as_text ((const guchar *) data->str, len))
    return 0;
  g_string_truncate (text, 0);
  for (gsize i = 0; i < len; i++)
    if (!(data->str[i] == '\r' && i + 1 < len && data->str[i + 1] == '\n'))
      g_string_append_c (text, data->str[i]);
  return TEXT_FLAG_BASE64_UNDECLARED;
}

/* Quoted-printable: a line is at most this long, a soft line break's "="
 * included, and encoders break a long line there. */
#define QP_LINE_MAX 76

/* Signs of quoted-printable a body must show before it is decoded: a
 * soft line break at QP_LINE_MAX, "=3D" ("=" itself), an 8-bit byte
 * ("=E9"), a trailing space or tab ("=20" at a line's end). */
#define QP_EVIDENCE_MIN 2

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Whether the whitespace-delimited word of @line around @at is a URL,
 * whose "?id=92" is a query, not an escape. */
static gboolean
in_url (const DejaLine *line, gsize at)
{
  gsize start = at, end = at;

  while (start > 0 && line->p[start - 1] != ' ' && line->p[start - 1] != '\t')
    start--;
  while (end < line->len && line->p[end] != ' ' && line->p[end] != '\t')
    end++;
  return g_strstr_len (line->p + start, end - start, "://") != NULL ||
         (end - start > 4 && memcmp (line->p + start, "www.", 4) == 0);
}

static gboolean
has_line_prefix (const DejaLine *line, const char *prefix)
{
  gsize n = strlen (prefix);

  return line->len >= n && memcmp (line->p, prefix, n) == 0;
}

/* The signs of quoted-printable in @text (QP_EVIDENCE_MIN), or -1 when
 * it cannot be quoted-printable: a line longer than QP_LINE_MAX, or an
 * "=" that is neither an escape of two capital hex digits nor a soft
 * line break.  An OpenPGP armor's lines ("=B5+C", its checksum) are not
 * read. */
static int
qp_evidence (const GString *text)
{
  gsize offset = 0;
  gboolean armor = FALSE;
  int evidence = 0;
  DejaLine line;

  while (_deja_line_at (text, offset, &line))
    {
      offset = line.next;
      if (has_line_prefix (&line, "-----BEGIN PGP "))
        armor = TRUE;
      else if (has_line_prefix (&line, "-----END PGP "))
        armor = FALSE;
      if (armor || line.len == 0 || memchr (line.p, '=', line.len) == NULL)
        {
          if (line.len > QP_LINE_MAX && !armor)
            return -1;
          continue;
        }
      if (line.len > QP_LINE_MAX)
        return -1;
      for (const char *eq = line.p; (eq = memchr (eq, '=', line.p + line.len - eq)) != NULL; eq++)
        {
          gsize at = eq - line.p;
          int hi, lo;

          if (at + 1 == line.len)   /* a soft line break */
            {
              evidence += line.len == QP_LINE_MAX;
              continue;
            }
          if (at + 2 >= line.len)
            return -1;
          hi = hex_value (line.p[at + 1]);
          lo = hex_value (line.p[at + 2]);
          if (hi < 0 || lo < 0)
            return -1;
          if (!in_url (&line, at))
            {
              int v = hi * 16 + lo;

              evidence += v == '=' || v >= 0x80 || ((v == ' ' || v == '\t') && at + 3 == line.len);
            }
          eq += 2;
        }
    }
  return evidence;
}

/* @text decoded as quoted-printable into @out: "=XX" a byte, "=" before
 * the end of a line (spaces allowed between) joins the lines, any other
 * "=" stays. */
static void
qp_decode (const GString *text, GString *out)
{
  const char *p = text->str, *end = text->str + text->len;

  while (p < end)
    {
      const char *eq = memchr (p, '=', end - p);
      const char *after;

      if (eq == NULL)
        {
          g_string_append_len (out, p, end - p);
          break;
        }
      g_string_append_len (out, p, eq - p);
      after = eq + 1;
      while (after < end && (*after == ' ' || *after == '\t' || *after == '\r'))
        after++;
      if (after == end || *after == '\n')
        p = after < end ? after + 1 : end;
      else if (end - eq >= 3 && hex_value (eq[1]) >= 0 && hex_value (eq[2]) >= 0)
        {
          g_string_append_c (out, (char) (hex_value (eq[1]) * 16 + hex_value (eq[2])));
          p = eq + 3;
        }
      else
        {
          g_string_append_c (out, '=');
          p = eq + 1;
        }
    }
}

/**
 * undeclared_qp:
 * @text: a text part's bytes, no Content-Transfer-Encoding declared
 *
 * When @text is plainly quoted-printable (qp_evidence(): every "=" an
 * escape or a soft line break, no line too long, QP_EVIDENCE_MIN signs)
 * and its bytes then read as text, @text becomes them.
 *
 * Returns: %TEXT_FLAG_QP_UNDECLARED when @text was decoded, else 0
 */
TextFlags
undeclared_qp (GString *text)
{
  g_autoptr (GString) out = NULL;

  if (memchr (text->str, '=', text->len) == NULL || qp_evidence (text) < QP_EVIDENCE_MIN)
    return 0;
  out = g_string_sized_new (text->len);
  qp_decode (text, out);
  if (!reads_as_text ((const guchar *) out->str, out->len))
    return 0;
  g_string_truncate (text, 0);
  g_string_append_len (text, out->str, out->len);
  return TEXT_FLAG_QP_UNDECLARED;
}

/* A multipart body's preamble before its first boundary, when there is
 * one: a notice for readers without MIME ("This is a multi-part message
 * in MIME format."), a few lines at most. */
#define PREAMBLE_MAX_LINES 3
#define PREAMBLE_MAX_BYTES 300
#define BOUNDARY_MAX 70   /* RFC 2046 */

/* RFC 2046's bcharsnospace, and the space inside a boundary */
static gboolean
is_bchar (char c)
{
  return g_ascii_isalnum (c) || strchr ("'()+_,-./:=? ", c) != NULL;
}

static gboolean
is_boundary_line (const DejaLine *line)
{
  if (line->len < 3 || line->len > BOUNDARY_MAX + 2 || line->p[0] != '-' || line->p[1] != '-')
    return FALSE;
  for (gsize i = 2; i < line->len; i++)
    if (!is_bchar (line->p[i]))
      return FALSE;
  return TRUE;
}

/**
 * undeclared_multipart_boundary:
 * @text: the body of an entity with no Content-Type and no
 *   Content-Transfer-Encoding
 *
 * Mailman's text archives of before about 2005 kept a multipart
 * message's body whole (its parts, their headers, the signature of a
 * signed one) and dropped the Content-Type that names its boundary.
 * Such a body is plainly multipart when it opens with at most a short
 * preamble naming MIME, then a boundary line "--B" with a "Content-"
 * header line under it, and "--B--" ends it later on a line of its own.
 *
 * Returns: (transfer full) (nullable): B, or %NULL
 */
char *
undeclared_multipart_boundary (const GString *text)
{
  gsize offset = 0, preamble = 0, lines = 0;
  gboolean mime = FALSE;
  DejaLine line, next;
  g_autofree char *end = NULL;

  while (_deja_line_at (text, offset, &line) && !is_boundary_line (&line))
    {
      if (line.len > 0 && ++lines > PREAMBLE_MAX_LINES)
        return NULL;
      mime |= line.len >= 4 && g_strstr_len (line.p, line.len, "MIME") != NULL;
      preamble += line.len;
      offset = line.next;
    }
  if (offset >= text->len || (lines > 0 && (!mime || preamble > PREAMBLE_MAX_BYTES)) ||
      !_deja_line_at (text, line.next, &next) || next.len < 9 ||
      g_ascii_strncasecmp (next.p, "Content-", 8) != 0 || memchr (next.p, ':', next.len) == NULL)
    return NULL;
  end = g_strdup_printf ("%.*s--", (int) line.len, line.p);
  for (offset = next.next; _deja_line_at (text, offset, &next); offset = next.next)
    if (next.len == line.len + 2 && memcmp (next.p, end, next.len) == 0)
      return g_strndup (line.p + 2, line.len - 2);
  return NULL;
}

/* Whether the header block of the part whose boundary line is at @offset
 * says "Content-Type: text/html"; @offset is moved past the block. */
static gboolean
html_part_header (const GString *text, gsize *offset)
{
  gboolean html = FALSE;
  DejaLine line;

  while (_deja_line_at (text, *offset, &line) && line.len > 0)
    {
      static const char type[] = "Content-Type:";
      const char *value = line.p + strlen (type), *end = line.p + line.len;

      if (line.len > strlen (type) && g_ascii_strncasecmp (line.p, type, strlen (type)) == 0)
        {
          while (value < end && (*value == ' ' || *value == '\t'))
            value++;
          html = end - value >= 9 && g_ascii_strncasecmp (value, "text/html", 9) == 0;
        }
      *offset = line.next;
    }
  return html;
}

/**
 * undeclared_alternative_tail:
 * @text: the body of an entity with no Content-Type and no
 *   Content-Transfer-Encoding
 *
 * Mailman split the messages it archived wherever a line began with
 * "From " (pipermail of about 2009-2012): the message after such a line
 * is a fragment, from "bogus@does.not.exist.com", whose body is the rest
 * of a multipart/alternative's plain text, then its boundary, the HTML
 * alternative of the whole message, and the end line.  The HTML is the
 * same text again (and the part before the split): it is no text of the
 * fragment.  Such a tail is a boundary line "--B" after text, every part
 * from it on "Content-Type: text/html", the end line "--B--" with only
 * blank lines after it, or no end line when the last part runs to the
 * body's end (the next split cut it).  A body that names the boundary
 * before it (header lines below the blank line, "boundary=B") is no such
 * tail.
 *
 * Returns: the offset of the tail's first boundary line, or 0 when there
 *   is no such tail
 */
gsize
undeclared_alternative_tail (const GString *text)
{
  gsize offset = 0, start = 0, ink = 0;
  const char *hit;
  DejaLine line, next;

  /* The first boundary line after text: lines opening with "--" only are
   * read (every plain pipermail body comes here) */
  while (ink < text->len && g_ascii_isspace (text->str[ink]))
    ink++;
  for (;;)
    {
      if ((hit = memmem (text->str + offset, text->len - offset, "\n--", 3)) == NULL)
        return 0;
      offset = (gsize) (hit - text->str) + 1;
      if (_deja_line_at (text, offset, &line) && ink < offset && is_boundary_line (&line) &&
          _deja_line_at (text, line.next, &next) &&
          next.len > 8 && g_ascii_strncasecmp (next.p, "Content-", 8) == 0 && memchr (next.p, ':', next.len))
        break;
    }
  /* A boundary named before it is used is a header block's, in the body
   * (spam whose headers went below the blank line): not this tail */
  if (memmem (text->str, offset, line.p + 2, line.len - 2) != NULL)
    return 0;
  start = offset;
  while (_deja_line_at (text, offset, &next))
    {
      /* @next is a part's boundary line: its headers, then its body up to
       * the next boundary or end line */
      offset = next.next;
      if (!html_part_header (text, &offset))
        return 0;
      while (_deja_line_at (text, offset, &next) &&
             !(next.len >= line.len && memcmp (next.p, line.p, line.len) == 0 &&
               (next.len == line.len || (next.len == line.len + 2 && next.p[line.len] == '-' &&
                                         next.p[line.len + 1] == '-'))))
        offset = next.next;
      if (offset >= text->len)
        return start;            /* the last part cut short */
      if (next.len == line.len + 2)
        break;                   /* the end line */
    }
  for (offset = next.next; _deja_line_at (text, offset, &next); offset = next.next)
    if (next.len > 0)
      return 0;
  return start;
}
