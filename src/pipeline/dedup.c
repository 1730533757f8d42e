/* dedup.c — deja dedup: which messages' own text is the same or nearly
 * (docs/text-analysis.md, "Near-duplicates").
 *
 * Workers turn each message's own text into its lower-cased words
 * (text_quick_words_each: no stems, no stop list), hash the whole for
 * exact copies, and build a
 * MinHash signature of its 5-word shingles and the hashes of its
 * paragraphs.  This thread buckets signatures by LSH band, checks every
 * candidate pair on the whole signature against the threshold, and
 * joins pairs into clusters (union-find).  A cluster's id is its first
 * message's.  Paragraphs found in several messages are listed apart:
 * signatures the quote finder did not recognise, FAQs, footers, spam.
 * Everything lands in near_duplicates and repeated_paragraphs, replacing
 * the previous run's; no message is changed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "corpus.h"
#include "dedup.h"
#include "minhash.h"
#include "words.h"
#include "id-hash.h"

#define BUCKET_MAX 64      /* compare with at most this many of a band's earlier texts */

typedef struct {
  guint64 exact;           /* 0: no words */
  gboolean has_signature;
  TextMinhash signature;
  GArray *paragraphs;      /* of guint64 */
  GPtrArray *paragraph_texts;
  gint64 bytes;
} DocSketch;

typedef struct {
  GString *prose;
  GArray *hashes;          /* the words' hashes, in order */
} Worker;

typedef struct {
  gint64 id;
  gint64 day;              /* days since 1970, or G_MININT64 */
  guint64 exact;
  guint32 signature;       /* index into signatures, or G_MAXUINT32 */
  guint32 parent;          /* union-find */
} Doc;

typedef struct {
  gint64 count, first_id;
  char *text;              /* from the second sighting on */
  GArray *ids;             /* of gint64, from the second sighting on */
  GHashTable *authors;
} Paragraph;

typedef struct {
  Store *store;
  const DedupOptions *options;
  DedupCounts *counts;
  guint bands, rows;
  GArray *docs;            /* of Doc */
  GArray *signatures;      /* of TextMinhash */
  GHashTable *exact;       /* hash → doc index + 1 */
  GHashTable **buckets;    /* per band: band hash → GArray of doc index */
  GHashTable *paragraphs;  /* hash → Paragraph* */
} Dedup;

static gpointer
worker_new (gpointer user_data)
{
  Worker *w = g_new0 (Worker, 1);

  w->prose = g_string_new (NULL);
  w->hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
  return w;
}

static void
worker_free (gpointer p)
{
  Worker *w = p;

  g_string_free (w->prose, TRUE);
  g_array_unref (w->hashes);
  g_free (w);
}

static void
sketch_free (gpointer p)
{
  DocSketch *s = p;

  g_array_unref (s->paragraphs);
  g_ptr_array_unref (s->paragraph_texts);
  g_free (s);
}

/* One pass over the prose gives the whole text's words and each
 * paragraph's: a paragraph ends at the "\n\n" text_prose() puts between.
 * Texts and paragraphs are compared by hashes of their word sequences. */
typedef struct {
  Worker *w;
  const DedupOptions *options;
  DocSketch *sketch;
  const char *prose, *para_start, *para_end;
  guint64 text_hash, para_hash;
  guint words, para_words;
} Fold;

static guint64
mix (guint64 h, guint64 word)
{
  return (h ^ word) * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
}

static void
end_paragraph (Fold *f)
{
  if (f->para_words >= f->options->min_paragraph_words)
    {
      const char *end = f->para_end ? f->para_end : f->prose + strlen (f->prose);
      guint64 h = f->para_hash;

      g_array_append_val (f->sketch->paragraphs, h);
      g_ptr_array_add (f->sketch->paragraph_texts, g_strndup (f->para_start, end - f->para_start));
    }
  f->para_hash = 0;
  f->para_words = 0;
  if (f->para_end)
    {
      f->para_start = f->para_end + 2;
      f->para_end = strstr (f->para_start, "\n\n");
    }
}

