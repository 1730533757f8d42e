#!/usr/bin/env python3
"""Crash safety: SIGKILL mid-file, Ctrl-C between files, readers during an ingest.

Generates a 4 MiB archive with bench/gen.py (deterministic) and checks that

  - deja ingest killed with SIGKILL in the middle of that file leaves a
    database that passes PRAGMA integrity_check, records no part of the file,
    and, ingested again, holds exactly the rows of an uninterrupted ingest;
  - a kill after a file's commit and before threading leaves threads marked
    stale, and the next ingest computes them;
  - SIGINT finishes the file being stored, then stops with a message and
    exit status 1;
  - deja search and sqlite3 can read while an ingest runs: the database is
    in WAL mode, so a reader that never waits (timeout 0) is never refused;
  - the database is one file at rest (no -wal left after deja exits), and an
    older database in rollback-journal mode is switched to WAL;
  - deja merge, killed while it copies its shards in a rollback journal,
    leaves a hot journal that the next deja rolls back, even one that only
    reads.

DEJA_CRASH_TRIALS=10 runs the SIGKILL check ten times (default 3).
Run by meson (suite 'cli').
"""
import fcntl
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import tap
from dump import dump

DEJA = os.environ["DEJA"]
FIXTURES = os.environ["FIXTURES"]
ROOT = os.environ["SOURCE_ROOT"]
SAMPLE = os.path.join(FIXTURES, "sample", "comp.lang.c.mbox")
TMP = tempfile.mkdtemp(prefix="deja-crash-test-")
BIG = os.path.join(TMP, "big.mbox")
ENV = dict(os.environ, DEJA_NO_PROGRESS="1")
WITHOUT = set(os.environ.get("DEJA_WITHOUT", "").split())


def deja(*args):
    return subprocess.run([DEJA] + list(args), capture_output=True, text=True, env=ENV)


def start(*args):
    return subprocess.Popen([DEJA] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV)


def fresh(name):
    path = os.path.join(TMP, name)
    for suffix in ("", "-journal", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    return path


def table_count(db, table):
    c = sqlite3.connect(db)
    n = c.execute("SELECT count(*) FROM %s" % table).fetchone()[0]
    c.close()
    return n


def rows(db):
    return dump(db).replace(TMP, "TMP")


def setup():
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen.py"), "4", BIG],
                   check=True, capture_output=True)
    global REFERENCE, INGEST_SECONDS
    ref = fresh("reference.db")
    assert deja("ingest", "--db", ref, SAMPLE).returncode == 0
    # the files' part of an ingest, which the kills and signals aim at (the
    # language analysis after the files has a test of its own below)
    t0 = time.monotonic()
    assert deja("ingest", "--no-analysis", "--db", ref, BIG).returncode == 0
    INGEST_SECONDS = time.monotonic() - t0
    if "cld2" not in WITHOUT:
        assert deja("analyse", "--db", ref).returncode == 0
    REFERENCE = rows(ref)


@tap.test
def sigkill_mid_file_loses_nothing_and_keeps_nothing_partial():
    trials = int(os.environ.get("DEJA_CRASH_TRIALS", "3"))
    rng = random.Random(20261122)
    scale = INGEST_SECONDS    # shrinks when a kill comes after the commit
    killed_mid_file = late = 0
    while killed_mid_file < trials:
        db = fresh("killed.db")
        assert deja("ingest", "--db", db, SAMPLE).returncode == 0
        p = start("ingest", "--db", db, BIG)
        time.sleep(scale * rng.uniform(0.2, 0.7))
        p.send_signal(signal.SIGKILL)
        p.wait()
        with sqlite3.connect(db) as c:       # applies what the log holds
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            files = sorted(os.path.basename(r[0]) for r in c.execute("SELECT path FROM files"))
        if files == ["big.mbox", "comp.lang.c.mbox"] or p.returncode != -signal.SIGKILL:
            # Too late (this run was faster than the one measured): the
            # file is in whole; try again earlier.
            late += 1
            assert late <= 10, "kills keep coming after the commit"
            scale *= 0.7
            continue
        assert files == ["comp.lang.c.mbox"], (killed_mid_file, files)
        assert table_count(db, "messages") == 6
        r = deja("ingest", "--db", db, BIG)
        assert r.returncode == 0, r.stderr
        assert rows(db) == REFERENCE, "trial %d: rows differ from an uninterrupted ingest" % killed_mid_file
        killed_mid_file += 1
    print("# %d kills mid-file, %d after the commit (tried again)" % (killed_mid_file, late))


