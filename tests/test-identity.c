/* test-identity.c — util/identity.c: which addresses are one person. */
#include <glib.h>
#include <string.h>

#include "id-hash.h"
#include "identity.h"
#include "pseudonym.h"

static void
test_name_key (void)
{
  g_autofree char *a = identity_name_key ("Lefkowitz, Glyph");
  g_autofree char *b = identity_name_key ("glyph  LEFKOWITZ");
  g_autofree char *c = identity_name_key ("Jürgen Müller");
  g_autofree char *d = identity_name_key ("Juergen Mueller");

  g_assert_cmpstr (a, ==, "glyph lefkowitz");
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (c, ==, "jurgen muller");     /* accents folded, not transliterated */
  g_assert_cmpstr (d, !=, c);
  g_assert_null (identity_name_key ("root"));
  g_assert_null (identity_name_key ("ann@example.com"));
  g_assert_null (identity_name_key ("  ... "));
  g_assert_null (identity_name_key (NULL));
}

static void
test_forms (void)
{
  gsize prefix = 0;
  g_autofree char *g1 = identity_gmail_canonical ("A.nn+lists@googlemail.com");
  g_autofree char *g2 = identity_gmail_canonical ("ann@example.com");

  g_assert_true (identity_masked ("jan...@siemens.com", &prefix));
  g_assert_cmpuint (prefix, ==, 3);
  g_assert_false (identity_masked ("jan@siemens.com", NULL));
  g_assert_cmpstr (g1, ==, "Ann@gmail.com");   /* addresses come lower case; the rule keeps case */
  g_assert_null (g2);
  g_assert_cmpuint (identity_edit_distance ("hank moody", "hank mooody", 2), ==, 1);
  g_assert_cmpuint (identity_edit_distance ("kitten", "sitting", 5), ==, 3);
  g_assert_cmpuint (identity_edit_distance ("a", "abcdef", 2), ==, 3);   /* max + 1 */
}

static void
test_signature (void)
{
  const char *one = "Hi.\n\n-- \nIvy Vance\nDept. of Linguistics\n";
  const char *two = "Other text.\n--\n  ivy   vance \nDEPT. OF LINGUISTICS\n\n___\nlist footer\n";
  const char *top = "Yes.\n\n-----Original Message-----\nFrom: Bob\n\n-- \nIvy Vance\nDept. of Linguistics\n";

  g_assert_cmpuint (identity_signature (one, strlen (one)), !=, 0);
  g_assert_cmpuint (identity_signature (one, strlen (one)), ==, identity_signature (two, strlen (two)));
  g_assert_cmpuint (identity_signature (top, strlen (top)), ==, 0);     /* someone else's */
  g_assert_cmpuint (identity_signature ("no signature\n", 13), ==, 0);
  g_assert_cmpuint (identity_signature ("x\n-- \nAnn\n", 10), ==, 0);  /* too short to tell */
}

static void
test_resolve (void)
{
  IdentityAddress a[] = {
    { "carl...@example.org", "Carl Dee", 1, 6, 0 },
    { "carl.dee@example.org", "Carl Dee", 1, 5, 0 },
    { "dan...@example.net", "Dan", 1, 9, 0 },
    { "dan@example.net", "Dan", 1, 7, 0 },
    { "danny@example.net", "Danny", 1, 8, 0 },
    { "eve.adams+x@gmail.com", "Eve", 1, 10, 0 },
    { "eveadams@googlemail.com", "Eve", 1, 11, 0 },
    { "frank@one.example", "Frank", 2, 2, 0 },
    { "fmiller@two.example", "Frank", 1, 12, 0 },
  };
  IdentityDecision d[] = {
    { IDENTITY_MERGE, "frank@one.example", "fmiller@two.example" },
    { IDENTITY_SPLIT, "eveadams@googlemail.com", NULL },
  };
  gint64 n = 0;
  g_autofree gint64 *id = identity_resolve (a, G_N_ELEMENTS (a), NULL, 0, FALSE, &n);
  g_autofree gint64 *decided = NULL, *again = NULL, *never = NULL;

  g_assert_cmpint (n, ==, 7);
  g_assert_cmpint (id[0], ==, id[1]);             /* masked, one fit */
  g_assert_cmpint (id[2], !=, id[3]);             /* masked, two fit */
  g_assert_cmpint (id[2], !=, id[4]);
  g_assert_cmpint (id[5], ==, id[6]);             /* Gmail */
  g_assert_cmpint (id[7], !=, id[8]);
  g_assert_cmpint (id[7], ==, 1);                 /* numbered in archive order */
  g_assert_cmpint (id[1], ==, 2);

  /* Decisions; ids stay with the people they were */
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    a[i].previous = id[i];
  decided = identity_resolve (a, G_N_ELEMENTS (a), d, G_N_ELEMENTS (d), FALSE, &n);
  g_assert_cmpint (n, ==, 7);
  g_assert_cmpint (decided[7], ==, decided[8]);
  g_assert_cmpint (decided[7], ==, id[7]);
  g_assert_cmpint (decided[5], !=, decided[6]);
  g_assert_cmpint (decided[0], ==, id[0]);
  g_assert_cmpint (MIN (decided[5], decided[6]), ==, id[5]);
  g_assert_cmpint (MAX (decided[5], decided[6]), ==, 8);   /* the split one is new: above all */

  /* never beats an automatic merge */
  {
    IdentityDecision apart[] = { { IDENTITY_NEVER, "carl.dee@example.org", "carl...@example.org" } };
    never = identity_resolve (a, G_N_ELEMENTS (a), apart, 1, FALSE, &n);
    g_assert_cmpint (never[0], !=, never[1]);
    g_assert_cmpint (n, ==, 8);
  }
}

