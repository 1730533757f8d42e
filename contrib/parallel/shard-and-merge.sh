#!/bin/sh
# shard-and-merge.sh — ingest archives as shards with GNU parallel, then
# merge the shards into one database (docs/scale.md).
#
#   contrib/parallel/shard-and-merge.sh OUT.db SHARD_DIR ARCHIVE...
#
# Each ARCHIVE (an mbox file, a .gz/.bz2/.xz/.zip, or a directory of them)
# becomes SHARD_DIR/shard-NNNNNN.db, numbered in the order given, and the
# shards are merged into OUT.db in that order: the result equals one
# 'deja ingest --db OUT.db ARCHIVE...'.  A shard already made is not made
# again (deja ingest skips unchanged files), so a run that stopped goes on.
#
# Environment:
#   DEJA           the deja to run (default: deja on PATH)
#   JOBS           ingests at once (default: one per processor)
#   THREADS        decoding threads per ingest (default: 1)
#   PARALLEL_OPTS  more options for GNU parallel, for instance
#                  "--sshlogin 8/node1,8/node2" to run on other hosts,
#                  which must see ARCHIVE and SHARD_DIR at the same paths
#                  (a shared file system) and have deja installed.
set -eu

if [ $# -lt 3 ]; then
  echo "usage: $0 OUT.db SHARD_DIR ARCHIVE..." >&2
  exit 2
fi
out=$1
shards=$2
shift 2
deja=${DEJA:-deja}
command -v parallel >/dev/null || { echo "$0: GNU parallel is not installed (apt install parallel)" >&2; exit 2; }
mkdir -p "$shards"
# Absolute paths: the shards record where their files are, and remote
# hosts must find them.
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
shards=$(abs "$shards")
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for a in "$@"; do abs "$a"; done > "$list"

# {#} is the archive's place in the list: shard names sort in that order,
# and it is the shard's number (--shard), so that the merge copies each
# shard's full-text index instead of building it again.
# --halt now,fail=1: the first failed ingest stops the run (its shard is
# rolled back file by file; the merge is not attempted).
# shellcheck disable=SC2086
parallel --will-cite --jobs "${JOBS:-100%}" --halt now,fail=1 ${PARALLEL_OPTS:-} \
  "$deja" ingest -q --threads "${THREADS:-1}" --shard {#} --db "$shards/shard-{=\$_=sprintf('%06d',seq())=}.db" {} \
  :::: "$list"

n=$(wc -l < "$list")
set --
i=1
while [ "$i" -le "$n" ]; do
  set -- "$@" "$shards/$(printf 'shard-%06d.db' "$i")"
  i=$((i + 1))
done
exec "$deja" merge --db "$out" "$@"
