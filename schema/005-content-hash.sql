-- 005-content-hash.sql: each message's content hash, stored as it is read.
--
-- Threading compares copies of a Message-ID by a hash of from_addr,
-- subject and body (parsers/fnv.c).  Stored at ingest, it spares threading
-- a pass over every body; rows from earlier versions have NULL here, and
-- threading computes the same value for them (deja_content_hash()).

ALTER TABLE messages ADD COLUMN content_hash INTEGER;
