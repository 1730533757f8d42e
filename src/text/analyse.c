/* analyse.c — language and prose signals of one message's own text.
 *
 * Everything is measured on the prose (prose.c): code-like lines, URLs
 * and addresses do not vote on the language or count as words.  The
 * character shares are of the own text as written.  Out-of-dictionary
 * words are checked with Hunspell when the language's dictionary is
 * installed (Debian's hunspell-LL packages); otherwise the share is
 * NULL, never a guess.  Nothing here drops a message: these are columns
 * to filter on. */
#include <string.h>
#if DEJA_HAVE_HUNSPELL
#include <hunspell/hunspell.h>
#else
/* Built without Hunspell: no dictionary opens, so every language is one
 * without a dictionary and oov_share stays NULL. */
typedef struct _Hunhandle Hunhandle;
static Hunhandle *Hunspell_create (const char *aff, const char *dic) { return NULL; }
static void Hunspell_destroy (Hunhandle *handle) { }
static const char *Hunspell_get_dic_encoding (Hunhandle *handle) { return NULL; }
static int Hunspell_spell (Hunhandle *handle, const char *word) { return 0; }
#endif
#include "analyse.h"

/* Hunspell is slow per call; words repeat (Zipf), so its answers are
 * kept in open-addressed tables of words up to SPELL_WORD_MAX bytes, held
 * in the slot itself: a lookup is a hash and one or two slots read, where
 * a GHashTable of strings took a hash, a copy, a pointer chase and
 * strcmp() (with malloc for each new word).  A table starts small and
 * doubles when three-quarters full, up to SPELL_SLOTS; there it starts
 * over (98,304 words).  Longer words go to Hunspell every time.  The
 * lookups are cache misses, not probes (99 % found, 1.015 slots read):
 * an analyser sees some 25,000 words of a 64 MiB corpus, and a table of
 * their size keeps more of itself in the cache than one of 4 MiB. */
#define SPELL_SLOTS_FIRST 8192           /* a power of two: 256 KiB */
#define SPELL_SLOTS 131072               /* a power of two: 4 MiB */
#define SPELL_WORD_MAX 26

typedef struct {
  guint32 hash;            /* 0: empty */
  guint8 len;
  guint8 known;
  char word[SPELL_WORD_MAX];
} SpellSlot;

typedef struct {
  SpellSlot *slots;        /* mask + 1 of them */
  guint mask;
  guint used;
} SpellTable;

static void
spell_table_init (SpellTable *t)
{
  t->slots = g_new0 (SpellSlot, SPELL_SLOTS_FIRST);
  t->mask = SPELL_SLOTS_FIRST - 1;
  t->used = 0;
}

/* Twice the slots, the words where they go in them. */
static void
spell_table_grow (SpellTable *t)
{
  SpellSlot *old = t->slots;
  guint n = t->mask + 1;

  t->slots = g_new0 (SpellSlot, 2 * n);
  t->mask = 2 * n - 1;
  for (guint i = 0; i < n; i++)
    if (old[i].hash != 0)
      {
        guint j = old[i].hash & t->mask;

        while (t->slots[j].hash != 0)
          j = (j + 1) & t->mask;
        t->slots[j] = old[i];
      }
  g_free (old);
}

/* A Hunspell dictionary is loaded once for all the analysers that use
 * it at a time (a dictionary is megabytes; the decode workers each have
 * an analyser), and a word is checked under its lock (Hunspell's
 * checks change state inside it).  Its answers are kept under the same
 * lock for all the analysers (@answers): each analyser's own table
 * (Speller) is read without a lock, and a word new to it is asked of
 * Hunspell only when no other analyser asked before (twisted-python:
 * 79,087 calls to Hunspell with two workers, ~6 us each, 39,900 now).
 * Hunspell 1.7 also keeps a table shared by all instances behind a
 * counter that is not atomic (csutil.cxx, initialize_utf_tbl): instances
 * made or destroyed on two threads at once leak it or free it twice;
 * they are made and destroyed under dictionaries_lock. */
