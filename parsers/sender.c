/* sender.c — finding the author's address in a From value a person can read.
 *
 * GMime reads From values that follow RFC 5322.  Archives hold many that
 * do not, and a reader still sees who wrote them:
 *
 *   shrogers at ionet.net (steve@shrogers.com)    pipermail, address in the comment
 *   glyph at divunal.com (Glyph Lefkowitz)        pipermail's munged address
 *   Glyph Lefkowitz glyph@divunal.com             1999-era pipermail, LISTSERV
 *   john (at) example (dot) com, john [at] x.org  munged by hand against spam
 *   Jan Kiszka <jan...@siemens.com>               Google Groups' masked address
 *   Frank J Wancho <FJW at MIT-MC>                RFC 733 (ARPANET mail, 1977-1982)
 *   rydis (Martin Rydstr|m) @CD.Chalmers.SE       RFC 822: a comment before the "@"
 *
 * The rule, in order:
 *   1. an address in angle brackets is the address (with a dotless host
 *      when they hold "local at host" and nothing else); the name is the
 *      text before them (or a comment after them);
 *   2. otherwise the text outside comments is searched for a token with
 *      an "@", then for one spaced as RFC 822 allows ("rydis @cd.se",
 *      "bob@ example.org"), then for a munged "local at host [dot part]…";
 *   3. a full address (local@host.tld) in a comment wins over a munged one
 *      outside it: pipermail writes "munged-address (display name)", and a
 *      display name that is an address is the address its author chose to
 *      show (EXPECTED.md: "the author is the address in the comment");
 *   4. the display name is what is left: the outside text without the
 *      address, else the comment.
 * No address is invented: a value where none of these holds gives NULL.
 * Bytes are not decoded here (the name keeps its encoded words and quotes
 * for rfc2047.c); addresses are ASCII-lower-cased.
 */
#include "sender.h"

#include <string.h>

typedef struct {
  const char *p;
  gsize len;
} Span;

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void
trim (Span *s)
{
  while (s->len > 0 && is_space (s->p[0]))
    s->p++, s->len--;
  while (s->len > 0 && is_space (s->p[s->len - 1]))
    s->len--;
}

/* Characters that wrap an address token but are not part of it. */
static gboolean
is_wrapper (char c)
{
  return strchr ("<>()[]{},;:'\"", c) != NULL && c != '\0';
}

/* Raw 8-bit bytes are allowed: "grìnberg at yahoo.com" is readable. */
static gboolean
is_local_char (char c)
{
  return (guchar) c >= 0x80 || g_ascii_isalnum (c) || strchr (".!#$%&'*+/=?^_`{|}~-", c) != NULL;
}

static gboolean
is_host_label (const char *p, gsize len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (p[i]) && p[i] != '-' && p[i] != '.')
      return FALSE;
  return TRUE;
}

static gboolean
equals_ci (const char *p, gsize len, const char *word)
{
  return len == strlen (word) && g_ascii_strncasecmp (p, word, len) == 0;
}

static gboolean
starts_ci (const char *p, gsize len, const char *word)
{
  gsize n = strlen (word);

  return len >= n && g_ascii_strncasecmp (p, word, n) == 0;
}

static gboolean
is_at_word (const char *p, gsize len)
{
  return equals_ci (p, len, "at") || equals_ci (p, len, "(at)") || equals_ci (p, len, "[at]") ||
         equals_ci (p, len, "{at}") || equals_ci (p, len, "_at_") || equals_ci (p, len, "<at>");
}

static gboolean
is_dot_word (const char *p, gsize len)
{
  return equals_ci (p, len, "dot") || equals_ci (p, len, "(dot)") || equals_ci (p, len, "[dot]") ||
         equals_ci (p, len, "{dot}") || equals_ci (p, len, "_dot_") || equals_ci (p, len, "<dot>");
}

/* Splits on white space; "(at)" and the like glued to their neighbours
 * ("john(at)example(dot)com") are cut out as tokens of their own. */
