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
import shutil
import sqlite3

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, needs, tmp
from db_compare import compare, dump as dump_with

ARCHIVES = [os.path.join(FIXTURES, *p) for p in [
    ("threads", "comp.lang.c.mbox"),
    ("sample", "comp.lang.c.mbox"),
    ("people", "people.mbox"),
    ("analysis", "lists.mbox"),
    ("threads", "comp.std.c.mbox"),
    ("replies", "best-copy.mbox"),
    ("replies", "in-reply-to-forms.mbox"),
    ("search", "plain-words.mbox"),
    ("compressed", "usenet.mbox.zip"),
    ("from", "y_google_export.mbox"),
]]
# The same content under another path: stored once, whichever shard has it.
COPY = tmp("copy-of-people.mbox")
shutil.copyfile(ARCHIVES[2], COPY)
ARCHIVES.append(COPY)
QUERIES = ["the", "thread", "zyzzogeton", "quantum flux", "C++", "e-mail", "from:ann",
           "group:comp.std.c", "subject:re"]
# Decisions people made, one in the first shard and one in the last.
MERGE_DECISION = ("--merge", "frank@one.example", "--merge", "fmiller@two.example")


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


def chunks(items, n):
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (i < extra)
        out.append(items[start:end])
        start = end
    return out


ONE = tmp("one.db")
ingest(ONE, ARCHIVES, decide=True)
EXPECTED = dump(ONE)


def shards_of(n, prefix):
    dbs = []
    for i, part in enumerate(chunks(ARCHIVES, n)):
        db = tmp("%s-%d.db" % (prefix, i))
        ingest(db, part, decide=(i == n - 1))
        dbs.append(db)
    return dbs


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


def check_shards(n):
    dbs = shards_of(n, "shard%d" % n)
    out = fresh_db("merged-%d.db" % n)
    r = ok("merge", "--db", out, *dbs)
    assert "merged '%s'" % dbs[0] in r.stderr, r.stderr
    compare(EXPECTED, dump(out))
    with sqlite3.connect(out) as c:
        c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("PRAGMA foreign_key_check").fetchall() == []
    return dbs, out


@tap.test
def one_shard_merged_equals_one_ingest():
    check_shards(1)


@tap.test
def three_shards_merged_equal_one_ingest():
    check_shards(3)


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


@tap.test
def a_shard_merged_twice_changes_nothing():
    dbs, out = check_shards(3)
    before = dump(out)
    r = ok("merge", "--db", out, dbs[1])
    assert "already here" in r.stderr, r.stderr
    compare(before, dump(out))


@tap.test
def an_ingest_into_a_merged_database_goes_on_as_in_one():
    """The merged database is an ordinary one: ingest more into it."""
    out = fresh_db("merge-then-ingest.db")
    dbs = shards_of(3, "then")
    ok("merge", "--db", out, *dbs[:2])
    ok("ingest", "-q", "--db", out, *chunks(ARCHIVES, 3)[2])
    ok("authors", "-q", "--db", out, *MERGE_DECISION)
    compare(EXPECTED, dump(out))


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
    for shard, reason in [(tmp("missing.db"), "No such file"), (not_db, "not a database"),
                          (foreign, "not a deja database"), (out, "the database merged into")]:
        r = deja("merge", "--db", out, shard)
        assert r.returncode == 1, (shard, r.returncode, r.stderr)
        assert "cannot merge '%s': " % shard in r.stderr and reason in r.stderr, r.stderr
        compare(before, dump(out))
    # The others still go in.
    r = deja("merge", "--db", out, not_db, good[1], good[2])
    assert r.returncode == 1 and "merged '%s'" % good[2] in r.stderr, r.stderr


def tsv(out):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(out), delimiter="\t"))


@tap.test
def search_over_shards_without_merging_finds_what_the_merged_database_finds():
    dbs, out = check_shards(3)
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
    dbs, out = check_shards(3)
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
