/* words.c — ICU word boundaries over UTF-8 without a UTF-16 copy (UText),
 * sentence boundaries over a UTF-16 copy, case folding, Snowball stems
 * per language.
 *
 * A TextWords holds one thread's ICU iterators, Snowball stemmers and
 * buffers; it is not shared between threads. */
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>
#include <libstemmer.h>
#include "words.h"

struct _TextWords {
  gboolean icu_only;        /* tests: no ASCII path */
  gboolean raw;             /* text_words_each_raw(): no folding */
  UBreakIterator *word_bi;
  UBreakIterator *sentence_bi;
  UText *ut;
  GHashTable *stemmers;     /* language code → struct sb_stemmer* (or NULL: none) */
  GString *fold;            /* the current word, folded */
  GString *stem;            /* and stemmed */
  UChar *u16;               /* text_words_sentences()'s copy */
  gsize u16_size;
};

static void
stemmer_free (gpointer p)
{
  if (p)
    sb_stemmer_delete (p);
}

TextWords *
text_words_new (void)
{
  TextWords *w = g_new0 (TextWords, 1);
  UErrorCode status = U_ZERO_ERROR;

  w->word_bi = ubrk_open (UBRK_WORD, "", NULL, 0, &status);
  /* @ss=standard: "Mr. Smith" is not two sentences (ICU's abbreviation
   * suppression for the languages that have a list). */
  w->sentence_bi = ubrk_open (UBRK_SENTENCE, "en@ss=standard", NULL, 0, &status);
  if (U_FAILURE (status))
    g_error ("ICU break iterators: %s", u_errorName (status));
  w->stemmers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, stemmer_free);
  w->fold = g_string_sized_new (64);
  w->stem = g_string_sized_new (64);
  return w;
}

void
text_words_free (TextWords *w)
{
  if (w == NULL)
    return;
  ubrk_close (w->word_bi);
  ubrk_close (w->sentence_bi);
  if (w->ut)
    utext_close (w->ut);
  g_hash_table_destroy (w->stemmers);
  g_string_free (w->fold, TRUE);
  g_string_free (w->stem, TRUE);
  g_free (w->u16);
  g_free (w);
}

static struct sb_stemmer *
stemmer_for (TextWords *w, const char *lang)
{
  gpointer stemmer;
  char code[8];

  if (lang == NULL || strcmp (lang, "und") == 0)
    return NULL;
  if (g_hash_table_lookup_extended (w->stemmers, lang, NULL, &stemmer))
    return stemmer;
  /* libstemmer knows ISO 639-1 codes ("en", "de"); CLD2's Norwegian is
   * "nb" or "nn", Snowball's "no". */
  g_strlcpy (code, lang, sizeof code);
  if (strcmp (code, "nb") == 0 || strcmp (code, "nn") == 0)
    strcpy (code, "no");
  stemmer = sb_stemmer_new (code, "UTF_8");
  g_hash_table_insert (w->stemmers, g_strdup (lang), stemmer);
  return stemmer;
}

/**
 * text_fold:
 *
 * Case folding (Unicode full folding; ASCII by table), with the
 * typographic apostrophe U+2019 as "'".  Returns the folded word in a
 * buffer of @w, valid until the next call.
 */
const char *
text_fold (TextWords *w, const char *word, gsize len, gsize *out_len)
{
  gboolean ascii = TRUE;

  g_string_truncate (w->fold, 0);
  for (gsize i = 0; i < len && ascii; i++)
    ascii = (guchar) word[i] < 0x80;
  if (ascii)
    {
      g_string_set_size (w->fold, len);
      for (gsize i = 0; i < len; i++)
        w->fold->str[i] = g_ascii_tolower (word[i]);
    }
  else
    {
      g_autofree char *folded = g_utf8_casefold (word, len);

      for (const char *p = folded; *p; )
        {
          if ((guchar) p[0] == 0xE2 && (guchar) p[1] == 0x80 && (guchar) p[2] == 0x99)
            {
              g_string_append_c (w->fold, '\'');
              p += 3;
            }
          else
            g_string_append_c (w->fold, *p++);
        }
    }
  *out_len = w->fold->len;
  return w->fold->str;
}

