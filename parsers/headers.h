/* headers.h — a message's header fields, read by deja or taken from GMime. */
#pragma once

#include <glib.h>
#include <gmime/gmime.h>

G_BEGIN_DECLS

/* One field as GMime keeps it: the name without the colon, the raw value
 * from after the colon to the end of the field, folds, CRs and the last
 * newline included (" Hello\n" for "Subject: Hello"). */
typedef struct {
  const char *name;
  const char *value;
} MailHeader;

typedef struct {
  MailHeader *v;
  guint n;
  char *owned;     /* the names and values read by mail_headers_read(), or NULL */
} MailHeaders;

gboolean mail_headers_read (const char *data, gsize len, MailHeaders *out, gsize *body);
void mail_headers_from_gmime (GMimeObject *object, MailHeaders *out);
const char *mail_headers_get (const MailHeaders *headers, const char *name);
void mail_headers_clear (MailHeaders *headers);

/* What a plain entity's Content-* fields declare. */
typedef struct {
  char *charset;   /* the Content-Type charset parameter, or NULL */
  gboolean type_declared;       /* a Content-Type was given */
  gboolean encoding_declared;   /* a Content-Transfer-Encoding was given */
} MailPlainType;

gboolean mail_headers_plain_text (const MailHeaders *headers, MailPlainType *out);

G_END_DECLS
