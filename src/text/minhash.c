/* minhash.c — MinHash (Broder 1997) over hashed word shingles, with the
 * banding of locality-sensitive hashing (Leskovec, Rajaraman and Ullman,
 * Mining of Massive Datasets, ch. 3).
 *
 * Each of the K permutations is a multiply-shift hash of the shingle's
 * 64-bit hash with fixed odd multipliers, so signatures are the same in
 * every run and on every machine (shards compare). */
#include <math.h>
#include <string.h>
#include "minhash.h"

static guint64 mult[TEXT_MINHASH_K], add[TEXT_MINHASH_K];

static guint64
splitmix64 (guint64 *state)
{
  guint64 z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void
init_permutations (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      guint64 state = 0x646a61u;   /* "dja" */

      for (guint i = 0; i < TEXT_MINHASH_K; i++)
        {
          mult[i] = splitmix64 (&state) | 1;
          add[i] = splitmix64 (&state);
        }
      g_once_init_leave (&done, 1);
    }
}

/* FNV-1a, 64 bits, then a final mix (words → shingle parts). */
guint64
text_hash64 (const char *s, gsize len)
{
  guint64 h = 0xcbf29ce484222325ULL;

  for (gsize i = 0; i < len; i++)
    h = (h ^ (guchar) s[i]) * 0x100000001b3ULL;
  return splitmix64 (&h);
}

void
text_minhash_init (TextMinhash *m)
{
  init_permutations ();
  memset (m->h, 0xff, sizeof m->h);
  m->shingles = 0;
}

void
text_minhash_add (TextMinhash *m, guint64 shingle)
{
  for (guint i = 0; i < TEXT_MINHASH_K; i++)
    {
      guint32 v = (guint32) ((mult[i] * shingle + add[i]) >> 32);

      if (v < m->h[i])
        m->h[i] = v;
    }
  m->shingles++;
}

/* The share of equal minima: an unbiased estimate of the Jaccard
 * similarity of the two shingle sets. */
double
text_minhash_similarity (const TextMinhash *a, const TextMinhash *b)
{
  guint same = 0;

  for (guint i = 0; i < TEXT_MINHASH_K; i++)
    same += a->h[i] == b->h[i];
  return (double) same / TEXT_MINHASH_K;
}

/* The chance that two texts of Jaccard similarity s share a band. */
double
text_lsh_probability (double s, guint bands, guint rows)
{
  return 1.0 - pow (1.0 - pow (s, rows), bands);
}

/**
 * text_lsh_bands:
 *
 * Bands × rows ≤ K for a threshold: the most rows per band (the fewest
 * candidates) with which a pair at @threshold still shares a band with
 * probability ≥ 0.97.  Candidates are then checked on the whole
 * signature, so only that probability costs recall.
 */
void
text_lsh_bands (double threshold, guint *bands, guint *rows)
{
  guint best_r = 1;

  for (guint r = 1; r <= TEXT_MINHASH_K; r++)
    if (text_lsh_probability (threshold, TEXT_MINHASH_K / r, r) >= 0.97)
      best_r = r;
  *rows = best_r;
  *bands = TEXT_MINHASH_K / best_r;
}

/* The hash of one band of a signature. */
guint64
text_minhash_band (const TextMinhash *m, guint band, guint rows)
{
  guint64 h = 0x9ae16a3b2f90404fULL ^ band;

  for (guint i = band * rows; i < (band + 1) * rows && i < TEXT_MINHASH_K; i++)
    {
      h ^= m->h[i];
      h = splitmix64 (&h);
    }
  return h;
}
