/* mbox.c — the strict mbox splitter.
 *
 * Liberal parsers start a message at every line beginning "From ".  This
 * one walks the buffer line by line and stops only at "From " lines
 * (candidates); each candidate is judged by its shape (envelope.c) and by
 * its context: a blank line before it (B), a header block after it (H),
 * whether it sits inside a MIME multipart of the current message whose
 * closing boundary comes later (M), and whether a declared length agrees
 * (L).  docs/splitter.md is the rule; the decision table is judge().
 *
 * The splitter is pure: it reads a caller-owned buffer (usually an mmap of
 * the archive), never copies it and never allocates per line.  Messages
 * come out as spans; every line that needed judgement comes out as a log
 * entry.  Body lines cost one memchr() each, so a scan runs close to the
 * speed of a bare search for "\nFrom ".
 */
#include "mbox.h"
#include "parsers-private.h"

#include <string.h>

G_DEFINE_QUARK (mbox-error-quark, mbox_error)

/* A header block longer than this is not a header block: it bounds the
 * work spent on a candidate followed by megabytes of "name: value" text. */
#define MAX_HEADER_BLOCK (1024 * 1024)

/* How far ahead a closing MIME boundary is looked for (the M evidence). */
#define MIME_LOOKAHEAD ((gsize) 64 * 1024 * 1024)

/* RFC 2046 limits a boundary to 70 characters; archives exceed it a little. */
#define MAX_BOUNDARY 200

typedef struct {
  gboolean block;          /* a well-formed header block */
  guint n_fields;
  guint n_standard;        /* fields from the standard list */
  goffset body;            /* first byte after the terminating blank line */
  guint64 lines;           /* lines consumed, terminating blank line included */
  gboolean multipart;
  const char *boundary;    /* into the buffer; not unquoted-escaped */
  gsize boundary_len;
  gint64 content_length;   /* -1 when not declared */
  gint64 body_lines;       /* Lines:, -1 when not declared */
} HeaderBlock;

typedef struct {
  goffset offset;
  gsize envelope_length;
  guint64 line_no;
  MboxShape shape;
  MboxReason reasons;
  gboolean adjacent;       /* R + strong header block, no blank line before */
  HeaderBlock hb;
  goffset headers;
  guint64 body_line_no;
  /* M evidence, computed once per message on the first candidate. */
  gboolean mime_searched;
  goffset mime_until;      /* how far it reached */
  goffset closing;         /* closing boundary line, or -1 */
  goffset last_declaring;  /* last envelope in [first candidate, closing) that
                            * declares the same boundary, or -1 */
} Message;

struct _MboxSplitter {
  const char *buf;
  gsize len;
  MboxSplitFlags flags;
  gboolean started;
  gboolean have_current;
  Message current;
  goffset pos;             /* start of the next line to read */
  guint64 line_no;         /* line number of pos */
  GArray *log;             /* of MboxLogEntry */
  GHashTable *decisions;   /* line number -> MboxDecision, or NULL */
  MboxScanFunc scanned;    /* told as a long message is read */
  gpointer scanned_data;
  gboolean single;         /* one message: nothing after the start splits */
  const goffset *bounds;   /* message starts given by the container, or NULL */
  gsize n_bounds;
  gsize next_bound;
};

/* A message this long tells its reader how far the scan has come. */
#define SCAN_REPORT_STEP ((goffset) 64 * 1024 * 1024)

/* The next '\n' at or after @p, or NULL.  Long stretches are searched in
 * steps, telling the scan function how far the scan has come. */
static const char *
find_newline (MboxSplitter *s, goffset p, goffset *reported)
{
  while ((gsize) p < s->len)
    {
      gsize n = MIN (s->len - p, (gsize) SCAN_REPORT_STEP);
      const char *nl = memchr (s->buf + p, '\n', n);

      if (s->scanned && p - *reported >= SCAN_REPORT_STEP)
        {
          s->scanned (p, s->scanned_data);
          *reported = p;
        }
      if (nl != NULL || s->scanned == NULL)
        return nl ? nl : memchr (s->buf + p + n, '\n', s->len - p - n);
      p += n;
    }
  return NULL;
}

/**
 * mbox_splitter_set_decisions:
 * @decisions: (nullable) (transfer none): 1-based line number (as
 *   GSIZE_TO_POINTER) -> MboxDecision (as GINT_TO_POINTER); the splitter
 *   keeps a reference
 *
 * Applies people's decisions: a "From " line decided "split" starts a
 * message whatever the rule says, one decided "no-split" is body text.
 * Every decided line is logged, with the reason "reviewed".
 */
void
mbox_splitter_set_decisions (MboxSplitter *s, GHashTable *decisions)
{
  if (decisions)
    g_hash_table_ref (decisions);
  if (s->decisions)
    g_hash_table_unref (s->decisions);
  s->decisions = decisions;
}

static MboxDecision
decision_for (const MboxSplitter *s, guint64 line_no)
{
  return s->decisions ? GPOINTER_TO_INT (g_hash_table_lookup (s->decisions, GSIZE_TO_POINTER (line_no)))
                      : MBOX_DECISION_NONE;
}

