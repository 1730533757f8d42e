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

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

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

/* @table's @column: message_id is the Message-ID header in messages,
 * the row's id (bigint) in the tables that point at messages. */
static const char *
type_of (StorePgTable table, const char *column)
{
  if (table != STORE_PG_MESSAGES && strcmp (column, "message_id") == 0)
    return "bigint";
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
  const char *top;           /* the table whose partitions these are: messages or a part's */
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
      p->parent = partition_name (p->used, p->top, hierarchy, -1);
      fprintf (p->out, "CREATE TABLE %s PARTITION OF %s FOR VALUES IN (%s)"
               " PARTITION BY RANGE (year);\n", p->parent, p->top, literal);
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

/* @top's partitions: one per hierarchy of the messages in @range, in it
 * one per year; DEFAULT ones take what a later load adds. */
static gboolean
write_partitions (Store *store, const StoreFilter *filter, const StorePgRange *range, FILE *out,
                  GHashTable *used, const char *top, guint *count, GError **error)
{
  Partitions parts = { out, used, top, NULL, NULL, 0 };
  g_autofree char *other = g_strdup_printf ("%s_other", top);
  g_autofree char *name = NULL;
  gboolean ok;

  /* the DEFAULT partition's name is taken before any hierarchy's */
  name = unique_name (used, other);
  ok = store_pg_rows (store, filter, range, STORE_PG_PARTITIONS, partition_row, &parts, error);
  if (ok)
    fprintf (out, "CREATE TABLE %s PARTITION OF %s DEFAULT;\n", name, top);
  *count += parts.partitions + 1;
  g_free (parts.hierarchy);
  g_free (parts.parent);
  return ok;
}

static void
write_preamble (FILE *out, const char *db, const char *what)
{
  g_autoptr (GString) shown = g_string_new (NULL);

  /* the database's path shown on one line (it is in a comment) */
  output_terminal_text (shown, db, FALSE);
  fprintf (out, "-- deja %s export-pg of '%s': %s\n"
           "\\set ON_ERROR_STOP on\n"
           "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n"
           "BEGIN;\n", PACKAGE_VERSION, shown->str, what);
}

/* CREATE TABLE for every table; messages partitioned by @messages_by. */
static gboolean
write_tables (Store *store, FILE *out, const char *messages_by, GError **error)
{
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      g_autoptr (GPtrArray) names = NULL;

      if (!store_pg_columns (store, tables[t].rows, &names, error))
        return FALSE;
      fprintf (out, "CREATE TABLE %s (", tables[t].name);
      for (guint i = 0; i < names->len; i++)
        fprintf (out, "%s\n  %s %s", i ? "," : "", (char *) names->pdata[i], type_of (tables[t].rows, names->pdata[i]));
      if (tables[t].rows == STORE_PG_MESSAGES)
        write_tsv_column (out);
      fprintf (out, ",\n  PRIMARY KEY (%s))", tables[t].key);
      if (tables[t].rows == STORE_PG_MESSAGES)
        fprintf (out, " PARTITION BY %s", messages_by);
      fputs (";\n", out);
    }
  return TRUE;
}

/* COPY of the tables @want says (messages, their newsgroups and
 * references: those in @range; the others whole); messages into @into. */
static gboolean
copy_tables (Store *store, const StoreFilter *filter, const StorePgRange *range, FILE *out,
             gboolean (*want) (StorePgTable), const char *into, guint64 *messages, GError **error)
{
  gboolean ok = TRUE;

  for (guint t = 0; ok && t < G_N_ELEMENTS (tables); t++)
    {
      Copy c = { out, tables[t].rows == STORE_PG_MESSAGES ? into : tables[t].name, FALSE,
                 g_string_new (NULL), 0 };

      if (!want (tables[t].rows))
        {
          g_string_free (c.line, TRUE);
          continue;
        }
      ok = store_pg_rows (store, filter, range, tables[t].rows, copy_row, &c, error);
      if (c.started)
        fputs ("\\.\n", out);
      if (tables[t].rows == STORE_PG_MESSAGES)
        *messages += c.rows;
      g_string_free (c.line, TRUE);
    }
  return ok;
}