static void
fold_word (guint64 h, const char *raw, gsize raw_len, gpointer user_data)
{
  Fold *f = user_data;

  while (f->para_end && raw >= f->para_end)
    end_paragraph (f);
  f->text_hash = mix (f->text_hash, h);
  f->para_hash = mix (f->para_hash, h);
  g_array_append_val (f->w->hashes, h);
  f->words++;
  f->para_words++;
}

static void
map_doc (CorpusDoc *doc, gpointer state, gpointer user_data)
{
  Worker *w = state;
  const Dedup *d = user_data;
  DocSketch *s = g_new0 (DocSketch, 1);
  Fold f = { w, d->options, s, NULL, NULL, NULL, 0, 0, 0, 0 };
  const guint64 *h;

  s->paragraphs = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->paragraph_texts = g_ptr_array_new_with_free_func (g_free);
  s->bytes = strlen (doc->text);
  text_prose (doc->text, s->bytes, w->prose, NULL);
  f.prose = f.para_start = w->prose->str;
  f.para_end = strstr (f.prose, "\n\n");
  g_array_set_size (w->hashes, 0);
  text_quick_words_each (w->prose->str, w->prose->len, fold_word, &f);
  while (f.para_end)
    end_paragraph (&f);
  end_paragraph (&f);
  if (f.words > 0)
    s->exact = f.text_hash | 1;
  h = (const guint64 *) w->hashes->data;
  if (f.words >= MAX (d->options->min_words, TEXT_SHINGLE_WORDS))
    {
      s->has_signature = TRUE;
      text_minhash_init (&s->signature);
      for (guint i = 0; i + TEXT_SHINGLE_WORDS <= f.words; i++)
        {
          guint64 x = h[i];

          for (guint j = 1; j < TEXT_SHINGLE_WORDS; j++)
            x = (x * 0x100000001b3ULL) ^ h[i + j];
          text_minhash_add (&s->signature, x);
        }
    }
  doc->result = s;
}

static guint32
find (GArray *docs, guint32 i)
{
  Doc *d = (Doc *) docs->data;

  while (d[i].parent != i)
    {
      d[i].parent = d[d[i].parent].parent;
      i = d[i].parent;
    }
  return i;
}

static void
join (GArray *docs, guint32 a, guint32 b)
{
  a = find (docs, a);
  b = find (docs, b);
  if (a != b)   /* the earlier message is the root: cluster id = first id */
    g_array_index (docs, Doc, MAX (a, b)).parent = MIN (a, b);
}

static gint64
day_of (const char *date)
{
  g_autoptr (GDateTime) t = NULL;
  g_autofree char *iso = NULL;

  if (date == NULL || strlen (date) < 10)
    return G_MININT64;
  iso = g_strndup (date, 10);
  {
    int y, m, dd;

    if (sscanf (iso, "%d-%d-%d", &y, &m, &dd) != 3)
      return G_MININT64;
    t = g_date_time_new_utc (y, m, dd, 0, 0, 0);
  }
  return t ? g_date_time_to_unix (t) / 86400 : G_MININT64;
}

static gboolean
close_in_time (const Dedup *d, const Doc *a, const Doc *b)
{
  if (d->options->window_days <= 0)
    return TRUE;
  if (a->day == G_MININT64 || b->day == G_MININT64)
    return FALSE;
  return ABS (a->day - b->day) <= d->options->window_days;
}

static void
add_paragraphs (Dedup *d, const CorpusDoc *doc, DocSketch *s)
{
  for (guint i = 0; i < s->paragraphs->len; i++)
    {
      guint64 h = g_array_index (s->paragraphs, guint64, i);
      Paragraph *p = g_hash_table_lookup (d->paragraphs, &h);

      if (p == NULL)
        {
          guint64 *key = g_memdup2 (&h, sizeof h);

          p = g_new0 (Paragraph, 1);
          p->first_id = doc->id;
          g_hash_table_insert (d->paragraphs, key, p);
        }
      if (p->ids && g_array_index (p->ids, gint64, p->ids->len - 1) == doc->id)
        continue;   /* twice in one message */
      if (p->count == 0 || (p->count == 1 && p->first_id == doc->id))
        {
          p->count = 1;
          continue;
        }
      if (p->ids == NULL)
        {
          p->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_array_append_val (p->ids, p->first_id);
          p->text = g_strdup (s->paragraph_texts->pdata[i]);
          p->authors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
        }
      g_array_append_val (p->ids, doc->id);
      p->count++;
      if (doc->author)
        g_hash_table_add (p->authors, g_strdup (doc->author));
    }
}

