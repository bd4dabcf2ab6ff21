"""Where a grade's time goes: per submission, and in the start-up of each process.

    python bench/breakdown.py [--slug sdpa-from-scratch] [-n 12] [--mix full|examples] [-j 1]
                              [--skip startup,submissions] [--runs 1]

Everything runs as the CLI runs it (`autograder grade`, `autograder batch`), with AUTOGRADER_TIMERS set
(autograder.sandbox.timers): each trusted process appends its spans and counts to a file when it
exits; the sandbox's processes only report their own start in the zygote's ready message. All times are
time.monotonic(), one clock for the whole machine, so processes line up. Wall-clock: on a shared
machine every figure is disturbed by the others, so read the proportions, and compare before/after
with whole-process timing in alternated pairs, not with these.

1. start-up (`autograder grade` of one full-marks notebook, then `autograder batch -j J` of J+1
   notebooks), seconds from the launch of the command: the CLI's own imports, the zygote's launch,
   its bwrap/level start, its `import torch`, the grader's imports, the hidden tests' load, the first
   result; `python -c "import torch"` beside it as the yardstick.
2. per submission (`autograder batch -j1` over N fresh notebooks: full marks only, or every example
   in turn), from the grader process's spans: the worker's fork and lock-down, the notebook's cells,
   each question's tests, the round trips into the worker (how many, how long), shrinking, closing
   the worker, writing the result; "other" is the grade's time none of these covers."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(Path(__file__).resolve().parent))


def command(name: str, module: str) -> list[str]:
    """A console script beside this interpreter, else its module run by it: an image where the package
    is on the path (a .pth, as bench/gpu_check.sh puts it) has no `autograder` or `otter` script."""
    script = BIN / name
    return [str(script)] if script.exists() else [sys.executable, "-m", module]


AUTOGRADER = command("autograder", "autograder.cli")

from scaling import build_submissions  # noqa: E402


def run_timed(cmd: list[str], timers_file: Path) -> tuple[float, float, list[dict[str, Any]]]:
    """(launch, exit) in time.monotonic() and each process's timer line."""
    timers_file.unlink(missing_ok=True)
    env = dict(os.environ, AUTOGRADER_TIMERS=str(timers_file))
    launch = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.monotonic()
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    lines = [json.loads(ln) for ln in timers_file.read_text().splitlines() if ln.strip()]
    return launch, end, lines


def _first(spans: list[list[Any]], name: str, end: bool = False) -> float | None:
    for n, a, b in spans:
        if n == name:
            return b if end else a
    return None


def import_torch_s() -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.monotonic() - start


STARTUP_ROWS = [  # (label, span name, its end?)
    ("CLI imported (interpreter, typer, config)", "cli command start", False),
    ("zygote launched (course found)", "zygote launch bwrap", False),
    ("zygote's interpreter running (bwrap/level start)", "zygote started", False),
    ("grader's imports done (torch, tests' stack)", "import the grader", True),
    ("hidden tests loaded", "load tests", True),
    ("zygote's imports done (torch, preload)", "zygote imported", False),
    ("zygote ready, seen by the grader", "zygote ready seen", False),
    ("first worker forked", "worker fork", True),
    ("first result", "grade", True),
]


def _startup_rows(spans: list[list[Any]], launch: float, torch_s: float) -> list[str]:
    out = []
    names = {n for n, _a, _b in spans}
    for label, name, end in STARTUP_ROWS:
        if name == "zygote launch bwrap" and name not in names:
            name = next((n for n in names if n.startswith("zygote launch ")), name)
        t = _first(spans, name, end)
        if t is not None:
            out.append(f"  {label:<52} {t - launch:6.2f} s   {(t - launch) / torch_s:5.2f}x import torch")
    return out