static gboolean every_table (StorePgTable t) { (void) t; return TRUE; }
static gboolean of_messages (StorePgTable t)
{
  return t == STORE_PG_MESSAGES || t == STORE_PG_MESSAGE_NEWSGROUPS || t == STORE_PG_REFS;
}
static gboolean not_of_messages (StorePgTable t) { return !of_messages (t); }
static gboolean only_messages (StorePgTable t) { return t == STORE_PG_MESSAGES; }
static gboolean but_messages (StorePgTable t) { return t != STORE_PG_MESSAGES; }

/* The indexes; @on_messages: only those of messages, on this table
 * (a part's partition: PostgreSQL then takes them as the partitions'
 * own when the same index is made on messages). */
static void
write_indexes (FILE *out, const char *on_messages)
{
  static const char prefix[] = "CREATE INDEX ON messages ";

  for (guint i = 0; i < G_N_ELEMENTS (indexes); i++)
    if (on_messages == NULL)
      fprintf (out, "%s\n", indexes[i]);
    else if (g_str_has_prefix (indexes[i], prefix))
      fprintf (out, "CREATE INDEX ON %s %s\n", on_messages, indexes[i] + strlen (prefix));
}

/* ANALYZE of this schema's tables (the server's others are not ours to
 * analyse); @messages: messages' name there (NULL: none). */
static void
write_analyze (FILE *out, const char *schema, gboolean (*want) (StorePgTable), const char *messages)
{
  gboolean first = TRUE;

  fputs ("ANALYZE", out);
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      const char *name = tables[t].rows == STORE_PG_MESSAGES ? messages : tables[t].name;

      if (want (tables[t].rows) && name)
        {
          fprintf (out, "%s %s.%s", first ? "" : ",", schema, name);
          first = FALSE;
        }
    }
  fputs (";\n", out);
}