static GArray *
tokens_of (Span s)
{
  static const char *const glued[] = { "(at)", "[at]", "{at}", "(dot)", "[dot]", "{dot}" };
  GArray *tokens = g_array_new (FALSE, FALSE, sizeof (Span));
  gsize i = 0;

  while (i < s.len)
    {
      Span t;

      while (i < s.len && is_space (s.p[i]))
        i++;
      if (i == s.len)
        break;
      t.p = s.p + i;
      t.len = 0;
      while (i < s.len && !is_space (s.p[i]))
        {
          gboolean cut = FALSE;

          /* Only "(", "[" and "{" can open a glued "(at)". */
          for (gsize g = 0; g < G_N_ELEMENTS (glued) && !cut && strchr ("([{", s.p[i]) != NULL; g++)
            {
              gsize n = strlen (glued[g]);

              if (i + n <= s.len && g_ascii_strncasecmp (s.p + i, glued[g], n) == 0)
                {
                  Span w = { s.p + i, n };

                  if (t.len > 0)
                    g_array_append_val (tokens, t);
                  g_array_append_val (tokens, w);
                  i += n;
                  t.p = s.p + i;
                  t.len = 0;
                  cut = TRUE;
                }
            }
          if (!cut)
            t.len++, i++;
        }
      if (t.len > 0)
        g_array_append_val (tokens, t);
    }
  return tokens;
}

static Span
unwrap (Span t)
{
  while (t.len > 0 && is_wrapper (t.p[0]))
    t.p++, t.len--;
  while (t.len > 0 && (is_wrapper (t.p[t.len - 1]) || t.p[t.len - 1] == '.'))
    t.len--;
  return t;
}

/* An address an archive masked so that nobody can read it back: mail
 * archives of the R project and others write "user@host" as "user
 * sending from host" and then replace letters ('a', 's' and '.' by '@',
 * 'i', 'l' and 'f' by '|'), so that "sending from" reads "@end|ng |rom";
 * any word holding both '@' and '|' is a mask of the same kind. */
static gboolean
masked_by_archive (const char *text)
{
  g_auto (GStrv) words = g_strsplit_set (text, " \t", -1);

  if (strstr (text, "@end|ng |rom ") != NULL || strstr (text, "@END|NG |ROM ") != NULL)
    return TRUE;
  for (char **w = words; *w; w++)
    if (strchr (*w, '@') != NULL && strchr (*w, '|') != NULL)
      return TRUE;
  return FALSE;
}

/* local@host with a non-empty local part and host. */
static gboolean
is_address (Span t, gboolean need_dot)
{
  const char *at = memchr (t.p, '@', t.len);
  gsize local, host;

  if (at == NULL)
    return FALSE;
  local = at - t.p;
  host = t.len - local - 1;
  if (local == 0 || host == 0 || memchr (at + 1, '@', host) != NULL)
    return FALSE;
  for (gsize i = 0; i < local; i++)
    if ((guchar) t.p[i] < 0x21 || t.p[i] == '<' || t.p[i] == '>' || t.p[i] == '(' || t.p[i] == ')' ||
        t.p[i] == '|')
      return FALSE;
  if (!is_host_label (at + 1, host))
    return FALSE;
  return !need_dot || memchr (at + 1, '.', host) != NULL;
}

typedef struct {
  char *addr;
  guint first, last;     /* tokens used */
  SenderForm form;
} Found;

/* Looks for an address among @tokens: a token with "@", else a munged
 * "local at host [dot label]…" whose host has a dot (or not, when
 * @dotless_ok: pipermail's "washort at iceman (Allen Short)" names a
 * host on a local network). */
/* A UUCP bang path, "gatech!ann" or "decvax!ucbvax!gatech!ann": hosts
 * and a user, two parts at least, none empty. */
static gboolean
is_bang_path (Span t)
{
  guint parts = 1;

  if (t.len < 3 || t.p[0] == '!' || t.p[t.len - 1] == '!' || memchr (t.p, '@', t.len) != NULL)
    return FALSE;
  for (gsize i = 0; i < t.len; i++)
    {
      if (t.p[i] == '!')
        {
          if (t.p[i - 1] == '!')
            return FALSE;
          parts++;
        }
      else if (!(g_ascii_isalnum (t.p[i]) || t.p[i] == '.' || t.p[i] == '-' || t.p[i] == '_' ||
                 t.p[i] == '%' || t.p[i] == '+'))
        return FALSE;
    }
  return parts >= 2;
}

