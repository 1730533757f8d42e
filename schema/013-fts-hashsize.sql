-- 013-fts-hashsize.sql: FTS5 holds 4 MiB of new index in memory before it
-- writes a segment, instead of 1 MiB.
--
-- Each segment is merged with the others of its level later (four at a
-- time), so fewer, larger ones mean less merging while an ingest writes:
-- the realistic 64 MiB corpus ends with 5 segments instead of 8, the
-- index's flushes and merges took 2.4 % of an ingest's CPU and now
-- take well under 1 %, for about 4 MiB more memory.  The index and search
-- results are the same.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', 4194304);
