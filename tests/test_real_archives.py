#!/usr/bin/env python3
"""What real archives need, from fixtures written from the rules (issue 12).

In-Reply-To forms of old mailers, search of plain words, distinct exports,
compressed inputs.  Run by meson (suite 'cli').
"""
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


if __name__ == "__main__":
    tap.main(TMP)
