#!/usr/bin/env python3
"""The full-text index made beside the ingest's writer (store-fts-side.c).

On more than one core, `deja ingest` has its rows indexed by a thread of
its own (one for each two cores, up to four), into a table of its own,
and copies that table's segments into messages_fts at each commit.  Each
test here runs the same commands three times: so (one thread on this
machine's two cores), with DEJA_FTS_LANES=3 (three threads, each with
its table: rows go to them in turn, delete markers to the one that
indexed their row, and after the first marker every row to the one
copied last), and with DEJA_FTS_BESIDE=0 (the writer indexes, as
before), and asks for the same index: FTS5's integrity-check on both, the same
sizes and averages records (bm25 reads them), and for every word of the
corpus the same rows in the same order with the same rank.  The cases are
the writer's ways of changing the index: many files in one transaction
(savepoints, rows waiting for the next one), a file whose own text passes
the 4 MiB that makes it index as it goes, a changed file ingested again
(its old rows leave as delete markers, unchanged messages keep their ids),
an archive that grew at its end (its old last message replaced), a file
that fails half-way (rolled back to its savepoint), an index the side
leaves in the segments it wrote, a batch that makes more segments than the
side may leave (merged from there on), and many commits (merged by FTS5
past 64 segments); and the temporary database is deleted, even one left by a deja
that was killed.  Run by meson (suite 'slow').
"""
import os
import random
import re
import sqlite3
import subprocess
import tempfile

import tap

DEJA = os.environ["DEJA"]
TMP = tempfile.mkdtemp(prefix="deja-fts-beside-")
WORDS = ("reactor deferred callback protocol transport factory daemon twisted python "
         "thread process signal socket buffer parser message header mailbox archive "
         "newsgroup posting reply quote signature attachment charset unicode language "
         "zeppelin dirigible balloon harbour lighthouse meridian glacier orchard violin "
         "sonnet ledger almanac telegraph railway quarry lantern compass atlas").split()


KINDS = ("beside", "writer", "lanes")


def kind_env(kind):
    """The environment of @kind: the side's one thread, the writer, three threads."""
    env = dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_FTS_BESIDE="0" if kind == "writer" else "1")
    env.pop("DEJA_FTS_LANES", None)
    if kind == "lanes":
        env["DEJA_FTS_LANES"] = "3"
    return env


def deja(*args, beside=True, kind=None):
    env = kind_env(kind or ("beside" if beside else "writer"))
    return subprocess.run([DEJA] + list(args), capture_output=True, text=True, env=env)


def message(rng, n, words=40, subject=None):
    body = " ".join(rng.choice(WORDS) for _ in range(words))
    lines = [body[i:i + 70] for i in range(0, len(body), 70)]
    return ("From sender%d@example.org Mon Jan  1 00:00:00 2001\n"
            "From: Sender %d <sender%d@example.org>\n"
            "Subject: %s\n"
            "Message-ID: <m%d@example.org>\n"
            "Date: Mon, 1 Jan 2001 00:%02d:00 +0000\n\n%s\n\n"
            % (n % 17, n % 17, n % 17, subject or " ".join(rng.sample(WORDS, 3)), n, n % 60,
               "\n".join(lines)))


def write_mbox(path, rng, first, count, words=40):
    with open(path, "w") as f:
        for n in range(first, first + count):
            f.write(message(rng, n, words))


def twins(name, seed, files, messages):
    """Three scratch directories whose databases are made alike (KINDS:
    beside, by the writer, by three threads beside), each with the same
    mbox files NAME00.mbox…: messages(k) of them in the kth (a count, or
    (count, words))."""
    dirs = []
    for kind in KINDS:
        d = os.path.join(TMP, name, kind)
        os.makedirs(d)
        rng = random.Random(seed)
        for k in range(files):
            count = messages(k)
            count, words = count if isinstance(count, tuple) else (count, 40)
            write_mbox(os.path.join(d, "%s%02d.mbox" % (name[0], k)), rng, k * 1000, count, words)
        dirs.append(d)
    return dirs


