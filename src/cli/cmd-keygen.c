/* cmd-keygen.c — deja keygen KEYFILE: a secret key for --pseudonymise. */
#include "deja.h"
#include "pseudonym.h"

int
cmd_keygen (DejaRun *run, int argc, char **argv)
{
  GOptionEntry entries[] = { { NULL } };
  g_autoptr (GOptionContext) context = g_option_context_new ("KEYFILE — make a key for --pseudonymise");
  g_autoptr (GError) error = NULL;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Writes 32 random bytes (64 hexadecimal digits) to KEYFILE, readable by you only; an\n"
    "existing file is never overwritten.  'network', 'export' and 'stats' take it with\n"
    "--pseudonymise KEYFILE: the same key gives the same pseudonyms.  Keep it apart from the\n"
    "data you share: with the key and a list of addresses, pseudonyms can be linked back.\n"
    "See docs/people.md.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return deja_usage_error (context, "give one KEYFILE");
  if (!pseudonym_key_create (argv[1], &error))
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("wrote a new key to '%s' (mode 0600)", argv[1]);
  return DEJA_EXIT_OK;
}
