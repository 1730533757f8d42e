/* store.h — the SQLite database (the only module that sees sqlite3.h). */
#pragma once

#include <glib.h>

#include "row.h"


G_BEGIN_DECLS

/* Archives of this size or more get a new database with 64 KiB pages
 * (store_open_sized()), unless their files average less than
 * STORE_SMALL_FILES: a file of one message each (a Maildir, a news spool). */
#define STORE_LARGE_ARCHIVE ((gint64) 32 * 1024 * 1024)
#define STORE_SMALL_FILES ((gint64) 64 * 1024)

#define STORE_ERROR (store_error_quark ())
GQuark store_error_quark (void);

typedef enum {
  STORE_ERROR_SQLITE,   /* SQLite said no */
  STORE_ERROR_QUERY,    /* the user's search query is malformed */
  STORE_ERROR_FOREIGN,  /* not a deja database */
  STORE_ERROR_NEWER,    /* made by a newer deja */
  STORE_ERROR_CANCELLED,   /* stopped by the caller's cancel flag */
} StoreError;

typedef struct _Store Store;

typedef struct {
  const char *path;      /* absolute */
  gint64 size;           /* mbox text */
  gint64 stored_size;    /* on disk */
  gint64 mtime;
  const char *compression;
  gboolean append;       /* the file grew at its end: its rows stay, new ones are added */
} StoreFileMeta;

/* What the database recorded of a file (store_file_record). */
typedef struct {
  char *sha256;
  gint64 size;           /* mbox text */
  gint64 messages, lines;
  gint64 last_offset;    /* its last message's byte_offset, or -1 when none */
  gint64 last_line_no;   /* and line_no */
} StoreFileRecord;

/* A part that is not text, or a uuencoded/yEnc file found in text. */
typedef struct {
  const char *content_type;  /* lower case */
  const char *filename;      /* UTF-8 or NULL */
  gint64 size;               /* decoded bytes */
  const char *encoding;      /* "mime", "uuencode" or "yenc" */
} StoreAttachment;

/* Where a message will most likely be threaded (pipeline/thread-guess.c);
 * threading sets it right at the end of the ingest. */
typedef struct {
  gint64 thread_id;          /* the row's own id when alone */
  gint64 parent_id;          /* 0: none */
  gint64 duplicate_of;       /* 0: none */
  const char *missing_parent;
  const char *flags;         /* comma-separated thread flags, or NULL */
} StoreThreadGuess;

/* What the text layer read in a message's own text (messages.lang and
 * the prose signals, schema/010-text-analysis.sql). */
typedef struct {
  const char *lang;          /* NULL: not analysed (all columns NULL) */
  gboolean lang_reliable;
  gint64 words, sentences, code_lines;
  gboolean has_shares;       /* FALSE: the three shares are NULL */
  double nonletter_share, digit_share, upper_share;
  double oov_share;          /* < 0: NULL (no dictionary) */
} StoreTextSignals;

/* Usenet's transport and control headers of a message (usenet_headers);
 * NULL when absent. */
typedef struct {
  const char *path, *control, *cancels, *supersedes, *approved, *followup_to;
} StoreUsenet;

/* A link cited in own text (links). */
typedef struct {
  const char *url, *normalized, *host, *domain, *wayback;
} StoreLink;

/* One message row as the store writes it: every value already text or a
 * number (the store knows no parser type).  Strings are borrowed for the
 * call; NULL is SQL NULL. */
typedef struct {
  gint64 id;                 /* store_message_id() */
  gint64 byte_offset;
  gint64 byte_length;
  gint64 line_no;
  const char *envelope;      /* UTF-8 or NULL */
  const char *message_id;
  const char *subject;
  const char *from_addr;
  const char *from_name;
  const char *date;
  const char *date_raw;
  const char *body;          /* never NULL */
  const char *own_text;
  const guint32 *own_spans;  /* (nullable): offset, length pairs of body that make
                              * own_text (stored instead of it when few enough) */
  guint n_own_spans;         /* pairs */
  const char *charset;
  const char *flags;         /* comma-separated, or NULL */
  gint64 quoted_lines;
  gint64 own_lines;
  guint64 content_hash;
  gint64 text_damage;
  const StoreAttachment *attachments;
  guint n_attachments;
  const char *const *references;
  guint n_references;
  const char *const *in_reply_to;
  guint n_in_reply_to;
  const char *const *newsgroups;
  guint n_newsgroups;
  StoreThreadGuess guess;
  StoreTextSignals text;     /* lang NULL: not analysed (left to deja analyse) */
  gsize body_len, own_text_len;  /* when known, else 0 (then measured) */
  StoreUsenet usenet;
  const StoreLink *links;
  guint n_links;
} StoreMessage;