def ingest_both(dirs, *paths):
    """deja ingest of @paths (relative to each twin) into each twin's db."""
    results = []
    for d, kind in zip(dirs, KINDS):
        r = deja("ingest", "--db", os.path.join(d, "x.db"), *[os.path.join(d, p) for p in paths],
                 kind=kind)
        results.append(r)
    return results


def segments(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(DISTINCT id >> 37) FROM messages_fts_data WHERE id > 10").fetchone()[0]


def same_index(dirs):
    """Each twin's index is the writer's (dirs[1])."""
    for d in dirs[:1] + dirs[2:]:
        same_two(d, dirs[1])


def same_two(one, writer):
    a, b = (sqlite3.connect(os.path.join(d, "x.db")) for d in (one, writer))
    for c in (a, b):
        c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
    assert a.execute("SELECT count(*) FROM messages").fetchone()[0] > 0
    assert a.execute("SELECT id, message_id, file_id FROM messages ORDER BY id").fetchall() == \
        b.execute("SELECT id, message_id, file_id FROM messages ORDER BY id").fetchall()
    assert a.execute("SELECT id, sz FROM messages_fts_docsize ORDER BY id").fetchall() == \
        b.execute("SELECT id, sz FROM messages_fts_docsize ORDER BY id").fetchall()
    averages = "SELECT block FROM messages_fts_data WHERE id = 1"
    assert a.execute(averages).fetchone() == b.execute(averages).fetchone()
    terms = set()
    for (text,) in b.execute("SELECT coalesce(subject, '') || ' ' || coalesce(own_text, '') FROM messages"):
        terms.update(re.findall(r"[a-z]{3,}", text.lower()))
    assert len(terms) >= 30
    q = ("SELECT rowid, round(rank, 9) FROM messages_fts WHERE messages_fts MATCH ?"
         " ORDER BY rank, rowid")
    for t in sorted(terms) + ['"reactor deferred"', "subject:zeppelin", "NEAR(quote reply, 4)"]:
        assert a.execute(q, (t,)).fetchall() == b.execute(q, (t,)).fetchall(), t
    a.close()
    b.close()


@tap.test
def many_files_and_a_large_one_in_one_transaction():
    # 30 files, the second with 7 MiB of own text (after the first: it has a savepoint)
    dirs = twins("many", 1, 30, lambda k: (1500, 600) if k == 1 else 15)
    for r in ingest_both(dirs, *sorted(os.listdir(dirs[0]))):
        assert r.returncode == 0, r.stderr
    same_index(dirs)


@tap.test
def changed_grown_and_failed_files_ingested_again():
    dirs = twins("g", 2, 6, lambda k: 20)
    names = ["g%02d.mbox" % k for k in range(6)]
    for r in ingest_both(dirs, *names):
        assert r.returncode == 0, r.stderr
    for d in dirs:
        rng = random.Random(3)
        # g1: the same messages but its 5th and 6th changed and one less
        # (unchanged ones keep their ids, the others leave the index)
        with open(os.path.join(d, "g01.mbox")) as f:
            text = f.read()
        parts = text.split("\nFrom sender")
        parts[5] = parts[5].replace("Subject: ", "Subject: changed lighthouse ")
        del parts[6]
        with open(os.path.join(d, "g01.mbox"), "w") as f:
            f.write("\nFrom sender".join(parts))
        # g2 grew at its end (its last message's text changes with it)
        with open(os.path.join(d, "g02.mbox"), "a") as f:
            f.write("A postscript about zeppelins.\n\n")
            for n in range(2900, 2905):
                f.write(message(rng, n))
        # g3 is another archive now
        write_mbox(os.path.join(d, "g03.mbox"), rng, 5000, 12)
        # a new file of 7 MiB first: the side merges its segments, until
        # the changed files' deletes after it stop that
        write_mbox(os.path.join(d, "g06.mbox"), rng, 9000, 1500, words=600)
        # g04 is not mail any more
        with open(os.path.join(d, "g04.mbox"), "wb") as f:
            f.write(b"\x00\x01binary, not mail\n" * 100)
    names = ["g06.mbox"] + names
    results = ingest_both(dirs, *names)
    assert len({r.returncode for r in results}) == 1, [r.stderr for r in results]
    same_index(dirs)
    # and once more, nothing changed: nothing moves
    for r in ingest_both(dirs, *names):
        assert r.returncode == results[0].returncode
    same_index(dirs)


@tap.test
def a_file_failing_half_way_leaves_the_index_beside_too():
    # the second with 5 MiB of own text: indexed as it comes, in its savepoint;
    # only beside (the writer's own index: tests/test_faults.py)
    dirs = twins("h", 4, 3, lambda k: (1100, 600) if k == 1 else 25)
    dirs = [dirs[0], dirs[2]]
    # The second file fails in the middle of its rows: an I/O error injected
    # at one SQLite call of the writer (DEJA_STORE_FAULT=N; the side's
    # thread counts apart), N found by bisection (too early, the first file
    # fails; too late, the third), the last that keeps the first and third
    # files only.  Its rows were already given to the side: they leave with it.
    def run(d, beside, at):
        """The files kept by an ingest with a fault at call @at, and its stderr."""
        for n in os.listdir(d):
            if n.startswith("x.db"):
                os.unlink(os.path.join(d, n))
        env = dict(kind_env(beside), DEJA_STORE_FAULT=str(at))
        r = subprocess.run([DEJA, "ingest", "--db", os.path.join(d, "x.db")] +
                           [os.path.join(d, "h%02d.mbox" % k) for k in range(3)],
                           capture_output=True, text=True, env=env)
        try:
            with sqlite3.connect(os.path.join(d, "x.db")) as c:
                return r, [os.path.basename(p) for (p,) in c.execute("SELECT path FROM files ORDER BY path")]
        except sqlite3.Error:
            return r, []

    def outcome(d, beside, at):
        """'h1' (the second file failed alone), 'early' or 'late'."""
        r, files = run(d, beside, at)
        if files == ["h00.mbox", "h02.mbox"]:
            return "h1"
        return "late" if "h00.mbox" in files else "early"

    for d, beside in zip(dirs, ("beside", "lanes")):
        found, lo, hi = None, 1, 3000
        while found is None and lo < hi:
            mid = (lo + hi) // 2
            what = outcome(d, beside, mid)
            if what == "h1":
                found = mid
            elif what == "late":
                hi = mid
            else:
                lo = mid + 1
        assert found is not None, "no fault made the second file fail alone"
        # then the file's last calls, once its rows are indexed as they come
        good, bad = found, 3000
        while good + 1 < bad:
            mid = (good + bad) // 2
            if outcome(d, beside, mid) == "h1":
                good = mid
            else:
                bad = mid
        kept, files = run(d, beside, good)
        assert files == ["h00.mbox", "h02.mbox"], (good, files, kept.stderr)
        assert "h01.mbox" in kept.stderr and "injected" in kept.stderr, kept.stderr
        with sqlite3.connect(os.path.join(d, "x.db")) as c:
            c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
            assert c.execute("SELECT count(*) FROM messages_fts_docsize").fetchone()[0] == \
                c.execute("SELECT count(*) FROM messages").fetchone()[0] == 50
            assert c.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zeppelin'"
                             " AND rowid NOT IN (SELECT id FROM messages)").fetchone()[0] == 0


