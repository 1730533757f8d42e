-- 016-shared-addresses.sql: an address several people used under their own
-- names (noreply@github.com, nospam@nospam.com) is split into one author
-- per name (docs/people.md, "Shared addresses").  Such an author's
-- address is the shared address followed by the name in parentheses; this
-- column names the shared address (NULL for every other author).
ALTER TABLE authors ADD COLUMN shared_address TEXT;
INSERT OR REPLACE INTO deja_state (key, value) VALUES ('authors', 'stale');