static gboolean
find_address (GArray *tokens, gboolean need_dot, gboolean dotless_ok, Found *found)
{
  guint n = tokens->len;

  for (guint i = 0; i < n; i++)
    {
      Span t = unwrap (g_array_index (tokens, Span, i));

      if (is_address (t, need_dot))
        {
          found->addr = g_ascii_strdown (t.p, t.len);
          found->first = found->last = i;
          found->form = t.len > 4 && memmem (t.p, t.len, "...@", 4) != NULL ? SENDER_FORM_MASKED : 0;
          return TRUE;
        }
    }
  /* RFC 822's addr-spec takes white space and comments around its "@"
   * ("rydis (Martin) @CD.Chalmers.SE", the comment already a space
   * here): the pieces around a lone or leading or trailing "@", when
   * they make an address whose host has a dot. */
  for (guint i = 0; i < n; i++)
    {
      Span t = unwrap (g_array_index (tokens, Span, i));
      guint first = i, last = i;
      g_autoptr (GString) addr = NULL;

      if (t.len == 0 || (t.p[0] != '@' && t.p[t.len - 1] != '@'))
        continue;
      if (t.p[0] == '@' && i > 0)
        first = i - 1;
      if (t.p[t.len - 1] == '@' && i + 1 < n)
        last = i + 1;
      if (first == last)
        continue;
      addr = g_string_new (NULL);
      for (guint k = first; k <= last; k++)
        {
          Span piece = unwrap (g_array_index (tokens, Span, k));

          g_string_append_len (addr, piece.p, piece.len);
        }
      if (is_address ((Span) { addr->str, addr->len }, TRUE))
        {
          found->addr = g_ascii_strdown (addr->str, addr->len);
          found->first = first;
          found->last = last;
          found->form = 0;
          return TRUE;
        }
    }
  for (guint i = 1; i + 1 < n; i++)
    {
      Span at = g_array_index (tokens, Span, i);
      Span local = unwrap (g_array_index (tokens, Span, i - 1));
      Span host = unwrap (g_array_index (tokens, Span, i + 1));
      g_autoptr (GString) addr = NULL;
      guint last = i + 1;
      gboolean ok = local.len > 0 && is_host_label (host.p, host.len);

      if (!is_at_word (at.p, at.len) || !ok)
        continue;
      for (gsize k = 0; k < local.len && ok; k++)
        ok = is_local_char (local.p[k]);
      if (!ok)
        continue;
      addr = g_string_new_len (local.p, local.len);
      g_string_append_c (addr, '@');
      g_string_append_len (addr, host.p, host.len);
      while (last + 2 < n && is_dot_word (g_array_index (tokens, Span, last + 1).p,
                                          g_array_index (tokens, Span, last + 1).len))
        {
          Span label = unwrap (g_array_index (tokens, Span, last + 2));

          if (!is_host_label (label.p, label.len))
            break;
          g_string_append_c (addr, '.');
          g_string_append_len (addr, label.p, label.len);
          last += 2;
        }
      if (strchr (strchr (addr->str, '@'), '.') == NULL && !dotless_ok)
        continue;
      found->addr = g_ascii_strdown (addr->str, addr->len);
      found->first = i - 1;
      found->last = last;
      found->form = SENDER_FORM_MUNGED;
      return TRUE;
    }
  /* A UUCP bang path is an address too (not in a comment, where a path
   * is rarely the sender's). */
  for (guint i = 0; i < n && !need_dot; i++)
    {
      Span t = unwrap (g_array_index (tokens, Span, i));

      if (is_bang_path (t))
        {
          found->addr = g_ascii_strdown (t.p, t.len);
          found->first = found->last = i;
          found->form = SENDER_FORM_UUCP;
          return TRUE;
        }
    }
  return FALSE;
}

