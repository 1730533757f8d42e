/* store-checked.c — every SQLite call of the store, checked in one place.
 *
 * Binding: SQLite refuses a value too large (SQLITE_TOOBIG, SQLITE_NOMEM),
 * and the parameter stays NULL: a statement stepped after that stored a
 * NULL in silence.  store-private.h routes every
 * sqlite3_bind_*() of the store through _store_bound(), which keeps the
 * first refusal of the statement; the statement's next sqlite3_step()
 * returns it instead of running, so that the caller's usual error path
 * reports it (SQLite's own message: "string or blob too big").
 *
 * Faults: DEJA_STORE_FAULT=N makes the Nth call of the store to
 * sqlite3_prepare_v2/v3(), sqlite3_step() or sqlite3_exec() fail with
 * SQLITE_IOERR, as a failing disk would, and says so on stderr
 * (DEJA_STORE_FAULT_SIDE=N: the Nth of the thread that makes an ingest's
 * full-text index, store-fts-side.c)
 * (tests/test_faults.py walks N over every call of an ingest and of the
 * commands that read, and checks that each failure is reported, never a
 * crash or a silent NULL).  Unset, it costs one comparison a call.
 * DEJA_STORE_COUNT=1 says at exit how many statements were compiled.
 *
 * Schema changes: another connection may change the schema while this
 * one prepares a statement on messages_fts (one of two ingests creating
 * the same database drops its deferred indexes, then builds them).
 * FTS5's constructor then reads its records on the new schema cookie;
 * SQLite does not reload a schema inside a constructor, so it fails with
 * SQLITE_SCHEMA ("vtable constructor failed: messages_fts"), and
 * sqlite3_prepare() tries once more only, as sqlite3_step() prepares a
 * statement again once in each try.  Each call here tries again on the
 * new schema, SCHEMA_TRIES times at most (the CI run of a9a7500 failed
 * on two changes; tests/test-store.c makes three).
 */
#include "store-private.h"

#include <stdio.h>
#include <stdlib.h>

/* The undecorated SQLite functions (store-private.h defines macros of
 * these names for the rest of the store). */
#undef sqlite3_step
#undef sqlite3_exec
#undef sqlite3_prepare_v2
#undef sqlite3_prepare_v3

#define SCHEMA_TRIES 100

static _Thread_local struct {
  sqlite3_stmt *stmt;
  int rc;
} refused;

static gint calls, side_calls;

/* The thread that makes an ingest's full-text index beside its writer
 * (store-fts-side.c) counts its calls apart, for DEJA_STORE_FAULT_SIDE:
 * counted with the writer's, they would come in no fixed order. */
static _Thread_local gboolean on_side;

void
_store_checked_on_side (void)
{
  on_side = TRUE;
}

static gpointer
read_fault_at (gpointer name)
{
  const char *env = g_getenv (name);

  return GINT_TO_POINTER (env ? (gint) g_ascii_strtoll (env, NULL, 10) : 0);
}

static _Thread_local int injected;

/* Whether this call is the one DEJA_STORE_FAULT (or _SIDE) names (@sql,
 * or @stmt's SQL, read only then: what it runs, for the note). */
static gboolean
fault (const char *what, const char *sql, sqlite3_stmt *stmt)
{
  static GOnce once = G_ONCE_INIT, once_side = G_ONCE_INIT;
  gint at = on_side ? GPOINTER_TO_INT (g_once (&once_side, read_fault_at, "DEJA_STORE_FAULT_SIDE"))
                    : GPOINTER_TO_INT (g_once (&once, read_fault_at, "DEJA_STORE_FAULT"));

  if (at <= 0 || g_atomic_int_add (on_side ? &side_calls : &calls, 1) + 1 != at)
    return FALSE;
  if (sql == NULL && stmt != NULL)
    sql = sqlite3_sql (stmt);
  fprintf (stderr, "deja: [test] store fault injected at call %d%s (%s: %.60s)\n", at,
           on_side ? " of the full-text index's thread" : "", what, sql ? sql : "");
  injected = SQLITE_IOERR;
  return TRUE;
}

/* The result code of the fault injected last on this thread, or
 * SQLITE_OK (for _store_fail(), as the connection knows nothing of it). */
int
_store_injected (void)
{
  return injected;
}

int
_store_bound (sqlite3_stmt *stmt, int rc)
{
  /* SQLITE_RANGE: the statement has no such parameter.  Statements of
   * one table share their binding code and not all use every parameter
   * (threading's ?2, the batch, is only in the batched variant): nothing
   * is lost. */
  if (rc != SQLITE_OK && rc != SQLITE_RANGE && refused.stmt == NULL)
    {
      refused.stmt = stmt;
      refused.rc = rc;
    }
  return rc;
}

