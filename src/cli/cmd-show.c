/* cmd-show.c — deja show --db DB ID: read one message, or its thread.
 *
 *   deja show --db DB 1234               headers, place in the archive, text
 *   deja show --db DB '<id@host>'        the same, by Message-ID
 *   deja show --db DB --thread 1234      the thread as an indented tree
 *   deja show --db DB --raw 1234         the message's bytes in the archive
 */
#include "deja.h"
#include "input.h"
#include "msgid.h"
#include "output.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_KEY(id) ((gpointer) (gintptr) (id))

#define ANSI_BOLD "\033[1m"
#define ANSI_DIM  "\033[2m"
#define ANSI_OFF  "\033[0m"

/* A copy of one result row: names and texts owned. */
typedef struct {
  guint n;
  RowValue *values;
} Row;

static void
row_free (gpointer data)
{
  Row *row = data;

  for (guint i = 0; i < row->n; i++)
    {
      g_free ((char *) row->values[i].name);
      g_free ((char *) row->values[i].text);
    }
  g_free (row->values);
  g_free (row);
}

static gboolean
keep_row (const StoreValue *v, guint n, gpointer data)
{
  Row *row = g_new0 (Row, 1);

  row->n = n;
  row->values = g_new0 (RowValue, n);
  for (guint i = 0; i < n; i++)
    row->values[i] = (RowValue) { g_strdup (v[i].name), g_strdup (v[i].text), v[i].number };
  g_ptr_array_add (data, row);
  return TRUE;
}

/* Every text of @rows as a terminal may show it (output_terminal_text():
 * a name, subject or body can hold escape sequences), lines kept. */
static void
rows_for_terminal (GPtrArray *rows)
{
  for (guint r = 0; r < rows->len; r++)
    {
      Row *row = g_ptr_array_index (rows, r);

      for (guint i = 0; i < row->n; i++)
        {
          char *shown = output_terminal_copy (row->values[i].text);

          g_free ((char *) row->values[i].text);
          row->values[i].text = shown;
        }
    }
}

static const char *
get (const Row *row, const char *name)
{
  return row_get (row->values, row->n, name);
}

static gint64
get_int (const Row *row, const char *name)
{
  const char *text = get (row, name);

  return text ? g_ascii_strtoll (text, NULL, 10) : 0;
}

static GPtrArray *
rows_of (Store *store, StoreShow what, gint64 id, GError **error)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (row_free);

  if (!store_show (store, what, id, keep_row, rows, error))
    g_clear_pointer (&rows, g_ptr_array_unref);
  return rows;
}

/* ID: a messages.id, or a Message-ID with or without its angle brackets. */
static gboolean
resolve (Store *store, const char *text, gint64 *id, GError **error)
{
  char *end;
  gint64 number = g_ascii_strtoll (text, &end, 10);
  g_autofree char *message_id = msgid_normalize (text, strlen (text));

  if (*text == '\0' || *end != '\0' || number <= 0)
    number = 0;
  return store_find_message (store, number, message_id, id, error);
}

static void
header_line (GString *out, const char *label, const char *value)
{
  if (value && *value)
    g_string_append_printf (out, "%-12s %s\n", label, value);
}

/* Message-IDs, space-separated, in their angle brackets again. */
static void
header_ids (GString *out, const char *label, const char *ids)
{
  g_auto (GStrv) list = ids ? g_strsplit (ids, " ", -1) : NULL;

  for (guint i = 0; list && list[i]; i++)
    {
      if (i == 0)
        g_string_append_printf (out, "%-12s", label);
      g_string_append_printf (out, " <%s>", list[i]);
    }
  if (list && list[0])
    g_string_append_c (out, '\n');
}

/* The text with the author's own lines (own_text, a subsequence of the
 * body's lines) set apart from quotes, attributions and signatures:
 * bold and dim on a terminal, as written elsewhere. */
