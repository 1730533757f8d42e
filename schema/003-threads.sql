-- 003-threads.sql: threading results and diagnostics.
--
-- thread_id and parent_id (since version 1) are filled by `deja thread`,
-- which also runs at the end of every ingest.  duplicate_of marks a later
-- copy of a Message-ID (the same post cross-posted, present in several
-- exports); missing_parent names a parent that is not in the archive;
-- thread_flags holds the diagnostics (orphan, cycle-broken, time-travel,
-- duplicate, conflicting-duplicate, subject-joined).  thread_placeholders
-- lists the Message-IDs that are referenced but missing and hold threads
-- together.  message_newsgroups.merged marks groups a canonical message
-- gained from its duplicates (recomputed by each threading).

ALTER TABLE messages ADD COLUMN duplicate_of INTEGER REFERENCES messages (id) ON DELETE SET NULL;
ALTER TABLE messages ADD COLUMN missing_parent TEXT;
ALTER TABLE messages ADD COLUMN thread_flags TEXT;
CREATE INDEX messages_thread ON messages (thread_id);
CREATE INDEX messages_parent ON messages (parent_id);
CREATE INDEX messages_duplicate_of ON messages (duplicate_of) WHERE duplicate_of IS NOT NULL;

ALTER TABLE message_newsgroups ADD COLUMN merged INTEGER NOT NULL DEFAULT 0;

CREATE TABLE thread_placeholders (
  message_id    TEXT PRIMARY KEY,       -- referenced, not in the archive
  thread_id     INTEGER,                -- the thread it holds together
  children      INTEGER NOT NULL        -- messages and placeholders directly under it
);