/**
 * mbox_splitter_set_scan_func:
 * @func: (nullable): called with the offset reached, every 64 MiB, while
 *   one call to mbox_splitter_next() reads through a very long message
 *
 * Lets the owner of a mapped buffer drop the pages behind the scan: all
 * of a multi-gigabyte message need not be resident at once.
 */
void
mbox_splitter_set_scan_func (MboxSplitter *s, MboxScanFunc func, gpointer data)
{
  s->scanned = func;
  s->scanned_data = data;
}

/**
 * mbox_splitter_new:
 * @buf: (transfer none): the archive; must outlive the splitter
 * @len: its length
 * @flags: %MBOX_SPLIT_FORCE to accept a file that does not begin with a
 *   separator (the text before the first one becomes a message)
 *
 * Returns: (transfer full): a splitter positioned at the start of @buf
 */
MboxSplitter *
mbox_splitter_new (const char *buf, gsize len, MboxSplitFlags flags)
{
  MboxSplitter *s = g_new0 (MboxSplitter, 1);

  g_return_val_if_fail (buf != NULL || len == 0, NULL);
  s->buf = buf;
  s->len = len;
  s->flags = flags;
  s->line_no = 1;
  s->log = g_array_new (FALSE, FALSE, sizeof (MboxLogEntry));
  return s;
}

/**
 * mbox_splitter_set_bounds:
 * @starts: (array length=n) (transfer none): the offset of every message,
 *   ascending, each at a line's start; must outlive the splitter
 * @n: how many
 *
 * For a container that knows where its messages are (a public-inbox
 * epoch: one message per commit): the spans are exactly these, nothing
 * is judged or split, and each message is read as one without an
 * envelope.  Before the first mbox_splitter_next() only.
 */
void
mbox_splitter_set_bounds (MboxSplitter *s, const goffset *starts, gsize n)
{
  g_return_if_fail (!s->started);
  s->bounds = starts;
  s->n_bounds = n;
  s->single = TRUE;
}

/**
 * mbox_splitter_is_single:
 *
 * Returns: whether the input is read as one message (MBOX_SPLIT_SINGLE,
 *   or a file that opens with a header block and no envelope); known once
 *   mbox_splitter_next() returned the first message
 */
gboolean
mbox_splitter_is_single (MboxSplitter *s)
{
  return s->single;
}

/**
 * mbox_splitter_start_at:
 * @offset: the offset of a line of the buffer
 * @line_no: its line number (1-based)
 *
 * Splits from @offset on, as if the buffer began there (an append resumes
 * at a separator it judged before).  Before the first
 * mbox_splitter_next() only.
 */
void
mbox_splitter_start_at (MboxSplitter *s, goffset offset, guint64 line_no)
{
  g_return_if_fail (!s->started && offset >= 0 && (gsize) offset <= s->len);
  g_return_if_fail (offset == 0 || s->buf[offset - 1] == '\n');
  s->pos = offset;
  s->line_no = line_no;
}

void
mbox_splitter_free (MboxSplitter *s)
{
  if (s == NULL)
    return;
  if (s->decisions)
    g_hash_table_unref (s->decisions);
  g_array_unref (s->log);
  g_free (s);
}

/* End of the line starting at @p (the LF, or the end of the buffer). */
static inline goffset
line_end (const MboxSplitter *s, goffset p)
{
  const char *nl = memchr (s->buf + p, '\n', s->len - p);

  return nl ? nl - s->buf : (goffset) s->len;
}

/* Length of the line [p, end) without a trailing CR. */
static inline gsize
text_length (const MboxSplitter *s, goffset p, goffset end)
{
  if (end > p && s->buf[end - 1] == '\r')
    return end - p - 1;
  return end - p;
}

static inline goffset
next_line (const MboxSplitter *s, goffset end)
{
  return end < (goffset) s->len ? end + 1 : (goffset) s->len;
}

/* @s (of @len bytes) is @word (a literal), in any case: the lengths are
 * compared first, with no strlen() (this runs on every header line). */
#define SPAN_IS(s, len, word) \
  ((len) == sizeof (word) - 1 && g_ascii_strncasecmp ((s), (word), sizeof (word) - 1) == 0)

/* Standard fields: enough, after a weak envelope, to believe a header
 * block is one.  Compared case-insensitively. */
