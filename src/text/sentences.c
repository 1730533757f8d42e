/* sentences.c — ICU's sentences of ASCII prose, without ICU.
 *
 * text_words_sentences() counts sentences as ICU's iterator for
 * "en@ss=standard" cuts them: UAX #29's sentence rules, then no break
 * after the English abbreviations of ICU's data ("Mr.", "e.g.").  ICU
 * steps a state machine through every character of a UTF-16 copy: 16 %
 * of the analysis of the realistic corpus.  In ASCII prose only a full
 * stop, a question or exclamation mark or a line feed can end a
 * sentence, so this reads the text between them with memchr-like speed
 * and decides at each of them, by the rules, what ICU decides there.
 * The abbreviations are ICU's own, read from its data (the same bundle
 * and key its filter reads); where they cannot be read, ICU counts.
 * tests/test-analysis.c compares the two on random text and on text
 * made of the abbreviations; bench/README.md says what was measured.
 *
 * The characters' classes are ICU's; text with a byte of 0x80 or more, a
 * carriage return or a character of a class these rules do not read goes
 * to ICU. */
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/ures.h>
#include <unicode/ustring.h>
#include "words.h"

/* (ordered: the classes the text is scanned for come first, and the
 * letters and digits are together) */
typedef enum {
  SB_OUT = 0,      /* not read here: ICU reads the text */
  SB_LF,
  SB_ATERM,        /* . */
  SB_STERM,        /* ! ? */
  SB_LOWER,
  SB_UPPER,
  SB_NUMERIC,
  SB_SP,
  SB_SCONTINUE,    /* , - : */
  SB_CLOSE,        /* " ' ( ) [ ] { } */
  SB_OTHER,
} SentenceClass;

/* ICU's own Sentence_Break class of @c, as the rules here read it (the
 * classes move with Unicode's versions: ";" is not SContinue in ICU 72's) */
static guint8
sentence_class (guint c)
{
  if (c >= 0x80)
    return SB_OUT;
  switch (u_getIntPropertyValue ((UChar32) c, UCHAR_SENTENCE_BREAK))
    {
    case U_SB_LF: return SB_LF;
    case U_SB_ATERM: return SB_ATERM;
    case U_SB_STERM: return SB_STERM;
    case U_SB_LOWER: return SB_LOWER;
    case U_SB_UPPER: return SB_UPPER;
    case U_SB_NUMERIC: return SB_NUMERIC;
    case U_SB_SP: return SB_SP;
    case U_SB_SCONTINUE: return SB_SCONTINUE;
    case U_SB_CLOSE: return SB_CLOSE;
    case U_SB_OTHER: return SB_OTHER;
    default: return SB_OUT;   /* CR (SB3), Sep, Format, Extend, OLetter */
    }
}

/* ---- the abbreviations, as ICU's filter holds them ---- */

/* ICU's SimpleFilteredBreakIteratorBuilder::build() keeps an abbreviation
 * with a full stop inside ("Ph.D.") by what precedes its first stop
 * ("Ph."): that prefix is a partial match read backwards, and every
 * abbreviation that starts with it ("Ph." itself among them) a full
 * match read forwards from there.  The others ("Mr.") are full matches
 * read backwards.  Both are tries, as ICU's are: a walk stops where no
 * abbreviation goes on. */
typedef enum { MATCH_NONE, MATCH_FULL, MATCH_PARTIAL } MatchKind;

typedef struct {
  char c;                 /* the character into the node */
  guint8 value;           /* MatchKind; forwards: MATCH_FULL or none */
  guint16 child, sibling; /* 0: none (node 0 is the root) */
} TrieNode;

typedef struct {
  GArray *backwards;      /* of TrieNode: the abbreviations and prefixes reversed */
  GArray *forwards;
} Exceptions;

#define EXCEPTION_MAX 64  /* longer ones: ICU counts */

static guint
trie_next (const GArray *trie, guint at, char c)
{
  const TrieNode *nodes = (const TrieNode *) trie->data;

  for (guint k = nodes[at].child; k != 0; k = nodes[k].sibling)
    if (nodes[k].c == c)
      return k;
  return 0;
}

/* @s (@len bytes, read backwards when @reverse) into @trie, with @value
 * (the first value kept); FALSE when the trie is full */