static gboolean
set_text (TextWords *w, UBreakIterator *bi, const char *text, gsize len)
{
  UErrorCode status = U_ZERO_ERROR;

  w->ut = utext_openUTF8 (w->ut, text, (int64_t) len, &status);
  if (U_FAILURE (status))
    return FALSE;
  ubrk_setUText (bi, w->ut, &status);
  return U_SUCCESS (status);
}

/* Whether what lies between two words breaks a phrase: anything but
 * spaces, hyphens, slashes, apostrophes and ampersands. */
static gboolean
breaks_phrase (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '-' && s[i] != '/' && s[i] != '\'' && s[i] != '&')
      return TRUE;
  return FALSE;
}

/* Letters and digits that are a number, an address or a code rather than
 * a word: they begin with a digit (0x1f, 2nd, 0m) or hold three digits
 * or more (deadbeef00, a1b2c3).  "mp3" and "py2exe" stay words. */
static gboolean
numeric_by_digits (gboolean first_is_digit, gsize digits)
{
  return first_is_digit || digits >= 3;
}

/* numeric_by_digits() of the word @s (the ASCII scanner counts its
 * digits as it finds a word's end) */
static gboolean
numeric (const char *s, gsize len)
{
  gsize digits = 0;

  for (gsize i = 0; i < len; i++)
    digits += g_ascii_isdigit (s[i]) ? 1 : 0;
  return numeric_by_digits (len > 0 && g_ascii_isdigit (s[0]), digits);
}

/* One word or number (@number: ICU's status is a number's, or numeric())
 * of the text: folded, stemmed, given to @func. */
static gboolean
emit (TextWords *w, struct sb_stemmer *stemmer, const char *raw, gsize len, gboolean number,
      gboolean *joined, TextTokenFunc func, gpointer user_data)
{
  TextToken t;

  t.raw = raw;
  t.raw_len = len;
  t.kind = number ? TEXT_TOKEN_NUMBER : TEXT_TOKEN_WORD;
  t.joined = *joined;
  if (w->raw)
    {
      t.term = t.folded = NULL;
      t.len = 0;
      *joined = TRUE;
      return func (&t, user_data);
    }
  t.term = t.folded = text_fold (w, t.raw, t.raw_len, &t.len);
  if (stemmer && t.kind == TEXT_TOKEN_WORD)
    {
      const sb_symbol *s = sb_stemmer_stem (stemmer, (const sb_symbol *) t.term, (int) t.len);

      if (s)
        {
          int n = sb_stemmer_length (stemmer);

          /* into our buffer: the stem is NUL-terminated there */
          g_string_truncate (w->stem, 0);
          g_string_append_len (w->stem, (const char *) s, n);
          t.term = w->stem->str;
          t.len = w->stem->len;
        }
    }
  *joined = TRUE;
  return func (&t, user_data);
}

/* The word-break classes of UAX #29 that ASCII characters have, as ICU
 * applies them: letters (and '@'), digits, MidNumLet '.' and Single_Quote (which
 * join letters to letters and digits to digits), MidNum ',' ';' (digits
 * only) and ExtendNumLet '_'.  ICU takes ':' out of MidLetter ("a:b" is
 * two words).  Everything else (spaces, controls, punctuation) only
 * separates words here. */
typedef enum { WB_NONE, WB_LETTER, WB_DIGIT, WB_MIDNUMLET, WB_MIDNUM, WB_UNDERSCORE } WordClass;

