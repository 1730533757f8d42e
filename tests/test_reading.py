"""Reading without SQL: deja show (a message, its thread, its bytes), the
search modes (--count, --threads), and one --format set with one JSON shape
on every command that prints rows."""
import csv
import io
import json
import os
import re
import sqlite3

import search_golden
import tap
from cli_helpers import FIXTURES, SAMPLE, TMP, deja, fresh_db, needs
from dump import dump

THREADS = os.path.join(FIXTURES, "threads")
DB = fresh_db("reading.db")
SAMPLE_DB = fresh_db("reading-sample.db")


def setup():
    assert deja("ingest", "--db", DB, THREADS).returncode == 0
    assert deja("ingest", "--db", SAMPLE_DB, SAMPLE).returncode == 0


def header(text, label):
    """The value of a header line of `deja show` (continuation lines joined)."""
    lines = text.split("\n\n", 1)[0].splitlines()
    out, taking = [], False
    for line in lines:
        if line.startswith(label + " "):
            out.append(line[len(label):].strip())
            taking = True
        elif taking and line.startswith(" "):
            out.append(line.strip())
        else:
            taking = False
    return out


@tap.test
def show_prints_headers_place_and_text():
    r = deja("show", "--db", SAMPLE_DB, "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("message 2\n")
    assert header(r.stdout, "From:") == ["Bob Smith <bob@example.org>"]
    assert header(r.stdout, "Date:") == ["1997-11-17 (1997/11/17)"]
    assert header(r.stdout, "Subject:") == ["Re: Are arrays pointers?"]
    assert header(r.stdout, "Message-ID:") == ["<bob.1997.1@example.org>"]
    assert header(r.stdout, "References:") == ["<alice.1997.1@example.com>"]
    assert header(r.stdout, "Thread:") == ["1, reply to 1"]
    assert header(r.stdout, "Archive:") == ["%s, line 22, bytes 625+603" % SAMPLE]
    # The separator-log line inside the message, for review.
    assert header(r.stdout, "Separators:") == ["line 37: rejected [no-header-block] From 2003"]
    body = r.stdout.split("\n\n", 1)[1]
    assert body.startswith("Alice Example <Alice@Example.COM> wrote:\n> From what I hear")
    assert "From 2003\ngh-issue-97928: fixed\n" in body
    # Decoded headers: RFC 2047 and 8-bit names come out as UTF-8.
    r = deja("show", "--db", SAMPLE_DB, "3")
    assert header(r.stdout, "From:") == ["Jürgen Müller <juergen@example.de>"]
    assert header(r.stdout, "In-Reply-To:") == ["<bob.1997.1@example.org>"]


@tap.test
def show_own_prints_only_the_authors_words():
    r = deja("show", "--db", SAMPLE_DB, "--own", "2")
    body = r.stdout.split("\n\n", 1)[1]
    assert "wrote:" not in body and "> From what" not in body
    assert body.startswith("They do.")


@tap.test
def show_takes_a_message_id_and_prefers_the_canonical_copy():
    for typed in ("<xpost-1@example.com>", "xpost-1@example.com"):
        r = deja("show", "--db", DB, typed)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("message 9\n"), r.stdout
    assert header(r.stdout, "Newsgroups:") == ["comp.lang.c,comp.std.c"]
    copies = header(r.stdout, "Copies:")
    assert copies == ["message 11 (%s, line 1)" % os.path.join(THREADS, "comp.std.c.mbox"),
                      "message 14 (%s, line 30)" % os.path.join(THREADS, "comp.std.c.mbox")]
    r = deja("show", "--db", DB, "14")
    assert header(r.stdout, "Copy:") == ["a copy of message 9"]
    assert header(r.stdout, "Threading:") == ["duplicate,conflicting-duplicate"]


@tap.test
def show_of_what_is_not_there_fails_naming_it():
    for typed in ("999", "no-such@id", "0"):
        r = deja("show", "--db", DB, typed)
        assert r.returncode == 1 and "no message '%s'" % typed in r.stderr, (typed, r.stderr)
    assert deja("show", "--db", DB).returncode == 2
    assert deja("show", "--db", DB, "1", "2").returncode == 2
    assert deja("show", "--db", DB, "--raw", "--thread", "1").returncode == 2
    assert deja("show", "--db", DB, "--format", "csv", "1").returncode == 2


@tap.test
def show_raw_writes_the_archive_bytes():
    r = deja("show", "--db", SAMPLE_DB, "--raw", "2")
    assert r.returncode == 0, r.stderr
    with open(SAMPLE, "rb") as f:
        data = f.read()
    assert r.stdout.encode() == data[625:625 + 603]
    assert r.stdout.startswith("From 5312399187214577153")


@tap.test
def show_json_is_an_array_with_one_object():
    r = deja("show", "--db", SAMPLE_DB, "--format", "json", "2")
    rows = json.loads(r.stdout)
    assert isinstance(rows, list) and len(rows) == 1
    m = rows[0]
    assert (m["id"], m["from_addr"], m["thread_id"], m["parent_id"]) == (2, "bob@example.org", 1, 1)
    assert m["byte_offset"] == 625 and m["byte_length"] == 603 and m["file"] == SAMPLE
    assert m["separator_log"] == [{"line_no": 37, "byte_offset": m["separator_log"][0]["byte_offset"],
                                   "verdict": "rejected", "reason": "no-header-block",
                                   "shape": "G", "line_text": "From 2003"}]
    assert m["attachments"] == [] and m["copies"] == []
    assert m["own_text"].startswith("They do.")


@tap.test
def show_thread_draws_the_tree():
    r = deja("show", "--db", DB, "--thread", "chain-3@example.com")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "[1] 1997-03-03T10:00:00  Ann Archer  Pointer arithmetic question",
        "├─ [2] 1997-03-03T11:00:00  Bob Baker",
        "│  └─ [3] 1997-03-03T12:00:00  Ann Archer  ◀",
        "└─ [4] 1997-03-03T13:00:00  Carol Cole",
    ], r.stdout
    # A thread whose root is missing: each orphan starts its own branch.
    r = deja("show", "--db", DB, "--thread", "5")
    assert [l.split("  ")[0] for l in r.stdout.splitlines()] == [
        "[5] 1997-03-04T09:00:00", "[6] 1997-03-04T10:00:00"], r.stdout


