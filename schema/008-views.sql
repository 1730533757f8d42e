-- 008-views.sql: views for the questions researchers ask first, and the
-- full-text index declared so that Datasette and sqlite-utils find it.
--
-- Datasette and sqlite-utils detect an FTS table for "messages" by the
-- text content="messages" (double quotes, no spaces) in its CREATE
-- statement; version 2 wrote content = 'messages'.  The index is the same:
-- it is dropped, declared again and rebuilt from messages.

DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (
  subject, own_text,
  content="messages", content_rowid="id",
  tokenize="porter unicode61"
);
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

-- One row per distinct message: later copies of a Message-ID (cross-posts
-- in several files, a list archive's second copy) left out.
CREATE VIEW distinct_messages AS
  SELECT * FROM messages WHERE duplicate_of IS NULL;

-- One row per reply whose parent is in the archive, with both authors.
CREATE VIEW replies AS
  SELECT m.id AS id, m.date AS date, m.thread_id AS thread_id,
         m.from_addr AS from_addr, m.from_name AS from_name,
         p.id AS parent_id, p.date AS parent_date,
         p.from_addr AS parent_from_addr, p.from_name AS parent_from_name
  FROM messages m JOIN messages p ON p.id = m.parent_id
  WHERE m.duplicate_of IS NULL;

-- Per sender address: distinct messages, the first and last date, the
-- threads started and the replies written.
CREATE VIEW messages_per_author AS
  SELECT m.from_addr AS from_addr,
         (SELECT from_name FROM messages n WHERE n.from_addr = m.from_addr
            AND n.from_name IS NOT NULL GROUP BY from_name
            ORDER BY count(*) DESC, from_name LIMIT 1) AS from_name,
         count(*) AS messages, min(m.date) AS first_date, max(m.date) AS last_date,
         sum(m.id = m.thread_id) AS threads_started,
         sum(m.parent_id IS NOT NULL) AS replies
  FROM messages m
  WHERE m.duplicate_of IS NULL AND m.from_addr IS NOT NULL
  GROUP BY m.from_addr;

-- Per month (YYYY-MM) and newsgroup: distinct messages and their senders.
-- A message posted to several groups counts in each; one in none (a
-- mailing list's post without Newsgroups:) has newsgroup NULL.
CREATE VIEW messages_per_month AS
  SELECT substr(m.date, 1, 7) AS month, g.name AS newsgroup,
         count(*) AS messages, count(DISTINCT m.from_addr) AS authors
  FROM messages m
  LEFT JOIN message_newsgroups mg ON mg.message_id = m.id
  LEFT JOIN newsgroups g ON g.id = mg.newsgroup_id
  WHERE m.duplicate_of IS NULL AND m.date IS NOT NULL
  GROUP BY month, g.name;

-- One row per thread: its start, size, span and people.
CREATE VIEW thread_summary AS
  SELECT m.thread_id AS thread_id, r.subject AS subject, r.from_addr AS started_by,
         count(*) AS messages, count(DISTINCT m.from_addr) AS authors,
         min(m.date) AS first_date, max(m.date) AS last_date
  FROM messages m LEFT JOIN messages r ON r.id = m.thread_id
  WHERE m.duplicate_of IS NULL AND m.thread_id IS NOT NULL
  GROUP BY m.thread_id;
