#!/usr/bin/env bash
# Grade a class on a SLURM cluster: N array tasks (one shard each), then the merge.
#
#   SUBMISSIONS=/data/subs SLUG=sdpa-from-scratch OUT=/data/out COURSE=/data/course N=8 ./submit.sh
#   CPUS=2 MEM=8G TIME=00:30:00 PARTITION=debug SUBMISSIONS=... SLUG=... OUT=... ./submit.sh   # a small node
#
# Sizing knobs, passed to sbatch as options (they override grade.sbatch's #SBATCH lines):
#   CPUS=16 MEM=64G TIME=04:00:00     each array task; its grader runs -j CPUS (one process per core;
#                                     JOBS, if set, overrides that -j)
#   MERGE_MEM=8G MERGE_TIME=00:30:00  the merge job (one CPU)
#   PARTITION                         both jobs' partition (default: the cluster's default partition)
#   SBATCH_EXTRA                      more sbatch options for both jobs, split on spaces ("--account=cs101")
#   AUTOGRADER                        the grader command on the nodes (default: autograder on PATH), e.g.
#                                     /shared/course/.venv/bin/autograder
#   SHARDS                            the array indices to grade (default 1-N). A shard that failed is rerun
#                                     with the same command plus SEED=<the seed it printed> SHARDS=K: same sizing,
#                                     same course and grader, resumes from its journal, then the merge again
# A request that no node of the partition can satisfy is refused here with one line (exit 2), before
# anything is queued: SLURM itself would accept it and leave it pending forever (PartitionConfig).
#
# SEED is drawn here once (or give your own) so that every shard draws the same hidden inputs as one
# unsharded batch with --seed SEED would. Logs go to OUT/logs/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${SUBMISSIONS:?}" "${SLUG:?}" "${OUT:?}"
export SUBMISSIONS SLUG OUT COURSE="${COURSE:-}" N="${N:-8}"
CPUS="${CPUS:-16}" MEM="${MEM:-64G}" TIME="${TIME:-04:00:00}"
MERGE_MEM="${MERGE_MEM:-8G}" MERGE_TIME="${MERGE_TIME:-00:30:00}"
SHARDS="${SHARDS:-1-$N}"
read -r -a extra <<< "${SBATCH_EXTRA:-}"
if [ -n "${PARTITION:-}" ]; then extra+=("--partition=$PARTITION"); fi

refuse() { echo "submit.sh: refused, nothing queued: $*" >&2; exit 2; }

# SLURM's time formats (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS) in seconds; empty for no limit.
seconds() {
  local t="$1" d=0 h=0 m=0 s=0
  case "$t" in infinite|UNLIMITED|"") return ;; esac
  if [[ "$t" == *-* ]]; then d="${t%%-*}"; t="${t#*-}"; IFS=: read -r h m s <<< "$t"
  else
    IFS=: read -r a b c <<< "$t"
    if [ -n "${c:-}" ]; then h=$a m=$b s=$c; elif [ -n "${b:-}" ]; then m=$a s=$b; else m=$a; fi
  fi
  echo $(( (10#$d * 24 + 10#${h:-0}) * 3600 + 10#${m:-0} * 60 + 10#${s:-0} ))
}

# Would SLURM ever run this job? sbatch --test-only asks the controller without queueing anything; it
# refuses CPUs, memory, partition or options no node can meet, but not a time over the partition's
# limit (that job would pend with PartitionTimeLimit), so the time is checked against sinfo's.
check() {
  local what="$1" script="$2" time="$3" answer reason largest partition limit; shift 3
  if ! answer=$(sbatch --test-only --time="$time" "$@" "${extra[@]}" "$script" 2>&1); then
    reason=$(grep -v '^ *$' <<< "$answer" | tail -n 1 |
      sed -e 's/^sbatch: error: //' -e 's/^allocation failure: //' -e 's/^Batch job submission failed: //')
    largest=$(sinfo -h -N ${PARTITION:+-p "$PARTITION"} -o '%c %m' 2>/dev/null |
      awk '{c = $1 > c ? $1 : c; m = $2 > m ? $2 : m}
           END {if (NR) print "; its nodes have at most " c " CPUs and " m " MB"}')
    refuse "no node of ${PARTITION:+partition }${PARTITION:-the default partition} can run" \
      "$what${SBATCH_EXTRA:+ and $SBATCH_EXTRA}: $reason$largest"
  fi
  partition=$(sed -n 's/.* in partition \([^ ]*\).*/\1/p' <<< "$answer" | head -n 1)
  limit=$(sinfo -h -p "$partition" -o '%l' 2>/dev/null | head -n 1)
  if [ -n "$(seconds "$limit")" ] && [ "$(seconds "$time")" -gt "$(seconds "$limit")" ]; then
    refuse "$what asks TIME=$time, over partition $partition's limit of $limit"
  fi
}
# A rerun of some shards must draw the first submission's hidden inputs (its SEED), and name shards of this N:
# index 0 or one past N would queue a task that grades nothing and a merge that can never be whole.
if [ -n "${SHARDS##1-"$N"}" ] && [ -z "${SEED:-}" ]; then
  refuse "SHARDS=$SHARDS reruns shards of an earlier submission: give its SEED too (printed by it, in every shard's log)"
fi
for index in ${SHARDS//[,-]/ }; do
  if ! [[ "$index" =~ ^[0-9]+$ ]] || [ $((10#$index)) -lt 1 ] || [ $((10#$index)) -gt "$N" ]; then
    refuse "SHARDS=$SHARDS is not a list of shard indices from 1 to N=$N (such as 3 or 2,5 or 1-4)"
  fi
done
check "a shard with CPUS=$CPUS MEM=$MEM" "$here/grade.sbatch" "$TIME" --array="$SHARDS" --cpus-per-task="$CPUS" \
  --mem="$MEM"
check "the merge with MERGE_MEM=$MERGE_MEM" "$here/merge.sbatch" "$MERGE_TIME" --cpus-per-task=1 --mem="$MERGE_MEM"

export SEED="${SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}"
echo "seed $SEED (kept in every shard's journal)"
mkdir -p "$OUT/logs"
array=$(sbatch --parsable --array="$SHARDS" --export=ALL --cpus-per-task="$CPUS" --mem="$MEM" --time="$TIME" \
  --output="$OUT/logs/grade-%A_%a.log" "${extra[@]}" "$here/grade.sbatch")
echo "array job ${array%%;*}: shards $SHARDS of $N, $CPUS CPUs and $MEM each"
# --kill-on-invalid-dep: if a shard fails, the merge is cancelled rather than left pending forever
# (DependencyNeverSatisfied); rerun that shard alone (SEED=... SHARDS=K, as printed below), a merge after it.
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" --kill-on-invalid-dep=yes --export=ALL \
  --cpus-per-task=1 --mem="$MERGE_MEM" --time="$MERGE_TIME" --output="$OUT/logs/merge-%j.log" "${extra[@]}" \
  "$here/merge.sbatch")
echo "merge job ${merge%%;*}: writes $OUT/merged when every shard is done"
echo "a shard K that fails: this same command with SEED=$SEED SHARDS=K reruns it (same sizing), then the merge"