@tap.test
def threads_left_stale_by_a_kill_are_computed_by_the_next_ingest():
    # Deterministic: the state a kill after a file's commit and before
    # threading leaves (provisional threads, the marker set).
    db = fresh("stale.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    reference = rows(db)
    c = sqlite3.connect(db, isolation_level=None)
    assert c.execute("SELECT count(*) FROM deja_state").fetchone()[0] == 0
    c.execute("BEGIN")
    c.execute("UPDATE messages SET thread_id = id, parent_id = NULL, missing_parent = NULL")
    c.execute("DELETE FROM thread_placeholders")
    c.execute("INSERT INTO deja_state (key, value) VALUES ('threads', 'stale')")
    c.execute("COMMIT")
    c.close()
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0 and "unchanged" in r.stderr and "threaded" in r.stderr, r.stderr
    assert rows(db) == reference
    r = deja("ingest", "--db", db, SAMPLE)
    assert r.returncode == 0 and "threaded" not in r.stderr, r.stderr
    # Real kills as soon as the big file has committed (while threads are
    # computed, when the timing allows): a second ingest ends with the rows
    # of an uninterrupted one.
    stale = 0
    trials = max(1, int(os.environ.get("DEJA_CRASH_TRIALS", "3")) // 3)
    for trial in range(trials):
        db = fresh("stale-kill.db")
        assert deja("ingest", "--db", db, SAMPLE).returncode == 0
        p = start("ingest", "--db", db, BIG)
        c = sqlite3.connect(db, timeout=0)
        while p.poll() is None:
            if c.execute("SELECT count(*) FROM files").fetchone()[0] == 2:
                p.send_signal(signal.SIGKILL)
                break
        c.close()
        p.wait()
        c = sqlite3.connect(db)
        stale += c.execute("SELECT count(*) FROM deja_state").fetchone()[0]
        c.close()
        r = deja("ingest", "--db", db, BIG)
        assert r.returncode == 0, r.stderr
        assert rows(db) == REFERENCE, "trial %d: rows differ from an uninterrupted ingest" % trial
    print("# %d of %d kills left threads stale" % (stale, trials))


@tap.test
def a_sigint_during_the_analysis_keeps_the_files_and_the_next_ingest_goes_on():
    if "cld2" in WITHOUT:
        tap.skip("built without CLD2: no analysis to interrupt")
    db = fresh("interrupted-analysis.db")
    assert deja("ingest", "--no-analysis", "--db", db, BIG).returncode == 0
    p = start("analyse", "--db", db)
    p.wait()
    assert p.returncode == 0
    with sqlite3.connect(db) as c:
        c.execute("UPDATE messages SET lang = NULL")
    # deja analyse has no handler: an ingest's signal stops its analysis
    # between two batches, or finds it finished
    p = start("ingest", "--db", db, BIG, SAMPLE)
    while p.poll() is None:
        with sqlite3.connect(db, timeout=5) as c:
            if c.execute("SELECT count(*) FROM files").fetchone()[0] == 2:
                break
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    with sqlite3.connect(db) as c:
        left = c.execute("SELECT count(*) FROM messages WHERE lang IS NULL").fetchone()[0]
        assert c.execute("SELECT count(*) FROM files").fetchone()[0] == 2
    if p.returncode == 1:
        assert "the next 'deja ingest' or 'deja analyse' goes on" in err or "interrupted" in err, err
    r = deja("ingest", "--db", db, BIG, SAMPLE)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages WHERE lang IS NULL").fetchone()[0] == 0
    print("# %d messages were left for the next ingest" % left)


def interrupt_inside_the_file_after(p, path):
    """Sends SIGINT to the ingest @p once it has said it ingested @path, a
    moment into the next file (BIG, which takes about INGEST_SECONDS): a
    fixed sleep from the start missed on a busy machine.  Returns all it
    wrote to stderr."""
    seen = []
    for line in p.stderr:
        seen.append(line)
        if line.startswith("deja: ingested '%s'" % path):
            break
    time.sleep(INGEST_SECONDS * 0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    return "".join(seen) + err


@tap.test
def one_sigint_stops_the_file_being_read_and_rolls_it_back():
    db = fresh("interrupted.db")
    # The sample goes in first and stays; the big file is stopped inside.
    p = start("ingest", "--no-analysis", "--db", db, SAMPLE, BIG)
    err = interrupt_inside_the_file_after(p, SAMPLE)
    assert p.returncode == 1, (p.returncode, err)
    assert "the file being read is rolled back" in err, err
    assert "interrupted: '%s' rolled back; 1 of 2 files not read" % BIG in err, err
    with sqlite3.connect(db) as c:
        # Nothing of the big file: it was stopped, not finished.
        files = [os.path.basename(r[0]) for r in c.execute("SELECT path FROM files")]
        assert files == ["comp.lang.c.mbox"], files
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 6
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # The next ingest stores the big file and threads everything.
    assert deja("ingest", "--db", db, SAMPLE, BIG).returncode == 0
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM files").fetchone()[0] == 2
        assert c.execute("SELECT count(*) FROM deja_state WHERE key = 'threads'").fetchone()[0] == 0
        assert c.execute("SELECT count(*) FROM messages WHERE thread_id IS NULL").fetchone()[0] == 0


def small_mbox(path, word, n):
    """n messages, each with @word in its subject and text."""
    with open(path, "w") as f:
        for i in range(n):
            f.write("From someone@example.org Mon Jan  5 10:%02d:00 2004\n"
                    "From: Someone <someone@example.org>\nSubject: %s %d\n"
                    "Message-ID: <%s.%d@example.org>\nDate: Mon, 5 Jan 2004 10:%02d:00 +0000\n\n"
                    "A few words on %s, number %d.\n\n" % (i % 60, word, i, word, i, i % 60, word, i))


def fts_integrity(db):
    """FTS5's own check: every indexed row is the row in messages, and the reverse."""
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")


def matches(db, word):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?",
                         (word,)).fetchone()[0]


@tap.test
def a_file_stopped_among_others_leaves_the_others_searchable_and_itself_nowhere():
    # The files after the first of a transaction are indexed after their
    # savepoint (store.c: fts_flush()): a file stopped after some of its
    # messages were stored takes its waiting index rows with it, and the
    # files before it keep theirs.
    paths = [os.path.join(TMP, n) for n in ("one.mbox", "two.mbox", "three.mbox", "four.mbox")]
    small_mbox(paths[0], "alderwood", 30)
    small_mbox(paths[1], "birchwood", 30)
    small_mbox(paths[2], "cedarwood", 30)
    small_mbox(paths[3], "dogwood", 30)
    with open(paths[2], "ab") as f, open(BIG, "rb") as big:
        f.write(big.read())
    db = fresh("stopped-among.db")
    p = start("ingest", "--no-analysis", "--db", db, *paths)
    err = interrupt_inside_the_file_after(p, paths[1])
    assert p.returncode == 1, (p.returncode, err)
    assert "interrupted: '%s' rolled back; 2 of 4 files not read" % paths[2] in err, err
    assert table_count(db, "messages") == 60
    assert (matches(db, "alderwood"), matches(db, "birchwood")) == (30, 30)
    assert (matches(db, "cedarwood"), matches(db, "dogwood")) == (0, 0)
    fts_integrity(db)
    # the next ingest reads the other two
    assert deja("ingest", "--no-analysis", "--db", db, *paths).returncode == 0
    assert [matches(db, w) for w in ("alderwood", "birchwood", "cedarwood", "dogwood")] == [30] * 4
    fts_integrity(db)


@tap.test
def readers_query_during_an_ingest():
    db = fresh("busy.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    p = start("ingest", "--db", db, BIG)
    reads = 0
    while p.poll() is None:
        r = deja("search", "--db", db, "--format", "json", "sizeof")
        assert r.returncode == 0, r.stderr
        # timeout=0: a reader that would have to wait for the writer fails
        # with "database is locked" (as under a rollback journal at commit).
        for _ in range(20):
            with sqlite3.connect(db, timeout=0) as c:
                assert c.execute("SELECT count(*) FROM messages WHERE file_id = 1").fetchone()[0] == 6
                c.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'sizeof'").fetchone()
            reads += 1
    assert p.returncode == 0, p.stderr.read()
    assert reads >= 20, reads


@tap.test
def database_uses_wal_and_is_one_file_at_rest():
    db = fresh("wal.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    assert not os.path.exists(db + "-wal"), "deja left its write-ahead log behind"
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert c.execute("PRAGMA page_size").fetchone()[0] == 16384
    c.close()
    # A database written by an older deja, in rollback-journal mode.
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    c.close()
    r = deja("search", "--db", db, "sizeof")
    assert r.returncode == 0 and "Are arrays pointers?" in r.stdout, r.stderr
    assert not os.path.exists(db + "-wal")
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    c.close()

def schema_indexes():
    """The indexes schema/*.sql leaves, by name."""
    import glob
    import re
    names = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "schema", "*.sql"))):
        text = open(path, encoding="utf-8").read()
        for verb, name in re.findall(r"^(CREATE INDEX|DROP INDEX)\s+(?:IF (?:NOT )?EXISTS\s+)?(\w+)",
                                     text, re.M):
            (names.add if verb == "CREATE INDEX" else names.discard)(name)
    return names


def indexes(db):
    c = sqlite3.connect(db)
    names = {r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type = 'index'"
                                      " AND name NOT LIKE 'sqlite_autoindex_%'")}
    deferred = c.execute("SELECT count(*) FROM deja_state WHERE key = 'deferred_indexes'").fetchone()[0]
    c.close()
    return names, deferred