static gboolean
is_standard_field (const char *name, gsize len)
{
#define FIELD(f) { f, sizeof (f) - 1 }
  static const struct {
    const char *name;
    gsize len;
  } fields[] = {
    FIELD ("From"), FIELD ("Date"), FIELD ("Message-ID"), FIELD ("Subject"), FIELD ("Newsgroups"),
    FIELD ("Path"), FIELD ("References"), FIELD ("In-Reply-To"), FIELD ("Received"),
    FIELD ("Return-Path"), FIELD ("To"), FIELD ("Cc"), FIELD ("Sender"), FIELD ("Reply-To"),
    FIELD ("Organization"), FIELD ("Lines"), FIELD ("Xref"), FIELD ("MIME-Version"),
    FIELD ("Delivered-To"), FIELD ("Followup-To"), FIELD ("Distribution"),
    FIELD ("NNTP-Posting-Host"), FIELD ("NNTP-Posting-Date"), FIELD ("User-Agent"),
    FIELD ("X-Mailer"), FIELD ("X-Newsreader"), FIELD ("Archived-At"), FIELD ("Status"),
    FIELD ("X-Status"), FIELD ("X-Mozilla-Status"), FIELD ("Envelope-To"),
  };
#undef FIELD
  char first = name[0] | 0x20;     /* a field name starts with a letter */

  if ((first == 'x' && len > 9 && g_ascii_strncasecmp (name, "X-Google-", 9) == 0) ||
      (first == 'c' && len > 8 && g_ascii_strncasecmp (name, "Content-", 8) == 0) ||
      (first == 'l' && len > 5 && g_ascii_strncasecmp (name, "List-", 5) == 0))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    if (fields[i].len == len && (fields[i].name[0] | 0x20) == first &&
        g_ascii_strncasecmp (name, fields[i].name, len) == 0)
      return TRUE;
  return FALSE;
}

static gint64
parse_length (const char *v, gsize len)
{
  gint64 n = 0;
  gsize i = 0;

  _deja_span_trim (&v, &len);
  if (len == 0 || len > 15)
    return -1;
  for (; i < len && _deja_is_digit (v[i]); i++)
    n = n * 10 + (v[i] - '0');
  return i == len ? n : -1;
}

/* Finds boundary= in a Content-Type value that may span folded lines.
 * Only the top-level type matters: is the message multipart, and with
 * which boundary. */
static void
parse_content_type (HeaderBlock *hb, const char *v, gsize len)
{
  const char *end = v + len, *p;

  _deja_span_trim (&v, &len);
  end = v + len;
  if (len < 10 || g_ascii_strncasecmp (v, "multipart/", 10) != 0)
    return;
  hb->multipart = TRUE;
  for (p = v; p < end; p++)
    {
      const char *q;

      if (*p != ';')
        continue;
      q = p + 1;
      while (q < end && g_ascii_isspace (*q))
        q++;
      if (end - q < 9 || g_ascii_strncasecmp (q, "boundary", 8) != 0)
        continue;
      q += 8;
      while (q < end && g_ascii_isspace (*q))
        q++;
      if (q == end || *q != '=')
        continue;
      q++;
      while (q < end && g_ascii_isspace (*q))
        q++;
      if (q < end && *q == '"')
        {
          const char *close = memchr (q + 1, '"', end - q - 1);
          if (close == NULL)
            return;
          hb->boundary = q + 1;
          hb->boundary_len = close - q - 1;
        }
      else
        {
          const char *e = q;
          while (e < end && *e != ';' && !g_ascii_isspace (*e))
            e++;
          hb->boundary = q;
          hb->boundary_len = e - q;
        }
      if (hb->boundary_len == 0 || hb->boundary_len > MAX_BOUNDARY)
        hb->boundary = NULL, hb->boundary_len = 0;
      return;
    }
}

/* The field name of a header line, or 0 when the line is not one: a name
 * of printable ASCII without spaces or colon, then a colon. */
static gsize
field_name_length (const char *p, gsize len)
{
  gsize i = 0;

  while (i < len && p[i] != ':' && p[i] > 32 && p[i] < 127)
    i++;
  return i > 0 && i < len && p[i] == ':' ? i : 0;
}

/* Reads the header block that starts at @start (docs/splitter.md, H). */
static void
read_header_block (const MboxSplitter *s, goffset start, HeaderBlock *hb)
{
  goffset p = start;
  const char *ct = NULL;          /* Content-Type value start */
  goffset ct_end = -1;
  gboolean in_ct = FALSE;

  memset (hb, 0, sizeof *hb);
  hb->content_length = -1;
  hb->body_lines = -1;
  hb->body = s->len;

  while (p < (goffset) s->len)
    {
      goffset end = line_end (s, p);
      gsize tlen = text_length (s, p, end);
      const char *line = s->buf + p;
      gsize name_len;

      if (p - start > MAX_HEADER_BLOCK)
        return;
      hb->lines++;
      if (tlen == 0)
        {
          hb->body = next_line (s, end);
          break;
        }
      if (_deja_is_space (line[0]))
        {
          if (hb->n_fields == 0)
            return;
          if (in_ct)
            ct_end = end;
          p = next_line (s, end);
          continue;
        }
      name_len = field_name_length (line, tlen);
      if (name_len == 0)
        return;
      hb->n_fields++;
      if (is_standard_field (line, name_len))
        hb->n_standard++;
      in_ct = FALSE;
      if (SPAN_IS (line, name_len, "Content-Type") && ct == NULL)
        {
          ct = line + name_len + 1;
          ct_end = end;
          in_ct = TRUE;
        }
      else if (SPAN_IS (line, name_len, "Content-Length"))
        hb->content_length = parse_length (line + name_len + 1, tlen - name_len - 1);
      else if (SPAN_IS (line, name_len, "Lines"))
        hb->body_lines = parse_length (line + name_len + 1, tlen - name_len - 1);
      p = next_line (s, end);
    }
  hb->block = hb->n_fields > 0;
  if (ct != NULL)
    parse_content_type (hb, ct, s->buf + ct_end - ct);
}

