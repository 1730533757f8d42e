/* thread.h — rebuilding threads from References and In-Reply-To (JWZ). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A position in the input (or -1): 32 bits keep threading's memory per
 * message small; two billion messages are enough. */
typedef gint32 ThreadIndex;

/* One message, as threading sees it.  Indexes are positions in the input
 * array, which must be in archive order (of several copies of a
 * Message-ID, the canonical one is the least damaged, then the first). */
typedef struct {
  const char *message_id;     /* normalised, or NULL */
  const char *const *references;   /* (array length=n_references) oldest first */
  guint n_references;
  const char *const *in_reply_to;  /* (array length=n_in_reply_to) */
  guint n_in_reply_to;
  const char *date;           /* ISO 8601, or NULL */
  const char *subject;        /* used only when grouping by subject */
  guint64 content;            /* a hash of the content, to tell conflicting copies */
  guint damage;               /* characters a lossy conversion replaced ('?', U+FFFD) */
} ThreadInput;

typedef enum {
  THREAD_FLAG_ORPHAN      = 1 << 0,  /* its parent is not in the archive */
  THREAD_FLAG_CYCLE       = 1 << 1,  /* its References made a loop: that link was dropped */
  THREAD_FLAG_TIME_TRAVEL = 1 << 2,  /* dated before its parent */
  THREAD_FLAG_DUPLICATE   = 1 << 3,  /* a later copy of a Message-ID */
  THREAD_FLAG_CONFLICT    = 1 << 4,  /* a copy whose content differs from the first */
  THREAD_FLAG_SUBJECT     = 1 << 5,  /* joined to its thread by subject only */
} ThreadFlags;

typedef struct {
  ThreadIndex thread;         /* index of the thread's root message */
  ThreadIndex parent;         /* index of the parent message, or -1 */
  ThreadIndex duplicate_of;   /* index of the canonical copy, or -1 */
  const char *missing_parent; /* Message-ID of a parent not in the archive (borrowed), or NULL */
  ThreadFlags flags;
} ThreadOutput;

/* A Message-ID that is referenced but not in the archive, holding
 * messages together. */
typedef struct {
  const char *message_id;     /* borrowed from the input */
  ThreadIndex thread;
  guint children;
} ThreadPlaceholder;

typedef struct {
  guint64 threads, orphans, cycles, time_travel, duplicates, conflicts, subject_joins;
} ThreadCounts;

typedef struct {
  ThreadOutput *out;          /* one per input */
  GArray *placeholders;       /* of ThreadPlaceholder */
  ThreadCounts counts;
} ThreadResult;

void thread_compute (const ThreadInput *in, gsize n, gboolean by_subject, ThreadResult *result);
void thread_result_clear (ThreadResult *result);
char *thread_flags_to_string (ThreadFlags flags);
ThreadFlags thread_flags_from_string (const char *s, gboolean *unknown);
void thread_counts_add (ThreadCounts *counts, gboolean copy, gboolean root, ThreadFlags flags);
const char *thread_flag_name (ThreadFlags flag);
char *thread_subject_key (const char *subject);
const char *thread_parent_reference (const ThreadInput *message);
gboolean thread_date_before (const char *date, const char *parent_date);

G_END_DECLS
