/* terms.c — counting the words of own text, per slice.
 *
 * Workers (corpus.c) turn each message's own text into prose, words,
 * folded and (with --stem) stemmed terms, leaving out stop words and
 * numbers; this thread adds them up per slice.  A term's "messages" is
 * its document frequency.  N-grams are runs of kept words with nothing
 * between them: a stop word, a number, code, a URL or sentence
 * punctuation ends a run, so "state of the art" with a stop list gives
 * no "state art".  Collocations pair a word with each of the next
 * WINDOW words of the same run (stop words count as places but are not
 * paired). */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "corpus.h"
#include "measures.h"
#include "output.h"
#include "terms.h"

typedef struct {
  gint64 count, messages, last_doc;
} Count;

typedef struct {
  GHashTable *terms;         /* interned term → Count* */
  gint64 tokens, messages;
} Slice;

struct _TermsTable {
  GStringChunk *strings;
  GHashTable *slices;        /* name → Slice* */
  Slice *total;              /* every message once */
  GHashTable *pairs;         /* "a\tb" → Count* (collocations) */
  GHashTable *firsts, *seconds;   /* term → Count*: places in pairs */
  gint64 pair_total;
  const TermsOptions *options;
  GHashTable *stoplists;     /* language → TextStoplist* (stop_auto) */
  GHashTable *doc_terms;     /* scratch: this message's term → count */
  GError *export_error;
};

typedef struct {
  guint32 offset;
  guint32 pos;               /* place among all words and numbers */
  guint32 run;               /* n-grams: ends at anything left out */
  guint32 phrase;            /* collocations: ends at punctuation */
} Tok;

typedef struct {
  GString *buf;
  GArray *toks;              /* of Tok */
  char *prose;               /* TERMS_EXPORT_TEXT only */
} DocTokens;

typedef CorpusWorker Worker;

static Slice *
slice_new (void)
{
  Slice *s = g_new0 (Slice, 1);

  s->terms = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  return s;
}

static void
slice_free (gpointer p)
{
  Slice *s = p;

  g_hash_table_destroy (s->terms);
  g_free (s);
}

void
terms_table_free (TermsTable *t)
{
  if (t == NULL)
    return;
  g_hash_table_destroy (t->slices);
  slice_free (t->total);
  g_hash_table_destroy (t->pairs);
  g_hash_table_destroy (t->firsts);
  g_hash_table_destroy (t->seconds);
  g_clear_pointer (&t->stoplists, g_hash_table_destroy);
  g_hash_table_destroy (t->doc_terms);
  g_string_chunk_free (t->strings);
  g_clear_error (&t->export_error);
  g_free (t);
}

static void
doc_tokens_free (gpointer p)
{
  DocTokens *d = p;

  g_string_free (d->buf, TRUE);
  g_array_unref (d->toks);
  g_free (d->prose);
  g_free (d);
}

typedef struct {
  DocTokens *out;
  const TextStoplist *stop;
  gboolean numbers;
  guint32 pos, run, phrase;
} Collect;

static gboolean
collect (const TextToken *t, gpointer user_data)
{
  Collect *c = user_data;
  Tok tok;

  if (!t->joined)
    c->run++, c->phrase++;
  c->pos++;
  if ((t->kind == TEXT_TOKEN_NUMBER && !c->numbers) || text_stoplist_has (c->stop, t->folded))
    {
      c->run++;   /* n-grams do not reach over it; collocations use positions */
      return TRUE;
    }
  tok = (Tok) { c->out->buf->len, c->pos, c->run, c->phrase };
  g_string_append_len (c->out->buf, t->term, t->len);
  g_string_append_c (c->out->buf, '\0');
  g_array_append_val (c->out->toks, tok);
  return TRUE;
}