/* One separator-log row (docs/splitter.md), as text. */
typedef struct {
  gint64 line_no;
  gint64 byte_offset;
  const char *line_text;
  const char *verdict;       /* "accepted", "rejected", "body" */
  const char *reason;        /* comma-separated */
  char shape;                /* 'G', 'R', 'P' or 'T' */
} StoreLogEntry;

typedef void (*StoreIdFunc) (const char *message_id, gint64 id, gint64 thread, const char *date,
                             guint64 content, gpointer user_data);

typedef struct {
  const char *path;
  gint64 line_no;
  gint64 byte_offset;
  const char *line_text;
  const char *verdict;
  const char *reason;
  const char *shape;
} StoreLogRow;

typedef struct {
  const char *verdict;   /* NULL for all */
  const char *path;      /* NULL for all files */
  const char *reason;    /* a reason token the row must have, or NULL */
} StoreLogFilter;

typedef void (*StoreLogFunc) (const StoreLogRow *row, gpointer user_data);

typedef enum {
  STORE_NO_ARCHIVE_INCLUDE = 0,
  STORE_NO_ARCHIVE_SKIP,     /* leave them out */
  STORE_NO_ARCHIVE_ONLY,     /* only them (to count what was left out) */
} StoreNoArchive;

/* Which messages a command covers (store-filter.c); NULL members do not
 * filter.  The same for search, export, export-mbox and network. */
typedef struct _StoreFilter {
  const char *match;     /* FTS5 query over subject and own text (search, export) */
  const char *const *groups;   /* globs ("comp.lang.*"); posted to any of them */
  const char *const *authors;  /* substrings of the address or name; any of them */
  const char *since;     /* ISO 8601 date or prefix, inclusive */
  const char *until;     /* ISO 8601 date or prefix, inclusive */
  gint64 limit;          /* 0: no limit */
  gboolean canonical_only;  /* leave out later copies of a Message-ID */
  StoreNoArchive no_archive; /* export, export-mbox: posts marked X-No-Archive: yes */
  const char *lang;      /* messages.lang ("de" also takes "de-*"), or NULL */
  gboolean distinct_text;   /* leave out all but the first of each near-duplicate cluster */
} StoreFilter;

/* One value of a result row (row.h): text is NULL for SQL NULL; borrowed,
 * valid only during the callback. */
typedef RowValue StoreValue;

typedef gboolean (*StoreRowFunc) (const StoreValue *values, guint n, gpointer user_data);

Store *store_open (const char *path, GError **error);
Store *store_open_sized (const char *path, gint64 archive_bytes, guint files, GError **error);
Store *store_open_to_read (const char *path, GError **error);
Store *store_open_reader (const char *path, GError **error);
gboolean store_data_version (Store *store, gint64 *version, GError **error);
void store_close (Store *store);
void store_claim_writing (Store *store);
gboolean store_writer_at_work (Store *store);

gboolean store_file_sha256 (Store *store, const char *path, char **sha256, GError **error);
gboolean store_file_record (Store *store, const char *path, StoreFileRecord *record, gboolean *found,
                            GError **error);
void store_file_record_clear (StoreFileRecord *record);
gboolean store_path_with_sha256 (Store *store, const char *sha256, char **path, GError **error);

gboolean store_begin_file (Store *store, const StoreFileMeta *meta, gboolean *replaced,
                           GError **error);
gint64 store_message_id (Store *store, gint64 offset, guint64 content_hash);
gboolean store_set_message_length (Store *store, gint64 offset, gint64 length, GError **error);
gboolean store_add_message (Store *store, const StoreMessage *message, GError **error);
gboolean store_replace_message (Store *store, StoreMessage *message, GError **error);
gboolean store_last_language (Store *store, char **lang, GError **error);
gboolean store_add_log (Store *store, const StoreLogEntry *entry, GError **error);
gboolean store_find_canonical_id (Store *store, const char *message_id, StoreIdFunc func,
                                  gpointer user_data, GError **error);