@tap.test
def an_index_of_a_few_dozen_segments_is_left_unmerged():
    # 29 MiB in 40 files: FTS5 merges the writer's index to 5 segments, the
    # side leaves the 8 it wrote (store-fts-side.c: _store_fts_side_unmerged())
    dirs = twins("unmerged", 7, 40, lambda k: (150, 600))
    for r in ingest_both(dirs, *sorted(os.listdir(dirs[0]))):
        assert r.returncode == 0, r.stderr
    beside, writer, lanes = (segments(os.path.join(d, "x.db")) for d in dirs)
    assert beside > writer >= 2, (beside, writer)
    assert beside <= lanes <= 64, (beside, lanes)   # each thread's own, within the same budget
    same_index(dirs)
    # a shard is merged: a merge of many takes their segments as they are
    shard = os.path.join(dirs[0], "shard.db")
    r = deja("ingest", "--shard", "1", "--db", shard, *sorted(os.path.join(dirs[0], f)
                                                              for f in os.listdir(dirs[0]) if f.endswith(".mbox")))
    assert r.returncode == 0, r.stderr
    assert segments(shard) < beside, (segments(shard), beside)


@tap.test
def a_batch_past_its_limit_is_merged_from_there_on():
    # 45 segments, then the 29 MiB above: the look-ahead allows it (45 + 4 + 1
    # of 64), the limit of 48 in all does not, so the side merges past 3
    dirs = twins("limit", 7, 85, lambda k: 3 if k < 45 else (150, 600))
    for k in range(45):
        for r in ingest_both(dirs, "l%02d.mbox" % k):
            assert r.returncode == 0, r.stderr
    assert segments(os.path.join(dirs[0], "x.db")) == 45
    for r in ingest_both(dirs, *["l%02d.mbox" % k for k in range(45, 85)]):
        assert r.returncode == 0, r.stderr
    beside = segments(os.path.join(dirs[0], "x.db"))
    assert 45 < beside < 45 + 8, beside     # 8: these files unmerged (above)
    same_index(dirs)