static gboolean
write_script (Store *store, const StoreFilter *filter, FILE *out, const char *db, const char *schema,
              gboolean replace, GError **error)
{
  g_autoptr (GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint partitions = 0;
  guint64 messages = 0;
  gboolean ok;

  write_preamble (out, db, "load with  psql -d DATABASE -f FILE");
  if (replace)
    fprintf (out, "DROP SCHEMA IF EXISTS %s CASCADE;\n", schema);
  fprintf (out, "CREATE SCHEMA %s;\nSET LOCAL search_path = %s;\n", schema, schema);
  ok = write_tables (store, out, "LIST (hierarchy)", error) &&
       write_partitions (store, filter, NULL, out, used, "messages", &partitions, error) &&
       copy_tables (store, filter, NULL, out, every_table, "messages", &messages, error);
  if (ok)
    {
      write_indexes (out, NULL);
      fputs ("COMMIT;\n", out);
      write_analyze (out, schema, every_table, "messages");
      /* the DEFAULT partition was counted with the others */
      deja_note ("messages in %u partitions (by newsgroup hierarchy, then year)", partitions - 1);
    }
  return ok;
}

/* ---- a load in parts, one session each (--parts) ----
 *
 * prepare.sql makes the schema under a loading name, NAME__load, with
 * messages partitioned by RANGE (id), one partition per part (each by
 * hierarchy, then year); part-NNN.sql each load one part's messages,
 * their newsgroups and references, and index them, in a transaction of
 * its own, side by side; finish.sql loads the other tables, checks that
 * every message came, makes the indexes on messages (PostgreSQL takes the
 * parts' as its own) and renames the schema NAME.  A part that fails
 * leaves NAME as it was (and NAME__load to drop or load again). */

static const char load_sh[] =
  "#!/bin/sh\n"
  "# load.sh — written by deja export-pg --parts: loads this directory's scripts,\n"
  "# the parts side by side in SESSIONS sessions (default 4):\n"
  "#\n"
  "#   sh load.sh [-j SESSIONS] [psql connection options, e.g. -d research]\n"
  "#\n"
  "# PSQL names the psql to run (default: psql).  Stops at the first failure.\n"
  "set -eu\n"
  "dir=$(dirname \"$0\")\n"
  "jobs=4\n"
  "if [ \"${1:-}\" = -j ]; then jobs=$2; shift 2; fi\n"
  "psql=${PSQL:-psql}\n"
  "\"$psql\" -X -q -v ON_ERROR_STOP=1 \"$@\" -f \"$dir/prepare.sql\"\n"
  "find \"$dir\" -maxdepth 1 -name 'part-*.sql' -print0 | sort -z |\n"
  "  xargs -0 -n 1 -P \"$jobs\" \"$psql\" -X -q -v ON_ERROR_STOP=1 \"$@\" -f\n"
  "\"$psql\" -X -q -v ON_ERROR_STOP=1 \"$@\" -f \"$dir/finish.sql\"\n";

typedef struct {
  Store *store;
  const StoreFilter *filter;
  const char *db;
  const char *dir;
  const char *schema;
  char *loading;
  gboolean replace;
} Parts;

/* Writes @dir/@name whole, by @write (which writes into the stream). */
static gboolean
write_file (const Parts *p, const char *name, gboolean (*write) (const Parts *, FILE *, gpointer, GError **),
            gpointer data, GError **error)
{
  g_autofree char *path = g_build_filename (p->dir, name, NULL);
  Output *output = output_open (path, error);
  gboolean ok;

  if (output == NULL)
    return FALSE;
  ok = write (p, output_stream (output), data, error);
  if (!output_close (output, ok, ok ? error : NULL))
    return FALSE;
  return ok;
}

typedef struct {
  GArray *bounds;
  GPtrArray *tops;         /* each part's partition of messages */
  GHashTable *used;
  guint partitions;
  guint part;              /* of a part-NNN.sql */
  guint64 messages;        /* loaded by the parts */
} PartsPlan;

static StorePgRange
part_range (const PartsPlan *plan, guint k)
{
  StorePgRange r = { k == 0 ? G_MININT64 : g_array_index (plan->bounds, gint64, k),
                     k + 1 == plan->bounds->len ? G_MAXINT64 : g_array_index (plan->bounds, gint64, k + 1) };
  return r;
}

static gboolean
write_prepare (const Parts *p, FILE *out, gpointer data, GError **error)
{
  PartsPlan *plan = data;

  write_preamble (out, p->db, "the first of the scripts load.sh runs");
  if (!p->replace)
    fprintf (out, "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '%s') THEN"
             " RAISE EXCEPTION 'schema \"%s\" already exists (export with --replace to replace it)';"
             " END IF; END $$;\n", p->schema, p->schema);
  fprintf (out, "DROP SCHEMA IF EXISTS %s CASCADE;\nCREATE SCHEMA %s;\nSET LOCAL search_path = %s;\n",
           p->loading, p->loading, p->loading);
  if (!write_tables (p->store, out, "RANGE (id)", error))
    return FALSE;
  for (guint k = 0; k < plan->bounds->len; k++)
    {
      StorePgRange r = part_range (plan, k);
      g_autofree char *base = g_strdup_printf ("messages_p%u", k + 1);
      const char *top;

      g_ptr_array_add (plan->tops, unique_name (plan->used, base));
      top = plan->tops->pdata[k];
      g_autofree char *lo = k == 0 ? g_strdup ("MINVALUE") : g_strdup_printf ("%" G_GINT64_FORMAT, r.lo);
      g_autofree char *hi = k + 1 == plan->bounds->len ? g_strdup ("MAXVALUE")
                            : g_strdup_printf ("%" G_GINT64_FORMAT, r.hi);

      fprintf (out, "CREATE TABLE %s PARTITION OF messages FOR VALUES FROM (%s) TO (%s)"
               " PARTITION BY LIST (hierarchy);\n", top, lo, hi);
      if (!write_partitions (p->store, p->filter, &r, out, plan->used, top, &plan->partitions, error))
        return FALSE;
    }
  fputs ("COMMIT;\n", out);
  return TRUE;
}

static gboolean
write_part (const Parts *p, FILE *out, gpointer data, GError **error)
{
  PartsPlan *plan = data;
  StorePgRange r = part_range (plan, plan->part);
  g_autofree char *what = g_strdup_printf ("part %u of %u, loaded beside the others", plan->part + 1,
                                           plan->bounds->len);
  const char *top = plan->tops->pdata[plan->part];

  write_preamble (out, p->db, what);
  fprintf (out, "SET LOCAL search_path = %s;\n", p->loading);
  if (!copy_tables (p->store, p->filter, &r, out, of_messages, top, &plan->messages, error))
    return FALSE;
  write_indexes (out, top);
  fputs ("COMMIT;\n", out);
  /* its partitions' statistics, made beside the other parts' */
  write_analyze (out, p->loading, only_messages, top);
  return TRUE;
}

static gboolean
write_finish (const Parts *p, FILE *out, gpointer data, GError **error)
{
  PartsPlan *plan = data;
  guint64 none = 0;

  write_preamble (out, p->db, "the last of the scripts load.sh runs");
  fprintf (out, "SET LOCAL search_path = %s;\n", p->loading);
  /* Every part came, or nothing changes */
  fprintf (out, "DO $$ DECLARE n bigint; BEGIN SELECT count(*) INTO n FROM messages;"
           " IF n <> %" G_GUINT64_FORMAT " THEN RAISE EXCEPTION"
           " '%% of %" G_GUINT64_FORMAT " messages loaded: a part is missing (run the parts again)', n;"
           " END IF; END $$;\n", plan->messages, plan->messages);
  if (!copy_tables (p->store, p->filter, NULL, out, not_of_messages, "messages", &none, error))
    return FALSE;
  write_indexes (out, NULL);
  if (p->replace)
    fprintf (out, "DROP SCHEMA IF EXISTS %s CASCADE;\n", p->schema);
  fprintf (out, "ALTER SCHEMA %s RENAME TO %s;\nCOMMIT;\n", p->loading, p->schema);
  /* the parts analysed their partitions (an ANALYZE of messages would
   * sample every one of them again, on one session) */
  write_analyze (out, p->schema, but_messages, NULL);
  return TRUE;
}

static gboolean
write_load_sh (const Parts *p, FILE *out, gpointer data, GError **error)
{
  (void) p;
  (void) data;
  (void) error;
  fputs (load_sh, out);
  return TRUE;
}

static gboolean
write_parts (Parts *p, StorePgParts how, guint n, GError **error)
{
  PartsPlan plan = { NULL, g_ptr_array_new_with_free_func (g_free),
                     g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), 0, 0, 0 };
  gboolean ok;

  if (g_mkdir_with_parents (p->dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "cannot create '%s': %s",
                   p->dir, g_strerror (saved));
      g_hash_table_unref (plan.used);
      g_ptr_array_unref (plan.tops);
      return FALSE;
    }
  ok = store_pg_part_bounds (p->store, p->filter, how, n, &plan.bounds, error);
  if (ok && plan.bounds->len == 0)
    {
      gint64 none = G_MININT64;   /* no message: one empty part */

      g_array_append_val (plan.bounds, none);
    }
  ok = ok && write_file (p, "prepare.sql", write_prepare, &plan, error);
  for (plan.part = 0; ok && plan.part < plan.bounds->len; plan.part++)
    {
      g_autofree char *name = g_strdup_printf ("part-%03u.sql", plan.part + 1);

      ok = write_file (p, name, write_part, &plan, error);
    }
  ok = ok && write_file (p, "finish.sql", write_finish, &plan, error) &&
       write_file (p, "load.sh", write_load_sh, NULL, error);
  if (ok)
    deja_note ("%" G_GUINT64_FORMAT " messages in %u parts (%u partitions by newsgroup hierarchy, then"
               " year): load them with  sh %s/load.sh -j SESSIONS [psql options]",
               plan.messages, plan.bounds->len, plan.partitions, p->dir);
  if (plan.bounds)
    g_array_unref (plan.bounds);
  g_ptr_array_unref (plan.tops);
  g_hash_table_unref (plan.used);
  return ok;
}

