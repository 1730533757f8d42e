/* cmd-stats.c — deja stats --db DB: what the database holds, in numbers. */
#include "deja.h"
#include "output.h"
#include "people.h"
#include "pg.h"
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
  const StoreValue *messages = row_find (v, n, "messages");

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

  const char *lang = row_get (v, n, "lang"), *reliable = row_get (v, n, "reliable");
  const char *words = row_get (v, n, "words");

  if (p->writer)
    for (guint i = 0; i < n; i++)
      {
        if (strcmp (v[i].name, "lang") != 0)
          tidy (p, lang, v[i].name, &v[i]);
      }
  else
    g_string_append_printf (p->out, "  %-12s %10s messages, %10s reliable, %12s words\n", lang,
                            row_get (v, n, "messages"), reliable ? reliable : "0", words ? words : "0");
  p->rows++;
  return TRUE;
}

/* The callback that prints a section's rows. */
static StoreRowFunc
printer_of (StoreStats query)
{
  return query == STORE_STATS_TOTALS ? totals_row
         : query == STORE_STATS_TOP_AUTHORS || query == STORE_STATS_AUTHORS ? author_row
         : query == STORE_STATS_LANGUAGES ? language_row : list_row;
}

/* Where the numbers come from: a database, or a corpus deja export-pg
 * loaded into PostgreSQL (--pg), which gives the same rows. */
typedef struct {
  Store *store;
  PgCorpus *pg;
} Source;

static const struct {
  StoreStats query;
  PgStats pg;
} pg_stats[] = {
  { STORE_STATS_TOTALS, PG_STATS_TOTALS },
  { STORE_STATS_BY_GROUP, PG_STATS_BY_GROUP },
  { STORE_STATS_TOP_AUTHORS, PG_STATS_TOP_AUTHORS },
  { STORE_STATS_LANGUAGES, PG_STATS_LANGUAGES },
  { STORE_STATS_LANGUAGES_BY_GROUP, PG_STATS_LANGUAGES_BY_GROUP },
  { STORE_STATS_THREAD_LANGUAGES, PG_STATS_THREAD_LANGUAGES },
};

/* Whether @src has @query's numbers (PostgreSQL has no separator log),
 * and they go to @func. */
static gboolean
source_stats (const Source *src, StoreStats query, gboolean by_month, StoreRowFunc func, gpointer data,
              gboolean *has, GError **error)
{
  *has = TRUE;
  if (src->pg == NULL)
    return store_stats (src->store, query, by_month, func, data, error);
  for (guint i = 0; i < G_N_ELEMENTS (pg_stats); i++)
    if (pg_stats[i].query == query)
      return pg_corpus_stats (src->pg, pg_stats[i].pg, by_month, func, data, error);
  *has = FALSE;
  return TRUE;
}

static gboolean
section (const Source *src, Printer *p, StoreStats query, gboolean by_month, const char *name,
         const char *title, GError **error)
{
  gboolean ok, has;

  p->rows = 0;
  p->section = name;
  if (!p->writer)
    g_string_append_printf (p->out, "\n%s\n", title);
  ok = source_stats (src, query, by_month, printer_of (query), p, &has, error);
  if (!p->writer && !has)
    g_string_append (p->out, "  (not in PostgreSQL: deja export-pg does not load it)\n");
  else if (!p->writer && p->rows == 0)
    g_string_append (p->out, "  (none)\n");
  return ok;
}

/* Several databases (shards) without merging them: each section's rows
 * from every database, combined by their key columns (the leading
 * ones): counts are summed, first dates take the earliest and last dates
 * the latest, other text the first seen.  A person, thread or cross-post
 * present in two shards is counted in each; authors in the totals are
 * distinct primary addresses, newsgroups distinct names. */
typedef struct {
  guint keys;
  GHashTable *index;     /* key -> RowCopy (borrowed from rows) */
  GPtrArray *rows;       /* of RowCopy, first seen first */
} Combined;

static void
combined_init (Combined *c, guint keys)
{
  c->keys = keys;
  c->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  c->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_copy_free);
}

static void
combined_clear (Combined *c)
{
  g_hash_table_unref (c->index);
  g_ptr_array_unref (c->rows);
}

static void
replace_text (RowValue *value, char *text)
{
  g_free ((char *) value->text);
  value->text = text;
}