static void
map_doc (CorpusDoc *doc, gpointer state, gpointer user_data)
{
  Worker *w = state;
  TermsTable *t = user_data;
  const TermsOptions *o = t->options;
  DocTokens *out = g_new0 (DocTokens, 1);
  Collect c = { out, o->stop, o->keep_numbers, 0, 0, 0 };

  out->buf = g_string_sized_new (256);
  out->toks = g_array_new (FALSE, FALSE, sizeof (Tok));
  if (o->stop_auto)
    c.stop = doc->lang ? g_hash_table_lookup (t->stoplists, doc->lang) : NULL;
  text_prose (doc->text, strlen (doc->text), w->prose, NULL);
  text_words_each (w->words, w->prose->str, w->prose->len, o->stem ? doc->lang : NULL, collect, &c);
  if (o->export == TERMS_EXPORT_TEXT)
    out->prose = g_strndup (w->prose->str, w->prose->len);
  doc->result = out;
}

/**
 * terms_slice_of:
 *
 * The slice a message falls in for @by: a group, "YYYY", "YYYY-MM", an
 * author's address, or "all"; "(none)" when the message has no value.
 */
char *
terms_slice_of (TermsBy by, const char *date, const char *group, const char *author)
{
  switch (by)
    {
    case TERMS_BY_GROUP:
      return g_strdup (group && *group ? group : "(none)");
    case TERMS_BY_YEAR:
      return date && strlen (date) >= 4 ? g_strndup (date, 4) : g_strdup ("(none)");
    case TERMS_BY_MONTH:
      return date && strlen (date) >= 7 ? g_strndup (date, 7) : g_strdup ("(none)");
    case TERMS_BY_AUTHOR:
      return g_strdup (author && *author ? author : "(none)");
    case TERMS_BY_ALL:
    default:
      return g_strdup ("all");
    }
}

static GPtrArray *
slices_of (const TermsOptions *o, const CorpusDoc *doc)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  if (o->by == TERMS_BY_GROUP && doc->groups && *doc->groups)
    {
      g_auto (GStrv) groups = g_strsplit (doc->groups, ",", -1);

      for (char **g = groups; *g; g++)
        g_ptr_array_add (names, g_strdup (*g));
    }
  else
    g_ptr_array_add (names, terms_slice_of (o->by, doc->date, NULL, doc->author));
  return names;
}

/* The doc's terms (n-grams joined by @sep) into t->doc_terms. */
static gint64
doc_terms (TermsTable *t, const DocTokens *d, char sep)
{
  guint n = MAX (t->options->ngram, 1);
  Tok *toks = (Tok *) d->toks->data;
  g_autoptr (GString) gram = g_string_new (NULL);
  gint64 total = 0;

  g_hash_table_remove_all (t->doc_terms);
  for (guint k = 0; k + n <= d->toks->len; k++)
    {
      const char *term;
      gint64 *count;
      guint j;

      for (j = 1; j < n; j++)
        if (toks[k + j].run != toks[k].run || toks[k + j].pos != toks[k].pos + j)
          break;
      if (j < n)
        continue;
      if (n == 1)
        term = d->buf->str + toks[k].offset;
      else
        {
          g_string_truncate (gram, 0);
          for (j = 0; j < n; j++)
            {
              if (j)
                g_string_append_c (gram, sep);
              g_string_append (gram, d->buf->str + toks[k + j].offset);
            }
          term = gram->str;
        }
      term = g_string_chunk_insert_const (t->strings, term);
      count = g_hash_table_lookup (t->doc_terms, term);
      if (count == NULL)
        {
          count = g_new0 (gint64, 1);
          g_hash_table_insert (t->doc_terms, (gpointer) term, count);
        }
      (*count)++;
      total++;
    }
  return total;
}

static void
add_to_slice (Slice *s, GHashTable *terms, gint64 doc, gint64 total)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, terms);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Count *c = g_hash_table_lookup (s->terms, key);

      if (c == NULL)
        {
          c = g_new0 (Count, 1);
          g_hash_table_insert (s->terms, key, c);
        }
      c->count += *(gint64 *) value;
      if (c->last_doc != doc)
        c->messages++, c->last_doc = doc;
    }
  s->tokens += total;
  s->messages++;
}

static void
bump (GHashTable *table, GStringChunk *strings, const char *key)
{
  Count *c = g_hash_table_lookup (table, key);

  if (c == NULL)
    {
      c = g_new0 (Count, 1);
      g_hash_table_insert (table, g_string_chunk_insert_const (strings, key), c);
    }
  c->count++;
}

