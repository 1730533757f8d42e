-- 012-compact-refs.sql: references kept without their kind's name in
-- every row, and the full-text index in larger leaves.
--
-- refs held the kind of each reference as text ('references',
-- 'in-reply-to'): 10 or 11 bytes of a 60-byte row, 1.9 MB of
-- twisted-python's 13.2 MB table.  message_refs holds the same rows with
-- kind 0 (References) or 1 (In-Reply-To), which SQLite stores in the
-- row's header alone.  refs stays, as a view with the names, for every
-- query written against it (reading it costs a CASE per row).
CREATE TABLE message_refs (
  message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  kind          INTEGER NOT NULL CHECK (kind IN (0, 1)),  -- 0 References, 1 In-Reply-To
  position      INTEGER NOT NULL,       -- 0-based within the header
  ref           TEXT NOT NULL,          -- a normalised Message-ID, in the archive or not
  PRIMARY KEY (message_id, kind, position)
) WITHOUT ROWID;

INSERT INTO message_refs (message_id, kind, position, ref)
  SELECT message_id, kind = 'in-reply-to', position, ref FROM refs
  ORDER BY message_id, kind = 'in-reply-to', position;
DROP TABLE refs;

CREATE VIEW refs (message_id, kind, position, ref) AS
  SELECT message_id, CASE kind WHEN 0 THEN 'references' ELSE 'in-reply-to' END, position, ref
  FROM message_refs;

-- FTS5 writes its index in leaves of at most 4,050 bytes by default (for
-- 4 KiB pages): four to a 16 KiB page, each with a row's overhead.  One
-- leaf of 16,000 bytes fills a 16 KiB page (and four a 64 KiB one):
-- twisted-python's index 32.0 -> 31.1 MB, the same results.  Leaves
-- written before keep their size.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('pgsz', 16000);