static guint8
word_class_of (guint c)
{
  if (g_ascii_isalpha (c) || c == '@')   /* ICU counts '@' among letters */
    return WB_LETTER;
  if (g_ascii_isdigit (c))
    return WB_DIGIT;
  switch (c)
    {
    case '.': case '\'': return WB_MIDNUMLET;
    case ',': case ';': return WB_MIDNUM;
    case '_': return WB_UNDERSCORE;
    default: return WB_NONE;
    }
}

/* by table: a lookup a character */
static guint8 word_classes[256];
static gsize word_classes_made;

static inline WordClass
word_class (char c)
{
  return (WordClass) word_classes[(guchar) c];
}

/* Where the word or number that starts at @p (a letter, digit or '_')
 * ends, by UAX #29's rules 5-13b as ICU chains them; *rule is ICU's
 * status of it (UBRK_WORD_LETTER, UBRK_WORD_NUMBER, or UBRK_WORD_NONE
 * for a lone '_'), *digits how many digits it has (for numeric()). */
static const char *
ascii_word_end (const char *p, const char *end, int32_t *rule, gsize *digits)
{
  WordClass cur = word_class (*p);
  gsize n_digits = cur == WB_DIGIT;

  *rule = cur == WB_LETTER ? UBRK_WORD_LETTER : cur == WB_DIGIT ? UBRK_WORD_NUMBER : UBRK_WORD_NONE;
  for (p++; p < end; p++)
    {
      WordClass next = word_class (*p);

      if (next == WB_LETTER || next == WB_DIGIT || next == WB_UNDERSCORE)
        {
          /* 5, 8, 9, 10, 13a, 13b; ICU's status is that of the last
           * character's rule: a letter's, a digit's ("mp3" is a number),
           * and a '_' that of what it follows */
          if (next == WB_LETTER)
            *rule = UBRK_WORD_LETTER;
          else if (next == WB_DIGIT)
            {
              *rule = UBRK_WORD_NUMBER;
              n_digits++;
            }
          else
            *rule = cur == WB_DIGIT ? UBRK_WORD_NUMBER : UBRK_WORD_LETTER;
          cur = next;
        }
      else if (next == WB_NONE)
        break;
      else if (cur == WB_LETTER && next == WB_MIDNUMLET && p + 1 < end && word_class (p[1]) == WB_LETTER)
        {
          p++;   /* 6, 7 */
          *rule = UBRK_WORD_LETTER;
        }
      else if (cur == WB_DIGIT && (next == WB_MIDNUM || next == WB_MIDNUMLET) && p + 1 < end &&
               word_class (p[1]) == WB_DIGIT)
        {
          p++;   /* 11, 12: the digit after it is not looked at again */
          *rule = UBRK_WORD_NUMBER;
          n_digits++;
        }
      else
        break;
    }
  *digits = n_digits;
  return p;
}

/* text_words_each() over text that is all ASCII, without ICU: the same
 * words, numbers and statuses (tests/test-analysis.c compares the two on
 * random text), a quarter of the time. */
static gboolean
ascii_words_each (TextWords *w, struct sb_stemmer *stemmer, const char *prose, gsize len,
                  TextTokenFunc func, gpointer user_data)
{
  const char *p = prose, *end = prose + len;
  gboolean joined = FALSE;

  text_byte_classes (word_classes, &word_classes_made, word_class_of);
  while (p < end)
    {
      const char *gap = p, *word_end;
      int32_t rule;
      WordClass k;
      gsize digits;

      while (p < end && (k = word_class (*p)) != WB_LETTER && k != WB_DIGIT && k != WB_UNDERSCORE)
        p++;
      if (p > gap && breaks_phrase (gap, p - gap))
        joined = FALSE;
      if (p == end)
        break;
      word_end = ascii_word_end (p, end, &rule, &digits);
      if (rule < UBRK_WORD_NUMBER)
        {
          if (breaks_phrase (p, word_end - p))
            joined = FALSE;
        }
      else if (!emit (w, stemmer, p, word_end - p,
                      rule < UBRK_WORD_LETTER || numeric_by_digits (word_class (*p) == WB_DIGIT, digits),
                      &joined, func, user_data))
        return FALSE;
      p = word_end;
    }
  return TRUE;
}

