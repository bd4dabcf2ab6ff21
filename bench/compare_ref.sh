#!/usr/bin/env bash
# Like-for-like timing of this checkout against an earlier commit, side by side in one run:
# `autograder grade` on one notebook and `autograder batch -j2` over an assignment's examples,
# A (this checkout) and B (REF) alternating, the ratio taken pair by pair (median printed).
#
#   bench/compare_ref.sh REF [SLUG] [RUNS]
#
# REF gets its own worktree and venv under $BENCH_DIR (default /tmp/autograder-bench-REF): the
# sandbox runs the package from the worktree's own venv, so the two never share code. Both grade
# the same submissions with the same course files (this checkout's examples), start-up included.
set -euo pipefail
REF="${1:?usage: bench/compare_ref.sh REF [SLUG] [RUNS]}"
SLUG="${2:-sdpa-from-scratch}"
RUNS="${3:-5}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${BENCH_DIR:-/tmp/autograder-bench-$REF}"
if [ ! -d "$DIR" ]; then
  git -C "$HERE" worktree add --detach "$DIR" "$REF" >/dev/null
fi
make -C "$DIR" install >/dev/null
make -C "$HERE" install >/dev/null
SUB="$HERE/examples/submissions/$SLUG"

# A and B in turn, RUNS pairs; wall seconds of each run and the median of the pairwise ratios A/B.
pairs() {  # pairs NAME CMD_A CMD_B
  local name="$1" a="$2" b="$3" ratios=() ta tb t0
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N); sh -c "$a" >/dev/null 2>&1; ta=$(python3 -c "print($(date +%s.%N) - $t0)")
    t0=$(date +%s.%N); sh -c "$b" >/dev/null 2>&1; tb=$(python3 -c "print($(date +%s.%N) - $t0)")
    ratios+=("$(python3 -c "print(round($ta / $tb, 4))")")
    printf '%s  A %6.2f s  B %6.2f s\n' "$name" "$ta" "$tb"
  done
  printf '%s  median A/B wall: %s (%s pairs)\n' "$name" \
    "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')" "$RUNS"
}
pairs "grade $SLUG/full_marks" \
  "cd $HERE && exec .venv/bin/autograder grade $SUB/full_marks.ipynb -a $SLUG" \
  "cd $DIR && exec .venv/bin/autograder grade $SUB/full_marks.ipynb -a $SLUG"
pairs "batch -j2 $SLUG" \
  "cd $HERE && rm -rf /tmp/autograder-bench-A && exec .venv/bin/autograder batch $SUB -a $SLUG -o /tmp/autograder-bench-A -j 2 --seed 5" \
  "cd $DIR && rm -rf $DIR/.bench-out && exec .venv/bin/autograder batch $SUB -a $SLUG -o $DIR/.bench-out -j 2 --seed 5"