static void
add_pairs (TermsTable *t, const DocTokens *d)
{
  Tok *toks = (Tok *) d->toks->data;
  g_autoptr (GString) key = g_string_new (NULL);

  for (guint i = 0; i < d->toks->len; i++)
    for (guint j = i + 1; j < d->toks->len && toks[j].phrase == toks[i].phrase
                          && toks[j].pos - toks[i].pos <= t->options->collocation_window; j++)
      {
        const char *a = d->buf->str + toks[i].offset, *b = d->buf->str + toks[j].offset;

        g_string_printf (key, "%s\t%s", a, b);
        bump (t->pairs, t->strings, key->str);
        bump (t->firsts, t->strings, a);
        bump (t->seconds, t->strings, b);
        t->pair_total++;
      }
}

static gboolean
write_export (TermsTable *t, const CorpusDoc *doc, const DocTokens *d, const char *label,
              GError **error)
{
  const TermsOptions *o = t->options;
  g_autoptr (GString) line = g_string_new (NULL);
  GHashTableIter iter;
  gpointer key, value;

  switch (o->export)
    {
    case TERMS_EXPORT_MALLET:
      {
        /* MALLET's import-file: "name label text", one message a line */
        guint n = MAX (o->ngram, 1);
        Tok *toks = (Tok *) d->toks->data;

        g_string_printf (line, "%" G_GINT64_FORMAT "\t", doc->id);
        for (const char *p = label; *p; p++)
          g_string_append_c (line, g_ascii_isspace (*p) ? '_' : *p);
        g_string_append_c (line, '\t');
        for (guint k = 0, first = 1; k + n <= d->toks->len; k++)
          {
            guint j;

            for (j = 1; j < n; j++)
              if (toks[k + j].run != toks[k].run || toks[k + j].pos != toks[k].pos + j)
                break;
            if (j < n)
              continue;
            if (!first)
              g_string_append_c (line, ' ');
            first = 0;
            for (j = 0; j < n; j++)
              {
                if (j)
                  g_string_append_c (line, '_');
                for (const char *p = d->buf->str + toks[k + j].offset; *p; p++)
                  g_string_append_c (line, g_ascii_isspace (*p) ? '_' : *p);
              }
          }
        g_string_append_c (line, '\n');
        break;
      }
    case TERMS_EXPORT_LONG:
      g_hash_table_iter_init (&iter, t->doc_terms);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          g_string_append_printf (line, "%" G_GINT64_FORMAT ",", doc->id);
          output_csv_field (line, key);
          g_string_append_printf (line, ",%" G_GINT64_FORMAT "\n", *(gint64 *) value);
        }
      break;
    case TERMS_EXPORT_TEXT:
      {
        g_autofree char *name = g_strdup_printf ("%" G_GINT64_FORMAT ".txt", doc->id);
        g_autofree char *path = g_build_filename (o->export_dir, name, NULL);
        g_autofree char *text = g_strconcat (d->prose, "\n", NULL);

        return g_file_set_contents (path, text, -1, error);
      }
    case TERMS_EXPORT_NONE:
    default:
      return TRUE;
    }
  if (fwrite (line->str, 1, line->len, o->export_out) != line->len)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "cannot write: %s",
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

static gboolean
reduce_doc (CorpusDoc *doc, gpointer user_data, GError **error)
{
  TermsTable *t = user_data;
  DocTokens *d = doc->result;
  g_autoptr (GPtrArray) names = slices_of (t->options, doc);
  gint64 total = doc_terms (t, d, t->options->export == TERMS_EXPORT_MALLET ? '_' : ' ');

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      Slice *s = g_hash_table_lookup (t->slices, name);

      if (s == NULL)
        {
          s = slice_new ();
          g_hash_table_insert (t->slices, g_strdup (name), s);
        }
      add_to_slice (s, t->doc_terms, doc->id, total);
    }
  add_to_slice (t->total, t->doc_terms, doc->id, total);
  if (t->options->collocation_window > 0)
    add_pairs (t, d);
  if (t->options->export != TERMS_EXPORT_NONE)
    {
      /* n-grams in exports are joined with '_': count them again so */
      if (t->options->export == TERMS_EXPORT_LONG && t->options->ngram > 1)
        doc_terms (t, d, '_');
      return write_export (t, doc, d, names->pdata[0], error);
    }
  return TRUE;
}

