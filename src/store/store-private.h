/* store-private.h — what the store*.c files share: the Store struct, the
 * prepared statements and the SQLite helpers.  Nothing outside the store
 * includes it. */
#pragma once

#include "store.h"

#include <sqlite3.h>

/* Every bind of the store is checked, and faults can be injected, in one
 * place: store-checked.c. */
int _store_bound (sqlite3_stmt *stmt, int rc);
int _store_step (sqlite3_stmt *stmt);
int _store_exec (sqlite3 *db, const char *sql, int (*callback) (void *, int, char **, char **),
                 void *data, char **errmsg);
int _store_prepare (sqlite3 *db, const char *sql, int len, unsigned int flags, sqlite3_stmt **stmt,
                    const char **tail);
void _store_forget_refusal (sqlite3_stmt *stmt);
int _store_injected (void);
void _store_checked_on_side (void);

/* Statement journals in memory (store-subjournal.c) */
int _store_subjournal_register (void);
void _store_subjournal_counts (int *in_memory, int *on_disk);
void _store_subjournal_bound (sqlite3_int64 bytes);
int _store_fts_side_handed_over (void);

/* A step that wrote: SQLITE_OK when it is done, else its failure (not
 * the connection's last error code, which a failure made outside SQLite
 * does not set). */
static inline int
_store_done (int rc)
{
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
/* @v in decimal at @out (at least 21 bytes), as printf's "%" G_GINT64_FORMAT
 * writes it, without parsing a format for each number written; returns
 * its length (no NUL is written). */
static inline gsize
_store_decimal (char *out, gint64 v)
{
  char digits[20];
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;
  gsize n = 0, len = 0;

  do
    digits[n++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    out[len++] = '-';
  while (n > 0)
    out[len++] = digits[--n];
  return len;
}
#define sqlite3_bind_text(s, i, t, n, d) _store_bound (s, (sqlite3_bind_text) (s, i, t, n, d))
#define sqlite3_bind_int(s, i, v) _store_bound (s, (sqlite3_bind_int) (s, i, v))
#define sqlite3_bind_int64(s, i, v) _store_bound (s, (sqlite3_bind_int64) (s, i, v))
#define sqlite3_bind_double(s, i, v) _store_bound (s, (sqlite3_bind_double) (s, i, v))
#define sqlite3_bind_null(s, i) _store_bound (s, (sqlite3_bind_null) (s, i))
#define sqlite3_bind_blob(s, i, b, n, d) _store_bound (s, (sqlite3_bind_blob) (s, i, b, n, d))
#define sqlite3_reset(s) (_store_forget_refusal (s), (sqlite3_reset) (s))
#define sqlite3_finalize(s) (_store_forget_refusal (s), (sqlite3_finalize) (s))
#define sqlite3_step(s) _store_step (s)
#define sqlite3_exec(d, q, c, a, e) _store_exec (d, q, c, a, e)
#define sqlite3_prepare_v2(d, q, n, s, t) _store_prepare (d, q, n, 0, s, t)
#define sqlite3_prepare_v3(d, q, n, f, s, t) _store_prepare (d, q, n, f, s, t)

G_BEGIN_DECLS

#define STORE_CACHE_KIB -65536   /* PRAGMA cache_size: 64 MiB */
/* For a command about to store archives (set_writing_pragmas()): it
 * appends rows in id order, and a page once written is seldom read again
 * before the end; a larger cache holds pages already in the log, each of
 * them memory touched for the first time (bench/README.md). */
#define STORE_APPEND_CACHE_KIB -16384   /* 16 MiB */
#define STORE_SCAN_CACHE_KIB -4096   /* for whole-table scans and sorts: 4 MiB (_store_scan_cache()) */
/* How long a command waits for another deja's write lock (two ingests
 * into one database take turns, file by file); readers never wait. */
#define STORE_BUSY_TIMEOUT_MS 120000
/* How deja opens every connection of its own but a shard's: without
 * SQLite's mutex.  Each is used by one thread at a time, handed from one
 * thread to another only through a queue or a join (a Store by the
 * thread that opened it; the full-text side's by its thread, opened and
 * closed by the writer while that thread is idle; the checkpointer's by
 * its thread): SQLite's "multi-thread" mode is then as safe as its
 * serialized one, and each call into SQLite (every bind, step and
 * column) no longer takes and releases a lock: about 1 % of an
 * ingest's CPU, 4 % of its writer's (perf, the realistic 64 MiB).  A
 * thread that reads beside the writer opens a Store of its own
 * (pipeline/threads.c).  A shard's connection keeps the mutex: the
 * workers of store-shards.c read it while the catalog's thread may ask
 * it through deja_shards. */
#define STORE_OPEN_ONE_THREAD SQLITE_OPEN_NOMUTEX
/* Files are committed together until they hold this much archive text:
 * each after the first a savepoint of its own, so that one that fails is
 * undone alone (the first one's failure rolls back the transaction). */
#define STORE_COMMIT_BYTES (64 * 1024 * 1024)
/* message_refs.kind (schema/012-compact-refs.sql) */
typedef enum {
  STORE_REF_REFERENCES = 0,
  STORE_REF_IN_REPLY_TO = 1,
} StoreRefKind;
#define STORE_OWN_SPANS_MAX 16   /* the pieces messages.own_text puts together
                                  * (schema/011-own-spans.sql) */

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
  STMT_INSERT_AUTHOR,
  STMT_INSERT_AUTHOR_ADDRESS,
  STMT_SET_TEXT,
  STMT_FIND_CANONICAL,
  STMT_INSERT_USENET,
  STMT_INSERT_LINK,
  N_STMTS
};

/* The named parameters of the statements that bind many (the messages
 * row, text signals, attachments, the separator log): each statement's
 * index of each is looked up once, when it is prepared (store->params),
 * and 0 where it has none. */
#define STORE_PARAMS(X) \
  X (id) X (file_id) X (byte_offset) X (byte_length) X (line_no) X (envelope) \
  X (message_id) X (subject) X (from_addr) X (from_name) X (date) X (date_raw) X (body) \
  X (charset) X (flags) X (own_text_stored) X (own_spans) X (quoted_lines) X (own_lines) \
  X (attachment_count) X (thread_id) X (parent_id) X (duplicate_of) X (missing_parent) \
  X (thread_flags) X (content_hash) X (text_damage) X (author_id) X (lang) \
  X (lang_reliable) X (words) X (sentences) X (code_lines) X (nonletter_share) \
  X (digit_share) X (upper_share) X (oov_share) \
  X (position) X (content_type) X (filename) X (size) X (encoding) \
  X (line_text) X (verdict) X (reason) X (shape)

#define STORE_PARAM_ENUM(name) PARAM_##name,
enum { STORE_PARAMS (STORE_PARAM_ENUM) N_PARAMS };
#undef STORE_PARAM_ENUM

typedef struct _StoreCheckpointer StoreCheckpointer;

typedef struct _StoreFtsSide StoreFtsSide;

struct _Store {
  sqlite3 *db;
  StoreCheckpointer *checkpointer;   /* while ingesting; see store-checkpoint.c */
  int wal_frames;          /* pages in the write-ahead log after the last commit */
  char *path;
  gboolean catalog;        /* a catalog of shards (store-catalog.c), read through deja_shards */
  struct _StoreShards *shards; /* and those shards (owned by the module that reads them) */
  GHashTable *senders;     /* a catalog's: the set's from_addr values (GBytes), read once
                              (store-thread.c), or NULL */
  gint64 planned_on_disk;  /* messages of the last threading plan made on disk, or 0 */
  GArray *thread_shard_rows;   /* a catalog's: the messages threading read last in their
                              shards (of StoreShardValues, by id), and the values they have
                              there of the columns the catalog keeps (store-thread.c) */
  GByteArray *thread_shard_values;
  gboolean stats_copy;     /* the stats read their copy of messages (store_stats_begin()) */
  gboolean author_rows_held;  /* the authors' copy of messages is kept (store_author_rows_hold()) */
  gboolean placeholders_in_shards; /* a catalog being made: its shards' placeholders are
                              taken by its first threading, those it keeps alone
                              (store_clear_thread_placeholders()) */
  sqlite3_stmt *stmts[N_STMTS];
  int params[N_STMTS][N_PARAMS];   /* each statement's index of each named parameter */
  GHashTable *cached;      /* SQL -> sqlite3_stmt *, kept prepared (_store_cached()) */
  gint64 file_id;          /* of the file being ingested, or 0 */
  GHashTable *group_ids;   /* name -> id, for this transaction's groups too */
  gint64 next_id;          /* messages.id of the next new message */
  gint64 first_id;         /* and the least it may be (store_set_shard()) */
  GArray *previous;        /* of StorePrevious: the rows of the file's content before, in order */
  guint previous_pos;      /* the next of them a new row may keep the id of; G_MAXUINT: none */
  GHashTable *author_ids;  /* address -> author id (gint64 *), loaded by the first message
                              stored; NULL when it must be read again */
  gint64 next_author;      /* the id a new address gets */
  GHashTable *author_ids_used; /* a shard's (keyed ids: identity_keyed_id()): the author
                              ids in use (gint64 *); NULL: a new address gets next_author */
  GString *spans_json;     /* messages.own_spans of the row being stored */
  gint64 file_bytes;       /* the size of the file being ingested */
  gint64 expected_bytes;   /* the archive bytes this command is about to store (0: not known) */
  gint64 begun_bytes;      /* and of those, the files begun so far */
  gint64 uncommitted;      /* archive bytes of the files finished since the last commit */
  guint uncommitted_files; /* and how many */
  gboolean savepoint;       /* the file under way has one (deja_file): files before it are in its transaction */
  guint lost_files;        /* files finished, then rolled back with a failed one (SQLite
                              undid the whole transaction); told by store_commit() */
  GArray *fts_rows;        /* of StoreFtsRow: rows of files with a savepoint, to be
                              indexed after it (store.c: fts_flush()) */
  gsize fts_bytes;         /* their text */
  guint fts_mark;          /* fts_rows->len when the file under way began */
  gsize fts_mark_bytes;    /* and fts_bytes */
  gboolean fts_direct;     /* the file under way indexes its rows as they come */
  dev_t dev;               /* the file open, for _store_open_second() */
  ino_t ino;
  const char *shard_schema; /* deja merge's writer: where the shard being merged is attached
                               (_store_prepare_sql()); NULL elsewhere */
  gboolean fts_used;       /* messages_fts was used on this connection (deja merge's writer,
                              an ingest that indexes its rows itself) */
  gboolean fts_beside;     /* an ingest's rows are indexed beside the writer (store-fts-side.c) */
  guint fts_lanes;         /* by this many threads */
  StoreFtsSide *fts_side;  /* that, once begun */
  GArray *fts_side_rows;   /* of StoreFtsRow: rows for it not handed over yet */
  gboolean fts_copied;     /* an index made beside was copied here: messages_fts must
                              not be used on this connection from then on */
  gboolean write_once;     /* in a rollback journal for a copy (store_write_once_begin()) */
  gboolean shard_opened;   /* deja merge's writer: the shard in slot 0 was not current when
                              attached (upgraded, or in a place it cannot write beside) */
  gboolean keys_unchecked; /* the transaction under way deletes no row, and SQLite does not
                              check its foreign keys: deja merge's writer, a group that
                              replaces no file (store-merge.c); an ingest's files at new
                              paths (store.c: keys_for_file()) */
  gboolean keys_always_checked; /* an ingest met a file that deletes rows: its transactions
                                  check foreign keys from then on (keys_for_file()) */
  guint commits;           /* transactions committed (store_commits()) */
  gboolean indexes_deferred; /* store_defer_indexes() dropped them here: a merge's rows go
                                in as appends (store-merge.c) */
  int claim_fd;            /* holds store_claim_writing()'s lock; -1 when none */
  gboolean other_writer;   /* another deja had claimed it when it was opened */
};

void _store_forget_authors (Store *store);

/* A row of the content a file had before (store_begin_file): a message
 * stored again at the same place with the same content keeps its id. */
typedef struct {
  gint64 offset;
  guint64 content_hash;
  gint64 id;
} StorePrevious;


StoreCheckpointer *_store_checkpointer_new (const char *path);
void _store_checkpointer_kick (StoreCheckpointer *checkpointer);
void _store_checkpointer_wait (StoreCheckpointer *checkpointer);
void _store_checkpointer_free (StoreCheckpointer *checkpointer);

gboolean _store_fail (Store *store, int rc, const char *what, GError **error);
gboolean _store_fail_why (Store *store, int rc, const char *why, const char *what, GError **error);
void _store_scan_cache (Store *store, gboolean on);
char *_store_file_uri (const char *path, const char *query);
gboolean _store_has_journal (const char *path);
gboolean _store_cannot_write_beside (const char *path);
gboolean _store_left_a_log (const char *path, GError **error);
gboolean _store_claimed_by_another (const char *path);
/* deja_state's key for the indexes a first ingest or merge builds at its
 * end (store-indexes.c) */
#define STORE_DEFERRED_INDEXES_KEY "deferred_indexes"
gboolean _store_attached_is_current (Store *store, gboolean *current, GError **error);
gboolean _store_attached_is_this_version (Store *store, gboolean *current, GError **error);
Store *_store_open_second (Store *first, GError **error);
void _store_keys_unchecked_from_here (Store *store);
void _store_keys_checked_again (Store *store);
int _store_prepare_sql (Store *store, const char *sql, sqlite3_stmt **stmt);
int _store_cached (Store *store, const char *sql, sqlite3_stmt **stmt);
void _store_release (Store *store, sqlite3_stmt *stmt);
sqlite3_stmt *_store_stmt (Store *store, int i, GError **error);

/* The filter's conditions on messages m (store-filter.c): parameters
 * :since, :until, :grouped, :authored, :lang, :distinct_text, and the temporary tables of group
 * globs and author texts that _store_filter_bind() fills.  Group names
 * are lower case, and so are the globs; an author text matches part of
 * the address or the name, in any case. */
#define STORE_FILTER_SQL \
  " (:since IS NULL OR m.date >= :since)" \
  " AND (:until IS NULL OR substr(m.date, 1, length(:until)) <= :until)" \
  " AND (NOT :grouped OR EXISTS (SELECT 1 FROM message_newsgroups mg" \
  "   JOIN newsgroups g ON g.id = mg.newsgroup_id JOIN temp.deja_filter_groups t" \
  "   WHERE mg.message_id = m.id AND g.name GLOB t.value))" \
  " AND (NOT :authored OR EXISTS (SELECT 1 FROM temp.deja_filter_authors a" \
  "   WHERE instr(lower(coalesce(m.from_addr, '')), a.value) > 0" \
  "      OR instr(lower(coalesce(m.from_name, '')), a.value) > 0))" \
  " AND (:lang IS NULL OR m.lang = :lang OR m.lang GLOB :lang || '-*')" \
  " AND (NOT :distinct_text OR NOT EXISTS (SELECT 1 FROM near_duplicates nd" \
  "   WHERE nd.message_id = m.id AND nd.cluster_id <> m.id))"

/* Posts whose authors asked not to be archived (X-No-Archive: yes),
 * per StoreFilter.no_archive, bound as :no_archive. */
#define STORE_NO_ARCHIVE_SQL \
  " (:no_archive = 0 OR (:no_archive = 2) =" \
  "  (m.flags IS NOT NULL AND instr(',' || m.flags || ',', ',no-archive,') > 0))"

gboolean _store_filter_fill (Store *store, const StoreFilter *filter, GError **error);
void _store_filter_bind (sqlite3_stmt *stmt, const StoreFilter *filter);
gboolean _store_build_left_indexes (Store *store, GError **error);
gboolean _store_query_int (Store *store, const char *sql, gint64 *value, gboolean *found,
                           GError **error);
gboolean _store_query_text (Store *store, const char *sql, const char *param, gint64 number,
                            char **value, GError **error);
void _store_bind_text_or_null (sqlite3_stmt *stmt, int i, const char *text);
gboolean _store_register_functions (Store *store, GError **error);
void _store_forget_shard_values (Store *store);
int _store_register_content_hash (sqlite3 *db);
int _store_register_sender_group (sqlite3 *db);
gboolean _store_sender_group_read (const guint8 *data, gsize size, StoreSenderRow *row);
gboolean _store_make_safe (Store *store, GError **error);
int _store_make_safe_db (sqlite3 *db);

/* A set of shards read as one table each (store-shards.c); SHARD_OF():
 * the shard a row id belongs to ('deja ingest --shard N') */
#define SHARD_OF(id) ((id) >> 32)
typedef struct _StoreShards StoreShards;
StoreShards *_store_shards_new (const char *const *paths, const gint64 *numbers, guint n);
void _store_shards_free (StoreShards *set);
void _store_shards_deja_only (StoreShards *set);
int _store_shards_register (sqlite3 *db, StoreShards *set);
int _store_shards_keep_extents (StoreShards *set, sqlite3 *db);
typedef char *(*StoreShardsEachFunc) (sqlite3 *db, guint i, gpointer data);
typedef void (*StoreShardsDoneFunc) (guint i, gpointer data);
int _store_shards_each (StoreShards *set, StoreShardsEachFunc func, gpointer data, StoreShardsDoneFunc done,
                        gpointer done_data, guint *failed, char **error);
void _store_shards_set_number (StoreShards *set, guint i, gint64 number);
void _store_shards_adopt (StoreShards *set, StoreShards *from);
typedef void (*StoreShardsRowFunc) (sqlite3_stmt *stmt, GArray *records);
typedef void (*StoreShardsTakeFunc) (const GArray *records, gpointer data);
int _store_shards_scan (StoreShards *set, const char *sql, StoreShardsRowFunc convert, gsize record_size,
                        StoreShardsTakeFunc take, gpointer data, char **error);
typedef int (*StoreShardsBindFunc) (sqlite3_stmt *stmt, gint64 number, gconstpointer bind_data);
int _store_shards_scan_bound (StoreShards *set, const char *sql, StoreShardsBindFunc bind, gconstpointer bind_data,
                              StoreShardsRowFunc convert, gsize record_size, StoreShardsTakeFunc take, gpointer data,
                              char **error);
/* Rows of a table read in place changed here, with the shards' values
 * the caller read of them */
typedef struct _StoreShardsUpdate StoreShardsUpdate;
StoreShardsUpdate *_store_shards_update_begin (sqlite3 *db, StoreShards *set, const char *table, sqlite3_stmt *rows,
                                               char **error);
int _store_shards_update_row (StoreShardsUpdate *u, gboolean read_shard);
void _store_shards_update_end (StoreShardsUpdate *u);
/* The ids each shard is asked for, a JSON array each (json_each(?N)) */
GHashTable *_store_shard_ids_new (void);
void _store_shard_ids_add (GHashTable *lists, gint64 id);
void _store_shard_ids_close (GHashTable *lists);
int _store_bind_shard_ids (sqlite3_stmt *stmt, int param, GHashTable *lists, gint64 number, gboolean none_too);
/* The ids a shard's rows are tested against, a sorted array each, bound
 * as a pointer ("deja_sorted_ids"; deja_sorted_ids_have(?N, value) on a
 * shard's connection) */
GHashTable *_store_shard_sorted_ids_new (void);
void _store_shard_sorted_ids_add (GHashTable *lists, gint64 id);
int _store_bind_shard_sorted_ids (sqlite3_stmt *stmt, int param, GHashTable *lists, gint64 number);
gboolean _store_sorted_ids_have (const GArray *ids, gint64 id);
/* Values of a row packed by a StoreShardsRowFunc into records of bytes
 * (record_size 1), read back in the caller's thread at *at: integers,
 * and texts as their length (-1: NULL), bytes and a NUL. */
void _store_pack_int (GArray *bytes, gint64 value);
void _store_pack_text (GArray *bytes, sqlite3_stmt *stmt, int column);
void _store_pack_bytes (GArray *bytes, const char *text, gint32 length);
gint64 _store_unpack_int (const GArray *bytes, gsize *at);
const char *_store_unpack_text (const GArray *bytes, gsize *at, gint32 *length);
void _store_pack_value (GArray *bytes, sqlite3_stmt *stmt, int column);
gsize _store_packed_value_size (const guint8 *data);
int _store_bind_packed_value (sqlite3_stmt *stmt, int param, const guint8 *data);

/* People's decisions taken from a shard attached as "shard" (store-merge.c) */
#define STORE_N_DECISIONS 2
extern const char *const _store_decisions_sql[STORE_N_DECISIONS];

/* A catalog of shards (store-catalog.c) */
gboolean _store_catalog_open (Store *store, gboolean unfinished, GError **error);
GHashTable *_store_schema_objects (GError **error);
gboolean _store_is_current_deja (sqlite3 *db);
gboolean _store_exec_sql (Store *store, const char *sql, GError **error);
char *_store_schema_index_sql (const char *name);
gboolean _store_int_array_get (const char *json, gsize len, gint64 index, gint64 *count,
                               gint64 *value);
void _store_bind_named (sqlite3_stmt *stmt, const char *name, const char *text);
gboolean _store_copy_begin (Store *store, const char *copy_sql);
void _store_copy_end (Store *store, const char *drop_sql);
/* The columns of messages the authors' list and roles read, copied into
 * a TEMP table (store-authors.c): id, thread_id, parent_id,
 * duplicate_of, author_id, lang */
#define STORE_AUTHOR_ROWS_COPY "temp.deja_author_rows"
gboolean _store_author_rows_begin (Store *store, gboolean *made);
void _store_author_rows_end (Store *store, gboolean made);
gboolean _store_run_rows (Store *store, sqlite3_stmt *stmt, StoreRowFunc func, gpointer user_data,
                          const char *what, GError **error);

/* FTS5's structure record (store-fts-copy.c): its segments, level by
 * level, each with its id and its first and last page. */
typedef struct {
  guint64 id, first, last;
} StoreFtsSegment;

typedef struct {
  guint64 merging;         /* its first segments being merged into the next level's last */
  GArray *segments;        /* of StoreFtsSegment */
} StoreFtsLevel;

typedef struct {
  guint32 cookie;          /* of the configuration */
  guint64 writes;          /* FTS5's count of leaves written, for its merges */
  guint n_levels;
  StoreFtsLevel levels[64];
} StoreFtsStructure;

/* FTS5's structure record: messages_fts_data's row of this id */
#define STORE_FTS_STRUCTURE_ROWID 10
gboolean _store_fts_structure_decode (const guint8 *data, gsize len, StoreFtsStructure *s);
GByteArray *_store_fts_structure_encode (const StoreFtsStructure *s);
void _store_fts_structure_clear (StoreFtsStructure *s);
guint _store_fts_structure_segments (const StoreFtsStructure *s);
guint _store_fts_record_segments (const guint8 *data, gsize len);
gboolean _store_fts_structure_add (StoreFtsStructure *into, const StoreFtsStructure *from, GArray *ids);
typedef enum {
  STORE_FTS_COPY_SHARD,    /* deja merge: a shard's, attached as "shard" */
  STORE_FTS_COPY_BESIDE,   /* an ingest's, made beside its writer, as "fts_side" */
} StoreFtsCopyFrom;
gboolean _store_fts_copy (Store *store, StoreFtsCopyFrom from, guint *segments, const char **why,
                          GError **error);

/* An ingest's full-text index made beside its writer (store-fts-side.c) */
typedef struct {
  gint64 id;
  char *subject;
  char *own_text;
  gsize own_text_len;
  gsize bytes;             /* of both */
} StoreFtsRow;

gboolean _store_fts_segments (Store *store, guint *n, GError **error);
GArray *_store_fts_rows_new (guint reserve);

StoreFtsSide *_store_fts_side_new (guint lanes);
guint _store_fts_side_lanes (const StoreFtsSide *side);
gboolean _store_fts_side_open (const StoreFtsSide *side);
/* Past this many segments in messages_fts after a copy, FTS5 merges them
 * (store.c: fts_tidy()) */
#define STORE_FTS_SEGMENTS_MAX 64
guint _store_fts_side_unmerged (guint segments, gint64 expected_bytes, gint64 begun_bytes, gboolean shard);
gboolean _store_fts_side_begin (StoreFtsSide *side, Store *store, guint unmerged, GError **error);
typedef enum {
  STORE_FTS_SIDE_BEGIN,
  STORE_FTS_SIDE_SAVEPOINT,
  STORE_FTS_SIDE_RELEASE,
  STORE_FTS_SIDE_ROLLBACK_TO,  /* the rollbacks last */
  STORE_FTS_SIDE_ROLLBACK,
} StoreFtsSideStatement;
void _store_fts_side_follow (StoreFtsSide *side, StoreFtsSideStatement statement);
gboolean _store_fts_side_fits (Store *store, gboolean *fits, GError **error);
GByteArray *_store_fts_side_seed (guint columns);
void _store_fts_side_rows (StoreFtsSide *side, GArray *rows, gboolean delete);
gboolean _store_fts_side_finish (StoreFtsSide *side, Store *store, GError **error);
const char *_store_fts_side_schema (const StoreFtsSide *side, guint k);
void _store_fts_side_end (StoreFtsSide *side, Store *store);
void _store_fts_side_free (StoreFtsSide *side, Store *store);

G_END_DECLS
