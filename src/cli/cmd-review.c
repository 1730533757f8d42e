/* cmd-review.c — deja review: people decide where the splitter judged.
 *
 *   deja review --db DB                 one line at a time, in a terminal
 *   deja review --db DB --export FILE   the lines and decisions, as TSV
 *   deja review --db DB --import FILE   decisions back from TSV
 *
 * Decisions are stored by file content (SHA-256) and line number, and
 * applied by every later ingest of that content; files whose decisions
 * changed are read again at once (each in one transaction) and threads
 * recomputed.
 */
#include "authors.h"
#include "deja.h"
#include "ingest.h"
#include "excerpt.h"
#include "output.h"
#include "threads.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_CONTEXT 3

typedef struct {
  Store *store;
  int context;
  GHashTable *changed;     /* sha256s whose decisions changed */
  guint64 decided, seen;
  GError *error;
} Review;

static gboolean
record (Review *r, const char *sha256, gint64 line_no, StoreDecision d, const char *note)
{
  gboolean changed;

  if (!store_set_decision (r->store, sha256, line_no, d, note, &changed, &r->error))
    return FALSE;
  if (changed)
    g_hash_table_add (r->changed, g_strdup (sha256));
  r->decided += d != STORE_DECISION_NONE;
  return TRUE;
}

/* Reads one answer; FALSE at the end of input. */
static gboolean
ask (char *answer, gsize size)
{
  fputs ("  split here? [y]es, [n]o, [s]kip, [q]uit: ", stdout);
  fflush (stdout);
  if (fgets (answer, (int) size, stdin) == NULL)
    return FALSE;
  g_strstrip (answer);
  return TRUE;
}

/* A line to review, kept: the rows are read first (the table must not
 * change under a running query). */
typedef struct {
  char *file_sha256, *path, *verdict, *reason;
  gint64 line_no, byte_offset;
} Pending;

static void
pending_free (Pending *p)
{
  g_free (p->file_sha256);
  g_free (p->path);
  g_free (p->verdict);
  g_free (p->reason);
  g_free (p);
}

static gboolean
collect_row (const StoreReviewRow *row, gpointer data)
{
  Pending *p = g_new0 (Pending, 1);

  p->file_sha256 = g_strdup (row->file_sha256);
  p->path = g_strdup (row->path);
  p->verdict = g_strdup (row->verdict);
  p->reason = g_strdup (row->reason);
  p->line_no = row->line_no;
  p->byte_offset = row->byte_offset;
  g_ptr_array_add (data, p);
  return TRUE;
}

/* Asks about one line; FALSE to stop. */
static gboolean
review_one (Review *r, const Pending *p)
{
  char answer[64];

  r->seen++;
  deja_print ("\n%s:%" G_GINT64_FORMAT ": %s (%s)\n", p->path, p->line_no, p->verdict, p->reason);
  excerpt_print (stdout, p->path, p->byte_offset, p->line_no, r->context);
  for (;;)
    {
      if (!ask (answer, sizeof answer) || answer[0] == 'q')
        return FALSE;
      if (answer[0] == 'y')
        return record (r, p->file_sha256, p->line_no, STORE_DECISION_SPLIT, NULL);
      if (answer[0] == 'n')
        return record (r, p->file_sha256, p->line_no, STORE_DECISION_NO_SPLIT, NULL);
      if (answer[0] == 's' || answer[0] == '\0')
        return TRUE;
    }
}

/* Each decision is stored as it is made: quitting keeps them. */
static gboolean
review_interactively (Review *r, gboolean all)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);

  if (!store_review_rows (r->store, all, TRUE, collect_row, rows, &r->error))
    return FALSE;
  deja_print ("%u lines to review\n", rows->len);
  for (guint i = 0; i < rows->len; i++)
    if (!review_one (r, rows->pdata[i]))
      break;
  putchar ('\n');
  return r->error == NULL;
}

static gboolean
export_row (const StoreReviewRow *row, gpointer data)
{
  GString *out = data;
  g_autofree char *line_no = g_strdup_printf ("%" G_GINT64_FORMAT, row->line_no);
  const char *fields[] = { row->file_sha256, row->path, line_no, row->verdict, row->reason,
                           row->line_text, row->decision, row->note };

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      output_tsv_field (out, fields[i]);
      g_string_append_c (out, i + 1 < G_N_ELEMENTS (fields) ? '\t' : '\n');
    }
  return TRUE;
}

static int
export_decisions (Store *store, const char *path, gboolean all)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new ("file_sha256\tpath\tline_no\tverdict\treason\tline_text\tdecision\tnote\n");
  Output *o;
  gboolean ok;

  if (!store_review_rows (store, all, FALSE, export_row, out, &error) ||
      (o = output_open (path, &error)) == NULL)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  ok = fwrite (out->str, 1, out->len, output_stream (o)) == out->len;
  if (!output_close (o, ok, &error) || !ok)
    {
      deja_error ("%s", error ? error->message : "cannot write");
      return DEJA_EXIT_FAILED;
    }
  deja_note ("wrote the lines to review to '%s': fill in 'decision' (split, no-split or empty)"
             " and 'note', then deja review --import", path);
  return DEJA_EXIT_OK;
}

