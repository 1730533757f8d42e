/* excerpt.c — lines of an archive around a line, read back by byte offset. */
#include "excerpt.h"
#include "charset.h"
#include "input.h"
#include "output.h"

#include <string.h>

/* Prints @context lines either side of the line at @offset of @path (its
 * line @line_no marked ">>"), each cut at 200 bytes and read as UTF-8. */
void
excerpt_print (FILE *out, const char *path, goffset offset, guint64 line_no, int context)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Input) input = input_open (path, &error);
  goffset p;
  int back = 0;

  if (input == NULL || (gsize) offset > input->len)
    {
      g_autoptr (GString) shown = g_string_new (NULL);

      output_terminal_text (shown, path, FALSE);
      fprintf (out, "    (cannot read '%s': %s)\n", shown->str, error ? error->message : "changed");
      return;
    }
  /* @offset starts its line; step back over whole lines. */
  for (p = offset; p > 0 && back < context; back++)
    {
      p--;                                  /* the previous line's '\n' */
      while (p > 0 && input->data[p - 1] != '\n')
        p--;
    }
  for (gint64 n = (gint64) line_no - back; (gsize) p < input->len && n <= (gint64) line_no + context; n++)
    {
      const char *nl = memchr (input->data + p, '\n', input->len - p);
      gsize len = nl ? (gsize) (nl - input->data - p) : input->len - p;
      g_autofree char *text = charset_to_utf8 (input->data + p, MIN (len, 200), NULL, NULL);
      g_autoptr (GString) shown = g_string_new (NULL);

      g_strchomp (text);
      output_terminal_text (shown, text, FALSE);   /* archive lines may hold escapes */
      fprintf (out, "  %s %6" G_GINT64_FORMAT " | %s\n", n == (gint64) line_no ? ">>" : "  ", n, shown->str);
      if (nl == NULL)
        break;
      p = nl - input->data + 1;
    }
}

