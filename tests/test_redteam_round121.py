"""Red-team round 121: the author's safety net (`autograder check`, autograder/course/authoring.py).

Broken copies of attention-pipeline (/tmp/rt121/: mk.py copies the course with five honest examples) were
checked to see which authoring mistakes `autograder check` lets through to grading. Two did:

1. A hidden test too slow for a slower host. With `limits.check_cpu_s: 3`, a test of q01 that spends 1.6 s of
   CPU in its own work passed every check here (`autograder check attention-pipeline --seeds 1`: 0 problems),
   and at `check_cpu_s: 1.5` (the same test on a host twice as slow) full_marks.ipynb scored 41 / 42 ("the
   grader's checks of this test spent over 1.5 s of CPU"). The check never looked at a test's time. Now the
   reference's run (at the course's check_cpu_s) names each test that takes over a third of the smaller of
   check_cpu_s and call_timeout_s, with its file and line, and all tests together over a third of
   submission_timeout_s (`authoring.slow_test_problems`, SLOW_HOST_FACTOR).
2. A hidden test importing what the grading environment lacks. `import pytest` (for pytest.approx) in
   hidden/q01.py passed the check (0 problems): pytest is in the author's venv (the dev extra), but
   Gradescope's setup.sh pip-installs only this package and its dependencies, where pytest is not, so
   every student's grade there fails to load the hidden tests. Now the check reads (never runs) every
   import of the hidden files and the reference modules they use, and names each module that is neither
   the standard library, the engine, `reference`, the assignment's own helpers nor provided by a runtime
   dependency of this package (`authoring.import_problems`); an import under `try/except ImportError` is
   left alone.

Tried and held (each refused by the check as it was): the untouched template scoring (a test that passes on
the stub), a reference that fails its own test, points in the master that disagree with the tests', a
question without tests and tests of no question, a seed-dependent example, a misconception key named in
expected.yml without a text, a hidden test that raises TypeError on right code (the reference fails it).
A notebook that returns zeros scores points on the real assignments' shape tests (11/35, 9/28, 16/42 in
/tmp/rt121/zeros_probe.py), so "zeros score 0" is no rule the check can hold an author to."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder.config import Limits, find_course
from autograder.course.authoring import SLOW_HOST_FACTOR, import_problems, slow_test_problems
from autograder.grading.hidden import HiddenTestCase
from tests.conftest import ROOT, SLUGS

SLUG = "attention-pipeline"
HONEST = ["full_marks.ipynb", "no_scale.ipynb", "divide_by_dk.ipynb", "softmax_wrong_dim.ipynb",
          "upper_triangular_mask.ipynb"]
FIRST_TEST = "@test_case(points=1, hidden=True)\ndef test_project_float64("


def _copy_course(dest: Path) -> Path:
    dest.mkdir()
    shutil.copy(ROOT / "grading.yml", dest)
    for folder in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    examples = dest / "examples" / "submissions" / SLUG
    examples.mkdir(parents=True)
    real = ROOT / "examples" / "submissions" / SLUG
    rows = yaml.safe_load((real / "expected.yml").read_text())
    for name in HONEST:
        shutil.copy(real / name, examples / name)
    (examples / "expected.yml").write_text(yaml.safe_dump({name: rows[name] for name in HONEST}))
    return dest


def _edit_q01(course: Path, before_first_test: str = "", in_first_test: str = "") -> Path:
    path = course / "assignments" / SLUG / "hidden" / "q01.py"
    text = path.read_text()
    assert text.count(FIRST_TEST) == 1
    comment = "    # d_model != d_k != d_v, so a transposed weight cannot slip through\n"
    text = text.replace(FIRST_TEST, before_first_test + FIRST_TEST).replace(comment, comment + in_first_test, 1)
    path.write_text(text)
    return path


def _case(name: str) -> HiddenTestCase:
    return HiddenTestCase(question="q1", name=name, points=1.0, hidden=True, func=lambda: None, params=(),
                          file="/course/assignments/a/hidden/q1.py")


def test_a_test_over_a_third_of_its_limit_is_named_with_its_file():
    limits = Limits(check_cpu_s=3, call_timeout_s=30, submission_timeout_s=300)
    tests = [_case("test_slow"), _case("test_quick")]
    found = slow_test_problems(tests, {("q1", "test_slow"): 1.6, ("q1", "test_quick"): 0.5}, 2.1, limits)
    assert len(found) == 1 and "q1:test_slow (q1.py, line " in found[0] and "(3 s:" in found[0], found
    # check_cpu_s 0 is no budget: call_timeout_s bounds the test then
    assert slow_test_problems(tests, {("q1", "test_slow"): 1.6}, 1.6, Limits(check_cpu_s=0, call_timeout_s=30)) == []
    # all the tests together, against the whole submission's limit
    together = slow_test_problems(tests, {}, 300 / SLOW_HOST_FACTOR + 1, limits)
    assert len(together) == 1 and "submission_timeout_s (300 s)" in together[0], together


def test_an_import_the_grading_environment_lacks_is_named(tmp_path):
    course = _copy_course(tmp_path / "course")
    _edit_q01(course, before_first_test="import pytest\n\ntry:\n    import scipy  # optional: guarded\n"
                                        "except ImportError:\n    scipy = None\n\n\n")
    found = import_problems(find_course(course), SLUG)
    assert len(found) == 1, found
    assert "assignments/attention-pipeline/hidden/q01.py, line " in found[0] and " imports pytest," in found[0], found


@pytest.mark.parametrize("slug", SLUGS)
def test_the_real_assignments_import_only_what_grading_installs(slug):
    assert import_problems(find_course(ROOT), slug) == []


def test_check_refuses_a_slow_test_and_a_missing_import(tmp_path):
    course = _copy_course(tmp_path / "course")
    config = course / "grading.yml"
    text = config.read_text()
    assert text.count("  check_cpu_s: 30 ") == 1
    config.write_text(text.replace("  check_cpu_s: 30 ", "  check_cpu_s: 3  "))
    # 1.6 s of the test's own CPU (not wall time: a loaded host only makes it slower), 53% of its budget
    _edit_q01(course, before_first_test="import pytest  # for pytest.approx\n\n\n",
              in_first_test="    import time as _t\n    _end = _t.thread_time() + 1.6\n"
                            "    while _t.thread_time() < _end:\n        pass\n")
    proc = subprocess.run([sys.executable, "-m", "autograder", "check", SLUG, "--seeds", "1", "-j", "1"],
                          capture_output=True, text=True, env={**os.environ, "AUTOGRADER_COURSE": str(course)},
                          timeout=900, cwd=course)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    fails = [line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("FAIL")]
    said = "\n".join(fails)
    assert any(f.startswith("FAIL limits: hidden test q01:test_project_float64 (q01.py, line ") for f in fails), said
    assert any(f.startswith("FAIL imports: assignments/attention-pipeline/hidden/q01.py, line ") and "pytest" in f
               for f in fails), said
    # the slow test still passes here: only the margin refuses it
    assert "ok   reference: passes all" in proc.stdout and len(fails) == 2, said
