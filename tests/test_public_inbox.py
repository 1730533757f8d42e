#!/usr/bin/env python3
"""public-inbox repositories (docs/inputs.md, "public-inbox").

Inboxes are built here with git fast-import, commit by commit as
public-inbox writes them (public-inbox-v2-format(5)): v2 epochs whose
every tree is one file, `m` (a message) or `d` (a message removed, its
blob again); v1 repositories whose tree holds every message at a fan-out
path, a removal deleting the path.  When public-inbox itself is installed
(CI installs it), real inboxes made by public-inbox-init, -mda and -learn
are read too.

Run by meson (suite 'slow': it builds git repositories).
"""
import os
import shutil
import sqlite3
import subprocess

import tap
from cli_helpers import SAMPLE, TMP, WITHOUT, deja, fresh_db, ok, tmp

# A body that quotes a mail with its envelope, and a line a liberal parser
# splits on: one commit is one message, whatever it holds.
BODY = ("As I was sent it:\n\nFrom 9150618 Thu Apr 29 16:36:43 1993\nFrom: bob@example.org\n"
        "Subject: quoted\nDate: Thu, 29 Apr 93 16:30:00 EDT\n\nThe note.\n\nFrom here on, mine.\n")


def message(n, reply_to=None, body=BODY):
    refs = "In-Reply-To: <pi%d@example.org>\n" % reply_to if reply_to is not None else ""
    return ("From: Person %d <p%d@example.org>\nTo: list@example.org\nSubject: message %d\n"
            "Message-ID: <pi%d@example.org>\n%sDate: Mon, 1 Jan 2001 10:%02d:00 +0000\n"
            "List-Id: <list.example.org>\n\n%s" % (n % 7, n % 7, n, n, refs, n % 60, body)).encode()


class Repo:
    """A bare repository that fast-import extends commit by commit."""

    def __init__(self, path, version):
        self.path, self.version, self.n, self.paths = path, version, 0, {}
        subprocess.run(["git", "init", "-q", "--bare", path], check=True)

    def _run(self, commits):
        """Commits, each a list of (op, name, blob): op M writes the blob
        at name, D deletes name."""
        stream = bytearray()
        for i, ops in enumerate(commits):
            for j, (op, name, blob) in enumerate(ops):
                if blob is not None:
                    stream += b"blob\nmark :%d\ndata %d\n%s\n" % (j + 1, len(blob), blob)
            self.n += 1
            stream += (b"commit refs/heads/master\ncommitter pi <pi@example.org> %d +0000\n"
                       b"data 2\nc\n" % (978336000 + self.n))
            if i == 0 and self.n > 1:
                stream += b"from refs/heads/master^0\n"
            if self.version == 2:
                stream += b"deleteall\n"
            for j, (op, name, blob) in enumerate(ops):
                stream += (b"M 100644 :%d %s\n" % (j + 1, name.encode())) if op == "M" else \
                    (b"D %s\n" % name.encode())
        subprocess.run(["git", "fast-import", "--quiet"], input=bytes(stream), cwd=self.path,
                       check=True)

    def _add_op(self, blob):
        if self.version == 2:
            return [("M", "m", blob)]
        self.added = getattr(self, "added", 0) + 1
        path = "%02x/%038x" % (self.added % 256, self.added)
        self.paths[blob] = path
        return [("M", path, blob)]

    def add(self, blob):
        self._run([self._add_op(blob)])

    def remove(self, blob):
        self._run([[("M", "d", blob)] if self.version == 2 else [("D", self.paths.pop(blob), None)]])

    def add_many(self, blobs):
        """Many commits in one fast-import run."""
        self._run([self._add_op(blob) for blob in blobs])


