/* mail.c — decoding one message into the fields deja stores.
 *
 * GMime parses the message (header list, MIME tree, transfer encodings);
 * header values are then taken raw and decoded by rfc2047.c, dates by
 * date.c and identifiers by msgid.c, because GMime 3.2.13 mis-decodes
 * adjacent encoded words and drops raw 8-bit bytes (see rfc2047.c).
 * A message is never refused: what cannot be read becomes NULL and a
 * flag, so that researchers can count what is missing instead of losing
 * it silently.
 */
#include "mail.h"
#include "charset.h"
#include "date.h"
#include "flags.h"
#include "fnv.h"
#include "msgid.h"
#include "quote.h"
#include "rfc2047.h"
#include "text.h"

#include <gmime/gmime.h>
#include <string.h>

/* GMime 3.2 declares no autoptr cleanups. */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeStream, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeParser, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeMessage, g_object_unref)

static GMimeParserOptions *parser_options;

/* Call once before any other function here (GMime needs it). */
void
mail_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      static const char *fallback[] = { "UTF-8", "windows-1252", NULL };

      g_mime_init ();
      text_init ();
      parser_options = g_mime_parser_options_new ();
      g_mime_parser_options_set_address_compliance_mode (parser_options, GMIME_RFC_COMPLIANCE_LOOSE);
      g_mime_parser_options_set_rfc2047_compliance_mode (parser_options, GMIME_RFC_COMPLIANCE_LOOSE);
      g_mime_parser_options_set_parameter_compliance_mode (parser_options, GMIME_RFC_COMPLIANCE_LOOSE);
      g_mime_parser_options_set_allow_addresses_without_domain (parser_options, TRUE);
      g_mime_parser_options_set_fallback_charsets (parser_options, fallback);
      g_once_init_leave (&done, 1);
    }
}

void
mail_record_free (MailRecord *r)
{
  if (r == NULL)
    return;
  g_free (r->message_id);
  g_free (r->subject);
  g_free (r->from_addr);
  g_free (r->from_name);
  g_free (r->date);
  g_free (r->date_raw);
  g_free (r->body);
  g_free (r->own_text);
  g_free (r->charset);
  g_clear_pointer (&r->attachments, g_ptr_array_unref);
  g_clear_pointer (&r->references, g_ptr_array_unref);
  g_clear_pointer (&r->in_reply_to, g_ptr_array_unref);
  g_clear_pointer (&r->newsgroups, g_ptr_array_unref);
  g_free (r);
}

char *
mail_flags_to_string (MailFlags flags)
{
  static const char *const names[] = {
    "no-headers", "no-message-id", "no-date", "bad-date", "date-no-zone",
    "date-unknown-zone", "no-from", "bad-from", "raw-8bit-headers",
    "no-text", "charset-guessed", "html", "embedded-messages", "uuencoded", "yenc",
    "nul-bytes", "truncated",
  };

  return flags_to_string (flags, names, G_N_ELEMENTS (names));
}

static MailFlags
text_flags (TextFlags t)
{
  return (t & TEXT_FLAG_NO_TEXT ? MAIL_FLAG_NO_TEXT : 0) |
         (t & TEXT_FLAG_CHARSET_GUESSED ? MAIL_FLAG_CHARSET_GUESSED : 0) |
         (t & TEXT_FLAG_HTML ? MAIL_FLAG_HTML : 0) |
         (t & TEXT_FLAG_EMBEDDED ? MAIL_FLAG_EMBEDDED : 0) |
         (t & TEXT_FLAG_UUENCODE ? MAIL_FLAG_UUENCODE : 0) |
         (t & TEXT_FLAG_YENC ? MAIL_FLAG_YENC : 0);
}

static gboolean
has_8bit (const char *s)
{
  for (; *s; s++)
    if ((guchar) *s >= 0x80)
      return TRUE;
  return FALSE;
}

/* Collapses runs of white space to one space and trims. */
static char *
collapse_space (char *s)
{
  char *w = s;
  gboolean space = FALSE;

  for (char *r = s; *r; r++)
    {
      if (g_ascii_isspace (*r))
        space = TRUE;
      else
        {
          if (space && w != s)
            *w++ = ' ';
          space = FALSE;
          *w++ = *r;
        }
    }
  *w = '\0';
  return s;
}

/* The display-name part of a From value: the text before "<addr>", or the
 * comment after a bare "addr (Name)".  Quotes are removed (with their
 * backslash escapes) before decoding, as mailers put encoded words inside
 * quotes although RFC 2047 forbids it. */
