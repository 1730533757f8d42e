-- 004-decisions.sql: people's decisions about separator lines (deja review).
--
-- A decision is about a line of a file's content, so it is keyed by the
-- content's SHA-256 (files.sha256) and the 1-based line number: it
-- follows the content if the file moves, and is applied whenever that
-- content is ingested.

CREATE TABLE separator_decisions (
  file_sha256   TEXT NOT NULL,
  line_no       INTEGER NOT NULL,
  decision      TEXT NOT NULL CHECK (decision IN ('split', 'no-split')),
  note          TEXT,
  decided_at    TEXT NOT NULL,          -- ISO 8601 UTC
  PRIMARY KEY (file_sha256, line_no)
) WITHOUT ROWID;
