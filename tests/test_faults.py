#!/usr/bin/env python3
"""Every failure of the store is an error, never a crash or a silent NULL.

DEJA_STORE_FAULT=N makes the Nth call of the store to SQLite (a prepare, a
step or an exec) fail as a failing disk would (src/store/store-checked.c).
For an ingest into a new database, an ingest into one that holds messages,
and the commands that read, this walks N over every call they make and
checks, for each:

  - deja exits 0 or 1, never on a signal (a NULL error dereferenced was
    one), and never 1 without an error line saying what failed;
  - when it exits 0, what it stored or printed is exactly what a run
    without the fault gives: the failure was one deja can do without (a
    helper connection's read, a cache), never one it ignored;
  - the database passes PRAGMA integrity_check, and one more ingest
    without faults brings it to what a run without faults gives.

Run by meson (suite 'slow').
"""
import os
import re
import shutil
import sqlite3
import subprocess

import tap
from cli_helpers import FIXTURES, SAMPLE, TMP, fresh_db, tmp
from dump import dump

DEJA = os.environ["DEJA"]
SECOND = os.path.join(FIXTURES, "replies", "in-reply-to-forms.mbox")
MARK = "[test] store fault injected"


def run(args, fault=0, var="DEJA_STORE_FAULT", lanes=None):
    env = dict(os.environ, DEJA_NO_PROGRESS="1")
    if lanes:
        env["DEJA_FTS_LANES"] = str(lanes)
    if fault:
        env[var] = str(fault)
    return subprocess.run([DEJA] + args, capture_output=True, text=True, env=env, timeout=120)


def check_failure(r, n, what):
    assert r.returncode in (0, 1), (what, n, r.returncode, r.stderr)
    errors = [l for l in r.stderr.splitlines() if l.startswith("deja: ") and MARK not in l]
    if r.returncode == 1:
        assert errors, (what, n, "exit 1 without saying why", r.stderr)
    assert "not an error" not in r.stderr, (what, n, r.stderr)
    return MARK in r.stderr


def integrity(db):
    if os.path.exists(db):
        with sqlite3.connect(db) as c:
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok", db
            # no row left pointing at one that is gone (an ingest writes
            # files at new paths with foreign keys unchecked)
            assert c.execute("PRAGMA foreign_key_check").fetchall() == [], db
            # and the full-text index holds the messages, no more (made
            # beside the writer, by one thread or several)
            if c.execute("SELECT 1 FROM sqlite_schema WHERE name = 'messages_fts'").fetchone():
                c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
                assert c.execute("SELECT count(*) FROM messages_fts_docsize").fetchone() == \
                    c.execute("SELECT count(*) FROM messages").fetchone(), db


# Under the sanitizers every run is three times slower: every STRIDEth call
# there (meson sets it), every call in the plain build.
STRIDE = int(os.environ.get("DEJA_FAULT_STRIDE", "1"))


