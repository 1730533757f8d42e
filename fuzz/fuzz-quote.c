/* fuzz-quote.c — own-text extraction on arbitrary text. */
#include "fuzz.h"
#include "quote.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  OwnText own;

  quote_own_text (text, &own);
  g_assert (strlen (own.text) <= strlen (text) + 1);
  /* The spans, when there are, make the own text from pieces of the body. */
  if (own.spans)
    {
      GString *joined = g_string_new (NULL);

      for (guint k = 0; k < own.spans->len; k++)
        {
          const OwnSpan *s = &g_array_index (own.spans, OwnSpan, k);

          g_assert (s->offset + s->length <= strlen (text));
          g_string_append_len (joined, text + s->offset, s->length);
        }
      g_assert (strcmp (joined->str, own.text) == 0);
      g_string_free (joined, TRUE);
    }
  own_text_clear (&own);
  return 0;
}
