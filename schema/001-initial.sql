-- deja schema version 1: files, messages, references, newsgroups and the
-- separator log.  Names the external contract fixes are listed in docs/schema.md.

CREATE TABLE files (
  id            INTEGER PRIMARY KEY,
  path          TEXT NOT NULL UNIQUE,   -- absolute path at ingest time
  size          INTEGER NOT NULL,       -- bytes of mbox text (after gunzip)
  stored_size   INTEGER NOT NULL,       -- bytes on disk (the .gz when compressed)
  mtime         INTEGER NOT NULL,       -- seconds since 1970 of the file on disk
  sha256        TEXT NOT NULL,          -- of the mbox text: identifies content
  compression   TEXT,                   -- 'gzip' or NULL
  messages      INTEGER NOT NULL,
  lines         INTEGER NOT NULL,
  ingested_at   TEXT NOT NULL,          -- ISO 8601 UTC
  deja_version  TEXT NOT NULL
);
CREATE INDEX files_sha256 ON files (sha256);

CREATE TABLE messages (
  id            INTEGER PRIMARY KEY,
  file_id       INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  byte_offset   INTEGER NOT NULL,       -- of the envelope line in the mbox text
  byte_length   INTEGER NOT NULL,       -- up to the next envelope
  line_no       INTEGER NOT NULL,       -- 1-based line of byte_offset
  envelope      TEXT,                   -- the "From " line; NULL when none
  message_id    TEXT,                   -- normalised; NULL when absent
  subject       TEXT,
  from_addr     TEXT,                   -- lower case
  from_name     TEXT,
  date          TEXT,                   -- ISO 8601 UTC, or YYYY-MM-DD; NULL when unparseable
  date_raw      TEXT,                   -- the Date header as written
  body          TEXT NOT NULL,          -- decoded text (UTF-8)
  own_text      TEXT,                   -- the author's own words (text extraction stage)
  charset       TEXT,                   -- charset the body was read in
  flags         TEXT,                   -- comma-separated anomalies; NULL when none
  thread_id     INTEGER,                -- id of the thread's root message
  parent_id     INTEGER REFERENCES messages (id) ON DELETE SET NULL
);
CREATE INDEX messages_file ON messages (file_id, byte_offset);
CREATE INDEX messages_message_id ON messages (message_id);
CREATE INDEX messages_date ON messages (date);
CREATE INDEX messages_from_addr ON messages (from_addr);

-- References and In-Reply-To, in header order.  message_id is messages.id;
-- ref is a normalised Message-ID that may or may not be in the archive.
CREATE TABLE refs (
  message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN ('references', 'in-reply-to')),
  position      INTEGER NOT NULL,       -- 0-based within the header
  ref           TEXT NOT NULL,
  PRIMARY KEY (message_id, kind, position)
) WITHOUT ROWID;
CREATE INDEX refs_ref ON refs (ref);

CREATE TABLE newsgroups (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE
);

CREATE TABLE message_newsgroups (
  message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  newsgroup_id  INTEGER NOT NULL REFERENCES newsgroups (id),
  PRIMARY KEY (message_id, newsgroup_id)
) WITHOUT ROWID;
CREATE INDEX message_newsgroups_group ON message_newsgroups (newsgroup_id);

-- Every line the splitter had to judge (docs/splitter.md).
CREATE TABLE separator_log (
  id            INTEGER PRIMARY KEY,
  file_id       INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  line_no       INTEGER NOT NULL,       -- 1-based
  byte_offset   INTEGER NOT NULL,
  line_text     TEXT NOT NULL,          -- without the line ending, as UTF-8
  verdict       TEXT NOT NULL CHECK (verdict IN ('accepted', 'rejected', 'body')),
  reason        TEXT NOT NULL,          -- comma-separated evidence tokens
  shape         TEXT NOT NULL CHECK (shape IN ('G', 'R', 'P', 'T'))
);
CREATE INDEX separator_log_file ON separator_log (file_id, line_no);
