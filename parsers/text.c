/* text.c — a message's text, from its MIME tree.
 *
 * The walk keeps what a reader of the message reads:
 *   - text/plain parts (and other inline text: patches, enriched text);
 *     in multipart/alternative, text/plain is preferred, then HTML;
 *   - text/html through html.c, when there is no plain alternative;
 *   - message/rfc822 parts and multipart/digest members, introduced by
 *     their From/Date/Subject; their text goes into the body but not into
 *     the message's own text (a forwarded message is not its sender's);
 *   - everything else (attachments, images, signatures, and uuencoded
 *     or yEnc data inside text) is left out and listed as an attachment.
 * Transfer encodings are undone by GMime; charsets by charset.c.
 */
#include "text.h"
#include "charset.h"
#include "headers.h"
#include "html.h"
#include "rfc2047.h"

#include <string.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeStream, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeParser, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeObject, g_object_unref)

#define MAX_DEPTH 32   /* nesting deeper than this is hostile, not mail */

typedef struct {
  MailText *text;
  gboolean embedded;   /* inside a message/rfc822 part */
  guint depth;
  const char *reading; /* the charset of undeclared 8-bit text, or NULL: chosen */
} Walk;

TextAttachment *
text_attachment_new (const char *content_type, const char *filename, gint64 size,
                     const char *encoding)
{
  TextAttachment *a = g_new0 (TextAttachment, 1);

  a->content_type = g_ascii_strdown (content_type, -1);
  a->filename = filename ? charset_to_utf8 (filename, strlen (filename), NULL, NULL) : NULL;
  a->size = size;
  a->encoding = encoding;
  return a;
}

void
text_attachment_free (TextAttachment *a)
{
  if (a == NULL)
    return;
  g_free (a->content_type);
  g_free (a->filename);
  g_free (a);
}

void
text_init (void)
{
  html_init ();
}

void
mail_text_clear (MailText *text)
{
  if (text->body)
    g_string_free (text->body, TRUE);
  if (text->own)
    g_string_free (text->own, TRUE);
  g_clear_pointer (&text->attachments, g_ptr_array_unref);
  memset (text, 0, sizeof *text);
}

static char *
type_string (GMimeObject *object)
{
  GMimeContentType *ct = g_mime_object_get_content_type (object);

  if (ct == NULL)
    return g_strdup ("text/plain");
  return g_strdup_printf ("%s/%s", g_mime_content_type_get_media_type (ct),
                          g_mime_content_type_get_media_subtype (ct));
}

static gboolean
is_type (GMimeObject *object, const char *type, const char *subtype)
{
  GMimeContentType *ct = g_mime_object_get_content_type (object);

  return ct != NULL && g_mime_content_type_is_type (ct, type, subtype);
}

static gboolean
is_attachment (GMimeObject *object)
{
  const char *disposition = g_mime_object_get_disposition (object);

  return disposition != NULL && g_ascii_strcasecmp (disposition, "attachment") == 0;
}

/* Text types that are data rather than prose. */
static gboolean
is_data_text (GMimeObject *object)
{
  static const char *const data[] = { "x-vcard", "vcard", "calendar", "x-vcalendar",
                                      "directory", "rtf", "csv", "xml" };
  GMimeContentType *ct = g_mime_object_get_content_type (object);
  const char *sub = ct ? g_mime_content_type_get_media_subtype (ct) : NULL;

  for (gsize i = 0; sub && i < G_N_ELEMENTS (data); i++)
    if (g_ascii_strcasecmp (sub, data[i]) == 0)
      return TRUE;
  return FALSE;
}

/* @s (@len bytes) with each CRLF made LF, in place; returns its new
 * length.  A CR alone stays. */
static gsize
crlf_to_lf (char *s, gsize len)
{
  char *w = len ? memchr (s, '\r', len) : NULL, *end;   /* an empty array has no data */

  if (w == NULL)
    return len;
  end = s + len;
  for (const char *p = w; p < end; p++)
    if (!(*p == '\r' && p + 1 < end && p[1] == '\n'))
      *w++ = *p;
  return w - s;
}

