/* identity.h — which sender addresses are one person.
 *
 * Pure: values in, values out (no database).  identity_resolve() groups
 * addresses into authors: merges that are certain, then people's
 * decisions.  identity_suggest() proposes further merges with their
 * evidence, by blocking on shared keys (O(n log n), never a matrix of all
 * pairs).  docs/people.md says what is merged and why.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One sender address, with what resolution needs. */
typedef struct {
  const char *address;     /* lower case, never NULL */
  const char *name;        /* the display name it used most, or NULL */
  gint64 messages;
  gint64 first_id;         /* its first message (messages.id): archive order */
  gint64 previous;         /* the author it belonged to before; 0: none */
} IdentityAddress;

typedef enum {
  IDENTITY_MERGE,          /* address and other are one person */
  IDENTITY_SPLIT,          /* address is merged with nothing automatically */
  IDENTITY_NEVER,          /* address and other are never one person */
} IdentityVerdict;

/* A person's decision, keyed by addresses so that it survives re-ingest. */
typedef struct {
  IdentityVerdict verdict;
  const char *address;
  const char *other;       /* NULL for IDENTITY_SPLIT */
} IdentityDecision;

gint64 *identity_resolve (const IdentityAddress *addresses, guint n,
                          const IdentityDecision *decisions, guint n_decisions,
                          gboolean keyed, gint64 *n_authors);

/* Author ids of a set of shards (deja ingest --shard N; docs/scale.md):
 * derived from the author's key (its address), from 2^52 up to below
 * 2^53 (exact in JSON and in a double), so that every shard gives an
 * address the same id and deja merge copies a shard's messages as they
 * are stored.  @probe is 0 first, then 1, 2... past ids in use. */
#define IDENTITY_KEYED_BASE (G_GINT64_CONSTANT (1) << 52)
gint64 identity_keyed_id (const char *key, guint64 probe);

/* Evidence that two authors may be one person (bits; weights in identity.c). */
typedef enum {
  IDENTITY_EVIDENCE_SAME_NAME       = 1 << 0,  /* the same display name (two words or more) */
  IDENTITY_EVIDENCE_SAME_FIRST_NAME = 1 << 1,  /* the same one-word display name */
  IDENTITY_EVIDENCE_SAME_DOMAIN     = 1 << 2,  /* the same name at the same domain */
  IDENTITY_EVIDENCE_SIMILAR_NAME    = 1 << 3,  /* names a typo or two apart */
  IDENTITY_EVIDENCE_SAME_LOCAL      = 1 << 4,  /* the same local part at other domains */
  IDENTITY_EVIDENCE_SUBADDRESS      = 1 << 5,  /* user+tag@d and user@d */
  IDENTITY_EVIDENCE_MASKED          = 1 << 6,  /* a masked address several full ones fit */
  IDENTITY_EVIDENCE_SIGNATURE       = 1 << 7,  /* the same signature block */
  IDENTITY_EVIDENCE_SHARED_ADDRESS  = 1 << 8,  /* split from one shared address by their names */
} IdentityEvidence;

/* One row per (author, address), as author_addresses holds them. */
typedef struct {
  gint64 author;
  const char *address;
  const char *name;        /* or NULL */
} IdentityAlias;

/* An author's signature block, hashed (one row per author and signature). */
typedef struct {
  gint64 author;
  guint64 signature;
} IdentitySignature;

typedef struct {
  gint64 a, b;             /* authors, a < b */
  guint evidence;          /* IdentityEvidence bits */
  int score;
} IdentitySuggestion;

GArray *identity_suggest (const IdentityAlias *aliases, guint n, const IdentitySignature *signatures,
                          guint n_signatures, const IdentityDecision *decisions, guint n_decisions,
                          int min_score);
char *identity_evidence_text (guint evidence);

/* The building blocks, for tests and the store. */
char *identity_name_key (const char *name);
gboolean identity_masked (const char *address, gsize *prefix_len);
char *identity_gmail_canonical (const char *address);
char *identity_archive_mask (const char *address);
gboolean identity_hidden (const char *address);
char *identity_bang_tail (const char *address);
gboolean identity_placeholder (const char *address);
guint *identity_shared_split (const char *address, const char *const *names, const gint64 *counts, guint n,
                              guint *n_people);
guint64 identity_signature (const char *body, gsize len);
guint identity_edit_distance (const char *a, const char *b, guint max);

G_END_DECLS
