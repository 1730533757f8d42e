"""What the end-to-end test scripts share: running deja, a scratch
directory, and the bad-input check (exit 1, the file named, the database
unchanged)."""
import os
import sqlite3
import subprocess
import tempfile

from dump import dump

DEJA = os.environ["DEJA"]
FIXTURES = os.environ["FIXTURES"]
SAMPLE = os.path.join(FIXTURES, "sample", "comp.lang.c.mbox")
TMP = tempfile.mkdtemp(prefix="deja-test-")
# The optional libraries this deja was built without (meson_options.txt).
WITHOUT = set(os.environ.get("DEJA_WITHOUT", "").split())


def needs(*features):
    """Skips the calling test in a build without one of @features."""
    import tap
    missing = [f for f in features if f in WITHOUT]
    if missing:
        tap.skip("built without " + ", ".join(missing))
os.chmod(TMP, 0o777)


def deja(*args, user=None):
    cmd = [DEJA] + list(args)
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + cmd
    env = dict(os.environ, DEJA_NO_PROGRESS="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def ok(*args):
    """deja ARGS, which must succeed; its CompletedProcess."""
    r = deja(*args)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r


def tmp(name):
    return os.path.join(TMP, name)


def fresh_db(name):
    path = tmp(name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    return path


def expect_file(actual, path):
    if os.environ.get("DEJA_UPDATE_EXPECT"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(actual)
    with open(path, encoding="utf-8") as f:
        expected = f.read()
    assert actual == expected, "differs from %s:\n%s" % (path, actual)


def table_count(db, table):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM %s" % table).fetchone()[0]


def check_bad_input(path, reason_fragment, user=None):
    """Exit 1, one clear error naming the file, database unchanged."""
    db = fresh_db("bad.db")
    assert deja("ingest", "--db", db, SAMPLE).returncode == 0
    if user is not None:
        os.chmod(db, 0o666)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.chmod(db + suffix, 0o666)
    before = dump(db)
    r = deja("ingest", "--db", db, path, user=user)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "deja: cannot ingest '%s': " % path in r.stderr, r.stderr
    assert reason_fragment in r.stderr, r.stderr
    assert dump(db) == before
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