/* The tokens outside [skip_first, skip_last], joined by single spaces;
 * NULL when there are none. */
static char *
join_except (GArray *tokens, guint skip_first, guint skip_last)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < tokens->len; i++)
    {
      Span t = g_array_index (tokens, Span, i);

      if (i >= skip_first && i <= skip_last)
        continue;
      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append_len (out, t.p, t.len);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static char *
span_dup (Span s)
{
  trim (&s);
  return s.len > 0 ? g_strndup (s.p, s.len) : NULL;
}

/* The value split into the text outside top-level comments (comments
 * replaced by a space) and the first comment's inside.  Quoted strings
 * are not searched for parentheses. */
static void
split_comments (Span v, GString *outside, Span *comment)
{
  gboolean quoted = FALSE;
  int depth = 0;
  const char *open = NULL;

  comment->p = NULL;
  comment->len = 0;
  for (gsize i = 0; i < v.len; i++)
    {
      char c = v.p[i];

      if (quoted && c == '\\' && i + 1 < v.len)
        {
          g_string_append_len (outside, v.p + i, 2);
          i++;
          continue;
        }
      if (depth == 0 && c == '"')
        quoted = !quoted;
      if (!quoted && c == '(' && depth == 0 &&
          (starts_ci (v.p + i, v.len - i, "(at)") || starts_ci (v.p + i, v.len - i, "(dot)")))
        {
          g_string_append_c (outside, c);   /* "john (at) example (dot) com" */
          continue;
        }
      if (!quoted && c == '(')
        {
          if (depth++ == 0)
            open = v.p + i;
          continue;
        }
      if (!quoted && c == ')' && depth > 0)
        {
          if (--depth == 0)
            {
              if (comment->p == NULL)
                {
                  comment->p = open + 1;
                  comment->len = v.p + i - open - 1;
                }
              g_string_append_c (outside, ' ');
            }
          continue;
        }
      if (depth == 0)
        g_string_append_c (outside, c);
    }
  if (depth > 0 && comment->p == NULL)   /* "(Name" never closed */
    {
      comment->p = open + 1;
      comment->len = v.p + v.len - open - 1;
    }
}

/* Rule 1: "Name <addr>" (the first '<' outside quotes). */
static gboolean
parse_angle (Span v, Sender *sender)
{
  gboolean quoted = FALSE;
  const char *lt = NULL, *gt;

  for (gsize i = 0; i < v.len && lt == NULL; i++)
    {
      if (quoted && v.p[i] == '\\')
        i++;
      else if (v.p[i] == '"')
        quoted = !quoted;
      else if (!quoted && v.p[i] == '<')
        lt = v.p + i;
    }
  if (lt == NULL || (gt = memchr (lt, '>', v.p + v.len - lt)) == NULL)
    return FALSE;
  {
    Span inner = { lt + 1, gt - lt - 1 };
    GArray *tokens = tokens_of (inner);
    Found f = { 0 };
    /* RFC 733's "Name <local at host>", a dotless ARPANET host ("FJW at
     * MIT-MC"): the brackets say it is a mailbox */
    gboolean ok = find_address (tokens, FALSE, tokens->len == 3, &f);

    g_array_unref (tokens);
    if (!ok)
      return FALSE;
    sender->addr = f.addr;
    sender->form = SENDER_FORM_ANGLE | f.form;
  }
  {
    Span before = { v.p, lt - v.p };
    Span after = { gt + 1, v.p + v.len - gt - 1 };

    trim (&before);
    trim (&after);
    if (before.len > 0)
      sender->name_raw = span_dup (before);
    else
      {
        after = unwrap (after);
        sender->name_raw = span_dup (after);
      }
  }
  return TRUE;
}

/**
 * sender_parse:
 * @value: a From (or X-Original-From, Reply-To…) value, unfolded
 * @len: its length
 * @sender: (out caller-allocates): the address, the raw display name and
 *   the form they were found in (clear with sender_clear())
 *
 * Applies the rule in the file comment.  @sender->addr is %NULL when no
 * address can be read; @sender->name_raw is then the whole value.
 */
void
sender_parse (const char *value, gsize len, Sender *sender)
{
  Span v = { value, len };
  g_autoptr (GString) outside = g_string_new (NULL);
  Span comment;
  GArray *out_tokens, *com_tokens;
  Found out = { 0 }, com = { 0 };
  gboolean in_out, in_com;

  memset (sender, 0, sizeof *sender);
  trim (&v);
  if (v.len == 0)
    return;
  if (parse_angle (v, sender))
    return;

  split_comments (v, outside, &comment);
  if (masked_by_archive (outside->str))
    {
      /* Kept as the archive shows it, an opaque key: never an address
       * made of its pieces (docs/text.md, "Masked senders"). */
      g_auto (GStrv) words = g_strsplit_set (g_strstrip (outside->str), " \t", -1);
      g_autoptr (GString) key = g_string_new (NULL);

      for (char **w = words; *w; w++)
        if (**w != '\0')
          g_string_append_printf (key, "%s%s", key->len ? " " : "", *w);
      sender->addr = g_ascii_strdown (key->str, -1);
      sender->name_raw = span_dup (comment);
      sender->form = SENDER_FORM_MASKED;
      return;
    }
  out_tokens = tokens_of ((Span) { outside->str, outside->len });
  com_tokens = tokens_of (comment);
  /* A dotless host only in pipermail's exact shape "x at y (Name)". */
  in_out = find_address (out_tokens, FALSE, comment.p != NULL && out_tokens->len == 3, &out);
  in_com = find_address (com_tokens, TRUE, FALSE, &com) && !(com.form & SENDER_FORM_MUNGED);

  if (in_out && !(out.form & SENDER_FORM_MUNGED))
    {
      sender->addr = g_steal_pointer (&out.addr);
      sender->form = SENDER_FORM_BARE | out.form;
      sender->name_raw = join_except (out_tokens, out.first, out.last);
      if (sender->name_raw == NULL)
        sender->name_raw = span_dup (comment);
    }
  else if (in_com)
    {
      /* Rule 3: pipermail's "x at y (addr)", or "Name (addr)". */
      sender->addr = g_steal_pointer (&com.addr);
      sender->form = SENDER_FORM_COMMENT | com.form;
      sender->name_raw = in_out ? NULL : join_except (out_tokens, G_MAXUINT, 0);
    }
  else if (in_out)
    {
      sender->addr = g_steal_pointer (&out.addr);
      sender->form = SENDER_FORM_BARE | out.form;
      sender->name_raw = join_except (out_tokens, out.first, out.last);
      if (sender->name_raw == NULL)
        sender->name_raw = span_dup (comment);
    }
  else
    sender->name_raw = span_dup (v);
  g_free (out.addr);
  g_free (com.addr);
  g_array_unref (out_tokens);
  g_array_unref (com_tokens);
}

void
sender_clear (Sender *sender)
{
  g_clear_pointer (&sender->addr, g_free);
  g_clear_pointer (&sender->name_raw, g_free);
  sender->form = SENDER_FORM_NONE;
}

/**
 * sender_is_list_rewrite:
 * @name: a decoded display name (UTF-8)
 * @len: its length
 * @person_len: (out): the length of the person's part, quotes removed at
 *   its start are the caller's to skip (see below)
 *
 * Google Groups and Mailman's DMARC mitigation write the author as
 * "'Jan Kiszka' via Jailhouse" or "Jan Kiszka via Jailhouse".  Tells
 * whether @name has that shape: a non-empty person, " via ", a non-empty
 * list name.  The person's part is @name up to the last " via ".
 */
gboolean
sender_is_list_rewrite (const char *name, gsize len, gsize *person_len)
{
  const char *via = NULL;

  for (gsize i = 0; i + 5 <= len; i++)
    if (memcmp (name + i, " via ", 5) == 0)
      via = name + i;
  if (via == NULL || via == name || via + 5 == name + len)
    return FALSE;
  *person_len = via - name;
  return TRUE;
}

/* One space-separated word of @s from *@pos (advanced past it and the
 * spaces after it); FALSE at the end. */
static gboolean
next_word (const char *s, gsize len, gsize *pos, const char **word, gsize *word_len)
{
  gsize i = *pos;

  while (i < len && s[i] == ' ')
    i++;
  if (i >= len)
    return FALSE;
  *word = s + i;
  while (i < len && s[i] != ' ')
    i++;
  *word_len = i - (gsize) (*word - s);
  *pos = i;
  return TRUE;
}

/* RFC 5322's atext, as the rest of this file reads a local part. */
static gboolean
is_local_part (const char *p, gsize len)
{
  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!is_local_char (p[i]))
      return FALSE;
  return TRUE;
}