@tap.test
def show_thread_rows_in_every_format():
    r = deja("show", "--db", DB, "--thread", "--format", "csv", "3")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(x["id"], x["parent_id"], x["depth"]) for x in rows] == [
        ("1", "", "0"), ("2", "1", "1"), ("3", "2", "2"), ("4", "1", "1")]
    rows = json.loads(deja("show", "--db", DB, "--thread", "--format", "json", "3").stdout)
    assert [x["depth"] for x in rows] == [0, 1, 2, 1]


@tap.test
def search_counts_and_groups_by_thread():
    r = deja("search", "--db", SAMPLE_DB, "--count", "sizeof")
    assert r.returncode == 0 and r.stdout == "2 messages in 1 thread\n", r.stdout
    rows = json.loads(deja("search", "--db", SAMPLE_DB, "--count", "--format", "json", "sizeof").stdout)
    assert rows == [{"messages": 2, "threads": 1}]
    rows = json.loads(deja("search", "--db", SAMPLE_DB, "--threads", "--format", "json", "sizeof").stdout)
    assert len(rows) == 1
    t = rows[0]
    assert (t["thread_id"], t["hits"], t["messages"], t["subject"]) == (1, 2, 3, "Are arrays pointers?")
    assert t["id"] == 3 and "[sizeof]" in t["snippet"]
    r = deja("search", "--db", SAMPLE_DB, "--threads", "sizeof")
    assert r.stdout.splitlines()[:2] == [
        "thread 1  Are arrays pointers?  (Alice Example <alice@example.com>)",
        "    2 of 3 messages match, 1997-11-17T15:20:30 to 1997-11-18T08:00:00"], r.stdout
    # Filters alone, by thread: the threads with the newest match first.
    rows = json.loads(deja("search", "--db", DB, "--threads", "--format", "json",
                           "from:bob@example.com").stdout)
    assert [x["thread_id"] for x in rows] == [9, 1], rows
    assert deja("search", "--db", DB, "--threads", "--count", "x").returncode == 2


@tap.test
def every_row_command_takes_the_same_formats():
    commands = [["search", "--db", DB, "int"], ["log", "--db", SAMPLE_DB], ["stats", "--db", DB],
                ["show", "--db", DB, "--thread", "3"], ["export", "--db", DB, "--fields", "id,subject"]]
    for cmd in commands:
        keys = {}
        for fmt in ("tsv", "csv", "json"):
            r = deja(*cmd, "--format", fmt)
            assert r.returncode == 0, (cmd, fmt, r.stderr)
            if fmt == "json":
                rows = json.loads(r.stdout)
                assert isinstance(rows, list) and rows and all(isinstance(x, dict) for x in rows), cmd
                keys[fmt] = list(rows[0])
            elif fmt == "csv":
                keys[fmt] = next(csv.reader(io.StringIO(r.stdout)))
            else:
                keys[fmt] = r.stdout.splitlines()[0].split("\t")
        # The same columns, in the same order, whatever the format.
        assert keys["tsv"] == keys["csv"] == keys["json"], (cmd, keys)
        if cmd[0] != "export":
            assert deja(*cmd, "--format", "table").returncode == 0, cmd
        assert deja(*cmd, "--format", "xml").returncode == 2, cmd


@tap.test
def stats_table_is_for_people():
    r = deja("stats", "--db", DB, "--format", "table")
    assert r.stdout.splitlines()[1] == "messages     14", r.stdout


def ids_by_offset(db):
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT m.byte_offset || ':' || f.path, m.id FROM messages m"
                              " JOIN files f ON f.id = m.file_id"))


