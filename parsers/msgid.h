/* msgid.h — Message-ID, References and In-Reply-To values. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *msgid_normalize (const char *raw, gsize len);
GPtrArray *msgid_parse_list (const char *raw, gsize len);
GPtrArray *msgid_parse_in_reply_to (const char *raw, gsize len);

G_END_DECLS
