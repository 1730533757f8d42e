/* store-thread-batches.c — threading in batches that fit in memory.
 *
 * Threading holds about 300 bytes a message (inputs, Message-ID strings,
 * containers): 230 MiB for 800,000 messages.  Messages meet only through
 * Message-IDs, their own and those they cite, so the connected components
 * of that graph can be threaded separately with the same result.  Here
 * the components are found with a union-find over 64-bit hashes of the
 * Message-IDs (about 50 bytes a message, freed before threading starts; a
 * hash collision only joins two components, which threads them together
 * correctly), whole components are packed into batches in the order of
 * their first message, and each message's batch goes into a TEMP table
 * that the loading queries join (store-thread.c).
 *
 * That union-find holds 50 to 70 bytes a message while it is built: some
 * GiB for a hundred million.  Past store_thread_plan_memory() messages the same
 * components are found on disk instead, in TEMP tables (plan_on_disk()):
 * labels propagated along the references until every node of a component
 * has the smallest, in a few passes over the references (3 on the
 * realistic corpus); memory stays that of SQLite's page caches.
 *
 * After deja merge into an empty database, the plan in memory can leave
 * out the components that keep their shards' threads (StoreThreadKeep,
 * keep_components()): its one scan of messages also reads each one's
 * sender and thread columns, and its batches then hold only the
 * components that cross shards (1 % of the realistic 1 GiB in 8).
 *
 * A catalog being made (deja catalog) has that plan read its shards
 * themselves, every shard at once, a worker a CPU (_store_shards_scan()):
 * the rows are each shard's own while nothing is changed here yet, and
 * through the catalog's tables they came one shard after another, every
 * column through SQLite's virtual table.  The workers turn each row into
 * a PlanMessage or PlanRef (its keys hashed there); the union-find takes
 * them here, shard after shard, as it took the rows: the same plan
 * (realistic 1 GiB, 2 cores: the plan's rows 0.85 → 0.33 s in 8 shards, 0.90 →
 * 0.38 s in 64).
 */
#include "store-private.h"
#include "fnv.h"
#include "thread.h"
#include "memory.h"
#include "id-hash.h"

#include <string.h>

typedef struct {
  guint64 *keys;        /* open addressing: hash of a Message-ID, 0 = empty */
  guint32 *nodes;       /* the node of each key */
  gsize size, used;     /* slots (a power of two), keys */
  GArray *parent;       /* of guint32: union-find forest, one entry a node */
} Ids;

static void
ids_init (Ids *ids)
{
  ids->size = 1 << 16;
  ids->used = 0;
  ids->keys = g_new0 (guint64, ids->size);
  ids->nodes = g_new (guint32, ids->size);
  ids->parent = g_array_new (FALSE, FALSE, sizeof (guint32));
}

static void
ids_clear (Ids *ids)
{
  g_clear_pointer (&ids->keys, g_free);
  g_clear_pointer (&ids->nodes, g_free);
  g_clear_pointer (&ids->parent, g_array_unref);
}

static guint32
new_node (Ids *ids)
{
  guint32 node = ids->parent->len;

  g_array_append_val (ids->parent, node);
  return node;
}

static gsize
slot_of (const Ids *ids, guint64 key)
{
  gsize i = (gsize) (key ^ (key >> 29)) & (ids->size - 1);

  while (ids->keys[i] != 0 && ids->keys[i] != key)
    i = (i + 1) & (ids->size - 1);
  return i;
}

static void
grow (Ids *ids)
{
  Ids old = *ids;

  ids->size *= 2;
  ids->keys = g_new0 (guint64, ids->size);
  ids->nodes = g_new (guint32, ids->size);
  for (gsize i = 0; i < old.size; i++)
    if (old.keys[i] != 0)
      {
        gsize j = slot_of (ids, old.keys[i]);
        ids->keys[j] = old.keys[i];
        ids->nodes[j] = old.nodes[i];
      }
  g_free (old.keys);
  g_free (old.nodes);
}

/* The key of a string: its FNV-1a hash, never 0 (an empty slot). */
static guint64
key_of (const char *s)
{
  guint64 key = fnv_field (FNV_START, s, strlen (s));

  return key + (key == 0);
}

/* The node of a Message-ID (its key_of()), made on first sight. */
static guint32
node_of_key (Ids *ids, guint64 key)
{
  gsize i;

  if (2 * (ids->used + 1) > ids->size)
    grow (ids);
  i = slot_of (ids, key);
  if (ids->keys[i] == 0)
    {
      ids->keys[i] = key;
      ids->nodes[i] = new_node (ids);
      ids->used++;
    }
  return ids->nodes[i];
}

