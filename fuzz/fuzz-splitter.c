/* fuzz-splitter.c — the splitter: every span, log entry and extraction. */
#include "fuzz.h"
#include "mbox.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  for (int force = 0; force < 2; force++)
    {
      g_autoptr (MboxSplitter) s = mbox_splitter_new ((const char *) data, size,
                                                      force ? MBOX_SPLIT_FORCE : MBOX_SPLIT_NONE);
      MboxSpan span;
      goffset end = -1;

      while (mbox_splitter_next (s, &span, NULL))
        {
          gsize n;
          const MboxLogEntry *log = mbox_splitter_peek_log (s, &n);
          g_autoptr (GBytes) bytes = mbox_span_extract ((const char *) data, &span);

          g_assert (span.offset >= 0 && (gsize) (span.offset + span.length) <= size);
          g_assert (end < 0 || span.offset == end);
          end = span.offset + span.length;
          for (gsize i = 0; i < n; i++)
            g_free (mbox_reasons_to_string (log[i].reasons));
          mbox_splitter_clear_log (s);
        }
    }
  return 0;
}