typedef struct _TextDictionary {
  char *lang;
  Hunhandle *handle;       /* NULL: no dictionary for the language */
  gboolean utf8;
  GMutex lock;             /* around Hunspell_spell() and @answers */
  SpellTable answers;      /* when there is a handle */
  guint refs;              /* under dictionaries_lock */
} Dictionary;

static GMutex dictionaries_lock;
static GHashTable *dictionaries;   /* language → Dictionary*, while any is held */

typedef struct {
  Dictionary *dict;
  SpellTable table;        /* when there is a dictionary */
} Speller;

G_STATIC_ASSERT (sizeof (SpellSlot) == 32);

struct _TextAnalyser {
  TextWords *words;
  GString *prose;
  GHashTable *spellers;    /* language → Speller* */
};

/* Returns: (transfer full): @lang's dictionary, loaded when no analyser
 * holds it yet */
static Dictionary *
dictionary_ref (const char *lang)
{
  Dictionary *d;

  g_mutex_lock (&dictionaries_lock);
  if (dictionaries == NULL)
    dictionaries = g_hash_table_new (g_str_hash, g_str_equal);
  d = g_hash_table_lookup (dictionaries, lang);
  if (d == NULL)
    {
      g_autofree char *base = text_spell_dictionary_for (lang);

      d = g_new0 (Dictionary, 1);
      d->lang = g_strdup (lang);
      g_mutex_init (&d->lock);
      if (base)
        {
          g_autofree char *aff = g_strconcat (base, ".aff", NULL);
          g_autofree char *dic = g_strconcat (base, ".dic", NULL);
          const char *enc;

          d->handle = Hunspell_create (aff, dic);
          enc = d->handle ? Hunspell_get_dic_encoding (d->handle) : NULL;
          d->utf8 = enc && g_ascii_strcasecmp (enc, "UTF-8") == 0;
          if (d->handle)
            spell_table_init (&d->answers);
        }
      g_hash_table_insert (dictionaries, d->lang, d);
    }
  d->refs++;
  g_mutex_unlock (&dictionaries_lock);
  return d;
}

static void
dictionary_unref (Dictionary *d)
{
  g_mutex_lock (&dictionaries_lock);
  if (--d->refs == 0)
    {
      g_hash_table_remove (dictionaries, d->lang);
      if (d->handle)
        Hunspell_destroy (d->handle);
      g_free (d->answers.slots);
      g_mutex_clear (&d->lock);
      g_free (d->lang);
      g_free (d);
      if (g_hash_table_size (dictionaries) == 0)
        g_clear_pointer (&dictionaries, g_hash_table_destroy);
    }
  g_mutex_unlock (&dictionaries_lock);
}

/**
 * text_dictionary_hold:
 * @lang: a language code
 *
 * Loads @lang's Hunspell dictionary, as an analyser would when it first
 * meets a message in @lang, and keeps it loaded: an ingest that can guess
 * the language loads it beside other work (an append of English messages
 * hashes the file meanwhile, and its decode workers find it loaded).
 *
 * Returns: (transfer full): the hold, for text_dictionary_release()
 */
TextDictionary *
text_dictionary_hold (const char *lang)
{
  return dictionary_ref (lang);
}

void
text_dictionary_release (TextDictionary *held)
{
  if (held)
    dictionary_unref (held);
}

static void
speller_free (gpointer p)
{
  Speller *s = p;

  dictionary_unref (s->dict);
  g_free (s->table.slots);
  g_free (s);
}

TextAnalyser *
text_analyser_new (void)
{
  TextAnalyser *a = g_new0 (TextAnalyser, 1);

  a->words = text_words_new ();
  a->prose = g_string_sized_new (4096);
  a->spellers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, speller_free);
  return a;
}