static guint32
find (Ids *ids, guint32 node)
{
  guint32 *parent = (guint32 *) ids->parent->data;

  while (parent[node] != node)
    {
      parent[node] = parent[parent[node]];   /* path halving */
      node = parent[node];
    }
  return node;
}

static void
unite (Ids *ids, guint32 a, guint32 b)
{
  guint32 *parent = (guint32 *) ids->parent->data;

  a = find (ids, a);
  b = find (ids, b);
  parent[MAX (a, b)] = MIN (a, b);
}

/* What the plan learns of each message when it may keep threads
 * (StoreThreadKeep): the range it came from, and its stored thread
 * columns, as its ThreadFlags and the marks above them. */
enum {
  MARK_ROOT = 1 << 8,          /* its thread's first message */
  MARK_COPY = 1 << 9,          /* a later copy of a Message-ID */
  MARK_AGAIN = 1 << 10,        /* its component is threaded again, whatever else */
  MARK_FLAGS = MARK_ROOT - 1,
};

/* A sender's address seen under more than one range */
#define SENDER_MIXED G_MAXINT32

typedef struct {
  const StoreThreadKeep *keep;
  GArray *origin;              /* of gint32: each message's range, -1 none */
  GArray *marks;               /* of guint16 */
  GHashTable *senders;         /* hash of an address (gint64 *) → its range + 2, or SENDER_MIXED */
} Keeping;

static void
keeping_init (Keeping *k, const StoreThreadKeep *keep, gint64 n)
{
  k->keep = keep;
  k->origin = g_array_sized_new (FALSE, FALSE, sizeof (gint32), n);
  k->marks = g_array_sized_new (FALSE, FALSE, sizeof (guint16), n);
  k->senders = deja_id_table_new (g_free, NULL);
}

static void
keeping_clear (Keeping *k)
{
  g_clear_pointer (&k->origin, g_array_unref);
  g_clear_pointer (&k->marks, g_array_unref);
  g_clear_pointer (&k->senders, g_hash_table_unref);
}

/* The range @id is in, or -1 */
static gint32
origin_of (const StoreThreadKeep *keep, gint64 id)
{
  guint lo = 0, hi = keep->n_ranges;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (id < keep->ranges[mid].first)
        hi = mid;
      else if (id > keep->ranges[mid].last)
        lo = mid + 1;
      else
        return (gint32) mid;
    }
  return -1;
}

/* What the plan reads of a message: a row of plan_messages_sql */
typedef struct {
  gint64 id;
  guint64 message_key;     /* key_of() its Message-ID, 0: none */
  guint64 sender_key;      /* of its sender's address, 0: none (keeping only) */
  guint16 marks;           /* its ThreadFlags and marks (keeping only), MARK_AGAIN but for
                              its range (keeping_add()) */
} PlanMessage;

/* and of a reference: a row of plan_refs_sql */
typedef struct {
  gint64 id;
  guint64 ref_key;
} PlanRef;

/* What the plan reads of each message ([1]: and what StoreThreadKeep
 * needs, keeping_add()), then of each reference, in the order of their
 * ids: [0] here, [1] in each shard of a catalog, its own tables. */
#define PLAN_MESSAGES_SQL(schema) "SELECT id, message_id FROM " schema "messages ORDER BY id"
#define PLAN_KEEPING_SQL(schema) \
  "SELECT id, message_id, from_addr, thread_id, duplicate_of, thread_flags FROM " schema "messages ORDER BY id"
#define PLAN_REFS_SQL(schema) "SELECT message_id, ref FROM " schema "message_refs ORDER BY message_id"
static const char *const plan_messages_sql[2][2] = {
  { PLAN_MESSAGES_SQL (""), PLAN_KEEPING_SQL ("") },
  { PLAN_MESSAGES_SQL ("main."), PLAN_KEEPING_SQL ("main.") },
};
static const char *const plan_refs_sql[2] = { PLAN_REFS_SQL (""), PLAN_REFS_SQL ("main.") };