static GHashTable *
installed_stoplists (void)
{
  static const char *const codes[] = { "da", "nl", "en", "fi", "fr", "de", "hu", "it", "ne",
                                       "nb", "nn", "no", "pt", "ru", "es", "sv", "tr" };
  GHashTable *lists = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                             (GDestroyNotify) text_stoplist_free);

  for (gsize i = 0; i < G_N_ELEMENTS (codes); i++)
    {
      g_autofree char *path = text_stoplist_path_for (codes[i]);
      TextStoplist *list;

      if (path == NULL)
        continue;
      list = text_stoplist_new ();
      if (text_stoplist_add_file (list, path, NULL))
        g_hash_table_insert (lists, (gpointer) codes[i], list);
      else
        text_stoplist_free (list);
    }
  return lists;
}

/**
 * terms_count:
 * @filter: which messages; copies of one Message-ID are counted once
 *   (the caller sets canonical_only)
 */
TermsTable *
terms_count (Store *store, const StoreFilter *filter, const TermsOptions *options, GError **error)
{
  g_autoptr (TermsTable) t = g_new0 (TermsTable, 1);
  CorpusFuncs funcs = { corpus_worker_new, corpus_worker_free, map_doc, doc_tokens_free, reduce_doc };

  t->options = options;
  t->strings = g_string_chunk_new (1 << 16);
  t->slices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, slice_free);
  t->total = slice_new ();
  t->pairs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  t->firsts = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  t->seconds = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  t->doc_terms = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  if (options->stop_auto)
    t->stoplists = installed_stoplists ();
  if (!corpus_map (store, filter, options->threads, &funcs, t, error))
    return NULL;
  return g_steal_pointer (&t);
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The slices, sorted by name (free with g_free, not the strings). */
char **
terms_table_slices (TermsTable *t)
{
  guint n;
  char **names = (char **) g_hash_table_get_keys_as_array (t->slices, &n);

  qsort (names, n, sizeof *names, by_name);
  return names;
}

static int
by_count (gconstpointer a, gconstpointer b)
{
  const TermsEntry *x = a, *y = b;

  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp (x->term, y->term);
}

static Slice *
slice_named (TermsTable *t, const char *name)
{
  return name ? g_hash_table_lookup (t->slices, name) : t->total;
}

/* A slice's terms (NULL: all messages), by count then term. */
GArray *
terms_table_entries (TermsTable *t, const char *name)
{
  Slice *s = slice_named (t, name);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TermsEntry));
  GHashTableIter iter;
  gpointer key, value;

  if (s == NULL)
    return out;
  g_hash_table_iter_init (&iter, s->terms);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Count *c = value;
      TermsEntry e = { key, c->count, c->messages };

      g_array_append_val (out, e);
    }
  g_array_sort (out, by_count);
  return out;
}

gint64
terms_table_tokens (TermsTable *t, const char *name)
{
  Slice *s = slice_named (t, name);

  return s ? s->tokens : 0;
}

gint64
terms_table_messages (TermsTable *t, const char *name)
{
  Slice *s = slice_named (t, name);

  return s ? s->messages : 0;
}

gint64
terms_table_total_tokens (TermsTable *t)
{
  return t->total->tokens;
}

static gint64
count_in (Slice *s, const char *term)
{
  Count *c = s ? g_hash_table_lookup (s->terms, term) : NULL;

  return c ? c->count : 0;
}

static gint64
messages_in (Slice *s, const char *term)
{
  Count *c = s ? g_hash_table_lookup (s->terms, term) : NULL;

  return c ? c->messages : 0;
}

static int
by_g2 (gconstpointer a, gconstpointer b)
{
  const TermsKeyness *x = a, *y = b;

  if (x->g2 != y->g2)
    return x->g2 < y->g2 ? 1 : -1;
  return strcmp (x->term, y->term);
}

