/* export-mbox.c — messages back out of their archives, as clean mboxrd or
 * a Maildir.
 *
 * Each stored row says where its message is (file, byte offset, length);
 * the bytes are read back from the archive (gzip included), checked
 * against the file's recorded hash (offsets into a changed file would be
 * wrong), and written with a well-formed envelope and mboxrd quoting: one
 * more ">" on every line matching ^>*From , so that a liberal reader
 * (Python's mailbox, mutt, git am) splits exactly where deja did.  The
 * message text itself is kept byte for byte, apart from deja's reading
 * (one level of >From quoting removed, CRLF made LF).
 */
#include "export-mbox.h"
#include "mbox.h"
#include "input.h"
#include "output.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

struct _ExportMbox {
  gboolean maildir;
  Output *out;             /* mboxrd */
  char *dir;               /* maildir */
  Input *input;            /* the archive being read */
  char *input_path;
  GString *buf;
  guint64 written;
  GError *error;
};

ExportMbox *
export_mbox_new (const char *path, gboolean maildir, GError **error)
{
  ExportMbox *w = g_new0 (ExportMbox, 1);

  w->maildir = maildir;
  w->buf = g_string_new (NULL);
  if (maildir)
    {
      static const char *const subdirs[] = { "cur", "new", "tmp" };
      w->dir = g_strdup (path);
      for (gsize i = 0; i < G_N_ELEMENTS (subdirs); i++)
        {
          g_autofree char *sub = g_build_filename (path, subdirs[i], NULL);
          if (g_mkdir_with_parents (sub, 0777) != 0)
            {
              int saved = errno;
              g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                           "cannot create '%s': %s", sub, g_strerror (saved));
              export_mbox_free (w, FALSE, NULL);
              return NULL;
            }
        }
      return w;
    }
  if ((w->out = output_open (path, error)) == NULL)
    {
      export_mbox_free (w, FALSE, NULL);
      return NULL;
    }
  return w;
}

/* An asctime date for the envelope, from messages.date (UTC). */
static char *
envelope_date (const char *iso)
{
  g_autoptr (GTimeZone) utc = g_time_zone_new_utc ();
  g_autofree char *full = iso && strlen (iso) == 10 ? g_strconcat (iso, "T00:00:00Z", NULL)
                          : iso ? g_strconcat (iso, "Z", NULL) : NULL;
  g_autoptr (GDateTime) t = full ? g_date_time_new_from_iso8601 (full, utc) : NULL;

  static const char *const days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
  static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

  if (t == NULL)
    t = g_date_time_new_from_unix_utc (0);
  /* Not g_date_time_format(): its names follow the locale, and %e pads
   * with U+2007.  The envelope is ASCII, in English. */
  return g_strdup_printf ("%s %s %2d %02d:%02d:%02d %d", days[g_date_time_get_day_of_week (t) - 1],
                          months[g_date_time_get_month (t) - 1], g_date_time_get_day_of_month (t),
                          g_date_time_get_hour (t), g_date_time_get_minute (t),
                          g_date_time_get_second (t), g_date_time_get_year (t));
}

/* Opens @path unless it is the archive already open; checks its hash. */
static gboolean
use_archive (ExportMbox *w, const char *path, const char *sha256)
{
  g_autofree char *actual = NULL;

  if (w->input && g_strcmp0 (w->input_path, path) == 0)
    return TRUE;
  g_clear_pointer (&w->input, input_free);
  g_free (w->input_path);
  w->input_path = g_strdup (path);
  if ((w->input = input_open (path, &w->error)) == NULL)
    return FALSE;
  actual = input_sha256 (w->input);
  if (g_strcmp0 (actual, sha256) != 0)
    {
      g_set_error (&w->error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "'%s' has changed since it was ingested: ingest it again first", path);
      return FALSE;
    }
  return TRUE;
}

/* mboxrd: one more '>' before every line that matches ^>*From . */
static void
append_quoted (GString *out, const char *text, gsize len)
{
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *e = nl ? nl + 1 : end;
      const char *q = p;

      while (q < e && *q == '>')
        q++;
      if (e - q >= 5 && memcmp (q, "From ", 5) == 0)
        g_string_append_c (out, '>');
      g_string_append_len (out, p, e - p);
      p = e;
    }
  if (len == 0 || text[len - 1] != '\n')
    g_string_append_c (out, '\n');
}

static gboolean
write_maildir_file (ExportMbox *w, const char *id, const char *text, gsize len)
{
  g_autofree char *name = g_strdup_printf ("%s.deja:2,", id);
  g_autofree char *path = g_build_filename (w->dir, "cur", name, NULL);
  Output *out = output_open (path, &w->error);
  gboolean ok;

  if (out == NULL)
    return FALSE;
  ok = fwrite (text, 1, len, output_stream (out)) == len;
  return output_close (out, ok, &w->error) && ok;
}

/**
 * export_mbox_row:
 *
 * A StoreArchiveFunc for store_archive_rows(): reads the message back from
 * its archive and writes it.
 */
gboolean
export_mbox_row (const StoreArchiveRow *r, gpointer data)
{
  ExportMbox *w = data;
  MboxSpan span;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *date = NULL;
  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, r->id);
  const char *text;
  gsize len;
  goffset offset = r->byte_offset;
  gsize length = (gsize) r->byte_length;

  if (!use_archive (w, r->path, r->sha256))
    return FALSE;
  if (offset < 0 || offset + length > w->input->len)
    {
      g_set_error (&w->error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "message %s lies outside '%s'", id, r->path);
      return FALSE;
    }
  mbox_span_locate (w->input->data, offset, length, r->has_envelope, &span);
  bytes = mbox_span_extract (w->input->data, &span);
  text = g_bytes_get_data (bytes, &len);
  w->written++;
  if (w->maildir)
    return write_maildir_file (w, id, text ? text : "", len);
  date = envelope_date (r->date);
  g_string_truncate (w->buf, 0);
  g_string_append_printf (w->buf, "From %s %s\n", r->from_addr ? r->from_addr : "MAILER-DAEMON", date);
  append_quoted (w->buf, text ? text : "", len);
  g_string_append_c (w->buf, '\n');
  if (fwrite (w->buf->str, 1, w->buf->len, output_stream (w->out)) != w->buf->len)
    {
      g_set_error (&w->error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write: %s", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

guint64
export_mbox_count (const ExportMbox *w)
{
  return w->written;
}

/* Finishes (renaming the mbox into place when @commit) and frees. */
gboolean
export_mbox_free (ExportMbox *w, gboolean commit, GError **error)
{
  gboolean ok = w->error == NULL;

  if (!ok && error)
    g_propagate_error (error, g_steal_pointer (&w->error));
  if (w->out)
    ok = output_close (w->out, commit && ok, ok ? error : NULL) && ok;
  g_clear_error (&w->error);
  g_clear_pointer (&w->input, input_free);
  g_free (w->input_path);
  g_free (w->dir);
  g_string_free (w->buf, TRUE);
  g_free (w);
  return ok;
}