def startup(slug: str, jobs: int, tmp: Path, runs: int) -> str:
    sub = ROOT / "examples" / "submissions" / slug / "full_marks.ipynb"
    lines: list[str] = []
    for r in range(runs):
        torch_s = import_torch_s()
        launch, end, procs = run_timed([*AUTOGRADER, "grade", str(sub), "-a", slug], tmp / "grade.jsonl")
        lines.append(f"autograder grade (run {r + 1}): {end - launch:.2f} s = {(end - launch) / torch_s:.2f}x "
                     f"python -c 'import torch' ({torch_s:.2f} s, just before)")
        for p in procs:
            lines += _startup_rows(p["spans"], launch, torch_s)
            exit_t = p.get("exit")
            if isinstance(exit_t, float):
                lines.append(f"  {'process exits':<52} {exit_t - launch:6.2f} s")
    # a batch: the parent, then each grader process, from the batch's launch
    for r in range(runs):
        cls = tmp / f"startup-class-{r}"
        build_submissions(slug, jobs + 1, cls, tag=f"startup{r}")
        torch_s = import_torch_s()
        launch, end, procs = run_timed([*AUTOGRADER, "batch", str(cls), "-a", slug, "-o",
                                        str(tmp / f"startup-out-{r}"), "-j", str(jobs)], tmp / "batch.jsonl")
        lines.append(f"\nautograder batch -j{jobs} of {jobs + 1} (run {r + 1}): {end - launch:.2f} s; "
                     f"import torch {torch_s:.2f} s just before")
        for p in sorted(procs, key=lambda p: p["role"]):
            if p["role"] == "batch":
                first = _first(p["spans"], "result received")
                outputs = [b - a for n, a, b in p["spans"] if n == "outputs"]
                if first is not None:
                    lines.append(f"  batch parent: first result received {first - launch:.2f} s = "
                                 f"{(first - launch) / torch_s:.2f}x import torch"
                                 + (f"; outputs (gradebook, report) {outputs[0]:.2f} s" if outputs else ""))
            else:
                lines.append(f"  grader process {p['pid']}:")
                lines += _startup_rows(p["spans"], launch, torch_s)
    return "\n".join(lines)


def _per_submission(spans: list[list[Any]]) -> list[dict[str, float]]:
    """Split a grader process's spans by its `grade` spans; sum what each holds."""
    grades = [(a, b) for n, a, b in spans if n == "grade"]
    writes = [(a, b) for n, a, b in spans if n == "result writing"]
    rows = []
    for i, (a, b) in enumerate(grades):
        row: dict[str, float] = defaultdict(float)
        row["total"] = b - a
        for n, s, e in spans:
            if not (a <= s and e <= b) or n == "grade":
                continue
            d = e - s
            if n.startswith("test "):
                row[n.split()[1]] += d
                row["tests"] += d
            elif n.startswith("round trip"):
                row["trips"] += 1
                row["trip s"] += d
            elif n in ("worker fork", "cells", "shrinking", "close worker", "read notebook", "load tests",
                       "wait for the zygote"):
                row[n] += d
        row["fork"] = row.pop("worker fork", 0.0)
        row["close"] = row.pop("close worker", 0.0)
        row["other"] = row["total"] - row["fork"] - row["cells"] - row["tests"] - row["close"] - row.get(
            "read notebook", 0.0) - row.get("load tests", 0.0) - row.get("wait for the zygote", 0.0)
        if i < len(writes):
            row["write"] = writes[i][1] - writes[i][0]
        rows.append(row)
    return rows


