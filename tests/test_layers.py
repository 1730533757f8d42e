#!/usr/bin/env python3
"""The layers' boundaries, checked as text (docs/architecture.md).

meson already refuses most violations (each library gets only the headers
of the layers it depends on, and sqlite3.h / igraph.h are poisoned outside
the store and the networks); this test says the same in a form anyone can
read, and catches an include of a header by a path meson would not see.
"""
import glob
import os
import re

import tap

ROOT = os.environ["SOURCE_ROOT"]
SRC = os.path.join(ROOT, "src")

# layer -> the layers whose headers it may include (besides its own)
ALLOWED = {
    "util": {"parsers"},
    "text": set(),
    "store": {"parsers", "util"},
    "pipeline": {"parsers", "util", "store", "text"},
    "net": {"parsers", "util", "store"},
    "plot": set(),
    "cli": {"parsers", "util", "store", "pipeline", "net", "plot", "text"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.M)


def headers_of():
    owner = {}
    for layer in list(ALLOWED) + ["parsers"]:
        base = os.path.join(ROOT, "parsers") if layer == "parsers" else os.path.join(SRC, layer)
        for path in glob.glob(os.path.join(base, "*.h")):
            owner[os.path.basename(path)] = layer
    owner["schema.h"] = "store"     # generated from schema/ for the store
    return owner


def files(layer):
    base = os.path.join(ROOT, "parsers") if layer == "parsers" else os.path.join(SRC, layer)
    return sorted(glob.glob(os.path.join(base, "*.[ch]")) + glob.glob(os.path.join(base, "*.cc")))


@tap.test
def language_libraries_only_in_the_text_layer():
    """CLD2, ICU, Snowball and Hunspell stay behind src/text (words.h, analyse.h, …)."""
    found = []
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]*"), recursive=True) + files("parsers"):
        incs = INCLUDE.findall(open(path, encoding="utf-8").read())
        if any(i.startswith(("cld2/", "unicode/", "hunspell/")) or i == "libstemmer.h" for i in incs):
            found.append(os.path.relpath(path, ROOT))
    assert found and all(p.startswith("src/text/") for p in found), found


@tap.test
def sqlite_only_in_the_store_and_igraph_only_in_graph_c():
    sqlite, igraph, cairo = [], [], []
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]"), recursive=True) + files("parsers"):
        text = open(path, encoding="utf-8").read()
        incs = INCLUDE.findall(text)
        if "sqlite3.h" in incs:
            sqlite.append(os.path.relpath(path, ROOT))
        if any(i.startswith("igraph") for i in incs):
            igraph.append(os.path.relpath(path, ROOT))
        if any(i.startswith("cairo") or i.startswith("fontconfig") for i in incs):
            cairo.append(os.path.relpath(path, ROOT))
    assert sqlite and all(p.startswith("src/store/") for p in sqlite), sqlite
    assert igraph == ["src/net/graph.c"], igraph
    assert cairo == ["src/plot/plot.c"], cairo


@tap.test
def each_layer_includes_only_the_layers_below_it():
    owner = headers_of()
    bad = []
    for layer, allowed in ALLOWED.items():
        for path in files(layer):
            for inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
                other = owner.get(os.path.basename(inc))
                if other and other != layer and other not in allowed:
                    bad.append("%s includes %s (%s)" % (os.path.relpath(path, ROOT), inc, other))
    for path in files("parsers"):
        for inc in INCLUDE.findall(open(path, encoding="utf-8").read()):
            if owner.get(inc, "parsers") != "parsers":
                bad.append("%s includes %s" % (os.path.relpath(path, ROOT), inc))
    assert not bad, "\n".join(bad)


@tap.test
def store_private_header_stays_in_the_store():
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]"), recursive=True):
        if "/store/" not in path:
            assert "store-private.h" not in INCLUDE.findall(open(path, encoding="utf-8").read()), path


if __name__ == "__main__":
    tap.run()