gboolean store_has_messages (Store *store, gboolean *any, GError **error);
typedef enum {
  STORE_DEFER_ALL = 0,
  STORE_DEFER_KEEP_CHILD_KEYS = 1 << 0,   /* those foreign keys look up (store-indexes.c) */
} StoreDeferFlags;
gboolean store_defer_indexes (Store *store, StoreDeferFlags flags, gboolean *deferred, GError **error);
gboolean store_write_once_begin (Store *store, gboolean *begun, GError **error);
gboolean store_write_once_end (Store *store, GError **error);
gboolean store_can_find_message_ids (Store *store, gboolean *can, GError **error);
gboolean store_build_deferred_indexes (Store *store, GError **error);
gboolean store_finish_file (Store *store, const char *sha256, gint64 messages, gint64 lines,
                            GError **error);
void store_abort_file (Store *store);

gboolean store_foreach_log (Store *store, const StoreLogFilter *filter, StoreLogFunc func,
                            gpointer user_data, GError **error);

typedef enum {
  STORE_SEARCH_MESSAGES,   /* id, date, from_name, from_addr, subject, snippet, file,
                              byte_offset, thread_id */
  STORE_SEARCH_COUNT,      /* one row: messages, threads */
  STORE_SEARCH_THREADS,    /* thread_id, hits, messages, first_date, last_date, subject,
                              from_name, from_addr (of its start), best, id, snippet (of its
                              best hit) */
} StoreSearchMode;

gboolean store_search (Store *store, const StoreFilter *filter, StoreSearchMode mode,
                       const char *mark_open, const char *mark_close, StoreRowFunc func,
                       gpointer user_data, GError **error);
const char *const *store_export_fields (void);
const char *const *store_export_default_fields (void);
gboolean store_export (Store *store, const StoreFilter *filter, const char *const *fields,
                       StoreRowFunc func, gpointer user_data, GError **error);

/* Where a message lies in its archive, for reading it back (export-mbox). */
typedef struct {
  gint64 id;
  const char *path;          /* the archive file (or zip member) */
  const char *sha256;        /* its content when ingested */
  gint64 byte_offset;
  gint64 byte_length;
  gboolean has_envelope;
  const char *from_addr;     /* or NULL */
  const char *date;          /* ISO 8601, or NULL */
} StoreArchiveRow;

typedef gboolean (*StoreArchiveFunc) (const StoreArchiveRow *row, gpointer user_data);

gboolean store_archive_rows (Store *store, const StoreFilter *filter, StoreArchiveFunc func,
                             gpointer user_data, GError **error);

/* Threading's input (store-thread.c): the messages of a batch in id
 * order, then their references in the same order; strings are borrowed
 * for the call. */
typedef struct {
  gint64 id;
  const char *message_id;    /* normalised, or NULL */
  const char *date;          /* ISO 8601, or NULL */
  const char *subject;       /* only when asked for, else NULL */
  guint64 content;           /* a hash of sender, subject and body */
  guint damage;              /* characters a lossy conversion replaced */
  guint64 stored;            /* a hash of the row's threading columns now */
} StoreThreadMessage;

typedef struct {
  gint64 message;            /* messages.id */
  gboolean in_reply_to;      /* from In-Reply-To; else References (first) */
  const char *ref;           /* a normalised Message-ID */
} StoreThreadRef;

typedef struct {
  void (*message) (const StoreThreadMessage *row, gpointer user_data);
  void (*ref) (const StoreThreadRef *row, gpointer user_data);
  gpointer user_data;
} StoreThreadReader;

/* Threading's output, one row per message.  Ids of 0 are written NULL;
 * a row whose values hash to its @stored is left as it is. */
typedef struct {
  gint64 id;
  gint64 thread_id, parent_id, duplicate_of;
  const char *missing_parent;
  const char *flags;
  guint64 stored;
} StoreThreadRow;

/* A Message-ID referenced but not stored, holding a thread together. */
typedef struct {
  const char *message_id;
  gint64 thread_id;
  guint children;
} StoreThreadPlaceholderRow;

gboolean store_threads_stale (Store *store, gboolean *stale, GError **error);
guint store_thread_batch_messages (void);
gint64 store_thread_plan_memory (void);
gint64 store_thread_planned_on_disk (Store *store);
gboolean store_count_messages (Store *store, gint64 *n, GError **error);
/* Message ids a merge copied from one shard, whole, whose threads the
 * shard had computed (store_merge_shards()): first to last. */
typedef struct {
  gint64 first, last;
} StoreIdRange;

/* What the messages threading keeps as they are hold, counted from their
 * columns by parsers/thread.c's rule (thread_counts_add()); the fields of
 * its ThreadCounts, which this header does not name. */
typedef struct {
  guint64 threads, orphans, cycles, time_travel, duplicates, conflicts;
} StoreThreadKeptCounts;