/* A shard's authors (deja ingest --shard N) are keyed: the same address
 * gives the same id in every shard, from 2^52 up to below 2^53; a new
 * author among keyed ones is keyed by its first address, past every id
 * in use or held before. */
static void
test_keyed (void)
{
  gint64 ann = identity_keyed_id ("ann@example.org", 0), bob = identity_keyed_id ("bob@example.org", 0);
  IdentityAddress a[] = {
    { "ann@example.org", "Ann", 3, 1, ann },
    { "bob@example.org", "Bob", 1, 2, bob },
    { "carl@example.org", "Carl", 1, 3, 0 },     /* no id yet (a shared address's person) */
    { "dora@example.org", "Dora", 1, 4, 0 },
  };
  IdentityDecision split[] = { { IDENTITY_NEVER, "ann@example.org", "bob@example.org" } };
  gint64 n = 0;
  g_autofree gint64 *id = NULL, *apart = NULL;

  g_assert_cmpint (ann, ==, identity_keyed_id ("ann@example.org", 0));
  g_assert_cmpint (ann, !=, bob);
  g_assert_cmpint (ann, >=, IDENTITY_KEYED_BASE);
  g_assert_cmpint (ann, <, 2 * IDENTITY_KEYED_BASE);
  g_assert_cmpint (identity_keyed_id ("ann@example.org", 1), !=, ann);
  g_assert_cmpint (identity_keyed_id ("ann@example.org", 1), <, 2 * IDENTITY_KEYED_BASE);
  /* the last id wraps to the first, not past 2^53 */
  for (guint64 p = 0; p < 4; p++)
    g_assert_cmpint (identity_keyed_id ("x", G_MAXUINT64 - p), <, 2 * IDENTITY_KEYED_BASE);

  id = identity_resolve (a, G_N_ELEMENTS (a), NULL, 0, FALSE, &n);
  g_assert_cmpint (n, ==, 4);
  g_assert_cmpint (id[0], ==, ann);
  g_assert_cmpint (id[1], ==, bob);
  g_assert_cmpint (id[2], ==, identity_keyed_id ("carl@example.org", 0));
  g_assert_cmpint (id[3], ==, identity_keyed_id ("dora@example.org", 0));

  /* Two addresses with one previous id, told apart: the second gets a new keyed id */
  a[1].previous = ann;
  apart = identity_resolve (a, G_N_ELEMENTS (a), split, 1, FALSE, &n);
  g_assert_cmpint (apart[0], ==, ann);
  g_assert_cmpint (apart[1], ==, identity_keyed_id ("bob@example.org", 0));
  /* without keyed ids before, numbered as ever */
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    a[i].previous = i < 2 ? (gint64) i + 1 : 0;
  g_clear_pointer (&id, g_free);
  id = identity_resolve (a, G_N_ELEMENTS (a), NULL, 0, FALSE, &n);
  g_assert_cmpint (id[2], ==, 3);
  g_assert_cmpint (id[3], ==, 4);
  /* a shard's are keyed though none of its keys has an id yet (every
   * address of it shared, each person a key of its own) */
  for (guint i = 0; i < G_N_ELEMENTS (a); i++)
    a[i].previous = 0;
  g_clear_pointer (&id, g_free);
  id = identity_resolve (a, G_N_ELEMENTS (a), NULL, 0, FALSE, &n);
  g_assert_cmpint (id[0], ==, 1);
  g_clear_pointer (&id, g_free);
  id = identity_resolve (a, G_N_ELEMENTS (a), NULL, 0, TRUE, &n);
  g_assert_cmpint (id[0], ==, ann);
  g_assert_cmpint (id[3], ==, identity_keyed_id ("dora@example.org", 0));
}

