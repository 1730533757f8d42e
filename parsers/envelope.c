/* envelope.c — classifying "From " lines by shape.
 *
 * A liberal parser treats every line that begins with "From " as the start
 * of a message.  deja first decides what kind of line it is looking at;
 * whether it really starts a message is decided with the context in
 * mbox.c.  The grammar follows RFC 4155 (the asctime-style envelope) and
 * what archives actually hold:
 *
 *   G  From -8946248053963491671           Google Groups export
 *   R  From alice@example.com Wed Jan 25 21:37:37 2017
 *      From - Mon Jan  5 08:50:15 +0100 2004          (Netscape)
 *      From goran at domain.com  Wed Dec  1 08:26:40 2010   (pipermail)
 *      From magick-owner@x Wed Feb  9 22:02 MET 2000  (no seconds, zone)
 *      From uucp Wed Jan  5 12:00:00 1994 remote from uunet
 *      From glyph@divunal.com Mon, 2 Aug 1999 18:55:09 -0400 (EDT)   (RFC 2822)
 *   P  From MAILER-DAEMON, From sender@example.com, "From - ", or a sender
 *      followed by something with a time of day the grammar cannot read
 *   T  everything else: "From what I hear, …", "From 1997 to 2001 …"
 *
 * The sender is bytes, not text: envelopes carry raw Latin-1 and UTF-8
 * ("christian at “example.org”"), so nothing here decodes.
 *
 * Like git's is_from_line() this is deliberately "close enough": the shape
 * only says which evidence the splitter demands next.  Erring towards P is
 * safe (P still needs a header block with standard fields); erring towards
 * T would lose a message, so T is only what cannot be an envelope.
 */
#include "envelope.h"
#include "parsers-private.h"

#include <string.h>

#define MAX_TOKENS 24

gboolean
mbox_envelope_is_candidate (const char *line, gsize len)
{
  return len >= 5 && memcmp (line, "From ", 5) == 0;
}

/* From, optional '-', digits, optional trailing spaces. */
static gboolean
is_google_shape (const char *s, gsize len)
{
  gsize i = 0, digits;

  if (i < len && s[i] == '-')
    i++;
  digits = i;
  while (i < len && _deja_is_digit (s[i]))
    i++;
  if (i == digits)
    return FALSE;
  while (i < len && _deja_is_space (s[i]))
    i++;
  return i == len;
}

static gboolean
is_year (const DejaToken *t)
{
  if (t->len != 4 && t->len != 2)
    return FALSE;
  for (gsize i = 0; i < t->len; i++)
    if (!_deja_is_digit (t->p[i]))
      return FALSE;
  return TRUE;
}

static gboolean
is_zone_token (const DejaToken *t)
{
  int minutes;

  if (_deja_parse_zone (t->p, t->len, &minutes))
    return TRUE;
  /* Unknown abbreviations and "DST" as in "MET DST". */
  if (t->len < 2 || t->len > 5)
    return FALSE;
  for (gsize i = 0; i < t->len; i++)
    if (!(t->p[i] >= 'A' && t->p[i] <= 'Z'))
      return FALSE;
  return TRUE;
}

/* Www Mmm [d]d hh:mm[:ss] [zone…] yyyy [zone…] [remote from host] */
static gboolean
is_asctime (const DejaToken *t, gsize n)
{
  gsize i = 0;
  int day, h, m, s;

  if (n < 5)
    return FALSE;
  if (_deja_weekday_from_name (t[0].p, t[0].len) < 0 || t[0].len != 3)
    return FALSE;
  if (_deja_month_from_name (t[1].p, t[1].len) == 0 || t[1].len != 3)
    return FALSE;
  if (t[2].len > 2 || !_deja_is_digit (t[2].p[0]) ||
      (t[2].len == 2 && !_deja_is_digit (t[2].p[1])))
    return FALSE;
  day = t[2].len == 2 ? (t[2].p[0] - '0') * 10 + t[2].p[1] - '0' : t[2].p[0] - '0';
  if (day < 1 || day > 31)
    return FALSE;
  if (!_deja_parse_time (t[3].p, t[3].len, &h, &m, &s))
    return FALSE;
  i = 4;
  while (i < n && !is_year (&t[i]) && is_zone_token (&t[i]))
    i++;
  if (i == n || !is_year (&t[i]))
    return FALSE;
  i++;
  while (i < n && is_zone_token (&t[i]))
    i++;
  if (i + 3 == n && _deja_span_equal (t[i].p, t[i].len, "remote") &&
      _deja_span_equal (t[i + 1].p, t[i + 1].len, "from"))
    i += 3;
  return i == n;
}

