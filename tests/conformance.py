#!/usr/bin/env python3
"""Measures deja's splitter against the message counts peers assert.

Reads ../shared/corpora (beside the checkout) when present; the files are
other projects' test data and are not copied into this repository.  Each
count below is asserted by that project's own test suite (see
corpora/EXPECTED.md).  Skips (exit 77) when the corpora are absent.
"""
import os
import re
import subprocess
import sys

import tap

DEJA = os.environ["DEJA"]
ROOT = os.environ.get("DEJA_CORPORA") or os.path.join(os.environ["SOURCE_ROOT"], "..", "shared", "corpora")

EXPECTED = {
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_single.mbox": 1,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_complex.mbox": 2,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_multipart.mbox": 2,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_unixfrom_encoding.mbox": 1,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_unknown_encoding.mbox": 1,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_iso8859_encoding.mbox": 1,
    "chaoss__grimoirelab-perceval/tests/data/mbox/mbox_no_fields.mbox": 6,
    "chaoss__grimoirelab-perceval/tests/data/pipermail/pipermail_2015_november.mbox": 4,
    "chaoss__grimoirelab-perceval/tests/data/pipermail/pipermail_2016_march.mbox": 1,
    "chaoss__grimoirelab-perceval/tests/data/pipermail/pipermail_2016_april.mbox": 3,
    "chaoss__grimoirelab-perceval/tests/data/groupsio/messages.zip.extracted/messages.mbox": 49,
    "datactive__bigbang/tests/data/3GPP_mbox/3GPP_TSG_SA_WG4_EVS.mbox": 50,
    "datactive__bigbang/tests/data/3GPP_mbox/3GPP_TSG_RAN_WG4_NR-MIMO-OTA.mbox": 59,
    "datactive__bigbang/tests/data/2001-November.txt": 164,
    "datactive__bigbang/tests/data/bigbang-dev-test.txt": 6,
    "git__git/t/t5100/sample.mbox": 18,
    "git__git/t/t5100/rfc2047-samples.mbox": 11,
    "git__git/t/t5100/sample.mboxrd": 2,
    "git__git/t/t5100/quoted-cr.mbox": 2,
    "git__git/t/t5100/embed-from.in": 1,
    "git__git/t/t5100/quoted-from.in": 1,
    "git__git/t/t5100/info-from.in": 1,
    "git__git/t/t5100/nul-plain": 1,
    "git__git/t/t5100/nul-b64.in": 1,
    "markov2__perl5-Mail-Box/t/folders/mbox.src": 45,
    "markov2__perl5-Mail-Box/t/folders/mbox.win": 45,
    "jstedfast__gmime/tests/data/mbox/input/substring.mbox": 3,
    "notmuch__notmuch/concatenated/default.mbox": 53,
    "notmuch__notmuch/concatenated/broken.mbox": 4,
    "notmuch__notmuch/concatenated/duplicate.mbox": 9,
    "notmuch__notmuch/concatenated/lkml.mbox": 210,
    "notmuch__notmuch/concatenated/threading-ghost-root.mbox": 9,
    "notmuch__notmuch/concatenated/threading-parent-priority.mbox": 3,
    "hyperkitty__hyperkitty/hyperkitty/tests/testdata/non-ascii-headers.txt": 6,
}


def make_test(rel, expected):
    def check():
        path = os.path.join(ROOT, rel)
        r = subprocess.run([DEJA, "scan", path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        m = re.search(r": (\d+) messages", r.stdout)
        assert m and int(m.group(1)) == expected, "%s: deja %s, peers %d" % (
            rel, m.group(1) if m else "?", expected)
    check.__name__ = rel
    return check


if __name__ == "__main__":
    if not os.path.isdir(ROOT):
        print("1..0 # SKIP no corpora at %s" % ROOT)
        sys.exit(0)
    for rel, n in EXPECTED.items():
        if os.path.exists(os.path.join(ROOT, rel)):
            tap.test(make_test(rel, n))
    tap.run()
