/* mail.c — decoding one message into the fields deja stores.
 *
 * GMime parses the message (header list, MIME tree, transfer encodings),
 * but for a plain text one, which headers.c reads where GMime would read
 * it the same;
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
#include "headers.h"
#include "links.h"
#include "msgid.h"
#include "quote.h"
#include "rfc2047.h"
#include "sender.h"
#include "text.h"

#include <gmime/gmime.h>
#include <string.h>

/* GMime 3.2 declares no autoptr cleanups. */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeStream, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeParser, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GMimeObject, g_object_unref)

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

static void
record_clear (MailRecord *r)
{
  g_free (r->message_id);
  g_free (r->subject);
  g_free (r->from_addr);
  g_free (r->from_name);
  g_free (r->date);
  g_free (r->date_raw);
  g_free (r->body);
  g_free (r->own_text);
  g_clear_pointer (&r->own_spans, g_array_unref);
  g_free (r->charset);
  g_clear_pointer (&r->attachments, g_ptr_array_unref);
  g_clear_pointer (&r->references, g_ptr_array_unref);
  g_clear_pointer (&r->in_reply_to, g_ptr_array_unref);
  g_clear_pointer (&r->newsgroups, g_ptr_array_unref);
  g_free (r->usenet.path);
  g_free (r->usenet.control);
  g_free (r->usenet.cancels);
  g_free (r->usenet.supersedes);
  g_free (r->usenet.approved);
  g_free (r->usenet.followup_to);
  g_clear_pointer (&r->links, g_ptr_array_unref);
}

/**
 * mail_record_ref:
 *
 * A record is shared read-only by the copies of a message (the same
 * bytes decode to the same record): each holder has a reference.
 * Returns: @r
 */
MailRecord *
mail_record_ref (MailRecord *r)
{
  return g_atomic_rc_box_acquire (r);
}

/* Drops a reference to @r; the last one frees it. */
void
mail_record_free (MailRecord *r)
{
  if (r == NULL)
    return;
  g_atomic_rc_box_release_full (r, (GDestroyNotify) record_clear);
}

