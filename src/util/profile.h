/* profile.h — where an ingest's time goes, stage by stage.
 *
 * Each stage's time is summed (microseconds, atomically: the decode
 * workers add theirs as the writer adds its own): the writer's wall time,
 * the other threads' CPU time (a thread waiting for a core, on a machine
 * with fewer cores than threads, is not working).  Off unless
 * profile_enable() was called (deja ingest --profile): then a stage costs
 * two clock reads.  bench/run prints what profile_describe() says. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  /* the writer, wall time */
  PROFILE_WAIT,          /* waiting for the decoders' next batch */
  PROFILE_ROW,           /* a decoded message made a row (thread guess included) */
  PROFILE_FILES,         /* each file's row begun and finished (the rows it replaces deleted) */
  PROFILE_MESSAGES,      /* INSERT INTO messages */
  PROFILE_FTS,           /* INSERT INTO messages_fts */
  PROFILE_OTHER_ROWS,    /* references, groups, attachments, Usenet headers, links */
  PROFILE_COMMIT,        /* savepoints released and commits */
  PROFILE_INDEXES,       /* secondary indexes built at a first ingest's end */
  PROFILE_THREADS,       /* threading the whole database */
  PROFILE_AUTHORS,       /* authors computed again */
  PROFILE_ANALYSIS,      /* language and prose signals of rows stored without them */
  /* the threads beside the writer, their CPU time (summed over the
   * decode workers): profile_cpu_start() */
  PROFILE_DECODE,        /* a message parsed, decoded, its own text found */
  PROFILE_SIGNALS,       /* its language and prose signals */
  PROFILE_FTS_BESIDE,    /* the full-text index made beside the writer (store-fts-side.c) */
  PROFILE_N_STAGES
} ProfileStage;

void profile_enable (void);
gboolean profile_enabled (void);
gint64 profile_start (void);
gint64 profile_cpu_start (void);
void profile_cpu_stop (ProfileStage stage, gint64 started);
void profile_stop (ProfileStage stage, gint64 started);
double profile_seconds (ProfileStage stage);
/* The most threads beside the writer whose CPU is told apart */
#define PROFILE_BESIDE_THREADS_MAX 4
void profile_beside_threads (guint n);
void profile_beside_cpu_stop (guint thread, gint64 started);
char *profile_describe (double wall_seconds, guint64 bytes);

G_END_DECLS
