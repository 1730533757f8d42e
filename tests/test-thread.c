/* test-thread.c — threading, as tables of small archives.
 *
 * Each case is a list of messages "ID|REFERENCES|IN-REPLY-TO|DATE|SUBJECT|CONTENT"
 * (empty fields are absent; REFERENCES is space-separated) and the
 * expected outcome per message: "thread parent flags" with 1-based
 * positions ("-" for none) and, for a missing parent, "?ID".
 */
#include <glib.h>
#include <string.h>

#include "thread.h"

typedef struct {
  const char *name;
  gboolean by_subject;
  const char *messages[6];
  const char *expected[6];
  guint placeholders;
} Case;

static const Case cases[] = {
  { "chain", FALSE,
    { "a||||Q|1", "b|a|||Re: Q|2", "c|a b|||Re: Q|3" },
    { "1 - -", "1 1 -", "1 2 -" }, 0 },
  { "fork", FALSE,
    { "a||||Q|1", "b|a|||Re: Q|2", "c|a|||Re: Q|3" },
    { "1 - -", "1 1 -", "1 1 -" }, 0 },
  { "missing-parent", FALSE,
    { "b|x||1997-11-18|Re: Q|2", "c|x||1997-11-17|Re: Q|3" },
    { "2 ?x orphan", "2 ?x orphan" }, 1 },
  { "missing-grandparent", FALSE,
    { "c|x b|||Re: Q|3", "b|x|||Re: Q|2" },
    { "2 2 -", "2 ?x orphan" }, 1 },
  { "cycle", FALSE,
    { "a|b|||Q|1", "b|a|||Q|2" },
    { "2 2 -", "2 - cycle-broken" }, 0 },
  { "self-reference", FALSE,
    { "a|a|||Q|1" },
    { "1 - -" }, 0 },
  { "duplicate", FALSE,
    { "a||||Q|1", "b|a|||Re: Q|2", "a||||Q|1", "a||||Q changed|9" },
    { "1 - -", "1 1 -", "1 - duplicate", "1 - duplicate,conflicting-duplicate" }, 0 },
  { "no-message-id", FALSE,
    { "a||||Q|1", "|a|||Re: Q|2", "||||Other|3" },
    { "1 - -", "1 1 -", "3 - -" }, 0 },
  { "in-reply-to-only", FALSE,
    { "a||||Q|1", "b||a||Re: Q|2" },
    { "1 - -", "1 1 -" }, 0 },
  /* When In-Reply-To and References disagree, References wins: c's
   * References end at a, so c is a's reply whatever In-Reply-To says
   * (old mailers filled it with addresses and free text). */
  { "references-win-over-in-reply-to", FALSE,
    { "a||||Q|1", "b|a|||Re: Q|2", "c|a|b||Re: Q|3" },
    { "1 - -", "1 1 -", "1 1 -" }, 0 },
  /* c's own References place it under a; d's claim that c is under b
   * does not move it (a message's own chain is authoritative). */
  { "own-references-win", FALSE,
    { "a||||Q|1", "b||||R|2", "c|a|||Re: Q|3", "d|b c|||Re: Q|4" },
    { "1 - -", "2 - -", "1 1 -", "1 3 -" }, 0 },
  /* Three copies of b; the second is the least damaged ("J?rgen" in the
   * others): it is canonical, the others its duplicates. */
  { "best-copy-is-canonical", FALSE,
    { "a||||Q|1", "b|a|||Re: Q|2|3", "b|a|||Re: Q|3|0", "b|a|||Re: Q|2|3", "c|a b|||Re: Q|4" },
    { "1 - -", "1 - duplicate,conflicting-duplicate", "1 1 -", "1 - duplicate,conflicting-duplicate",
      "1 3 -" }, 0 },
  { "time-travel", FALSE,
    { "a|||1997-11-18T10:00:00|Q|1", "b|a||1997-11-18T09:00:00|Re: Q|2" },
    { "1 - -", "1 1 time-travel" }, 0 },
  { "subject-off", FALSE,
    { "a||||Hello|1", "b||||Re: Hello|2" },
    { "1 - -", "2 - -" }, 0 },
  { "subject-on", TRUE,
    { "a||||Hello|1", "b||||Re: [list] Hello|2", "c|b|||Re: Hello|3" },
    { "1 - -", "1 - subject-joined", "1 2 subject-joined" }, 0 },
};

static GPtrArray *
split_ids (const char *s)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) parts = g_strsplit (s, " ", -1);

  for (char **p = parts; *p; p++)
    if (**p)
      g_ptr_array_add (ids, g_strdup (*p));
  return ids;
}

static char *
describe (const ThreadResult *r, const ThreadInput *in, gsize i)
{
  const ThreadOutput *o = &r->out[i];
  g_autofree char *flags = thread_flags_to_string (o->flags);
  g_autofree char *parent = o->missing_parent ? g_strdup_printf ("?%s", o->missing_parent)
                            : o->parent >= 0 ? g_strdup_printf ("%d", (int) o->parent + 1)
                            : g_strdup ("-");

  return g_strdup_printf ("%d %s %s", (int) o->thread + 1, parent, flags ? flags : "-");
}

