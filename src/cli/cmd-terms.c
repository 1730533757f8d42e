/* cmd-terms.c — deja terms: words and n-grams of own text per slice,
 * keyness between slices, collocations, and exports for MALLET,
 * tidytext/quanteda and Voyant (docs/text-analysis.md). */
#include "deja.h"
#include "rows.h"
#include "output.h"
#include "store.h"
#include "terms.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  char *by, *stopwords, *format, *keyness, *reference, *export_kind, *out;
  int ngram, top, min_count, min_messages, window, threads;
  gboolean stem, numbers, collocations, duplicates;
} Args;

static void
args_clear (Args *a)
{
  g_free (a->by), g_free (a->stopwords), g_free (a->format);
  g_free (a->keyness), g_free (a->reference), g_free (a->export_kind), g_free (a->out);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Args, args_clear)

static gboolean
parse_by (const char *text, TermsBy *by)
{
  static const char *const names[] = { "all", "group", "year", "month", "author" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (text ? text : "all", names[i]) == 0)
      {
        *by = (TermsBy) i;
        return TRUE;
      }
  return FALSE;
}

static char *
number (gint64 n)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, n);
}

static char *
real (double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", x));
}

static void
print_counts (TermsTable *t, const Args *a, RowWriter *w)
{
  g_autofree char **slices = terms_table_slices (t);

  for (char **s = slices; *s; s++)
    {
      g_autoptr (GArray) entries = terms_table_entries (t, *s);

      for (guint i = 0; i < entries->len && (a->top <= 0 || i < (guint) a->top); i++)
        {
          TermsEntry *e = &g_array_index (entries, TermsEntry, i);
          g_autofree char *count = number (e->count), *messages = number (e->messages);
          RowValue v[] = { ROW_TEXT ("slice", *s), ROW_TEXT ("term", e->term), ROW_NUMBER ("count", count),
                           ROW_NUMBER ("messages", messages) };

          if (e->count < a->min_count)
            break;
          if (e->messages < a->min_messages)
            continue;
          row_writer_add (w, v, G_N_ELEMENTS (v));
        }
    }
}

static gboolean
print_keyness (TermsTable *t, const Args *a, RowWriter *w, GError **error)
{
  gint64 c = 0, d = 0;
  g_autoptr (GArray) rows = terms_keyness (t, a->keyness, a->reference, MAX (a->min_count, 1), &c, &d);

  if (rows == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "no slice '%s' among the selected messages (--by %s)",
                   terms_table_tokens (t, a->keyness) || !a->reference ? a->keyness : a->reference,
                   a->by ? a->by : "all");
      return FALSE;
    }
  deja_note ("keyness: '%s' (%" G_GINT64_FORMAT " words) against %s%s%s (%" G_GINT64_FORMAT " words)",
             a->keyness, c, a->reference ? "'" : "", a->reference ? a->reference : "the rest",
             a->reference ? "'" : "", d);
  for (guint i = 0, shown = 0; i < rows->len; i++)
    {
      TermsKeyness *k = &g_array_index (rows, TermsKeyness, i);
      g_autofree char *tc = number (k->target), *rc = number (k->reference);
      g_autofree char *tpm = real (c ? k->target * 1e6 / c : 0), *rpm = real (d ? k->reference * 1e6 / d : 0);
      g_autofree char *g2 = real (k->g2), *lr = real (k->log_ratio), *p = real (k->p);
      RowValue v[] = { ROW_TEXT ("term", k->term), ROW_NUMBER ("target", tc), ROW_NUMBER ("reference", rc),
                       ROW_NUMBER ("target_per_million", tpm), ROW_NUMBER ("reference_per_million", rpm),
                       ROW_NUMBER ("g2", g2), ROW_NUMBER ("log_ratio", lr), ROW_NUMBER ("p", p) };

      if (k->messages < a->min_messages)
        continue;
      if (a->top > 0 && shown++ >= (guint) a->top)
        break;
      row_writer_add (w, v, G_N_ELEMENTS (v));
    }
  return TRUE;
}