void
text_analyser_free (TextAnalyser *a)
{
  if (a == NULL)
    return;
  text_words_free (a->words);
  g_string_free (a->prose, TRUE);
  g_hash_table_destroy (a->spellers);
  g_free (a);
}

TextWords *
text_analyser_words (TextAnalyser *a)
{
  return a->words;
}

/* Whether this deja checks words (built with Hunspell). */
gboolean
text_spell_available (void)
{
  return DEJA_HAVE_HUNSPELL;
}

/**
 * text_spell_dictionary_for:
 *
 * The Hunspell dictionary for a language code: in $DEJA_HUNSPELL_DIR or
 * /usr/share/hunspell, LL_CC.dic with CC the language's own country
 * first (en_US, de_DE, fr_FR), else the first LL_*.dic, else LL.dic.
 * Returns: (transfer full) (nullable): the path without ".dic"
 */
char *
text_spell_dictionary_for (const char *lang)
{
  const char *dir = g_getenv ("DEJA_HUNSPELL_DIR");
  g_autofree char *upper = NULL, *own = NULL, *plain = NULL;
  g_autoptr (GDir) d = NULL;
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (lang == NULL || strlen (lang) != 2)
    return NULL;
  if (dir == NULL || *dir == '\0')
    dir = "/usr/share/hunspell";
  upper = g_ascii_strup (lang, -1);
  own = g_strdup_printf ("%s/%s_%s", dir, lang, strcmp (lang, "en") == 0 ? "US" : upper);
  plain = g_strdup_printf ("%s/%s", dir, lang);
  for (const char *base, *const *b = (const char *[]) { own, plain, NULL }; (base = *b); b++)
    {
      g_autofree char *dic = g_strconcat (base, ".dic", NULL);
      g_autofree char *aff = g_strconcat (base, ".aff", NULL);

      if (g_file_test (dic, G_FILE_TEST_IS_REGULAR) && g_file_test (aff, G_FILE_TEST_IS_REGULAR))
        return g_strdup (base);
    }
  d = g_dir_open (dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)))
    if (strncmp (name, lang, 2) == 0 && name[2] == '_' && g_str_has_suffix (name, ".dic"))
      g_ptr_array_add (found, g_strndup (name, strlen (name) - 4));
  if (found->len == 0)
    return NULL;
  g_ptr_array_sort (found, (GCompareFunc) (void (*) (void)) g_strcmp0);
  return g_strdup_printf ("%s/%s", dir, (const char *) found->pdata[0]);
}

/* "ll" of "ll.dic" or "ll_*.dic" (as text_spell_dictionary_for() finds
 * them) whose .aff is there too, or NULL */
static char *
dictionary_language (const char *dir, const char *name)
{
  g_autofree char *aff = NULL;

  if (!(g_ascii_islower (name[0]) && g_ascii_islower (name[1]) && (name[2] == '_' || name[2] == '.')) ||
      !g_str_has_suffix (name, ".dic") || (name[2] == '.' && strcmp (name + 2, ".dic") != 0))
    return NULL;
  aff = g_strdup_printf ("%s/%.*s.aff", dir, (int) (strlen (name) - 4), name);
  return g_file_test (aff, G_FILE_TEST_IS_REGULAR) ? g_strndup (name, 2) : NULL;
}

/**
 * text_spell_only_language:
 *
 * The language of the Hunspell dictionaries text_spell_dictionary_for()
 * can find when they are all of one language (en_US and en_GB: "en"),
 * the one a spell check can ever use.  An ingest into a new database
 * loads it before the first message asks for it (cmd-ingest.c).
 * Returns: (transfer full) (nullable): its code, or NULL when there is
 *   none, or several
 */
