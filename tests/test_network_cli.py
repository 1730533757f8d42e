#!/usr/bin/env python3
"""End-to-end tests of threading (`deja thread`) and networks (`deja network`).

Ingests fixtures/threads/ (two group exports sharing a cross-posted article;
see fixtures/threads/README.md) and checks the threads, the report, and
every network format read back: GraphML with xml.etree and igraph, GML and
Pajek with igraph (tests/graph-read.c), CSV with the csv module, GEXF with
xml.etree, and the statistics as JSON.  Run by meson (suite 'cli').
"""
import csv
import json
import os
import random
import sqlite3
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import tap

DEJA = os.environ["DEJA"]
GRAPH_READ = os.environ["GRAPH_READ"]
FIXTURES = os.environ["FIXTURES"]
THREADS = os.path.join(FIXTURES, "threads")
TMP = tempfile.mkdtemp(prefix="deja-net-test-")
DB = os.path.join(TMP, "threads.db")
GML = "{http://graphml.graphdrawing.org/xmlns}"
GEXF = "{http://www.gexf.net/1.2draft}"

REPLIES = {  # replier -> replied-to, as threading must find them
    ("bob@example.com", "ann@example.com"), ("ann@example.com", "bob@example.com"),
    ("carol@example.com", "ann@example.com"), ("frank@example.com", "gina@example.com"),
    ("hank@example.com", "bob@example.com"), ("ivy@example.com", "bob@example.com"),
    ("jack@example.com", "bob@example.com"),
}


def deja(*args):
    env = dict(os.environ, DEJA_NO_PROGRESS="1")
    return subprocess.run([DEJA] + list(args), capture_output=True, text=True, env=env)


def query(sql, *params):
    with sqlite3.connect(DB) as c:
        return c.execute(sql, params).fetchall()


def network(*args):
    r = deja("network", "--db", DB, *args)
    assert r.returncode == 0, r.stderr
    return r


def by_id():
    """Node id ("a12", "g3") -> the author's primary address or the group's name."""
    ids = {"a%d" % i: a for i, a in query("SELECT id, address FROM authors")}
    ids.update({"g%d" % i: n for i, n in query("SELECT id, name FROM newsgroups")})
    return ids