static void
print_collocations (TermsTable *t, const Args *a, RowWriter *w)
{
  g_autoptr (GArray) rows = terms_table_collocations (t, a->min_count);

  for (guint i = 0; i < rows->len && (a->top <= 0 || i < (guint) a->top); i++)
    {
      TermsCollocation *c = &g_array_index (rows, TermsCollocation, i);
      g_autofree char *n = number (c->count), *n1 = number (c->first_count), *n2 = number (c->second_count);
      g_autofree char *pmi = real (c->pmi), *g2 = real (c->g2), *ts = real (c->t_score);
      RowValue v[] = { ROW_TEXT ("first", c->first), ROW_TEXT ("second", c->second), ROW_NUMBER ("count", n),
                       ROW_NUMBER ("first_count", n1), ROW_NUMBER ("second_count", n2),
                       ROW_NUMBER ("pmi", pmi), ROW_NUMBER ("g2", g2), ROW_NUMBER ("t_score", ts) };

      row_writer_add (w, v, G_N_ELEMENTS (v));
    }
}

/* --stopwords: a file, a language (its installed Snowball list), or auto. */
static int
load_stopwords (GOptionContext *context, const char *value, TermsOptions *o, TextStoplist **list)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  if (value == NULL)
    return 0;
  if (strcmp (value, "auto") == 0)
    {
      o->stop_auto = TRUE;
      return 0;
    }
  path = g_file_test (value, G_FILE_TEST_EXISTS) ? g_strdup (value) : text_stoplist_path_for (value);
  if (path == NULL)
    return deja_usage_error (context,
                             "--stopwords: '%s' is neither a file nor a language with an installed"
                             " stop list (Debian installs Snowball's with postgresql-15;"
                             " or set DEJA_STOPWORDS_DIR)", value);
  *list = text_stoplist_new ();
  if (!text_stoplist_add_file (*list, path, &error))
    {
      deja_error ("cannot read the stop list '%s': %s", path, error->message);
      return DEJA_EXIT_FAILED;
    }
  o->stop = *list;
  return 0;
}

static int
open_export (GOptionContext *context, const Args *a, TermsOptions *o, Output **output)
{
  g_autoptr (GError) error = NULL;

  if (a->export_kind == NULL)
    return a->out ? deja_usage_error (context, "--out goes with --export") : 0;
  if (a->out == NULL)
    return deja_usage_error (context, "--export needs --out PATH");
  if (strcmp (a->export_kind, "mallet") == 0)
    o->export = TERMS_EXPORT_MALLET;
  else if (strcmp (a->export_kind, "long") == 0)
    o->export = TERMS_EXPORT_LONG;
  else if (strcmp (a->export_kind, "text") == 0)
    o->export = TERMS_EXPORT_TEXT;
  else
    return deja_usage_error (context, "--export must be mallet, long or text");
  if (o->export == TERMS_EXPORT_TEXT)
    {
      if (g_mkdir_with_parents (a->out, 0755) != 0)
        {
          deja_error ("cannot make the directory '%s': %s", a->out, g_strerror (errno));
          return DEJA_EXIT_FAILED;
        }
      o->export_dir = a->out;
      return 0;
    }
  if ((*output = output_open (a->out, &error)) == NULL)
    {
      deja_error ("cannot write '%s': %s", a->out, error->message);
      return DEJA_EXIT_FAILED;
    }
  o->export_out = output_stream (*output);
  if (o->export == TERMS_EXPORT_LONG)
    fputs ("doc,term,count\n", o->export_out);
  return 0;
}

