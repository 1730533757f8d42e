/* cmd-search.c — deja search --db DB QUERY: full-text search. */
#include "deja.h"
#include "output.h"
#include "pg.h"
#include "rows.h"
#include "search-query.h"
#include "store.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_LIMIT 20

typedef struct {
  RowFormat format;
  StoreSearchMode mode;
  guint64 rows;
  GString *line;
  RowWriter *writer;        /* tsv, csv, json */
} Printer;

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
append_author (GString *out, const StoreValue *v, guint n)
{
  const char *name = row_get (v, n, "from_name"), *addr = row_get (v, n, "from_addr");

  if (name && addr)
    g_string_append_printf (out, "%s <%s>", name, addr);
  else
    g_string_append (out, name ? name : addr ? addr : "(no author)");
}

static void
row_table (Printer *p, const StoreValue *v, guint n)
{
  const char *date = row_get (v, n, "date");

  g_string_append_printf (p->line, "%-19s  ", date ? date : "(no date)");
  append_author (p->line, v, n);
  g_string_append (p->line, "  ");
  append_one_line (p->line, row_get (v, n, "subject"));
  if (row_get (v, n, "db"))
    g_string_append_printf (p->line, "\n    [%s in %s] ", row_get (v, n, "id"), row_get (v, n, "db"));
  else
    g_string_append_printf (p->line, "\n    [%s] ", row_get (v, n, "id"));
  append_one_line (p->line, row_get (v, n, "snippet"));
  g_string_append_c (p->line, '\n');
}

/* A thread: its start, its size and span, then its best hit. */
static void
thread_table (Printer *p, const StoreValue *v, guint n)
{
  const char *first = row_get (v, n, "first_date"), *last = row_get (v, n, "last_date");
  const char *hits = row_get (v, n, "hits");

  g_string_append_printf (p->line, "thread %s  ", row_get (v, n, "thread_id"));
  append_one_line (p->line, row_get (v, n, "subject") ? row_get (v, n, "subject") : "(no subject)");
  g_string_append (p->line, "  (");
  append_author (p->line, v, n);
  g_string_append_printf (p->line, ")\n    %s of %s messages %s, %s to %s\n    [%s] ",
                          hits, row_get (v, n, "messages"),
                          strcmp (hits, "1") == 0 ? "matches" : "match",
                          first ? first : "?", last ? last : "?", row_get (v, n, "id"));
  append_one_line (p->line, row_get (v, n, "snippet"));
  g_string_append_c (p->line, '\n');
}

/* rank is for merging the results of several databases; one database
 * prints the columns without it. */
static guint
without_rank (const StoreValue *v, guint n)
{
  return n > 0 && strcmp (v[n - 1].name, "rank") == 0 ? n - 1 : n;
}

/* The row's texts as a terminal may show them (output_terminal_text()):
 * a subject or a snippet can hold escape sequences.  The snippet's own
 * bold markers are put back. */
static StoreValue *
for_terminal (const StoreValue *v, guint n, GPtrArray *owned)
{
  StoreValue *shown = g_memdup2 (v, n * sizeof *v);

  for (guint i = 0; i < n; i++)
    if (shown[i].text != NULL && !shown[i].number)
      {
        char *text = output_terminal_copy (shown[i].text);

        if (strcmp (shown[i].name, "snippet") == 0 && strstr (text, "^[[") != NULL)
          {
            g_autoptr (GString) s = g_string_new (text);

            g_string_replace (s, "^[[1m", "\033[1m", 0);
            g_string_replace (s, "^[[0m", "\033[0m", 0);
            g_free (text);
            text = g_string_free (g_steal_pointer (&s), FALSE);
          }
        g_ptr_array_add (owned, text);
        shown[i].text = text;
      }
  return shown;
}

