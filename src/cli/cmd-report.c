/* cmd-report.c — deja report --db DB --out FILE.html: the corpus on one page.
 *
 * One self-contained HTML file: styles inline, every chart an SVG drawn
 * by cairo and embedded as a data: URL (each its own document, so their
 * glyph ids cannot collide), no script and nothing fetched.  It opens
 * offline and can be mailed to a colleague.
 */
#include "accounting.h"
#include "charts.h"
#include "deja.h"
#include "rows.h"
#include "output.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

#define FILES_SHOWN 200   /* source files listed; the rest are counted */

static const char style[] =
  "body{font-family:'DejaVu Sans',system-ui,sans-serif;margin:2em auto;max-width:960px;"
  "color:#1a1a1a;line-height:1.45;padding:0 1em}"
  "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;"
  "border-bottom:1px solid #ddd;padding-bottom:.2em}"
  ".provenance{color:#555;font-size:.9em}"
  "table{border-collapse:collapse;font-size:.9em;margin:.5em 0}"
  "th,td{padding:.2em .8em .2em 0;text-align:left;vertical-align:top}"
  "td.n{text-align:right;font-variant-numeric:tabular-nums}"
  "th{border-bottom:1px solid #bbb}tr+tr td{border-top:1px solid #eee}"
  "table.totals th{border-bottom:none;font-weight:normal;padding-right:2em}"
  "figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}"
  "figcaption{color:#555;font-size:.85em}code{font-size:.95em}"
  ".path{word-break:break-all}.hash{font-family:monospace;font-size:.85em}";

typedef struct {
  GString *html;
  guint rows;
  const char *const *numeric;   /* columns aligned right */
} Table;

static void
escaped (GString *out, const char *text)
{
  g_autofree char *valid = NULL;
  g_autofree char *s = g_markup_escape_text (output_valid_utf8 (text ? text : "", &valid), -1);

  g_string_append (out, s);
}

static gboolean
table_row (const StoreValue *v, guint n, gpointer data)
{
  Table *t = data;

  if (t->rows == 0)
    {
      g_string_append (t->html, "<table>\n<tr>");
      for (guint i = 0; i < n; i++)
        {
          g_string_append (t->html, "<th>");
          escaped (t->html, v[i].name);
          g_string_append (t->html, "</th>");
        }
      g_string_append (t->html, "</tr>\n");
    }
  g_string_append (t->html, "<tr>");
  for (guint i = 0; i < n; i++)
    {
      const char *cls = v[i].number ? " class=\"n\"" :
                        strcmp (v[i].name, "path") == 0 ? " class=\"path\"" :
                        strcmp (v[i].name, "sha256") == 0 ? " class=\"hash\"" : "";
      g_string_append_printf (t->html, "<td%s>", cls);
      escaped (t->html, v[i].text ? v[i].text : "");
      g_string_append (t->html, "</td>");
    }
  g_string_append (t->html, "</tr>\n");
  return ++t->rows < FILES_SHOWN;
}

static gboolean
totals_rows (const StoreValue *v, guint n, gpointer data)
{
  GString *html = data;
  static const char *const labels[][2] = {
    { "files", "archive files" }, { "messages", "messages (every copy)" },
    { "canonical", "distinct messages" }, { "duplicates", "copies of a message seen before" },
    { "authors", "sender addresses" }, { "threads", "threads" },
    { "first_date", "first date" }, { "last_date", "last date" },
    { "undated", "messages without a readable date" }, { "newsgroups", "newsgroups" },
  };

  g_string_append (html, "<table class=\"totals\">\n");
  for (guint i = 0; i < n; i++)
    {
      const char *label = v[i].name;

      for (guint l = 0; l < G_N_ELEMENTS (labels); l++)
        if (strcmp (labels[l][0], v[i].name) == 0)
          label = labels[l][1];
      g_string_append (html, "<tr><th>");
      escaped (html, label);
      g_string_append_printf (html, "</th><td%s>", v[i].number ? " class=\"n\"" : "");
      escaped (html, v[i].text ? v[i].text : "–");
      g_string_append (html, "</td></tr>\n");
    }
  g_string_append (html, "</table>\n");
  return TRUE;
}