static void
run_case (gconstpointer data)
{
  const Case *c = data;
  ThreadInput in[6] = { 0 };
  char **fields[6] = { 0 };
  GPtrArray *refs[6], *irts[6];
  ThreadResult r;
  gsize n = 0;

  for (; n < G_N_ELEMENTS (c->messages) && c->messages[n]; n++)
    {
      char **f = fields[n] = g_strsplit (c->messages[n], "|", 7);
      refs[n] = split_ids (f[1]);
      irts[n] = split_ids (f[2]);
      in[n] = (ThreadInput) { *f[0] ? f[0] : NULL,
                              (const char *const *) refs[n]->pdata, refs[n]->len,
                              (const char *const *) irts[n]->pdata, irts[n]->len,
                              *f[3] ? f[3] : NULL, f[4], g_ascii_strtoull (f[5], NULL, 10),
                              f[6] ? (guint) g_ascii_strtoull (f[6], NULL, 10) : 0 };
    }
  thread_compute (in, n, c->by_subject, &r);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *got = describe (&r, in, i);
      if (strcmp (got, c->expected[i]) != 0)
        g_error ("%s, message %zu: got '%s', expected '%s'", c->name, i + 1, got, c->expected[i]);
    }
  g_assert_cmpuint (r.placeholders->len, ==, c->placeholders);
  thread_result_clear (&r);
  for (gsize i = 0; i < n; i++)
    {
      g_ptr_array_unref (refs[i]);
      g_ptr_array_unref (irts[i]);
      g_strfreev (fields[i]);
    }
}

static void
test_subject_key (void)
{
  g_autofree char *a = thread_subject_key ("Re: RE: [comp.lang.c] Fwd: Arrays");
  g_autofree char *b = thread_subject_key ("Re:   ");

  g_assert_cmpstr (a, ==, "arrays");
  g_assert_null (b);
}

/* Long chains cost about their length: linking each reference walked up
 * every parent above it (a References of 100,000 ids took 101 s).  Three
 * messages: a with 100,000 references; b, whose References run the same
 * ids backwards (every link but its first would close a loop: dropped),
 * and c, a reply to a.  The outcome is JWZ's, at any length. */
static void
test_long_chains (void)
{
  const guint n = 100000;
  g_autoptr (GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autofree const char **forward = g_new (const char *, n);
  g_autofree const char **backward = g_new (const char *, n);
  const char *a_ref[] = { "a" };
  ThreadInput in[3] = { { 0 } };
  ThreadResult r;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (ids, g_strdup_printf ("%x@x", i));
  for (guint i = 0; i < n; i++)
    forward[i] = backward[n - 1 - i] = g_ptr_array_index (ids, i);
  in[0] = (ThreadInput) { .message_id = "a", .references = forward, .n_references = n };
  in[1] = (ThreadInput) { .message_id = "b", .references = backward, .n_references = n };
  in[2] = (ThreadInput) { .message_id = "c", .references = a_ref, .n_references = 1 };
  thread_compute (in, G_N_ELEMENTS (in), FALSE, &r);
  /* a hangs under the last of its references, missing; b under the
   * first id (the last of its own chain), which its loop-free link put
   * nowhere else; c under a; one thread */
  g_assert_cmpint (r.out[0].parent, ==, -1);
  g_assert_cmpstr (r.out[0].missing_parent, ==, forward[n - 1]);
  g_assert_cmpstr (r.out[1].missing_parent, ==, forward[0]);
  g_assert_cmpint (r.out[2].parent, ==, 0);
  g_assert_cmpint (r.out[0].thread, ==, r.out[1].thread);
  g_assert_cmpint (r.out[2].thread, ==, r.out[0].thread);
  g_assert_cmpuint (r.counts.threads, ==, 1);
  g_assert_cmpuint (r.counts.cycles, ==, 0);
  thread_result_clear (&r);
}

/* The stored flags read back (a merge counts kept threads from them) */
static void
test_flags_read_back (void)
{
  gboolean unknown = TRUE;

  for (guint f = 0; f < 1u << 6; f++)
    {
      g_autofree char *s = thread_flags_to_string ((ThreadFlags) f);

      g_assert_cmpuint (thread_flags_from_string (s, &unknown), ==, f);
      g_assert_false (unknown);
    }
  /* "duplicate" is not a prefix of "conflicting-duplicate", nor the reverse */
  g_assert_cmpuint (thread_flags_from_string ("conflicting-duplicate", &unknown), ==, THREAD_FLAG_CONFLICT);
  g_assert_cmpuint (thread_flags_from_string ("orphan,joined-by-moon", &unknown), ==, THREAD_FLAG_ORPHAN);
  g_assert_true (unknown);
  g_assert_cmpuint (thread_flags_from_string ("orph", &unknown), ==, 0);
  g_assert_true (unknown);
  g_assert_cmpuint (thread_flags_from_string ("", &unknown), ==, 0);
  g_assert_false (unknown);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/thread/%s", cases[i].name);
      g_test_add_data_func (name, &cases[i], run_case);
    }
  g_test_add_func ("/thread/subject-key", test_subject_key);
  g_test_add_func ("/thread/long-chains", test_long_chains);
  g_test_add_func ("/thread/flags-read-back", test_flags_read_back);
  return g_test_run ();
}
