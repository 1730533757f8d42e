"""The habits of a good command-line tool: a manual page installed with
the program and in step with it, bash and zsh completion read from deja's
own help."""
import json
import os
import re
import shutil
import sqlite3
import subprocess

import tap
from cli_helpers import DEJA, TMP, WITHOUT, deja, tmp

SOURCE = os.environ["SOURCE_ROOT"]
BUILD = os.environ["BUILD_ROOT"]
MAN_SOURCE = os.path.join(SOURCE, "docs", "deja.1")
BASH = os.path.join(SOURCE, "contrib", "completion", "deja.bash")
ZSH = os.path.join(SOURCE, "contrib", "completion", "_deja")


def commands():
    r = deja("help")
    names = re.findall(r"^  ([a-z][a-z-]*)  ", r.stdout, re.M)
    assert len(names) >= 13, r.stdout
    return names


def render(path):
    env = dict(os.environ, MANWIDTH="80")
    env.pop("MAN_KEEP_FORMATTING", None)
    r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


@tap.test
def man_page_renders_with_a_section_per_command():
    if shutil.which("man") is None:
        tap.skip("man-db is not installed")
    text = render(MAN_SOURCE)
    for name in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "EXIT STATUS"]:
        assert re.search(r"^%s$" % name, text, re.M), name
    for command in commands():
        assert re.search(r"^   deja %s( |$)" % re.escape(command), text, re.M), command
    version = deja("--version").stdout.split()[1]
    assert "deja %s" % version in text, "the page names another version"
    for variable in ("DEJA_DB", "NO_COLOR"):
        assert variable in text


