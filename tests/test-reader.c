/* test-reader.c — the plain reader (parsers/headers.c) against GMime.
 *
 * mail_record_parse() reads a plain text message without GMime; this
 * test proves it gives what GMime's reading gives (mail_record_parse_gmime())
 * on every message of every file under fixtures/ and, when DEJA_CORPORA
 * names a directory (../shared/corpora), under it; and on variants of
 * messages made to sit on the edges of what the plain reader accepts
 * (CRLF, folds, odd Content-Type forms, names with spaces, bare CRs, NUL
 * bytes, 8-bit and control bytes, blocks without an end).  It also counts
 * how many messages the plain reader took, so that it cannot pass by
 * taking none.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "headers.h"
#include "mail.h"
#include "mbox.h"
#include "text.h"

typedef struct {
  guint messages, plain, variants, variants_plain, mismatches;
} Tally;

/* Whether the plain reader takes @data (what mail_record_parse() asks). */
static gboolean
is_plain (const char *data, gsize len)
{
  MailHeaders headers;
  MailPlainType type;
  gsize body;
  gboolean plain;

  if (memchr (data, '\0', len) != NULL)
    return FALSE;   /* made SUB first: counted as not plain here */
  if (!mail_headers_read (data, len, &headers, &body))
    return FALSE;
  plain = mail_headers_plain_text (&headers, &type);
  g_free (type.charset);
  mail_headers_clear (&headers);
  return plain;
}

static void
compare (const char *where, const char *data, gsize len, Tally *t, gboolean variant)
{
  g_autoptr (MailRecord) ours = mail_record_parse (data, len);
  g_autoptr (MailRecord) gmime = mail_record_parse_gmime (data, len);
  const char *field = mail_record_difference (ours, gmime);

  if (variant)
    {
      t->variants++;
      t->variants_plain += is_plain (data, len);
    }
  else
    {
      t->messages++;
      t->plain += is_plain (data, len);
    }
  if (field != NULL)
    {
      t->mismatches++;
      if (t->mismatches <= 20)
        g_test_message ("%s: %s differs from GMime's reading", where, field);
    }
}