static void
combine_value (RowValue *into, const RowValue *v)
{
  if (v->text == NULL)
    return;
  if (into->text == NULL)
    {
      replace_text (into, g_strdup (v->text));
      into->number = v->number;
    }
  else if (g_str_has_suffix (into->name, "first_date"))
    {
      if (strcmp (v->text, into->text) < 0)
        replace_text (into, g_strdup (v->text));
    }
  else if (g_str_has_suffix (into->name, "last_date"))
    {
      if (strcmp (v->text, into->text) > 0)
        replace_text (into, g_strdup (v->text));
    }
  else if (!v->number || !into->number || strcmp (into->name, "author_id") == 0)
    return;   /* text, or an id: the first seen */
  else if (strpbrk (v->text, ".eE") || strpbrk (into->text, ".eE"))
    {
      char sum[G_ASCII_DTOSTR_BUF_SIZE];   /* a '.' whatever the locale, as it was read */

      replace_text (into, g_strdup (g_ascii_formatd (sum, sizeof sum, "%.17g",
                                                     g_ascii_strtod (into->text, NULL) +
                                                       g_ascii_strtod (v->text, NULL))));
    }
  else
    replace_text (into, g_strdup_printf ("%" G_GINT64_FORMAT, g_ascii_strtoll (into->text, NULL, 10) +
                                                              g_ascii_strtoll (v->text, NULL, 10)));
}

static gboolean
combine_row (const StoreValue *v, guint n, gpointer data)
{
  Combined *c = data;
  GString *key = g_string_new (NULL);
  RowCopy *row;

  for (guint i = 0; i < c->keys && i < n; i++)
    g_string_append_printf (key, "%s\037", v[i].text ? v[i].text : "\036");
  if ((row = g_hash_table_lookup (c->index, key->str)) == NULL)
    {
      row = row_copy_new (v, n, NULL, NULL);
      g_ptr_array_add (c->rows, row);
      g_hash_table_insert (c->index, g_string_free (key, FALSE), row);
      return TRUE;
    }
  g_string_free (key, TRUE);
  for (guint i = c->keys; i < n && i < row->n; i++)
    combine_value (&row->values[i], &v[i]);
  return TRUE;
}

/* Each section's order, as its SQL has it: columns, a '-' before those
 * sorted as numbers from the largest. */
typedef struct {
  StoreStats query;
  guint keys;
  const char *order[3];
} ManySection;

static const ManySection many_sections[] = {
  { STORE_STATS_TOTALS, 0, { NULL } },
  { STORE_STATS_BY_GROUP, 2, { "newsgroup", "period" } },
  { STORE_STATS_LOG, 1, { "verdict" } },
  { STORE_STATS_AUTHORS, 1, { "-messages", "from_addr" } },
  { STORE_STATS_LANGUAGES, 1, { "-messages", "lang" } },
  { STORE_STATS_LANGUAGES_BY_GROUP, 2, { "newsgroup", "-messages", "lang" } },
  { STORE_STATS_THREAD_LANGUAGES, 1, { "-threads", "lang" } },
  { STORE_STATS_NEWSGROUPS, 1, { "name" } },
};

static int
by_section_order (gconstpointer a, gconstpointer b, gpointer data)
{
  const RowCopy *x = *(RowCopy *const *) a, *y = *(RowCopy *const *) b;
  const ManySection *s = data;

  for (guint i = 0; i < G_N_ELEMENTS (s->order) && s->order[i]; i++)
    {
      gboolean numeric = s->order[i][0] == '-';
      const char *name = s->order[i] + numeric;
      const char *tx = row_get (x->values, x->n, name), *ty = row_get (y->values, y->n, name);
      int c;

      if (numeric)
        {
          double dx = tx ? g_ascii_strtod (tx, NULL) : 0, dy = ty ? g_ascii_strtod (ty, NULL) : 0;

          c = dx > dy ? -1 : dx < dy;
        }
      else
        c = g_strcmp0 (tx, ty);
      if (c)
        return c;
    }
  return 0;
}

/* Every section of every database, combined: @combined[i] for
 * many_sections[i]. */
static gboolean
gather_many (char **dbs, gboolean by_month, Combined *combined)
{
  for (guint d = 0; dbs[d]; d++)
    {
      g_autoptr (Store) store = deja_open_store_to_read (dbs[d]);
      g_autoptr (GError) error = NULL;

      if (store == NULL)
        return FALSE;
      store_stats_begin (store);
      for (guint i = 0; i < G_N_ELEMENTS (many_sections); i++)
        if (!store_stats (store, many_sections[i].query, by_month, combine_row, &combined[i], &error))
          {
            deja_error ("cannot count '%s': %s", dbs[d], error->message);
            return FALSE;
          }
      store_stats_end (store);
    }
  for (guint i = 0; i < G_N_ELEMENTS (many_sections); i++)
    g_ptr_array_sort_with_data (combined[i].rows, by_section_order, (gpointer) &many_sections[i]);
  return TRUE;
}