/* A chart's section; in a deja built without cairo, the section says
 * that its chart is not drawn, and why. */
static gboolean
figure (GString *html, Store *store, Chart chart, const char *caption, GError **error)
{
  g_autoptr (GBytes) svg = NULL;
  g_autofree char *b64 = NULL;
  gsize len;
  const guchar *data;

  if (!deja_feature_available (DEJA_FEATURE_CAIRO))
    {
      g_string_append_printf (html, "<section id=\"%s\">\n<h2>", chart_name (chart));
      escaped (html, chart_title (chart));
      g_string_append_printf (html, "</h2>\n<p class=\"missing\">Not drawn: this deja was built"
                              " without %s.</p>\n</section>\n", deja_feature_name (DEJA_FEATURE_CAIRO));
      return TRUE;
    }
  if ((svg = chart_render (store, chart, PLOT_SVG, 900, 0, FALSE, error)) == NULL)
    return FALSE;
  data = g_bytes_get_data (svg, &len);
  b64 = g_base64_encode (data, len);
  g_string_append_printf (html, "<section id=\"%s\">\n<h2>", chart_name (chart));
  escaped (html, chart_title (chart));
  g_string_append_printf (html, "</h2>\n<figure><img class=\"chart\" data-chart=\"%s\" alt=\"",
                          chart_name (chart));
  escaped (html, chart_title (chart));
  g_string_append_printf (html, "\" src=\"data:image/svg+xml;base64,%s\">\n<figcaption>", b64);
  escaped (html, caption);
  g_string_append_printf (html, " (<code>deja plot %s</code> draws it alone.)</figcaption></figure>\n"
                          "</section>\n", chart_name (chart));
  return TRUE;
}

static gboolean
section_table (GString *html, Store *store, StoreStats query, const char *id, const char *title,
               const char *intro, GError **error)
{
  Table t = { html, 0, NULL };

  g_string_append_printf (html, "<section id=\"%s\">\n<h2>", id);
  escaped (html, title);
  g_string_append (html, "</h2>\n<p>");
  escaped (html, intro);
  g_string_append (html, "</p>\n");
  if (!store_stats (store, query, FALSE, table_row, &t, error))
    return FALSE;
  g_string_append (html, t.rows ? "</table>\n" : "<p>(none)</p>\n");
  g_string_append (html, "</section>\n");
  return TRUE;
}

/* ---- the accounting of the largest groups (deja groups) ---- */

#define GROUPS_SHOWN 5

static const char *const group_columns[] = {
  "group", "period", "messages", "authors", "new_authors", "returning_authors", "lost_authors",
  "threads", "unanswered_share", "median_hours_to_first_reply", "crossposts",
};

static gboolean
keep_group_row (const StoreValue *v, guint n, gpointer data)
{
  g_ptr_array_add (data, row_copy_new (v, n, NULL, NULL));
  return TRUE;
}