@tap.test
def many_commits_are_merged_by_fts5():
    # a segment each: past STORE_FTS_SEGMENTS_MAX (64), FTS5 merges them
    dirs = twins("commits", 5, 70, lambda k: 3)
    for k in range(70):   # a deja each: a commit each
        for r in ingest_both(dirs, "c%02d.mbox" % k):
            assert r.returncode == 0, r.stderr
    beside = segments(os.path.join(dirs[0], "x.db"))
    assert 1 <= beside <= 64, beside
    same_index(dirs)
    # deja search reads it as it reads any
    r = deja("search", "--db", os.path.join(dirs[0], "x.db"), "--format", "tsv", "zeppelin")
    assert r.returncode == 0 and r.stdout.count("\n") > 1, r.stderr


def one_mbox(name, seed):
    """A scratch directory with NAME.mbox of 30 messages, where the side is used."""
    if len(os.sched_getaffinity(0)) < 2:
        tap.skip("one core here: the index is always made by the writer")
    d = os.path.join(TMP, name)
    os.makedirs(d)
    write_mbox(os.path.join(d, name[0] + ".mbox"), random.Random(seed), 0, 30)
    return d


@tap.test
def one_core_or_the_switch_keeps_the_index_in_the_writer():
    d = one_mbox("one", 6)
    for args, env in ((["-j", "1"], "1"), ([], "0")):
        r = subprocess.run([DEJA, "ingest", "-v", "--db", os.path.join(d, "x%s.db" % env)] + args +
                           [os.path.join(d, "o.mbox")], capture_output=True, text=True,
                           env=dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_FTS_BESIDE=env))
        assert r.returncode == 0, r.stderr
        assert "full-text index made beside" not in r.stderr, r.stderr
    r = deja("ingest", "-v", "--db", os.path.join(d, "y.db"), os.path.join(d, "o.mbox"))
    assert r.returncode == 0 and "full-text index made beside the writer" in r.stderr, r.stderr


@tap.test
def the_temporary_database_goes_and_one_left_by_a_killed_deja_too():
    d = one_mbox("tmpdir", 7)
    gone = subprocess.Popen(["true"])
    gone.wait()   # a pid that runs no more
    left = os.path.join(d, "deja-fts-%d-Ab12Cd.db" % gone.pid)
    alive = os.path.join(d, "deja-fts-%d-Ef34Gh.db" % os.getpid())
    for path in (left, alive):
        open(path, "w").close()
    env = dict(os.environ, DEJA_NO_PROGRESS="1", TMPDIR=d)
    r = subprocess.run([DEJA, "ingest", "--db", os.path.join(d, "x.db"), os.path.join(d, "t.mbox")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert sorted(n for n in os.listdir(d) if n.startswith("deja-fts-")) == [os.path.basename(alive)]


if __name__ == "__main__":
    tap.main(TMP)
