/* cmd-export-pg.c — deja export-pg --db DB: a psql script that loads the
 * corpus into PostgreSQL (15 or later), messages partitioned by newsgroup
 * hierarchy and year, with a full-text column stemmed per language.
 *
 *   deja export-pg --db corpus.db | psql -d research
 *
 * One transaction: a load that fails leaves the server as it was. */
#include "deja.h"
#include "output.h"
#include "store.h"
#include "words.h"
#include "rows.h"

#include <stdio.h>
#include <string.h>

/* PostgreSQL's type of each exported column; the others are bigint. */
static const struct {
  const char *column;
  const char *type;
} column_types[] = {
  { "hierarchy", "text NOT NULL" }, { "year", "integer NOT NULL" },
  { "path", "text" }, { "sha256", "text" }, { "compression", "text" }, { "ingested_at", "text" },
  { "deja_version", "text" }, { "name", "text" }, { "address", "text" }, { "first_date", "text" },
  { "last_date", "text" }, { "envelope", "text" }, { "message_id", "text" }, { "subject", "text" },
  { "from_addr", "text" }, { "from_name", "text" }, { "date", "text" }, { "date_raw", "text" },
  { "body", "text" }, { "own_text", "text" }, { "charset", "text" }, { "flags", "text" },
  { "missing_parent", "text" }, { "thread_flags", "text" }, { "lang", "text" }, { "kind", "text" },
  { "ref", "text" }, { "nonletter_share", "double precision" },
  { "digit_share", "double precision" }, { "upper_share", "double precision" },
  { "oov_share", "double precision" },
};

/* The tables in load order: name, the rows, the primary key. */
static const struct {
  const char *name;
  StorePgTable rows;
  const char *key;
} tables[] = {
  { "files", STORE_PG_FILES, "id" },
  { "newsgroups", STORE_PG_NEWSGROUPS, "id" },
  { "authors", STORE_PG_AUTHORS, "id" },
  { "author_addresses", STORE_PG_AUTHOR_ADDRESSES, "address" },
  { "messages", STORE_PG_MESSAGES, "hierarchy, year, id" },
  { "message_newsgroups", STORE_PG_MESSAGE_NEWSGROUPS, "message_id, newsgroup_id" },
  { "refs", STORE_PG_REFS, "message_id, kind, position" },
};

static const char *const indexes[] = {
  "CREATE INDEX ON messages (message_id);",
  "CREATE INDEX ON messages (thread_id);",
  "CREATE INDEX ON messages (author_id);",
  "CREATE INDEX ON messages (date);",
  "CREATE INDEX ON messages (lang);",
  "CREATE INDEX ON messages USING gin (tsv);",
  "CREATE INDEX ON refs (ref);",
  "CREATE INDEX ON message_newsgroups (newsgroup_id);",
  "CREATE INDEX ON author_addresses (author_id);",
};

typedef struct {
  FILE *out;
  const char *table;
  gboolean started;     /* the COPY line is written */
  GString *line;
  guint64 rows;
} Copy;

static const char *
type_of (const char *column)
{
  for (guint i = 0; i < G_N_ELEMENTS (column_types); i++)
    if (strcmp (column_types[i].column, column) == 0)
      return column_types[i].type;
  return "bigint";
}

/* COPY's text format: \N for NULL; backslash, tab, newline and carriage
 * return escaped (as TSV does). */
static gboolean
copy_row (const StoreValue *v, guint n, gpointer data)
{
  Copy *c = data;

  if (!c->started)
    {
      fprintf (c->out, "COPY %s (", c->table);
      for (guint i = 0; i < n; i++)
        fprintf (c->out, "%s%s", i ? ", " : "", v[i].name);
      fputs (") FROM stdin;\n", c->out);
      c->started = TRUE;
    }
  g_string_truncate (c->line, 0);
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (c->line, '\t');
      if (v[i].text == NULL)
        g_string_append (c->line, "\\N");
      else
        output_tsv_field (c->line, v[i].text);
    }
  g_string_append_c (c->line, '\n');
  fwrite (c->line->str, 1, c->line->len, c->out);
  c->rows++;
  return TRUE;
}

static void
write_tsv_column (FILE *out)
{
  const char *code, *name;

  /* PostgreSQL's text search configurations have Snowball's names. */
  fputs (",\n  tsv tsvector GENERATED ALWAYS AS (to_tsvector(CASE", out);
  for (guint i = 0; (name = text_snowball_language (i, &code)) != NULL; i++)
    fprintf (out, " WHEN lang = '%s' OR lang LIKE '%s-%%' THEN '%s'::regconfig", code, code, name);
  fputs (" ELSE 'simple'::regconfig END,\n    coalesce(subject, '') || ' ' || coalesce(own_text, ''))) STORED", out);
}