static gboolean
trie_add (GArray *trie, const char *s, gsize len, gboolean reverse, MatchKind value)
{
  guint at = 0;

  for (gsize i = 0; i < len; i++)
    {
      char c = s[reverse ? len - 1 - i : i];
      guint next = trie_next (trie, at, c);

      if (next == 0)
        {
          TrieNode node = { .c = c, .sibling = g_array_index (trie, TrieNode, at).child };

          if (trie->len >= G_MAXUINT16)
            return FALSE;
          next = trie->len;
          g_array_append_val (trie, node);
          g_array_index (trie, TrieNode, at).child = (guint16) next;
        }
      at = next;
    }
  if (g_array_index (trie, TrieNode, at).value == MATCH_NONE)
    g_array_index (trie, TrieNode, at).value = (guint8) value;
  return TRUE;
}

static void
exceptions_free (Exceptions *ex)
{
  g_array_unref (ex->backwards);
  g_array_unref (ex->forwards);
  g_free (ex);
}

static Exceptions *
exceptions_build (GPtrArray *list)
{
  Exceptions *ex = g_new0 (Exceptions, 1);
  g_autoptr (GPtrArray) prefixes = g_ptr_array_new_with_free_func (g_free);
  TrieNode root = { 0 };
  gboolean ok = TRUE;

  ex->backwards = g_array_new (FALSE, FALSE, sizeof (TrieNode));
  ex->forwards = g_array_new (FALSE, FALSE, sizeof (TrieNode));
  g_array_append_val (ex->backwards, root);
  g_array_append_val (ex->forwards, root);
  for (guint i = 0; i < list->len; i++)
    {
      const char *s = g_ptr_array_index (list, i), *stop = strchr (s, '.');

      if (stop && stop[1] != '\0')
        {
          g_ptr_array_add (prefixes, g_strndup (s, stop + 1 - s));
          ok = ok && trie_add (ex->backwards, s, stop + 1 - s, TRUE, MATCH_PARTIAL);
        }
    }
  for (guint i = 0; i < list->len; i++)
    {
      const char *s = g_ptr_array_index (list, i);
      gboolean forwards = FALSE;

      for (guint k = 0; k < prefixes->len && !forwards; k++)
        forwards = g_str_has_prefix (s, g_ptr_array_index (prefixes, k));
      ok = ok && trie_add (forwards ? ex->forwards : ex->backwards, s, strlen (s), !forwards, MATCH_FULL);
    }
  if (!ok)
    g_clear_pointer (&ex, exceptions_free);
  return ex;
}

/* English's abbreviations from ICU's break-iterator data, as its filter
 * reads them; NULL when any of them is not ASCII we read, or none is */
static Exceptions *
exceptions_load (void)
{
  UErrorCode status = U_ZERO_ERROR;
  UResourceBundle *bundle = ures_open (U_ICUDATA_NAME "-brkitr", "en", &status);
  UResourceBundle *exceptions = ures_getByKey (bundle, "exceptions", NULL, &status);
  UResourceBundle *sentences = ures_getByKey (exceptions, "SentenceBreak", NULL, &status);
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_free);
  gboolean ours = U_SUCCESS (status);

  while (ours && ures_hasNext (sentences))
    {
      int32_t len = 0;
      const UChar *s = ures_getNextString (sentences, &len, NULL, &status);
      char *ascii = g_new0 (char, (gsize) len + 1);

      ours = U_SUCCESS (status) && len > 0 && len <= EXCEPTION_MAX;
      for (int32_t i = 0; ours && i < len; i++)
        {
          ours = s[i] < 0x80 && sentence_class (s[i]) != SB_OUT && sentence_class (s[i]) != SB_LF;
          ascii[i] = (char) s[i];
        }
      g_ptr_array_add (list, ascii);
    }
  ures_close (sentences);
  ures_close (exceptions);
  ures_close (bundle);
  return ours && list->len > 0 ? exceptions_build (list) : NULL;
}

static const Exceptions *
exceptions_get (void)
{
  static gsize loaded;
  static Exceptions *ex;

  if (g_once_init_enter (&loaded))
    {
      ex = exceptions_load ();
      g_once_init_leave (&loaded, 1);
    }
  return ex;
}

/* Whether ICU's filter takes back the break at @b of @text (@len bytes):
 * SimpleFilteredSentenceBreakIterator::breakExceptionAt().  Before the
 * break, one space is passed over; the longest abbreviation read
 * backwards that ends there decides: a full one takes the break back, a
 * partial one only when the text read forwards from its start ends an
 * abbreviation where the walk stops. */
