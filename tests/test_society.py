#!/usr/bin/env python3
"""Usenet as a society: deja groups, and the crosspost and site networks.

fixtures/society/usenet.mbox is eight articles whose every figure is
computed by hand here (its README has the table): a group with one
message (soc.b), a thread crossing years (m3 -> m4), a cross-post to a
group with no other message (m5 to soc.c), a Path with a loop (m5) and
one with INN's diagnostic element (m6).  Run by meson (suite 'cli').
"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET

import tap
from cli_helpers import FIXTURES, TMP, WITHOUT, deja, fresh_db, ok, tmp

SOCIETY = os.path.join(FIXTURES, "society", "usenet.mbox")
GRAPH_READ = os.environ["GRAPH_READ"]
NX_READ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nx_read.py")
GEXF = "{http://www.gexf.net/1.2draft}"

# By hand from the README's table.  Cross-posts: m5 to soc.a and soc.c.
CROSSPOST_EDGES = {("soc.a", "soc.c"): 1}
# Sites: news went from the last site of Path to the first; a hop counts
# once per article.  m5 (utzoo!decvax!ucbvax!decvax!ann) passes decvax
# twice: decvax -> ucbvax, ucbvax -> decvax, decvax -> utzoo.
SITE_EDGES = {("ucbvax", "decvax"): 3, ("decvax", "utzoo"): 4, ("utzoo", "mcvax"): 1,
              ("decvax", "ucbvax"): 1}
# articles through each site (once each); m6's INN ".POSTED" element and
# the user name at the end are no sites; m7 has no Path
SITE_ARTICLES = {"utzoo": 6, "decvax": 4, "ucbvax": 3, "mcvax": 1, "news.example.com": 1}


def database():
    db = fresh_db("society.db")
    ok("ingest", "-q", "--db", db, SOCIETY)
    return db


def groups(db, *args):
    rows = json.loads(ok("groups", "--db", db, "--format", "json", *args).stdout)
    return {(r["group"], r["period"]): r for r in rows}


@tap.test
def accounting_by_year_computed_by_hand():
    rows = groups(database())
    assert sorted(rows) == [("soc.a", "1990"), ("soc.a", "1991"), ("soc.a", "1992"),
                            ("soc.b", "1990"), ("soc.c", "1991")], sorted(rows)
    a90, a91, a92 = rows["soc.a", "1990"], rows["soc.a", "1991"], rows["soc.a", "1992"]
    # 1990: m1 m2 m8 m3 by ann (2), bob, cy
    assert (a90["messages"], a90["authors"], a90["new_authors"], a90["returning_authors"],
            a90["lost_authors"]) == (4, 3, 3, 0, 0), a90
    assert a90["messages_per_author"] == round(4 / 3, 4) and a90["median_messages_per_author"] == 1
    assert a90["top_decile_share"] == 0.5            # ann's 2 of 4
    assert (a90["threads"], a90["replies"], a90["reply_share"]) == (2, 2, 0.5)
    assert (a90["unanswered_threads"], a90["unanswered_share"]) == (0, 0)
    # first replies: m2 2 h after m1, m4 6 h after m3 (in 1991: it still answers m3's thread)
    assert a90["median_hours_to_first_reply"] == 4
    # m1's thread is m1 <- m2 <- m8: depth 2, breadth 1; m3's: depth 1, breadth 1
    assert (a90["mean_thread_depth"], a90["mean_thread_breadth"]) == (1.5, 1)
    assert a90["crossposts"] == 0 and a90["crosspost_groups"] is None
    # 1991: cy (m4) and ann (m5) both came back; bob was last seen in 1990
    assert (a91["messages"], a91["authors"], a91["new_authors"], a91["returning_authors"],
            a91["lost_authors"]) == (2, 2, 0, 2, 1), a91
    assert (a91["threads"], a91["replies"], a91["unanswered_threads"], a91["unanswered_share"]) == \
        (1, 1, 1, 1), a91
    assert a91["median_hours_to_first_reply"] is None      # no thread of 1991 was answered
    assert (a91["crossposts"], a91["crosspost_groups"]) == (1, "soc.c:1")
    # quoted lines: m4 quotes one line of m3; computed from the stored line counts
    with sqlite3.connect(database()) as c:
        q, o = c.execute("SELECT sum(quoted_lines), sum(own_lines) FROM messages"
                         " WHERE message_id IN ('m4@society.example', 'm5@society.example')").fetchone()
    assert q == 1 and a91["quoted_share"] == round(q / (q + o), 4), (q, o, a91["quoted_share"])
    assert a90["quoted_share"] == 0
    # m5 sends follow-ups to soc.c: away from soc.a, not from soc.c
    assert (a91["followups_elsewhere"], a90["followups_elsewhere"]) == (1, 0)
    # 1992: dan is new; cy and ann were last seen in 1991.  Two cancels of
    # m6 (control messages, not posts) and m12 superseding it: posts m6, m12
    assert (a92["messages"], a92["authors"], a92["new_authors"], a92["returning_authors"],
            a92["lost_authors"]) == (2, 1, 1, 0, 2), a92
    assert (a92["threads"], a92["unanswered_threads"], a92["messages_per_author"]) == (2, 2, 2), a92
    assert (a92["control_messages"], a92["cancels"], a92["cancelled"], a92["superseded"]) == (2, 2, 1, 1), a92
    # moderated: m3 carries Approved:
    assert (a90["approved"], a91["approved"], a90["cancels"]) == (1, 0, 0)
    # a group with one message, and one only cross-posted to
    b = rows["soc.b", "1990"]
    assert (b["messages"], b["authors"], b["threads"], b["unanswered_threads"], b["top_decile_share"]) == \
        (1, 1, 1, 1, 1), b
    c = rows["soc.c", "1991"]
    assert (c["messages"], c["new_authors"], c["crossposts"], c["crosspost_groups"]) == (1, 1, 1, "soc.a:1")
    assert c["followups_elsewhere"] == 0
    # median words of own text: soc.b's one message has 7 (counted with
    # the language; NULL, not a made-up count, in a deja without CLD2)
    assert b["median_words"] == (None if "cld2" in WITHOUT else 7), b


@tap.test
def periods_and_filters():
    db = database()
    q = groups(db, "--by", "quarter")
    assert [p for g, p in sorted(q) if g == "soc.a"] == ["1990-Q1", "1990-Q4", "1991-Q1", "1991-Q2", "1992-Q1"]
    # 1991-Q1 follows 1990-Q4 (ann), but cy was not in it: nobody returns
    assert (q["soc.a", "1991-Q1"]["returning_authors"], q["soc.a", "1991-Q1"]["lost_authors"]) == (0, 0)
    m = groups(db, "--by", "month")
    assert m["soc.a", "1990-03"]["messages"] == 3 and m["soc.a", "1990-12"]["messages"] == 1
    # 1990-12 then 1991-01: consecutive months, ann not back in January
    assert (m["soc.a", "1991-01"]["returning_authors"], m["soc.a", "1991-01"]["lost_authors"]) == (0, 0)
    only = groups(db, "--group", "soc.c")
    assert sorted(only) == [("soc.c", "1991")], sorted(only)
    since = groups(db, "--since", "1991")
    assert since["soc.a", "1991"]["new_authors"] == 2       # new within the span read
    # every format, the same columns the contract names
    for fmt in ("tsv", "csv"):
        text = ok("groups", "--db", db, "--format", fmt).stdout
        head = next(csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ","))
        assert head[:10] == ["group", "period", "messages", "authors", "new_authors", "returning_authors",
                             "lost_authors", "messages_per_author", "median_messages_per_author",
                             "top_decile_share"], head
        for name in ("threads", "replies", "unanswered_threads", "crossposts"):
            assert name in head, (name, head)
    assert "soc.a" in ok("groups", "--db", db).stdout
    r = deja("groups", "--db", db, "--by", "week")
    assert r.returncode == 2 and "--by must be" in r.stderr, r.stderr


def igraph_read(fmt, path):
    out = subprocess.run([GRAPH_READ, fmt, path], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    edges = {tuple(l.split()[1:3]): float(l.split()[3]) for l in lines[2:]}
    return int(lines[0].split()[1]), int(lines[1].split()[1]), edges


def nx_read(fmt, path):
    for python in ("/usr/bin/python3", "python3"):
        if shutil.which(python) and subprocess.run([python, "-c", "import networkx"],
                                                   capture_output=True).returncode == 0:
            r = subprocess.run([python, NX_READ, fmt, path], capture_output=True, text=True)
            assert r.returncode == 0, (fmt, r.stderr)
            return json.loads(r.stdout)
    tap.skip("networkx is not installed (Debian: python3-networkx)")


def undirected(edges):
    return {tuple(sorted(k)): v for k, v in edges.items()}


@tap.test
def crosspost_network_of_groups():
    db = database()
    ids = {"g%d" % i: n for i, n in sqlite3.connect(db).execute("SELECT id, name FROM newsgroups")}
    for fmt in ("graphml", "gml", "gexf"):
        path = tmp("crosspost." + fmt)
        ok("network", "--db", db, "--kind", "crosspost", "--format", fmt, "--out", path)
        g = nx_read(fmt, path)
        names = {n: d["name"] for n, d in g["nodes"].items()} if fmt != "gml" else \
            {n: d["name"] for n, d in g["nodes"].items()}
        # every group is a node, keyed g + newsgroups.id, cross-posted or not
        assert sorted(names) == sorted(ids) and names == ids, (fmt, names)
        nodes = g["nodes"]
        assert {names[n]: (d["messages"], d["authors"]) for n, d in nodes.items()} == \
            {"soc.a": (8, 4), "soc.b": (1, 1), "soc.c": (1, 1)}, (fmt, nodes)   # posts, not cancels
        edges = {tuple(sorted((names[s], names[t]))): d["weight"] for s, t, d in g["edges"]}
        assert edges == CROSSPOST_EDGES, (fmt, edges)
    for fmt in ("graphml", "gml"):
        path = tmp("crosspost-i." + fmt)
        ok("network", "--db", db, "--kind", "crosspost", "--format", fmt, "--out", path)
        n, m, edges = igraph_read(fmt, path)
        assert (n, m, undirected(edges)) == (3, 1, CROSSPOST_EDGES), (fmt, n, m, edges)
    # dynamic GEXF: the edge lives from the cross-post's date
    path = tmp("crosspost-dyn.gexf")
    ok("network", "--db", db, "--kind", "crosspost", "--format", "gexf", "--dynamic", "--out", path)
    edge = ET.parse(path).getroot().find(".//%sedge" % GEXF)
    assert edge.get("start", "").startswith("1991-05-01"), edge.attrib
    # a filter: before 1991 nothing was cross-posted
    r = ok("network", "--db", db, "--kind", "crosspost", "--until", "1990", "--format", "graphml",
           "--out", tmp("cp-1990.graphml"))
    assert "crosspost network: 2 vertices, 0 edges" in r.stderr, r.stderr


@tap.test
def site_network_of_path():
    db = database()
    for fmt in ("graphml", "gml", "gexf"):
        path = tmp("site." + fmt)
        ok("network", "--db", db, "--kind", "site", "--format", fmt, "--out", path)
        g = nx_read(fmt, path)
        names = {n: d["name"] for n, d in g["nodes"].items()}
        assert {names[n]: d["messages"] for n, d in g["nodes"].items()} == SITE_ARTICLES, (fmt, g["nodes"])
        edges = {(names[s], names[t]): d["weight"] for s, t, d in g["edges"]}
        assert edges == SITE_EDGES, (fmt, edges)
    for fmt in ("graphml", "gml", "pajek"):
        path = tmp("site-i." + fmt)
        ok("network", "--db", db, "--kind", "site", "--format", fmt, "--out", path)
        n, m, edges = igraph_read(fmt, path)
        assert (n, m) == (5, 4), (fmt, n, m)
        if fmt != "pajek":
            assert edges == SITE_EDGES, (fmt, edges)
    ok("network", "--db", db, "--kind", "site", "--format", "csv", "--out", tmp("site.csv"))
    with open(tmp("site.csv")) as f:
        rows = {(r["Source"], r["Target"]): int(r["Weight"]) for r in csv.DictReader(f)}
    assert rows == {("s:" + a, "s:" + b): w for (a, b), w in SITE_EDGES.items()}, rows
    # year by year: 1990's articles only
    path = tmp("site-1990.graphml")
    ok("network", "--db", db, "--kind", "site", "--until", "1990", "--format", "graphml", "--out", path)
    g = nx_read("graphml", path)
    names = {n: d["name"] for n, d in g["nodes"].items()}
    assert {(names[s], names[t]): d["weight"] for s, t, d in g["edges"]} == \
        {("ucbvax", "decvax"): 2, ("decvax", "utzoo"): 3}
    stats = json.loads(ok("network", "--db", db, "--kind", "site", "--format", "json").stdout)
    assert stats["directed"] is True and stats["kind"] == "site", stats


@tap.test
def cancels_and_supersedes_link_never_delete():
    db = database()
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT t.message_id, r.kind, b.message_id FROM message_revisions r"
                         " JOIN messages t ON t.id = r.message_id JOIN messages b ON b.id = r.by_id"
                         " ORDER BY 2, 3").fetchall()
        assert rows == [("m6@society.example", "cancelled", "m10@society.example"),
                        ("m6@society.example", "cancelled", "m9@society.example"),
                        ("m6@society.example", "superseded", "m12@society.example")], rows
        assert c.execute("SELECT count(*) FROM messages WHERE message_id = 'm6@society.example'").fetchone() == (1,)
        u = c.execute("SELECT control, cancels, approved FROM usenet_headers u JOIN messages m"
                      " ON m.id = u.message_id WHERE m.message_id IN ('m9@society.example',"
                      " 'm3@society.example') ORDER BY m.id").fetchall()
        assert u == [(None, None, "moderator@utzoo.example"),
                     ("cancel <m6@society.example>", "m6@society.example", None)], u


@tap.test
def author_roles_by_the_documented_rule():
    db = fresh_db("roles.db")
    ok("ingest", "-q", "--db", db, os.path.join(FIXTURES, "society", "roles.mbox"))
    rows = {r["name"]: r for r in json.loads(ok("authors", "--db", db, "--roles", "--format", "json").stdout)}
    roles = {name: r["role"] for name, r in rows.items()}
    assert roles == {"Helper": "answer person", "Talker0": "mixed", "Talker1": "discussion person",
                     "Talker2": "discussion person", "Talker3": "discussion person",
                     "Shouter": "unanswered starter", "Starter": "thread starter",
                     "Asker0": "occasional", "Asker1": "occasional", "Asker2": "occasional",
                     "Asker3": "occasional", "Asker4": "occasional", "Asker5": "occasional"}, roles
    # the signature, by hand: the helper answered six askers in their threads;
    # ties: askers 0-4 have 2 (helper, starter), asker 5 has 1, talkers 3,
    # the starter 5, the helper 6: the median author with a tie has 2, and
    # all the helper's partners have 2 or fewer
    h = rows["Helper"]
    assert (h["replies_to_others"], h["ties"], h["low_degree_tie_share"], h["replies_received_per_message"]) == \
        (6, 6, 1, 0), h
    t = rows["Talker1"]
    assert (t["replies_to_others"], t["ties"], t["low_degree_tie_share"]) == (5, 3, 0), t
    assert rows["Shouter"]["ties"] == 0 and rows["Shouter"]["low_degree_tie_share"] is None
    assert rows["Talker0"]["replies_to_others"] == 0     # every reply in the thread it started
    r = deja("authors", "--db", db, "--roles", "--suggest")
    assert r.returncode == 2, r.stderr


LINKS = os.path.join(FIXTURES, "society", "links.mbox")


def rows_of(db, *args):
    return json.loads(ok(*(("links", "--db", db, "--format", "json") + args)).stdout)


@tap.test
def links_in_own_text_with_their_archived_copies():
    db = fresh_db("links.db")
    ok("ingest", "-q", "--db", db, LINKS)
    # k1: example.com, bbc.co.uk, funet.fi; k2 quotes k1's link (not counted)
    # and cites news.bbc.co.uk and an address; k3 cites example.com twice;
    # k4's mailto: and news: are no links
    domains = {r["domain"]: (r["messages"], r["links"], r["authors"], r["first_date"], r["last_date"])
               for r in rows_of(db)}
    assert domains == {
        "example.com": (2, 3, 1, "1996-05-01T08:00:00", "1997-03-01T12:00:00"),
        "bbc.co.uk": (2, 2, 2, "1996-05-01T08:00:00", "1996-05-02T09:30:00"),
        "funet.fi": (1, 1, 1, "1996-05-01T08:00:00", "1996-05-01T08:00:00"),
        "10.1.2.3": (1, 1, 1, "1996-05-02T09:30:00", "1996-05-02T09:30:00"),
    }, domains
    assert list(rows_of(db)[0]) == ["domain", "messages", "links", "authors", "first_date", "last_date"]
    by = {(r["group"], r["period"], r["domain"]): r["messages"]
          for r in rows_of(db, "--by", "year", "--per-group")}
    assert by == {("comp.infosystems.www", "1996", "example.com"): 1,
                  ("comp.infosystems.www", "1996", "bbc.co.uk"): 2,
                  ("comp.infosystems.www", "1996", "funet.fi"): 1,
                  ("comp.infosystems.www", "1996", "10.1.2.3"): 1,
                  ("alt.html", "1996", "bbc.co.uk"): 1, ("alt.html", "1996", "10.1.2.3"): 1,
                  ("alt.html", "1997", "example.com"): 1}, by
    top = rows_of(db, "--by", "year", "--top", "1")
    assert [(r["period"], r["domain"]) for r in top] == [("1996", "bbc.co.uk"), ("1997", "example.com")], top
    urls = rows_of(db, "--urls")
    assert [(u["message"], u["url"]) for u in urls] == [
        ("k1@links.example", "http://WWW.Example.COM:80/~ann/index.html#top"),
        ("k1@links.example", "www.bbc.co.uk/news"),
        ("k1@links.example", "ftp://ftp.funet.fi/pub/"),
        ("k2@links.example", "http://news.bbc.co.uk/"),
        ("k2@links.example", "http://10.1.2.3/cgi-bin/x"),
        ("k3@links.example", "http://www.example.com/~ann/"),
        ("k3@links.example", "http://www.example.com/~ann/new.html")], urls
    first = urls[0]
    assert (first["normalized"], first["host"], first["domain"], first["wayback"]) == (
        "http://www.example.com/~ann/index.html", "www.example.com", "example.com",
        "https://web.archive.org/web/19960501080000/http://www.example.com/~ann/index.html"), first
    assert urls[4]["domain"] is None and urls[4]["host"] == "10.1.2.3"
    # the table the contract names
    with sqlite3.connect(db) as c:
        cols = [r[1] for r in c.execute("PRAGMA table_info(links)")]
        for name in ("message_id", "url", "host", "domain", "wayback"):
            assert name in cols, cols
        assert c.execute("SELECT count(*) FROM links l JOIN messages m ON m.id = l.message_id").fetchone() == (7,)
    assert deja("links", "--db", db, "--urls", "--top", "3").returncode == 2


@tap.test
def reingest_fills_what_an_older_deja_did_not_store():
    db = fresh_db("links-old.db")
    ok("ingest", "-q", "--db", db, LINKS)
    with sqlite3.connect(db) as c:           # as an older deja left it
        c.execute("DELETE FROM links")
        ids = c.execute("SELECT id, message_id FROM messages ORDER BY id").fetchall()
    r = ok("ingest", "--db", db, LINKS)
    assert "unchanged" in r.stderr and rows_of(db) == [], r.stderr
    ok("ingest", "-q", "--reingest", "--db", db, LINKS)
    assert len(rows_of(db, "--urls")) == 7
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT id, message_id FROM messages ORDER BY id").fetchall() == ids


@tap.test
def link_network_of_authors_and_domains():
    db = fresh_db("links-net.db")
    ok("ingest", "-q", "--db", db, LINKS)
    path = tmp("links.graphml")
    ok("network", "--db", db, "--kind", "link", "--format", "graphml", "--out", path)
    g = nx_read("graphml", path)
    names = {n: d["name"] for n, d in g["nodes"].items()}
    types = {d["name"]: d["type"] for d in g["nodes"].values()}
    # every author of a counted message is a vertex, as in every network of authors: Cy too
    assert types == {"Ann": "author", "Bob": "author", "Cy": "author", "example.com": "domain", "bbc.co.uk": "domain",
                     "funet.fi": "domain", "10.1.2.3": "domain"}, types
    edges = {(names[s], names[t]): d["weight"] for s, t, d in g["edges"]}
    assert edges == {("Ann", "example.com"): 2, ("Ann", "bbc.co.uk"): 1, ("Ann", "funet.fi"): 1,
                     ("Bob", "bbc.co.uk"): 1, ("Bob", "10.1.2.3"): 1}, edges
    # message -> domain: a vertex per citing message (its Message-ID), weight = links
    path = tmp("links-messages.graphml")
    ok("network", "--db", db, "--kind", "link-message", "--format", "graphml", "--out", path)
    g = nx_read("graphml", path)
    names = {n: d["name"] for n, d in g["nodes"].items()}
    edges = {(names[s], names[t]): d["weight"] for s, t, d in g["edges"]}
    assert edges == {("k1@links.example", "example.com"): 1, ("k1@links.example", "bbc.co.uk"): 1,
                     ("k1@links.example", "funet.fi"): 1, ("k2@links.example", "bbc.co.uk"): 1,
                     ("k2@links.example", "10.1.2.3"): 1, ("k3@links.example", "example.com"): 2}, edges
    assert {d["type"] for d in g["nodes"].values()} == {"message", "domain"}


if __name__ == "__main__":
    tap.main(TMP)