static gboolean
print_row (const StoreValue *stored, guint n, gpointer user_data)
{
  Printer *p = user_data;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autofree StoreValue *v = NULL;

  n = without_rank (stored, n);
  p->rows++;
  if (p->writer)
    {
      row_writer_add (p->writer, stored, n);
      return TRUE;
    }
  v = for_terminal (stored, n, owned);
  g_string_truncate (p->line, 0);
  if (p->mode == STORE_SEARCH_COUNT)
    g_string_append_printf (p->line, "%s %s in %s %s\n", row_get (v, n, "messages"),
                            g_strcmp0 (row_get (v, n, "messages"), "1") ? "messages" : "message",
                            row_get (v, n, "threads"),
                            g_strcmp0 (row_get (v, n, "threads"), "1") ? "threads" : "thread");
  else if (p->mode == STORE_SEARCH_THREADS)
    thread_table (p, v, n);
  else
    row_table (p, v, n);
  fwrite (p->line->str, 1, p->line->len, stdout);
  return TRUE;
}

/* Several databases (shards): each is searched with the same limit, and
 * the rows are merged by rank (the best first), then date, newest first;
 * without words, by date.  Counts are sums. */
typedef struct {
  const char *db;
  GPtrArray *rows;       /* of RowCopy */
} Gather;

static gboolean
gather_row (const StoreValue *v, guint n, gpointer data)
{
  Gather *g = data;

  g_ptr_array_add (g->rows, row_copy_new (v, n, "db", g->db));
  return TRUE;
}

static double
row_number (const RowCopy *row, const char *name)
{
  const char *text = row_get (row->values, row->n, name);

  return text ? g_ascii_strtod (text, NULL) : 0;
}

/* With words: rank (bm25, lower is better; a thread's best is its best
 * hit's rank), then date, newest first.  Without: date, newest first (a
 * thread's best is its last date). */
static int
by_rank_then_date (gconstpointer a, gconstpointer b, gpointer data)
{
  const RowCopy *x = *(RowCopy *const *) a, *y = *(RowCopy *const *) b;
  gboolean words = *(const gboolean *) data;
  gboolean threads = row_get (x->values, x->n, "best") != NULL;
  const char *date = threads ? "last_date" : "date";

  if (words)
    {
      double rx = row_number (x, threads ? "best" : "rank");
      double ry = row_number (y, threads ? "best" : "rank");

      if (rx != ry)
        return rx < ry ? -1 : 1;
    }
  return -g_strcmp0 (row_get (x->values, x->n, date), row_get (y->values, y->n, date));
}

static int
run_search_many (char **dbs, const StoreFilter *filter, const char *typed, StoreSearchMode mode,
                 RowFormat format)
{
  gboolean bold = format == ROW_FORMAT_TABLE && deja_use_colour ();
  Printer p = { format, mode, 0, g_string_new (NULL), NULL };
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_copy_free);
  gint64 messages = 0, threads = 0;
  int status = DEJA_EXIT_OK;

  for (guint i = 0; dbs[i]; i++)
    {
      g_autoptr (Store) store = deja_open_store_to_read (dbs[i]);
      g_autoptr (GError) error = NULL;
      Gather g = { dbs[i], rows };

      if (store == NULL)
        return DEJA_EXIT_FAILED;
      if (!store_search (store, filter, mode, bold ? "\033[1m" : "[", bold ? "\033[0m" : "]",
                         gather_row, &g, &error))
        {
          deja_error ("'%s': %s", dbs[i], error->message);
          return g_error_matches (error, STORE_ERROR, STORE_ERROR_QUERY) ? DEJA_EXIT_USAGE
                                                                         : DEJA_EXIT_FAILED;
        }
    }
  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  if (mode == STORE_SEARCH_COUNT)
    {
      g_autofree char *m = NULL, *t = NULL;

      for (guint i = 0; i < rows->len; i++)
        {
          messages += (gint64) row_number (rows->pdata[i], "messages");
          threads += (gint64) row_number (rows->pdata[i], "threads");
        }
      m = g_strdup_printf ("%" G_GINT64_FORMAT, messages);
      t = g_strdup_printf ("%" G_GINT64_FORMAT, threads);
      print_row ((StoreValue[]) { { "messages", m, TRUE }, { "threads", t, TRUE } }, 2, &p);
    }
  else
    {
      gboolean words = filter->match != NULL;

      g_ptr_array_sort_with_data (rows, by_rank_then_date, &words);
      for (guint i = 0; i < rows->len && (filter->limit == 0 || i < (guint64) filter->limit); i++)
        {
          RowCopy *row = rows->pdata[i];

          print_row (row->values, row->n, &p);
        }
    }
  if (p.writer)
    row_writer_finish (p.writer);
  g_string_free (p.line, TRUE);
  if (mode != STORE_SEARCH_COUNT && p.rows == 0)
    deja_note ("no messages match '%s' in %u databases", typed, g_strv_length (dbs));
  else if (mode != STORE_SEARCH_COUNT && filter->limit > 0 && rows->len > (guint64) filter->limit)
    deja_note ("showing the first %" G_GUINT64_FORMAT " %s of %u databases (--limit)", p.rows,
               mode == STORE_SEARCH_THREADS ? "threads" : "matches", g_strv_length (dbs));
  return status;
}

