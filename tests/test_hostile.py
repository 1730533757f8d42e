#!/usr/bin/env python3
"""Hostile and unlucky input: a stranger's database and archives, odd names,
outputs that a stranger's text reaches.

One test per class of defect (docs/security.md lists them): each was seen
failing before its fix.  Run by meson (suite 'cli').
"""
import csv
import io
import json
import os
import sqlite3
import subprocess
import threading
import zipfile

import tap
from cli_helpers import FIXTURES, SAMPLE, TMP, deja, fresh_db, tmp


def message(n, sender="A <a@x.example>", headers="", body="body"):
    return ("From a@b Mon Jan  1 10:00:00 2001\nFrom: %s\nSubject: s %s\nMessage-ID: <%s@x>\n"
            "Date: Mon, 1 Jan 2001 10:00:00 +0000\n%s\n%s\n\n" % (sender, n, n, headers, body))


def write(name, text, mode="w"):
    path = tmp(name)
    with open(path, mode) as f:
        f.write(text)
    return path


def ok(*args):
    r = deja(*args)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r


def sample_db(name):
    db = fresh_db(name)
    ok("ingest", "-q", "--db", db, SAMPLE)
    return db


def refused(db, fragment):
    r = deja("stats", "--db", db)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "cannot open" in r.stderr and fragment in r.stderr, r.stderr
    r = deja("ingest", "-q", "--db", db, SAMPLE)
    assert r.returncode != 0 and fragment in r.stderr, r.stderr


# -- a stranger's database ---------------------------------------------------

@tap.test
def a_view_or_trigger_deja_did_not_make_is_refused():
    db = sample_db("view.db")
    with sqlite3.connect(db) as c:
        c.execute("CREATE VIEW mine AS SELECT 1")
    refused(db, "view 'mine' that deja did not make")
    with sqlite3.connect(db) as c:
        c.execute("DROP VIEW mine")
        # one of deja's views, defined otherwise
        c.execute("DROP VIEW replies")
        c.execute("CREATE VIEW replies AS SELECT * FROM messages")
    refused(db, "view 'replies'")
    db = sample_db("trigger.db")
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE seen (x)")
        c.execute("CREATE TRIGGER spy AFTER INSERT ON messages BEGIN INSERT INTO seen VALUES (1); END")
    refused(db, "trigger 'spy'")
    # a table of one's own is not deja's business, and stays readable
    db = sample_db("own-table.db")
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notes (message_id INTEGER, note TEXT)")
    ok("stats", "--db", db)


