-- 015-usenet-links.sql: Usenet's transport and control headers, and the
-- links cited in own text (docs/groups.md, docs/network.md "Sites",
-- docs/links.md).  Filled by every ingest; rows stored before this version
-- have none until `deja ingest --reingest`.

-- One row per message that has any of these headers (most mail has none).
CREATE TABLE usenet_headers (
  message_id   INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
  path         TEXT,        -- Path: as written, the sites newest first
  control      TEXT,        -- Control: as written ("cancel <id>")
  cancels      TEXT,        -- the Message-ID a cancel names, normalised
  supersedes   TEXT,        -- Supersedes:, normalised
  approved     TEXT,        -- Approved: (a moderated group's moderator)
  followup_to  TEXT         -- Followup-To: as written
);
CREATE INDEX usenet_headers_cancels ON usenet_headers (cancels) WHERE cancels IS NOT NULL;
CREATE INDEX usenet_headers_supersedes ON usenet_headers (supersedes) WHERE supersedes IS NOT NULL;

-- A cancelled or superseded article and the message that did it: never
-- deleted, only linked.  An article cancelled twice has two rows.
CREATE VIEW message_revisions AS
  SELECT t.id AS message_id, 'cancelled' AS kind, c.message_id AS by_id
    FROM usenet_headers c JOIN messages t ON t.message_id = c.cancels
  UNION ALL
  SELECT t.id AS message_id, 'superseded' AS kind, s.message_id AS by_id
    FROM usenet_headers s JOIN messages t ON t.message_id = s.supersedes;

-- Links cited in a message's own text (quoted links belong to the message
-- quoted), in text order.
CREATE TABLE links (
  id           INTEGER PRIMARY KEY,
  message_id   INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,   -- 0-based among the message's links
  url          TEXT NOT NULL,      -- as written (without <URL: >)
  normalized   TEXT NOT NULL,      -- scheme and host lower case, default port and fragment gone
  host         TEXT,               -- lower case; NULL for a URL without one
  domain       TEXT,               -- the registered domain (public suffix list); NULL for an address
  wayback      TEXT                -- the Wayback Machine's copy nearest the message's date; NULL undated
);
CREATE INDEX links_message ON links (message_id);
CREATE INDEX links_domain ON links (domain);