static gboolean
reduce_doc (CorpusDoc *doc, gpointer user_data, GError **error)
{
  Dedup *d = user_data;
  DocSketch *s = doc->result;
  guint32 index = d->docs->len;
  Doc row = { doc->id, day_of (doc->date), s->exact, G_MAXUINT32, index };

  d->counts->messages++;
  d->counts->bytes += s->bytes;
  g_array_append_val (d->docs, row);
  if (s->exact)
    {
      gpointer first = g_hash_table_lookup (d->exact, &s->exact);

      if (first)
        join (d->docs, GPOINTER_TO_UINT (first) - 1, index);
      else
        g_hash_table_insert (d->exact, g_memdup2 (&s->exact, sizeof s->exact), GUINT_TO_POINTER (index + 1));
    }
  if (s->has_signature)
    {
      Doc *me;
      const TextMinhash *mine;

      g_array_index (d->docs, Doc, index).signature = d->signatures->len;
      g_array_append_val (d->signatures, s->signature);
      me = &g_array_index (d->docs, Doc, index);
      mine = &g_array_index (d->signatures, TextMinhash, me->signature);
      for (guint b = 0; b < d->bands; b++)
        {
          guint64 key = text_minhash_band (mine, b, d->rows);
          GArray *bucket = g_hash_table_lookup (d->buckets[b], &key);

          if (bucket == NULL)
            {
              bucket = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_hash_table_insert (d->buckets[b], g_memdup2 (&key, sizeof key), bucket);
            }
          for (guint k = bucket->len > BUCKET_MAX ? bucket->len - BUCKET_MAX : 0; k < bucket->len; k++)
            {
              guint32 other = g_array_index (bucket, guint32, k);
              Doc *o = &g_array_index (d->docs, Doc, other);

              if (find (d->docs, other) == find (d->docs, index) || !close_in_time (d, o, me))
                continue;
              d->counts->candidates++;
              if (text_minhash_similarity (&g_array_index (d->signatures, TextMinhash, o->signature), mine)
                  >= d->options->threshold)
                join (d->docs, other, index);
            }
          g_array_append_val (bucket, index);
        }
    }
  add_paragraphs (d, doc, s);
  return TRUE;
}

static void
paragraph_free (gpointer p)
{
  Paragraph *para = p;

  g_free (para->text);
  g_clear_pointer (&para->ids, g_array_unref);
  g_clear_pointer (&para->authors, g_hash_table_destroy);
  g_free (para);
}

static double
similarity_to_root (Dedup *d, const Doc *doc, const Doc *root)
{
  if (doc->exact && doc->exact == root->exact)
    return 1.0;
  if (doc->signature == G_MAXUINT32 || root->signature == G_MAXUINT32)
    return 0.0;
  return text_minhash_similarity (&g_array_index (d->signatures, TextMinhash, doc->signature),
                                  &g_array_index (d->signatures, TextMinhash, root->signature));
}