def read_back(fmt, path):
    out = subprocess.run([GRAPH_READ, fmt, path], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    edges = {tuple(l.split()[1:3]): float(l.split()[3]) for l in lines[2:]}
    return int(lines[0].split()[1]), int(lines[1].split()[1]), edges


def setup():
    r = deja("ingest", "--db", DB, THREADS)
    assert r.returncode == 0, r.stderr
    assert "threaded '%s': 4 threads" % DB in r.stderr, r.stderr


@tap.test
def threads_match_the_fixture():
    rows = query("SELECT m.message_id, t.message_id, p.message_id, d.id IS NOT NULL,"
                 " m.missing_parent, m.thread_flags FROM messages m"
                 " LEFT JOIN messages t ON t.id = m.thread_id"
                 " LEFT JOIN messages p ON p.id = m.parent_id"
                 " LEFT JOIN messages d ON d.id = m.duplicate_of ORDER BY m.id")
    assert rows == [
        ("chain-1@example.com", "chain-1@example.com", None, 0, None, None),
        ("chain-2@example.com", "chain-1@example.com", "chain-1@example.com", 0, None, None),
        ("chain-3@example.com", "chain-1@example.com", "chain-2@example.com", 0, None, None),
        ("fork-1@example.com", "chain-1@example.com", "chain-1@example.com", 0, None, None),
        ("orphan-1@example.com", "orphan-1@example.com", None, 0, "lost-root@example.com", "orphan"),
        ("orphan-2@example.com", "orphan-1@example.com", None, 0, "lost-root@example.com", "orphan"),
        ("cycle-a@example.com", "cycle-b@example.com", "cycle-b@example.com", 0, None, "time-travel"),
        ("cycle-b@example.com", "cycle-b@example.com", None, 0, None, "cycle-broken"),
        ("xpost-1@example.com", "xpost-1@example.com", None, 0, None, None),
        (None, "xpost-1@example.com", "xpost-1@example.com", 0, None, None),
        ("xpost-1@example.com", "xpost-1@example.com", None, 1, None, "duplicate"),
        ("irt-1@example.com", "xpost-1@example.com", "xpost-1@example.com", 0, None, None),
        ("early-1@example.com", "xpost-1@example.com", "xpost-1@example.com", 0, None, "time-travel"),
        ("xpost-1@example.com", "xpost-1@example.com", None, 1, None,
         "duplicate,conflicting-duplicate"),
    ], rows


@tap.test
def duplicates_merge_newsgroups_and_placeholders_are_recorded():
    groups = query("SELECT g.name, mg.merged FROM message_newsgroups mg"
                   " JOIN newsgroups g ON g.id = mg.newsgroup_id WHERE mg.message_id = 9 ORDER BY 1")
    assert groups == [("comp.lang.c", 0), ("comp.std.c", 1)]
    assert query("SELECT message_id, thread_id, children FROM thread_placeholders") == \
        [("lost-root@example.com", 5, 2)]


@tap.test
def stored_content_hash_is_the_documented_fnv():
    # Rows from before schema 5 have no content_hash; threading computes
    # FNV-1a over (from_addr, subject, body) for them in SQL.  The value the
    # decoders store must be the same function.
    def fnv(fields):
        h = 14695981039346656037
        for f in fields:
            for b in (f or b""):
                h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
            h = ((h ^ 0xFF) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
        return h - (1 << 64) if h >= 1 << 63 else h
    c = sqlite3.connect(DB)
    c.text_factory = bytes
    rows = c.execute("SELECT from_addr, subject, body, content_hash FROM messages").fetchall()
    assert len(rows) == 14 and all(fnv(r[:3]) == r[3] for r in rows)


@tap.test
def thread_report_lists_every_case():
    r = deja("thread", "--db", DB, "--report")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("threading: 4 threads, 2 replies whose parent is not in the archive,"
                          " 1 reference cycles broken, 2 replies dated before their parent,"
                          " 2 duplicate copies (1 with different content)\n"), out
    assert "\torphan-1@example.com\tlost-root@example.com\t" in out
    assert "lost-root@example.com\t5\t2" in out
    assert "\tcycle-b@example.com\tRe: Loop one" in out
    assert "early-1@example.com\t1997-03-06T08:00:00\t9\t1997-03-06T09:00:00" in out
    assert "comp.std.c.mbox\t" in out and "\txpost-1@example.com\t9\t" in out


@tap.test
def rethreading_is_stable_and_subject_joining_is_opt_in():
    before = query("SELECT id, thread_id, parent_id, thread_flags FROM messages ORDER BY id")
    assert deja("thread", "--db", DB).returncode == 0
    assert query("SELECT id, thread_id, parent_id, thread_flags FROM messages ORDER BY id") == before
    assert deja("thread", "--db", DB, "--subject").returncode == 0
    # orphan-1's thread ("Re: malloc casts") stays apart; nothing shares a subject with it.
    joined = query("SELECT count(*) FROM messages WHERE thread_flags LIKE '%subject-joined%'")[0][0]
    assert joined == 0
    assert deja("thread", "--db", DB).returncode == 0
    assert query("SELECT id, thread_id, parent_id, thread_flags FROM messages ORDER BY id") == before


@tap.test
def threading_in_batches_gives_the_same_rows():
    # A large database is threaded in batches of whole components
    # (src/store-thread-batches.c); DEJA_THREAD_BATCH makes them tiny here.
    # Past DEJA_THREAD_PLAN_MEMORY messages the components are found on disk
    # (TEMP tables, labels propagated along the references): the same
    # batches, the same rows.
    db = os.path.join(TMP, "batches.db")
    r = deja("ingest", "--db", db, THREADS, os.path.join(FIXTURES, "sample"))
    assert r.returncode == 0, r.stderr
    sql = ("SELECT id, thread_id, parent_id, duplicate_of, missing_parent, thread_flags"
           " FROM messages ORDER BY id")
    extra = ("SELECT message_id, thread_id, children FROM thread_placeholders ORDER BY 1",
             "SELECT * FROM message_newsgroups ORDER BY 1, 2")

    def state(path=db):
        with sqlite3.connect(path) as c:
            return [c.execute(q).fetchall() for q in (sql,) + extra]

    reference = state()
    assert any(row[4] for row in reference[0]) and reference[1], "fixture lost its placeholders"
    summary = r.stderr.split("threaded ")[1].splitlines()[0]   # ingest sums up after it
    for size, plan in (("1", "0"), ("2", "0"), ("5", "0"), ("1", "1"), ("2", "1"), ("5", "1")):
        with sqlite3.connect(db) as c:     # nothing left from the last run
            c.execute("UPDATE messages SET thread_id = NULL, parent_id = NULL, duplicate_of = NULL,"
                      " missing_parent = NULL, thread_flags = NULL")
            c.execute("DELETE FROM thread_placeholders")
            c.execute("DELETE FROM message_newsgroups WHERE merged = 1")
        env = dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_THREAD_BATCH=size,
                   DEJA_THREAD_PLAN_MEMORY=plan)
        t = subprocess.run([DEJA, "thread", "--verbose", "--db", db], capture_output=True,
                           text=True, env=env)
        assert t.returncode == 0, t.stderr
        assert ("planned on disk" in t.stderr) == (plan == "1"), t.stderr
        assert t.stderr.split("threaded ")[1].splitlines()[0] == summary, (size, t.stderr)
        assert state() == reference, "batches of %s differ" % size
    # An ingest keeps the Message-IDs it has seen to guess threads, in two
    # generations of half a batch: with one message each, guesses miss and
    # threading sets the rows right.  A first ingest reads the first batch
    # of threading beside its index builds, on a connection of its own that
    # plans the batches too (pipeline/threads.c).  The writer takes that
    # plan where it was made in memory, and plans again where it was made
    # on disk (the memory that saves); it takes the batch where its plan
    # has the same messages.
    for plan in ("0", "1"):
        other = os.path.join(TMP, "batches-ingest-%s.db" % plan)
        env = dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_THREAD_BATCH="2",
                   DEJA_THREAD_PLAN_MEMORY=plan)
        t = subprocess.run([DEJA, "ingest", "--verbose", "--db", other, THREADS,
                            os.path.join(FIXTURES, "sample")], capture_output=True, text=True, env=env)
        assert t.returncode == 0, t.stderr
        assert "threads read beside the writer: the first batch" in t.stderr, t.stderr
        assert "threads read again" not in t.stderr, t.stderr
        assert ("threading planned beside the writer" in t.stderr) == (plan == "0"), t.stderr
        assert t.stderr.count("planned on disk") == 2 * (plan == "1"), t.stderr
        assert state(other) == reference, "first batch beside, plan on disk %s" % plan