static gboolean
groups_section (GString *html, Store *store, GError **error)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) row_copy_free);
  g_autoptr (GHashTable) totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) largest = g_ptr_array_new ();
  AccountingOptions options = { .by = ACCOUNTING_BY_YEAR };
  Table t = { html, 0, NULL };
  GHashTableIter it;
  gpointer key, value;

  if (!accounting_run (store, &options, keep_group_row, all, NULL, error))
    return FALSE;
  for (guint i = 0; i < all->len; i++)
    {
      const RowCopy *r = g_ptr_array_index (all, i);
      const char *group = row_get (r->values, r->n, "group");
      gint64 messages = g_ascii_strtoll (row_get (r->values, r->n, "messages"), NULL, 10);
      gpointer old = g_hash_table_lookup (totals, group);

      g_hash_table_insert (totals, g_strdup (group), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + messages));
    }
  g_hash_table_iter_init (&it, totals);
  while (g_hash_table_iter_next (&it, &key, &value))
    g_ptr_array_add (largest, key);
  /* most messages first, then by name */
  for (guint i = 1; i < largest->len; i++)
    for (guint k = i; k > 0; k--)
      {
        const char *a = largest->pdata[k - 1], *b = largest->pdata[k];
        gsize ta = GPOINTER_TO_SIZE (g_hash_table_lookup (totals, a));
        gsize tb = GPOINTER_TO_SIZE (g_hash_table_lookup (totals, b));

        if (ta > tb || (ta == tb && strcmp (a, b) <= 0))
          break;
        largest->pdata[k - 1] = (gpointer) b, largest->pdata[k] = (gpointer) a;
      }
  g_ptr_array_set_size (largest, MIN (largest->len, GROUPS_SHOWN));
  g_string_append (html, "<section id=\"groups\">\n<h2>Groups year by year</h2>\n<p>");
  escaped (html, "The social accounting of the largest groups (deja groups has every group, "
                 "period and measure; docs/groups.md defines each): distinct messages, their "
                 "authors, those new to the group, back from the year before, or not seen after "
                 "it, threads started, the share of them nobody answered, the median hours to a "
                 "first reply, and messages cross-posted elsewhere.");
  g_string_append (html, "</p>\n");
  for (guint g = 0; g < largest->len; g++)
    for (guint i = 0; i < all->len; i++)
      {
        const RowCopy *r = g_ptr_array_index (all, i);
        StoreValue shown[G_N_ELEMENTS (group_columns)];

        if (strcmp (row_get (r->values, r->n, "group"), largest->pdata[g]) != 0)
          continue;
        for (guint c = 0; c < G_N_ELEMENTS (group_columns); c++)
          for (guint k = 0; k < r->n; k++)
            if (strcmp (r->values[k].name, group_columns[c]) == 0)
              shown[c] = r->values[k];
        table_row (shown, G_N_ELEMENTS (group_columns), &t);
      }
  g_string_append (html, t.rows ? "</table>\n" : "<p>(no group)</p>\n");
  g_string_append (html, "</section>\n");
  return TRUE;
}

