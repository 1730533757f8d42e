#!/usr/bin/env python3
"""People, not addresses: authors, suggestions, decisions, networks every
reader opens, pseudonymised exports (issue 15; docs/people.md).

fixtures/people/people.mbox plants the cases (its README.md lists them):
one person under an address in three cases and a munged form, Google's
masked form with one and with two full addresses it fits, Gmail's dots and
+tags, a list that rewrote From:, and aliases only a person can decide.
Run by meson (suite 'cli').
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, tmp

PEOPLE = os.path.join(FIXTURES, "people")
MBOX = os.path.join(PEOPLE, "people.mbox")
DB = fresh_db("people.db")
GRAPH_READ = os.environ["GRAPH_READ"]
NX_READ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nx_read.py")


def ok(*args, stdin=None):
    r = deja(*args) if stdin is None else subprocess.run(
        [os.environ["DEJA"]] + list(args), input=stdin, capture_output=True, text=True,
        env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert r.returncode == 0, (args, r.stderr)
    return r


def query(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def author_of(db, address):
    return query(db, "SELECT author_id FROM author_addresses WHERE address = ?", address)[0][0]


def groups(db):
    """The authors as sets of addresses."""
    out = {}
    for author, address in query(db, "SELECT author_id, address FROM author_addresses"):
        out.setdefault(author, set()).add(address)
    return sorted(sorted(g) for g in out.values())


def pairs(db, *args):
    rows = json.loads(ok("authors", "--db", db, "--suggest", "--format", "json", *args).stdout)
    return {frozenset((r["address_a"], r["address_b"])): r["evidence"] for r in rows}


def setup():
    ok("ingest", "--db", DB, MBOX)


@tap.test
def certain_merges_only():
    assert query(DB, "SELECT count(*) FROM authors") == [(20,)]
    assert query(DB, "SELECT count(*) FROM author_addresses") == [(22,)]
    assert query(DB, "SELECT count(*) FROM messages WHERE author_id IS NULL") == [(0,)]
    g = groups(DB)
    assert ["ann@example.com"] in g                      # case and munged forms: one address
    assert ["carl...@example.org", "carl.dee@example.org"] in g   # masked, one full address fits
    assert ["eve.adams+lists@gmail.com", "eveadams@googlemail.com"] in g   # Gmail
    for a in ("dan@example.net", "danny@example.net", "dan...@example.net"):   # masked, two fit
        assert [a] in g
    assert ["kim@park.example"] in g                     # the list rewrote From:
    ann = query(DB, "SELECT name, address, messages, first_date, last_date FROM authors"
                    " WHERE id = ?", author_of(DB, "ann@example.com"))
    assert ann == [("Ann Smith", "ann@example.com", 4, "2001-01-08T10:00:00", "2002-01-11T10:00:00")]
    carl = query(DB, "SELECT name, address, messages FROM authors WHERE id = ?",
                 author_of(DB, "carl.dee@example.org"))
    assert carl == [("Carl Dee", "carl.dee@example.org", 2)]   # the full address is primary
    assert query(DB, "SELECT count(*) FROM authors WHERE name = '' OR name IS NULL") == [(0,)]


@tap.test
def suggestions_with_their_evidence():
    found = pairs(DB)
    assert found == {
        frozenset(("gina@lab.example", "glee@lab.example")): "same-name,same-name-and-domain",
        frozenset(("jack+news@c.example", "jack@c.example")): "same-one-word-name,same-local-part,subaddress",
        frozenset(("dan@example.net", "dan...@example.net")): "same-one-word-name,masked-address-fits",
        frozenset(("danny@example.net", "dan...@example.net")): "masked-address-fits",
        frozenset(("frank@one.example", "fmiller@two.example")): "same-name",
        frozenset(("hank@x.example", "hank@y.example")): "similar-name,same-local-part",
        frozenset(("ivy@a.example", "i.v@b.example")): "same-signature",
    }, found
    # generic names ("root") and local parts suggest nothing, at any score
    assert not [p for p in pairs(DB, "--min-score", "1") if "root@m1.example" in p]


@tap.test
def suggestions_read_alike_from_a_shard():
    """One ingest numbers authors as it finds them, a shard derives ids
    from addresses: the suggestions (and the file a team reviews) are
    the same rows in the same order, a the author whose primary address
    sorts first, ties of score by address."""
    shard = fresh_db("people-shard.db")
    ok("ingest", "-q", "--shard", "1", "--db", shard, MBOX)

    def listed(db):
        rows = json.loads(ok("authors", "--db", db, "--suggest", "--format", "json", "--min-score", "1").stdout)
        return [{k: v for k, v in r.items() if k not in ("author_a", "author_b")} for r in rows]

    one, other = listed(DB), listed(shard)
    assert len(one) >= 7 and one == other, (one, other)
    assert author_of(DB, "gina@lab.example") != author_of(shard, "gina@lab.example")
    for r in one:
        assert r["address_a"] < r["address_b"], r
    keys = [(-int(r["score"]), r["address_a"], r["address_b"]) for r in one]
    assert keys == sorted(keys), keys
    tsv = [ok("authors", "--db", db, "--suggest", "--format", "tsv").stdout.splitlines() for db in (DB, shard)]
    strip = [["\t".join(c for i, c in enumerate(line.split("\t")) if i not in (2, 7)) for line in t] for t in tsv]
    assert strip[0] == strip[1]


@tap.test
def per_author_statistics():
    rows = {r["address"]: r for r in json.loads(ok("authors", "--db", DB, "--format", "json").stdout)}
    ann = rows["ann@example.com"]
    assert (ann["messages"], ann["threads_started"], ann["replies_given"], ann["replies_received"],
            ann["active_days"], ann["addresses"]) == (4, 3, 1, 4, 369, 1), ann
    eve = rows["eve.adams+lists@gmail.com"]
    assert (eve["messages"], eve["addresses"], eve["replies_given"]) == (2, 2, 2), eve
    r = ok("authors", "--db", DB, "--format", "csv", "--min-messages", "2")
    assert r.stdout.splitlines()[0].startswith("author_id,name,address,addresses,messages,threads_started")
    assert len(r.stdout.splitlines()) == 1 + 6   # Ann, Frank, Carl, Eve, and Ivy twice


@tap.test
def decisions_survive_a_reingest_and_travel_as_tsv():
    work = tmp("people-grow")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    mbox = os.path.join(work, "people.mbox")
    shutil.copy(MBOX, mbox)
    db = fresh_db("people-decide.db")
    ok("ingest", "--db", db, mbox)
    ann = author_of(db, "ann@example.com")
    ok("authors", "--db", db, "--merge", "frank@one.example", "--merge", "fmiller@two.example",
       "--note", "same person, says his signature")
    ok("authors", "--db", db, "--never", "gina@lab.example", "--never", "glee@lab.example")
    ok("authors", "--db", db, "--split", "eveadams@googlemail.com")
    # an author id works as well as an address
    ok("authors", "--db", db, "--merge", "a%d" % author_of(db, "hank@x.example"), "--merge", "hank@y.example")

    def check():
        assert author_of(db, "frank@one.example") == author_of(db, "fmiller@two.example")
        assert author_of(db, "gina@lab.example") != author_of(db, "glee@lab.example")
        assert author_of(db, "eve.adams+lists@gmail.com") != author_of(db, "eveadams@googlemail.com")
        assert author_of(db, "hank@x.example") == author_of(db, "hank@y.example")
        assert author_of(db, "ann@example.com") == ann
        found = pairs(db)
        assert not [p for p in found if "gina@lab.example" in p or "fmiller@two.example" in p
                    or "eveadams@googlemail.com" in p], found
    check()
    # the archive grows at its end: a third address of Frank's
    with open(mbox, "a") as f:
        f.write("\nFrom frank@three.example Mon Feb  4 10:00:00 2002\n"
                "From: Frank Miller <frank@three.example>\nSubject: New address\n"
                "Date: Mon, 04 Feb 2002 10:00:00 +0000\nMessage-ID: <m27@three.example>\n\nHello again.\n")
    ok("ingest", "--db", db, mbox)
    check()
    assert frozenset(("frank@one.example", "frank@three.example")) in pairs(db)
    decided = json.loads(ok("authors", "--db", db, "--decisions", "--format", "json").stdout)
    assert sorted(d["decision"] for d in decided) == ["merge", "merge", "never", "split"]
    assert [d["note"] for d in decided if d["address"] == "fmiller@two.example"] == \
        ["same person, says his signature"]

    # a team's TSV: exported, edited elsewhere, imported into a fresh database
    tsv = tmp("people-decisions.tsv")
    ok("authors", "--db", db, "--export", tsv)
    lines = open(tsv).read().splitlines()
    assert lines[0].split("\t")[:4] == ["decision", "address_a", "address_b", "note"]
    edited = [l if "frank@three.example" not in l else "merge" + l[l.index("\t"):] for l in lines]
    with open(tsv, "w") as f:
        f.write("\n".join(edited) + "\n")
    other = fresh_db("people-import.db")
    ok("ingest", "--db", other, mbox)
    r = ok("authors", "--db", other, "--import", tsv)
    assert "5 decisions read" in r.stderr, r.stderr
    assert author_of(other, "frank@three.example") == author_of(other, "frank@one.example")
    ok("authors", "--db", db, "--import", tsv)
    assert groups(other) == groups(db)
    bad = tmp("bad-decisions.tsv")
    with open(bad, "w") as f:
        f.write("decision\taddress_a\taddress_b\nmerge\tnobody@nowhere.example\tann@example.com\n")
    r = deja("authors", "--db", other, "--import", bad)
    assert r.returncode == 1 and "line 2" in r.stderr and "nobody@nowhere.example" in r.stderr
    assert groups(other) == groups(db)     # all or nothing


@tap.test
def interactive_review_keeps_each_answer():
    db = fresh_db("people-review.db")
    ok("ingest", "--db", db, MBOX)
    r = ok("authors", "--db", db, "--review", stdin="y\nn\nq\n")
    assert "7 suggestions to review" in r.stdout and "[1/7] score 5" in r.stdout, r.stdout
    decided = query(db, "SELECT address, other, decision FROM author_decisions ORDER BY decision")
    assert decided == [("gina@lab.example", "glee@lab.example", "merge"),
                       ("jack+news@c.example", "jack@c.example", "never")], decided
    assert author_of(db, "gina@lab.example") == author_of(db, "glee@lab.example")


def nx_python():
    """Debian's python3 with python3-networkx (2.8) when there, else any networkx."""
    for python in ("/usr/bin/python3", "python3"):
        if shutil.which(python) and subprocess.run([python, "-c", "import networkx"],
                                                   capture_output=True).returncode == 0:
            return python
    return None