static void
append_text (GString *out, const char *body, const char *own, gboolean colour)
{
  const char *o = own ? own : "";

  if (!colour)
    {
      g_string_append (out, body);
      if (out->len && out->str[out->len - 1] != '\n')
        g_string_append_c (out, '\n');
      return;
    }
  for (const char *p = body; *p;)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl ? (gsize) (nl - p) : strlen (p);
      const char *onl;
      gsize olen;

      /* The next own line, blank lines aside. */
      while (*o == '\n')
        o++;
      onl = strchr (o, '\n');
      olen = onl ? (gsize) (onl - o) : strlen (o);
      if (len == 0)
        g_string_append_c (out, '\n');
      else if (olen == len && memcmp (p, o, len) == 0)
        {
          g_string_append_printf (out, ANSI_BOLD "%.*s" ANSI_OFF "\n", (int) len, p);
          o += olen;
        }
      else
        g_string_append_printf (out, ANSI_DIM "%.*s" ANSI_OFF "\n", (int) len, p);
      p += len + (nl != NULL);
    }
}

static void
append_message (GString *out, const Row *m, GPtrArray *attachments, GPtrArray *log,
                GPtrArray *copies, gboolean colour, gboolean own_only)
{
  const char *name = get (m, "from_name"), *addr = get (m, "from_addr");
  g_autofree char *from = name && addr ? g_strdup_printf ("%s <%s>", name, addr)
                          : g_strdup (name ? name : addr ? addr : "(no author)");
  g_autofree char *date = get (m, "date_raw") && g_strcmp0 (get (m, "date"), get (m, "date_raw"))
                          ? g_strdup_printf ("%s (%s)", get (m, "date") ? get (m, "date") : "unreadable",
                                             get (m, "date_raw"))
                          : g_strdup (get (m, "date"));
  g_autofree char *thread = NULL, *place = NULL;

  if (get (m, "parent_id"))
    thread = g_strdup_printf ("%s, reply to %s", get (m, "thread_id"), get (m, "parent_id"));
  else if (get (m, "missing_parent"))
    thread = g_strdup_printf ("%s, reply to <%s> (not in the archive)", get (m, "thread_id"),
                              get (m, "missing_parent"));
  else
    thread = g_strdup_printf ("%s%s", get (m, "thread_id") ? get (m, "thread_id") : "-",
                              g_strcmp0 (get (m, "thread_id"), get (m, "id")) == 0 ? ", its start" : "");
  place = g_strdup_printf ("%s, line %s, bytes %s+%s", get (m, "file"), get (m, "line_no"),
                           get (m, "byte_offset"), get (m, "byte_length"));
  g_string_append_printf (out, colour ? ANSI_BOLD "message %s" ANSI_OFF "\n" : "message %s\n",
                          get (m, "id"));
  header_line (out, "From:", from);
  header_line (out, "Date:", date);
  header_line (out, "Subject:", get (m, "subject"));
  header_line (out, "Newsgroups:", get (m, "newsgroups"));
  if (get (m, "message_id"))
    g_string_append_printf (out, "%-12s <%s>\n", "Message-ID:", get (m, "message_id"));
  header_ids (out, "References:", get (m, "references"));
  header_ids (out, "In-Reply-To:", get (m, "in_reply_to"));
  header_line (out, "Thread:", thread);
  if (get (m, "duplicate_of"))
    g_string_append_printf (out, "%-12s a copy of message %s\n", "Copy:", get (m, "duplicate_of"));
  for (guint i = 0; i < copies->len; i++)
    {
      const Row *c = g_ptr_array_index (copies, i);
      g_string_append_printf (out, "%-12s message %s (%s, line %s)\n", i ? "" : "Copies:",
                              get (c, "id"), get (c, "file"), get (c, "line_no"));
    }
  header_line (out, "Archive:", place);
  header_line (out, "Envelope:", get (m, "envelope"));
  header_line (out, "Charset:", get (m, "charset"));
  header_line (out, "Flags:", get (m, "flags"));
  header_line (out, "Threading:", get (m, "thread_flags"));
  for (guint i = 0; i < attachments->len; i++)
    {
      const Row *a = g_ptr_array_index (attachments, i);
      g_string_append_printf (out, "%-12s %s %s, %s bytes (%s)\n", i ? "" : "Attachments:",
                              get (a, "content_type"), get (a, "filename") ? get (a, "filename") : "(no name)",
                              get (a, "size"), get (a, "encoding"));
    }
  for (guint i = 0; i < log->len; i++)
    {
      const Row *l = g_ptr_array_index (log, i);
      g_string_append_printf (out, "%-12s line %s: %s [%s] %s\n", i ? "" : "Separators:",
                              get (l, "line_no"), get (l, "verdict"), get (l, "reason"),
                              get (l, "line_text"));
    }
  g_string_append_c (out, '\n');
  if (own_only)
    append_text (out, get (m, "own_text") ? get (m, "own_text") : "", NULL, FALSE);
  else
    append_text (out, get (m, "body") ? get (m, "body") : "", get (m, "own_text"), colour);
}