static gboolean
write_report (Store *store, const char *db, const char *title, const char *command, GString *html,
              GError **error)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *when = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *abs = g_canonicalize_filename (db, NULL);
  g_autofree char *name = g_path_get_basename (db);

  g_string_append (html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"generator\" content=\"deja " PACKAGE_VERSION "\">\n<title>");
  escaped (html, title ? title : name);
  g_string_append_printf (html, " — deja report</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>",
                          style);
  escaped (html, title ? title : name);
  g_string_append (html, "</h1>\n<p class=\"provenance\">Made by deja " PACKAGE_VERSION " on ");
  escaped (html, when);
  g_string_append (html, " from the database <code>");
  escaped (html, abs);
  g_string_append (html, "</code>, with <code>");
  escaped (html, command);
  g_string_append (html, "</code>.  Counts are of distinct messages (a cross-post or a second "
                         "copy once) unless a row says otherwise.</p>\n</header>\n"
                         "<section id=\"summary\">\n<h2>Summary</h2>\n");
  if (!store_stats (store, STORE_STATS_TOTALS, FALSE, totals_rows, html, error))
    return FALSE;
  g_string_append (html, "</section>\n");
  return figure (html, store, CHART_MESSAGES,
                 "Distinct messages with a readable date, per month and newsgroup (a message posted "
                 "to several groups counts in each); the six largest groups, the others summed.", error) &&
         figure (html, store, CHART_AUTHORS,
                 "Sender addresses that wrote in each month, and threads whose first message is "
                 "from that month.", error) &&
         figure (html, store, CHART_THREADS,
                 "How many threads have each size, on logarithmic axes: most threads are short; "
                 "the long tail holds the long discussions.", error) &&
         figure (html, store, CHART_POSTERS,
                 "The 25 sender addresses with the most distinct messages (the name each used "
                 "most).  One person under several addresses is counted once per address.",
                 error) &&
         figure (html, store, CHART_LANGUAGES,
                 "Distinct messages by the language CLD2 finds in their own text (code, URLs and "
                 "quotes left out); und: under 30 letters or no language found.  Reliable: CLD2 "
                 "was sure.  deja stats gives the languages per newsgroup and thread.", error) &&
         figure (html, store, CHART_NETWORK,
                 "Who replies to whom: one dot per author (its area grows with their messages), "
                 "one line per pair that exchanged replies (wider for more), placed by "
                 "Fruchterman and Reingold's layout (igraph); the eight most active are named. "
                 "deja network exports the whole network.", error) &&
         figure (html, store, CHART_ROLES,
                 "Authors by the role their replies give them (deja authors --roles, "
                 "docs/people.md): answer people reply in others' threads to people with few "
                 "ties, discussion people to people as connected as they are; fewer than five "
                 "messages tell no role.", error) &&
         groups_section (html, store, error) &&
         figure (html, store, CHART_CROSSPOSTS,
                 "Groups as dots (area: their messages), a line between two groups for the "
                 "messages posted to both (wider for more).  deja network --kind crosspost "
                 "exports it.", error) &&
         figure (html, store, CHART_DOMAINS,
                 "Distinct messages citing each of the six most cited domains in their own text, "
                 "per year (deja links lists every domain and link, with its Wayback Machine "
                 "copy).", error) &&
         section_table (html, store, STORE_STATS_LOG_REASONS, "separator-log", "Separator log",
                        "Lines where the splitter had to judge, by verdict and reason: "
                        "'accepted' separators lacked part of the evidence, 'rejected' lines "
                        "looked like separators and were kept as text, 'body' lines are where a "
                        "liberal parser would have split a message.  Review them with deja log "
                        "and deja review.", error) &&
         section_table (html, store, STORE_STATS_FILES, "sources", "Sources",
                        "Every archive file in the database, with the SHA-256 of its text "
                        "(for a compressed file, of the expanded text) when it was ingested.",
                        error) &&
         (g_string_append (html, "</body>\n</html>\n"), TRUE);
}

int
cmd_report (DejaRun *run, int argc, char **argv)
{
  g_autofree char *out = NULL, *title = NULL;
  int status;
  GOptionEntry entries[] = {
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the HTML file to write (- for standard output)", "FILE.html" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title, "the page's title (default: the database's file name)", "TEXT" },
    { NULL }
  };
  Store *store = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) html = g_string_new (NULL);
  g_autofree char *command = NULL;

  command = deja_command_line (argv);
  if (!deja_run_parse (run, "— the corpus on one HTML page", entries,
    "Writes one self-contained HTML page (no script, nothing fetched: it opens offline and\n"
    "can be sent as it is): the corpus in numbers, messages per month and newsgroup, authors\n"
    "and new threads per month, the thread size distribution, the most active authors, a\n"
    "picture of the reply network, authors by role, the accounting of the largest groups\n"
    "year by year, the cross-post network, the most cited domains per year, the separator\n"
    "log by reason, and every source file with\n"
    "its SHA-256.  The page records deja's version, the database and the date.  Each chart\n"
    "alone, as SVG or PNG: deja plot.",
    &argc, &argv, &status))
    return status;
  if (out == NULL)
    return deja_usage_error (run->context, "--out is required");
  if (!deja_run_open (run, &status))
    return status;
  store = run->store;
  store_stats_begin (store);
  if (!write_report (store, run->db, title, command, html, &error))
    {
      deja_error ("cannot make the report: %s", error->message);
      return DEJA_EXIT_FAILED;
    }
  store_stats_end (store);
  if ((status = deja_write_file (out, html->str, html->len)) != DEJA_EXIT_OK)
    return status;
  if (strcmp (out, "-") != 0)
    deja_note ("wrote '%s' (%" G_GSIZE_FORMAT " KiB)", out, html->len / 1024);
  return DEJA_EXIT_OK;
}
