/* main.c — deja's entry point: maps subcommand names to cmd_<name>().
 *
 * Like git.c, one table says what each command needs (cli.c opens what
 * it says); each command parses its own options.  What commands print on
 * stderr is messages.c's.
 */
#include "deja.h"
#include "output.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

/* Every command, and what it needs: the database, the options it shares
 * with others, the optional libraries it cannot run without. */
static const DejaCommand commands[] = {
  { "ingest", cmd_ingest, "split, decode and store mbox files in a database", DEJA_DB_OWN, DEJA_TAKES_ARGS, 0 },
  { "merge", cmd_merge, "merge shard databases (made by ingest on parts of an archive) into one",
    DEJA_DB_OWN, DEJA_TAKES_ARGS, 0 },
  { "catalog", cmd_catalog, "read shard databases in place as one corpus, without merging them",
    DEJA_DB_OWN, DEJA_TAKES_ARGS, 0 },
  { "scan", cmd_scan, "split mbox files and report what the splitter judged; store nothing",
    DEJA_DB_NONE, DEJA_TAKES_ARGS, 0 },
  { "log", cmd_log, "print the separator log of a database", DEJA_DB_READ, 0, 0 },
  { "review", cmd_review, "decide where the splitter had to judge; decisions stick", DEJA_DB_WRITE, 0, 0 },
  { "thread", cmd_thread, "rebuild threads from References and In-Reply-To", DEJA_DB_WRITE_OWN, 0, 0 },
  { "authors", cmd_authors, "list authors, suggest and decide which addresses are one person",
    DEJA_DB_OWN, 0, 0 },
  { "network", cmd_network, "export the reply network (GraphML, GML, Pajek, CSV, GEXF) and its statistics",
    DEJA_DB_READ, DEJA_TAKES_FILTERS, 0 },
  { "groups", cmd_groups, "social accounting per group and period: who posts, comes, stays, leaves; threads",
    DEJA_DB_READ, DEJA_TAKES_FILTERS | DEJA_TAKES_FORMAT, 0 },
  { "links", cmd_links, "links cited in own text: domains over time, and each link's Wayback Machine copy",
    DEJA_DB_READ, DEJA_TAKES_FILTERS | DEJA_TAKES_FORMAT, 0 },
  { "stats", cmd_stats, "count messages per newsgroup and year, authors, threads, dates", DEJA_DB_OWN, 0, 0 },
  { "show", cmd_show, "read one message, its place in the archive, or its thread as a tree",
    DEJA_DB_READ, DEJA_TAKES_ARGS, 0 },
  { "analyse", cmd_analyse, "language and prose signals of own text stored by an older deja",
    DEJA_DB_WRITE, 0, DEJA_NEEDS (DEJA_FEATURE_CLD2) },
  { "terms", cmd_terms, "words and n-grams per slice, keyness, collocations; exports for MALLET, R, Voyant",
    DEJA_DB_READ, DEJA_TAKES_FILTERS, 0 },
  { "dedup", cmd_dedup, "find exact and near-duplicate own text and repeated paragraphs (flags, never deletes)",
    DEJA_DB_WRITE_OWN, DEJA_TAKES_FILTERS, 0 },
  { "score", cmd_score, "score messages and slices with a lexicon the researcher brings (TSV)",
    DEJA_DB_READ, DEJA_TAKES_FILTERS, 0 },
  { "search", cmd_search, "full-text search of the authors' own words", DEJA_DB_OWN, DEJA_TAKES_ARGS, 0 },
  { "report", cmd_report, "write the corpus on one self-contained HTML page with charts", DEJA_DB_READ, 0, 0 },
  { "plot", cmd_plot, "draw one chart of the corpus as SVG or PNG", DEJA_DB_READ, DEJA_TAKES_ARGS,
    DEJA_NEEDS (DEJA_FEATURE_CAIRO) },
  { "export", cmd_export, "write messages and their text as CSV or JSON Lines", DEJA_DB_OWN, 0, 0 },
  { "export-mbox", cmd_export_mbox, "write the messages back out as a clean mboxrd file or a Maildir",
    DEJA_DB_READ, DEJA_TAKES_FILTERS, 0 },
  { "export-pg", cmd_export_pg, "write a psql script that loads the corpus into PostgreSQL, partitioned",
    DEJA_DB_READ, DEJA_TAKES_FILTERS, 0 },
  { "keygen", cmd_keygen, "make a secret key for pseudonymised exports (--pseudonymise)", DEJA_DB_NONE,
    0, 0 },
};

/* A command needing a library this deja was built without says so, and
 * what to install, instead of running. */
static gboolean
check_needs (const DejaCommand *c)
{
  for (guint f = 0; f < DEJA_N_FEATURES; f++)
    if ((c->needs & DEJA_NEEDS (f)) && !deja_feature_available ((DejaFeature) f))
      {
        g_autofree char *all = deja_features_describe ();

        fprintf (stderr, "deja: '%s' is missing from this build: it needs %s\n%s", c->name,
                 deja_feature_name ((DejaFeature) f), all);
        return FALSE;
      }
  return TRUE;
}