/* B: the line at @p is at the start of the content or follows an empty
 * line (LF or CRLF). */
static gboolean
blank_before (const MboxSplitter *s, goffset p, goffset content_start)
{
  const char *b = s->buf;

  if (p <= content_start || p == 0)   /* the start of the file counts too */
    return TRUE;
  if (b[p - 1] != '\n')
    return FALSE;
  if (p >= 2 && b[p - 2] == '\n')
    return TRUE;
  return p >= 3 && b[p - 2] == '\r' && b[p - 3] == '\n';
}

/* Finds "--boundary--" at the start of a line in [from, until). */
static goffset
find_closing (const MboxSplitter *s, const HeaderBlock *hb, goffset from, goffset until)
{
  char needle[MAX_BOUNDARY + 8];
  gsize n = 0;
  goffset p = from;

  needle[n++] = '\n';
  needle[n++] = '-';
  needle[n++] = '-';
  memcpy (needle + n, hb->boundary, hb->boundary_len);
  n += hb->boundary_len;
  needle[n++] = '-';
  needle[n++] = '-';

  while (p < until)
    {
      const char *hit = memmem (s->buf + p, until - p, needle, n);
      goffset after;

      if (hit == NULL)
        return -1;
      after = hit - s->buf + n;
      /* Transport padding may follow (RFC 2046 §5.1.1). */
      while (after < (goffset) s->len && _deja_is_space (s->buf[after]))
        after++;
      if (after == (goffset) s->len || s->buf[after] == '\n' || s->buf[after] == '\r')
        return hit - s->buf + 1;
      p = hit - s->buf + 1;
    }
  return -1;
}

/* The last envelope-shaped line in [from, until) whose header block
 * declares the same boundary as @hb, or -1. */
static goffset
find_last_declaring (const MboxSplitter *s, const HeaderBlock *hb, goffset from, goffset until)
{
  goffset p = from, found = -1;

  while (p < until)
    {
      goffset end = line_end (s, p);
      gsize tlen = text_length (s, p, end);
      MboxShape shape = mbox_envelope_shape (s->buf + p, tlen);

      if (shape == MBOX_SHAPE_G || shape == MBOX_SHAPE_R || shape == MBOX_SHAPE_P)
        {
          HeaderBlock other;

          read_header_block (s, next_line (s, end), &other);
          if (other.block && other.boundary_len == hb->boundary_len &&
              memcmp (other.boundary, hb->boundary, hb->boundary_len) == 0)
            found = p;
        }
      p = next_line (s, end);
    }
  return found;
}

/* M: the candidate at @c is inside a MIME part of the current message.
 * The message's closing line is the first "--boundary--" after its body
 * starts; once that has been passed, nothing below is inside a part. */
static gboolean
inside_mime_part (MboxSplitter *s, goffset c)
{
  Message *m = &s->current;

  if (!s->have_current || !m->hb.multipart || m->hb.boundary == NULL)
    return FALSE;
  if (!m->mime_searched || (m->closing < 0 && c >= m->mime_until))
    {
      goffset from = m->mime_searched ? m->mime_until - MAX_BOUNDARY - 8 : m->hb.body - 1;
      goffset until = MIN ((goffset) s->len, c + (goffset) MIME_LOOKAHEAD);

      m->mime_searched = TRUE;
      m->mime_until = until;
      m->closing = find_closing (s, &m->hb, MAX (from, 0), until);
      m->last_declaring = m->closing > c
                            ? find_last_declaring (s, &m->hb, c, m->closing)
                            : -1;
    }
  if (m->closing < c)
    return FALSE;
  /* A later envelope re-declaring the boundary owns the closing line:
   * the current message's multipart was never closed. */
  return m->last_declaring < c;
}

/* Walks back from @c over the blank lines before it; returns where they
 * start and how many there are. */
static goffset
trailing_blank_start (const MboxSplitter *s, goffset c, goffset floor, guint64 *n_blank)
{
  goffset p = c;

  *n_blank = 0;
  while (p > floor)
    {
      goffset q = p - 1;                       /* the LF ending the line before */
      if (q > floor && s->buf[q - 1] == '\r')
        q--;
      if (q > floor && s->buf[q - 1] != '\n')
        break;
      if (q <= floor)
        break;
      p = q;
      (*n_blank)++;
    }
  return p;
}

/* L: does the current message's declared length end at @c?  Blank lines
 * before @c are the format's padding, so a length that ends anywhere
 * between the last non-blank line and @c agrees.  Returns 1 when it
 * agrees, 0 when it does not, -1 when no length is declared. */
