/* pseudonym.c — keyed pseudonyms (HMAC-SHA-256, nettle) and redaction.
 *
 * Key files hold 32 random bytes as 64 hexadecimal digits (deja keygen),
 * readable by their owner only.  Any other file of 32 bytes or more is
 * taken as the key bytes themselves (a passphrase file a team shares).
 */
#include "pseudonym.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define KEY_BYTES 32
/* 64 bits of the HMAC: no collision expected below four billion authors. */
#define PSEUDONYM_HEX 16

struct _Pseudonymiser {
  guint8 key[256];
  gsize key_len;
};

static char *
hex (const guint8 *bytes, gsize n)
{
  GString *s = g_string_sized_new (2 * n);

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, "%02x", bytes[i]);
  return g_string_free (s, FALSE);
}

/**
 * pseudonym_key_create:
 * @path: a file that must not exist yet
 *
 * Writes a new random key, mode 0600.
 */
gboolean
pseudonym_key_create (const char *path, GError **error)
{
  guint8 key[KEY_BYTES];
  g_autofree char *text = NULL;
  gsize len;
  int fd;

  if (getrandom (key, sizeof key, 0) != (ssize_t) sizeof key)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "cannot draw a random key: %s", g_strerror (errno));
      return FALSE;
    }
  text = hex (key, sizeof key);
  len = strlen (text);
  text = g_realloc (text, len + 2);
  text[len++] = '\n', text[len] = '\0';
  if ((fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "cannot create '%s': %s",
                   path, errno == EEXIST ? "it exists (a key is never overwritten)" : g_strerror (errno));
      return FALSE;
    }
  if (write (fd, text, len) != (ssize_t) len || fsync (fd) != 0)
    {
      int saved = errno;
      close (fd);
      g_unlink (path);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "cannot write '%s': %s",
                   path, g_strerror (saved));
      return FALSE;
    }
  return close (fd) == 0;
}

static gboolean
all_hex (const char *s, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isxdigit (s[i]))
      return FALSE;
  return TRUE;
}

/**
 * pseudonymiser_new:
 * @key_path: a key file (deja keygen), or any file of 32 bytes or more
 */
Pseudonymiser *
pseudonymiser_new (const char *key_path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  Pseudonymiser *p;

  if (!g_file_get_contents (key_path, &text, &len, error))
    return NULL;
  while (len > 0 && g_ascii_isspace (text[len - 1]))
    len--;
  p = g_new0 (Pseudonymiser, 1);
  if (len == 2 * KEY_BYTES && all_hex (text, len))
    {
      for (gsize i = 0; i < KEY_BYTES; i++)
        p->key[i] = (guint8) (g_ascii_xdigit_value (text[2 * i]) * 16 + g_ascii_xdigit_value (text[2 * i + 1]));
      p->key_len = KEY_BYTES;
    }
  else if (len >= KEY_BYTES)
    {
      p->key_len = MIN (len, sizeof p->key);
      memcpy (p->key, text, p->key_len);
    }
  else
    {
      g_free (p);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "'%s' is too short for a key (32 bytes at least; 'deja keygen FILE' makes one)", key_path);
      return NULL;
    }
  return p;
}

void
pseudonymiser_free (Pseudonymiser *p)
{
  if (p == NULL)
    return;
  memset (p->key, 0, sizeof p->key);
  g_free (p);
}

static void
hmac (const Pseudonymiser *p, const char *domain, const char *text, guint8 digest[SHA256_DIGEST_SIZE])
{
  struct hmac_sha256_ctx ctx;

  hmac_sha256_set_key (&ctx, p->key_len, p->key);
  /* The domain keeps an author's pseudonym apart from a Message-ID's. */
  hmac_sha256_update (&ctx, strlen (domain) + 1, (const guint8 *) domain);
  hmac_sha256_update (&ctx, strlen (text), (const guint8 *) text);
  hmac_sha256_digest (&ctx, SHA256_DIGEST_SIZE, digest);
}

/* "p3fa9c2e1b0d4a7f1": the author whose primary address is @address. */
char *
pseudonym_for (const Pseudonymiser *p, const char *address)
{
  guint8 digest[SHA256_DIGEST_SIZE];
  g_autofree char *lower = g_ascii_strdown (address, -1);
  g_autofree char *h = NULL;

  hmac (p, "author", lower, digest);
  h = hex (digest, PSEUDONYM_HEX / 2);
  return g_strconcat ("p", h, NULL);
}

/* A Message-ID (which may hold an address or a host) as a keyed hash:
 * references still link up, nothing can be read back. */
char *
pseudonym_message_id (const Pseudonymiser *p, const char *message_id)
{
  guint8 digest[SHA256_DIGEST_SIZE];
  g_autofree char *h = NULL;

  hmac (p, "message-id", message_id, digest);
  h = hex (digest, 12);
  return g_strconcat (h, "@pseudonymised.invalid", NULL);
}