@tap.test
def meson_install_puts_the_page_and_completion_in_place():
    if shutil.which("man") is None:
        tap.skip("man-db is not installed")
    dest = tmp("destdir")
    r = subprocess.run(["meson", "install", "--no-rebuild", "-C", BUILD, "--destdir", dest],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    found = {os.path.relpath(os.path.join(d, f), dest) for d, _, fs in os.walk(dest) for f in fs}
    man = [f for f in found if f.endswith("man1/deja.1")]
    assert len(man) == 1, found
    assert any(f.endswith("bash-completion/completions/deja") for f in found), found
    assert any(f.endswith("zsh/vendor-completions/_deja") for f in found), found
    assert any(f.endswith("bin/deja") for f in found), found
    # the modules loaded when used, beside each other in LIBDIR/deja
    modules = {"deja-graph.so": True, "deja-pg.so": "libpq" not in WITHOUT,
               "deja-git.so": "libgit2" not in WITHOUT, "deja-plot.so": "cairo" not in WITHOUT}
    for module, built in modules.items():
        installed = [f for f in found if f.endswith(os.sep + "deja" + os.sep + module)]
        assert len(installed) == (1 if built else 0), (module, found)
    render(os.path.join(dest, man[0]))


def bash_complete(*words):
    """What bash offers after DEJA WORDS... (the last word is being typed)."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _deja;'
              ' printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "-c", script, "bash", BASH, DEJA] + list(words),
                       capture_output=True, text=True, cwd=TMP)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@tap.test
def bash_completes_commands_options_and_values():
    assert bash_complete("se") == ["search"]
    assert sorted(bash_complete("")) == sorted(commands() + ["help", "--help", "--version"])
    assert set(bash_complete("search", "--f")) == {"--format"}
    assert "--threads" in bash_complete("search", "--") and "--count" in bash_complete("search", "--")
    assert bash_complete("search", "--format", "") == ["table", "tsv", "csv", "json"]
    assert bash_complete("show", "-f", "") == []          # FORMAT depends on --thread
    assert bash_complete("network", "--kind", "") == ["reply", "thread", "group", "crosspost", "site", "link",
                                                           "link-message"]
    assert bash_complete("plot", "n") == ["network"]
    assert bash_complete("search", "--limit", "") == []   # a number: nothing to offer
    with open(tmp("corpus-x.db"), "w"):
        pass
    assert bash_complete("stats", "--db", "corpus-") == ["corpus-x.db"]


ZSH_STUBS = r'''
compadd () { [[ $1 == -- ]] && shift; print -l -- "$@"; }
_describe () { local -a a; a=("${(@P)4}"); print -l -- ${a%%:*}; }
_files () { print -- "<files>"; }
_call_program () { shift; "$@"; }
'''


def zsh_complete(*words):
    script = ZSH_STUBS + 'words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; source %s' % ZSH
    r = subprocess.run(["zsh", "-f", "-c", script, "zsh", DEJA] + list(words),
                       capture_output=True, text=True, cwd=TMP)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@tap.test
def zsh_completes_commands_options_and_values():
    if shutil.which("zsh") is None:
        tap.skip("zsh is not installed")
    assert sorted(zsh_complete("")) == sorted(commands())
    assert "--format" in zsh_complete("search", "--") and "--threads" in zsh_complete("search", "--")
    assert zsh_complete("search", "--format", "") == ["table", "tsv", "csv", "json"]
    assert zsh_complete("plot", "") == ["messages", "authors", "threads", "posters", "network", "languages",
                                       "crossposts", "domains", "roles"]
    assert zsh_complete("stats", "--db", "") == ["<files>"]
    assert zsh_complete("search", "--limit", "") == []



STAGES = ["waiting for decoders", "making rows", "files begun, finished", "messages rows",
          "full-text index", "other rows", "commits", "secondary indexes", "threads", "authors",
          "analysis after"]


def profile_of(stderr):
    """{stage: seconds} from --profile's lines, and the wall line."""
    found = dict((m.group(2).strip(), float(m.group(3)))
                 for m in re.finditer(r"^  (writer|workers) +(.+?) +([0-9.]+) s", stderr, re.M))
    return found, wall_of(stderr)


def shares_of(stderr):
    """{stage: percent of the wall} of the writer's lines: finer than their seconds, which
    are printed to the hundredth (4 ms of 0.19 s is "0.00 s 2.1 %")."""
    return dict((m.group(1).strip(), float(m.group(2)))
                for m in re.finditer(r"^  writer +(.+?) +[0-9.]+ s +([0-9.]+) %", stderr, re.M))


def wall_of(stderr):
    wall = re.search(r"^  wall ([0-9.]+) s(?:; ([0-9.]+) MiB/s, the writer's ceiling ([0-9.]+) MiB/s"
                     r"(?:, with the full-text index's ([0-9]+) threads? ([0-9.]+) MiB/s)?)?$", stderr, re.M)
    assert wall, stderr
    return wall


@tap.test
def ingest_and_merge_profile_says_where_the_time_went():
    from cli_helpers import SAMPLE, fresh_db
    db = fresh_db("profiled.db")
    archive = tmp("profiled.mbox")
    with open(archive, "w") as f:     # enough messages for every stage to take a measurable time
        for i in range(4000):
            f.write("From a%d@example.org Mon Mar  3 10:00:00 1997\nFrom: A%d <a%d@example.org>\n"
                    "Subject: question %d\nMessage-ID: <m%d@example.org>\nDate: Mon, 3 Mar 1997 "
                    "10:00:00 GMT\n\nWhy does the reactor stop when the network goes away, %d?\n\n"
                    % (i % 50, i % 50, i % 50, i, i, i))
    r = deja("ingest", "--profile", "--db", db, archive)
    assert r.returncode == 0, r.stderr
    assert "where the time went" in r.stderr, r.stderr
    found, wall = profile_of(r.stderr)
    for stage in STAGES + ["busy (all but waiting)", "decoding"]:
        assert stage in found, (stage, r.stderr)
    # busy is the sum of the writer's stages but waiting, as printed (rounded)
    busy = sum(found[s] for s in STAGES if s != "waiting for decoders")
    assert abs(found["busy (all but waiting)"] - busy) < 0.06, r.stderr
    shares = shares_of(r.stderr)
    assert shares["messages rows"] > 0 and shares["full-text index"] > 0, r.stderr
    assert 0 < found["busy (all but waiting)"] <= float(wall.group(1)) + 0.01, r.stderr
    assert wall.group(3) is not None and float(wall.group(3)) >= float(wall.group(2)), r.stderr
    # with the full-text index beside the writer (more than one core here), the ceiling its
    # threads set too: no higher than the writer's, since the writer's work at the end is in both
    if len(os.sched_getaffinity(0)) > 1:
        assert wall.group(4) == "1" and float(wall.group(3)) >= float(wall.group(5)) > 0, r.stderr
        # three threads (DEJA_FTS_LANES): each one's part, which add up to the index's
        # CPU, and the ceiling of the busiest
        long = tmp("profiled-long.mbox")   # text enough for each thread's part to show
        with open(long, "w") as f:
            for i in range(3000):
                f.write("From a%d@example.org Mon Mar  3 10:00:00 1997\nFrom: A <a%d@example.org>\n"
                        "Subject: question %d\nMessage-ID: <l%d@example.org>\n\n%s\n\n"
                        % (i % 50, i % 50, i, i, " ".join("reactor%d network%d stops" % (i * j % 997, j)
                                                           for j in range(60))))
        three = subprocess.run([DEJA, "ingest", "--profile", "--db", fresh_db("profiled-3.db"), long],
                               capture_output=True, text=True,
                               env=dict(os.environ, DEJA_NO_PROGRESS="1", DEJA_FTS_LANES="3"))
        assert three.returncode == 0, three.stderr
        parts = re.search(r"^  beside +full-text index +([0-9.]+) s CPU \(([0-9.]+), ([0-9.]+), ([0-9.]+) s a thread\)$",
                          three.stderr, re.M)
        assert parts, three.stderr
        assert abs(sum(float(p) for p in parts.groups()[1:]) - float(parts.group(1))) <= 0.03, three.stderr
        assert wall_of(three.stderr).group(4) == "3", three.stderr
    # the threads beside the writer: their CPU time (the full-text index's line is there
    # whether or not a thread of its own made it)
    assert found["decoding"] > 0, r.stderr
    # (without CLD2 the language stage is not run: its line says 0)
    assert (found["language and signals"] > 0) == ("cld2" not in WITHOUT), r.stderr
    assert re.search(r"^  beside +full-text index +[0-9.]+ s CPU$", r.stderr, re.M), r.stderr
    # without --profile, nothing of it
    assert "where the time went" not in deja("ingest", "--db", fresh_db("plain.db"), SAMPLE).stderr
    out = fresh_db("merged-profiled.db")
    r = deja("merge", "--profile", "--db", out, db)
    assert r.returncode == 0, r.stderr
    found, _ = profile_of(r.stderr)
    # the first shard into an empty database: its messages copied as SQLite stored them
    # (hundredths of a second), its index as pages, not words
    assert "messages copied as stored" in r.stderr and "full-text index copied" in r.stderr, r.stderr
    assert "messages rows" in found and found["full-text index"] < found["messages rows"] + 0.05, r.stderr
    out = fresh_db("merged-reindexed.db")
    r = deja("merge", "--profile", "--reindex", "--db", out, db)
    found, _ = profile_of(r.stderr)
    assert r.returncode == 0 and found["full-text index"] > 0, r.stderr


BESIDE = "full-text index made beside the writer"


def verbose_ingest(name, *prefix, args=()):
    """deja ingest --verbose of the sample into a new database, under
    @prefix (taskset, a shell that enters a cgroup); its stderr."""
    from cli_helpers import SAMPLE, WITHOUT, fresh_db
    cmd = list(prefix) + [DEJA, "ingest", "--verbose"] + list(args) + ["--db", fresh_db(name), SAMPLE]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, DEJA_NO_PROGRESS="1"))
    assert r.returncode == 0, r.stderr
    return r.stderr


