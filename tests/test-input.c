/* test-input.c — util/input.c: archive member names, a file that is
 * truncated while it is mapped, a small file read whole. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "output.h"

/* A member's path is always inside its archive, whatever the archive
 * says (a zip member "../b.mbox" replaced the rows of the real b.mbox). */
static void
test_member_names (void)
{
  static const struct {
    const char *raw, *name;
  } cases[] = {
    { "a.mbox", "a.mbox" },
    { "dir/a.mbox", "dir/a.mbox" },
    { "../b.mbox", "b.mbox" },
    { "../../../etc/passwd", "etc/passwd" },
    { "/abs/c.mbox", "abs/c.mbox" },
    { "./x/../../d.mbox", "x/d.mbox" },
    { "a//b/./c", "a/b/c" },
    { "..", "unnamed" },
    { "/", "unnamed" },
    { "", "unnamed" },
    { NULL, "unnamed" },
    { "...", "..." },
    { "..a/b..", "..a/b.." },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = input_member_name (cases[i].raw);

      g_assert_cmpstr (name, ==, cases[i].name);
      g_assert_false (g_str_has_prefix (name, "/"));
      g_assert_null (strstr (name, "//"));
    }
}

/* Reading a page past the end of a file that shrank raised SIGBUS (exit
 * 135).  Now the page reads as zeros and the input says it changed. */
static void
test_truncated_while_mapped (void)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Input) input = NULL;
  gsize size = 1 << 20;
  g_autofree char *text = g_malloc (size);
  int fd = g_file_open_tmp ("deja-input-XXXXXX", &path, &error);
  volatile char c = 0;

  g_assert_no_error (error);
  memset (text, 'x', size);
  g_assert_cmpint (write (fd, text, size), ==, (gssize) size);
  close (fd);
  input = input_open (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (input->map);   /* a large file is mapped */
  g_assert_true (input_check_unchanged (input, &error));
  g_assert_no_error (error);
  g_assert_cmpint (truncate (path, 4096), ==, 0);
  for (gsize i = 0; i < input->len; i += 4096)
    c += input->data[i];
  g_assert_cmpint (input->data[size - 1], ==, 0);
  g_assert_false (input_check_unchanged (input, &error));
  g_assert_error (error, INPUT_ERROR, INPUT_ERROR_CHANGED);
  g_unlink (path);
}

/* A small file (a Maildir's, a news spool's message) is read into memory,
 * not mapped: the text is the file's, and a file that shrank after it was
 * read is refused as a mapped one is. */
static void
test_small_file_read (void)
{
  static const char text[] = "From: a@example.org\nSubject: s\n\nBody.\n";
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Input) input = NULL;
  int fd = g_file_open_tmp ("deja-input-XXXXXX", &path, &error);

  g_assert_no_error (error);
  g_assert_cmpint (write (fd, text, sizeof text - 1), ==, (gssize) sizeof text - 1);
  close (fd);
  input = input_open (path, &error);
  g_assert_no_error (error);
  g_assert_null (input->map);
  g_assert_nonnull (input->copy);
  g_assert_cmpuint (input->len, ==, sizeof text - 1);
  g_assert_cmpmem (input->data, input->len, text, sizeof text - 1);
  /* hashed from the bytes read, as the file's own */
  {
    g_autofree char *expected = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text,
                                                             sizeof text - 1);
    g_autofree char *got = input_sha256 (input);

    g_autofree char *start_expected = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, 5);
    g_autofree char *whole = NULL;
    g_autofree char *start = input_sha256_prefix (input, 5, &whole);

    g_assert_cmpstr (got, ==, expected);
    g_assert_cmpstr (start, ==, start_expected);   /* a file that grew: its start, and all of it */
    g_assert_cmpstr (whole, ==, expected);
    input->short_read = TRUE;           /* it came up short: no hash, a read error */
    g_assert_null (input_sha256 (input));
    input->short_read = FALSE;
  }
  g_assert_true (input_check_unchanged (input, &error));
  g_assert_no_error (error);
  g_assert_cmpint (truncate (path, 10), ==, 0);
  g_assert_false (input_check_unchanged (input, &error));
  g_assert_error (error, INPUT_ERROR, INPUT_ERROR_CHANGED);
  g_unlink (path);
}

/* A file too large to be read whole is mapped, and hashed from the file:
 * the same SHA-256 as the bytes. */
static void
test_large_file_hash (void)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (Input) input = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *expected = NULL, *got = NULL;
  int fd = g_file_open_tmp ("deja-input-XXXXXX", &path, &error);

  g_assert_no_error (error);
  while (text->len <= 300 * 1024)
    g_string_append (text, "From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\n\nA line of a body.\n\n");
  g_assert_cmpint (write (fd, text->str, text->len), ==, (gssize) text->len);
  close (fd);
  input = input_open (path, &error);
  g_assert_no_error (error);
  g_assert_null (input->copy);
  expected = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text->str, text->len);
  got = input_sha256 (input);
  g_assert_cmpstr (got, ==, expected);
  g_unlink (path);
}

/* What a terminal is shown of a stranger's text: printable text as it is,
 * control characters as ^X, C1 controls and invalid bytes replaced. */
static void
test_terminal_text (void)
{
  static const struct {
    const char *in, *lines, *one_line;
  } cases[] = {
    { "", "", "" },
    { "plain ascii, all of it ~", "plain ascii, all of it ~", "plain ascii, all of it ~" },
    { "a\tb\nc", "a\tb\nc", "a b c" },
    { "Eve\x1b]0;PWNED\x07 <e@x>", "Eve^[]0;PWNED^G <e@x>", "Eve^[]0;PWNED^G <e@x>" },
    { "\x7f" "del\r", "^?del^M", "^?del^M" },
    { "caf\xc3\xa9 \xc2\x9b" "31m", "caf\xc3\xa9 \xef\xbf\xbd" "31m", "caf\xc3\xa9 \xef\xbf\xbd" "31m" },
    { "bad \xff byte", "bad \xef\xbf\xbd byte", "bad \xef\xbf\xbd byte" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GString) lines = g_string_new ("> ");
      g_autoptr (GString) one_line = g_string_new (NULL);

      output_terminal_text (lines, cases[i].in, TRUE);
      output_terminal_text (one_line, cases[i].in, FALSE);
      g_assert_cmpstr (lines->str + 2, ==, cases[i].lines);
      g_assert_cmpstr (one_line->str, ==, cases[i].one_line);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/input/member-names", test_member_names);
  g_test_add_func ("/input/truncated-while-mapped", test_truncated_while_mapped);
  g_test_add_func ("/input/small-file-read", test_small_file_read);
  g_test_add_func ("/input/large-file-hash", test_large_file_hash);
  g_test_add_func ("/output/terminal-text", test_terminal_text);
  return g_test_run ();
}