char *
text_spell_only_language (void)
{
  const char *dir = g_getenv ("DEJA_HUNSPELL_DIR");
  g_autoptr (GDir) d = NULL;
  g_autofree char *only = NULL;
  const char *name;

  if (!DEJA_HAVE_HUNSPELL)
    return NULL;
  if (dir == NULL || *dir == '\0')
    dir = "/usr/share/hunspell";
  d = g_dir_open (dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *lang = dictionary_language (dir, name);

      if (lang == NULL)
        continue;
      if (only && strcmp (only, lang) != 0)
        return NULL;
      if (only == NULL)
        only = g_steal_pointer (&lang);
    }
  return g_steal_pointer (&only);
}

static Speller *
speller_for (TextAnalyser *a, const char *lang)
{
  Speller *s = g_hash_table_lookup (a->spellers, lang);

  if (s == NULL)
    {
      s = g_new0 (Speller, 1);
      s->dict = dictionary_ref (lang);
      if (s->dict->handle)
        spell_table_init (&s->table);
      g_hash_table_insert (a->spellers, g_strdup (lang), s);
    }
  return s->dict->handle ? s : NULL;
}

/* What Hunspell says of @word (@len bytes, not NUL-terminated), with
 * @d's lock held. */
static gboolean
hunspell_knows (Dictionary *d, const char *word, gsize len)
{
  g_autofree char *key = g_strndup (word, len);
  g_autofree char *converted = NULL;

  if (!d->utf8)
    {
      converted = g_convert (key, -1, Hunspell_get_dic_encoding (d->handle), "UTF-8", NULL, NULL,
                             NULL);
      if (converted == NULL)
        return FALSE;
    }
  return Hunspell_spell (d->handle, converted ? converted : key) != 0;
}

/* FNV-1a, never 0 (0 marks an empty slot). */
#define SPELL_HASH_START 2166136261u

static inline guint32
spell_hash_step (guint32 h, char c)
{
  return (h ^ (guchar) c) * 16777619u;
}

static inline guint32
spell_hash_end (guint32 h)
{
  return h ? h : 1;
}

/* The slot of @word (hash @h, at most SPELL_WORD_MAX bytes) in @t: where
 * it is (->hash == @h), else where it goes (->hash == 0), in a table that
 * grew or started over when it was full. */
static SpellSlot *
spell_table_slot (SpellTable *t, guint32 h, const char *word, gsize len)
{
  for (guint i = h & t->mask;; i = (i + 1) & t->mask)
    {
      SpellSlot *slot = &t->slots[i];

      if (slot->hash == h && slot->len == len && memcmp (slot->word, word, len) == 0)
        return slot;
      if (slot->hash != 0)
        continue;
      if (t->used < (t->mask + 1) / 4 * 3)
        return slot;
      if (t->mask + 1 < SPELL_SLOTS)
        {
          spell_table_grow (t);
          return spell_table_slot (t, h, word, len);
        }
      memset (t->slots, 0, (t->mask + 1) * sizeof *t->slots);
      t->used = 0;
      return &t->slots[h & t->mask];
    }
}

/* Keeps @known for @word in @slot, an empty slot of @t. */
static gboolean
spell_table_put (SpellTable *t, SpellSlot *slot, guint32 h, const char *word, gsize len,
                 gboolean known)
{
  slot->hash = h;
  slot->len = (guint8) len;
  memcpy (slot->word, word, len);
  slot->known = known;
  t->used++;
  return known;
}

/* What Hunspell says of @word: asked of it when no analyser did before. */
static gboolean
dictionary_knows (Dictionary *d, const char *word, gsize len, guint32 h)
{
  gboolean known;

  g_mutex_lock (&d->lock);
  if (len > SPELL_WORD_MAX)
    known = hunspell_knows (d, word, len);
  else
    {
      SpellSlot *slot = spell_table_slot (&d->answers, h, word, len);

      known = slot->hash == h ? slot->known
                              : spell_table_put (&d->answers, slot, h, word, len,
                                                 hunspell_knows (d, word, len));
    }
  g_mutex_unlock (&d->lock);
  return known;
}

