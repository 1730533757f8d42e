/* fuzz-mail.c — one message through GMime and deja's decoders: headers,
 * RFC 2047, dates, the MIME walk, charsets, HTML, inline binaries and own
 * text.  Every text field must come out as valid UTF-8, and the plain
 * reader (headers.c) must give what GMime's reading gives. */
#include "fuzz.h"
#include "mail.h"

static void
check (const char *s)
{
  g_assert (s == NULL || g_utf8_validate (s, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (MailRecord) r = NULL;
  g_autoptr (MailRecord) gmime = NULL;

  mail_init ();
  r = mail_record_parse ((const char *) data, size);
  gmime = mail_record_parse_gmime ((const char *) data, size);
  g_assert (mail_record_difference (r, gmime) == NULL);
  check (r->subject);
  check (r->from_addr);
  check (r->from_name);
  check (r->date_raw);
  check (r->body);
  check (r->own_text);
  return 0;
}
