#!/usr/bin/env python3
"""deja export-pg loads into a real PostgreSQL server (issue 18;
docs/scale.md): the test starts one of its own (initdb in a scratch
directory, a Unix socket, no TCP) from Debian's postgresql-15 and loads the
script with psql, then checks the partitions by newsgroup hierarchy and
year, the rows against the SQLite database, the per-language full-text
column, X-No-Archive, filters and reloading.  Skipped, with the reason,
where no server is installed.  Suite 'slow'.
"""
import glob
import os
import shutil
import sys
import sqlite3
import subprocess

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, tmp

ARCHIVES = [os.path.join(FIXTURES, *p) for p in [
    ("threads", "comp.lang.c.mbox"), ("threads", "comp.std.c.mbox"), ("people", "people.mbox"),
    ("analysis", "lists.mbox"), ("compressed", "usenet.mbox.zip"), ("sample", "comp.lang.c.mbox")]]
BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
PG = os.path.dirname(BINS[-1]) if BINS else None
SOCKET = tmp("pg-socket")
DATA = tmp("pg-data")
PORT = "54329"
USER = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
DB = fresh_db("pg.db")


def run(cmd, check=True, **kw):
    r = subprocess.run(USER + cmd, capture_output=True, text=True, **kw)
    if check:
        assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
    return r


def psql(sql=None, path=None, check=True):
    cmd = [os.path.join(PG, "psql"), "-X", "-q", "-A", "-t", "-F", "\t", "-h", SOCKET, "-p", PORT,
           "-U", "deja", "-d", "postgres", "-v", "ON_ERROR_STOP=1"]
    cmd += ["-f", path] if path else ["-c", sql]
    return run(cmd, check=check)


def rows(sql):
    out = psql(sql).stdout
    return [tuple(line.split("\t")) for line in out.splitlines() if line]


def lite(sql):
    with sqlite3.connect(DB) as c:
        return c.execute(sql).fetchall()


def export(name, *args):
    path = tmp(name)
    r = deja("export-pg", "--db", DB, "--out", path, *args)
    assert r.returncode == 0, r.stderr
    os.chmod(path, 0o644)
    return path


def setup():
    os.makedirs(SOCKET, exist_ok=True)
    os.chmod(SOCKET, 0o777)
    r = deja("ingest", "-q", "--db", DB, *ARCHIVES)
    assert r.returncode == 0, r.stderr
    run([os.path.join(PG, "initdb"), "-D", DATA, "-U", "deja", "--auth=trust", "-E", "UTF8",
         "--locale=C.UTF-8"])
    run([os.path.join(PG, "pg_ctl"), "-D", DATA, "-w", "-l", os.path.join(DATA, "log"), "-o",
         "-k %s -p %s -c listen_addresses=''" % (SOCKET, PORT), "start"])
    psql(path=export("corpus.sql"))


def stop():
    if PG and os.path.isdir(DATA):
        run([os.path.join(PG, "pg_ctl"), "-D", DATA, "-m", "fast", "stop"], check=False)


@tap.test
def every_archived_message_is_loaded_and_no_archive_posts_are_not():
    want = lite("SELECT count(*) FROM messages WHERE instr(coalesce(flags, ''), 'no-archive') = 0")[0][0]
    left_out = lite("SELECT count(*) FROM messages WHERE instr(coalesce(flags, ''), 'no-archive') > 0")[0][0]
    assert left_out >= 1
    assert rows("SELECT count(*) FROM deja.messages") == [(str(want),)]
    for table in ("files", "newsgroups", "authors", "author_addresses"):
        assert rows("SELECT count(*) FROM deja.%s" % table) == [(str(lite("SELECT count(*) FROM %s" % table)[0][0]),)]
    # the tables that point at messages join them (message_id is a row id there, bigint)
    for table in ("message_newsgroups", "refs"):
        assert rows("SELECT data_type FROM information_schema.columns WHERE table_schema = 'deja'"
                    " AND table_name = '%s' AND column_name = 'message_id'" % table) == [("bigint",)]
        assert rows("SELECT count(*) > 0 FROM deja.%s x JOIN deja.messages m ON m.id = x.message_id" % table) == [("t",)]
    # A message's columns as SQLite has them.
    got = rows("SELECT id, message_id, subject, from_addr, date, thread_id, author_id, lang, words FROM deja.messages"
               " ORDER BY id LIMIT 5")
    want = lite("SELECT id, message_id, subject, from_addr, date, thread_id, author_id, lang, words FROM messages"
                " WHERE instr(coalesce(flags, ''), 'no-archive') = 0 ORDER BY id LIMIT 5")
    assert got == [tuple("" if v is None else str(v) for v in r) for r in want], (got, want)
    # Text with tabs, newlines and backslashes arrives as it was.
    got = rows("SELECT md5(body), md5(coalesce(own_text, '')) FROM deja.messages ORDER BY id")
    import hashlib
    want = [(hashlib.md5(b.encode()).hexdigest(), hashlib.md5((o or "").encode()).hexdigest())
            for b, o in lite("SELECT body, own_text FROM messages WHERE instr(coalesce(flags, ''),"
                             " 'no-archive') = 0 ORDER BY id")]
    assert got == want