static int
run_search (Store *store, const StoreFilter *filter, const char *typed, StoreSearchMode mode,
            RowFormat format)
{
  g_autoptr (GError) error = NULL;
  gboolean bold = format == ROW_FORMAT_TABLE && deja_use_colour ();
  Printer p = { format, mode, 0, g_string_new (NULL), NULL };
  gboolean ok;

  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  ok = store_search (store, filter, mode, bold ? "\033[1m" : "[", bold ? "\033[0m" : "]",
                     print_row, &p, &error);
  if (p.writer)
    row_writer_finish (p.writer);
  g_string_free (p.line, TRUE);
  if (!ok)
    {
      deja_error ("%s", error->message);
      return g_error_matches (error, STORE_ERROR, STORE_ERROR_QUERY) ? DEJA_EXIT_USAGE
                                                                     : DEJA_EXIT_FAILED;
    }
  if (mode == STORE_SEARCH_COUNT)
    return DEJA_EXIT_OK;
  if (p.rows == 0)
    deja_note ("no messages match '%s'", typed);
  else if (filter->limit > 0 && p.rows == (guint64) filter->limit)
    deja_note ("showing the first %" G_GUINT64_FORMAT " %s (--limit)", p.rows,
               mode == STORE_SEARCH_THREADS ? "threads" : "matches");
  return DEJA_EXIT_OK;
}

