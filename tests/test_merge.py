#!/usr/bin/env python3
"""deja merge (issue 18; docs/scale.md): a set of archives ingested as 1, 3
and 7 shards and merged must equal one ingest of them all, compared on
everything a researcher reads: rows by (file hash, offset), Message-IDs,
the thread partition, parents, duplicate copies, authors, network edges
with weights, separator log, decisions, and search results for a query set.

The archives are the fixtures: two group exports whose threads cross
(a reply in one file to a post in the other, a cross-post in both), Google
and RFC 4155 envelopes, people with several addresses, six languages, a
zip of Usenet groups, and one file twice under two paths.  Run by meson
(suite 'cli').
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import tap
from cli_helpers import DEJA, FIXTURES, TMP, deja, fresh_db, needs, tmp
from db_compare import compare, dump as dump_with
import shard_set
from shard_set import chunks

ARCHIVES = list(shard_set.ARCHIVES)
# The same content under another path: stored once, whichever shard has it.
COPY = tmp("copy-of-people.mbox")
shutil.copyfile(ARCHIVES[2], COPY)
ARCHIVES.append(COPY)
QUERIES = shard_set.QUERIES
# Decisions people made, one in the first shard and one in the last.
MERGE_DECISION = shard_set.MERGE_DECISION


def dump(db):
    return dump_with(db, QUERIES, tmp("edges.csv"))


def ok(*args):
    r = deja(*args)
    assert r.returncode == 0, (args, r.stderr)
    return r


def ingest(db, paths, decide=False):
    fresh_db(os.path.basename(db))
    ok("ingest", "-q", "--db", db, *paths)
    if decide:
        ok("authors", "-q", "--db", db, *MERGE_DECISION)


def query(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


ONE = tmp("one.db")
ingest(ONE, ARCHIVES, decide=True)
EXPECTED = dump(ONE)


_NUMBERED = {}


def shards_of(n, prefix, numbered=False):
    """Shards of ARCHIVES; numbered: made with --shard 1, 2, ... (ids in ranges of their own).
    Numbered sets are made once and copied (tests change their copies)."""
    if numbered and n in _NUMBERED:
        dbs = []
        for i, made in enumerate(_NUMBERED[n]):
            db = tmp("%s-%d.db" % (prefix, i))
            fresh_db(os.path.basename(db))
            shutil.copyfile(made, db)
            dbs.append(db)
        return dbs
    if numbered:
        _NUMBERED[n] = shards_of_made(n, "numbered%d" % n, True)
        return shards_of(n, prefix, True)
    return shards_of_made(n, prefix, False)


def shards_of_made(n, prefix, numbered):
    dbs = []
    for i, part in enumerate(chunks(ARCHIVES, n)):
        db = tmp("%s-%d.db" % (prefix, i))
        fresh_db(os.path.basename(db))
        ok("ingest", "-q", "--db", db, *(["--shard", str(i + 1)] if numbered else []), *part)
        if i == n - 1:
            ok("authors", "-q", "--db", db, *MERGE_DECISION)
        dbs.append(db)
    return dbs


def varint(data, i):
    """SQLite's varint, as FTS5 writes it: (value, next offset)."""
    v = 0
    for k in range(9):
        b = data[i + k]
        if k == 8:
            return (v << 8) | b, i + 9
        v = (v << 7) | (b & 0x7f)
        if not b & 0x80:
            return v, i + k + 1


def fts_levels(db):
    """FTS5's structure record: [(segments being merged, [segment ids])] per level."""
    data = query(db, "SELECT block FROM messages_fts_data WHERE id = 10")[0][0]
    i = 4
    levels, i = varint(data, i)
    _, i = varint(data, i)
    _, i = varint(data, i)
    out = []
    for _ in range(levels):
        merging, i = varint(data, i)
        n, i = varint(data, i)
        ids = []
        for _ in range(n):
            seg, i = varint(data, i)
            _, i = varint(data, i)
            _, i = varint(data, i)
            ids.append(seg)
        out.append((merging, ids))
    assert i == len(data), (i, len(data))
    return out


def fragment(db, commits, merge_pages=0):
    """Leaves db's full-text index in many segments, each a row deleted and
    indexed again in a transaction of its own (FTS5's own merges off), and,
    with merge_pages, an FTS5 merge of them started and not finished."""
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 0)")
    c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('crisismerge', 1999)")
    # small leaves, so that a merge of a few of them is not all of it
    c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('pgsz', 64)")
    rows = c.execute("SELECT id, subject, own_text FROM messages ORDER BY id").fetchall()
    for k in range(commits):
        row = rows[k % len(rows)]
        c.execute("BEGIN")
        c.execute("INSERT INTO messages_fts (messages_fts, rowid, subject, own_text)"
                  " VALUES ('delete', ?, ?, ?)", row)
        c.execute("INSERT INTO messages_fts (rowid, subject, own_text) VALUES (?, ?, ?)", row)
        c.execute("COMMIT")
    if merge_pages:
        c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('usermerge', 2)")
        c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ?)", (merge_pages,))
    c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
    c.close()


@tap.test
def the_fixture_set_has_what_merge_must_get_right():
    """Cross-file threads, duplicate copies and a file stored once."""
    m = EXPECTED["messages"]
    assert len(m) > 60, len(m)
    dups = [k for k, v in m.items() if v[-2] is not None]
    assert len(dups) >= 2, dups
    # The zip's two members and the copy have content stored under other paths.
    assert len(EXPECTED["files"]) == len(ARCHIVES) - 2, EXPECTED["files"]
    crossing = [t for t in EXPECTED["threads"] if len({k.split(":")[0] for k in t}) > 1]
    assert crossing, "no thread spans two files"
    addresses = dict((a[0], a[1]) for a in EXPECTED["addresses"])
    assert addresses["frank@one.example"] == addresses["fmiller@two.example"], addresses
    assert all(EXPECTED["search"][q] for q in QUERIES), EXPECTED["search"]
    assert len(EXPECTED["network"]) > 10, EXPECTED["network"]


