/* analyse-stored.c — the text signals of stored messages: those stored
 * with --no-analysis, rows of a database made before schema 10, or all
 * rows again (--force) after a dictionary was installed.  It reads own text in id order, analyses a batch on worker
 * threads and writes it in one transaction.
 *
 * An ingest analyses what it stores in its decode workers
 * (decode-pool.c); this pass is for rows stored without signals
 * (--no-analysis, a database older than schema 10) and for --force.
 */
#include <string.h>

#include "analyse-stored.h"
#include "spawn.h"
#include "cpus.h"
#include "analyse.h"
#include "progress.h"

#define BATCH 4096

G_DEFINE_QUARK (deja-analyse-error-quark, analyse_error)

typedef struct {
  TextAnalyser *analyser;
  GPtrArray *texts;
  TextAnalysis *out;
  guint from, to;
} Chunk;

/* What the store writes of an analysis (@t points into @a). */
void
analyse_signals_of (const TextAnalysis *a, StoreTextSignals *t)
{
  *t = (StoreTextSignals) {
    a->lang.code, a->lang.reliable, a->words, a->sentences, a->code_lines,
    a->has_chars, a->nonletter_share, a->digit_share, a->upper_share, a->oov_share,
  };
}

static gpointer
analyse_chunk (gpointer data)
{
  Chunk *c = data;

  for (guint i = c->from; i < c->to; i++)
    {
      const char *text = c->texts->pdata[i];

      text_analyse (c->analyser, text, strlen (text), &c->out[i]);
    }
  return NULL;
}

/**
 * analyse_stored_text:
 * @force: all messages, not only those never analysed
 * @cancel: (nullable): when it becomes non-zero, the pass stops after the
 *   batch at hand (committed: the next pass goes on from there) with
 *   ANALYSE_ERROR_CANCELLED
 * @analysed: (out) (optional): messages analysed
 */
gboolean
analyse_stored_text (Store *store, gboolean force, guint threads, const volatile int *cancel,
                     gint64 *analysed, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree TextAnalysis *out = g_new (TextAnalysis, BATCH);
  g_autoptr (Progress) progress = NULL;
  TextAnalyser **analysers;
  gint64 total = 0, done = 0, after = 0;
  gboolean ok = TRUE;

  if (analysed)
    *analysed = 0;
  if (!store_count_text_to_analyse (store, force, &total, error))
    return FALSE;
  if (total == 0)
    return TRUE;
  threads = CLAMP (threads ? threads : cpus_available (), 1, 64);
  analysers = g_new0 (TextAnalyser *, threads);
  for (guint t = 0; t < threads; t++)
    analysers[t] = text_analyser_new ();
  progress = progress_new ("analysing own text", (guint64) total);
  /* canonical messages, then copies with their canonical's own text get
   * its signals, then the copies whose own text differs */
  for (int copies = 0; ok && copies < 2; copies++)
    {
      after = 0;
      if (copies)
        {
          gint64 copied = 0;

          ok = store_begin (store, error) && store_copy_text_signals (store, force, &copied, error);
          ok = ok ? store_commit (store, error) : (store_rollback (store), FALSE);
          done += copied;
          progress_update (progress, (guint64) done, (guint64) done);
        }
      while (ok)
        {
          if (cancel && *cancel)
            {
              g_set_error (error, ANALYSE_ERROR, ANALYSE_ERROR_CANCELLED,
                           "interrupted after %" G_GINT64_FORMAT " messages", done);
              ok = FALSE;
              break;
            }
          Chunk chunks[64];
          GThread *workers[64] = { NULL };

          g_array_set_size (ids, 0);
          g_ptr_array_set_size (texts, 0);
          if (!(ok = store_text_to_analyse (store, force, copies, after, BATCH, ids, texts, error))
              || ids->len == 0)
            break;
          for (guint t = 0; t < threads; t++)
            {
              chunks[t] = (Chunk) { analysers[t], texts, out, ids->len * t / threads,
                                    ids->len * (t + 1) / threads };
              if (t > 0)
                workers[t] = spawn_thread ("deja-analyse", analyse_chunk, &chunks[t]);
            }
          analyse_chunk (&chunks[0]);
          for (guint t = 1; t < threads; t++)
            {
              if (workers[t])
                g_thread_join (workers[t]);
              else
                analyse_chunk (&chunks[t]);   /* its thread could not start */
            }
          ok = store_begin (store, error);
          for (guint i = 0; ok && i < ids->len; i++)
            {
              StoreTextSignals signals;

              analyse_signals_of (&out[i], &signals);
              ok = store_set_text_signals (store, g_array_index (ids, gint64, i), &signals, error);
            }
          if (ok)
            ok = store_commit (store, error);
          else
            store_rollback (store);
          after = g_array_index (ids, gint64, ids->len - 1);
          done += ids->len;
          progress_update (progress, (guint64) done, (guint64) done);
        }
    }
  for (guint t = 0; t < threads; t++)
    text_analyser_free (analysers[t]);
  g_free (analysers);
  if (analysed)
    *analysed = done;
  return ok;
}