/* The same search in a corpus deja export-pg loaded into PostgreSQL. */
static int
run_search_pg (const char *conninfo, const char *schema, const StoreFilter *filter, const char *typed,
               StoreSearchMode mode, RowFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PgCorpus) corpus = NULL;
  g_autofree char *tsquery = filter->match ? search_query_tsquery (filter->match) : NULL;
  gboolean bold = format == ROW_FORMAT_TABLE && deja_use_colour ();
  Printer p = { format, mode, 0, g_string_new (NULL), NULL };
  PgSearch search = { tsquery, filter->authors, filter->groups, filter->since, filter->until, filter->lang,
                      bold ? "\033[1m" : "[", bold ? "\033[0m" : "]", filter->limit,
                      mode == STORE_SEARCH_COUNT };
  gboolean ok;

  if ((corpus = pg_corpus_open (conninfo, schema, &error)) == NULL)
    {
      g_string_free (p.line, TRUE);
      deja_error ("PostgreSQL: %s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  ok = pg_corpus_search (corpus, &search, print_row, &p, &error);
  if (p.writer)
    row_writer_finish (p.writer);
  g_string_free (p.line, TRUE);
  if (!ok)
    {
      deja_error ("PostgreSQL: %s", error->message);
      return g_error_matches (error, PG_ERROR, PG_ERROR_QUERY) ? DEJA_EXIT_USAGE : DEJA_EXIT_FAILED;
    }
  if (mode == STORE_SEARCH_COUNT)
    return DEJA_EXIT_OK;
  if (p.rows == 0)
    deja_note ("no messages match '%s'", typed);
  else if (filter->limit > 0 && p.rows == (guint64) filter->limit)
    deja_note ("showing the first %" G_GUINT64_FORMAT " matches (--limit)", p.rows);
  return DEJA_EXIT_OK;
}

int
cmd_search (DejaRun *run, int argc, char **argv)
{
  g_auto (GStrv) dbs = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *query = NULL, *pg = NULL, *pg_schema = NULL;
  gint64 limit = DEFAULT_LIMIT;
  gboolean count = FALSE, threads = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME_ARRAY, &dbs, "database file (repeat to search several shards)", "DB" },
    { "limit", 'n', 0, G_OPTION_ARG_INT64, &limit, "at most N matches, best first (default 20; 0: all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", ROW_FORMAT_NAMES },
    { "count", 'c', 0, G_OPTION_ARG_NONE, &count, "only count the matching messages and their threads", NULL },
    { "threads", 0, 0, G_OPTION_ARG_NONE, &threads, "one result per thread: its size, span and best match", NULL },
    { "pg", 0, 0, G_OPTION_ARG_STRING, &pg,
      "search a corpus deja export-pg loaded into PostgreSQL instead (libpq's connection string)", "CONNINFO" },
    { "pg-schema", 0, 0, G_OPTION_ARG_STRING, &pg_schema, "its schema (default: deja)", "NAME" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("QUERY... — full-text search");
  g_autoptr (Store) store = NULL;
  StoreFilter filter = { 0 };
  SearchQuery parsed;
  g_auto (DejaFilter) options = { 0 };
  g_autoptr (GError) error = NULL;
  RowFormat format;
  StoreSearchMode mode;

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
    "Table output: date, author, subject, then the message id (which 'deja show' takes)\n"
    "and a snippet with the hits marked [like this] (bold on a terminal).  TSV, CSV and\n"
    "JSON give the columns id, date, from_name, from_addr, subject, snippet, file,\n"
    "byte_offset, thread_id.  --threads gives one row per thread instead (thread_id,\n"
    "hits, messages, first_date, last_date, and the subject and author of its start, then\n"
    "best, id and snippet of its best match), best first; --limit counts threads then.\n"
    "--count prints how many messages match, and in how many threads.\n\n"
    "Several --db (shards, docs/scale.md) are searched as one without merging them: each\n"
    "gives its best --limit, and the rows are merged by rank (bm25, each database's own),\n"
    "then date; a first column, db, says where each row is (its id is that database's).\n"
    "Counts are sums: a thread or a cross-post present in two shards counts twice.\n\n"
    "--pg CONNINFO searches the corpus deja export-pg loaded into PostgreSQL (schema deja,\n"
    "or --pg-schema) with its tsv column, the same query and filters, the same columns:\n"
    "words are matched by PostgreSQL's stemmer of each message's language, so a few hits\n"
    "differ from FTS5's (stop words, stems); NEAR() is AND there; subject: searches both\n"
    "subject and own text; rank is ts_rank.  Not with --threads or --distinct-text.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (dbs == NULL && pg == NULL)
    return deja_usage_error (context, "--db (or --pg) is required");
  if (dbs != NULL && pg != NULL)
    return deja_usage_error (context, "--db and --pg exclude each other");
  if (pg != NULL && threads)
    return deja_usage_error (context, "--threads cannot be used with --pg");
  if (pg != NULL && !deja_feature_available (DEJA_FEATURE_LIBPQ))
    {
      deja_error ("--pg: this deja was built without %s (install libpq-dev and build again)",
                  deja_feature_name (DEJA_FEATURE_LIBPQ));
      return DEJA_EXIT_FAILED;
    }
  if (argc < 2)
    return deja_usage_error (context, "a search query is required");
  if (!row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
    return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
  if (count && threads)
    return deja_usage_error (context, "--count and --threads exclude each other");
  mode = count ? STORE_SEARCH_COUNT : threads ? STORE_SEARCH_THREADS : STORE_SEARCH_MESSAGES;
  if (limit < 0)
    return deja_usage_error (context, "--limit must be 0 or more");
  query = g_strjoinv (" ", argv + 1);
  if (!search_query_parse (query, &parsed, &error))
    return deja_usage_error (context, "%s", error->message);
  if ((status = deja_filter_finish (context, &options, &parsed, &filter)) == 0)
    {
      filter.match = parsed.match;
      filter.limit = limit;
      if (pg != NULL && filter.distinct_text)
        status = deja_usage_error (context, "--distinct-text cannot be used with --pg");
      else if (pg != NULL)
        status = run_search_pg (pg, pg_schema ? pg_schema : "deja", &filter, query, mode, format);
      else if (dbs[1] != NULL)
        status = run_search_many (dbs, &filter, query, mode, format);
      else
        status = (store = deja_open_store_to_read (dbs[0])) == NULL ? DEJA_EXIT_FAILED
                 : run_search (store, &filter, query, mode, format);
    }
  search_query_clear (&parsed);
  return status;
}