/* Variants of @m on the plain reader's edges; each is compared. */
static void
compare_variants (const char *where, const char *m, gsize len, Tally *t)
{
  static const char *const fields[] = {
    "Content-Type: text/plain; charset=\"iso-8859-1\"\n",
    "Content-Type: text/plain; charset=utf-8\n",
    "Content-Type: TEXT/PLAIN; CHARSET=US-ASCII; format=flowed\n",
    "Content-Type: text/plain;\n\tcharset=\"windows-1252\"\n",
    "Content-Type: text/plain; charset = \"utf-8\" ;\n",
    "Content-Type: text/plain; charset=\"utf-8\"; charset=\"koi8-r\"\n",
    "Content-Type: text/plain; charset*=utf-8''caf%C3%A9\n",
    "Content-Type: text/plain; charset=\"=?utf-8?q?x?=\"\n",
    "Content-Type: text/plain; charset=utf-8 (comment)\n",
    "Content-Type: text/plain; charset=\"a\\\"b\"\n",
    "Content-Type: text/plain\nContent-Type: text/html\n",
    "Content-Type: text/html; charset=utf-8\n",
    "Content-Type: text/enriched\n",
    "Content-Type: text\n",
    "Content-Type: text/plain; charset=\"unterminated\n",
    "Content-Transfer-Encoding: 8bit\n",
    "Content-Transfer-Encoding:  7BIT \n",
    "Content-Transfer-Encoding: 8-bit\n",
    "Content-Transfer-Encoding: quoted-printable\n",
    "Content-Transfer-Encoding: base64\n",
    "Content-Transfer-Encoding: x-uuencode\n",
    "Content-Disposition: inline\n",
    "Content-Disposition: attachment; filename=a.txt\n",
    "Content-Description: a note\n",
    "MIME-Version: 1.0\n",
    "X-No-Archive: yes\n",
    "Subject : spaced name\n",
    "X-Bad Name: value\n",
    "NoColonHere\n",
    ":empty name\n",
    "X-Control: a\x1b$B\x1b(B b\n",
    "X-Latin: caf\xe9\n",
    "X-Folded: one\n two\n\tthree\n",
    "X-Bare-CR: a\rb\n",
    "From: Caf\xe9 <cafe@example.org>\n",
    "Reply-To: \"Ann\" <ann@example.org>\n",
  };
  const char *blank = g_strstr_len (m, len, "\n\n");
  gsize head = blank ? (gsize) (blank - m) + 1 : len;
  g_autofree char *name = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      /* the field first, then last, in the header block */
      for (int at_end = 0; at_end < 2; at_end++)
        {
          GString *v = g_string_new (NULL);

          if (at_end)
            {
              g_string_append_len (v, m, head);
              g_string_append (v, fields[i]);
              g_string_append_len (v, m + head, len - head);
            }
          else
            {
              g_string_append (v, fields[i]);
              g_string_append_len (v, m, len);
            }
          g_free (name);
          name = g_strdup_printf ("%s, field %zu%s", where, i, at_end ? " last" : "");
          compare (name, v->str, v->len, t, TRUE);
          g_string_free (v, TRUE);
        }
    }
  {
    /* CRLF throughout; a CR alone at the very end */
    GString *v = g_string_new (NULL);

    for (gsize i = 0; i < len; i++)
      {
        if (m[i] == '\n')
          g_string_append_c (v, '\r');
        g_string_append_c (v, m[i]);
      }
    compare (where, v->str, v->len, t, TRUE);
    g_string_append_c (v, '\r');
    compare (where, v->str, v->len, t, TRUE);
    g_string_free (v, TRUE);
  }
  /* headers only: the block runs to the end, or ends at the end */
  compare (where, m, head, t, TRUE);
  if (blank)
    compare (where, m, head + 1, t, TRUE);
  /* a NUL in the headers and one in the body */
  {
    g_autofree char *v = g_memdup2 (m, len);

    if (head > 3)
      {
        v[head / 2] = '\0';
        compare (where, v, len, t, TRUE);
      }
    if (len > head + 2)
      {
        memcpy (v, m, len);
        v[head + 1] = '\0';
        compare (where, v, len, t, TRUE);
      }
  }
  /* a From-line, an empty line, a folded line before the fields */
  for (gsize i = 0; i < 3; i++)
    {
      static const char *const before[] = { "From someone Mon Jan  1 00:00:00 2001\n", "\n", " folded\n" };
      g_autofree char *v = g_strconcat (before[i], NULL);
      GString *s = g_string_new (v);

      g_string_append_len (s, m, len);
      compare (where, s->str, s->len, t, TRUE);
      g_string_free (s, TRUE);
    }
}

/* Compressed and archive files are read by the ingest, not here. */
static gboolean
is_plain_file (const char *path)
{
  static const char *const skip[] = { ".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4", ".Z" };

  for (gsize i = 0; i < G_N_ELEMENTS (skip); i++)
    if (g_str_has_suffix (path, skip[i]))
      return FALSE;
  return TRUE;
}

/* Every message of the file at @path (its content before the first
 * separator too); every @variant_every-th message's variants as well. */
static void
compare_file (const char *path, guint variant_every, Tally *t)
{
  g_autofree char *data = NULL;
  gsize len;
  g_autoptr (MboxSplitter) splitter = NULL;
  MboxSpan span;
  guint n = 0;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return;
  splitter = mbox_splitter_new (data, len, MBOX_SPLIT_FORCE);
  while (mbox_splitter_next (splitter, &span, NULL))
    {
      g_autoptr (GBytes) bytes = mbox_span_extract (data, &span);
      gsize mlen;
      const char *m = g_bytes_get_data (bytes, &mlen);
      g_autofree char *where = g_strdup_printf ("%s, message %u", path, n + 1);

      compare (where, m ? m : "", mlen, t, FALSE);
      if (variant_every > 0 && n % variant_every == 0 && m != NULL)
        compare_variants (where, m, mlen, t);
      n++;
    }
}

