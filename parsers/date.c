/* date.c — a tolerant reader for the dates found in mail and news archives.
 *
 * RFC 5322 dates are the common case, but Usenet and mailing-list archives
 * from the 1980s on hold much else: RFC 850 and asctime() forms
 * ("Wed Jan 25 21:37:37 2017"), two- and three-digit years, zone names
 * (EST, MET DST), zones in a trailing comment, "1997/11/17", ISO 8601,
 * "17-Nov-1997", RFC 733's zones after a hyphen ("03:39-EDT").  The
 * parser tokenises the value and assigns each token a role (weekday,
 * day, month, year, time, zone); any token it cannot place
 * makes the whole date unparseable, because a guessed date is worse for a
 * researcher than a NULL.  The result is converted to UTC with integer
 * arithmetic (no time zone database, no allocation on the hot path).
 */
#include "date.h"
#include "parsers-private.h"

#include <string.h>

static const char *const month_names[] = {
  "january", "february", "march", "april", "may", "june", "july",
  "august", "september", "october", "november", "december",
};

static const char *const weekday_names[] = {
  "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
};

/* Zone names seen in archives.  Ambiguous names (IST, CST in Asia) take
 * their North American or most common Usenet meaning; RFC 5322 §4.3 says
 * military single letters other than Z carry no information, so they are
 * read as UTC like any other unknown zone. */
static const struct {
  const char *name;
  int minutes;
} zone_names[] = {
  { "UT", 0 }, { "UTC", 0 }, { "GMT", 0 }, { "Z", 0 }, { "WET", 0 },
  { "BST", 60 }, { "CET", 60 }, { "MET", 60 }, { "MEZ", 60 }, { "WEST", 60 },
  { "CEST", 120 }, { "MEST", 120 }, { "MESZ", 120 }, { "EET", 120 },
  { "EEST", 180 }, { "MSK", 180 }, { "MSD", 240 },
  { "IST", 330 }, { "HKT", 480 }, { "SGT", 480 }, { "AWST", 480 },
  { "JST", 540 }, { "KST", 540 }, { "ACST", 570 }, { "AEST", 600 },
  { "AEDT", 660 }, { "NZST", 720 }, { "NZDT", 780 },
  { "NST", -210 }, { "NDT", -150 }, { "AST", -240 }, { "ADT", -180 },
  { "EST", -300 }, { "EDT", -240 }, { "CST", -360 }, { "CDT", -300 },
  { "MST", -420 }, { "MDT", -360 }, { "PST", -480 }, { "PDT", -420 },
  { "AKST", -540 }, { "AKDT", -480 }, { "HST", -600 },
  /* RFC 733's (1977) others: Yukon, Hawaii's daylight time, and the
   * Alaska-Hawaii zone of 1967-1983 */
  { "YST", -540 }, { "YDT", -480 }, { "HDT", -540 }, { "AHST", -600 }, { "AHDT", -540 },
};

gsize
_deja_tokenize (const char *s, gsize len, DejaToken *tokens, gsize max)
{
  gsize n = 0, i = 0;

  while (i < len)
    {
      gsize start;

      while (i < len && _deja_is_space (s[i]))
        i++;
      if (i == len)
        break;
      start = i;
      while (i < len && !_deja_is_space (s[i]))
        i++;
      if (n < max)
        {
          tokens[n].p = s + start;
          tokens[n].len = i - start;
        }
      n++;
    }
  return n;
}

gboolean
_deja_span_equal (const char *s, gsize len, const char *word)
{
  return strlen (word) == len && g_ascii_strncasecmp (s, word, len) == 0;
}

/* Matches a full English name or any prefix of at least three letters
 * ("Sept", "Thur", "Wednes" are all seen in the wild). */
static int
name_index (const char *s, gsize len, const char *const *names, int n)
{
  if (len < 3)
    return -1;
  for (int i = 0; i < n; i++)
    if (len <= strlen (names[i]) && g_ascii_strncasecmp (s, names[i], len) == 0)
      return i;
  return -1;
}

int
_deja_month_from_name (const char *s, gsize len)
{
  return name_index (s, len, month_names, G_N_ELEMENTS (month_names)) + 1;
}

int
_deja_weekday_from_name (const char *s, gsize len)
{
  return name_index (s, len, weekday_names, G_N_ELEMENTS (weekday_names));
}