/* (eight bytes at a time) */
static gboolean
all_ascii (const char *s, gsize len)
{
  guint64 high = 0;
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 word;

      memcpy (&word, s + i, 8);
      high |= word;
    }
  for (; i < len; i++)
    high |= (guchar) s[i];
  return (high & G_GUINT64_CONSTANT (0x8080808080808080)) == 0;
}

/**
 * text_words_each:
 * @prose: text_prose() output
 * @stem_lang: (nullable): a language code to stem for; no stems when NULL
 *   or when Snowball has no stemmer for it
 *
 * Calls @func for each word and number, in order, until it returns FALSE.
 * Words are ICU's (UAX #29); text that is all ASCII is cut by the same
 * rules without ICU.
 */
gboolean
text_words_each (TextWords *w, const char *prose, gsize len, const char *stem_lang,
                 TextTokenFunc func, gpointer user_data)
{
  struct sb_stemmer *stemmer = stemmer_for (w, stem_lang);
  int32_t start, end;
  gboolean joined = FALSE;

  if (len == 0 || len > G_MAXINT32)
    return TRUE;
  if (!w->icu_only && all_ascii (prose, len))
    return ascii_words_each (w, stemmer, prose, len, func, user_data);
  if (!set_text (w, w->word_bi, prose, len))
    return TRUE;
  start = ubrk_first (w->word_bi);
  for (end = ubrk_next (w->word_bi); end != UBRK_DONE; start = end, end = ubrk_next (w->word_bi))
    {
      int32_t rule = ubrk_getRuleStatus (w->word_bi);

      if (rule < UBRK_WORD_NUMBER)
        {
          if (breaks_phrase (prose + start, end - start))
            joined = FALSE;
          continue;
        }
      if (!emit (w, stemmer, prose + start, end - start,
                 rule < UBRK_WORD_LETTER || numeric (prose + start, end - start), &joined, func,
                 user_data))
        return FALSE;
    }
  return TRUE;
}

/**
 * text_words_each_raw:
 *
 * text_words_each() for counting: the same words and numbers, as written
 * only (@term and @folded are %NULL), without the cost of folding each.
 */
gboolean
text_words_each_raw (TextWords *w, const char *prose, gsize len, TextTokenFunc func,
                     gpointer user_data)
{
  gboolean ok;

  w->raw = TRUE;
  ok = text_words_each (w, prose, len, NULL, func, user_data);
  w->raw = FALSE;
  return ok;
}

/**
 * text_words_set_icu_only:
 *
 * For tests: every text through ICU, none through the ASCII path.
 */
void
text_words_set_icu_only (TextWords *w, gboolean icu_only)
{
  w->icu_only = icu_only;
}

/* The longest prose read from a UTF-16 copy (the copy, twice its size,
 * stays with the analyser): longer prose is read through the UText. */
#define SENTENCES_COPY_MAX (64 * 1024)

/* @prose in UTF-16, in w->u16: its length, or -1 when it is not valid
 * UTF-8 (u_strFromUTF8() refuses ill-formed text). */
static int32_t
to_utf16 (TextWords *w, const char *prose, gsize len)
{
  UErrorCode status = U_ZERO_ERROR;
  int32_t n = 0;

  if (w->u16_size < len)
    {
      w->u16_size = MAX (len, 2 * w->u16_size);
      w->u16 = g_renew (UChar, w->u16, w->u16_size);
    }
  u_strFromUTF8 (w->u16, (int32_t) w->u16_size, &n, prose, (int32_t) len, &status);
  return U_SUCCESS (status) ? n : -1;
}