static void
compare_tree (const char *dir, guint variant_every, Tally *t)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) (void (*) (void)) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, names->pdata[i], NULL);

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        compare_tree (path, variant_every, t);
      else if (is_plain_file (path))
        compare_file (path, variant_every, t);
    }
}

static void
report (const char *what, const Tally *t)
{
  g_test_message ("%s: %u messages, %u read plain; %u variants, %u read plain; %u differ", what,
                  t->messages, t->plain, t->variants, t->variants_plain, t->mismatches);
}

/* Every fixture, every message with its variants. */
static void
test_fixtures (void)
{
  Tally t = { 0 };

  compare_tree (g_test_get_filename (G_TEST_DIST, ".", NULL), 1, &t);
  report ("fixtures", &t);
  g_assert_cmpuint (t.mismatches, ==, 0);
  /* the fixtures hold plain messages and others, and the variants take
   * both ways */
  g_assert_cmpuint (t.plain, >, t.messages / 4);
  g_assert_cmpuint (t.plain, <, t.messages);
  g_assert_cmpuint (t.variants_plain, >, t.variants / 4);
  g_assert_cmpuint (t.variants_plain, <, t.variants);
}

/* The shared corpora: every message, every 200th with its variants. */
static void
test_corpora (void)
{
  const char *dir = g_getenv ("DEJA_CORPORA");
  Tally t = { 0 };

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no corpora (DEJA_CORPORA names ../shared/corpora when it is there)");
      return;
    }
  compare_tree (dir, 200, &t);
  report (dir, &t);
  g_assert_cmpuint (t.mismatches, ==, 0);
  g_assert_cmpuint (t.messages, >, 60000);
  /* twisted-python's 65,000 messages are plain */
  g_assert_cmpuint (t.plain, >, t.messages * 9 / 10);
}

/* The reader's own contract, field by field. */
static void
test_headers (void)
{
  static const char m[] = "Subject:  Hello\n  world\nX-A:b\r\nFrom: a@b\n\nbody\n";
  MailHeaders h;
  MailPlainType type;
  gsize body = 0;

#define READ(s) mail_headers_read ((s), strlen (s), &h, &body)
  g_assert_true (READ (m));
  g_assert_cmpuint (h.n, ==, 3);
  g_assert_cmpstr (h.v[0].name, ==, "Subject");
  g_assert_cmpstr (h.v[0].value, ==, "  Hello\n  world\n");
  g_assert_cmpstr (h.v[1].value, ==, "b\r\n");
  g_assert_cmpstr (mail_headers_get (&h, "from"), ==, " a@b\n");
  g_assert_null (mail_headers_get (&h, "Date"));
  g_assert_cmpstr (m + body, ==, "body\n");
  g_assert_true (mail_headers_plain_text (&h, &type));
  g_assert_null (type.charset);
  mail_headers_clear (&h);

  g_assert_true (READ ("Content-Type: text/plain; format=flowed;\n charset=\"UTF-8\"\n\n"));
  g_assert_true (mail_headers_plain_text (&h, &type));
  g_assert_cmpstr (type.charset, ==, "UTF-8");
  g_free (type.charset);
  mail_headers_clear (&h);

  /* not plain: left to GMime */
  g_assert_false (READ ("Subject: no end\n"));
  g_assert_false (READ ("Bad Name: x\n\n"));
  g_assert_false (READ ("\nbody\n"));
  g_assert_false (READ ("A: x\ry\n\n"));
  g_assert_false (READ (" folded: x\n\n"));
  g_assert_true (READ ("Content-Transfer-Encoding: base64\n\n"));
  g_assert_false (mail_headers_plain_text (&h, &type));
  mail_headers_clear (&h);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  mail_init ();
  g_test_add_func ("/reader/headers", test_headers);
  g_test_add_func ("/reader/fixtures", test_fixtures);
  g_test_add_func ("/reader/corpora", test_corpora);
  return g_test_run ();
}
