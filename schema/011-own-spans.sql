-- 011-own-spans.sql: own text stored once, and an index nobody used.
--
-- A message's own text is its body without what it quotes: in nearly
-- every message, a few byte ranges of the body.  Stored whole beside the
-- body it was a third of the database (37 MB of 153 MB for 64 MiB of
-- mail, 47 MB of 278 MB for twisted-python).  Now own_spans holds the
-- ranges, as a JSON array of byte offsets into body and lengths
-- ("[0,120,250,37]": bytes 0-119, then 250-286), and own_text is a
-- generated column that puts them together, in plain SQL: every SQLite
-- reader (the sqlite3 shell, Python, Datasette) reads own_text as before.
-- Own text made of more than 16 ranges, or not of the body's bytes (a
-- body with embedded messages, whose own text leaves them out), is kept
-- whole in own_text_stored, with own_spans NULL.
--
-- Rows stored before this version keep their text in own_text_stored
-- (renamed from own_text): nothing is rewritten.  The full-text index,
-- which reads own_text by name, is unchanged.
--
-- A generated column is left out by PRAGMA table_info (PRAGMA
-- table_xinfo lists it) and cannot be written: write own_text_stored or
-- own_spans.

ALTER TABLE messages RENAME COLUMN own_text TO own_text_stored;
ALTER TABLE messages ADD COLUMN own_spans TEXT;
ALTER TABLE messages ADD COLUMN own_text TEXT GENERATED ALWAYS AS (
  CASE WHEN own_spans IS NULL THEN own_text_stored ELSE CAST(
        substr(CAST(body AS BLOB), json_extract(own_spans, '$[0]') + 1, json_extract(own_spans, '$[1]'))
        || CASE WHEN json_array_length(own_spans) > 2 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[2]') + 1, json_extract(own_spans, '$[3]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 4 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[4]') + 1, json_extract(own_spans, '$[5]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 6 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[6]') + 1, json_extract(own_spans, '$[7]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 8 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[8]') + 1, json_extract(own_spans, '$[9]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 10 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[10]') + 1, json_extract(own_spans, '$[11]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 12 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[12]') + 1, json_extract(own_spans, '$[13]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 14 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[14]') + 1, json_extract(own_spans, '$[15]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 16 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[16]') + 1, json_extract(own_spans, '$[17]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 18 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[18]') + 1, json_extract(own_spans, '$[19]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 20 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[20]') + 1, json_extract(own_spans, '$[21]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 22 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[22]') + 1, json_extract(own_spans, '$[23]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 24 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[24]') + 1, json_extract(own_spans, '$[25]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 26 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[26]') + 1, json_extract(own_spans, '$[27]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 28 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[28]') + 1, json_extract(own_spans, '$[29]')) ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 30 THEN
             substr(CAST(body AS BLOB), json_extract(own_spans, '$[30]') + 1, json_extract(own_spans, '$[31]')) ELSE '' END
      AS TEXT) END
) VIRTUAL;

-- refs_ref (refs by the Message-ID referred to) served no query of deja's
-- (threading reads refs by message) and cost 5 % of twisted-python's
-- database (12.7 MB) and an out-of-order insert per reference.  A query
-- by ref scans refs (165,100 rows for twisted-python: milliseconds).
DROP INDEX refs_ref;
