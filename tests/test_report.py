"""deja report and deja plot: one self-contained page with every chart,
each chart alone as SVG and PNG, and the page looked at in a real browser
(headless Chromium, where it is installed)."""
import base64
import json
import html.parser
import os
import re
import sqlite3
import struct
import subprocess
import zlib

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, needs, tmp

THREADS = os.path.join(FIXTURES, "threads")
DB = fresh_db("report.db")
CHARTS = ["messages", "authors", "threads", "posters", "languages", "network", "roles", "crossposts",
          "domains"]
CHROMIUM = "/usr/bin/chromium"


def setup():
    assert deja("ingest", "--db", DB, THREADS).returncode == 0


class Page(html.parser.HTMLParser):
    """The parts of the report a test looks at."""

    def __init__(self):
        super().__init__()
        self.images, self.sections, self.cells, self.refs = [], [], [], []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a)
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag in ("td", "th"):
            self._cell = ""
        for name in ("href", "src"):
            if name in a:
                self.refs.append(a[name])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(self._cell)
            self._cell = None


def report(path):
    r = deja("report", "--db", DB, "--out", path)
    assert r.returncode == 0, r.stderr
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = Page()
    page.feed(text)
    return text, page


@tap.test
def report_is_one_page_with_every_chart():
    needs("cairo")
    text, page = report(tmp("report.html"))
    assert text.startswith("<!DOCTYPE html>")
    assert [i["data-chart"] for i in page.images] == CHARTS
    for img in page.images:
        prefix = "data:image/svg+xml;base64,"
        assert img["src"].startswith(prefix), img["src"][:40]
        svg = base64.b64decode(img["src"][len(prefix):]).decode("utf-8")
        assert "<svg" in svg and "<path" in svg, img["data-chart"]
        assert img["alt"]
    assert page.sections == ["summary"] + CHARTS[:7] + ["groups"] + CHARTS[7:] + ["separator-log", "sources"]
    # Nothing is fetched: every reference is inside the page.
    assert all(ref.startswith("data:") for ref in page.refs), page.refs
    assert not re.search(r"(src|href)=\"(https?:|//)|url\(", text)
    # Provenance: deja's version, the database, the command.
    assert "Made by deja " in text and os.path.abspath(DB) in text
    assert "deja report --db %s --out" % DB in text


@tap.test
def report_numbers_are_the_databases():
    _, page = report(tmp("report-numbers.html"))
    cells = page.cells
    assert cells[cells.index("distinct messages") + 1] == "12"
    assert cells[cells.index("messages (every copy)") + 1] == "14"
    assert cells[cells.index("threads") + 1] == "4"
    with sqlite3.connect(DB) as c:
        files = c.execute("SELECT path, sha256 FROM files ORDER BY path").fetchall()
    for path, sha in files:
        assert path in cells and sha in cells, (path, sha)
    # the groups table is deja groups's: the largest group's first row
    rows = json.loads(deja("groups", "--db", DB, "--format", "json").stdout)
    biggest = sorted({r["group"] for r in rows},
                     key=lambda g: (-sum(r["messages"] for r in rows if r["group"] == g), g))[0]
    first = [r for r in rows if r["group"] == biggest][0]
    i = cells.index("unanswered_share")
    row = cells[i + 3:i + 3 + 11]
    assert row[:4] == [first["group"], first["period"], str(first["messages"]), str(first["authors"])], row


@tap.test
def report_refuses_what_it_cannot_do():
    assert deja("report", "--db", DB).returncode == 2                   # no --out
    r = deja("report", "--db", tmp("no-such.db"), "--out", tmp("x.html"))
    assert r.returncode == 1 and "no-such.db" in r.stderr
    assert not os.path.exists(tmp("x.html"))
    r = deja("report", "--db", DB, "--out", "/nonexistent-dir/r.html")
    assert r.returncode == 1 and "/nonexistent-dir/r.html" in r.stderr


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@tap.test
def plot_draws_each_chart_alone():
    needs("cairo")
    for chart in CHARTS:
        svg, png = tmp(chart + ".svg"), tmp(chart + ".png")
        r = deja("plot", "--db", DB, chart, "--out", svg)
        assert r.returncode == 0, (chart, r.stderr)
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        assert re.search(r'<svg[^>]* width="900pt"', text), text[:300]
        assert deja("plot", "--db", DB, chart, "--out", png, "--width", "640").returncode == 0
        with open(png, "rb") as f:
            assert png_size(f.read())[0] == 640, chart
    # The same network gets the same picture (igraph's generator is seeded).
    again = tmp("network-again.svg")
    deja("plot", "--db", DB, "network", "--out", again)
    with open(tmp("network.svg"), "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()
    assert deja("plot", "--db", DB, "pie", "--out", tmp("p.svg")).returncode == 2
    assert deja("plot", "--db", DB, "messages", "--out", tmp("p.gif"), "--format", "gif").returncode == 2
    assert deja("plot", "--db", DB, "messages").returncode == 2


def png_pixels(data):
    """RGBA or RGB rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    width, height = png_size(data)
    depth, ctype, interlace = data[24], data[25], data[28]
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 4 if ctype == 6 else 3
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


@tap.test
def report_renders_in_a_browser():
    needs("cairo")
    if not os.access(CHROMIUM, os.X_OK):
        tap.skip("Debian's chromium is not installed (apt-get install chromium)")
    page = tmp("browser.html")
    report(page)
    shot = tmp("browser.png")
    profile = tmp("chromium-profile")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile,
           "--window-size=1000,4200", "--screenshot=" + shot, "file://" + page]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and os.path.exists(shot), r.stderr[-2000:]
    with open(shot, "rb") as f:
        width, height, bpp, rows = png_pixels(f.read())
    assert (width, height) == (1000, 4200)
    # The charts' blue (Okabe-Ito #0072B2) is nowhere in the page's own
    # styles: pixels of it mean the browser decoded and drew the charts.
    blue = 0
    lines_with_blue = set()
    for y, row in enumerate(rows):
        for x in range(0, width * bpp, bpp):
            r_, g, b = row[x], row[x + 1], row[x + 2]
            if abs(r_ - 0) < 40 and abs(g - 114) < 40 and abs(b - 178) < 40:
                blue += 1
                lines_with_blue.add(y // 200)
    assert blue > 2000, blue
    # ... in several places down the page: more than one chart is drawn.
    assert len(lines_with_blue) >= 4, sorted(lines_with_blue)


if __name__ == "__main__":
    tap.main(TMP, setup)
