#!/usr/bin/env python3
"""deja catalog (issue 36; docs/scale.md): numbered shards read in place as
one corpus must answer every command as their merge does, byte for byte:
stats, authors, searches (ranks and snippets), every message with every
column (export), the mbox written back, groups, links, the network, terms,
the separator log, a message and a thread shown, the report.  And what a
catalog cannot be is refused with a reason: shards that are not numbered
or share a number or a file, a catalog as a shard, a shard changed after,
a shard that is not deja's, writing into a catalog (but for authors'
decisions, which are the catalog's own and go to the next with
--decisions).

The archives are test_merge.py's but its zip, whose members are two of
the others (threads across files, a cross-post, people with several
addresses, six languages), in three numbered shards.  Run by meson (suite 'slow').
"""
import json
import os
import re
import shutil
import sqlite3

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, tmp
import shard_set
from shard_set import chunks

# test_merge.py's archives but the zip, whose members are two of the others
ARCHIVES = [a for a in shard_set.ARCHIVES if a != shard_set.ZIP]
ZIP = shard_set.ZIP
QUERIES = shard_set.QUERIES + ["c AND standard"]
MERGE_DECISION = shard_set.MERGE_DECISION


def ok(*args):
    r = deja(*args)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r


def refused(*args):
    r = deja(*args)
    assert r.returncode == 1, (args, r.returncode, r.stdout, r.stderr)
    return r.stderr


def make_shards(folder, parts, numbers=None):
    os.makedirs(folder, exist_ok=True)
    dbs = []
    for i, part in enumerate(parts):
        db = os.path.join(folder, "shard-%d.db" % (i + 1))
        ok("ingest", "-q", "--db", db, "--shard", str(numbers[i] if numbers else i + 1), *part)
        if ARCHIVES[2] in part:   # people.mbox: a decision people made in it
            ok("authors", "-q", "--db", db, *MERGE_DECISION)
        dbs.append(db)
    return dbs


SHARDS = make_shards(tmp("set"), chunks(ARCHIVES, 3))
MERGED = fresh_db("merged.db")
ok("merge", "-q", "--db", MERGED, *SHARDS)
CATALOG = os.path.join(tmp("set"), "catalog.db")
MADE = ok("catalog", "--db", CATALOG, *SHARDS)