/* A row of plan_messages_sql (either): pure, for any thread */
static void
plan_message_of (sqlite3_stmt *stmt, PlanMessage *m)
{
  const char *message_id = (const char *) sqlite3_column_text (stmt, 1);

  *m = (PlanMessage) { .id = sqlite3_column_int64 (stmt, 0), .message_key = message_id ? key_of (message_id) : 0 };
  if (sqlite3_column_count (stmt) == 6)
    {
      const char *from = (const char *) sqlite3_column_text (stmt, 2);
      gboolean unknown = FALSE;
      guint16 marks = thread_flags_from_string ((const char *) sqlite3_column_text (stmt, 5), &unknown);

      if (sqlite3_column_type (stmt, 4) != SQLITE_NULL)
        marks |= MARK_COPY;
      else if (sqlite3_column_type (stmt, 3) != SQLITE_NULL && sqlite3_column_int64 (stmt, 3) == m->id)
        marks |= MARK_ROOT;
      /* never threaded, joined by subject, or with a flag this deja does
       * not write */
      if (sqlite3_column_type (stmt, 3) == SQLITE_NULL || unknown || (marks & THREAD_FLAG_SUBJECT))
        marks |= MARK_AGAIN;
      m->marks = marks;
      m->sender_key = from ? key_of (from) : 0;
    }
}

static void
plan_ref_of (sqlite3_stmt *stmt, PlanRef *r)
{
  const char *ref = (const char *) sqlite3_column_text (stmt, 1);

  *r = (PlanRef) { .id = sqlite3_column_int64 (stmt, 0), .ref_key = ref ? key_of (ref) : 0 };
}

/* Records message @m in @k: its range, its marks (again where it is of
 * no range), its sender's range. */
static void
keeping_add (Keeping *k, const PlanMessage *m)
{
  gint32 origin = origin_of (k->keep, m->id);
  guint16 marks = m->marks | (origin < 0 ? MARK_AGAIN : 0);

  if (m->sender_key != 0)
    {
      gpointer seen = g_hash_table_lookup (k->senders, &m->sender_key);

      if (seen == NULL)
        g_hash_table_insert (k->senders, g_memdup2 (&m->sender_key, sizeof m->sender_key),
                             GINT_TO_POINTER (origin + 2));
      else if (GPOINTER_TO_INT (seen) != origin + 2 && GPOINTER_TO_INT (seen) != SENDER_MIXED)
        g_hash_table_insert (k->senders, g_memdup2 (&m->sender_key, sizeof m->sender_key),
                             GINT_TO_POINTER (SENDER_MIXED));
    }
  g_array_append_val (k->origin, origin);
  g_array_append_val (k->marks, marks);
}

/* A reference of message @i: where it is a sender's address under
 * another range, the shard's threading did not know it as one (threading
 * drops a reference that is an address and no Message-ID,
 * store-thread.c), so its component is threaded again. */
static void
keeping_ref (Keeping *k, gsize i, guint64 ref_key)
{
  gpointer seen = g_hash_table_lookup (k->senders, &ref_key);

  if (seen != NULL && GPOINTER_TO_INT (seen) != g_array_index (k->origin, gint32, i) + 2)
    g_array_index (k->marks, guint16, i) |= MARK_AGAIN;
}

/* What reading the plan's rows fills */
typedef struct {
  Ids *ids;
  GArray *msg_ids, *msg_nodes;
  Keeping *k;
  gsize ref_at;            /* the message the last reference was of */
} Reading;

/* Every message's node: its Message-ID's, or one of its own without. */
static void
take_message (Reading *r, const PlanMessage *m)
{
  guint32 node = m->message_key ? node_of_key (r->ids, m->message_key) : new_node (r->ids);

  g_array_append_val (r->msg_ids, m->id);
  g_array_append_val (r->msg_nodes, node);
  if (r->k)
    keeping_add (r->k, m);
}

/* Joins each message with every Message-ID it cites (all of them: a
 * coarser partition than threading needs is still a correct one).
 * References come in the order of their messages. */
static void
take_ref (Reading *r, const PlanRef *ref)
{
  GArray *msg_ids = r->msg_ids;

  while (r->ref_at < msg_ids->len && g_array_index (msg_ids, gint64, r->ref_at) < ref->id)
    r->ref_at++;
  if (r->ref_at == msg_ids->len || g_array_index (msg_ids, gint64, r->ref_at) != ref->id || ref->ref_key == 0)
    return;
  unite (r->ids, g_array_index (r->msg_nodes, guint32, r->ref_at), node_of_key (r->ids, ref->ref_key));
  if (r->k)
    keeping_ref (r->k, r->ref_at, ref->ref_key);
}

