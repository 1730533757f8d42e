/* lang-common.c — what language identification shares with or without
 * CLD2 (lang.cc, lang-none.c). */
#include "lang.h"

/* Letters in @utf8, counted up to @enough (invalid bytes skipped). */
guint
text_lang_letters (const char *utf8, gsize len, guint enough)
{
  const char *p = utf8, *end = utf8 + len;
  guint letters = 0;

  while (p < end && letters < enough)
    {
      if ((guchar) *p < 0x80)
        {
          letters += g_ascii_isalpha (*p) ? 1 : 0;
          p++;
          continue;
        }
      gunichar c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      letters += g_unichar_isalpha (c) ? 1 : 0;
      p = g_utf8_next_char (p);
    }
  return letters;
}