/* Threading after a merge (store_plan_threads()): a connected component
 * of the reference graph whose messages all come from one of @ranges,
 * and whose strings no other shard has (as a Message-ID, a reference or
 * a sender's address), is threaded as its shard threaded it. */
typedef struct {
  const StoreIdRange *ranges;   /* in increasing order, not overlapping */
  guint n_ranges;
  gboolean partial;             /* (out): the plan's batches hold only the rest */
  gint64 kept;                  /* (out): messages kept as they are */
  StoreThreadKeptCounts counts; /* (out): what those hold */
} StoreThreadKeep;

typedef struct _StoreThreadPlan StoreThreadPlan;
gboolean store_plan_threads (Store *store, guint max, StoreThreadKeep *keep, guint *batches,
                             StoreThreadPlan **plan, GError **error);
gboolean store_take_thread_plan (Store *store, const StoreThreadPlan *plan, StoreThreadKeep *keep,
                                 guint *batches, GError **error);
gboolean store_clear_thread_placeholders (Store *store, gboolean batches_only, GError **error);
void store_thread_plan_free (StoreThreadPlan *plan);
gboolean store_thread_batch_is (Store *store, gint batch, const gint64 *ids, guint n, gboolean *same,
                                GError **error);
gboolean store_load_thread_data (Store *store, gboolean subjects, gint batch,
                                 const StoreThreadReader *reader, GError **error);
gboolean store_begin_threads (Store *store, GError **error);
gboolean store_save_threads (Store *store, const StoreThreadRow *rows, gsize n, gsize *changed,
                             GError **error);
gboolean store_save_thread_placeholders (Store *store, const StoreThreadPlaceholderRow *rows, gsize n,
                                         GError **error);
gboolean store_finish_threads (Store *store, gboolean by_subject, GError **error);
gboolean store_threads_by_subject (Store *store, gboolean *by_subject, GError **error);
void store_abort_threads (Store *store);

typedef enum {
  STORE_REPORT_ORPHANS,
  STORE_REPORT_CYCLES,
  STORE_REPORT_TIME_TRAVEL,
  STORE_REPORT_CONFLICTS,
  STORE_REPORT_PLACEHOLDERS,
} StoreReport;

gboolean store_thread_report (Store *store, StoreReport kind, StoreRowFunc func, gpointer user_data,
                              GError **error);

/* The rows a network is built from (store-network.c). */
typedef enum {
  STORE_NET_AUTHORS,     /* author, name, address, messages, first_date, last_date, addresses */
  STORE_NET_REPLIES,     /* author -> other (authors), date: one row per reply */
  STORE_NET_THREADS,     /* thread, author, date: one row per author and thread */
  STORE_NET_GROUPS,      /* author, other (newsgroups.id), name (of the group), messages, dates */
  STORE_NET_EVERY_AUTHOR,  /* as AUTHORS for every author, unfiltered, messages 0, no dates */
  STORE_NET_GROUP_NODES, /* other (newsgroups.id), name, messages, authors, dates: every message */
  STORE_NET_CROSSPOSTS,  /* message, other (newsgroups.id), date: messages in two groups or more */
  STORE_NET_PATHS,       /* message, name (the Path), date: messages with a Path */
  STORE_NET_LINKS,       /* author, name (the domain cited), messages, dates */
  STORE_NET_LINK_MESSAGES, /* message, name (the domain), address (the Message-ID), messages
                            * (links to it), date */
  STORE_NET_REPLY_STARTERS, /* author -> other (replied-to author), thread (its starter's author,
                             * 0 when none): one row per reply, unfiltered */
  STORE_NET_THREAD_STARTS,  /* author: one row per thread started (a root that answers nothing),
                             * unfiltered */
} StoreNetQuery;

/* One row of a network query; which members are set depends on it
 * (above).  Strings are borrowed for the callback. */
typedef struct {
  gint64 author;             /* authors.id */
  gint64 other;              /* REPLIES: the replied-to author; GROUPS: the newsgroup */
  const char *name;          /* AUTHORS: the author's name; GROUPS: the newsgroup's */
  const char *address;       /* AUTHORS: the primary address */
  const char *addresses;     /* AUTHORS: every address, space-separated, most used first */
  gint64 thread;             /* THREADS: thread id */
  gint64 message;            /* CROSSPOSTS, PATHS: messages.id */
  gint64 messages;           /* AUTHORS, GROUPS: how many (in the filter); REPLIES, THREADS: 1 */
  gint64 authors;            /* GROUP_NODES: distinct authors */
  const char *first_date;    /* or the date of the one message */
  const char *last_date;
} StoreNetRow;

