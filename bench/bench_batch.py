"""Speed of the autograder, like for like, in one run: start-up, throughput against `otter run` at the
same parallelism, and scaling with grader processes.

    python bench/bench_batch.py [--slug sdpa-from-scratch] [-n 24] [-j 2] [--startup-runs 5]
                                [--scaling-n 40] [--scaling-j 1 2 ...] [--scaling-repeat 3]
                                [--skip otter,scaling,startup]

1. start-up: `autograder grade` on one full-marks notebook against `python -c "import torch"`, run
   alternately (A B A B ...), each timed from outside as a whole process; medians, and the median of
   the pairwise ratios.
2. throughput: the same N fresh submissions (each made unique: nothing cached) graded by
   `autograder batch -j P` (one command, start-up included) and by `otter run` with P of them running
   at a time (otter-grader's autograder zip built from the same master notebook), seconds per
   submission for each and the ratio.
3. scaling: `-j 1 .. -j C` (C: this machine's cores) over the same kind of class, start-up excluded,
   with the batch parent's own CPU per submission (its serial part) and the speedup that bounds on 16
   cores (bench/scaling.py).

Everything runs on this machine, in this process tree, one after the other; nothing else is
controlled: the load average is printed before and after, and a loaded machine shows as a wide spread."""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scaling import build_submissions, run, table  # noqa: E402


def _timed(cmd: list[str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def startup(slug: str, runs: int) -> str:
    sub = ROOT / "examples" / "submissions" / slug / "full_marks.ipynb"
    grade = [str(BIN / "autograder"), "grade", str(sub), "-a", slug]
    torch_only = [sys.executable, "-c", "import torch"]
    _timed(torch_only), _timed(grade)  # warm the page cache for both
    a, b = [], []
    for _ in range(runs):
        a.append(_timed(grade))
        b.append(_timed(torch_only))
    ratios = [x / y for x, y in zip(a, b)]
    return (f"autograder grade (one notebook)   median {statistics.median(a):.2f} s  (min {min(a):.2f}, max {max(a):.2f})\n"
            f"python -c 'import torch'          median {statistics.median(b):.2f} s  (min {min(b):.2f}, max {max(b):.2f})\n"
            f"grade / import torch              median {statistics.median(ratios):.2f}x over {runs} pairs "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


def otter_zip(slug: str, where: Path) -> Path:
    import nbformat
    where.mkdir(parents=True, exist_ok=True)
    master = nbformat.read(ROOT / "assignments" / slug / f"{slug}.ipynb", as_version=4)
    master.cells[0].source = master.cells[0].source.replace("generate: false", "generate: true")
    nbformat.write(master, where / f"{slug}.ipynb")
    subprocess.run([str(BIN / "otter"), "assign", f"{slug}.ipynb", "dist"], cwd=where, check=True,
                   capture_output=True)
    return next((where / "dist" / "autograder").glob("*.zip"))


def against_otter(slug: str, n: int, jobs: int, tmp: Path) -> str:
    subs = build_submissions(slug, n, tmp / "class", tag="otter")
    ours = _timed([str(BIN / "autograder"), "batch", str(tmp / "class"), "-a", slug, "-o", str(tmp / "out"),
                   "-j", str(jobs)]) / n
    zpath = otter_zip(slug, tmp / "otter")

    def one(sub: Path) -> int:
        work = tmp / "otter" / sub.stem
        work.mkdir()
        shutil.copy(sub, work / sub.name)
        return subprocess.run([str(BIN / "otter"), "run", "-a", str(zpath), "-o", str(work), str(work / sub.name)],
                              cwd=work, capture_output=True).returncode

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as lanes:  # `jobs` otter runs at a time
        codes = list(lanes.map(one, subs))
    theirs = (time.perf_counter() - start) / n
    failed = sum(c != 0 for c in codes)
    return (f"ours:  autograder batch -j{jobs}       {ours:.3f} s per submission ({n} submissions, start-up included)\n"
            f"otter: otter run, {jobs} at a time     {theirs:.3f} s per submission ({n} submissions"
            + (f", {failed} exited non-zero" if failed else "") + ")\n"
            f"ratio (otter / ours)               {theirs / ours:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slug", default="sdpa-from-scratch")
    ap.add_argument("-n", type=int, default=24, help="submissions for ours vs otter")
    ap.add_argument("-j", type=int, default=2, help="parallelism for ours vs otter")
    ap.add_argument("--startup-runs", type=int, default=5)
    ap.add_argument("--scaling-n", type=int, default=40)
    ap.add_argument("--scaling-j", type=int, nargs="*", default=None, help="default: 1 .. this machine's cores")
    ap.add_argument("--scaling-repeat", type=int, default=3)
    ap.add_argument("--skip", default="", help="comma-separated: startup, otter, scaling")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    import torch
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; torch {torch.__version__}; "
          f"assignment {args.slug}", flush=True)
    if "startup" not in skip:
        print("\n== start-up\n" + startup(args.slug, args.startup_runs), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        if "otter" not in skip:
            print(f"\n== against otter, like for like ({args.j} at a time)\n"
                  + against_otter(args.slug, args.n, args.j, Path(tmp) / "otter"), flush=True)
        if "scaling" not in skip:
            jobs = args.scaling_j or list(range(1, (os.cpu_count() or 1) + 1))
            rows = run(args.slug, args.scaling_n, jobs, args.scaling_repeat, Path(tmp) / "scaling")
            print(f"\n== scaling ({args.scaling_n} submissions, start-up excluded, median of "
                  f"{args.scaling_repeat} alternating repetitions)\n" + table(rows), flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
