/* cmd-authors.c — deja authors: people, not addresses.
 *
 *   deja authors --db DB                      authors with their statistics
 *   deja authors --db DB --addresses          every address and its author
 *   deja authors --db DB --suggest            possible merges, with evidence
 *   deja authors --db DB --review             decide them one by one
 *   deja authors --db DB --merge A B...       decide directly (--split A, --never A B)
 *   deja authors --db DB --export FILE        suggestions and decisions, as TSV
 *   deja authors --db DB --import FILE        decisions back from TSV
 *
 * Decisions are kept by address (author_decisions) and applied by every
 * later ingest; authors are brought up to date at once.  docs/people.md.
 */
#include "authors.h"
#include "deja.h"
#include "output.h"
#include "roles.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_MIN_SCORE 3

typedef struct {
  char *db, *format, *export_path, *import_path, *split, *note;
  char **merge, **never;
  gboolean addresses, suggest, review, decisions, roles;
  gint64 min_messages;
  int min_score;
} Args;

static void
args_clear (Args *a)
{
  g_free (a->db), g_free (a->format), g_free (a->export_path), g_free (a->import_path);
  g_free (a->split), g_free (a->note);
  g_strfreev (a->merge), g_strfreev (a->never);
}

/* ---- listing ---- */

static int
list (Store *store, StoreAuthors what, const Args *a, RowFormat format)
{
  g_autoptr (GError) error = NULL;
  RowWriter *writer = row_writer_new (format, stdout);
  gboolean ok;

  ok = store_authors (store, what, a->min_messages, row_writer_add_func, writer, &error);
  row_writer_finish (writer);
  if (!ok)
    {
      deja_error ("cannot read the authors of '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}

/* --roles: each author's row, and its structural signature (roles.c). */
typedef struct {
  RowWriter *writer;
  const Roles *roles;
} RoleRows;

static gint64
number (const StoreValue *v, guint n, const char *name)
{
  const char *text = row_get (v, n, name);

  return text ? g_ascii_strtoll (text, NULL, 10) : 0;
}

static gboolean
role_row (const StoreValue *v, guint n, gpointer data)
{
  RoleRows *r = data;
  gint64 messages = number (v, n, "messages");
  const RoleFacts *f = roles_facts (r->roles, number (v, n, "author_id"));
  char buffer[5][G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree StoreValue *all = g_new (StoreValue, n + 6);

  memcpy (all, v, n * sizeof *v);
  g_snprintf (buffer[0], sizeof buffer[0], "%" G_GINT64_FORMAT, f->replies_to_others);
  g_snprintf (buffer[1], sizeof buffer[1], "%" G_GINT64_FORMAT, f->ties);
  g_ascii_formatd (buffer[2], sizeof buffer[2], "%.4f", f->low_degree_tie_share);
  g_ascii_formatd (buffer[3], sizeof buffer[3], "%.4f",
                   messages ? (double) number (v, n, "replies_received") / (double) messages : 0);
  g_snprintf (buffer[4], sizeof buffer[4], "%" G_GINT64_FORMAT, f->threads_initiated);
  all[n] = (StoreValue) { .name = "replies_to_others", .text = buffer[0], .number = TRUE };
  all[n + 1] = (StoreValue) { .name = "ties", .text = buffer[1], .number = TRUE };
  all[n + 2] = (StoreValue) { .name = "low_degree_tie_share",
                              .text = f->low_degree_tie_share < 0 ? NULL : buffer[2], .number = TRUE };
  all[n + 3] = (StoreValue) { .name = "replies_received_per_message", .text = messages ? buffer[3] : NULL,
                              .number = TRUE };
  all[n + 4] = (StoreValue) { .name = "threads_initiated", .text = buffer[4], .number = TRUE };
  all[n + 5] = (StoreValue) { .name = "role", .number = FALSE,
                              .text = roles_label (messages, number (v, n, "replies_received"), f) };
  row_writer_add (r->writer, all, n + 6);
  return TRUE;
}

static int
list_roles (Store *store, const Args *a, RowFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Roles) roles = NULL;
  RoleRows rows = { 0 };
  gboolean ok;

  /* the replies and the list read one copy of messages' columns */
  store_author_rows_hold (store);
  rows.roles = roles = roles_load (store, &error);
  if (roles == NULL)
    {
      store_author_rows_let_go (store);
      deja_error ("cannot read the replies of '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  rows.writer = row_writer_new (format, stdout);
  ok = store_authors (store, STORE_AUTHORS_LIST, a->min_messages, role_row, &rows, &error);
  store_author_rows_let_go (store);
  row_writer_finish (rows.writer);
  if (!ok)
    {
      deja_error ("cannot read the authors of '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}

static int
suggest (Store *store, const Args *a, RowFormat format)
{
  g_autoptr (GError) error = NULL;
  RowWriter *writer = row_writer_new (format, stdout);
  gboolean ok = authors_suggest (store, a->min_score, row_writer_add_func, writer, &error);
  guint64 rows = row_writer_rows (writer);

  row_writer_finish (writer);
  if (!ok)
    {
      deja_error ("cannot suggest for '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GUINT64_FORMAT " suggestions with score %d or more", rows, a->min_score);
  return DEJA_EXIT_OK;
}

/* ---- decisions ---- */

/* Applies decisions now: authors are recomputed in the same transaction. */
static gboolean
bring_up_to_date (Store *store, GError **error)
{
  AuthorCounts counts;

  if (!authors_update (store, TRUE, &counts, error))
    return FALSE;
  deja_note ("authors: %" G_GINT64_FORMAT " from %" G_GINT64_FORMAT " addresses", counts.authors,
             counts.addresses);
  return TRUE;
}

/* Decisions made in a catalog are its own, not its shards': says how
 * the next catalog of them keeps them. */
static void
catalog_note (Store *store, const char *db)
{
  if (store_is_catalog (store))
    deja_note ("the decisions are kept in the catalog '%s', not in its shards: make the next catalog"
               " with 'deja catalog --decisions %s' to keep them", db, db);
}

/* An author id ("a12", "12") or an address, as an address of the database. */
static char *
address_of (Store *store, const char *ref, GError **error)
{
  char *address = NULL;

  if (!store_author_address (store, ref, &address, error))
    return NULL;
  if (address == NULL)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no author or address '%s' in the database", ref);
  return address;
}

static gboolean
decide (Store *store, const char *decision, const char *ref, const char *other_ref, const char *note,
        GError **error)
{
  g_autofree char *address = address_of (store, ref, error);
  g_autofree char *other = NULL;

  if (address == NULL)
    return FALSE;
  if (other_ref && (other = address_of (store, other_ref, error)) == NULL)
    return FALSE;
  if (other && strcmp (address, other) == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "'%s' and '%s' are the same address",
                   ref, other_ref);
      return FALSE;
    }
  return store_set_author_decision (store, decision, address, other, note, error);
}

/* --merge A B C: B and C with A; --never A B: the pair. */
static gboolean
decide_from_args (Store *store, const Args *a, GError **error)
{
  if (a->split && !decide (store, "split", a->split, NULL, a->note, error))
    return FALSE;
  for (guint i = 1; a->merge && a->merge[i]; i++)
    if (!decide (store, "merge", a->merge[0], a->merge[i], a->note, error))
      return FALSE;
  for (guint i = 1; a->never && a->never[i]; i++)
    if (!decide (store, "never", a->never[0], a->never[i], a->note, error))
      return FALSE;
  return TRUE;
}

/* ---- review in a terminal ---- */

typedef struct {
  char *a, *b;               /* primary addresses */
  char *text;                /* what is shown */
} Pending;

static void
pending_free (Pending *p)
{
  g_free (p->a);
  g_free (p->b);
  g_free (p->text);
  g_free (p);
}

static gboolean
collect (const RowValue *v, guint n, gpointer data)
{
  Pending *p = g_new0 (Pending, 1);

  p->a = g_strdup (row_get (v, n, "address_a"));
  p->b = g_strdup (row_get (v, n, "address_b"));
  p->text = g_strdup_printf ("score %s: %s\n"
                             "  a%s  %s  (%s messages)\n      %s\n"
                             "  a%s  %s  (%s messages)\n      %s\n",
                             row_get (v, n, "score"), row_get (v, n, "evidence"),
                             row_get (v, n, "author_a"), row_get (v, n, "name_a"),
                             row_get (v, n, "messages_a"), row_get (v, n, "addresses_a"),
                             row_get (v, n, "author_b"), row_get (v, n, "name_b"),
                             row_get (v, n, "messages_b"), row_get (v, n, "addresses_b"));
  g_ptr_array_add (data, p);
  return TRUE;
}

/* The addresses merged in this review so far: a suggestion whose two
 * authors are already one (Moshe under 11 addresses gives 55 pairs) is
 * not asked again. */
static const char *
joined_to (GHashTable *merged, const char *address)
{
  const char *next;

  while ((next = g_hash_table_lookup (merged, address)) != NULL)
    address = next;
  return address;
}

static int
review (Store *store, const Args *a)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
  g_autoptr (GHashTable) merged = g_hash_table_new (g_str_hash, g_str_equal);
  guint decided = 0;

  if (!authors_suggest (store, a->min_score, collect, rows, &error))
    {
      deja_error ("cannot suggest for '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_print ("%u suggestions to review\n", rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      Pending *p = rows->pdata[i];
      char answer[64];
      const char *decision = NULL;

      if (strcmp (joined_to (merged, p->a), joined_to (merged, p->b)) == 0)
        continue;
      deja_print ("\n[%u/%u] %s", i + 1, rows->len, p->text);
      for (;;)
        {
          fputs ("  one person? [y]es (merge), [n]ever, [s]kip, [q]uit: ", stdout);
          fflush (stdout);
          if (fgets (answer, sizeof answer, stdin) == NULL || g_strstrip (answer)[0] == 'q')
            goto done;
          if (answer[0] == 'y' || answer[0] == 'n' || answer[0] == 's' || answer[0] == '\0')
            break;
        }
      decision = answer[0] == 'y' ? "merge" : answer[0] == 'n' ? "never" : NULL;
      /* Each decision is kept as it is made: quitting keeps them.  An
       * earlier merge may have joined b to a already; the decision holds. */
      if (decision && !store_set_author_decision (store, decision, p->a, p->b, NULL, &error))
        break;
      if (answer[0] == 'y')
        g_hash_table_insert (merged, (gpointer) joined_to (merged, p->b), (gpointer) joined_to (merged, p->a));
      decided += decision != NULL;
    }
done:
  putchar ('\n');
  if (error == NULL && decided > 0)
    bring_up_to_date (store, &error);
  if (error)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%u decisions", decided);
  if (decided > 0)
    catalog_note (store, a->db);
  return DEJA_EXIT_OK;
}

/* ---- TSV for a team ---- */

static const char *const tsv_columns[] = {
  "decision", "address_a", "address_b", "note", "score", "evidence", "author_a", "name_a",
  "messages_a", "addresses_a", "author_b", "name_b", "messages_b", "addresses_b",
};

static void
tsv_row (GString *out, const char *const *fields)
{
  for (gsize i = 0; i < G_N_ELEMENTS (tsv_columns); i++)
    {
      output_tsv_field (out, fields[i]);
      g_string_append_c (out, i + 1 < G_N_ELEMENTS (tsv_columns) ? '\t' : '\n');
    }
}

static gboolean
export_decision (const RowValue *v, guint n, gpointer data)
{
  const char *f[G_N_ELEMENTS (tsv_columns)] = { row_get (v, n, "decision"), row_get (v, n, "address"),
                                                row_get (v, n, "other"), row_get (v, n, "note") };
  tsv_row (data, f);
  return TRUE;
}

static gboolean
export_suggestion (const RowValue *v, guint n, gpointer data)
{
  const char *f[G_N_ELEMENTS (tsv_columns)] = { NULL };

  for (gsize i = 1; i < G_N_ELEMENTS (tsv_columns); i++)
    f[i] = row_get (v, n, tsv_columns[i]);
  tsv_row (data, f);
  return TRUE;
}

static int
export_tsv (Store *store, const Args *a)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new (NULL);

  tsv_row (out, tsv_columns);
  if (!store_authors (store, STORE_AUTHORS_DECISIONS, 0, export_decision, out, &error) ||
      !authors_suggest (store, a->min_score, export_suggestion, out, &error))
    {
      deja_error ("cannot read the authors of '%s': %s", a->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  if (deja_write_file (a->export_path, out->str, out->len) != DEJA_EXIT_OK)
    return DEJA_EXIT_FAILED;
  deja_note ("wrote decisions and suggestions to '%s': fill in 'decision' (merge, never, split"
             " or empty) and 'note', then deja authors --import", a->export_path);
  return DEJA_EXIT_OK;
}

/* TSV with a header naming at least decision and address_a (and
 * address_b for merge and never). */
static gboolean
import_tsv (Store *store, const char *path, guint *decided, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL, head = NULL;
  int c_dec = -1, c_a = -1, c_b = -1, c_note = -1;

  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  head = output_tsv_fields (lines[0] ? lines[0] : (char *) "");
  c_dec = output_tsv_column (head, "decision");
  c_a = output_tsv_column (head, "address_a");
  c_b = output_tsv_column (head, "address_b");
  c_note = output_tsv_column (head, "note");
  if (c_dec < 0 || c_a < 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "'%s' has no header row with decision and address_a", path);
      return FALSE;
    }
  for (int k = 1; lines[k]; k++)
    {
      g_auto (GStrv) f = output_tsv_fields (lines[k]);
      gint nf = (gint) g_strv_length (f);
      const char *d = c_dec < nf ? g_strstrip (f[c_dec]) : "";
      const char *b = c_b >= 0 && c_b < nf && *f[c_b] ? f[c_b] : NULL;
      const char *note = c_note >= 0 && c_note < nf ? output_tsv_unescape (f[c_note]) : NULL;
      g_autoptr (GError) local = NULL;

      if (nf == 0 || (nf == 1 && *f[0] == '\0') || *d == '\0')
        continue;
      if ((strcmp (d, "merge") != 0 && strcmp (d, "never") != 0 && strcmp (d, "split") != 0) ||
          c_a >= nf || *f[c_a] == '\0' || (strcmp (d, "split") != 0 && b == NULL))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       "'%s', line %d: a decision is merge, never (two addresses), split (address_a)"
                       " or empty", path, k + 1);
          return FALSE;
        }
      if (!decide (store, d, f[c_a], strcmp (d, "split") == 0 ? NULL : b, note, &local))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "'%s', line %d: %s", path, k + 1,
                       local->message);
          return FALSE;
        }
      (*decided)++;
    }
  return TRUE;
}

/* Direct decisions and imports: all or nothing, authors recomputed in the
 * same transaction. */
static int
decide_all (Store *store, const Args *a)
{
  g_autoptr (GError) error = NULL;
  guint decided = 0;
  gboolean ok = store_begin (store, &error) &&
                (a->import_path ? import_tsv (store, a->import_path, &decided, &error)
                                : decide_from_args (store, a, &error)) &&
                bring_up_to_date (store, &error) && store_commit (store, &error);

  if (!ok)
    {
      store_rollback (store);
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (a->import_path)
    deja_note ("%u decisions read from '%s'", decided, a->import_path);
  catalog_note (store, a->db);
  return DEJA_EXIT_OK;
}

static int
check (GOptionContext *context, Args *a, int argc, char **argv, RowFormat *format)
{
  int status, modes;

  if ((status = deja_check_db_args (context, a->db, argc, argv)) != 0)
    return status;
  if (!row_format_parse (a->format, ROW_FORMAT_TABLE, format))
    return deja_usage_error (context, "--format must be " ROW_FORMAT_NAMES);
  modes = a->addresses + a->suggest + a->review + a->decisions + a->roles + (a->export_path != NULL) +
          (a->import_path != NULL) + (a->merge || a->never || a->split);
  if (modes > 1)
    return deja_usage_error (context, "--addresses, --suggest, --review, --decisions, --roles, --export,"
                             " --import and the decisions (--merge, --never, --split) go in separate runs");
  if ((a->merge && g_strv_length (a->merge) < 2) || (a->never && g_strv_length (a->never) < 2))
    return deja_usage_error (context, "--merge and --never take two authors or more: --merge A --merge B");
  if (a->min_messages < 0)
    return deja_usage_error (context, "--min-messages must be 0 or more");
  return 0;
}

int
cmd_authors (DejaRun *run, int argc, char **argv)
{
  Args a = { .min_score = DEFAULT_MIN_SCORE };
  int status;
  RowFormat format;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &a.db, "database file", "DB" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "output format (default: table)", ROW_FORMAT_NAMES },
    { "min-messages", 0, 0, G_OPTION_ARG_INT64, &a.min_messages, "only authors with N distinct messages or more", "N" },
    { "addresses", 0, 0, G_OPTION_ARG_NONE, &a.addresses, "list every address with its author", NULL },
    { "roles", 0, 0, G_OPTION_ARG_NONE, &a.roles, "add each author's structural signature and role (answer person, discussion person, ...)", NULL },
    { "suggest", 0, 0, G_OPTION_ARG_NONE, &a.suggest, "list possible merges with their evidence, strongest first", NULL },
    { "min-score", 0, 0, G_OPTION_ARG_INT, &a.min_score, "suggestions: leave out scores below N (default 3)", "N" },
    { "review", 0, 0, G_OPTION_ARG_NONE, &a.review, "decide the suggestions one by one, in a terminal", NULL },
    { "merge", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.merge, "merge these authors (repeat: --merge A --merge B; an address or an author id)", "AUTHOR" },
    { "never", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.never, "keep these authors apart, even automatically (repeat)", "AUTHOR" },
    { "split", 0, 0, G_OPTION_ARG_STRING, &a.split, "take this address out of its author, and merge it with nothing automatically", "ADDRESS" },
    { "note", 0, 0, G_OPTION_ARG_STRING, &a.note, "a note kept with --merge, --never or --split", "TEXT" },
    { "decisions", 0, 0, G_OPTION_ARG_NONE, &a.decisions, "list the decisions made", NULL },
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &a.export_path, "write decisions and suggestions as TSV, for a team", "FILE" },
    { "import", 0, 0, G_OPTION_ARG_FILENAME, &a.import_path, "read decisions from TSV (as --export writes it)", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— people, not addresses");
  g_autoptr (Store) store = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Without options, one row per author (most messages first): author_id, name, address\n"
    "(the primary one), addresses, messages, threads_started, replies_given,\n"
    "replies_received, first_date, last_date, active_days, newsgroups.  Distinct messages\n"
    "only; replies to oneself are not counted.  Network node ids are 'a' + author_id.\n"
    "\n"
    "Merged automatically (certain): the same address in any case or munged form, Gmail's\n"
    "dots and +tags, Google's masked 'abc...@domain' with the one full address it fits.\n"
    "Everything else is a suggestion: the same name, the same name at one domain, names a\n"
    "typo apart, the same local part, user+tag, the same signature block.  Decisions are\n"
    "kept by address and applied by every later ingest.  TSV columns: decision (merge,\n"
    "never, split or empty), address_a, address_b, note, then the evidence.  See\n"
    "docs/people.md.");
  if (!deja_parse_options (context, &argc, &argv, &status) ||
      (status = check (context, &a, argc, argv, &format)) != 0)
    {
      args_clear (&a);
      return status;
    }
  /* (a catalog's decisions are its own: its shards are not changed) */
  if (a.merge || a.never || a.split || a.import_path || a.review)
    store = deja_open_existing_store_or_catalog (a.db);
  else
    store = deja_open_store_to_read (a.db);
  if (store == NULL)
    status = DEJA_EXIT_FAILED;
  else if (a.merge || a.never || a.split || a.import_path)
    status = decide_all (store, &a);
  else if (a.review)
    status = review (store, &a);
  else if (a.export_path)
    status = export_tsv (store, &a);
  else if (a.suggest)
    status = suggest (store, &a, format);
  else if (a.roles)
    status = list_roles (store, &a, format);
  else
    status = list (store, a.addresses ? STORE_AUTHORS_ADDRESSES
                          : a.decisions ? STORE_AUTHORS_DECISIONS : STORE_AUTHORS_LIST, &a, format);
  args_clear (&a);
  return status;
}
