"""The grader's own CPU in the vectorisation check (checks.assert_vectorised), per submission.

    python bench/timing_check.py [-n 12] [--student vectorised|rows|batch] [--root TREE]

Runs sdpa-from-scratch's three timed cases (q5's TIMED_CASES, rebuilt here) for n "submissions" in
one process, as a grader process does, with the student's function run in-process by a proxy whose
CPU is counted apart: what is printed is the grader's share (yardstick, verification, probes), per
submission, the first one (a fresh process) apart from the rest. --root runs another tree's engine
(a snapshot before a change) for an alternated comparison. CPU clock of this thread: a loaded machine
inflates it too, so compare alternated runs at the same load."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=12)
    ap.add_argument("--student", choices=("vectorised", "rows", "batch"), default="vectorised")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    import torch

    from autograder.grading.checks import Misconception, assert_vectorised
    from autograder.sandbox.calls import run_fresh_calls
    from reference import sdpa_from_scratch as ref

    cases = [
        ([((1, 256, 16), "float64")] * 3, {"mask": ref.causal_mask(256).expand(1, 256, 256).contiguous()}),
        ([((128, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(128, 4, 4).contiguous()}),
        ([((64, 2, 4, 4), "float64")] * 3, {"mask": ref.causal_mask(4).expand(64, 2, 4, 4).contiguous()}),
    ]

    def rows(Q, K, V, mask=None):
        return torch.cat([ref.scaled_dot_product_attention(Q[..., i:i + 1, :], K, V, mask[..., i:i + 1, :])
                          for i in range(Q.shape[-2])], dim=-2)

    def batch(Q, K, V, mask=None):
        return torch.stack([ref.scaled_dot_product_attention(Q[b], K[b], V[b], mask[b]) for b in range(Q.shape[0])])

    fn = {"vectorised": ref.scaled_dot_product_attention, "rows": rows, "batch": batch}[args.student]

    class Student:
        cpu = 0.0

        def time_fresh(self, specs, kwargs=None, *, seed, repeat=10):
            start = time.thread_time()
            total = run_fresh_calls(fn, specs, dict(kwargs or {}), seed, repeat)
            spent = time.thread_time() - start
            Student.cpu += spent
            return spent, total

    torch.set_num_threads(1)
    grader_ms, student_ms, verdicts = [], [], []
    for i in range(args.n):
        Student.cpu = 0.0
        rng = torch.Generator().manual_seed(1000 + i)
        start = time.thread_time()
        worst = 0.0
        try:
            for case in cases:   # as the hidden test does: one case per call
                worst = max(worst, assert_vectorised(Student(), ref.scaled_dot_product_attention, [case],
                                                     rng=rng, limit=5.0, what="sdpa"))
            verdicts.append(f"pass {worst:.1f}x")
        except Misconception as e:
            verdicts.append(f"{e.key} ({str(e).split(' the time')[0].split()[-1]})")
        grader_ms.append((time.thread_time() - start - Student.cpu) * 1000)
        student_ms.append(Student.cpu * 1000)
    print(f"load average {os.getloadavg()[0]:.2f}; root {args.root}; student {args.student}")
    print(f"grader CPU, ms: first {grader_ms[0]:.1f}; 2nd on median {statistics.median(grader_ms[1:]):.1f} "
          f"mean {statistics.mean(grader_ms[1:]):.1f}; the student's timed calls, median "
          f"{statistics.median(student_ms[1:]):.1f}")
    print("verdicts: " + ", ".join(sorted(set(verdicts))))


if __name__ == "__main__":
    main()