/* The part's content, transfer encoding undone, CRLF made LF. */
static GByteArray *
part_bytes (GMimePart *part)
{
  GMimeDataWrapper *content = g_mime_part_get_content (part);
  GByteArray *bytes = g_byte_array_new ();
  g_autoptr (GMimeStream) mem = NULL;

  if (content == NULL)
    return bytes;
  mem = g_mime_stream_mem_new_with_byte_array (bytes);
  g_mime_stream_mem_set_owner (GMIME_STREAM_MEM (mem), FALSE);
  g_mime_data_wrapper_write_to_stream (content, mem);
  g_byte_array_set_size (bytes, (guint) crlf_to_lf ((char *) bytes->data, bytes->len));
  return bytes;
}

static void
add_attachment (Walk *w, GMimeObject *object)
{
  g_autofree char *type = type_string (object);
  const char *name = GMIME_IS_PART (object) ? g_mime_part_get_filename (GMIME_PART (object)) : NULL;
  gint64 size = 0;

  if (GMIME_IS_PART (object))
    {
      GByteArray *bytes = part_bytes (GMIME_PART (object));
      size = bytes->len;
      g_byte_array_unref (bytes);
    }
  g_ptr_array_add (w->text->attachments, text_attachment_new (type, name, size, "mime"));
}

/* Appends @s as a paragraph of the body (and of the own text). */
static void
append_text (Walk *w, const char *s)
{
  GString *targets[2] = { w->text->body, w->embedded ? NULL : w->text->own };

  for (int i = 0; i < 2; i++)
    {
      GString *t = targets[i];

      if (t == NULL || *s == '\0')
        continue;
      if (t->len > 0 && t->str[t->len - 1] != '\n')
        g_string_append_c (t, '\n');
      if (t->len > 0)
        g_string_append_c (t, '\n');
      g_string_append (t, s);
    }
}

static gboolean walk_undeclared_multipart (Walk *w, const GString *raw);

/* Adds a text part's bytes @raw (transfer encoding undone, CRLF made
 * LF; taken), declared in @declared (nullable); @untyped when no
 * Content-Type was given, @undeclared when no Content-Transfer-Encoding
 * was (so none was undone). */
static void
add_text (Walk *w, GString *raw, const char *declared, gboolean html, gboolean untyped,
          gboolean undeclared)
{
  g_autofree char *utf8 = NULL;
  CharsetResult cs;

  if (untyped && undeclared && walk_undeclared_multipart (w, raw))
    {
      g_string_free (raw, TRUE);
      return;
    }
  if (untyped && undeclared)
    {
      gsize tail = undeclared_alternative_tail (raw);

      if (tail > 0)
        {
          while (tail >= 2 && raw->str[tail - 1] == '\n' && raw->str[tail - 2] == '\n')
            tail--;               /* the blank lines before the boundary */
          g_string_truncate (raw, tail);
          w->text->flags |= TEXT_FLAG_MULTIPART_UNDECLARED;
        }
    }
  /* Binaries go before charset detection, which they would mislead. */
  if (!html && undeclared)
    w->text->flags |= undeclared_base64 (raw) | undeclared_qp (raw);
  if (!html)
    w->text->flags |= binary_strip (raw, w->text->attachments);
  utf8 = charset_to_utf8_reading (raw->str, raw->len, declared, w->reading, &cs);
  g_string_free (raw, TRUE);
  if (w->text->charset == NULL)
    w->text->charset = cs.used;
  if (cs.guessed)
    w->text->flags |= TEXT_FLAG_CHARSET_GUESSED;
  if (html)
    {
      gboolean cut;
      g_autofree char *plain = html_to_text (utf8, strlen (utf8), &cut);

      append_text (w, plain);
      w->text->flags |= TEXT_FLAG_HTML | (cut ? TEXT_FLAG_HTML_CUT : 0);
    }
  else
    append_text (w, utf8);
  w->text->flags &= ~TEXT_FLAG_NO_TEXT;
}

static void
add_text_part (Walk *w, GMimePart *part)
{
  GMimeObject *object = GMIME_OBJECT (part);
  GByteArray *bytes = part_bytes (part);
  GString *raw = g_string_new_len ((const char *) bytes->data, bytes->len);

  g_byte_array_unref (bytes);
  add_text (w, raw, g_mime_object_get_content_type_parameter (object, "charset"),
            is_type (object, "text", "html"), g_mime_object_get_header (object, "Content-Type") == NULL,
            g_mime_object_get_header (object, "Content-Transfer-Encoding") == NULL);
}