static int
length_agrees (const MboxSplitter *s, goffset c, guint64 c_line)
{
  const Message *m = &s->current;
  guint64 n_blank;
  goffset content_end;

  if (!s->have_current || (m->hb.content_length < 0 && m->hb.body_lines < 0))
    return -1;
  content_end = trailing_blank_start (s, c, m->hb.body, &n_blank);
  if (m->hb.content_length >= 0)
    {
      goffset end = m->hb.body + m->hb.content_length;
      return end >= content_end - 1 && end <= c;
    }
  {
    gint64 lines = (gint64) (c_line - m->body_line_no);
    return m->hb.body_lines >= lines - (gint64) n_blank && m->hb.body_lines <= lines;
  }
}

static void
log_line (MboxSplitter *s, goffset p, gsize tlen, guint64 line_no, MboxShape shape,
          MboxVerdict verdict, MboxReason reasons)
{
  MboxLogEntry e = { line_no, p, tlen, shape, verdict, reasons };

  g_array_append_val (s->log, e);
}

/* Judges the candidate line [p, end) (docs/splitter.md, Decision).  On
 * a separator, fills @next with the message it starts and returns TRUE. */
static gboolean
judge (MboxSplitter *s, goffset p, goffset end, guint64 line_no,
       goffset content_start, Message *next)
{
  gsize tlen = text_length (s, p, end);
  MboxShape shape = mbox_envelope_shape (s->buf + p, tlen);
  gboolean b = blank_before (s, p, content_start), h, strong, sep;
  MboxReason reasons = MBOX_REASON_NONE;
  MboxDecision decision = decision_for (s, line_no);
  HeaderBlock hb;
  int length;

  if (shape == MBOX_SHAPE_T && decision != MBOX_DECISION_SPLIT)
    {
      log_line (s, p, tlen, line_no, shape, MBOX_VERDICT_BODY,
                MBOX_REASON_PROSE | (decision ? MBOX_REASON_REVIEWED : 0));
      return FALSE;
    }
  read_header_block (s, next_line (s, end), &hb);
  strong = hb.block && hb.n_standard >= 2;
  /* After a full R envelope any block; after P one standard field; after
   * G two: Google Groups exports write a dozen, and prose can put a year
   * alone on a line before "to: Someone <…>" (docs/splitter.md). */
  h = hb.block && (shape == MBOX_SHAPE_R || (shape == MBOX_SHAPE_G ? strong : hb.n_standard >= 1));
  length = length_agrees (s, p, line_no);

  if (!h)
    reasons = MBOX_REASON_NO_HEADER_BLOCK;
  else if (inside_mime_part (s, p))
    reasons = MBOX_REASON_INSIDE_MIME_PART;
  else if (!b && !strong)
    reasons = MBOX_REASON_NO_BLANK_BEFORE;
  sep = reasons == MBOX_REASON_NONE;
  if (decision != MBOX_DECISION_NONE)
    {
      sep = decision == MBOX_DECISION_SPLIT;
      reasons |= MBOX_REASON_REVIEWED;
      if (shape == MBOX_SHAPE_T)
        reasons |= MBOX_REASON_PROSE;
      if (sep && !hb.block)
        {
          /* Split where no header block follows: the message is all body. */
          hb.body = next_line (s, end);
          hb.lines = 0;
        }
    }

  if (!sep)
    {
      if (length == 1)
        reasons |= MBOX_REASON_LENGTH_MISMATCH;
      log_line (s, p, tlen, line_no, shape, MBOX_VERDICT_REJECTED, reasons);
      return FALSE;
    }
  /* A full R envelope and a strong header block are certain without the
   * blank line: pipermail starts the next envelope right after its
   * attachment notice, thousands of times a list.  Counted, not logged. */
  if (!b && !(shape == MBOX_SHAPE_R && strong && decision == MBOX_DECISION_NONE))
    reasons |= MBOX_REASON_NO_BLANK_BEFORE;
  if (shape == MBOX_SHAPE_P)
    reasons |= MBOX_REASON_NO_DATE;
  if (length == 0)
    reasons |= MBOX_REASON_LENGTH_MISMATCH;
  if (reasons != MBOX_REASON_NONE)
    log_line (s, p, tlen, line_no, shape, MBOX_VERDICT_ACCEPTED, reasons);

  memset (next, 0, sizeof *next);
  next->offset = p;
  next->envelope_length = tlen;
  next->line_no = line_no;
  next->shape = shape;
  next->reasons = reasons;
  next->adjacent = !b && !(reasons & MBOX_REASON_NO_BLANK_BEFORE);
  next->hb = hb;
  next->headers = next_line (s, end);
  next->body_line_no = line_no + 1 + hb.lines;
  return TRUE;
}

static gboolean
is_blank (const char *line, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (!_deja_is_space (line[i]))
      return FALSE;
  return TRUE;
}

/* The first message: the line at @p (@tlen bytes, its envelope), its
 * header block @hb at @next; the splitter goes on after the block. */