typedef gboolean (*StoreNetFunc) (const StoreNetRow *row, gpointer user_data);

gboolean store_network_rows (Store *store, StoreNetQuery query, const StoreFilter *filter,
                             StoreNetFunc func, gpointer user_data, GError **error);

/* deja groups (store-groups.c): one message in one of its groups. */
typedef struct {
  gint64 group_id;
  const char *group;
  gint64 message;
  const char *date;          /* ISO 8601, never NULL (undated messages are left out) */
  gint64 author;             /* authors.id, 0 when none */
  gint64 thread;             /* the thread's root, 0 when not threaded */
  gboolean reply;            /* it answers a message (in the archive or not) */
  gint64 words;              /* of own text, -1 when not analysed */
  const char *lang;          /* or NULL */
  gboolean control;          /* a control message (Control:), not a post */
  gboolean cancel;           /* a cancel */
  gboolean approved;         /* Approved: a moderator's */
  const char *followup_to;   /* Followup-To: as written, or NULL */
  gint64 quoted_lines;       /* lines removed as quoted */
  gint64 own_lines;          /* non-blank lines of own text */
} StoreGroupPost;

typedef gboolean (*StoreGroupPostFunc) (const StoreGroupPost *row, gpointer user_data);
gboolean store_group_posts (Store *store, const StoreFilter *filter, StoreGroupPostFunc func,
                            gpointer user_data, GError **error);

typedef gboolean (*StorePairFunc) (gint64 id, const char *text, gpointer user_data);
gboolean store_crosspost_groups (Store *store, StorePairFunc func, gpointer user_data, GError **error);
gboolean store_revisions (Store *store, StorePairFunc func, gpointer user_data, GError **error);

/* A message's place in its reply tree. */
typedef struct {
  gint64 message, parent, thread;   /* parent 0: none */
  const char *date;                 /* or NULL */
} StoreTreePost;

typedef gboolean (*StoreTreePostFunc) (const StoreTreePost *row, gpointer user_data);
gboolean store_reply_tree (Store *store, StoreTreePostFunc func, gpointer user_data, GError **error);

/* deja links (store-links.c). */
typedef enum {
  STORE_LINKS_DOMAINS,   /* group, period, domain, messages, links, authors, first_date, last_date */
  STORE_LINKS_URLS,      /* message_id, message, date, author, url, normalized, host, domain, wayback */
} StoreLinks;

gboolean store_links (Store *store, StoreLinks query, const StoreFilter *filter, const char *by,
                      gboolean per_group, StoreRowFunc func, gpointer user_data, GError **error);

/* deja stats (store-query.c). */
typedef enum {
  STORE_STATS_TOTALS,     /* one row: files, messages, canonical, duplicates, authors, threads,
                             first_date, last_date, undated, newsgroups */
  STORE_STATS_BY_GROUP,   /* newsgroup, period, messages (canonical) */
  STORE_STATS_LOG,        /* verdict, lines */
  STORE_STATS_MONTHLY,    /* month, messages, authors, threads (started): canonical, dated */
  STORE_STATS_THREAD_SIZES,  /* size, threads */
  STORE_STATS_TOP_AUTHORS,   /* from_addr, from_name (the author's primary address and name),
                                messages, first_date, last_date, author_id: 25 authors */
  STORE_STATS_FILES,      /* path, size, stored_size, compression, sha256, messages,
                             ingested_at, deja_version */
  STORE_STATS_LOG_REASONS,   /* verdict, reason, lines */
  STORE_STATS_LANGUAGES,     /* lang, messages, reliable, words: canonical messages analysed */
  STORE_STATS_LANGUAGES_BY_GROUP,   /* newsgroup, lang, messages */
  STORE_STATS_THREAD_LANGUAGES,     /* lang, threads: each thread's language by most words
                                       (und when none has one) */
  STORE_STATS_AUTHORS,       /* as STORE_STATS_TOP_AUTHORS, every author (several shards) */
  STORE_STATS_NEWSGROUPS,    /* name */
} StoreStats;

void store_stats_begin (Store *store);
void store_stats_end (Store *store);
gboolean store_stats (Store *store, StoreStats query, gboolean by_month, StoreRowFunc func,
                      gpointer user_data, GError **error);

/* The stats queries programs compute with (charts), as typed rows; the
 * strings are borrowed for the call, and a function returning FALSE
 * stops the reading. */
typedef struct {
  const char *newsgroup;     /* "(none)" for messages in no group */
  const char *period;        /* YYYY or YYYY-MM, or "(no date)" */
  gint64 messages;
} StoreGroupPeriodRow;

