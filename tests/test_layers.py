#!/usr/bin/env python3
"""The layers' boundaries (docs/architecture.md), checked on the sources.

meson already refuses most violations (each library gets only the headers
of the layers it depends on, and sqlite3.h / igraph.h are poisoned outside
the store and the networks, parsers included); this test reads each
layer's dependencies from its meson.build, resolves every include to the
file the compiler would open, and fails on an include of a layer not
depended on, by name or by a relative path meson would not see (a parser
that includes anything of src/ among them); a test feeds it such sources.
"""
import glob
import os
import re

import tap

ROOT = os.environ["SOURCE_ROOT"]
SRC = os.path.join(ROOT, "src")

LAYER_DIRS = {"parsers": os.path.join(ROOT, "parsers"), "util": os.path.join(SRC, "util"),
              "text": os.path.join(SRC, "text"), "store": os.path.join(SRC, "store"),
              "pipeline": os.path.join(SRC, "pipeline"), "net": os.path.join(SRC, "net"),
              "plot": os.path.join(SRC, "plot"), "pg": os.path.join(SRC, "pg"), "cli": os.path.join(SRC, "cli")}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
DEP = re.compile(r"\b([a-z]+)_dep\b")


def meson_dependencies():
    """Each layer's own libraries (static_library, or the executable for
    cli) and what each declare_dependency passes on, read from meson.build."""
    own, exported = {}, {}
    for layer, d in LAYER_DIRS.items():
        text = open(os.path.join(d if layer != "cli" else SRC, "meson.build"), encoding="utf-8").read()
        if layer == "cli":
            call = re.search(r"executable\('deja'.*?dependencies\s*:\s*\[([^\]]*)\]", text, re.S)
        else:
            call = re.search(r"static_library\(.*?dependencies\s*:\s*\[([^\]]*)\]", text, re.S)
        own[layer] = {m for m in DEP.findall(call.group(1)) if m in LAYER_DIRS}
        passed = re.search(r"declare_dependency\(.*?dependencies\s*:\s*\[([^\]]*)\]", text, re.S)
        exported[layer] = {m for m in DEP.findall(passed.group(1)) if m in LAYER_DIRS} if passed else set()
    return own, exported


def allowed_layers():
    """layer -> the layers whose headers it sees: its dependencies and
    what they pass on, transitively (as meson hands out include paths)."""
    own, exported = meson_dependencies()
    allowed = {}
    for layer in LAYER_DIRS:
        seen, todo = set(), list(own[layer])
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo.extend(exported[d])
        allowed[layer] = seen | {layer}
    return allowed


def layer_of(path):
    path = os.path.realpath(path)
    for layer, d in LAYER_DIRS.items():
        if os.path.dirname(path) == os.path.realpath(d):
            return layer
    if path.startswith(os.path.realpath(ROOT) + os.sep):
        return "elsewhere"
    return None   # a system header


def resolve(including, quote, name, search):
    """The file an include names, as the compiler finds it: "x.h" first
    beside the including file, then in the include directories @search
    (each layer's folder); <x.h> only there.  None: a system header."""
    candidates = ([os.path.dirname(including)] if quote == '"' else []) + search
    for d in candidates:
        full = os.path.normpath(os.path.join(d, name))
        if os.path.exists(full):
            return full
    if name == "schema.h":
        return os.path.join(LAYER_DIRS["store"], "schema.h")   # generated for the store
    return None


def violations(layer, path, text, allowed):
    """What @path (of @layer, holding @text) includes that its layer may not."""
    search = [LAYER_DIRS[l] for l in sorted(allowed[layer])]
    bad = []
    for quote, name in INCLUDE.findall(text):
        target = resolve(path, quote, name, search)
        if target is None:
            # not found where meson looks: in another layer's folder?
            for other, d in LAYER_DIRS.items():
                if other not in allowed[layer] and os.path.exists(os.path.join(d, os.path.basename(name))):
                    bad.append("%s includes %s, a header of %s" % (os.path.relpath(path, ROOT), name, other))
            continue
        owner = layer_of(target)
        if owner is not None and owner not in allowed[layer]:
            bad.append("%s includes %s (%s), a header of %s" % (os.path.relpath(path, ROOT), name,
                                                              os.path.relpath(target, ROOT), owner))
    return bad


def files(layer):
    base = LAYER_DIRS[layer]
    return sorted(glob.glob(os.path.join(base, "*.[ch]")) + glob.glob(os.path.join(base, "*.cc")))


