/* test-envelope.c — the envelope shapes of docs/splitter.md, as a table. */
#include <glib.h>
#include <string.h>

#include "envelope.h"
#include "fixtures.h"

typedef struct {
  const char *line;
  MboxShape shape;
} Row;

static const Row cases[] = {
  /* G: Google Groups exports */
  { "From -8946248053963491671", MBOX_SHAPE_G },
  { "From 5312399187214577153", MBOX_SHAPE_G },
  { "From 5312399187214577153   ", MBOX_SHAPE_G },
  { "From 2003", MBOX_SHAPE_G },                       /* shape only: context decides */
  { "From -", MBOX_SHAPE_P },
  /* R: RFC 4155 and what archives hold */
  { "From alice@example.com Wed Jan 25 21:37:37 2017", MBOX_SHAPE_R },
  { "From alice@example.com Wed Jan 25 21:37:37 2017\r", MBOX_SHAPE_R },
  { "From alice@example.com  Wed Jan  5 21:37:37 2017", MBOX_SHAPE_R },
  { "From MAILER-DAEMON Thu Jan  1 00:00:00 1970", MBOX_SHAPE_R },
  { "From bob@example.org Mon Jan  5 08:50:15 +0100 2004", MBOX_SHAPE_R },
  { "From bob@example.org Mon Jan  5 08:50:15 2004 +0100", MBOX_SHAPE_R },
  { "From magick-owner@x.dupont.com Wed Feb  9 22:02 MET 2000", MBOX_SHAPE_R },
  { "From x@y Sat Mar 30 10:00:00 MET DST 1996", MBOX_SHAPE_R },
  { "From - Mon Jan  5 08:50:15 2004", MBOX_SHAPE_R },
  { "From goran at domain.com  Wed Dec  1 08:26:40 2010", MBOX_SHAPE_R },
  { "From luc\xed" "acharlie at wellsfargo.com  Tue Oct 11 17:01:19 2016", MBOX_SHAPE_R },
  { "From 1844347792267117879@xxx Thu Apr 16 09:53:04 +0000 2015", MBOX_SHAPE_R },
  { "From uucp Wed Jan  5 12:00:00 1994 remote from uunet", MBOX_SHAPE_R },
  { "From nobody Mon Sep 17 00:00:00 2001", MBOX_SHAPE_R },
  /* P: partial */
  { "From ", MBOX_SHAPE_P },
  { "From    ", MBOX_SHAPE_P },
  { "From - ", MBOX_SHAPE_P },
  { "From MAILER-DAEMON", MBOX_SHAPE_P },
  { "From sender@example.com", MBOX_SHAPE_P },
  { "From sender@example.com Jan 5 2004", MBOX_SHAPE_P },
  { "From root Jan  5 12:00:00 2004", MBOX_SHAPE_P },   /* no weekday */
  { "From alice@example.com Wed Jan 45 21:37:37 2017", MBOX_SHAPE_P },
  /* T: text */
  { "From what I hear, the meeting is off", MBOX_SHAPE_T },
  { "From 1997 to 2001 the group was quiet", MBOX_SHAPE_T },
  { "From here on, see foo at the FAQ", MBOX_SHAPE_T },
  { "From root", MBOX_SHAPE_T },
  /* not candidates */
  { "From: alice@example.com", MBOX_SHAPE_NONE },
  { ">From alice@example.com Wed Jan 25 21:37:37 2017", MBOX_SHAPE_NONE },
  { " From alice@example.com Wed Jan 25 21:37:37 2017", MBOX_SHAPE_NONE },
  { "from alice@example.com Wed Jan 25 21:37:37 2017", MBOX_SHAPE_NONE },
  { "From", MBOX_SHAPE_NONE },
};

static void
test_row (gconstpointer data)
{
  const Row *row = data;
  MboxShape got = mbox_envelope_shape (row->line, strlen (row->line));

  if (got != row->shape)
    g_test_fail_printf ("'%s': shape %c, expected %c", row->line, got ? got : '-',
                        row->shape ? row->shape : '-');
}

/* Envelope lines may hold NUL bytes: the shape reads the given length. */
static void
test_nul (void)
{
  static const char line[] = "From x@y Wed Jan 25 21:37:37 2017\0garbage";
  g_assert_cmpint (mbox_envelope_shape (line, 33), ==, MBOX_SHAPE_R);
  g_assert_cmpint (mbox_envelope_shape (line, sizeof line - 1), ==, MBOX_SHAPE_P);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  TABLE_TESTS_ADD ("/envelope/shape", cases, test_row);
  g_test_add_func ("/envelope/nul", test_nul);
  return g_test_run ();
}