typedef struct {
  const char *month;         /* YYYY-MM */
  gint64 messages, authors, threads;
} StoreMonthRow;

typedef struct {
  gint64 size, threads;
} StoreThreadSizeRow;

typedef struct {
  gint64 author_id;
  const char *address, *name;
  gint64 messages;
  const char *first_date, *last_date;
} StoreAuthorCountRow;

typedef struct {
  const char *lang;
  gint64 messages, reliable, words;
} StoreLanguageRow;

gboolean store_stats_by_group (Store *store, gboolean by_month,
                               gboolean (*func) (const StoreGroupPeriodRow *row, gpointer user_data),
                               gpointer user_data, GError **error);
gboolean store_stats_monthly (Store *store, gboolean (*func) (const StoreMonthRow *row, gpointer user_data),
                              gpointer user_data, GError **error);
gboolean store_stats_thread_sizes (Store *store,
                                   gboolean (*func) (const StoreThreadSizeRow *row, gpointer user_data),
                                   gpointer user_data, GError **error);
gboolean store_stats_top_authors (Store *store,
                                  gboolean (*func) (const StoreAuthorCountRow *row, gpointer user_data),
                                  gpointer user_data, GError **error);
gboolean store_stats_languages (Store *store,
                                gboolean (*func) (const StoreLanguageRow *row, gpointer user_data),
                                gpointer user_data, GError **error);

/* deja show (store-show.c). */
typedef enum {
  STORE_SHOW_MESSAGE,      /* one row: every column a reader needs, file and place */
  STORE_SHOW_ATTACHMENTS,  /* position, content_type, filename, size, encoding */
  STORE_SHOW_LOG,          /* line_no, byte_offset, verdict, reason, shape, line_text */
  STORE_SHOW_THREAD,       /* id, parent_id, date, from_name, from_addr, subject, message_id,
                              missing_parent, flags: the thread's canonical messages */
  STORE_SHOW_COPIES,       /* id, file, line_no: the other copies of its Message-ID */
} StoreShow;

gboolean store_find_message (Store *store, gint64 number, const char *message_id, gint64 *id,
                             GError **error);
gboolean store_show (Store *store, StoreShow what, gint64 id, StoreRowFunc func,
                     gpointer user_data, GError **error);

/* Authors (store-authors.c; the grouping is util/identity.c's). */

typedef enum {
  STORE_AUTHORS_LIST,        /* author_id, name, address, addresses, messages, threads_started,
                                replies_given, replies_received, first_date, last_date,
                                active_days, newsgroups: most messages first */
  STORE_AUTHORS_ADDRESSES,   /* author_id, address, name, messages, primary_address */
  STORE_AUTHORS_DECISIONS,   /* address, other, decision, note, decided_at */
} StoreAuthors;

/* The rows authors are made of (store-authors.c); who is who is decided
 * by pipeline/authors.c. */
typedef struct {
  const char *address;       /* lower case */
  const char *name;          /* the display name, or NULL */
  gint64 copies, messages, first_id;
  const char *first_date, *last_date;
} StoreSenderRow;

typedef gboolean (*StoreSenderFunc) (const StoreSenderRow *row, gpointer user_data);

typedef struct {
  gint64 id;
  const char *name, *address;        /* address: the primary key */
  gint64 messages;
  const char *first_date, *last_date;
  const char *shared_address;        /* a shared address's person: the address; else NULL */
} StoreAuthorRow;

typedef struct {
  const char *key;                   /* an address, or "address (name)" */
  gint64 author_id;
  const char *name;                  /* the display name used most, or NULL */
  gint64 messages;
  gint64 previous;                   /* the author it belonged to before; 0: none */
  const char *shared;                /* a shared address's person: the address its messages carry */
  const char *const *raw_names;      /* and their from_name values (NULL entries: none) */
  guint n_raw_names;
} StoreAuthorKeyRow;

gboolean store_authors_begin (Store *store, gboolean force, gboolean *needed, gboolean *own,
                              GError **error);
gboolean store_authors_end (Store *store, gboolean own, gboolean ok, GError **error);
gboolean store_author_senders (Store *store, StoreSenderFunc func, gpointer user_data, GError **error);
/* A row of author_decisions (deja authors --merge/--split/--never). */
typedef struct {
  const char *decision;      /* "merge", "split" or "never" */
  const char *address;
  const char *other;         /* or NULL */
  const char *note;          /* or NULL */
} StoreAuthorDecisionRow;