/**
 * terms_keyness:
 * @target: a slice
 * @reference: (nullable): a slice, or NULL for every message not in @target
 *
 * Returns: (transfer full): TermsKeyness rows, by signed G² (key terms of
 *   the target first, those of the reference last); NULL when @target is
 *   not a slice
 */
GArray *
terms_keyness (TermsTable *t, const char *target, const char *reference, gint64 min_count,
               gint64 *target_tokens, gint64 *reference_tokens)
{
  Slice *ts = g_hash_table_lookup (t->slices, target);
  Slice *rs = reference ? g_hash_table_lookup (t->slices, reference) : NULL;
  GArray *out;
  GHashTableIter iter;
  gpointer key, value;
  double c, d;

  if (ts == NULL || (reference && rs == NULL))
    return NULL;
  c = ts->tokens;
  /* the rest: all messages' words less the target's (a message in two
   * groups is in the target and, through its other group, not in the rest) */
  d = rs ? rs->tokens : t->total->tokens - ts->tokens;
  *target_tokens = (gint64) c;
  *reference_tokens = (gint64) d;
  out = g_array_new (FALSE, FALSE, sizeof (TermsKeyness));
  g_hash_table_iter_init (&iter, rs ? rs->terms : t->total->terms);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 a = count_in (ts, key);
      gint64 b = rs ? ((Count *) value)->count : ((Count *) value)->count - a;
      TermsKeyness k = { .term = key, .target = a, .reference = b,
                         .messages = rs ? messages_in (ts, key) + ((Count *) value)->messages
                                        : ((Count *) value)->messages };

      if (a + b < min_count || b < 0)
        continue;
      k.g2 = text_g2 (a, b, c, d);
      k.log_ratio = text_log_ratio (a, b, c, d);
      k.p = text_chi2_p (k.g2);
      g_array_append_val (out, k);
    }
  if (rs)   /* terms of the target the reference never has */
    {
      g_hash_table_iter_init (&iter, ts->terms);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          TermsKeyness k = { .term = key, .target = ((Count *) value)->count,
                             .messages = ((Count *) value)->messages };

          if (count_in (rs, key) > 0 || k.target < min_count)
            continue;
          k.g2 = text_g2 (k.target, 0, c, d);
          k.log_ratio = text_log_ratio (k.target, 0, c, d);
          k.p = text_chi2_p (k.g2);
          g_array_append_val (out, k);
        }
    }
  g_array_sort (out, by_g2);
  return out;
}

static int
by_collocation (gconstpointer a, gconstpointer b)
{
  const TermsCollocation *x = a, *y = b;
  int c;

  if (x->g2 != y->g2)
    return x->g2 < y->g2 ? 1 : -1;
  c = strcmp (x->first, y->first);
  return c ? c : strcmp (x->second, y->second);
}

/* Pairs seen @min_count times or more, by G² (PMI alone favours rare pairs). */
GArray *
terms_table_collocations (TermsTable *t, gint64 min_count)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (TermsCollocation));
  GHashTableIter iter;
  gpointer key, value;
  double n = t->pair_total;

  g_hash_table_iter_init (&iter, t->pairs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *tab = strchr (key, '\t');
      g_autofree char *first = g_strndup (key, tab - (const char *) key);
      TermsCollocation c = { .count = ((Count *) value)->count };
      double o11, r1, c1;

      if (c.count < min_count)
        continue;
      c.first = g_string_chunk_insert_const (t->strings, first);
      c.second = g_string_chunk_insert_const (t->strings, tab + 1);
      c.first_count = ((Count *) g_hash_table_lookup (t->firsts, c.first))->count;
      c.second_count = ((Count *) g_hash_table_lookup (t->seconds, c.second))->count;
      o11 = c.count, r1 = c.first_count, c1 = c.second_count;
      c.pmi = text_pmi (o11, r1, c1, n);
      c.g2 = text_g2_table (o11, r1 - o11, c1 - o11, n - r1 - c1 + o11);
      c.t_score = text_t_score (o11, r1, c1, n);
      g_array_append_val (out, c);
    }
  g_array_sort (out, by_collocation);
  return out;
}
