#!/usr/bin/env python3
"""What real archives need, from fixtures written from the rules (issue 12).

In-Reply-To forms of old mailers, search of plain words, distinct exports,
compressed inputs.  Run by meson (suite 'cli').
"""
import bz2
import gzip
import hashlib
import json
import lzma
import os
import sqlite3
import subprocess
import zipfile

import tap
from cli_helpers import FIXTURES, SAMPLE, TMP, check_bad_input, deja, fresh_db, tmp

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
def one_filter_in_every_command():
    db = fresh_db("filter.db")
    assert deja("ingest", "--db", db, WORDS).returncode == 0
    # --group and --author repeat the same way everywhere (any of them).
    assert search(db, "reactor", "--group", "comp.lang.python", "--group", "comp.lang.c++") == [
        "C++ bindings", "Re: e-mail from the reactor", "e-mail from the reactor"]
    assert search(db, "reactor", "--author", "BOB", "--author", "carol") == [
        "C++ bindings", "Re: e-mail from the reactor"]
    r = deja("export", "--db", db, "--format", "jsonl", "--fields", "subject",
             "--group", "comp.lang.c*", "--author", "builder")
    assert [json.loads(x)["subject"] for x in r.stdout.splitlines()] == ["C++ bindings"], r.stderr
    out = tmp("filtered.mbox")
    r = deja("export-mbox", "--db", db, "--out", out, "--author", "alice", "--author", "carol")
    assert r.returncode == 0, r.stderr
    with open(out, "rb") as f:
        assert f.read().count(b"\nMessage-ID: ") + 0 == 2
    r = deja("network", "--db", db, "--format", "json", "--author", "carol", "--author", "alice")
    assert r.returncode == 0 and json.loads(r.stdout)["vertices"] == 2, r.stdout
    # A query's from:/group: join the options; dates are checked everywhere.
    assert search(db, "reactor", "from:carol", "--author", "bob") == [
        "C++ bindings", "Re: e-mail from the reactor"]
    for args in (["search", "x"], ["export"], ["export-mbox", "--out", tmp("x.mbox")],
                 ["network"]):
        r = deja(args[0], "--db", db, "--since", "1997-13", *args[1:])
        assert r.returncode == 2 and "is not a date" in r.stderr, (args, r.stderr)


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


@tap.test
def the_least_damaged_copy_is_canonical():
    db = fresh_db("best.db")
    assert deja("ingest", "--db", db, os.path.join(FIXTURES, "replies", "best-copy.mbox")).returncode == 0
    rows = query(db, "SELECT id, from_name, subject, duplicate_of FROM messages ORDER BY id")
    assert rows[0][1] == "J?rgen M?ller" and rows[0][3] == rows[1][0], rows
    assert rows[1][1:] == ("J\u00fcrgen M\u00fcller", "Gr\u00fc\u00dfe aus M\u00fcnchen", None), rows
    r = deja("export", "--db", db, "--format", "jsonl", "--fields", "id,from_name")
    assert [json.loads(line)["from_name"] for line in r.stdout.splitlines()] == ["J\u00fcrgen M\u00fcller"]


@tap.test
def the_threading_mode_is_kept_by_later_ingests():
    db = fresh_db("mode.db")
    first, second = tmp("mode-1.mbox"), tmp("mode-2.mbox")
    with open(first, "w") as f:
        f.write("From a@example.org Mon Jan  5 08:00:00 2004\nFrom: a@example.org\nSubject: Help with X\n"
                "Message-ID: <m1@example.org>\n\nQuestion.\n\n"
                "From b@example.org Mon Jan  5 09:00:00 2004\nFrom: b@example.org\nSubject: Re: Help with X\n"
                "Message-ID: <m2@example.org>\n\nAnswer, from a mailer without References.\n")
    with open(second, "w") as f:
        f.write("From c@example.org Mon Jan  5 10:00:00 2004\nFrom: c@example.org\nSubject: Other\n"
                "Message-ID: <m3@example.org>\n\nUnrelated.\n")
    assert deja("ingest", "--db", db, first).returncode == 0

    def joined():
        return query(db, "SELECT count(DISTINCT thread_id) FROM messages WHERE message_id IN"
                         " ('m1@example.org', 'm2@example.org')") == [(1,)]
    assert not joined()
    assert deja("thread", "--db", db, "--subject").returncode == 0
    assert joined()
    assert deja("ingest", "--db", db, second).returncode == 0      # kept, not undone
    assert joined()
    assert deja("thread", "--db", db).returncode == 0              # back to References alone
    assert not joined()
    os.utime(second)
    with open(second, "a") as f:
        f.write("\nFrom d@example.org Mon Jan  5 11:00:00 2004\nFrom: d@example.org\nSubject: More\n"
                "Message-ID: <m4@example.org>\n\nMore.\n")
    assert deja("ingest", "--db", db, second).returncode == 0
    assert not joined()