typedef void (*StoreAuthorDecisionFunc) (const StoreAuthorDecisionRow *row, gpointer user_data);
gboolean store_author_decisions (Store *store, StoreAuthorDecisionFunc func, gpointer user_data,
                                 GError **error);
gboolean store_author_previous (Store *store, StorePairFunc func, gpointer user_data, GError **error);
gboolean store_authors_keyed (Store *store, gboolean *keyed, GError **error);
gboolean store_write_authors (Store *store, const StoreAuthorRow *authors, guint n_authors,
                              const StoreAuthorKeyRow *keys, guint n_keys, GError **error);
gboolean store_set_author_decision (Store *store, const char *decision, const char *address,
                                    const char *other, const char *note, GError **error);
gboolean store_author_address (Store *store, const char *ref, char **address, GError **error);
void store_author_rows_hold (Store *store);
void store_author_rows_let_go (Store *store);
gboolean store_authors (Store *store, StoreAuthors what, gint64 min_messages, StoreRowFunc func,
                        gpointer user_data, GError **error);
typedef struct {
  gint64 author;
  const char *key, *name;            /* an author_addresses row */
  const char *author_name, *author_address;
  gint64 author_messages;
} StoreAliasRow;

typedef gboolean (*StoreAliasFunc) (const StoreAliasRow *row, gpointer user_data);
gboolean store_author_aliases (Store *store, StoreAliasFunc func, gpointer user_data, GError **error);
gboolean store_author_bodies (Store *store, StorePairFunc func, gpointer user_data, GError **error);

/* deja review (store-review.c). */
typedef enum {
  STORE_DECISION_NONE = 0,
  STORE_DECISION_SPLIT,      /* a message starts on the line */
  STORE_DECISION_NO_SPLIT,   /* the line is body text */
} StoreDecision;

gboolean store_parse_decision (const char *text, StoreDecision *decision);
gboolean store_has_decisions (Store *store, gboolean *any, GError **error);
gboolean store_decisions_for (Store *store, const char *sha256, GHashTable **lines, GError **error);
gboolean store_set_decision (Store *store, const char *sha256, gint64 line_no, StoreDecision decision,
                             const char *note, gboolean *changed, GError **error);
/* Own text still to analyse (text signals NULL, or all with @force), in
 * id order after @after_id; and the signals set afterwards. */
gboolean store_text_to_analyse (Store *store, gboolean force, gboolean copies, gint64 after_id,
                                guint limit, GArray *ids, GPtrArray *texts, GError **error);
gboolean store_copy_text_signals (Store *store, gboolean force, gint64 *copied, GError **error);
gboolean store_count_text_to_analyse (Store *store, gboolean force, gint64 *count, GError **error);
gboolean store_set_text_signals (Store *store, gint64 id, const StoreTextSignals *text,
                                 GError **error);

/* deja dedup's results (schema/010-text-analysis.sql). */
typedef struct {
  gint64 message_id, cluster_id;
  double similarity;
  const char *method;        /* "exact" or "minhash" */
} StoreNearDuplicate;

typedef struct {
  guint64 hash;
  const char *text;
  gint64 messages, authors, first_message_id;
  const gint64 *message_ids;
  guint n_message_ids;
} StoreRepeatedParagraph;

gboolean store_save_dedup (Store *store, const StoreNearDuplicate *rows, guint n_rows,
                           const StoreRepeatedParagraph *paragraphs, guint n_paragraphs,
                           const char *settings, GError **error);

typedef enum {
  STORE_DEDUP_CLUSTERS,      /* near_duplicates with date, author, subject */
  STORE_DEDUP_PARAGRAPHS,    /* repeated_paragraphs, most repeated first */
} StoreDedupList;

gboolean store_dedup_rows (Store *store, StoreDedupList what, StoreRowFunc func, gpointer user_data,
                           GError **error);

gboolean store_begin (Store *store, GError **error);
guint store_uncommitted_files (Store *store);
guint store_commits (Store *store);
gboolean store_commit (Store *store, GError **error);
void store_rollback (Store *store);
/* One separator-log line to review, with its decision if any; strings
 * are borrowed for the callback. */
typedef struct {
  const char *file_sha256;
  const char *path;
  gint64 line_no;
  gint64 byte_offset;
  const char *verdict;
  const char *reason;
  const char *shape;
  const char *line_text;
  const char *decision;      /* "split", "no-split" or NULL */
  const char *note;
} StoreReviewRow;

typedef gboolean (*StoreReviewFunc) (const StoreReviewRow *row, gpointer user_data);

gboolean store_review_rows (Store *store, gboolean all, gboolean undecided, StoreReviewFunc func,
                            gpointer user_data, GError **error);