def nx_read(fmt, path):
    python = nx_python()
    if python is None:
        tap.skip("networkx is not installed (Debian: python3-networkx)")
    r = subprocess.run([python, NX_READ, fmt, path], capture_output=True, text=True)
    assert r.returncode == 0, (fmt, r.stderr)
    return json.loads(r.stdout)


@tap.test
def node_ids_are_the_same_across_filters_and_names_never_empty():
    full, part = tmp("people-full.graphml"), tmp("people-2002.graphml")
    ok("network", "--db", DB, "--out", full)
    ok("network", "--db", DB, "--since", "2002", "--out", part)
    a, b = nx_read("graphml", full), nx_read("graphml", part)
    assert set(b["nodes"]) < set(a["nodes"]) and len(b["nodes"]) >= 4
    for node, attrs in b["nodes"].items():
        assert re.fullmatch(r"a\d+", node) and node == "a%d" % attrs["author_id"]
        assert attrs["address"] == a["nodes"][node]["address"]
        assert attrs["name"], (node, attrs)
    # Ivy is in the 2002 network only as the one Kim replied to: still named
    ivy = "a%d" % author_of(DB, "ivy@a.example")
    assert b["nodes"][ivy]["name"] == "Ivy Vance" and b["nodes"][ivy]["messages"] == 0