def rows(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def ids(db):
    return [m for (m,) in rows(db, "SELECT message_id FROM messages ORDER BY id")]


def need_git():
    if shutil.which("git") is None:
        tap.skip("git is not installed (it builds the repositories)")


def v2_inbox(name):
    """An inbox of two epochs, with the files public-inbox keeps beside
    them, and removals in both epochs (one of an epoch-0 message)."""
    inbox = tmp(name)
    shutil.rmtree(inbox, ignore_errors=True)
    os.makedirs(os.path.join(inbox, "xap15", "0"))
    with open(os.path.join(inbox, "msgmap.sqlite3"), "wb") as f:
        f.write(b"SQLite format 3\0not really")
    with open(os.path.join(inbox, "description"), "w") as f:
        f.write("a test inbox\n")
    subprocess.run(["git", "init", "-q", "--bare", os.path.join(inbox, "all.git")], check=True)
    e0 = Repo(os.path.join(inbox, "git", "0.git"), 2)
    e1 = Repo(os.path.join(inbox, "git", "1.git"), 2)
    for n in range(1, 6):
        e0.add(message(n, reply_to=n - 1 if n > 1 else None))
    e0.add(message(6, body="no newline at the end"))
    e0.remove(message(3, reply_to=2))
    for n in range(7, 10):
        e1.add(message(n, reply_to=1))
    e1.remove(message(5, reply_to=4))   # an epoch-0 message, removed later
    e1.remove(message(8, reply_to=1))
    return inbox, e0, e1


@tap.test
def a_v2_inbox_is_one_message_per_commit():
    need_git()
    inbox, e0, e1 = v2_inbox("inbox-v2")
    db = fresh_db("pi-v2.db")
    r = ok("ingest", "--db", db, inbox)
    assert "skipping" not in r.stderr and "not an mbox" not in r.stderr, r.stderr
    # commit order, epoch after epoch; removed messages left out
    assert ids(db) == ["pi1@example.org", "pi2@example.org", "pi4@example.org", "pi6@example.org",
                       "pi7@example.org", "pi9@example.org"], ids(db)
    assert rows(db, "SELECT path, compression, messages FROM files ORDER BY id") == \
        [(os.path.join(inbox, "git", "0.git"), "git", 4), (os.path.join(inbox, "git", "1.git"), "git", 2)]
    # never split at the quoted envelope, and the body is whole
    body = rows(db, "SELECT body FROM messages WHERE message_id = 'pi1@example.org'")[0][0]
    assert "From 9150618" in body and "mine." in body, body
    assert rows(db, "SELECT body FROM messages WHERE message_id = 'pi6@example.org'")[0][0] \
        .rstrip("\n") == "no newline at the end"
    assert rows(db, "SELECT count(*) FROM separator_log") == [(0,)]
    # the list is the group
    assert rows(db, "SELECT DISTINCT g.name FROM newsgroups g JOIN message_newsgroups mg"
                    " ON mg.newsgroup_id = g.id") == [("list.example.org",)]
    r = ok("scan", inbox)
    assert r.stdout.count("read as a public-inbox v2 repository") == 2, r.stdout
    assert "7 commits, 4 messages, 2 removed" in r.stdout, r.stdout   # epoch 0: 3 and 5
    assert "5 commits, 2 messages, 1 removed" in r.stdout, r.stdout   # epoch 1: 8
    # one epoch named alone, as lore's mirrors are cloned
    db1 = fresh_db("pi-epoch.db")
    ok("ingest", "-q", "--db", db1, os.path.join(inbox, "git", "1.git"))
    assert ids(db1) == ["pi7@example.org", "pi9@example.org"], ids(db1)


@tap.test
def a_reingest_reads_only_the_commits_added_since():
    need_git()
    inbox, e0, e1 = v2_inbox("inbox-grow")
    db = fresh_db("pi-grow.db")
    ok("ingest", "-q", "--db", db, inbox)
    before = rows(db, "SELECT id, message_id FROM messages ORDER BY id")
    for n in (10, 11, 12):
        e1.add(message(n, reply_to=9))
    r = ok("ingest", "--db", db, inbox)
    assert "'%s' grew at its end" % os.path.join(inbox, "git", "1.git") in r.stderr, r.stderr
    assert "after them, 3 messages" in r.stderr, r.stderr
    after = rows(db, "SELECT id, message_id FROM messages ORDER BY id")
    assert after[:len(before)] == before and [m for _, m in after[len(before):]] == \
        ["pi10@example.org", "pi11@example.org", "pi12@example.org"], after
    # nothing new: nothing read
    r = ok("ingest", "--db", db, inbox)
    assert "unchanged" in r.stderr, r.stderr
    # a removal of an old message: that epoch's rows are replaced without it
    e1.remove(message(7, reply_to=1))
    ok("ingest", "-q", "--db", db, inbox)
    assert "pi7@example.org" not in ids(db) and len(ids(db)) == 8, ids(db)
    assert rows(db, "SELECT messages FROM files ORDER BY id") == [(4,), (4,)]


@tap.test
def a_v1_inbox_follows_added_and_deleted_paths():
    need_git()
    path = tmp("inbox-v1.git")
    shutil.rmtree(path, ignore_errors=True)
    repo = Repo(path, 1)
    for n in range(1, 5):
        repo.add(message(n))
    repo.remove(message(2))
    repo.add(message(5))
    db = fresh_db("pi-v1.db")
    ok("ingest", "-q", "--db", db, path)
    assert ids(db) == ["pi1@example.org", "pi3@example.org", "pi4@example.org", "pi5@example.org"], ids(db)
    assert "read as a public-inbox v1 repository: 6 commits, 4 messages, 1 removed" in \
        ok("scan", path).stdout


@tap.test
def every_commit_is_a_message():
    """As many messages as commits: 3,000 in one epoch."""
    need_git()
    path = tmp("inbox-many.git")
    shutil.rmtree(path, ignore_errors=True)
    Repo(path, 2).add_many(message(n) for n in range(3000))
    db = fresh_db("pi-many.db")
    ok("ingest", "-q", "--db", db, path)
    assert rows(db, "SELECT count(*), count(DISTINCT message_id) FROM messages") == [(3000, 3000)]


@tap.test
def an_inbox_in_a_folder_of_archives():
    """Walking a folder: an inbox is one source, its git files are not
    offered to the splitter one by one."""
    need_git()
    inbox, _, _ = v2_inbox(os.path.join("mixed", "inbox"))
    with open(tmp(os.path.join("mixed", "other.mbox")), "w") as f:
        f.write("From a@b Mon Jan  1 10:00:00 2001\nFrom: a@b\nSubject: x\nMessage-ID: <x@b>\n\nx\n")
    db = fresh_db("pi-mixed.db")
    r = ok("ingest", "--db", db, tmp("mixed"))
    assert "skipping" not in r.stderr, r.stderr
    assert len(ids(db)) == 7 and "x@b" in ids(db), ids(db)


@tap.test
def a_broken_repository_is_an_error_naming_it():
    need_git()
    bad = tmp("broken.git")
    shutil.rmtree(bad, ignore_errors=True)
    Repo(bad, 2).add(message(1))
    # the newest commit's objects lost
    for root, _, files in os.walk(os.path.join(bad, "objects")):
        for name in files:
            os.chmod(os.path.join(root, name), 0o600)
            with open(os.path.join(root, name), "wb") as f:
                f.write(b"garbage")
    db = fresh_db("pi-bad.db")
    ok("ingest", "-q", "--db", db, SAMPLE)
    before = rows(db, "SELECT count(*) FROM messages")
    r = deja("ingest", "--db", db, bad)
    assert r.returncode != 0 and "broken.git" in r.stderr, (r.returncode, r.stderr)
    assert rows(db, "SELECT count(*) FROM messages") == before


@tap.test
def real_inboxes_made_by_public_inbox():
    need_git()
    if shutil.which("public-inbox-init") is None:
        tap.skip("public-inbox is not installed (Debian: public-inbox)")
    home = tmp("pi-home")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    env = dict(os.environ, HOME=home, PI_CONFIG=os.path.join(home, "config"))
    subprocess.run(["git", "config", "-f", env["PI_CONFIG"], "publicinboxmda.spamcheck", "none"],
                   check=True)
    for version, name in (("-V2", "real-v2"), ("-V1", "real-v1")):
        inbox = tmp(name)
        shutil.rmtree(inbox, ignore_errors=True)
        subprocess.run(["public-inbox-init", version, name, inbox, "http://example.org/" + name,
                        name + "@example.org"], check=True, env=env, capture_output=True)
        menv = dict(env, ORIGINAL_RECIPIENT=name + "@example.org")
        mail = [message(n).replace(b"To: list@", b"To: %s@" % name.encode()) for n in range(5)]
        for n in range(1, 5):
            subprocess.run(["public-inbox-mda", "--no-precheck"], input=mail[n], check=True,
                           env=menv, capture_output=True)
        subprocess.run(["public-inbox-learn", "rm"], input=mail[2], check=True, env=menv,
                       capture_output=True)
        db = fresh_db(name + ".db")
        ok("ingest", "-q", "--db", db, inbox)
        assert ids(db) == ["pi1@example.org", "pi3@example.org", "pi4@example.org"], (name, ids(db))


if __name__ == "__main__":
    if "libgit2" in WITHOUT:
        # tests/test_features.py checks what such a deja says of a repository
        print("1..0 # SKIP built without libgit2")
    else:
        tap.main(TMP)