int
cmd_terms (DejaRun *run, int argc, char **argv)
{
  g_auto (Args) a = { .ngram = 1, .min_count = 0, .window = 0 };
  GOptionEntry entries[] = {
    { "by", 0, 0, G_OPTION_ARG_STRING, &a.by, "one table per slice: all (default), group, year, month or author", "SLICE" },
    { "ngram", 'n', 0, G_OPTION_ARG_INT, &a.ngram, "count runs of N words (default 1)", "N" },
    { "stem", 0, 0, G_OPTION_ARG_NONE, &a.stem, "Snowball stems in each message's language", NULL },
    { "stopwords", 's', 0, G_OPTION_ARG_STRING, &a.stopwords,
      "leave out the words of a stop list: a file, a language (en, german, …) or auto (each message's language)", "LANG|FILE" },
    { "numbers", 0, 0, G_OPTION_ARG_NONE, &a.numbers, "count numbers as terms too", NULL },
    { "top", 't', 0, G_OPTION_ARG_INT, &a.top, "at most N rows per slice (default: all)", "N" },
    { "min-count", 'm', 0, G_OPTION_ARG_INT, &a.min_count, "only terms seen N times or more (collocations: default 5)", "N" },
    { "min-messages", 0, 0, G_OPTION_ARG_INT, &a.min_messages, "only terms in N messages or more (one long log is not a key word)", "N" },
    { "keyness", 'k', 0, G_OPTION_ARG_STRING, &a.keyness, "key terms of one slice (of --by) against the rest or --reference", "SLICE" },
    { "reference", 'r', 0, G_OPTION_ARG_STRING, &a.reference, "the slice --keyness compares with (default: all other messages)", "SLICE" },
    { "collocations", 0, 0, G_OPTION_ARG_NONE, &a.collocations, "word pairs with PMI, log-likelihood and t-score", NULL },
    { "window", 'w', 0, G_OPTION_ARG_INT, &a.window, "collocations: pair words up to N apart (default 1: neighbours)", "N" },
    { "export", 'e', 0, G_OPTION_ARG_STRING, &a.export_kind, "also write the tokens: mallet (a file), long (CSV doc,term,count) or text (a directory)", "KIND" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &a.out, "where --export writes", "PATH" },
    { "duplicates", 0, 0, G_OPTION_ARG_NONE, &a.duplicates, "count later copies of a Message-ID too", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "output format (default: tsv)", ROW_FORMAT_NAMES },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &a.threads, "worker threads (default: one per CPU deja may use)", "N" },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store;
  g_autoptr (TextStoplist) stoplist = NULL;
  g_autoptr (TermsTable) table = NULL;
  Output *export_output = NULL;
  TermsOptions options = { 0 };
  RowFormat format;
  RowWriter *writer;
  int status;

  if (!deja_run_parse (run, "— words and n-grams of own text per slice", entries,
    "Counts the words of the authors' own text (no quotes, signatures, code lines, URLs or\n"
    "addresses), case-folded, per slice: one row per slice and term with its count and the\n"
    "number of messages it occurs in.  Keyness: signed log-likelihood G2, Log Ratio and p;\n"
    "collocations: PMI, G2 and t-score.  Formulas and examples: docs/text-analysis.md.\n\n"
    "  deja terms --db list.db --by year --stopwords en --top 20\n"
    "  deja terms --db news.db --by group --stopwords auto --keyness comp.lang.c\n"
    "  deja terms --db list.db --ngram 2 --stopwords en --export mallet --out list.mallet",
    &argc, &argv, &status))
    return status;
  if (!parse_by (a.by, &options.by))
    return deja_usage_error (run->context, "--by must be all, group, year, month or author");
  if (a.ngram < 1 || a.ngram > 8)
    return deja_usage_error (run->context, "--ngram must be 1 to 8");
  if (a.window < 0 || a.top < 0 || a.min_count < 0 || a.min_messages < 0 || a.threads < 0)
    return deja_usage_error (run->context, "--window, --top, --min-count, --min-messages and --threads take 0 or more");
  if (a.reference && !a.keyness)
    return deja_usage_error (run->context, "--reference goes with --keyness");
  if (a.keyness && options.by == TERMS_BY_ALL)
    return deja_usage_error (run->context, "--keyness compares slices: give --by group, year, month or author");
  if (a.keyness && a.collocations)
    return deja_usage_error (run->context, "--keyness and --collocations are separate tables");
  if (!row_format_parse (a.format, ROW_FORMAT_TSV, &format))
    return deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
  run->filter_sql.canonical_only = !a.duplicates;
  options.ngram = a.ngram;
  options.stem = a.stem;
  options.keep_numbers = a.numbers;
  options.threads = a.threads;
  if (a.collocations)
    {
      options.collocation_window = a.window ? a.window : 1;
      if (a.min_count == 0)
        a.min_count = 5;
    }
  if ((status = load_stopwords (run->context, a.stopwords, &options, &stoplist)) != 0)
    return status;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if ((status = open_export (run->context, &a, &options, &export_output)) != 0)
    return status;
  table = terms_count (store, &run->filter_sql, &options, &error);
  if (export_output && !output_close (export_output, table != NULL, table ? &error : NULL))
    {
      deja_error ("cannot write '%s': %s", a.out, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (table == NULL)
    {
      deja_error ("cannot count the terms of '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GINT64_FORMAT " messages, %" G_GINT64_FORMAT " %s", terms_table_messages (table, NULL),
             terms_table_total_tokens (table), a.ngram > 1 ? "n-grams" : "words");
  writer = row_writer_new (format, stdout);
  if (a.keyness)
    {
      if (!print_keyness (table, &a, writer, &error))
        {
          row_writer_finish (writer);
          deja_error ("%s", error->message);
          return DEJA_EXIT_USAGE;
        }
    }
  else if (a.collocations)
    print_collocations (table, &a, writer);
  else
    print_counts (table, &a, writer);
  row_writer_finish (writer);
  return DEJA_EXIT_OK;
}
