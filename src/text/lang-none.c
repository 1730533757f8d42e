/* lang-none.c — language identification in a deja built without CLD2
 * (meson option cld2=disabled, or libcld2-dev missing).  Every text is
 * "und", never reliable: no language is made up.  The commands that store
 * languages (deja ingest's analysis, deja analyse) ask
 * text_lang_available() first and say what is missing. */
#include "lang.h"

#include <string.h>

gboolean
text_lang_available (void)
{
  return FALSE;
}

void
text_lang_detect (const char *utf8, gsize len, TextLang *out)
{
  memset (out, 0, sizeof *out);
  g_strlcpy (out->code, "und", sizeof out->code);
}