@tap.test
def threads_follow_the_cpus_deja_may_use_not_the_machines():
    """A Slurm job given one CPU of a large node, taskset, a container:
    one decoding thread per CPU the affinity mask allows, not per CPU of
    the machine, and no thread for the full-text index on one CPU."""
    if shutil.which("taskset") is None:
        tap.skip("taskset (util-linux) is not installed")
    online = len(os.sched_getaffinity(0))
    one = verbose_ingest("one-cpu.db", "taskset", "-c", str(min(os.sched_getaffinity(0))))
    assert "decoding threads: 1, one per CPU deja may use (1 CPU" in one, one
    assert ", 1 decoding threads," in one, one
    assert BESIDE not in one, one
    if os.cpu_count() > 1:
        assert "(1 CPU of %d: affinity mask)" % os.cpu_count() in one, one
    # -j is what was asked for, whatever deja may use
    asked = verbose_ingest("asked.db", "taskset", "-c", str(min(os.sched_getaffinity(0))), args=["-j", "3"])
    assert "decoding threads: 3 (-j); deja may use 1 CPU" in asked, asked
    assert ", 3 decoding threads," in asked, asked
    if online < 2:
        tap.skip("one CPU here: the case of several is not seen")
    every = verbose_ingest("every-cpu.db")
    assert "decoding threads: %d, one per CPU deja may use" % online in every, every
    assert BESIDE in every, every


