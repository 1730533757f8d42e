/* links.c — links cited in text, as a reader of the 1990s wrote them.
 *
 * Found: URLs with a scheme of the web and its elders (http, https, ftp,
 * gopher, telnet, wais, nntp), RFC 1738's "<URL:…>" wrapping, and
 * "www.host/…" written without a scheme (read as http).  A URL ends at
 * white space, a quote or an angle bracket; a closing parenthesis it did
 * not open, and punctuation at its end (".", ",", ";", ":", "!", "?",
 * "'"), belong to the sentence.  The registered domain ("bbc.co.uk" of
 * "news.bbc.co.uk") comes from the public suffix list (libpsl, with the
 * list Debian keeps up to date).  The Wayback Machine address is computed
 * from the message's date, never fetched: the archive redirects it to its
 * copy nearest that moment.
 */
#include "links.h"

#include <libpsl.h>
#include <string.h>

void
link_free (Link *link)
{
  if (link == NULL)
    return;
  g_free (link->url);
  g_free (link->normalized);
  g_free (link->host);
  g_free (link->domain);
  g_free (link->wayback);
  g_free (link);
}

static const char *const schemes[] = { "http", "https", "ftp", "gopher", "telnet", "wais", "nntp" };

/* The length of the scheme ending at @colon ("http" of "http://"), when
 * it is one of ours and starts a word; else 0. */
static gsize
scheme_before (const char *text, const char *colon)
{
  for (gsize i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      gsize n = strlen (schemes[i]);
      const char *start = colon - n;

      if (colon - text >= (gssize) n && g_ascii_strncasecmp (start, schemes[i], n) == 0 &&
          (start == text || !g_ascii_isalnum (start[-1])))
        return n;
    }
  return 0;
}

static gboolean
ends_url (char c)
{
  return g_ascii_isspace (c) || c == '"' || c == '<' || c == '>' || c == '\0' || c == '`' ||
         c == '{' || c == '}' || c == '|' || c == '\\' || c == '^' || (guchar) c < 0x20;
}

/* The end of a URL starting at @p (exclusive), before @end. */
static const char *
url_end (const char *p, const char *end)
{
  const char *q = p;
  int open = 0;

  while (q < end && !ends_url (*q))
    {
      if (*q == '(')
        open++;
      else if (*q == ')' && open-- == 0)
        break;
      q++;
    }
  while (q > p && strchr (".,;:!?'*", q[-1]) != NULL)
    q--;
  return q;
}

static char *
lower (const char *p, gsize n)
{
  char *s = g_strndup (p, n);

  for (char *c = s; *c; c++)
    *c = g_ascii_tolower (*c);
  return s;
}

/* Splits @url ("scheme://authority/rest") and normalises it; FALSE when it
 * has no host worth the name. */
static gboolean
normalize (const char *url, char **normalized, char **host)
{
  const char *sep = strstr (url, "://"), *auth, *auth_end, *at, *port, *hash;
  g_autofree char *scheme = NULL, *h = NULL;
  GString *out;
  gsize hlen;

  if (sep == NULL)
    return FALSE;
  scheme = lower (url, sep - url);
  auth = sep + 3;
  auth_end = auth + strcspn (auth, "/?#");
  /* userinfo@host:port */
  at = memchr (auth, '@', auth_end - auth);
  if (at != NULL)
    auth = at + 1;
  port = memchr (auth, ':', auth_end - auth);
  hlen = (port ? port : auth_end) - auth;
  while (hlen > 0 && auth[hlen - 1] == '.')
    hlen--;
  if (hlen == 0)
    return FALSE;
  h = lower (auth, hlen);
  for (const char *c = h; *c; c++)
    if (!(g_ascii_isalnum (*c) || *c == '-' || *c == '.' || *c == '_' || (guchar) *c >= 0x80))
      return FALSE;
  out = g_string_new (scheme);
  g_string_append (out, "://");
  if (at != NULL)
    g_string_append_len (out, sep + 3, at + 1 - (sep + 3));
  g_string_append (out, h);
  if (port != NULL)
    {
      g_autofree char *p = g_strndup (port + 1, auth_end - port - 1);
      gboolean standard = (strcmp (scheme, "http") == 0 && strcmp (p, "80") == 0) ||
                          (strcmp (scheme, "https") == 0 && strcmp (p, "443") == 0) ||
                          (strcmp (scheme, "ftp") == 0 && strcmp (p, "21") == 0) ||
                          (strcmp (scheme, "gopher") == 0 && strcmp (p, "70") == 0) || *p == '\0';

      if (!standard)
        g_string_append_printf (out, ":%s", p);
    }
  hash = strchr (auth_end, '#');
  if (*auth_end != '/')
    g_string_append_c (out, '/');
  g_string_append_len (out, auth_end, hash ? (gsize) (hash - auth_end) : strlen (auth_end));
  *normalized = g_string_free (out, FALSE);
  *host = g_steal_pointer (&h);
  return TRUE;
}

