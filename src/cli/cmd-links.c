/* cmd-links.c — deja links: the links cited in own text, and their
 * archived copies.
 *
 *   deja links --db DB [--by year|month|quarter] [--per-group] [--top N]
 *   deja links --db DB --urls
 *
 * docs/links.md.
 */
#include "deja.h"
#include "rows.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  RowWriter *writer;
  gboolean per_group, per_period;
  gint64 top;               /* 0: every domain */
  char *key;                /* the group and period of the rows being counted */
  gint64 in_key;
  gint64 rows;
} Printer;

/* Drops the group and period columns unless asked for; keeps the first
 * --top domains of each group and period. */
static gboolean
domain_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;
  StoreValue kept[16];
  guint k = 0;
  const char *group = row_get (v, n, "group"), *period = row_get (v, n, "period");
  g_autofree char *key = g_strdup_printf ("%s\x1f%s", group ? group : "", period ? period : "");

  if (g_strcmp0 (key, p->key) != 0)
    {
      g_free (p->key);
      p->key = g_steal_pointer (&key);
      p->in_key = 0;
    }
  if (p->top > 0 && p->in_key++ >= p->top)
    return TRUE;
  for (guint i = 0; i < n && k < G_N_ELEMENTS (kept); i++)
    if ((strcmp (v[i].name, "group") != 0 || p->per_group) &&
        (strcmp (v[i].name, "period") != 0 || p->per_period))
      kept[k++] = v[i];
  row_writer_add (p->writer, kept, k);
  p->rows++;
  return TRUE;
}

int
cmd_links (DejaRun *run, int argc, char **argv)
{
  g_autofree char *by = NULL;
  g_autoptr (GError) error = NULL;
  gboolean urls = FALSE, per_group = FALSE, ok;
  gint64 top = 0;
  Printer p = { 0 };
  int status;
  GOptionEntry entries[] = {
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, "a row per domain and period", "year|month|quarter" },
    { "per-group", 0, 0, G_OPTION_ARG_NONE, &per_group, "a row per domain and group", NULL },
    { "top", 0, 0, G_OPTION_ARG_INT64, &top, "the N most cited domains (of each group and period)", "N" },
    { "urls", 0, 0, G_OPTION_ARG_NONE, &urls, "every link with its message, date, author and Wayback address", NULL },
    { NULL }
  };

  if (!deja_run_parse (run, "— links cited in own text, and their archived copies", entries,
    "Links are found in own text only (a quoted link belongs to the message quoted): URLs\n"
    "of http, https, ftp, gopher, telnet, wais and nntp, '<URL:...>', and 'www.' without a\n"
    "scheme.  Without --urls, one row per cited domain (the registered domain, by the\n"
    "public suffix list; the host for an address): domain, messages (citing it), links,\n"
    "authors, first_date, last_date, most cited first.  --urls: message_id, message, date,\n"
    "author, url (as written), normalized, host, domain, wayback (the Wayback Machine's\n"
    "copy nearest the message's date: computed, never fetched).  docs/links.md.",
    &argc, &argv, &status))
    return status;
  if (by != NULL && strcmp (by, "year") != 0 && strcmp (by, "month") != 0 && strcmp (by, "quarter") != 0)
    return deja_usage_error (run->context, "--by must be year, month or quarter");
  if (urls && (by || per_group || top))
    return deja_usage_error (run->context, "--urls lists every link: --by, --per-group and --top count domains");
  if (top < 0)
    return deja_usage_error (run->context, "--top must be 1 or more");
  if (!deja_run_open (run, &status))
    return status;
  p = (Printer) { .writer = row_writer_new (run->format, stdout), .per_group = per_group,
                  .per_period = by != NULL, .top = top };
  if (urls)
    ok = store_links (run->store, STORE_LINKS_URLS, &run->filter_sql, NULL, FALSE, row_writer_add_func,
                      p.writer, &error);
  else
    ok = store_links (run->store, STORE_LINKS_DOMAINS, &run->filter_sql, by, per_group, domain_row, &p,
                      &error);
  p.rows = urls ? (gint64) row_writer_rows (p.writer) : p.rows;
  row_writer_finish (p.writer);
  g_free (p.key);
  if (!ok)
    {
      deja_error ("cannot read the links of '%s': %s", run->db, error->message);
      return DEJA_EXIT_FAILED;
    }
  deja_note ("%" G_GINT64_FORMAT " rows", p.rows);
  return DEJA_EXIT_OK;
}
