#!/usr/bin/env python3
"""Text analysis end to end (issue 16; docs/text-analysis.md): language,
prose signals, words and n-grams per slice, keyness checked against a
computation made here, collocations, exports, near-duplicates, repeated
paragraphs, lexicon scores.

fixtures/analysis/lists.mbox plants the cases (its README.md lists them).
Run by meson (suite 'cli').
"""
import csv
import io
import json
import math
import os
import re
import sqlite3

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, needs, tmp

MBOX = os.path.join(FIXTURES, "analysis", "lists.mbox")
DB = fresh_db("text-analysis.db")
LANGUAGES = ["en"] * 7 + ["de"] * 3 + ["fr", "ru", "ja", "und"] + ["en"] * 4   # by hand, ids 1-18


def ok(*args):
    r = deja(*args)
    assert r.returncode == 0, (args, r.stderr)
    return r


def rows(out, fmt="tsv"):
    return list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))


def query(sql, *params):
    with sqlite3.connect(DB) as c:
        return c.execute(sql, params).fetchall()


def texts():
    """The messages' own texts as the fixture's generator wrote them."""
    with sqlite3.connect(DB) as c:
        return {i: t for i, t in c.execute("SELECT id, own_text FROM messages")}


def words(text):
    """Python's own tokenising of the English fixtures: letters only."""
    return re.findall(r"[^\W\d_]+", text.lower())


ok("ingest", "--db", DB, MBOX)


@tap.test
def every_message_has_its_language_and_short_text_is_und():
    needs("cld2")
    got = [r[0] for r in query("SELECT lang FROM messages ORDER BY id")]
    assert got == LANGUAGES, got
    reliable = dict(query("SELECT id, lang_reliable FROM messages"))
    assert reliable[14] == 0 and all(reliable[i] == 1 for i in range(1, 19) if i != 14), reliable


@tap.test
def ingest_can_leave_the_analysis_for_later():
    needs("cld2")
    db = fresh_db("no-analysis.db")
    r = ok("ingest", "--no-analysis", "--db", db, MBOX)
    assert "language and prose signals" not in r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages WHERE lang IS NULL").fetchone()[0] == 18
    r = ok("analyse", "--db", db)
    assert "of 18 messages" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert [x[0] for x in c.execute("SELECT lang FROM messages ORDER BY id")] == LANGUAGES


SIGNALS = ("SELECT id, lang, lang_reliable, words, sentences, code_lines, nonletter_share,"
           " digit_share, upper_share, oov_share FROM messages ORDER BY id")


@tap.test
def signals_made_while_decoding_equal_those_made_after():
    """An ingest analyses in its decode workers (copies of a text take the
    first one's analysis); deja analyse reads the stored rows: the same,
    to the last bit, on languages, copies and threads."""
    needs("cld2")
    paths = (MBOX, os.path.join(FIXTURES, "threads"), os.path.join(FIXTURES, "replies"))
    during, after = fresh_db("signals-during.db"), fresh_db("signals-after.db")
    for path in paths:
        ok("ingest", "--db", during, path)
        ok("ingest", "--no-analysis", "--db", after, path)
    r = ok("analyse", "--db", after)
    with sqlite3.connect(during) as c:
        made = c.execute(SIGNALS).fetchall()
        copies = c.execute("SELECT count(*) FROM messages WHERE duplicate_of IS NOT NULL").fetchone()[0]
    with sqlite3.connect(after) as c:
        assert c.execute(SIGNALS).fetchall() == made
    assert copies > 0 and all(row[1] for row in made), copies


@tap.test
def prose_signals_are_counted():
    needs("cld2")
    r = dict((row[0], row[1:]) for row in query(
        "SELECT id, words, sentences, code_lines, digit_share, oov_share FROM messages"))
    # message 1: 20 words, 2 sentences; message 14 "+1, me too": 2 words, a digit of 8 characters
    assert r[1][:3] == (20, 2, 0), r[1]
    assert r[14][0] == 2 and abs(r[14][3] - 1 / 8) < 1e-9, r[14]
    if os.path.exists("/usr/share/hunspell/en_US.dic"):
        # "zyzzogeton" is the only word of message 1 not in the English dictionary
        assert abs(r[1][4] - 1 / 19) < 1e-9, r[1]
    assert r[8][4] is None or os.path.exists("/usr/share/hunspell/de_DE.dic")   # no German dictionary


@tap.test
def planted_words_and_ngrams_have_exact_counts():
    by_group = {(x["slice"], x["term"]): x for x in rows(ok("terms", "--db", DB, "--by", "group").stdout)}
    z = by_group[("comp.lang.python", "zyzzogeton")]
    assert (z["count"], z["messages"]) == ("7", "4"), z
    assert ("de.comp.lang.python", "zyzzogeton") not in by_group
    assert by_group[("de.comp.lang.python", "server")]["count"] == "1"   # case-folded "Server"
    assert by_group[("fj.comp.lang.python", "サーバー")]["count"] == "1"   # ICU splits Japanese
    bigrams = {(x["slice"], x["term"]): x for x in rows(ok("terms", "--db", DB, "--ngram", "2").stdout)}
    q = bigrams[("all", "quantum flux")]
    assert (q["count"], q["messages"]) == ("5", "5"), q
    by_year = rows(ok("terms", "--db", DB, "--by", "year", "--top", "1").stdout)
    assert [(x["slice"], x["term"]) for x in by_year] == [("2001", "the"), ("2002", "the")], by_year


