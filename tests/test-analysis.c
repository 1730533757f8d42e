/* test-analysis.c — src/text: language, prose, words, stems, stop lists,
 * prose signals, MinHash, keyness and collocation measures.
 * The language samples are written for this test (not taken from any
 * corpus); each is a few sentences as a newsgroup post would have. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "analyse.h"
#include "measures.h"
#include "minhash.h"
#include "words.h"

static const struct {
  const char *lang, *text;
} samples[] = {
  { "en", "I have been reading this group for years and I still think the reactor should not be "
          "started twice. Could somebody explain why the tests fail on my machine when the network is down?" },
  { "de", "Ich lese diese Gruppe seit Jahren und glaube immer noch, dass man den Reaktor nicht zweimal "
          "starten sollte. Kann mir jemand erklären, warum die Tests auf meinem Rechner fehlschlagen?" },
  { "fr", "Je lis ce groupe depuis des années et je pense toujours qu'il ne faut pas démarrer la boucle "
          "deux fois. Quelqu'un peut-il m'expliquer pourquoi les essais échouent sur ma machine ?" },
  { "es", "Leo este grupo desde hace años y sigo pensando que no hay que arrancar el bucle dos veces. "
          "¿Alguien puede explicarme por qué fallan las pruebas en mi ordenador cuando no hay red?" },
  { "it", "Leggo questo gruppo da anni e penso ancora che non si debba avviare il ciclo due volte. "
          "Qualcuno può spiegarmi perché le prove falliscono sul mio computer quando la rete non c'è?" },
  { "nl", "Ik lees deze groep al jaren en ik denk nog steeds dat je de lus niet twee keer moet starten. "
          "Kan iemand mij uitleggen waarom de tests op mijn computer mislukken als het netwerk uit staat?" },
  { "sv", "Jag har läst den här gruppen i många år och tycker fortfarande att man inte ska starta "
          "slingan två gånger. Kan någon förklara varför testerna misslyckas på min dator utan nätverk?" },
  { "pt", "Leio este grupo há anos e continuo achando que não se deve iniciar o laço duas vezes. "
          "Alguém pode me explicar por que os testes falham no meu computador quando a rede cai?" },
  { "ru", "Я читаю эту группу уже много лет и до сих пор считаю, что цикл не нужно запускать дважды. "
          "Может кто-нибудь объяснить, почему тесты падают на моём компьютере, когда нет сети?" },
  { "el", "Διαβάζω αυτή την ομάδα εδώ και χρόνια και ακόμα πιστεύω ότι δεν πρέπει να ξεκινάμε τον "
          "βρόχο δύο φορές. Μπορεί κάποιος να μου εξηγήσει γιατί αποτυγχάνουν οι δοκιμές στον υπολογιστή μου;" },
  { "ja", "私はこのニュースグループを何年も読んでいますが、ループを二回起動するべきではないと今でも"
          "思っています。ネットワークが切れているときに、なぜ私のコンピュータでテストが失敗するのか誰か説明してくれませんか。" },
  { "zh", "我多年来一直在阅读这个新闻组，仍然认为不应该把循环启动两次。有没有人能解释一下，"
          "为什么在网络断开的时候，我的电脑上的测试会失败？谢谢大家的帮助。" },
  { "ar", "أقرأ هذه المجموعة منذ سنوات وما زلت أعتقد أنه لا ينبغي تشغيل الحلقة مرتين. هل يمكن لأحد "
          "أن يشرح لي لماذا تفشل الاختبارات على حاسوبي عندما تكون الشبكة مقطوعة؟" },
};

static void
test_lang (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      TextLang lang;

      text_lang_detect (samples[i].text, strlen (samples[i].text), &lang);
      g_test_message ("%s → %s (%d%%, reliable %d)", samples[i].lang, lang.code, lang.percent,
                      lang.reliable);
      /* CLD2 names simplified Chinese "zh", traditional "zh-Hant" */
      g_assert_cmpstr (lang.code, ==, samples[i].lang);
      g_assert_true (lang.reliable);
      g_assert_cmpint (lang.percent, >=, 90);
    }
}

static void
test_lang_short (void)
{
  TextLang lang;

  /* CLD2 would say English; a few words are "und", not a guess */
  text_lang_detect ("hello world", 11, &lang);
  g_assert_cmpstr (lang.code, ==, "und");
  g_assert_false (lang.reliable);
  {
    /* a vertical tab in the text: CLD2 alone would refuse it all */
    g_autoptr (TextAnalyser) a = text_analyser_new ();
    const char *vt = "I hate to ask, but how much memory is in the box?\x0b If it is memory bound "
                     "with that many hits, another couple of gigabytes could work wonders here.";
    TextAnalysis r;

    text_analyse (a, vt, strlen (vt), &r);
    g_assert_cmpstr (r.lang.code, ==, "en");
  }
  text_lang_detect ("+1, me too!!", 12, &lang);
  g_assert_cmpstr (lang.code, ==, "und");
  text_lang_detect ("", 0, &lang);
  g_assert_cmpstr (lang.code, ==, "und");
  text_lang_detect (NULL, 0, &lang);
  g_assert_cmpstr (lang.code, ==, "und");
  g_assert_cmpuint (text_lang_letters ("ab 12 çé", 11, 100), ==, 4);
}

/* Sentences of a long post, each said once (CLD2 discounts repeated
 * words), in English and in German. */