/* rows as a JSON array of objects, for nesting in a message's object. */
static void
append_json_rows (GString *out, GPtrArray *rows)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = g_ptr_array_index (rows, i);
      if (i)
        g_string_append (out, ", ");
      output_json_object (out, r->values, r->n);
    }
  g_string_append_c (out, ']');
}

static void
append_message_json (GString *out, const Row *m, GPtrArray *attachments, GPtrArray *log,
                     GPtrArray *copies)
{
  g_string_append (out, "[\n  ");
  output_json_object (out, m->values, m->n);
  g_string_truncate (out, out->len - 1);   /* the closing brace */
  g_string_append (out, ", \"attachments\": ");
  append_json_rows (out, attachments);
  g_string_append (out, ", \"separator_log\": ");
  append_json_rows (out, log);
  g_string_append (out, ", \"copies\": ");
  append_json_rows (out, copies);
  g_string_append (out, "}\n]\n");
}

static int
show_message (Store *store, gint64 id, gboolean json, gboolean own_only)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) message = rows_of (store, STORE_SHOW_MESSAGE, id, &error);
  g_autoptr (GPtrArray) attachments = message ? rows_of (store, STORE_SHOW_ATTACHMENTS, id, &error) : NULL;
  g_autoptr (GPtrArray) log = attachments ? rows_of (store, STORE_SHOW_LOG, id, &error) : NULL;
  g_autoptr (GPtrArray) copies = log ? rows_of (store, STORE_SHOW_COPIES, id, &error) : NULL;
  g_autoptr (GString) out = g_string_new (NULL);

  if (copies == NULL || message->len == 0)
    {
      deja_error ("%s", error ? error->message : "the message is gone");
      return DEJA_EXIT_FAILED;
    }
  if (json)
    append_message_json (out, g_ptr_array_index (message, 0), attachments, log, copies);
  else
    {
      for (GPtrArray **rows = (GPtrArray *[]) { message, attachments, log, copies, NULL }; *rows; rows++)
        rows_for_terminal (*rows);
      append_message (out, g_ptr_array_index (message, 0), attachments, log, copies,
                      deja_use_colour (), own_only);
    }
  fwrite (out->str, 1, out->len, stdout);
  return DEJA_EXIT_OK;
}

/* --raw: the message's bytes as they are in the archive (for a compressed
 * file, in its expanded text), envelope line included; the archive must
 * still hold what was ingested. */
static int
show_raw (Store *store, gint64 id)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) message = rows_of (store, STORE_SHOW_MESSAGE, id, &error);
  g_autoptr (Input) input = NULL;
  g_autofree char *sha256 = NULL;
  const Row *m;
  gint64 offset, length;

  if (message == NULL || message->len == 0)
    {
      deja_error ("%s", error ? error->message : "the message is gone");
      return DEJA_EXIT_FAILED;
    }
  m = g_ptr_array_index (message, 0);
  offset = get_int (m, "byte_offset");
  length = get_int (m, "byte_length");
  if ((input = input_open (get (m, "file"), &error)) == NULL)
    {
      deja_error ("cannot read message %" G_GINT64_FORMAT ": %s", id, error->message);
      return DEJA_EXIT_FAILED;
    }
  sha256 = input_sha256 (input);
  if (g_strcmp0 (sha256, get (m, "file_sha256")) != 0 || offset < 0 ||
      (guint64) (offset + length) > input->len)
    {
      deja_error ("'%s' has changed since it was ingested: ingest it again first", get (m, "file"));
      return DEJA_EXIT_FAILED;
    }
  fwrite (input->data + offset, 1, length, stdout);
  return DEJA_EXIT_OK;
}