@tap.test
def stop_lists_and_stems():
    needs("cld2")
    stop = tmp("stop.txt")
    with open(stop, "w") as f:
        f.write("| a comment\nthe\nis | and a comment\n")
    counted = {x["term"]: x for x in rows(ok("terms", "--db", DB, "--stopwords", stop).stdout)}
    assert "the" not in counted and "is" not in counted and counted["quantum"]["count"] == "5"
    bigrams = {x["term"] for x in rows(ok("terms", "--db", DB, "--ngram", "2", "--stopwords", stop).stdout)}
    assert "quantum flux" in bigrams and "the quantum" not in bigrams and "flux module" in bigrams
    stems = {(x["slice"], x["term"]): x["count"] for x in
             rows(ok("terms", "--db", DB, "--by", "year", "--stem").stdout)}
    assert stems[("2001", "run")] == "2"          # runs, running (ran is not a stem of run)
    assert ("2001", "running") not in stems
    r = deja("terms", "--db", DB, "--stopwords", "klingon")
    assert r.returncode == 2 and "klingon" in r.stderr


@tap.test
def keyness_matches_a_computation_made_here():
    out = ok("terms", "--db", DB, "--group", "comp.lang.python", "--by", "year",
             "--keyness", "2001", "--reference", "2002").stdout
    got = {x["term"]: x for x in rows(out)}
    own = texts()
    years = dict(query("SELECT id, substr(date, 1, 4) FROM messages"))
    groups = dict(query("SELECT mn.message_id, g.name FROM message_newsgroups mn"
                        " JOIN newsgroups g ON g.id = mn.newsgroup_id"))
    target = [w for i, t in own.items() if groups[i] == "comp.lang.python" and years[i] == "2001"
              for w in words(t)]
    reference = [w for i, t in own.items() if groups[i] == "comp.lang.python" and years[i] == "2002"
                 for w in words(t)]
    c, d = len(target), len(reference)

    def g2(a, b):
        def part(o, e):
            return o * math.log(o / e) if o > 0 else 0.0
        n = c + d
        cells = [(a, c * (a + b) / n), (b, d * (a + b) / n),
                 (c - a, c * (n - a - b) / n), (d - b, d * (n - a - b) / n)]
        value = 2 * sum(part(o, e) for o, e in cells)
        return -value if a / c < b / d else value

    for term in ("zyzzogeton", "quantum", "release", "the"):
        a, b = target.count(term), reference.count(term)
        row = got[term]
        assert (int(row["target"]), int(row["reference"])) == (a, b), (term, row, a, b)
        assert math.isclose(float(row["g2"]), g2(a, b), rel_tol=1e-5), (term, row["g2"], g2(a, b))
        lr = math.log2(((a or 0.5) / c) / ((b or 0.5) / d))
        assert math.isclose(float(row["log_ratio"]), lr, rel_tol=1e-5), (term, row, lr)
    first = rows(out)[0]
    assert first["term"] == "zyzzogeton" and float(first["g2"]) > 10 and float(first["p"]) < 0.01, first
    assert float(got["release"]["g2"]) < 0       # a key word of the reference
    r = deja("terms", "--db", DB, "--by", "year", "--keyness", "1999")
    assert r.returncode == 2 and "1999" in r.stderr


@tap.test
def collocations_have_pmi_and_log_likelihood():
    out = rows(ok("terms", "--db", DB, "--collocations", "--min-count", "5").stdout)
    pair = [x for x in out if (x["first"], x["second"]) == ("quantum", "flux")]
    assert len(pair) == 1, out
    x = pair[0]
    assert (x["count"], x["first_count"], x["second_count"]) == ("5", "5", "5"), x
    assert float(x["pmi"]) > 5 and float(x["g2"]) > 50 and float(x["t_score"]) > 2, x


@tap.test
def exports_for_mallet_r_and_voyant():
    mallet, long_csv, text_dir = tmp("t.mallet"), tmp("t.csv"), tmp("voyant")
    ok("terms", "--db", DB, "--by", "group", "--export", "mallet", "--out", mallet)
    lines = open(mallet, encoding="utf-8").read().splitlines()
    assert len(lines) == 18 and lines[0].split("\t")[:2] == ["1", "comp.lang.python"], lines[0]
    assert lines[0].split("\t")[2].split()[:3] == ["the", "zyzzogeton", "reactor"]
    ok("terms", "--db", DB, "--export", "long", "--out", long_csv)
    table = list(csv.DictReader(open(long_csv, encoding="utf-8")))
    assert {"doc": "4", "term": "zyzzogeton", "count": "4"} in table
    assert sum(int(r["count"]) for r in table if r["doc"] == "1") == 20
    ok("terms", "--db", DB, "--export", "text", "--out", text_dir)
    assert len(os.listdir(text_dir)) == 18
    assert open(os.path.join(text_dir, "1.txt"), encoding="utf-8").read().startswith("The zyzzogeton reactor")
    r = deja("terms", "--db", DB, "--export", "mallet")
    assert r.returncode == 2 and "--out" in r.stderr