static const char *const english[] = {
  "The reactor was started twice in my test suite, and the second start hung until the timeout.",
  "After reading the documentation again I noticed that the examples never stop the event loop.",
  "Our build machine runs the old release, while my laptop has whatever the distribution ships.",
  "Somebody on the list suggested a deferred that fires when the connection is finally closed.",
  "That worked for the simple client, but the proxy still leaves sockets open after each request.",
  "I tried to reproduce the problem with a smaller program and failed, which is rather annoying.",
  "Perhaps the difference is in how the configuration file is read when the service restarts.",
  "If anybody has seen this behaviour before, I would be grateful for a pointer or a workaround.",
  "The logs show nothing unusual, only the usual warnings about deprecated modules and settings.",
  "Next week I will try the development branch and report back here with whatever I can find.",
  "Meanwhile the workaround is a cron job that restarts the daemon every night at three o'clock.",
  "It is not pretty, but the users have stopped complaining, and that buys us some quiet time.",
  "Thanks to everyone who answered my earlier questions; the mailing list has been very helpful.",
  "For the record, the machine has four gigabytes of memory and plenty of free space on its disk.",
  "The kernel is the one from the stable release, patched only for the network card we bought.",
  "I will write up what we learn on the wiki so that the next person does not have to ask again.",
  "One more detail: the failures started after we moved the database to the other server room.",
  "Before that move everything ran for months without a single restart, so timing may matter.",
  "Our administrator thinks the firewall drops idle connections after a few minutes of silence.",
  "That would explain why the long requests fail while the short ones always seem to succeed.",
  "We could lower the keepalive interval, but nobody knows which component should send it.",
  "My colleague prefers to rewrite the client so that it reconnects whenever a call is lost.",
  "I am not convinced, because hiding the failure makes the next problem harder to diagnose.",
  "In any case, we agreed to collect better measurements before anyone changes the design.",
  "The plan is to record every connection for a week and compare the failures with the load.",
  "I hope to have the numbers by the end of the month, and I will share them with the list.",
  NULL
};
static const char *const german[] = {
  "Der Reaktor wurde in meiner Testumgebung zweimal gestartet, und der zweite Start blieb hängen.",
  "Nachdem ich die Dokumentation noch einmal gelesen hatte, fiel mir auf, dass nichts beendet wird.",
  "Unser Rechner im Keller läuft mit der alten Version, mein Laptop mit der aus der Distribution.",
  "Jemand auf der Liste schlug vor, auf das Schließen der Verbindung zu warten, bevor man beendet.",
  "Für den einfachen Klienten hat das funktioniert, aber der Vermittler lässt Verbindungen offen.",
  "Ich habe versucht, das Problem mit einem kleineren Programm nachzustellen, leider ohne Erfolg.",
  "Vielleicht liegt der Unterschied darin, wie die Konfigurationsdatei beim Neustart gelesen wird.",
  "Wenn jemand dieses Verhalten schon einmal gesehen hat, wäre ich für einen Hinweis sehr dankbar.",
  "Die Protokolle zeigen nichts Ungewöhnliches, nur die üblichen Warnungen über veraltete Module.",
  "Nächste Woche probiere ich den Entwicklungszweig aus und berichte hier, was ich finden konnte.",
  "Bis dahin startet ein nächtlicher Auftrag den Dienst jede Nacht um drei Uhr einfach neu.",
  "Schön ist das nicht, aber die Benutzer beschweren sich nicht mehr, und wir haben etwas Ruhe.",
  "Danke an alle, die meine früheren Fragen beantwortet haben; die Liste ist wirklich hilfreich.",
  "Der Vollständigkeit halber: die Maschine hat vier Gigabyte Speicher und genug freien Platz.",
  "Der Kern stammt aus der stabilen Ausgabe und ist nur für unsere neue Netzwerkkarte angepasst.",
  "Ich schreibe unsere Erkenntnisse ins Wiki, damit die nächste Person nicht noch einmal fragt.",
  "Noch eine Einzelheit: die Fehler begannen, nachdem die Datenbank umgezogen war.",
  "Vor dem Umzug lief alles monatelang ohne einen einzigen Neustart, also zählt wohl die Zeit.",
  "Unser Verwalter glaubt, dass die Brandmauer ruhende Verbindungen nach wenigen Minuten trennt.",
  "Das würde erklären, warum lange Anfragen scheitern, während kurze immer gelingen.",
  "Wir könnten das Intervall verkürzen, aber niemand weiß, welcher Teil es senden sollte.",
  "Ich hoffe, die Zahlen bis zum Monatsende zu haben, und teile sie dann mit der Liste.",
  NULL
};

/* @n bytes or more of @a, and of @b in turn when there is one, each
 * sentence once, joined by spaces; *@ia and *@ib: the next to take */
static void
append_sentences (GString *s, gsize n, const char *const *a, guint *ia, const char *const *b,
                  guint *ib)
{
  for (gboolean from_a = TRUE; s->len < n; from_a = b ? !from_a : TRUE)
    {
      const char *sentence = from_a ? a[(*ia)++] : b[(*ib)++];

      g_assert_nonnull (sentence);
      if (s->len)
        g_string_append_c (s, ' ');
      g_string_append (s, sentence);
    }
}

/* A long text is judged on its first 256 bytes when they are plainly
 * one language, else on its first 3 KiB. */
static void
test_lang_long (void)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  g_autoptr (GString) plain = g_string_new (NULL), mixed = g_string_new (NULL);
  guint ie = 0, ig = 0;
  TextAnalysis r;
  TextLang first, before, max;

  /* English for its first 280 bytes, German for the rest of its 2.2 KiB:
   * English, as its first 256 bytes say (its first 512, with German
   * lines, read as German: the rule before, which this test fails) */
  append_sentences (plain, 250, english, &ie, NULL, NULL);
  append_sentences (plain, 2200, german, &ig, NULL, NULL);
  text_lang_detect (plain->str, 256, &first);
  text_lang_detect (plain->str, 512, &before);
  text_lang_detect (plain->str, 3072, &max);
  g_test_message ("first 256 bytes: %s %d%%, first 512: %s %d%% (%s), first 3 KiB: %s %d%%",
                  first.code, first.percent, before.code, before.percent, before.second, max.code,
                  max.percent);
  g_assert_cmpstr (first.code, ==, "en");
  g_assert_true (strcmp (before.code, "en") != 0 || before.percent < 90 || before.second[0] != '\0');
  g_assert_cmpstr (max.code, ==, "de");
  text_analyse (a, plain->str, plain->len, &r);
  g_assert_cmpstr (r.lang.code, ==, "en");
  g_assert_true (r.lang.reliable);
  g_assert_cmpint (r.lang.percent, ==, first.percent);

  /* English and German in its first 256 bytes, English after: judged
   * on its first 3 KiB, English */
  ie = ig = 0;
  append_sentences (mixed, 1100, german, &ig, english, &ie);
  append_sentences (mixed, 2700, english, &ie, NULL, NULL);
  text_lang_detect (mixed->str, 256, &first);
  text_lang_detect (mixed->str, 3072, &max);
  g_test_message ("first 256 bytes: %s %d%% (%s), first 3 KiB: %s %d%%", first.code, first.percent,
                  first.second, max.code, max.percent);
  g_assert_true (first.percent < 90 || first.second[0] != '\0' || !first.reliable);
  g_assert_cmpstr (max.code, ==, "en");
  text_analyse (a, mixed->str, mixed->len, &r);
  g_assert_cmpstr (r.lang.code, ==, "en");
  g_assert_cmpint (r.lang.percent, ==, max.percent);
}

