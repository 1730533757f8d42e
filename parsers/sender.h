/* sender.h — finding the author's address in a From value a person can read. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SENDER_FORM_NONE     = 0,
  SENDER_FORM_ANGLE    = 1 << 0,  /* Name <addr> */
  SENDER_FORM_BARE     = 1 << 1,  /* addr, addr (Name), Name addr */
  SENDER_FORM_COMMENT  = 1 << 2,  /* the address is in a comment: x at y (addr) */
  SENDER_FORM_MUNGED   = 1 << 3,  /* "user at host dot com" and the like, put back */
  SENDER_FORM_MASKED   = 1 << 4,  /* Google Groups' "abc...@domain" */
  SENDER_FORM_UUCP     = 1 << 5,  /* a UUCP bang path, "gatech!ann" */
} SenderForm;

typedef struct {
  char *addr;       /* lower case; NULL when no address can be read */
  char *name_raw;   /* the display name as written (bytes, quotes and
                     * encoded words kept), or NULL */
  SenderForm form;
} Sender;

void sender_parse (const char *value, gsize len, Sender *sender);
void sender_clear (Sender *sender);
gboolean sender_is_list_rewrite (const char *name, gsize len, gsize *person_len);
gboolean sender_pipermail_localized (const char *envelope, gsize envelope_len, const char *from,
                                     char **addr, char **name);

G_END_DECLS