@tap.test
def ids_stay_when_a_file_grows_at_its_end():
    db = fresh_db("reading-append.db")
    grown = os.path.join(TMP, "growing.mbox")
    with open(SAMPLE, "rb") as f:
        sample = f.read()
    with open(os.path.join(THREADS, "comp.std.c.mbox"), "rb") as f:
        more = f.read()
    with open(grown, "wb") as f:
        f.write(sample)
    assert deja("ingest", "--db", db, grown).returncode == 0
    assert deja("ingest", "--db", db, os.path.join(THREADS, "comp.lang.c.mbox")).returncode == 0
    before = ids_by_offset(db)
    # The archive grows at its end, as archives do.
    with open(grown, "ab") as f:
        f.write(b"\n" + more)
    assert deja("ingest", "--db", db, grown).returncode == 0
    after = ids_by_offset(db)
    assert all(after[k] == v for k, v in before.items()), "an id changed"
    new = [v for k, v in after.items() if k not in before]
    assert len(new) == 4 and min(new) > max(before.values()), (new, before)
    # Changed in the middle: ids up to the change stay, the rest are new and
    # still follow archive order.
    with open(grown, "wb") as f:
        f.write(sample.replace(b"Grosse", b"Gross") if b"Grosse" in sample else
                sample[:1300] + b"X" + sample[1301:])
    assert deja("ingest", "--db", db, grown).returncode == 0
    changed = ids_by_offset(db)
    mine = sorted((int(k.split(":")[0]), v) for k, v in changed.items() if k.endswith("growing.mbox"))
    assert [v for _, v in mine] == sorted(v for _, v in mine), "ids do not follow archive order"
    assert mine[0][1] == before["0:" + grown]


def grow_and_compare(name, start, appended, expect_append):
    """Ingests @start, appends, ingests again; the database must equal one
    made from the grown file at once (dump, log, FTS), and the second
    ingest must say whether it read only the new part."""
    grown, db, whole = os.path.join(TMP, name + ".mbox"), fresh_db(name + ".db"), fresh_db(name + "-whole.db")
    with open(grown, "wb") as f:
        f.write(start)
    assert deja("ingest", "--db", db, grown).returncode == 0
    with open(grown, "ab") as f:
        f.write(appended)
    r = deja("ingest", "-v", "--db", db, grown)
    assert r.returncode == 0, r.stderr
    assert ("grew at its end" in r.stderr) == expect_append, r.stderr
    assert deja("ingest", "--db", whole, grown).returncode == 0
    assert dump(db) == dump(whole)
    for table in ("SELECT line_no, byte_offset, verdict, reason FROM separator_log ORDER BY 1",
                  "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'int OR pointer OR the'"
                  " ORDER BY rowid",
                  "SELECT size, messages, lines, sha256 FROM files"):
        with sqlite3.connect(db) as a, sqlite3.connect(whole) as b:
            assert a.execute(table).fetchall() == b.execute(table).fetchall(), table
    return r.stderr


@tap.test
def a_grown_file_is_read_from_its_old_end():
    with open(SAMPLE, "rb") as f:
        sample = f.read()
    with open(os.path.join(THREADS, "comp.std.c.mbox"), "rb") as f:
        more = f.read()
    assert sample.endswith(b"\n")
    # as mailers append: a blank line, then the new messages
    grow_and_compare("grow-blank", sample, b"\n" + more, True)
    # the old file ended in a blank line and the appender wrote another: the
    # old last message's body is what a whole read gives (one blank line more)
    plain_last = (b"From ann@example.com Mon Jan  5 10:00:00 2004\nFrom: ann@example.com\n"
                  b"Subject: last\nMessage-ID: <last@example.com>\n\nThe last words.\n\n")
    grow_and_compare("grow-two-blanks", sample + b"\n" + plain_last, b"\n" + more, True)
    # straight after the last line
    grow_and_compare("grow-direct", sample, more, True)
    # not after a message's end: the last message goes on; read whole
    grow_and_compare("grow-inside", sample, b"More text of the last message.\n\n" + more, False)
    # the old part changed too: read whole
    changed = sample.replace(b"sizeof", b"SIZEOF", 1)
    path = os.path.join(TMP, "grow-changed.mbox")
    db = fresh_db("grow-changed.db")
    with open(path, "wb") as f:
        f.write(sample)
    assert deja("ingest", "--db", db, path).returncode == 0
    with open(path, "wb") as f:
        f.write(changed + b"\n" + more)
    r = deja("ingest", "--db", db, path)
    assert r.returncode == 0 and "grew at its end" not in r.stderr, r.stderr


