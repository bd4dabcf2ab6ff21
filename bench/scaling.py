"""Scaling of `autograder batch` with grader processes, and its serial part.

    python bench/scaling.py [--slug sdpa-from-scratch] [-n 40] [-j 1 2 ...]

For each -j, one batch over the same N fresh submissions (each made unique, so nothing is cached),
run in this process through autograder.course.batch.run_batch, exactly as the CLI runs it. Measured from
the first finished submission to the last one, so start-up (grader processes and zygotes importing
torch) and the final gradebook and report are left out:

    wall/sub     seconds per submission over that window (n-1 submissions)
    speedup      wall/sub at -j1 divided by this one; efficiency = speedup / j
    parent cpu   CPU seconds this process (the batch parent: hands out work, journals, writes the
                 results files) spent per submission over the window: the serial part, which no
                 number of cores shortens
    start-up     seconds from the start to the first finished submission, minus one submission

and, from the -j1 row, the serial fraction s = parent cpu / wall and the speedup it allows on C cores
(min(C, 1/s): Amdahl's bound with everything else parallel)."""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_submissions(slug: str, n: int, where: Path, tag: str = "", full_marks: bool = False) -> list[Path]:
    """n notebooks, each made unique (nothing is cached): every example in turn, or `full_marks` only."""
    import nbformat
    examples = sorted((ROOT / "examples" / "submissions" / slug).glob("*.ipynb"))
    if full_marks:
        examples = [p for p in examples if p.stem == "full_marks"]
    where.mkdir(parents=True)
    subs = []
    for i in range(n):
        nb = nbformat.read(examples[i % len(examples)], as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(f"# student {i} {tag}"))
        path = where / f"student_{i:03d}.ipynb"
        nbformat.write(nb, path)
        subs.append(path)
    return subs


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(slug: str, n: int, jobs: int, tmp: Path) -> dict[str, float]:
    from autograder.course.batch import run_batch
    from autograder.config import find_course
    course = find_course(ROOT)
    subs = tmp / f"class-j{jobs}"
    build_submissions(slug, n, subs, tag=f"j{jobs}")
    marks: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    results = run_batch(subs, slug, tmp / f"out-j{jobs}", jobs=jobs, seed=1, course=course,
                        on_done=lambda r, cached: marks.append((time.perf_counter(), _cpu())))
    assert len(results) == n and len(marks) == n
    (t_first, c_first), (t_last, c_last) = marks[0], marks[-1]
    per_sub = (t_last - t_first) / (n - 1)
    return {"jobs": jobs, "wall_per_sub": per_sub, "parent_cpu_per_sub": (c_last - c_first) / (n - 1),
            "startup": max(0.0, t_first - t0 - per_sub * jobs), "total": time.perf_counter() - t0,
            "failed": sum(r.status == "worker_failed" for r in results)}


def summarise(reps: list[list[dict[str, float]]]) -> list[dict[str, Any]]:
    """Median per -j over repetitions; the speedup of each -j is the median of its ratios to the
    -j1 run of the same repetition (runs alternate, so a ratio compares runs made side by side)."""
    out = []
    for i, first in enumerate(reps[0]):
        runs = [rep[i] for rep in reps]
        row: dict[str, Any] = {k: statistics.median(r[k] for r in runs) for k in first}
        row["speedup"] = statistics.median(rep[0]["wall_per_sub"] * rep[0]["jobs"] / rep[i]["wall_per_sub"]
                                           for rep in reps)
        row["spread"] = (min(r["wall_per_sub"] for r in runs), max(r["wall_per_sub"] for r in runs))
        out.append(row)
    return out


def table(rows: list[dict[str, Any]], cores: int = 16) -> str:
    """rows from `summarise` (or single runs, -j1 first)."""
    lines = [f"{'-j':>4} {'wall/sub s':>10} {'speedup':>8} {'effic.':>7} {'parent cpu/sub ms':>18} "
             f"{'start-up s':>10} {'total s':>8}"]
    for r in rows:
        speedup = r.get("speedup") or rows[0]["wall_per_sub"] * rows[0]["jobs"] / r["wall_per_sub"]
        spread = r.get("spread")
        lines.append(f"{int(r['jobs']):>4} {r['wall_per_sub']:>10.3f} {speedup:>8.2f} {speedup / r['jobs']:>7.2f} "
                     f"{r['parent_cpu_per_sub'] * 1000:>18.1f} {r['startup']:>10.1f} {r['total']:>8.1f}"
                     + (f"  (wall/sub {spread[0]:.3f}..{spread[1]:.3f})" if spread and spread[0] != spread[1] else "")
                     + (f"  ({int(r['failed'])} worker_failed)" if r["failed"] else ""))
    one = next((r for r in rows if r["jobs"] == 1), None)
    if one:
        s = one["parent_cpu_per_sub"] / one["wall_per_sub"]
        lines.append(f"serial fraction at -j1: {s:.4f} (parent {one['parent_cpu_per_sub'] * 1000:.1f} ms of "
                     f"{one['wall_per_sub'] * 1000:.0f} ms per submission): bound on {cores} cores "
                     f"min({cores}, 1/s) = {min(cores, 1 / s if s else float('inf')):.1f}x")
    return "\n".join(lines)


def run(slug: str, n: int, jobs: list[int], repeat: int, tmp: Path) -> list[dict[str, Any]]:
    """-j1 first, then the others, `repeat` times over, alternating."""
    jobs = [1] + [j for j in jobs if j != 1]
    reps = [[measure(slug, n, j, tmp / f"rep{r}") for j in jobs] for r in range(repeat)]
    return summarise(reps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slug", default="sdpa-from-scratch")
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("-j", type=int, nargs="*", default=None, help="default: 1 .. this machine's cores")
    ap.add_argument("--repeat", type=int, default=1, help="alternate the -j runs this many times; medians")
    args = ap.parse_args()
    jobs = args.j or list(range(1, (os.cpu_count() or 1) + 1))
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        rows = run(args.slug, args.n, jobs, args.repeat, Path(tmp))
    print(f"{args.n} submissions of {args.slug}, {os.cpu_count()} cores, {args.repeat} repetition(s)")
    print(table(rows))


if __name__ == "__main__":
    main()