static void
test_code_lines (void)
{
  const char *code[] = {
    ">>> from twisted.internet import reactor",
    "    reactor.run()",
    "    d.addCallback(self._cbDone)",
    "    x = 3",
    "Traceback (most recent call last):",
    "  File \"/usr/lib/python2.3/site.py\", line 12, in ?",
    "int main (void) {",
    "}",
    "$ ./configure --prefix=/usr",
    "#include <stdio.h>",
    "    def connectionMade(self):",
    "if (x == 1) { y[2] = *p; }",
    "-rw-r--r-- 1 root root 977K 2010-01-19 19:03 /var/log/my.log.12",
    "class MyLog(log.FileLogObserver):",
    "from twisted.python import log",
    "2004/02/27 12:36 EST [-] Log opened.",
  };
  const char *prose[] = {
    "I think the reactor should not be started twice.",
    "The function (as I said) returns a Deferred.",
    "  Indented prose, as some people write it.",
    "  This usage doesn't match the definition.  Maybe getTimeoutCancelFunction()?",
    "Thanks!",
    "See the FAQ: it covers this.",
    "    The docs say so; I agree.",
    "Import the module first, then call it.",
    "We met on 12 March 2004 at 10:30 in room 5.",
    "",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (code); i++)
    if (!text_line_is_code (code[i], strlen (code[i])))
      g_error ("not taken for code: %s", code[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (prose); i++)
    if (text_line_is_code (prose[i], strlen (prose[i])))
      g_error ("taken for code: %s", prose[i]);
}

/* Lines longer than a run of the lanes (TEXT_LANES_RUN) are counted right:
 * 1,000 symbols and 64,546 letters are prose (a sixty-sixth symbols); had
 * the 65,546 bytes been summed in one run, the count of non-space bytes
 * would wrap to 10 and the line would be taken for code.  70,000 symbols
 * and nothing else are code. */
static void
test_code_lines_long (void)
{
  g_autoptr (GString) line = g_string_new (NULL);

  for (int i = 0; i < 65546; i++)
    g_string_append_c (line, i < 1000 ? '#' : 'a');
  g_assert_cmpuint (line->len, >, TEXT_LANES_RUN);
  g_assert_false (text_line_is_code (line->str, line->len));
  g_string_truncate (line, 0);
  for (int i = 0; i < 70000; i++)
    g_string_append_c (line, '#');
  g_assert_true (text_line_is_code (line->str, line->len));
}

static void
test_prose (void)
{
  const char *own = "Hi all,\n\nI tried this on\nmy machine:\n\n    reactor.run()\n"
                    "and see http://twistedmatrix.com/trac/ticket/12 or mail\n"
                    "<bob@example.com> for more.\r\n";
  g_autoptr (GString) out = g_string_new (NULL);
  guint code = 99;

  text_prose (own, strlen (own), out, &code);
  g_assert_cmpuint (code, ==, 1);
  g_assert_cmpstr (out->str, ==,
                   "Hi all,\n\nI tried this on my machine:\n\nand see   or mail   for more.");
  /* a short footer after a rule is not the author's prose; a rule
   * followed by more than six lines is kept */
  text_prose ("I agree.\n\n-------\nSent with Webmail Example\nhttp://x.example\n", 60, out, NULL);
  g_assert_cmpstr (out->str, ==, "I agree.");
  text_prose ("a\n-----\n1\n2\n3\n4\n5\n6\n7\n", 22, out, NULL);
  g_assert_cmpstr (out->str, ==, "a ----- 1 2 3 4 5 6 7");
  g_assert_true (text_is_url_or_address ("<bob@example.com>", 17));
  g_assert_true (text_is_url_or_address ("www.python.org", 14));
  g_assert_false (text_is_url_or_address ("twisted.internet", 16));
  g_assert_false (text_is_url_or_address ("@decorator", 10));
  g_assert_true (text_is_url_or_address ("/usr/lib/python2.3/site.py:12", 29));
  g_assert_true (text_is_url_or_address ("C:\\Python23\\lib", 16));
  g_assert_false (text_is_url_or_address ("and/or", 6));
  g_assert_false (text_is_url_or_address ("/", 1));
}

/* The prose of one line, word by word, as text_prose() first made it: the
 * reference its runs-at-once version is compared with. */
static void
reference_blanked (GString *out, const char *s, gsize len)
{
  gsize i = 0;

  while (i < len)
    {
      gsize j = i;

      if (g_ascii_isspace (s[i]) || g_ascii_iscntrl (s[i]))
        {
          g_string_append_c (out, ' ');
          i++;
          continue;
        }
      while (j < len && !g_ascii_isspace (s[j]) && !g_ascii_iscntrl (s[j]))
        j++;
      if (text_is_url_or_address (s + i, j - i))
        g_string_append_c (out, ' ');
      else
        g_string_append_len (out, s + i, j - i);
      i = j;
    }
}

static void
test_prose_random (void)
{
  static const char *const pieces[] = {
    "www.", "http://", "a@b.c", "@x", "/", "\\", "~/", ":", "mailto:", "news:", "<", "(", "\"",
    "'", " ", "  ", "\t", "\v", "\f", "\x01", "\x7f", "word", "and/or", ".", "caf\xc3\xa9",
    "x", "www", "w.", "a/b/c", "C:",
  };
  GRand *rand = g_rand_new_with_seed (41);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GString) want = g_string_new (NULL);
  g_autoptr (GString) line = g_string_new (NULL);
  guint compared = 0;

  for (int i = 0; i < 100000; i++)
    {
      g_string_truncate (line, 0);
      for (int k = g_rand_int_range (rand, 1, 12); k > 0; k--)
        g_string_append (line, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      if (text_line_is_code (line->str, line->len))
        continue;
      {
        gboolean blank = TRUE;

        for (gsize k = 0; k < line->len && blank; k++)
          blank = g_ascii_isspace (line->str[k]);
        if (blank || line->str[line->len - 1] == '\r')
          continue;
      }
      text_prose (line->str, line->len, out, NULL);
      g_string_truncate (want, 0);
      reference_blanked (want, line->str, line->len);
      if (strcmp (out->str, want->str) != 0)
        g_error ("'%s': prose '%s', word by word '%s'", line->str, out->str, want->str);
      compared++;
    }
  g_assert_cmpuint (compared, >, 30000);
  g_rand_free (rand);
}

typedef struct {
  GPtrArray *terms;
  GString *joined;
} Collect;

static gboolean
collect (const TextToken *t, gpointer data)
{
  Collect *c = data;

  g_ptr_array_add (c->terms, g_strndup (t->term, t->len));
  g_string_append_c (c->joined, t->joined ? '+' : '|');
  return TRUE;
}

static char *
words_of (TextWords *w, const char *text, const char *stem)
{
  Collect c = { g_ptr_array_new_with_free_func (g_free), g_string_new (NULL) };
  g_autofree char *words = NULL;

  g_ptr_array_add (c.terms, NULL);
  g_ptr_array_remove_index (c.terms, 0);
  text_words_each (w, text, strlen (text), stem, collect, &c);
  g_ptr_array_add (c.terms, NULL);
  g_autofree char *marks = g_string_free (c.joined, FALSE);

  words = g_strjoinv (" ", (char **) c.terms->pdata);
  g_ptr_array_unref (c.terms);
  return g_strconcat (words, " ", marks, NULL);
}

static gboolean
collect_exact (const TextToken *t, gpointer data)
{
  g_string_append_printf (data, "[%.*s %c%c]", (int) t->raw_len, t->raw,
                          t->kind == TEXT_TOKEN_WORD ? 'w' : 'n', t->joined ? '+' : '|');
  return TRUE;
}

static char *
tokens_of (TextWords *w, const char *text, gsize len)
{
  GString *out = g_string_new (NULL);

  text_words_each (w, text, len, NULL, collect_exact, out);
  return g_string_free (out, FALSE);
}

static gboolean
collect_raw (const TextToken *t, gpointer data)
{
  g_assert_null (t->term);
  g_assert_null (t->folded);
  return collect_exact (t, data);
}

/* text_words_each_raw(): the same tokens, unfolded */
static char *
raw_tokens_of (TextWords *w, const char *text, gsize len)
{
  GString *out = g_string_new (NULL);

  text_words_each_raw (w, text, len, collect_raw, out);
  return g_string_free (out, FALSE);
}

/* Text that is all ASCII is cut without ICU (words.c): the same words,
 * numbers and joins as ICU gives, on texts written to hit every rule and
 * on random strings of the characters that matter. */
static void
test_words_ascii (void)
{
  g_autoptr (TextWords) fast = text_words_new ();
  g_autoptr (TextWords) icu = text_words_new ();
  static const char *const cases[] = {
    "twisted.internet e.g. a.b.c 3.14 1,000,000 1;2 1'000 can't 'quoted' a:b 12:30 x_y _a a_ __ _1 "
    "1_ a_1 1_a a1 1a 9a9 a.1 1.a a..b a' 'a 2nd mp3 0x1f ... - -- a-b a/b a&b a - b a. B",
    "e-mail don't C++ 42 Cats.\r\nnew line\ttab\vvt\fff end_",
    "",
    "_",
    "'",
  };
  /* the characters that matter, more often than the rest of ASCII */
  const char alphabet[] = "abZ09 .,:;'_\"-/&\t\r\n!?@()abZ09 .,'_";
  GRand *rand = g_rand_new_with_seed (29);

  text_words_set_icu_only (icu, TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *a = tokens_of (fast, cases[i], strlen (cases[i]));
      g_autofree char *b = tokens_of (icu, cases[i], strlen (cases[i]));
      g_autofree char *raw = raw_tokens_of (icu, cases[i], strlen (cases[i]));

      g_assert_cmpstr (a, ==, b);
      g_assert_cmpstr (raw, ==, b);
    }
  for (int i = 0; i < 50000; i++)
    {
      char text[24];
      gsize len = (gsize) g_rand_int_range (rand, 1, sizeof text);

      for (gsize k = 0; k < len; k++)
        text[k] = g_rand_int_range (rand, 0, 4) == 0 ? (char) g_rand_int_range (rand, 1, 128)
                                                     : alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      g_autofree char *a = tokens_of (fast, text, len);
      g_autofree char *b = tokens_of (icu, text, len);
      g_autofree char *raw_fast = raw_tokens_of (fast, text, len);
      g_autofree char *raw_icu = raw_tokens_of (icu, text, len);
      if (g_strcmp0 (a, b) != 0)
        g_error ("%.*s: ASCII path %s, ICU %s", (int) len, text, a, b);
      if (g_strcmp0 (a, raw_fast) != 0 || g_strcmp0 (b, raw_icu) != 0)
        g_error ("%.*s: folded %s, raw %s (ICU: %s, %s)", (int) len, text, a, raw_fast, b, raw_icu);
    }
  g_rand_free (rand);
}

/* Sentences of ASCII prose are counted without ICU (sentences.c): the
 * same counts as ICU's iterator, its English abbreviations included, on
 * cases of each rule and on random text made of the characters and
 * abbreviations that matter. */
static void
test_sentences_ascii (void)
{
  g_autoptr (TextWords) fast = text_words_new ();
  g_autoptr (TextWords) icu = text_words_new ();
  static const struct {
    const char *text;
    guint sentences;
  } cases[] = {
    { "Mr. Smith came. He left.", 2 },          /* an abbreviation ICU keeps */
    { "xMr. Smith", 1 },                        /* read backwards, whatever precedes */
    { "Mr.  Smith came.", 2 },                  /* one space passed over, not two */
    { "Mr.) Smith came.", 2 },
    { "U. Smith came.", 2 },                    /* "U." is read forwards, as "U.S." */
    { "U.S. Army came. It left.", 3 },
    { "Ph.D. students came.", 1 },              /* SB7 */
    { "Hon.B.A. Smith. Next", 3 },
    { "It costs 3.14 now. Yes.", 2 },           /* SB6 */
    { "See e.g. 5 apples. Then.", 2 },          /* SB8 */
    { "He said \"Go.\" Then left.", 2 },        /* SB9, SB11 */
    { "Why? No! Yes.) ok. Fine", 4 },
    { "etc., and so on. End", 2 },              /* SB8a */
    { "Stop.Go now.", 1 },
    { "A; b. C", 2 },
    { "One.\n\nTwo\nthree", 3 },                /* SB4 */
    { "... !", 0 },
  };
  static const char *const pieces[] = {
    "Mr.", "U.S.", "U.", "S.", "Ph.D.", "Ph.", "e.g.", "E.g.", "a.m.", "A.", "Hon.B.A.", "Lt.Cdr.",
    "S.p.A.", "vs.", "Etc.", "D.C.", "DC.", "No.", "pp.", "A.M.",
  };
  const char alphabet[] = "aZb9 .!?,;:-\"'()[]{}\n#/ . . A b\t\r\v";
  GRand *rand = g_rand_new_with_seed (36);
  guint count;

  text_words_set_icu_only (icu, TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize len = strlen (cases[i].text);

      g_assert_true (text_sentences_ascii (cases[i].text, len, &count));
      g_assert_cmpuint (count, ==, cases[i].sentences);
      g_assert_cmpuint (text_words_sentences (icu, cases[i].text, len), ==, cases[i].sentences);
    }
  /* ICU's: a carriage return (SB3), a byte of 0x80 or more */
  g_assert_false (text_sentences_ascii ("One.\r\nTwo", 10, &count));
  g_assert_false (text_sentences_ascii ("Ça va. Oui.", strlen ("Ça va. Oui."), &count));
  g_assert_cmpuint (text_words_sentences (fast, "Ça va. Oui.", strlen ("Ça va. Oui.")), ==, 2);
  for (int i = 0; i < 200000; i++)
    {
      char text[64];
      gsize len = 0, want = (gsize) g_rand_int_range (rand, 1, 40);

      while (len < want)
        if (g_rand_int_range (rand, 0, 5) == 0)
          {
            const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
            gsize n = MIN (strlen (piece), sizeof text - len);

            memcpy (text + len, piece, n);
            len += n;
          }
        else if (g_rand_int_range (rand, 0, 8) == 0)
          text[len++] = (char) g_rand_int_range (rand, 1, 128);
        else
          text[len++] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      guint a = text_words_sentences (fast, text, len), b = text_words_sentences (icu, text, len);
      if (a != b)
        g_error ("%.*s: %u sentences without ICU, %u by ICU", (int) len, text, a, b);
    }
  g_rand_free (rand);
}

static void
test_words (void)
{
  g_autoptr (TextWords) w = text_words_new ();
  g_autofree char *a = words_of (w, "Don’t use e-mail; use twisted.internet, C++ and 42 Cats.", NULL);
  g_autofree char *b = words_of (w, "The running runners ran. Connections connected", "en");
  g_autofree char *c = words_of (w, "Die Häuser der Straße", "de");
  g_autofree char *d = words_of (w, "我们在新闻组里讨论编程语言", NULL);
  g_autofree char *e = words_of (w, "ΚΑΛΗΜΕΡΑ Straße", NULL);
  gsize n;

  /* apostrophe normalised, hyphen and dots kept as ICU keeps them, numbers
   * are tokens; ";" and "," break a phrase, "-" does not */
  g_assert_cmpstr (a, ==, "don't use e mail use twisted.internet c and 42 cats |+++|+||++");
  g_assert_cmpstr (b, ==, "the run runner ran connect connect |+++|+");
  g_assert_cmpstr (c, ==, "die haus der strass |+++");
  /* ICU's dictionary segments space-less scripts */
  g_assert_cmpstr (d, ==, "我们 在 新闻 组 里 讨论 编 程 语言 |++++++++");
  g_assert_cmpstr (e, ==, "καλημερα strasse |+");
  g_assert_cmpstr (text_fold (w, "ÉCOLE", strlen ("ÉCOLE"), &n), ==, "école");
  g_assert_cmpuint (text_words_sentences (w, "Mr. Smith went. He came back! Did he?\n\nYes", 43), ==, 4);
  g_assert_cmpuint (text_words_sentences (w, "", 0), ==, 0);
  /* read as UTF-16: non-ASCII characters are words' characters; a
   * sentence of only punctuation is none */
  g_assert_cmpuint (text_words_sentences (w, "Ça va? Très bien. «Oui». ... !", 34), ==, 3);
  /* not valid UTF-8: read through ICU's UTF-8 UText, the same sentences */
  g_assert_cmpuint (text_words_sentences (w, "Mr. Smith went. He came b\xff" "ck! Did he?\n\nYes", 43), ==, 4);
  g_assert_cmpuint (text_words_sentences (w, "\xff\xfe. Ok.", 7), ==, 2);
  {
    /* longer than the UTF-16 copy takes: read as UTF-8, the same count */
    g_autoptr (GString) many = g_string_new (NULL);

    while (many->len <= 70 * 1024)
      g_string_append (many, "Mr. Smith went. He came back! Did he?\n\n");
    g_assert_cmpuint (text_words_sentences (w, many->str, many->len), ==,
                      3 * (many->len / strlen ("Mr. Smith went. He came back! Did he?\n\n")));
    g_assert_cmpuint (text_words_sentences (w, many->str, 64 * 1024 - 64 * 1024 % 39), ==,
                      3 * ((64 * 1024 - 64 * 1024 % 39) / 39));
  }
}

static gboolean
kind_of (const TextToken *t, gpointer data)
{
  g_string_append_c (data, t->kind == TEXT_TOKEN_WORD ? 'w' : 'n');
  return TRUE;
}

static void
test_numbers (void)
{
  g_autoptr (TextWords) w = text_words_new ();
  g_autoptr (GString) kinds = g_string_new (NULL);
  const char *text = "mp3 py2exe 0x1f 2nd 0xbfffe2bc a1b2c3 1999 version";

  /* a word beginning with a digit or holding three is a number or a code;
   * ICU itself calls "mp3" (ending in digits) a number */
  text_words_each (w, text, strlen (text), NULL, kind_of, kinds);
  g_assert_cmpstr (kinds->str, ==, "nwnnnnnw");
}

static void
test_stoplist (void)
{
  g_autoptr (TextStoplist) list = text_stoplist_new ();
  g_autofree char *dir = g_dir_make_tmp ("deja-stop-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "english.stop", NULL);
  g_autofree char *found = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, " | a comment\nThe\nof  | the preposition\nand or\n\n", -1, NULL));
  g_assert_true (text_stoplist_add_file (list, path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (text_stoplist_size (list), ==, 4);
  g_assert_true (text_stoplist_has (list, "the"));
  g_assert_true (text_stoplist_has (list, "or"));
  g_assert_false (text_stoplist_has (list, "comment"));
  g_setenv ("DEJA_STOPWORDS_DIR", dir, TRUE);
  found = text_stoplist_path_for ("en");
  g_assert_cmpstr (found, ==, path);
  g_assert_null (text_stoplist_path_for ("xx"));
  g_assert_null (text_stoplist_path_for ("de"));   /* not in that directory */
  g_unsetenv ("DEJA_STOPWORDS_DIR");
  g_assert_cmpstr (text_lang_from_name ("German"), ==, "de");
  g_assert_cmpstr (text_lang_english_name ("nb"), ==, "norwegian");
  g_assert_false (text_stoplist_add_file (list, "/nonexistent/x.stop", &error));
  g_assert_nonnull (error);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_signals (void)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  const char *own = "I have been reading this group for years. I still think the reactor should "
                    "not be started twice!\n\n    reactor.run()\n\nCould somebody explain why "
                    "the tests fail on my machine in 2004? THANKS.\n";
  g_autofree char *dictionary = text_spell_dictionary_for ("en");
  TextAnalysis r;

  text_analyse (a, own, strlen (own), &r);
  g_assert_cmpstr (r.lang.code, ==, "en");
  g_assert_cmpint (r.words, ==, 30);   /* 8 + 10 + 12: "2004" is a number, reactor.run() code */
  g_assert_cmpint (r.sentences, ==, 4);
  g_assert_cmpint (r.code_lines, ==, 1);
  g_assert_true (r.has_chars);
  /* of 152 non-space characters 141 are letters (9 upper case), 4 digits */
  g_assert_cmpfloat_with_epsilon (r.digit_share, 4.0 / 152, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.nonletter_share, 11.0 / 152, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.upper_share, 9.0 / 141, 1e-9);
  if (dictionary)
    g_assert_cmpfloat_with_epsilon (r.oov_share, 0.0, 1e-9);   /* every word is English */
  else
    g_assert_cmpfloat (r.oov_share, <, 0);

  text_analyse (a, "", 0, &r);
  g_assert_cmpstr (r.lang.code, ==, "und");
  g_assert_cmpint (r.words, ==, 0);
  g_assert_false (r.has_chars);
  g_assert_cmpfloat (r.oov_share, <, 0);
}

/* The shares of characters are counted in runs of ASCII (analyse.c:
 * ascii_shares()): a run longer than a lane holds is counted whole, and
 * a character past it too */
static void
test_shares_long (void)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  g_autoptr (GString) own = g_string_new (NULL);
  TextAnalysis r;

  for (int i = 0; i < 100000; i++)
    g_string_append (own, "Ab1 ");
  g_string_append (own, "\xc3\x89");   /* É */
  text_analyse (a, own->str, own->len, &r);
  g_assert_true (r.has_chars);
  g_assert_cmpfloat_with_epsilon (r.digit_share, 100000.0 / 300001, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.nonletter_share, 100000.0 / 300001, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.upper_share, 100001.0 / 200001, 1e-12);
}

static void
test_spelling (void)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  const char *own = "The reactor should not be started twice, but the tesst fials with a "
                    "qwzxv errror on every machine I have tried so far this week.";
  g_autofree char *dictionary = text_spell_dictionary_for ("en");
  TextAnalysis r;

  if (dictionary == NULL)
    {
      g_test_skip ("no English Hunspell dictionary (hunspell-en-us)");
      return;
    }
  text_analyse (a, own, strlen (own), &r);
  g_assert_cmpstr (r.lang.code, ==, "en");
  /* 4 of the 23 words of two letters or more are misspelt ("a" and "I"
   * are not checked) */
  g_assert_cmpint (r.words, ==, 25);
  g_assert_cmpfloat_with_epsilon (r.oov_share, 4.0 / 23, 1e-9);
  /* again, every word from the speller's cache */
  text_analyse (a, own, strlen (own), &r);
  g_assert_cmpfloat_with_epsilon (r.oov_share, 4.0 / 23, 1e-9);
}