/* SQLITE_SCHEMA from a step means the statement could not be prepared
 * again: it ran nothing, and runs from its start after a reset. */
static int
step_on_new_schema (sqlite3_stmt *stmt)
{
  int rc = sqlite3_step (stmt);

  for (int tries = 1; rc == SQLITE_SCHEMA && tries < SCHEMA_TRIES; tries++)
    {
      sqlite3_reset (stmt);
      rc = sqlite3_step (stmt);
    }
  return rc;
}

/* DEJA_STORE_COUNT=1: how many statements the store compiled, said at
 * exit (tests/test_habits.py holds an ingest to none a file), and how
 * many statement journals it kept in memory (store-subjournal.c). */
static gint prepared[2];

static void
say_prepared (void)
{
  int in_memory, on_disk;

  fprintf (stderr, "deja: [test] %d statements prepared, %d by the full-text index's thread\n",
           g_atomic_int_get (&prepared[0]), g_atomic_int_get (&prepared[1]));
  _store_subjournal_counts (&in_memory, &on_disk);
  fprintf (stderr, "deja: [test] %d statement journals kept in memory, %d of them went to a file\n",
           in_memory, on_disk);
  fprintf (stderr, "deja: [test] %d hand-overs to the full-text index's thread\n",
           _store_fts_side_handed_over ());
}

static gpointer
count_prepared (gpointer unused)
{
  (void) unused;
  if (g_getenv ("DEJA_STORE_COUNT") == NULL)
    return GINT_TO_POINTER (FALSE);
  atexit (say_prepared);
  return GINT_TO_POINTER (TRUE);
}

static int
prepare_on_new_schema (sqlite3 *db, const char *sql, int len, unsigned int flags, sqlite3_stmt **stmt,
                       const char **tail)
{
  static GOnce once = G_ONCE_INIT;
  int rc;

  if (g_once (&once, count_prepared, NULL))
    g_atomic_int_inc (&prepared[on_side ? 1 : 0]);
  rc = sqlite3_prepare_v3 (db, sql, len, flags, stmt, tail);

  for (int tries = 1; rc == SQLITE_SCHEMA && tries < SCHEMA_TRIES; tries++)
    rc = sqlite3_prepare_v3 (db, sql, len, flags, stmt, tail);
  return rc;
}

int
_store_step (sqlite3_stmt *stmt)
{
  if (refused.stmt != NULL && refused.stmt == stmt)
    {
      int rc = refused.rc;

      refused.stmt = NULL;
      return rc;
    }
  if (fault ("step", NULL, stmt))
    return SQLITE_IOERR;
  return step_on_new_schema (stmt);
}

/* sqlite3_exec() without its callback (no caller in the store has one),
 * each statement prepared and stepped as above. */
int
_store_exec (sqlite3 *db, const char *sql, int (*callback) (void *, int, char **, char **),
             void *data, char **errmsg)
{
  int rc = SQLITE_OK;

  (void) data;
  g_return_val_if_fail (callback == NULL, SQLITE_MISUSE);
  if (errmsg != NULL)
    *errmsg = NULL;
  if (fault ("exec", sql, NULL))
    return SQLITE_IOERR;
  while (rc == SQLITE_OK && sql != NULL && *sql != '\0')
    {
      sqlite3_stmt *stmt = NULL;
      const char *rest = NULL;

      rc = prepare_on_new_schema (db, sql, -1, 0, &stmt, &rest);
      if (rc == SQLITE_OK && stmt != NULL)
        {
          while ((rc = step_on_new_schema (stmt)) == SQLITE_ROW)
            ;
          /* after a failed step, the statement's error stays the
           * connection's through its finalization */
          sqlite3_finalize (stmt);
          if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        }
      sql = rest;
    }
  if (rc != SQLITE_OK && errmsg != NULL)
    *errmsg = sqlite3_mprintf ("%s", sqlite3_errmsg (db));
  return rc;
}

int
_store_prepare (sqlite3 *db, const char *sql, int len, unsigned int flags, sqlite3_stmt **stmt,
                const char **tail)
{
  if (fault ("prepare", sql, NULL))
    {
      *stmt = NULL;
      return SQLITE_IOERR;
    }
  return prepare_on_new_schema (db, sql, len, flags, stmt, tail);
}

/* A statement finalized or reset after a refused bind leaves nothing
 * behind for another statement at its address. */
void
_store_forget_refusal (sqlite3_stmt *stmt)
{
  if (refused.stmt == stmt)
    refused.stmt = NULL;
}
