/* cmd-stats.c — deja stats --db DB: what the database holds, in numbers. */
#include "deja.h"
#include "output.h"
#include "people.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  RowWriter *writer;        /* tsv, csv, json: one tidy row per number; NULL: a table */
  const char *section;
  GString *out;
  guint rows;
  DejaPseudonyms *pseudonyms;   /* NULL: names and addresses as stored */
} Printer;

/* Rows for machines are tidy, the same four columns in every section:
 * section, name, period, value. */
static void
tidy (Printer *p, const char *name, const char *period, const StoreValue *value)
{
  RowValue v[] = {
    { "section", p->section, FALSE }, { "name", name, FALSE }, { "period", period, FALSE },
    { "value", value->text, value->number },
  };
  row_writer_add (p->writer, v, G_N_ELEMENTS (v));
}

static gboolean
totals_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;

  for (guint i = 0; i < n; i++)
    if (p->writer)
      tidy (p, v[i].name, NULL, &v[i]);
    else
      g_string_append_printf (p->out, "%-12s %s\n", v[i].name, v[i].text ? v[i].text : "-");
  return TRUE;
}

/* by_newsgroup: newsgroup, period, messages; separator_log: verdict,
 * lines; languages_by_newsgroup: newsgroup, lang, messages;
 * thread_languages: lang, threads. */
static gboolean
list_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;

  if (p->writer)
    tidy (p, v[0].text, n == 3 ? v[1].text : NULL, &v[n - 1]);
  else
    {
      g_string_append (p->out, "  ");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (p->out, i + 1 < n ? "%-30s " : "%s\n", v[i].text ? v[i].text : "-");
    }
  p->rows++;
  return TRUE;
}

/* top_authors: the author (its primary address, or its pseudonym) and
 * its distinct messages. */
static gboolean
author_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;
  const char *address = row_get (v, n, "from_addr"), *name = row_get (v, n, "from_name");
  g_autofree char *pseudonym = p->pseudonyms ? deja_pseudonym (p->pseudonyms, address) : NULL;
  const StoreValue *messages = &v[2];

  if (pseudonym)
    address = name = pseudonym;
  if (p->writer)
    tidy (p, address, NULL, messages);
  else
    g_string_append_printf (p->out, "  %-30s %-40s %s\n", name, address, messages->text);
  p->rows++;
  return TRUE;
}

/* languages: lang, messages, reliable, words → one tidy row per number. */
static gboolean
language_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;

  if (p->writer)
    for (guint i = 1; i < n; i++)
      tidy (p, v[0].text, v[i].name, &v[i]);
  else
    g_string_append_printf (p->out, "  %-12s %10s messages, %10s reliable, %12s words\n", v[0].text,
                            v[1].text, v[2].text ? v[2].text : "0", v[3].text ? v[3].text : "0");
  p->rows++;
  return TRUE;
}

static gboolean
section (Store *store, Printer *p, StoreStats query, gboolean by_month, const char *name,
         const char *title, GError **error)
{
  gboolean ok;

  p->rows = 0;
  p->section = name;
  if (!p->writer)
    g_string_append_printf (p->out, "\n%s\n", title);
  ok = store_stats (store, query, by_month,
                    query == STORE_STATS_TOP_AUTHORS ? author_row
                    : query == STORE_STATS_LANGUAGES ? language_row : list_row, p, error);
  if (!p->writer && p->rows == 0)
    g_string_append (p->out, "  (none)\n");
  return ok;
}

int
cmd_stats (int argc, char **argv)
{
  g_autofree char *db = NULL, *format_name = NULL, *key = NULL, *statement_path = NULL;
  g_autofree char *command = deja_command_line (argv);
  g_auto (DejaPseudonyms) pseudonyms = { 0 };
  gboolean by_month = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "by-month", 0, 0, G_OPTION_ARG_NONE, &by_month, "count per month instead of per year", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", ROW_FORMAT_NAMES },
    { "pseudonymise", 0, 0, G_OPTION_ARG_FILENAME, &key, "authors as keyed pseudonyms (deja keygen makes a key)", "KEYFILE" },
    { "statement", 0, 0, G_OPTION_ARG_FILENAME, &statement_path, "write a data statement (Markdown) describing the numbers", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— what the database holds");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  Printer p = { NULL, "totals", NULL, 0, NULL };
  RowFormat format;
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Totals (files, messages, canonical messages and duplicates, authors, threads, date range,\n"
    "messages without a readable date, newsgroups), messages per newsgroup and year (or\n"
    "month; canonical messages only), separator-log lines by verdict, and the 25 authors\n"
    "with most messages (deja authors lists them all).  TSV, CSV and JSON give the same\n"
    "numbers as tidy rows of four columns: section (totals, by_newsgroup, separator_log,\n"
    "top_authors, languages, languages_by_newsgroup, thread_languages), name (the total's\n"
    "name, the newsgroup, the verdict, the author's primary address or pseudonym, the\n"
    "language), period (year or month in by_newsgroup; the language in\n"
    "languages_by_newsgroup; messages, reliable or words in languages) and value.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (!row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
    return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
  if ((store = deja_open_store_to_read (db)) == NULL)
    return DEJA_EXIT_FAILED;
  if (key && !deja_pseudonyms_open (&pseudonyms, key, store))
    return DEJA_EXIT_FAILED;
  p.pseudonyms = key ? &pseudonyms : NULL;
  p.out = g_string_new (NULL);
  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  ok = store_stats (store, STORE_STATS_TOTALS, FALSE, totals_row, &p, &error) &&
       section (store, &p, STORE_STATS_BY_GROUP, by_month, "by_newsgroup",
                by_month ? "messages per newsgroup and month:" : "messages per newsgroup and year:",
                &error) &&
       section (store, &p, STORE_STATS_LOG, FALSE, "separator_log",
                "separator log, lines by verdict:", &error) &&
       section (store, &p, STORE_STATS_TOP_AUTHORS, FALSE, "top_authors",
                "authors with most messages:", &error) &&
       section (store, &p, STORE_STATS_LANGUAGES, FALSE, "languages",
                "languages of own text (messages.lang; und: too short or unknown):", &error) &&
       section (store, &p, STORE_STATS_LANGUAGES_BY_GROUP, FALSE, "languages_by_newsgroup",
                "languages per newsgroup:", &error) &&
       section (store, &p, STORE_STATS_THREAD_LANGUAGES, FALSE, "thread_languages",
                "threads by language (the language of most of their words):", &error);
  if (p.writer)
    row_writer_finish (p.writer);
  else if (ok)
    fputs (p.out->str, stdout);
  g_string_free (p.out, TRUE);
  if (!ok)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (statement_path)
    {
      DejaStatement st = { command, db, "Corpus statistics (deja stats)", NULL,
                           "totals, messages per newsgroup and period, separator log, top 25 authors",
                           p.pseudonyms, FALSE, -1 };
      if (!deja_write_statement (statement_path, store, &st))
        return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}