/* The thread as a tree: children under their parent, oldest first; a
 * message whose parent is not in the archive starts a branch of its own. */
typedef struct {
  GPtrArray *rows;
  GHashTable *children;     /* parent id -> GPtrArray of Row (borrowed) */
  gint64 marked;
  gboolean colour;
  RowWriter *writer;        /* tsv, csv, json: one row per message with its depth */
  GString *out;             /* table */
} Tree;

static const char *
skip_re (const char *s)
{
  while (s && g_ascii_strncasecmp (s, "re:", 3) == 0)
    s += 3 + strspn (s + 3, " \t");
  return s;
}

static gboolean
same_subject (const char *a, const char *b)
{
  return g_strcmp0 (skip_re (a), skip_re (b)) == 0;
}

static void
tree_line (Tree *t, const Row *r, const Row *parent, guint depth, GString *prefix, gboolean last)
{
  const char *name = get (r, "from_name"), *addr = get (r, "from_addr");
  gboolean marked = get_int (r, "id") == t->marked;
  g_autofree char *depth_text = g_strdup_printf ("%u", depth);

  if (t->writer)
    {
      RowValue v[] = {
        { "id", get (r, "id"), TRUE }, { "parent_id", get (r, "parent_id"), TRUE },
        { "depth", depth_text, TRUE }, { "date", get (r, "date"), FALSE },
        { "from_name", name, FALSE }, { "from_addr", addr, FALSE },
        { "subject", get (r, "subject"), FALSE }, { "message_id", get (r, "message_id"), FALSE },
      };
      row_writer_add (t->writer, v, G_N_ELEMENTS (v));
      return;
    }
  g_string_append (t->out, prefix->str);
  if (depth > 0)
    g_string_append (t->out, last ? "└─ " : "├─ ");
  if (marked && t->colour)
    g_string_append (t->out, ANSI_BOLD);
  g_string_append_printf (t->out, "[%s] %s  %s", get (r, "id"),
                          get (r, "date") ? get (r, "date") : "(no date)",
                          name ? name : addr ? addr : "(no author)");
  if (parent == NULL || !same_subject (get (r, "subject"), get (parent, "subject")))
    g_string_append_printf (t->out, "  %s", get (r, "subject") ? get (r, "subject") : "(no subject)");
  if (marked)
    g_string_append (t->out, t->colour ? ANSI_OFF "  ◀" : "  ◀");
  g_string_append_c (t->out, '\n');
}

#define MAX_INDENT 24   /* levels drawn; deeper replies are drawn at this depth */

static void
walk (Tree *t, const Row *r, const Row *parent, guint depth, GString *prefix, gboolean last)
{
  GPtrArray *kids = g_hash_table_lookup (t->children, ID_KEY (get_int (r, "id")));
  gsize len = prefix->len;

  tree_line (t, r, parent, depth, prefix, last);
  if (depth > 0 && depth < MAX_INDENT)
    g_string_append (prefix, last ? "   " : "│  ");
  for (guint i = 0; kids && i < kids->len; i++)
    walk (t, g_ptr_array_index (kids, i), r, depth + 1, prefix, i + 1 == kids->len);
  g_string_truncate (prefix, len);
}