@tap.test
def dedup_finds_planted_copies_and_paragraphs_and_deletes_nothing():
    r = ok("dedup", "--db", DB, "--list", "--format", "json")
    clusters = [(x["cluster_id"], x["id"], x["method"]) for x in json.loads(r.stdout)]
    assert clusters == [(15, 15, "first"), (15, 16, "minhash"), (17, 17, "first"), (17, 18, "exact")], clusters
    sim = dict(query("SELECT message_id, similarity FROM near_duplicates"))
    assert sim[18] == 1.0 and 0.75 < sim[16] < 1.0, sim     # true Jaccard 65/75 = 0.87
    assert query("SELECT messages, authors, first_message_id FROM repeated_paragraphs") == [(3, 1, 5)]
    assert query("SELECT message_id FROM repeated_paragraph_messages ORDER BY 1") == [(5,), (6,), (7,)]
    assert query("SELECT count(*) FROM messages")[0][0] == 18
    # a stricter threshold keeps the exact copies only; the table is replaced
    ok("dedup", "--db", DB, "--threshold", "0.95")
    assert query("SELECT message_id FROM near_duplicates ORDER BY 1") == [(17,), (18,)]
    ok("dedup", "--db", DB)
    distinct = {x["term"]: x for x in rows(ok("terms", "--db", DB, "--distinct-text").stdout)}
    everything = {x["term"]: x for x in rows(ok("terms", "--db", DB).stdout)}
    assert everything["reminder"]["messages"] == "2" and distinct["reminder"]["messages"] == "1"
    assert everything["caretaker"]["messages"] == "2" and distinct["caretaker"]["messages"] == "1"


@tap.test
def lexicon_scores_per_message_and_slice():
    lexicon = tmp("lexicon.tsv")
    with open(lexicon, "w", encoding="utf-8") as f:
        f.write("word\tweight\tcategory\n# comment\nwell\t1\tmood\nstable\t2\tmood\nfailed\t-2\tmood\n"
                "part\t1\tmood\nzyzzo*\t0.5\ttopic\n")
    per = {(int(x["id"]), x["category"]): x for x in
           rows(ok("score", "--db", DB, "--lexicon", lexicon, "--messages").stdout)}
    assert float(per[(1, "mood")]["score"]) == 3 and per[(1, "mood")]["matches"] == "2"
    assert float(per[(2, "mood")]["score"]) == -2
    assert float(per[(4, "topic")]["score"]) == 2 and per[(4, "topic")]["matches"] == "4"
    assert float(per[(6, "mood")]["score"]) == 1                 # "is not part": no negation asked
    negated = {(int(x["id"]), x["category"]): x for x in
               rows(ok("score", "--db", DB, "--lexicon", lexicon, "--messages", "--negation").stdout)}
    assert float(negated[(6, "mood")]["score"]) == -1
    by_year = {(x["slice"], x["category"]): x for x in
               rows(ok("score", "--db", DB, "--lexicon", lexicon, "--by", "year").stdout)}
    assert float(by_year[("2001", "mood")]["score"]) == 3 - 2      # msgs 1-4: well + stable, failed
    assert by_year[("2001", "mood")]["messages"] == "4"
    bad = tmp("bad.tsv")
    with open(bad, "w") as f:
        f.write("good\t1\nbad\tworse\n")
    r = deja("score", "--db", DB, "--lexicon", bad)
    assert r.returncode == 1 and "bad.tsv:2" in r.stderr, r.stderr


@tap.test
def languages_narrow_search_export_and_appear_in_stats_and_authors():
    needs("cld2")
    r = ok("search", "--db", DB, "--format", "json", "lang:de", "Server")
    assert [x["id"] for x in json.loads(r.stdout)] == [9], r.stdout
    r = ok("export", "--db", DB, "--lang", "ru", "--format", "jsonl", "--fields", "id,lang,lang_reliable")
    assert [json.loads(l) for l in r.stdout.splitlines()] == [{"id": 12, "lang": "ru", "lang_reliable": 1}]
    stats = [x for x in rows(ok("stats", "--db", DB, "--format", "tsv").stdout)
             if x["section"] == "languages" and x["period"] == "messages"]
    assert {x["name"]: x["value"] for x in stats} == {"en": "11", "de": "3", "fr": "1", "ru": "1",
                                                     "ja": "1", "und": "1"}, stats
    authors = {x["address"]: x for x in json.loads(ok("authors", "--db", DB, "--format", "json").stdout)}
    assert authors["dora@example.de"]["languages"] == "de 3"
    assert authors["hal@example.com"]["languages"] is None


if __name__ == "__main__":
    tap.main(TMP)