APPENDED_TO_THREADS = b"""
From -1000000000000000020
From: Ann Archer <ann@example.com>
Newsgroups: comp.lang.c
Subject: Re: Pointer arithmetic question
Date: Mon, 3 Mar 1997 14:00:00 GMT
Message-ID: <chain-4@example.com>
References: <chain-1@example.com> <chain-2@example.com> <chain-3@example.com>

Thank you both.

From -1000000000000000021
From: Bob Baker <bob@example.com>
Newsgroups: comp.lang.c
Subject: Re: Pointer arithmetic question
Date: Mon, 3 Mar 1997 11:00:00 GMT
Message-ID: <chain-2@example.com>
References: <chain-1@example.com>

Ann Archer wrote:
> Why does p + 1 move by sizeof *p?

Because the standard defines it in elements, not bytes.

From -1000000000000000022
From: Dan Drake <dan@example.com>
Newsgroups: comp.lang.c
Subject: Re: malloc casts
Date: Tue, 4 Mar 1997 11:00:00 GMT
Message-ID: <orphan-3@example.com>
References: <lost-root@example.com> <orphan-2@example.com>

A reply to a reply whose parent is lost.
"""


@tap.test
def an_append_guesses_threads_by_looking_up_the_stored_messages():
    # The guess of an append asks the database about the messages stored
    # before it (a reply, a copy, a reply under an orphan): when it is
    # right, threading after the file rewrites none of the new rows.
    with open(os.path.join(THREADS, "comp.lang.c.mbox"), "rb") as f:
        start = f.read()
    err = grow_and_compare("grow-replies", start, APPENDED_TO_THREADS, True)
    assert "thread guess looks up the messages already stored" in err, err
    assert re.search(r"threads: 0 of 13 rows changed", err), err
    db = os.path.join(TMP, "grow-replies.db")
    with sqlite3.connect(db) as c:
        rows = dict((mid, (parent, dup)) for mid, parent, dup in c.execute(
            "SELECT m.message_id, p.message_id, d.message_id FROM messages m"
            " LEFT JOIN messages p ON p.id = m.parent_id LEFT JOIN messages d ON d.id = m.duplicate_of"
            " WHERE m.id > 10"))
    assert rows == {"chain-4@example.com": ("chain-3@example.com", None),
                    "chain-2@example.com": (None, "chain-2@example.com"),
                    "orphan-3@example.com": ("orphan-2@example.com", None)}, rows