@tap.test
def every_format_opens_in_networkx_and_igraph():
    files = {}
    for fmt in ("graphml", "gml", "gexf", "pajek"):
        files[fmt] = tmp("people." + fmt)
        ok("network", "--db", DB, "--format", fmt, "--out", files[fmt])
    read = {fmt: nx_read(fmt, path) for fmt, path in files.items()}
    assert read["graphml"]["version"].startswith(("2.", "3."))
    ann = "a%d" % author_of(DB, "ann@example.com")
    lou = "a%d" % author_of(DB, "lou@d.example")
    for fmt in ("graphml", "gml", "gexf"):
        nodes = read[fmt]["nodes"]
        assert len(nodes) == 20 and len(read[fmt]["edges"]) == len(read["graphml"]["edges"]), fmt
        assert nodes[ann]["messages"] == 4 and isinstance(nodes[ann]["author_id"], int), (fmt, nodes[ann])
        assert nodes[lou]["name"] == "Lou Réed", (fmt, nodes[lou])
    assert set(read["pajek"]["nodes"]) == set(read["graphml"]["nodes"])
    # GML is ASCII, non-ASCII as &#NNNN;
    raw = open(files["gml"], "rb").read()
    assert all(b < 128 for b in raw) and b"Lou R&#233;ed" in raw
    # how each file was made, where the format has a place for it
    assert "deja" in read["graphml"]["graph"]["provenance"] and "network --db" in read["graphml"]["graph"]["provenance"]
    assert b"comment" in raw
    assert "<creator>deja" in open(files["gexf"]).read()
    for fmt in ("graphml", "gml", "pajek"):
        out = subprocess.run([GRAPH_READ, fmt, files[fmt]], capture_output=True, text=True, check=True).stdout
        assert out.startswith("vertices 20\nedges %d\n" % len(read["graphml"]["edges"])), (fmt, out)
    # dynamic GEXF: an edge lives from its first reply on, or N days after each
    dyn = tmp("people-dynamic.gexf")
    ok("network", "--db", DB, "--format", "gexf", "--dynamic", "--window", "30", "--out", dyn)
    edges = nx_read("gexf", dyn)["edges"]
    assert all(e[2].get("spells") for e in edges), edges[:2]