@tap.test
def messages_are_partitioned_by_hierarchy_then_year():
    parts = {r[0] for r in rows("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                                " JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'messages'")}
    assert {"messages_comp", "messages_none", "messages_other"} <= parts, parts
    assert rows("SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'deja.messages_comp'::regclass") == [("r",)]
    got = dict(((t,), int(n)) for t, n in rows("SELECT tableoid::regclass::text, count(*) FROM deja.messages GROUP BY 1"))
    # The same split computed from SQLite.
    want = {}
    for groups, date, flags in lite("SELECT (SELECT group_concat(g.name) FROM message_newsgroups mg JOIN newsgroups g"
                                    " ON g.id = mg.newsgroup_id WHERE mg.message_id = m.id AND mg.merged = 0),"
                                    " m.date, m.flags FROM messages m"):
        if flags and "no-archive" in flags:
            continue
        hierarchy = min(groups.split(",")).split(".")[0] if groups else "none"
        year = date[:4] if date else "undated"
        key = ("messages_%s_%s" % (hierarchy, year),)
        want[key] = want.get(key, 0) + 1
    assert got == want, (got, want)
    # A query on one year reads one partition.
    plan = "\n".join(r[0] for r in rows("EXPLAIN SELECT count(*) FROM deja.messages WHERE hierarchy = 'comp'"
                                        " AND year = 1997"))
    assert "messages_comp_1997" in plan and "messages_none" not in plan, plan


@tap.test
def full_text_is_stemmed_in_each_messages_language():
    n_de = lite("SELECT count(*) FROM messages WHERE lang = 'de'")[0][0]
    assert n_de >= 2
    assert rows("SELECT count(*) FROM deja.messages WHERE lang = 'de' AND tsv = to_tsvector('german',"
                " coalesce(subject, '') || ' ' || coalesce(own_text, ''))") == [(str(n_de),)]
    assert rows("SELECT count(*) FROM deja.messages WHERE lang = 'und' AND tsv = to_tsvector('simple',"
                " coalesce(subject, '') || ' ' || coalesce(own_text, ''))") == \
        [(str(lite("SELECT count(*) FROM messages WHERE lang = 'und' AND instr(coalesce(flags, ''),"
                   " 'no-archive') = 0")[0][0]),)]
    # English stems: "threading" finds the messages FTS5 finds for it.
    hits = int(rows("SELECT count(*) FROM deja.messages WHERE tsv @@ plainto_tsquery('english', 'threading')")[0][0])
    fts = deja("search", "--db", DB, "--count", "--format", "tsv", "threading").stdout.splitlines()[1].split("\t")[0]
    assert hits >= 1 and abs(hits - int(fts)) <= 2, (hits, fts)
    assert rows("SELECT count(*) FROM pg_indexes WHERE schemaname = 'deja' AND indexdef LIKE '%gin (tsv)%'") != [("0",)]


@tap.test
def a_second_load_needs_replace_and_a_failed_one_changes_nothing():
    before = rows("SELECT count(*) FROM deja.messages")
    r = psql(path=export("again.sql"), check=False)
    assert r.returncode != 0 and "already exists" in r.stderr, r.stderr
    assert rows("SELECT count(*) FROM deja.messages") == before
    psql(path=export("replace.sql", "--replace"))
    assert rows("SELECT count(*) FROM deja.messages") == before


@tap.test
def filters_select_what_is_loaded_into_another_schema():
    psql(path=export("comp.sql", "--schema", "comp_only", "--group", "comp.std.*"))
    got = rows("SELECT DISTINCT hierarchy FROM comp_only.messages")
    assert got == [("comp",)], got
    n = lite("SELECT count(DISTINCT mg.message_id) FROM message_newsgroups mg JOIN newsgroups g"
             " ON g.id = mg.newsgroup_id WHERE g.name GLOB 'comp.std.*'")[0][0]
    assert rows("SELECT count(*) FROM comp_only.messages") == [(str(n),)]
    assert deja("export-pg", "--db", DB, "--schema", "Bad-Name").returncode == 2


# Eight archives of distinct content, one numbered shard each
SHARDED = [os.path.join(FIXTURES, *p) for p in [
    ("threads", "comp.lang.c.mbox"), ("threads", "comp.std.c.mbox"), ("people", "people.mbox"),
    ("analysis", "lists.mbox"), ("replies", "best-copy.mbox"), ("society", "usenet.mbox"),
    ("search", "plain-words.mbox"), ("from", "y_google_export.mbox")]]
TABLES = ("files", "newsgroups", "authors", "author_addresses", "messages", "message_newsgroups", "refs")


def merged_of_eight_shards():
    dbs = []
    for i, archive in enumerate(SHARDED):
        db = fresh_db("pg-shard-%d.db" % (i + 1))
        r = deja("ingest", "-q", "--shard", str(i + 1), "--db", db, archive)
        assert r.returncode == 0, r.stderr
        dbs.append(db)
    merged = fresh_db("pg-merged.db")
    r = deja("merge", "-q", "--db", merged, *dbs)
    assert r.returncode == 0, r.stderr
    return merged


def export_parts(db, name, *args):
    out = tmp(name)
    shutil.rmtree(out, ignore_errors=True)
    r = deja("export-pg", "--db", db, "--out", out, *args)
    assert r.returncode == 0, r.stderr
    os.chmod(out, 0o755)
    for f in os.listdir(out):
        os.chmod(os.path.join(out, f), 0o644)
    return out


def load_parts(out, sessions, check=True):
    env = dict(os.environ, PSQL=os.path.join(PG, "psql"))
    return run(["sh", os.path.join(out, "load.sh"), "-j", str(sessions), "-h", SOCKET, "-p", PORT,
                "-U", "deja", "-d", "postgres"], check=check, env=env)


def same_rows(a, b):
    for table in TABLES:
        n = rows("SELECT count(*) FROM %s.%s" % (a, table))
        assert n == rows("SELECT count(*) FROM %s.%s" % (b, table)) and n != [("0",)], (table, n)
        for x, y in ((a, b), (b, a)):
            left = rows("SELECT count(*) FROM (SELECT * FROM %s.%s EXCEPT ALL SELECT * FROM %s.%s) d"
                        % (x, table, y, table))
            assert left == [("0",)], (table, x, y, left)


@tap.test
def eight_shards_loaded_in_four_sessions_equal_one_load():
    """export-pg --parts shards: each shard's messages (text, tsvector,
    indexes) loaded by a session of its own, four at once; the same rows as
    the one-transaction load, partitioned per shard, then by hierarchy and year."""
    merged = merged_of_eight_shards()
    r = deja("export-pg", "--db", merged, "--schema", "one_load", "--out", tmp("one-load.sql"))
    assert r.returncode == 0, r.stderr
    os.chmod(tmp("one-load.sql"), 0o644)
    psql(path=tmp("one-load.sql"))
    out = export_parts(merged, "pg-parts", "--parts", "shards", "--schema", "in_parts")
    assert sorted(f for f in os.listdir(out) if f.startswith("part-")) == \
        ["part-%03d.sql" % (i + 1) for i in range(8)], os.listdir(out)
    load_parts(out, 4)
    same_rows("one_load", "in_parts")
    tops = rows("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                " JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace"
                " WHERE p.relname = 'messages' AND n.nspname = 'in_parts' ORDER BY 1")
    assert tops == [("messages_p%d" % (i + 1),) for i in range(8)], tops
    # each part holds one shard's messages
    for i in range(8):
        lo, hi = rows("SELECT min(id) >> 32, max(id) >> 32 FROM in_parts.messages_p%d" % (i + 1))[0]
        assert lo == hi == str(i + 1), (i, lo, hi)
    # the indexes of one load, the GIN index on tsv among them
    idx = lambda schema: sorted(r[0] for r in rows(
        "SELECT regexp_replace(indexdef, '^.* USING ', '') || ' ' || tablename FROM pg_indexes"
        " WHERE schemaname = '%s' AND tablename IN %s" % (schema, str(TABLES))))
    assert idx("one_load") == idx("in_parts"), (idx("one_load"), idx("in_parts"))
    assert rows("SELECT count(*) FROM pg_namespace WHERE nspname = 'in_parts__load'") == [("0",)]


@tap.test
def equal_parts_of_one_database_load_as_one():
    out = export_parts(DB, "pg-equal-parts", "--parts", "3", "--schema", "three")
    load_parts(out, 2)
    same_rows("deja", "three")
    assert deja("export-pg", "--db", DB, "--parts", "0", "--out", tmp("p0")).returncode == 2
    assert deja("export-pg", "--db", DB, "--parts", "3").returncode == 2
    assert deja("export-pg", "--db", DB, "--parts", "3", "--out", out).returncode == 2


@tap.test
def a_part_missing_changes_nothing():
    """finish.sql counts the messages: without every part the schema is not replaced."""
    before = rows("SELECT count(*) FROM deja.messages")
    out = export_parts(DB, "pg-missing-part", "--parts", "3", "--replace")
    os.unlink(os.path.join(out, "part-002.sql"))
    r = load_parts(out, 2, check=False)
    assert r.returncode != 0 and "a part is missing" in r.stderr, r.stderr
    assert rows("SELECT count(*) FROM deja.messages") == before
    # Without --replace, an existing schema stops the load before anything is written
    out = export_parts(DB, "pg-exists", "--parts", "2")
    r = load_parts(out, 2, check=False)
    assert r.returncode != 0 and "already exists" in r.stderr, r.stderr
    assert rows("SELECT count(*) FROM deja.messages") == before


PG_CONN = "host=%s port=%s user=deja dbname=postgres" % (SOCKET, PORT)


def tsv_rows(out):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(out), delimiter="\t"))