/* The rows of @sql, read here */
static gboolean
read_rows (Store *store, const char *sql, gboolean messages, Reading *r, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read messages", error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    if (messages)
      {
        PlanMessage m;

        plan_message_of (stmt, &m);
        take_message (r, &m);
      }
    else
      {
        PlanRef ref;

        plan_ref_of (stmt, &ref);
        take_ref (r, &ref);
      }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot read messages", error);
}

/* The same, of a catalog's shards at once (_store_shards_scan()): in the
 * shards' order, their ids' */
static void
convert_message (sqlite3_stmt *stmt, GArray *records)
{
  PlanMessage m;

  plan_message_of (stmt, &m);
  g_array_append_val (records, m);
}

static void
convert_ref (sqlite3_stmt *stmt, GArray *records)
{
  PlanRef ref;

  plan_ref_of (stmt, &ref);
  g_array_append_val (records, ref);
}

static void
take_messages (const GArray *records, gpointer data)
{
  for (guint i = 0; i < records->len; i++)
    take_message (data, &g_array_index (records, PlanMessage, i));
}

static void
take_refs (const GArray *records, gpointer data)
{
  for (guint i = 0; i < records->len; i++)
    take_ref (data, &g_array_index (records, PlanRef, i));
}

static gboolean
scan_shards (Store *store, const char *sql, gboolean messages, Reading *r, GError **error)
{
  g_autofree char *why = NULL;
  int rc = _store_shards_scan (store->shards, sql, messages ? convert_message : convert_ref,
                               messages ? sizeof (PlanMessage) : sizeof (PlanRef),
                               messages ? take_messages : take_refs, r, &why);

  return rc == SQLITE_OK ? TRUE : _store_fail_why (store, rc, why, "cannot read messages", error);
}

/* Every message, then every reference, of the database or of its
 * shards.  A catalog's are read in its shards, a worker a shard, where
 * the plan reads no column the catalog changes over its shards'
 * (thread_id, duplicate_of, thread_flags): unless it keeps what the
 * shards threaded, which a catalog's first threading does, while it is
 * made, when none of those is changed yet (its changed rows are
 * authors').  Otherwise through deja_shards, which reads the catalog's
 * values.  Before, every plan of a catalog whose values had changed read
 * through deja_shards: 'deja thread' on the realistic 1 GiB's 64 shards
 * planned in 1.44 s, 0.88 s so. */
static gboolean
read_plan_rows (Store *store, Reading *r, GError **error)
{
  gboolean keeping = r->k != NULL;

  if (store->catalog && store->shards && (!keeping || store->placeholders_in_shards))
    return scan_shards (store, plan_messages_sql[1][keeping], TRUE, r, error) &&
           scan_shards (store, plan_refs_sql[1], FALSE, r, error);
  return read_rows (store, plan_messages_sql[0][keeping], TRUE, r, error) &&
         read_rows (store, plan_refs_sql[0], FALSE, r, error);
}

/* Packs whole components, in the order of their first message, into
 * batches of at most @max messages (a larger component is a batch of its
 * own); returns each message's batch in @msg_nodes. */
static guint
pack (Ids *ids, GArray *msg_nodes, guint max)
{
  gsize n = ids->parent->len;
  g_autofree guint32 *size = g_new0 (guint32, n);
  g_autofree guint32 *batch = g_new (guint32, n);
  guint32 *node = (guint32 *) msg_nodes->data;
  guint current = 0, filled = 0;

  memset (batch, 0xff, n * sizeof *batch);
  for (guint i = 0; i < msg_nodes->len; i++)
    size[node[i] = find (ids, node[i])]++;
  for (guint i = 0; i < msg_nodes->len; i++)
    {
      guint32 root = node[i];

      if (batch[root] == G_MAXUINT32)
        {
          if (filled > 0 && filled + size[root] > max)
            current++, filled = 0;
          batch[root] = current;
          filled += size[root];
        }
      node[i] = batch[root];
    }
  return msg_nodes->len ? current + 1 : 0;
}