/* Names the key without giving it away: the first bytes of the HMAC of a
 * fixed text.  The same in every data statement made with one key. */
char *
pseudonym_key_id (const Pseudonymiser *p)
{
  guint8 digest[SHA256_DIGEST_SIZE];

  hmac (p, "key-id", "deja", digest);
  return hex (digest, 4);
}

/* ---- redaction ---- */

/* Addresses as written, and in every form deja's sender parser reads
 * (parsers/sender.c): as list archives munge them ("ann at example.com",
 * "ann at example dot com"), as people munged them by hand against spam
 * ("ann (at) example (dot) com", "[at]", "{at}", "<at>", "_at_", "AT",
 * "DOT", glued or spaced), with a quoted local part ("ann smith"@x.org)
 * and with an address literal (ann@[192.0.2.1]).  Over-redaction ("look
 * at python.org") is the safe side. */
#define AT_WORD "(?:[(\\[{<]\\s*(?i:at)\\s*[)\\]}>]|_(?i:at)_)"
#define DOT_WORD "(?:[(\\[{<]\\s*(?i:dot)\\s*[)\\]}>]|_(?i:dot)_)"
#define AT_SEP "(?:[ \\t]*@[ \\t]*|[ \\t]+(?i:at)[ \\t]+|[ \\t]*" AT_WORD "[ \\t]*)"
#define DOT_SEP "(?:\\.|[ \\t]+(?i:dot)[ \\t]+|[ \\t]*" DOT_WORD "[ \\t]*)"
static const char address_pattern[] =
  "(?:\"[^\"\\r\\n]{1,64}\"|[A-Za-z0-9._%+=-]+)" AT_SEP
  "(?:\\[[0-9A-Fa-f.:]+\\]|[A-Za-z0-9-]+(?:" DOT_SEP "[A-Za-z0-9-]+)*" DOT_SEP "[A-Za-z]{2,})";

/* Telephone numbers: groups of digits joined by single separators (or a
 * bracketed area code), 9 to 15 digits in all; dates, IP addresses and
 * version numbers are left alone (replace_phone), and so are the columns
 * of a pasted table (two spaces are not a separator). */
static const char phone_pattern[] =
  "(?<![\\w.+/-])(?:\\+|00)?(?:\\(\\d{1,5}\\)[ .-]?)?\\d{1,5}(?:[ .\\-/]\\(?\\d{1,8}\\)?){1,5}(?![\\w/])";

static GRegex *
compiled (GRegex **slot, const char *pattern)
{
  if (g_once_init_enter (slot))
    g_once_init_leave (slot, g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, NULL));
  return *slot;
}

static gboolean
replace_address (const GMatchInfo *m, GString *out, gpointer data)
{
  ((RedactCounts *) data)->addresses++;
  g_string_append (out, "[address]");
  return FALSE;
}

static gboolean
replace_phone (const GMatchInfo *m, GString *out, gpointer data)
{
  g_autofree char *s = g_match_info_fetch (m, 0);
  guint digits = 0, separators = 0;
  gboolean date = g_regex_match_simple ("^\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}", s, 0, 0) ||
                  g_regex_match_simple ("^\\d{1,2}[-/.]\\d{1,2}[-/.]\\d{2,4}", s, 0, 0) ||
                  g_regex_match_simple ("^\\d{1,3}(\\.\\d{1,3}){3}", s, 0, 0) ||   /* IPv4 */
                  g_regex_match_simple ("^\\d+(\\.\\d+)+$", s, 0, 0);            /* versions */
  for (const char *p = s; *p; p++)
    digits += g_ascii_isdigit (*p), separators += !g_ascii_isdigit (*p);
  if (date || digits < 9 || digits > 15 || separators == 0)
    {
      g_string_append (out, s);
      return FALSE;
    }
  ((RedactCounts *) data)->phones++;
  g_string_append (out, "[phone]");
  return FALSE;
}

/**
 * redact_text:
 * @counts: (inout): incremented by what was replaced
 *
 * Returns: (transfer full) (nullable): @text with addresses replaced by
 *   "[address]" and telephone numbers by "[phone]"; %NULL for %NULL
 */
char *
redact_text (const char *text, RedactCounts *counts)
{
  static GRegex *address, *phone;
  g_autofree char *step = NULL;

  if (text == NULL)
    return NULL;
  step = g_regex_replace_eval (compiled (&address, address_pattern), text, -1, 0, 0, replace_address,
                               counts, NULL);
  if (step == NULL)
    return g_strdup ("[redacted: unreadable text]");
  return g_regex_replace_eval (compiled (&phone, phone_pattern), step, -1, 0, 0, replace_phone,
                               counts, NULL);
}
