/* people.c — pseudonyms for exports and the data statement beside them. */
#include "people.h"
#include "deja.h"
#include "rows.h"

#include <string.h>

static gboolean
primary_address (const RowValue *v, guint n, gpointer data)
{
  DejaPseudonyms *p = data;

  g_hash_table_insert (p->primary, g_strdup (row_get (v, n, "address")),
                       g_strdup (row_get (v, n, "primary_address")));
  g_hash_table_insert (p->by_id, g_strdup (row_get (v, n, "author_id")),
                       g_strdup (row_get (v, n, "primary_address")));
  return TRUE;
}

/**
 * deja_pseudonyms_open:
 *
 * Reads the key and which address belongs to which author (pseudonyms
 * are of the author's primary address: one person, one pseudonym).
 * Prints the error itself.
 */
gboolean
deja_pseudonyms_open (DejaPseudonyms *p, const char *key_path, Store *store)
{
  g_autoptr (GError) error = NULL;

  memset (p, 0, sizeof *p);
  if ((p->key = pseudonymiser_new (key_path, &error)) == NULL)
    {
      deja_error ("%s", error->message);
      return FALSE;
    }
  p->primary = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (!store_authors (store, STORE_AUTHORS_ADDRESSES, 0, primary_address, p, &error))
    {
      deja_error ("cannot read the authors: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

void
deja_pseudonyms_clear (DejaPseudonyms *p)
{
  g_clear_pointer (&p->key, pseudonymiser_free);
  g_clear_pointer (&p->primary, g_hash_table_unref);
  g_clear_pointer (&p->by_id, g_hash_table_unref);
}

/* The pseudonym of author @author_id (NULL when unknown). */
char *
deja_pseudonym_of_author (DejaPseudonyms *p, const char *author_id)
{
  const char *primary = author_id ? g_hash_table_lookup (p->by_id, author_id) : NULL;

  return primary ? pseudonym_for (p->key, primary) : NULL;
}

/* The pseudonym of whoever wrote from @address (NULL for NULL). */
char *
deja_pseudonym (DejaPseudonyms *p, const char *address)
{
  const char *primary;

  if (address == NULL)
    return NULL;
  primary = g_hash_table_lookup (p->primary, address);
  return pseudonym_for (p->key, primary ? primary : address);
}

/* ---- the data statement ---- */

typedef struct {
  GString *out;
  guint files;
} Sources;

static gboolean
source_row (const RowValue *v, guint n, gpointer data)
{
  Sources *s = data;

  g_string_append_printf (s->out, "| %s | %s | %s | %s |\n", row_get (v, n, "path"), row_get (v, n, "sha256"),
                          row_get (v, n, "messages"), row_get (v, n, "deja_version"));
  s->files++;
  return TRUE;
}

static gboolean
totals_row (const RowValue *v, guint n, gpointer data)
{
  const char *first = row_get (v, n, "first_date"), *last = row_get (v, n, "last_date");

  g_string_append_printf (data, "The database holds %s messages (%s distinct; the rest are copies of the"
                          " same Message-ID) by %s authors in %s threads, dated %s to %s (%s without a"
                          " readable date).\n",
                          row_get (v, n, "messages"), row_get (v, n, "canonical"), row_get (v, n, "authors"),
                          row_get (v, n, "threads"), first ? first : "-", last ? last : "-",
                          row_get (v, n, "undated"));
  return TRUE;
}

/**
 * deja_write_statement:
 *
 * Writes, in Markdown, what an export is: how it was made, from which
 * sources (with their SHA-256), what was pseudonymised and redacted,
 * what was left out, and that pseudonymised data is still personal data.
 * Prints the error itself.
 */
gboolean
deja_write_statement (const char *path, Store *store, const DejaStatement *s)
{
  g_autoptr (GString) out = g_string_new ("# Data statement\n\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *when = g_date_time_format_iso8601 (now);
  g_autofree char *absolute = g_canonicalize_filename (s->db, NULL);
  Sources sources = { out, 0 };

  g_string_append_printf (out, "Made by deja %s on %s with:\n\n    %s\n\n", PACKAGE_VERSION, when, s->command);
  g_string_append (out, "## What this is\n\n");
  g_string_append_printf (out, "%s, written to %s: %s.\n\n", s->what, s->output ? s->output : "standard output",
                          s->counts ? s->counts : "see the file");
  g_string_append_printf (out, "From the deja database `%s`. ", absolute);
  if (!store_stats (store, STORE_STATS_TOTALS, FALSE, totals_row, out, &error))
    goto fail;
  g_string_append (out, "\nMessages are mailing-list or Usenet posts read from the archive files"
                        " below; deja keeps every message and flags what it could not read"
                        " (docs/schema.md).\n\n## Sources\n\n"
                        "| file | SHA-256 of its mbox text | messages | read by deja |\n|---|---|---|---|\n");
  if (!store_stats (store, STORE_STATS_FILES, FALSE, source_row, &sources, &error))
    goto fail;
  g_string_append (out, "\n## People\n\n");
  if (s->pseudonyms)
    {
      g_autofree char *key_id = pseudonym_key_id (s->pseudonyms->key);

      g_string_append_printf (out,
        "- Pseudonymised with a secret key (key id `%s`; the key is not in this file). Every"
        " author's name and address is replaced by a pseudonym, HMAC-SHA-256 of the author's"
        " primary address under the key: the same key gives the same pseudonyms, so exports"
        " made with it can be joined; without the key a pseudonym cannot be linked to an"
        " address.\n", key_id);
      g_string_append (out,
        "- Authors are people as deja grouped their addresses (automatic merges that are"
        " certain, and the decisions people made with `deja authors`).\n");
      if (s->text_redacted)
        g_string_append_printf (out,
          "- Message-IDs are replaced by keyed hashes (references still link up). In the"
          " text, %" G_GUINT64_FORMAT " e-mail addresses (also \"user at host\" forms) became"
          " `[address]` and %" G_GUINT64_FORMAT " telephone numbers became `[phone]`.\n"
          "- Not replaced: names and other details people wrote in the text itself (a"
          " signature, \"Ann Smith wrote:\" in a body, a home page).\n",
          s->pseudonyms->redacted.addresses, s->pseudonyms->redacted.phones);
    }
  else
    g_string_append (out, "- Not pseudonymised: names and addresses are as the archive has them.\n");
  if (s->no_archive_left_out >= 0)
    g_string_append_printf (out, "- %" G_GINT64_FORMAT " messages whose authors asked archives to leave them"
                            " out (`X-No-Archive: yes`) are %s.\n", s->no_archive_left_out,
                            s->no_archive_left_out > 0 ? "left out" : "left out (none were selected)");
  g_string_append (out,
    "\n## Warning\n\n"
    "Pseudonymised data is still personal data (GDPR Recital 26 and Art. 4(5); EDPB"
    " Guidelines 01/2025 on pseudonymisation). Whoever holds the key, or can link what people"
    " wrote back to them (a sentence searched on the web, a signature, a writing style), can"
    " re-identify them. Keep the key apart from the data, share the data only under an"
    " agreement that forbids re-identification, and publish aggregates, not posts (AoIR"
    " Internet Research: Ethical Guidelines 3.0, 2019).\n");
  if (deja_write_file (path, out->str, out->len) != DEJA_EXIT_OK)
    return FALSE;
  deja_note ("data statement written to '%s'", path);
  return TRUE;
fail:
  deja_error ("cannot write the data statement: %s", error->message);
  return FALSE;
}