char *
mail_flags_to_string (MailFlags flags)
{
  static const char *const names[] = {
    "no-headers", "no-message-id", "no-date", "bad-date", "date-no-zone",
    "date-unknown-zone", "no-from", "bad-from", "raw-8bit-headers",
    "no-text", "charset-guessed", "html", "embedded-messages", "uuencoded", "yenc",
    "nul-bytes", "truncated", "from-rewritten", "from-munged", "from-masked",
    "date-bad-zone", "html-scrubbed", "no-archive", "html-cut", "b-news", "base64-undeclared",
    "qp-undeclared", "multipart-undeclared",
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
         (t & TEXT_FLAG_YENC ? MAIL_FLAG_YENC : 0) |
         (t & TEXT_FLAG_HTML_CUT ? MAIL_FLAG_HTML_CUT : 0) |
         (t & TEXT_FLAG_BASE64_UNDECLARED ? MAIL_FLAG_BASE64_UNDECLARED : 0) |
         (t & TEXT_FLAG_QP_UNDECLARED ? MAIL_FLAG_QP_UNDECLARED : 0) |
         (t & TEXT_FLAG_MULTIPART_UNDECLARED ? MAIL_FLAG_MULTIPART_UNDECLARED : 0);
}

/* Whether @value holds @addr as written (case aside), not as a piece of
 * a longer run of address characters. */
static gboolean
shows_address (const char *value, const char *addr)
{
  g_autofree char *v = g_ascii_strdown (value, -1), *a = g_ascii_strdown (addr, -1);
  gsize n = strlen (a);

  for (const char *p = strstr (v, a); p != NULL; p = strstr (p + 1, a))
    {
      char before = p > v ? p[-1] : ' ', after = p[n];

      if (!(g_ascii_isalnum (before) || strchr ("@.|_-+", before)) &&
          !(g_ascii_isalnum (after) || (after != '\0' && strchr ("@.|_-+", after) != NULL)))
        return TRUE;
    }
  return FALSE;
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

/* A display name as written (quotes, backslash escapes, encoded words,
 * raw bytes) as text.  Quotes are removed before decoding, as mailers put
 * encoded words inside quotes although RFC 2047 forbids it.  Returns NULL
 * for a name that is empty once decoded. */
static char *
decode_name (const char *raw, const char *fallback)
{
  g_autoptr (GString) plain = g_string_new (NULL);
  char *name;

  if (raw == NULL)
    return NULL;
  for (const char *p = raw; *p; p++)
    {
      if (*p == '"')
        continue;
      if (*p == '\\' && p[1])
        p++;
      g_string_append_c (plain, *p);
    }
  name = rfc2047_decode (plain->str, plain->len, fallback);
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

/* The address GMime reads in @value when it is a real one (it knows
 * quoted local parts and routes), else NULL. */
static char *
gmime_address (const char *value)
{
  InternetAddressList *list = parse_addresses (value);
  InternetAddressMailbox *mb = first_mailbox (list);
  char *addr = NULL;

  if (mb != NULL)
    {
      const char *a = internet_address_mailbox_get_addr (mb);

      if (a[0] != '\0' && g_utf8_validate (a, -1, NULL))
        addr = g_ascii_strdown (a, -1);
    }
  g_clear_object (&list);
  return addr;
}

/* Is @name only @addr again, perhaps munged ("glyph at divmod.com")? */
static gboolean
name_is_address (const char *name, const char *addr)
{
  Sender s;
  gboolean same;

  sender_parse (name, strlen (name), &s);
  same = s.addr != NULL && g_ascii_strcasecmp (s.addr, addr) == 0 && s.name_raw == NULL;
  sender_clear (&s);
  return same;
}

/* Reads @raw (a From-like header value) into an address and a name.
 * sender.c finds the address in every form a person can read; GMime's
 * reading is kept where both see an ordinary RFC 5322 address, and is
 * the last resort for a bare local part ("From: bob"). */
static gboolean
read_sender (const char *raw, const char *fallback, char **addr, char **name, MailFlags *flags)
{
  gsize len;
  g_autofree char *flat = rfc2047_unfold (raw, strlen (raw), &len);
  g_autofree char *gmime = NULL;
  gboolean ours;
  Sender s;

  g_strstrip (flat);
  *addr = *name = NULL;
  if (*flat == '\0')
    return FALSE;
  sender_parse (flat, strlen (flat), &s);
  ours = s.addr != NULL;
  /* GMime is asked only where sender.c found nothing (a bare local part,
   * "From: bob") or an address with quotes or escapes in it, which GMime
   * reads by the RFC; for the ordinary forms both agree, and GMime's
   * parse cost a tenth of the decoders' time. */
  if (s.addr == NULL || strpbrk (s.addr, "\"\\") != NULL)
    gmime = gmime_address (flat);
  /* GMime makes an address of pieces where there is none ("j@ne@doe
   * …" gave "j@ne"): only one the value shows, as it shows it, is kept */
  if (gmime != NULL && !shows_address (flat, gmime))
    g_clear_pointer (&gmime, g_free);
  if (s.addr != NULL && gmime != NULL && strchr (gmime, '@') != NULL &&
      !(s.form & (SENDER_FORM_COMMENT | SENDER_FORM_MUNGED | SENDER_FORM_MASKED)))
    *addr = g_steal_pointer (&gmime);
  else if (s.addr != NULL)
    *addr = g_steal_pointer (&s.addr);
  else if (gmime != NULL)
    *addr = g_steal_pointer (&gmime);
  if (*addr != NULL && !g_utf8_validate (*addr, -1, NULL))
    {
      /* Raw 8-bit bytes in a local part, read as the header's text is. */
      char *text = charset_to_utf8 (*addr, strlen (*addr), fallback, NULL);

      g_free (*addr);
      *addr = text;
    }
  if (*addr != NULL && !ours)
    *name = NULL;     /* "From: bob": the value is the address */
  else if (*addr != NULL)
    *name = decode_name (s.name_raw, fallback);
  else
    {
      *name = collapse_space (rfc2047_decode (flat, strlen (flat), fallback));
      if (**name == '\0')
        g_clear_pointer (name, g_free);
    }
  if (*name != NULL && *addr != NULL && name_is_address (*name, *addr))
    g_clear_pointer (name, g_free);   /* "glyph at divmod.com (glyph at divmod.com)" */
  if (s.form & SENDER_FORM_MUNGED)
    *flags |= MAIL_FLAG_FROM_MUNGED;
  if (s.form & SENDER_FORM_MASKED)
    *flags |= MAIL_FLAG_FROM_MASKED;
  sender_clear (&s);
  return TRUE;
}

static void
decode_from (MailRecord *r, const char *raw, const char *fallback)
{
  if (raw == NULL || !read_sender (raw, fallback, &r->from_addr, &r->from_name, &r->flags))
    {
      r->flags |= MAIL_FLAG_NO_FROM;
      return;
    }
  if (r->from_addr == NULL)
    r->flags |= MAIL_FLAG_BAD_FROM;
}

/* Is @message from a mailing list or Google Group (whose software may
 * rewrite From:)? */
static gboolean
from_a_list (const MailHeaders *headers, const char *from_addr)
{
  static const char *const names[] = {
    "List-Id", "List-Post", "Mailing-List", "X-Mailman-Version", "X-Google-Group-Id",
    "X-Original-From",
  };

  if (from_addr != NULL && g_str_has_suffix (from_addr, "@googlegroups.com"))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (mail_headers_get (headers, names[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* In @raw (Reply-To or Cc), the address of the person called @person,
 * or the only address that is not the list's. */
static char *
person_in (const char *raw, const char *person, const char *list_addr, const char *fallback)
{
  InternetAddressList *list;
  char *found = NULL, *only = NULL;
  guint others = 0;
  int n;

  if (raw == NULL)
    return NULL;
  list = parse_addresses (raw);
  n = list ? internet_address_list_length (list) : 0;
  for (int i = 0; i < n && found == NULL; i++)
    {
      InternetAddress *a = internet_address_list_get_address (list, i);
      const char *addr;
      g_autofree char *name = NULL;

      if (!INTERNET_ADDRESS_IS_MAILBOX (a))
        continue;
      addr = internet_address_mailbox_get_addr (INTERNET_ADDRESS_MAILBOX (a));
      if (addr[0] == '\0' || strchr (addr, '@') == NULL || g_ascii_strcasecmp (addr, list_addr) == 0)
        continue;
      others++;
      g_free (only);
      only = g_ascii_strdown (addr, -1);
      if (internet_address_get_name (a) != NULL)
        {
          g_autofree char *raw_name = g_strdup (internet_address_get_name (a));
          name = decode_name (raw_name, fallback);
        }
      if (name != NULL)
        {
          g_autofree char *a_fold = g_utf8_casefold (name, -1);
          g_autofree char *b_fold = g_utf8_casefold (person, -1);

          if (strcmp (a_fold, b_fold) == 0)
            found = g_ascii_strdown (addr, -1);
        }
    }
  g_clear_object (&list);
  if (found == NULL && others == 1)
    return only;
  g_free (only);
  return found;
}

/* Google Groups writes From: 'Jan Kiszka' via Jailhouse <list@googlegroups.com>
 * and keeps the author in X-Original-From:; Mailman's DMARC mitigation
 * writes "Name via List" <list@…> and puts the author in Reply-To: (or
 * Cc:).  The author is put back and the message flagged from-rewritten.
 * When the author's address is nowhere, the name is still the person's
 * (without " via List") and the address stays the list's. */
static void
undo_list_rewrite (MailRecord *r, const MailHeaders *headers, const char *fallback)
{
  const char *original = mail_headers_get (headers, "X-Original-From");
  g_autofree char *person = NULL;
  gsize person_len;

  if (original != NULL)
    {
      g_autofree char *addr = NULL, *name = NULL;
      MailFlags ignored = 0;

      if (read_sender (original, fallback, &addr, &name, &ignored) && addr != NULL &&
          g_strcmp0 (addr, r->from_addr) != 0)
        {
          g_free (r->from_addr);
          r->from_addr = g_steal_pointer (&addr);
          if (name != NULL)
            {
              g_free (r->from_name);
              r->from_name = g_steal_pointer (&name);
            }
          r->flags |= MAIL_FLAG_FROM_REWRITTEN;
          return;
        }
    }
  if (r->from_name == NULL || r->from_addr == NULL ||
      !sender_is_list_rewrite (r->from_name, strlen (r->from_name), &person_len) ||
      !from_a_list (headers, r->from_addr))
    return;
  person = g_strndup (r->from_name, person_len);
  g_strstrip (g_strdelimit (person, "'", ' '));
  if (*person == '\0')
    return;
  {
    char *addr = person_in (mail_headers_get (headers, "Reply-To"), person, r->from_addr, fallback);

    if (addr == NULL)
      addr = person_in (mail_headers_get (headers, "Cc"), person, r->from_addr, fallback);
    if (addr != NULL)
      {
        g_free (r->from_addr);
        r->from_addr = addr;
      }
  }
  g_free (r->from_name);
  r->from_name = g_steal_pointer (&person);
  r->flags |= MAIL_FLAG_FROM_REWRITTEN;
}

/* A header's value unfolded, trimmed and in UTF-8; NULL when absent or
 * empty. */
static char *
flat_value (const MailHeaders *headers, const char *name)
{
  const char *raw = mail_headers_get (headers, name);
  g_autofree char *flat = NULL;
  gsize len;

  if (raw == NULL)
    return NULL;
  flat = rfc2047_unfold (raw, strlen (raw), &len);
  g_strstrip (flat);
  return *flat ? charset_to_utf8 (flat, strlen (flat), NULL, NULL) : NULL;
}

/* Path, Control (a cancel's target), Supersedes, Approved, Followup-To. */
static void
decode_usenet (MailUsenet *u, const MailHeaders *headers)
{
  u->path = flat_value (headers, "Path");
  u->control = flat_value (headers, "Control");
  u->approved = flat_value (headers, "Approved");
  u->followup_to = flat_value (headers, "Followup-To");
  if (u->control && g_ascii_strncasecmp (u->control, "cancel", 6) == 0 &&
      g_ascii_isspace (u->control[6]))
    u->cancels = msgid_normalize (u->control + 7, strlen (u->control + 7));
  else if (u->control == NULL)
    {
      /* B news wrote a cancel as a Subject: "cmsg cancel <id>" */
      const char *subject = mail_headers_get (headers, "Subject");

      if (subject && g_str_has_prefix (subject, "cmsg cancel "))
        {
          u->control = g_strdup (subject + 5);
          u->cancels = msgid_normalize (subject + 12, strlen (subject + 12));
        }
    }
  {
    g_autofree char *supersedes = flat_value (headers, "Supersedes");

    if (supersedes)
      u->supersedes = msgid_normalize (supersedes, strlen (supersedes));
  }
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
  if (flags & DATE_FLAG_BAD_ZONE)
    r->flags |= MAIL_FLAG_DATE_BAD_ZONE;
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

/* "X-No-Archive: yes" (any case, any spacing), as a header or, the
 * Usenet way, as the first line of the body: archives are asked to leave
 * the post out (exports do, unless told otherwise). */
static gboolean
is_yes (const char *value)
{
  while (value && g_ascii_isspace (*value))
    value++;
  return value && g_ascii_strncasecmp (value, "yes", 3) == 0 &&
         (value[3] == '\0' || !g_ascii_isalnum (value[3]));
}

static gboolean
asks_not_to_be_archived (const char *header, const char *body)
{
  static const char name[] = "x-no-archive:";

  if (is_yes (header))
    return TRUE;
  while (body && (*body == '\n' || *body == '\r' || *body == ' ' || *body == '\t'))
    body++;
  return body && g_ascii_strncasecmp (body, name, sizeof name - 1) == 0 && is_yes (body + sizeof name - 1);
}

/* The body's fields from its extracted text (taken). */
static void
set_body (MailRecord *r, MailText *text)
{
  OwnText own;

  quote_own_text (text->own->str, &own);
  /* Quoting was read in the message's own parts: where they are the
   * whole body, the spans are the body's too. */
  if (text->own->len == text->body->len && memcmp (text->own->str, text->body->str, text->body->len) == 0)
    r->own_spans = g_steal_pointer (&own.spans);
  g_clear_pointer (&own.spans, g_array_unref);
  r->body = g_string_free (g_steal_pointer (&text->body), FALSE);
  r->body_len = strlen (r->body);           /* as a C string, as it is stored */
  r->own_text = g_steal_pointer (&own.text);
  r->own_text_len = strlen (r->own_text);
  r->quoted_lines = own.quoted_lines;
  r->own_lines = own.own_lines;
  /* Flagged where it matters: the HTML was all the author's text (a
   * plain-text alternative beside the notice loses nothing). */
  if (own.html_scrubbed && own.own_lines == 0)
    r->flags |= MAIL_FLAG_HTML_SCRUBBED;
  r->charset = g_strdup (text->charset);
  r->attachments = g_steal_pointer (&text->attachments);
  r->flags |= text_flags (text->flags);
  mail_text_clear (text);
}

/* A header of the message itself: GMime gives a GMimeMessage all its
 * headers but the Content-* ones, which go to its top MIME part.  The
 * message is parsed as a MIME entity (mail_record_parse()), which keeps
 * them all: the flags and the charset guess read the message's own, as
 * they did. */
static gboolean
is_message_header (const MailHeader *h)
{
  return g_ascii_strncasecmp (h->name, "Content-", 8) != 0;
}

/* B news before RFC 850's Message-ID: "Article-I.D.: site.seq" named the
 * article that B news 2.10 called <seq@site.UUCP> (RFC 850, 2.1.5), the
 * form later articles' References use.  NULL when it is not of that form. */
static char *
article_id (const char *raw)
{
  g_autofree char *flat = NULL;
  const char *dot;
  gsize len;

  if (raw == NULL)
    return NULL;
  flat = rfc2047_unfold (raw, strlen (raw), &len);
  g_strstrip (flat);
  dot = strrchr (flat, '.');
  if (dot == NULL || dot == flat || dot[1] == '\0' || strspn (dot + 1, "0123456789") != strlen (dot + 1))
    return NULL;
  for (const char *p = flat; p < dot; p++)
    if (!(g_ascii_isalnum (*p) || *p == '-' || *p == '_'))
      return NULL;
  return g_strdup_printf ("%s@%.*s.UUCP", dot + 1, (int) (dot - flat), flat);
}

/* The first "<…>" of @raw, or all of it, trimmed; NULL when empty. */
static char *
bracketed (const char *raw)
{
  g_autofree char *flat = NULL;
  const char *lt, *gt;
  gsize len;

  flat = rfc2047_unfold (raw, strlen (raw), &len);
  if ((lt = strchr (flat, '<')) != NULL && (gt = strchr (lt + 1, '>')) != NULL)
    return g_strstrip (g_strndup (lt + 1, gt - lt - 1));
  return g_strstrip (g_strdup (flat));
}

/* An address of @text (the first word with an '@' in it), lower case. */
static char *
address_in (const char *text)
{
  g_auto (GStrv) words = g_strsplit_set (text, " \t;,<>()\"", -1);

  for (char **w = words; *w; w++)
    {
      const char *at = strchr (*w, '@');

      if (at != NULL && at != *w && at[1] != '\0')
        return g_ascii_strdown (g_str_has_prefix (*w, "mailto:") ? *w + 7 : *w, -1);
    }
  return NULL;
}

/* The mailing list a message went through, as a group: List-Id's
 * identifier ("Jailhouse <jailhouse-dev.googlegroups.com>" ->
 * jailhouse-dev.googlegroups.com, RFC 2919), else the list's address from
 * X-Mailing-List, Mailing-list ("list foo@bar.org; contact …") or
 * List-Post ("<mailto:foo@bar.org>").  NULL when none says. */
static char *
list_of (const MailHeaders *headers)
{
  static const char *const by_address[] = { "X-Mailing-List", "Mailing-list", "List-Post" };
  const char *raw = mail_headers_get (headers, "List-Id");
  char *name = NULL;

  if (raw != NULL && (name = bracketed (raw)) != NULL && *name != '\0' &&
      strchr (name, ' ') == NULL && g_utf8_validate (name, -1, NULL))
    {
      char *lower = g_ascii_strdown (name, -1);

      g_free (name);
      return lower;
    }
  g_clear_pointer (&name, g_free);
  for (gsize i = 0; i < G_N_ELEMENTS (by_address); i++)
    if ((raw = mail_headers_get (headers, by_address[i])) != NULL)
      {
        g_autofree char *inner = bracketed (raw);

        if ((name = address_in (inner)) != NULL && g_utf8_validate (name, -1, NULL))
          return name;
        g_clear_pointer (&name, g_free);
      }
  return NULL;
}

static void
decode_headers (MailRecord *r, const MailHeaders *headers, const char *fallback)
{
  const char *raw;
  int own = 0;

  for (guint i = 0; i < headers->n; i++)
    {
      if (!is_message_header (&headers->v[i]))
        continue;
      own++;
      if (has_8bit (headers->v[i].value))
        r->flags |= MAIL_FLAG_RAW_8BIT_HEADERS;
    }
  if (own == 0)
    r->flags |= MAIL_FLAG_NO_HEADERS;

  raw = mail_headers_get (headers, "Message-ID");
  r->message_id = raw ? msgid_normalize (raw, strlen (raw)) : NULL;
  if (r->message_id == NULL && (r->message_id = article_id (mail_headers_get (headers, "Article-I.D."))))
    r->flags |= MAIL_FLAG_B_NEWS;
  if (r->message_id && !g_utf8_validate (r->message_id, -1, NULL))
    r->message_id = charset_sanitize_utf8 (r->message_id);
  if (r->message_id == NULL)
    r->flags |= MAIL_FLAG_NO_MESSAGE_ID;

  raw = mail_headers_get (headers, "Subject");
  r->subject = raw ? rfc2047_decode (raw, strlen (raw), fallback) : NULL;

  decode_from (r, mail_headers_get (headers, "From"), fallback);
  undo_list_rewrite (r, headers, fallback);
  if ((raw = mail_headers_get (headers, "Date")) == NULL &&
      (raw = mail_headers_get (headers, "Posted")) != NULL)
    r->flags |= MAIL_FLAG_B_NEWS;   /* B news 2.x: Posted: is the posting date */
  decode_date (r, raw);

  raw = mail_headers_get (headers, "References");
  r->references = raw ? msgid_parse_list (raw, strlen (raw)) : g_ptr_array_new_with_free_func (g_free);
  raw = mail_headers_get (headers, "In-Reply-To");
  r->in_reply_to = raw ? msgid_parse_in_reply_to (raw, strlen (raw)) : g_ptr_array_new_with_free_func (g_free);
  r->newsgroups = split_newsgroups (mail_headers_get (headers, "Newsgroups"));
  if (r->newsgroups->len == 0)
    {
      char *list = list_of (headers);

      if (list != NULL)
        g_ptr_array_add (r->newsgroups, list);
    }
  decode_usenet (&r->usenet, headers);
}

/* A header charset hint: @declared, the first text part's charset, which
 * is what a mailer that wrote raw 8-bit headers most likely used for them
 * too. */
static const char *
header_fallback_charset (const MailHeaders *headers, const char *declared)
{
  g_autoptr (GString) raw = NULL;

  if (declared != NULL && g_ascii_strcasecmp (declared, "us-ascii") != 0)
    return declared;
  /* No 8-bit charset declared: what the raw 8-bit bytes of all the
   * headers together read as.  A name alone ("葉均季" in Big5, 6 bytes)
   * is too little for uchardet; with the Subject it is enough. */
  for (guint i = 0; i < headers->n; i++)
    {
      const char *v = headers->v[i].value;

      if (v != NULL && is_message_header (&headers->v[i]) && has_8bit (v))
        {
          if (raw == NULL)
            raw = g_string_new (NULL);
          g_string_append (raw, v);
        }
    }
  if (raw == NULL || g_utf8_validate (raw->str, raw->len, NULL))
    return declared;
  return charset_detect (raw->str, raw->len);
}

/* Occurrences of @needle in @s, in one pass: memchr() finds its first
 * byte (a strstr() loop is quadratic under AddressSanitizer, whose strstr
 * measures the rest of the string each time: a message of 8 MiB of NULs
 * took minutes). */
static guint
count_bytes_len (const char *s, gsize left, const char *needle)
{
  gsize len = strlen (needle);
  guint n = 0;

  if (s == NULL)
    return 0;
  for (const char *p; left >= len && (p = memchr (s, needle[0], left - len + 1)) != NULL;)
    {
      gsize at = p - s;

      if (memcmp (p, needle, len) == 0)
        {
          n++;
          at += len;
        }
      else
        at++;
      s += at;
      left -= at;
    }
  return n;
}

static guint
count_bytes (const char *s, const char *needle)
{
  return s ? count_bytes_len (s, strlen (s), needle) : 0;
}

/* How much of the text a lossy conversion replaced ("J?rgen", U+FFFD):
 * threading keeps the least damaged of several copies. */
static void
set_damage (MailRecord *r)
{
  static const char fffd[] = "\xef\xbf\xbd";

  r->damage = count_bytes (r->subject, fffd) + count_bytes (r->from_name, fffd) +
              count_bytes_len (r->body, r->body_len, fffd) + count_bytes (r->subject, "?") +
              count_bytes (r->from_name, "?");
}

static void
set_content_hash (MailRecord *r)
{
  guint64 h = FNV_START;

  h = fnv_field (h, r->from_addr, r->from_addr ? strlen (r->from_addr) : 0);
  h = fnv_field (h, r->subject, r->subject ? strlen (r->subject) : 0);
  r->content_hash = fnv_field (h, r->body, r->body_len);
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

/* The fields of a message from its @headers, the @declared charset of
 * its first text part and its extracted @text (taken). */
static void
decode_message (MailRecord *r, const MailHeaders *headers, const char *declared, MailText *text)
{
  decode_headers (r, headers, header_fallback_charset (headers, declared));
  set_body (r, text);
  if (asks_not_to_be_archived (mail_headers_get (headers, "X-No-Archive"), r->body))
    r->flags |= MAIL_FLAG_NO_ARCHIVE;
}

/* A plain text message read without GMime (headers.c): FALSE, with
 * nothing done, when it is not one. */
static gboolean
parse_plain (MailRecord *r, const char *data, gsize len, const char *reading)
{
  MailHeaders headers;
  MailPlainType type;
  MailText text;
  gsize body;

  if (!mail_headers_read (data, len, &headers, &body))
    return FALSE;
  if (!mail_headers_plain_text (&headers, &type))
    {
      mail_headers_clear (&headers);
      return FALSE;
    }
  mail_text_extract_plain (data + body, len - body, type.charset, reading, !type.type_declared,
                           !type.encoding_declared, &text);
  decode_message (r, &headers, type.charset ? type.charset : reading, &text);
  g_free (type.charset);
  mail_headers_clear (&headers);
  return TRUE;
}

/* GMime's reading of a message: FALSE, with nothing done, when it finds
 * no header block. */
static gboolean
parse_gmime (MailRecord *r, const char *data, gsize len, const char *reading)
{
  g_autoptr (GMimeStream) stream = g_mime_stream_mem_new_with_buffer (data, len);
  g_autoptr (GMimeParser) parser = g_mime_parser_new_with_stream (stream);
  g_autoptr (GMimeObject) message = NULL;
  GMimeObject *root;
  GMimePart *part;
  MailHeaders headers;
  MailText text;

  g_return_val_if_fail (parser_options != NULL, FALSE);
  g_mime_parser_set_format (parser, GMIME_FORMAT_MESSAGE);
  /* A MIME entity, not a GMimeMessage: the same headers (and the Content-*
   * ones, is_message_header()) and parts, without the message's own
   * reading of its addresses, date and subject, which deja does itself
   * (a third of GMime's parsing).  GMime fails such an entity where a
   * message is only more lenient (a From-line before its headers is
   * skipped): then it is read as a message. */
  message = g_mime_parser_construct_part (parser, parser_options);
  root = message;
  if (message == NULL)
    {
      g_mime_stream_reset (stream);
      g_clear_object (&parser);
      parser = g_mime_parser_new_with_stream (stream);
      g_mime_parser_set_format (parser, GMIME_FORMAT_MESSAGE);
      message = (GMimeObject *) g_mime_parser_construct_message (parser, parser_options);
      root = message ? g_mime_message_get_mime_part (GMIME_MESSAGE (message)) : NULL;
    }
  if (message == NULL)
    return FALSE;
  part = root ? find_text_part (root, FALSE) : NULL;
  mail_headers_from_gmime (message, &headers);
  mail_text_extract (root, reading, &text);
  {
    const char *declared = part ? g_mime_object_get_content_type_parameter (GMIME_OBJECT (part), "charset")
                                : NULL;

    decode_message (r, &headers, declared ? declared : reading, &text);
  }
  mail_headers_clear (&headers);
  return TRUE;
}

static MailRecord *
record_parse (const char *data, gsize len, gboolean plain, const char *reading)
{
  MailRecord *r = g_atomic_rc_box_new0 (MailRecord);
  g_autofree char *copy = without_nul (data, len, r);
  const char *bytes = copy ? copy : data;

  if (!(plain && parse_plain (r, bytes, len, reading)) && !parse_gmime (r, bytes, len, reading))
    {
      r->flags |= MAIL_FLAG_NO_HEADERS | MAIL_FLAG_NO_MESSAGE_ID | MAIL_FLAG_NO_DATE |
                  MAIL_FLAG_NO_FROM;
      r->body = charset_to_utf8 (data, len, NULL, NULL);
      r->body_len = strlen (r->body);
      r->own_text = g_strdup ("");
      r->own_text_len = 0;
      r->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) text_attachment_free);
      r->references = g_ptr_array_new_with_free_func (g_free);
      r->in_reply_to = g_ptr_array_new_with_free_func (g_free);
      r->newsgroups = g_ptr_array_new_with_free_func (g_free);
    }
  set_content_hash (r);
  set_damage (r);
  r->links = links_find (r->own_text, r->own_text_len, r->date);
  return r;
}

static gboolean
same_strings (const GPtrArray *a, const GPtrArray *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (g_strcmp0 (a->pdata[i], b->pdata[i]) != 0)
      return FALSE;
  return TRUE;
}

static gboolean
same_spans (const GArray *a, const GArray *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->len == b->len &&
         (a->len == 0 || memcmp (a->data, b->data, a->len * sizeof (OwnSpan)) == 0);
}

static gboolean
same_attachments (const GPtrArray *a, const GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const TextAttachment *x = a->pdata[i], *y = b->pdata[i];

      if (g_strcmp0 (x->content_type, y->content_type) != 0 || g_strcmp0 (x->filename, y->filename) != 0 ||
          x->size != y->size || g_strcmp0 (x->encoding, y->encoding) != 0)
        return FALSE;
    }
  return TRUE;
}

/**
 * mail_record_difference:
 *
 * Returns: (nullable): the name of the first field in which @a and @b
 *   differ, or %NULL when they are the same (tests compare the plain
 *   reader with GMime's reading by it)
 */
const char *
mail_record_difference (const MailRecord *a, const MailRecord *b)
{
#define STR(f) if (g_strcmp0 (a->f, b->f) != 0) return #f
  STR (message_id);
  STR (subject);
  STR (from_addr);
  STR (from_name);
  STR (date);
  STR (date_raw);
  STR (body);
  STR (own_text);
  STR (charset);
  STR (usenet.path);
  STR (usenet.control);
  STR (usenet.cancels);
  STR (usenet.supersedes);
  STR (usenet.approved);
  STR (usenet.followup_to);
#undef STR
  if (!same_spans (a->own_spans, b->own_spans))
    return "own_spans";
  if (a->quoted_lines != b->quoted_lines || a->own_lines != b->own_lines)
    return "lines";
  if (!same_attachments (a->attachments, b->attachments))
    return "attachments";
  if (a->content_hash != b->content_hash)
    return "content_hash";
  if (a->damage != b->damage)
    return "damage";
  if (!same_strings (a->references, b->references))
    return "references";
  if (!same_strings (a->in_reply_to, b->in_reply_to))
    return "in_reply_to";
  if (!same_strings (a->newsgroups, b->newsgroups))
    return "newsgroups";
  if ((a->links ? a->links->len : 0) != (b->links ? b->links->len : 0))
    return "links";
  for (guint i = 0; a->links && i < a->links->len; i++)
    if (g_strcmp0 (((Link *) a->links->pdata[i])->normalized, ((Link *) b->links->pdata[i])->normalized) != 0)
      return "links";
  if (a->flags != b->flags)
    return "flags";
  return NULL;
}

/**
 * mail_record_read_envelope:
 * @envelope: (array length=len): the message's envelope line
 *
 * What only the envelope tells about a message whose From the parser
 * could not read: pipermail's "local WORD host", WORD being "at" in the
 * list's language ("en", "em", …), is the address where the envelope
 * shows the same three words (sender_pipermail_localized()).  The
 * record's hashes follow.  Pure.
 */
void
mail_record_read_envelope (MailRecord *r, const char *envelope, gsize len)
{
  char *addr, *name;

  if (!(r->flags & MAIL_FLAG_BAD_FROM) || r->from_addr != NULL || r->from_name == NULL ||
      !sender_pipermail_localized (envelope, len, r->from_name, &addr, &name))
    return;
  g_free (r->from_name);
  r->from_addr = addr;
  r->from_name = name;
  r->flags = (r->flags & ~MAIL_FLAG_BAD_FROM) | MAIL_FLAG_FROM_MUNGED;
  set_content_hash (r);
  set_damage (r);
}

/**
 * mail_record_parse:
 * @data: (array length=len): one message as RFC 5322 text, without an mbox
 *   envelope and with mbox quoting removed (see mbox_span_extract())
 * @len: its length
 *
 * Decodes the fields deja stores.  Never fails: missing or unreadable
 * fields are %NULL and flagged.  mail_init() must have been called.
 * A plain text message (headers.c) is read without GMime, with the same
 * result (tests/test-reader.c).
 *
 * Returns: (transfer full): the record
 */
MailRecord *
mail_record_parse (const char *data, gsize len)
{
  return record_parse (data, len, TRUE, NULL);
}

/**
 * mail_record_parse_reading:
 * @reading: the charset to read undeclared 8-bit text in
 *
 * mail_record_parse(), reading the text whose charset is undeclared (or
 * wrongly declared) in @reading instead of choosing one: for a caller
 * who found the first choice disagrees with the text's language.
 */
MailRecord *
mail_record_parse_reading (const char *data, gsize len, const char *reading)
{
  return record_parse (data, len, TRUE, reading);
}

/**
 * mail_record_parse_gmime:
 *
 * mail_record_parse() with GMime reading every message, plain ones too:
 * what the plain reader is tested against.
 *
 * Returns: (transfer full): the record
 */
MailRecord *
mail_record_parse_gmime (const char *data, gsize len)
{
  return record_parse (data, len, FALSE, NULL);
}