/* Whether Hunspell knows @word (as written: it accepts "Paris", not
 * "paris"), whose hash (spell_hash_step()) is @h. */
static gboolean
speller_knows (Speller *s, const char *word, gsize len, guint32 h)
{
  SpellSlot *slot;

  if (len > SPELL_WORD_MAX)
    return dictionary_knows (s->dict, word, len, 0);
  slot = spell_table_slot (&s->table, h, word, len);
  if (slot->hash == h)
    return slot->known;
  return spell_table_put (&s->table, slot, h, word, len, dictionary_knows (s->dict, word, len, h));
}

typedef struct {
  Speller *speller;
  gint64 words, checked, unknown;
} WordCount;

/* A word Hunspell can judge: letters and apostrophes only, 2 or more;
 * its hash (spell_hash_step()) in @hash, in the same pass. */
static gboolean
checkable (const char *raw, gsize len, guint32 *hash)
{
  guint32 h = SPELL_HASH_START;

  if (len < 2)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if ((guchar) raw[i] < 0x80 && !g_ascii_isalpha (raw[i]) && raw[i] != '\'')
        return FALSE;
      h = spell_hash_step (h, raw[i]);
    }
  *hash = spell_hash_end (h);
  return TRUE;
}

static gboolean
count_word (const TextToken *t, gpointer user_data)
{
  WordCount *c = user_data;
  guint32 h;

  if (t->kind != TEXT_TOKEN_WORD)
    return TRUE;
  c->words++;
  if (c->speller && checkable (t->raw, t->raw_len, &h))
    {
      c->checked++;
      c->unknown += speller_knows (c->speller, t->raw, t->raw_len, h) ? 0 : 1;
    }
  return TRUE;
}

/* What char_shares() counts of an ASCII character */
enum { SHARE_NONSPACE = 1, SHARE_LETTER = 2, SHARE_UPPER = 4, SHARE_DIGIT = 8 };

static guint8
share_class (guint c)
{
  return c >= 0x80 || g_ascii_isspace (c) ? 0
         : SHARE_NONSPACE | (g_ascii_isalpha (c) ? SHARE_LETTER : 0) |
             (g_ascii_isupper (c) ? SHARE_UPPER : 0) | (g_ascii_isdigit (c) ? SHARE_DIGIT : 0);
}

/* The four counts of a run of ASCII, in 16-bit lanes of one integer
 * (text_byte_lanes()). */
static guint64
share_lanes (guint c)
{
  guint k = share_class (c);

  return (guint64) (k & SHARE_NONSPACE) | (guint64) !!(k & SHARE_LETTER) << 16 |
         (guint64) !!(k & SHARE_UPPER) << 32 | (guint64) !!(k & SHARE_DIGIT) << 48;
}

/* Counts the ASCII from @p on, up to a byte of 0x80 or more or @end;
 * returns where it stopped */
static const char *
ascii_shares (const char *p, const char *end, gint64 *nonspace, gint64 *letters, gint64 *upper,
              gint64 *digits)
{
  static guint64 table[256];
  static gsize made;
  const guint64 *lanes = text_byte_lanes (table, &made, share_lanes);

  while (p < end && (guchar) *p < 0x80)
    {
      const char *stop = p + MIN ((gsize) (end - p), TEXT_LANES_RUN);
      guint64 sum = 0;

      for (; p < stop && (guchar) *p < 0x80; p++)
        sum += lanes[(guchar) *p];
      *nonspace += text_lane (sum, 0);
      *letters += text_lane (sum, 16);
      *upper += text_lane (sum, 32);
      *digits += text_lane (sum, 48);
    }
  return p;
}

