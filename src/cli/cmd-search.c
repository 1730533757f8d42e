/* cmd-search.c — deja search --db DB QUERY: full-text search. */
#include "deja.h"
#include "output.h"
#include "search-query.h"
#include "store.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_LIMIT 20

typedef enum { FORMAT_TABLE, FORMAT_TSV, FORMAT_JSON } Format;

typedef struct {
  Format format;
  guint64 rows;
  GString *line;
} Printer;

static const char *
value (const StoreValue *v, guint n, const char *name)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (v[i].name, name) == 0)
      return v[i].text;
  return NULL;
}

/* Snippets span lines; a table shows each on one. */
static void
append_one_line (GString *out, const char *text)
{
  gboolean space = FALSE;

  for (const char *p = text ? text : ""; *p; p++)
    {
      if (*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ')
        space = TRUE;
      else
        {
          if (space && out->len && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
          space = FALSE;
          g_string_append_c (out, *p);
        }
    }
}

static void
row_table (Printer *p, const StoreValue *v, guint n)
{
  const char *name = value (v, n, "from_name"), *addr = value (v, n, "from_addr");
  const char *date = value (v, n, "date");

  g_string_append_printf (p->line, "%-19s  ", date ? date : "(no date)");
  if (name && addr)
    g_string_append_printf (p->line, "%s <%s>", name, addr);
  else
    g_string_append (p->line, name ? name : addr ? addr : "(no author)");
  g_string_append (p->line, "  ");
  append_one_line (p->line, value (v, n, "subject"));
  g_string_append_printf (p->line, "\n    [%s] ", value (v, n, "id"));
  append_one_line (p->line, value (v, n, "snippet"));
  g_string_append_c (p->line, '\n');
}

static void
row_tsv (Printer *p, const StoreValue *v, guint n)
{
  if (p->rows == 0)
    {
      for (guint i = 0; i < n; i++)
        g_string_append_printf (p->line, "%s%c", v[i].name, i + 1 < n ? '\t' : '\n');
    }
  for (guint i = 0; i < n; i++)
    {
      output_tsv_field (p->line, v[i].text);
      g_string_append_c (p->line, i + 1 < n ? '\t' : '\n');
    }
}

static void
row_json (Printer *p, const StoreValue *v, guint n)
{
  g_string_append (p->line, p->rows == 0 ? "[\n  " : ",\n  ");
  output_json_object (p->line, v, n);
}

static gboolean
print_row (const StoreValue *v, guint n, gpointer user_data)
{
  Printer *p = user_data;

  g_string_truncate (p->line, 0);
  if (p->format == FORMAT_TABLE)
    row_table (p, v, n);
  else if (p->format == FORMAT_TSV)
    row_tsv (p, v, n);
  else
    row_json (p, v, n);
  fwrite (p->line->str, 1, p->line->len, stdout);
  p->rows++;
  return TRUE;
}

static gboolean
parse_format (const char *s, Format *format)
{
  if (s == NULL || strcmp (s, "table") == 0)
    *format = FORMAT_TABLE;
  else if (strcmp (s, "tsv") == 0)
    *format = FORMAT_TSV;
  else if (strcmp (s, "json") == 0)
    *format = FORMAT_JSON;
  else
    return FALSE;
  return TRUE;
}

static int
run_search (Store *store, const StoreFilter *filter, const char *typed, Format format)
{
  g_autoptr (GError) error = NULL;
  /* Bold hits on a terminal, unless NO_COLOR says no (https://no-color.org). */
  gboolean bold = format == FORMAT_TABLE && isatty (STDOUT_FILENO) &&
                  (g_getenv ("NO_COLOR") == NULL || *g_getenv ("NO_COLOR") == '\0');
  Printer p = { format, 0, g_string_new (NULL) };
  gboolean ok = store_search (store, filter, bold ? "\033[1m" : "[", bold ? "\033[0m" : "]",
                              print_row, &p, &error);

  if (format == FORMAT_JSON)
    fputs (p.rows ? "\n]\n" : "[]\n", stdout);
  g_string_free (p.line, TRUE);
  if (!ok)
    {
      deja_error ("%s", error->message);
      return g_error_matches (error, STORE_ERROR, STORE_ERROR_QUERY) ? DEJA_EXIT_USAGE
                                                                     : DEJA_EXIT_FAILED;
    }
  if (p.rows == 0)
    deja_note ("no messages match '%s'", typed);
  else if (filter->limit > 0 && p.rows == (guint64) filter->limit)
    deja_note ("showing the first %" G_GUINT64_FORMAT " matches (--limit)", p.rows);
  return DEJA_EXIT_OK;
}

int
cmd_search (int argc, char **argv)
{
  g_autofree char *db = NULL, *format_name = NULL;
  g_autofree char *query = NULL;
  gint64 limit = DEFAULT_LIMIT;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "limit", 'n', 0, G_OPTION_ARG_INT64, &limit, "at most N matches, best first (default 20; 0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", "table|tsv|json" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("QUERY... — full-text search");
  g_autoptr (Store) store = NULL;
  StoreFilter filter = { 0 };
  SearchQuery parsed;
  g_auto (DejaFilter) options = { 0 };
  g_autoptr (GError) error = NULL;
  Format format;

  g_option_context_add_main_entries (context, entries, NULL);
  deja_filter_add_options (context, &options);
  g_option_context_set_description (context,
    "Searches the subject and the author's own text (quotes and signatures removed) with\n"
    "SQLite FTS5: words are matched by stem (porter), case and accents aside.  Plain words\n"
    "are words (e-mail, don't, C++, twisted.internet, reactor.run() are searched as\n"
    "written); \"exact phrase\", AND, OR, NOT, prefix*, NEAR(a b, 5), (grouping) and\n"
    "subject:word keep their FTS5 meaning.  from:TEXT (address or name), group:GLOB,\n"
    "since:DATE and until:DATE narrow the search; they alone list the messages they let\n"
    "through, newest first.  Several QUERY arguments are joined with spaces (all must\n"
    "match).  A post present in several files (a cross-post) is shown once.\n\n"
    "Table output: date, author, subject, then the message id and a snippet with the hits\n"
    "marked [like this] (bold on a terminal).  TSV and JSON give the columns id, date,\n"
    "from_name, from_addr, subject, snippet, file, byte_offset.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (argc < 2)
    return deja_usage_error (context, "a search query is required");
  if (!parse_format (format_name, &format))
    return deja_usage_error (context, "--format must be table, tsv or json");
  if (limit < 0)
    return deja_usage_error (context, "--limit must be 0 or more");
  query = g_strjoinv (" ", argv + 1);
  if (!search_query_parse (query, &parsed, &error))
    return deja_usage_error (context, "%s", error->message);
  if ((status = deja_filter_finish (context, &options, &parsed, &filter)) == 0)
    {
      filter.match = parsed.match;
      filter.limit = limit;
      status = (store = deja_open_store_to_read (db)) == NULL ? DEJA_EXIT_FAILED
               : run_search (store, &filter, query, format);
    }
  search_query_clear (&parsed);
  return status;
}
