/* cli.c — what the commands share: opening the database, checking options. */
#include "deja.h"
#include "pseudonym.h"
#include "output.h"
#include "search-query.h"
#include "authors.h"
#include "store.h"
#include "input.h"
#include "lang.h"
#include "analyse.h"
#include "plot.h"
#include "pg.h"
#include "graph.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Store *
open_existing (const char *path, Store *(*open) (const char *, GError **))
{
  g_autoptr (GError) error = NULL;
  Store *store;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      deja_error ("cannot open database '%s': no such file", path);
      return NULL;
    }
  if ((store = open (path, &error)) == NULL)
    deja_error ("cannot open database '%s': %s", path, error->message);
  return store;
}

/* Opens an existing database to change it, or says why not (naming it). */
Store *
deja_open_existing_store (const char *path)
{
  Store *store = open_existing (path, store_open);

  if (store && deja_refuses_catalog (store, path, "change its shards, then make it again"))
    g_clear_pointer (&store, store_close);
  return store;
}

/* Opens an existing database, or a catalog of shards, to change what is
 * a catalog's own (authors' decisions, threads: stored in it, never in
 * its shards), or says why not (naming it). */
Store *
deja_open_existing_store_or_catalog (const char *path)
{
  return open_existing (path, store_open);
}

/* Whether @store, opened to be changed, is a catalog of shards (deja
 * catalog), which is read, not changed: says so, and what to do
 * @instead. */
gboolean
deja_refuses_catalog (Store *store, const char *path, const char *instead)
{
  if (!store_is_catalog (store))
    return FALSE;
  deja_error ("'%s' is a catalog of shards (deja catalog), which is read, not changed: %s", path, instead);
  return TRUE;
}

/* The bytes of the @n files named in @paths (those it can read) */
gint64
deja_files_bytes (char *const *paths, int n)
{
  gint64 bytes = 0;

  for (int i = 0; i < n; i++)
    {
      GStatBuf st;

      if (g_stat (paths[i], &st) == 0)
        bytes += st.st_size;
    }
  return bytes;
}

/* Opens an existing database to read it, even where it cannot be
 * written; or says why not (naming it).  Authors left stale (by an older
 * schema, or an ingest that did not finish) are computed first, where
 * the database can be written; not while a deja ingest or merge is at
 * work on it, which computes them at its end (each reader doing it
 * meanwhile would take the write lock from it for as long, every time). */
Store *
deja_open_store_to_read (const char *path)
{
  Store *store = open_existing (path, store_open_to_read);
  g_autoptr (GError) error = NULL;

  if (store == NULL)
    return NULL;
  if (store_writer_at_work (store))
    deja_note ("another deja is writing '%s': its new messages' authors are provisional"
               " until it ends", path);
  else if (!authors_update (store, FALSE, NULL, &error))
    deja_note ("the authors of '%s' are not up to date: %s", path, error->message);
  return store;
}

/* Writes @data to @path ("-": standard output) whole, or says why not;
 * returns the exit status. */
