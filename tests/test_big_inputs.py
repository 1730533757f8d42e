#!/usr/bin/env python3
"""Big inputs: a 50 MB line, and an archive over 4 GiB (sparse).

Apart from test_cli.py so that meson runs them beside the other tests.
Run by meson (suite 'cli').
"""
import os
import sqlite3

import tap
from cli_helpers import SAMPLE, TMP, check_bad_input, deja, fresh_db, tmp

@tap.test
def fifty_megabyte_single_line():
    # As a whole file: not an mbox, refused quickly.
    path = tmp("one-line.mbox")
    with open(path, "wb") as f:
        f.write(b"x" * (50 * 1024 * 1024))
    check_bad_input(path, "not an mbox")
    # As the body of a message: decoded from its first 8 MiB, flagged.
    path = tmp("long-body.mbox")
    with open(path, "wb") as f:
        f.write(b"From a@example.com Mon Mar  3 10:00:00 2003\nFrom: a@example.com\n"
                b"Subject: long\nMessage-ID: <long@example.com>\n\n" + b"y" * (50 * 1024 * 1024) + b"\n")
    db = fresh_db("long.db")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        length, span, flags = c.execute("SELECT length(body), byte_length, flags FROM messages").fetchone()
        assert 7 * 1024 * 1024 < length <= 8 * 1024 * 1024, length
        assert span == os.path.getsize(path) and "truncated" in flags
        # A new database for 32 MiB of archives or more has 64 KiB pages
        # (store.c, page_size_sql()); a small one 16 KiB.
        assert c.execute("PRAGMA page_size").fetchone()[0] == 65536
    small = fresh_db("small-then-long.db")
    r = deja("ingest", "--db", small, SAMPLE)
    assert r.returncode == 0, r.stderr
    r = deja("ingest", "--db", small, path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(small) as c:
        # a database keeps the page size it was made with
        assert c.execute("PRAGMA page_size").fetchone()[0] == 16384
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 7


@tap.test
def file_larger_than_4_gib():
    # Sparse: a message whose body is a 4 GiB hole, then a reply to it.
    path = tmp("huge.mbox")
    with open(path, "wb") as f:
        f.write(b"From a@example.com Mon Mar  3 10:00:00 2003\nFrom: A <a@example.com>\n"
                b"Subject: huge\nMessage-ID: <huge@example.com>\n\n")
        f.seek(4 * 1024 ** 3 + 12345)
        f.write(b"\n\nFrom b@example.com Mon Mar  3 11:00:00 2003\nFrom: B <b@example.com>\n"
                b"Subject: after four gigabytes\nMessage-ID: <after@example.com>\n"
                b"References: <huge@example.com>\n\nStill here.\n")
    size = os.path.getsize(path)
    db = fresh_db("huge.db")
    try:
        r = deja("ingest", "--db", db, path)
        assert r.returncode == 0, r.stderr
        with sqlite3.connect(db) as c:
            got = c.execute("SELECT byte_offset, byte_length, subject, parent_id FROM messages"
                            " ORDER BY id").fetchall()
            flags = c.execute("SELECT flags FROM messages WHERE id = 1").fetchone()[0]
        assert got == [(0, size - 174, "huge", None),
                       (size - 174, 174, "after four gigabytes", 1)], got
        assert "truncated" in flags and "nul-bytes" in flags
    finally:
        os.unlink(path)


@tap.test
def many_small_files_keep_the_small_pages():
    # 33 MB of archives, but as a file for each message (a Maildir, a news spool): each file
    # is stored in a savepoint that copies every page it changes first, and 16 KiB pages made
    # that cheaper (store.c, page_size_sql()).  One mbox of the same size gets 64 KiB pages
    # (fifty_megabyte_single_line, above).
    top = tmp("big-maildir")
    os.makedirs(os.path.join(top, "new"), exist_ok=True)
    line = "Why is the reactor not running? It stops when the last deferred fires.\n"
    body = line * (60 * 1024 // len(line))          # a file of about 60 KiB
    for i in range(560):
        with open(os.path.join(top, "new", "%d.M%dP1.host" % (1000000000 + i, i)), "w") as f:
            f.write("From: p%d@example.org\nSubject: post %d\nMessage-ID: <big%d@example.org>\n"
                    "Date: Tue, 4 Mar 1997 10:00:00 GMT\n\n%s" % (i % 9, i, i, body))
    db = fresh_db("big-maildir.db")
    r = deja("ingest", "--db", db, top)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 560
        assert c.execute("PRAGMA page_size").fetchone()[0] == 16384


if __name__ == "__main__":
    tap.main(TMP)