static int
show_thread (Store *store, gint64 id, RowFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) rows = rows_of (store, STORE_SHOW_THREAD, id, &error);
  g_autoptr (GHashTable) ids = g_hash_table_new (NULL, NULL);
  g_autoptr (GString) prefix = g_string_new (NULL);
  Tree t = { 0 };

  if (rows == NULL)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  t.rows = rows;
  t.marked = id;
  t.colour = format == ROW_FORMAT_TABLE && deja_use_colour ();
  t.children = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  t.out = g_string_new (NULL);
  if (format != ROW_FORMAT_TABLE)
    t.writer = row_writer_new (format, stdout);
  else
    rows_for_terminal (rows);
  for (guint i = 0; i < rows->len; i++)
    g_hash_table_add (ids, ID_KEY (get_int (g_ptr_array_index (rows, i), "id")));
  for (guint i = 0; i < rows->len; i++)
    {
      Row *r = g_ptr_array_index (rows, i);
      gint64 parent = get_int (r, "parent_id");
      GPtrArray *kids;

      if (parent == 0 || !g_hash_table_contains (ids, ID_KEY (parent)))
        continue;
      if ((kids = g_hash_table_lookup (t.children, ID_KEY (parent))) == NULL)
        g_hash_table_insert (t.children, ID_KEY (parent), kids = g_ptr_array_new ());
      g_ptr_array_add (kids, r);
    }
  for (guint i = 0; i < rows->len; i++)
    {
      Row *r = g_ptr_array_index (rows, i);
      gint64 parent = get_int (r, "parent_id");

      if (parent == 0 || !g_hash_table_contains (ids, ID_KEY (parent)))
        walk (&t, r, NULL, 0, prefix, TRUE);
    }
  if (t.writer)
    row_writer_finish (t.writer);
  fwrite (t.out->str, 1, t.out->len, stdout);
  g_string_free (t.out, TRUE);
  g_hash_table_unref (t.children);
  return DEJA_EXIT_OK;
}

int
cmd_show (DejaRun *run, int argc, char **argv)
{
  g_autofree char *format_name = NULL;
  gboolean thread = FALSE, raw = FALSE, own_only = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "thread", 't', 0, G_OPTION_ARG_NONE, &thread, "the message's whole thread, as a tree", NULL },
    { "raw", 0, 0, G_OPTION_ARG_NONE, &raw, "the message's bytes as they are in the archive", NULL },
    { "own", 0, 0, G_OPTION_ARG_NONE, &own_only, "only the author's own text, no quotes or signature", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "a message: text (default) or json; a thread: table (default), tsv, csv or json", "FORMAT" },
    { NULL }
  };
  Store *store = NULL;
  g_autoptr (GError) error = NULL;
  RowFormat format = ROW_FORMAT_TABLE;
  gboolean json = FALSE;
  gint64 id;

  if (!deja_run_parse (run, "ID — read one message or its thread", entries,
    "ID is a message's id (the number search, export and log show) or its Message-ID, with\n"
    "or without angle brackets; a Message-ID present in several files shows its canonical\n"
    "copy.  A message is shown with its decoded headers, where it lies in the archive (file,\n"
    "line, byte offset and length), its attachments and separator-log lines, then its text;\n"
    "on a terminal the author's own lines are bold and quotes, attributions and signature\n"
    "dim (NO_COLOR turns this off).  --thread draws the thread the message belongs to, one\n"
    "line per message (id, date, author, and the subject where it changes), the message\n"
    "marked; --raw writes its exact bytes, envelope line included.",
    &argc, &argv, &status))
    return status;
  if (argc != 2)
    return deja_usage_error (run->context, "one message ID is required");
  if (raw && (thread || format_name || own_only))
    return deja_usage_error (run->context, "--raw takes no other option");
  if (thread && !row_format_parse (format_name, ROW_FORMAT_TABLE, &format))
    return deja_usage_error (run->context, "--format must be " ROW_FORMAT_NAMES);
  if (!thread && format_name && strcmp (format_name, "text") && strcmp (format_name, "json"))
    return deja_usage_error (run->context, "--format must be text or json");
  json = !thread && g_strcmp0 (format_name, "json") == 0;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if (!resolve (store, argv[1], &id, &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (id == 0)
    {
      deja_error ("no message '%s' in '%s'", argv[1], run->db);
      return DEJA_EXIT_FAILED;
    }
  if (raw)
    return show_raw (store, id);
  if (thread)
    return show_thread (store, id, format);
  return show_message (store, id, json, own_only);
}