/* The speller's cache (words of up to 26 bytes, started over when full)
 * answers as Hunspell does: a text of 26- and 27-letter words, known and
 * not, and then more distinct words than the cache holds. */
static void
test_spelling_cache (void)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  g_autofree char *dictionary = text_spell_dictionary_for ("en");
  const char *prose = "The reactor should not be started twice on the same machine this week. ";
  g_autoptr (GString) text = g_string_new (NULL);
  TextAnalysis r;

  if (dictionary == NULL)
    {
      g_test_skip ("no English Hunspell dictionary (hunspell-en-us)");
      return;
    }
  /* "electroencephalographically" has 27 letters, the made-up words 26 and 27 */
  for (int round = 0; round < 3; round++)
    {
      g_string_assign (text, prose);
      g_string_append (text, "electroencephalographically abcdefghijklmnopqrstuvwxyz "
                             "abcdefghijklmnopqrstuvwxyzz. ");
      g_string_append (text, prose);
      text_analyse (a, text->str, text->len, &r);
      g_assert_cmpstr (r.lang.code, ==, "en");
      /* 29 words, all checked: 26 of the prose, 3 long ones, unknown to
       * en_US (the first answer from Hunspell, the next from the cache) */
      g_assert_cmpint (r.words, ==, 29);
      g_assert_cmpfloat_with_epsilon (r.oov_share, 3.0 / 29, 1e-9);
    }
  /* 120,000 distinct made-up words after 3 KiB of English (its first
   * KiB is what the language is judged on) fill the analyser's table and
   * the dictionary's past their size: they start over, and answer the
   * same afterwards */
  g_string_truncate (text, 0);
  for (int i = 0; i < 50; i++)
    g_string_append (text, prose);
  for (int i = 0; i < 120000; i++)
    {
      char w[8];

      for (int k = 0, n = i; k < 4; k++, n /= 26)
        w[k] = (char) ('a' + n % 26);
      memcpy (w + 4, "zq ", 4);
      g_string_append (text, w);
    }
  text_analyse (a, text->str, text->len, &r);
  g_assert_cmpstr (r.lang.code, ==, "en");
  g_assert_cmpint (r.words, ==, 13 * 50 + 120000);
  g_assert_cmpfloat_with_epsilon (r.oov_share, 120000.0 / (13 * 50 + 120000), 1e-9);
  text_analyse (a, prose, strlen (prose), &r);
  g_assert_cmpfloat_with_epsilon (r.oov_share, 0.0, 1e-9);
}

