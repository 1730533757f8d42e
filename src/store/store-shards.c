/* store-shards.c — a set of shard databases read as one table each.
 *
 * The virtual table module "deja_shards": a table declared with it
 * (CREATE VIRTUAL TABLE temp.messages USING deja_shards (messages)) reads
 * the table of that name in every shard of a set, each shard on a
 * read-only connection of its own, so that a set is not bound by the ten
 * databases SQLite attaches to a connection.  The shards' ids are the
 * ones 'deja ingest --shard N' gives (N x 2^32 + 1 on), so that their
 * rows never share an id and shard N's come before shard N + 1's: a
 * table is read shard after shard, in id order.
 *
 * What a query asks of a table goes to the shards as SQL: the columns it
 * uses, its comparisons with values (=, <, >, IS, IS NULL, LIKE, GLOB,
 * MATCH ...), and an ORDER BY on the id; each shard then answers through
 * its own indexes.  A row asked for by id is read only in the shard that
 * holds it.  Rows come as the shard stores them: values are not changed.
 */
#include "store-private.h"

#include <string.h>

/* The shard a row id belongs to ('deja ingest --shard N'). */
#define SHARD_OF(id) ((id) >> 32)

typedef struct {
  char *path;
  gint64 number;          /* N of --shard N */
  sqlite3 *db;            /* opened when first read */
} Shard;

struct _StoreShards {
  GPtrArray *shards;      /* of Shard *, in number order */
  char *error;            /* why a shard could not be opened */
};

typedef struct {
  sqlite3_vtab base;
  StoreShards *set;
  char *table;            /* its name in every shard */
  guint n_columns;
  char **columns;         /* the shard's names, NULL for the hidden ones of an FTS5 table */
  int id_column;          /* the column that is the rowid, or -1 */
  gboolean fts;           /* an FTS5 table: its hidden column takes MATCH, rank is a column */
  gboolean has_rowid;     /* else WITHOUT ROWID: rows are numbered as read */
  gint64 rows;            /* the shards' rows, estimated once */
  GHashTable *idle;       /* "shard\nSQL" -> GPtrArray of statements prepared and not in use */
} ShardsTable;

typedef struct {
  sqlite3_vtab_cursor base;
  ShardsTable *table;
  char *sql;              /* the statement each shard runs */
  sqlite3_value **args;   /* its parameters */
  int n_args;
  int *to_stmt;           /* the statement's column of each of the table's, or -1 */
  guint next;             /* the shard after the one being read */
  guint last;             /* the shard after the last one to read */
  sqlite3_stmt *stmt;     /* the shard being read's, on a row; NULL at the end */
  sqlite3_stmt **held;    /* each shard's statement of sql, kept for the next xFilter */
  gint64 row;             /* rows read (the rowid of a table without one) */
} ShardsCursor;

static void
shard_free (gpointer data)
{
  Shard *shard = data;

  if (shard->db)
    sqlite3_close_v2 (shard->db);
  g_free (shard->path);
  g_free (shard);
}

/**
 * _store_shards_new:
 * @paths: (array length=n): the shards' databases, in number order
 * @numbers: (array length=n): each one's N of --shard N
 *
 * Returns: (transfer full): the set, for _store_shards_register()
 */
StoreShards *
_store_shards_new (const char *const *paths, const gint64 *numbers, guint n)
{
  StoreShards *set = g_new0 (StoreShards, 1);

  set->shards = g_ptr_array_new_with_free_func (shard_free);
  for (guint i = 0; i < n; i++)
    {
      Shard *shard = g_new0 (Shard, 1);

      shard->path = g_strdup (paths[i]);
      shard->number = numbers[i];
      g_ptr_array_add (set->shards, shard);
    }
  return set;
}

void
_store_shards_free (StoreShards *set)
{
  if (set == NULL)
    return;
  g_ptr_array_unref (set->shards);
  g_free (set->error);
  g_free (set);
}

/* Shard @i's connection, opened read-only the first time: NULL with
 * set->error saying why it cannot be. */
