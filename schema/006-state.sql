-- 006-state.sql: work deja has to finish after an interruption.
--
-- An ingest commits each archive file, then threads the whole database in
-- a transaction of its own.  Killed between the two, it left the new
-- messages with their provisional threads, and the next ingest found the
-- files unchanged and did not thread again.  A file's commit now records
-- ('threads', 'stale') here, threading deletes the row, and an ingest
-- that finds it threads even when no file changed.

CREATE TABLE deja_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
