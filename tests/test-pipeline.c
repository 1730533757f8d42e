/* test-pipeline.c — the pure parts of src/pipeline and src/net, by table:
 * the periods of deja groups (accounting.c), the role rule
 * (roles.c), the sites of a Path (network.c), the split helpers; and
 * how the read-ahead (ahead.c) paces itself; how many threads index the
 * full text beside an ingest's writer (ingest.c). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "accounting.h"
#include "ahead.h"
#include "decode-pool.h"
#include "ingest.h"
#include "network.h"
#include "roles.h"

static void
test_periods (void)
{
  static const struct { const char *date; AccountingPeriod by; const char *name; } cases[] = {
    { "1993-04-29T16:36:43", ACCOUNTING_BY_YEAR, "1993" },
    { "1993-04-29T16:36:43", ACCOUNTING_BY_MONTH, "1993-04" },
    { "1993-04-29T16:36:43", ACCOUNTING_BY_QUARTER, "1993-Q2" },
    { "1993-12-31", ACCOUNTING_BY_QUARTER, "1993-Q4" },
    { "1993-01-01", ACCOUNTING_BY_QUARTER, "1993-Q1" },
    { "0987-06-01", ACCOUNTING_BY_MONTH, "0987-06" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gint64 p = accounting_period_of (cases[i].date, cases[i].by);
      g_autofree char *name = accounting_period_name (p, cases[i].by);

      g_assert_cmpstr (name, ==, cases[i].name);
    }
  /* consecutive periods differ by one, across a year's end */
  g_assert_cmpint (accounting_period_of ("1991-01-01", ACCOUNTING_BY_MONTH) -
                   accounting_period_of ("1990-12-31", ACCOUNTING_BY_MONTH), ==, 1);
  g_assert_cmpint (accounting_period_of ("1991-02-01", ACCOUNTING_BY_QUARTER) -
                   accounting_period_of ("1990-11-30", ACCOUNTING_BY_QUARTER), ==, 1);
  /* what is no date is no period */
  g_assert_cmpint (accounting_period_of (NULL, ACCOUNTING_BY_YEAR), ==, G_MININT64);
  g_assert_cmpint (accounting_period_of ("199x-01", ACCOUNTING_BY_YEAR), ==, G_MININT64);
  g_assert_cmpint (accounting_period_of ("1993-13-01", ACCOUNTING_BY_MONTH), ==, G_MININT64);
}

