/* cli.c — what the commands share: opening the database, checking options. */
#include "deja.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

static Store *
open_existing (const char *path, Store *(*open) (const char *, GError **))
{
  g_autoptr (GError) error = NULL;
  Store *store;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      deja_error ("cannot open database '%s': no such file", path);
      return NULL;
    }
  if ((store = open (path, &error)) == NULL)
    deja_error ("cannot open database '%s': %s", path, error->message);
  return store;
}

/* Opens an existing database to change it, or says why not (naming it). */
Store *
deja_open_existing_store (const char *path)
{
  return open_existing (path, store_open);
}

/* Opens an existing database to read it, even where it cannot be
 * written; or says why not (naming it). */
Store *
deja_open_store_to_read (const char *path)
{
  return open_existing (path, store_open_to_read);
}

/* YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (a prefix of how
 * messages.date is written, so that comparisons are by text). */
gboolean
deja_valid_date (const char *s)
{
  static const char pattern[] = "dddd-dd-ddTdd:dd:dd";
  gsize n = strlen (s);

  if (n != 4 && n != 7 && n != 10 && n != 19)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (pattern[i] == 'd' ? !g_ascii_isdigit (s[i]) : s[i] != pattern[i])
      return FALSE;
  /* The digits must name a real month, day and time: 1997-13 is no date. */
  if (n >= 7)
    {
      int year = atoi (s), month = atoi (s + 5);

      if (month < 1 || month > 12)
        return FALSE;
      if (n >= 10)
        {
          int day = atoi (s + 8);

          if (day < 1 || day > g_date_get_days_in_month (month, year))
            return FALSE;
        }
      if (n == 19 && (atoi (s + 11) > 23 || atoi (s + 14) > 59 || atoi (s + 17) > 60))
        return FALSE;
    }
  return TRUE;
}

/* Checks --since/--until; returns 0 or the usage error status. */
int
deja_check_dates (GOptionContext *context, const char *since, const char *until)
{
  if (since && !deja_valid_date (since))
    return deja_usage_error (context, "--since '%s' is not a date (YYYY, YYYY-MM, YYYY-MM-DD)", since);
  if (until && !deja_valid_date (until))
    return deja_usage_error (context, "--until '%s' is not a date (YYYY, YYYY-MM, YYYY-MM-DD)", until);
  return 0;
}

/* A command that takes --db and no arguments: 0, or the usage error. */
int
deja_check_db_args (GOptionContext *context, const char *db, int argc, char **argv)
{
  if (db == NULL)
    return deja_usage_error (context, "--db is required");
  if (argc > 1)
    return deja_usage_error (context, "unexpected argument '%s'", argv[1]);
  return 0;
}