static void
begin_message (MboxSplitter *s, goffset p, gsize tlen, MboxShape shape, MboxReason reasons,
               goffset next, const HeaderBlock *hb)
{
  Message *m = &s->current;

  memset (m, 0, sizeof *m);
  m->offset = p;
  m->envelope_length = tlen;
  m->line_no = s->line_no;
  m->shape = shape;
  m->reasons = reasons;
  m->headers = next;
  m->hb = *hb;
  m->body_line_no = s->line_no + 1 + hb->lines;
  s->have_current = TRUE;
  s->pos = hb->body;
  s->line_no = m->body_line_no;
}

/* At the start of the file a full envelope (G or R) followed at once by
 * the blank line that ends an empty header block is a message without
 * headers (git's nul-plain): there is no earlier message it could belong
 * to.  Logged as accepted, no-header-block (docs/splitter.md). */
static gboolean
start_without_headers (MboxSplitter *s, goffset p, goffset end, gsize tlen)
{
  MboxShape shape = mbox_envelope_shape (s->buf + p, tlen);
  goffset next = next_line (s, end);
  HeaderBlock hb;

  if (shape != MBOX_SHAPE_G && shape != MBOX_SHAPE_R)
    return FALSE;
  if (next >= (goffset) s->len || text_length (s, next, line_end (s, next)) != 0)
    return FALSE;
  read_header_block (s, next, &hb);
  begin_message (s, p, tlen, shape, MBOX_REASON_NO_HEADER_BLOCK, next, &hb);
  log_line (s, p, tlen, s->line_no - 1 - hb.lines, shape, MBOX_VERDICT_ACCEPTED,
            MBOX_REASON_NO_HEADER_BLOCK);
  return TRUE;
}

/* "Article 717 of alt.folklore.computers:": the line rn and readnews put
 * above an article they saved to a file. */
static gboolean
saved_article_line (const char *line, gsize len)
{
  gsize i = 8, digits;

  if (len < 14 || memcmp (line, "Article ", 8) != 0)
    return FALSE;
  digits = i;
  while (i < len && g_ascii_isdigit (line[i]))
    i++;
  if (i == digits || len - i < 5 || memcmp (line + i, " of ", 4) != 0)
    return FALSE;
  for (i += 4; i < len && !_deja_is_space (line[i]); i++)
    ;
  return i == len;
}

/* A saved article: that line, then the article's header block.  One
 * message, the line kept as its envelope (it has no sender or date). */
static gboolean
start_saved_article (MboxSplitter *s, goffset p, goffset end, gsize tlen)
{
  goffset next = next_line (s, end);
  HeaderBlock hb;

  if (next >= (goffset) s->len)
    return FALSE;
  read_header_block (s, next, &hb);
  if (!hb.block || hb.n_standard < 2)
    return FALSE;
  begin_message (s, p, tlen, MBOX_SHAPE_NONE, MBOX_REASON_NONE, next, &hb);
  s->single = TRUE;
  return TRUE;
}

/* Finds the first message: skips a UTF-8 BOM and blank lines, then
 * demands a separator unless MBOX_SPLIT_FORCE.  Lines of white space
 * count as blank here (git's sample.mbox begins with some). */
static gboolean
start (MboxSplitter *s, GError **error)
{
  goffset p = s->pos, end;
  gsize tlen;

  if (p == 0 && s->len >= 3 && memcmp (s->buf, "\xEF\xBB\xBF", 3) == 0)
    p = 3;
  for (;;)
    {
      if (p >= (goffset) s->len)
        return TRUE;   /* empty: a valid mbox with no messages */
      end = line_end (s, p);
      tlen = text_length (s, p, end);
      if (!is_blank (s->buf + p, tlen))
        break;
      p = next_line (s, end);
      s->line_no++;
    }
  if (s->flags & MBOX_SPLIT_SINGLE)
    s->single = TRUE;
  if (mbox_envelope_is_candidate (s->buf + p, tlen) &&
      judge (s, p, end, s->line_no, p, &s->current))
    {
      s->have_current = TRUE;
      s->pos = s->current.hb.body;
      s->line_no = s->current.body_line_no;
      return TRUE;
    }
  g_array_set_size (s->log, 0);
  if (!(s->flags & MBOX_SPLIT_SINGLE) && start_without_headers (s, p, end, tlen))
    return TRUE;
  /* A file that opens with a header block (two standard fields at least,
   * ended by a blank line) and no envelope is one message, as a news
   * spool's article, an MH or .eml file is: never split, though its body
   * may quote a mail with its envelope (docs/splitter.md, "One message
   * per file"). */
  if (!(s->flags & MBOX_SPLIT_SINGLE) && !mbox_envelope_is_candidate (s->buf + p, tlen))
    {
      HeaderBlock hb;

      read_header_block (s, p, &hb);
      if (hb.block && hb.n_standard >= 2)
        s->single = TRUE;
      else if (saved_article_line (s->buf + p, tlen) && start_saved_article (s, p, end, tlen))
        return TRUE;
    }
  if (!(s->flags & (MBOX_SPLIT_FORCE | MBOX_SPLIT_SINGLE)) && !s->single)
    {
      g_set_error (error, MBOX_ERROR, MBOX_ERROR_NOT_MBOX,
                   "not an mbox file: line %" G_GUINT64_FORMAT
                   " is not a 'From ' envelope followed by headers", s->line_no);
      return FALSE;
    }
  /* A message without an envelope (git am accepts such files). */
  memset (&s->current, 0, sizeof s->current);
  s->current.offset = p;
  s->current.line_no = s->line_no;
  s->current.shape = MBOX_SHAPE_NONE;
  s->current.reasons = MBOX_REASON_NO_ENVELOPE;
  s->current.headers = p;
  read_header_block (s, p, &s->current.hb);
  if (!s->current.hb.block)
    {
      s->current.hb.body = p;
      s->current.hb.lines = 0;
    }
  s->current.body_line_no = s->line_no + s->current.hb.lines;
  s->have_current = TRUE;
  s->pos = s->current.hb.body;
  s->line_no = s->current.body_line_no;
  return TRUE;
}

