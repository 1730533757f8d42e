/* fuzz-envelope.c — the envelope grammars, on one line. */
#include "envelope.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  mbox_envelope_shape ((const char *) data, size);
  return 0;
}
