#!/usr/bin/env python3
"""A deja built without an optional library (meson_options.txt: libgit2,
cld2, hunspell, cairo, libpq) says what it lacks and makes nothing up.

Every build runs this file: the tests of what a build without a library
does run where meson left it out (DEJA_WITHOUT), and skip elsewhere;
the version line is checked in both."""
import os
import re
import shutil
import sqlite3
import subprocess

import tap
from cli_helpers import SAMPLE, TMP, WITHOUT, deja, fresh_db, ok, tmp

FEATURES = {"libgit2": "libgit2", "cld2": "CLD2", "hunspell": "Hunspell", "cairo": "cairo",
            "libpq": "libpq", "mimalloc": "mimalloc"}


def without(feature):
    if feature not in WITHOUT:
        tap.skip("built with %s" % FEATURES[feature])


@tap.test
def version_says_what_the_build_has_and_lacks():
    out = ok("--version").stdout
    built_with = re.search(r"^built with: (.*)$", out, re.M).group(1)
    for feature, name in FEATURES.items():
        lacking = re.search(r"^built without %s \(([a-z0-9-]+)\): (.+)$" % re.escape(name), out, re.M)
        if feature in WITHOUT:
            assert lacking and name not in built_with.split(", "), out
            assert lacking.group(1).endswith("-dev"), out   # the package to install
        else:
            assert lacking is None and name in built_with.split(", "), out


@tap.test
def without_cld2_no_language_is_made_up():
    without("cld2")
    db = fresh_db("no-cld2.db")
    r = ok("ingest", "--db", db, SAMPLE)
    assert "left NULL" in r.stderr and "CLD2" in r.stderr, r.stderr
    rows = sqlite3.connect(db).execute("SELECT count(*), count(lang), count(words), count(oov_share)"
                                       " FROM messages").fetchone()
    assert rows[0] > 0 and rows[1:] == (0, 0, 0), rows
    r = deja("analyse", "--db", db)
    assert r.returncode == 1 and "'analyse' is missing from this build: it needs CLD2" in r.stderr, r
    assert "libcld2-dev" in r.stderr, r.stderr
    assert ok("analyse", "--help").stdout.startswith("Usage:")
    # what needs no language still works
    assert ok("search", "--db", db, "sizeof").stdout.strip()


@tap.test
def without_cairo_plot_is_missing_and_the_report_says_why():
    without("cairo")
    db = fresh_db("no-cairo.db")
    ok("ingest", "--db", db, "--no-analysis", SAMPLE)
    picture = tmp("no-cairo.svg")
    r = deja("plot", "--db", db, "--out", picture, "messages")
    assert r.returncode == 1 and "it needs cairo" in r.stderr and "libcairo2-dev" in r.stderr, r
    assert not os.path.exists(picture)
    page = tmp("no-cairo.html")
    ok("report", "--db", db, "--out", page)
    html = open(page, encoding="utf-8").read()
    assert html.count("Not drawn: this deja was built without cairo.") == 9, html
    assert "<img" not in html and html.count("<section") == html.count("</section>"), html


@tap.test
def without_libgit2_a_repository_is_an_error_naming_it():
    without("libgit2")
    if shutil.which("git") is None:
        tap.skip("git is not installed")
    repo = tmp("inbox.git")
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    db = fresh_db("no-git.db")
    r = deja("ingest", "--db", db, repo)
    assert r.returncode == 1 and "built without libgit2" in r.stderr and "inbox.git" in r.stderr, r


@tap.test
def without_libpq_pg_is_an_error_naming_it():
    without("libpq")
    for command in (["search", "--pg", "dbname=research", "word"], ["stats", "--pg", "dbname=research"]):
        r = deja(*command)
        assert r.returncode == 1 and "built without libpq" in r.stderr and "libpq-dev" in r.stderr, r


if __name__ == "__main__":
    tap.main(TMP)