def own_cgroup_v1_cpu():
    """The directory of this process's cgroup in a writable cgroup v1 cpu
    hierarchy, or None."""
    cgroups = open("/proc/self/cgroup").read()
    path = next((l.split(":", 2)[2] for l in cgroups.splitlines()
                 if "cpu" in l.split(":")[1].split(",")), None)
    mount = next((l.split()[4] for l in open("/proc/self/mountinfo")
                  if " - cgroup " in l and "cpu" in l.strip().rsplit(" ", 1)[1].split(",")
                  and l.split()[3] == "/"), None)
    if path is None or mount is None:
        return None
    here = os.path.join(mount, path.lstrip("/"))
    return here if os.access(here, os.W_OK) else None


@tap.test
def threads_follow_a_cgroup_cpu_quota():
    """docker run --cpus=0.5 or systemd's CPUQuota=50% on a machine of
    more CPUs: one decoding thread; the quota may be set on a cgroup
    above the process's own."""
    if os.geteuid() != 0:
        tap.skip("making a cgroup needs root")
    if len(os.sched_getaffinity(0)) < 2:
        tap.skip("one CPU here: a quota of one changes nothing")
    here = own_cgroup_v1_cpu()
    if here is None:
        tap.skip("no writable cgroup v1 cpu hierarchy here (cgroup v2 needs its cpu controller"
                 " delegated, which a test cannot set up)")
    outer = os.path.join(here, "deja-test-%d" % os.getpid())
    inner = os.path.join(outer, "inner")
    try:
        os.makedirs(inner)
        with open(os.path.join(outer, "cpu.cfs_quota_us"), "w") as f:
            f.write("50000")          # half a CPU, period 100000
    except OSError as e:
        tap.skip("cannot make a cgroup here: %s" % e)
    try:
        for where in (outer, inner):
            enter = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', where]
            text = verbose_ingest("quota.db", *enter)
            assert "decoding threads: 1, one per CPU deja may use (1 CPU of %d: cgroup CPU quota)" \
                % os.cpu_count() in text, (where, text)
            assert BESIDE not in text, text
    finally:
        for d in (inner, outer):
            try:
                os.rmdir(d)
            except OSError:
                pass


def one_message_files(name, n):
    """A news spool's or a Maildir's shape: @n files of one message each."""
    top = tmp(name)
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(os.path.join(top, "new"))
    for i in range(n):
        with open(os.path.join(top, "new", "%d.host" % i), "w") as f:
            f.write("From: P%d <p%d@example.org>\nSubject: post %d\nMessage-ID: <post%d@example.org>\n"
                    "Date: Tue, 4 Mar 1997 10:%02d:00 GMT\n%s\nWhy is the reactor not running, %d?\n"
                    % (i % 7, i % 7, i, i, i % 60,
                       "References: <post%d@example.org>\n" % (i - 1) if i % 3 else "", i))
    return top


STORE_COUNTS = {
    "prepared": r"\[test\] (\d+) statements prepared, (\d+) by the full-text index's thread",
    "journals": r"\[test\] (\d+) statement journals kept in memory, (\d+) of them went to a file",
    "handed": r"\[test\] (\d+) hand-overs to the full-text index's thread",
}


