/* corpus.h — the own text of selected messages, mapped on worker threads
 * and reduced on the calling thread in archive order. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

typedef struct {
  gint64 id;
  char *date;              /* ISO 8601, or NULL */
  char *groups;            /* comma-separated, or NULL */
  char *author;            /* the author's primary address, or NULL */
  char *lang;              /* messages.lang, or NULL */
  char *text;              /* own text, never NULL */
  gpointer result;         /* the map function's */
} CorpusDoc;

typedef struct {
  gpointer (*state_new) (gpointer user_data);      /* one per worker */
  GDestroyNotify state_free;
  /* on a worker: sets doc->result */
  void (*map) (CorpusDoc *doc, gpointer state, gpointer user_data);
  GDestroyNotify result_free;
  /* on the calling thread, in archive order; FALSE stops */
  gboolean (*reduce) (CorpusDoc *doc, gpointer user_data, GError **error);
} CorpusFuncs;

/* The usual worker state: an ICU word iterator and a prose buffer
 * (state_new and state_free for commands that read words). */
typedef struct {
  struct _TextWords *words;
  GString *prose;
} CorpusWorker;

gpointer corpus_worker_new (gpointer user_data);
void corpus_worker_free (gpointer worker);

gboolean corpus_map (Store *store, const StoreFilter *filter, guint threads,
                     const CorpusFuncs *funcs, gpointer user_data, GError **error);

G_END_DECLS