def archived_offsets(sql_where):
    """(file, byte_offset) of canonical messages export-pg loaded (no X-No-Archive) matching sql_where."""
    return {(f, str(o)) for f, o in lite(
        "SELECT f.path, m.byte_offset FROM messages m JOIN files f ON f.id = m.file_id"
        " WHERE m.duplicate_of IS NULL AND instr(coalesce(m.flags, ''), 'no-archive') = 0 AND " + sql_where)}


def search_pg(*args, schema="deja"):
    r = deja("search", "--pg", PG_CONN, "--pg-schema", schema, "--format", "tsv", "--limit", "0", *args)
    assert r.returncode == 0, r.stderr
    return tsv_rows(r.stdout)


@tap.test
def search_pg_finds_what_the_database_finds():
    """deja search --pg: the same filters give the same messages; words the
    same messages where PostgreSQL's parser and FTS5's agree on the word."""
    for query, where in [("from:frank", "(lower(m.from_addr) LIKE '%frank%' OR lower(m.from_name) LIKE '%frank%')"),
                         ("group:comp.std.*", "EXISTS (SELECT 1 FROM message_newsgroups mg JOIN newsgroups g"
                          " ON g.id = mg.newsgroup_id WHERE mg.message_id = m.id AND g.name GLOB 'comp.std.*')"),
                         ("since:1997-06 until:1997-12", "m.date >= '1997-06' AND substr(m.date, 1, 7) <= '1997-12'")]:
        got = {(r["file"], r["byte_offset"]) for r in search_pg(query)}
        want = archived_offsets(where)
        assert got == want and got, (query, got ^ want)
    # a word: what FTS5 finds, but for the posts export-pg leaves out
    fts = tsv_rows(deja("search", "--db", DB, "--format", "tsv", "--limit", "0", "threading").stdout)
    want = {(r["file"], r["byte_offset"]) for r in fts} & archived_offsets("1")
    rows = search_pg("threading")
    assert {(r["file"], r["byte_offset"]) for r in rows} == want and want, rows
    assert list(rows[0].keys()) == ["id", "date", "from_name", "from_addr", "subject", "snippet", "file",
                                    "byte_offset", "thread_id"], rows[0].keys()
    assert any("[" in r["snippet"] and "]" in r["snippet"] for r in rows), rows
    # phrases, OR, NOT, prefixes keep their meaning
    both = {r["id"] for r in search_pg("threading OR zzzznotaword")}
    assert both == {r["id"] for r in rows}, both
    assert not search_pg("threading NOT threading")
    assert {r["id"] for r in search_pg("thread*")} >= {r["id"] for r in rows}
    count = deja("search", "--pg", PG_CONN, "--count", "--format", "tsv", "threading")
    assert count.returncode == 0 and tsv_rows(count.stdout)[0]["messages"] == str(len(rows)), count.stdout
    # --limit, best first
    many = search_pg("group:comp.*")
    assert len(many) > 3 and len(search_pg("--limit", "3", "group:comp.*")) == 3, len(many)