/* Analysers on four threads at once share one dictionary and its
 * answers: each answers as one analyser alone does. */
static gpointer
spell_on_a_thread (gpointer data)
{
  g_autoptr (TextAnalyser) a = text_analyser_new ();
  const char *prose = "The reactor should not be started twice on the same machine this week. ";
  guint seed = GPOINTER_TO_UINT (data);
  guint wrong = 0;

  for (guint round = 0; round < 200; round++)
    {
      g_autoptr (GString) text = g_string_new (prose);
      TextAnalysis r;

      /* 13 words of English, and 5 made-up ones: some of this thread
       * only, some every thread has */
      for (guint k = 0; k < 5; k++)
        g_string_append_printf (text, "qz%c%cxw ", 'a' + (round + k) % 26,
                                'a' + (k % 2 ? seed : 0) + k);
      g_string_append (text, prose);
      text_analyse (a, text->str, text->len, &r);
      if (r.words != 31 || fabs (r.oov_share - 5.0 / 31) > 1e-9)
        wrong++;
    }
  return GUINT_TO_POINTER (wrong);
}

static void
test_spelling_shared (void)
{
  g_autofree char *dictionary = text_spell_dictionary_for ("en");
  GThread *threads[4];

  if (dictionary == NULL)
    {
      g_test_skip ("no English Hunspell dictionary (hunspell-en-us)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("speller", spell_on_a_thread, GUINT_TO_POINTER (i + 1));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_thread_join (threads[i])), ==, 0);
}

static void
test_measures (void)
{
  /* worked example of docs/text-analysis.md: a = 10 in a target of 1,000
   * words, b = 5 in a reference of 2,000.  E = 5 and 10 (and 995, 1990):
   * G² = 2 (10 ln 2 + 5 ln ½ + 990 ln (990/995) + 1995 ln (1995/1990)) */
  g_assert_cmpfloat_with_epsilon (text_g2 (10, 5, 1000, 2000), 6.969191931932806, 1e-9);
  g_assert_cmpfloat_with_epsilon (text_g2 (5, 10, 2000, 1000), -6.969191931932806, 1e-9);
  g_assert_cmpfloat_with_epsilon (text_log_ratio (10, 5, 1000, 2000), 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (text_log_ratio (4, 0, 1000, 1000), 3.0, 1e-12);   /* 0 → 0.5 */
  g_assert_cmpfloat_with_epsilon (text_chi2_p (6.969191931932806), 0.00829249358480712, 1e-12);
  g_assert_cmpfloat_with_epsilon (text_chi2_p (3.841458820694124), 0.05, 1e-9);
  g_assert_cmpfloat_with_epsilon (text_g2 (0, 0, 100, 100), 0.0, 1e-12);
  /* collocation: a pair seen 8 times among 1,000 pairs, its words 10 and 20 */
  g_assert_cmpfloat_with_epsilon (text_pmi (8, 10, 20, 1000), 5.321928094887363, 1e-12);
  g_assert_cmpfloat_with_epsilon (text_t_score (8, 10, 20, 1000), 2.7577164466275352, 1e-12);
}

static void
shingles_of (TextMinhash *m, const char *text)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  guint n = g_strv_length (words);

  text_minhash_init (m);
  for (guint i = 0; i + TEXT_SHINGLE_WORDS <= n; i++)
    {
      g_autofree char *s = g_strjoinv (" ", (char *[]) { words[i], words[i + 1], words[i + 2],
                                                         words[i + 3], words[i + 4], NULL });
      text_minhash_add (m, text_hash64 (s, strlen (s)));
    }
}

static void
test_minhash (void)
{
  g_autoptr (GString) a = g_string_new (NULL), b = g_string_new (NULL), c = g_string_new (NULL);
  TextMinhash ma, mb, mc;
  guint bands, rows;

  for (int i = 0; i < 200; i++)
    {
      g_string_append_printf (a, "w%d ", i);
      /* b: one word in twenty changed: each changed word is in 5 shingles */
      g_string_append_printf (b, i % 20 == 10 ? "x%d " : "w%d ", i);
      g_string_append_printf (c, "z%d ", i);
    }
  g_string_truncate (a, a->len - 1);
  g_string_truncate (b, b->len - 1);
  g_string_truncate (c, c->len - 1);
  shingles_of (&ma, a->str);
  shingles_of (&mb, b->str);
  shingles_of (&mc, c->str);
  g_assert_cmpuint (ma.shingles, ==, 196);
  g_assert_cmpfloat_with_epsilon (text_minhash_similarity (&ma, &ma), 1.0, 1e-12);
  /* true Jaccard: 196 − 50 = 146 shingles shared of 196 + 50 = 246; the
   * estimate's standard error is √(J (1 − J) / 128) = 0.043 */
  g_assert_cmpfloat (fabs (text_minhash_similarity (&ma, &mb) - 146.0 / 246), <, 0.13);
  g_assert_cmpfloat (text_minhash_similarity (&ma, &mc), <, 0.05);
  text_lsh_bands (0.8, &bands, &rows);
  g_assert_cmpuint (bands * rows, <=, TEXT_MINHASH_K);
  g_assert_cmpfloat (text_lsh_probability (0.8, bands, rows), >=, 0.97);
  g_assert_cmpfloat (text_lsh_probability (0.3, bands, rows), <, 0.2);
  g_assert_cmpuint (text_minhash_band (&ma, 0, rows), ==, text_minhash_band (&ma, 0, rows));
  g_assert_cmpuint (text_minhash_band (&ma, 0, rows), !=, text_minhash_band (&mc, 0, rows));
}

/* Without CLD2 every text is "und" and nothing is reliable. */
static void
test_lang_none (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      TextLang lang;

      text_lang_detect (samples[i].text, strlen (samples[i].text), &lang);
      g_assert_cmpstr (lang.code, ==, "und");
      g_assert_false (lang.reliable);
      g_assert_cmpstr (lang.second, ==, "");
    }
}

static void
touch (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
}

static void
remove_all (const char *dir, const char *const *names, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);

      g_remove (path);
    }
}