def walk_ingest(name, prepare, files, var="DEJA_STORE_FAULT", said=None, lanes=None):
    """Faults at every call of 'deja ingest FILES' into what prepare() makes
    (@var: DEJA_STORE_FAULT_SIDE for the calls of the threads that make the
    full-text index beside the writer, counted apart, @lanes of them; @said:
    called with each failed run's stderr and database)."""
    template = fresh_db(name + "-template.db")
    prepare(template)
    base = fresh_db(name + "-base.db")
    if os.path.exists(template):
        shutil.copy(template, base)
    assert run(["ingest", "-q", "--db", base] + files).returncode == 0
    expected = dump(base)
    db = tmp(name + ".db")
    n = 0
    while True:
        n += STRIDE
        fresh_db(name + ".db")
        if os.path.exists(template):
            shutil.copy(template, db)
        r = run(["ingest", "-q", "--db", db] + files, fault=n, var=var, lanes=lanes)
        hit = check_failure(r, n, name)
        integrity(db)
        if said and hit:
            said(r.stderr, db, n)
        if not hit:
            assert r.returncode == 0 and dump(db) == expected, (name, n, r.stderr)
            return n - STRIDE
        if r.returncode == 0:
            assert dump(db) == expected, (name, n, "a fault was ignored", r.stderr)
        elif (n // STRIDE) % 3 == 0:
            again = run(["ingest", "-q", "--db", db] + files)
            assert again.returncode == 0, (name, n, again.stderr)
            assert dump(db) == expected, (name, n, "not recovered by a second ingest")


@tap.test
def faults_in_an_ingest_into_a_new_database():
    calls = walk_ingest("new", lambda db: None, [SAMPLE])
    assert calls > 150 - STRIDE, calls


@tap.test
def faults_in_an_ingest_into_a_database_with_messages():
    def prepare(db):
        assert run(["ingest", "-q", "--db", db, SAMPLE]).returncode == 0
    calls = walk_ingest("more", prepare, [SECOND])
    assert calls > 100 - STRIDE, calls


@tap.test
def faults_in_an_ingest_that_replaces_a_file_after_a_new_one():
    """A file at a new path goes in with foreign keys unchecked; a file at
    a path stored before, after it in the same run, has it committed first
    and deletes its old rows with keys checked (src/store/store.c:
    keys_for_file()): every fault on the way is said, leaves no row
    pointing at one that is gone, and is recovered by one more ingest."""
    changing = tmp("replaced.mbox")
    people = os.path.join(FIXTURES, "people", "people.mbox")

    def prepare(db):
        shutil.copy(SECOND, changing)
        assert run(["ingest", "-q", "--db", db, changing]).returncode == 0
        shutil.copy(SAMPLE, changing)

    sample = fresh_db("replaced-sample.db")
    assert run(["ingest", "-q", "--db", sample, SAMPLE]).returncode == 0
    with sqlite3.connect(sample) as c:
        replacing = c.execute("SELECT count(*) FROM messages").fetchone()[0]

    def said(stderr, db, n):
        # the new file was committed before the replaced one began: once
        # it is in the database, what is said lost is the other one's
        with sqlite3.connect(db) as c:
            stored = c.execute("SELECT count(*) FROM files WHERE path = ?",
                               (os.path.abspath(people),)).fetchone()[0]
        lost = re.search(r"read \((\d+) messages\) (is|are) not stored", stderr)
        assert not (lost and stored and int(lost.group(1)) > replacing), \
            (n, "a stored file said to be lost", stderr)
    calls = walk_ingest("replaced", prepare, [people, changing], said=said)
    assert calls > 150 - STRIDE, calls


@tap.test
def faults_in_the_full_text_index_made_beside_the_writer():
    if len(os.sched_getaffinity(0)) < 2:
        tap.skip("one core here: the index is made by the writer")

    changing = tmp("changing.mbox")

    def prepare(db):
        shutil.copy(SECOND, changing)
        assert run(["ingest", "-q", "--db", db, changing]).returncode == 0
        shutil.copy(SAMPLE, changing)
    # into a new database, then one where a file changed: its old rows
    # leave the index as the side's delete markers
    one = walk_ingest("side-new", lambda db: None, [SAMPLE, SECOND], var="DEJA_STORE_FAULT_SIDE")
    assert one > 12 - STRIDE, one
    calls = walk_ingest("side-changed", prepare, [changing], var="DEJA_STORE_FAULT_SIDE")
    assert calls > 6 - STRIDE, calls
    # three threads (DEJA_FTS_LANES), whose calls are counted together in
    # whatever order they come: a fault in any of them fails the batch
    three = walk_ingest("side-lanes", lambda db: None, [SAMPLE, SECOND], var="DEJA_STORE_FAULT_SIDE", lanes=3)
    assert three > one, (three, one)
    three = walk_ingest("side-lanes-changed", prepare, [changing], var="DEJA_STORE_FAULT_SIDE", lanes=3)
    assert three > calls, (three, calls)


@tap.test
def faults_in_the_commands_that_read():
    db = fresh_db("read.db")
    assert run(["ingest", "-q", "--db", db, SAMPLE, SECOND]).returncode == 0
    commands = [["stats", "--db", db], ["search", "--db", db, "pointer"],
                ["export", "-q", "--db", db, "--format", "jsonl"], ["show", "--db", db, "2"],
                ["show", "--db", db, "--thread", "2"], ["authors", "--db", db],
                ["network", "--db", db, "--stats", "--format", "json"]]
    for args in commands:
        expected = run(args)
        assert expected.returncode == 0, (args, expected.stderr)
        n = 0
        while True:
            n += STRIDE
            r = run(args, fault=n)
            hit = check_failure(r, n, args[0])
            if not hit:
                break
            if r.returncode == 0:
                assert r.stdout == expected.stdout, (args, n, "a fault was ignored")
        assert n > 3 * STRIDE, (args, n)
    integrity(db)


# The threads deja starts (src/util/spawn.c); each may be refused by a
# limit on threads (a container's pids limit, TasksMax=, ulimit -u) or on
# address space (ulimit -v).
HELPERS = ["deja-fts", "deja-hash", "deja-checkpoint", "deja-free", "deja-free-batches", "deja-threads",
           "deja-dictionary", "deja-ahead"]


def refused(args, names):
    env = dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_THREAD_FAULT=names)
    return subprocess.run([DEJA] + args, capture_output=True, text=True, env=env, timeout=120)


