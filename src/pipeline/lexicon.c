/* lexicon.c — deja score: a researcher's lexicon (VADER, AFINN, Bing,
 * LIWC-style dictionaries; deja ships none) applied to own text.
 *
 * The file is TSV: word, weight, and an optional category; '#' starts a
 * comment line.  A word ending in '*' matches every word it begins
 * (LIWC's "happ*").  Words are compared case-folded, unstemmed.  A
 * message's score per category is the sum of the weights of its words;
 * with negation, a weight is reversed when one of "not", "no", "never",
 * "none", "nobody", "nothing", "neither", "nor", "without" or a word
 * ending in "n't" stands in the three words before (VADER's window,
 * English only). */
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "lexicon.h"
#include "words.h"

typedef struct {
  guint category;
  double weight;
} Entry;

struct _Lexicon {
  GHashTable *words;        /* folded word → GArray of Entry */
  GHashTable *prefixes;     /* folded prefix (of "word*") → GArray of Entry */
  guint max_prefix;         /* bytes */
  GPtrArray *categories;
  guint entries;
};

static void
add_entry (GHashTable *table, char *key, Entry e)
{
  GArray *list = g_hash_table_lookup (table, key);

  if (list == NULL)
    {
      list = g_array_new (FALSE, FALSE, sizeof (Entry));
      g_hash_table_insert (table, key, list);
    }
  else
    g_free (key);
  g_array_append_val (list, e);
}

static guint
category_index (Lexicon *l, const char *name)
{
  for (guint i = 0; i < l->categories->len; i++)
    if (strcmp (l->categories->pdata[i], name) == 0)
      return i;
  g_ptr_array_add (l->categories, g_strdup (name));
  return l->categories->len - 1;
}

void
lexicon_free (Lexicon *l)
{
  if (l == NULL)
    return;
  g_hash_table_destroy (l->words);
  g_hash_table_destroy (l->prefixes);
  g_ptr_array_unref (l->categories);
  g_free (l);
}

/**
 * lexicon_load:
 *
 * Returns: (transfer full): the lexicon, or NULL with @error naming the
 *   file and line of the first bad row
 */
Lexicon *
lexicon_load (const char *path, GError **error)
{
  g_autoptr (Lexicon) l = g_new0 (Lexicon, 1);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  gsize len;

  l->words = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  l->prefixes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  l->categories = g_ptr_array_new_with_free_func (g_free);
  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  if (!g_utf8_validate (text, len, NULL))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not UTF-8 text", path);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  for (guint n = 0; lines[n]; n++)
    {
      g_auto (GStrv) f = NULL;
      char *end, *word;
      Entry e;
      gsize wl;

      g_strchomp (lines[n]);
      if (lines[n][0] == '\0' || lines[n][0] == '#')
        continue;
      f = g_strsplit (lines[n], "\t", 4);
      if (g_strv_length (f) < 2 || (e.weight = g_ascii_strtod (f[1], &end), end == f[1] || *end))
        {
          /* a header row ("word<TAB>weight") is allowed as the first row */
          if (l->entries == 0 && g_strv_length (f) >= 2 && l->categories->len == 0)
            continue;
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "%s:%u: not 'word<TAB>weight[<TAB>category]'", path, n + 1);
          return NULL;
        }
      g_strstrip (f[0]);
      e.category = category_index (l, f[2] && *g_strstrip (f[2]) ? f[2] : "score");
      word = g_utf8_casefold (f[0], -1);
      wl = strlen (word);
      if (wl > 1 && word[wl - 1] == '*')
        {
          word[wl - 1] = '\0';
          l->max_prefix = MAX (l->max_prefix, wl - 1);
          add_entry (l->prefixes, word, e);
        }
      else if (wl > 0)
        add_entry (l->words, word, e);
      else
        g_free (word);
      l->entries++;
    }
  if (l->entries == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no 'word<TAB>weight' rows", path);
      return NULL;
    }
  return g_steal_pointer (&l);
}

guint
lexicon_size (const Lexicon *l)
{
  return l->entries;
}

guint
lexicon_n_categories (const Lexicon *l)
{
  return l->categories->len;
}

const char *
lexicon_category (const Lexicon *l, guint i)
{
  return l->categories->pdata[i];
}

typedef struct {
  gint64 words;
  gint64 *matches;
  double *scores;
} Score;

typedef struct {
  const Lexicon *lexicon;
  TermsBy by;
  gboolean negation;
  LexiconMessageFunc func;
  gpointer user_data;
  GHashTable *slices;       /* name → LexiconSlice* */
} Scoring;

typedef CorpusWorker Worker;

static void
score_free (gpointer p)
{
  Score *s = p;

  g_free (s->matches);
  g_free (s->scores);
  g_free (s);
}

