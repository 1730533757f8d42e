/* ingest.h — archive files into the database, each in one transaction. */
#pragma once

#include <glib.h>

#include "split.h"
#include "store.h"

G_BEGIN_DECLS

#define INGEST_ERROR (ingest_error_quark ())
GQuark ingest_error_quark (void);

typedef enum {
  INGEST_ERROR_CANCELLED,  /* options.cancel was set: the file was rolled back */
  INGEST_ERROR_DIVERGED,   /* internal: a grown file is read whole after all */
} IngestError;

typedef struct {
  gboolean force;          /* accept a file without a leading envelope */
  guint threads;           /* decoding threads; 0 = one per processor */
  gboolean reingest;       /* read the file again even if unchanged (new decisions) */
  gboolean analyse;        /* language and prose signals, in the decode workers */
  const volatile int *cancel;   /* when it becomes non-zero (a signal handler sets it), the
                                   file being read fails with INGEST_ERROR_CANCELLED and is
                                   rolled back; NULL: never */
} IngestOptions;

typedef struct {
  SplitCounts counts;
  gboolean unchanged;      /* already ingested with this content */
  gboolean empty;          /* a valid mbox with no messages */
  char *duplicate_of;      /* same content already ingested under this path */
  gint64 appended_at;      /* the file grew at its end: only what follows this offset was
                              read (its start verified by hash); 0: read whole */
  gint64 resume_at;        /* appending: the old last message, where splitting starts again */
  gint64 resume_line_no;   /* its line */
} IngestResult;

/* One command's ingest: the files it stores, one after the other, share
 * what the thread guess knows of the database (pipeline/thread-guess.c). */
typedef struct _IngestSession IngestSession;

IngestSession *ingest_session_new (Store *store, const IngestOptions *options);
void ingest_session_free (IngestSession *session);
guint ingest_index_threads (guint cpus, guint threads);
typedef struct _IngestDictionary IngestDictionary;
IngestDictionary *ingest_preload_dictionary (char *lang);
void ingest_release_dictionary (IngestDictionary *dictionary);
void ingest_session_expect (IngestSession *session, GPtrArray *paths);
gboolean ingest_file (IngestSession *session, const char *path, IngestResult *result,
                      GError **error);
void ingest_result_clear (IngestResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (IngestSession, ingest_session_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (IngestDictionary, ingest_release_dictionary)

G_END_DECLS
