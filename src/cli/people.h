/* people.h — what network, export and stats share about people:
 * pseudonyms (--pseudonymise KEYFILE) and the data statement
 * (--statement FILE) written beside an export.  docs/people.md. */
#pragma once

#include <glib.h>

#include "pseudonym.h"
#include "store.h"

G_BEGIN_DECLS

/* An open key and what it needs to name authors. */
typedef struct {
  Pseudonymiser *key;
  GHashTable *primary;       /* address -> the author's primary address */
  GHashTable *by_id;         /* author id (text) -> the author's primary address */
  RedactCounts redacted;
} DejaPseudonyms;

gboolean deja_pseudonyms_open (DejaPseudonyms *p, const char *key_path, Store *store);
void deja_pseudonyms_clear (DejaPseudonyms *p);
char *deja_pseudonym (DejaPseudonyms *p, const char *address);
char *deja_pseudonym_of_author (DejaPseudonyms *p, const char *author_id);

/* What a data statement says of one export. */
typedef struct {
  const char *command;       /* as typed */
  const char *db;
  const char *what;          /* "reply network, GraphML" */
  const char *output;        /* the file written, or NULL for standard output */
  const char *counts;        /* "412 vertices, 1,873 edges" */
  DejaPseudonyms *pseudonyms;   /* NULL: names and addresses as in the archive */
  gboolean text_redacted;
  gint64 no_archive_left_out;   /* -1: not applicable */
} DejaStatement;

gboolean deja_write_statement (const char *path, Store *store, const DejaStatement *s);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DejaPseudonyms, deja_pseudonyms_clear)

G_END_DECLS
