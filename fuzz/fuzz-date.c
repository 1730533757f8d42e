/* fuzz-date.c — the date parser: NULL or a well-formed ISO 8601 date. */
#include "date.h"
#include "fuzz.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  DateFlags flags = 0;
  g_autofree char *iso = date_to_iso8601 ((const char *) data, size, &flags);

  if (iso)
    g_assert (strlen (iso) == 10 || strlen (iso) == 19);
  return 0;
}
