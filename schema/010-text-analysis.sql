-- 010-text-analysis.sql: the language and prose signals of each message's
-- own text (docs/text-analysis.md), near-duplicate clusters and repeated
-- paragraphs (deja dedup).
--
-- The columns are filled by every ingest (in the decode workers) and, for
-- rows stored before this version, by `deja analyse`; NULL means "not
-- analysed yet", never "nothing there": a text without a language is
-- 'und'.  Signals are for filtering (`--where`), and nothing is dropped
-- because of them.

ALTER TABLE messages ADD COLUMN lang TEXT;             -- CLD2 on own text: 'en', 'de', 'zh-Hant', … or 'und'
ALTER TABLE messages ADD COLUMN lang_reliable INTEGER; -- 0/1: CLD2 sure, and 30 letters or more
ALTER TABLE messages ADD COLUMN words INTEGER;         -- words of the prose (ICU)
ALTER TABLE messages ADD COLUMN sentences INTEGER;     -- sentences of the prose (ICU)
ALTER TABLE messages ADD COLUMN code_lines INTEGER;    -- own-text lines left out as code
ALTER TABLE messages ADD COLUMN nonletter_share REAL;  -- of non-space characters: not letters
ALTER TABLE messages ADD COLUMN digit_share REAL;      -- of non-space characters: digits
ALTER TABLE messages ADD COLUMN upper_share REAL;      -- of letters: upper case
ALTER TABLE messages ADD COLUMN oov_share REAL;        -- of checked words: not in the Hunspell
                                                       -- dictionary of lang (NULL: none installed)

CREATE INDEX messages_lang ON messages (lang, lang_reliable);

-- One row per message in a cluster of (near-)identical own text; the
-- cluster's id is the messages.id of its first message, which is in it
-- with similarity 1.  Flags for review: nothing is deleted.
CREATE TABLE near_duplicates (
  message_id  INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
  cluster_id  INTEGER NOT NULL,
  similarity  REAL NOT NULL,       -- estimated Jaccard similarity of 5-word shingles to the first
  method      TEXT NOT NULL        -- 'first' (the cluster's own), 'exact' (the same words,
                                   -- case-folded) or 'minhash' (similar)
);
CREATE INDEX near_duplicates_cluster ON near_duplicates (cluster_id);

-- Paragraphs of own text found in several messages: signatures the
-- quote finder kept, FAQs, reposted spam, list footers.
CREATE TABLE repeated_paragraphs (
  id          INTEGER PRIMARY KEY,
  hash        INTEGER NOT NULL UNIQUE,  -- of the normalised paragraph
  text        TEXT NOT NULL,            -- as first seen
  messages    INTEGER NOT NULL,
  authors     INTEGER NOT NULL,
  first_message_id INTEGER
);
CREATE TABLE repeated_paragraph_messages (
  paragraph_id INTEGER NOT NULL REFERENCES repeated_paragraphs (id) ON DELETE CASCADE,
  message_id   INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  PRIMARY KEY (paragraph_id, message_id)
) WITHOUT ROWID;
CREATE INDEX repeated_paragraph_messages_message ON repeated_paragraph_messages (message_id);
