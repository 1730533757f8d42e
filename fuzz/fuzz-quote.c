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
  g_free (own.text);
  return 0;
}