static void walk (Walk *w, GMimeObject *object);

/* In multipart/alternative: text/plain, else a part holding it, else HTML,
 * else the last (richest) part. */
static GMimeObject *
best_alternative (GMimeMultipart *mp)
{
  int n = g_mime_multipart_get_count (mp);
  GMimeObject *html = NULL, *nested = NULL;

  for (int i = 0; i < n; i++)
    {
      GMimeObject *part = g_mime_multipart_get_part (mp, i);

      if (is_type (part, "text", "plain"))
        return part;
      if (html == NULL && is_type (part, "text", "html"))
        html = part;
      if (nested == NULL && GMIME_IS_MULTIPART (part))
        nested = part;
    }
  if (nested != NULL)
    return nested;
  if (html != NULL)
    return html;
  return n > 0 ? g_mime_multipart_get_part (mp, n - 1) : NULL;
}

/* The parts of @mp read as a multipart of @subtype ("alternative",
 * "signed", or any other as "mixed"). */
static void
walk_parts (Walk *w, GMimeMultipart *mp, const char *subtype)
{
  int n = g_mime_multipart_get_count (mp);

  if (g_ascii_strcasecmp (subtype, "alternative") == 0)
    {
      GMimeObject *best = best_alternative (mp);
      if (best)
        walk (w, best);
      return;
    }
  if (g_ascii_strcasecmp (subtype, "signed") == 0 && n > 0)
    {
      walk (w, g_mime_multipart_get_part (mp, 0));
      for (int i = 1; i < n; i++)
        add_attachment (w, g_mime_multipart_get_part (mp, i));
      return;
    }
  for (int i = 0; i < n; i++)
    walk (w, g_mime_multipart_get_part (mp, i));
}

static void
walk_multipart (Walk *w, GMimeMultipart *mp)
{
  GMimeContentType *ct = g_mime_object_get_content_type (GMIME_OBJECT (mp));
  const char *subtype = ct ? g_mime_content_type_get_media_subtype (ct) : NULL;

  walk_parts (w, mp, subtype ? subtype : "mixed");
}

/* What a multipart whose Content-Type is lost was, by its parts: signed
 * (a part, then its application/pgp-signature), alternative (text only,
 * HTML among it), else mixed. */
static const char *
guessed_subtype (GMimeMultipart *mp)
{
  int n = g_mime_multipart_get_count (mp);
  gboolean text = TRUE, html = FALSE;

  if (n == 2 && is_type (g_mime_multipart_get_part (mp, 1), "application", "pgp-signature"))
    return "signed";
  for (int i = 0; i < n; i++)
    {
      GMimeObject *part = g_mime_multipart_get_part (mp, i);

      text &= is_type (part, "text", "*");
      html |= is_type (part, "text", "html");
    }
  return text && html ? "alternative" : "mixed";
}

/* When @raw is a multipart body whose Content-Type was dropped
 * (undeclared_multipart_boundary()), reads its parts as the multipart
 * they were; FALSE, with nothing done, when it is no such body. */
static gboolean
walk_undeclared_multipart (Walk *w, const GString *raw)
{
  g_autofree char *boundary = undeclared_multipart_boundary (raw);
  g_autoptr (GString) entity = NULL;
  g_autoptr (GMimeStream) stream = NULL;
  g_autoptr (GMimeParser) parser = NULL;
  g_autoptr (GMimeObject) object = NULL;

  if (boundary == NULL)
    return FALSE;
  entity = g_string_new (NULL);
  g_string_append_printf (entity, "Content-Type: multipart/mixed; boundary=\"%s\"\n\n", boundary);
  g_string_append_len (entity, raw->str, raw->len);
  stream = g_mime_stream_mem_new_with_buffer (entity->str, entity->len);
  parser = g_mime_parser_new_with_stream (stream);
  object = g_mime_parser_construct_part (parser, NULL);
  if (object == NULL || !GMIME_IS_MULTIPART (object) ||
      g_mime_multipart_get_count (GMIME_MULTIPART (object)) == 0)
    return FALSE;
  w->text->flags |= TEXT_FLAG_MULTIPART_UNDECLARED;
  w->depth++;
  walk_parts (w, GMIME_MULTIPART (object), guessed_subtype (GMIME_MULTIPART (object)));
  w->depth--;
  return TRUE;
}