/* The dictionaries' one language, when they have one (an ingest loads it
 * before the first message asks): en_US and en_GB are "en"; a .dic
 * without its .aff, or a file named otherwise, is no dictionary; a second
 * language makes none; none without Hunspell. */
static void
test_spelling_only (void)
{
  g_autofree char *dir = g_dir_make_tmp ("deja-hunspell-XXXXXX", NULL);
  g_autofree char *none = NULL, *en = NULL, *two_en = NULL, *two = NULL, *plain = NULL;
  const char *names[] = { "en_US.dic", "en_US.aff", "en_GB.dic", "en_GB.aff", "de_DE.dic",
                          "fr.dic", "fr.aff", "README_hyph_de.dic", "hyph_de.aff", "de.dic.bak" };

  g_assert_nonnull (dir);
  g_setenv ("DEJA_HUNSPELL_DIR", dir, TRUE);
  none = text_spell_only_language ();
  g_assert_null (none);
  touch (dir, "en_US.dic");
  touch (dir, "en_US.aff");
  touch (dir, "de_DE.dic");           /* no .aff */
  touch (dir, "README_hyph_de.dic");
  touch (dir, "de.dic.bak");
  en = text_spell_only_language ();
  g_assert_cmpstr (en, ==, text_spell_available () ? "en" : NULL);
  touch (dir, "en_GB.dic");
  touch (dir, "en_GB.aff");
  two_en = text_spell_only_language ();
  g_assert_cmpstr (two_en, ==, text_spell_available () ? "en" : NULL);
  touch (dir, "fr.dic");
  touch (dir, "fr.aff");
  two = text_spell_only_language ();
  g_assert_null (two);
  remove_all (dir, names, G_N_ELEMENTS (names));
  touch (dir, "fr.dic");
  touch (dir, "fr.aff");
  plain = text_spell_only_language ();
  g_assert_cmpstr (plain, ==, text_spell_available () ? "fr" : NULL);
  remove_all (dir, names, G_N_ELEMENTS (names));
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_unsetenv ("DEJA_HUNSPELL_DIR");
}

