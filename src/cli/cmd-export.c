/* cmd-export.c — deja export: messages with their text, for pandas or R. */
#include "deja.h"
#include "output.h"
#include "people.h"
#include "rows.h"
#include "search-query.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef enum { EXPORT_CSV, EXPORT_JSONL, EXPORT_OTHER } ExportFormat;

typedef struct {
  gboolean csv;
  RowWriter *rows;       /* tsv, json */
  FILE *stream;
  GString *line;
  guint64 rows_written;
  gboolean failed;       /* a write failed: stop early */
  DejaPseudonyms *pseudonyms;   /* NULL: as stored */
  gboolean hidden_author;       /* the last field, author_id, is read only to name the author */
} Writer;

static void
csv_row (Writer *w, const StoreValue *v, guint n, gboolean header)
{
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (w->line, ',');
      output_csv_field (w->line, header ? v[i].name : v[i].text);
    }
  g_string_append (w->line, "\r\n");   /* RFC 4180 */
}

/* "<a@b> <c@d>" -> their keyed hashes. */
static char *
pseudonymise_ids (DejaPseudonyms *p, const char *ids)
{
  g_auto (GStrv) parts = NULL;
  GString *out;

  if (ids == NULL)
    return NULL;
  parts = g_strsplit (ids, " ", -1);
  out = g_string_new (NULL);
  for (guint i = 0; parts[i]; i++)
    if (*parts[i])
      {
        g_autofree char *h = pseudonym_message_id (p->key, parts[i]);
        g_string_append_printf (out, "%s%s", out->len ? " " : "", h);
      }
  return g_string_free (out, FALSE);
}

/* Fields that hold nothing a person wrote or is named by: numbers,
 * dates, codes, the archive's file and the groups.  Every other text
 * field of a pseudonymised export is redacted, so that a field added
 * later is redacted until it is known to be safe. */
static gboolean
field_is_impersonal (const char *name)
{
  static const char *const impersonal[] = {
    "id", "file", "file_sha256", "byte_offset", "byte_length", "line_no", "date", "newsgroups",
    "thread_id", "parent_id", "duplicate_of", "charset", "flags", "quoted_lines", "own_lines",
    "attachment_count", "lang", "lang_reliable", "words", "sentences", "code_lines",
    "nonletter_share", "digit_share", "upper_share", "oov_share", "near_duplicate_of", NULL
  };

  return g_strv_contains (impersonal, name);
}

/* The row with its author as a pseudonym, Message-IDs hashed, and
 * addresses and telephone numbers in every other text redacted
 * (--pseudonymise).  The new texts go in @owned. */
static void
pseudonymise_row (DejaPseudonyms *p, StoreValue *v, guint n, GPtrArray *owned)
{
  const char *address = row_get (v, n, "from_addr"), *author = row_get (v, n, "author_id");
  char *who = address ? deja_pseudonym (p, address) : deja_pseudonym_of_author (p, author);

  g_ptr_array_add (owned, who);
  for (guint i = 0; i < n; i++)
    {
      const char *name = v[i].name;
      char *text = NULL;

      if (v[i].text == NULL || field_is_impersonal (name))
        continue;
      if (strcmp (name, "from_addr") == 0 || strcmp (name, "from_name") == 0 || strcmp (name, "author_id") == 0)
        {
          v[i].text = who ? who : "[name]";
          v[i].number = FALSE;
          continue;
        }
      if (strcmp (name, "author") == 0)   /* the author's primary address */
        text = deja_pseudonym (p, v[i].text);
      else if (strcmp (name, "message_id") == 0 || strcmp (name, "in_reply_to") == 0 ||
               strcmp (name, "references") == 0)
        text = pseudonymise_ids (p, v[i].text);
      else
        text = redact_text (v[i].text, &p->redacted);
      g_ptr_array_add (owned, text);
      v[i].text = text;
      v[i].number = FALSE;
    }
}

static gboolean
write_row (const StoreValue *stored, guint n, gpointer user_data)
{
  Writer *w = user_data;
  g_autofree StoreValue *v = g_memdup2 (stored, n * sizeof *stored);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);

  if (w->pseudonyms)
    pseudonymise_row (w->pseudonyms, v, n, owned);
  if (w->hidden_author)
    n--;

  g_string_truncate (w->line, 0);
  if (w->rows)
    {
      row_writer_add (w->rows, v, n);
      w->rows_written++;
      return !(w->failed = ferror (w->stream) != 0);
    }
  if (w->csv)
    csv_row (w, v, n, FALSE);
  else
    {
      output_json_object (w->line, v, n);
      g_string_append_c (w->line, '\n');
    }
  w->failed = fwrite (w->line->str, 1, w->line->len, w->stream) != w->line->len;
  w->rows_written++;
  return !w->failed;
}

