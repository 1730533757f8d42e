/* test-links.c — links cited in text (parsers/links.c), by the rules of
 * docs/links.md: each form, each end, each normalisation. */
#include <glib.h>
#include <string.h>

#include "links.h"

typedef struct {
  const char *text;
  const char *expect;   /* "url|normalized|host|domain" per link, ";" between */
} Case;

static const Case cases[] = {
  { "see http://www.example.com/a.html.", "http://www.example.com/a.html|http://www.example.com/a.html|www.example.com|example.com" },
  { "<URL:http://WWW.Example.COM:80/~ann/#top>", "http://WWW.Example.COM:80/~ann/#top|http://www.example.com/~ann/|www.example.com|example.com" },
  { "go to www.bbc.co.uk/news, then", "www.bbc.co.uk/news|http://www.bbc.co.uk/news|www.bbc.co.uk|bbc.co.uk" },
  { "(http://en.wikipedia.org/wiki/A_(b))", "http://en.wikipedia.org/wiki/A_(b)|http://en.wikipedia.org/wiki/A_(b)|en.wikipedia.org|wikipedia.org" },
  { "ftp://ftp.funet.fi:21/pub", "ftp://ftp.funet.fi:21/pub|ftp://ftp.funet.fi/pub|ftp.funet.fi|funet.fi" },
  { "gopher://gopher.tc.umn.edu:70", "gopher://gopher.tc.umn.edu:70|gopher://gopher.tc.umn.edu/|gopher.tc.umn.edu|umn.edu" },
  { "http://host.example.org:8080/x?y=1", "http://host.example.org:8080/x?y=1|http://host.example.org:8080/x?y=1|host.example.org|example.org" },
  { "http://10.0.0.1/admin", "http://10.0.0.1/admin|http://10.0.0.1/admin|10.0.0.1|" },
  { "http://localhost/", "http://localhost/|http://localhost/|localhost|" },
  { "user:pass http://ann:secret@example.net/ x", "http://ann:secret@example.net/|http://ann:secret@example.net/|example.net|example.net" },
  { "mailto:ann@example.org news:comp.lang.c", "" },
  { "xhttp://no.example/ and http:// alone", "" },
  { "email ann@www.example.org or /www.not-here", "" },
  { "https://example.com\"quoted\" and https://a.example.com'", "https://example.com|https://example.com/|example.com|example.com;https://a.example.com|https://a.example.com/|a.example.com|example.com" },
  { "twice: http://x.example.com/ http://x.example.com/", "http://x.example.com/|http://x.example.com/|x.example.com|example.com;http://x.example.com/|http://x.example.com/|x.example.com|example.com" },
};

static void
test_cases (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) links = links_find (cases[i].text, strlen (cases[i].text), NULL);
      g_autoptr (GString) got = g_string_new (NULL);

      for (guint k = 0; k < links->len; k++)
        {
          const Link *l = g_ptr_array_index (links, k);

          g_string_append_printf (got, "%s%s|%s|%s|%s", k ? ";" : "", l->url, l->normalized,
                                  l->host ? l->host : "", l->domain ? l->domain : "");
          g_assert_null (l->wayback);   /* undated: no Wayback address */
        }
      g_test_message ("%s", cases[i].text);
      g_assert_cmpstr (got->str, ==, cases[i].expect);
    }
}

static void
test_wayback (void)
{
  g_autofree char *full = links_wayback ("http://www.example.com/", "1996-05-01T08:00:00");
  g_autofree char *day = links_wayback ("http://www.example.com/", "1996-05-01");
  g_autofree char *none = links_wayback ("http://www.example.com/", NULL);

  g_assert_cmpstr (full, ==, "https://web.archive.org/web/19960501080000/http://www.example.com/");
  g_assert_cmpstr (day, ==, "https://web.archive.org/web/19960501/http://www.example.com/");
  g_assert_null (none);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/links/forms", test_cases);
  g_test_add_func ("/links/wayback", test_wayback);
  return g_test_run ();
}