/* @base, or @base_2, @base_3… : the first not in @used (which takes it).
 * Every partition's name goes through here, so that no hierarchy's
 * name ("other", "comp" beside "comp-later") can take another's. */
static char *
unique_name (GHashTable *used, const char *base)
{
  char *name = g_strdup (base);

  for (int k = 2; g_hash_table_contains (used, name); k++)
    {
      g_free (name);
      name = g_strdup_printf ("%s_%d", base, k);
    }
  g_hash_table_add (used, name);
  return g_strdup (name);
}

/* The hierarchy as a name: lower-case letters, digits and '_'. */
static char *
partition_name (GHashTable *used, const char *parent, const char *hierarchy, gint64 year)
{
  GString *s = g_string_new (parent);
  g_autofree char *base = NULL;

  if (hierarchy)
    {
      g_string_append_c (s, '_');
      if (*hierarchy == '\0')
        g_string_append (s, "none");
      for (const char *p = hierarchy; *p && s->len < 48; p++)
        g_string_append_c (s, g_ascii_isalnum (*p) ? g_ascii_tolower (*p) : '_');
    }
  if (year > 0)
    g_string_append_printf (s, "_%" G_GINT64_FORMAT, year);
  else if (year == 0)
    g_string_append (s, "_undated");
  base = g_string_free (s, FALSE);
  return unique_name (used, base);
}

static char *
sql_literal (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "'", -1);
  g_autofree char *joined = g_strjoinv ("''", parts);

  return g_strdup_printf ("'%s'", joined);
}

typedef struct {
  FILE *out;
  GHashTable *used;          /* partition names */
  char *hierarchy;           /* the current one, whose year partitions follow */
  char *parent;
  guint partitions;
} Partitions;

static gboolean
partition_row (const StoreValue *v, guint n, gpointer data)
{
  Partitions *p = data;
  const char *hierarchy = row_get (v, n, "hierarchy"), *year_text = row_get (v, n, "year");
  gint64 year = year_text ? g_ascii_strtoll (year_text, NULL, 10) : 0;
  g_autofree char *name = NULL;

  hierarchy = hierarchy ? hierarchy : "";
  if (p->hierarchy == NULL || strcmp (p->hierarchy, hierarchy) != 0)
    {
      g_autofree char *literal = sql_literal (hierarchy);

      g_free (p->hierarchy);
      g_free (p->parent);
      p->hierarchy = g_strdup (hierarchy);
      p->parent = partition_name (p->used, "messages", hierarchy, -1);
      fprintf (p->out, "CREATE TABLE %s PARTITION OF messages FOR VALUES IN (%s)"
               " PARTITION BY RANGE (year);\n", p->parent, literal);
      {
        g_autofree char *later = g_strdup_printf ("%s_later", p->parent);
        name = unique_name (p->used, later);
      }
      fprintf (p->out, "CREATE TABLE %s PARTITION OF %s DEFAULT;\n", name, p->parent);
      g_clear_pointer (&name, g_free);
      p->partitions += 2;
    }
  name = partition_name (p->used, p->parent, NULL, year);
  fprintf (p->out, "CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%" G_GINT64_FORMAT ") TO (%"
           G_GINT64_FORMAT ");\n", name, p->parent, year, year + 1);
  p->partitions++;
  return TRUE;
}