@tap.test
def a_first_ingest_ends_with_every_index_of_the_schema():
    expected = schema_indexes()
    assert {"messages_date", "messages_sender", "messages_message_id", "messages_file"} <= expected
    db = fresh("indexes.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    assert indexes(db) == (expected, 0)
    with sqlite3.connect(db) as c:
        plan = " ".join(r[3] for r in c.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE date > '1997'"))
        assert "messages_date" in plan, plan
    # An ingest into a database that holds messages keeps its indexes
    # all along (only a first ingest builds them at its end).
    p = start("ingest", "--no-analysis", "--db", db, BIG)
    polls = 0
    while p.poll() is None:
        with sqlite3.connect(db, timeout=0) as c:
            names = {r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
        assert expected <= names, expected - names
        polls += 1
    assert p.returncode == 0, p.stderr.read()
    assert polls > 0 and indexes(db) == (expected, 0)
    # The Message-ID index a first ingest keeps is built again at its end,
    # sorted: fewer pages than the one that grew a message at a time, and
    # no page left free in the file.
    first = fresh("indexes-first.db")
    assert deja("ingest", "--no-analysis", "--db", first, BIG).returncode == 0
    def size(path):
        with sqlite3.connect(path) as c:
            return (c.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'messages_message_id'").fetchone()[0],
                    c.execute("PRAGMA freelist_count").fetchone()[0])
    (grown, _), (built, free) = size(db), size(first)
    assert built < grown and free == 0, (built, grown, free)


@tap.test
def indexes_a_killed_first_ingest_left_undone_are_built_by_the_next_deja():
    reference_db = fresh("indexes-reference.db")
    assert deja("ingest", "--no-analysis", "--db", reference_db, BIG).returncode == 0
    reference = rows(reference_db)
    expected = schema_indexes()
    db = fresh("indexes-killed.db")
    p = start("ingest", "--no-analysis", "--db", db, BIG)
    c = sqlite3.connect(db, timeout=5)
    while p.poll() is None:
        try:
            if c.execute("SELECT count(*) FROM deja_state WHERE key = 'deferred_indexes'").fetchone()[0]:
                time.sleep(INGEST_SECONDS * 0.3)
                p.send_signal(signal.SIGKILL)
                break
        except sqlite3.OperationalError:    # the schema is being created
            pass
    c.close()
    p.wait()
    assert p.returncode == -signal.SIGKILL, "the ingest ended before the kill"
    names, deferred = indexes(db)
    assert deferred == 1 and "messages_date" not in names and "messages_message_id" not in names, (names, deferred)
    # Any deja that opens it builds them, a reader too.
    r = deja("search", "--db", db, "sizeof")
    assert r.returncode == 0, r.stderr
    assert indexes(db) == (expected, 0)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    r = deja("ingest", "--no-analysis", "--db", db, BIG)
    assert r.returncode == 0, r.stderr
    assert rows(db) == reference



SHARDS = []
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def big_shards():
    """Four numbered shards of BIG, each with a message of its own, and
    their merge: ([shard...], merged)."""
    whole = os.path.join(TMP, "merged-whole.db")
    if SHARDS:
        return SHARDS, whole
    for i in range(1, 5):
        # BIG four times (its content stored once when merged)
        path = os.path.join(TMP, "big-%d.mbox" % i)
        with open(BIG, "rb") as src, open(path, "wb") as out:
            out.write(src.read())
            out.write(b"\nFrom shard%d@example.com Mon Jan  1 00:00:00 2001\n"
                      b"Message-ID: <own-%d@example.com>\nSubject: shard %d\n\nits own\n" % (i, i, i))
        db = fresh("merge-shard-%d.db" % i)
        assert deja("ingest", "--no-analysis", "--shard", str(i), "--db", db, path).returncode == 0
        SHARDS.append(db)
    fresh("merged-whole.db")
    assert deja("merge", "--no-analysis", "--db", whole, *SHARDS).returncode == 0
    return SHARDS, whole


@tap.test
def indexes_a_killed_merge_left_undone_are_built_by_the_next_deja():
    """deja merge into an empty database builds its secondary indexes after
    the last shard, as a first ingest does; killed before, the next deja
    builds them, and merging again gives what one merge gives."""
    expected = schema_indexes()
    shards, whole = big_shards()
    assert indexes(whole) == (expected, 0)
    db = fresh("merged-killed.db")
    p = start("merge", "--no-analysis", "--db", db, *shards)
    seen = False
    while p.poll() is None and not seen:
        try:
            with sqlite3.connect(db, timeout=5) as c:
                seen = c.execute("SELECT count(*) FROM deja_state"
                                 " WHERE key = 'deferred_indexes'").fetchone()[0] > 0
        except sqlite3.OperationalError:    # the schema is being created
            pass
    if seen:
        p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL, "the merge ended before the kill"
    names, deferred = indexes(db)
    assert deferred == 1 and "messages_date" not in names and "messages_parent" in names, (names, deferred)
    # Any deja that opens it builds them; a merge again completes it
    r = deja("search", "--db", db, "sizeof")
    assert r.returncode == 0, r.stderr
    assert indexes(db) == (expected, 0)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    r = deja("merge", "--no-analysis", "--db", db, *shards)
    assert r.returncode == 0, r.stderr
    assert rows(db).replace("merged-killed", "merged-whole") == rows(whole)

@tap.test
def a_merge_killed_in_a_transaction_is_rolled_back_by_the_next_deja():
    """deja merge copies its shards in a rollback journal (new pages written
    once, not twice as in WAL mode); killed inside a transaction, it leaves
    a hot journal.  The next deja, even one that only reads, rolls it back
    before it identifies the file; so does a merge given it as a shard.
    Merging again then gives what one merge gives."""
    shards, whole = big_shards()
    # The kill can land just after the transaction whose journal was seen
    # committed (and deleted it): then the merge is killed again, anew.
    for _ in range(5):
        db = fresh("merged-hot.db")
        journal = db + "-journal"
        p = start("merge", "--no-analysis", "--db", db, *shards)
        hot = False
        while p.poll() is None and not hot:
            try:
                with open(journal, "rb") as f:
                    header = f.read(12)
            except OSError:
                continue
            # Hot once synced: SQLite's magic, then a count of pages kept
            hot = header[:8] == JOURNAL_MAGIC and header[8:12] != bytes(4)
        if hot:
            p.send_signal(signal.SIGKILL)
        p.wait()
        assert p.returncode == -signal.SIGKILL, "the merge ended before a journal was seen"
        if os.path.exists(journal) and os.path.getsize(journal) > 0:
            break
        print("# the kill came after a commit: killed again")
    else:
        assert False, "five kills, none inside a transaction: no journal left to roll back"
    # The same file as a shard, before anything has rolled it back
    copy = fresh("merged-hot-copy.db")
    for suffix in ("", "-journal"):
        with open(db + suffix, "rb") as src, open(copy + suffix, "wb") as out:
            out.write(src.read())
    # A command that only reads: its read-only identity check meets the journal
    r = deja("search", "--db", db, "sizeof")
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(journal) or os.path.getsize(journal) == 0
    c = sqlite3.connect(db)
    try:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        c.close()
    r = deja("merge", "--no-analysis", "--db", db, *shards)
    assert r.returncode == 0, r.stderr
    assert rows(db).replace("merged-hot", "merged-whole") == rows(whole)
    other = fresh("merged-from-hot.db")
    r = deja("merge", "--no-analysis", "--db", other, copy)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(copy + "-journal") or os.path.getsize(copy + "-journal") == 0
    c = sqlite3.connect(other)
    try:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        c.close()


def authors_stale(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("SELECT count(*) FROM deja_state WHERE key = 'authors'").fetchone()[0] == 1
    finally:
        c.close()


@tap.test
def readers_leave_the_authors_to_the_deja_writing():
    """A command that only reads computes authors left stale, builds the
    indexes an ingest or merge left for its end and puts the database in
    WAL mode, unless a deja ingest or merge is at work on it (each reader
    doing it meanwhile takes the write lock from it, and a merge copies in
    a rollback journal): then it leaves them and says so.  The writer's
    claim is an exclusive flock(2) on the file, which the kernel drops
    with it."""
    db = fresh("claimed.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    # As a merge into it leaves it: authors stale, an index for its end,
    # in a rollback journal
    c = sqlite3.connect(db)
    c.execute("INSERT OR REPLACE INTO deja_state (key, value) VALUES ('authors', 'stale')")
    c.execute("DROP INDEX messages_date")
    c.execute("INSERT INTO deja_state (key, value) VALUES ('deferred_indexes', 'messages_date')")
    c.commit()
    assert c.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    c.close()

    def state():
        c = sqlite3.connect(db)
        try:
            return (authors_stale(db), c.execute("PRAGMA journal_mode").fetchone()[0],
                    c.execute("SELECT count(*) FROM sqlite_schema"
                              " WHERE name = 'messages_date'").fetchone()[0])
        finally:
            c.close()
    claim = os.open(db, os.O_RDONLY)
    try:
        fcntl.flock(claim, fcntl.LOCK_EX)       # as a deja writing it holds
        r = deja("search", "--db", db, "sizeof")
        assert r.returncode == 0 and "Are arrays pointers?" in r.stdout, r.stderr
        assert "another deja is writing '%s'" % db in r.stderr, r.stderr
        assert state() == (True, "delete", 0), state()
    finally:
        os.close(claim)
    r = deja("search", "--db", db, "sizeof")
    assert r.returncode == 0 and "another deja" not in r.stderr, r.stderr
    assert state() == (False, "wal", 1), state()
    # deja ingest and deja merge claim the database they write
    shards, _ = big_shards()
    for args in (["ingest", "--no-analysis", "--db", fresh("claimed-ingest.db"), BIG],
                 ["merge", "--no-analysis", "--db", fresh("claimed-merge.db")] + shards):
        db = args[args.index("--db") + 1]
        p = start(*args)
        claimed = False
        while p.poll() is None and not claimed:
            try:
                fd = os.open(db, os.O_RDONLY)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                claimed = True
            finally:
                os.close(fd)
        p.communicate()
        assert p.returncode == 0 and claimed, (args[0], p.returncode, claimed)


if __name__ == "__main__":
    tap.main(TMP, setup)
