/* final.c — deja's schema at its last version, made at build time.
 *
 * usage: schema-final OUT.h
 *
 * Applies the migrations (schema.h, deja_schema[]) to an empty database
 * in memory and writes to OUT.h what the store needs of the result:
 *
 *   deja_schema_new      one script that makes that database from
 *                        nothing: its tables, indexes, views and
 *                        triggers as sqlite_schema holds them (ALTER
 *                        TABLE's changes included), its full-text tables
 *                        with their settings, and the rows the
 *                        migrations leave in its own tables;
 *   deja_schema_objects  its views and triggers (type, name, SQL), which
 *                        every database deja opens is checked against.
 *
 * Replaying seventeen migrations took a new database 40 ms (each ALTER
 * TABLE has SQLite parse the whole schema again), and every command 15
 * ms more for the views and triggers: once for each shard deja ingests.
 * The script is checked before it is written: applied to another empty
 * database, it must give the same sqlite_schema (type, name, table, SQL)
 * and the same rows in every table, the full-text tables' own included,
 * or this program fails and the build with it.  Plain C and SQLite: it
 * runs on the machine that builds.
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

#define N_MIGRATIONS ((int) (sizeof deja_schema / sizeof deja_schema[0]))

static void
die (sqlite3 *db, const char *what)
{
  fprintf (stderr, "schema-final: %s: %s\n", what, db ? sqlite3_errmsg (db) : "out of memory");
  exit (1);
}

static sqlite3_stmt *
prepare (sqlite3 *db, const char *sql)
{
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    die (db, sql);
  return stmt;
}

static void
run (sqlite3 *db, const char *sql)
{
  if (sqlite3_exec (db, sql, NULL, NULL, NULL) != SQLITE_OK)
    die (db, sql);
}

static sqlite3 *
empty_database (void)
{
  sqlite3 *db = NULL;

  if (sqlite3_open_v2 (":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    die (db, "cannot open a database in memory");
  return db;
}

/* A growing string */
typedef struct {
  char *text;
  size_t len, size;
} Text;

static void
append (Text *t, const char *s)
{
  size_t n = strlen (s);

  if (t->len + n + 1 > t->size)
    {
      t->size = (t->len + n + 1) * 2;
      if ((t->text = realloc (t->text, t->size)) == NULL)
        die (NULL, "");
    }
  memcpy (t->text + t->len, s, n + 1);
  t->len += n;
}

/* @sql, with sqlite3_mprintf()'s %s, %Q and %w, appended to @t */
static void
appendf (Text *t, const char *format, ...)
{
  va_list args;
  char *s;

  va_start (args, format);
  s = sqlite3_vmprintf (format, args);
  va_end (args);
  if (s == NULL)
    die (NULL, "");
  append (t, s);
  sqlite3_free (s);
}

/* The type of table @name as PRAGMA table_list gives it ('table',
 * 'view', 'virtual', 'shadow'), or "" */
