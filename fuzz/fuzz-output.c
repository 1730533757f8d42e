/* fuzz-output.c — what a stranger's bytes become in deja's outputs.
 *
 * The input is any text (a name, a subject, a file name, an archive
 * member's name).  Checked, for every input:
 *   - input_member_name(): relative, no empty, "." or ".." component;
 *   - output_xml_text(), written by libxml2 as an attribute and as text:
 *     a document libxml2 reads back, holding that text;
 *   - output_json_string(): valid UTF-8, no raw control character, and it
 *     decodes to the valid-UTF-8 form of the input;
 *   - output_csv_field() and output_tsv_field(): read back to the same
 *     text; with --spreadsheet-safe, no cell a spreadsheet takes for a
 *     formula;
 *   - output_terminal_text(): no escape sequence (no C0 but tab and line
 *     end, no DEL, no C1), valid UTF-8.
 */
#include "fuzz.h"
#include "input.h"
#include "output.h"

#include <libxml/parser.h>
#include <libxml/xmlwriter.h>
#include <string.h>

static void
check_member_name (const char *text)
{
  g_autofree char *name = input_member_name (text);
  g_auto (GStrv) parts = g_strsplit (name, "/", -1);

  g_assert_true (name[0] != '\0' && name[0] != '/');
  for (char **p = parts; *p; p++)
    g_assert_true (**p != '\0' && strcmp (*p, ".") != 0 && strcmp (*p, "..") != 0);
}

static void
check_xml (const char *text)
{
  g_autofree char *clean = output_xml_text (text);
  xmlBufferPtr buffer = xmlBufferCreate ();
  xmlTextWriterPtr w = xmlNewTextWriterMemory (buffer, 0);
  xmlDocPtr doc;

  g_assert_true (g_utf8_validate (clean, -1, NULL));
  g_assert_true (xmlTextWriterStartDocument (w, NULL, "UTF-8", NULL) >= 0 &&
                 xmlTextWriterStartElement (w, BAD_CAST "a") >= 0 &&
                 xmlTextWriterWriteAttribute (w, BAD_CAST "x", BAD_CAST clean) >= 0 &&
                 xmlTextWriterWriteString (w, BAD_CAST clean) >= 0 &&
                 xmlTextWriterEndDocument (w) >= 0);
  xmlFreeTextWriter (w);
  doc = xmlReadMemory ((const char *) xmlBufferContent (buffer), xmlBufferLength (buffer), NULL, "UTF-8",
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE);
  g_assert_nonnull (doc);
  xmlFreeDoc (doc);
  xmlBufferFree (buffer);
}

/* A JSON string as output_json_string() writes it, decoded. */
static char *
json_decode (const char *json)
{
  GString *out = g_string_new (NULL);
  const char *p = json;

  g_assert_true (*p++ == '"');
  while (*p != '"')
    {
      g_assert_true ((guchar) *p >= 0x20 && *p != 0x7f);
      if (*p != '\\')
        {
          g_string_append_c (out, *p++);
          continue;
        }
      p++;
      switch (*p++)
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            char hex[5] = { p[0], p[1], p[2], p[3], 0 };

            g_string_append_unichar (out, (gunichar) g_ascii_strtoull (hex, NULL, 16));
            p += 4;
            break;
          }
        default: g_assert_not_reached ();
        }
    }
  g_assert_true (p[1] == '\0');
  return g_string_free (out, FALSE);
}

static void
check_json (const char *text, const char *valid)
{
  g_autoptr (GString) json = g_string_new (NULL);
  g_autofree char *back = NULL;

  output_json_string (json, text);
  g_assert_true (g_utf8_validate (json->str, json->len, NULL));
  for (const char *p = json->str; *p; p = g_utf8_next_char (p))
    g_assert_false (g_utf8_get_char (p) >= 0x80 && g_utf8_get_char (p) <= 0x9f);
  back = json_decode (json->str);
  g_assert_cmpstr (back, ==, valid);
}

/* One CSV field as RFC 4180 reads it. */
static char *
csv_decode (const char *csv)
{
  GString *out = g_string_new (NULL);

  if (*csv != '"')
    {
      g_assert_null (strpbrk (csv, ",\"\r\n"));
      return g_string_free (g_string_append (out, csv), FALSE);
    }
  for (const char *p = csv + 1; *p; p++)
    {
      if (*p == '"')
        {
          if (p[1] == '\0')
            break;
          g_assert_true (p[1] == '"');
          p++;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static void
check_csv_tsv (const char *text, const char *valid)
{
  g_autoptr (GString) csv = g_string_new (NULL), tsv = g_string_new (NULL), safe = g_string_new (NULL);
  g_autofree char *back = NULL, *safe_back = NULL;

  output_csv_field (csv, text);
  back = csv_decode (csv->str);
  g_assert_cmpstr (back, ==, valid);
  output_tsv_field (tsv, text);
  g_assert_null (strpbrk (tsv->str, "\t\n\r"));
  g_assert_cmpstr (output_tsv_unescape (tsv->str), ==, valid);
  output_csv_set_spreadsheet_safe (TRUE);
  output_csv_field (safe, text);
  output_csv_set_spreadsheet_safe (FALSE);
  safe_back = csv_decode (safe->str);
  if (safe_back[0] != '\0' && strchr ("=+-@\t\r", safe_back[0]) != NULL)
    {
      char *end;

      g_ascii_strtod (safe_back, &end);   /* only a plain number may stay */
      g_assert_true (end != safe_back && *end == '\0');
    }
}

static void
check_terminal (const char *text)
{
  g_autoptr (GString) shown = g_string_new (NULL);

  output_terminal_text (shown, text, TRUE);
  g_assert_true (g_utf8_validate (shown->str, shown->len, NULL));
  for (const char *p = shown->str; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_assert_true (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f)));
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);   /* to the first NUL */
  g_autofree char *owned = NULL;
  const char *valid = output_valid_utf8 (text, &owned);

  check_member_name (text);
  check_xml (text);
  check_json (text, valid);
  check_csv_tsv (text, valid);
  check_terminal (text);
  return 0;
}
