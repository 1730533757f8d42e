/* cmd-stats.c — deja stats --db DB: what the database holds, in numbers. */
#include "deja.h"
#include "output.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  gboolean json;
  GString *out;
  guint rows;
} Printer;

static gboolean
totals_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;

  if (p->json)
    {
      g_string_append (p->out, "  \"totals\": ");
      output_json_object (p->out, v, n);
      g_string_append (p->out, ",\n");
      return TRUE;
    }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (p->out, "%-12s %s\n", v[i].name, v[i].text ? v[i].text : "-");
  return TRUE;
}

static gboolean
list_row (const StoreValue *v, guint n, gpointer data)
{
  Printer *p = data;

  if (p->json)
    {
      g_string_append (p->out, p->rows ? ",\n    " : "\n    ");
      output_json_object (p->out, v, n);
    }
  else
    {
      g_string_append (p->out, "  ");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (p->out, i + 1 < n ? "%-30s " : "%s\n", v[i].text ? v[i].text : "-");
    }
  p->rows++;
  return TRUE;
}

static gboolean
section (Store *store, Printer *p, StoreStats query, gboolean by_month, const char *name,
         const char *title, GError **error)
{
  gboolean ok;

  p->rows = 0;
  if (p->json)
    g_string_append_printf (p->out, "  \"%s\": [", name);
  else
    g_string_append_printf (p->out, "\n%s\n", title);
  ok = store_stats (store, query, by_month, list_row, p, error);
  if (p->json)
    g_string_append (p->out, p->rows ? "\n  ]" : "]");
  else if (p->rows == 0)
    g_string_append (p->out, "  (none)\n");
  return ok;
}

int
cmd_stats (int argc, char **argv)
{
  g_autofree char *db = NULL, *format = NULL;
  gboolean by_month = FALSE;
  int status;
  GOptionEntry entries[] = {
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "database file", "DB" },
    { "by-month", 0, 0, G_OPTION_ARG_NONE, &by_month, "count per month instead of per year", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "output format (default: table)", "table|json" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— what the database holds");
  g_autoptr (GError) error = NULL;
  g_autoptr (Store) store = NULL;
  Printer p = { FALSE, NULL, 0 };
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Totals (files, messages, canonical messages and duplicates, authors, threads, date range,\n"
    "messages without a readable date, newsgroups), messages per newsgroup and year (or\n"
    "month; canonical messages only), and separator-log lines by verdict.");
  if (!deja_parse_options (context, &argc, &argv, &status))
    return status;
  if ((status = deja_check_db_args (context, db, argc, argv)) != 0)
    return status;
  if (format && strcmp (format, "table") && strcmp (format, "json"))
    return deja_usage_error (context, "--format must be table or json");
  if ((store = deja_open_store_to_read (db)) == NULL)
    return DEJA_EXIT_FAILED;
  p.json = format && strcmp (format, "json") == 0;
  p.out = g_string_new (p.json ? "{\n" : "");
  ok = store_stats (store, STORE_STATS_TOTALS, FALSE, totals_row, &p, &error) &&
       section (store, &p, STORE_STATS_BY_GROUP, by_month, "by_newsgroup",
                by_month ? "messages per newsgroup and month:" : "messages per newsgroup and year:",
                &error);
  if (ok && p.json)
    g_string_append (p.out, ",\n");
  ok = ok && section (store, &p, STORE_STATS_LOG, FALSE, "separator_log",
                      "separator log, lines by verdict:", &error);
  if (p.json)
    g_string_append (p.out, "\n}\n");
  if (ok)
    fputs (p.out->str, stdout);
  g_string_free (p.out, TRUE);
  if (!ok)
    {
      deja_error ("%s", error->message);
      return DEJA_EXIT_FAILED;
    }
  return DEJA_EXIT_OK;
}