static const psl_ctx_t *
public_suffixes (void)
{
  static gsize done;
  static const psl_ctx_t *psl;

  if (g_once_init_enter (&done))
    {
      psl = psl_latest (NULL);
      if (psl == NULL)
        psl = psl_builtin ();
      g_once_init_leave (&done, 1);
    }
  return psl;
}

/**
 * links_registered_domain:
 * @host: a host name, lower case
 *
 * Returns: (transfer full) (nullable): the domain a registrant holds
 *   ("bbc.co.uk" of "news.bbc.co.uk", "example.com" of "www.example.com"),
 *   or %NULL for an address, a public suffix alone or a name with no dot
 */
char *
links_registered_domain (const char *host)
{
  const psl_ctx_t *psl = public_suffixes ();
  const char *domain;
  gboolean digits = TRUE;

  if (host == NULL || strchr (host, '.') == NULL)
    return NULL;
  for (const char *c = host; *c; c++)
    digits = digits && (g_ascii_isdigit (*c) || *c == '.');
  if (digits || psl == NULL)
    return NULL;
  domain = psl_registrable_domain (psl, host);
  return domain ? g_strdup (domain) : NULL;
}

/**
 * links_wayback:
 * @normalized: a normalised URL
 * @date: (nullable): the citing message's date, ISO 8601 UTC
 *
 * Returns: (transfer full) (nullable): the Wayback Machine's address of the
 *   copy nearest @date (as precise as @date is), or %NULL when undated
 */
char *
links_wayback (const char *normalized, const char *date)
{
  GString *stamp;

  if (date == NULL || !g_ascii_isdigit (date[0]))
    return NULL;
  stamp = g_string_new ("https://web.archive.org/web/");
  for (const char *c = date; *c && stamp->len < 28 + 14; c++)
    if (g_ascii_isdigit (*c))
      g_string_append_c (stamp, *c);
  g_string_append_c (stamp, '/');
  g_string_append (stamp, normalized);
  return g_string_free (stamp, FALSE);
}

static Link *
make_link (const char *p, gsize n, gboolean add_http, const char *date)
{
  g_autofree char *url = g_strndup (p, n);
  g_autofree char *full = add_http ? g_strconcat ("http://", url, NULL) : NULL;
  Link *link;
  char *normalized, *host;

  if (!normalize (full ? full : url, &normalized, &host))
    return NULL;
  link = g_new0 (Link, 1);
  link->url = g_steal_pointer (&url);
  link->normalized = normalized;
  link->host = host;
  link->domain = links_registered_domain (host);
  link->wayback = links_wayback (normalized, date);
  return link;
}

/**
 * links_find:
 * @text: UTF-8 text (a message's own text)
 * @date: (nullable): the message's date, for the Wayback address
 *
 * Returns: (transfer full) (element-type Link): the links of @text, in
 *   text order (a link written twice is there twice)
 */
GPtrArray *
links_find (const char *text, gsize len, const char *date)
{
  GPtrArray *links = g_ptr_array_new_with_free_func ((GDestroyNotify) link_free);
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *colon = memchr (p, ':', end - p);
      const char *www = NULL;
      const char *start, *stop;
      Link *link = NULL;

      /* "www." without a scheme, before the next colon */
      for (const char *w = p; w + 4 <= (colon ? colon : end); w++)
        {
          w = memchr (w, 'w', (colon ? colon : end) - w);
          if (w == NULL || w + 4 > end)
            break;
          if (g_ascii_strncasecmp (w, "www.", 4) == 0 && (w == text || !(g_ascii_isalnum (w[-1]) ||
                                                                         w[-1] == '/' || w[-1] == '.' ||
                                                                         w[-1] == '@' || w[-1] == '-')))
            {
              www = w;
              break;
            }
        }
      if (www != NULL)
        {
          stop = url_end (www, end);
          if (stop - www > 4 && (link = make_link (www, stop - www, TRUE, date)) != NULL)
            g_ptr_array_add (links, link);
          p = MAX (stop, www + 4);
          continue;
        }
      if (colon == NULL)
        break;
      if (end - colon >= 3 && colon[1] == '/' && colon[2] == '/')
        {
          gsize n = scheme_before (text, colon);

          if (n > 0)
            {
              start = colon - n;
              stop = url_end (start, end);
              if (stop > colon + 3 && (link = make_link (start, stop - start, FALSE, date)) != NULL)
                g_ptr_array_add (links, link);
              p = MAX (stop, colon + 1);
              continue;
            }
        }
      p = colon + 1;
    }
  return links;
}
