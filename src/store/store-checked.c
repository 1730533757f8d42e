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
 */
#include "store-private.h"

#include <stdio.h>

/* The undecorated SQLite functions (store-private.h defines macros of
 * these names for the rest of the store). */
#undef sqlite3_step
#undef sqlite3_exec
#undef sqlite3_prepare_v2
#undef sqlite3_prepare_v3

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
  return sqlite3_step (stmt);
}

int
_store_exec (sqlite3 *db, const char *sql, int (*callback) (void *, int, char **, char **),
             void *data, char **errmsg)
{
  if (fault ("exec", sql, NULL))
    return SQLITE_IOERR;
  return sqlite3_exec (db, sql, callback, data, errmsg);
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
  return sqlite3_prepare_v3 (db, sql, len, flags, stmt, tail);
}

/* A statement finalized or reset after a refused bind leaves nothing
 * behind for another statement at its address. */
void
_store_forget_refusal (sqlite3_stmt *stmt)
{
  if (refused.stmt == stmt)
    refused.stmt = NULL;
}