def store_count(what, archive, **env):
    """What an ingest of @archive says of its store at exit with DEJA_STORE_COUNT=1
    (store-checked.c): @what is a key of STORE_COUNTS; its numbers, a tuple"""
    db = tmp("counted.db")
    r = subprocess.run([DEJA, "ingest", "--db", db, archive], capture_output=True, text=True,
                       env=dict(os.environ, DEJA_STORE_COUNT="1", DEJA_NO_PROGRESS="1", **env))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    assert r.returncode == 0, r.stderr
    m = re.search(STORE_COUNTS[what], r.stderr)
    assert m, r.stderr
    return tuple(int(g) for g in m.groups())


def statements_prepared(archive):
    """Statements compiled by the writer's thread and by the full-text index's"""
    return store_count("prepared", archive)


def handed_over(archive):
    """How many times an ingest of @archive handed work to the full-text index's thread"""
    return store_count("handed", archive)[0]


def statement_journals(archive, **env):
    """How many statement journals an ingest of @archive kept in memory, and how many of
    them went to a file (store-subjournal.c)"""
    return store_count("journals", archive, **env)


@tap.test
def an_ingest_compiles_no_statement_for_each_file():
    # What an ingest reads and writes for each file (is the path here already, its row, the
    # savepoint) is compiled once: compiled again for each, a DELETE with every cascade of
    # the foreign keys among them, it took a Maildir of 8,000 messages 14 s instead of 1.6.
    few, few_side = statements_prepared(one_message_files("spool-20", 20))
    many, side = statements_prepared(one_message_files("spool-80", 80))
    assert 0 < few and many - few <= 5, (few, many)
    # the full-text index's thread follows each file's savepoint with statements kept too
    assert 0 < side == few_side, (few_side, side)
    # and is handed each file's savepoint, rows and release in batches, not one by one
    # (each hand-over wakes it: three for each file before)
    assert handed_over(one_message_files("spool-80", 80)) <= 80 * 3 // 64 + 6
    # but the rows of one large mbox as they come, 256 at a time: held with the small ops,
    # they waited for 64 of them (16,384 rows), the thread idle and the writer's memory up
    mbox = tmp("4000.mbox")
    with open(mbox, "w") as f:
        for i in range(4000):
            f.write("From p%d@example.org Tue Mar  4 10:00:00 1997\nFrom: P <p%d@example.org>\n"
                    "Subject: post %d\nMessage-ID: <post%d@example.org>\n"
                    "Date: Tue, 4 Mar 1997 10:00:00 GMT\n\nWhy is the reactor not running, %d?\n\n"
                    % (i % 7, i % 7, i, i, i))
    assert handed_over(mbox) >= 4000 // 256, handed_over(mbox)
    # A copy of content stored already (a spool's cross-post, hard-linked in each group's
    # directory) is known before any of its rows is written: nothing is begun for it, not
    # even the savepoint the full-text index's thread follows (two statements a file)
    spool = one_message_files("spool-80", 80)
    os.makedirs(os.path.join(spool, "cur"))
    for i in range(0, 80, 2):
        os.link(os.path.join(spool, "new", "%d.host" % i), os.path.join(spool, "cur", "%d.copy" % i))
    r = deja("ingest", "--db", tmp("copies.db"), spool)
    assert r.returncode == 0 and r.stderr.count("has the same content as") == 40, r.stderr
    assert statements_prepared(spool) == (many, side), (statements_prepared(spool), many, side)
    # and the rows are those of the files: every message, its thread
    db = tmp("spool.db")
    r = deja("ingest", "--db", db, one_message_files("spool-80", 80))
    assert r.returncode == 0, r.stderr
    r = deja("stats", "--db", db, "--format", "tsv")
    assert "totals\tfiles\t\t80\n" in r.stdout and "totals\tmessages\t\t80\n" in r.stdout, r.stdout
    assert "totals\tthreads\t\t27\n" in r.stdout, r.stdout   # every third post starts one
    # a path ingested again with other content has its rows replaced, not added
    with open(os.path.join(tmp("spool-80"), "new", "5.host"), "a") as f:
        f.write("\nA line more.\n")
    r = deja("ingest", "--db", db, tmp("spool-80"))
    assert r.returncode == 0, r.stderr
    r = deja("stats", "--db", db, "--format", "tsv")
    assert "totals\tfiles\t\t80\n" in r.stdout and "totals\tmessages\t\t80\n" in r.stdout, r.stdout