@tap.test
def copies_are_stored_as_threading_flags_them():
    # The ingest stores each row where threading will put it (thread-guess.c),
    # so that threading rewrites few rows: a copy is flagged "duplicate", and
    # "conflicting-duplicate" too when its content differs from the first.
    mbox = os.path.join(TMP, "copies.mbox")
    msg = ("From a@example.com Mon Jan  5 10:00:00 2004\nFrom: A <a@example.com>\n"
           "Subject: {s}\nDate: Mon, 5 Jan 2004 10:00:0{n} +0000\nMessage-ID: <{mid}>\n{refs}\n{body}\n\n")
    with open(mbox, "w") as f:
        f.write(msg.format(s="root", n=0, mid="root@x", refs="", body="The first text."))
        f.write(msg.format(s="Re: root", n=1, mid="reply@x", refs="References: <root@x>\n",
                           body="An answer."))
        f.write(msg.format(s="root", n=0, mid="root@x", refs="", body="The first text."))
        f.write(msg.format(s="root", n=0, mid="root@x", refs="", body="Another text."))
    db = os.path.join(TMP, "copies.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    r = subprocess.run([DEJA, "ingest", "--verbose", "--db", db, mbox], capture_output=True,
                       text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert r.returncode == 0, r.stderr
    assert "threads: 0 of 4 rows changed" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT id, duplicate_of, thread_flags FROM messages ORDER BY id").fetchall()
    assert rows == [(1, None, None), (2, None, None), (3, 1, "duplicate"),
                    (4, 1, "duplicate,conflicting-duplicate")], rows


@tap.test
def graphml_has_the_contract_keys_and_edges():
    out = os.path.join(TMP, "reply.graphml")
    network("--format", "graphml", "--out", out)
    root = ET.parse(out).getroot()
    keys = {(k.get("for"), k.get("attr.name")): k.get("id") for k in root.iter(GML + "key")}
    for name in ("address", "name", "messages"):
        assert ("node", name) in keys, keys
    assert ("edge", "weight") in keys
    graph = root.find(GML + "graph")
    assert graph.get("edgedefault") == "directed"
    address = {}
    for node in graph.iter(GML + "node"):
        data = {d.get("key"): d.text for d in node.iter(GML + "data")}
        address[node.get("id")] = data[keys[("node", "address")]]
        if data[keys[("node", "address")]] == "bob@example.com":
            assert data[keys[("node", "name")]] == "Bob Baker"
            assert float(data[keys[("node", "messages")]]) == 2
    assert len(address) == 10
    edges = {(address[e.get("source")], address[e.get("target")]) for e in graph.iter(GML + "edge")}
    assert edges == REPLIES
    n, m, named = read_back("graphml", out)
    assert (n, m) == (10, 7) and set(named) == REPLIES


@tap.test
def gml_and_pajek_read_back_in_igraph():
    for fmt in ("gml", "pajek"):
        out = os.path.join(TMP, "reply." + fmt)
        network("--format", fmt, "--out", out)
        n, m, named = read_back(fmt, out)
        assert (n, m) == (10, 7), (fmt, n, m)
        if fmt == "pajek":   # labelled with node ids
            named = {(by_id()[a], by_id()[b]): w for (a, b), w in named.items()}
        assert set(named) == REPLIES and set(named.values()) == {1.0}, (fmt, named)


@tap.test
def csv_writes_edges_and_nodes():
    out = os.path.join(TMP, "reply.csv")
    network("--format", "csv", "--out", out)
    with open(out, newline="") as f:
        edges = list(csv.DictReader(f))
    with open(os.path.join(TMP, "reply-nodes.csv"), newline="") as f:
        nodes = list(csv.DictReader(f))
    ids = by_id()
    # Gephi's spreadsheet import and R's graph_from_data_frame() take these as they are
    assert list(edges[0])[:4] == ["Source", "Target", "Weight", "Type"]
    assert list(nodes[0])[:2] == ["Id", "Label"]
    assert {(ids[e["Source"]], ids[e["Target"]]) for e in edges} == REPLIES
    assert all(e["Weight"] == "1" and e["Type"] == "Directed" and e["first_date"] for e in edges)
    assert len(nodes) == 10 and "type" not in nodes[0]
    ann = [n for n in nodes if n["address"] == "ann@example.com"][0]
    assert ann["messages"] == "2" and ann["Id"] == "a" + ann["author_id"] and ann["Label"] == ann["name"]


@tap.test
def gexf_static_and_dynamic():
    out = os.path.join(TMP, "reply.gexf")
    network("--format", "gexf", "--out", out)
    g = ET.parse(out).getroot().find(GEXF + "graph")
    assert g.get("defaultedgetype") == "directed" and g.get("mode") == "static"
    assert len(g.findall(f"{GEXF}nodes/{GEXF}node")) == 10
    assert len(g.findall(f"{GEXF}edges/{GEXF}edge")) == 7
    network("--format", "gexf", "--dynamic", "--out", out)
    g = ET.parse(out).getroot().find(GEXF + "graph")
    assert g.get("mode") == "dynamic" and g.get("timeformat") == "date"
    edges = g.findall(f"{GEXF}edges/{GEXF}edge")
    assert len(edges) == 7 and edges[0].get("start") == "1997-03-03"   # from the first reply on
    assert not g.findall(f"{GEXF}edges/{GEXF}edge/{GEXF}spells")
    network("--format", "gexf", "--dynamic", "--window", "30", "--out", out)
    g = ET.parse(out).getroot().find(GEXF + "graph")
    spells = g.findall(f"{GEXF}edges/{GEXF}edge/{GEXF}spells/{GEXF}spell")
    assert len(spells) == 7 and (spells[0].get("start"), spells[0].get("end")) == ("1997-03-03", "1997-04-02")


@tap.test
def statistics_as_json():
    r = network("--format", "json")
    s = json.loads(r.stdout)
    assert (s["vertices"], s["edges"], s["total_weight"]) == (10, 7, 7)
    assert abs(s["reciprocity"] - 2 / 7) < 1e-6
    assert (s["weak_components"], s["largest_weak_component"]) == (4, 6)
    assert s["top"]["in_degree"][0] == {"address": "bob@example.com", "name": "Bob Baker", "value": 4}
    assert s["communities"] >= 2 and 0 < s["modularity"] < 1


@tap.test
def stats_text_and_metrics_as_attributes():
    out = os.path.join(TMP, "metrics.graphml")
    r = network("--out", out, "--stats", "--with-metrics")
    assert "reciprocity 0.2857" in r.stdout and "top by in_degree:" in r.stdout
    names = {k.get("attr.name") for k in ET.parse(out).getroot().iter(GML + "key")}
    assert {"in_degree", "out_degree", "strength", "betweenness", "community"} <= names


@tap.test
def thread_and_group_networks():
    s = json.loads(network("--kind", "thread", "--format", "json").stdout)
    assert (s["directed"], s["vertices"], s["edges"]) == (False, 10, 11)
    out = os.path.join(TMP, "group.csv")
    network("--kind", "group", "--format", "csv", "--out", out)
    ids = by_id()
    with open(out, newline="") as f:
        edges = {(ids[e["Source"]], ids[e["Target"]]): e["Weight"] for e in csv.DictReader(f)}
    assert edges[("bob@example.com", "comp.lang.c")] == "2"
    assert edges[("bob@example.com", "comp.std.c")] == "1"     # merged from the duplicate
    with open(os.path.join(TMP, "group-nodes.csv"), newline="") as f:
        types = [n["type"] for n in csv.DictReader(f)]
    assert types.count("group") == 2 and types.count("author") == 10


@tap.test
def network_filters():
    def edges(*args):
        out = os.path.join(TMP, "f.csv")
        network("--format", "csv", "--out", out, *args)
        ids = by_id()
        with open(out, newline="") as f:
            return {(ids[e["Source"]], ids[e["Target"]]) for e in csv.DictReader(f)}
    assert edges("--group", "comp.std.c") == {("ivy@example.com", "bob@example.com"),
                                              ("jack@example.com", "bob@example.com")}
    assert edges("--group", "comp.std.c", "--group", "nothing.*") == \
        edges("--group", "comp.std.c")
    assert edges("--since", "1997-03-06") == {("hank@example.com", "bob@example.com"),
                                              ("ivy@example.com", "bob@example.com"),
                                              ("jack@example.com", "bob@example.com")}
    assert edges("--until", "1997-03-03") == {("bob@example.com", "ann@example.com"),
                                              ("ann@example.com", "bob@example.com"),
                                              ("carol@example.com", "ann@example.com")}
    assert edges("--min-weight", "2") == set()


@tap.test
def stats_counts_posts_once():
    r = deja("stats", "--db", DB, "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert all(set(row) == {"section", "name", "period", "value"} for row in rows), rows
    t = {row["name"]: row["value"] for row in rows if row["section"] == "totals"}
    assert (t["files"], t["messages"], t["canonical"], t["duplicates"]) == (2, 14, 12, 2)
    assert (t["threads"], t["undated"], t["first_date"]) == (4, 0, "1997-03-03T10:00:00")
    assert [row for row in rows if row["section"] == "by_newsgroup"] == [
        {"section": "by_newsgroup", "name": "comp.lang.c", "period": "1997", "value": 10},
        {"section": "by_newsgroup", "name": "comp.std.c", "period": "1997", "value": 3}]
    # CSV: the same rows, with a header.
    r = deja("stats", "--db", DB, "--format", "csv")
    lines = r.stdout.splitlines()
    assert lines[0] == "section,name,period,value" and "by_newsgroup,comp.std.c,1997,3" in lines
    r = deja("stats", "--db", DB, "--by-month")
    assert "comp.std.c                     1997-03" in r.stdout, r.stdout
    assert "separator log, lines by verdict:\n  (none)" in r.stdout


@tap.test
def search_shows_a_cross_post_once():
    r = deja("search", "--db", DB, "--format", "json", "\"at least 16\"")
    hits = json.loads(r.stdout)
    assert [h["subject"] for h in hits] == ["Is int 32 bits?"], hits
    assert hits[0]["file"].endswith("comp.lang.c.mbox")


@tap.test
def network_errors():
    assert deja("network", "--db", DB, "--kind", "friends").returncode == 2
    assert deja("network", "--db", DB, "--format", "csv").returncode == 2
    assert deja("network", "--db", DB, "--format", "dot").returncode == 2
    assert deja("network", "--db", DB, "--dynamic").returncode == 2
    r = deja("network", "--db", os.path.join(TMP, "none.db"))
    assert r.returncode == 1 and "none.db" in r.stderr


@tap.test
def undefined_measures_are_not_numbers():
    """No replies: the reciprocity and modularity of no edges are
    undefined (null in JSON, '-' in the text), not 0 or nan."""
    mbox = os.path.join(TMP, "alone.mbox")
    with open(mbox, "w") as f:
        f.write("From ann@example.com Mon Jan  1 00:00:00 2001\nFrom: Ann <ann@example.com>\n"
                "Subject: alone\nMessage-ID: <alone@example.com>\n\nNobody answers.\n")
    db = os.path.join(TMP, "alone.db")
    r = deja("ingest", "-q", "--db", db, mbox)
    assert r.returncode == 0, r.stderr
    s = json.loads(deja("network", "--db", db, "--format", "json").stdout)
    assert (s["vertices"], s["edges"], s["communities"]) == (1, 0, 1), s
    assert (s["density"], s["reciprocity"], s["modularity"]) == (None, None, None), s
    r = deja("network", "--db", db, "--stats", "-q", "--out", os.path.join(TMP, "alone.graphml"))
    assert r.returncode == 0, r.stderr
    assert "density -, reciprocity -" in r.stdout and "modularity -\n" in r.stdout, r.stdout
    assert "nan" not in r.stdout, r.stdout


def circles_mbox(path, people=120, messages=900, seed=1123):
    """Replies among people in six circles, most within a circle: a network
    whose Louvain communities depend on the order the vertices come in."""
    rnd = random.Random(seed)
    posted = []   # (message-id, author)
    with open(path, "w") as f:
        for i in range(messages):
            a = rnd.randrange(people)
            mid = "<m%d@circles.example>" % i
            head = ["From person%03d@example.org Mon Jan  1 00:00:00 2001" % a,
                    "From: Person %d <person%03d@example.org>" % (a, a),
                    "Date: Mon, %d Jan 2001 %02d:%02d:00 +0000" % (1 + i // 60 % 28, i // 60 % 24, i % 60),
                    "Subject: circle talk %d" % i, "Message-ID: " + mid]
            near = [m for m, b in posted[-200:] if b % 6 == a % 6 and b != a]
            others = [m for m, b in posted[-200:] if b != a]
            pool = near if near and rnd.random() < 0.85 else others
            if pool:
                head.append("In-Reply-To: " + rnd.choice(pool))
            f.write("\n".join(head) + "\n\nWords of message %d.\n\n" % i)
            posted.append((mid, a))


@tap.test
def communities_do_not_depend_on_author_ids():
    """One ingest numbers authors as it finds them, a shard from their
    addresses' hashes (docs/people.md): the same replies, other vertex
    numbers.  Louvain's communities, and every measure, must be the same
    in both."""
    mbox = os.path.join(TMP, "circles.mbox")
    circles_mbox(mbox)
    dbs = [os.path.join(TMP, "circles-one.db"), os.path.join(TMP, "circles-shard.db")]
    for db, shard in zip(dbs, ([], ["--shard", "1"])):
        r = deja("ingest", "-q", "--db", db, *shard, mbox)
        assert r.returncode == 0, r.stderr
    ids = [dict(query_db(db, "SELECT address, id FROM authors")) for db in dbs]
    assert ids[0] != ids[1]    # the test means something only if the ids differ
    stats, members = [], []
    for db in dbs:
        r = deja("network", "--db", db, "--format", "json")
        assert r.returncode == 0, r.stderr
        stats.append(json.loads(r.stdout))
        out = os.path.join(TMP, os.path.basename(db) + ".csv")
        r = deja("network", "-q", "--db", db, "--format", "csv", "--with-metrics", "--out", out)
        assert r.returncode == 0, r.stderr
        with open(out[:-4] + "-nodes.csv", newline="") as f:
            members.append({row["address"]: {k: v for k, v in row.items() if k not in ("Id", "Label", "author_id")}
                            for row in csv.DictReader(f)})
    assert 1 < stats[0]["communities"] < 60, stats[0]
    # every statistic and top list (betweenness to its printed digits), every vertex's measures
    assert stats[0] == stats[1]
    assert members[0] == members[1]


def query_db(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


if __name__ == "__main__":
    tap.main(TMP, setup)