static void
char_shares (const char *text, gsize len, TextAnalysis *out)
{
  const char *p = text, *end = text + len;
  gint64 nonspace = 0, letters = 0, digits = 0, upper = 0;

  while ((p = ascii_shares (p, end, &nonspace, &letters, &upper, &digits)) < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      p = g_utf8_next_char (p);
      if (g_unichar_isspace (c))
        continue;
      nonspace++;
      if (g_unichar_isalpha (c))
        {
          letters++;
          upper += g_unichar_isupper (c) ? 1 : 0;
        }
      else if (g_unichar_isdigit (c))
        digits++;
    }
  out->has_chars = nonspace > 0;
  if (nonspace > 0)
    {
      out->nonletter_share = (double) (nonspace - letters) / nonspace;
      out->digit_share = (double) digits / nonspace;
      out->upper_share = letters ? (double) upper / letters : 0.0;
    }
}

/* CLD2 is nearly always right from 250 characters on (docs/text-analysis.md):
 * a message is judged on its
 * first LANG_FIRST bytes of prose, the language it opens with, and only
 * where that sample is not plainly one language (not reliable, under
 * LANG_PLAIN %, or with a second language) on its first LANG_MAX bytes.
 * Labels that change against LANG_MAX for all, with 512 bytes first
 * (the fourth session): 3 of the realistic corpus's 29,436 messages and
 * 8 of twisted-python's 33,242, all to "en", messages that open in
 * English.  From 512 to 256 bytes first: 25 of 29,436 and 24 of 65,706.
 * 47 become reliable "en": English posts that 512 bytes read as
 * Portuguese, French, Catalan, German, Latvian, Russian or nothing (42;
 * "Hello! My name is Daniel Gomes and I am a Computer engineering
 * student in Brazil" was "pt"; the realistic corpus's English changelogs
 * with a German or French line in their first 512 bytes) or as
 * unreliable English (5); two spam pages of English HTML become "es".
 * A longer sample reads a line in a second language as the text's, a
 * shorter one reads the opening, and costs less. */
#define LANG_FIRST 256
#define LANG_MAX 3072
#define LANG_PLAIN 90

/* The length of at most @max bytes of @s, ending at a character. */
static gsize
lang_prefix (const char *s, gsize len, gsize max)
{
  gsize n = MIN (len, max);

  while (n > 0 && n < len && ((guchar) s[n] & 0xC0) == 0x80)
    n--;
  return n;
}

static gboolean
plainly_one_language (const TextLang *lang)
{
  return lang->reliable && lang->percent >= LANG_PLAIN && lang->second[0] == '\0';
}

/* The language of @prose: its first LANG_FIRST bytes when they are
 * plainly one language, else its first LANG_MAX. */
static void
detect_language (const char *prose, gsize len, TextLang *out)
{
  gsize first = lang_prefix (prose, len, LANG_FIRST);
  gsize max = lang_prefix (prose, len, LANG_MAX);

  if (first < max)
    {
      text_lang_detect (prose, first, out);
      if (plainly_one_language (out))
        return;
    }
  text_lang_detect (prose, max, out);
}

/**
 * text_analyse:
 *
 * The language and prose signals of @own_text (UTF-8).
 */
void
text_analyse (TextAnalyser *a, const char *own_text, gsize len, TextAnalysis *out)
{
  WordCount count = { 0 };
  guint code_lines = 0;

  memset (out, 0, sizeof *out);
  out->oov_share = -1;
  g_strlcpy (out->lang.code, "und", sizeof out->lang.code);
  if (own_text == NULL)
    return;
  text_prose (own_text, len, a->prose, &code_lines);
  out->code_lines = code_lines;
  detect_language (a->prose->str, a->prose->len, &out->lang);
  if (strcmp (out->lang.code, "und") != 0)
    count.speller = speller_for (a, out->lang.code);
  text_words_each_raw (a->words, a->prose->str, a->prose->len, count_word, &count);
  out->words = count.words;
  out->sentences = text_words_sentences (a->words, a->prose->str, a->prose->len);
  if (count.speller && count.checked > 0)
    out->oov_share = (double) count.unknown / count.checked;
  char_shares (own_text, len, out);
}
