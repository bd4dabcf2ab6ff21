"""What the hidden tests cost the grader on the held-out variants: CPU seconds per test, summed over
every variant of tests/heldout/<slug>/variants.py (issue 22: the held-out set is a fifth of `make test`;
issue 20: a wrong submission's grade is mostly diagnosis).

    python bench/naming_cost.py [SLUG ...] [--wrong-only] [--top 15]

For catalogue authors, before and after a change: a diagnosis runs only after a failure, so its cost
shows on the wrong variants, and a probe that builds an n^2 tensor or scans every known variant on
every call shows here first. Each notebook's cells run IN THIS PROCESS, unsandboxed, and the tests
call the functions directly (runner.TrustedNamespace, as `autograder check` runs the reference): only
for our own held-out variants, never for a student's notebook. The figures are process CPU time
(time.process_time), so load on the machine changes them little; they include the student code's own
work (a variant that builds an n x n matrix is slow by itself) and leave out the sandbox's round trips,
which bench/breakdown.py measures."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402

from autograder.grading.hidden import HiddenTestCase, load_hidden_tests  # noqa: E402
from autograder.grading.runner import SubmissionInfo, TrustedNamespace, run_tests  # noqa: E402
from tests.heldout.harness import SLUGS, build_notebook, load_variants  # noqa: E402


def _timed(case: HiddenTestCase, spent: Counter[str], current: list[float]) -> HiddenTestCase:
    """`case` whose function adds its CPU time to spent[case.key] and to current[0]."""
    func = case.func

    def run(*args: Any, **kwargs: Any) -> None:
        start = time.process_time()
        try:
            func(*args, **kwargs)
        finally:
            spent[case.key] += time.process_time() - start
            current[0] += time.process_time() - start
    if hasattr(func, "on_missing"):   # the runner reads it from the test's function
        run.on_missing = func.on_missing  # type: ignore[attr-defined]
    return dataclasses.replace(case, func=run)


def cost(slug: str, wrong_only: bool, top: int) -> str:
    torch.set_num_threads(1)   # the worker runs one thread
    tests = load_hidden_tests(ROOT / "assignments" / slug / "hidden", ROOT)
    forbidden = yaml.safe_load((ROOT / "grading.yml").read_text())["assignments"][slug].get("forbidden_apis", [])
    spent: Counter[str] = Counter()
    current = [0.0]
    timed = [_timed(t, spent, current) for t in tests]
    per_variant: dict[str, float] = {}
    out_dir = Path(tempfile.mkdtemp(prefix="naming-cost-"))
    for variant in load_variants(slug):
        if wrong_only and variant.correct:
            continue
        nb = nbformat.read(build_notebook(variant, out_dir), as_version=4)
        cells = [c.source for c in nb.cells if c.cell_type == "code"]
        namespace: dict[str, Any] = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for source in cells:
                try:
                    exec(source, namespace)   # our own held-out notebooks only (module docstring)
                except Exception:  # noqa: BLE001 - a variant's cell may crash: its tests say so
                    pass
            current[0] = 0.0
            run_tests(timed, TrustedNamespace(namespace, forbidden), seed=2024,
                      submission=SubmissionInfo(source="\n".join(cells)))
        per_variant[variant.name] = current[0]
    total = sum(spent.values())
    lines = [f"{slug}: {len(per_variant)} variants{' (wrong only)' if wrong_only else ''}, "
             f"hidden tests' CPU {total:.1f} s ({1000 * total / max(1, len(per_variant)):.0f} ms per variant)"]
    lines += [f"  {s:7.2f} s {100 * s / max(total, 1e-9):5.1f}%  {k}" for k, s in spent.most_common(top)]
    slowest = sorted(per_variant.items(), key=lambda kv: -kv[1])[:8]
    lines.append("  slowest variants (ms): " + ", ".join(f"{n} {1000 * s:.0f}" for n, s in slowest))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slugs", nargs="*", default=list(SLUGS))
    parser.add_argument("--wrong-only", action="store_true")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    for slug in args.slugs:
        print(cost(slug, args.wrong_only, args.top), flush=True)


if __name__ == "__main__":
    main()