@tap.test
def r_igraph_reads_graphml_where_installed():
    if shutil.which("Rscript") is None or subprocess.run(
            ["Rscript", "-e", "library(igraph)"], capture_output=True).returncode != 0:
        tap.skip("R's igraph is not installed (Debian: r-cran-igraph)")
    path, edges, nodes = tmp("people-r.graphml"), tmp("people-r.csv"), tmp("people-r-nodes.csv")
    ok("network", "--db", DB, "--out", path)
    ok("network", "--db", DB, "--format", "csv", "--out", edges)
    r = subprocess.run(["Rscript", "-e",
                        "library(igraph); g <- read_graph('%s', format='graphml');"
                        " h <- graph_from_data_frame(read.csv('%s'), vertices=read.csv('%s'));"
                        " cat(vcount(g), ecount(g), vcount(h), ecount(h))" % (path, edges, nodes)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    v, e, v2, e2 = map(int, r.stdout.split())
    assert v == v2 == 20 and e == e2


def every_address_and_name(db):
    words = {a for (a,) in query(db, "SELECT address FROM author_addresses")}
    words |= {a for (a,) in query(db, "SELECT from_addr FROM messages WHERE from_addr IS NOT NULL")}
    names = {n for (n,) in query(db, "SELECT name FROM authors")}
    return words, names


@tap.test
def pseudonymised_outputs_hold_no_address_and_follow_the_key():
    k1, k2 = tmp("people-1.key"), tmp("people-2.key")
    for k in (k1, k2):
        if os.path.exists(k):
            os.unlink(k)
        ok("keygen", k)
    assert os.stat(k1).st_mode & 0o777 == 0o600
    assert deja("keygen", k1).returncode == 1            # never overwritten
    addresses, names = every_address_and_name(DB)
    addresses |= {"zed@secret.example"}

    def outputs(key, tag):
        out = {}
        for fmt in ("graphml", "gml", "gexf", "pajek", "csv", "json"):
            path = tmp("pseudo-%s.%s" % (tag, fmt))
            ok("network", "--db", DB, "--format", fmt, "--out", path, "--pseudonymise", key)
            out[fmt] = open(path, encoding="utf-8").read()
        out["nodes"] = open(tmp("pseudo-%s-nodes.csv" % tag), encoding="utf-8").read()
        path = tmp("pseudo-%s.jsonl" % tag)
        fields = "id,message_id,date,from_addr,from_name,author_id,subject,in_reply_to,references,envelope,body,own_text"
        ok("export", "--db", DB, "--format", "jsonl", "--fields", fields, "--out", path, "--pseudonymise", key)
        out["export"] = open(path, encoding="utf-8").read()
        out["stats"] = ok("stats", "--db", DB, "--format", "tsv", "--pseudonymise", key).stdout
        return out

    one, again, other = outputs(k1, "1"), outputs(k1, "1b"), outputs(k2, "2")
    for what, text in one.items():
        lower = text.lower()
        for a in addresses:
            assert a not in lower, (what, a)
        if what not in ("export",):      # names in message text are not replaced (docs/people.md)
            for n in names - {"root", "Dan", "Jack"}:
                assert n not in text, (what, n)
    assert one["export"] == again["export"] and one["stats"] == again["stats"]
    ids = lambda text: set(re.findall(r"\bp[0-9a-f]{16}\b", text))
    assert len(ids(one["graphml"])) == 20 and ids(one["graphml"]) == ids(again["graphml"])
    assert not ids(one["graphml"]) & ids(other["graphml"])
    assert one["export"] != other["export"]
    rows = [json.loads(l) for l in one["export"].splitlines()]
    lou = [r for r in rows if r["subject"] == "Re: Welcome to the list" and "[phone]" in (r["body"] or "")]
    assert len(lou) == 1 and "[address]" in lou[0]["body"], rows
    body = lou[0]["body"]
    assert "2002-01-10" in body and "1.2.3" in body and "123456789" in body   # not telephone numbers
    assert all(r["from_addr"] == r["from_name"] == r["author_id"] for r in rows)
    # from_name alone still names the author (author_id read, not written)
    r = ok("export", "--db", DB, "--format", "json", "--fields", "id,from_name", "--pseudonymise", k1)
    alone = json.loads(r.stdout)
    assert list(alone[0]) == ["id", "from_name"]
    assert {a["id"]: a["from_name"] for a in alone} == {r["id"]: r["from_name"] for r in rows}
    replies = [r for r in rows if r["in_reply_to"]]
    by_id = {r["message_id"]: r for r in rows}
    assert replies and all(r["in_reply_to"] in by_id for r in replies)   # references still link


@tap.test
def no_archive_posts_stay_out_of_exports_and_the_statement_says_so():
    out, statement = tmp("people-export.csv"), tmp("people-export.md")
    r = ok("export", "--db", DB, "--out", out, "--statement", statement)
    assert "exported 26 messages" in r.stderr, r.stderr
    text = open(statement).read()
    assert "2 messages whose authors asked archives to leave them out" in text, text
    sha = query(DB, "SELECT sha256 FROM files")[0][0]
    assert sha in text and "Not pseudonymised" in text and "still personal data" in text
    r = ok("export", "--db", DB, "--out", out, "--include-no-archive")
    assert "exported 28 messages" in r.stderr
    mbox = tmp("people-out.mbox")
    ok("export-mbox", "--db", DB, "--out", mbox)
    assert open(mbox).read().count("\nMessage-ID:") + open(mbox).read().startswith("Message-ID") == 26
    key = tmp("people-statement.key")
    if not os.path.exists(key):
        ok("keygen", key)
    ok("export", "--db", DB, "--out", out, "--pseudonymise", key, "--statement", statement)
    text = open(statement).read()
    assert re.search(r"key id `[0-9a-f]{8}`", text) and "telephone numbers became `[phone]`" in text, text
    assert query(DB, "SELECT count(*) FROM messages WHERE flags LIKE '%no-archive%'") == [(2,)]


def shared_mbox(path, posts):
    """posts: (message-id, From header, subject) in order."""
    with open(path, "w") as f:
        for i, (mid, sender, subject) in enumerate(posts):
            f.write("From x Mon Jan  1 00:00:00 2001\nFrom: %s\nSubject: %s\nMessage-ID: <%s@shared.example>\n"
                    "Date: Mon, 1 Jan 2001 10:%02d:00 +0000\n\n%s\n\n" % (sender, subject, mid, i, subject))


@tap.test
def shared_addresses_are_split_by_name():
    """docs/people.md, "Shared addresses": notification senders and Usenet
    placeholders used by several people under their own names."""
    path = tmp("shared.mbox")
    shared_mbox(path, [
        ("g1", "Jane Doe <noreply@github.com>", "[proj] issue 1"),
        ("g2", "John Roe <noreply@github.com>", "[proj] issue 2"),
        ("g3", "Jane Doe <noreply@github.com>", "[proj] issue 3"),
        ("g4", "Ann Example <noreply@github.com>", "[proj] issue 4"),
        ("g5", "noreply@github.com", "[proj] a release"),
        ("g7", "\"release@bot\" <noreply@github.com>", "[proj] another release"),
        ("u1", "ann@nospam.invalid (Ann Poster)", "usenet 1"),
        ("u2", "Carl Third <ann@nospam.invalid>", "usenet 2"),
        ("p1", "Bob Smith <bob@example.org>", "one person"),
        ("p2", "Robert Smith <bob@example.org>", "one person again"),
        ("p3", "bob <bob@example.org>", "and again"),
        ("q1", "Bob Smith <desk@example.org>", "two names, not a placeholder"),
        ("q2", "Alice Jones <desk@example.org>", "still one author"),
    ])
    db = fresh_db("shared.db")
    ok("ingest", "-q", "--db", db, path)
    by = {mid: (addr, author) for mid, addr, author in
          query(db, "SELECT replace(message_id, '@shared.example', ''), from_addr, author_id FROM messages")}
    # the address stays as the archive shows it; the author is the person
    assert {by[m][0] for m in ("g1", "g2", "g3", "g4", "g5")} == {"noreply@github.com"}
    assert by["g1"][1] == by["g3"][1] and len({by[m][1] for m in ("g1", "g2", "g4", "g5")}) == 4, by
    assert by["u1"][1] != by["u2"][1], by
    assert by["p1"][1] == by["p2"][1] == by["p3"][1], by
    assert by["q1"][1] == by["q2"][1], by
    authors = {r["name"]: r for r in json.loads(ok("authors", "--db", db, "--format", "json").stdout)}
    assert authors["Jane Doe"]["address"] == "noreply@github.com (jane doe)"
    assert authors["Jane Doe"]["shared_address"] == "noreply@github.com" and authors["Jane Doe"]["messages"] == 2
    # g5, no name, and g7, whose name is no name (an address): nobody we know, named by the
    # address, not by a name none of its messages gives
    assert by["g7"][1] == by["g5"][1], by
    assert authors["noreply@github.com"]["shared_address"] == "noreply@github.com"
    assert authors["noreply@github.com"]["messages"] == 2
    assert authors["Bob Smith"]["shared_address"] is None
    # deja authors --suggest shows them, as merges to consider
    found = pairs(db)
    assert found[frozenset(("noreply@github.com (jane doe)", "noreply@github.com (john roe)"))] == "shared-address"
    assert frozenset(("ann@nospam.invalid (ann poster)", "ann@nospam.invalid (carl third)")) in found, found
    # a person who decides two of them are one is heard
    ok("authors", "--db", db, "--merge", "noreply@github.com (jane doe)", "--merge", "noreply@github.com (ann example)")
    after = dict(query(db, "SELECT replace(message_id, '@shared.example', ''), author_id FROM messages"))
    assert after["g1"] == after["g4"] != after["g2"], after
    # a later ingest keeps them apart: new messages go to their person
    more = tmp("shared-more.mbox")
    shared_mbox(more, [("g6", "John Roe <noreply@github.com>", "[proj] issue 6")])
    ok("ingest", "-q", "--db", db, more)
    after = dict(query(db, "SELECT replace(message_id, '@shared.example', ''), author_id FROM messages"))
    assert after["g6"] == after["g2"] != after["g1"], after


if __name__ == "__main__":
    tap.main(TMP, setup)
