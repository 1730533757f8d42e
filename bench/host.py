#!/usr/bin/env python3
"""bench/host.py — what this host charges for memory a program has not
touched before, measured beside every table (bench/run, bench/shards).

A virtual machine whose host takes back the memory its guest frees (a
balloon with free page reporting, as on the machines these figures come
from) makes the guest wait for the host the first time a page is touched
again: a new file's pages in the page cache, a heap that grows.  On such a
host a new file costs far more to write than the same file overwritten,
and the cost depends on how long the memory lay free before: a merge that
writes a 1.5 GB database, or an ingest right after another program freed
gigabytes, is slower by seconds for reasons that are the host's, not the
program's.  Printed with the tables so that their seconds can be read.

    bench/host.py [DIR]     one line: microseconds per 4 KiB page for a
                            new file's pages (written in DIR, default the
                            current one, then removed), the same pages
                            overwritten, and new anonymous memory
"""
import os
import sys
import time

SIZE = 256 << 20
BLOCK = 64 << 10
PAGES = SIZE // 4096


def _write(fd, block):
    for _ in range(SIZE // BLOCK):
        os.write(fd, block)


def page_costs(directory="."):
    """(new file, overwritten, new memory): microseconds per 4 KiB page."""
    block = b"\xa5" * BLOCK
    path = os.path.join(directory, ".deja-bench-host-%d" % os.getpid())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        started = time.perf_counter()
        _write(fd, block)
        new = time.perf_counter() - started
        os.lseek(fd, 0, os.SEEK_SET)
        started = time.perf_counter()
        _write(fd, block)
        again = time.perf_counter() - started
    finally:
        os.close(fd)
        os.unlink(path)
    started = time.perf_counter()
    memory = bytearray(SIZE)
    for i in range(0, SIZE, 4096):
        memory[i] = 1
    anonymous = time.perf_counter() - started
    del memory
    return tuple(1e6 * t / PAGES for t in (new, again, anonymous))


def describe(directory="."):
    try:
        new, again, anonymous = page_costs(directory)
    except OSError as e:
        return "pages not measured (%s)" % e
    return ("a page (4 KiB) first touched: %.2f us in a new file (%.2f overwritten), %.2f us of"
            " new memory" % (new, again, anonymous))


if __name__ == "__main__":
    print(describe(sys.argv[1] if len(sys.argv) > 1 else "."))
