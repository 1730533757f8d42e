#!/usr/bin/env python3
"""The recipes in contrib/ run on the real engines (issue 18; docs/scale.md):
GNU parallel always (CI installs it), Snakemake where it is installed, a
Slurm job array where a cluster answers (contrib/slurm/local-cluster.sh
starts one).  Each result must equal one ingest of the same archives.
Suite 'slow'.
"""
import os
import shutil
import subprocess
import time

import tap
from cli_helpers import FIXTURES, TMP, deja, fresh_db, tmp
from db_compare import compare, dump

CONTRIB = os.path.join(os.environ["SOURCE_ROOT"], "contrib")
ARCHIVES = [os.path.join(FIXTURES, *p) for p in [
    ("threads", "comp.lang.c.mbox"), ("people", "people.mbox"), ("analysis", "lists.mbox"),
    ("threads", "comp.std.c.mbox"), ("replies", "in-reply-to-forms.mbox"),
    ("compressed", "sample.mbox.xz")]]
QUERIES = ["the", "thread", "from:ann"]
ENV = dict(os.environ, DEJA=os.environ["DEJA"], DEJA_NO_PROGRESS="1")


def expected():
    db = fresh_db("single.db")
    r = deja("ingest", "-q", "--db", db, *ARCHIVES)
    assert r.returncode == 0, r.stderr
    return dump(db, QUERIES, tmp("edges.csv"))


EXPECTED = expected()


def run(cmd, env=None, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env or ENV, **kw)
    assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
    return r


@tap.test
def gnu_parallel_recipe_equals_one_ingest():
    if shutil.which("parallel") is None:
        tap.skip("GNU parallel is not installed (apt install parallel)")
    out = fresh_db("parallel.db")
    r = run([os.path.join(CONTRIB, "parallel", "shard-and-merge.sh"), out, tmp("pshards")] + ARCHIVES,
            env=dict(ENV, JOBS="3"))
    shards = sorted(os.listdir(tmp("pshards")))
    assert shards == ["shard-%06d.db" % i for i in range(1, len(ARCHIVES) + 1)], shards
    assert "merged" in r.stderr, r.stderr
    compare(EXPECTED, dump(out, QUERIES, tmp("edges.csv")))
    # Run again: nothing is made twice, the result is the same.
    run([os.path.join(CONTRIB, "parallel", "shard-and-merge.sh"), out, tmp("pshards")] + ARCHIVES)
    compare(EXPECTED, dump(out, QUERIES, tmp("edges.csv")))


@tap.test
def gnu_parallel_recipe_stops_on_a_bad_archive():
    if shutil.which("parallel") is None:
        tap.skip("GNU parallel is not installed (apt install parallel)")
    bad = tmp("not-mbox.txt")
    with open(bad, "w") as f:
        f.write("this is not an mbox file\n")
    out = fresh_db("parallel-bad.db")
    r = subprocess.run([os.path.join(CONTRIB, "parallel", "shard-and-merge.sh"), out, tmp("bshards"),
                        ARCHIVES[0], bad], capture_output=True, text=True, env=ENV)
    assert r.returncode != 0 and bad in r.stderr, r.stderr
    assert not os.path.exists(out)


@tap.test
def snakemake_recipe_equals_one_ingest():
    if shutil.which("snakemake") is None:
        tap.skip("Snakemake is not installed (apt install snakemake)")
    work = tmp("snake")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "archives.txt"), "w") as f:
        f.write("\n".join(ARCHIVES) + "\n")
    run(["snakemake", "-s", os.path.join(CONTRIB, "snakemake", "Snakefile"), "--cores", "2",
         "--config", "out=corpus.db", "shards=shards", "archives=archives.txt"], cwd=work)
    compare(EXPECTED, dump(os.path.join(work, "corpus.db"), QUERIES, tmp("edges.csv")))


@tap.test
def slurm_array_recipe_equals_one_ingest():
    if shutil.which("sbatch") is None:
        tap.skip("Slurm is not installed (apt install slurm-wlm munge)")
    if subprocess.run(["sinfo", "-h"], capture_output=True).returncode != 0:
        tap.skip("no Slurm cluster answers (contrib/slurm/local-cluster.sh start makes one)")
    work = tmp("slurm")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o777)
    out = os.path.join(work, "corpus.db")
    r = run([os.path.join(CONTRIB, "slurm", "submit.sh"), out, os.path.join(work, "shards")] + ARCHIVES)
    merge_job = r.stdout.split("merge: job ")[1].split()[0]
    for _ in range(600):
        if subprocess.run(["squeue", "-h", "-j", merge_job], capture_output=True, text=True).stdout.strip() == "":
            break
        time.sleep(0.5)
    logs = "".join(open(os.path.join(work, "shards", f)).read() for f in os.listdir(os.path.join(work, "shards"))
                   if f.endswith(".log"))
    assert os.path.exists(out), logs
    compare(EXPECTED, dump(out, QUERIES, tmp("edges.csv")))


if __name__ == "__main__":
    tap.main(TMP)
