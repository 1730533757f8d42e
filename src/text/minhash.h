/* minhash.h — MinHash signatures of word 5-shingles, and LSH bands. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TEXT_MINHASH_K 128
#define TEXT_SHINGLE_WORDS 5

typedef struct {
  guint32 h[TEXT_MINHASH_K];
  guint32 shingles;
} TextMinhash;

void text_minhash_init (TextMinhash *m);
void text_minhash_add (TextMinhash *m, guint64 shingle);
double text_minhash_similarity (const TextMinhash *a, const TextMinhash *b);
void text_lsh_bands (double threshold, guint *bands, guint *rows);
guint64 text_minhash_band (const TextMinhash *m, guint band, guint rows);
double text_lsh_probability (double similarity, guint bands, guint rows);
guint64 text_hash64 (const char *s, gsize len);

G_END_DECLS