/* The part files a directory holds already (of an earlier export): a
 * load would take them too. */
static gboolean
holds_parts (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "part-") || strcmp (name, "prepare.sql") == 0)
      return TRUE;
  return FALSE;
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
  g_autofree char *out = NULL, *schema = NULL, *parts = NULL;
  gboolean include_no_archive = FALSE, replace = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "the script (default: standard output); with --parts, the directory of scripts", "FILE" },
    { "schema", 0, 0, G_OPTION_ARG_STRING, &schema, "PostgreSQL schema to create (default: deja)", "NAME" },
    { "replace", 0, 0, G_OPTION_ARG_NONE, &replace, "drop the schema first if it exists", NULL },
    { "include-no-archive", 0, 0, G_OPTION_ARG_NONE, &include_no_archive,
      "also posts whose authors asked not to be archived (X-No-Archive: yes)", NULL },
    { "parts", 0, 0, G_OPTION_ARG_STRING, &parts,
      "scripts for a load in N parts side by side (or one part per shard merged: 'shards')", "N|shards" },
    { NULL }
  };
  g_autoptr (GError) error = NULL;
  Store *store = NULL;
  Output *output;
  StorePgParts how = STORE_PG_PARTS_EQUAL;
  guint64 n_parts = 0;
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
    "X-No-Archive: yes are left out unless --include-no-archive.\n"
    "With --parts and --out DIR: DIR/prepare.sql, DIR/part-001.sql..., DIR/finish.sql and\n"
    "DIR/load.sh, which runs them with the parts in several sessions at once: messages are\n"
    "partitioned by RANGE (id) first, one partition per part, each loaded and indexed by\n"
    "its own session.  The same rows as one load; the schema appears only when every part\n"
    "is in.  See docs/scale.md.",
    &argc, &argv, &status))
    return status;
  if (schema && (!valid_identifier (schema) || strlen (schema) > 57))
    return deja_usage_error (run->context, "--schema must be lower-case letters, digits and '_'"
                             " (at most 57)");
  if (parts && strcmp (parts, "shards") == 0)
    how = STORE_PG_PARTS_SHARDS;
  else if (parts && (!g_ascii_string_to_unsigned (parts, 10, 1, 10000, &n_parts, NULL)))
    return deja_usage_error (run->context, "--parts must be a number from 1 to 10000, or 'shards'");
  if (parts && (out == NULL || strcmp (out, "-") == 0))
    return deja_usage_error (run->context, "--parts writes several scripts: --out DIR is required");
  if (parts && holds_parts (out))
    return deja_usage_error (run->context, "--out: the directory holds the scripts of an earlier"
                             " export: give an empty or new one");
  run->filter_sql.no_archive = include_no_archive ? STORE_NO_ARCHIVE_INCLUDE : STORE_NO_ARCHIVE_SKIP;
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  if (parts)
    {
      Parts p = { store, &run->filter_sql, run->db, out, schema ? schema : "deja", NULL, replace };

      p.loading = g_strdup_printf ("%s__load", p.schema);
      ok = write_parts (&p, how, (guint) n_parts, &error);
      g_free (p.loading);
      if (!ok)
        {
          deja_error ("cannot export '%s': %s", run->db, error->message);
          return DEJA_EXIT_FAILED;
        }
      return DEJA_EXIT_OK;
    }
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