static gboolean
exception_at (const Exceptions *ex, const char *text, gsize len, gsize b)
{
  gsize end = b > 0 && text[b - 1] == ' ' ? b - 1 : b, best = 0;
  MatchKind kind = MATCH_NONE;
  gboolean full = FALSE;
  guint node = 0;

  for (gsize n = 1; n <= end; n++)
    {
      const TrieNode *at;

      if ((node = trie_next (ex->backwards, node, text[end - n])) == 0)
        break;
      at = &g_array_index (ex->backwards, TrieNode, node);
      if (at->value != MATCH_NONE)
        {
          best = n;
          kind = at->value;
        }
      if (at->child == 0)
        break;
    }
  if (kind != MATCH_PARTIAL)
    return kind == MATCH_FULL;
  node = 0;
  for (gsize i = end - best; i < len; i++)
    {
      const TrieNode *at;

      if ((node = trie_next (ex->forwards, node, text[i])) == 0)
        return FALSE;
      at = &g_array_index (ex->forwards, TrieNode, node);
      full = at->value == MATCH_FULL;
      if (at->child == 0)
        break;
    }
  return full;
}

/* ---- the rules ---- */

/* SB8: from @at, past anything but letters, line feeds and terminators,
 * a lower-case letter */
static gboolean
lower_follows (const guint8 *classes, const char *text, gsize len, gsize at)
{
  for (; at < len; at++)
    switch (classes[(guchar) text[at]])
      {
      case SB_LOWER: return TRUE;
      case SB_UPPER: case SB_LF: case SB_ATERM: case SB_STERM: return FALSE;
      default: break;
      }
  return FALSE;
}

/* Whether ICU breaks at @b, after the terminator at @t and the closing
 * marks and spaces after it (SB6-SB11, then the abbreviations); @b is
 * not the end.  SB8a-SB10 keep a line feed, a terminator or a
 * continuation (ICU's SContinue: ", - :") with the sentence. */
static gboolean
breaks_at (const Exceptions *ex, const guint8 *classes, const char *text, gsize len, gsize t, gsize b)
{
  guint8 term = classes[(guchar) text[t]], next = classes[(guchar) text[b]];

  if (next == SB_LF || next == SB_ATERM || next == SB_STERM || next == SB_SCONTINUE)
    return FALSE;
  if (term == SB_ATERM)
    {
      if (b == t + 1 && next == SB_NUMERIC)   /* SB6: 3.14 */
        return FALSE;
      if (b == t + 1 && next == SB_UPPER && t > 0
          && (classes[(guchar) text[t - 1]] == SB_LOWER || classes[(guchar) text[t - 1]] == SB_UPPER))
        return FALSE;                          /* SB7: U.S */
      if (lower_follows (classes, text, len, b))   /* SB8: e.g. 5 apples */
        return FALSE;
    }
  return !exception_at (ex, text, len, b);   /* SB11 */
}

/* Whether @text has a letter or a digit (a sentence counted) */
static gboolean
has_alnum (const guint8 *classes, const char *text, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (classes[(guchar) text[i]] >= SB_LOWER && classes[(guchar) text[i]] <= SB_NUMERIC)
      return TRUE;
  return FALSE;
}

/**
 * text_sentences_ascii:
 * @count: (out): the sentences with a letter or a digit, as
 *   text_words_sentences() counts them
 *
 * Returns: FALSE, with @count untouched, where ICU must count: a byte
 * of 0x80 or more, a carriage return or a character of another class
 * these rules do not read, or no abbreviations read from ICU's data.
 */
gboolean
text_sentences_ascii (const char *text, gsize len, guint *count)
{
  static guint8 table[256];
  static gsize made;
  const guint8 *classes = text_byte_classes (table, &made, sentence_class);
  const Exceptions *ex = exceptions_get ();
  gsize i = 0, from = 0;   /* where the sentence read starts */
  guint n = 0;

  if (ex == NULL)
    return FALSE;
  while (i < len)
    {
      gsize t, b;

      /* to a byte not read here, a line feed or a terminator */
      while (i < len && classes[(guchar) text[i]] > SB_STERM)
        i++;
      if (i == len)
        break;
      switch (classes[(guchar) text[i]])
        {
        case SB_OUT:
          return FALSE;
        case SB_LF:   /* SB4: a break after it */
          n += has_alnum (classes, text + from, i + 1 - from);
          from = ++i;
          continue;
        default:
          break;
        }
      /* a terminator, its closing marks and spaces: no break among them
       * (SB9, SB10) */
      t = i;
      for (b = t + 1; b < len && classes[(guchar) text[b]] == SB_CLOSE; b++)
        ;
      for (; b < len && classes[(guchar) text[b]] == SB_SP; b++)
        ;
      if (b < len && breaks_at (ex, classes, text, len, t, b))
        {
          n += has_alnum (classes, text + from, b - from);
          from = b;
        }
      i = b;
    }
  *count = n + has_alnum (classes, text + from, len - from);
  return TRUE;
}