/* Reads 1..max digits; returns how many were read. */
static gsize
read_number (const char *s, gsize len, gsize max, int *value)
{
  gsize i = 0;

  *value = 0;
  while (i < len && i < max && _deja_is_digit (s[i]))
    *value = *value * 10 + (s[i++] - '0');
  return i;
}

gboolean
_deja_parse_time (const char *s, gsize len, int *h, int *m, int *sec)
{
  gsize i, n;

  n = read_number (s, len, 2, h);
  if (n == 0 || n >= len || s[n] != ':')
    return FALSE;
  i = n + 1;
  if (read_number (s + i, len - i, 2, m) != 2)
    return FALSE;
  i += 2;
  *sec = 0;
  if (i < len && s[i] == ':')
    {
      i++;
      if (read_number (s + i, len - i, 2, sec) != 2)
        return FALSE;
      i += 2;
      /* Fractions of a second (ISO 8601) are dropped. */
      if (i < len && (s[i] == '.' || s[i] == ','))
        {
          i++;
          while (i < len && _deja_is_digit (s[i]))
            i++;
        }
    }
  return i == len && *h <= 24 && *m <= 59 && *sec <= 60;
}

static gboolean
parse_numeric_zone (const char *s, gsize len, int *minutes)
{
  int hh, mm = 0, sign;
  gsize n;

  if (len < 3 || (s[0] != '+' && s[0] != '-'))
    return FALSE;
  sign = s[0] == '-' ? -1 : 1;
  s++, len--;
  if (len == 4 && read_number (s, 4, 4, &hh) == 4)
    {
      mm = hh % 100;
      hh /= 100;
    }
  else
    {
      n = read_number (s, len, 2, &hh);
      if (n != 2)
        return FALSE;
      if (len == 5 && s[2] == ':' && read_number (s + 3, 2, 2, &mm) == 2)
        ;
      else if (len != 2)
        return FALSE;
    }
  if (hh > 23 || mm > 59)
    return FALSE;
  *minutes = sign * (hh * 60 + mm);
  return TRUE;
}

gboolean
_deja_parse_zone (const char *s, gsize len, int *minutes)
{
  if (parse_numeric_zone (s, len, minutes))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (zone_names); i++)
    if (_deja_span_equal (s, len, zone_names[i].name))
      {
        *minutes = zone_names[i].minutes;
        return TRUE;
      }
  /* "GMT+1", "UTC-0500": a named base with a numeric offset. */
  if (len > 3 && (g_ascii_strncasecmp (s, "GMT", 3) == 0 ||
                  g_ascii_strncasecmp (s, "UTC", 3) == 0))
    {
      int h;
      gsize n;

      if (parse_numeric_zone (s + 3, len - 3, minutes))
        return TRUE;
      if ((s[3] == '+' || s[3] == '-') &&
          (n = read_number (s + 4, len - 4, 2, &h)) > 0 && 4 + n == len && h <= 14)
        {
          *minutes = (s[3] == '-' ? -60 : 60) * h;
          return TRUE;
        }
    }
  return FALSE;
}

void
_deja_span_trim (const char **s, gsize *len)
{
  while (*len > 0 && g_ascii_isspace ((*s)[0]))
    (*s)++, (*len)--;
  while (*len > 0 && g_ascii_isspace ((*s)[*len - 1]))
    (*len)--;
}

/* A token that looks like a zone abbreviation we do not know: two to five
 * upper-case letters ("ECT", "SAST"). */
static gboolean
looks_like_zone_name (const char *s, gsize len)
{
  if (len < 2 || len > 5)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!(s[i] >= 'A' && s[i] <= 'Z'))
      return FALSE;
  return TRUE;
}

typedef struct {
  DateValue v;
  gboolean have_day, have_month, have_year, have_time, have_zone;
  int year_digits;
} DateParts;

static gboolean
set_year (DateParts *d, int year, int digits)
{
  if (d->have_year)
    return FALSE;
  d->have_year = TRUE;
  d->v.year = year;
  d->year_digits = digits;
  return TRUE;
}

/* YYYY-MM-DD, YYYY/MM/DD, optionally followed by "T" or " " and a time
 * with an ISO zone ("2004-01-05T08:50:15Z", "…+01:00"). */