/* A word of letters only (the archive's word for "at"): ASCII letters or
 * UTF-8 letters, at most 16 bytes. */
static gboolean
is_at_word_of_a_language (const char *p, gsize len)
{
  g_autofree char *word = NULL;

  if (len == 0 || len > 16 || !g_utf8_validate (p, len, NULL))
    return FALSE;
  word = g_strndup (p, len);
  for (const char *q = word; *q; q = g_utf8_next_char (q))
    if (!g_unichar_isalpha (g_utf8_get_char (q)))
      return FALSE;
  return TRUE;
}

/**
 * sender_pipermail_localized:
 * @envelope: (array length=envelope_len): the message's envelope line,
 *   "From jane en example.org  Mon Jan  1 10:00:00 2001"
 * @from: the From value as the parser read it (decoded),
 *   "jane en example.org (Jane Doe)"
 * @addr: (out) (transfer full): "jane@example.org"
 * @name: (out) (transfer full) (nullable): "Jane Doe", or %NULL
 *
 * Mailman's pipermail writes an address as "local WORD host", WORD being
 * "at" in the list's language (Spanish "en", Portuguese "em", …, some
 * forty of them), in the envelope line and in From.  The envelope says
 * which word the archive uses: where From begins with the same three
 * words, they are the address.  Pure.
 *
 * Returns: whether @from is such an address
 */