static gboolean
negator (const char *w, gsize len)
{
  static const char *const words[] = { "not", "no", "never", "none", "nobody", "nothing",
                                       "neither", "nor", "without", "cannot" };

  if (len >= 3 && strcmp (w + len - 3, "n't") == 0)
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (strcmp (w, words[i]) == 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  const Scoring *scoring;
  Score *score;
  guint since_negator;     /* words since the last negator; large: none */
} Match;

static void
apply (Match *m, const GArray *list)
{
  for (guint i = 0; list && i < list->len; i++)
    {
      const Entry *e = &g_array_index (list, Entry, i);
      double w = e->weight;

      if (m->scoring->negation && m->since_negator <= 3)
        w = -w;
      m->score->matches[e->category]++;
      m->score->scores[e->category] += w;
    }
}

static gboolean
match_word (const TextToken *t, gpointer user_data)
{
  Match *m = user_data;
  const Lexicon *l = m->scoring->lexicon;

  if (t->kind != TEXT_TOKEN_WORD)
    return TRUE;
  m->score->words++;
  m->since_negator++;
  apply (m, g_hash_table_lookup (l->words, t->term));
  if (l->max_prefix > 0)
    {
      char buf[256];
      gsize n = MIN (t->len, MIN (l->max_prefix, sizeof buf - 1));

      memcpy (buf, t->term, n);
      for (gsize k = n; k > 0; k--)
        {
          buf[k] = '\0';
          if (k == t->len || ((guchar) t->term[k] & 0xC0) != 0x80)   /* a whole character */
            apply (m, g_hash_table_lookup (l->prefixes, buf));
        }
    }
  if (m->scoring->negation && negator (t->term, t->len))
    m->since_negator = 0;
  return TRUE;
}

static void
map_doc (CorpusDoc *doc, gpointer state, gpointer user_data)
{
  Worker *w = state;
  const Scoring *s = user_data;
  guint n = lexicon_n_categories (s->lexicon);
  Score *score = g_new0 (Score, 1);
  Match m = { s, score, G_MAXUINT / 2 };

  score->matches = g_new0 (gint64, n);
  score->scores = g_new0 (double, n);
  text_prose (doc->text, strlen (doc->text), w->prose, NULL);
  text_words_each (w->words, w->prose->str, w->prose->len, NULL, match_word, &m);
  doc->result = score;
}

void
lexicon_slice_free (LexiconSlice *s)
{
  if (s == NULL)
    return;
  g_free (s->slice);
  g_free (s->matches);
  g_free (s->scores);
  g_free (s->message_means);
  g_free (s);
}

static void
add_to_slice (Scoring *s, const char *name, const Score *score)
{
  guint n = lexicon_n_categories (s->lexicon);
  LexiconSlice *slice = g_hash_table_lookup (s->slices, name);

  if (slice == NULL)
    {
      slice = g_new0 (LexiconSlice, 1);
      slice->slice = g_strdup (name);
      slice->matches = g_new0 (gint64, n);
      slice->scores = g_new0 (double, n);
      slice->message_means = g_new0 (double, n);
      g_hash_table_insert (s->slices, slice->slice, slice);
    }
  slice->messages++;
  slice->words += score->words;
  slice->scored_messages += score->words > 0;
  for (guint i = 0; i < n; i++)
    {
      slice->matches[i] += score->matches[i];
      slice->scores[i] += score->scores[i];
      if (score->words > 0)
        slice->message_means[i] += score->scores[i] / score->words;
    }
}

static gboolean
reduce_doc (CorpusDoc *doc, gpointer user_data, GError **error)
{
  Scoring *s = user_data;
  Score *score = doc->result;
  g_autofree char *slice = NULL;

  if (s->by == TERMS_BY_GROUP && doc->groups && *doc->groups)
    {
      g_auto (GStrv) groups = g_strsplit (doc->groups, ",", -1);

      for (char **g = groups; *g; g++)
        add_to_slice (s, *g, score);
      slice = g_strdup (groups[0]);
    }
  else
    {
      slice = terms_slice_of (s->by, doc->date, NULL, doc->author);
      add_to_slice (s, slice, score);
    }
  if (s->func)
    {
      LexiconMessage m = { doc->id, doc->date, slice, score->words, score->matches, score->scores };

      return s->func (&m, s->user_data, error);
    }
  return TRUE;
}

static int
by_slice (gconstpointer a, gconstpointer b)
{
  return strcmp ((*(LexiconSlice *const *) a)->slice, (*(LexiconSlice *const *) b)->slice);
}

/**
 * lexicon_score:
 * @func: (nullable): called for each message, in archive order
 * @slices: (out) (optional): LexiconSlice rows, by slice name
 */
gboolean
lexicon_score (Store *store, const StoreFilter *filter, const Lexicon *lexicon, TermsBy by,
               gboolean negation, guint threads, LexiconMessageFunc func, gpointer user_data,
               GPtrArray **slices, GError **error)
{
  CorpusFuncs funcs = { .state_new = corpus_worker_new, .state_free = corpus_worker_free,
                        .map = map_doc, .result_free = score_free, .reduce = reduce_doc };
  Scoring s = { .lexicon = lexicon, .by = by, .negation = negation, .func = func, .user_data = user_data };
  GHashTableIter iter;
  gpointer value;
  gboolean ok;

  s.slices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);
  ok = corpus_map (store, filter, threads, &funcs, &s, error);
  if (ok && slices)
    {
      *slices = g_ptr_array_new_with_free_func ((GDestroyNotify) lexicon_slice_free);
      g_hash_table_iter_init (&iter, s.slices);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_ptr_array_add (*slices, value);
      g_ptr_array_sort (*slices, by_slice);
    }
  else
    {
      g_hash_table_iter_init (&iter, s.slices);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        lexicon_slice_free (value);
    }
  g_hash_table_destroy (s.slices);
  return ok;
}
