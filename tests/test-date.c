/* test-date.c — dates as old archives write them, as a table. */
#include <glib.h>
#include <string.h>

#include "date.h"

static const struct {
  const char *in;
  const char *iso;   /* NULL: unparseable */
  DateFlags flags;
} cases[] = {
  { "Wed, 25 Jan 2017 21:37:37 +0100", "2017-01-25T20:37:37", 0 },
  { "Wed, 25 Jan 2017 21:37:37 +0100 (CET)", "2017-01-25T20:37:37", 0 },
  { "25 Jan 2017 21:37:37 -0000", "2017-01-25T21:37:37", 0 },
  { "Wed, 1 Dec 2010 14:26:40 +0100", "2010-12-01T13:26:40", 0 },
  { "Thu, 31 Dec 1998 23:30:00 -0500", "1999-01-01T04:30:00", 0 },
  { "Mon, 17 Nov 97 10:20:30 EST", "1997-11-17T15:20:30", DATE_FLAG_TWO_DIGIT_YEAR },
  { "17 Nov 49 10:20 GMT", "2049-11-17T10:20:00", DATE_FLAG_TWO_DIGIT_YEAR },
  { "17 Nov 50 10:20 GMT", "1950-11-17T10:20:00", DATE_FLAG_TWO_DIGIT_YEAR },
  { "Tue, 2 Jan 101 10:00:00 GMT", "2001-01-02T10:00:00", 0 },
  { "Sat, 30 Mar 1996 10:00:00 MET DST", "1996-03-30T08:00:00", 0 },
  { "Fri, 9 Jun 2006 00:44:16 -0700", "2006-06-09T07:44:16", 0 },
  { "Wed Jan 25 21:37:37 2017", "2017-01-25T21:37:37", DATE_FLAG_NO_ZONE },
  { "Wed Jan 25 21:37:37 PST 2017", "2017-01-26T05:37:37", 0 },
  { "1997/11/17", "1997-11-17", DATE_FLAG_DAY_ONLY },
  { "1997/11/17 10:20:30", "1997-11-17T10:20:30", DATE_FLAG_NO_ZONE },
  { "1997-11-17", "1997-11-17", DATE_FLAG_DAY_ONLY },
  { "2004-01-05T08:50:15Z", "2004-01-05T08:50:15", 0 },
  { "2004-01-05T08:50:15+01:00", "2004-01-05T07:50:15", 0 },
  { "17-Nov-1997 10:20:30 +0000", "1997-11-17T10:20:30", 0 },
  { "Monday, 17-Nov-97 10:20:30 GMT", "1997-11-17T10:20:30", DATE_FLAG_TWO_DIGIT_YEAR },
  { "Thu, 16 Jun 2016 22:14:41 -0400", "2016-06-17T02:14:41", 0 },
  { "Wed, 25 Jan 2017 9:07 +0100", "2017-01-25T08:07:00", 0 },
  { "Wed, 25 Jan 2017 21:37:37 +0100 XYZ", "2017-01-25T20:37:37", 0 },
  { "Wed, 25 Jan 2017 21:37:37 SAST", "2017-01-25T21:37:37", DATE_FLAG_UNKNOWN_ZONE },
  /* Garbage zones (twisted-python): the date and time are kept, as UTC. */
  { "Mon, 21 Oct 2002 15:02:34 +50579034", "2002-10-21T15:02:34", DATE_FLAG_BAD_ZONE },
  { "Tue, 22 Oct 2002 05:35:10 0480", "2002-10-22T05:35:10", DATE_FLAG_BAD_ZONE },
  { "Tue, 22 Oct 2002 05:35:10 0480 (PST)", "2002-10-22T13:35:10", DATE_FLAG_NONE },
  { "Tue, 22 Oct 2002 05:35:10 +99 +0100", "2002-10-22T04:35:10", DATE_FLAG_NONE },
  { "Wed, 25 Sept. 2017 21:37:37 GMT", "2017-09-25T21:37:37", 0 },
  { "Wed, 25 Jan 2017 21:37:37 GMT+1", "2017-01-25T20:37:37", 0 },
  { "Wed, 29 Feb 2012 12:00:00 +0000", "2012-02-29T12:00:00", 0 },
  { "Wed, 31 Dec 2017 23:59:60 +0000", "2017-12-31T23:59:59", 0 },
  { "  Wed,\n 25 Jan 2017\t21:37:37 +0100 ", "2017-01-25T20:37:37", 0 },
  /* RFC 733 (ARPANET mail, 1977-1982): the zone after a hyphen, attached
   * to the time or not, and hours without a colon beside such a zone */
  { "6 September 1982 03:39-EDT", "1982-09-06T07:39:00", 0 },   /* its-archives 1982-wancho */
  { "6 Sep 82 3:43-EDT", "1982-09-06T07:43:00", DATE_FLAG_TWO_DIGIT_YEAR },
  { "Mon, 14 Nov 83 09:35:12-PST", "1983-11-14T17:35:12", DATE_FLAG_TWO_DIGIT_YEAR },
  { "14 Nov 1983 0935-PST", "1983-11-14T17:35:00", 0 },
  { "14 Nov 1983 093512-PST", "1983-11-14T17:35:12", 0 },
  { "14 Nov 1983 09:35 -PST", "1983-11-14T17:35:00", 0 },
  { "14 Nov 1983 09:35-0800", "1983-11-14T17:35:00", 0 },
  { "14 Nov 1983 09:35+0100", "1983-11-14T08:35:00", 0 },
  { "14 Nov 1983 09:35-SAST", "1983-11-14T09:35:00", DATE_FLAG_UNKNOWN_ZONE },
  { "14 Nov 1983 09:35-PST (EST)", "1983-11-14T17:35:00", 0 },
  { "Sat 18 Sep 82 21:17:40-YST", "1982-09-19T06:17:40", DATE_FLAG_TWO_DIGIT_YEAR },
  { "18 Sep 82 21:17:40 YDT", "1982-09-19T05:17:40", DATE_FLAG_TWO_DIGIT_YEAR },
  { "18 Sep 82 21:17 HDT", "1982-09-19T06:17:00", DATE_FLAG_TWO_DIGIT_YEAR },
  { "18 Sep 82 2117-AHST", "1982-09-19T07:17:00", DATE_FLAG_TWO_DIGIT_YEAR },
  { "18 Sep 82 21:17 AHDT", "1982-09-19T06:17:00", DATE_FLAG_TWO_DIGIT_YEAR },
  /* unparseable */
  { "", NULL, 0 },
  { "14 Nov 1983 0935", NULL, 0 },       /* a second year, or a time? */
  { "14 Nov 1983 09:35-", NULL, 0 },
  { "14 Nov 1983 2535-PST", NULL, 0 },
  { "14 Nov 1983 093-PST", NULL, 0 },
  { "14 Nov 1983 09:35-Pacific", NULL, 0 },
  { "14 Nov 1983 09:35 -Jan", NULL, 0 },
  { "14 Nov 1983 09:35 -", NULL, 0 },
  { "14 Nov 1983 2002-10", NULL, 0 },
  { "14 Nov 1983 09:35+01", NULL, 0 },
  { "yesterday", NULL, 0 },
  { "RANDOM_Wed, 20 Jan 2016 15:29:40 +0000", NULL, 0 },
  { "Wed, 30 Feb 2017 21:37:37 +0100", NULL, 0 },
  { "Wed, 25 Foo 2017 21:37:37 +0100", NULL, 0 },
  { "Wed, 25 Jan 2017 25:37:37 +0100", NULL, 0 },
  { "25 Jan", NULL, 0 },
  { "12/11/1997", NULL, 0 },   /* day and month order unknowable */
  { "Wed, 25 Jan 1850 21:37:37 +0100", NULL, 0 },
};