static gboolean
write_script (Store *store, const StoreFilter *filter, FILE *out, const char *db, const char *schema,
              gboolean replace, GError **error)
{
  Partitions parts = { out, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), NULL, NULL, 0 };
  gboolean ok = TRUE;
  g_autoptr (GString) shown = g_string_new (NULL);

  /* the DEFAULT partition's name is taken before any hierarchy's; the
   * database's path shown on one line (it is in a comment) */
  g_hash_table_add (parts.used, g_strdup ("messages_other"));
  output_terminal_text (shown, db, FALSE);

  fprintf (out, "-- deja %s export-pg of '%s': load with  psql -d DATABASE -f FILE\n"
           "\\set ON_ERROR_STOP on\n"
           "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n"
           "BEGIN;\n", PACKAGE_VERSION, shown->str);
  if (replace)
    fprintf (out, "DROP SCHEMA IF EXISTS %s CASCADE;\n", schema);
  fprintf (out, "CREATE SCHEMA %s;\nSET LOCAL search_path = %s;\n", schema, schema);
  for (guint t = 0; ok && t < G_N_ELEMENTS (tables); t++)
    {
      g_autoptr (GPtrArray) names = NULL;

      if (!(ok = store_pg_columns (store, tables[t].rows, &names, error)))
        break;
      fprintf (out, "CREATE TABLE %s (", tables[t].name);
      for (guint i = 0; i < names->len; i++)
        fprintf (out, "%s\n  %s %s", i ? "," : "", (char *) names->pdata[i], type_of (names->pdata[i]));
      if (tables[t].rows == STORE_PG_MESSAGES)
        write_tsv_column (out);
      fprintf (out, ",\n  PRIMARY KEY (%s))%s;\n", tables[t].key,
               tables[t].rows == STORE_PG_MESSAGES ? " PARTITION BY LIST (hierarchy)" : "");
    }
  /* Partitions: one per hierarchy, in it one per year; DEFAULT ones take
   * what a later load adds. */
  ok = ok && store_pg_rows (store, filter, STORE_PG_PARTITIONS, partition_row, &parts, error);
  if (ok)
    fputs ("CREATE TABLE messages_other PARTITION OF messages DEFAULT;\n", out);
  for (guint t = 0; ok && t < G_N_ELEMENTS (tables); t++)
    {
      Copy c = { out, tables[t].name, FALSE, g_string_new (NULL), 0 };

      ok = store_pg_rows (store, filter, tables[t].rows, copy_row, &c, error);
      if (c.started)
        fputs ("\\.\n", out);
      g_string_free (c.line, TRUE);
    }
  for (guint i = 0; ok && i < G_N_ELEMENTS (indexes); i++)
    fprintf (out, "%s\n", indexes[i]);
  if (ok)
    fputs ("COMMIT;\nANALYZE;\n", out);
  if (ok)
    deja_note ("messages in %u partitions (by newsgroup hierarchy, then year)", parts.partitions);
  g_hash_table_unref (parts.used);
  g_free (parts.hierarchy);
  g_free (parts.parent);
  return ok;
}

static gboolean
valid_identifier (const char *s)
{
  if (!(g_ascii_islower (*s) || *s == '_'))
    return FALSE;
  for (; *s; s++)
    if (!(g_ascii_islower (*s) || g_ascii_isdigit (*s) || *s == '_'))
      return FALSE;
  return TRUE;
}

int
cmd_export_pg (DejaRun *run, int argc, char **argv)
{
  g_autofree char *out = NULL, *schema = NULL;
  gboolean include_no_archive = FALSE, replace = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the script (default: standard output)", "FILE" },
    { "schema", 0, 0, G_OPTION_ARG_STRING, &schema, "PostgreSQL schema to create (default: deja)", "NAME" },
    { "replace", 0, 0, G_OPTION_ARG_NONE, &replace, "drop the schema first if it exists", NULL },
    { "include-no-archive", 0, 0, G_OPTION_ARG_NONE, &include_no_archive,
      "also posts whose authors asked not to be archived (X-No-Archive: yes)", NULL },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  Output *output;
  gboolean ok;

  if (!deja_run_parse (run, "— write a psql script that loads the corpus into PostgreSQL", entries,
    "For teams that share one server: the script creates a schema (deja) with the tables\n"
    "files, newsgroups, authors, author_addresses, messages, message_newsgroups and refs,\n"
    "loads them with COPY and indexes them, in one transaction.  messages is partitioned\n"
    "by LIST (hierarchy: the first label of its first newsgroup, '' for mailing lists),\n"
    "each hierarchy by RANGE (year, 0 when undated), with DEFAULT partitions for what a\n"
    "later load adds.  Its column tsv is the subject and own text for PostgreSQL's full-text\n"
    "search, stemmed in the message's language where PostgreSQL has a Snowball stemmer\n"
    "for it.  Filters select messages (and their newsgroups and references); posts marked\n"
    "X-No-Archive: yes are left out unless --include-no-archive.  See docs/scale.md.",
    &argc, &argv, &status))
    return status;
  if (schema && !valid_identifier (schema))
    return deja_usage_error (run->context, "--schema must be lower-case letters, digits and '_'");
  run->filter_sql.no_archive = include_no_archive ? STORE_NO_ARCHIVE_INCLUDE : STORE_NO_ARCHIVE_SKIP;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if ((output = output_open (out, &error)) == NULL)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  ok = write_script (store, &run->filter_sql, output_stream (output), run->db, schema ? schema : "deja", replace,
                     &error);
  if (!output_close (output, ok, ok ? &error : NULL) && ok)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  if (!ok)
    {
      deja_error ("cannot export '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}