gboolean store_paths_for_sha256 (Store *store, const char *sha256, GPtrArray **paths,
                                 GError **error);

/* deja export-pg (store-pg.c): the tables written for PostgreSQL. */
typedef enum {
  STORE_PG_FILES,
  STORE_PG_NEWSGROUPS,
  STORE_PG_AUTHORS,
  STORE_PG_AUTHOR_ADDRESSES,
  STORE_PG_MESSAGES,             /* hierarchy, year, then the columns of messages */
  STORE_PG_MESSAGE_NEWSGROUPS,
  STORE_PG_REFS,
  STORE_PG_PARTITIONS,           /* hierarchy, year, messages */
} StorePgTable;

/* Messages of ids from lo up to (not with) hi */
typedef struct {
  gint64 lo, hi;
} StorePgRange;

typedef enum {
  STORE_PG_PARTS_EQUAL,          /* of about the same number of messages */
  STORE_PG_PARTS_SHARDS,         /* one per shard merged (deja ingest --shard) */
} StorePgParts;

gboolean store_pg_rows (Store *store, const StoreFilter *filter, const StorePgRange *range,
                        StorePgTable table, StoreRowFunc func, gpointer user_data, GError **error);
gboolean store_pg_part_bounds (Store *store, const StoreFilter *filter, StorePgParts how, guint parts,
                               GArray **bounds, GError **error);
gboolean store_pg_columns (Store *store, StorePgTable table, GPtrArray **names, GError **error);

/* deja merge (store-merge.c) */
typedef struct {
  gint64 files;          /* files whose rows were copied */
  gint64 replaced;       /* of them, paths whose other content here was replaced */
  gint64 unchanged;      /* files here already: the same path and content */
  gint64 same_content;   /* files whose content is here under another path: not stored twice */
  gint64 messages;       /* messages copied */
  gint64 decisions;      /* separator and author decisions taken over */
  const char *fts_rebuilt; /* why its full-text index was made again, not copied; NULL: copied */
  const char *rows_rebuilt; /* why its messages were written again row by row; NULL: copied
                             as SQLite stored them */
  gint64 authors_moved;  /* of those, messages given the author their address has here */
  gboolean whole;        /* every file of the shard came, none replaced anything */
  gboolean threaded;     /* its threads were current (and not joined by subject) */
  StoreIdRange ids;      /* the ids its messages have here */
} StoreMergeCounts;

/* deja ingest --shard N: shard N's message ids start after N × 2^32
 * (4 billion messages to a shard; ids stay below 2^53, exact in JSON). */
#define STORE_SHARD_IDS (G_GINT64_CONSTANT (1) << 32)
#define STORE_MAX_SHARD 1000000
void store_set_shard (Store *store, guint shard);

/* A catalog: shards read in place as one corpus (store-catalog.c).
 * @each: called in the caller's thread with each shard and its messages
 * as it is opened and checked, then once with NULL: what follows reads
 * the whole set */
typedef void (*StoreCatalogEach) (const char *shard, gint64 messages, gpointer data);
gboolean store_catalog_make (Store *store, const char *const *shards, guint n, const char *decisions,
                             StoreCatalogEach each, gpointer data, const char **failed, GArray **ranges,
                             GError **error);
gboolean store_is_catalog (Store *store);
gboolean store_catalog_finish (Store *store, GError **error);
/* The most threads that index an ingest's full text beside its writer */
#define STORE_FTS_LANES_MAX 4
void store_index_beside (Store *store, guint lanes);

typedef struct {
  StoreMergeCounts counts;
  double seconds;        /* copying its rows (its share of the commit aside) */
  GError *error;         /* NULL: it went in */
} StoreMergeResult;

/* Small shards go into one transaction together: up to this many (the
 * attached databases SQLite allows, but for main and temp), */
#define STORE_MERGE_GROUP 8
/* and this many bytes of database files (under the writer's 64 MiB page
 * cache, which a merge into a database holding messages uses: past it a
 * transaction spills; twisted-python in 64 shards, 32 MiB against 16:
 * 1.64-1.80 s against 1.86-2.07 s, and 63 of them into the first one's
 * result 2.08-2.24 s against 2.31-2.35 s). */
#define STORE_MERGE_GROUP_BYTES (G_GINT64_CONSTANT (32) << 20)

guint store_merge_shards (Store *store, const char *const *shards, guint n, gboolean copy_index,
                          const volatile int *cancel, StoreMergeResult *results);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Store, store_close)

G_END_DECLS