@tap.test
def stored_sql_is_never_executed():
    db = sample_db("state.db")
    pwn = tmp("pwn.db")
    with sqlite3.connect(db) as c:
        c.execute("DROP INDEX messages_date")
        # what an older deja kept (the statements), with a stranger's line
        c.execute("INSERT INTO deja_state (key, value) VALUES ('deferred_indexes', ?)",
                  ("CREATE INDEX messages_date ON messages (date);\n"
                   "ATTACH DATABASE '%s' AS pwn; CREATE TABLE pwn.t (x);\n"
                   "CREATE INDEX evil ON messages (subject);" % pwn,))
    ok("stats", "--db", db)
    assert not os.path.exists(pwn)
    with sqlite3.connect(db) as c:
        indexes = dict(c.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'index'"))
        assert c.execute("SELECT count(*) FROM deja_state WHERE key = 'deferred_indexes'").fetchone()[0] == 0
    assert indexes["messages_date"] == "CREATE INDEX messages_date ON messages (date)"
    assert "evil" not in indexes


@tap.test
def own_text_reads_the_same_with_an_untrusted_schema():
    # deja's connections overload json_extract/json_array_length (innocuous,
    # for trusted_schema off): the generated own_text must read exactly as
    # SQLite's own functions compute it, on every row of every fixture
    db = fresh_db("own-text.db")
    r = deja("ingest", "-q", "--db", db, FIXTURES)
    assert r.returncode in (0, 1), r.stderr
    out = ok("export", "-q", "--db", db, "--duplicates", "--fields", "id,own_text", "--format", "jsonl").stdout
    ours = {row["id"]: row["own_text"] for row in map(json.loads, out.splitlines())}
    with sqlite3.connect(db) as c:
        theirs = dict(c.execute("SELECT id, own_text FROM messages"))
        spans = c.execute("SELECT count(*) FROM messages WHERE own_spans IS NOT NULL").fetchone()[0]
    assert len(ours) > 150 and spans > 100, (len(ours), len(theirs), spans)
    assert ours == {i: theirs[i] for i in ours}
    # own_spans that are not deja's: own_text is NULL, not a failed statement
    with sqlite3.connect(db) as c:
        c.execute("UPDATE messages SET own_spans = '[1, \"x\"]' WHERE id = 1")
        c.execute("UPDATE messages SET own_spans = '{\"a\": 1}' WHERE id = 2")
    out = ok("export", "-q", "--db", db, "--duplicates", "--fields", "id,own_text", "--format", "jsonl").stdout
    rows = {row["id"]: row["own_text"] for row in map(json.loads, out.splitlines())}
    assert rows[1] is None and rows[2] is None and rows[3] == theirs[3]


@tap.test
def two_ingests_creating_one_database_both_succeed():
    a = write("race-a.mbox", message("ra"))
    b = write("race-b.mbox", message("rb"))
    for trial in range(4):
        db = fresh_db("race.db")
        env = dict(os.environ, DEJA_NO_PROGRESS="1")
        procs = [subprocess.Popen([os.environ["DEJA"], "ingest", "-q", "--db", db, f],
                                  stderr=subprocess.PIPE, text=True, env=env) for f in (a, b)]
        errors = [p.communicate()[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errors
        with sqlite3.connect(db) as c:
            assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 2


# -- archives: members stay inside, each is read, in linear time -------------

@tap.test
def a_zip_member_never_replaces_another_file():
    d = tmp("zip-escape")
    os.makedirs(d, exist_ok=True)
    real = os.path.join(d, "b.mbox")
    with open(real, "w") as f:
        f.write(message("real1") + message("real2"))
    z = os.path.join(d, "a.zip")
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("../b.mbox", message("dotdot"))
        zf.writestr("/abs/c.mbox", message("absolute"))
        zf.writestr("./x/../../d.mbox", message("dots"))
    db = fresh_db("zip-escape.db")
    ok("ingest", "-q", "--db", db, real, z)
    with sqlite3.connect(db) as c:
        files = dict(c.execute("SELECT path, messages FROM files"))
        ids = sorted(r[0] for r in c.execute("SELECT message_id FROM messages"))
    assert files == {real: 2, z + "/b.mbox": 1, z + "/abs/c.mbox": 1, z + "/x/d.mbox": 1}, files
    assert ids == ["absolute@x", "dotdot@x", "dots@x", "real1@x", "real2@x"], ids


@tap.test
def zip_members_of_one_name_are_all_read():
    z = tmp("same-name.zip")
    with zipfile.ZipFile(z, "w") as zf:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in ("first", "second", "third"):
                zf.writestr("a.mbox", message(n))
    db = fresh_db("same-name.db")
    ok("ingest", "-q", "--db", db, z)
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT f.path, m.message_id FROM messages m JOIN files f ON f.id = m.file_id"
                         " ORDER BY f.path").fetchall()
    assert rows == [(z + "/a.mbox", "first@x"), (z + "/a.mbox;2", "second@x"),
                    (z + "/a.mbox;3", "third@x")], rows
    # scan reads them too
    r = ok("scan", z)
    assert r.stdout.count(z + "/a.mbox") == 3, r.stdout


@tap.test
def a_zip_of_many_members_is_read_once():
    # each member used to read the archive from its start: 2,000 members
    # took 24 s, 3,000 would take about a minute; once, a few seconds
    import time
    z = tmp("many.zip")
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(3000):
            zf.writestr("g/m%04d.mbox" % i, message("z%d" % i))
    db = fresh_db("many.db")
    t = time.monotonic()
    ok("ingest", "-q", "--db", db, z)
    took = time.monotonic() - t
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 3000
    assert took < 40, took


if __name__ == "__main__":
    tap.main(TMP)
