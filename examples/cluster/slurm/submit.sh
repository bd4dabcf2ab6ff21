#!/usr/bin/env bash
# Grade a class on a SLURM cluster: N array tasks (one shard each), then the merge.
#
#   SUBMISSIONS=/data/subs SLUG=sdpa-from-scratch OUT=/data/out COURSE=/data/course N=8 ./submit.sh
#
# SEED is drawn here once (or give your own) so that every shard draws the same hidden inputs as one
# unsharded batch with --seed SEED would.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${SUBMISSIONS:?}" "${SLUG:?}" "${OUT:?}"
export SUBMISSIONS SLUG OUT COURSE="${COURSE:-}" N="${N:-8}"
export SEED="${SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}"
echo "seed $SEED (kept in every shard's journal)"
array=$(sbatch --parsable --array="1-$N" --export=ALL "$here/grade.sbatch")
sbatch --dependency="afterok:${array%%;*}" --export=ALL "$here/merge.sbatch"