/* The decoded value of @headers' first field called @name. */
static char *
header_text (const MailHeaders *headers, const char *name)
{
  const char *raw = mail_headers_get (headers, name);

  return raw ? rfc2047_decode (raw, strlen (raw), NULL) : NULL;
}

/* An embedded message: a short header, then its text (not "own"). */
static void
walk_message_part (Walk *w, GMimeMessagePart *mp)
{
  GMimeMessage *message = g_mime_message_part_get_message (mp);
  static const char *const shown[] = { "From", "Date", "Subject" };
  GString *intro = g_string_new ("----- Embedded message -----\n");
  gboolean embedded = w->embedded;
  MailHeaders headers;

  w->text->flags |= TEXT_FLAG_EMBEDDED;
  if (message == NULL)
    {
      g_string_free (intro, TRUE);
      return;
    }
  mail_headers_from_gmime (GMIME_OBJECT (message), &headers);
  for (gsize i = 0; i < G_N_ELEMENTS (shown); i++)
    {
      g_autofree char *value = header_text (&headers, shown[i]);
      if (value)
        g_string_append_printf (intro, "%s: %s\n", shown[i], g_strstrip (value));
    }
  mail_headers_clear (&headers);
  w->embedded = TRUE;
  append_text (w, intro->str);
  g_string_free (intro, TRUE);
  if (g_mime_message_get_mime_part (message))
    walk (w, g_mime_message_get_mime_part (message));
  w->embedded = embedded;
}

static void
walk (Walk *w, GMimeObject *object)
{
  if (w->depth >= MAX_DEPTH)
    return;
  w->depth++;
  if (GMIME_IS_MULTIPART (object))
    walk_multipart (w, GMIME_MULTIPART (object));
  else if (GMIME_IS_MESSAGE_PART (object) && !is_attachment (object))
    walk_message_part (w, GMIME_MESSAGE_PART (object));
  else if (GMIME_IS_PART (object) && !is_attachment (object) && !is_data_text (object) &&
           (g_mime_object_get_content_type (object) == NULL || is_type (object, "text", "*")))
    add_text_part (w, GMIME_PART (object));
  else
    add_attachment (w, object);
  w->depth--;
}

/**
 * mail_text_extract:
 * @root: (nullable): a parsed message's top MIME entity
 * @text: (out caller-allocates): its text; free with mail_text_clear()
 *
 * Walks the message's MIME tree from @root (see the file comment).
 */
static void
text_start (MailText *text)
{
  text->body = g_string_new (NULL);
  text->own = g_string_new (NULL);
  text->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) text_attachment_free);
  text->charset = NULL;
  text->flags = TEXT_FLAG_NO_TEXT;
}

void
mail_text_extract (GMimeObject *root, const char *reading, MailText *text)
{
  Walk w = { .text = text, .reading = reading };

  text_start (text);
  if (root != NULL)
    walk (&w, root);
}

/**
 * mail_text_extract_plain:
 * @content: (array length=len): the content of a text/plain entity whose
 *   transfer encoding is the identity (headers.c)
 * @declared: (nullable): its declared charset
 * @reading: (nullable): the charset of undeclared 8-bit text (charset_to_utf8_reading())
 * @untyped: whether it has no Content-Type at all
 * @undeclared: whether it has no Content-Transfer-Encoding at all
 * @text: (out caller-allocates): its text; free with mail_text_clear()
 *
 * What mail_text_extract() gives for such an entity, without GMime.
 */
void
mail_text_extract_plain (const char *content, gsize len, const char *declared, const char *reading,
                         gboolean untyped, gboolean undeclared, MailText *text)
{
  Walk w = { .text = text, .reading = reading };
  GString *raw = g_string_new_len (content, len);

  text_start (text);
  g_string_set_size (raw, crlf_to_lf (raw->str, raw->len));
  add_text (&w, raw, declared, FALSE, untyped, undeclared);
}