def chained_mbox(n, reverse=False):
    """n messages, each a reply to the one before (in the file: after it,
    or before it when @reverse)."""
    out = []
    for i in range(n):
        refs = "References: <chain-%d@example.org>\n" % (i - 1) if i else ""
        out.append("From -%d\nFrom: P%d <p%d@example.org>\nSubject: Re: chain\n"
                   "Date: Mon, 3 Mar 1997 %02d:%02d:00 GMT\nMessage-ID: <chain-%d@example.org>\n%s\n"
                   "Message %d of the chain.\n\n" % (1000 + i, i % 7, i % 7, i // 60, i % 60, i, refs, i))
    return "".join(reversed(out) if reverse else out).encode()


@tap.test
def copies_of_stored_messages_are_guessed_from_lookups():
    # A second file holds copies of stored messages, last first, so that
    # each names a parent the guess does not hold yet: both are looked up
    # in the store, and the second lookup grew the guess's rows while the
    # first was in use (a use after free that ASan sees; in twisted-web's
    # cross-posts, rows pointing nowhere).
    db = fresh_db("lookups-copies.db")
    a, b = os.path.join(TMP, "chain-a.mbox"), os.path.join(TMP, "chain-b.mbox")
    with open(a, "wb") as f:
        f.write(chained_mbox(70))
    with open(b, "wb") as f:
        f.write(chained_mbox(70, reverse=True))
        f.write(b"From -9999\nFrom: Q <q@example.org>\nSubject: x\n\nwith a line more, other content\n")
    assert deja("ingest", "--db", db, a).returncode == 0
    r = deja("ingest", "-v", "--db", db, b)
    assert r.returncode == 0, r.stderr
    assert "threads: 0 of 141 rows changed" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        wrong = c.execute("SELECT count(*) FROM messages m JOIN messages o ON o.id = m.duplicate_of"
                          " WHERE m.id > 70 AND o.message_id IS NOT m.message_id").fetchone()[0]
        copies = c.execute("SELECT count(*) FROM messages WHERE duplicate_of IS NOT NULL").fetchone()[0]
    assert (wrong, copies) == (0, 70), (wrong, copies)


DATASETTE_DETECT_FTS = """
    select name from sqlite_master where rootpage = 0 and (
      sql like '%VIRTUAL TABLE%USING FTS%content="messages"%'
      or sql like '%VIRTUAL TABLE%USING FTS%content=[messages]%'
      or (tbl_name = 'messages' and sql like '%VIRTUAL TABLE%USING FTS%'))"""


@tap.test
def fts_is_declared_as_datasette_and_sqlite_utils_look_for_it():
    with sqlite3.connect(DB) as c:
        assert [r[0] for r in c.execute(DATASETTE_DETECT_FTS)] == ["messages_fts"]
        hits = c.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'malloc'"
                         " ORDER BY rowid").fetchall()
        assert hits == [(5,), (6,)], hits


TEXT_COLUMNS = ("lang", "lang_reliable", "words", "sentences", "code_lines", "nonletter_share",
                "digit_share", "upper_share", "oov_share")


def undo_own_text_nested(c):
    """Takes a database back to schema 16 (before 017-own-text-nested.sql): own_text as 014
    wrote it."""
    c.execute("ALTER TABLE messages DROP COLUMN own_text")
    c.execute("ALTER TABLE messages ADD COLUMN own_text TEXT GENERATED ALWAYS AS (%s) VIRTUAL"
              % schema_expression("014-own-text-case.sql"))
    c.execute("PRAGMA user_version = 16")


def undo_shared_addresses(c):
    """Takes a database back to schema 15 (before 016-shared-addresses.sql)."""
    undo_own_text_nested(c)
    c.execute("ALTER TABLE authors DROP COLUMN shared_address")
    c.execute("PRAGMA user_version = 15")


def undo_usenet_links(c):
    """Takes a database back to schema 14 (before 015-usenet-links.sql)."""
    undo_shared_addresses(c)
    c.execute("DROP VIEW message_revisions")
    c.execute("DROP TABLE links")
    c.execute("DROP TABLE usenet_headers")
    c.execute("PRAGMA user_version = 14")


def undo_compact_refs(c):
    """Takes a database back to schema 11 (before 012-compact-refs.sql): refs a table with the
    kinds' names, FTS5 leaves of its default size."""
    undo_usenet_links(c)
    c.execute("DROP VIEW refs")
    c.execute("CREATE TABLE refs (message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,"
              " kind TEXT NOT NULL CHECK (kind IN ('references', 'in-reply-to')),"
              " position INTEGER NOT NULL, ref TEXT NOT NULL,"
              " PRIMARY KEY (message_id, kind, position)) WITHOUT ROWID")
    c.execute("INSERT INTO refs SELECT message_id, CASE kind WHEN 0 THEN 'references'"
              " ELSE 'in-reply-to' END, position, ref FROM message_refs")
    c.execute("DROP TABLE message_refs")
    c.execute("DELETE FROM messages_fts_config WHERE k = 'pgsz'")
    c.execute("PRAGMA user_version = 11")


@tap.test
def an_older_database_keeps_its_references_in_message_refs():
    db = fresh_db("reading-v11.db")
    r = deja("ingest", "--db", db, os.path.join(FIXTURES, "threads"))
    assert r.returncode == 0, r.stderr
    query = "SELECT message_id, kind, position, ref FROM refs ORDER BY 1, 2, 3"
    with sqlite3.connect(db) as c:
        before = c.execute(query).fetchall()
        kinds = {k for _, k, _, _ in before}
        assert kinds == {"references", "in-reply-to"} and len(before) > 10, before
        threads = c.execute("SELECT id, thread_id, parent_id FROM messages ORDER BY id").fetchall()
        undo_compact_refs(c)
        assert c.execute(query).fetchall() == before
    r = deja("show", "--db", db, "12")     # a reader upgrades it
    assert r.returncode == 0 and "In-Reply-To: <xpost-1@example.com>" in r.stdout, r.stdout + r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] >= 12
        assert c.execute(query).fetchall() == before
        assert c.execute("SELECT count(*) FROM message_refs WHERE kind = 1").fetchone()[0] == \
            sum(1 for _, k, _, _ in before if k == "in-reply-to")
        assert c.execute("SELECT v FROM messages_fts_config WHERE k = 'pgsz'").fetchone()[0] == 16000
    r = deja("thread", "--db", db)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT id, thread_id, parent_id FROM messages ORDER BY id").fetchall() == threads


def undo_own_spans(c):
    """Takes a database back to schema 10 (before 011-own-spans.sql): own text stored whole."""
    undo_compact_refs(c)
    c.execute("UPDATE messages SET own_text_stored = own_text")
    c.execute("ALTER TABLE messages DROP COLUMN own_text")
    c.execute("ALTER TABLE messages DROP COLUMN own_spans")
    c.execute("ALTER TABLE messages RENAME COLUMN own_text_stored TO own_text")
    c.execute("CREATE INDEX refs_ref ON refs (ref)")
    c.execute("PRAGMA user_version = 10")


@tap.test
def an_older_database_keeps_its_own_text_and_stores_new_text_as_spans():
    db = fresh_db("reading-v10.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    with sqlite3.connect(db) as c:
        before = c.execute("SELECT id, own_text FROM messages ORDER BY id").fetchall()
        found = c.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'the'"
                          " ORDER BY rowid").fetchall()
        assert c.execute("SELECT count(*) FROM messages WHERE own_spans IS NOT NULL").fetchone()[0] > 0
        undo_own_spans(c)
        assert c.execute("SELECT id, own_text FROM messages ORDER BY id").fetchall() == before
    # a reader upgrades the schema and rewrites no row: the text stays in own_text_stored
    assert deja("stats", "--db", db).returncode == 0
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] >= 11
        assert c.execute("SELECT id, own_text FROM messages ORDER BY id").fetchall() == before
        assert c.execute("SELECT count(*) FROM messages WHERE own_spans IS NOT NULL").fetchone()[0] == 0
        hits = c.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'the'"
                         " ORDER BY rowid").fetchall()
        assert hits == found and len(found) > 1, hits
    # the same file again changes nothing; another file's rows come in as spans
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    r = deja("ingest", "--db", db, os.path.join(FIXTURES, "text"))
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT id, own_text FROM messages WHERE id <= ? ORDER BY id",
                         (len(before),)).fetchall() == before
        assert c.execute("SELECT count(*) FROM messages WHERE id > ? AND own_spans IS NOT NULL",
                         (len(before),)).fetchone()[0] > 0