@tap.test
def a_helper_thread_refused_is_done_without():
    """Each helper thread refused, then all of them at once: the ingest (into
    a new database and into one with messages, with files prepared ahead),
    the catalog of shards, the analysis and terms give what they give
    with every thread, and say once which thread did not start."""
    second = os.path.join(FIXTURES, "threads")
    files = [SAMPLE, SECOND, second]
    expected_new = fresh_db("threads-expected.db")
    assert run(["ingest", "-q", "--db", expected_new] + files).returncode == 0
    people = os.path.join(FIXTURES, "people", "people.mbox")   # one file: hashed beside, not ahead
    assert run(["ingest", "-q", "--db", expected_new, people]).returncode == 0
    want = dump(expected_new)
    for names in HELPERS + [",".join(HELPERS)]:
        db = fresh_db("threads-refused.db")
        r = refused(["ingest", "--db", db] + files, names)
        assert r.returncode == 0, (names, r.stderr)
        again = refused(["ingest", "--db", db, people], names)
        assert again.returncode == 0, (names, again.stderr)
        assert dump(db) == want, names
        integrity(db)
        said = r.stderr + again.stderr
        for name in names.split(","):
            assert 1 <= said.count("cannot start a thread (%s)" % name) <= 2, (name, said)
    # the commands that read with several threads
    shards = [fresh_db("threads-shard-%d.db" % i) for i in range(3)]
    for i, (shard, path) in enumerate(zip(shards, files)):
        assert run(["ingest", "-q", "--shard", str(i + 1), "--db", shard, path]).returncode == 0
    # analysed afterwards, each of three chunks on a thread: one refused is done here
    analysed = {}
    for names in ("", "deja-analyse"):
        db = fresh_db("threads-analyse-%s.db" % (names or "all"))
        assert run(["ingest", "-q", "--no-analysis", "--db", db] + files).returncode == 0
        r = refused(["analyse", "-j", "3", "--db", db], names)
        assert r.returncode == 0, (names, r.stderr)
        assert ("cannot start a thread (deja-analyse)" in r.stderr) == (names != ""), r.stderr
        with sqlite3.connect(db) as c:
            analysed[names] = c.execute(
                "SELECT message_id, byte_offset, lang, lang_reliable, words, sentences, code_lines,"
                " nonletter_share, digit_share, upper_share, oov_share FROM messages"
                " ORDER BY file_id, byte_offset").fetchall()
    assert analysed[""] == analysed["deja-analyse"]
    assert sum(1 for row in analysed[""] if row[4] is not None) > 20
    for args, name in ((["terms", "-j", "3", "--db", expected_new], "deja-corpus"),):
        before = run(args)
        assert before.returncode == 0, (args, before.stderr)
        after = refused(args, name)
        assert after.returncode == 0 and after.stdout == before.stdout, (args, after.stderr)
        assert "cannot start a thread (%s)" % name in after.stderr, after.stderr
    catalogs = {}
    for names in ("", "deja-shards"):
        catalog = fresh_db("threads-catalog-%s.db" % (names or "all"))
        r = refused(["catalog", "-q", "--db", catalog] + shards, names)
        assert r.returncode == 0, (names, r.stderr)
        catalogs[names] = run(["stats", "--db", catalog]).stdout
    assert catalogs[""] == catalogs["deja-shards"] and catalogs[""]


@tap.test
def no_decoder_thread_is_an_error_and_the_database_unchanged():
    """Not one decoding thread: the first file fails with the reason and
    the others are not tried, deja exits 1, and the database is byte for
    byte what it was."""
    db = fresh_db("no-decoder.db")
    assert run(["ingest", "-q", "--db", db, SAMPLE]).returncode == 0
    with open(db, "rb") as f:
        before = f.read()
    r = refused(["ingest", "--db", db, SECOND, os.path.join(FIXTURES, "people", "people.mbox")], "all")
    assert r.returncode == 1, r.stderr
    assert "cannot ingest '%s': cannot start a decoding thread" % SECOND in r.stderr, r.stderr
    assert "1 of 2 files not read" in r.stderr and "people.mbox" not in r.stderr, r.stderr
    with open(db, "rb") as f:
        assert f.read() == before
    integrity(db)


@tap.test
def a_pids_limit_takes_threads_away_not_the_ingest():
    """A real limit: deja -j 8 in a cgroup allowed 4 tasks (v1 pids
    controller, as root) gives the database -j 8 gives unconfined; it
    aborted on the first thread it could not start before."""
    base = "/sys/fs/cgroup/pids"
    group = os.path.join(base, "deja-test-%d" % os.getpid())
    try:
        os.mkdir(group)
        with open(os.path.join(group, "pids.max"), "w") as f:
            f.write("4")
    except OSError as e:
        tap.skip("no pids cgroup to make here: %s" % e)
    try:
        files = [os.path.join(FIXTURES, "threads"), SAMPLE]
        free = fresh_db("pids-free.db")
        assert run(["ingest", "-q", "-j", "8", "--db", free] + files).returncode == 0
        db = fresh_db("pids-limited.db")
        r = subprocess.run(["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', group, DEJA, "ingest",
                            "-j", "8", "--db", db] + files,
                           capture_output=True, text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"),
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert "cannot start a thread (deja-decode)" in r.stderr, r.stderr
        assert dump(db) == dump(free)
    finally:
        os.rmdir(group)


if __name__ == "__main__":
    tap.main(TMP)
