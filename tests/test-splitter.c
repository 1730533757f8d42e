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
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpuint (fixture_tests_add ("from", "/splitter", test_fixture), >=, 10);
  return g_test_run ();
}
