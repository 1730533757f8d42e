/* id-hash.h — hash tables keyed by deja's ids.
 *
 * A shard's ids are N x 2^32 + k ('deja ingest --shard N'), and
 * g_int64_hash() folds the two halves together (k ^ N): over a set of
 * 64 shards of 7,300 messages each, 470,404 ids fall on about 8,200
 * hash values, and every lookup compares keys along a run of equal
 * hashes (g_int64_equal() went from 0.02 to 0.12 s of a catalog's 3.7).
 * deja_id_hash() mixes every bit of the id into the hash instead (the
 * finaliser of MurmurHash3), so ids of any shape spread as plain
 * numbers do.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* For a GHashTable whose keys point to gint64 (with g_int64_equal()) */
static inline guint
deja_id_hash (gconstpointer key)
{
  guint64 x = (guint64) *(const gint64 *) key;

  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}

/* A table keyed by pointers to gint64 ids */
static inline GHashTable *
deja_id_table_new (GDestroyNotify key_free, GDestroyNotify value_free)
{
  return g_hash_table_new_full (deja_id_hash, g_int64_equal, key_free, value_free);
}

G_END_DECLS
