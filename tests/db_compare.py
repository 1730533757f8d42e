"""Two deja databases compared on everything a researcher reads, with ids
replaced by what they point at (a message is its file's SHA-256 and its
byte offset): for deja merge's tests (test_merge.py, conformance_real.py)."""
import csv
import io
import os
import sqlite3
import subprocess


def ok(*args):
    r = subprocess.run([os.environ["DEJA"]] + list(args), capture_output=True, text=True,
                       env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert r.returncode == 0, (args, r.stderr)
    return r


def query(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


KEY = "(SELECT f.sha256 || ':' || x.byte_offset FROM messages x JOIN files f ON f.id = x.file_id" \
      " WHERE x.id = %s)"
SKIP = {"id", "file_id", "thread_id", "parent_id", "duplicate_of", "author_id"}


# Every table of the schema is compared above, or said here why not: a
# table a new schema adds fails dump() until it is one or the other.
COMPARED = {"messages", "files", "message_refs", "message_newsgroups", "newsgroups", "attachments",
            "separator_log", "thread_placeholders", "authors", "author_addresses", "author_decisions",
            "usenet_headers", "links", "messages_fts"}
NOT_COMPARED = {
    "deja_state": "work left stale: empty after a finished ingest or merge",
    "separator_decisions": "people's decisions, compared by test_merge.py's own test",
    "near_duplicates": "made by deja dedup, run on neither side",
    "repeated_paragraphs": "made by deja dedup, run on neither side",
    "repeated_paragraph_messages": "made by deja dedup, run on neither side",
}


def check_coverage(db):
    tables = {r for r, in query(db, "SELECT name FROM sqlite_schema WHERE type = 'table'"
                                    " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'messages_fts_%'")}
    unknown = tables - COMPARED - set(NOT_COMPARED)
    assert not unknown, "tables db_compare.py neither compares nor skips: %s" % sorted(unknown)


def dump(db, queries, scratch):
    """Everything, with ids replaced by what they point at; search results
    for @queries; @scratch: a file name for the network's CSV."""
    check_coverage(db)
    # table_xinfo: the generated own_text too (table_info leaves it out)
    cols = [r[1] for r in query(db, "PRAGMA table_xinfo(messages)") if r[1] not in SKIP]
    d = {}
    d["messages"] = {r[0]: r[1:] for r in query(db, (
        "SELECT f.sha256 || ':' || m.byte_offset, %s, %s, %s, %s, a.address FROM messages m"
        " JOIN files f ON f.id = m.file_id LEFT JOIN authors a ON a.id = m.author_id")
        % (", ".join("m.%s" % c for c in cols), KEY % "m.thread_id", KEY % "m.parent_id",
           KEY % "m.duplicate_of"))}
    threads = {}
    for thread, key in query(db, "SELECT m.thread_id, %s FROM messages m" % (KEY % "m.id")):
        threads.setdefault(thread, set()).add(key)
    d["threads"] = {frozenset(t) for t in threads.values()}
    d["message_ids"] = sorted(r for r, in query(db, "SELECT message_id FROM messages WHERE"
                                                " message_id IS NOT NULL"))
    d["files"] = sorted(query(db, "SELECT path, size, sha256, compression, messages, lines FROM files"))
    d["refs"] = sorted(query(db, "SELECT %s, kind, position, ref FROM refs r" % (KEY % "r.message_id")))
    d["groups"] = sorted(query(db, "SELECT %s, g.name, mg.merged FROM message_newsgroups mg JOIN"
                                   " newsgroups g ON g.id = mg.newsgroup_id" % (KEY % "mg.message_id")))
    d["attachments"] = sorted(query(db, "SELECT %s, position, content_type, filename, size, encoding"
                                        " FROM attachments a" % (KEY % "a.message_id")))
    d["log"] = sorted(query(db, "SELECT f.sha256, l.line_no, l.byte_offset, l.line_text, l.verdict,"
                                " l.reason, l.shape FROM separator_log l JOIN files f ON f.id = l.file_id"))
    d["placeholders"] = sorted(query(db, "SELECT message_id, %s, children FROM thread_placeholders p"
                                         % (KEY % "p.thread_id")))
    d["authors"] = sorted(query(db, "SELECT name, address, messages, first_date, last_date, shared_address"
                                    " FROM authors"))
    d["usenet"] = sorted(query(db, "SELECT %s, path, control, cancels, supersedes, approved, followup_to"
                                   " FROM usenet_headers u" % (KEY % "u.message_id")))
    d["links"] = sorted(query(db, "SELECT %s, position, url, normalized, host, domain, wayback FROM links l"
                                  % (KEY % "l.message_id")))
    d["addresses"] = sorted(query(db, "SELECT x.address, a.address, x.name, x.messages FROM"
                                      " author_addresses x JOIN authors a ON a.id = x.author_id"))
    d["decisions"] = sorted(query(db, "SELECT address, other, decision FROM author_decisions"))
    d["network"] = network(db, scratch)
    d["search"] = {q: search(db, q) for q in queries}
    return d


def network(db, out):
    """Reply edges with weights and dates, between primary addresses."""
    ok("network", "-q", "--db", db, "--format", "csv", "--out", out)
    with open(out.replace(".csv", "-nodes.csv"), newline="") as f:
        address = {r["Id"]: r["address"] for r in csv.DictReader(f)}
    with open(out, newline="") as f:
        return sorted((address[r["Source"]], address[r["Target"]], r["Weight"], r["first_date"],
                       r["last_date"]) for r in csv.DictReader(f))


def search(db, q):
    r = ok("search", "--db", db, "--format", "tsv", "--limit", "0", q)
    rows = list(csv.DictReader(io.StringIO(r.stdout), delimiter="\t"))
    return [(r["file"], r["byte_offset"], r["subject"], r["snippet"]) for r in rows]


def compare(a, b):
    for k in a:
        if k == "messages":
            missing = set(a[k]) ^ set(b[k])
            assert not missing, ("rows only in one", sorted(missing)[:5])
            for key in a[k]:
                assert a[k][key] == b[k][key], (key, a[k][key], b[k][key])
        assert a[k] == b[k], (k, a[k], b[k])