static void
test_suggest (void)
{
  IdentityAlias aliases[] = {
    { 1, "gina@lab.example", "Gina Lee" }, { 2, "glee@lab.example", "Gina Lee" },
    { 3, "root@m1.example", "root" }, { 4, "root@m2.example", "root" },
    { 5, "hank@x.example", "Hank Moody" }, { 6, "hmoody@y.example", "Hank Mooody" },
  };
  IdentityDecision never[] = { { IDENTITY_NEVER, "glee@lab.example", "gina@lab.example" } };
  g_autoptr (GArray) all = identity_suggest (aliases, G_N_ELEMENTS (aliases), NULL, 0, NULL, 0, 1);
  g_autoptr (GArray) some = identity_suggest (aliases, G_N_ELEMENTS (aliases), NULL, 0, never, 1, 1);
  IdentitySuggestion *s = (IdentitySuggestion *) all->data;
  g_autofree char *why = NULL;

  g_assert_cmpuint (all->len, ==, 2);
  g_assert_cmpint (s[0].a, ==, 1);
  g_assert_cmpint (s[0].b, ==, 2);
  g_assert_cmpint (s[0].score, ==, 5);
  why = identity_evidence_text (s[0].evidence);
  g_assert_cmpstr (why, ==, "same-name,same-name-and-domain");
  g_assert_cmpint (s[1].a, ==, 5);
  g_assert_cmpuint (s[1].evidence, ==, IDENTITY_EVIDENCE_SIMILAR_NAME);
  g_assert_cmpuint (some->len, ==, 1);
}