static void
test_roles (void)
{
  static const struct {
    gint64 messages, received;
    RoleFacts facts;
    const char *role;
  } cases[] = {
    { 4, 0, { .replies_to_others = 4, .ties = 4, .low_degree_tie_share = 1 }, "occasional" },
    { 10, 1, { .replies_to_others = 8, .ties = 8, .low_degree_tie_share = 0.75 }, "answer person" },
    /* answers people with few ties, but starts too many threads for an answer person */
    { 10, 1, { .threads_initiated = 3, .replies_to_others = 7, .ties = 8, .low_degree_tie_share = 0.75 },
      "mixed" },
    { 10, 8, { .replies_to_others = 9, .ties = 5, .low_degree_tie_share = 0.2 }, "discussion person" },
    { 10, 1, { .threads_initiated = 8, .low_degree_tie_share = -1 }, "unanswered starter" },
    { 10, 5, { .threads_initiated = 6, .ties = 4, .low_degree_tie_share = 0.5 }, "thread starter" },
    { 10, 5, { .threads_initiated = 2, .replies_to_others = 3, .ties = 4, .low_degree_tie_share = 0.5 }, "mixed" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpstr (roles_label (cases[i].messages, cases[i].received, &cases[i].facts), ==, cases[i].role);
    }
}

static void
test_path_sites (void)
{
  static const struct { const char *path; const char *sites; } cases[] = {
    { "utzoo!decvax!ucbvax!ann", "utzoo decvax ucbvax" },
    { "news.example.com!.POSTED.10.0.0.1!not-for-mail", "news.example.com" },
    { "a!!b!user", "a b" },
    { "UTZOO!DecVax!ann", "utzoo decvax" },
    { " utzoo ! decvax ! ann ", "utzoo decvax" },
    { "ann", "" },
    { "", "" },
    { "a!.MISMATCH!b!c", "a b" },
    /* the older form of the diagnostics: the site that took the post,
     * then the server's code for its customer, which is no site */
    { "spamkiller.gnilink.net!nwrddc03.gnilink.net.POSTED!8b1f9295!not-for-mail",
      "spamkiller.gnilink.net nwrddc03.gnilink.net" },
    { "zen.net.uk!news-stoc.telia.net!217.209.241.210.MISMATCH!news-stod.telia.net!telia.net!ann",
      "zen.net.uk news-stoc.telia.net news-stod.telia.net telia.net" },
    { "NewsReader.POSTED!not-for-mail", "newsreader" },
    { ".POSTED!not-for-mail", "" },
    /* a host name's own "posted" is no diagnostic */
    { "news.posted.isomediainc.POSTED!not-for-mail", "news.posted.isomediainc" },
    { "news.posted.example!ann", "news.posted.example" },
    { "a.POSTEDb!ann", "a.postedb" },
    /* RFC 5537's example (3.2.1) */
    { "foo.isp.example!.SEEN.isp.example!!foo-news!.MISMATCH.2001:DB8:0:0:8:800:200C:417A!"
      "bar.isp.example!!old.site.example!barbaz!!baz.isp.example!.POSTED.dialup123.baz.isp.example!not-for-mail",
      "foo.isp.example foo-news bar.isp.example old.site.example barbaz baz.isp.example" },
    { "a!.POSTED.host!b!ann", "a" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) sites = network_path_sites (cases[i].path);
      g_autofree char *joined = NULL;

      g_ptr_array_add (sites, NULL);
      joined = g_strjoinv (" ", (char **) sites->pdata);
      g_assert_cmpstr (joined, ==, cases[i].sites);
    }
  g_assert_cmpstr (network_kind_name (NETWORK_CROSSPOST), ==, "crosspost");
  g_assert_cmpstr (network_kind_name (NETWORK_SITE), ==, "site");
  g_assert_cmpstr (network_kind_name (NETWORK_LINK), ==, "link");
}

/* The read-ahead, once it has filled its window (8 MiB), waits for the
 * writer to take a quarter of it before it goes on: woken for every file
 * taken, it cost a Maildir a wake-up a file.  160 files of 100 KiB
 * (16 MB) taken one by one: it fills, then goes on a few times, not for
 * each file; and hands every file over, in order, whole. */
static void
test_ahead_goes_on_by_the_quarter (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("deja-ahead-XXXXXX", &error);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) text = g_string_new (NULL);
  DecodePool *pool;
  Ahead *ahead;
  const guint n = 160;

  g_assert_no_error (error);
  while (text->len < 100 * 1024)
    g_string_append_printf (text, "From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\nSubject: s%u\n\n"
                                  "Why is the reactor not running? Line after line of a body.\n\n",
                            (guint) text->len);
  for (guint i = 0; i < n; i++)
    {
      char *path = g_strdup_printf ("%s/%03u.mbox", dir, i);

      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      g_ptr_array_add (paths, path);
    }
  pool = decode_pool_new (1, NULL, NULL);
  ahead = ahead_start (pool, 1, 0, NULL, g_ptr_array_ref (paths));
  /* the window filled first, however slow the machine (a sanitizer, valgrind) */
  for (gboolean full = FALSE; ahead_resumed (ahead, &full), !full;)
    g_usleep (1000);
  for (guint i = 0; i < n; i++)
    {
      AheadFile *f;

      g_usleep (2000);   /* a writer slower than the reading */
      f = ahead_take (ahead, g_ptr_array_index (paths, i));
      g_assert_nonnull (f);
      g_assert_nonnull (f->input);
      g_assert_cmpuint (f->input->len, ==, text->len);
      ahead_file_free (f, pool);
    }
  g_assert_cmpuint (ahead_resumed (ahead, NULL), >=, 1);
  g_assert_cmpuint (ahead_resumed (ahead, NULL), <=, n * text->len / (2 << 20) + 2);
  ahead_free (ahead);
  decode_pool_free (pool);
  for (guint i = 0; i < n; i++)
    g_unlink (g_ptr_array_index (paths, i));
  g_rmdir (dir);
  g_ptr_array_unref (paths);
}

/* None on one core or with one decoder; one for each two cores, up to
 * four (the writer's own work is the ceiling from there:
 * store-fts-side.c, docs/scale.md) */
static void
test_index_threads (void)
{
  static const guint cases[][3] = {
    { 1, 1, 0 }, { 1, 4, 0 }, { 2, 1, 0 }, { 2, 2, 1 }, { 3, 3, 1 }, { 4, 4, 2 }, { 4, 2, 2 },
    { 6, 6, 3 }, { 8, 8, 4 }, { 64, 64, 4 }, { 64, 1, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpuint (ingest_index_threads (cases[i][0], cases[i][1]), ==, cases[i][2]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/accounting/periods", test_periods);
  g_test_add_func ("/ingest/index-threads", test_index_threads);
  g_test_add_func ("/roles/label", test_roles);
  g_test_add_func ("/network/path-sites", test_path_sites);
  g_test_add_func ("/ahead/goes-on-by-the-quarter", test_ahead_goes_on_by_the_quarter);
  return g_test_run ();
}
