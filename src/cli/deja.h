/* deja.h — what the subcommands share. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit statuses, fixed by the project's external contract (README, "Exit status"). */
#define DEJA_EXIT_OK     0
#define DEJA_EXIT_FAILED 1   /* some input failed */
#define DEJA_EXIT_USAGE  2

int cmd_ingest (int argc, char **argv);
int cmd_scan (int argc, char **argv);
int cmd_log (int argc, char **argv);
int cmd_search (int argc, char **argv);
int cmd_export (int argc, char **argv);
int cmd_thread (int argc, char **argv);
int cmd_network (int argc, char **argv);
int cmd_groups (int argc, char **argv);
int cmd_links (int argc, char **argv);
int cmd_stats (int argc, char **argv);
int cmd_export_mbox (int argc, char **argv);
int cmd_review (int argc, char **argv);
int cmd_authors (int argc, char **argv);
int cmd_keygen (int argc, char **argv);
int cmd_show (int argc, char **argv);
int cmd_report (int argc, char **argv);
int cmd_plot (int argc, char **argv);
int cmd_analyse (int argc, char **argv);
int cmd_terms (int argc, char **argv);
int cmd_dedup (int argc, char **argv);
int cmd_score (int argc, char **argv);
int cmd_merge (int argc, char **argv);
int cmd_export_pg (int argc, char **argv);

int deja_usage_error (GOptionContext *context, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
void deja_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
void deja_print (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
void deja_note (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
gboolean deja_parse_options (GOptionContext *context, int *argc, char ***argv, int *status);
gboolean deja_is_verbose (void);

/* cli.c */
typedef struct _Store Store;

/* finish.c */
extern volatile int deja_interrupted;
void deja_catch_interrupt (const char *message);
gboolean deja_rethread (Store *store, const char *db);
gboolean deja_rethread_and_index (Store *store, const char *db);
gboolean deja_update_authors (Store *store, const char *db);

gboolean deja_analyse_stored (Store *store, const char *db, gboolean force, guint threads,
                              const volatile int *cancel);
Store *deja_open_existing_store (const char *path);
Store *deja_open_store_to_read (const char *path);
gboolean deja_valid_date (const char *s);
gboolean deja_use_colour (void);
int deja_write_file (const char *path, const void *data, gsize len);
char *deja_command_line (char **argv);
int deja_check_dates (GOptionContext *context, const char *since, const char *until);
int deja_check_db_args (GOptionContext *context, const char *db, int argc, char **argv);

/* The filter every command that selects messages takes (cli.c): options
 * parsed in one place, turned into SQL in one place (store-filter.c). */
typedef struct _StoreFilter StoreFilterFwd;
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

G_END_DECLS