static char *
display_name (const char *value, const char *fallback)
{
  g_autoptr (GString) raw = g_string_new (NULL);
  const char *lt = NULL, *open = NULL, *close = NULL;
  gboolean quoted = FALSE;
  char *name;

  for (const char *p = value; *p; p++)
    {
      if (*p == '\\' && quoted && p[1])
        p++;
      else if (*p == '"')
        quoted = !quoted;
      else if (!quoted && *p == '<' && lt == NULL)
        lt = p;
      else if (!quoted && *p == '(' && open == NULL)
        open = p;
      else if (!quoted && *p == ')' && open != NULL)
        close = p;
    }
  if (lt != NULL)
    g_string_append_len (raw, value, lt - value);
  else if (open != NULL && close != NULL && close > open)
    g_string_append_len (raw, open + 1, close - open - 1);
  quoted = FALSE;
  {
    GString *plain = g_string_new (NULL);
    for (const char *p = raw->str; *p; p++)
      {
        if (*p == '"')
          continue;
        if (*p == '\\' && p[1])
          p++;
        g_string_append_c (plain, *p);
      }
    name = rfc2047_decode (plain->str, plain->len, fallback);
    g_string_free (plain, TRUE);
  }
  collapse_space (name);
  if (*name == '\0')
    g_clear_pointer (&name, g_free);
  return name;
}

static InternetAddressMailbox *
first_mailbox (InternetAddressList *list)
{
  int n = list ? internet_address_list_length (list) : 0;

  for (int i = 0; i < n; i++)
    {
      InternetAddress *a = internet_address_list_get_address (list, i);

      if (INTERNET_ADDRESS_IS_MAILBOX (a))
        return INTERNET_ADDRESS_MAILBOX (a);
      if (INTERNET_ADDRESS_IS_GROUP (a))
        {
          InternetAddressMailbox *m =
            first_mailbox (internet_address_group_get_members (INTERNET_ADDRESS_GROUP (a)));
          if (m)
            return m;
        }
    }
  return NULL;
}

/* Pipermail hides addresses as "user at host.example": put the @ back. */
static char *
unhide_address (const char *value)
{
  const char *at;

  if (strchr (value, '@') != NULL || (at = strstr (value, " at ")) == NULL)
    return g_strdup (value);
  return g_strdup_printf ("%.*s@%s", (int) (at - value), value, at + 4);
}

/* GMime refuses an address list with control characters in it (a NUL
 * made SUB, say); they are spaces for finding the address, while the
 * display name keeps them (as U+FFFD). */
static InternetAddressList *
parse_addresses (const char *value)
{
  InternetAddressList *list = internet_address_list_parse (parser_options, value);
  g_autofree char *spaced = NULL;

  if (first_mailbox (list) != NULL)
    return list;
  spaced = g_strdup (value);
  for (char *p = spaced; *p; p++)
    if ((guchar) *p < 0x20 && *p != '\t')
      *p = ' ';
  if (strcmp (spaced, value) == 0)
    return list;
  g_clear_object (&list);
  return internet_address_list_parse (parser_options, spaced);
}

static void
decode_from (MailRecord *r, const char *raw, const char *fallback)
{
  gsize len;
  g_autofree char *flat = NULL, *value = NULL;
  InternetAddressList *list;
  InternetAddressMailbox *mb;

  if (raw == NULL)
    {
      r->flags |= MAIL_FLAG_NO_FROM;
      return;
    }
  flat = rfc2047_unfold (raw, strlen (raw), &len);
  value = unhide_address (g_strstrip (flat));
  if (*value == '\0')
    {
      r->flags |= MAIL_FLAG_NO_FROM;
      return;
    }
  list = parse_addresses (value);
  mb = first_mailbox (list);
  if (mb != NULL && internet_address_mailbox_get_addr (mb)[0] != '\0' &&
      g_utf8_validate (internet_address_mailbox_get_addr (mb), -1, NULL))
    {
      r->from_addr = g_ascii_strdown (internet_address_mailbox_get_addr (mb), -1);
      r->from_name = display_name (value, fallback);
    }
  else
    {
      r->flags |= MAIL_FLAG_BAD_FROM;
      r->from_name = collapse_space (rfc2047_decode (value, strlen (value), fallback));
      if (*r->from_name == '\0')
        g_clear_pointer (&r->from_name, g_free);
    }
  g_clear_object (&list);
}

