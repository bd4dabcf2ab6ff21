"""Developer tool for course authors: run an assignment's hidden tests on one of OUR OWN example
notebooks, in-process and unsandboxed. Never use it on student submissions: use `autograder grade`.

    python -m autograder.grading.devrun SLUG NOTEBOOK      # or: python -m autograder.grading.devrun SLUG --reference
"""
from __future__ import annotations

import sys
from pathlib import Path

from autograder.grading.hidden import load_hidden_tests
from autograder.grading.intake import read_submission
from autograder.sandbox.messages import cell_filename, jupyter_cell
from autograder.grading.runner import SubmissionInfo, TrustedNamespace, run_tests


def main(argv: list[str]) -> int:
    slug, target = argv[0], argv[1]
    root = Path.cwd()
    tests = load_hidden_tests(root / "assignments" / slug / "hidden", root)
    if target == "--reference":
        import importlib
        module = importlib.import_module("reference." + slug.replace("-", "_"))
        ns: dict = dict(vars(module))
        source = ""
    else:
        sub = read_submission(Path(target))
        ns = {"__name__": "__main__"}
        for i, cell in enumerate(sub.cells):
            try:
                exec(compile(cell, cell_filename(i), "exec"), ns)
            except Exception as e:  # noqa: BLE001
                print(f"{jupyter_cell(i)}: {type(e).__name__}: {e}")
        source = sub.source
    import yaml
    forbidden = yaml.safe_load((root / "grading.yml").read_text())["assignments"][slug].get("forbidden_apis", [])
    reports = run_tests(tests, TrustedNamespace(ns, forbidden), seed=int(argv[2]) if len(argv) > 2 else 0,
                        submission=SubmissionInfo(source=source))
    for r in reports:
        mc = f"  [{r.misconception}]" if r.misconception else ""
        print(f"{r.status:6} {r.score:4g}/{r.max_score:<4g} {r.question}:{r.name}{mc}  {r.message[:150]}")
    print(f"TOTAL {sum(r.score for r in reports):g} / {sum(r.max_score for r in reports):g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
