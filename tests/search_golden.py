#!/usr/bin/env python3
"""A fixed set of searches whose results must not change when the way
deja stores and indexes text does (issue 14: own text kept as pieces of
the body, analysis in the decode workers, fewer indexes).

The expected results were made by deja as it was before those changes
(commit 4959259, own text stored whole) and are kept in
tests/search-golden/*.json: for the fixtures, every hit of every query in
full (id, subject, snippet, place in the archive, thread); for
twisted-python, each query's count and the ids of its first 50 hits with
the SHA-256 of everything `deja search --format json --limit 0` printed.

    search_golden.py DEJA fixtures DB OUT.json   # write the fixtures' golden file
    search_golden.py DEJA twisted DB OUT.json    # the same for twisted-python
(DB already ingested, as the tests do: fixture directories in FIXTURE_DIRS
order; twisted-python as one directory).
"""
import hashlib
import json
import os
import subprocess
import sys

FIXTURE_DIRS = ("sample", "threads", "text", "search", "people", "replies", "analysis")

QUERIES = (
    "the",
    "malloc",
    "sizeof",
    "pointer OR array",
    "string NOT free",
    '"null pointer"',
    "reac*",
    "NEAR(thread reply, 5)",
    "subject:re",
    "e-mail",
    "don't",
    "C++",
    "twisted.internet",
    "reactor.run()",
    "über",
    "thé",
    "deferred callback",
    "(install OR installing) AND windows",
    "subject:twisted AND web",
    "from:glyph",
    "woven OR nevow",
    "trial NOT unittest",
    "\"connection lost\"",
    "pb*",
    "danke",
    "привет",
    "thread*",
    '"the list"',
    "attachment OR html",
    "date",
)


def run(deja, db, query, limit):
    r = subprocess.run([deja, "search", "--db", db, "--format", "json", "--limit", str(limit), query],
                       capture_output=True, text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1:]}
    return json.loads(r.stdout)


def each_query(deja, db, shape):
    """Every query's hits (files by base name) given to @shape; an error as it came."""
    out = {}
    for q in QUERIES:
        hits = run(deja, db, q, 0)
        if isinstance(hits, list):
            for h in hits:
                h["file"] = os.path.basename(h["file"])
            hits = shape(hits)
        out[q] = hits
    return out


def fixture_results(deja, db):
    """Every hit of every query."""
    keep = ("id", "subject", "snippet", "file", "byte_offset", "thread_id")
    return each_query(deja, db, lambda hits: [{k: h[k] for k in keep} for h in hits])


def corpus_summary(hits):
    blob = json.dumps(hits, sort_keys=True, ensure_ascii=False).encode()
    return {"count": len(hits), "first": [h["id"] for h in hits[:50]],
            "sha256": hashlib.sha256(blob).hexdigest()}


def corpus_results(deja, db):
    """Per query: the count, the first 50 ids and a digest of all of it."""
    return each_query(deja, db, corpus_summary)


def golden(name):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "search-golden", name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def differences(expected, actual):
    """The queries whose results differ, with both (for the failure message)."""
    return {q: (expected.get(q), actual.get(q)) for q in QUERIES if expected.get(q) != actual.get(q)}


if __name__ == "__main__":
    deja_bin, kind, db, out_path = sys.argv[1:5]
    results = fixture_results(deja_bin, db) if kind == "fixtures" else corpus_results(deja_bin, db)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
