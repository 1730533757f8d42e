/* text.h — a message's text: MIME walk, charsets, HTML, inline binaries. */
#pragma once

#include <glib.h>
#include <gmime/gmime.h>

G_BEGIN_DECLS

/* A part (or inline binary) that is not text. */
typedef struct {
  char *content_type;    /* lower case, e.g. "image/gif" */
  char *filename;        /* UTF-8, or NULL */
  gint64 size;           /* decoded bytes */
  const char *encoding;  /* "mime", "uuencode" or "yenc" (static) */
} TextAttachment;

typedef enum {
  TEXT_FLAG_NONE            = 0,
  TEXT_FLAG_NO_TEXT         = 1 << 0,  /* no text part at all */
  TEXT_FLAG_CHARSET_GUESSED = 1 << 1,
  TEXT_FLAG_HTML            = 1 << 2,  /* some text came from HTML */
  TEXT_FLAG_EMBEDDED        = 1 << 3,  /* message/rfc822 or digest parts */
  TEXT_FLAG_UUENCODE        = 1 << 4,  /* uuencoded data left out */
  TEXT_FLAG_YENC            = 1 << 5,  /* yEnc data left out */
  TEXT_FLAG_HTML_CUT        = 1 << 6,  /* the HTML parser stopped before the end */
  TEXT_FLAG_BASE64_UNDECLARED = 1 << 7, /* a body of base64 no header declared, decoded */
  TEXT_FLAG_QP_UNDECLARED   = 1 << 8,  /* the same in quoted-printable */
  TEXT_FLAG_MULTIPART_UNDECLARED = 1 << 9, /* a multipart body whose Content-Type was dropped, read */
} TextFlags;

typedef struct {
  GString *body;           /* every text part, UTF-8 */
  GString *own;            /* the message's own parts: not embedded messages */
  GPtrArray *attachments;  /* (element-type TextAttachment) */
  const char *charset;     /* of the first text part (static), or NULL */
  TextFlags flags;
} MailText;

void text_init (void);
void mail_text_extract (GMimeObject *root, const char *reading, MailText *text);
void mail_text_extract_plain (const char *content, gsize len, const char *declared,
                              const char *reading, gboolean untyped, gboolean undeclared,
                              MailText *text);
void mail_text_clear (MailText *text);
void text_attachment_free (TextAttachment *attachment);
TextAttachment *text_attachment_new (const char *content_type, const char *filename,
                                     gint64 size, const char *encoding);

/* binary.c: uuencoded and yEnc data inside text. */
TextFlags binary_strip (GString *text, GPtrArray *attachments);

/* undeclared.c: bodies an archive left in base64 or quoted-printable. */
TextFlags undeclared_base64 (GString *text);
TextFlags undeclared_qp (GString *text);
char *undeclared_multipart_boundary (const GString *text);
gsize undeclared_alternative_tail (const GString *text);

G_END_DECLS