static const char *
table_type (sqlite3 *db, const char *name, char *out, size_t size)
{
  sqlite3_stmt *stmt = prepare (db, "SELECT type FROM pragma_table_list WHERE schema = 'main' AND name = ?1");

  out[0] = '\0';
  sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    snprintf (out, size, "%s", (const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return out;
}

/* An INSERT of each row of table @name, its values as SQL literals */
static void
append_rows (Text *t, sqlite3 *db, const char *name)
{
  char *sql = sqlite3_mprintf ("SELECT * FROM \"%w\"", name);
  sqlite3_stmt *stmt = prepare (db, sql);

  sqlite3_free (sql);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      appendf (t, "INSERT INTO \"%w\" VALUES (", name);
      for (int c = 0; c < sqlite3_column_count (stmt); c++)
        {
          if (c > 0)
            append (t, ", ");
          switch (sqlite3_column_type (stmt, c))
            {
            case SQLITE_INTEGER:
              appendf (t, "%lld", (long long) sqlite3_column_int64 (stmt, c));
              break;
            case SQLITE_FLOAT:
              appendf (t, "%!.17g", sqlite3_column_double (stmt, c));
              break;
            case SQLITE_TEXT:
              appendf (t, "%Q", (const char *) sqlite3_column_text (stmt, c));
              break;
            case SQLITE_NULL:
              append (t, "NULL");
              break;
            default:   /* (a blob: none of deja's tables holds one at first) */
              fprintf (stderr, "schema-final: table %s holds a blob after the migrations\n", name);
              exit (1);
            }
        }
      append (t, ");\n");
    }
  sqlite3_finalize (stmt);
}

/* The script that makes @db's schema and rows from nothing: what
 * sqlite_schema holds, in the order the migrations made it (rowid),
 * but for what SQLite makes itself (autoindexes, sqlite_sequence, the
 * full-text tables' shadow tables); a full-text table's settings as
 * FTS5's commands, after a 'rebuild' as the migrations' own; and the rows
 * of the plain tables. */
static char *
script_of (sqlite3 *db)
{
  Text t = { NULL, 0, 0 };
  sqlite3_stmt *stmt = prepare (db, "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL"
                                " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid");
  char type[32];

  append (&t, "");
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *kind = (const char *) sqlite3_column_text (stmt, 0);
      const char *name = (const char *) sqlite3_column_text (stmt, 1);
      const char *sql = (const char *) sqlite3_column_text (stmt, 2);

      if (strcmp (kind, "table") == 0 && strcmp (table_type (db, name, type, sizeof type), "shadow") == 0)
        continue;
      appendf (&t, "%s;\n", sql);
      if (strcmp (kind, "table") == 0 && strcmp (type, "virtual") == 0)
        {
          char *config = sqlite3_mprintf ("SELECT k, v FROM \"%w_config\" WHERE k <> 'version'", name);
          sqlite3_stmt *settings;

          if (strstr (sql, "USING fts5") == NULL)
            {
              fprintf (stderr, "schema-final: %s is a virtual table of another module than FTS5\n", name);
              exit (1);
            }
          settings = prepare (db, config);
          sqlite3_free (config);
          appendf (&t, "INSERT INTO \"%w\" (\"%w\") VALUES ('rebuild');\n", name, name);
          while (sqlite3_step (settings) == SQLITE_ROW)
            appendf (&t, "INSERT INTO \"%w\" (\"%w\", rank) VALUES (%Q, %lld);\n", name, name,
                     (const char *) sqlite3_column_text (settings, 0),
                     (long long) sqlite3_column_int64 (settings, 1));
          sqlite3_finalize (settings);
        }
    }
  sqlite3_finalize (stmt);
  /* the rows of the plain tables, once every table is there */
  stmt = prepare (db, "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table'"
                  " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  while (sqlite3_step (stmt) == SQLITE_ROW)
    append_rows (&t, db, (const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return t.text;
}

/* Whether statement @sql gives the same rows, value for value, in @a
 * and @b; says what differs on standard error */
static int
same_rows (sqlite3 *a, sqlite3 *b, const char *sql)
{
  sqlite3_stmt *x = prepare (a, sql), *y = prepare (b, sql);
  int same = 1, rx, ry;

  while (same)
    {
      rx = sqlite3_step (x);
      ry = sqlite3_step (y);
      if (rx != ry)
        same = 0;
      else if (rx != SQLITE_ROW)
        break;
      else
        for (int c = 0; same && c < sqlite3_column_count (x); c++)
          {
            int n = sqlite3_column_bytes (x, c);

            same = sqlite3_column_type (x, c) == sqlite3_column_type (y, c) && n == sqlite3_column_bytes (y, c) &&
                   (n == 0 || memcmp (sqlite3_column_blob (x, c), sqlite3_column_blob (y, c), (size_t) n) == 0);
          }
    }
  if (!same)
    fprintf (stderr, "schema-final: the script does not give what the migrations give: %s\n", sql);
  sqlite3_finalize (x);
  sqlite3_finalize (y);
  return same;
}

/* Whether @made, made by the script, is @migrated: sqlite_schema and
 * every table's rows */
static int
same_database (sqlite3 *migrated, sqlite3 *made)
{
  sqlite3_stmt *stmt = prepare (migrated, "SELECT name FROM pragma_table_list WHERE schema = 'main'"
                                " AND type IN ('table', 'shadow') AND name <> 'sqlite_schema' ORDER BY name");
  int same = same_rows (migrated, made, "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name") &&
             same_rows (migrated, made, "SELECT schema, name, type, ncol, wr, strict FROM pragma_table_list"
                        " ORDER BY schema, name");

  while (same && sqlite3_step (stmt) == SQLITE_ROW)
    {
      char *sql = sqlite3_mprintf ("SELECT * FROM \"%w\"",
                                   (const char *) sqlite3_column_text (stmt, 0));

      same = same_rows (migrated, made, sql);
      sqlite3_free (sql);
    }
  sqlite3_finalize (stmt);
  return same;
}

/* @text as a C string literal, a line of it a line */
static void
write_literal (FILE *out, const char *text)
{
  fputs ("  \"", out);
  for (const char *p = text; *p; p++)
    {
      if (*p == '\n')
        fputs (p[1] ? "\\n\"\n  \"" : "\\n", out);
      else if (*p == '"' || *p == '\\')
        fprintf (out, "\\%c", *p);
      else if ((unsigned char) *p < 0x20)
        fprintf (out, "\\%03o", (unsigned char) *p);
      else
        fputc (*p, out);
    }
  fputs ("\"", out);
}

int
main (int argc, char **argv)
{
  sqlite3 *migrated = empty_database (), *made = empty_database ();
  sqlite3_stmt *stmt;
  char *script;
  FILE *out;

  if (argc != 2)
    {
      fprintf (stderr, "usage: schema-final OUT.h\n");
      return 2;
    }
  for (int v = 0; v < N_MIGRATIONS; v++)
    run (migrated, deja_schema[v]);
  script = script_of (migrated);
  run (made, script);
  if (!same_database (migrated, made))
    return 1;
  if ((out = fopen (argv[1], "w")) == NULL)
    {
      perror (argv[1]);
      return 1;
    }
  fprintf (out, "/* Generated by schema/final.c from the migrations (schema.h): edit the .sql files. */\n"
           "#define DEJA_SCHEMA_FINAL_VERSION %d\n\n"
           "/* makes a new database of version %d in one go */\n"
           "static const char deja_schema_new[] =\n", N_MIGRATIONS, N_MIGRATIONS);
  write_literal (out, script);
  fputs (";\n\n/* the views and triggers of version DEJA_SCHEMA_FINAL_VERSION: type, name, SQL */\n"
         "static const char *const deja_schema_objects[][3] = {\n", out);
  stmt = prepare (migrated, "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('view', 'trigger')"
                  " ORDER BY type, name");
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      fputs ("  {\n", out);
      for (int c = 0; c < 3; c++)
        {
          write_literal (out, (const char *) sqlite3_column_text (stmt, c));
          fputs (",\n", out);
        }
      fputs ("  },\n", out);
    }
  sqlite3_finalize (stmt);
  fputs ("};\n", out);
  free (script);
  sqlite3_close (migrated);
  sqlite3_close (made);
  return fclose (out) == 0 ? 0 : 1;
}
