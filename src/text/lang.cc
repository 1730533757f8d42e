/* lang.cc — CLD2's ExtDetectLanguageSummary behind a C function.
 *
 * CLD2 has only a C++ interface; this is the one C++ file in deja.  Its
 * public header uses FILE without including <cstdio> (Debian 12's
 * 0.0.0-git20150806), hence the include before it.  CLD2 never abstains
 * on short text unless asked (it answers English), so texts with fewer
 * than TEXT_LANG_MIN_LETTERS letters are "und" before CLD2 sees them, and
 * its own "reliable" answer is kept apart from the language. */
#include <cstdio>
#include <cstring>
#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

extern "C" {
#include "lang.h"
}

namespace CLD2 {
const char *LanguageCode (Language lang);   /* internal/lang_script.h, exported */
}

static void
set_code (char *dest, CLD2::Language lang)
{
  const char *code = CLD2::LanguageCode (lang);

  if (lang == CLD2::UNKNOWN_LANGUAGE || code == NULL || std::strcmp (code, "un") == 0
      || std::strcmp (code, "xxx") == 0)
    code = "und";
  g_strlcpy (dest, code, 16);
}

extern "C" gboolean
text_lang_available (void)
{
  return TRUE;
}

extern "C" void
text_lang_detect (const char *utf8, gsize len, TextLang *out)
{
  CLD2::Language lang3[3] = { CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE, CLD2::UNKNOWN_LANGUAGE };
  int percent3[3] = { 0, 0, 0 }, text_bytes = 0;
  bool reliable = false;

  std::memset (out, 0, sizeof *out);
  g_strlcpy (out->code, "und", sizeof out->code);
  if (utf8 == NULL || len == 0 || len > G_MAXINT / 2
      || text_lang_letters (utf8, len, TEXT_LANG_MIN_LETTERS) < TEXT_LANG_MIN_LETTERS)
    return;
  /* The CheckUTF8 variant refuses text that is not interchange-valid
   * UTF-8 (control characters count) instead of reading past it; then
   * the valid start is read, when it is most of the text. */
  int valid_prefix = 0;
  double scores[3];
  CLD2::Language lang = CLD2::ExtDetectLanguageSummaryCheckUTF8 (
      utf8, (int) len, true, NULL, 0, lang3, percent3, scores, NULL, &text_bytes, &reliable,
      &valid_prefix);
  if (lang == CLD2::UNKNOWN_LANGUAGE && valid_prefix < (int) len && valid_prefix >= (int) len / 2
      && valid_prefix > 0)
    lang = CLD2::ExtDetectLanguageSummaryCheckUTF8 (
        utf8, valid_prefix, true, NULL, 0, lang3, percent3, scores, NULL, &text_bytes, &reliable,
        &valid_prefix);
  set_code (out->code, lang);
  out->percent = lang == CLD2::UNKNOWN_LANGUAGE ? 0 : percent3[0];
  out->reliable = reliable && lang != CLD2::UNKNOWN_LANGUAGE;
  if (lang3[1] != CLD2::UNKNOWN_LANGUAGE && lang3[1] != lang && percent3[1] > 0)
    set_code (out->second, lang3[1]);
}