def submissions(slug: str, n: int, mix: str, tmp: Path, jobs: int = 1) -> str:
    cls = tmp / "class"
    if mix == "full":
        cls.mkdir(parents=True)
        import nbformat
        nb = nbformat.read(ROOT / "examples" / "submissions" / slug / "full_marks.ipynb", as_version=4)
        for i in range(n):
            copy = nbformat.from_dict(json.loads(json.dumps(nb)))
            copy.cells.append(nbformat.v4.new_code_cell(f"# student {i}"))
            nbformat.write(copy, cls / f"student_{i:03d}.ipynb")
        names = ["full_marks"] * n
    else:
        build_submissions(slug, n, cls, tag="breakdown")
        examples = sorted((ROOT / "examples" / "submissions" / slug).glob("*.ipynb"))
        names = [examples[i % len(examples)].stem for i in range(n)]
    before = os.times()
    _launch, _end, procs = run_timed([*AUTOGRADER, "batch", str(cls), "-a", slug, "-o",
                                      str(tmp / "out"), "-j", str(jobs)], tmp / "subs.jsonl")
    after = os.times()
    graders = [p for p in procs if p["role"] == "grader process"]
    whole = side_by_side(graders, (after.children_user + after.children_system)
                         - (before.children_user + before.children_system))
    parent = next((p for p in procs if p["role"] == "batch"), None)
    if jobs == 1 and parent is not None:
        whole += "\n" + between(graders[0]["spans"], parent["spans"])
    if jobs > 1:
        return whole
    grader = graders[0]
    rows = _per_submission(grader["spans"])
    questions = sorted({k for r in rows for k in r if k[:1] == "q" and k[1:].isdigit()}, key=lambda q: int(q[1:]))
    cols = ["total", "fork", "cells"] + questions + ["trips", "trip s", "shrinking", "close", "write", "other"]
    head = f"{'submission':<24}" + "".join(f"{c:>8}" for c in cols)
    out = [head]

    def fmt(r: dict[str, float]) -> str:
        return "".join(f"{int(r.get(c, 0)):>8}" if c == "trips" else f"{r.get(c, 0.0) * 1000:>8.0f}" for c in cols)
    for name, r in zip(names, rows):
        out.append(f"{name[:24]:<24}" + fmt(r))
    # the first submission of a process pays one-off costs (first calls): medians leave it out
    steady = rows[1:] or rows
    med = {c: statistics.median(r.get(c, 0.0) for r in steady) for c in cols}
    out.append(f"{'median (2nd on)':<24}" + fmt(med))
    # the slowest tests, medians over the same submissions
    per_test: dict[str, list[float]] = defaultdict(list)
    grades = [(a, b) for name, a, b in grader["spans"] if name == "grade"][1:] or [(0.0, float("inf"))]
    for name, a, b in grader["spans"]:
        if name.startswith("test ") and any(g0 <= a and b <= g1 for g0, g1 in grades):
            per_test[name[5:]].append(b - a)
    slowest = sorted(per_test.items(), key=lambda kv: -statistics.median(kv[1]))[:10]
    out.append("slowest tests (median ms): " + ", ".join(f"{k} {statistics.median(v) * 1000:.0f}"
                                                         for k, v in slowest))
    counts = grader.get("counts", {})
    if counts.get("workers"):
        w = counts["workers"]
        ops = {k.removeprefix("worker cpu us "): v for k, v in counts.items() if k.startswith("worker cpu us ")}
        total, lock = counts.get("worker cpu us", 0), counts.get("worker lock-down cpu us", 0)
        rest = total - lock - sum(ops.values())
        out.append(f"grader CPU per submission (mean of {len(rows)}): "
                   f"{counts.get('grader cpu us', 0) / max(1, len(rows)) / 1000:.1f} ms (its process clock)")
        out.append(f"worker CPU per submission (mean of {w}): {total / w / 1000:.1f} ms = lock-down "
                   f"{lock / w / 1000:.1f} + " + " + ".join(f"{op} requests {v / w / 1000:.1f}" for op, v in ops.items())
                   + f" + cells and the rest {rest / w / 1000:.1f} (its own CPU clock, read from outside; "
                   "the zygote's fork is the zygote's)")
    out.append("milliseconds, except trips (round trips into the worker, a count); 'trip s' is the time "
               "the grader waited on them (inside the tests)")
    out.append("the whole class:\n" + whole)
    return "\n".join(out)


def between(grader: list[list[Any]], parent: list[list[Any]]) -> str:
    """At -j1, the time from one grade's end to the next one's start, phase by phase: the grader
    process writes the result (results file, message), reads its next task from its socket (at once
    when the parent handed it out ahead, else once the parent woke up, read the result and handed it
    out), and starts the grade. The phases add up to each gap exactly; the parent's own wake-up (from
    the result's sending to its reading) is shown beside them."""
    grades = [(a, b) for n, a, b in grader if n == "grade"]
    writes = [(a, b) for n, a, b in grader if n == "result writing"]
    got = [a for n, a, _b in grader if n == "task received"]
    received = [a for n, a, _b in parent if n == "result received"]
    phases: dict[str, list[float]] = defaultdict(list)
    woke: list[float] = []
    for i in range(len(grades) - 1):
        nxt = grades[i + 1][0]
        if i >= len(writes):
            continue
        take = next((t for t in got if writes[i][1] <= t <= nxt), None)
        if take is None:
            continue
        phases["grade end -> write"].append(writes[i][0] - grades[i][1])
        phases["result writing"].append(writes[i][1] - writes[i][0])
        phases["-> next task read"].append(take - writes[i][1])
        phases["-> next grade starts"].append(nxt - take)
        phases["gap"].append(nxt - grades[i][1])
        if i < len(received):
            woke.append(received[i] - writes[i][1])
    if not phases:
        return "between submissions: no gaps to measure"
    sums = [sum(v) for v in zip(*[phases[k] for k in phases if k != "gap"])]
    assert all(abs(s - g) < 1e-6 for s, g in zip(sums, phases["gap"]))
    if woke:
        phases["(parent reads the result)"] = woke
    return ("between submissions (one grade's end to the next one's start), ms, median / mean / max "
            f"over {len(phases['gap'])} gaps:\n" + "\n".join(
                f"  {k:<26} {statistics.median(v) * 1000:7.2f} {statistics.mean(v) * 1000:7.2f} "
                f"{max(v) * 1000:7.2f}" for k, v in phases.items()))