/* Clusters and paragraphs into the store, replacing the last run's. */
static gboolean
save (Dedup *d, GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (StoreNearDuplicate));
  g_autoptr (GArray) paras = g_array_new (FALSE, FALSE, sizeof (StoreRepeatedParagraph));
  /* root + 1 → 1 while its cluster has only exact copies, 2 after a near one */
  g_autoptr (GHashTable) exact_only = g_hash_table_new (NULL, NULL);
  g_autofree char *settings = NULL;
  char threshold[G_ASCII_DTOSTR_BUF_SIZE];   /* with a '.' whatever the locale */
  Doc *docs = (Doc *) d->docs->data;
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < d->docs->len; i++)
    {
      guint32 root = find (d->docs, i);

      if (root == i)
        continue;
      {
        StoreNearDuplicate row = { docs[i].id, docs[root].id, similarity_to_root (d, &docs[i], &docs[root]),
                                   docs[i].exact == docs[root].exact ? "exact" : "minhash" };

        if (!g_hash_table_contains (exact_only, GUINT_TO_POINTER (root + 1)))
          {
            StoreNearDuplicate first = { docs[root].id, docs[root].id, 1.0, "first" };

            g_hash_table_insert (exact_only, GUINT_TO_POINTER (root + 1), GINT_TO_POINTER (1));
            g_array_append_val (rows, first);
          }
        if (strcmp (row.method, "exact") != 0)
          g_hash_table_insert (exact_only, GUINT_TO_POINTER (root + 1), GINT_TO_POINTER (2));
        g_array_append_val (rows, row);
        d->counts->flagged++;
      }
    }
  g_hash_table_iter_init (&iter, exact_only);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_INT (value) == 1)
      d->counts->exact_clusters++;
    else
      d->counts->near_clusters++;
  g_hash_table_iter_init (&iter, d->paragraphs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Paragraph *p = value;

      if (p->ids == NULL || p->count < d->options->min_paragraph_messages)
        continue;
      {
        StoreRepeatedParagraph row = { *(guint64 *) key, p->text, p->count,
                                       MAX (g_hash_table_size (p->authors), 1), p->first_id,
                                       (const gint64 *) p->ids->data, p->ids->len };

        g_array_append_val (paras, row);
      }
    }
  d->counts->paragraphs = paras->len;
  settings = g_strdup_printf ("threshold=%s min_words=%u window_days=%" G_GINT64_FORMAT
                              " bands=%u rows=%u shingle=%d",
                              g_ascii_formatd (threshold, sizeof threshold, "%g", d->options->threshold),
                              d->options->min_words, d->options->window_days, d->bands, d->rows,
                              TEXT_SHINGLE_WORDS);
  return store_save_dedup (d->store, (const StoreNearDuplicate *) rows->data, rows->len,
                           (const StoreRepeatedParagraph *) paras->data, paras->len, settings, error);
}

/**
 * dedup_run:
 * @filter: which messages are compared (canonical_only is the caller's)
 */
gboolean
dedup_run (Store *store, const StoreFilter *filter, const DedupOptions *options,
           DedupCounts *counts, GError **error)
{
  CorpusFuncs funcs = { .state_new = worker_new, .state_free = worker_free, .map = map_doc,
                        .result_free = sketch_free, .reduce = reduce_doc };
  Dedup d = { .store = store, .options = options, .counts = counts };
  gboolean ok;

  memset (counts, 0, sizeof *counts);
  text_lsh_bands (options->threshold, &d.bands, &d.rows);
  counts->bands = d.bands;
  counts->rows = d.rows;
  d.docs = g_array_new (FALSE, FALSE, sizeof (Doc));
  d.signatures = g_array_new (FALSE, FALSE, sizeof (TextMinhash));
  d.exact = deja_id_table_new (g_free, NULL);
  d.buckets = g_new0 (GHashTable *, d.bands);
  for (guint b = 0; b < d.bands; b++)
    d.buckets[b] = deja_id_table_new (g_free,
                                          (GDestroyNotify) g_array_unref);
  d.paragraphs = deja_id_table_new (g_free, paragraph_free);
  ok = corpus_map (store, filter, options->threads, &funcs, &d, error);
  for (guint b = 0; b < d.bands; b++)   /* the buckets go before the clusters are saved */
    g_hash_table_destroy (d.buckets[b]);
  g_free (d.buckets);
  g_hash_table_destroy (d.exact);
  if (ok)
    ok = save (&d, error);
  g_array_unref (d.docs);
  g_array_unref (d.signatures);
  g_hash_table_destroy (d.paragraphs);
  return ok;
}