static gboolean
write_batches (Store *store, GArray *msg_ids, GArray *msg_batches, GError **error)
{
  sqlite3_stmt *stmt;
  int rc = sqlite3_prepare_v2 (store->db, "INSERT INTO temp.thread_batch (id, batch) VALUES (?1, ?2)",
                               -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot plan threading", error);
  rc = SQLITE_DONE;
  for (guint i = 0; i < msg_ids->len && rc == SQLITE_DONE; i++)
    {
      sqlite3_bind_int64 (stmt, 1, g_array_index (msg_ids, gint64, i));
      sqlite3_bind_int (stmt, 2, (int) g_array_index (msg_batches, guint32, i));
      rc = sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE ? TRUE : _store_fail (store, rc, "cannot plan threading", error);
}

/**
 * store_thread_batch_is:
 * @ids: (array length=n): message ids in increasing order
 * @same: (out): whether batch @batch of the plan store_plan_threads()
 *   made on this connection holds exactly @ids
 *
 * For a batch read on another connection (pipeline/threads.c): its plan
 * was made there, from what that connection read.
 */
gboolean
store_thread_batch_is (Store *store, gint batch, const gint64 *ids, guint n, gboolean *same,
                       GError **error)
{
  sqlite3_stmt *stmt;
  guint i = 0;
  int rc = sqlite3_prepare_v2 (store->db, "SELECT id FROM temp.thread_batch WHERE batch = ?1 ORDER BY id",
                               -1, &stmt, NULL);

  *same = FALSE;
  if (rc != SQLITE_OK)
    return _store_fail (store, rc, "cannot read the threading plan", error);
  sqlite3_bind_int (stmt, 1, batch);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW && i < n && sqlite3_column_int64 (stmt, 0) == ids[i])
    i++;
  sqlite3_finalize (stmt);
  if (rc == SQLITE_ROW)
    return TRUE;
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot read the threading plan", error);
  *same = i == n;
  return TRUE;
}

/**
 * store_thread_batch_messages:
 *
 * How many messages' threading data deja holds at once: a batch of
 * threading (about 300 bytes a message: 90 MiB), and the Message-IDs an
 * ingest keeps to guess threads (store-thread.c).  DEJA_THREAD_BATCH sets
 * it; the tests make it tiny.
 */
guint
store_thread_batch_messages (void)
{
  const char *env = g_getenv ("DEJA_THREAD_BATCH");
  gint64 n = env ? g_ascii_strtoll (env, NULL, 10) : 0;

  return n > 0 && n <= G_MAXUINT ? (guint) n : 300000;
}

static gint64
count_messages (Store *store)
{
  sqlite3_stmt *stmt;
  gint64 n = -1;

  if (sqlite3_prepare_v2 (store->db, "SELECT count(*) FROM messages", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return n;
}

/* How many messages the database holds. */
gboolean
store_count_messages (Store *store, gint64 *n, GError **error)
{
  *n = count_messages (store);
  return *n >= 0 || _store_fail (store, sqlite3_errcode (store->db), "cannot count messages", error);
}

/* What the plan in memory holds a message while it is made, at most */
#define PLAN_BYTES_A_MESSAGE 70

/**
 * store_thread_plan_memory:
 *
 * Past this many messages the plan is made on disk: in memory it holds
 * 50 to 70 bytes a message while it is made, on disk it keeps the peak of
 * its batches, takes some twenty times as long (realistic 1 GiB in a
 * catalog of 8 shards: 8.5 s against 0.4 s) and keeps no shard's threads.
 * By default, as many messages as an eighth of the memory this process
 * may use holds (util/memory.c: the machine's, or its cgroup's limit, as
 * a Slurm job's), and at least 4,000,000 (about 8 GiB of mbox, 280 MB):
 * 24 GiB, 46 million messages.  DEJA_THREAD_PLAN_MEMORY sets it; the
 * tests make it tiny.
 */
gint64
store_thread_plan_memory (void)
{
  const char *env = g_getenv ("DEJA_THREAD_PLAN_MEMORY");
  gint64 n = env ? g_ascii_strtoll (env, NULL, 10) : 0;

  if (n > 0)
    return n;
  return MAX (4000000, (gint64) MIN (memory_available () / 8 / PLAN_BYTES_A_MESSAGE, (guint64) G_MAXINT64));
}

/* Every message's node (the hash of its Message-ID, as the union-find's:
 * copies share it; a message without one, a node of its own), and an edge
 * from it to each Message-ID it cites.  Labels start as the nodes. */
static const char plan_tables_sql[] =
  "DROP TABLE IF EXISTS temp.plan_node; DROP TABLE IF EXISTS temp.plan_edge;"
  "DROP TABLE IF EXISTS temp.plan_label; DROP TABLE IF EXISTS temp.plan_batch;"
  "CREATE TEMP TABLE plan_node (id INTEGER PRIMARY KEY, node INTEGER NOT NULL);"
  "INSERT INTO temp.plan_node SELECT id, CASE WHEN message_id IS NULL"
  " THEN deja_content_hash('', id) ELSE deja_content_hash(message_id) END FROM messages;"
  "CREATE TEMP TABLE plan_edge (a INTEGER NOT NULL, b INTEGER NOT NULL);"
  "INSERT INTO temp.plan_edge SELECT p.node, deja_content_hash(r.ref)"
  " FROM message_refs r JOIN temp.plan_node p ON p.id = r.message_id;"
  "CREATE TEMP TABLE plan_label (node INTEGER PRIMARY KEY, label INTEGER NOT NULL);"
  "INSERT OR IGNORE INTO temp.plan_label SELECT node, node FROM temp.plan_node;"
  "INSERT OR IGNORE INTO temp.plan_label SELECT b, b FROM temp.plan_edge;"
  "CREATE TEMP TABLE plan_batch (label INTEGER PRIMARY KEY, batch INTEGER NOT NULL);";

/* One pass: each node takes the smallest label of its neighbours. */
static const char plan_propagate_sql[] =
  "UPDATE temp.plan_label SET label = t.m FROM ("
  " SELECT e.a AS n, min(l.label) AS m FROM temp.plan_edge e"
  "  JOIN temp.plan_label l ON l.node = e.b GROUP BY e.a"
  " UNION ALL"
  " SELECT e.b, min(l.label) FROM temp.plan_edge e"
  "  JOIN temp.plan_label l ON l.node = e.a GROUP BY e.b) AS t"
  " WHERE plan_label.node = t.n AND t.m < plan_label.label";

/* A label is a node of the same component: take that node's label. */
static const char plan_jump_sql[] =
  "UPDATE temp.plan_label SET label = (SELECT p.label FROM temp.plan_label p"
  "  WHERE p.node = plan_label.label)"
  " WHERE label <> node AND (SELECT p.label FROM temp.plan_label p"
  "  WHERE p.node = plan_label.label) < label";

static const char index_batches_sql[] =
  "CREATE INDEX IF NOT EXISTS temp.thread_batch_batch ON thread_batch (batch)";

/* The components, in the order of their first message. */
static const char plan_components_sql[] =
  "SELECT l.label, min(p.id) AS first, count(*) FROM temp.plan_node p"
  " JOIN temp.plan_label l ON l.node = p.node GROUP BY l.label ORDER BY first";

static gboolean
plan_exec (Store *store, const char *sql, gint64 *changes, GError **error)
{
  if (sqlite3_exec (store->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot plan threading", error);
  if (changes)
    *changes = sqlite3_changes64 (store->db);
  return TRUE;
}

/* Packs the components as pack() does, into temp.plan_batch. */
static gboolean
plan_pack (Store *store, guint max, guint *batches, GError **error)
{
  sqlite3_stmt *select = NULL, *insert = NULL;
  guint current = 0;
  gint64 filled = 0, components = 0;
  int rc = sqlite3_prepare_v2 (store->db, plan_components_sql, -1, &select, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (store->db, "INSERT INTO temp.plan_batch (label, batch) VALUES (?1, ?2)",
                             -1, &insert, NULL);
  while (rc == SQLITE_OK && (rc = sqlite3_step (select)) == SQLITE_ROW)
    {
      gint64 size = sqlite3_column_int64 (select, 2);

      if (filled > 0 && filled + size > max)
        current++, filled = 0;
      filled += size;
      components++;
      sqlite3_bind_int64 (insert, 1, sqlite3_column_int64 (select, 0));
      sqlite3_bind_int (insert, 2, (int) current);
      rc = sqlite3_step (insert);
      sqlite3_reset (insert);
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
  sqlite3_finalize (select);
  sqlite3_finalize (insert);
  if (rc != SQLITE_DONE)
    return _store_fail (store, rc, "cannot plan threading", error);
  *batches = components ? current + 1 : 0;
  return TRUE;
}

/* The plan of store_plan_threads(), in TEMP tables on disk. */
static gboolean
plan_on_disk (Store *store, guint max, guint *batches, GError **error)
{
  gint64 changed = 0, jumped = 0, passes = 0;
  gboolean ok;

  /* SQLite's sorts keep up to the main page cache in memory before they
   * spill: a small one, as for the scans below. */
  _store_scan_cache (store, TRUE);
  sqlite3_exec (store->db, "PRAGMA temp.cache_size = -16384", NULL, NULL, NULL);
  ok = plan_exec (store, plan_tables_sql, NULL, error);
  do
    {
      ok = ok && plan_exec (store, plan_propagate_sql, &changed, error);
      do
        ok = ok && plan_exec (store, plan_jump_sql, &jumped, error);
      while (ok && jumped > 0);
      passes++;
    }
  while (ok && changed > 0);
  g_debug ("threading planned on disk: labels settled in %" G_GINT64_FORMAT " passes", passes);
  ok = ok && plan_pack (store, max, batches, error) &&
       plan_exec (store, "INSERT INTO temp.thread_batch (id, batch)"
                  " SELECT p.id, b.batch FROM temp.plan_node p"
                  " JOIN temp.plan_label l ON l.node = p.node"
                  " JOIN temp.plan_batch b ON b.label = l.label", NULL, error);
  sqlite3_exec (store->db, "DROP TABLE IF EXISTS temp.plan_node; DROP TABLE IF EXISTS temp.plan_edge;"
                "DROP TABLE IF EXISTS temp.plan_label; DROP TABLE IF EXISTS temp.plan_batch;",
                NULL, NULL, NULL);
  _store_scan_cache (store, FALSE);
  return ok;
}

/* A plan made in memory, for another connection (store_take_thread_plan()) */
struct _StoreThreadPlan {
  GArray *ids;          /* of gint64: the messages of the batches, in increasing order;
                           NULL: one batch of every message */
  GArray *batches;      /* of guint32: the batch of each */
  guint n;              /* how many batches */
  gboolean partial;     /* the others are kept (StoreThreadKeep) */
  gint64 kept;
  StoreThreadKeptCounts counts;
};

void
store_thread_plan_free (StoreThreadPlan *plan)
{
  if (plan == NULL)
    return;
  g_clear_pointer (&plan->ids, g_array_unref);
  g_clear_pointer (&plan->batches, g_array_unref);
  g_free (plan);
}

static gboolean
empty_plan (Store *store, GError **error)
{
  if (sqlite3_exec (store->db, "CREATE TEMP TABLE IF NOT EXISTS thread_batch"
                    " (id INTEGER PRIMARY KEY, batch INTEGER NOT NULL);"
                    "DELETE FROM temp.thread_batch;", NULL, NULL, NULL) != SQLITE_OK)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot plan threading", error);
  return TRUE;
}

static StoreThreadPlan *
plan_new (GArray *ids, GArray *batches, guint n, const StoreThreadKeep *keep)
{
  StoreThreadPlan *plan = g_new0 (StoreThreadPlan, 1);

  plan->ids = ids ? g_array_ref (ids) : NULL;
  plan->batches = batches ? g_array_ref (batches) : NULL;
  plan->n = n;
  if (keep && keep->partial)
    {
      plan->partial = TRUE;
      plan->kept = keep->kept;
      plan->counts = keep->counts;
    }
  return plan;
}

/* Leaves in @msg_ids and @msg_nodes the messages whose component is
 * threaded again: one that holds a message of no range, or of two, or
 * one marked MARK_AGAIN.  The others are counted in @keep. */
static void
keep_components (Ids *ids, Keeping *k, GArray *msg_ids, GArray *msg_nodes, StoreThreadKeep *keep)
{
  gsize nodes = ids->parent->len, out = 0;
  ThreadCounts counts = { 0 };
  g_autofree gint32 *component = g_new (gint32, nodes);   /* -1 unseen, -2 again, else a range */
  guint32 *node = (guint32 *) msg_nodes->data;
  const gint32 *origin = (const gint32 *) k->origin->data;
  const guint16 *marks = (const guint16 *) k->marks->data;

  for (gsize r = 0; r < nodes; r++)
    component[r] = -1;
  for (guint i = 0; i < msg_ids->len; i++)
    {
      guint32 root = find (ids, node[i]);

      if (marks[i] & MARK_AGAIN)
        component[root] = -2;
      else if (component[root] == -1)
        component[root] = origin[i];
      else if (component[root] != origin[i])
        component[root] = -2;
    }
  for (guint i = 0; i < msg_ids->len; i++)
    {
      if (component[find (ids, node[i])] == -2)
        {
          g_array_index (msg_ids, gint64, out) = g_array_index (msg_ids, gint64, i);
          node[out++] = node[i];
          continue;
        }
      keep->kept++;
      thread_counts_add (&counts, (marks[i] & MARK_COPY) != 0, (marks[i] & MARK_ROOT) != 0,
                         (ThreadFlags) (marks[i] & MARK_FLAGS));
    }
  keep->counts = (StoreThreadKeptCounts) { counts.threads, counts.orphans, counts.cycles,
                                           counts.time_travel, counts.duplicates, counts.conflicts };
  g_array_set_size (msg_ids, out);
  g_array_set_size (msg_nodes, out);
  keep->partial = TRUE;
}

/**
 * store_plan_threads:
 * @max: messages a batch may hold
 * @keep: (nullable) (inout): the ranges of messages whose threads may be
 *   kept; says whether they were (the plan then holds only the others),
 *   and what the kept hold.  Not where the plan is made on disk.
 * @batches: (out): how many batches; 1 means every message at once
 *   (unless @keep is partial: then none may be left to thread)
 * @plan: (out) (optional) (transfer full): the plan, for
 *   store_take_thread_plan() on another connection to the same data;
 *   %NULL where it was made on disk (its memory is what that avoids)
 *
 * Splits threading into batches of whole components (see above), which
 * store_load_thread_data() then loads one by one.
 */
gboolean
store_plan_threads (Store *store, guint max, StoreThreadKeep *keep, guint *batches, StoreThreadPlan **plan,
                    GError **error)
{
  g_autoptr (GArray) msg_ids = NULL;
  g_autoptr (GArray) msg_nodes = NULL;
  gint64 n = count_messages (store);
  Keeping k = { NULL };
  gboolean keeping;
  Ids ids;
  gboolean ok;

  *batches = 1;
  if (plan)
    *plan = NULL;
  if (keep)
    {
      keep->partial = FALSE;
      keep->kept = 0;
      memset (&keep->counts, 0, sizeof keep->counts);
    }
  if (n < 0)
    return _store_fail (store, sqlite3_errcode (store->db), "cannot count messages", error);
  if (!empty_plan (store, error))
    return FALSE;
  store->planned_on_disk = n > store_thread_plan_memory () ? n : 0;
  keeping = keep && keep->n_ranges > 0 && n <= store_thread_plan_memory ();
  if (n <= max && !keeping)
    {
      if (plan)
        *plan = plan_new (NULL, NULL, 1, NULL);
      return TRUE;
    }
  if (n > store_thread_plan_memory ())
    return plan_on_disk (store, max, batches, error) &&
           plan_exec (store, index_batches_sql, NULL, error);
  msg_ids = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n);
  msg_nodes = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  ids_init (&ids);
  if (keeping)
    keeping_init (&k, keep, n);
  /* Two table scans: a large page cache would only fill with bodies. */
  _store_scan_cache (store, TRUE);
  {
    Reading r = { .ids = &ids, .msg_ids = msg_ids, .msg_nodes = msg_nodes, .k = keeping ? &k : NULL };

    ok = read_plan_rows (store, &r, error);
  }
  _store_scan_cache (store, FALSE);
  if (ok && keeping)
    keep_components (&ids, &k, msg_ids, msg_nodes, keep);
  if (ok)
    *batches = pack (&ids, msg_nodes, max);
  ids_clear (&ids);
  keeping_clear (&k);
  ok = ok && write_batches (store, msg_ids, msg_nodes, error) &&
       plan_exec (store, index_batches_sql, NULL, error);
  if (ok && plan)
    *plan = plan_new (msg_ids, msg_nodes, *batches, keep);
  return ok;
}

/**
 * store_thread_planned_on_disk:
 *
 * Returns: the messages of the last plan store_plan_threads() made on
 *   disk on this connection (past store_thread_plan_memory()), or 0
 */
gint64
store_thread_planned_on_disk (Store *store)
{
  return store->planned_on_disk;
}

/**
 * store_take_thread_plan:
 * @plan: made by store_plan_threads() on another connection, which read
 *   what this one reads (nothing was committed in between)
 * @keep: (nullable) (out): as store_plan_threads() sets it
 * @batches: (out): how many batches
 *
 * What store_plan_threads() would do here, without reading every
 * message and reference again (0.6 s for 470,404 messages).
 */
gboolean
store_take_thread_plan (Store *store, const StoreThreadPlan *plan, StoreThreadKeep *keep,
                        guint *batches, GError **error)
{
  *batches = plan->n;
  if (keep)
    {
      keep->partial = plan->partial;
      keep->kept = plan->kept;
      keep->counts = plan->counts;
    }
  if (!empty_plan (store, error))
    return FALSE;
  if (plan->ids == NULL)
    return TRUE;
  return write_batches (store, plan->ids, plan->batches, error) &&
         plan_exec (store, index_batches_sql, NULL, error);
}
