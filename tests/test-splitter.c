/* test-splitter.c — the splitter against fixtures/from/.
 *
 * Each fixtures/from/<case>.mbox has a <case>.expect beside it:
 *
 *   messages N              how many messages the splitter must find
 *   error not-mbox          (instead) the file must be refused
 *   log LINE VERDICT REASONS SHAPE   every log row, in order
 *
 * Names follow json-glib's conformance suite: y_ (a tricky separator that
 * must be accepted), n_ (a separator-shaped line that must not split),
 * i_ (a judgement call: the verdict is pinned so changes are deliberate).
 * Every file is also checked for contiguous spans: messages cover the
 * file from the first envelope to the end, with no gaps.
 */
#include <glib.h>
#include <string.h>

#include "fixtures.h"
#include "mbox.h"

typedef struct {
  GString *actual;
  char *expected;
} Result;

static void
split_file (const char *path, GString *out)
{
  g_autofree char *data = NULL;
  gsize len;
  g_autoptr (GError) error = NULL;
  g_autoptr (MboxSplitter) s = NULL;
  MboxSpan span;
  guint n = 0;
  goffset expect_next = -1;
  g_autoptr (GString) log = g_string_new (NULL);

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  s = mbox_splitter_new (data, len, MBOX_SPLIT_NONE);
  while (mbox_splitter_next (s, &span, &error))
    {
      gsize n_log;
      const MboxLogEntry *e = mbox_splitter_peek_log (s, &n_log);

      if (expect_next >= 0)
        g_assert_cmpint (span.offset, ==, expect_next);
      expect_next = span.offset + span.length;
      g_assert_cmpint (span.body, >=, span.headers);
      for (gsize i = 0; i < n_log; i++)
        {
          g_autofree char *reasons = mbox_reasons_to_string (e[i].reasons);
          g_string_append_printf (log, "log %" G_GUINT64_FORMAT " %s %s %c\n", e[i].line_no,
                                  mbox_verdict_to_string (e[i].verdict), reasons, e[i].shape);
        }
      if (span.adjacent)
        g_string_append_printf (log, "adjacent %" G_GUINT64_FORMAT "\n", span.line_no);
      mbox_splitter_clear_log (s);
      n++;
    }
  if (error)
    {
      g_assert_true (g_error_matches (error, MBOX_ERROR, MBOX_ERROR_NOT_MBOX));
      g_string_append (out, "error not-mbox\n");
      return;
    }
  if (n > 0)
    g_assert_cmpint (expect_next, ==, len);
  g_string_append_printf (out, "messages %u\n%s", n, log->str);
}

/* The .expect file without comments and blank lines. */
static char *
read_expect (const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  GString *out = g_string_new (NULL);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l != '\0' && **l != '#')
      g_string_append_printf (out, "%s\n", *l);
  return g_string_free (out, FALSE);
}

typedef struct {
  MboxSpan span;
  GString *log;   /* the log entries read with it, after its first line */
} Split;

static void
split_clear (gpointer p)
{
  g_string_free (((Split *) p)->log, TRUE);
}

/* Every span of @data from @offset (line @line_no) on. */
static GArray *
split_from (const char *data, gsize len, goffset offset, guint64 line_no)
{
  g_autoptr (MboxSplitter) s = mbox_splitter_new (data, len, MBOX_SPLIT_NONE);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Split));
  Split one;

  g_array_set_clear_func (out, split_clear);
  if (offset > 0)
    mbox_splitter_start_at (s, offset, line_no);
  while (mbox_splitter_next (s, &one.span, NULL))
    {
      gsize n_log;
      const MboxLogEntry *e = mbox_splitter_peek_log (s, &n_log);

      one.log = g_string_new (NULL);
      for (gsize i = 0; i < n_log; i++)
        if (e[i].offset > one.span.offset)
          g_string_append_printf (one.log, "%" G_GUINT64_FORMAT " %d %d\n", e[i].line_no, e[i].verdict,
                                  e[i].reasons);
      mbox_splitter_clear_log (s);
      g_array_append_val (out, one);
    }
  return out;
}

/* An append resumes splitting at the old last message: from any
 * message on, the spans (and what is logged after its first line) are
 * those of the whole file. */