/* The --fields list, checked; NULL after a usage error (status set). */
static GStrv
parse_fields (GOptionContext *context, const char *spec, int *status)
{
  g_auto (GStrv) fields = NULL;
  const char *const *known = store_export_fields ();

  if (spec == NULL)
    return g_strdupv ((GStrv) store_export_default_fields ());
  fields = g_strsplit (spec, ",", -1);
  for (char **f = fields; *f; f++)
    {
      g_strstrip (*f);
      if (!g_strv_contains (known, *f))
        {
          g_autofree char *all = g_strjoinv (", ", (GStrv) known);
          *status = deja_usage_error (context, "unknown field '%s' (fields: %s)", *f, all);
          return NULL;
        }
    }
  if (fields[0] == NULL)
    {
      *status = deja_usage_error (context, "--fields is empty");
      return NULL;
    }
  return g_steal_pointer (&fields);
}

static gboolean
count_row (const StoreValue *v, guint n, gpointer count)
{
  (*(gint64 *) count)++;
  return TRUE;
}

/* How many messages the filter selects that --include-no-archive would add. */
static gint64
count_no_archive (Store *store, const StoreFilter *filter)
{
  StoreFilter only = *filter;
  const char *const id[] = { "id", NULL };
  gint64 count = 0;

  only.no_archive = STORE_NO_ARCHIVE_ONLY;
  only.limit = 0;
  return store_export (store, &only, id, count_row, &count, NULL) ? count : -1;
}

