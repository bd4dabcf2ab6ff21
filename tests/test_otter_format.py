"""Hidden test files are read without importing otter, and the same files still run under stock otter."""
from __future__ import annotations

import json
import subprocess
import sys

from autograder.course.authoring import master_questions
from tests.conftest import FIXTURE_COURSE, ROOT, SLUGS


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


LOAD = """
import json, sys
from pathlib import Path
{before}
from autograder.grading.hidden import load_hidden_tests
root = Path({root!r})
out = {{}}
for slug in {slugs!r}:
    cases = load_hidden_tests(root / "assignments" / slug / "hidden", root)
    out[slug] = [[c.question, c.name, c.points, c.hidden, list(c.params)] for c in cases]
print(json.dumps({{"cases": out, "otter": sorted(m for m in sys.modules if m == "otter" or m.startswith("otter."))}}))
"""


def test_hidden_files_load_without_otter_and_as_with_it():
    bare = json.loads(_python(LOAD.format(before="", root=str(ROOT), slugs=tuple(SLUGS))))
    assert bare["otter"] == [], "loading hidden tests imported otter (or left the stand-in behind)"
    for slug in SLUGS:  # every question's points, as its master states them (manual ones are not in hidden/)
        master = ROOT / "assignments" / slug / f"{slug}.ipynb"
        stated = sum(q.points or 0 for q in master_questions(master) if not q.manual)
        assert bare["cases"][slug] and sum(c[2] for c in bare["cases"][slug]) == stated, slug
    # With the real otter already imported, its own test_case is used: the same cases come out.
    real = json.loads(_python(LOAD.format(before="import otter.test_files", root=str(ROOT), slugs=tuple(SLUGS))))
    assert "otter.test_files" in real["otter"]
    assert real["cases"] == bare["cases"]


def test_the_same_files_run_under_stock_otter():
    """otter's own loader runs the fixture's hidden files against the reference: every case passes,
    and a wrong answer fails, so the format is still otter's."""
    code = f"""
import sys, torch
sys.path.insert(0, {str(FIXTURE_COURSE)!r})
from otter.test_files.exception_test import ExceptionTestFile
from reference import toy
results = {{}}
for answer in ("B", "C"):
    env = {{"attend": toy.attend, "answer": answer, "device": "cpu", "rng": torch.Generator().manual_seed(0)}}
    for q in ("q1", "q2"):
        tf = ExceptionTestFile.from_file({str(FIXTURE_COURSE)!r} + f"/assignments/toy/hidden/{{q}}.py")
        tf.run(env)
        results[(answer, q)] = [r.passed for r in tf.test_case_results]
print(results[("B", "q1")], results[("B", "q2")], results[("C", "q2")])
"""
    assert _python(code).split() == ["[True,", "True]", "[True]", "[False]"]


def test_stand_in_records_what_otter_records():
    from autograder.grading.otter_format import stand_in, test_case
    with stand_in():
        from otter.test_files import test_case as imported  # noqa: F401 - resolved while inside
    if "otter.test_files" in sys.modules:  # the real otter was imported by another test: it won
        return
    assert imported is test_case

    @test_case(name="n", points=2.5, hidden=True, success_message="s", failure_message="f")
    def t(attend, rng):
        pass
    assert (t.name, t.points, t.hidden, t.success_message, t.failure_message) == ("n", 2.5, True, "s", "f")
    assert t.test_func.__name__ == "t" and t._get_func_params() == ["attend", "rng"]
    assert "otter" not in sys.modules
