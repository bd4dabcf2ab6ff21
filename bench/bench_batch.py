"""Speed of the autograder, like for like, in one run: issue 20's figures side by side.

    python bench/bench_batch.py [--slug sdpa-from-scratch] [-n 24] [-j 2] [--startup-runs 5]
                                [--class-n 40] [--class-repeat 3]
                                [--scaling-n 40] [--scaling-j 1 2 ...] [--scaling-repeat 3]
                                [--otter-repeat 3] [--skip startup,class,otter,scaling]

1. start-up: `autograder grade` on one full-marks notebook against `python -c "import torch"`, run
   alternately (A B A B ...), each timed from outside as a whole process; medians, and the median of
   the pairwise ratios.
2. a class through the CLI: `autograder batch -j1` and `-j2` over the same N fresh full-marks
   notebooks, alternated with `python -c "import torch"` (repeated; medians): the whole command (start-up
   and outputs included), its first result (the batch process's own mark, AUTOGRADER_TIMERS) over
   import torch, seconds per submission after start-up at -j1 (first result to last, n-1 of them), and
   the -j2 efficiency counting start-up, T(-j1) / (2 T(-j2)).
3. throughput against otter: the same N fresh submissions (each made unique: nothing cached; every
   example in turn, so all but one or two are wrong) graded by `autograder batch -j P` (one command,
   start-up included, a new output folder each time) and by `otter run` with P of them running at a time
   (otter-grader's autograder zip built from the same master notebook), alternated R times
   (--otter-repeat): seconds per submission for each, and the median of the pairwise ratios.
4. scaling: `-j 1 .. -j C` (C: this machine's cores) over the same kind of class, start-up excluded,
   with the batch parent's own CPU per submission (its serial part) and the speedup that bounds on 16
   cores (bench/scaling.py).

It ends with issue 20's figures in one table, each beside its target. Everything runs on this machine,
in this process tree, one after the other; nothing else is controlled: the load average is printed
before and after, and a loaded machine shows as a wide spread. bench/breakdown.py says where the time
goes."""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from breakdown import AUTOGRADER, command, run_timed  # noqa: E402
from scaling import build_submissions, run, table  # noqa: E402

# Python's default, as `make bench` has it: the autograder's modules are compiled once into __pycache__. Many
# shells and images set PYTHONDONTWRITEBYTECODE; then every process timed here would compile autograder/ again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

TARGETS = {"startup": 1.6, "per_sub": 0.12, "first": 1.3, "efficiency": 0.85, "otter": 10.0}


