"""Throughput of `autograder batch` against `otter run`, side by side, on the same submissions.

    python bench/bench_batch.py [--slug sdpa-from-scratch] [-n 24] [--otter-n 3] [-j 2]

Builds N submissions from the assignment's examples (each made unique, so nothing is cached), times
one `autograder batch` over all of them (start-up included) and `otter run` on a sample of them with
the otter autograder zip built from the same master notebook, and prints seconds per submission for
each and the ratio. Both run in this one process tree, one after the other, on the same machine."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def build_submissions(slug: str, n: int, where: Path) -> list[Path]:
    examples = sorted((ROOT / "examples" / "submissions" / slug).glob("*.ipynb"))
    where.mkdir(parents=True)
    subs = []
    for i in range(n):
        nb = nbformat.read(examples[i % len(examples)], as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(f"# student {i}"))
        path = where / f"student_{i:03d}.ipynb"
        nbformat.write(nb, path)
        subs.append(path)
    return subs


def otter_zip(slug: str, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    master = nbformat.read(ROOT / "assignments" / slug / f"{slug}.ipynb", as_version=4)
    master.cells[0].source = master.cells[0].source.replace("generate: false", "generate: true")
    nbformat.write(master, where / f"{slug}.ipynb")
    subprocess.run([str(BIN / "otter"), "assign", f"{slug}.ipynb", "dist"], cwd=where, check=True,
                   capture_output=True)
    return next((where / "dist" / "autograder").glob("*.zip"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--slug", default="sdpa-from-scratch")
    ap.add_argument("-n", type=int, default=24)
    ap.add_argument("--otter-n", type=int, default=3)
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        subs = build_submissions(args.slug, args.n, tmp / "class")

        start = time.perf_counter()
        subprocess.run([str(BIN / "autograder"), "batch", str(tmp / "class"), "-a", args.slug,
                        "-o", str(tmp / "out"), "-j", str(args.j)], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        ours = (time.perf_counter() - start) / len(subs)
        print(f"ours: {ours * len(subs):.1f} s for {len(subs)}", flush=True)

        zpath = otter_zip(args.slug, tmp / "otter")
        times = []
        for sub in subs[: args.otter_n]:
            work = tmp / "otter" / sub.stem
            work.mkdir()
            shutil.copy(sub, work / sub.name)
            start = time.perf_counter()
            subprocess.run([str(BIN / "otter"), "run", "-a", str(zpath), "-o", str(work), str(work / sub.name)],
                           cwd=work, capture_output=True)
            times.append(time.perf_counter() - start)
        theirs = sum(times) / len(times)
    print(f"assignment        {args.slug}")
    print(f"ours (batch -j{args.j}) {ours:.3f} s per submission over {args.n} submissions, start-up included")
    print(f"otter run         {theirs:.3f} s per submission over {args.otter_n} submissions")
    print(f"ratio             {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