gboolean
sender_pipermail_localized (const char *envelope, gsize envelope_len, const char *from, char **addr,
                            char **name)
{
  static const char *const days[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
  const char *local, *word, *host, *day;
  gsize local_len, word_len, host_len, day_len, pos = 5, from_len;
  g_autofree char *head = NULL;
  const char *rest;
  gboolean weekday = FALSE;

  *addr = NULL;
  *name = NULL;
  if (envelope_len < 5 || memcmp (envelope, "From ", 5) != 0 || from == NULL ||
      !next_word (envelope, envelope_len, &pos, &local, &local_len) ||
      !next_word (envelope, envelope_len, &pos, &word, &word_len) ||
      !next_word (envelope, envelope_len, &pos, &host, &host_len) ||
      !next_word (envelope, envelope_len, &pos, &day, &day_len))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (days); i++)
    weekday |= day_len == 3 && memcmp (day, days[i], 3) == 0;
  if (!weekday || !is_local_part (local, local_len) || !is_host_label (host, host_len) ||
      !is_at_word_of_a_language (word, word_len))
    return FALSE;
  head = g_strdup_printf ("%.*s %.*s %.*s", (int) local_len, local, (int) word_len, word,
                          (int) host_len, host);
  from_len = strlen (from);
  if (from_len < strlen (head) || g_ascii_strncasecmp (from, head, strlen (head)) != 0)
    return FALSE;
  rest = from + strlen (head);
  while (*rest == ' ' || *rest == '\t')
    rest++;
  if (*rest != '\0' && *rest != '(')
    return FALSE;
  if (*rest == '(')
    {
      const char *close = strrchr (rest, ')');

      if (close == NULL || close[1] != '\0')
        return FALSE;
      *name = g_strstrip (g_strndup (rest + 1, close - rest - 1));
      if (**name == '\0')
        g_clear_pointer (name, g_free);
    }
  {
    g_autofree char *joined = g_strdup_printf ("%.*s@%.*s", (int) local_len, local, (int) host_len, host);

    *addr = g_ascii_strdown (joined, -1);
  }
  return TRUE;
}