static void
decode_date (MailRecord *r, const char *raw)
{
  DateFlags flags = 0;
  gsize len;
  g_autofree char *flat = NULL;

  if (raw == NULL)
    {
      r->flags |= MAIL_FLAG_NO_DATE;
      return;
    }
  flat = rfc2047_unfold (raw, strlen (raw), &len);
  g_strstrip (flat);
  if (*flat == '\0')
    {
      r->flags |= MAIL_FLAG_NO_DATE;
      return;
    }
  r->date_raw = charset_to_utf8 (flat, strlen (flat), NULL, NULL);
  r->date = date_to_iso8601 (flat, strlen (flat), &flags);
  if (r->date == NULL)
    r->flags |= MAIL_FLAG_BAD_DATE;
  if (flags & DATE_FLAG_NO_ZONE)
    r->flags |= MAIL_FLAG_DATE_NO_ZONE;
  if (flags & DATE_FLAG_UNKNOWN_ZONE)
    r->flags |= MAIL_FLAG_DATE_UNKNOWN_ZONE;
}

static GPtrArray *
split_newsgroups (const char *raw)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) parts = NULL;

  if (raw == NULL)
    return groups;
  parts = g_strsplit_set (raw, ", \t\r\n", -1);
  for (char **p = parts; *p; p++)
    {
      gboolean seen = FALSE;
      char *name;

      if (**p == '\0')
        continue;
      {
        g_autofree char *text = charset_to_utf8 (*p, strlen (*p), NULL, NULL);
        name = g_ascii_strdown (text, -1);
      }
      for (guint i = 0; i < groups->len && !seen; i++)
        seen = strcmp (g_ptr_array_index (groups, i), name) == 0;
      if (seen)
        g_free (name);
      else
        g_ptr_array_add (groups, name);
    }
  return groups;
}

/* The first text part that is not an attachment; message/rfc822 parts
 * are not entered.  Its charset is the best hint for raw 8-bit headers. */
static GMimePart *
find_text_part (GMimeObject *object, gboolean plain_only)
{
  if (GMIME_IS_MULTIPART (object))
    {
      GMimeMultipart *mp = GMIME_MULTIPART (object);
      int n = g_mime_multipart_get_count (mp);

      for (int i = 0; i < n; i++)
        {
          GMimePart *part = find_text_part (g_mime_multipart_get_part (mp, i), plain_only);
          if (part)
            return part;
        }
      return NULL;
    }
  if (GMIME_IS_PART (object))
    {
      GMimeContentType *ct = g_mime_object_get_content_type (object);
      const char *disposition = g_mime_object_get_disposition (object);

      if (disposition && g_ascii_strcasecmp (disposition, "attachment") == 0)
        return NULL;
      if (ct == NULL)
        return GMIME_PART (object);
      if (g_mime_content_type_is_type (ct, "text", plain_only ? "plain" : "*"))
        return GMIME_PART (object);
    }
  return NULL;
}

static void
decode_body (MailRecord *r, GMimeMessage *message)
{
  MailText text;
  OwnText own;

  mail_text_extract (message, &text);
  quote_own_text (text.own->str, &own);
  r->body = g_string_free (g_steal_pointer (&text.body), FALSE);
  r->own_text = own.text;
  r->quoted_lines = own.quoted_lines;
  r->own_lines = own.own_lines;
  r->charset = g_strdup (text.charset);
  r->attachments = g_steal_pointer (&text.attachments);
  r->flags |= text_flags (text.flags);
  mail_text_clear (&text);
}