@tap.test
def stats_pg_counts_what_the_database_counts():
    """deja stats --pg on a load with every post: the same rows as deja
    stats, but for the separator log, which export-pg does not load."""
    psql(path=export("everything.sql", "--schema", "everything", "--include-no-archive"))
    for by in ([], ["--by-month"]):
        r = deja("stats", "--pg", PG_CONN, "--pg-schema", "everything", "--format", "tsv", *by)
        assert r.returncode == 0, r.stderr
        got = [l for l in r.stdout.splitlines()]
        want = [l for l in deja("stats", "--db", DB, "--format", "tsv", *by).stdout.splitlines()
                if not l.startswith("separator_log\t")]
        assert got == want, [x for x in got if x not in want] + ["--"] + [x for x in want if x not in got]
    table = deja("stats", "--pg", PG_CONN, "--pg-schema", "everything").stdout
    assert "not in PostgreSQL" in table, table


@tap.test
def pg_errors_are_named():
    r = deja("search", "--pg", PG_CONN, "--pg-schema", "nowhere", "word")
    assert r.returncode == 1 and "no corpus in schema 'nowhere'" in r.stderr, r.stderr
    r = deja("stats", "--pg", "host=%s port=1 user=deja" % SOCKET)
    assert r.returncode == 1 and "cannot connect" in r.stderr, r.stderr
    for args in (["search", "--pg", PG_CONN, "--db", DB, "word"], ["search", "--pg", PG_CONN, "--threads", "w"],
                 ["search", "--pg", PG_CONN, "--distinct-text", "w"], ["stats", "--pg", PG_CONN, "--db", DB],
                 ["stats", "--pg", PG_CONN, "--statement", tmp("s.md")]):
        assert deja(*args).returncode == 2, args
    # a schema name is a value, not SQL
    r = deja("search", "--pg", PG_CONN, "--pg-schema", "deja; DROP SCHEMA deja CASCADE", "word")
    assert r.returncode == 1 and rows("SELECT count(*) FROM pg_namespace WHERE nspname = 'deja'") == [("1",)]


if __name__ == "__main__":
    # meson's postgresql_tests: disabled skips, enabled makes a missing
    # server a failure, auto (default) skips when none is installed.
    MODE = os.environ.get("DEJA_POSTGRESQL_TESTS", "auto")
    if MODE == "disabled":
        print("1..0 # SKIP the PostgreSQL tests are turned off (meson -Dpostgresql_tests=disabled)")
    elif PG is None and MODE == "enabled":
        print("1..1\nnot ok 1 - postgresql_is_installed # -Dpostgresql_tests=enabled, no pg_ctl found")
        sys.exit(1)
    elif PG is None:
        print("1..0 # SKIP PostgreSQL is not installed (apt install postgresql-15)")
    else:
        # The server stops before the scratch directory holding it goes.
        try:
            setup()
            tap.run()
        finally:
            stop()
            shutil.rmtree(TMP, ignore_errors=True)