/* Runs command @c with @argv (its name first). */
static int
run_command (const DejaCommand *c, int argc, char **argv)
{
  DejaRun run = { .command = c };
  gboolean help = FALSE;
  int status;

  /* --help still describes it (completions read it) */
  for (int i = 1; i < argc; i++)
    help |= strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0;
  if (!help && !check_needs (c))
    return DEJA_EXIT_FAILED;
  status = c->fn (&run, argc, argv);
  deja_run_clear (&run);
  return status;
}

static void
usage (FILE *out)
{
  fprintf (out, "usage: deja [--version] [--help] [--spreadsheet-safe] COMMAND [ARGS]\n\n"
                "deja turns Usenet and mailing-list mbox archives into data researchers can trust.\n"
                "DEJA_DB names the database of every command given no --db.  --spreadsheet-safe\n"
                "(or DEJA_SPREADSHEET_SAFE=1) writes CSV cells that begin with = + - @ as text for\n"
                "Excel and LibreOffice (a ' before them; numbers stay numbers).\n\n"
                "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\n'deja COMMAND --help' describes a command.\n");
}

/* As git's run_builtin(): whatever a command printed must have reached
 * its destination (a full disk, a closed pipe, /dev/full), checked once
 * here for every command, so that none can forget.  Returns @status, or
 * DEJA_EXIT_FAILED when standard output failed. */
static int
finish_stdout (int status)
{
  int failed = fflush (stdout) != 0 || ferror (stdout);
  int err = errno;

  if (fclose (stdout) != 0 && !failed)
    {
      failed = 1;
      err = errno;
    }
  if (failed && err != EPIPE)
    {
      fprintf (stderr, "deja: cannot write standard output: %s\n", g_strerror (err));
      return DEJA_EXIT_FAILED;
    }
  return failed ? DEJA_EXIT_FAILED : status;
}

/* DEJA_DB names the database when a command that takes --db is given
 * none: returns a new argument vector with "--db $DEJA_DB" after the
 * command's name (the strings are borrowed), or NULL to keep @argv. */
static char **
default_db (const DejaCommand *c, int argc, char **argv)
{
  const char *db = g_getenv ("DEJA_DB");
  char **out;

  if (db == NULL || *db == '\0' || c->db == DEJA_DB_NONE)
    return NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--db") == 0 || strcmp (argv[i], "-d") == 0 ||
        g_str_has_prefix (argv[i], "--db=") || strcmp (argv[i], "--") == 0)
      return NULL;
  out = g_new0 (char *, argc + 3);
  out[0] = argv[0];
  out[1] = (char *) "--db";
  out[2] = (char *) db;
  for (int i = 1; i < argc; i++)
    out[i + 2] = argv[i];
  return out;
}

int
main (int argc, char **argv)
{
  const char *name;

  setlocale (LC_ALL, "");
  deja_memory_tune ();
  deja_messages_init ();
  /* CSV that a spreadsheet opens without running formulas (output.c) */
  if (g_strcmp0 (g_getenv ("DEJA_SPREADSHEET_SAFE"), "1") == 0)
    output_csv_set_spreadsheet_safe (TRUE);
  while (argc >= 2 && strcmp (argv[1], "--spreadsheet-safe") == 0)
    {
      output_csv_set_spreadsheet_safe (TRUE);
      argv[1] = argv[0];
      argv++, argc--;
    }
  if (argc < 2)
    {
      usage (stderr);
      return DEJA_EXIT_USAGE;
    }
  name = argv[1];
  if (strcmp (name, "--version") == 0 || strcmp (name, "version") == 0)
    {
      g_autofree char *built = deja_features_describe ();

      printf ("deja %s\n%s", PACKAGE_VERSION, built);
      return finish_stdout (DEJA_EXIT_OK);
    }
  if (strcmp (name, "--help") == 0 || strcmp (name, "-h") == 0 || strcmp (name, "help") == 0)
    {
      if (argc > 2 && strcmp (name, "help") == 0)
        {
          char *help_argv[] = { argv[2], (char *) "--help", NULL };
          for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
            if (strcmp (argv[2], commands[i].name) == 0)
              {
                g_autofree char *prg = g_strdup_printf ("deja %s", argv[2]);
                g_set_prgname (prg);
                return finish_stdout (run_command (&commands[i], 2, help_argv));
              }
        }
      usage (stdout);
      return finish_stdout (DEJA_EXIT_OK);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].name) == 0)
      {
        g_autofree char *prg = g_strdup_printf ("deja %s", name);
        g_autofree char **with_db = default_db (&commands[i], argc - 1, argv + 1);
        g_set_prgname (prg);
        if (with_db != NULL)
          return finish_stdout (run_command (&commands[i], argc + 1, with_db));
        return finish_stdout (run_command (&commands[i], argc - 1, argv + 1));
      }
  fprintf (stderr, "deja: '%s' is not a deja command (see 'deja --help')\n", name);
  return DEJA_EXIT_USAGE;
}