static void
decode_headers (MailRecord *r, GMimeMessage *message, const char *fallback)
{
  GMimeHeaderList *headers = g_mime_object_get_header_list (GMIME_OBJECT (message));
  const char *raw;
  int n = g_mime_header_list_get_count (headers);

  if (n == 0)
    r->flags |= MAIL_FLAG_NO_HEADERS;
  for (int i = 0; i < n; i++)
    {
      GMimeHeader *h = g_mime_header_list_get_header_at (headers, i);
      if (has_8bit (g_mime_header_get_raw_value (h)))
        r->flags |= MAIL_FLAG_RAW_8BIT_HEADERS;
    }

  raw = text_raw_header (GMIME_OBJECT (message), "Message-ID");
  r->message_id = raw ? msgid_normalize (raw, strlen (raw)) : NULL;
  if (r->message_id && !g_utf8_validate (r->message_id, -1, NULL))
    r->message_id = charset_sanitize_utf8 (r->message_id);
  if (r->message_id == NULL)
    r->flags |= MAIL_FLAG_NO_MESSAGE_ID;

  raw = text_raw_header (GMIME_OBJECT (message), "Subject");
  r->subject = raw ? rfc2047_decode (raw, strlen (raw), fallback) : NULL;

  decode_from (r, text_raw_header (GMIME_OBJECT (message), "From"), fallback);
  decode_date (r, text_raw_header (GMIME_OBJECT (message), "Date"));

  raw = text_raw_header (GMIME_OBJECT (message), "References");
  r->references = raw ? msgid_parse_list (raw, strlen (raw)) : g_ptr_array_new_with_free_func (g_free);
  raw = text_raw_header (GMIME_OBJECT (message), "In-Reply-To");
  r->in_reply_to = raw ? msgid_parse_list (raw, strlen (raw)) : g_ptr_array_new_with_free_func (g_free);
  r->newsgroups = split_newsgroups (text_raw_header (GMIME_OBJECT (message), "Newsgroups"));
}

/* A header charset hint: the body's declared charset, which is what a
 * mailer that wrote raw 8-bit headers most likely used for them too. */
static const char *
header_fallback_charset (GMimeMessage *message)
{
  GMimeObject *root = g_mime_message_get_mime_part (message);
  GMimePart *part = root ? find_text_part (root, FALSE) : NULL;

  return part ? g_mime_object_get_content_type_parameter (GMIME_OBJECT (part), "charset") : NULL;
}

static void
set_content_hash (MailRecord *r)
{
  guint64 h = FNV_START;

  h = fnv_field (h, r->from_addr, r->from_addr ? strlen (r->from_addr) : 0);
  h = fnv_field (h, r->subject, r->subject ? strlen (r->subject) : 0);
  r->content_hash = fnv_field (h, r->body, strlen (r->body));
}

/* GMime keeps header values as C strings, so a NUL byte in a header cuts
 * it ("A\0B <a@example.com>" became the address "a").  NUL bytes become
 * SUB, which decoding turns into U+FFFD like any NUL; the message is
 * flagged.  Returns a copy, or NULL when there is no NUL. */
static char *
without_nul (const char *data, gsize len, MailRecord *r)
{
  char *copy;

  if (len == 0 || memchr (data, '\0', len) == NULL)
    return NULL;
  copy = g_memdup2 (data, len);
  for (gsize i = 0; i < len; i++)
    if (copy[i] == '\0')
      copy[i] = '\x1a';
  r->flags |= MAIL_FLAG_NUL_BYTES;
  return copy;
}

/**
 * mail_record_parse:
 * @data: (array length=len): one message as RFC 5322 text, without an mbox
 *   envelope and with mbox quoting removed (see mbox_span_extract())
 * @len: its length
 *
 * Decodes the fields deja stores.  Never fails: missing or unreadable
 * fields are %NULL and flagged.  mail_init() must have been called.
 *
 * Returns: (transfer full): the record
 */
MailRecord *
mail_record_parse (const char *data, gsize len)
{
  MailRecord *r = g_new0 (MailRecord, 1);
  g_autofree char *copy = without_nul (data, len, r);
  g_autoptr (GMimeStream) stream = g_mime_stream_mem_new_with_buffer (copy ? copy : data, len);
  g_autoptr (GMimeParser) parser = g_mime_parser_new_with_stream (stream);
  g_autoptr (GMimeMessage) message = NULL;
  const char *fallback;

  g_return_val_if_fail (parser_options != NULL, NULL);
  g_mime_parser_set_format (parser, GMIME_FORMAT_MESSAGE);
  message = g_mime_parser_construct_message (parser, parser_options);
  if (message == NULL)
    {
      r->flags |= MAIL_FLAG_NO_HEADERS | MAIL_FLAG_NO_MESSAGE_ID | MAIL_FLAG_NO_DATE |
                  MAIL_FLAG_NO_FROM;
      r->body = charset_to_utf8 (data, len, NULL, NULL);
      r->own_text = g_strdup ("");
      r->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) text_attachment_free);
      r->references = g_ptr_array_new_with_free_func (g_free);
      r->in_reply_to = g_ptr_array_new_with_free_func (g_free);
      r->newsgroups = g_ptr_array_new_with_free_func (g_free);
      set_content_hash (r);
      return r;
    }
  fallback = header_fallback_charset (message);
  decode_headers (r, message, fallback);
  decode_body (r, message);
  set_content_hash (r);
  return r;
}