/* [Www,] [d]d Mmm yy[yy] hh:mm[:ss] [zone…] [(comment)…]: an RFC 2822
 * date, as 1999-era pipermail wrote it after the sender
 * ("From glyph@divunal.com Mon, 2 Aug 1999 18:55:09 -0400 (EDT)"). */
static gboolean
is_rfc2822 (const DejaToken *t, gsize n)
{
  gsize i = 0;
  int h, m, s;

  if (n >= 1 && t[0].len == 4 && t[0].p[3] == ',' &&
      _deja_weekday_from_name (t[0].p, 3) >= 0)
    i++;
  if (i + 4 > n)
    return FALSE;
  if (t[i].len > 2 || !_deja_is_digit (t[i].p[0]) ||
      (t[i].len == 2 && !_deja_is_digit (t[i].p[1])))
    return FALSE;
  if (t[i + 1].len != 3 || _deja_month_from_name (t[i + 1].p, 3) == 0)
    return FALSE;
  if (!is_year (&t[i + 2]))
    return FALSE;
  if (!_deja_parse_time (t[i + 3].p, t[i + 3].len, &h, &m, &s))
    return FALSE;
  for (i += 4; i < n; i++)
    if (!is_zone_token (&t[i]) && !(t[i].len >= 2 && t[i].p[0] == '(' && t[i].p[t[i].len - 1] == ')'))
      return FALSE;
  return TRUE;
}

static gboolean
is_sender_like (const DejaToken *t, gsize n)
{
  if (n == 0)
    return FALSE;
  if (memchr (t[0].p, '@', t[0].len) || memchr (t[0].p, '!', t[0].len))
    return TRUE;
  if (_deja_span_equal (t[0].p, t[0].len, "-") ||
      _deja_span_equal (t[0].p, t[0].len, "MAILER-DAEMON"))
    return TRUE;
  /* pipermail: "user at host.example" */
  return n >= 3 && _deja_span_equal (t[1].p, t[1].len, "at") &&
         memchr (t[2].p, '.', t[2].len) != NULL;
}

static gboolean
has_time_of_day (const DejaToken *t, gsize n)
{
  int h, m, s;

  for (gsize i = 1; i < n; i++)
    if (_deja_parse_time (t[i].p, t[i].len, &h, &m, &s))
      return TRUE;
  return FALSE;
}

/**
 * mbox_envelope_shape:
 * @line: a line of the archive, without its line ending (a trailing CR is
 *   ignored)
 * @len: its length in bytes
 *
 * Classifies a line by shape alone (no context).  Lines that do not begin
 * with the five bytes "From " are %MBOX_SHAPE_NONE; ">From " lines are
 * escaped body lines and never candidates.
 *
 * Returns: the shape
 */
MboxShape
mbox_envelope_shape (const char *line, gsize len)
{
  DejaToken t[MAX_TOKENS];
  gsize n;

  if (!mbox_envelope_is_candidate (line, len))
    return MBOX_SHAPE_NONE;
  if (len > 0 && line[len - 1] == '\r')
    len--;
  line += 5, len -= 5;
  if (is_google_shape (line, len))
    return MBOX_SHAPE_G;

  n = _deja_tokenize (line, len, t, MAX_TOKENS);
  if (n == 0)
    return MBOX_SHAPE_P;
  if (n <= MAX_TOKENS)
    {
      /* The sender is everything before the date: usually one token,
       * three for pipermail's "user at host", more for odd writers. */
      for (gsize i = 1; i + 5 <= n; i++)
        if (is_asctime (t + i, n - i))
          return MBOX_SHAPE_R;
      for (gsize i = 1; i + 4 <= n; i++)
        if (is_rfc2822 (t + i, n - i))
          return MBOX_SHAPE_R;
    }
  n = MIN (n, MAX_TOKENS);
  if (is_sender_like (t, n))
    return MBOX_SHAPE_P;
  if (has_time_of_day (t, n) && !_deja_is_digit (t[0].p[0]))
    return MBOX_SHAPE_P;
  return MBOX_SHAPE_T;
}