def side_by_side(graders: list[dict[str, Any]], tree_cpu_s: float) -> str:
    """`batch -jN`: each grader process's submissions, and the whole class's steady part (from the first
    grade's start to the last one's end): wall and CPU per submission, how many cores were busy, and
    what a round trip into the worker waited. Read it beside the same figures at -j1."""
    out: list[str] = []
    starts, ends, grades, trips, trip_s = [], [], [], 0, 0.0
    grader_us = worker_us = lock_us = workers = 0
    for p in graders:
        spans = p["spans"]
        g = [(a, b) for name, a, b in spans if name == "grade"]
        starts += [a for a, _ in g]
        ends += [b for _, b in g]
        grades += [b - a for a, b in g[1:]] or [b - a for a, b in g]
        t = [b - a for name, a, b in spans if name.startswith("round trip")]
        trips, trip_s = trips + len(t), trip_s + sum(t)
        c = p.get("counts", {})
        grader_us += c.get("grader cpu us", 0)
        worker_us += c.get("worker cpu us", 0)
        lock_us += c.get("worker lock-down cpu us", 0)
        workers += c.get("workers", 0)
        out.append(f"  grader process {p['pid']}: {len(g)} submissions, grade median "
                   f"{statistics.median([b - a for a, b in g]) * 1000:.0f} ms")
    wall = max(ends) - min(starts)
    graded = len(starts)
    out.append(f"steady part (first grade's start to last one's end): {wall:.2f} s for {graded} submissions "
               f"= {wall / graded * 1000:.0f} ms per submission")
    out.append(f"a submission inside its grader process (2nd on): median {statistics.median(grades) * 1000:.0f} ms, "
               f"mean {statistics.mean(grades) * 1000:.0f} ms (compare the mean with the steady part: "
               "a median leaves the slow grades out)")
    out.append(f"round trips: {trips / graded:.0f} per submission, {trip_s / max(1, trips) * 1000:.2f} ms each")
    out.append(f"CPU per submission: grader {grader_us / graded / 1000:.0f} ms + worker "
               f"{worker_us / max(1, workers) / 1000:.0f} ms (lock-down {lock_us / max(1, workers) / 1000:.0f})")
    out.append(f"the batch's whole process tree (reaped children): {tree_cpu_s:.1f} s of CPU, "
               f"{tree_cpu_s / graded * 1000:.0f} ms per submission including start-up")
    out.append(f"cores busy in the steady part, graders and workers only: "
               f"{(grader_us + worker_us) / 1e6 / wall:.2f} of {os.cpu_count()}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slug", default="sdpa-from-scratch")
    ap.add_argument("-n", type=int, default=12, help="submissions graded for the per-submission table")
    ap.add_argument("--mix", choices=("full", "examples"), default="full",
                    help="full: full-marks notebooks only; examples: every example in turn")
    ap.add_argument("-j", type=int, default=2, help="grader processes of the start-up batch")
    ap.add_argument("--sub-j", type=int, default=1,
                    help="grader processes of the per-submission batch (above 1: whole-class figures)")
    ap.add_argument("--runs", type=int, default=1, help="start-up runs")
    ap.add_argument("--skip", default="", help="comma-separated: startup, submissions")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; assignment {args.slug}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="breakdown-") as tmp:
        if "startup" not in skip:
            print("\n== start-up, seconds from the command's launch\n" + startup(args.slug, args.j, Path(tmp), args.runs),
                  flush=True)
        if "submissions" not in skip:
            print(f"\n== per submission, batch -j{args.sub_j}, {args.n} "
                  f"{'full-marks' if args.mix == 'full' else 'example'} notebooks\n"
                  + submissions(args.slug, args.n, args.mix, Path(tmp), args.sub_j), flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
