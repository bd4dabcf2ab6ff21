#!/usr/bin/env bash
# Like-for-like timing of this checkout against an earlier commit, side by side in one run:
# `autograder grade` on one notebook and `autograder batch -j2` over an assignment's examples,
# A (this checkout) and B (REF) alternating, ratio taken pair by pair (farm-bench --vs).
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
command -v farm-bench >/dev/null || { echo "farm-bench is not installed" >&2; exit 2; }
if [ ! -d "$DIR" ]; then
  git -C "$HERE" worktree add --detach "$DIR" "$REF" >/dev/null
fi
make -C "$DIR" install >/dev/null
make -C "$HERE" install >/dev/null
SUB="$HERE/examples/submissions/$SLUG"
echo "== grade $SLUG/full_marks.ipynb: A = this checkout, B = $REF"
farm-bench -n "$RUNS" --timeout 1200 \
  --vs "sh -c 'cd $DIR && exec .venv/bin/autograder grade $SUB/full_marks.ipynb -a $SLUG >/dev/null 2>&1'" \
  -- sh -c "cd $HERE && exec .venv/bin/autograder grade $SUB/full_marks.ipynb -a $SLUG >/dev/null 2>&1"
echo "== batch -j2 over $SUB: A = this checkout, B = $REF"
farm-bench -n "$RUNS" --timeout 2400 \
  --vs "sh -c 'cd $DIR && rm -rf $DIR/.bench-out && exec .venv/bin/autograder batch $SUB -a $SLUG -o $DIR/.bench-out -j 2 --seed 5 >/dev/null 2>&1'" \
  -- sh -c "cd $HERE && rm -rf /tmp/autograder-bench-A && exec .venv/bin/autograder batch $SUB -a $SLUG -o /tmp/autograder-bench-A -j 2 --seed 5 >/dev/null 2>&1"
