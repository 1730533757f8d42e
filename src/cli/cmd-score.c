/* cmd-score.c — deja score --lexicon FILE.tsv: a researcher's word list
 * (sentiment, mood, LIWC-style categories) applied to own text, per
 * message or per slice (docs/text-analysis.md). */
#include "deja.h"
#include "lexicon.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>

typedef struct {
  const Lexicon *lexicon;
  RowWriter *writer;
} PerMessage;

static char *
real (double x)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", x));
}

static gboolean
print_message (const LexiconMessage *m, gpointer user_data, GError **error)
{
  PerMessage *p = user_data;

  for (guint i = 0; i < lexicon_n_categories (p->lexicon); i++)
    {
      g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, m->id);
      g_autofree char *words = g_strdup_printf ("%" G_GINT64_FORMAT, m->words);
      g_autofree char *matches = g_strdup_printf ("%" G_GINT64_FORMAT, m->matches[i]);
      g_autofree char *score = real (m->scores[i]);
      g_autofree char *per_word = real (m->words ? m->scores[i] / m->words : 0);
      RowValue v[] = { ROW_NUMBER ("id", id), ROW_TEXT ("date", m->date), ROW_TEXT ("slice", m->slice),
                       ROW_TEXT ("category", lexicon_category (p->lexicon, i)), ROW_NUMBER ("words", words),
                       ROW_NUMBER ("matches", matches), ROW_NUMBER ("score", score),
                       ROW_NUMBER ("score_per_word", per_word) };

      row_writer_add (p->writer, v, G_N_ELEMENTS (v));
    }
  return TRUE;
}

static void
print_slices (const Lexicon *lexicon, GPtrArray *slices, RowWriter *writer)
{
  for (guint s = 0; s < slices->len; s++)
    {
      LexiconSlice *slice = slices->pdata[s];

      for (guint i = 0; i < lexicon_n_categories (lexicon); i++)
        {
          g_autofree char *messages = g_strdup_printf ("%" G_GINT64_FORMAT, slice->messages);
          g_autofree char *words = g_strdup_printf ("%" G_GINT64_FORMAT, slice->words);
          g_autofree char *matches = g_strdup_printf ("%" G_GINT64_FORMAT, slice->matches[i]);
          g_autofree char *score = real (slice->scores[i]);
          g_autofree char *per_word = real (slice->words ? slice->scores[i] / slice->words : 0);
          g_autofree char *mean = real (slice->scored_messages ? slice->message_means[i] / slice->scored_messages : 0);
          RowValue v[] = { ROW_TEXT ("slice", slice->slice), ROW_TEXT ("category", lexicon_category (lexicon, i)),
                           ROW_NUMBER ("messages", messages), ROW_NUMBER ("words", words),
                           ROW_NUMBER ("matches", matches), ROW_NUMBER ("score", score),
                           ROW_NUMBER ("score_per_word", per_word),
                           ROW_NUMBER ("mean_message_score_per_word", mean) };

          row_writer_add (writer, v, G_N_ELEMENTS (v));
        }
    }
}

int
cmd_score (DejaRun *run, int argc, char **argv)
{
  g_autofree char *lexicon_path = NULL, *by_name = NULL, *format_name = NULL;
  gboolean per_message = FALSE, negation = FALSE, duplicates = FALSE;
  int threads = 0, status;
  GOptionEntry entries[] = {
    { "lexicon", 'l', 0, G_OPTION_ARG_FILENAME, &lexicon_path,
      "TSV: word, weight[, category]; 'word*' matches words it begins", "FILE" },
    { "by", 0, 0, G_OPTION_ARG_STRING, &by_name, "one row per slice and category: all (default), group, year, month or author", "SLICE" },
    { "messages", 0, 0, G_OPTION_ARG_NONE, &per_message, "one row per message and category instead", NULL },
    { "negation", 0, 0, G_OPTION_ARG_NONE, &negation,
      "reverse a weight after not/no/never/…/n't within three words (English)", NULL },
    { "duplicates", 0, 0, G_OPTION_ARG_NONE, &duplicates, "score later copies of a Message-ID too", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "output format (default: tsv)", ROW_FORMAT_NAMES },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "worker threads (default: one per CPU deja may use)", "N" },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  g_autoptr (Lexicon) lexicon = NULL;
  g_autoptr (GPtrArray) slices = NULL;
  RowFormat format;
  TermsBy by = TERMS_BY_ALL;
  PerMessage pm;
  gboolean ok;

  if (!deja_run_parse (run, "— score own text with a lexicon", entries,
    "Sums the weights of the lexicon's words in each message's own text (case-folded, not\n"
    "stemmed), per category.  Per slice: messages, words, matches, the sum of scores, the\n"
    "score per word, and the mean over messages of their score per word.  deja ships no\n"
    "lexicon: bring VADER, AFINN, Bing or your own (docs/text-analysis.md).",
    &argc, &argv, &status))
    return status;
  if (lexicon_path == NULL)
    return deja_usage_error (run->context, "--lexicon FILE is required");
  if (by_name)
    {
      static const char *const names[] = { "all", "group", "year", "month", "author" };
      gsize i;

      for (i = 0; i < G_N_ELEMENTS (names) && g_strcmp0 (by_name, names[i]) != 0; i++)
        ;
      if (i == G_N_ELEMENTS (names))
        return deja_usage_error (run->context, "--by must be all, group, year, month or author");
      by = (TermsBy) i;
    }
  if (threads < 0)
    return deja_usage_error (run->context, "--threads must be 0 or more");
  if (!row_format_parse (format_name, ROW_FORMAT_TSV, &format))
    return deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
  run->filter_sql.canonical_only = !duplicates;
  if ((lexicon = lexicon_load (lexicon_path, &error)) == NULL)
    {
      deja_error ("cannot read the lexicon: %s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  pm = (PerMessage) { lexicon, row_writer_new (format, stdout) };
  ok = lexicon_score (store, &run->filter_sql, lexicon, by, negation, (guint) threads,
                      per_message ? print_message : NULL, &pm, per_message ? NULL : &slices, &error);
  if (ok && !per_message)
    print_slices (lexicon, slices, pm.writer);
  row_writer_finish (pm.writer);
  if (!ok)
    {
      deja_error ("cannot score '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("lexicon '%s': %u entries in %u categor%s", lexicon_path, lexicon_size (lexicon),
             lexicon_n_categories (lexicon), lexicon_n_categories (lexicon) == 1 ? "y" : "ies");
  return DEJA_EXIT_OK;
}