@tap.test
def language_libraries_only_in_the_text_layer():
    """CLD2, ICU, Snowball and Hunspell stay behind src/text (words.h, analyse.h, …)."""
    found = []
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]*"), recursive=True) + files("parsers"):
        incs = [name for _, name in INCLUDE.findall(open(path, encoding="utf-8").read())]
        if any(i.startswith(("cld2/", "unicode/", "hunspell/")) or i == "libstemmer.h" for i in incs):
            found.append(os.path.relpath(path, ROOT))
    assert found and all(p.startswith("src/text/") for p in found), found


@tap.test
def sqlite_only_in_the_store_and_igraph_only_in_graph_c():
    """And cairo only in plot.c, libpq only in pg.c."""
    sqlite, igraph, cairo, libpq = [], [], [], []
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]"), recursive=True) + files("parsers"):
        text = open(path, encoding="utf-8").read()
        incs = [name for _, name in INCLUDE.findall(text)]
        if "sqlite3.h" in incs:
            sqlite.append(os.path.relpath(path, ROOT))
        if any(i.startswith("igraph") for i in incs):
            igraph.append(os.path.relpath(path, ROOT))
        if any(i.startswith("cairo") or i.startswith("fontconfig") for i in incs):
            cairo.append(os.path.relpath(path, ROOT))
        if any(i.startswith("libpq") for i in incs):
            libpq.append(os.path.relpath(path, ROOT))
    assert sqlite and all(p.startswith("src/store/") for p in sqlite), sqlite
    assert igraph == ["src/net/graph.c"], igraph
    assert cairo == ["src/plot/plot.c"], cairo
    assert libpq == ["src/pg/pg.c"], libpq


@tap.test
def each_layer_includes_only_the_layers_it_depends_on():
    """Includes resolved to files, as the compiler finds them (beside the
    file, then the include directories meson gives), against each layer's
    dependencies as its meson.build declares them: a parser that includes
    anything of src/, a layer that reaches a header of one it does not
    depend on, by name or by a relative path, fails."""
    allowed = allowed_layers()
    assert allowed["parsers"] == {"parsers"}, allowed["parsers"]
    assert "store" not in allowed["text"] and "pipeline" not in allowed["store"], allowed
    bad = []
    for layer in LAYER_DIRS:
        for path in files(layer):
            bad += violations(layer, path, open(path, encoding="utf-8").read(), allowed)
    assert not bad, "\n".join(bad)


@tap.test
def the_check_fails_on_what_it_names():
    """The cases the docstring above names, written as sources."""
    allowed = allowed_layers()
    parser = os.path.join(LAYER_DIRS["parsers"], "new.c")
    text = os.path.join(LAYER_DIRS["text"], "new.c")
    store = os.path.join(LAYER_DIRS["store"], "new.c")
    assert violations("parsers", parser, '#include "store.h"\n', allowed)
    assert violations("parsers", parser, '#include "../src/util/input.h"\n', allowed)
    assert violations("parsers", parser, '#include <walk.h>\n', allowed)
    assert violations("text", text, '#include "../store/store.h"\n', allowed)
    assert violations("store", store, '#include "network.h"\n', allowed)
    assert violations("store", store, '#include "../pipeline/ingest.h"\n', allowed)
    # and passes what is allowed
    assert not violations("parsers", parser, '#include "mbox.h"\n#include <glib.h>\n', allowed)
    assert not violations("store", store, '#include "mail.h"\n#include "input.h"\n#include "schema.h"\n', allowed)
    assert not violations("cli", os.path.join(LAYER_DIRS["cli"], "new.c"), '#include "network.h"\n', allowed)


def public_header_layers(layer, header):
    """The layers whose headers @header (of @layer) includes."""
    search = [LAYER_DIRS[l] for l in sorted(allowed_layers()[layer])]
    path = os.path.join(LAYER_DIRS[layer], header)
    return {layer_of(t) for t in (resolve(path, q, n, search)
                                  for q, n in INCLUDE.findall(open(path, encoding="utf-8").read()))
            if t is not None} - {None}


@tap.test
def the_store_header_names_no_parser_type():
    """store.h has row types of its own (threads, separator and author
    decisions): the pipeline converts between them and the parsers'."""
    assert public_header_layers("store", "store.h") <= {"util"}, public_header_layers("store", "store.h")
    # the check itself sees a parser header
    assert public_header_layers("pipeline", "threads.h") >= {"parsers"}


@tap.test
def store_private_header_stays_in_the_store():
    for path in glob.glob(os.path.join(SRC, "**", "*.[ch]"), recursive=True):
        if "/store/" not in path:
            assert "store-private.h" not in [n for _, n in INCLUDE.findall(open(path, encoding="utf-8").read())], path


if __name__ == "__main__":
    tap.run()
