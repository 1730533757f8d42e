#!/usr/bin/env python3
"""End-to-end tests of the deja binary: ingest, scan, log, and bad input.

Run by meson (suite 'cli') with DEJA = the binary and FIXTURES = fixtures/.
Set DEJA_UPDATE_EXPECT=1 to rewrite .expect files after a reviewed change.
"""
import glob
import gzip
import json
import mailbox
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import tap
from dump import dump

from cli_helpers import (DEJA, FIXTURES, SAMPLE, TMP, check_bad_input, deja, expect_file,
                         fresh_db, table_count, tmp)


@tap.test
def sample_ingest_matches_expect():
    db = fresh_db("sample.db")
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0, r.stderr
    assert "ingested '%s': 6 messages" % SAMPLE in r.stderr, r.stderr
    expect_file(dump(db), os.path.join(FIXTURES, "sample", "comp.lang.c.expect"))


@tap.test
def python_mailbox_missplits_where_deja_does_not():
    # The true count is 6 (see fixtures/sample/README.md); a liberal parser
    # cuts at three body lines and invents three headerless messages.
    assert len(mailbox.mbox(SAMPLE)) == 9
    db = fresh_db("mailbox.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    assert table_count(db, "messages") == 6
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM separator_log").fetchone()[0] == 3


@tap.test
def every_stored_text_is_valid_utf8():
    db = fresh_db("utf8.db")
    paths = [SAMPLE] + [os.path.join(FIXTURES, "from", f) for f in
                        ("y_nul_bytes.mbox", "y_rfc4155_variants.mbox", "y_crlf.mbox")]
    assert deja("ingest", "--db", db, *paths).returncode == 0
    c = sqlite3.connect(db)
    c.text_factory = bytes
    cols = ["subject", "from_addr", "from_name", "body", "envelope", "message_id", "date_raw"]
    n = 0
    for row in c.execute("SELECT %s FROM messages" % ", ".join(cols)):
        for v in row:
            if v is not None:
                v.decode("utf-8")
                assert b"\0" not in v
                n += 1
    for (t,) in c.execute("SELECT line_text FROM separator_log"):
        t.decode("utf-8")
    assert n > 40


@tap.test
def reingest_unchanged_is_a_noop():
    db = fresh_db("again.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    before = dump(db)
    with sqlite3.connect(db) as c:
        ids = c.execute("SELECT group_concat(id) FROM messages").fetchone()
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0 and "unchanged" in r.stderr, r.stderr
    assert dump(db) == before
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT group_concat(id) FROM messages").fetchone() == ids


@tap.test
def changed_file_replaces_its_rows():
    db = fresh_db("changed.db")
    path = tmp("growing.mbox")
    shutil.copy(os.path.join(FIXTURES, "from", "y_no_blank_before.mbox"), path)
    assert deja("ingest", "--db", db, path).returncode == 0
    assert table_count(db, "messages") == 2
    with open(path, "ab") as f:
        f.write(b"\nFrom carol@example.com Thu Jan 26 10:00:00 2017\nFrom: carol@example.com\n\nthird\n")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0, r.stderr
    assert table_count(db, "messages") == 3
    assert table_count(db, "files") == 1


@tap.test
def file_truncated_to_empty_has_no_rows_left():
    db = fresh_db("emptied.db")
    path = tmp("emptied.mbox")
    shutil.copy(SAMPLE, path)
    assert deja("ingest", "--db", db, path).returncode == 0
    assert table_count(db, "messages") == 6
    open(path, "wb").close()
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0 and "is empty" in r.stderr, r.stderr
    assert table_count(db, "messages") == 0
    assert table_count(db, "separator_log") == 0
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT size, messages FROM files").fetchall() == [(0, 0)]
        assert c.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'sizeof'").fetchone() == (0,)
    # An empty file never ingested leaves no row.
    other = tmp("never.mbox")
    open(other, "wb").close()
    assert deja("ingest", "--db", db, other).returncode == 0
    assert table_count(db, "files") == 1


@tap.test
def gzip_is_read_and_same_content_is_not_stored_twice():
    db = fresh_db("gz.db")
    gz = tmp("comp.lang.c.mbox.gz")
    with open(SAMPLE, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    r = deja("ingest", "--db", db, gz)
    assert r.returncode == 0, r.stderr
    assert table_count(db, "messages") == 6
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT compression FROM files").fetchone()[0] == "gzip"
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0 and "same content" in r.stderr, r.stderr
    assert table_count(db, "messages") == 6


@tap.test
def missing_file():
    check_bad_input(tmp("does-not-exist.mbox"), "No such file")


@tap.test
def garbage_file():
    path = tmp("garbage.mbox")
    with open(path, "wb") as f:
        f.write(os.urandom(64 * 1024))
    check_bad_input(path, "not an mbox")


@tap.test
def not_an_mbox():
    check_bad_input(os.path.join(FIXTURES, "from", "n_not_mbox.mbox"), "not an mbox")


@tap.test
def truncated_gzip():
    path = tmp("truncated.mbox.gz")
    with open(SAMPLE, "rb") as f:
        data = gzip.compress(f.read())
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    check_bad_input(path, "truncated gzip")


@tap.test
def gzip_of_garbage():
    path = tmp("garbage.mbox.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(os.urandom(10000)))
    check_bad_input(path, "not an mbox")


@tap.test
def unreadable_file():
    path = tmp("unreadable.mbox")
    shutil.copy(SAMPLE, path)
    os.chmod(path, 0)
    # root reads anything: run deja as nobody so the permission holds.
    user = 65534 if os.geteuid() == 0 else None
    check_bad_input(path, "Permission denied", user=user)


@tap.test
def zip_and_pdf_renamed_mbox():
    import zipfile
    # A zip is known by its bytes, not its name: its mbox members are read.
    path = tmp("archive.mbox")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("inbox.mbox", open(SAMPLE, "rb").read())
    db = fresh_db("renamed-zip.db")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0 and "ingested '%s/inbox.mbox': 6 messages" % path in r.stderr, r.stderr
    # A zip whose only member is not an mbox is an error naming the member.
    path = tmp("notes.mbox")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("notes.txt", b"just notes\n")
    r = deja("ingest", "--db", db, path)
    assert "skipping '%s/notes.txt': not an mbox" % path in r.stderr, r.stderr
    path = tmp("paper.mbox")
    with open(path, "wb") as f:
        f.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n" + os.urandom(4096))
    check_bad_input(path, "not an mbox")


@tap.test
def nul_bytes_in_headers_and_bodies():
    path = tmp("nul.mbox")
    with open(path, "wb") as f:
        f.write(b"From a@example.com Mon Mar  3 10:00:00 2003\nFrom: A\0B <a@example.com>\n"
                b"Subject: nul\0here\nMessage-ID: <nul@example.com>\n\nbody\0text\n")
    db = fresh_db("nul.db")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0, r.stderr
    c = sqlite3.connect(db)
    c.text_factory = bytes
    subject, name, addr, body, flags = c.execute(
        "SELECT subject, from_name, from_addr, body, flags FROM messages").fetchone()
    # GMime cut header values at a NUL ("A\0B <a@…>" gave the address "a").
    assert subject.decode("utf-8") == "nul\ufffdhere"
    assert (name.decode("utf-8"), addr) == ("A\ufffdB", b"a@example.com")
    assert body.decode("utf-8") == "body\ufffdtext\n"
    assert b"nul-bytes" in flags


@tap.test
def directory_with_an_unreadable_file():
    d = tmp("mixed-dir")
    os.makedirs(d, exist_ok=True)
    shutil.copy(SAMPLE, os.path.join(d, "a.mbox"))
    bad = os.path.join(d, "b.mbox")
    shutil.copy(SAMPLE, bad)
    with open(bad, "a") as f:
        f.write("\n")            # other content, so it is not a duplicate
    os.chmod(bad, 0)
    db = fresh_db("mixed-dir.db")
    user = 65534 if os.geteuid() == 0 else None
    if user is not None:
        open(db, "w").close()
        os.chmod(db, 0o666)
        os.chmod(d, 0o755)
    r = deja("ingest", "--db", db, d, user=user)
    assert r.returncode == 1, r.stderr
    assert "cannot ingest '%s'" % bad in r.stderr and "Permission denied" in r.stderr, r.stderr
    assert table_count(db, "messages") == 6


@tap.test
def missing_or_read_only_database_directory():
    r = deja("ingest", "--db", tmp("no/such/dir/x.db"), SAMPLE)
    assert r.returncode == 1 and "cannot open database '%s'" % tmp("no/such/dir/x.db") in r.stderr, r.stderr
    d = tmp("read-only")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o555)
    user = 65534 if os.geteuid() == 0 else None
    r = deja("ingest", "--db", os.path.join(d, "x.db"), SAMPLE, user=user)
    assert r.returncode == 1 and "cannot open database" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(d, "x.db"))


def die_writing(db, *statements):
    """A Python process that runs @statements on @db (as c) and exits
    without closing it: what a writer killed there leaves beside db."""
    subprocess.run([sys.executable, "-c", "\n".join(
        ["import os, sqlite3", "c = sqlite3.connect(%r, isolation_level=None)" % db]
        + list(statements) + ["os._exit(0)"])], check=True)


@tap.test
def database_in_a_read_only_directory_can_be_read():
    # A corpus shared read-only: SQLite cannot create the WAL index (-shm)
    # beside it, so deja's read commands open it as immutable.
    d = tmp("shared")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
    db = os.path.join(d, "corpus.db")
    archive = os.path.join(d, "comp.lang.c.mbox")   # export-mbox reads it back, as nobody
    shutil.copy(SAMPLE, archive)
    os.chmod(archive, 0o644)
    assert deja("ingest", "--db", db, archive).returncode == 0
    os.chmod(d, 0o555)
    user = 65534 if os.geteuid() == 0 else None
    try:
        r = deja("search", "--db", db, "sizeof", user=user)
        assert r.returncode == 0 and "Are arrays pointers?" in r.stdout, r.stderr
        for args in (["stats"], ["log"], ["export", "--format", "jsonl"],
                     ["network", "--format", "csv", "--stats", "--out", tmp("ro-edges.csv")],
                     ["export-mbox", "--out", tmp("ro.mbox")]):
            r = deja(args[0], "--db", db, *args[1:], user=user)
            assert r.returncode == 0, (args, r.stderr)
        # Writing is refused, naming the database.
        r = deja("thread", "--db", db, user=user)
        assert r.returncode == 1 and "cannot open database '%s'" % db in r.stderr, r.stderr
        r = deja("ingest", "--db", db, SAMPLE, user=user)
        assert r.returncode == 1 and "cannot open database '%s'" % db in r.stderr, r.stderr
        assert sorted(os.listdir(d)) == ["comp.lang.c.mbox", "corpus.db"], os.listdir(d)
        # A log left by a writer that did not finish holds committed
        # changes that an immutable reader would miss: refused.
        os.chmod(d, 0o755)
        die_writing(db, "c.execute('PRAGMA wal_autocheckpoint = 0')",
                    "c.execute(\"UPDATE messages SET subject = 'changed'\")")
        assert os.path.getsize(db + "-wal") > 0
        os.chmod(d, 0o555)
        # With its index (-shm) there too, SQLite reads the log.
        r = deja("export", "--db", db, "--fields", "subject", user=user)
        assert r.returncode == 0 and "Are arrays pointers?" not in r.stdout, r.stderr
        assert r.stdout.count("changed") == 6, r.stdout
        os.chmod(d, 0o755)
        os.unlink(db + "-shm")
        os.chmod(d, 0o555)
        r = deja("search", "--db", db, "sizeof", user=user)
        assert r.returncode == 1, r.stderr
        assert "write-ahead log '%s-wal' may hold changes" % db in r.stderr, r.stderr
        # A rollback journal left by a writer killed in a transaction (as
        # deja merge, which copies in one, can be) holds what to undo
        os.chmod(d, 0o755)
        assert deja("stats", "--db", db).returncode == 0   # the log applied
        assert not os.path.exists(db + "-wal")
        die_writing(db, "c.execute('PRAGMA journal_mode = DELETE')",
                    "c.execute('PRAGMA cache_size = 1')",   # spills: the journal is hot
                    "c.execute('BEGIN')",
                    "c.execute(\"UPDATE messages SET subject = 'undone'\")",
                    "c.execute('CREATE TABLE filler (x)')",
                    "c.executemany('INSERT INTO filler VALUES (?)',"
                    " [(os.urandom(2000),) for i in range(2000)])")
        assert os.path.getsize(db + "-journal") > 0
        os.chmod(d, 0o555)
        r = deja("search", "--db", db, "sizeof", user=user)
        assert r.returncode == 1, r.stderr
        assert "rollback journal '%s-journal' may hold a transaction" % db in r.stderr, r.stderr
        # Where it can write, deja rolls it back before reading anything
        os.chmod(d, 0o755)
        r = deja("export", "--db", db, "--fields", "subject")
        assert r.returncode == 0 and "undone" not in r.stdout, r.stderr
        assert r.stdout.count("changed") == 6, r.stdout
        assert not os.path.exists(db + "-journal")
    finally:
        os.chmod(d, 0o755)


@tap.test
def one_bad_file_does_not_stop_the_others():
    db = fresh_db("mixed.db")
    bad = os.path.join(FIXTURES, "from", "n_not_mbox.mbox")
    r = deja("ingest", "--db", db, bad, SAMPLE)
    assert r.returncode == 1
    assert "cannot ingest '%s'" % bad in r.stderr
    assert table_count(db, "messages") == 6


@tap.test
def a_file_undone_between_others_takes_nothing_of_theirs():
    # Files are committed together (every 64 MiB of archive text); each is
    # still all or nothing: a file undone after its rows were written (here
    # a copy, under another path, of one read just before) leaves the files
    # before and after it exactly as separate ingests store them.  The two
    # are larger than the files split ahead of the writer (4 MiB): a small
    # copy is known by its hash before any of its rows is written, and is
    # not begun (tests/test_habits.py).
    other = os.path.join(FIXTURES, "threads", "comp.std.c.mbox")
    big, copy = tmp("big.mbox"), tmp("copy-of-big.mbox")
    with open(big, "w") as f:
        for i in range(4500):
            f.write("From b%d@example.org Tue Mar  4 10:00:00 1997\nFrom: B%d <b%d@example.org>\n"
                    "Subject: long post %d\nMessage-ID: <big%d@example.org>\n"
                    "Date: Tue, 4 Mar 1997 10:00:00 GMT\n\n%s\n" % (i % 40, i % 40, i % 40, i, i,
                                                                      "A line of the post.\n" * 50))
    assert os.path.getsize(big) > 4 << 20
    shutil.copy(big, copy)
    together = fresh_db("together.db")
    r = deja("ingest", "-v", "--db", together, SAMPLE, big, copy, other)
    assert r.returncode == 0, r.stderr
    assert "'%s' has the same content as '%s'" % (copy, big) in r.stderr, r.stderr
    # After the undone file, the first ingest's Message-ID index is still
    # to be built: the thread guess does not look stored messages up by it
    # (a scan each), and threading sets every row right all the same.
    assert "thread guess starts empty (the Message-ID index is deferred)" in r.stderr, r.stderr
    apart = fresh_db("apart.db")
    for path in (SAMPLE, big, other):
        assert deja("ingest", "--db", apart, path).returncode == 0
    assert table_count(together, "files") == 3
    assert table_count(together, "messages") == table_count(apart, "messages") > 4500
    assert dump(together) == dump(apart)


@tap.test
def files_read_ahead_are_stored_as_files_read_one_by_one():
    # A directory of small files is split and decoded ahead of the writer
    # (src/pipeline/ahead.c); the rows are those of one ingest per file, in
    # the same order, whatever the files are: mbox files of every shape,
    # an empty one, one that is not an mbox, compressed ones, a copy of
    # another's content, one already in the database (read the usual way).
    d = tmp("ahead")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    names = []
    sources = sorted(glob.glob(os.path.join(FIXTURES, "from", "*.mbox"))) + \
        sorted(glob.glob(os.path.join(FIXTURES, "text", "*.mbox"))) + \
        [os.path.join(FIXTURES, "compressed", "sample.mbox.xz"),
         os.path.join(FIXTURES, "threads", "comp.lang.c.mbox"), SAMPLE]
    for i, src in enumerate(sources):
        name = "%03d-%s" % (i, os.path.basename(src))
        shutil.copy(src, os.path.join(d, name))
        names.append(name)
    first = os.path.join(d, [n for n in names if n.endswith("-y_crlf.mbox")][0])
    together = fresh_db("ahead-together.db")
    assert deja("ingest", "--db", together, first).returncode == 0
    r = deja("ingest", "--db", together, "--verbose", d)
    assert r.returncode == 0, r.stderr
    assert "split and hashed ahead" in r.stderr, r.stderr
    apart = fresh_db("ahead-apart.db")
    assert deja("ingest", "--db", apart, first).returncode == 0
    for name in sorted(names):
        r = deja("ingest", "--db", apart, os.path.join(d, name))
        assert r.returncode in (0, 1), r.stderr
    assert table_count(together, "files") == table_count(apart, "files") > 30
    assert dump(together) == dump(apart)
    with sqlite3.connect(together) as a, sqlite3.connect(apart) as b:
        for sql in ("SELECT id, byte_offset, lang, thread_id FROM messages ORDER BY id",
                    "SELECT id, line_no, verdict FROM separator_log ORDER BY id",
                    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'the' ORDER BY rowid"):
            assert a.execute(sql).fetchall() == b.execute(sql).fetchall(), sql


@tap.test
def empty_file_is_a_valid_mbox():
    db = fresh_db("empty.db")
    path = tmp("empty.mbox")
    open(path, "wb").close()
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0, r.stderr
    assert "empty" in r.stderr and path in r.stderr
    assert table_count(db, "messages") == 0


@tap.test
def directory_skips_non_mbox_files_with_a_note():
    d = tmp("archive")
    os.makedirs(d, exist_ok=True)
    shutil.copy(SAMPLE, os.path.join(d, "a.mbox"))
    with open(os.path.join(d, "README"), "w") as f:
        f.write("not a mailbox\n")
    db = fresh_db("dir.db")
    r = deja("ingest", "--db", db, d)
    assert r.returncode == 0, r.stderr
    assert "skipping '%s'" % os.path.join(d, "README") in r.stderr
    assert table_count(db, "messages") == 6


@tap.test
def newer_schema_is_refused_unmodified():
    db = fresh_db("newer.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA user_version = 99")
    with open(db, "rb") as f:
        before = f.read()
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 1 and "newer" in r.stderr, r.stderr
    with open(db, "rb") as f:
        assert f.read() == before


@tap.test
def foreign_database_is_refused():
    db = fresh_db("foreign.db")
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notes (x)")
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 1 and "not a deja database" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0] == 1


@tap.test
def scan_reports_and_logs():
    r = deja("scan", "--log", SAMPLE)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == ("%s: 6 messages, 0 separators accepted against context, 2 envelope-shaped"
                         " lines rejected, 3 lines where a liberal parser would split and deja"
                         " does not; read as an mbox file" % SAMPLE), lines[-1]
    assert lines[0].startswith("%s:16: body prose [T] From what I hear" % SAMPLE), lines[0]
    assert any(":96: rejected inside-mime-part [R] From eve@example.com" in l for l in lines)


@tap.test
def scan_refuses_non_mbox_with_exit_1():
    bad = os.path.join(FIXTURES, "from", "n_prose_start.mbox")
    r = deja("scan", bad, SAMPLE)
    assert r.returncode == 1
    assert "deja: cannot scan '%s': not an mbox" % bad in r.stderr
    assert "6 messages" in r.stdout


@tap.test
def log_command_prints_the_separator_log():
    db = fresh_db("log.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    r = deja("log", "--db", db, "--format", "tsv", "--verdict", "rejected")
    assert r.returncode == 0, r.stderr
    rows = [l.split("\t") for l in r.stdout.splitlines()]
    assert rows[0] == ["path", "line_no", "byte_offset", "verdict", "reason", "shape", "line_text"]
    assert [(r[1], r[4], r[5]) for r in rows[1:]] == [("37", "no-header-block", "G"),
                                                      ("96", "inside-mime-part", "R")]
    with open(SAMPLE, "rb") as f:
        data = f.read()
    offset = int(rows[2][2])
    assert data[offset:offset + 5] == b"From "
    # table with context read back from the archive, and a summary per file
    r = deja("log", "--db", db, "--context", "1", "--reason", "no-header-block")
    assert r.stdout.splitlines()[:4] == [
        "%s:37: rejected no-header-block [G] From 2003" % SAMPLE,
        "         36 | They do.  From 1989 to today the rule has been the same.",
        "  >>     37 | From 2003",
        "         38 | gh-issue-97928: fixed"], r.stdout
    assert r.stdout.splitlines()[-1] == ("%s: 0 separators accepted against context, 1 lines rejected,"
                                         " 0 lines a liberal parser would split on" % SAMPLE)
    rows = json.loads(deja("log", "--db", db, "--format", "json").stdout)
    assert [(x["line_no"], x["verdict"]) for x in rows] == [(16, "body"), (37, "rejected"), (96, "rejected")]
    assert deja("log", "--db", db, "--format", "xml").returncode == 2


@tap.test
def export_mbox_reads_right_in_python_mailbox():
    # The sample fools Python's mailbox (9 messages for 6); deja's export does not.
    import email.policy
    import re
    db = fresh_db("export-mbox.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    out = tmp("clean.mbox")
    r = deja("export-mbox", "--db", db, "--out", out)
    assert r.returncode == 0 and "wrote 6 messages" in r.stderr, r.stderr
    box = mailbox.mbox(out)
    assert len(box) == 6
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT message_id, body FROM messages ORDER BY id").fetchall()
    for msg, (mid, body) in zip(box, rows):
        got = msg["Message-ID"]
        assert (got.strip("<>").split(">#")[0] if got else None) == mid, (got, mid)
        if msg.get_content_type() == "text/plain" and not msg.is_multipart():
            raw = msg.get_payload(decode=True).decode(msg.get_content_charset() or "latin-1")
            unquoted = re.sub(r"(?m)^>(>*From )", r"\1", raw)   # mboxrd: one level
            assert unquoted == body, (mid, unquoted, body)
    # and deja reads its own export back to the same messages
    db2 = fresh_db("export-mbox-2.db")
    assert deja("ingest", "--db", db2, out).returncode == 0
    with sqlite3.connect(db2) as c:
        again = c.execute("SELECT message_id, body FROM messages ORDER BY id").fetchall()
    assert again == rows


@tap.test
def export_mbox_maildir_and_errors():
    db = fresh_db("export-maildir.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    out = tmp("maildir")
    assert deja("export-mbox", "--db", db, "--format", "maildir", "--out", out).returncode == 0
    assert len(mailbox.Maildir(out)) == 6
    moved = tmp("moved.mbox")
    shutil.copy(SAMPLE, moved)
    db = fresh_db("export-moved.db")
    assert deja("ingest", "--db", db, moved).returncode == 0
    with open(moved, "a") as f:
        f.write("\nchanged\n")
    r = deja("export-mbox", "--db", db, "--out", tmp("x.mbox"))
    assert r.returncode == 1 and "has changed since it was ingested" in r.stderr, r.stderr
    assert not os.path.exists(tmp("x.mbox"))
    assert deja("export-mbox", "--db", db).returncode == 2


def review_tsv(db, path, all_lines=False):
    args = ["review", "--db", db, "--export", path] + (["--all"] if all_lines else [])
    assert deja(*args).returncode == 0
    with open(path, encoding="utf-8") as f:
        return [line.split("\t") for line in f.read().splitlines()]


@tap.test
def review_decisions_are_imported_and_stick():
    db = fresh_db("review.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    rows = review_tsv(db, tmp("review.tsv"))
    head, body = rows[0], rows[1:]
    assert head == ["file_sha256", "path", "line_no", "verdict", "reason", "line_text", "decision", "note"]
    assert [(r[2], r[3], r[5]) for r in body] == [
        ("37", "rejected", "From 2003"),
        ("96", "rejected", "From eve@example.com Wed Nov 19 07:00:00 1997")]
    body[0][6], body[0][7] = "split", "checked against the group's FAQ"
    body[1][6], body[1][7] = "no-split", "see C:\\\\faq\\tsection 2"   # TSV: a backslash and a tab
    with open(tmp("decided.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join("\t".join(r) for r in [head] + body) + "\n")
    r = deja("review", "--db", db, "--import", tmp("decided.tsv"))
    assert r.returncode == 0 and "1 files read again" in r.stderr, r.stderr
    assert table_count(db, "messages") == 7
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT verdict, reason FROM separator_log WHERE line_no = 37").fetchone() == \
            ("accepted", "no-header-block,no-blank-before,reviewed")
        assert c.execute("SELECT note FROM separator_decisions").fetchone()[0] == \
            "checked against the group's FAQ"
    # The decision sticks: an unchanged file stays as decided, and the
    # export shows the decision.
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    assert table_count(db, "messages") == 7
    again = review_tsv(db, tmp("again.tsv"))
    assert again[1][6] == "split"
    # Notes round-trip: exported as written, imported again unchanged.
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT note FROM separator_decisions WHERE line_no = 96").fetchone()[0] == \
            "see C:\\faq\tsection 2"
    assert again[2][7] == "see C:\\\\faq\\tsection 2", again[2]
    with open(tmp("again.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join("\t".join(r) for r in again) + "\n")
    r = deja("review", "--db", db, "--import", tmp("again.tsv"))
    assert r.returncode == 0 and "0 files read again" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT note FROM separator_decisions WHERE line_no = 96").fetchone()[0] == \
            "see C:\\faq\tsection 2"
    # A bad decision file changes nothing.
    with open(tmp("bad.tsv"), "w") as f:
        f.write("file_sha256\tline_no\tdecision\n%s\t96\tmaybe\n" % body[0][0])
    r = deja("review", "--db", db, "--import", tmp("bad.tsv"))
    assert r.returncode == 1 and "a decision is 'split', 'no-split' or empty" in r.stderr, r.stderr
    assert table_count(db, "messages") == 7


@tap.test
def review_interactively_from_keystrokes():
    db = fresh_db("review-keys.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    # --all: the prose line 16 comes first; "y" splits there, "q" stops.
    p = subprocess.run([DEJA, "review", "--db", db, "--all"], input="y\nq\n", capture_output=True,
                       text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert p.returncode == 0, p.stderr
    assert "3 lines to review" in p.stdout
    assert ">>     16 | From what I hear" in p.stdout, p.stdout
    assert "split here? [y]es, [n]o, [s]kip, [q]uit:" in p.stdout
    assert table_count(db, "messages") == 7
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT line_no, decision FROM separator_decisions").fetchall() == [(16, "split")]
    # Nothing left but what was skipped; end of input stops cleanly.
    p = subprocess.run([DEJA, "review", "--db", db, "--all"], input="", capture_output=True,
                       text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert p.returncode == 0 and "2 lines to review" in p.stdout, p.stdout


@tap.test
def force_reads_a_file_that_starts_with_prose():
    # Found by fuzzing: with --force, a first line "From what I hear…" made
    # the splitter read the byte before the mapped file.
    path = os.path.join(FIXTURES, "from", "n_prose_start.mbox")
    db = fresh_db("force.db")
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 1 and "not an mbox" in r.stderr
    r = deja("ingest", "--db", db, "--force", path)
    assert r.returncode == 0, r.stderr
    assert table_count(db, "messages") == 1


@tap.test
def a_full_standard_output_is_an_error_for_every_command():
    # Checked once, in main.c, as git's run_builtin does.
    db = fresh_db("full.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    for args in (["log", "--db", db], ["stats", "--db", db], ["thread", "--db", db, "--report"],
                 ["search", "--db", db, "sizeof"], ["export", "--db", db], ["--version"],
                 ["scan", SAMPLE], ["network", "--db", db, "--format", "gml"]):
        with open("/dev/full", "w") as full:
            r = subprocess.run([DEJA] + args, stdout=full, stderr=subprocess.PIPE, text=True)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert r.stderr.count("cannot write standard output") == 1, (args, r.stderr)


@tap.test
def deja_db_is_the_default_database():
    db = fresh_db("env.db")
    env = dict(os.environ, DEJA_DB=db, DEJA_NO_PROGRESS="1")
    r = subprocess.run([DEJA, "ingest", SAMPLE], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([DEJA, "search", "sizeof"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "Are arrays pointers?" in r.stdout, r.stderr
    # --db wins over DEJA_DB; scan takes no database.
    other = fresh_db("other.db")
    r = subprocess.run([DEJA, "ingest", "--db", other, SAMPLE], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and table_count(other, "messages") == 6
    r = subprocess.run([DEJA, "scan", SAMPLE], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "6 messages" in r.stdout, r.stderr


@tap.test
def no_color_turns_bold_off_on_a_terminal():
    db = fresh_db("color.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    def on_a_tty(extra_env):
        # script(1) (util-linux) gives the command a terminal.
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update(DEJA_NO_PROGRESS="1", **extra_env)
        r = subprocess.run(["script", "-qec", "%s search --db %s sizeof" % (DEJA, db), "/dev/null"],
                           capture_output=True, env=env, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        return r.stdout
    assert b"\x1b[1m" in on_a_tty({})
    assert b"\x1b[1m" not in on_a_tty({"NO_COLOR": "1"}) and b"[sizeof]" in on_a_tty({"NO_COLOR": "1"})


@tap.test
def ingest_says_what_it_will_read_and_sums_up():
    # Whatever stderr is (here a pipe): a start line and a summary line.
    db = fresh_db("summary.db")
    r = deja("ingest", "--db", db, SAMPLE, os.path.join(TMP, "missing.mbox"))
    lines = r.stderr.splitlines()
    assert lines[0] == "deja: reading 2 files into '%s'" % db, lines
    assert lines[-1].startswith("deja: done in ") and "1 file stored, 6 messages" in lines[-1], lines
    assert lines[-1].endswith("; 1 failed"), lines


@tap.test
def quiet_and_verbose():
    db = fresh_db("talk.db")
    r = deja("ingest", "--quiet", "--db", db, SAMPLE)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = deja("log", "--db", db, "-q")
    assert r.returncode == 0 and r.stderr == "" and "From what I hear" in r.stdout, r.stderr
    # a first ingest reads its threads beside its index build (threads.c);
    # a later one after its files
    talk2 = fresh_db("talk2.db")
    r = deja("ingest", "--verbose", "--db", talk2, SAMPLE)
    assert "deja [deja-store]: " in r.stderr and "deja [deja-pipeline]: threads read beside the writer" in r.stderr, r.stderr
    assert "deja: ingested" in r.stderr and "threading in" not in r.stderr
    r = deja("ingest", "--verbose", "--db", talk2, os.path.join(FIXTURES, "threads", "comp.std.c.mbox"))
    assert "deja [deja-pipeline]: threading in 1 batch" in r.stderr and "threads read beside" not in r.stderr, r.stderr
    r = deja("ingest", "--quiet", "--db", db, os.path.join(TMP, "no-such.mbox"))
    assert r.returncode == 1 and "cannot ingest" in r.stderr      # errors are never quiet


@tap.test
def copies_with_the_same_bytes_are_stored_alike_and_one_byte_apart_is_not():
    # A copy whose bytes past the envelope equal a recent message's shares
    # its decoding (decode-pool.c); the envelope is the copy's own, and a
    # copy one byte apart is decoded for itself.
    def message(body, subject="=?ISO-8859-1?Q?Caf=E9?= talk"):
        return ("From: =?ISO-8859-1?Q?Ren=E9?= <rene@example.org>\nSubject: %s\n"
                "Message-ID: <cafe@example.org>\nDate: Mon, 5 Jan 2004 10:00:00 +0100\n"
                "MIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\n"
                "Content-Transfer-Encoding: quoted-printable\n\n%s\n" % (subject, body))
    a = message("Le caf=E9 est bon.\n\n> quoted line\nThe cat sat on the mat.")
    near = a.replace("The cat", "The bat")
    other = ("From: Someone <someone@example.org>\nSubject: other\nMessage-ID: <other@example.org>\n"
             "Date: Mon, 5 Jan 2004 11:00:00 +0000\n\nSomething else.\n")
    path = tmp("copies.mbox")
    with open(path, "w") as f:
        for envelope, text in (("10:00:00", a), ("10:30:00", other), ("08:00:00", a),
                               ("09:00:00", near), ("07:00:00", a)):
            f.write("From rene@example.org Mon Jan  5 %s 2004\n%s\n" % (envelope, text))
    db = fresh_db("copies.db")
    assert deja("ingest", "--db", db, path).returncode == 0
    columns = ("message_id, subject, from_addr, from_name, date, date_raw, body, own_text, charset,"
               " flags, quoted_lines, own_lines, content_hash, text_damage, lang, words, own_spans")
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT envelope, %s FROM messages ORDER BY id" % columns).fetchall()
    assert len(rows) == 5
    envelopes = [r[0] for r in rows]
    assert [e.split()[5] for e in envelopes] == ["10:00:00", "10:30:00", "08:00:00", "09:00:00", "07:00:00"]
    first, copy, near_row, last = rows[0][1:], rows[2][1:], rows[3][1:], rows[4][1:]
    assert first == copy == last, (first, copy)
    assert first[1] == "Caf\u00e9 talk" and first[3] == "Ren\u00e9" and "caf\u00e9 est bon" in first[6]
    assert near_row[0] == first[0] and near_row[6] != first[6] and "The bat sat" in near_row[6]
    assert near_row[12] != first[12]   # content_hash


@tap.test
def usage_errors_exit_2():
    assert deja("ingest", SAMPLE).returncode == 2
    assert deja("frobnicate").returncode == 2
    assert deja("ingest", "--no-such-option").returncode == 2
    r = deja("--version")
    assert r.returncode == 0 and r.stdout.startswith("deja ")
    for cmd in ("ingest", "scan", "log"):
        r = deja(cmd, "--help")
        assert r.returncode == 0 and "Usage" in r.stdout, cmd


if __name__ == "__main__":
    tap.main(TMP)