static void
test_table (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      DateFlags flags;
      g_autofree char *iso = date_to_iso8601 (cases[i].in, strlen (cases[i].in), &flags);

      if (g_strcmp0 (iso, cases[i].iso) != 0)
        g_error ("'%s': got %s, expected %s", cases[i].in, iso ? iso : "NULL",
                 cases[i].iso ? cases[i].iso : "NULL");
      if (iso && (flags & ~DATE_FLAG_TWO_DIGIT_YEAR & ~DATE_FLAG_DAY_ONLY) !=
                   (cases[i].flags & ~DATE_FLAG_TWO_DIGIT_YEAR & ~DATE_FLAG_DAY_ONLY))
        g_error ("'%s': flags %x, expected %x", cases[i].in, flags, cases[i].flags);
      if (iso && (flags & DATE_FLAG_TWO_DIGIT_YEAR) != (cases[i].flags & DATE_FLAG_TWO_DIGIT_YEAR))
        g_error ("'%s': two-digit-year flag wrong", cases[i].in);
    }
}

/* Dates as deja stores them, back to seconds (deja groups's reply times). */
static void
test_iso8601_seconds (void)
{
  g_assert_cmpint (date_iso8601_seconds ("1970-01-01T00:00:00"), ==, 0);
  g_assert_cmpint (date_iso8601_seconds ("1970-01-02"), ==, 86400);
  g_assert_cmpint (date_iso8601_seconds ("2000-03-01T00:00:00") - date_iso8601_seconds ("2000-02-28T00:00:00"),
                   ==, 2 * 86400);   /* 2000 was a leap year */
  g_assert_cmpint (date_iso8601_seconds ("1990-03-01T12:00:00") - date_iso8601_seconds ("1990-03-01T10:00:00"),
                   ==, 7200);
  g_assert_cmpint (date_iso8601_seconds ("1993-04-29T16:36:43"), ==, 736101403);
  g_assert_cmpint (date_iso8601_seconds ("not a date"), ==, G_MININT64);
  g_assert_cmpint (date_iso8601_seconds ("1993-04-29T1x:00:00"), ==, G_MININT64);
}

/* Values written as printf's "%04d-%02d-%02dT%02d:%02d:%02d" writes them,
 * those date_parse() never makes too (a year past 9999, before 1000). */
static void
test_value_written (void)
{
  static const struct {
    DateValue value;
    const char *iso;
  } written[] = {
    { { 1999, 12, 31, 23, 59, 59, 0, 0 }, "1999-12-31T23:59:59" },
    { { 2000, 1, 1, 0, 30, 0, 60, 0 }, "1999-12-31T23:30:00" },      /* +0100 */
    { { 2199, 12, 31, 22, 0, 0, -180, 0 }, "2200-01-01T01:00:00" },  /* -0300 */
    { { 1987, 6, 5, 0, 0, 0, 0, DATE_FLAG_DAY_ONLY }, "1987-06-05" },
    { { 987, 6, 5, 4, 3, 2, 0, 0 }, "0987-06-05T04:03:02" },
    { { 12345, 6, 7, 0, 0, 0, 0, DATE_FLAG_DAY_ONLY }, "12345-06-07" },
    { { 12345, 6, 7, 8, 9, 10, 0, 0 }, "12345-06-07T08:09:10" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (written); i++)
    {
      g_autofree char *iso = date_value_to_iso8601 (&written[i].value);

      g_assert_cmpstr (iso, ==, written[i].iso);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/date/table", test_table);
  g_test_add_func ("/date/iso8601-seconds", test_iso8601_seconds);
  g_test_add_func ("/date/value-written", test_value_written);
  return g_test_run ();
}
