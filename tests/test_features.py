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
import tempfile

import tap
from cli_helpers import DEJA, SAMPLE, TMP, WITHOUT, deja, fresh_db, ok, tmp

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


# The code that sees libpq, libgit2 or igraph is a module each, loaded by
# the first command that needs it (src/util/module.c).
MODULES = {"libpq": "deja-pg.so", "libgit2": "deja-git.so", "igraph": "deja-graph.so",
           "cairo": "deja-plot.so"}
LINKED_NOT = ("libpq.so", "libgit2.so", "libigraph.so", "libcairo.so", "libfontconfig.so")


@tap.test
def the_executable_does_not_link_what_modules_load():
    if shutil.which("readelf") is None:
        tap.skip("readelf (binutils) is not installed")
    dynamic = subprocess.run(["readelf", "-d", DEJA], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic)
    assert needed and "libsqlite3.so.0" in needed, dynamic
    for library in LINKED_NOT:
        assert not any(n.startswith(library) for n in needed), (library, needed)
    # the build tree's deja loads the build tree's modules
    assert "broken:" not in ok("--version").stdout


def away_from_the_build_tree():
    """A copy of deja outside its build tree: it looks for the installed
    modules, which the tests' build has not installed."""
    build = os.path.dirname(os.path.dirname(os.path.realpath(DEJA)))
    away = os.path.realpath(tempfile.mkdtemp(prefix="deja-away-"))
    assert not away.startswith(build + os.sep), (away, build)
    copy = os.path.join(away, "deja")
    shutil.copy2(DEJA, copy)
    out = subprocess.run([copy, "--version"], capture_output=True, text=True, check=True).stdout
    broken = dict(re.findall(r"^broken: (.+?) needs (\S+), which cannot be loaded: .+$", out, re.M))
    if not broken:
        tap.skip("the modules are installed where this deja looks for them")
    return copy, broken


@tap.test
def a_deja_without_its_modules_says_which_file_and_why():
    copy, broken = away_from_the_build_tree()
    built = {"libpq": "libpq" not in WITHOUT, "libgit2": "libgit2" not in WITHOUT, "igraph": True,
             "cairo": "cairo" not in WITHOUT}
    named = {library: path for what, path in broken.items()
             for library in MODULES if "(%s)" % library in what}
    for library, name in MODULES.items():
        if built[library]:
            assert named.get(library, "").endswith(os.sep + name), (library, broken)
            assert not named[library].startswith(os.path.dirname(copy)), named
        else:
            assert library not in named, (library, broken)
    env = dict(os.environ, DEJA_NO_PROGRESS="1")
    db = fresh_db("away.db")
    # what needs no module works as before
    r = subprocess.run([copy, "ingest", "--db", db, "--no-analysis", SAMPLE], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([copy, "network", "--db", db, "--format", "pajek"], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 1 and named["igraph"] in r.stderr and "cannot be loaded" in r.stderr, r
    assert r.stdout == "", r.stdout
    assert subprocess.run([copy, "network", "--db", db, "--format", "graphml"], capture_output=True,
                          env=env).returncode == 0
    if built["cairo"]:
        picture = tmp("away.svg")
        r = subprocess.run([copy, "plot", "--db", db, "--out", picture, "messages"], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 1 and named["cairo"] in r.stderr, r
        assert not os.path.exists(picture), picture
    if built["libpq"]:
        r = subprocess.run([copy, "search", "--pg", "dbname=research", "word"], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 1 and named["libpq"] in r.stderr, r
    if built["libgit2"] and shutil.which("git"):
        repo = tmp("away-inbox.git")
        subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
        r = subprocess.run([copy, "ingest", "--db", fresh_db("away-git.db"), repo], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 1 and named["libgit2"] in r.stderr and "away-inbox.git" in r.stderr, r
    shutil.rmtree(os.path.dirname(copy))


if __name__ == "__main__":
    tap.main(TMP)