static void
check_resume (const char *path)
{
  g_autofree char *data = NULL;
  gsize len;
  g_autoptr (GArray) whole = NULL;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  whole = split_from (data, len, 0, 1);
  for (guint k = 1; k < whole->len; k++)
    {
      const Split *at = &g_array_index (whole, Split, k);
      g_autoptr (GArray) part = split_from (data, len, at->span.offset, at->span.line_no);

      g_assert_cmpuint (part->len, ==, whole->len - k);
      for (guint i = 0; i < part->len; i++)
        {
          const Split *a = &g_array_index (part, Split, i), *b = &g_array_index (whole, Split, k + i);

          g_assert_cmpint (a->span.offset, ==, b->span.offset);
          g_assert_cmpuint (a->span.length, ==, b->span.length);
          g_assert_cmpint (a->span.headers, ==, b->span.headers);
          g_assert_cmpint (a->span.body, ==, b->span.body);
          g_assert_cmpuint (a->span.line_no, ==, b->span.line_no);
          g_assert_cmpuint (a->span.envelope_length, ==, b->span.envelope_length);
          if (i > 0)
            {
              g_assert_cmpint (a->span.reasons, ==, b->span.reasons);
              g_assert_cmpint (a->span.adjacent, ==, b->span.adjacent);
            }
          g_assert_cmpstr (a->log->str, ==, b->log->str);
        }
    }
}

static void
test_fixture (gconstpointer data)
{
  const char *mbox = data;
  g_autofree char *base = g_strndup (mbox, strlen (mbox) - strlen (".mbox"));
  g_autofree char *expect_path = g_strconcat (base, ".expect", NULL);
  g_autofree char *expected = read_expect (expect_path);
  g_autoptr (GString) actual = g_string_new (NULL);

  split_file (mbox, actual);
  g_assert_cmpstr (actual->str, ==, expected);
  check_resume (mbox);
}

/* Given bounds (a public-inbox epoch): exactly those spans, never split
 * at an envelope inside one, line numbers right, and a resume at a
 * middle bound starts there. */
static void
test_bounds (void)
{
  static const char buf[] =
    "From: a@x\nSubject: one\n\nFrom 9150618 Thu Apr 29 16:36:43 1993\nFrom: b@x\n\nbody\n"
    "From: c@x\nSubject: two\n\nshort\n"
    "no header block at all\n";
  const goffset starts[] = { 0, 78, 108 };
  g_autoptr (MboxSplitter) s = mbox_splitter_new (buf, sizeof buf - 1, MBOX_SPLIT_NONE);
  g_autoptr (MboxSplitter) r = mbox_splitter_new (buf, sizeof buf - 1, MBOX_SPLIT_NONE);
  MboxSpan span;
  gsize n_log;

  g_assert_cmpstr (buf + 78, ==, "From: c@x\nSubject: two\n\nshort\nno header block at all\n");
  mbox_splitter_set_bounds (s, starts, G_N_ELEMENTS (starts));
  g_assert_true (mbox_splitter_next (s, &span, NULL));
  g_assert_cmpint (span.offset, ==, 0);
  g_assert_cmpuint (span.length, ==, 78);
  g_assert_cmpint (span.body, ==, 24);
  g_assert_cmpuint (span.envelope_length, ==, 0);
  g_assert_cmpuint (span.line_no, ==, 1);
  g_assert_true (mbox_splitter_next (s, &span, NULL));
  g_assert_cmpint (span.offset, ==, 78);
  g_assert_cmpuint (span.line_no, ==, 8);
  g_assert_cmpint (span.body, ==, 78 + 24);
  g_assert_true (mbox_splitter_next (s, &span, NULL));
  g_assert_cmpint (span.offset, ==, 108);
  g_assert_cmpint (span.body, ==, 108);   /* no header block: all body */
  g_assert_cmpuint (span.length, ==, sizeof buf - 1 - 108);
  g_assert_false (mbox_splitter_next (s, &span, NULL));
  g_assert_cmpuint (mbox_splitter_get_lines (s), ==, 13);
  mbox_splitter_peek_log (s, &n_log);
  g_assert_cmpuint (n_log, ==, 0);
  g_assert_true (mbox_splitter_is_single (s));

  mbox_splitter_set_bounds (r, starts, G_N_ELEMENTS (starts));
  mbox_splitter_start_at (r, 78, 8);
  g_assert_true (mbox_splitter_next (r, &span, NULL));
  g_assert_cmpint (span.offset, ==, 78);
  g_assert_cmpuint (span.line_no, ==, 8);
  g_assert_true (mbox_splitter_next (r, &span, NULL));
  g_assert_cmpuint (span.line_no, ==, 12);
  g_assert_false (mbox_splitter_next (r, &span, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/splitter/bounds", test_bounds);
  g_assert_cmpuint (fixture_tests_add ("from", "/splitter", test_fixture), >=, 10);
  return g_test_run ();
}
