/* pseudonym.h — keyed pseudonyms and redaction, for exports an ethics
 * board accepts (docs/people.md).
 *
 * A pseudonym is HMAC-SHA-256 (nettle) of an author's primary address
 * under a secret key: the same key gives the same pseudonyms, another key
 * others, and without the key nobody can link a pseudonym to an address
 * (an unkeyed hash can be reversed by hashing a list of addresses).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _Pseudonymiser Pseudonymiser;

/* What redaction replaced, for the data statement. */
typedef struct {
  guint64 addresses;
  guint64 phones;
} RedactCounts;

gboolean pseudonym_key_create (const char *path, GError **error);
Pseudonymiser *pseudonymiser_new (const char *key_path, GError **error);
void pseudonymiser_free (Pseudonymiser *p);

char *pseudonym_for (const Pseudonymiser *p, const char *address);
char *pseudonym_message_id (const Pseudonymiser *p, const char *message_id);
char *pseudonym_key_id (const Pseudonymiser *p);
char *redact_text (const char *text, RedactCounts *counts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Pseudonymiser, pseudonymiser_free)

G_END_DECLS
