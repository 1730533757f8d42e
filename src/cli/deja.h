/* deja.h — what the subcommands share. */
#pragma once

#include <glib.h>

#include "rows.h"
#include "store.h"

G_BEGIN_DECLS

/* Exit statuses, fixed by the project's external contract (README, "Exit status"). */
#define DEJA_EXIT_OK     0
#define DEJA_EXIT_FAILED 1   /* some input failed */
#define DEJA_EXIT_USAGE  2

typedef struct _DejaRun DejaRun;

int cmd_ingest (DejaRun *run, int argc, char **argv);
int cmd_scan (DejaRun *run, int argc, char **argv);
int cmd_log (DejaRun *run, int argc, char **argv);
int cmd_search (DejaRun *run, int argc, char **argv);
int cmd_export (DejaRun *run, int argc, char **argv);
int cmd_thread (DejaRun *run, int argc, char **argv);
int cmd_network (DejaRun *run, int argc, char **argv);
int cmd_groups (DejaRun *run, int argc, char **argv);
int cmd_links (DejaRun *run, int argc, char **argv);
int cmd_stats (DejaRun *run, int argc, char **argv);
int cmd_export_mbox (DejaRun *run, int argc, char **argv);
int cmd_review (DejaRun *run, int argc, char **argv);
int cmd_authors (DejaRun *run, int argc, char **argv);
int cmd_keygen (DejaRun *run, int argc, char **argv);
int cmd_show (DejaRun *run, int argc, char **argv);
int cmd_report (DejaRun *run, int argc, char **argv);
int cmd_plot (DejaRun *run, int argc, char **argv);
int cmd_analyse (DejaRun *run, int argc, char **argv);
int cmd_terms (DejaRun *run, int argc, char **argv);
int cmd_dedup (DejaRun *run, int argc, char **argv);
int cmd_score (DejaRun *run, int argc, char **argv);
int cmd_merge (DejaRun *run, int argc, char **argv);
int cmd_catalog (DejaRun *run, int argc, char **argv);
int cmd_export_pg (DejaRun *run, int argc, char **argv);

int deja_usage_error (GOptionContext *context, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
void deja_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
void deja_print (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
void deja_note (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
gboolean deja_parse_options (GOptionContext *context, int *argc, char ***argv, int *status);
gboolean deja_is_verbose (void);
void deja_messages_init (void);


/* finish.c */
extern volatile int deja_interrupted;
void deja_catch_interrupt (const char *message);
gboolean deja_refuses_catalog (Store *store, const char *path, const char *instead);
gint64 deja_files_bytes (char *const *paths, int n);
gboolean deja_rethread (Store *store, const char *db);
gboolean deja_rethread_keeping (Store *store, const char *db, GArray *kept);
gboolean deja_rethread_and_index (Store *store, const char *db, GArray *kept);
gboolean deja_build_deferred_indexes (Store *store, const char *db);
gboolean deja_update_authors (Store *store, const char *db);
void deja_profile_report (double wall_seconds, guint64 bytes);

gboolean deja_analyse_stored (Store *store, const char *db, gboolean force, guint threads,
                              const volatile int *cancel);
Store *deja_open_existing_store (const char *path);
Store *deja_open_existing_store_or_catalog (const char *path);
Store *deja_open_store_to_read (const char *path);
gboolean deja_valid_date (const char *s);
gboolean deja_use_colour (void);
int deja_write_file (const char *path, const void *data, gsize len);
char *deja_command_line (char **argv);
int deja_check_dates (GOptionContext *context, const char *since, const char *until);
int deja_check_db_args (GOptionContext *context, const char *db, int argc, char **argv);

/* The filter every command that selects messages takes (cli.c): options
 * parsed in one place, turned into SQL in one place (store-filter.c). */
typedef StoreFilter StoreFilterFwd;
typedef struct _SearchQuery SearchQueryFwd;
typedef struct {
  char **groups;         /* --group GLOB, repeatable */
  char **authors;        /* --author TEXT, repeatable */
  char *since, *until;   /* --since, --until */
  char *lang;            /* --lang CODE */
  gboolean distinct_text;   /* --distinct-text */
  /* private */
  GPtrArray *all_groups, *all_authors;
} DejaFilter;

void deja_filter_add_options (GOptionContext *context, DejaFilter *filter);
int deja_filter_finish (GOptionContext *context, DejaFilter *filter, const SearchQueryFwd *query,
                        StoreFilterFwd *out);
void deja_filter_clear (DejaFilter *filter);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DejaFilter, deja_filter_clear)

/* What a command needs, declared once in main.c's commands[] (as git's
 * run_builtin() reads its table): the database, the options every such
 * command takes, the optional libraries.  cli.c's deja_run_parse() and
 * deja_run_open() do the opening each command used to repeat. */
typedef enum {
  DEJA_DB_NONE,     /* no database (scan, keygen) */
  DEJA_DB_OWN,      /* --db handled by the command (ingest creates; merge, stats and search
                       take several) */
  DEJA_DB_READ,     /* --db: an existing database, read (stale authors computed first) */
  DEJA_DB_WRITE,    /* --db: an existing database, written */
  DEJA_DB_WRITE_OWN, /* the same, or a catalog of shards, of which it writes the catalog's own
                        tables (threads across its shards, authors, placeholders) */
} DejaDbUse;

typedef enum {
  DEJA_TAKES_FILTERS = 1 << 0,   /* --group, --author, --since, --until, --lang, --distinct-text */
  DEJA_TAKES_FORMAT  = 1 << 1,   /* --format table|tsv|csv|json (run->format) */
  DEJA_TAKES_ARGS    = 1 << 2,   /* arguments after the options */
} DejaTakes;

/* The optional libraries (meson_options.txt). */
typedef enum {
  DEJA_FEATURE_LIBGIT2,
  DEJA_FEATURE_CLD2,
  DEJA_FEATURE_HUNSPELL,
  DEJA_FEATURE_CAIRO,
  DEJA_FEATURE_LIBPQ,
  DEJA_FEATURE_MIMALLOC,
  DEJA_N_FEATURES,
} DejaFeature;

#define DEJA_NEEDS(f) (1u << (f))

typedef struct {
  const char *name;
  int (*fn) (DejaRun *run, int argc, char **argv);
  const char *summary;
  DejaDbUse db;
  DejaTakes takes;
  guint needs;             /* DEJA_NEEDS() of features without which it cannot run */
} DejaCommand;

struct _DejaRun {
  const DejaCommand *command;
  GOptionContext *context;
  char *db;                /* --db */
  char *format_name;       /* --format, parsed into format */
  RowFormat format;
  DejaFilter filter;
  StoreFilterFwd filter_sql;    /* the filter as the store takes it (after deja_run_parse) */
  Store *store;            /* after deja_run_open() */
};

gboolean deja_feature_available (DejaFeature feature);
const char *deja_feature_name (DejaFeature feature);
char *deja_features_describe (void);

/* memory.c: the allocator */
void deja_memory_tune (void);
void deja_memory_release (void);
gboolean deja_memory_mimalloc (void);
gboolean deja_run_parse (DejaRun *run, const char *parameters, const GOptionEntry *entries,
                         const char *description, int *argc, char ***argv, int *status);
gboolean deja_run_open (DejaRun *run, int *status);
void deja_run_clear (DejaRun *run);

G_END_DECLS
