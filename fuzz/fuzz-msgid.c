/* fuzz-msgid.c — Message-ID normalisation and References lists. */
#include "fuzz.h"
#include "msgid.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *id = msgid_normalize ((const char *) data, size);
  g_autoptr (GPtrArray) list = msgid_parse_list ((const char *) data, size);

  return 0;
}
