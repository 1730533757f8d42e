"""A minimal TAP producer for deja's Python tests (meson: protocol 'tap')."""
import shutil
import sys
import traceback

_tests = []


class Skip(Exception):
    """Raised by skip(): the test cannot run here (TAP's "# SKIP")."""


def skip(reason):
    raise Skip(reason)


def test(fn):
    _tests.append(fn)
    return fn


def run():
    print("1..%d" % len(_tests))
    failed = 0
    for i, fn in enumerate(_tests, 1):
        try:
            fn()
            print("ok %d - %s" % (i, fn.__name__))
        except Skip as why:
            print("ok %d - %s # SKIP %s" % (i, fn.__name__, why))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (i, fn.__name__))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


def main(scratch, setup=None):
    """Runs setup (if any) and the tests, then removes the scratch directory."""
    try:
        if setup:
            setup()
        run()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
