/* links.h — links cited in text, as a reader of the 1990s wrote them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *url;          /* as written (without "<URL:" and ">") */
  char *normalized;   /* scheme and host lower case, default port, fragment and
                       * trailing dot gone, "/" for an empty path */
  char *host;         /* lower case, or NULL */
  char *domain;       /* registered domain (public suffix list), or NULL */
  char *wayback;      /* https://web.archive.org/web/STAMP/NORMALIZED, or NULL */
} Link;

void link_free (Link *link);
GPtrArray *links_find (const char *text, gsize len, const char *date);
char *links_registered_domain (const char *host);
char *links_wayback (const char *normalized, const char *date);

G_END_DECLS