static sqlite3 *
shard_db (StoreShards *set, guint i)
{
  Shard *shard = g_ptr_array_index (set->shards, i);
  g_autofree char *uri = NULL;
  int rc;

  if (shard->db)
    return shard->db;
  uri = _store_file_uri (shard->path, "mode=ro");
  rc = (sqlite3_open_v2) (uri, &shard->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
  if (rc == SQLITE_OK)
    rc = _store_make_safe_db (shard->db);
  if (rc == SQLITE_OK)
    rc = (sqlite3_exec) (shard->db, "PRAGMA cache_size = -2048; PRAGMA mmap_size = 1099511627776; PRAGMA query_only = 1",
                         NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      g_free (set->error);
      set->error = g_strdup_printf ("shard '%s': %s", shard->path,
                                    shard->db ? sqlite3_errmsg (shard->db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (shard->db);
      shard->db = NULL;
      return NULL;
    }
  sqlite3_busy_timeout (shard->db, STORE_BUSY_TIMEOUT_MS);
  return shard->db;
}

static char *
quoted (const char *name)
{
  GString *s = g_string_new ("\"");

  for (const char *p = name; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

/* A column's declared type, if it is words and numbers (a
 * stranger's shard could declare anything there): else none. */
static const char *
plain_type (const char *type)
{
  if (type == NULL)
    return "";
  for (const char *p = type; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != ' ' && *p != '_')
      return "";
  return type;
}

static void
table_free (ShardsTable *t)
{
  if (t == NULL)
    return;
  for (guint i = 0; i < t->n_columns; i++)
    g_free (t->columns[i]);
  g_free (t->columns);
  g_free (t->table);
  if (t->idle)
    g_hash_table_unref (t->idle);
  sqlite3_free (t);
}

/* The columns of @table in the first shard, and the declaration of the
 * virtual table: the same names and types (a generated column is an
 * ordinary one here: the shard computes it). */
static int
read_columns (ShardsTable *t, sqlite3 *db, GString *declare, char **err)
{
  sqlite3_stmt *stmt;
  GPtrArray *names = g_ptr_array_new ();
  guint keys = 0;
  int rc = (sqlite3_prepare_v2) (db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1)"
                                 " ORDER BY cid", -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    rc = (sqlite3_bind_text) (stmt, 1, t->table, -1, SQLITE_TRANSIENT);
  t->id_column = -1;
  g_string_append (declare, "CREATE TABLE x(");
  while (rc == SQLITE_OK && (rc = (sqlite3_step) (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      const char *type = (const char *) sqlite3_column_text (stmt, 1);
      gboolean hidden = sqlite3_column_int (stmt, 3) == 1;
      g_autofree char *q = quoted (name);

      const char *collation = NULL;

      /* Compared here as in the shard, which is asked first */
      if (!hidden)
        sqlite3_table_column_metadata (db, "main", t->table, name, NULL, &collation, NULL, NULL, NULL);
      if (names->len)
        g_string_append (declare, ", ");
      g_string_append_printf (declare, "%s %s%s", q, plain_type (type), hidden ? " HIDDEN" : "");
      if (collation && g_ascii_strcasecmp (collation, "BINARY") != 0)
        {
          g_autofree char *c = quoted (collation);

          g_string_append_printf (declare, " COLLATE %s", c);
        }
      if (sqlite3_column_int (stmt, 2) == 1 && type && g_ascii_strcasecmp (type, "INTEGER") == 0)
        t->id_column = names->len;
      keys += sqlite3_column_int (stmt, 2) > 0;
      /* An FTS5 table's hidden column named as it takes MATCH only */
      g_ptr_array_add (names, hidden && strcmp (name, t->table) == 0 ? NULL : g_strdup (name));
      t->fts |= hidden && strcmp (name, t->table) == 0;
      rc = SQLITE_OK;
    }
  (sqlite3_finalize) (stmt);
  if (rc != SQLITE_DONE || names->len == 0)
    {
      *err = sqlite3_mprintf ("the shards have no table %s", t->table);
      g_ptr_array_free (names, TRUE);
      return SQLITE_ERROR;
    }
  /* A table without rowid gives its rows numbers of their own */
  {
    g_autofree char *q = quoted (t->table);
    g_autofree char *probe = g_strdup_printf ("SELECT rowid FROM main.%s", q);
    sqlite3_stmt *test = NULL;

    t->has_rowid = (sqlite3_prepare_v2) (db, probe, -1, &test, NULL) == SQLITE_OK;
    (sqlite3_finalize) (test);
  }
  /* An INTEGER PRIMARY KEY alone is the rowid */
  if (!t->has_rowid || keys != 1)
    t->id_column = -1;
  g_string_append (declare, ")");
  t->n_columns = names->len;
  t->columns = (char **) g_ptr_array_free (names, FALSE);
  return SQLITE_OK;
}

static int
shards_connect (sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **vtab,
                char **err)
{
  StoreShards *set = aux;
  g_autoptr (GString) declare = g_string_new (NULL);
  ShardsTable *t;
  sqlite3 *first;
  int rc;

  if (argc != 4)
    {
      *err = sqlite3_mprintf ("deja_shards takes the name of a table");
      return SQLITE_ERROR;
    }
  if (set->shards->len == 0 || (first = shard_db (set, 0)) == NULL)
    {
      *err = sqlite3_mprintf ("%s", set->error ? set->error : "a catalog of no shards");
      return SQLITE_ERROR;
    }
  t = sqlite3_malloc (sizeof *t);
  if (t == NULL)
    return SQLITE_NOMEM;
  memset (t, 0, sizeof *t);
  t->set = set;
  t->table = g_strdup (argv[3]);
  rc = read_columns (t, first, declare, err);
  if (rc == SQLITE_OK)
    rc = sqlite3_declare_vtab (db, declare->str);
  if (rc != SQLITE_OK)
    {
      table_free (t);
      return rc;
    }
  sqlite3_vtab_config (db, SQLITE_VTAB_INNOCUOUS);
  t->rows = -1;
  t->idle = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  *vtab = &t->base;
  return SQLITE_OK;
}

static int
shards_disconnect (sqlite3_vtab *vtab)
{
  table_free ((ShardsTable *) vtab);
  return SQLITE_OK;
}

/* The rows of every shard's table, counted once (an estimate for the
 * planner: the largest rowid less the least, for a table with one). */
static gint64
table_rows (ShardsTable *t)
{
  if (t->rows >= 0)
    return t->rows;
  t->rows = 0;
  for (guint i = 0; i < t->set->shards->len; i++)
    {
      sqlite3 *db = shard_db (t->set, i);
      g_autofree char *q = quoted (t->table);
      g_autofree char *sql = g_strdup_printf (t->has_rowid ? "SELECT coalesce(max(rowid) - min(rowid) + 1, 0)"
                                              " FROM main.%s" : "SELECT count(*) FROM main.%s", q);
      sqlite3_stmt *stmt;

      if (db && (sqlite3_prepare_v2) (db, sql, -1, &stmt, NULL) == SQLITE_OK)
        {
          if ((sqlite3_step) (stmt) == SQLITE_ROW)
            t->rows += sqlite3_column_int64 (stmt, 0);
          (sqlite3_finalize) (stmt);
        }
    }
  return t->rows;
}

static const char *
operator_sql (unsigned char op)
{
  switch (op)
    {
    case SQLITE_INDEX_CONSTRAINT_EQ: return "=";
    case SQLITE_INDEX_CONSTRAINT_GT: return ">";
    case SQLITE_INDEX_CONSTRAINT_LE: return "<=";
    case SQLITE_INDEX_CONSTRAINT_LT: return "<";
    case SQLITE_INDEX_CONSTRAINT_GE: return ">=";
    case SQLITE_INDEX_CONSTRAINT_NE: return "<>";
    case SQLITE_INDEX_CONSTRAINT_IS: return "IS";
    case SQLITE_INDEX_CONSTRAINT_ISNOT: return "IS NOT";
    case SQLITE_INDEX_CONSTRAINT_ISNULL: return "IS NULL";
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return "IS NOT NULL";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "LIKE";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "GLOB";
    case SQLITE_INDEX_CONSTRAINT_MATCH: return "MATCH";
    default: return NULL;
    }
}

/* The statement each shard runs for a plan goes in idxStr: a line of the
 * table's columns it gives (their numbers, "-" for none), then the SQL;
 * idxNum is the number of the argument whose value is the id of the one
 * row wanted (0: none), which only its shard is asked for. */
static int
shards_best_index (sqlite3_vtab *vtab, sqlite3_index_info *info)
{
  ShardsTable *t = (ShardsTable *) vtab;
  g_autoptr (GString) select = g_string_new ("SELECT ");
  g_autoptr (GString) where = g_string_new (NULL);
  g_autoptr (GString) used = g_string_new (NULL);
  g_autofree char *table = quoted (t->table);
  int n_args = 0, by_id = 0;
  gboolean match = FALSE, id_equal = FALSE;
  double rows = (double) table_rows (t) + 1;

  /* The columns the query reads: the others are NULL */
  g_string_append (select, t->has_rowid ? "rowid" : "NULL");
  for (guint i = 0; i < t->n_columns; i++)
    {
      gboolean wanted = i >= 63 ? (info->colUsed >> 63) & 1 : (info->colUsed >> i) & 1;

      if (!wanted || t->columns[i] == NULL)
        continue;
      {
        g_autofree char *q = quoted (t->columns[i]);

        g_string_append_printf (select, ", %s", q);
        g_string_append_printf (used, "%s%u", used->len ? "," : "", i);
      }
    }
  for (int c = 0; c < info->nConstraint; c++)
    {
      const struct sqlite3_index_constraint *k = &info->aConstraint[c];
      const char *op = operator_sql (k->op);
      g_autofree char *lhs = NULL;

      if (!k->usable || op == NULL)
        continue;
      if ((k->iColumn == -1 && t->has_rowid) || k->iColumn == t->id_column)
        lhs = g_strdup ("rowid");
      else if (k->iColumn >= 0 && (guint) k->iColumn < t->n_columns && t->columns[k->iColumn])
        lhs = quoted (t->columns[k->iColumn]);
      else if (t->fts && k->op == SQLITE_INDEX_CONSTRAINT_MATCH && k->iColumn >= 0
               && t->columns[k->iColumn] == NULL)
        lhs = g_strdup (table);
      else
        continue;
      if (k->op == SQLITE_INDEX_CONSTRAINT_MATCH && !t->fts)
        continue;
      g_string_append (where, where->len ? " AND " : " WHERE ");
      if (k->op == SQLITE_INDEX_CONSTRAINT_ISNULL || k->op == SQLITE_INDEX_CONSTRAINT_ISNOTNULL)
        {
          g_string_append_printf (where, "%s %s", lhs, op);
          info->aConstraintUsage[c].omit = 1;
          rows /= 2;
          continue;
        }
      n_args++;
      g_string_append_printf (where, "%s %s ?%d", lhs, op, n_args);
      info->aConstraintUsage[c].argvIndex = n_args;
      /* The shard compares as SQLite would here, but for MATCH, which
       * only the shard can */
      info->aConstraintUsage[c].omit = k->op == SQLITE_INDEX_CONSTRAINT_MATCH;
      if (k->op == SQLITE_INDEX_CONSTRAINT_MATCH)
        {
          match = TRUE;
          rows /= 100;
        }
      else if (strcmp (lhs, "rowid") == 0 && k->op == SQLITE_INDEX_CONSTRAINT_EQ)
        {
          id_equal = TRUE;
          if (by_id == 0)
            by_id = n_args;
        }
      else if (k->op == SQLITE_INDEX_CONSTRAINT_EQ || k->op == SQLITE_INDEX_CONSTRAINT_IS)
        rows /= 50;
      else
        rows /= 3;
    }
  g_string_append_printf (select, " FROM main.%s%s", table, where->str);
  /* Shard after shard is id order: an ORDER BY on the id alone is kept */
  if (!match && t->has_rowid && info->nOrderBy == 1 && !info->aOrderBy[0].desc
      && (info->aOrderBy[0].iColumn == -1 || info->aOrderBy[0].iColumn == t->id_column))
    {
      g_string_append (select, " ORDER BY rowid");
      info->orderByConsumed = 1;
    }
  if (id_equal)
    {
      info->estimatedRows = 1;
      info->estimatedCost = 10;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    }
  else
    {
      double shards = t->set->shards->len;

      info->estimatedRows = (sqlite3_int64) (rows < 1 ? 1 : rows);
      info->estimatedCost = 10 * shards + (rows < 1 ? 1 : rows);
    }
  info->idxNum = by_id;
  info->idxStr = sqlite3_mprintf ("%s\n%s", used->len ? used->str : "-", select->str);
  info->needToFreeIdxStr = 1;
  return info->idxStr ? SQLITE_OK : SQLITE_NOMEM;
}

static void
stmt_free (gpointer stmt)
{
  (sqlite3_finalize) (stmt);
}

/* A statement of @sql on shard @i: one prepared before and not in use,
 * or a new one (a lookup by id in a join runs the same one many times). */
static int
stmt_take (ShardsTable *t, guint i, sqlite3 *db, const char *sql, sqlite3_stmt **stmt)
{
  g_autofree char *key = g_strdup_printf ("%u\n%s", i, sql);
  GPtrArray *idle = g_hash_table_lookup (t->idle, key);

  if (idle && idle->len)
    {
      *stmt = g_ptr_array_steal_index_fast (idle, idle->len - 1);
      return SQLITE_OK;
    }
  return (sqlite3_prepare_v3) (db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL);
}

static void
stmt_give (ShardsTable *t, guint i, sqlite3_stmt *stmt)
{
  g_autofree char *key = NULL;
  GPtrArray *idle;

  (sqlite3_reset) (stmt);
  sqlite3_clear_bindings (stmt);
  key = g_strdup_printf ("%u\n%s", i, sqlite3_sql (stmt));
  idle = g_hash_table_lookup (t->idle, key);
  if (idle == NULL)
    {
      idle = g_ptr_array_new_with_free_func (stmt_free);
      g_hash_table_insert (t->idle, g_steal_pointer (&key), idle);
    }
  g_ptr_array_add (idle, stmt);
}

static int
shards_open (sqlite3_vtab *vtab, sqlite3_vtab_cursor **cursor)
{
  ShardsCursor *c = sqlite3_malloc (sizeof *c);

  if (c == NULL)
    return SQLITE_NOMEM;
  memset (c, 0, sizeof *c);
  c->table = (ShardsTable *) vtab;
  c->to_stmt = g_new (int, c->table->n_columns);
  *cursor = &c->base;
  return SQLITE_OK;
}

/* Forgets the plan's arguments; its statements stay with the cursor. */
static void
cursor_reset (ShardsCursor *c)
{
  if (c->stmt)
    (sqlite3_reset) (c->stmt);
  c->stmt = NULL;
  for (int i = 0; i < c->n_args; i++)
    sqlite3_value_free (c->args[i]);
  g_free (c->args);
  c->args = NULL;
  c->n_args = 0;
}

/* Gives the statements of the cursor's plan back to its table. */
static void
cursor_forget_plan (ShardsCursor *c)
{
  for (guint i = 0; c->held && i < c->table->set->shards->len; i++)
    if (c->held[i])
      stmt_give (c->table, i, c->held[i]);
  g_free (c->held);
  c->held = NULL;
  g_free (c->sql);
  c->sql = NULL;
}

static int
shards_close (sqlite3_vtab_cursor *cursor)
{
  ShardsCursor *c = (ShardsCursor *) cursor;

  cursor_reset (c);
  cursor_forget_plan (c);
  g_free (c->to_stmt);
  sqlite3_free (c);
  return SQLITE_OK;
}

static int
fail (ShardsCursor *c, const char *what, sqlite3 *db)
{
  sqlite3_free (c->table->base.zErrMsg);
  c->table->base.zErrMsg = sqlite3_mprintf ("%s: %s", what, db ? sqlite3_errmsg (db) : c->table->set->error);
  return SQLITE_ERROR;
}

/* Moves to the next row, in this shard or the ones after it. */
static int
advance (ShardsCursor *c)
{
  for (;;)
    {
      if (c->stmt)
        {
          int rc = (sqlite3_step) (c->stmt);

          if (rc == SQLITE_ROW)
            {
              c->row++;
              return SQLITE_OK;
            }
          (sqlite3_reset) (c->stmt);
          c->stmt = NULL;
          if (rc != SQLITE_DONE)
            {
              Shard *shard = g_ptr_array_index (c->table->set->shards, c->next - 1);

              return fail (c, shard->path, sqlite3_db_handle (c->held[c->next - 1]));
            }
        }
      if (c->next >= c->last)
        return SQLITE_OK;
      {
        guint i = c->next++;
        Shard *shard = g_ptr_array_index (c->table->set->shards, i);
        sqlite3 *db = shard_db (c->table->set, i);

        if (db == NULL)
          return fail (c, "cannot open", NULL);
        if (c->held[i] == NULL && stmt_take (c->table, i, db, c->sql, &c->held[i]) != SQLITE_OK)
          {
            g_debug ("%s: %s", c->sql, sqlite3_errmsg (db));
            return fail (c, shard->path, db);
          }
        for (int k = 0; k < c->n_args; k++)
          if ((sqlite3_bind_value) (c->held[i], k + 1, c->args[k]) != SQLITE_OK)
            return fail (c, shard->path, db);
        c->stmt = c->held[i];
      }
    }
}

/* The shard whose number is @number, or set->shards->len */
static guint
shard_numbered (StoreShards *set, gint64 number)
{
  guint lo = 0, hi = set->shards->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      Shard *shard = g_ptr_array_index (set->shards, mid);

      if (shard->number == number)
        return mid;
      if (shard->number < number)
        lo = mid + 1;
      else
        hi = mid;
    }
  return set->shards->len;
}

static int
shards_filter (sqlite3_vtab_cursor *cursor, int by_id, const char *plan, int argc, sqlite3_value **argv)
{
  ShardsCursor *c = (ShardsCursor *) cursor;
  ShardsTable *t = c->table;
  const char *sql = strchr (plan, '\n');
  guint n = t->set->shards->len;

  cursor_reset (c);
  if (c->sql == NULL || strcmp (c->sql, sql + 1) != 0)
    {
      cursor_forget_plan (c);
      for (guint i = 0; i < t->n_columns; i++)
        c->to_stmt[i] = -1;
      if (plan[0] != '-')
        {
          g_autofree char *line = g_strndup (plan, sql - plan);
          g_auto (GStrv) used = g_strsplit (line, ",", -1);

          for (guint k = 0; used[k]; k++)
            {
              guint64 column = g_ascii_strtoull (used[k], NULL, 10);

              if (column < t->n_columns)
                c->to_stmt[column] = k + 1;
            }
        }
      c->sql = g_strdup (sql + 1);
      c->held = g_new0 (sqlite3_stmt *, n ? n : 1);
    }
  c->n_args = argc;
  c->args = g_new0 (sqlite3_value *, argc ? argc : 1);
  for (int i = 0; i < argc; i++)
    if ((c->args[i] = sqlite3_value_dup (argv[i])) == NULL)
      return SQLITE_NOMEM;
  c->next = 0;
  c->last = n;
  c->row = 0;
  if (by_id > 0)
    {
      sqlite3_value *id = argv[by_id - 1];

      if (sqlite3_value_numeric_type (id) == SQLITE_INTEGER)
        {
          c->next = shard_numbered (t->set, SHARD_OF (sqlite3_value_int64 (id)));
          c->last = c->next < n ? c->next + 1 : n;
        }
    }
  return advance (c);
}

static int
shards_next (sqlite3_vtab_cursor *cursor)
{
  return advance ((ShardsCursor *) cursor);
}

static int
shards_eof (sqlite3_vtab_cursor *cursor)
{
  return ((ShardsCursor *) cursor)->stmt == NULL;
}

static int
shards_column (sqlite3_vtab_cursor *cursor, sqlite3_context *ctx, int i)
{
  ShardsCursor *c = (ShardsCursor *) cursor;

  if (i == c->table->id_column && c->table->has_rowid)
    sqlite3_result_int64 (ctx, sqlite3_column_int64 (c->stmt, 0));
  else if (i >= 0 && (guint) i < c->table->n_columns && c->to_stmt[i] > 0)
    sqlite3_result_value (ctx, sqlite3_column_value (c->stmt, c->to_stmt[i]));
  return SQLITE_OK;
}

static int
shards_rowid (sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid)
{
  ShardsCursor *c = (ShardsCursor *) cursor;

  *rowid = c->table->has_rowid ? sqlite3_column_int64 (c->stmt, 0) : c->row;
  return SQLITE_OK;
}

static sqlite3_module shards_module = {
  .iVersion = 0,
  .xCreate = shards_connect,
  .xConnect = shards_connect,
  .xBestIndex = shards_best_index,
  .xDisconnect = shards_disconnect,
  .xDestroy = shards_disconnect,
  .xOpen = shards_open,
  .xClose = shards_close,
  .xFilter = shards_filter,
  .xNext = shards_next,
  .xEof = shards_eof,
  .xColumn = shards_column,
  .xRowid = shards_rowid,
};

/**
 * _store_shards_register:
 * @set: (transfer full): the shards
 *
 * Makes the module deja_shards read @set on @db (which frees it when the
 * module goes).
 */
int
_store_shards_register (sqlite3 *db, StoreShards *set)
{
  return sqlite3_create_module_v2 (db, "deja_shards", &shards_module, set,
                                   (void (*) (void *)) _store_shards_free);
}