COMPRESSED = os.path.join(FIXTURES, "compressed")


@tap.test
def bzip2_xz_and_zip_members_are_read():
    db = fresh_db("compressed.db")
    paths = [os.path.join(COMPRESSED, n) for n in ("sample.mbox.bz2", "usenet.mbox.zip")]
    r = deja("ingest", "--db", db, *paths)
    assert r.returncode == 0, r.stderr
    assert "skipping '%s/README.txt': not an mbox file" % paths[1] in r.stderr, r.stderr
    files = query(db, "SELECT path, compression FROM files ORDER BY path")
    assert [(os.path.basename(p), c) for p, c in files] == [
        ("sample.mbox.bz2", "bzip2"), ("plain-words.mbox", "zip")], files
    assert files[1][0].endswith("usenet.mbox.zip/plain-words.mbox")
    # The zip's sample.mbox is the .bz2's content: the same hash, not stored twice.
    assert "usenet.mbox.zip/sample.mbox' has the same content as" in r.stderr, r.stderr
    with open(SAMPLE, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    assert query(db, "SELECT count(*) FROM files WHERE sha256 = ?", sha) == [(1,)]
    assert query(db, "SELECT count(*) FROM messages") == [(6 + 3,)]
    r = deja("scan", os.path.join(COMPRESSED, "sample.mbox.xz"),
             os.path.join(COMPRESSED, "usenet.mbox.zip", "plain-words.mbox"))
    assert r.returncode == 0, r.stderr
    assert ": 6 messages" in r.stdout and "plain-words.mbox: 3 messages" in r.stdout, r.stdout
    # A member named on its own, and read back for export-mbox.
    out = tmp("zip-export.mbox")
    assert deja("export-mbox", "--db", db, "--out", out).returncode == 0
    with open(out, "rb") as f:
        assert f.read().count(b"\nFrom ") + 1 == 6 + 3


@tap.test
def broken_compressed_files_are_errors_naming_them():
    with open(SAMPLE, "rb") as f:
        data = f.read()
    for name, packed in (("truncated.mbox.bz2", bz2.compress(data)[:-20]),
                         ("truncated.mbox.xz", lzma.compress(data)[:-20])):
        path = tmp(name)
        with open(path, "wb") as f:
            f.write(packed)
        check_bad_input(path, "corrupt or truncated")
    path = tmp("broken.zip")
    with open(path, "wb") as f:
        f.write(b"PK\x03\x04" + os.urandom(200))
    r = deja("ingest", "--db", fresh_db("broken-zip.db"), path)
    assert r.returncode == 1 and "cannot ingest '%s'" % path in r.stderr, r.stderr


@tap.test
def compression_bombs_are_stopped_before_the_disk_fills():
    bomb = os.path.join(COMPRESSED, "bomb.mbox.bz2")
    assert os.path.getsize(bomb) < 1000
    check_bad_input(bomb, "likely compression bomb")
    r = deja("scan", bomb)
    assert r.returncode == 1 and "likely compression bomb" in r.stderr, r.stderr
    # gzip and zip, made here: 100 MB of zeros, about 100 KB packed.
    head = b"From a@example.com Mon Jan  1 00:00:00 2001\nSubject: x\n\n"
    gz = tmp("bomb.mbox.gz")
    with gzip.open(gz, "wb", compresslevel=1) as f:
        f.write(head)
        for _ in range(100):
            f.write(bytes(1 << 20))
    check_bad_input(gz, "likely compression bomb")
    zp = tmp("bomb.mbox.zip")
    with zipfile.ZipFile(zp, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("huge.mbox", "w", force_zip64=True) as f:
            f.write(head)
            for _ in range(100):
                f.write(bytes(1 << 20))
    check_bad_input(zp + "/huge.mbox", "likely compression bomb")
    # The limit is a ratio: allowed when asked for.
    env = dict(os.environ, DEJA_MAX_EXPANSION="10000000")
    r = subprocess.run([os.environ["DEJA"], "scan", bomb], capture_output=True, text=True, env=env)
    assert "compression bomb" not in r.stderr, r.stderr


if __name__ == "__main__":
    tap.main(TMP)