static gboolean
parse_ymd_token (DateParts *d, const char *s, gsize len)
{
  int y, m, day;
  char sep;
  gsize i = 0;

  if (read_number (s, len, 4, &y) != 4 || len < 8)
    return FALSE;
  sep = s[4];
  if (sep != '-' && sep != '/' && sep != '.')
    return FALSE;
  i = 5;
  {
    gsize n = read_number (s + i, len - i, 2, &m);
    if (n == 0 || i + n >= len || s[i + n] != sep)
      return FALSE;
    i += n + 1;
    n = read_number (s + i, len - i, 2, &day);
    if (n == 0)
      return FALSE;
    i += n;
  }
  if (d->have_year || d->have_month || d->have_day)
    return FALSE;
  d->have_year = d->have_month = d->have_day = TRUE;
  d->v.year = y, d->v.month = m, d->v.day = day;
  d->year_digits = 4;
  if (i == len)
    return TRUE;
  if (s[i] != 'T' && s[i] != 't')
    return FALSE;
  i++;
  /* The time runs up to a zone designator, if any. */
  {
    gsize t = i;
    while (t < len && s[t] != 'Z' && s[t] != 'z' && s[t] != '+' && s[t] != '-')
      t++;
    if (!_deja_parse_time (s + i, t - i, &d->v.hour, &d->v.minute, &d->v.second))
      return FALSE;
    d->have_time = TRUE;
    if (t == len)
      return TRUE;
    if ((s[t] == 'Z' || s[t] == 'z') && t + 1 == len)
      {
        d->have_zone = TRUE;
        d->v.zone_minutes = 0;
        return TRUE;
      }
    if (!parse_numeric_zone (s + t, len - t, &d->v.zone_minutes))
      return FALSE;
    d->have_zone = TRUE;
    return TRUE;
  }
}

/* DD-Mon-YYYY or DD-Mon-YY (RFC 850, VMS). */
static gboolean
parse_dmy_dash_token (DateParts *d, const char *s, gsize len)
{
  const char *dash1 = memchr (s, '-', len), *dash2;
  int day, month, year;
  gsize n;

  if (dash1 == NULL)
    return FALSE;
  dash2 = memchr (dash1 + 1, '-', len - (dash1 + 1 - s));
  if (dash2 == NULL)
    return FALSE;
  if (read_number (s, dash1 - s, 2, &day) != (gsize) (dash1 - s) || day == 0)
    return FALSE;
  month = _deja_month_from_name (dash1 + 1, dash2 - dash1 - 1);
  if (month == 0)
    return FALSE;
  n = len - (dash2 + 1 - s);
  if (n < 2 || n > 4 || read_number (dash2 + 1, n, 4, &year) != n)
    return FALSE;
  if (d->have_day || d->have_month)
    return FALSE;
  d->have_day = d->have_month = TRUE;
  d->v.day = day, d->v.month = month;
  return set_year (d, year, (int) n);
}

static gboolean
take_number (DateParts *d, const char *s, gsize len)
{
  int value;

  if (read_number (s, len, 4, &value) != len)
    return FALSE;
  if (len <= 2 && !d->have_day)
    {
      d->have_day = TRUE;
      d->v.day = value;
      return TRUE;
    }
  if (len >= 2)
    return set_year (d, value, (int) len);
  return FALSE;
}

/* A zone name, known ("EDT", "GMT+1") or not ("SAST": the time is taken
 * as UTC, flagged); "+0100 (CET)" or "+0100 CET": a zone before it wins. */
static gboolean
take_zone_name (DateParts *d, const char *s, gsize len)
{
  int zone;

  if (_deja_is_alpha (s[0]) && _deja_parse_zone (s, len, &zone))
    {
      if (!d->have_zone)
        {
          d->have_zone = TRUE;
          d->v.zone_minutes = zone;
        }
      return TRUE;
    }
  if (looks_like_zone_name (s, len))
    {
      if (!d->have_zone)
        {
          d->have_zone = TRUE;
          d->v.zone_minutes = 0;
          d->v.flags |= DATE_FLAG_UNKNOWN_ZONE;
        }
      return TRUE;
    }
  return FALSE;
}

/* A numeric zone: it wins over a zone name not known or not readable,
 * not over a readable one before it. */
static void
take_numeric_zone (DateParts *d, int zone)
{
  if (d->have_zone && !(d->v.flags & (DATE_FLAG_UNKNOWN_ZONE | DATE_FLAG_BAD_ZONE)))
    return;
  d->have_zone = TRUE;
  d->v.zone_minutes = zone;
  d->v.flags &= ~(DATE_FLAG_UNKNOWN_ZONE | DATE_FLAG_BAD_ZONE);
}