/* TSV with a header row naming at least file_sha256, line_no, decision. */
static gboolean
import_decisions (Review *r, const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL, head = NULL;
  int c_sha = -1, c_line = -1, c_dec = -1, c_note = -1;

  if (!g_file_get_contents (path, &text, NULL, &r->error))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  head = output_tsv_fields (lines[0] ? lines[0] : (char *) "");
  c_sha = output_tsv_column (head, "file_sha256");
  c_line = output_tsv_column (head, "line_no");
  c_dec = output_tsv_column (head, "decision");
  c_note = output_tsv_column (head, "note");
  if (c_sha < 0 || c_line < 0 || c_dec < 0)
    {
      g_set_error (&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "'%s' has no header row with file_sha256, line_no and decision", path);
      return FALSE;
    }
  for (int k = 1; lines[k]; k++)
    {
      g_auto (GStrv) f = output_tsv_fields (lines[k]);
      guint nf = g_strv_length (f);
      StoreDecision d;

      if (nf == 0 || (nf == 1 && *f[0] == '\0'))
        continue;
      if ((guint) MAX (c_sha, MAX (c_line, c_dec)) >= nf ||
          !store_parse_decision (g_strstrip (f[c_dec]), &d))
        {
          g_set_error (&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "'%s', line %d: a decision is 'split', 'no-split' or empty", path, k + 1);
          return FALSE;
        }
      if (!record (r, f[c_sha], g_ascii_strtoll (f[c_line], NULL, 10), d,
                   c_note >= 0 && (guint) c_note < nf ? output_tsv_unescape (f[c_note]) : NULL))
        return FALSE;
    }
  return TRUE;
}

/* Reads again every file whose decisions changed, then rethreads. */
static gboolean
apply (Review *r, const char *db)
{
  GHashTableIter iter;
  gpointer sha;
  guint files = 0, failures = 0;
  IngestOptions options = { .reingest = TRUE };
  g_autoptr (IngestSession) session = ingest_session_new (r->store, &options);

  g_hash_table_iter_init (&iter, r->changed);
  while (g_hash_table_iter_next (&iter, &sha, NULL))
    {
      g_autoptr (GPtrArray) paths = NULL;
      g_autoptr (GError) read_error = NULL;

      if (!store_paths_for_sha256 (r->store, sha, &paths, &read_error))
        {
          deja_error ("cannot read '%s': %s", db, read_error->message);
          failures++;
          continue;
        }
      for (guint i = 0; i < paths->len; i++)
        {
          g_autoptr (GError) error = NULL;
          IngestResult result;
          g_autofree char *counts = NULL;

          if (!ingest_file (session, paths->pdata[i], &result, &error))
            {
              deja_error ("cannot read '%s' again: %s", (char *) paths->pdata[i], error->message);
              failures++;
              continue;
            }
          counts = split_counts_describe (&result.counts);
          deja_note ("read '%s' again: %s", (char *) paths->pdata[i], counts);
          ingest_result_clear (&result);
          files++;
        }
    }
  if (!store_commit (r->store, &r->error))
    return FALSE;
  if (files > 0)
    {
      ThreadCounts tc;
      if (!threads_rebuild_as_before (r->store, &tc, &r->error) ||
          !authors_update (r->store, FALSE, NULL, &r->error))
        return FALSE;
    }
  deja_note ("%" G_GUINT64_FORMAT " decisions; %u files read again", r->decided, files);
  return failures == 0;
}

int
cmd_review (DejaRun *run, int argc, char **argv)
{
  g_autofree char *export_path = NULL, *import_path = NULL;
  gboolean all = FALSE;
  int status, context = DEFAULT_CONTEXT;
  GOptionEntry entries[] = {
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &export_path, "write the lines to review and the decisions as TSV", "FILE" },
    { "import", 0, 0, G_OPTION_ARG_FILENAME, &import_path, "read decisions from TSV (as --export writes it)", "FILE" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all, "also prose lines a liberal parser would split on", NULL },
    { "context", 'C', 0, G_OPTION_ARG_INT, &context, "lines of context around each line (default 3)", "N" },
    { NULL }
  };
  Store *store = NULL;
  Review r = { 0 };
  gboolean ok;

  if (!deja_run_parse (run, "— decide where the splitter had to judge", entries,
    "Without --export or --import, shows each undecided line (separators accepted against\n"
    "part of the evidence, envelope-shaped lines rejected; with --all, prose too) with its\n"
    "context and asks: y = a message starts here, n = body text, s = skip, q = quit.\n"
    "Decisions are kept by file content and line, applied by every later ingest, and the\n"
    "files concerned are read again now.  TSV columns: file_sha256, path, line_no, verdict,\n"
    "reason, line_text, decision (split, no-split or empty), note.",
    &argc, &argv, &status))
    return status;
  if (export_path && import_path)
    return deja_usage_error (run->context, "--export and --import go in separate runs");
  if (context < 0)
    return deja_usage_error (run->context, "--context must be 0 or more");
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if (export_path)
    return export_decisions (store, export_path, all);

  r = (Review) { store, context, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), 0, 0,
                 NULL };
  if (import_path)
    {
      /* An import is all or nothing. */
      ok = store_begin (store, &r.error) && import_decisions (&r, import_path) &&
           store_commit (store, &r.error);
      if (!ok)
        store_rollback (store);
    }
  else
    ok = review_interactively (&r, all);
  if (ok && !import_path && r.seen == 0)
    deja_note ("nothing to review");
  if (ok)
    ok = apply (&r, run->db);
  g_hash_table_unref (r.changed);
  if (!ok)
    {
      deja_error ("%s", r.error ? r.error->message : "some files could not be read again");
      g_clear_error (&r.error);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}