def answers(db, name):
    """What each command prints of @db (files it writes included), with
    @db's name put as NAME."""
    out = {}
    scratch = tmp("answers-" + name)
    os.makedirs(scratch, exist_ok=True)
    runs = {
        "stats": ["stats", "--db", db],
        "stats-json": ["stats", "--db", db, "--format", "json"],
        "authors": ["authors", "--db", db],
        "authors-addresses": ["authors", "--db", db, "--addresses"],
        "export-jsonl": ["export", "--db", db, "--format", "jsonl"],
        "export-csv": ["export", "--db", db, "--format", "csv"],
        "groups": ["groups", "--db", db],
        "links": ["links", "--db", db],
        "terms": ["terms", "--db", db],
        "log": ["log", "--db", db],
        "show": ["show", "--db", db, "8589934593"],
        "show-thread": ["show", "--db", db, "--thread", "4294967297"],
        "network": ["network", "--db", db, "--format", "csv", "-o", os.path.join(scratch, "net.csv")],
        "export-mbox": ["export-mbox", "--db", db, "-o", os.path.join(scratch, "out.mbox")],
        "report": ["report", "--db", db, "-o", os.path.join(scratch, "report.html")],
    }
    for i, q in enumerate(QUERIES):
        runs["search-%d" % i] = ["search", "--db", db, q]
        runs["search-threads-%d" % i] = ["search", "--db", db, "--threads", q]
        runs["search-count-%d" % i] = ["search", "--db", db, "--count", q]
    for key, args in runs.items():
        r = deja(*args)
        out[key] = (r.returncode, r.stdout.replace(db, "NAME").replace(os.path.basename(db), "NAME"),
                    r.stderr.replace(scratch, "SCRATCH").replace(db, "NAME"))
    for f in sorted(os.listdir(scratch)):
        with open(os.path.join(scratch, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read().replace(db, "NAME").replace(scratch, "SCRATCH")
            text = text.replace(os.path.basename(db), "NAME")
        # the report's provenance: when it was made
        out["file " + f] = re.sub(r"on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "on WHEN", text)
    return out


@tap.test
def authors_are_listed_as_one_ingest_lists_them():
    """Shards key their authors' ids by address, one ingest numbers them:
    authors with as many messages are listed by address, not id, so that
    the set's stats and authors read as one ingest's (the 25 first
    authors of stats are then the same ones too); and so do their roles,
    the suggestions, groups, links, terms and every network's statistics
    but for the id columns."""
    one = fresh_db("one-of-all.db")
    ok("ingest", "-q", "--db", one, *ARCHIVES)
    ok("authors", "-q", "--db", one, *MERGE_DECISION)   # (as a shard of the set decided)

    def but_ids(text, *columns):
        return [[c for i, c in enumerate(line.split("\t")) if i not in columns] for line in text.splitlines()]

    def listed(db):
        out = {"stats": deja("stats", "--db", db).stdout,
               "authors": but_ids(deja("authors", "--db", db, "--format", "tsv").stdout, 0),
               "roles": but_ids(deja("authors", "--db", db, "--roles", "--format", "tsv").stdout, 0),
               # a and b by address, not id (author_a, author_b left out)
               "suggest": but_ids(deja("authors", "--db", db, "--suggest", "--min-score", "1",
                                       "--format", "tsv").stdout, 2, 7),
               "groups": deja("groups", "--db", db, "--format", "tsv").stdout,
               "links": deja("links", "--db", db, "--format", "tsv").stdout,
               "terms": deja("terms", "--db", db, "--top", "40").stdout}
        # every network's statistics: measures on the vertices numbered by key, not by author id
        for kind in ("reply", "thread", "group", "crosspost", "link"):
            out["network " + kind] = deja("network", "--db", db, "--kind", kind, "--format", "json").stdout
        return out

    want = listed(one)
    assert len(want["suggest"]) > 1 and len(want["roles"]) > 10, want
    for db in (CATALOG, MERGED):
        got = listed(db)
        for key in want:
            assert got[key] == want[key], (db, key, got[key], want[key])
    # (not a list that cannot tell: authors tied on their messages, whose ids sort otherwise)
    with sqlite3.connect(one) as a, sqlite3.connect(CATALOG) as b:
        def order(c):
            return [r[0] for r in c.execute("SELECT address FROM authors ORDER BY messages DESC, id")]
        assert order(a) != order(b)


@tap.test
def a_catalog_answers_every_command_as_the_merge_does():
    want, got = answers(MERGED, "merged"), answers(CATALOG, "catalog")
    assert want.keys() == got.keys()
    for key in want:
        assert got[key] == want[key], (key, got[key][:2] if isinstance(got[key], tuple) else got[key][:500],
                                       want[key][:2] if isinstance(want[key], tuple) else want[key][:500])
    # answers that say something: the comparison is not of empty outputs
    assert want["export-jsonl"][1].count("\n") > 60
    found = [q for i, q in enumerate(QUERIES) if want["search-%d" % i][1]]
    assert len(found) >= len(QUERIES) - 1, found
    assert "NAME" in want["file report.html"]


@tap.test
def the_set_has_what_the_catalog_must_get_right():
    """Threads across shards, a duplicate copy, and authors the set groups."""
    export = [l for l in ok("export", "--db", CATALOG, "--format", "csv").stdout.splitlines()]
    assert len(export) > 60
    stderr = MADE.stderr
    assert "threaded" in stderr and "reads 3 shards" in stderr, stderr
    # a thread whose messages are in two shards
    with sqlite3.connect(CATALOG) as c:
        changed = c.execute("SELECT count(*) FROM deja_catalog_messages").fetchone()[0]
        shards = c.execute("SELECT number, path FROM deja_catalog_shards ORDER BY number").fetchall()
        # the catalog holds no message of its own
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
        # the indexes left for the end of its making are built (store-catalog.c)
        indexes = {r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
        assert {"message_newsgroups_group", "messages_date", "messages_thread"} <= indexes, indexes
        assert c.execute("SELECT count(*) FROM deja_state WHERE key = 'deferred_indexes'").fetchone()[0] == 0
        plan = " ".join(r[3] for r in c.execute(
            "EXPLAIN QUERY PLAN SELECT message_id FROM message_newsgroups WHERE newsgroup_id = 1"))
        assert "message_newsgroups_group" in plan, plan
    assert changed > 0, "no message of the set has another thread than in its shard"
    # named from the catalog's folder
    assert [s[1] for s in shards] == ["shard-1.db", "shard-2.db", "shard-3.db"], shards


MAIL = ("From {a}@example.org Mon Mar  3 10:0{n}:00 1997\nFrom: {a} <{a}@example.org>\n"
        "Subject: {s}\nMessage-ID: <{mid}>\nDate: Mon, 3 Mar 1997 10:0{n}:00 GMT\n{refs}\n{body}\n\n")


def mail_shards(name, parts):
    """Numbered shards of a new folder @name, one of each part of @parts: a
    list of MAIL's (author, minute, subject, Message-ID, references, body).
    Returns (the folder, the mbox files, the shards)."""
    folder = tmp(name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    paths, dbs = [], []
    for i, mails in enumerate(parts):
        paths.append(os.path.join(folder, "part-%d.mbox" % i))
        with open(paths[-1], "w") as f:
            for a, n, subject, mid, refs, body in mails:
                f.write(MAIL.format(a=a, n=n, s=subject, mid=mid, refs=refs, body=body))
        dbs.append(os.path.join(folder, "shard-%d.db" % (i + 1)))
        ok("ingest", "-q", "--shard", str(i + 1), "--db", dbs[-1], paths[-1])
    return folder, paths, dbs


def threads_by_message_id(db):
    """Each message's (thread, parent) by Message-ID, as deja export gives them."""
    rows = [json.loads(l) for l in ok("export", "--db", db, "--format", "jsonl").stdout.splitlines()]
    mid = {r["id"]: r["message_id"] for r in rows}
    return {r["message_id"]: (mid.get(r["thread_id"]), mid.get(r["parent_id"])) for r in rows}


@tap.test
def a_reference_that_is_a_sender_of_another_shard_is_threaded_as_one_ingest():
    """Threading leaves out a reference that is some sender's address and no Message-ID
    (store-thread.c): in a catalog the senders are the whole set's, read in every shard
    at once, and the threads are one ingest's, as the catalog is made (its batch read in
    the shards) and when it is threaded again (read through the catalog).  A reference
    that is an address and a Message-ID too is kept."""
    folder, parts, dbs = mail_shards("address-refs", [
        [("ann", 0, "hello", "hello@x", "", "A post."),
         ("ann", 1, "Re: bob", "asks@x", "References: <bob@example.org>\n", "An address."),
         ("ann", 2, "Re: weird", "both@x", "References: <weird@example.org>\n", "Both.")],
        [("bob", 3, "Re: hello", "reply@x", "References: <hello@x>\n", "A reply across."),
         ("weird", 4, "weird", "weird@example.org", "", "Its address is its Message-ID.")]])
    one = os.path.join(folder, "one.db")
    ok("ingest", "-q", "--db", one, *parts)
    # the first shard's view: the address is a Message-ID it lacks
    with sqlite3.connect(dbs[0]) as c:
        assert c.execute("SELECT missing_parent FROM messages WHERE message_id = 'asks@x'").fetchall() == \
            [("bob@example.org",)]
    catalog = os.path.join(folder, "catalog.db")
    ok("catalog", "-q", "--db", catalog, *dbs)
    want = threads_by_message_id(one)
    assert want["asks@x"] == ("asks@x", None), want
    assert want["both@x"] == ("weird@example.org", "weird@example.org"), want
    assert want["reply@x"] == ("hello@x", "hello@x"), want
    assert threads_by_message_id(catalog) == want
    # the catalog's own value of the reply whose reference it left out
    asks = [json.loads(l)["id"] for l in ok("export", "--db", catalog, "--format", "jsonl").stdout.splitlines()
            if json.loads(l)["message_id"] == "asks@x"]
    with sqlite3.connect(catalog) as c:
        assert c.execute("SELECT missing_parent FROM deja_catalog_messages WHERE id = ?",
                         (asks[0],)).fetchall() == [(None,)]
    ok("thread", "-q", "--db", catalog)
    assert threads_by_message_id(catalog) == want


@tap.test
def a_set_past_the_plan_in_memory_is_planned_on_disk_and_said():
    """Past DEJA_THREAD_PLAN_MEMORY messages threading is planned on disk (some twenty
    times slower, every thread made again): the catalog says so and how to plan it in
    memory, and its threads are the same."""
    catalog = fresh_db("on-disk-plan.db")
    os.environ["DEJA_THREAD_PLAN_MEMORY"] = "10"
    try:
        err = ok("catalog", "--db", catalog, *SHARDS).stderr
    finally:
        del os.environ["DEJA_THREAD_PLAN_MEMORY"]
    assert "more than threading plans in memory (10): it is planned on disk" in err, err
    assert "DEJA_THREAD_PLAN_MEMORY=" in err, err
    assert "more than threading plans in memory" not in MADE.stderr
    for args in (["export", "--format", "csv"], ["stats"]):
        want = ok(*args, "--db", CATALOG).stdout.replace(CATALOG, "NAME")
        assert ok(*args, "--db", catalog).stdout.replace(catalog, "NAME") == want, args


CARL = ("From {a} Sat Jan 13 1{n}:00:00 2001\nFrom: Carl Dee <{a}>\nSubject: {s}\n"
        "Date: Sat, 13 Jan 2001 1{n}:00:00 +0000\nMessage-ID: <{mid}>\n\n{body}\n\n")


def authors_by_message_id(db):
    """Each message's author id by Message-ID, as deja export gives them."""
    rows = [json.loads(l) for l in ok("export", "--db", db, "--format", "jsonl").stdout.splitlines()]
    return {r["message_id"]: r["author_id"] for r in rows}


@tap.test
def an_address_a_later_shard_gives_another_author_moves_to_the_sets():
    """Google's masked carl...@example.org is Carl Dee's full address's in the
    shard that has both (identity.c), and an author of its own in the shard
    that has it alone: the catalog keeps the first shard's author of an
    address and moves the other shard's messages of it, as the merge does,
    in both orders (store-catalog.c, catalog_addresses.moved)."""
    folder = tmp("moved-addresses")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    both = os.path.join(folder, "both.mbox")
    masked = os.path.join(folder, "masked.mbox")
    with open(both, "w") as f:
        f.write(CARL.format(a="carl.dee@example.org", n=0, s="Kites", mid="kites@x", body="Kites fly."))
        f.write(CARL.format(a="carl...@example.org", n=1, s="Re: Kites", mid="again@x", body="They do."))
    with open(masked, "w") as f:
        f.write(CARL.format(a="carl...@example.org", n=2, s="Boats", mid="boats@x", body="Boats float."))
    for name, order in (("full-first", [both, masked]), ("masked-first", [masked, both])):
        dbs = [os.path.join(folder, "%s-%d.db" % (name, i + 1)) for i in range(2)]
        for i, path in enumerate(order):
            ok("ingest", "-q", "--shard", str(i + 1), "--db", dbs[i], path)
        shard_authors = [authors_by_message_id(db) for db in dbs]
        # the shards disagree: the masked address is another author alone
        boats = shard_authors[order.index(masked)]["boats@x"]
        assert boats != shard_authors[order.index(both)]["kites@x"], (name, shard_authors)
        merged = os.path.join(folder, name + "-merged.db")
        catalog = os.path.join(folder, name + "-catalog.db")
        ok("merge", "-q", "--db", merged, *dbs)
        ok("catalog", "-q", "--db", catalog, *dbs)
        want = authors_by_message_id(merged)
        assert want["boats@x"] == want["kites@x"] == want["again@x"], (name, want)
        assert authors_by_message_id(catalog) == want, name
        for args in (["authors", "--addresses"], ["export", "--format", "csv"]):
            assert ok(*args, "--db", catalog).stdout == ok(*args, "--db", merged).stdout, (name, args)


@tap.test
def a_message_without_a_sender_has_no_author_in_the_set():
    """A message whose from_addr is NULL has no author (store_write_authors():
    the rows are found by that column first, then changed by id, which
    reads no changed row of the catalog's from its shard), in a catalog as
    in the merge, though its shard, edited by hand, still names one."""
    folder, _, dbs = mail_shards("no-sender", [
        [("ann", 0, "kites", "kites@x", "", "Kites fly.")],
        [("bob", 1, "Re: kites", "again@x", "References: <kites@x>\n", "They do."),
         ("cem", 2, "boats", "boats@x", "", "Boats float.")]])
    with sqlite3.connect(dbs[1]) as c:
        c.execute("UPDATE messages SET from_addr = NULL WHERE message_id = 'boats@x'")
    c.close()
    with sqlite3.connect(dbs[1]) as c:
        assert c.execute("SELECT author_id IS NOT NULL FROM messages WHERE message_id = 'boats@x'").fetchall() \
            == [(1,)]
    c.close()
    merged = os.path.join(folder, "merged.db")
    catalog = os.path.join(folder, "catalog.db")
    ok("merge", "-q", "--db", merged, *dbs)
    ok("catalog", "-q", "--db", catalog, *dbs)
    want = authors_by_message_id(merged)
    assert want["boats@x"] is None and want["again@x"] is not None, want
    assert authors_by_message_id(catalog) == want


def placeholders_by_message_id(db):
    """Each placeholder's (thread by Message-ID, children), as one database holds them."""
    rows = [json.loads(l) for l in ok("export", "--db", db, "--format", "jsonl").stdout.splitlines()]
    mid = {r["id"]: r["message_id"] for r in rows}
    with sqlite3.connect(db) as c:
        found = {m: (mid.get(t), n) for m, t, n in
                 c.execute("SELECT message_id, thread_id, children FROM thread_placeholders")}
    c.close()
    return found


@tap.test
def placeholders_of_threads_a_shard_keeps_are_the_sets():
    """A reply whose parent is in no shard hangs under a placeholder: one
    whose thread stays in its shard is taken from it when the catalog
    threads the set (store_clear_thread_placeholders()), one that two
    shards reference is made again; both as in the merge."""
    folder, _, dbs = mail_shards("placeholders", [
        [("ann", 0, "Re: lost", "a1@x", "References: <lost@x>\n", "Under a lost post."),
         ("ann", 1, "post", "b1@x", "", "A post.")],
        [("bob", 2, "Re: gone", "c2@x", "References: <gone@x>\n", "Under a post gone."),
         ("bob", 3, "Re: lost", "d2@x", "References: <lost@x>\n", "Under the lost one too."),
         ("bob", 4, "Re: post", "e2@x", "References: <b1@x>\n", "A reply across.")]])
    merged = os.path.join(folder, "merged.db")
    catalog = os.path.join(folder, "catalog.db")
    ok("merge", "-q", "--db", merged, *dbs)
    ok("catalog", "-q", "--db", catalog, *dbs)
    want = placeholders_by_message_id(merged)
    assert want == {"gone@x": ("c2@x", 1), "lost@x": ("a1@x", 2)}, want
    assert placeholders_by_message_id(catalog) == want
    assert threads_by_message_id(catalog) == threads_by_message_id(merged)


@tap.test
def a_catalog_moves_with_its_shards():
    folder = tmp("moved-set")
    shutil.copytree(tmp("set"), folder)
    catalog = os.path.join(folder, "catalog.db")
    # copying the files keeps their times (copytree copies them)
    assert ok("stats", "--db", catalog).stdout == ok("stats", "--db", CATALOG).stdout


@tap.test
def shards_that_are_not_numbered_or_share_a_number_are_refused():
    plain = fresh_db("plain.db")
    ok("ingest", "-q", "--db", plain, ARCHIVES[0])
    out = tmp("catalog-plain.db")
    err = refused("catalog", "--db", out, plain)
    assert "not a numbered shard" in err and plain in err, err
    assert not os.path.exists(out)
    twin = make_shards(tmp("twin"), [ARCHIVES[1:2]], numbers=[1])
    err = refused("catalog", "--db", tmp("catalog-twin.db"), SHARDS[0], twin[0])
    assert "has its number, 1" in err and twin[0] in err, err


@tap.test
def a_file_in_two_shards_is_refused():
    """The same path, or the same content under another path (a zip's
    member): a merge keeps one of them, a catalog cannot.  The refusal
    names the file, the other shard and, for a copy, the other path."""
    both = make_shards(tmp("both"), [[ARCHIVES[0]], [ARCHIVES[0], ARCHIVES[1]]])
    err = refused("catalog", "--db", tmp("catalog-both.db"), *both)
    assert "in another shard of the set too" in err and both[1] in err, err
    assert "its file '%s' is in another shard of the set too, '%s'" % (ARCHIVES[0], both[0]) in err, err
    assert "the same content" not in err, err
    assert not os.path.exists(tmp("catalog-both.db"))
    zipped = make_shards(tmp("zipped"), [[ARCHIVES[1]], [ZIP]])
    err = refused("catalog", "--db", tmp("catalog-zipped.db"), *zipped)
    assert "in another shard of the set too" in err and zipped[1] in err, err
    assert "its file '%s" % ZIP in err, err
    assert "'%s', as '%s' (the same content)" % (zipped[0], ARCHIVES[1]) in err, err
    assert "more file" not in err, err
    # every file held twice is counted, and named with --verbose
    three = make_shards(tmp("three"), [[ARCHIVES[0]], [ARCHIVES[0], ARCHIVES[1]], [ARCHIVES[1]]])
    err = refused("catalog", "--db", tmp("catalog-three.db"), *three)
    assert "cannot catalogue '%s'" % three[1] in err, err
    assert "; 1 more file of the set is in two shards (--verbose names them)" in err, err
    err = refused("catalog", "--verbose", "--db", tmp("catalog-three.db"), *three)
    assert "%s: its file '%s' is in another shard of the set too, '%s'" % (three[2], ARCHIVES[1], three[1]) in err, err
    assert not os.path.exists(tmp("catalog-three.db"))


@tap.test
def a_catalog_is_not_a_shard_and_is_not_written():
    err = refused("merge", "--db", fresh_db("from-catalog.db"), CATALOG)
    assert "catalog of shards" in err, err
    err = refused("catalog", "--db", tmp("catalog-of-catalog.db"), CATALOG)
    assert "catalog of shards" in err, err
    before = open(CATALOG, "rb").read()
    err = refused("ingest", "--db", CATALOG, ARCHIVES[0])
    assert "catalog of shards" in err, err
    err = refused("review", "--db", CATALOG)
    assert "catalog of shards" in err, err
    err = refused("analyse", "--db", CATALOG)
    assert "catalog of shards" in err, err
    assert open(CATALOG, "rb").read() == before
    err = refused("catalog", "--db", CATALOG, *SHARDS)
    assert "exists" in err, err


def a_set_to_change(name):
    """A copy of the set's folder (its catalog, its shards) and of its
    merge, for a test that writes into them: (folder, catalog, shards,
    merged)."""
    folder = tmp(name + "-set")
    shutil.copytree(tmp("set"), folder)
    merged = fresh_db(name + "-merged.db")
    shutil.copyfile(MERGED, merged)
    return (folder, os.path.join(folder, "catalog.db"),
            [os.path.join(folder, os.path.basename(s)) for s in SHARDS], merged)


def contents(paths):
    """Every byte of each file: a shard left as it was is equal."""
    return [open(p, "rb").read() for p in paths]


def two_people_of_two_shards(db):
    """Two addresses whose messages are in different shards, of different authors."""
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT from_addr, min(id) >> 32, author_id FROM messages WHERE from_addr IS NOT NULL"
                         " GROUP BY from_addr HAVING count(DISTINCT id >> 32) = 1 ORDER BY from_addr").fetchall()
    for a in rows:
        for b in rows:
            if a[1] < b[1] and a[2] != b[2]:
                return a[0], b[0]
    raise AssertionError("no two people of two shards")


@tap.test
def authors_decided_on_a_catalog_are_its_own_and_go_to_the_next():
    """A shard refuses an address it does not hold; the catalog takes the
    decision, keeps it (its shards are not written), groups the authors as
    the same decision on the merge does, and the next catalog of the
    shards takes it with --decisions."""
    folder, catalog, shards, merged = a_set_to_change("decided")
    a, b = two_people_of_two_shards(MERGED)
    err = refused("authors", "--db", shards[0], "--merge", a, "--merge", b)
    assert "no author or address" in err, err
    ok("authors", "-q", "--db", merged, "--merge", a, "--merge", b)
    before = contents(shards)
    made = ok("authors", "--db", catalog, "--merge", a, "--merge", b)
    assert "--decisions " + catalog in made.stderr, made.stderr
    assert contents(shards) == before

    def same_people(db):
        with sqlite3.connect(db) as c:
            return c.execute("SELECT count(DISTINCT author_id) FROM messages WHERE from_addr IN (?, ?)",
                             (a, b)).fetchone()[0] == 1

    def outputs(db):
        return [ok(*args, "--db", db).stdout for args in
                (["authors"], ["authors", "--addresses"], ["export", "--format", "csv"])]

    assert same_people(merged)
    assert outputs(catalog) == outputs(merged)
    assert ok("stats", "--db", catalog).stdout == ok("stats", "--db", merged).stdout.replace(merged, catalog)
    # made again from the shards alone: without it; with --decisions: with it
    again = os.path.join(folder, "again.db")
    ok("catalog", "-q", "--db", again, *shards)
    assert outputs(again) == outputs(CATALOG) and outputs(again) != outputs(merged)
    kept = os.path.join(folder, "kept.db")
    ok("catalog", "-q", "--db", kept, "--decisions", catalog, *shards)
    assert outputs(kept) == outputs(merged)
    # what is not a deja database gives none, and no catalog is left
    junk = os.path.join(folder, "junk.db")
    with open(junk, "w") as f:
        f.write("not a database\n")
    out = os.path.join(folder, "not-made.db")
    err = refused("catalog", "--db", out, "--decisions", junk, *shards)
    assert "cannot take the decisions of" in err and junk in err, err
    assert not os.path.exists(out)


@tap.test
def threads_joined_by_subject_on_a_catalog_are_its_own_and_go_to_the_next():
    """deja thread --subject on a catalog threads the set as on the merge,
    writes none of its shards, is taken to the next catalog with
    --decisions, and deja thread without it makes the catalog as it was."""
    folder, catalog, shards, merged = a_set_to_change("subject")

    def outputs(db):
        return [ok(*args, "--db", db).stdout.replace(db, "NAME") for args in
                (["export", "--format", "csv"], ["stats"], ["search", "--threads", "thread"],
                 ["show", "--thread", "4294967297"])]

    plain = outputs(CATALOG)
    ok("thread", "-q", "--subject", "--db", merged)
    before = contents(shards)
    made = ok("thread", "--subject", "--db", catalog)
    assert "joined by subject" in made.stderr and "--decisions " + catalog in made.stderr, made.stderr
    assert contents(shards) == before
    assert outputs(catalog) == outputs(merged)
    assert outputs(catalog) != plain, "joining by subject changed nothing: the test shows nothing"
    kept = os.path.join(folder, "kept.db")
    ok("catalog", "-q", "--db", kept, "--decisions", catalog, *shards)
    assert outputs(kept) == outputs(merged)
    ok("thread", "-q", "--db", catalog)
    assert outputs(catalog) == plain


@tap.test
def near_duplicates_found_on_a_catalog_are_the_merges():
    """deja dedup on a catalog writes its tables there, never in a shard,
    with the rows the same run on the merge gives."""
    _, catalog, shards, merged = a_set_to_change("dedup")
    before = contents(shards)
    args = ["dedup", "--threshold", "0.5", "--min-words", "5", "--paragraph-messages", "2", "--list"]
    got = ok(*args, "--db", catalog).stdout
    want = ok(*args, "--db", merged).stdout
    assert got == want and got.count("\n") > 1, (got, want)
    assert contents(shards) == before
    tables = ("SELECT message_id, cluster_id, similarity, method FROM near_duplicates ORDER BY 1",
              "SELECT hash, text, messages, authors FROM repeated_paragraphs ORDER BY 1",
              "SELECT count(*) FROM repeated_paragraph_messages")
    for q in tables:
        with sqlite3.connect(catalog) as c, sqlite3.connect(merged) as m:
            assert c.execute(q).fetchall() == m.execute(q).fetchall(), q
    distinct = ["export", "--format", "csv", "--distinct-text"]
    assert ok(*distinct, "--db", catalog).stdout == ok(*distinct, "--db", merged).stdout


@tap.test
def a_catalog_whose_making_was_stopped_is_refused():
    """Killed before threads and authors were computed over the set (its
    mark still there): not read as a set of fewer shards."""
    stopped = tmp("stopped-catalog.db")
    shutil.copyfile(CATALOG, stopped)
    with sqlite3.connect(stopped) as c:
        c.execute("INSERT INTO deja_state (key, value) VALUES ('catalog', 'unfinished')")
    err = refused("stats", "--db", stopped)
    assert "did not finish" in err and stopped in err, err


@tap.test
def a_shard_changed_or_gone_after_is_refused_on_opening():
    folder = tmp("changed-set")
    shutil.copytree(tmp("set"), folder)
    catalog = os.path.join(folder, "catalog.db")
    shard = os.path.join(folder, "shard-2.db")
    ok("ingest", "-q", "--db", shard, "--shard", "2", os.path.join(FIXTURES, "threads", "comp.std.c.mbox"),
       os.path.join(FIXTURES, "search", "plain-words.mbox"))
    os.utime(shard, (1, 1))
    err = refused("stats", "--db", catalog)
    assert "changed after the catalog was made" in err and shard in err, err
    os.unlink(shard)
    err = refused("stats", "--db", catalog)
    assert "is gone" in err and shard in err, err


@tap.test
def a_shard_whose_log_holds_commits_is_refused():
    """A catalog reads its shards immutable: a write-ahead log beside one, whose commits
    its file does not hold yet (a writer at work, or one that stopped), is refused when
    the catalog is made and when it is opened, and the shard is read once the log is
    in its file."""
    folder, catalog, shards, _ = a_set_to_change("logged")
    writer = sqlite3.connect(shards[0])
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE messages SET subject = 'Changed in the log' WHERE id = (SELECT min(id) FROM messages)")
    writer.commit()
    assert os.path.getsize(shards[0] + "-wal") > 0
    again = os.path.join(folder, "again.db")
    err = refused("catalog", "-q", "--db", again, *shards)
    assert "write-ahead log" in err and shards[0] in err, err
    assert not os.path.exists(again)
    err = refused("stats", "--db", catalog)
    assert "write-ahead log" in err and shards[0] in err, err
    writer.close()   # the last connection: the log goes into the file
    assert not os.path.exists(shards[0] + "-wal")
    ok("catalog", "-q", "--db", again, *shards)
    assert "Changed in the log" in ok("export", "--db", again, "--format", "csv").stdout


@tap.test
def decisions_in_shards_are_the_sets_as_a_merge_takes_them():
    """People's decisions made in shards (where a file splits, which
    addresses are one person) are the set's: of two on the same thing the
    later stands, of two made at the same time the first shard's, as a
    merge of the shards keeps them."""
    folder, _, shards, _ = a_set_to_change("shards-decided")
    sep = "INSERT INTO separator_decisions (file_sha256, line_no, decision, note, decided_at) VALUES (?, ?, ?, ?, ?)"
    who = "INSERT INTO author_decisions (address, other, decision, note, decided_at) VALUES (?, ?, ?, ?, ?)"
    for shard, rows in ((shards[0], [(sep, ("aa" * 32, 10, "split", "first", "2026-01-01T00:00:00Z")),
                                     (sep, ("bb" * 32, 5, "no-split", None, "2026-01-02T00:00:00Z"))]),
                        (shards[1], [(sep, ("aa" * 32, 10, "no-split", "later", "2026-02-01T00:00:00Z")),
                                     (sep, ("bb" * 32, 5, "split", "as early", "2026-01-02T00:00:00Z")),
                                     (who, (MERGE_DECISION[1], "", "split", "", "2026-01-01T00:00:00Z"))])):
        c = sqlite3.connect(shard)
        with c:
            for sql, row in rows:
                c.execute(sql, row)
        c.close()   # the last connection: what it wrote is in the file
    catalog, merged = os.path.join(folder, "decided.db"), fresh_db("shards-decided-merged.db")
    ok("catalog", "-q", "--db", catalog, *shards)
    ok("merge", "-q", "--db", merged, *shards)
    rows = {}
    for db in (catalog, merged):
        with sqlite3.connect(db) as c:
            rows[db] = (c.execute("SELECT * FROM separator_decisions ORDER BY 1, 2").fetchall(),
                        c.execute("SELECT * FROM author_decisions ORDER BY 1, 2").fetchall())
    assert rows[catalog] == rows[merged], rows
    assert rows[catalog][0] == [("aa" * 32, 10, "no-split", "later", "2026-02-01T00:00:00Z"),
                                ("bb" * 32, 5, "no-split", None, "2026-01-02T00:00:00Z")], rows[catalog]
    assert len(rows[catalog][1]) == 2, rows[catalog][1]
    for args in (["authors"], ["authors", "--addresses"]):
        assert ok(*args, "--db", catalog).stdout == ok(*args, "--db", merged).stdout


def posts_mbox(path, posts):
    """posts: (message-id, From header) in order."""
    with open(path, "w") as f:
        for i, (mid, sender) in enumerate(posts):
            f.write("From x Mon Jan  1 00:00:00 2001\nFrom: %s\nSubject: post %s\nMessage-ID: <%s@shared.example>\n"
                    "Date: Mon, 1 Jan 2001 10:%02d:00 +0000\n\nText of %s.\n\n" % (sender, mid, mid, i, mid))


@tap.test
def an_address_one_shard_shares_is_shared_in_the_set():
    """An address several people use under their own names in one shard
    (docs/people.md, "Shared addresses") and one person in an earlier
    one: in the set it is shared, and the earlier shard's messages go to
    their people by name, as in a merge of the two."""
    folder = tmp("shared-set")
    os.makedirs(folder, exist_ok=True)
    parts = [[("g3", "Jane Doe <noreply@github.com>"), ("g4", "Jane Doe <noreply@github.com>"),
              ("p1", "Bob Smith <bob@example.org>")],
             [("g1", "Jane Doe <noreply@github.com>"), ("g2", "John Roe <noreply@github.com>")]]
    shards = []
    for i, posts in enumerate(parts):
        mbox, db = os.path.join(folder, "part-%d.mbox" % i), os.path.join(folder, "shard-%d.db" % i)
        posts_mbox(mbox, posts)
        ok("ingest", "-q", "--db", db, "--shard", str(i + 1), mbox)
        shards.append(db)
    with sqlite3.connect(shards[0]) as c:   # not shared in the first alone
        assert c.execute("SELECT count(*) FROM authors WHERE shared_address IS NOT NULL").fetchone() == (0,)
    catalog, merged = os.path.join(folder, "catalog.db"), fresh_db("shared-merged.db")
    ok("catalog", "-q", "--db", catalog, *shards)
    ok("merge", "-q", "--db", merged, *shards)
    people, of = {}, {}
    for db in (catalog, merged):
        authors = json.loads(ok("authors", "--db", db, "--format", "json").stdout)
        people[db] = sorted((a["name"], a["address"], a["messages"], a["shared_address"]) for a in authors)
        rows = [json.loads(l) for l in ok("export", "--db", db, "--format", "jsonl").stdout.splitlines()]
        of[db] = [(r["message_id"], r["author_id"]) for r in rows]
    assert people[catalog] == people[merged], people
    assert len(of[merged]) == 5 and len({a for _, a in of[merged]}) == 3, of
    assert of[catalog] == of[merged], of
    assert ("Jane Doe", "noreply@github.com (jane doe)", 3, "noreply@github.com") in people[catalog], people


@tap.test
def usenet_groups_of_a_set_are_one_ingests():
    """deja groups of Usenet articles cut into two shards: the moderated,
    the followed-up elsewhere, the control messages and the cancelled
    ones counted as one ingest counts them (a catalog looks the articles'
    headers up in a copy of its own, store-groups.c)."""
    folder = tmp("usenet-set")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(FIXTURES, "society", "usenet.mbox"), "rb") as f:
        text = f.read()
    starts = [m.start() for m in re.finditer(rb"^From ", text, re.M)]
    cut = starts[len(starts) // 2]
    one, shards = fresh_db("usenet-one.db"), []
    for i, part in enumerate((text[:cut], text[cut:])):
        mbox, db = os.path.join(folder, "part-%d.mbox" % i), os.path.join(folder, "shard-%d.db" % i)
        with open(mbox, "wb") as f:
            f.write(part)
        ok("ingest", "-q", "--db", db, "--shard", str(i + 1), mbox)
        shards.append(db)
    ok("ingest", "-q", "--db", one, *[os.path.join(folder, "part-%d.mbox" % i) for i in range(2)])
    catalog = os.path.join(folder, "catalog.db")
    ok("catalog", "-q", "--db", catalog, *shards)
    for by in ("year", "month"):
        want, got = (ok("groups", "--db", db, "--by", by, "--format", "json").stdout for db in (one, catalog))
        assert got == want, (by, got, want)
    rows = json.loads(want)
    for column in ("approved", "followups_elsewhere", "cancelled", "control_messages", "cancels"):
        assert sum(r[column] for r in rows) > 0, (column, rows)


@tap.test
def a_shard_that_is_not_a_database_is_named():
    folder = tmp("junk-shard")
    os.makedirs(folder, exist_ok=True)
    junk = os.path.join(folder, "junk.db")
    with open(junk, "w") as f:
        f.write("not a database, and long enough to be read as one\n" * 20)
    out = os.path.join(folder, "catalog.db")
    err = refused("catalog", "--db", out, SHARDS[0], junk, SHARDS[1])
    assert "cannot catalogue '%s': file is not a database" % junk in err, err
    assert not os.path.exists(out)


@tap.test
def a_stranger_catalog_naming_other_files_reads_none():
    """A catalog from someone else could name any file: one that is not a
    deja database of this version is refused when it is read."""
    folder = tmp("stranger-set")
    shutil.copytree(tmp("set"), folder)
    catalog = os.path.join(folder, "catalog.db")
    other = os.path.join(folder, "other.db")
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, secret TEXT)")
        c.execute("INSERT INTO messages VALUES (4294967297, 'private')")
    st = os.stat(other)
    with sqlite3.connect(catalog) as c:
        c.execute("UPDATE deja_catalog_shards SET path = ?, bytes = ?, modified = ? WHERE number = 1",
                  (other, st.st_size, int(st.st_mtime)))
    r = deja("export", "--db", catalog, "--format", "csv")
    assert r.returncode == 1 and "private" not in r.stdout, (r.returncode, r.stdout[:300])
    assert "not a deja database" in r.stderr and other in r.stderr, r.stderr


if __name__ == "__main__":
    tap.main(TMP)
