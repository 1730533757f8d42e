#!/usr/bin/env python3
"""deja on real list archives: the figures a researcher would cite (issue 12).

Ingests ../shared/corpora/twisted__pipermail (three Mailman lists, 1999-2021,
150 MB: twisted-python, twisted-web with .txt.gz copies of every month, and
the spam-ridden inheritance list) as a user would, one directory each, and
checks what corpora/EXPECTED.md measured by reading the bytes: message
counts, readable authors, own text free of list software, threads joined only
through Message-IDs, plain-word search, distinct exports, and a separator log
holding exactly the prose lines.  Skips when the corpora are absent.  Suite
'conformance' (about a minute).
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import tap

DEJA = os.environ["DEJA"]
ROOT = os.environ.get("DEJA_CORPORA") or os.path.join(os.environ["SOURCE_ROOT"], "..", "shared", "corpora")
LISTS = os.path.join(ROOT, "twisted__pipermail")
TMP = tempfile.mkdtemp(prefix="deja-real-")

# list: (messages, distinct messages, separator-log rows), from EXPECTED.md
EXPECTED = {
    "twisted-python": (65706, 33242, 55),
    "twisted-web": (5374, 5371, 3),
    "inheritance": (15911, 15453, 0),
}

# A sender a person can read: an address, or pipermail's "user at host.tld".
READABLE = re.compile(rb"[\w.+-]+@[\w-]+(\.[\w-]+)+|\b[\w.+-]+ at [\w-]+(\.[\w-]+)+")


def db_of(name):
    return os.path.join(TMP, name + ".db")


def query(name, sql, *params):
    with sqlite3.connect(db_of(name)) as c:
        return c.execute(sql, params).fetchall()


def deja(*args):
    return subprocess.run([DEJA] + list(args), capture_output=True, text=True,
                          env=dict(os.environ, DEJA_NO_PROGRESS="1"))


def setup():
    for name in EXPECTED:
        r = deja("ingest", "--db", db_of(name), os.path.join(LISTS, name))
        assert r.returncode == 0, r.stderr[-2000:]


def raw_from(path, offset, length):
    """The From: line(s) of the message at [offset, offset+length) of path."""
    with open(path, "rb") as f:
        f.seek(offset)
        head = f.read(min(length, 65536)).split(b"\n\n", 1)[0]
    m = re.search(rb"^From:(.*(?:\n[ \t].*)*)", head, re.M | re.I)
    return m.group(1) if m else b""


def make_checks(name, messages, distinct, logged):
    def counts():
        assert query(name, "SELECT count(*), sum(duplicate_of IS NULL) FROM messages") == \
            [(messages, distinct)]

    def every_readable_sender_is_read():
        rows = query(name, "SELECT f.path, m.byte_offset, m.byte_length FROM messages m"
                           " JOIN files f ON f.id = m.file_id WHERE m.from_addr IS NULL")
        missed = [(p, o) for p, o, n in rows if READABLE.search(raw_from(p, o, n))]
        assert not missed, "%d readable senders read as NULL, e.g. %s" % (len(missed), missed[:3])
        if name == "twisted-python":
            assert rows == []

    def own_text_holds_no_list_software():
        bad = query(name, "SELECT count(*) FROM messages WHERE"
                          " own_text LIKE '%-------------- next part --------------%'"
                          " OR own_text LIKE '%attachment was scrubbed...%'"
                          " OR own_text LIKE '%message was scrubbed...%'"
                          " OR own_text LIKE '%mailing list' || char(10) || '%@%' || char(10)"
                          "     || 'http%/listinfo/%'")
        assert bad == [(0,)], bad

    def threads_join_through_message_ids_only():
        assert query(name, "SELECT count(*) FROM thread_placeholders"
                           " WHERE message_id IN (SELECT from_addr FROM messages)") == [(0,)]

    def search_takes_plain_words():
        for q in ("e-mail", "don't", "C++", "twisted.internet", "reactor.run()"):
            r = deja("search", "--db", db_of(name), "--format", "json", q)
            assert r.returncode == 0, (q, r.stderr)
            if name == "twisted-python":
                assert json.loads(r.stdout), q

    def export_writes_distinct_messages():
        r = deja("export", "--db", db_of(name), "--fields", "id")
        assert r.returncode == 0, r.stderr
        assert len(r.stdout.splitlines()) == distinct + 1

    def separator_log_is_the_prose_lines():
        rows = query(name, "SELECT verdict, reason FROM separator_log")
        assert len(rows) == logged and all(r == ("body", "prose") for r in rows), rows[:5]

    checks = [counts, every_readable_sender_is_read, own_text_holds_no_list_software,
              threads_join_through_message_ids_only, search_takes_plain_words,
              export_writes_distinct_messages, separator_log_is_the_prose_lines]
    for check in checks:
        check.__name__ = "%s: %s" % (name, check.__name__)
    return checks


def twisted_python_threads():
    """EXPECTED.md: three unrelated threads whose In-Reply-To is an address,
    and a reply whose References end in a message of the archive."""
    def at(month, line):
        return query("twisted-python", "SELECT m.thread_id, p.message_id FROM messages m"
                                       " JOIN files f ON f.id = m.file_id"
                                       " LEFT JOIN messages p ON p.id = m.parent_id"
                                       " WHERE f.path LIKE ? AND m.line_no = ?",
                     "%/" + month + ".txt", line)[0]
    threads = {at("2002-June", 922)[0], at("2002-July", 5637)[0], at("2002-September", 1256)[0]}
    assert len(threads) == 3, threads
    assert at("2002-October", 10187)[1] == "20021020201207.12429.qmail@green.zadka.com"


def the_prose_lines_are_the_ones_read_by_hand():
    lines = set(query("twisted-python", "SELECT replace(f.path, rtrim(f.path, replace(f.path, '/', '')), ''),"
                                        " l.line_no"
                                        " FROM separator_log l JOIN files f ON f.id = l.file_id"))
    assert ("2007-June.txt", 1263) in lines and ("2008-June.txt", 6037) in lines, sorted(lines)[:5]


def a_fixed_set_of_searches_finds_what_it_found_before_issue_14():
    """tests/search_golden.py on twisted-python: each query's count, first
    50 ids and a digest of every hit, as deja found them with own text
    stored whole (commit 4959259)."""
    import search_golden
    found = search_golden.corpus_results(DEJA, db_of("twisted-python"))
    assert found["the"]["count"] > 20000, found["the"]
    diff = search_golden.differences(search_golden.golden("twisted-python"), found)
    assert not diff, json.dumps(diff)[:3000]


def three_lists_merged_equal_one_ingest_of_all():
    """deja merge (issue 18) on real archives: the three list databases
    as shards, merged, against one ingest of the three directories."""
    from db_compare import compare, dump
    one, merged = os.path.join(TMP, "all.db"), os.path.join(TMP, "merged.db")
    r = deja("ingest", "--db", one, *[os.path.join(LISTS, name) for name in EXPECTED])
    assert r.returncode == 0, r.stderr[-2000:]
    r = deja("merge", "--db", merged, *[db_of(name) for name in EXPECTED])
    assert r.returncode == 0, r.stderr[-2000:]
    queries = ["deferred", "reactor.run()", "from:glyph", "twisted.web"]
    scratch = os.path.join(TMP, "edges.csv")
    compare(dump(one, queries, scratch), dump(merged, queries, scratch))


if __name__ == "__main__":
    if not os.path.isdir(LISTS):
        print("1..0 # SKIP no real archives at %s" % LISTS)
        sys.exit(0)
    for name, (m, d, logged) in EXPECTED.items():
        for check in make_checks(name, m, d, logged):
            tap.test(check)
    tap.test(twisted_python_threads)
    tap.test(the_prose_lines_are_the_ones_read_by_hand)
    tap.test(a_fixed_set_of_searches_finds_what_it_found_before_issue_14)
    tap.test(three_lists_merged_equal_one_ingest_of_all)
    tap.main(TMP, setup)
