/* mbox.h — the strict mbox splitter (rule: docs/splitter.md). */
#pragma once

#include <glib.h>

#include "envelope.h"

G_BEGIN_DECLS

#define MBOX_ERROR (mbox_error_quark ())
GQuark mbox_error_quark (void);

typedef enum {
  MBOX_ERROR_NOT_MBOX,   /* the first non-blank line is not a separator */
} MboxError;

typedef enum {
  MBOX_SPLIT_NONE  = 0,
  MBOX_SPLIT_FORCE = 1 << 0, /* content before the first separator is a message */
  MBOX_SPLIT_SINGLE = 1 << 1, /* the input is one message, whatever it begins with
                               * (a Maildir file): never split */
} MboxSplitFlags;

/* Why a line was judged as it was; a log row carries one or more. */
typedef enum {
  MBOX_REASON_NONE              = 0,
  MBOX_REASON_NO_BLANK_BEFORE   = 1 << 0,
  MBOX_REASON_NO_DATE           = 1 << 1,
  MBOX_REASON_NO_HEADER_BLOCK   = 1 << 2,
  MBOX_REASON_INSIDE_MIME_PART  = 1 << 3,
  MBOX_REASON_LENGTH_MISMATCH   = 1 << 4,
  MBOX_REASON_PROSE             = 1 << 5,
  MBOX_REASON_NO_ENVELOPE       = 1 << 6,
  MBOX_REASON_REVIEWED          = 1 << 7,  /* a person decided (deja review) */
} MboxReason;

typedef enum {
  MBOX_VERDICT_ACCEPTED,  /* a separator, against some of the evidence */
  MBOX_VERDICT_REJECTED,  /* envelope-shaped, but a body line */
  MBOX_VERDICT_BODY,      /* prose a liberal parser would split on */
} MboxVerdict;

typedef struct {
  guint64 line_no;       /* 1-based */
  goffset offset;        /* of the line's first byte */
  gsize length;          /* of the line without LF or CRLF */
  MboxShape shape;
  MboxVerdict verdict;
  MboxReason reasons;
} MboxLogEntry;

/* One message as a span of the caller's buffer.  Spans are contiguous:
 * a message runs from its envelope line to the next message's envelope
 * (the blank line before that envelope is inside this span), the last one
 * to the end of the input. */
typedef struct {
  goffset offset;        /* envelope line (or first header line if none) */
  gsize length;
  gsize envelope_length; /* envelope line without its ending; 0 if none */
  goffset headers;       /* first header line */
  goffset body;          /* first body byte (== offset + length if none) */
  guint64 line_no;       /* 1-based line of offset */
  MboxShape shape;       /* MBOX_SHAPE_NONE when there is no envelope */
  MboxReason reasons;    /* non-zero when the separator was logged */
  gboolean adjacent;     /* a certain separator with no blank line before it
                          * (R envelope + strong header block): counted, not
                          * logged (docs/splitter.md) */
} MboxSpan;

typedef struct _MboxSplitter MboxSplitter;

typedef void (*MboxScanFunc) (goffset reached, gpointer data);

/* A person's decision about a line (deja review), which overrides the rule. */
typedef enum {
  MBOX_DECISION_NONE = 0,
  MBOX_DECISION_SPLIT,      /* a message starts here */
  MBOX_DECISION_NO_SPLIT,   /* this line is body text */
} MboxDecision;

MboxSplitter *mbox_splitter_new (const char *buf, gsize len, MboxSplitFlags flags);
void mbox_splitter_set_decisions (MboxSplitter *splitter, GHashTable *decisions);
void mbox_splitter_set_bounds (MboxSplitter *splitter, const goffset *starts, gsize n);
void mbox_splitter_set_scan_func (MboxSplitter *splitter, MboxScanFunc func, gpointer data);
void mbox_splitter_start_at (MboxSplitter *splitter, goffset offset, guint64 line_no);
void mbox_splitter_free (MboxSplitter *splitter);
gboolean mbox_splitter_next (MboxSplitter *splitter, MboxSpan *span, GError **error);
const MboxLogEntry *mbox_splitter_peek_log (MboxSplitter *splitter, gsize *n_entries);
void mbox_splitter_clear_log (MboxSplitter *splitter);
guint64 mbox_splitter_get_lines (MboxSplitter *splitter);
gboolean mbox_splitter_is_single (MboxSplitter *splitter);

const char *mbox_verdict_to_string (MboxVerdict verdict);
char *mbox_reasons_to_string (MboxReason reasons);

void mbox_span_locate (const char *buf, goffset offset, gsize length, gboolean has_envelope,
                       MboxSpan *span);
GBytes *mbox_span_extract (const char *buf, const MboxSpan *span);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MboxSplitter, mbox_splitter_free)

G_END_DECLS