static void
test_redact (void)
{
  static const struct {
    const char *in, *out;
    guint addresses, phones;
  } cases[] = {
    { "write to ann@example.com today", "write to [address] today", 1, 0 },
    { "glyph at twistedmatrix.com said", "[address] said", 1, 0 },
    { "ann at example dot com", "[address]", 1, 0 },
    { "call +44 20 7946 0958.", "call [phone].", 0, 1 },
    { "(555) 123-4567 or 555-123-4567", "[phone] or [phone]", 0, 2 },
    { "on 2002-01-10 at 10:00, 27/08/2001 04", "on 2002-01-10 at 10:00, 27/08/2001 04", 0, 0 },
    { "127.0.0.1/8080 and 10.0.0.254", "127.0.0.1/8080 and 10.0.0.254", 0, 0 },
    { "version 1.2.3, ticket 123456789", "version 1.2.3, ticket 123456789", 0, 0 },
    { "17110  0.0  1.8  6312 4568", "17110  0.0  1.8  6312 4568", 0, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RedactCounts counts = { 0 };
      g_autofree char *out = redact_text (cases[i].in, &counts);

      g_assert_cmpstr (out, ==, cases[i].out);
      g_assert_cmpuint (counts.addresses, ==, cases[i].addresses);
      g_assert_cmpuint (counts.phones, ==, cases[i].phones);
    }
  g_assert_null (redact_text (NULL, NULL));
}

/* Shared addresses (docs/people.md): placeholders split at two people,
 * any address at three; alike names (a shared word) are one person. */
static void
test_shared (void)
{
  static const struct {
    const char *address;
    const char *names[6];
    const char *expect;   /* person per name ("-": no name), or NULL: one person */
  } cases[] = {
    { "noreply@github.com", { "Jane Doe", "John Roe", "Jane Doe", NULL }, "010" },
    { "noreply@github.com", { "Jane Doe", "jane doe", "Jane", NULL }, NULL },
    { "noreply@github.com", { "Jane Doe", "", "John Roe", "Anonymous", NULL }, "0-1-" },
    { "nospam@nospam.com", { "Ann Example", "Bob Other", NULL }, "01" },
    { "ann@news.invalid", { "Ann Example", "Carl Third", NULL }, "01" },
    { "bob@example.org", { "Bob Smith", "Robert Smith", "bob", NULL }, NULL },
    { "bob@example.org", { "Bob Smith", "Alice Jones", NULL }, NULL },
    { "list@example.org", { "Bob Smith", "Alice Jones", "Carl Third", NULL }, "012" },
    { "list@example.org", { "Bob Smith", "Alice Smith", "Carl Third", NULL }, NULL },
    { "noreply@github.com", { "Jane Doe", NULL }, NULL },
    /* a person's own address: jokes and handles beside the name (counts below) */
    { "kevin@example.org", { "Kevin Turner", "Wayne Dyer", "Greta Garbo", "Tasha Tudor", NULL }, NULL },
    { "hbd@example.org", { "happybrowndog", "hbd", "hbd666", NULL }, NULL },
    { "matt@example.org", { "Matt P", "MattP", "Matthew Pontefract", NULL }, NULL },
    { "noreply@github.com", { "Matt P", "MattP", "Matthew Pontefract", "Jane Doe", NULL }, "0001" },
  };
  static const gint64 kevin[] = { 125, 1, 1, 1 };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint n = 0, people;
      g_autofree guint *person = NULL;
      g_autoptr (GString) got = g_string_new (NULL);

      while (cases[i].names[n])
        n++;
      person = identity_shared_split (cases[i].address, cases[i].names,
                                      g_str_has_prefix (cases[i].address, "kevin@") ? kevin : NULL, n, &people);
      for (guint k = 0; person && k < n; k++)
        g_string_append_c (got, person[k] == G_MAXUINT ? '-' : (char) ('0' + person[k]));
      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpstr (person ? got->str : NULL, ==, cases[i].expect);
      if (person == NULL)
        g_assert_cmpuint (people, ==, 1);
    }
  g_assert_true (identity_placeholder ("noreply@github.com"));
  g_assert_true (identity_placeholder ("no-reply@accounts.example.com"));
  g_assert_true (identity_placeholder ("nospam@nospam.com"));
  g_assert_true (identity_placeholder ("ann.nospam@example.com"));
  g_assert_true (identity_placeholder ("ann@news.invalid"));
  g_assert_true (identity_placeholder ("anonymous@anon.penet.fi"));
  /* Mailman's archiver, for a message without a sender */
  g_assert_true (identity_placeholder ("bogus@does.not.exist.com"));
  g_assert_false (identity_placeholder ("bogus@example.com"));
  g_assert_false (identity_placeholder ("ann@example.com"));
  g_assert_false (identity_placeholder ("norepl@example.com"));
  g_assert_false (identity_placeholder ("gatech!ann"));
}

/* Ids of numbered shards (N x 2^32 + k) spread over the hash values as
 * plain numbers do: g_int64_hash() gives 64 shards of 7,311 messages
 * 8,192 values, whose runs every lookup walked. */
static void
test_id_hash (void)
{
  g_autoptr (GHashTable) hashes = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) ids = deja_id_table_new (g_free, NULL);
  guint n = 0;

  for (gint64 shard = 1; shard <= 64; shard++)
    for (gint64 k = 1; k <= 7311; k++)
      {
        gint64 id = shard << 32 | k;

        g_hash_table_add (hashes, GUINT_TO_POINTER (deja_id_hash (&id)));
        if (k % 50 == 0)
          g_hash_table_add (ids, g_memdup2 (&id, sizeof id));
        n++;
      }
  /* as random 32-bit values would: a handful collide */
  g_assert_cmpuint (g_hash_table_size (hashes), >, n - 100);
  {
    gint64 in = (gint64) 17 << 32 | 350, out = (gint64) 17 << 32 | 351;

    g_assert_true (g_hash_table_contains (ids, &in));
    g_assert_false (g_hash_table_contains (ids, &out));
    g_assert_cmpuint (g_hash_table_size (ids), ==, 64 * 146);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/identity/name-key", test_name_key);
  g_test_add_func ("/identity/forms", test_forms);
  g_test_add_func ("/identity/signature", test_signature);
  g_test_add_func ("/identity/resolve", test_resolve);
  g_test_add_func ("/identity/suggest", test_suggest);
  g_test_add_func ("/identity/keyed", test_keyed);
  g_test_add_func ("/identity/shared", test_shared);
  g_test_add_func ("/ids/hash", test_id_hash);
  g_test_add_func ("/pseudonym/redact", test_redact);
  return g_test_run ();
}
