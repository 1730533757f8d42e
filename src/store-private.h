/* store-private.h — what store.c and store-query.c share. */
#pragma once

#include "store.h"

#include <sqlite3.h>

G_BEGIN_DECLS

enum {
  STMT_INSERT_MESSAGE,
  STMT_INSERT_REF,
  STMT_INSERT_GROUP,
  STMT_SELECT_GROUP,
  STMT_INSERT_MESSAGE_GROUP,
  STMT_INSERT_LOG,
  STMT_INSERT_ATTACHMENT,
  STMT_FTS_DELETE_FILE,
  STMT_FTS_INSERT,
  N_STMTS
};

struct _Store {
  sqlite3 *db;
  char *path;
  sqlite3_stmt *stmts[N_STMTS];
  gint64 file_id;          /* of the file being ingested, or 0 */
  GHashTable *group_ids;   /* name -> id, for this transaction's groups too */
};

gboolean _store_fail (Store *store, int rc, const char *what, GError **error);
void _store_bind_text_or_null (sqlite3_stmt *stmt, int i, const char *text);
gboolean _store_register_functions (Store *store, GError **error);
void _store_bind_named (sqlite3_stmt *stmt, const char *name, const char *text);
gboolean _store_run_rows (Store *store, sqlite3_stmt *stmt, StoreRowFunc func, gpointer user_data,
                          const char *what, GError **error);

G_END_DECLS
