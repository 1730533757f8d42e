/* html.c — HTML mail parts to plain text, with libxml2's HTML parser.
 *
 * Old HTML mail is rarely well formed, so a real (recovering) parser reads
 * it, never regular expressions.  The renderer keeps what a reader sees:
 * text, with line breaks where block elements end, list items as "* ",
 * table cells separated by tabs, <pre> verbatim.  <blockquote> content is
 * prefixed with "> " so that quote removal (quote.c) treats HTML replies
 * like plain ones.  Scripts, styles and titles are dropped; entities
 * are decoded by the parser.
 */
#include "html.h"

#include <libxml/HTMLparser.h>
#include <string.h>

typedef struct {
  GString *out;
  guint pending_breaks;  /* newlines owed before the next text */
  gboolean space;        /* a collapsed space is owed */
  guint pre;             /* depth of <pre> */
  guint quote;           /* depth of <blockquote> */
  gboolean line_start;   /* nothing visible on this line yet */
} Renderer;

/* Call once before parsing on several threads. */
void
html_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      xmlInitParser ();
      g_once_init_leave (&done, 1);
    }
}

static gboolean
name_is (const xmlNode *node, const char *const *names)
{
  for (; *names; names++)
    if (g_ascii_strcasecmp ((const char *) node->name, *names) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_hidden (const xmlNode *node)
{
  static const char *const hidden[] = { "script", "style", "title", "noscript",
                                        "template", "object", "iframe", NULL };
  return name_is (node, hidden);
}

/* Elements after which text continues on a new line (two for paragraphs). */
static guint
block_breaks (const xmlNode *node)
{
  static const char *const paragraph[] = { "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                                           "blockquote", "table", "ul", "ol", "dl", "hr", NULL };
  static const char *const line[] = { "div", "li", "tr", "dt", "dd", "address", "center",
                                      "form", "section", "article", "header", "footer",
                                      "body", "html", "caption", NULL };

  if (name_is (node, paragraph))
    return 2;
  if (name_is (node, line))
    return 1;
  return 0;
}

static void
owe_breaks (Renderer *r, guint n)
{
  r->pending_breaks = MAX (r->pending_breaks, n);
  r->space = FALSE;
}

static void
quote_prefix (Renderer *r)
{
  for (guint i = 0; i < r->quote; i++)
    g_string_append (r->out, "> ");
  r->line_start = TRUE;
}

static void
new_line (Renderer *r)
{
  g_string_append_c (r->out, '\n');
  quote_prefix (r);
}

/* Emits owed line breaks (blank lines stay blank, unprefixed); none at
 * the start of the text. */
static void
emit_breaks (Renderer *r)
{
  if (r->out->len > 0)
    {
      for (guint i = 1; i < r->pending_breaks; i++)
        g_string_append_c (r->out, '\n');
      if (r->pending_breaks)
        new_line (r);
    }
  else
    quote_prefix (r);
  r->pending_breaks = 0;
}

static void
emit_char (Renderer *r, char c)
{
  g_string_append_c (r->out, c);
  r->line_start = FALSE;
}

static void
emit_text (Renderer *r, const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (r->pre)
        {
          emit_breaks (r);
          if (*p == '\n')
            new_line (r);
          else if (*p != '\r')
            emit_char (r, *p);
          continue;
        }
      if (g_ascii_isspace (*p))
        {
          r->space = TRUE;
          continue;
        }
      if (r->pending_breaks || r->out->len == 0)
        emit_breaks (r);
      else if (r->space && !r->line_start)
        emit_char (r, ' ');
      r->space = FALSE;
      emit_char (r, *p);
    }
}

/* Opens @node: what comes before its children.  Returns whether its
 * children are read (not for hidden elements and <br>). */
static gboolean
enter_element (Renderer *r, const xmlNode *node)
{
  guint breaks = block_breaks (node);

  if (is_hidden (node))
    return FALSE;
  if (g_ascii_strcasecmp ((const char *) node->name, "br") == 0)
    {
      r->pending_breaks++;
      r->space = FALSE;
      return FALSE;
    }
  if (breaks)
    owe_breaks (r, breaks);
  if (g_ascii_strcasecmp ((const char *) node->name, "li") == 0)
    {
      emit_breaks (r);
      g_string_append (r->out, "* ");
      r->line_start = TRUE;
    }
  else if (g_ascii_strcasecmp ((const char *) node->name, "td") == 0 ||
           g_ascii_strcasecmp ((const char *) node->name, "th") == 0)
    {
      if (!r->line_start && !r->pending_breaks)
        emit_char (r, '\t');
      r->space = FALSE;
    }
  r->pre += g_ascii_strcasecmp ((const char *) node->name, "pre") == 0;
  r->quote += g_ascii_strcasecmp ((const char *) node->name, "blockquote") == 0;
  return TRUE;
}

/* Closes @node, whose children were read. */
static void
leave_element (Renderer *r, const xmlNode *node)
{
  guint breaks = block_breaks (node);

  r->pre -= g_ascii_strcasecmp ((const char *) node->name, "pre") == 0;
  if (g_ascii_strcasecmp ((const char *) node->name, "blockquote") == 0)
    {
      owe_breaks (r, 2);
      r->quote--;
    }
  else if (breaks)
    owe_breaks (r, breaks);
}

/* Renders @first and its siblings, and everything under them, in document
 * order without recursion: AOL-era mail leaves one <FONT> open a line,
 * and a tree thousands of elements deep must not cost a stack frame per
 * level. */
static void
render (Renderer *r, xmlNode *first)
{
  xmlNode *top = first->parent;

  for (xmlNode *n = first; n != NULL;)
    {
      gboolean down = FALSE;

      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
        emit_text (r, (const char *) n->content);
      else if (n->type == XML_ELEMENT_NODE)
        down = enter_element (r, n);
      if (down && n->children != NULL)
        {
          n = n->children;
          continue;
        }
      if (down)
        leave_element (r, n);
      /* the next node: a sibling, or the sibling of the nearest ancestor
       * that has one (closing the ancestors on the way) */
      while (n != NULL && n->next == NULL)
        {
          n = n->parent;
          if (n == top)
            return;
          leave_element (r, n);
        }
      if (n != NULL)
        n = n->next;
    }
}

/**
 * html_to_text:
 * @html: (array length=len): an HTML document or fragment, in UTF-8
 * @len: its length
 * @cut: (out) (optional): whether the parser stopped before the end (the
 *   text after that point is missing)
 *
 * libxml2 stops at 256 nested elements unless told otherwise (mail that
 * leaves a <FONT> open on every line lost its text after line 254):
 * XML_PARSE_HUGE lifts that limit; whatever else stops it is said in @cut.
 *
 * Returns: (transfer full): the text a reader would see, UTF-8, ending
 *   in one newline unless empty
 */
char *
html_to_text (const char *html, gsize len, gboolean *cut)
{
  Renderer r = { g_string_sized_new (len / 2 + 16), 0, FALSE, 0, 0, TRUE };
  htmlParserCtxtPtr ctxt;
  htmlDocPtr doc = NULL;
  xmlNode *root;

  html_init ();
  if (cut)
    *cut = FALSE;
  ctxt = htmlNewParserCtxt ();
  if (ctxt != NULL)
    {
      doc = htmlCtxtReadMemory (ctxt, html, (int) MIN (len, (gsize) G_MAXINT), NULL, "UTF-8",
                                HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | XML_PARSE_HUGE);
      /* a parser that halted (xmlHaltParser) reads no further */
      if (cut)
        *cut = ctxt->disableSAX != 0 || len > (gsize) G_MAXINT;
      htmlFreeParserCtxt (ctxt);
    }
  if (doc != NULL && (root = xmlDocGetRootElement (doc)) != NULL)
    render (&r, root);
  if (doc != NULL)
    xmlFreeDoc (doc);
  g_strchomp (r.out->str);
  r.out->len = strlen (r.out->str);
  if (r.out->len)
    g_string_append_c (r.out, '\n');
  return g_string_free (r.out, FALSE);
}