static void
set_total (RowCopy *totals, const char *name, guint value)
{
  for (guint i = 0; i < totals->n; i++)
    if (strcmp (totals->values[i].name, name) == 0)
      {
        g_free ((char *) totals->values[i].text);
        totals->values[i].text = g_strdup_printf ("%u", value);
      }
}

static void
section_many (Printer *p, const Combined *c, StoreStats query, const char *name, const char *title)
{
  StoreRowFunc print = printer_of (query);
  guint limit = query == STORE_STATS_AUTHORS ? 25 : G_MAXUINT;

  p->rows = 0;
  p->section = name;
  if (!p->writer)
    g_string_append_printf (p->out, "\n%s\n", title);
  for (guint i = 0; i < c->rows->len && i < limit; i++)
    {
      RowCopy *row = c->rows->pdata[i];

      print (row->values, row->n, p);
    }
  if (!p->writer && p->rows == 0)
    g_string_append (p->out, "  (none)\n");
}

static int
stats_many (char **dbs, Printer *p, gboolean by_month)
{
  Combined c[G_N_ELEMENTS (many_sections)];
  gboolean ok;

  for (guint i = 0; i < G_N_ELEMENTS (many_sections); i++)
    combined_init (&c[i], many_sections[i].keys);
  if ((ok = gather_many (dbs, by_month, c)))
    {
      RowCopy *totals = c[0].rows->len ? c[0].rows->pdata[0] : NULL;

      if (totals)
        {
          set_total (totals, "authors", c[3].rows->len);
          set_total (totals, "newsgroups", c[7].rows->len);
          totals_row (totals->values, totals->n, p);
        }
      section_many (p, &c[1], STORE_STATS_BY_GROUP, "by_newsgroup",
                    by_month ? "messages per newsgroup and month:" : "messages per newsgroup and year:");
      section_many (p, &c[2], STORE_STATS_LOG, "separator_log", "separator log, lines by verdict:");
      section_many (p, &c[3], STORE_STATS_AUTHORS, "top_authors", "authors with most messages:");
      section_many (p, &c[4], STORE_STATS_LANGUAGES, "languages",
                    "languages of own text (messages.lang; und: too short or unknown):");
      section_many (p, &c[5], STORE_STATS_LANGUAGES_BY_GROUP, "languages_by_newsgroup",
                    "languages per newsgroup:");
      section_many (p, &c[6], STORE_STATS_THREAD_LANGUAGES, "thread_languages",
                    "threads by language (the language of most of their words):");
      deja_note ("%u databases counted as one without merging: sums, so a thread, a cross-post"
                 " or a person in two of them is counted in each (authors: distinct primary"
                 " addresses); 'deja merge' gives exact figures", g_strv_length (dbs));
    }
  for (guint i = 0; i < G_N_ELEMENTS (many_sections); i++)
    combined_clear (&c[i]);
  return ok ? DEJA_EXIT_OK : DEJA_EXIT_FAILED;
}