/* Sentences with at least one letter or digit, by ICU's rules.  ICU reads
 * a UTF-16 copy faster than UTF-8 through a UText (the same boundaries); a
 * code unit of 0x80 or more is a character that is, as a byte of 0x80
 * or more was.  Text that is not valid UTF-8 is read as UTF-8 (ICU's
 * UText and its conversion replace bad bytes each their own way), and so
 * is prose longer than SENTENCES_COPY_MAX (a bound on the copy). */
guint
text_words_sentences (TextWords *w, const char *prose, gsize len)
{
  int32_t start, end, n16 = -1;
  guint n = 0;
  UErrorCode status = U_ZERO_ERROR;

  if (len == 0 || len > G_MAXINT32)
    return 0;
  if (!w->icu_only && text_sentences_ascii (prose, len, &n))
    return n;
  if (len <= SENTENCES_COPY_MAX)
    n16 = to_utf16 (w, prose, len);   /* -1 for text that is not valid UTF-8 */
  if (n16 >= 0)
    ubrk_setText (w->sentence_bi, w->u16, n16, &status);
  if (U_FAILURE (status) || (n16 < 0 && !set_text (w, w->sentence_bi, prose, len)))
    return 0;
  start = ubrk_first (w->sentence_bi);
  for (end = ubrk_next (w->sentence_bi); end != UBRK_DONE; start = end, end = ubrk_next (w->sentence_bi))
    for (int32_t i = start; i < end; i++)
      {
        guint unit = n16 >= 0 ? w->u16[i] : (guchar) prose[i];

        if (unit >= 0x80 || g_ascii_isalnum (unit))
          {
            n++;
            break;
          }
      }
  return n;
}

static gboolean
own_word_script (gunichar c)
{
  switch (g_unichar_get_script (c))
    {
    case G_UNICODE_SCRIPT_HAN:
    case G_UNICODE_SCRIPT_HIRAGANA:
    case G_UNICODE_SCRIPT_KATAKANA:
    case G_UNICODE_SCRIPT_THAI:
    case G_UNICODE_SCRIPT_LAO:
    case G_UNICODE_SCRIPT_KHMER:
      return TRUE;
    default:
      return FALSE;
    }
}

#define FNV_START 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static guint64
finish (guint64 h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

/**
 * text_quick_words_each:
 *
 * About ten times faster than ICU's word iterator and good enough to
 * compare texts with themselves: what ICU would split differently
 * (apostrophes, dots inside words) is split the same way in both texts.
 */
void
text_quick_words_each (const char *text, gsize len, TextQuickFunc func, gpointer user_data)
{
  const char *p = text, *end = text + len, *start = NULL;
  guint64 h = FNV_START;

  while (p < end)
    {
      guchar b = (guchar) *p;
      gunichar c;
      const char *next;

      if (b < 0x80)
        {
          if (g_ascii_isalnum (b))
            {
              if (!start)
                start = p, h = FNV_START;
              h = (h ^ (guchar) g_ascii_tolower (b)) * FNV_PRIME;
            }
          else if (start)
            {
              func (finish (h), start, p - start, user_data);
              start = NULL;
            }
          p++;
          continue;
        }
      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      next = g_utf8_next_char (p);
      if (g_unichar_isalnum (c) || g_unichar_ismark (c))
        {
          gunichar lower = g_unichar_tolower (c);

          if (own_word_script (c))
            {
              if (start)
                func (finish (h), start, p - start, user_data);
              func (finish ((FNV_START ^ lower) * FNV_PRIME), p, next - p, user_data);
              start = NULL;
            }
          else
            {
              if (!start)
                start = p, h = FNV_START;
              h = (h ^ lower) * FNV_PRIME;
            }
        }
      else if (start)
        {
          func (finish (h), start, p - start, user_data);
          start = NULL;
        }
      p = next;
    }
  if (start)
    func (finish (h), start, end - start, user_data);
}
