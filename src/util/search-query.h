/* search-query.h — what a researcher types, as an FTS5 query and filters. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SearchQuery {
  char *match;     /* FTS5 expression, or NULL when only filters were given */
  char *author;    /* from: text (address or name, a substring), or NULL */
  char *group;     /* group: glob, or NULL */
  char *since;     /* after: / since: date, or NULL */
  char *until;     /* before: / until: date, or NULL */
  char *lang;      /* lang: language code (messages.lang), or NULL */
} SearchQuery;

gboolean search_query_parse (const char *text, SearchQuery *query, GError **error);
void search_query_clear (SearchQuery *query);
char *search_query_tsquery (const char *match);

G_END_DECLS