@tap.test
def a_files_savepoint_is_journalled_in_memory():
    # Each file after the first of a transaction has a savepoint, and SQLite copies every
    # page it changes that was there before (the last page of each table and index, 64 KiB
    # each) to the statement journal: written to a temporary file, that was a third of the
    # writer's time on a Maildir.  deja keeps it in memory (store-subjournal.c).
    spool = one_message_files("spool-80", 80)
    in_memory, on_disk = statement_journals(spool)
    assert in_memory >= 1 and on_disk == 0, (in_memory, on_disk)
    # DEJA_SUBJOURNAL_FILE=1 leaves them to SQLite (for measuring): none kept by deja
    assert statement_journals(spool, DEJA_SUBJOURNAL_FILE="1") == (0, 0)


def comma_locale():
    """A locale whose decimal separator is a comma (de_DE.UTF-8), made in
    the scratch directory with localedef, as LOCPATH and LC_ALL for a
    child's environment; the test skips where Debian's locales is absent."""
    path = tmp("locales")
    if not os.path.isdir(os.path.join(path, "de_DE.UTF-8")):
        if shutil.which("localedef") is None:
            tap.skip("localedef is not installed (Debian: libc-bin)")
        os.makedirs(path, exist_ok=True)
        r = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(path, "de_DE.UTF-8")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            tap.skip("no German locale can be made here (Debian: locales): " + r.stderr.strip()[:200])
    return {"LOCPATH": path, "LC_ALL": "de_DE.UTF-8"}


@tap.test
def machine_outputs_do_not_depend_on_the_locale():
    """deja honours the user's locale (setlocale), and a German or French
    one writes 0,72 for printf's %g: JSON, CSV and TSV, and what deja
    stores, must read the same under it (the network's JSON did not)."""
    env_de = comma_locale()
    db = tmp("locale.db")
    r = deja("ingest", "-q", "--db", db, os.path.join(SOURCE, "fixtures", "threads"))
    assert r.returncode in (0, 1), r.stderr   # (its README.md is not an mbox)
    runs = [["network", "--format", "json"], ["network", "--kind", "thread", "--format", "json"],
            ["stats", "--format", "json"], ["groups", "--format", "json"], ["terms", "--format", "csv", "--top", "20"],
            ["authors", "--roles", "--format", "tsv"], ["authors", "--suggest", "--format", "json", "--min-score", "1"],
            ["export", "--format", "jsonl"]]

    def run(args, extra):
        env = dict(os.environ, DEJA_NO_PROGRESS="1", **extra)
        env.pop("LANG", None), env.pop("LC_NUMERIC", None)
        r = subprocess.run([DEJA, args[0], "--db", db] + args[1:], capture_output=True, text=True, env=env)
        assert r.returncode == 0, (args, r.stderr)
        return r.stdout

    for args in runs:
        plain, german = run(args, {"LC_ALL": "C"}), run(args, env_de)
        assert german == plain, (args, german[:400], plain[:400])
    # every vertex's measures, as CSV files
    nodes = []
    for name, extra in (("c", {"LC_ALL": "C"}), ("de", env_de)):
        run(["network", "-q", "--with-metrics", "--format", "csv", "--out", tmp("locale-%s.csv" % name)], extra)
        with open(tmp("locale-%s-nodes.csv" % name)) as f:
            nodes.append(f.read())
    assert nodes[0] == nodes[1], nodes
    stats = json.loads(run(["network", "--format", "json"], env_de))
    assert 0 < stats["reciprocity"] < 1 and 0 < stats["density"] < 1, stats
    # and what deja stores: dedup's settings, read back by the next run
    env = dict(os.environ, DEJA_NO_PROGRESS="1", **env_de)
    r = subprocess.run([DEJA, "dedup", "-q", "--db", db, "--threshold", "0.85"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        settings = c.execute("SELECT value FROM deja_state WHERE key = 'dedup'").fetchone()[0]
    assert "threshold=0.85 " in settings, settings


if __name__ == "__main__":
    tap.main(TMP)