static gboolean
take_alpha (DateParts *d, const char *s, gsize len)
{
  int month;

  /* A trailing period ("Wed.", "Sept.") is an abbreviation mark. */
  if (len > 1 && s[len - 1] == '.')
    len--;
  if (_deja_weekday_from_name (s, len) >= 0)
    return TRUE;
  if ((month = _deja_month_from_name (s, len)) != 0 && !d->have_month)
    {
      d->have_month = TRUE;
      d->v.month = month;
      return TRUE;
    }
  if (_deja_span_equal (s, len, "DST") && d->have_zone)
    {
      d->v.zone_minutes += 60;
      return TRUE;
    }
  if (_deja_span_equal (s, len, "am") || _deja_span_equal (s, len, "pm"))
    {
      if (!d->have_time || d->v.hour > 12)
        return FALSE;
      if (d->v.hour == 12)
        d->v.hour = 0;
      if (g_ascii_tolower (s[0]) == 'p')
        d->v.hour += 12;
      return TRUE;
    }
  return take_zone_name (d, s, len);
}

static gboolean
all_digits (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (!_deja_is_digit (s[i]))
      return FALSE;
  return len > 0;
}

/* A zone that cannot be read: the time is taken as UTC, as with an
 * unknown zone name, and flagged; a readable zone elsewhere wins. */
static gboolean
take_bad_zone (DateParts *d)
{
  if (!d->have_zone)
    {
      d->have_zone = TRUE;
      d->v.zone_minutes = 0;
      d->v.flags |= DATE_FLAG_BAD_ZONE;
    }
  return TRUE;
}

/* RFC 733's time with its zone attached: a name after a hyphen
 * ("03:39-EDT", "3:43-EDT") or four digits after a sign ("09:35-0800"),
 * and beside such a zone an hour without a colon ("0935-PST",
 * "093512-PST"): the ARPANET's mail of 1977-1982. */
static gboolean
take_time_with_zone (DateParts *d, const char *s, gsize len)
{
  gsize t = 0;
  int h, m, sec = 0, zone;

  while (t < len && (_deja_is_digit (s[t]) || s[t] == ':'))
    t++;
  if (d->have_time || t + 1 >= len || (s[t] != '-' && s[t] != '+'))
    return FALSE;
  if (all_digits (s, t) && (t == 4 || t == 6))
    {
      read_number (s, 2, 2, &h);
      read_number (s + 2, 2, 2, &m);
      if (t == 6)
        read_number (s + 4, 2, 2, &sec);
      if (h > 23 || m > 59 || sec > 60)
        return FALSE;
    }
  else if (!_deja_parse_time (s, t, &h, &m, &sec))
    return FALSE;
  if (len - t == 5 && parse_numeric_zone (s + t, len - t, &zone))
    take_numeric_zone (d, zone);
  else if (s[t] != '-' || !take_zone_name (d, s + t + 1, len - t - 1))
    return FALSE;
  d->have_time = TRUE;
  d->v.hour = h, d->v.minute = m, d->v.second = sec;
  return TRUE;
}

static gboolean
take_token (DateParts *d, const char *s, gsize len)
{
  int zone;

  if (_deja_is_digit (s[0]))
    {
      if (!d->have_time &&
          _deja_parse_time (s, len, &d->v.hour, &d->v.minute, &d->v.second))
        return d->have_time = TRUE;
      /* "… 05:35:10 0480": digits after a full date and time stand where
       * the zone does; the date and time are still readable. */
      if (d->have_time && d->have_year && d->have_day && d->have_month && all_digits (s, len))
        return take_bad_zone (d);
      if (parse_ymd_token (d, s, len) || parse_dmy_dash_token (d, s, len) ||
          take_time_with_zone (d, s, len))
        return TRUE;
      return take_number (d, s, len);
    }
  if ((s[0] == '+' || s[0] == '-') && parse_numeric_zone (s, len, &zone))
    {
      take_numeric_zone (d, zone);
      return TRUE;
    }
  /* "+50579034": a signed number that is no zone. */
  if ((s[0] == '+' || s[0] == '-') && len >= 2 && all_digits (s + 1, len - 1) && d->have_time)
    return take_bad_zone (d);
  if (_deja_is_alpha (s[0]))
    return take_alpha (d, s, len);
  /* RFC 733's hyphen before a zone name: "09:35 -PST" */
  if (s[0] == '-' && len > 1 && d->have_time)
    return take_zone_name (d, s + 1, len - 1);
  return FALSE;
}