int
deja_write_file (const char *path, const void *data, gsize len)
{
  g_autoptr (GError) error = NULL;
  Output *output = output_open (strcmp (path, "-") == 0 ? NULL : path, &error);

  if (output == NULL)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  fwrite (data, 1, len, output_stream (output));
  if (!output_close (output, TRUE, &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}

/* Bold and dim text only on a terminal, unless NO_COLOR says no
 * (the NO_COLOR convention, README.md). */
gboolean
deja_use_colour (void)
{
  const char *no_colour = g_getenv ("NO_COLOR");

  return isatty (STDOUT_FILENO) && (no_colour == NULL || *no_colour == '\0');
}

/* YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (a prefix of how
 * messages.date is written, so that comparisons are by text). */
gboolean
deja_valid_date (const char *s)
{
  static const char pattern[] = "dddd-dd-ddTdd:dd:dd";
  gsize n = strlen (s);

  if (n != 4 && n != 7 && n != 10 && n != 19)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (pattern[i] == 'd' ? !g_ascii_isdigit (s[i]) : s[i] != pattern[i])
      return FALSE;
  /* The digits must name a real month, day and time: 1997-13 is no date. */
  if (n >= 7)
    {
      int year = atoi (s), month = atoi (s + 5);

      if (month < 1 || month > 12)
        return FALSE;
      if (n >= 10)
        {
          int day = atoi (s + 8);

          if (day < 1 || day > g_date_get_days_in_month (month, year))
            return FALSE;
        }
      if (n == 19 && (atoi (s + 11) > 23 || atoi (s + 14) > 59 || atoi (s + 17) > 60))
        return FALSE;
    }
  return TRUE;
}

/* Checks --since/--until; returns 0 or the usage error status. */
int
deja_check_dates (GOptionContext *context, const char *since, const char *until)
{
  if (since && !deja_valid_date (since))
    return deja_usage_error (context, "--since '%s' is not a date (YYYY, YYYY-MM, YYYY-MM-DD)", since);
  if (until && !deja_valid_date (until))
    return deja_usage_error (context, "--until '%s' is not a date (YYYY, YYYY-MM, YYYY-MM-DD)", until);
  return 0;
}

/* A command that takes --db and no arguments: 0, or the usage error. */
int
deja_check_db_args (GOptionContext *context, const char *db, int argc, char **argv)
{
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (argc > 1)
    return deja_usage_error (context, "unexpected argument '%s'", argv[1]);
  return 0;
}

/**
 * deja_filter_add_options:
 * @filter: (out caller-allocates): zeroed; filled by option parsing
 *
 * --group, --author (both repeatable: any of them), --since, --until,
 * --lang, --distinct-text: the same in every command that selects messages.
 */
void
deja_filter_add_options (GOptionContext *context, DejaFilter *filter)
{
  GOptionEntry entries[] = {
    { "group", 'g', 0, G_OPTION_ARG_STRING_ARRAY, &filter->groups,
      "only messages posted to a newsgroup matching GLOB (comp.lang.*; repeatable: any)", "GLOB" },
    { "author", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &filter->authors,
      "only messages whose author's address or name contains TEXT (repeatable: any)", "TEXT" },
    { "since", 0, 0, G_OPTION_ARG_STRING, &filter->since, "only messages dated on or after",
      "YYYY[-MM[-DD]]" },
    { "until", 0, 0, G_OPTION_ARG_STRING, &filter->until, "only messages dated on or before",
      "YYYY[-MM[-DD]]" },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &filter->lang,
      "only messages whose own text is in this language (messages.lang: en, de, und, …)", "CODE" },
    { "distinct-text", 0, 0, G_OPTION_ARG_NONE, &filter->distinct_text,
      "leave out all but the first message of each near-duplicate cluster (deja dedup)", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

static GPtrArray *
joined (char **options, const char *from_query)
{
  GPtrArray *all = g_ptr_array_new ();

  for (char **p = options; p && *p; p++)
    g_ptr_array_add (all, *p);
  if (from_query != NULL)
    g_ptr_array_add (all, (gpointer) from_query);
  g_ptr_array_add (all, NULL);
  return all;
}

/**
 * deja_filter_finish:
 * @query: (nullable): a parsed search query whose from:, group:, since:
 *   and until: join the options (it must outlive @out)
 * @out: (out caller-allocates): the store's filter (match, limit and
 *   canonical_only are the caller's to set); valid while @filter is
 *
 * Returns: 0, or the usage error's exit status (a bad date; a date given
 *   both as an option and in the query)
 */
int
deja_filter_finish (GOptionContext *context, DejaFilter *filter, const SearchQueryFwd *query,
                    StoreFilterFwd *out)
{
  const char *since = filter->since, *until = filter->until;
  int status;

  if (query != NULL && ((query->since && since) || (query->until && until)))
    return deja_usage_error (context, "a date is given both as an option and in the query");
  if (query != NULL && query->lang && filter->lang)
    return deja_usage_error (context, "a language is given both as an option and in the query");
  if (query != NULL)
    {
      since = since ? since : query->since;
      until = until ? until : query->until;
    }
  if ((status = deja_check_dates (context, since, until)) != 0)
    return status;
  filter->all_groups = joined (filter->groups, query ? query->group : NULL);
  filter->all_authors = joined (filter->authors, query ? query->author : NULL);
  memset (out, 0, sizeof *out);
  out->groups = filter->all_groups->len > 1 ? (const char *const *) filter->all_groups->pdata : NULL;
  out->authors = filter->all_authors->len > 1 ? (const char *const *) filter->all_authors->pdata : NULL;
  out->since = since;
  out->until = until;
  out->lang = filter->lang ? filter->lang : query ? query->lang : NULL;
  out->distinct_text = filter->distinct_text;
  return 0;
}

void
deja_filter_clear (DejaFilter *filter)
{
  g_clear_pointer (&filter->groups, g_strfreev);
  g_clear_pointer (&filter->authors, g_strfreev);
  g_clear_pointer (&filter->since, g_free);
  g_clear_pointer (&filter->until, g_free);
  g_clear_pointer (&filter->lang, g_free);
  g_clear_pointer (&filter->all_groups, g_ptr_array_unref);
  g_clear_pointer (&filter->all_authors, g_ptr_array_unref);
}

/* Whether @arg is the option @name ("--author", "--author=x") or, with
 * @letter, its short form ("-a", "-ax"); *@value: where its value is in
 * @arg, or NULL when it is the next argument. */
static gboolean
is_option (const char *arg, const char *name, char letter, const char **value)
{
  gsize len = strlen (name);

  *value = NULL;
  if (strncmp (arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '='))
    {
      *value = arg[len] == '=' ? arg + len + 1 : NULL;
      return TRUE;
    }
  if (letter && arg[0] == '-' && arg[1] == letter)
    {
      *value = arg[2] != '\0' ? arg + 2 : NULL;
      return TRUE;
    }
  return FALSE;
}

/* "deja network --db x.db ...": the command as typed, for provenance
 * (before the options are parsed; @argv starts with the command's name).
 * A command that pseudonymises names nobody there either: the values of
 * --author become "[author]", and the addresses in the rest (a search
 * such as "from:ann@example.org") are redacted. */
char *
deja_command_line (char **argv)
{
  g_autoptr (GString) line = g_string_new ("deja");
  gboolean pseudonymised = FALSE, redact_next = FALSE;
  const char *value;

  for (char **a = argv; *a; a++)
    pseudonymised |= is_option (*a, "--pseudonymise", 0, &value);
  for (char **a = argv; *a; a++)
    {
      g_string_append_c (line, ' ');
      if (pseudonymised && redact_next)
        g_string_append (line, "[author]");
      else if (pseudonymised && a != argv && is_option (*a, "--author", 'a', &value) && value != NULL)
        g_string_append_len (line, *a, value - *a), g_string_append (line, "[author]");
      else
        g_string_append (line, *a);
      redact_next = pseudonymised && a != argv && is_option (*a, "--author", 'a', &value) && value == NULL;
    }
  if (pseudonymised)
    {
      RedactCounts unused = { 0 };
      g_autofree char *redacted = redact_text (line->str, &unused);

      return g_steal_pointer (&redacted);
    }
  return g_string_free (g_steal_pointer (&line), FALSE);
}

/* The optional libraries: whether this build has each, what it is, and
 * what is missing without it. */
static const struct {
  const char *name;
  gboolean (*available) (void);
  const char *without;
  const char *package;
} features[DEJA_N_FEATURES] = {
  [DEJA_FEATURE_LIBGIT2] = { "libgit2", input_git_available,
                             "public-inbox repositories are not read", "libgit2-dev" },
  [DEJA_FEATURE_CLD2] = { "CLD2", text_lang_available,
                          "no language is identified: deja analyse and the analysis of deja ingest"
                          " are missing (lang and the prose signals stay NULL)", "libcld2-dev" },
  [DEJA_FEATURE_HUNSPELL] = { "Hunspell", text_spell_available,
                              "no word is checked: oov_share stays NULL", "libhunspell-dev" },
  [DEJA_FEATURE_CAIRO] = { "cairo", plot_available,
                           "no chart is drawn: deja plot is missing, deja report has no charts",
                           "libcairo2-dev" },
  [DEJA_FEATURE_LIBPQ] = { "libpq", pg_available,
                           "no corpus in PostgreSQL is read: deja search --pg and deja stats --pg are missing",
                           "libpq-dev" },
  [DEJA_FEATURE_MIMALLOC] = { "mimalloc", deja_memory_mimalloc,
                              "memory is allocated by glibc's malloc: ingest and catalog 3-6 % slower",
                              "libmimalloc-dev" },
};

/* Why each module cannot be loaded, or NULL */
static char *(*const module_problems[]) (void) = {
  pg_module_problem,
  graph_module_problem,
  input_git_module_problem,
  plot_module_problem,
};

gboolean
deja_feature_available (DejaFeature feature)
{
  return features[feature].available ();
}

const char *
deja_feature_name (DejaFeature feature)
{
  return features[feature].name;
}

/* "built with: …" and a line for each library built without, saying
 * what is missing (deja --version). */
char *
deja_features_describe (void)
{
  GString *s = g_string_new ("built with:");
  guint with = 0;

  for (guint f = 0; f < DEJA_N_FEATURES; f++)
    if (features[f].available ())
      g_string_append_printf (s, "%s %s", with++ ? "," : "", features[f].name);
  if (with == 0)
    g_string_append (s, " none of the optional libraries");
  g_string_append_c (s, '\n');
  for (guint f = 0; f < DEJA_N_FEATURES; f++)
    if (!features[f].available ())
      g_string_append_printf (s, "built without %s (%s): %s\n", features[f].name,
                              features[f].package, features[f].without);
  /* the modules loaded when first used (util/module.c), loaded here */
  for (guint m = 0; m < G_N_ELEMENTS (module_problems); m++)
    {
      g_autofree char *problem = module_problems[m] ();

      if (problem)
        g_string_append_printf (s, "broken: %s\n", problem);
    }
  return g_string_free (s, FALSE);
}

/**
 * deja_run_parse:
 * @parameters: what follows the command's name in its --help ("— …")
 * @entries: (nullable): the command's own options
 * @description: (nullable): the text under its options in --help
 * @status: (out): the exit status to return, when %FALSE
 *
 * The opening of every command, as its row of commands[] says: --db when
 * it uses one, --format and the filter options when it takes them, then
 * the command's own; parsed, with --db required and no argument left
 * unless the command takes some.
 */
gboolean
deja_run_parse (DejaRun *run, const char *parameters, const GOptionEntry *entries,
                const char *description, int *argc, char ***argv, int *status)
{
  const DejaCommand *c = run->command;
  GOptionEntry db[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &run->db, "database file", "DB" },
    { NULL }
  };
  GOptionEntry format[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &run->format_name, "output format (default: table)",
      ROW_FORMAT_NAMES },
    { NULL }
  };

  run->context = g_option_context_new (parameters);
  if (c->db == DEJA_DB_READ || c->db == DEJA_DB_WRITE || c->db == DEJA_DB_WRITE_OWN)
    g_option_context_add_main_entries (run->context, db, NULL);
  if (c->takes & DEJA_TAKES_FORMAT)
    g_option_context_add_main_entries (run->context, format, NULL);
  if (entries != NULL)
    g_option_context_add_main_entries (run->context, entries, NULL);
  if (c->takes & DEJA_TAKES_FILTERS)
    deja_filter_add_options (run->context, &run->filter);
  if (description != NULL)
    g_option_context_set_description (run->context, description);
  if (!deja_parse_options (run->context, argc, argv, status))
    return FALSE;
  if ((c->db == DEJA_DB_READ || c->db == DEJA_DB_WRITE || c->db == DEJA_DB_WRITE_OWN) && run->db == NULL)
    {
      *status = deja_usage_error (run->context, "--db is required");
      return FALSE;
    }
  if (!(c->takes & DEJA_TAKES_ARGS) && *argc > 1)
    {
      *status = deja_usage_error (run->context, "unexpected argument '%s'", (*argv)[1]);
      return FALSE;
    }
  if ((c->takes & DEJA_TAKES_FORMAT) &&
      !row_format_parse (run->format_name, ROW_FORMAT_TABLE, &run->format))
    {
      *status = deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
      return FALSE;
    }
  if ((c->takes & DEJA_TAKES_FILTERS) &&
      (*status = deja_filter_finish (run->context, &run->filter, NULL, &run->filter_sql)) != 0)
    return FALSE;
  return TRUE;
}

/* Opens run->db as the command's row says (to read, or to write). */
gboolean
deja_run_open (DejaRun *run, int *status)
{
  g_return_val_if_fail (run->command->db == DEJA_DB_READ || run->command->db == DEJA_DB_WRITE ||
                        run->command->db == DEJA_DB_WRITE_OWN, FALSE);
  run->store = run->command->db == DEJA_DB_READ ? deja_open_store_to_read (run->db)
             : run->command->db == DEJA_DB_WRITE_OWN ? deja_open_existing_store_or_catalog (run->db)
                                                    : deja_open_existing_store (run->db);
  *status = run->store ? DEJA_EXIT_OK : DEJA_EXIT_FAILED;
  return run->store != NULL;
}

void
deja_run_clear (DejaRun *run)
{
  g_clear_pointer (&run->store, store_close);
  g_clear_pointer (&run->context, g_option_context_free);
  g_clear_pointer (&run->db, g_free);
  g_clear_pointer (&run->format_name, g_free);
  deja_filter_clear (&run->filter);
}