def _timed(cmd: list[str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (every process: the workers too)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def startup(slug: str, runs: int, figures: dict[str, float] | None = None) -> str:
    sub = ROOT / "examples" / "submissions" / slug / "full_marks.ipynb"
    grade = [*AUTOGRADER, "grade", str(sub), "-a", slug]
    torch_only = [sys.executable, "-c", "import torch"]
    _timed(torch_only), _timed(grade)  # warm the page cache for both
    a, b = [], []
    for _ in range(runs):
        a.append(_timed(grade))
        b.append(_timed(torch_only))
    ratios = [x / y for x, y in zip(a, b)]
    if figures is not None:
        figures["startup"] = statistics.median(ratios)
    return (f"autograder grade (one notebook)   median {statistics.median(a):.2f} s  (min {min(a):.2f}, max {max(a):.2f})\n"
            f"python -c 'import torch'          median {statistics.median(b):.2f} s  (min {min(b):.2f}, max {max(b):.2f})\n"
            f"grade / import torch              median {statistics.median(ratios):.2f}x over {runs} pairs "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


def a_class(slug: str, n: int, repeat: int, tmp: Path, figures: dict[str, float]) -> str:
    """`autograder batch -j1` and `-j2` through the CLI over n full-marks notebooks, each run next to a
    `python -c "import torch"`, `repeat` times alternated."""
    cls = tmp / "class"
    build_submissions(slug, n, cls, tag="class", full_marks=True)
    rows: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    for r in range(repeat):
        for jobs in (1, 2):
            torch_s = _timed([sys.executable, "-c", "import torch"])
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            busy_before = _machine_busy_s()
            launch, end, procs = run_timed([*AUTOGRADER, "batch", str(cls), "-a", slug, "-o",
                                            str(tmp / f"out-{r}-{jobs}"), "-j", str(jobs)], tmp / "class.jsonl")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            machine = _machine_busy_s() - busy_before
            # the command's CPU: the batch, its grader processes and zygotes (the workers, reaped by
            # the kernel, are not counted: bench/breakdown.py counts them)
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            parent = next(p for p in procs if p["role"] == "batch")
            marks = sorted(b for name, _a, b in parent["spans"] if name == "result received")
            if len(marks) != n:
                raise SystemExit(f"batch -j{jobs}: {len(marks)} results of {n}")
            rows[jobs].append({"total": end - launch, "torch": torch_s, "first": (marks[0] - launch) / torch_s,
                               "first_s": marks[0] - launch, "per_sub": (marks[-1] - marks[0]) / (n - 1),
                               "tail": end - marks[-1], "cpu": cpu, "busy": machine / (end - launch)})
    med = {j: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for j, rs in rows.items()}
    eff = [a["total"] / (2 * b["total"]) for a, b in zip(rows[1], rows[2])]
    figures.update(per_sub=med[1]["per_sub"], first=max(med[1]["first"], med[2]["first"]),
                   efficiency=statistics.median(eff))
    lines = [f"{'':<8}{'whole command s':>16}{'first result / import torch':>29}{'s per submission after it':>27}"
             f"{'CPU s (no workers)':>20}"]
    for j in (1, 2):
        lines.append(f"-j{j:<6}{med[j]['total']:>16.2f}{med[j]['first']:>29.2f}{med[j]['per_sub']:>27.3f}"
                     f"{med[j]['cpu']:>20.2f}")
    if os.environ.get("AUTOGRADER_FORK_GRADERS") == "0":
        lines.append("(AUTOGRADER_FORK_GRADERS=0: every grader process started by exec, as before)")
    lines.append(f"import torch (next to each) median {statistics.median(x['torch'] for x in rows[1] + rows[2]):.2f} s;"
                 f" -j2 efficiency counting start-up T(-j1)/(2 T(-j2)): {statistics.median(eff):.2f} "
                 f"(runs {', '.join(f'{e:.2f}' for e in eff)})")
    # The most -j2 can give counting start-up: its first result no sooner than -j1's, then n/2
    # submissions each, then the same outputs: T(-j1) / (2 (S + (n/2 - 1) p + tail))
    one = med[1]
    best = one["total"] / (2 * (one["first_s"] + (n / 2 - 1) * one["per_sub"] + one["tail"]))
    lines.append(f"-j1: start-up to the first result {one['first_s']:.2f} s, outputs and exit after the last "
                 f"{one['tail']:.2f} s; so on 2 cores the -j2 efficiency counting start-up is at most {best:.2f}")
    # -j1 is not one core's work: the next worker's fork and lock-down, the last one's exit, the
    # parent's journal and, at start-up, the zygote's import torch run beside the grade. -j2 does the
    # same work on 2 cores, so it takes at least (the -j1 run's CPU) / 2: efficiency at most 1 / busy
    lines.append(f"cores busy (the whole machine, /proc/stat: a quiet machine only) -j1 {med[1]['busy']:.2f}, "
                 f"-j2 {med[2]['busy']:.2f}; so -j2 efficiency is at most 1 / {med[1]['busy']:.2f} = "
                 f"{1 / med[1]['busy']:.2f} on 2 cores")
    return "\n".join(lines)


def summary(figures: dict[str, float]) -> str:
    rows = [("grade of one notebook / import torch", "startup", "x", "at most"),
            ("full-marks notebook at -j1 after start-up, s", "per_sub", "", "at most"),
            ("first result / import torch (worst of -j1, -j2)", "first", "x", "at most"),
            ("-j2 efficiency counting start-up (whole commands)", "efficiency", "", "at least"),
            ("otter run / ours, like for like", "otter", "x", "at least")]
    out = [f"{'figure':<52}{'measured':>10}   target"]
    for label, key, unit, sense in rows:
        if key in figures:
            ok = figures[key] <= TARGETS[key] if sense == "at most" else figures[key] >= TARGETS[key]
            out.append(f"{label:<52}{figures[key]:>9.{3 if key == 'per_sub' else 2}f}{unit}   {sense} "
                       f"{TARGETS[key]:g}{unit}  {'met' if ok else 'NOT met'}")
    return "\n".join(out)


def otter_zip(slug: str, where: Path) -> Path:
    import nbformat
    where.mkdir(parents=True, exist_ok=True)
    master = nbformat.read(ROOT / "assignments" / slug / f"{slug}.ipynb", as_version=4)
    master.cells[0].source = master.cells[0].source.replace("generate: false", "generate: true")
    nbformat.write(master, where / f"{slug}.ipynb")
    subprocess.run([*command("otter", "otter"), "assign", f"{slug}.ipynb", "dist"], cwd=where, check=True,
                   capture_output=True)
    return next((where / "dist" / "autograder").glob("*.zip"))


def against_otter(slug: str, n: int, jobs: int, tmp: Path, figures: dict[str, float] | None = None,
                  repeat: int = 3) -> str:
    """Ours and otter's, alternated `repeat` times (ours, otter, ours, ...): medians, and the median of the
    pairwise ratios (one run each moved the ratio by a tenth on this shared machine)."""
    subs = build_submissions(slug, n, tmp / "class", tag="otter")
    zpath = otter_zip(slug, tmp / "otter")

    def one(sub: Path, turn: int) -> int:
        work = tmp / "otter" / f"turn{turn}" / sub.stem
        work.mkdir(parents=True)
        shutil.copy(sub, work / sub.name)
        return subprocess.run([*command("otter", "otter"), "run", "-a", str(zpath), "-o", str(work), str(work / sub.name)],
                              cwd=work, capture_output=True).returncode

    ours_s: list[float] = []
    theirs_s: list[float] = []
    failed = 0
    for turn in range(repeat):
        ours_s.append(_timed([*AUTOGRADER, "batch", str(tmp / "class"), "-a", slug,  # a new -o: no journal
                              "-o", str(tmp / f"out{turn}"), "-j", str(jobs)]) / n)
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as lanes:  # `jobs` otter runs at a time
            codes = list(lanes.map(one, subs, [turn] * n))
        theirs_s.append((time.perf_counter() - start) / n)
        failed += sum(c != 0 for c in codes)
    ours, theirs = statistics.median(ours_s), statistics.median(theirs_s)
    ratio = statistics.median(t / o for t, o in zip(theirs_s, ours_s))
    if figures is not None:
        figures["otter"] = ratio
    return (f"ours:  autograder batch -j{jobs}       {ours:.3f} s per submission ({n} submissions, start-up included; "
            f"median of {repeat}: {', '.join(f'{x:.3f}' for x in ours_s)})\n"
            f"otter: otter run, {jobs} at a time     {theirs:.3f} s per submission ({n} submissions"
            + (f", {failed} runs exited non-zero" if failed else "")
            + f"; median of {repeat}: {', '.join(f'{x:.3f}' for x in theirs_s)})\n"
            f"ratio (otter / ours), median of the pairs: {ratio:.1f}x "
            f"({', '.join(f'{t / o:.1f}' for t, o in zip(theirs_s, ours_s))})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slug", default="sdpa-from-scratch")
    ap.add_argument("-n", type=int, default=24, help="submissions for ours vs otter")
    ap.add_argument("-j", type=int, default=2, help="parallelism for ours vs otter")
    ap.add_argument("--otter-repeat", type=int, default=3, help="ours and otter's runs, alternated")
    ap.add_argument("--startup-runs", type=int, default=5)
    ap.add_argument("--scaling-n", type=int, default=40)
    ap.add_argument("--scaling-j", type=int, nargs="*", default=None, help="default: 1 .. this machine's cores")
    ap.add_argument("--scaling-repeat", type=int, default=3)
    ap.add_argument("--class-n", type=int, default=40, help="full-marks notebooks for the -j1/-j2 class")
    ap.add_argument("--class-repeat", type=int, default=3)
    ap.add_argument("--skip", default="", help="comma-separated: startup, class, otter, scaling")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    import torch
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; torch {torch.__version__}; "
          f"assignment {args.slug}", flush=True)
    figures: dict[str, float] = {}
    if "startup" not in skip:
        print("\n== start-up\n" + startup(args.slug, args.startup_runs, figures), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        if "class" not in skip:
            print(f"\n== a class of {args.class_n} full-marks notebooks through the CLI (median of "
                  f"{args.class_repeat}, alternated)\n"
                  + a_class(args.slug, args.class_n, args.class_repeat, Path(tmp) / "class", figures), flush=True)
        if "otter" not in skip:
            print(f"\n== against otter, like for like ({args.j} at a time)\n"
                  + against_otter(args.slug, args.n, args.j, Path(tmp) / "otter", figures, args.otter_repeat),
                  flush=True)
        if "scaling" not in skip:
            jobs = args.scaling_j or list(range(1, (os.cpu_count() or 1) + 1))
            rows = run(args.slug, args.scaling_n, jobs, args.scaling_repeat, Path(tmp) / "scaling")
            print(f"\n== scaling ({args.scaling_n} submissions, start-up excluded, median of "
                  f"{args.scaling_repeat} alternating repetitions)\n" + table(rows), flush=True)
    if figures:
        print("\n== issue 20's figures\n" + summary(figures))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
