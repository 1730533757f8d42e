#!/usr/bin/env python3
"""What real archives need, from fixtures written from the rules (issue 12).

In-Reply-To forms of old mailers, search of plain words, distinct exports,
compressed inputs.  Run by meson (suite 'cli').
"""
import json
import os
import sqlite3

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db

REPLIES = os.path.join(FIXTURES, "replies", "in-reply-to-forms.mbox")


def query(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def parents(db):
    return dict(query(db, "SELECT m.message_id, p.message_id FROM messages m"
                          " LEFT JOIN messages p ON p.id = m.parent_id"))


@tap.test
def in_reply_to_holds_ids_only_and_references_win():
    db = fresh_db("replies.db")
    r = deja("ingest", "--db", db, REPLIES)
    assert r.returncode == 0, r.stderr
    p = parents(db)
    assert p["carol@example.org"] is None and p["dave@example.org"] is None, p
    assert p["erin@example.org"] == "root@twistedmatrix.com", p
    assert p["jon@example.org"] == "erin@example.org", p
    assert p["kim@example.org"] == "root@twistedmatrix.com", p
    # No thread is joined through an address taken for a Message-ID.
    threads = dict(query(db, "SELECT message_id, thread_id FROM messages"))
    assert threads["carol@example.org"] != threads["dave@example.org"]
    assert query(db, "SELECT count(*) FROM thread_placeholders") == [(0,)]
    assert query(db, "SELECT count(*) FROM refs WHERE ref = 'glyph@twistedmatrix.com'"
                     " OR ref = 'twisted@moshez.org'") == [(0,)]


WORDS = os.path.join(FIXTURES, "search", "plain-words.mbox")
THREADS = os.path.join(FIXTURES, "threads")


def search(db, *query):
    r = deja("search", "--db", db, "--format", "json", "--limit", "0", *query)
    assert r.returncode == 0, (query, r.stderr)
    return sorted(h["subject"] for h in json.loads(r.stdout))


@tap.test
def plain_words_are_words():
    db = fresh_db("words.db")
    assert deja("ingest", "--db", db, WORDS).returncode == 0
    for q in ("e-mail", "don't", "C++", "twisted.internet", "reactor.run()"):
        hits = search(db, q)
        assert hits, q
    assert search(db, "don't") == ["e-mail from the reactor"]
    assert search(db, "C++") == ["C++ bindings"]
    assert search(db, "reactor.run()") == ["e-mail from the reactor"]
    # FTS5 syntax keeps its meaning.
    assert search(db, '"reactor works"') == ["Re: e-mail from the reactor"]
    assert search(db, "reactor NOT bindings") == ["Re: e-mail from the reactor",
                                                   "e-mail from the reactor"]
    assert search(db, "(bindings OR hangs) reactor") == ["C++ bindings", "e-mail from the reactor"]
    assert search(db, "react*") == ["C++ bindings", "Re: e-mail from the reactor",
                                    "e-mail from the reactor"]
    # from:, group:, subject: narrow a search; alone they list.
    assert search(db, "reactor", "from:bob") == ["C++ bindings"]
    assert search(db, "from:Builder") == ["C++ bindings"]
    assert search(db, "reactor", "group:comp.lang.python") == ["Re: e-mail from the reactor",
                                                                "e-mail from the reactor"]
    assert search(db, "subject:reactor", "works") == ["Re: e-mail from the reactor"]
    assert search(db, "since:2002-07-30") == ["Re: e-mail from the reactor"]
    r = deja("search", "--db", db, "reactor AND")
    assert r.returncode == 2 and "bad search query" in r.stderr, r.stderr
    r = deja("search", "--db", db, "since:2002-13")
    assert r.returncode == 2, r.stderr


@tap.test
def export_writes_distinct_messages_unless_asked():
    db = fresh_db("export.db")
    assert deja("ingest", "--db", db, THREADS).returncode == 0
    total, distinct = query(db, "SELECT count(*), sum(duplicate_of IS NULL) FROM messages")[0]
    assert total > distinct
    r = deja("export", "--db", db, "--format", "jsonl")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 0 and len(rows) == distinct, (len(rows), distinct)
    assert len({row["id"] for row in rows}) == distinct
    r = deja("export", "--db", db, "--format", "jsonl", "--duplicates", "--fields", "id,message_id")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == total and set(rows[0]) == {"id", "message_id", "duplicate_of"}
    assert sum(row["duplicate_of"] is not None for row in rows) == total - distinct
    r = deja("export", "--db", db, "--format", "jsonl", "--match", "from:nobody-at-all")
    assert r.returncode == 0 and r.stdout == ""


if __name__ == "__main__":
    tap.main(TMP)
