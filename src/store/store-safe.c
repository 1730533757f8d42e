/* store-safe.c — how deja's connections read a database made by anyone.
 *
 * A database can come from a colleague or a data repository: its schema
 * is SQL that someone else may have written.  Every connection deja opens
 * is in SQLite's defensive mode (no statement may corrupt the file on
 * purpose), with triggers off (deja's schema has none) and
 * trusted_schema off: SQL stored in the schema (views, generated columns,
 * defaults, expression indexes) may only call functions marked
 * innocuous.  store.c also refuses a database whose views or triggers
 * are not deja's own, and deja never executes SQL text read from a
 * database (store-indexes.c keeps index names, not statements).
 *
 * messages.own_text, a generated column (schema/017-own-text-nested.sql),
 * reads the offsets in own_spans with json_array_length() and
 * json_extract(), which SQLite 3.40 does not mark innocuous, so that with
 * trusted_schema off the column could not be computed.  Each connection
 * therefore overloads those two functions, with the argument counts the
 * schema uses, by innocuous ones that read what deja writes there: a JSON
 * array of integers, and paths '$[N]'.  On that they answer as SQLite's
 * do (tests/test-store.c compares them on every stored row); on anything
 * else (only a hand-made database holds it) they answer NULL, so that
 * own_text is NULL, where SQLite's would fail the statement.  Other
 * programs (sqlite3, Python, R) read the same column with SQLite's own.
 */
#include "store-private.h"

#include <string.h>

static const unsigned char *
skip_space (const unsigned char *p, const unsigned char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* One JSON integer (RFC 8259: -?(0|[1-9][0-9]*)) that fits in 64 bits. */
static const unsigned char *
read_integer (const unsigned char *p, const unsigned char *end, gint64 *value)
{
  gboolean negative = p < end && *p == '-';
  guint64 v = 0;
  const unsigned char *digits;

  if (negative)
    p++;
  digits = p;
  while (p < end && g_ascii_isdigit (*p))
    {
      guint d = *p - '0';

      if (v > ((guint64) G_MAXINT64 - d) / 10)
        return NULL;
      v = v * 10 + d;
      p++;
    }
  if (p == digits || (*digits == '0' && p - digits > 1))
    return NULL;
  /* a fraction or an exponent makes it a real number: not deja's */
  if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
    return NULL;
  *value = negative ? -(gint64) v : (gint64) v;
  return p;
}

/**
 * _store_int_array_get:
 * @json: (array length=len): the text
 * @index: the element wanted, or -1 for none
 * @count: (out): how many elements the array has
 * @value: (out): element @index, when it exists
 *
 * Reads @json as a JSON array of integers.
 *
 * Returns: %FALSE when @json is not one
 */
gboolean
_store_int_array_get (const char *json, gsize len, gint64 index, gint64 *count, gint64 *value)
{
  const unsigned char *p = (const unsigned char *) json, *end = p + len;
  gint64 n = 0;

  p = skip_space (p, end);
  if (p == end || *p++ != '[')
    return FALSE;
  p = skip_space (p, end);
  if (p < end && *p == ']')
    p++;
  else
    for (;;)
      {
        gint64 v;

        if ((p = read_integer (p, end, &v)) == NULL)
          return FALSE;
        if (n++ == index)
          *value = v;
        p = skip_space (p, end);
        if (p < end && *p == ',')
          {
            p = skip_space (p + 1, end);
            continue;
          }
        if (p < end && *p == ']')
          {
            p++;
            break;
          }
        return FALSE;
      }
  if (skip_space (p, end) != end)
    return FALSE;
  *count = n;
  return TRUE;
}

/* '$[N]' -> N; -1 for any other path */
static gint64
array_path_index (const char *path, gsize len)
{
  gint64 index = 0;

  if (len < 4 || memcmp (path, "$[", 2) != 0 || path[len - 1] != ']')
    return -1;
  for (gsize i = 2; i < len - 1; i++)
    {
      if (!g_ascii_isdigit (path[i]) || (i == 2 && path[i] == '0' && len > 4) || index > G_MAXINT32)
        return -1;
      index = index * 10 + (path[i] - '0');
    }
  return index;
}

static void
array_length (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const char *json = (const char *) sqlite3_value_text (argv[0]);
  gint64 count, unused;

  if (json != NULL && _store_int_array_get (json, sqlite3_value_bytes (argv[0]), -1, &count, &unused))
    sqlite3_result_int64 (ctx, count);
  else
    sqlite3_result_null (ctx);
}

static void
extract (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const char *json = (const char *) sqlite3_value_text (argv[0]);
  const char *path = (const char *) sqlite3_value_text (argv[1]);
  gint64 index, count, value;

  if (json == NULL || path == NULL ||
      (index = array_path_index (path, sqlite3_value_bytes (argv[1]))) < 0 ||
      !_store_int_array_get (json, sqlite3_value_bytes (argv[0]), index, &count, &value) ||
      index >= count)
    sqlite3_result_null (ctx);
  else
    sqlite3_result_int64 (ctx, value);
}

/**
 * _store_make_safe:
 *
 * Sets a new connection up to read a database made by anyone (see the
 * top of this file).
 */
gboolean
_store_make_safe (Store *store, GError **error)
{
  int rc = _store_make_safe_db (store->db);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot set the connection up safely", error);
  return TRUE;
}

/* The same, for a connection the store has not wrapped (a shard's,
 * store-shards.c): SQLITE_OK, or what failed. */
int
_store_make_safe_db (sqlite3 *db)
{
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc;

  if (sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK ||
      sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) != SQLITE_OK ||
      sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL) != SQLITE_OK)
    return SQLITE_ERROR;
  rc = sqlite3_create_function (db, "json_array_length", 1, flags, NULL, array_length, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function (db, "json_extract", 2, flags, NULL, extract, NULL, NULL);
  return rc;
}