static int
run_export (Store *store, const StoreFilter *filter, GStrv fields, gboolean hidden_author,
            const char *format, const char *out, DejaPseudonyms *pseudonyms, DejaStatement *statement,
            const char *statement_path)
{
  g_autoptr (GError) error = NULL;
  Output *output = output_open (out, &error);
  gboolean csv = format == NULL || strcmp (format, "csv") == 0;
  Writer w = { csv, NULL, NULL, g_string_new (NULL), 0, FALSE, pseudonyms, hidden_author };
  guint n_fields = g_strv_length (fields) - (hidden_author ? 1 : 0);
  gboolean ok;

  if (output == NULL)
    {
      deja_error ("%s", error->message);
      g_string_free (w.line, TRUE);
      return DEJA_EXIT_FAILED;
    }
  w.stream = output_stream (output);
  if (format && (strcmp (format, "tsv") == 0 || strcmp (format, "json") == 0))
    w.rows = row_writer_new (strcmp (format, "tsv") == 0 ? ROW_FORMAT_TSV : ROW_FORMAT_JSON, w.stream);
  if (csv)
    {
      /* The header names every field, even when no row follows. */
      guint n = n_fields;
      g_autofree StoreValue *names = g_new0 (StoreValue, n);
      for (guint i = 0; i < n; i++)
        names[i].name = fields[i];
      csv_row (&w, names, n, TRUE);
      fwrite (w.line->str, 1, w.line->len, w.stream);
    }
  ok = store_export (store, filter, (const char *const *) fields, write_row, &w, &error);
  g_string_free (w.line, TRUE);
  if (w.rows)
    row_writer_finish (w.rows);
  if (!ok)
    {
      deja_error ("%s", error->message);
      output_close (output, FALSE, NULL);
      return g_error_matches (error, STORE_ERROR, STORE_ERROR_QUERY) ? DEJA_EXIT_USAGE
                                                                     : DEJA_EXIT_FAILED;
    }
  if (!output_close (output, !w.failed, &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("exported %" G_GUINT64_FORMAT " messages", w.rows_written);
  if (pseudonyms)
    deja_note ("pseudonymised; redacted %" G_GUINT64_FORMAT " addresses and %" G_GUINT64_FORMAT
               " telephone numbers in the text", pseudonyms->redacted.addresses, pseudonyms->redacted.phones);
  if (statement_path)
    {
      g_autofree char *counts = g_strdup_printf ("%" G_GUINT64_FORMAT " messages, one %s record each",
                                                 w.rows_written, format ? format : "csv");

      statement->counts = counts;
      statement->no_archive_left_out = filter->no_archive == STORE_NO_ARCHIVE_SKIP ? count_no_archive (store, filter) : -1;
      if (!deja_write_statement (statement_path, store, statement))
        return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}

int
cmd_export (DejaRun *run, int argc, char **argv)
{
  g_autofree char *db = NULL, *format = NULL, *fields_spec = NULL;
  g_autofree char *match = NULL, *out = NULL, *key = NULL, *statement_path = NULL;
  g_autofree char *command = deja_command_line (argv);
  g_auto (GStrv) fields = NULL;
  g_auto (DejaPseudonyms) pseudonyms = { 0 };
  gint64 limit = 0;
  gboolean duplicates = FALSE, include_no_archive = FALSE, hidden_author;
  int status = 0;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "output format (default: csv)", "csv|tsv|json|jsonl" },
    { "fields", 0, 0, G_OPTION_ARG_STRING, &fields_spec, "comma-separated fields (see below)", "F,F,..." },
    { "match", 'm', 0, G_OPTION_ARG_STRING, &match, "only messages matching this full-text query", "QUERY" },
    { "limit", 'n', 0, G_OPTION_ARG_INT64, &limit, "at most N messages (default: all)", "N" },
    { "duplicates", 0, 0, G_OPTION_ARG_NONE, &duplicates,
      "also every duplicate copy of a message (another file's copy of a cross-post, a list"
      " archive's second copy), with the field duplicate_of", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write to FILE (default: standard output)", "FILE" },
    { "pseudonymise", 0, 0, G_OPTION_ARG_FILENAME, &key,
      "authors as keyed pseudonyms, Message-IDs hashed, addresses and telephone numbers in the"
      " text redacted (deja keygen makes a key)", "KEYFILE" },
    { "include-no-archive", 0, 0, G_OPTION_ARG_NONE, &include_no_archive,
      "also posts whose authors asked not to be archived (X-No-Archive: yes)", NULL },
    { "statement", 0, 0, G_OPTION_ARG_FILENAME, &statement_path,
      "write a data statement (Markdown) describing the export", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— export messages as CSV, TSV, JSON or JSON Lines");
  g_autoptr (Store) store = NULL;
  g_autofree char *all = g_strjoinv (", ", (GStrv) store_export_fields ());
  g_autofree char *defaults = g_strjoinv (",", (GStrv) store_export_default_fields ());
  g_autofree char *description = g_strdup_printf (
    "Writes one record per distinct message, in archive order (a message present in several\n"
    "files or twice in one is written once, as its canonical copy; --duplicates writes every\n"
    "copy).  --match takes what 'deja search' takes (words, phrases, from:, group:, since:,\n"
    "until:).  CSV follows RFC 4180 (a header row,\n"
    "CRLF line ends, fields quoted when needed; NULL is an empty field); TSV has a header\n"
    "row and escapes tab, newline and backslash as \\t, \\n, \\\\; JSON is one array of\n"
    "objects, as every deja command writes it, and JSON Lines one object per line (NULL as\n"
    "null, numbers as numbers).  --out writes the file under a\n"
    "temporary name and renames it when complete.  Posts marked X-No-Archive: yes are left\n"
    "out unless --include-no-archive.  See docs/people.md for --pseudonymise.\n\n"
    "Fields: %s.\nDefault: %s.", all, defaults);
  StoreFilter filter;
  SearchQuery parsed = { 0 };
  g_auto (DejaFilter) options = { 0 };
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  deja_filter_add_options (context, &options);
  g_option_context_set_description (context, description);
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (format && strcmp (format, "csv") && strcmp (format, "jsonl") && strcmp (format, "tsv") &&
      strcmp (format, "json"))
    return deja_usage_error (context, "--format must be csv, tsv, json or jsonl");
  if (limit < 0)
    return deja_usage_error (context, "--limit must be 0 or more");
  if ((fields = parse_fields (context, fields_spec, &status)) == NULL)
    return status;
  if (match != NULL && !search_query_parse (match, &parsed, &error))
    return deja_usage_error (context, "--match: %s", error->message);
  if ((status = deja_filter_finish (context, &options, &parsed, &filter)) != 0 ||
      (store = deja_open_store_to_read (db)) == NULL)
    {
      search_query_clear (&parsed);
      return status ? status : DEJA_EXIT_FAILED;
    }
  if (duplicates && !g_strv_contains ((const char *const *) fields, "duplicate_of"))
    {
      /* Copies are told apart from the message they copy. */
      guint n = g_strv_length (fields);

      fields = g_renew (char *, fields, n + 2);
      fields[n] = g_strdup ("duplicate_of");
      fields[n + 1] = NULL;
    }
  filter.match = parsed.match;
  filter.limit = limit;
  filter.canonical_only = !duplicates;
  filter.no_archive = include_no_archive ? STORE_NO_ARCHIVE_INCLUDE : STORE_NO_ARCHIVE_SKIP;
  /* A pseudonymised from_name needs its author even when neither from_addr
   * nor author_id is asked for: author_id is read, and not written. */
  hidden_author = key && g_strv_contains ((const char *const *) fields, "from_name") &&
                  !g_strv_contains ((const char *const *) fields, "from_addr") &&
                  !g_strv_contains ((const char *const *) fields, "author_id");
  if (hidden_author)
    {
      guint n = g_strv_length (fields);

      fields = g_renew (char *, fields, n + 2);
      fields[n] = g_strdup ("author_id");
      fields[n + 1] = NULL;
    }
  if (key && !deja_pseudonyms_open (&pseudonyms, key, store))
    {
      search_query_clear (&parsed);
      return DEJA_EXIT_FAILED;
    }
  {
    g_autofree char *what = g_strdup_printf ("Messages (%s)", format ? format : "csv");
    DejaStatement statement = { command, db, what, out, NULL, key ? &pseudonyms : NULL, key != NULL, -1 };

    status = run_export (store, &filter, fields, hidden_author, format, out, key ? &pseudonyms : NULL,
                         &statement, statement_path);
  }
  search_query_clear (&parsed);
  return status;
}
