/* messages.c — what every command says, and how: diagnostics on stderr
 * as "deja: …" (lower case, no final period, paths quoted), notes that
 * --quiet leaves out, --verbose's stage lines, usage errors, and the
 * options every command takes.  Results go to stdout (deja_print() for
 * text that quotes an archive). */
#include "deja.h"
#include "output.h"
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>

/* Diagnostics go to stderr as "deja: message", as a terminal may show
 * them: they quote file names, subjects and names (output_terminal_text()). */
static void
vreport (const char *fmt, va_list ap)
{
  g_autofree char *message = g_strdup_vprintf (fmt, ap);
  g_autoptr (GString) shown = g_string_new ("deja: ");

  progress_clear ();   /* a message never lands on the live line */
  output_terminal_text (shown, message, TRUE);
  g_string_append_c (shown, '\n');
  fputs (shown->str, stderr);
}

void
deja_error (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vreport (fmt, ap);
  va_end (ap);
}

/* --quiet: notes (what was done) are left out; errors never are. */
static gboolean quiet;
static gboolean verbose;

/* --verbose: also the per-file lines a terminal's live line replaces. */
gboolean
deja_is_verbose (void)
{
  return verbose;
}

/**
 * deja_print:
 *
 * printf() to standard output for text that quotes the archive (paths,
 * separator lines, names): as a terminal may show it
 * (output_terminal_text(), lines kept).
 */
void
deja_print (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *text = NULL;
  g_autoptr (GString) shown = g_string_new (NULL);

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  output_terminal_text (shown, text, TRUE);
  fputs (shown->str, stdout);
}

void
deja_note (const char *fmt, ...)
{
  va_list ap;

  if (quiet)
    return;
  va_start (ap, fmt);
  vreport (fmt, ap);
  va_end (ap);
}

int
deja_usage_error (GOptionContext *context, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *message = NULL;

  va_start (ap, fmt);
  message = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "deja: %s\n(see '%s --help')\n", message, g_get_prgname ());
  return DEJA_EXIT_USAGE;
}

/* The libraries log their stages with g_debug() under their own domain
 * (deja-util, deja-store, deja-pipeline, deja-net); --verbose shows them
 * as "deja [domain]: message". */
static void
log_handler (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if ((level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) && !verbose)
    return;
  if (level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO | G_LOG_LEVEL_MESSAGE))
    fprintf (stderr, "deja [%s]: %s\n", domain ? domain : "deja", message);
  else
    g_log_default_handler (domain, level, message, data);
}

/* Parses options, with --verbose and --quiet for every command; on
 * failure or --help sets *status for the caller to return. */
gboolean
deja_parse_options (GOptionContext *context, int *argc, char ***argv, int *status)
{
  g_autoptr (GError) error = NULL;
  GOptionEntry common[] = {
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "say what each stage does (on stderr)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "only errors on stderr, no notes", NULL },
    { NULL }
  };
  g_option_context_add_main_entries (context, common, NULL);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *status = deja_usage_error (context, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* Once, before any command: the libraries' logs go through
 * log_handler(); DEJA_VERBOSE turns --verbose on. */
void
deja_messages_init (void)
{
  g_log_set_default_handler (log_handler, NULL);
  if (g_getenv ("DEJA_VERBOSE") != NULL)
    verbose = TRUE;
}
