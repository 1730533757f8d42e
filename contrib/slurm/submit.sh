#!/bin/sh
# submit.sh — shard an archive set on a Slurm cluster and merge it:
#
#   contrib/slurm/submit.sh OUT.db SHARD_DIR ARCHIVE...
#
# Writes SHARD_DIR/archives.txt (absolute paths, one per line), submits
# deja-shard.sbatch as a job array of one task per archive, then
# deja-merge.sbatch to run when every task succeeded, and prints the two
# job ids.  SHARD_DIR and the archives must be on a file system every node
# sees.  Extra sbatch options (a partition, an account) go in SBATCH_OPTS;
# DEJA names the deja to run (it is passed to the jobs).
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT.db SHARD_DIR ARCHIVE..." >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
out=$(abs "$1")
shards=$(abs "$2")
shift 2
mkdir -p "$shards"
for a in "$@"; do abs "$a"; done > "$shards/archives.txt"
n=$(wc -l < "$shards/archives.txt")
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTS:-} --chdir="$shards" --export=ALL,DEJA="${DEJA:-deja}" \
  --array=1-"$n" "$here/deja-shard.sbatch" "$shards/archives.txt" "$shards")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --chdir="$shards" --export=ALL,DEJA="${DEJA:-deja}" \
  --dependency=afterok:"$array" "$here/deja-merge.sbatch" "$n" "$shards" "$out")
echo "shards: job $array ($n tasks); merge: job ${merge%%;*}"