/* Without Hunspell no dictionary is found usable: oov_share is NULL
 * (negative) even for English with its dictionary installed. */
static void
test_spelling_none (void)
{
  TextAnalyser *a = text_analyser_new ();
  TextAnalysis out;
  const char *text = "This is a perfectly ordinary English sentence about the network and the "
                     "reactor, written to be long enough for the language to be found.";

  text_analyse (a, text, strlen (text), &out);
  g_assert_cmpfloat (out.oov_share, <, 0);
  text_analyser_free (a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A build without CLD2 or Hunspell (meson_options.txt) tests what it
   * does instead: no language made up, no word judged. */
  if (text_lang_available ())
    {
      g_test_add_func ("/text/lang", test_lang);
      g_test_add_func ("/text/lang-short", test_lang_short);
      g_test_add_func ("/text/lang-long", test_lang_long);
    }
  else
    g_test_add_func ("/text/lang-none", test_lang_none);
  g_test_add_func ("/text/code-lines", test_code_lines);
  g_test_add_func ("/text/code-lines-long", test_code_lines_long);
  g_test_add_func ("/text/prose", test_prose);
  g_test_add_func ("/text/prose-random", test_prose_random);
  g_test_add_func ("/text/words", test_words);
  g_test_add_func ("/text/words-ascii", test_words_ascii);
  g_test_add_func ("/text/sentences-ascii", test_sentences_ascii);
  g_test_add_func ("/text/shares-long", test_shares_long);
  g_test_add_func ("/text/numbers", test_numbers);
  g_test_add_func ("/text/stoplist", test_stoplist);
  if (text_lang_available ())
    g_test_add_func ("/text/signals", test_signals);
  if (text_spell_available ())
    {
      g_test_add_func ("/text/spelling", test_spelling);
      g_test_add_func ("/text/spelling-cache", test_spelling_cache);
      g_test_add_func ("/text/spelling-shared", test_spelling_shared);
    }
  else
    g_test_add_func ("/text/spelling-none", test_spelling_none);
  g_test_add_func ("/text/spelling-only", test_spelling_only);
  g_test_add_func ("/text/measures", test_measures);
  g_test_add_func ("/text/minhash", test_minhash);
  return g_test_run ();
}