static void fill_span (const Message *m, goffset end, MboxSpan *span);

static guint64
count_lines (const MboxSplitter *s, goffset p, goffset end)
{
  guint64 n = 0;
  const char *nl;

  while (p < end && (nl = memchr (s->buf + p, '\n', end - p)) != NULL)
    {
      n++;
      p = nl - s->buf + 1;
    }
  return n;
}

/* The next of the given messages (mbox_splitter_set_bounds()): the first
 * one at or after where splitting starts. */
static gboolean
next_bounded (MboxSplitter *s, MboxSpan *span)
{
  Message m = { 0 };
  goffset p, end;

  if (!s->started)
    {
      gsize lo = 0, hi = s->n_bounds;

      s->started = TRUE;
      while (lo < hi)
        {
          gsize mid = lo + (hi - lo) / 2;

          if (s->bounds[mid] < s->pos)
            lo = mid + 1;
          else
            hi = mid;
        }
      s->next_bound = lo;
      if (lo < s->n_bounds)
        s->line_no += count_lines (s, s->pos, s->bounds[lo]);
    }
  if (s->next_bound >= s->n_bounds)
    return FALSE;
  p = s->bounds[s->next_bound];
  end = s->next_bound + 1 < s->n_bounds ? s->bounds[s->next_bound + 1] : (goffset) s->len;
  m.offset = m.headers = p;
  m.line_no = s->line_no;
  m.shape = MBOX_SHAPE_NONE;
  m.reasons = MBOX_REASON_NO_ENVELOPE;
  read_header_block (s, p, &m.hb);
  if (!m.hb.block)
    m.hb.body = p;
  fill_span (&m, end, span);
  s->line_no += count_lines (s, p, end);
  s->pos = end;
  s->next_bound++;
  return TRUE;
}

static void
fill_span (const Message *m, goffset end, MboxSpan *span)
{
  span->offset = m->offset;
  span->length = end - m->offset;
  span->envelope_length = m->envelope_length;
  span->headers = m->headers;
  span->body = MIN (m->hb.body, end);
  span->line_no = m->line_no;
  span->shape = m->shape;
  span->reasons = m->reasons;
  span->adjacent = m->adjacent;
}

/**
 * mbox_splitter_next:
 * @splitter: a splitter
 * @span: (out caller-allocates): the next message
 * @error: set when the input is not an mbox (only on the first call)
 *
 * Finds the next message.  Log entries for the lines judged on the way
 * (inside the message, and the separator that ends it) are appended to
 * the splitter's log; read them with mbox_splitter_peek_log().
 *
 * Returns: %TRUE with @span filled, %FALSE at the end of the input or on
 * error
 */
gboolean
mbox_splitter_next (MboxSplitter *s, MboxSpan *span, GError **error)
{
  goffset p, reported;
  guint64 line_no;
  Message next;

  g_return_val_if_fail (s != NULL && span != NULL, FALSE);

  if (s->bounds != NULL)
    return next_bounded (s, span);
  if (!s->started)
    {
      s->started = TRUE;
      if (!start (s, error))
        return FALSE;
    }
  if (!s->have_current)
    return FALSE;

  p = s->pos;
  line_no = s->line_no;
  reported = p;
  while (p < (goffset) s->len)
    {
      const char *nl;

      if (s->buf[p] == 'F' && !s->single && s->len - p >= 5 && memcmp (s->buf + p, "From ", 5) == 0)
        {
          goffset end = line_end (s, p);

          if (judge (s, p, end, line_no, -1, &next))
            {
              fill_span (&s->current, p, span);
              s->current = next;
              s->pos = next.hb.body;
              s->line_no = next.body_line_no;
              return TRUE;
            }
        }
      nl = find_newline (s, p, &reported);
      if (nl == NULL)
        break;
      p = nl - s->buf + 1;
      line_no++;
    }
  fill_span (&s->current, s->len, span);
  s->have_current = FALSE;
  s->pos = s->len;
  s->line_no = line_no;
  return TRUE;
}

