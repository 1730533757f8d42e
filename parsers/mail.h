/* mail.h — one message's decoded fields, from its bytes. */
#pragma once

#include <glib.h>

#include "quote.h"

G_BEGIN_DECLS

typedef enum {
  MAIL_FLAG_NONE             = 0,
  MAIL_FLAG_NO_HEADERS       = 1 << 0,  /* no header block could be read */
  MAIL_FLAG_NO_MESSAGE_ID    = 1 << 1,
  MAIL_FLAG_NO_DATE          = 1 << 2,
  MAIL_FLAG_BAD_DATE         = 1 << 3,  /* a Date that cannot be parsed */
  MAIL_FLAG_DATE_NO_ZONE     = 1 << 4,  /* read as UTC */
  MAIL_FLAG_DATE_UNKNOWN_ZONE = 1 << 5, /* read as UTC */
  MAIL_FLAG_NO_FROM          = 1 << 6,
  MAIL_FLAG_BAD_FROM         = 1 << 7,  /* a From without a readable address */
  MAIL_FLAG_RAW_8BIT_HEADERS = 1 << 8,  /* header bytes outside encoded words */
  MAIL_FLAG_NO_TEXT          = 1 << 9,  /* no text part */
  MAIL_FLAG_CHARSET_GUESSED  = 1 << 10, /* declared charset absent or wrong */
  MAIL_FLAG_HTML             = 1 << 11, /* some text came from HTML */
  MAIL_FLAG_EMBEDDED         = 1 << 12, /* message/rfc822 or digest parts */
  MAIL_FLAG_UUENCODE         = 1 << 13, /* uuencoded data left out of the text */
  MAIL_FLAG_YENC             = 1 << 14, /* yEnc data left out of the text */
  MAIL_FLAG_NUL_BYTES        = 1 << 15, /* NUL bytes, read as U+FFFD */
  MAIL_FLAG_TRUNCATED        = 1 << 16, /* decoded from its first part only (too large) */
  MAIL_FLAG_FROM_REWRITTEN   = 1 << 17, /* a list rewrote From:; the original sender is kept */
  MAIL_FLAG_FROM_MUNGED      = 1 << 18, /* "user at host" put back together */
  MAIL_FLAG_FROM_MASKED      = 1 << 19, /* Google Groups' "abc...@domain" */
  MAIL_FLAG_DATE_BAD_ZONE    = 1 << 20, /* a zone that is no zone: read as UTC */
  MAIL_FLAG_HTML_SCRUBBED    = 1 << 21, /* the archive kept a notice, not the author's only (HTML) text */
  MAIL_FLAG_NO_ARCHIVE       = 1 << 22, /* X-No-Archive: yes (header, or the body's first line) */
  MAIL_FLAG_HTML_CUT         = 1 << 23, /* HTML text whose parser stopped before its end */
  MAIL_FLAG_B_NEWS           = 1 << 24, /* Message-ID or date read from B news's Article-I.D./Posted */
  MAIL_FLAG_BASE64_UNDECLARED = 1 << 25, /* a body of base64 no header declared (pipermail), decoded */
  MAIL_FLAG_QP_UNDECLARED    = 1 << 26, /* the same in quoted-printable */
  MAIL_FLAG_MULTIPART_UNDECLARED = 1 << 27, /* a multipart body whose Content-Type was dropped, read as one */
} MailFlags;

/* Usenet's transport and control headers (RFC 1036, RFC 5536/5537), as
 * written (unfolded, UTF-8); NULL when absent. */
typedef struct {
  char *path;            /* "utzoo!decvax!ann": the sites, newest first */
  char *control;         /* "cancel <id>", "newgroup soc.a", … */
  char *cancels;         /* the Message-ID a cancel names, normalised */
  char *supersedes;      /* normalised */
  char *approved;        /* the moderator who approved it */
  char *followup_to;
} MailUsenet;

typedef struct {
  char *message_id;      /* normalised, or NULL */
  char *subject;
  char *from_addr;       /* lower case */
  char *from_name;
  char *date;            /* ISO 8601 UTC, or NULL */
  char *date_raw;        /* the Date header as written (UTF-8) */
  char *body;            /* decoded text, UTF-8 */
  char *own_text;        /* body without quotes, attributions, signature */
  gsize body_len, own_text_len;   /* their strlen() */
  GArray *own_spans;     /* (element-type OwnSpan) (nullable): the byte ranges of
                          * body that make own_text (quote.h); NULL when they
                          * cannot (own text taken from the message's own parts
                          * of a body with embedded messages) */
  guint quoted_lines;
  guint own_lines;
  char *charset;         /* charset the first text part was read in */
  GPtrArray *attachments; /* (element-type TextAttachment) */
  guint64 content_hash;  /* fnv.c over from_addr, subject, body */
  guint damage;          /* U+FFFD in subject, from_name, body; '?' in subject, from_name */
  GPtrArray *references; /* (element-type utf8) */
  GPtrArray *in_reply_to;
  GPtrArray *newsgroups; /* lower-case group names */
  MailUsenet usenet;
  GPtrArray *links;      /* (element-type Link) cited in own text (links.h) */
  MailFlags flags;
} MailRecord;

void mail_init (void);
MailRecord *mail_record_parse (const char *data, gsize len);
MailRecord *mail_record_parse_gmime (const char *data, gsize len);
MailRecord *mail_record_parse_reading (const char *data, gsize len, const char *reading);
void mail_record_read_envelope (MailRecord *record, const char *envelope, gsize len);
const char *mail_record_difference (const MailRecord *a, const MailRecord *b);
MailRecord *mail_record_ref (MailRecord *record);
void mail_record_free (MailRecord *record);
char *mail_flags_to_string (MailFlags flags);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MailRecord, mail_record_free)

G_END_DECLS
