-- 002-text.sql: text extraction and full-text search.
--
-- messages gains line counts of the author's own text and of what it
-- quotes, and the number of attachments; attachments lists the parts (and
-- uuencoded or yEnc files) that are not text.  messages_fts indexes
-- subject and own_text with FTS5 (external content: the text lives in
-- messages; rowid = messages.id).
--
-- Version 1 stored no own text, so every file is marked for re-reading:
-- the next `deja ingest` of each path extracts its text again.

ALTER TABLE messages ADD COLUMN quoted_lines INTEGER;   -- quoted lines removed from own_text
ALTER TABLE messages ADD COLUMN own_lines INTEGER;      -- non-blank lines of own_text
ALTER TABLE messages ADD COLUMN attachment_count INTEGER NOT NULL DEFAULT 0;  -- rows in attachments

CREATE TABLE attachments (
  id            INTEGER PRIMARY KEY,
  message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  position      INTEGER NOT NULL,       -- 0-based, in the order found
  content_type  TEXT NOT NULL,          -- lower case, e.g. 'image/gif'
  filename      TEXT,
  size          INTEGER NOT NULL,       -- decoded bytes
  encoding      TEXT NOT NULL CHECK (encoding IN ('mime', 'uuencode', 'yenc'))
);
CREATE INDEX attachments_message ON attachments (message_id);

CREATE VIRTUAL TABLE messages_fts USING fts5 (
  subject, own_text,
  content = 'messages', content_rowid = 'id',
  tokenize = 'porter unicode61'
);

UPDATE files SET sha256 = '';