/**
 * mbox_splitter_peek_log:
 * @n_entries: (out): how many entries there are
 *
 * Returns: (transfer none): the entries logged since the last
 * mbox_splitter_clear_log(), in line order
 */
const MboxLogEntry *
mbox_splitter_peek_log (MboxSplitter *s, gsize *n_entries)
{
  *n_entries = s->log->len;
  return (const MboxLogEntry *) s->log->data;
}

void
mbox_splitter_clear_log (MboxSplitter *s)
{
  g_array_set_size (s->log, 0);
}

/* Lines read so far (the total once mbox_splitter_next() returned FALSE). */
guint64
mbox_splitter_get_lines (MboxSplitter *s)
{
  return s->line_no;
}

const char *
mbox_verdict_to_string (MboxVerdict verdict)
{
  switch (verdict)
    {
    case MBOX_VERDICT_ACCEPTED: return "accepted";
    case MBOX_VERDICT_REJECTED: return "rejected";
    case MBOX_VERDICT_BODY: return "body";
    }
  g_return_val_if_reached ("unknown");
}

/**
 * mbox_reasons_to_string:
 *
 * Returns: (transfer full): the reasons as comma-separated tokens, in a
 * fixed order (`no-header-block,length-mismatch`)
 */
char *
mbox_reasons_to_string (MboxReason reasons)
{
  static const struct { MboxReason bit; const char *name; } names[] = {
    { MBOX_REASON_PROSE, "prose" },
    { MBOX_REASON_NO_HEADER_BLOCK, "no-header-block" },
    { MBOX_REASON_INSIDE_MIME_PART, "inside-mime-part" },
    { MBOX_REASON_NO_DATE, "no-date" },
    { MBOX_REASON_NO_BLANK_BEFORE, "no-blank-before" },
    { MBOX_REASON_LENGTH_MISMATCH, "length-mismatch" },
    { MBOX_REASON_NO_ENVELOPE, "no-envelope" },
    { MBOX_REASON_REVIEWED, "reviewed" },
  };
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (reasons & names[i].bit)
      {
        if (out->len)
          g_string_append_c (out, ',');
        g_string_append (out, names[i].name);
      }
  return g_string_free (out, FALSE);
}

/**
 * mbox_span_locate:
 * @buf: the archive
 * @offset: where a stored message starts (messages.byte_offset)
 * @length: its length (messages.byte_length)
 * @has_envelope: whether it starts with an envelope line
 * @span: (out): the span, with its header and body offsets found again
 *
 * Rebuilds a span from what the database keeps, for reading a stored
 * message back out of its archive.
 */
void
mbox_span_locate (const char *buf, goffset offset, gsize length, gboolean has_envelope,
                  MboxSpan *span)
{
  const char *start = buf + offset, *end = start + length, *p = start, *nl;

  memset (span, 0, sizeof *span);
  span->offset = offset;
  span->length = length;
  if (has_envelope && (nl = memchr (start, '\n', length)) != NULL)
    {
      span->envelope_length = nl - start - (nl > start && nl[-1] == '\r');
      p = nl + 1;
    }
  span->headers = p - buf;
  span->body = offset + length;
  /* The body starts after the first empty line. */
  while (p < end && (nl = memchr (p, '\n', end - p)) != NULL)
    {
      if (nl == p || (nl == p + 1 && *p == '\r'))
        {
          span->body = nl + 1 - buf;
          break;
        }
      p = nl + 1;
    }
}

/**
 * mbox_span_extract:
 * @buf: the buffer the span points into
 * @span: a message
 *
 * Copies a message out of the archive as RFC 5322 text for a MIME parser:
 * without the envelope line, with LF line endings, with one level of
 * ">From " quoting removed from body lines (mboxrd; for mboxo files this
 * also restores the lines the writer quoted), and without the blank line
 * that separates it from the next message.  NUL bytes are kept.
 *
 * Returns: (transfer full): the message bytes
 */
GBytes *
mbox_span_extract (const char *buf, const MboxSpan *span)
{
  const char *p = buf + span->headers, *end = buf + span->offset + span->length;
  const char *body = buf + span->body;
  GByteArray *out = g_byte_array_sized_new (end - p);

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *e = nl ? nl : end;
      gsize n = e - p;

      if (n > 0 && p[n - 1] == '\r')
        n--;
      if (p >= body && n >= 6 && p[0] == '>')
        {
          gsize q = 0;
          while (q < n && p[q] == '>')
            q++;
          if (n - q >= 5 && memcmp (p + q, "From ", 5) == 0)
            p++, n--;
        }
      g_byte_array_append (out, (const guint8 *) p, n);
      if (nl == NULL)
        break;
      g_byte_array_append (out, (const guint8 *) "\n", 1);
      p = nl + 1;
    }
  /* The blank line before the next envelope belongs to the mbox format. */
  if (out->len >= 2 && out->data[out->len - 1] == '\n' && out->data[out->len - 2] == '\n')
    g_byte_array_set_size (out, out->len - 1);
  return g_byte_array_free_to_bytes (out);
}
