-- 017-own-text-nested.sql: own_text written in 3 KB instead of 18.6 KB.
--
-- SQLite parses a table's CREATE statement each time it reads a schema
-- (every connection, every ATTACH), and compiles a generated column into
-- every statement that writes its table.  014's expression spelled out
-- each length of own_spans as a branch of its own, 18.6 KB of the
-- schema's 28.7 KB: opening a database and reading its schema took
-- 0.85 ms, compiling the INSERT into messages 0.46 ms, and a merge paid
-- both for each shard it attached.  This one asks for the pieces as
-- 011's did, the one after the other, each under its length test, but
-- nested, so that a short array stops at its end: a message of one piece
-- (most) costs one length test more than 014 and reads no further.  The
-- nesting is in four groups of four, since SQLite's parser refuses
-- sixteen levels ("parser stack overflow").
--
-- The text is the same for every value of own_spans as 011's and 014's
-- (tests/test_reading.py): an even length up to 32 takes its pairs; an
-- odd length, or none, gives NULL (the last pair's length is NULL); a
-- longer array takes its first 16 pairs.  A VIRTUAL column holds nothing
-- on disk: dropping it and adding it again rewrites no row.

ALTER TABLE messages DROP COLUMN own_text;
ALTER TABLE messages ADD COLUMN own_text TEXT GENERATED ALWAYS AS (
  CASE WHEN own_spans IS NULL THEN own_text_stored ELSE CAST(
    substr(CAST(body AS BLOB), json_extract(own_spans, '$[0]') + 1, json_extract(own_spans, '$[1]'))
    || CASE WHEN json_array_length(own_spans) > 2 THEN
      substr(CAST(body AS BLOB), json_extract(own_spans, '$[2]') + 1, json_extract(own_spans, '$[3]'))
      || CASE WHEN json_array_length(own_spans) > 4 THEN
        substr(CAST(body AS BLOB), json_extract(own_spans, '$[4]') + 1, json_extract(own_spans, '$[5]'))
        || CASE WHEN json_array_length(own_spans) > 6 THEN
          substr(CAST(body AS BLOB), json_extract(own_spans, '$[6]') + 1, json_extract(own_spans, '$[7]'))
        ELSE '' END
      ELSE '' END
    ELSE '' END
    || CASE WHEN json_array_length(own_spans) > 8 THEN
      substr(CAST(body AS BLOB), json_extract(own_spans, '$[8]') + 1, json_extract(own_spans, '$[9]'))
      || CASE WHEN json_array_length(own_spans) > 10 THEN
        substr(CAST(body AS BLOB), json_extract(own_spans, '$[10]') + 1, json_extract(own_spans, '$[11]'))
        || CASE WHEN json_array_length(own_spans) > 12 THEN
          substr(CAST(body AS BLOB), json_extract(own_spans, '$[12]') + 1, json_extract(own_spans, '$[13]'))
          || CASE WHEN json_array_length(own_spans) > 14 THEN
            substr(CAST(body AS BLOB), json_extract(own_spans, '$[14]') + 1, json_extract(own_spans, '$[15]'))
          ELSE '' END
        ELSE '' END
      ELSE '' END
      || CASE WHEN json_array_length(own_spans) > 16 THEN
        substr(CAST(body AS BLOB), json_extract(own_spans, '$[16]') + 1, json_extract(own_spans, '$[17]'))
        || CASE WHEN json_array_length(own_spans) > 18 THEN
          substr(CAST(body AS BLOB), json_extract(own_spans, '$[18]') + 1, json_extract(own_spans, '$[19]'))
          || CASE WHEN json_array_length(own_spans) > 20 THEN
            substr(CAST(body AS BLOB), json_extract(own_spans, '$[20]') + 1, json_extract(own_spans, '$[21]'))
            || CASE WHEN json_array_length(own_spans) > 22 THEN
              substr(CAST(body AS BLOB), json_extract(own_spans, '$[22]') + 1, json_extract(own_spans, '$[23]'))
            ELSE '' END
          ELSE '' END
        ELSE '' END
        || CASE WHEN json_array_length(own_spans) > 24 THEN
          substr(CAST(body AS BLOB), json_extract(own_spans, '$[24]') + 1, json_extract(own_spans, '$[25]'))
          || CASE WHEN json_array_length(own_spans) > 26 THEN
            substr(CAST(body AS BLOB), json_extract(own_spans, '$[26]') + 1, json_extract(own_spans, '$[27]'))
            || CASE WHEN json_array_length(own_spans) > 28 THEN
              substr(CAST(body AS BLOB), json_extract(own_spans, '$[28]') + 1, json_extract(own_spans, '$[29]'))
              || CASE WHEN json_array_length(own_spans) > 30 THEN
                substr(CAST(body AS BLOB), json_extract(own_spans, '$[30]') + 1, json_extract(own_spans, '$[31]'))
              ELSE '' END
            ELSE '' END
          ELSE '' END
        ELSE '' END
      ELSE '' END
    ELSE '' END
  AS TEXT) END
) VIRTUAL;