def schema_expression(version_file):
    """The own_text expression a schema file declares."""
    text = open(os.path.join(os.environ["SOURCE_ROOT"], "schema", version_file)).read()
    return text[text.index("GENERATED ALWAYS AS (") + len("GENERATED ALWAYS AS ("):text.rindex(") VIRTUAL;")]


OWN_TEXT_VERSIONS = ("011-own-spans.sql", "014-own-text-case.sql", "017-own-text-nested.sql")


def nasty_spans():
    """own_spans values deja writes and values only a hand-made database holds."""
    pairs = lambda n, width=1: [j for i in range(n) for j in (i, width)]
    values = [None, "[]", "[0]", "[0,5]", "[0,5,9]", "[0,5,10,3]", "[2,1,0,4,6,2]",
              json.dumps(pairs(16)), json.dumps(pairs(17)), json.dumps(pairs(16) + [40]),
              json.dumps(pairs(15, 2) + [3]), "[0,null]", "[null,3]", "[0,2,null,1]",
              '[0,2,"4",1]', "[0,2,4]", '{"a":1}', "5", '"[0,2]"', "[0,-1]", "[-3,2]",
              "[0,2,0,99999]", "[[1],2]", "[0,2,true,1]"]
    # every length from 1 to 34, each pair one byte on from the last
    values += [json.dumps([(i // 2) * 3 if i % 2 == 0 else 2 for i in range(n)]) for n in range(1, 35)]
    return values


@tap.test
def own_text_reads_as_schema_11_wrote_it():
    """014-own-text-case.sql read the spans' length once; 017-own-text-nested.sql nests the
    pieces, in a sixth of the text.  For every value of own_spans, own_text is what
    011-own-spans.sql's expression gave, and databases of versions 13 and 16 are upgraded
    without a row rewritten."""
    db = fresh_db("reading-own-text-case.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    exprs = [schema_expression(f) for f in OWN_TEXT_VERSIONS]
    assert len(exprs[2]) < len(exprs[1]) / 5, (len(exprs[2]), len(exprs[1]))
    compared = 0
    with sqlite3.connect(db) as c:
        mid, body = c.execute("SELECT id, body FROM messages WHERE length(body) > 60 LIMIT 1").fetchone()
        for v in nasty_spans():
            c.execute("UPDATE messages SET own_spans = ?, own_text_stored = 'stored' WHERE id = ?", (v, mid))
            got = c.execute("SELECT own_text, %s FROM messages WHERE id = ?" % ", ".join(exprs),
                            (mid,)).fetchone()
            assert got[1:] == (got[1],) * 3 and got[0] == got[1], (v, got)
            compared += got[0] is not None
        assert compared >= 25, compared       # most values give a text, not only NULL
        try:   # malformed JSON fails, as with 011's and 014's (SQLite's own json_extract)
            c.execute("UPDATE messages SET own_spans = '[0,' WHERE id = ?", (mid,))
            c.execute("SELECT own_text FROM messages WHERE id = ?", (mid,)).fetchone()
            failed = False
        except sqlite3.OperationalError as e:
            failed = "malformed JSON" in str(e)
        assert failed
        c.execute("UPDATE messages SET own_spans = '[0,5]', own_text_stored = NULL WHERE id = ?", (mid,))
        before = c.execute("SELECT id, own_text FROM messages ORDER BY id").fetchall()
    for version, undo in ((16, undo_own_text_nested), (13, None)):
        with sqlite3.connect(db) as c:
            if undo:
                undo(c)
            else:   # back to version 13: 011's expression
                undo_usenet_links(c)
                c.execute("ALTER TABLE messages DROP COLUMN own_text")
                c.execute("ALTER TABLE messages ADD COLUMN own_text TEXT GENERATED ALWAYS AS (%s)"
                          " VIRTUAL" % exprs[0])
                c.execute("PRAGMA user_version = 13")
            assert c.execute("PRAGMA user_version").fetchone()[0] == version
        assert deja("stats", "--db", db).returncode == 0
        with sqlite3.connect(db) as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] >= 17
            sql = c.execute("SELECT sql FROM sqlite_schema WHERE name = 'messages'").fetchone()[0]
            assert exprs[2] in sql and "CASE json_array_length(own_spans)" not in sql
            assert c.execute("SELECT id, own_text FROM messages ORDER BY id").fetchall() == before
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def spans_text(body, spans):
    """What messages.own_spans says own_text is: pieces of body's UTF-8 bytes."""
    b = body.encode("utf-8", "surrogateescape")
    pairs = json.loads(spans)
    return b"".join(b[pairs[i]:pairs[i] + pairs[i + 1]] for i in range(0, len(pairs), 2)).decode()


@tap.test
def own_text_is_stored_once_as_pieces_of_the_body():
    db = fresh_db("reading-spans.db")
    # seventeen answers between quotes: one piece too many, stored whole
    many = os.path.join(TMP, "seventeen-pieces.mbox")
    with open(many, "w") as f:
        f.write("From a@example.org Mon Jan  3 10:00:00 2000\nFrom: a@example.org\n"
                "Message-ID: <many@example.org>\nSubject: many\n\n")
        for i in range(17):
            f.write("> question %d\nanswer %d\n" % (i, i))
        f.write("\nFrom a@example.org Mon Jan  3 10:00:00 2000\nFrom: a@example.org\n"
                "Message-ID: <few@example.org>\nSubject: few\n\n")
        for i in range(16):
            f.write("> question %d\nanswer %d\n" % (i, i))
    for path in (os.path.join(FIXTURES, "text"), THREADS, many):
        r = deja("ingest", "--db", db, path)
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT message_id, body, own_text, own_text_stored, own_spans, subject"
                         " FROM messages").fetchall()
        for message_id, body, own, stored, spans, subject in rows:
            assert (stored is None) != (spans is None), message_id
            if spans is not None:
                assert spans_text(body, spans) == own, message_id
                assert 1 <= len(json.loads(spans)) // 2 <= 16
        by_subject = {r[5]: r for r in rows}
        assert by_subject["many"][2] == "".join("answer %d\n" % i for i in range(17))
        assert by_subject["many"][3] == by_subject["many"][2]
        assert by_subject["few"][2] == "".join("answer %d\n" % i for i in range(16))
        assert len(json.loads(by_subject["few"][4])) == 32
        # a digest's own text leaves its embedded messages out: not the body's pieces
        digest = [r for r in rows if r[0] and "digest" in r[0]]
        assert digest and all(r[4] is None and r[3] is not None for r in digest), digest
        # most rows are pieces; none has lost its text from the full-text index
        assert sum(r[4] is not None for r in rows) > len(rows) // 2
        for subject in ("many", "few"):
            hits = c.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?",
                             ("own_text:answer AND subject:%s" % subject,)).fetchone()[0]
            assert hits == 1, (subject, hits)
        # own_text is not written: the stored column and the spans are
        assert "own_text" not in [r[1] for r in c.execute("PRAGMA table_info(messages)")]
        assert "own_text" in [r[1] for r in c.execute("PRAGMA table_xinfo(messages)")]


@tap.test
def a_fixed_set_of_searches_finds_what_it_found_before_issue_14():
    """tests/search_golden.py: 30 queries over every fixture directory, each
    hit in full, as deja found them with own text stored whole."""
    db = fresh_db("search-golden.db")
    for name in search_golden.FIXTURE_DIRS:
        r = deja("ingest", "--db", db, os.path.join(FIXTURES, name))
        assert r.returncode == 0, r.stderr
    found = search_golden.fixture_results(os.environ["DEJA"], db)
    assert sum(len(v) for v in found.values() if isinstance(v, list)) > 200
    diff = search_golden.differences(search_golden.golden("fixtures"), found)
    assert not diff, json.dumps(diff, ensure_ascii=False)[:3000]


def undo_text_analysis(c):
    """Takes a database back to schema 9 (before 010-text-analysis.sql)."""
    undo_own_spans(c)
    c.execute("DROP INDEX messages_lang")
    for table in ("repeated_paragraph_messages", "repeated_paragraphs", "near_duplicates"):
        c.execute("DROP TABLE %s" % table)
    for column in TEXT_COLUMNS:
        c.execute("ALTER TABLE messages DROP COLUMN %s" % column)
    c.execute("PRAGMA user_version = 9")


@tap.test
def an_older_database_gets_language_and_signals_from_the_next_ingest():
    needs("cld2")
    db = fresh_db("reading-v9.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    with sqlite3.connect(db) as c:
        before = c.execute("SELECT id, %s FROM messages ORDER BY id" % ", ".join(TEXT_COLUMNS)).fetchall()
        undo_text_analysis(c)
    assert any(row[1] == "en" for row in before) and all(row[1] for row in before)
    # a reader upgrades the schema but computes nothing: the columns wait, NULL
    assert deja("stats", "--db", db).returncode == 0
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] >= 10
        assert c.execute("SELECT count(*) FROM messages WHERE lang IS NOT NULL").fetchone()[0] == 0
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0 and "language and prose signals of 6 messages" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        after = c.execute("SELECT id, %s FROM messages ORDER BY id" % ", ".join(TEXT_COLUMNS)).fetchall()
    assert after == before
    # deja analyse --force computes them again, to the same values
    r = deja("analyse", "--db", db, "--force")
    assert r.returncode == 0 and "of 6 messages" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT id, %s FROM messages ORDER BY id" % ", ".join(TEXT_COLUMNS)).fetchall() == before


def undo_authors(c):
    """Takes a database back to schema 8 (before authors), as deja 0.1 of stop 20 left it."""
    undo_text_analysis(c)
    for view in ("distinct_messages", "messages_per_author", "replies", "messages_per_month",
                 "thread_summary"):
        c.execute("DROP VIEW %s" % view)
    c.execute("DROP INDEX messages_author")
    c.execute("DROP INDEX messages_sender")
    c.execute("CREATE INDEX messages_from_addr ON messages (from_addr)")
    c.execute("ALTER TABLE messages DROP COLUMN author_id")
    for table in ("author_addresses", "author_decisions", "authors"):
        c.execute("DROP TABLE %s" % table)
    c.execute("DELETE FROM deja_state WHERE key = 'authors'")
    # the views as 008-views.sql made them
    c.executescript(open(os.path.join(os.environ["SOURCE_ROOT"], "schema", "008-views.sql")).read()
                    .split("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');")[1])
    c.execute("PRAGMA user_version = 8")


@tap.test
def an_older_database_gets_authors_when_a_reader_opens_it():
    db = fresh_db("reading-v8.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    with sqlite3.connect(db) as c:
        before = c.execute("SELECT id, name, address, messages FROM authors ORDER BY id").fetchall()
        undo_authors(c)
    r = deja("stats", "--db", db)
    assert r.returncode == 0 and "authors      6" in r.stdout, r.stdout + r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] >= 9
        assert c.execute("SELECT id, name, address, messages FROM authors ORDER BY id").fetchall() == before
        assert c.execute("SELECT count(*) FROM messages WHERE author_id IS NULL").fetchone()[0] == 0


@tap.test
def an_older_database_gets_the_new_declaration_and_keeps_its_index():
    db = fresh_db("reading-v7.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    with sqlite3.connect(db) as c:
        undo_authors(c)
        for view in ("distinct_messages", "replies", "messages_per_author", "messages_per_month",
                     "thread_summary"):
            c.execute("DROP VIEW %s" % view)
        c.execute("DROP TABLE messages_fts")
        c.execute("CREATE VIRTUAL TABLE messages_fts USING fts5 (subject, own_text,"
                  " content = 'messages', content_rowid = 'id', tokenize = 'porter unicode61')")
        c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
        c.execute("PRAGMA user_version = 7")
    assert deja("thread", "--db", db).returncode == 0
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] >= 8
        assert [r[0] for r in c.execute(DATASETTE_DETECT_FTS)] == ["messages_fts"]
    r = deja("search", "--db", db, "--format", "json", "sizeof")
    assert sorted(x["id"] for x in json.loads(r.stdout)) == [1, 3], r.stdout


@tap.test
def views_answer_the_first_questions():
    with sqlite3.connect(DB) as c:
        c.row_factory = sqlite3.Row
        assert c.execute("SELECT count(*) FROM distinct_messages").fetchone()[0] == 12
        replies = c.execute("SELECT id, from_name, parent_id, parent_from_name FROM replies"
                            " WHERE thread_id = 1 ORDER BY id").fetchall()
        assert [tuple(r) for r in replies] == [(2, "Bob Baker", 1, "Ann Archer"),
                                               (3, "Ann Archer", 2, "Bob Baker"),
                                               (4, "Carol Cole", 1, "Ann Archer")]
        ann = c.execute("SELECT * FROM messages_per_author WHERE from_addr = 'ann@example.com'").fetchone()
        assert (ann["messages"], ann["threads_started"], ann["replies"]) == (2, 1, 1), dict(ann)
        assert ann["from_name"] == "Ann Archer" and ann["first_date"] == "1997-03-03T10:00:00"
        months = c.execute("SELECT month, newsgroup, messages FROM messages_per_month"
                           " ORDER BY newsgroup").fetchall()
        assert [tuple(r) for r in months] == [("1997-03", "comp.lang.c", 10),
                                              ("1997-03", "comp.std.c", 3)], [tuple(r) for r in months]
        t = c.execute("SELECT * FROM thread_summary WHERE thread_id = 1").fetchone()
        assert (t["messages"], t["authors"], t["subject"]) == (4, 3, "Pointer arithmetic question")


@tap.test
def the_worked_queries_give_what_the_docs_show():
    """docs/queries.md: each SQL block, run on the threading fixture,
    prints the table shown under it."""
    with open(os.path.join(os.environ["SOURCE_ROOT"], "docs", "queries.md"), encoding="utf-8") as f:
        text = f.read()
    pairs = re.findall(r"```sql\n(.*?)```\n```text\n(.*?)```", text, re.S)
    assert len(pairs) == 10, len(pairs)
    with sqlite3.connect(DB) as c:
        for sql, shown in pairs:
            cur = c.execute(sql)
            names = [d[0] for d in cur.description]
            rows = [["" if v is None else str(v) for v in r] for r in cur.fetchall()]
            assert rows, sql
            got = [names] + rows
            expected = [line.split() for line in shown.splitlines()]
            assert [" ".join(r).split() for r in got] == expected, (sql, got)


if __name__ == "__main__":
    tap.main(TMP, setup)