@tap.test
def the_comparison_sees_a_difference():
    """A test that cannot fail is no test: all but one archive is not the whole."""
    db = tmp("part.db")
    ingest(db, ARCHIVES[:-2] + ARCHIVES[-1:], decide=True)
    try:
        compare(EXPECTED, dump(db))
    except AssertionError:
        return
    raise AssertionError("a database without an archive compared equal")


def indexes(db):
    return query(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name")


def check_index(db):
    """FTS5's own check: the index holds exactly what its rows' text gives;
    and every index one ingest has is there (a merge into an empty database
    builds them at its end), none left to build."""
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("PRAGMA foreign_key_check").fetchall() == []
        assert c.execute("SELECT value FROM deja_state WHERE key = 'deferred_indexes'").fetchall() == []
    assert indexes(db) == indexes(ONE), (db, indexes(db))


def merged_note(stderr, shard):
    line = [l for l in stderr.splitlines() if "merged '%s'" % shard in l]
    assert len(line) == 1, (shard, stderr)
    return line[0]


def check_shards(n, numbered=False, prefix=None):
    dbs = shards_of(n, prefix or "shard%d%s" % (n, "n" if numbered else ""), numbered)
    out = fresh_db("merged-%d%s.db" % (n, "n" if numbered else ""))
    r = ok("merge", "--db", out, *dbs)
    assert "merged '%s'" % dbs[0] in r.stderr, r.stderr
    compare(EXPECTED, dump(out))
    check_index(out)
    return dbs, out, r.stderr


@tap.test
def one_shard_merged_equals_one_ingest():
    check_shards(1)


@tap.test
def three_shards_merged_equal_one_ingest():
    dbs, _, stderr = check_shards(3)
    # The first keeps its ids in a new database; the others' come after them
    assert "full-text index copied" in merged_note(stderr, dbs[0]), stderr
    assert "full-text index made again: its message ids do not all come after" in \
        merged_note(stderr, dbs[1]), stderr
    assert "full-text index made again: some of its files are here already" in \
        merged_note(stderr, dbs[2]), stderr
    # Only the first is copied as stored: the others' ids, files and authors differ
    assert "messages copied as stored" in merged_note(stderr, dbs[0]), stderr
    assert "messages written again row by row: its message ids do not all come after" in \
        merged_note(stderr, dbs[1]), stderr


@tap.test
def numbered_shards_keep_their_ids_and_their_index_is_copied():
    """deja ingest --shard N: the merge copies FTS5's segments, tokenises nothing."""
    dbs, out, stderr = check_shards(3, numbered=True)
    for i, db in enumerate(dbs[:2]):
        lo, hi = query(db, "SELECT min(id), max(id) FROM messages")[0]
        assert lo == (i + 1) * 2 ** 32 + 1 and hi < (i + 2) * 2 ** 32, (db, lo, hi)
        # the same rows under the same ids
        assert query(out, "SELECT count(*) FROM messages WHERE id BETWEEN %d AND %d" % (lo, hi)) == \
            query(db, "SELECT count(*) FROM messages")
    assert "full-text index copied" in merged_note(stderr, dbs[0]), stderr
    assert "full-text index copied" in merged_note(stderr, dbs[1]), stderr
    # The last has a file whose content the first has: some rows stay behind
    assert "full-text index made again: some of its files are here already" in \
        merged_note(stderr, dbs[2]), stderr
    # Their files are numbered as their messages are, their authors keyed by address (the
    # same address the same id in every shard): the first two are copied as SQLite stored
    # them (the equality with one ingest above holds for them)
    for i, db in enumerate(dbs):
        lo, hi = query(db, "SELECT min(id), max(id) FROM files")[0]
        assert lo == (i + 1) * 2 ** 32 + 1 and hi < (i + 2) * 2 ** 32, (db, lo, hi)
        assert query(db, "SELECT count(*) FROM authors WHERE id < 1 << 52 OR id >= 1 << 53") == [(0,)], db
    for db in dbs[:2]:
        assert "messages copied as stored" in merged_note(stderr, db), stderr
    assert "messages written again row by row: some of its files are here" in merged_note(stderr, dbs[2]), stderr
    a, b = (dict(query(db, "SELECT address, author_id FROM author_addresses")) for db in dbs[:2])
    both = set(a) & set(b)
    assert both and all(a[k] == b[k] for k in both), (a, b)
    segments = sum(len(ids) for _, ids in fts_levels(out))
    assert segments >= 2, fts_levels(out)
    # --reindex: made again, the same result
    again = fresh_db("merged-reindex.db")
    r = ok("merge", "--reindex", "--db", again, *dbs)
    assert all("full-text index made again: asked to" in merged_note(r.stderr, db) for db in dbs), r.stderr
    compare(EXPECTED, dump(again))
    check_index(again)


@tap.test
def a_shard_whose_authors_have_other_ids_is_written_row_by_row():
    """A shard made without --shard numbers its authors 1, 2, 3; a numbered one after it
    keys them by address: an address in both has two ids, and the second shard's messages
    are written again with this database's (the same result)."""
    parts = [ARCHIVES[i] for i in (0, 2, 3)], [ARCHIVES[i] for i in (4, 5, 7)]   # no content twice
    plain, numbered = tmp("plain-first.db"), tmp("numbered-second.db")
    fresh_db("plain-first.db")
    fresh_db("numbered-second.db")
    ok("ingest", "-q", "--db", plain, *parts[0])
    ok("ingest", "-q", "--shard", "1", "--db", numbered, *parts[1])
    common = set(r[0] for r in query(plain, "SELECT address FROM author_addresses")) & \
        set(r[0] for r in query(numbered, "SELECT address FROM author_addresses"))
    assert common, "the two parts share no address: the test needs one"
    out = fresh_db("plain-then-numbered.db")
    r = ok("merge", "--db", out, plain, numbered)
    assert "messages copied as stored" in merged_note(r.stderr, plain), r.stderr
    assert "messages written again row by row: its authors have other ids here" in \
        merged_note(r.stderr, numbered), r.stderr
    assert "full-text index copied" in merged_note(r.stderr, numbered), r.stderr
    single = tmp("plain-then-numbered-single.db")
    ingest(single, parts[0] + parts[1])
    compare(dump(single), dump(out))
    check_index(out)


@tap.test
def an_address_with_another_author_id_in_a_shard_is_given_this_ones():
    """A shard can give an address another author id than the shards before it (it grouped
    the address otherwise): its messages are still copied as stored, and those few are then
    given the author the address has here."""
    dbs = shards_of(3, "regrouped", numbered=True)
    addresses = set(r[0] for r in query(dbs[0], "SELECT address FROM author_addresses"))
    with sqlite3.connect(dbs[1]) as c:
        moved = [r for r in c.execute("SELECT from_addr, count(*) FROM messages WHERE from_addr IS NOT NULL"
                                      " GROUP BY from_addr ORDER BY 2, 1").fetchall() if r[0] in addresses][0]
        c.execute("INSERT INTO authors (id, name, address, messages) VALUES (12345, ?1, ?1, 0)", (moved[0],))
        c.execute("UPDATE author_addresses SET author_id = 12345 WHERE address = ?", (moved[0],))
        c.execute("UPDATE messages SET author_id = 12345 WHERE from_addr = ?", (moved[0],))
    out = fresh_db("regrouped.db")
    r = ok("merge", "--db", out, *dbs)
    assert "messages copied as stored (%d given the author their address has here)" % moved[1] in \
        merged_note(r.stderr, dbs[1]), (moved, r.stderr)
    compare(EXPECTED, dump(out))
    check_index(out)


@tap.test
def numbered_shards_merged_out_of_order_equal_one_ingest_in_that_order():
    dbs = shards_of(3, "unordered", numbered=True)
    parts = chunks(ARCHIVES, 3)
    out = fresh_db("unordered.db")
    r = ok("merge", "--db", out, dbs[1], dbs[0], dbs[2])
    assert "full-text index copied" in merged_note(r.stderr, dbs[1]), r.stderr
    assert "do not all come after" in merged_note(r.stderr, dbs[0]), r.stderr
    single = tmp("unordered-single.db")
    fresh_db("unordered-single.db")
    ok("ingest", "-q", "--db", single, *(parts[1] + parts[0] + parts[2]))
    ok("authors", "-q", "--db", single, *MERGE_DECISION)
    compare(dump(single), dump(out))
    check_index(out)


@tap.test
def a_fragmented_index_with_a_merge_under_way_is_copied_whole():
    """Many segments with delete markers, and FTS5's incremental merge left
    half done (its state is in the structure record): copied as it is."""
    dbs = shards_of(3, "fragments", numbered=True)
    fragment(dbs[0], 40, merge_pages=3)
    fragment(dbs[1], 25)
    levels = fts_levels(dbs[0])
    assert any(merging for merging, _ in levels), levels
    assert sum(len(ids) for _, ids in fts_levels(dbs[1])) > 20, fts_levels(dbs[1])
    out = fresh_db("fragments.db")
    r = ok("merge", "--db", out, *dbs)
    assert "full-text index copied" in merged_note(r.stderr, dbs[0]), r.stderr
    assert "full-text index copied" in merged_note(r.stderr, dbs[1]), r.stderr
    compare(EXPECTED, dump(out))
    check_index(out)
    assert not any(merging for merging, _ in fts_levels(out)), fts_levels(out)
    # FTS5 goes on writing on top of the copy: a file ingested and replaced
    ok("ingest", "-q", "--db", out, ARCHIVES[0])
    changed = tmp("fragments-changed.mbox")
    shutil.copyfile(ARCHIVES[4], changed)
    ok("ingest", "-q", "--db", out, changed)
    with open(ARCHIVES[5], "rb") as src, open(changed, "wb") as dst:
        dst.write(src.read())
    ok("ingest", "-q", "--db", out, changed)
    check_index(out)


@tap.test
def past_a_thousand_segments_the_merge_makes_one():
    """FTS5 takes no writes past 2,000 segments: after a copy that leaves
    more than 1,000, the merge has FTS5 merge them all (no tokenising)."""
    dbs = shards_of(3, "many-segments", numbered=True)[:2]
    for db in dbs:
        fragment(db, 520)
    total = sum(len(ids) for db in dbs for _, ids in fts_levels(db))
    assert total > 1000, total
    out = fresh_db("many-segments.db")
    r = ok("merge", "--db", out, *dbs)
    assert "full-text index copied" in merged_note(r.stderr, dbs[1]), r.stderr
    assert sum(len(ids) for _, ids in fts_levels(out)) == 1, fts_levels(out)
    check_index(out)
    for q in ["the", "thread", "zyzzogeton"]:
        merged = tsv(ok("search", "--db", out, "--format", "tsv", "--limit", "0", q).stdout)
        assert {(x["file"], x["byte_offset"]) for x in merged} == \
            {(x["file"], x["byte_offset"]) for db in dbs
             for x in tsv(ok("search", "--db", db, "--format", "tsv", "--limit", "0", q).stdout)}, q


@tap.test
def a_shard_whose_index_is_not_as_its_rows_say_is_indexed_again():
    """Nothing of an index that does not add up is taken: a size row
    missing, a page of a segment its structure does not list."""
    for name, sql, why in [
            ("docsize", "DELETE FROM messages_fts_docsize WHERE id = (SELECT max(id) FROM messages)",
             "does not have the rows of its messages"),
            ("stray", "INSERT INTO messages_fts_data (id, block) VALUES ((99 << 37) + 1, x'00')",
             "pages of segments it does not list"),
            ("structure", "UPDATE messages_fts_data SET block = block || x'00' WHERE id = 10",
             "not in a format this deja knows"),
            ("leaf", "DELETE FROM messages_fts_data WHERE id = (SELECT min(id) FROM messages_fts_data"
             " WHERE id > 10)", "lacks pages its structure lists")]:
        dbs = shards_of(3, "odd-" + name, numbered=True)
        with sqlite3.connect(dbs[1]) as c:
            c.execute(sql)
        out = fresh_db("odd-%s.db" % name)
        r = ok("merge", "--db", out, *dbs)
        assert "full-text index copied" in merged_note(r.stderr, dbs[0]), r.stderr
        assert why in merged_note(r.stderr, dbs[1]), (name, r.stderr)
        check_index(out)
        for q in ["the", "quantum flux"]:
            assert hits(out, q) == hits(ONE, q) and hits(ONE, q), q


def hits(db, q):
    return {(x["file"], x["byte_offset"])
            for x in tsv(ok("search", "--db", db, "--format", "tsv", "--limit", "0", q).stdout)}


@tap.test
def ingest_shard_numbers():
    db = fresh_db("numbered.db")
    ok("ingest", "-q", "--shard", "7", "--db", db, ARCHIVES[0])
    assert query(db, "SELECT min(id) FROM messages") == [(7 * 2 ** 32 + 1,)]
    ok("ingest", "-q", "--shard", "7", "--db", db, ARCHIVES[1])
    n = query(db, "SELECT count(*), max(id) FROM messages")[0]
    assert n[1] == 7 * 2 ** 32 + n[0], n
    for bad in ["-1", "1000001", "x"]:
        assert deja("ingest", "--shard", bad, "--db", db, ARCHIVES[0]).returncode == 2, bad


@tap.test
def seven_shards_merged_equal_one_ingest_and_shards_are_left_as_they_were():
    dbs = shards_of(7, "seven")
    before = [open(db, "rb").read() for db in dbs]
    out = fresh_db("merged-7.db")
    ok("merge", "--db", out, *dbs)
    compare(EXPECTED, dump(out))
    assert [open(db, "rb").read() for db in dbs] == before
    assert not any(os.path.exists(db + s) for db in dbs for s in ("-wal", "-shm"))


@tap.test
def merging_one_shard_at_a_time_equals_merging_all_at_once():
    """Incremental: each new shard into the earlier result, which keeps its rows."""
    dbs = shards_of(3, "incr")
    out = fresh_db("incremental.db")
    ok("merge", "--db", out, dbs[0])
    first = query(out, "SELECT id, file_id, byte_offset FROM messages ORDER BY id")
    for db in dbs[1:]:
        ok("merge", "--db", out, db)
    compare(EXPECTED, dump(out))
    # What was there keeps its ids.
    assert query(out, "SELECT id, file_id, byte_offset FROM messages WHERE id <= %d ORDER BY id"
                 % first[-1][0]) == first


def journal_mode(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        c.close()


@tap.test
def shards_are_copied_in_a_rollback_journal_unless_out_is_open_elsewhere():
    """The copy writes OUT's new pages once (a rollback journal, not the
    write-ahead log); OUT is in WAL mode again at the end.  Another
    program holding OUT open keeps it in WAL mode: the merge says so, and
    the result is the same."""
    dbs = shards_of(3, "journal", numbered=True)
    out = fresh_db("journal.db")
    r = ok("merge", "--db", out, dbs[0])
    assert "another program" not in r.stderr, r.stderr
    assert journal_mode(out) == "wal" and not os.path.exists(out + "-journal")
    reader = sqlite3.connect(out)
    try:
        assert reader.execute("SELECT count(*) FROM messages").fetchone()[0] > 0
        r = ok("merge", "--db", out, *dbs[1:])
        assert "another program has '%s' open: the shards go through its write-ahead log" % out \
            in r.stderr, r.stderr
    finally:
        reader.close()
    compare(EXPECTED, dump(out))
    check_index(out)
    assert journal_mode(out) == "wal"


@tap.test
def a_shard_merged_twice_changes_nothing():
    dbs, out, _ = check_shards(3, numbered=True, prefix="twice")
    before = dump(out)
    r = ok("merge", "--db", out, dbs[1])
    assert "already here" in r.stderr, r.stderr
    compare(before, dump(out))


@tap.test
def an_ingest_into_a_merged_database_goes_on_as_in_one():
    """The merged database is an ordinary one: ingest more into it."""
    out = fresh_db("merge-then-ingest.db")
    dbs = shards_of(3, "then", numbered=True)
    ok("merge", "--db", out, *dbs[:2])
    ok("ingest", "-q", "--db", out, *chunks(ARCHIVES, 3)[2])
    ok("authors", "-q", "--db", out, *MERGE_DECISION)
    compare(EXPECTED, dump(out))


@tap.test
def a_shard_left_without_its_indexes_gets_them_and_merges_the_same():
    """A shard whose first ingest was killed before building its indexes
    (store-indexes.c) is opened as any deja opens it: they are built."""
    dbs = shards_of(3, "left", numbered=True)
    with sqlite3.connect(dbs[0]) as c:
        c.execute("DROP INDEX messages_date")
        c.execute("DROP INDEX messages_message_id")
        c.execute("INSERT INTO deja_state (key, value) VALUES ('deferred_indexes',"
                  " 'messages_date\nmessages_message_id\n')")
    out = fresh_db("left.db")
    ok("merge", "--db", out, *dbs)
    compare(EXPECTED, dump(out))
    check_index(out)
    assert indexes(dbs[0]) == indexes(ONE)


@tap.test
def rows_of_no_message_of_the_shard_stay_behind():
    """A stranger's shard (or one a crash left half-deleted) can hold rows
    that hang off no message of it: references, attachments, groups, Usenet
    headers and links under an id it has no message for, and the parent or
    copy of a message pointing there.  The merge takes what hangs off the
    messages it copies, nothing else: here the ids are the next shard's
    first messages, whose own rows they would join."""
    dbs = shards_of(3, "strays", numbered=True)
    stray = query(dbs[1], "SELECT min(id) FROM messages")[0][0]
    with sqlite3.connect(dbs[0]) as c:
        c.execute("PRAGMA foreign_keys = OFF")
        for id in (stray, stray + 1):
            c.execute("INSERT INTO message_refs (message_id, kind, position, ref)"
                      " VALUES (?, 0, 0, 'stray@nowhere.example')", (id,))
            c.execute("INSERT INTO attachments (message_id, position, content_type, size, encoding)"
                      " VALUES (?, 0, 'image/gif', 1, 'mime')", (id,))
            c.execute("INSERT INTO message_newsgroups (message_id, newsgroup_id)"
                      " SELECT ?, min(id) FROM newsgroups", (id,))
            c.execute("INSERT INTO usenet_headers (message_id, path) VALUES (?, 'stray!path')", (id,))
            c.execute("INSERT INTO links (message_id, position, url, normalized)"
                      " VALUES (?, 0, 'http://stray.example/', 'http://stray.example/')", (id,))
        c.execute("UPDATE messages SET parent_id = ?, duplicate_of = ?"
                  " WHERE id = (SELECT max(id) FROM messages)", (stray, stray + 1))
    out = fresh_db("strays.db")
    r = ok("merge", "--db", out, *dbs)
    # Copied as stored, the strays would come along: checked through its indexes first
    assert "messages written again row by row: some of its messages point at rows it does not have" \
        in merged_note(r.stderr, dbs[0]), r.stderr
    assert "messages copied as stored" in merged_note(r.stderr, dbs[1]), r.stderr
    compare(EXPECTED, dump(out))
    check_index(out)
    for table, what in [("message_refs", "ref = 'stray@nowhere.example'"),
                        ("attachments", "content_type = 'image/gif' AND size = 1"),
                        ("usenet_headers", "path = 'stray!path'"),
                        ("links", "url = 'http://stray.example/'")]:
        assert query(out, "SELECT count(*) FROM %s WHERE %s" % (table, what)) == [(0,)], table


MAIL = ("From {a}@example.org Mon Mar  3 10:0{n}:00 1997\nFrom: {a} <{a}@example.org>\n"
        "Subject: {s}\nMessage-ID: <{mid}>\nDate: Mon, 3 Mar 1997 10:0{n}:00 GMT\n{refs}\n{body}\n\n")
REFS = "References: <%s>\n"


def verbose_merge(out, dbs):
    r = subprocess.run([DEJA, "merge", "--verbose", "--db", out, *dbs], capture_output=True, text=True,
                       env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert r.returncode == 0, r.stderr
    return r.stderr


def kept(stderr):
    """How many messages threading kept as their shards threaded them, or None: all threaded."""
    m = re.search(r"threads kept as their shards made them: (\d+) messages", stderr)
    return int(m.group(1)) if m else None


@tap.test
def threads_no_other_shard_touches_are_kept_and_the_rest_threaded_again():
    """Into an empty database, a shard that comes whole with its threads keeps what
    threading found in a component of the reference graph that is its own; a component
    another shard touches is threaded again: by a reply, a copy, or a string that is a
    sender's address there (threading drops a reference that is an address and no
    Message-ID, which the first shard could not know).  The result is one ingest's."""
    parts = []
    for i, mails in enumerate([
            # its own thread; a reply to a post of the next shard; a reference that is
            # the next shard's sender; a post copied in the next shard
            [("ann", 0, "own", "own1@x", "", "Its own thread."),
             ("ann", 1, "Re: own", "own2@x", REFS % "own1@x", "A reply in it."),
             ("ann", 2, "Re: later", "early@x", REFS % "later@x", "Before its parent."),
             ("ann", 3, "Re: bob", "asks@x", REFS % "bob@example.org", "An address."),
             ("ann", 4, "copied", "copy@x", "", "Posted twice.")],
            [("bob", 5, "later", "later@x", "", "The parent, in the next shard."),
             ("bob", 6, "copied", "copy@x", "", "Posted twice."),
             ("bob", 7, "own", "bob1@x", "", "Its own thread too.")]]):
        path = tmp("keep-%d.mbox" % i)
        with open(path, "w") as f:
            for a, n, s, mid, refs, body in mails:
                f.write(MAIL.format(a=a, n=n, s=s, mid=mid, refs=refs, body=body))
        parts.append(path)
    one = fresh_db("keep-one.db")
    ok("ingest", "-q", "--db", one, *parts)
    dbs = []
    for i, path in enumerate(parts):
        db = fresh_db("keep-shard-%d.db" % i)
        ok("ingest", "-q", "--shard", str(i + 1), "--db", db, path)
        dbs.append(db)
    # the first shard's view: the address is a Message-ID it lacks
    assert query(dbs[0], "SELECT missing_parent FROM messages WHERE message_id = 'asks@x'") == \
        [("bob@example.org",)]
    out = fresh_db("keep-merged.db")
    stderr = verbose_merge(out, dbs)
    assert kept(stderr) == 2 + 1, stderr      # own1, own2; bob1
    assert query(out, "SELECT missing_parent FROM messages WHERE message_id = 'asks@x'") == [(None,)]
    compare(dump_with(one, ["thread", "own"], tmp("keep-one.csv")),
            dump_with(out, ["thread", "own"], tmp("keep-out.csv")))
    # the same summary as one ingest's threading
    assert stderr.split("threaded ")[1].split(": ", 1)[1].splitlines()[0] == \
        ok("thread", "--db", one).stderr.split("threaded ")[1].split(": ", 1)[1].splitlines()[0], stderr
    # Rows never threaded (a shard from before threading, upgraded) are threaded again.
    with sqlite3.connect(dbs[0]) as c:
        c.execute("UPDATE messages SET thread_id = NULL, parent_id = NULL WHERE message_id = 'own2@x'")
    out = fresh_db("keep-unthreaded.db")
    stderr = verbose_merge(out, dbs)
    assert kept(stderr) == 1, stderr          # bob1
    compare(dump_with(one, ["thread"], tmp("keep-one.csv")), dump_with(out, ["thread"], tmp("keep-out.csv")))
    # A shard whose threads an interrupted ingest left stale, a database that held
    # messages, or a shard not whole: every message threaded, as before.
    with sqlite3.connect(dbs[1]) as c:
        c.execute("INSERT INTO deja_state (key, value) VALUES ('threads', 'stale')")
    out = fresh_db("keep-stale.db")
    stderr = verbose_merge(out, dbs)
    assert kept(stderr) is None, stderr
    compare(dump_with(one, ["thread"], tmp("keep-one.csv")), dump_with(out, ["thread"], tmp("keep-out.csv")))
    out = fresh_db("keep-twice.db")
    verbose_merge(out, dbs[:1])
    assert kept(verbose_merge(out, dbs[1:])) is None


@tap.test
def shards_in_a_read_only_place_are_merged_as_they_lie():
    """A cluster's shards on a share nobody may write to: each is read as it lies
    (immutable), nothing is written beside it, the result is one ingest's, and their
    threads are kept as from shards anywhere else.  Beside a shard an ingest that did not
    finish left its write-ahead log: read with it where its index is there too (an
    immutable reader missed the log's rows), refused with that reason where it is not, as
    is a shard with a rollback journal to undo; the others go in."""
    d = tmp("ro-shards")
    if os.path.isdir(d):
        os.chmod(d, 0o755)
        shutil.rmtree(d)
    os.makedirs(d)
    # the zip holds copies of the sample and plain-words: in the same shard, each
    # shard comes whole
    parts = [ARCHIVES[0:2] + ARCHIVES[7:9], ARCHIVES[2:7] + ARCHIVES[9:10]]
    one = tmp("ro-one.db")
    ingest(one, parts[0] + parts[1])
    dbs = [os.path.join(d, "s%d.db" % i) for i in range(len(parts))]
    for i, (db, part) in enumerate(zip(dbs, parts)):
        ok("ingest", "-q", "--shard", str(i + 1), "--db", db, *part)
        os.chmod(db, 0o644)
    d2 = tmp("ro-shards-journal")
    if os.path.isdir(d2):
        os.chmod(d2, 0o755)
        shutil.rmtree(d2)
    os.makedirs(d2)
    journaled = os.path.join(d2, "s1.db")
    shutil.copyfile(dbs[1], journaled)
    os.chmod(journaled, 0o644)
    writable = verbose_merge(fresh_db("ro-writable.db"), dbs)
    assert kept(writable) is not None and kept(writable) > 0, writable
    user = 65534 if os.geteuid() == 0 else None
    os.chmod(d, 0o555)
    try:
        out = fresh_db("ro-merged.db")
        r = deja("merge", "--verbose", "--db", out, *dbs, user=user)
        assert r.returncode == 0, r.stderr
        assert kept(r.stderr) == kept(writable), r.stderr
        compare(dump(one), dump(out))
        check_index(out)
        assert sorted(os.listdir(d)) == ["s0.db", "s1.db"], os.listdir(d)
        # A log an ingest that did not finish left beside the second shard: read
        # with its index (-shm), as the commands that read do; without one, the
        # shard is refused, naming the log, and the others go in.
        os.chmod(d, 0o755)
        changed = query(dbs[1], "SELECT count(*) FROM messages")
        subprocess.run([sys.executable, "-c", "\n".join([
            "import os, sqlite3", "c = sqlite3.connect(%r, isolation_level=None)" % dbs[1],
            "c.execute('PRAGMA wal_autocheckpoint = 0')",
            "c.execute(\"UPDATE messages SET subject = 'changed'\")", "os._exit(0)"])], check=True)
        assert os.path.getsize(dbs[1] + "-wal") > 0 and os.path.exists(dbs[1] + "-shm")
        os.chmod(d, 0o555)
        out = fresh_db("ro-log.db")
        r = deja("merge", "--db", out, *dbs, user=user)
        assert r.returncode == 0, r.stderr
        assert query(out, "SELECT count(*) FROM messages WHERE subject = 'changed'") == changed
        assert os.path.getsize(dbs[1] + "-wal") > 0, "the merge changed nothing beside its shards"
        os.chmod(d, 0o755)
        os.unlink(dbs[1] + "-shm")
        os.chmod(d, 0o555)
        out = fresh_db("ro-log-alone.db")
        r = deja("merge", "--db", out, *dbs, user=user)
        assert r.returncode == 1, r.stderr
        assert "cannot merge '%s': its write-ahead log '%s-wal' may hold changes" % (dbs[1], dbs[1]) \
            in r.stderr, r.stderr
        assert query(out, "SELECT count(*) FROM messages") == query(dbs[0], "SELECT count(*) FROM messages")
        # A rollback journal left by a writer killed in a transaction holds what to
        # undo, which nothing can undo there: refused, naming the journal.
        subprocess.run([sys.executable, "-c", "\n".join([
            "import os, sqlite3", "c = sqlite3.connect(%r, isolation_level=None)" % journaled,
            "c.execute('PRAGMA journal_mode = DELETE')",
            "c.execute('PRAGMA cache_size = 1')",   # spills: the journal is hot
            "c.execute('BEGIN')", "c.execute(\"UPDATE messages SET subject = 'undone'\")",
            "c.execute('CREATE TABLE filler (x)')",
            "c.executemany('INSERT INTO filler VALUES (?)', [(os.urandom(2000),) for i in range(2000)])",
            "os._exit(0)"])], check=True)
        assert os.path.getsize(journaled + "-journal") > 0
        os.chmod(d2, 0o555)
        out = fresh_db("ro-journal.db")
        r = deja("merge", "--db", out, dbs[0], journaled, user=user)
        assert r.returncode == 1, r.stderr
        assert "cannot merge '%s': its rollback journal '%s-journal' may hold a transaction" \
            % (journaled, journaled) in r.stderr, r.stderr
        assert "merged '%s'" % dbs[0] in r.stderr, r.stderr
        assert query(out, "SELECT count(*) FROM messages WHERE subject = 'undone'") == [(0,)]
    finally:
        os.chmod(d, 0o755)
        os.chmod(d2, 0o755)


@tap.test
def a_shard_another_deja_is_writing_is_refused_until_it_ends():
    """Merging a shard while an ingest is still at work on it would take its files so
    far and leave the rest out of the result without a word: it is refused, naming why,
    and the other shards go in.  Merged once the writer is gone, the result is theirs
    merged in that order.  (The writer's claim is the flock(2) deja ingest holds on its
    database.)"""
    import fcntl
    dbs = shards_of(3, "claimed", numbered=True)
    out = fresh_db("claimed.db")
    with open(dbs[1], "rb") as claim:
        fcntl.flock(claim, fcntl.LOCK_EX)
        r = deja("merge", "--db", out, *dbs)
    assert r.returncode == 1, r.stderr
    assert "cannot merge '%s': another deja is writing it" % dbs[1] in r.stderr, r.stderr
    assert "merged '%s'" % dbs[0] in r.stderr and "merged '%s'" % dbs[2] in r.stderr, r.stderr
    ok("merge", "--db", out, dbs[1])
    # the same shards in the order they went in
    single = fresh_db("claimed-single.db")
    ok("merge", "--db", single, dbs[0], dbs[2], dbs[1])
    compare(dump(single), dump(out))


@tap.test
def a_path_with_other_content_in_a_later_shard_replaces_the_earlier():
    """As re-ingesting a changed file does."""
    path = tmp("changing.mbox")
    shutil.copyfile(ARCHIVES[4], path)
    a = tmp("old.db")
    ingest(a, [ARCHIVES[0], path])
    with open(ARCHIVES[1], "rb") as src, open(path, "wb") as dst:
        dst.write(src.read())
    b = tmp("new.db")
    ingest(b, [path])
    out = fresh_db("replaced.db")
    ok("merge", "--db", out, a)
    r = ok("merge", "--db", out, b)
    assert "replacing other content" in r.stderr, r.stderr
    single = tmp("replaced-single.db")
    ingest(single, [ARCHIVES[0], path])
    got, want = dump(out), dump(single)
    for k in ("files", "message_ids", "threads", "refs", "groups", "authors", "log"):
        assert got[k] == want[k], (k, got[k], want[k])
    check_index(out)
    # Both in one command: small shards share a transaction, and the index
    # copied for the first is where FTS5 deletes the replaced rows for the
    # second (the group ends there)
    both = fresh_db("replaced-both.db")
    r = ok("merge", "--db", both, a, b)
    assert "replacing other content" in merged_note(r.stderr, b), r.stderr
    assert "full-text index copied" in merged_note(r.stderr, a), r.stderr
    # a file that takes another's place is deleted with everything that hangs off it by
    # SQLite's foreign keys: such a group is merged with them checked, row by row
    assert "messages written again row by row: a file of its group replaces one" in \
        merged_note(r.stderr, a), r.stderr
    compare(dump(out), dump(both))
    check_index(both)
    for q in ["the", "thread", "from:ann"]:
        assert hits(both, q) == hits(out, q), q


@tap.test
def a_bad_shard_is_named_and_leaves_the_result_as_it_was():
    out = fresh_db("bad-merge.db")
    good = shards_of(3, "bad")
    ok("merge", "--db", out, good[0])
    before = dump(out)
    not_db = tmp("not-a-db.db")
    with open(not_db, "w") as f:
        f.write("From x\nSubject: not a database\n\n" * 100)
    foreign = tmp("foreign.db")
    if os.path.exists(foreign):
        os.unlink(foreign)
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE t (x)")
    # a shard holding SQL deja did not write: refused before any of it is read
    spy = tmp("spy.db")
    if os.path.exists(spy):
        os.unlink(spy)
    with sqlite3.connect(good[1]) as src, sqlite3.connect(spy) as c:
        src.backup(c)
        c.execute("CREATE TABLE seen (x)")
        c.execute("CREATE TRIGGER spy AFTER INSERT ON messages BEGIN INSERT INTO seen VALUES (1); END")
    for shard, reason in [(tmp("missing.db"), "No such file"), (not_db, "not a database"),
                          (foreign, "not a deja database"), (spy, "trigger 'spy' that deja did not make"),
                          (out, "the database merged into")]:
        r = deja("merge", "--db", out, shard)
        assert r.returncode == 1, (shard, r.returncode, r.stderr)
        assert "cannot merge '%s': " % shard in r.stderr and reason in r.stderr, r.stderr
        compare(before, dump(out))
    # The others still go in.
    r = deja("merge", "--db", out, not_db, good[1], good[2])
    assert r.returncode == 1 and "merged '%s'" % good[2] in r.stderr, r.stderr
    # Into a new database, whose indexes wait for the end: it ends with them all
    empty = fresh_db("bad-merge-empty.db")
    r = deja("merge", "--db", empty, not_db)
    assert r.returncode == 1, r.stderr
    assert query(empty, "SELECT count(*) FROM messages") == [(0,)]
    assert indexes(empty) == indexes(ONE)
    assert query(empty, "SELECT value FROM deja_state WHERE key = 'deferred_indexes'") == []


@tap.test
def a_shard_that_fails_among_small_ones_leaves_the_others_in():
    """Small shards share a transaction (store-merge.c): one that fails there
    is named, and the result is that of the others alone."""
    dbs = shards_of(3, "group", numbered=True)
    with sqlite3.connect(dbs[1]) as c:
        c.execute("DROP TABLE links")
    not_db = tmp("group-not-a-db.db")
    with open(not_db, "w") as f:
        f.write("From x\nSubject: not a database\n\n" * 100)
    out = fresh_db("group-merged.db")
    r = deja("merge", "--db", out, dbs[0], dbs[1], not_db, dbs[2])
    assert r.returncode == 1, r.stderr
    assert "cannot merge '%s': " % dbs[1] in r.stderr and "links" in r.stderr, r.stderr
    assert "cannot merge '%s': " % not_db in r.stderr, r.stderr
    assert "full-text index copied" in merged_note(r.stderr, dbs[0]), r.stderr
    merged_note(r.stderr, dbs[2])
    want = fresh_db("group-want.db")
    ok("merge", "--db", want, dbs[0], dbs[2])
    compare(dump(want), dump(out))
    check_index(out)


def tsv(out):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(out), delimiter="\t"))


@tap.test
def search_over_shards_without_merging_finds_what_the_merged_database_finds():
    dbs, out, _ = check_shards(3, numbered=True, prefix="search")
    for q in ["the", "thread", "from:ann"]:
        many = tsv(ok("search", "--format", "tsv", "--limit", "0", *sum([["--db", d] for d in dbs], []),
                      q).stdout)
        merged = tsv(ok("search", "--db", out, "--format", "tsv", "--limit", "0", q).stdout)
        assert many and set(r["db"] for r in many) <= set(dbs), many[:2]
        got = {(r["file"], r["byte_offset"]) for r in many}
        want = {(r["file"], r["byte_offset"]) for r in merged}
        # Shards do not fold the copies of a cross-post that sits in two of them,
        # nor files whose content another shard holds under another path.
        extra = {(f, o) for f, o in got - want if (f,) in query(out, "SELECT path FROM files")}
        copies = {(f, str(o)) for f, o in query(out, "SELECT f.path, m.byte_offset FROM messages m"
                                                     " JOIN files f ON f.id = m.file_id"
                                                     " WHERE m.duplicate_of IS NOT NULL")}
        assert want <= got and extra <= copies, (q, want - got, extra - copies)
        count = ok("search", "--count", "--format", "tsv", *sum([["--db", d] for d in dbs], []), q)
        assert tsv(count.stdout)[0]["messages"] == str(len(many)), count.stdout
    # Best first across databases: the first row of all is the best of the first rows of each.
    many = tsv(ok("search", "--format", "tsv", "--limit", "3", *sum([["--db", d] for d in dbs], []),
                  "the").stdout)
    assert len(many) == 3
    table = ok("search", "--limit", "2", *sum([["--db", d] for d in dbs], []), "the").stdout
    assert " in %s] " % many[0]["db"] in table, table


@tap.test
def stats_over_shards_without_merging_sum_what_can_be_summed():
    dbs, out, _ = check_shards(3, prefix="stats")
    many = tsv(ok("stats", "--format", "tsv", *sum([["--db", d] for d in dbs], [])).stdout)
    one = tsv(ok("stats", "--format", "tsv", "--db", out).stdout)

    def totals(rows):
        return {r["name"]: r["value"] for r in rows if r["section"] == "totals"}
    t_many, t_one = totals(many), totals(one)
    for name in ("first_date", "last_date"):
        assert t_many[name] == t_one[name], (name, t_many, t_one)
    for name, sql in [("files", "SELECT count(*) FROM files"), ("messages", "SELECT count(*) FROM messages"),
                      ("canonical", "SELECT count(*) FROM messages WHERE duplicate_of IS NULL")]:
        assert int(t_many[name]) == sum(query(d, sql)[0][0] for d in dbs), (name, t_many)
    # A cross-post in two shards is canonical in each; a person in two is one address.
    assert int(t_many["canonical"]) > int(t_one["canonical"]), (t_many, t_one)
    assert int(t_many["authors"]) >= int(t_one["authors"]), (t_many, t_one)
    langs = lambda rows: {(r["name"], r["period"]): r["value"] for r in rows if r["section"] == "languages"}
    assert sum(int(v) for (l, k), v in langs(many).items() if k == "messages") == \
        sum(query(d, "SELECT count(*) FROM messages WHERE lang IS NOT NULL AND duplicate_of IS NULL")[0][0]
            for d in dbs)
    assert len([r for r in many if r["section"] == "top_authors"]) <= 25
    assert deja("stats", "--db", dbs[0], "--db", dbs[1], "--statement", tmp("s.md")).returncode == 2


@tap.test
def usage_errors():
    assert deja("merge", "--db", tmp("u.db")).returncode == 2
    assert deja("merge", tmp("u.db")).returncode == 2


@tap.test
def a_shard_without_analysis_is_analysed_by_the_merge():
    needs("cld2")
    a = tmp("noanalysis.db")
    fresh_db("noanalysis.db")
    ok("ingest", "-q", "--no-analysis", "--db", a, ARCHIVES[3])
    assert query(a, "SELECT count(lang) FROM messages") == [(0,)]
    out = fresh_db("analysed.db")
    ok("merge", "--db", out, a)
    assert query(out, "SELECT count(*) - count(lang) FROM messages") == [(0,)]
    single = tmp("analysed-single.db")
    ingest(single, [ARCHIVES[3]])
    assert query(out, "SELECT lang, words, sentences, oov_share FROM messages ORDER BY id") == \
        query(single, "SELECT lang, words, sentences, oov_share FROM messages ORDER BY id")


if __name__ == "__main__":
    tap.main(TMP)