int
cmd_stats (DejaRun *run, int argc, char **argv)
{
  g_auto (GStrv) dbs = NULL;
  g_autofree char *format_name = NULL, *key = NULL, *statement_path = NULL, *pg = NULL, *pg_schema = NULL;
  const char *db;
  g_autofree char *command = deja_command_line (argv);
  g_auto (DejaPseudonyms) pseudonyms = { 0 };
  gboolean by_month = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME_ARRAY, &dbs, "database file (repeat to count several shards as one)", "DB" },
    { "by-month", 0, 0, G_OPTION_ARG_NONE, &by_month, "count per month instead of per year", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: table)", ROW_FORMAT_NAMES },
    { "pseudonymise", 0, 0, G_OPTION_ARG_FILENAME, &key, "authors as keyed pseudonyms (deja keygen makes a key)", "KEYFILE" },
    { "statement", 0, 0, G_OPTION_ARG_FILENAME, &statement_path, "write a data statement (Markdown) describing the numbers", "FILE" },
    { "pg", 0, 0, G_OPTION_ARG_STRING, &pg,
      "count a corpus deja export-pg loaded into PostgreSQL instead (libpq's connection string)", "CONNINFO" },
    { "pg-schema", 0, 0, G_OPTION_ARG_STRING, &pg_schema, "its schema (default: deja)", "NAME" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— what the database holds");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  g_autoptr (PgCorpus) corpus = NULL;
  Printer p = { NULL, "totals", NULL, 0, NULL };
  Source src = { NULL, NULL };
  RowFormat format;
  gboolean ok, has;

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
    "languages_by_newsgroup; messages, reliable or words in languages) and value.\n\n"
    "Several --db (shards, docs/scale.md) are counted as one without merging them: the\n"
    "numbers are sums, so a thread, a cross-post or a person present in two shards counts\n"
    "in each; authors in the totals are distinct primary addresses.  'deja merge' gives\n"
    "the exact figures.\n\n"
    "--pg CONNINFO counts the corpus deja export-pg loaded into PostgreSQL (schema deja, or\n"
    "--pg-schema) with the same queries and the same rows, but for the separator log,\n"
    "which export-pg does not load (nor, without --include-no-archive, posts marked\n"
    "X-No-Archive: yes).");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (pg != NULL)
    {
      if (dbs != NULL)
        return deja_usage_error (context, "--db and --pg exclude each other");
      if (key || statement_path)
        return deja_usage_error (context, "--pseudonymise and --statement take a database, not --pg");
      if (!deja_feature_available (DEJA_FEATURE_LIBPQ))
        {
          deja_error ("--pg: this deja was built without %s (install libpq-dev and build again)",
                      deja_feature_name (DEJA_FEATURE_LIBPQ));
          return DEJA_EXIT_FAILED;
        }
      if (argc > 1)
        return deja_usage_error (context, "unexpected argument '%s'", argv[1]);
      if (!row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
        return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
      if ((corpus = pg_corpus_open (pg, pg_schema ? pg_schema : "deja", &error)) == NULL)
        {
          deja_error ("PostgreSQL: %s", error->message);
          return DEJA_EXIT_FAILED;
        }
      src.pg = corpus;
    }
  db = dbs ? dbs[0] : NULL;
  if (src.pg == NULL && (status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (src.pg == NULL && !row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
    return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
  if (src.pg == NULL && dbs[1] && (key || statement_path))
    return deja_usage_error (context, "--pseudonymise and --statement take one database"
                             " ('deja merge' the shards first)");
  if (src.pg == NULL && dbs[1])
    {
      p.out = g_string_new (NULL);
      if (format != ROW_FORMAT_TABLE)
        p.writer = row_writer_new (format, stdout);
      status = stats_many (dbs, &p, by_month);
      if (p.writer)
        row_writer_finish (p.writer);
      else if (status == DEJA_EXIT_OK)
        deja_print ("%s", p.out->str);
      g_string_free (p.out, TRUE);
      return status;
    }
  if (src.pg == NULL && (store = deja_open_store_to_read (db)) == NULL)
    return DEJA_EXIT_FAILED;
  src.store = store;
  if (key && !deja_pseudonyms_open (&pseudonyms, key, store))
    return DEJA_EXIT_FAILED;
  p.pseudonyms = key ? &pseudonyms : NULL;
  p.out = g_string_new (NULL);
  if (format != ROW_FORMAT_TABLE)
    p.writer = row_writer_new (format, stdout);
  if (src.pg == NULL)
    store_stats_begin (store);
  ok = source_stats (&src, STORE_STATS_TOTALS, FALSE, totals_row, &p, &has, &error) &&
       section (&src, &p, STORE_STATS_BY_GROUP, by_month, "by_newsgroup",
                by_month ? "messages per newsgroup and month:" : "messages per newsgroup and year:",
                &error) &&
       section (&src, &p, STORE_STATS_LOG, FALSE, "separator_log",
                "separator log, lines by verdict:", &error) &&
       section (&src, &p, STORE_STATS_TOP_AUTHORS, FALSE, "top_authors",
                "authors with most messages:", &error) &&
       section (&src, &p, STORE_STATS_LANGUAGES, FALSE, "languages",
                "languages of own text (messages.lang; und: too short or unknown):", &error) &&
       section (&src, &p, STORE_STATS_LANGUAGES_BY_GROUP, FALSE, "languages_by_newsgroup",
                "languages per newsgroup:", &error) &&
       section (&src, &p, STORE_STATS_THREAD_LANGUAGES, FALSE, "thread_languages",
                "threads by language (the language of most of their words):", &error);
  store_stats_end (store);
  if (p.writer)
    row_writer_finish (p.writer);
  else if (ok)
    deja_print ("%s", p.out->str);
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