static int
days_in_month (int year, int month)
{
  static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  gboolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

  return month == 2 && leap ? 29 : days[month - 1];
}

static gboolean
finish (DateParts *d, DateValue *out)
{
  if (!d->have_day || !d->have_month || !d->have_year)
    return FALSE;
  if (d->year_digits == 2)
    {
      /* RFC 5322 §4.3: 00–49 are 2000–2049, 50–99 are 1950–1999. */
      d->v.year += d->v.year < 50 ? 2000 : 1900;
      d->v.flags |= DATE_FLAG_TWO_DIGIT_YEAR;
    }
  else if (d->year_digits == 3)
    d->v.year += 1900;
  if (d->v.year < 1900 || d->v.year > 2199 || d->v.month < 1 || d->v.month > 12 ||
      d->v.day < 1 || d->v.day > days_in_month (d->v.year, d->v.month))
    return FALSE;
  if (!d->have_time)
    d->v.flags |= DATE_FLAG_DAY_ONLY;
  else if (!d->have_zone)
    d->v.flags |= DATE_FLAG_NO_ZONE;
  if (d->v.second == 60)
    d->v.second = 59;
  *out = d->v;
  return TRUE;
}

/**
 * date_parse:
 * @s: (not nullable): the date as bytes (an unfolded header value)
 * @len: its length
 * @out: (out caller-allocates): the parsed value
 *
 * Reads a date in any of the forms named at the top of this file.
 * Commas separate tokens like spaces do, and parenthesised comments are
 * skipped except that a zone name inside one is used when the date has
 * no other zone.
 *
 * Returns: %TRUE on success; %FALSE when the value is not a date, in which
 * case @out is left untouched.
 */
gboolean
date_parse (const char *s, gsize len, DateValue *out)
{
  DateParts d = { 0 };
  gsize i = 0;
  int depth = 0;

  g_return_val_if_fail (s != NULL || len == 0, FALSE);

  while (i < len)
    {
      gsize start;

      while (i < len && (g_ascii_isspace (s[i]) || s[i] == ','))
        i++;
      if (i == len)
        break;
      if (s[i] == '(' || s[i] == ')' || depth > 0)
        {
          /* Inside a comment: only a zone name is of interest. */
          if (s[i] == '(')
            depth++;
          else if (s[i] == ')' && depth > 0)
            depth--;
          else if (depth > 0 && _deja_is_alpha (s[i]))
            {
              int zone;
              start = i;
              while (i < len && _deja_is_alpha (s[i]))
                i++;
              if ((!d.have_zone || (d.v.flags & DATE_FLAG_BAD_ZONE)) &&
                  _deja_parse_zone (s + start, i - start, &zone))
                {
                  d.have_zone = TRUE;
                  d.v.zone_minutes = zone;
                  d.v.flags &= ~DATE_FLAG_BAD_ZONE;
                }
              continue;
            }
          i++;
          continue;
        }
      start = i;
      while (i < len && !g_ascii_isspace (s[i]) && s[i] != ',' && s[i] != '(')
        i++;
      if (!take_token (&d, s + start, i - start))
        return FALSE;
    }
  return finish (&d, out);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static gint64
days_from_civil (int y, int m, int d)
{
  gint64 era, yoe, doy, doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void
civil_from_days (gint64 z, int *y, int *m, int *d)
{
  gint64 era, doe, yoe, doy, mp;

  z += 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (int) (doy - (153 * mp + 2) / 5 + 1);
  *m = (int) (mp < 10 ? mp + 3 : mp - 9);
  *y = (int) (yoe + era * 400 + (*m <= 2));
}

/* The number of @n digits at @p, or -1. */
static int
digits (const char *p, int n)
{
  int v = 0;

  for (int i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit (p[i]))
        return -1;
      v = v * 10 + (p[i] - '0');
    }
  return v;
}

/**
 * date_iso8601_read:
 * @iso: a date as deja stores it, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`
 *   (UTC), or %NULL
 * @out: (out caller-allocates): its fields (0 for a time it does not give)
 *
 * Returns: whether @iso is such a date
 */
gboolean
date_iso8601_read (const char *iso, DateValue *out)
{
  memset (out, 0, sizeof *out);
  if (iso == NULL || strlen (iso) < 10 || (out->year = digits (iso, 4)) < 0 || iso[4] != '-' ||
      (out->month = digits (iso + 5, 2)) < 1 || out->month > 12 || iso[7] != '-' ||
      (out->day = digits (iso + 8, 2)) < 1 || out->day > 31)
    return FALSE;
  if (iso[10] != 'T')
    {
      out->flags = DATE_FLAG_DAY_ONLY;
      return TRUE;
    }
  return strlen (iso) >= 19 && (out->hour = digits (iso + 11, 2)) >= 0 &&
         (out->minute = digits (iso + 14, 2)) >= 0 && (out->second = digits (iso + 17, 2)) >= 0;
}

/**
 * date_iso8601_seconds:
 * @iso: a date as deja stores it (date_iso8601_read())
 *
 * Returns: seconds since 1970-01-01T00:00:00 UTC (a day alone: its
 *   start), or %G_MININT64 when @iso is no such date
 */
gint64
date_iso8601_seconds (const char *iso)
{
  DateValue v;

  if (!date_iso8601_read (iso, &v))
    return G_MININT64;
  return days_from_civil (v.year, v.month, v.day) * 86400 + v.hour * 3600 + v.minute * 60 + v.second;
}

/* @v (0 to 10^@width - 1) in @width digits at @out; returns the byte after */
static char *
put_digits (char *out, int v, int width)
{
  for (int i = width - 1; i >= 0; i--, v /= 10)
    out[i] = (char) ('0' + v % 10);
  return out + width;
}

/* "YYYY-MM-DD", and "THH:MM:SS" when @hour >= 0: written by hand, as a
 * date is written for every message (printf's parsing of the format was
 * 0.4 % of an ingest's samples); years outside 0-9999 as printf writes
 * them. */
static char *
format_iso8601 (int y, int m, int d, int hour, int minute, int second)
{
  char *out, *p;

  if (y < 0 || y > 9999 || m < 0 || m > 99 || d < 0 || d > 99)
    return hour < 0 ? g_strdup_printf ("%04d-%02d-%02d", y, m, d)
                    : g_strdup_printf ("%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, hour, minute, second);
  p = out = g_malloc (sizeof "YYYY-MM-DDTHH:MM:SS");
  p = put_digits (p, y, 4);
  *p++ = '-';
  p = put_digits (p, m, 2);
  *p++ = '-';
  p = put_digits (p, d, 2);
  if (hour >= 0)
    {
      *p++ = 'T';
      p = put_digits (p, hour, 2);
      *p++ = ':';
      p = put_digits (p, minute, 2);
      *p++ = ':';
      p = put_digits (p, second, 2);
    }
  *p = '\0';
  return out;
}

/**
 * date_value_to_iso8601:
 * @value: a value filled by date_parse()
 *
 * Returns: (transfer full): `YYYY-MM-DDTHH:MM:SS` in UTC, or `YYYY-MM-DD`
 * when the source gives only a day (no zone conversion is possible then).
 */
char *
date_value_to_iso8601 (const DateValue *value)
{
  gint64 t;
  int y, m, d;

  if (value->flags & DATE_FLAG_DAY_ONLY)
    return format_iso8601 (value->year, value->month, value->day, -1, 0, 0);
  t = days_from_civil (value->year, value->month, value->day) * 86400 +
      value->hour * 3600 + value->minute * 60 + value->second -
      (gint64) value->zone_minutes * 60;
  civil_from_days (t >= 0 ? t / 86400 : (t - 86399) / 86400, &y, &m, &d);
  t = ((t % 86400) + 86400) % 86400;
  return format_iso8601 (y, m, d, (int) (t / 3600), (int) (t / 60 % 60), (int) (t % 60));
}

/**
 * date_to_iso8601:
 * @s: the date as bytes
 * @len: its length
 * @flags: (out) (optional): how the date was read
 *
 * Returns: (transfer full) (nullable): the date in ISO 8601 UTC, or %NULL
 * when it cannot be parsed.
 */
char *
date_to_iso8601 (const char *s, gsize len, DateFlags *flags)
{
  DateValue v;

  if (flags)
    *flags = DATE_FLAG_NONE;
  if (!date_parse (s, len, &v))
    return NULL;
  if (flags)
    *flags = v.flags;
  return date_value_to_iso8601 (&v);
}
