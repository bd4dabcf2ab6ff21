"""Red-team round 61: results served for the wrong content or the wrong student (each test fails before its gap
is closed). Repros in /tmp/rt61/.

- **The fingerprint skips what the hidden tests really load.** fingerprint.tree_digest leaves out symbolic
  links, but load_hidden_tests globs hidden/*.py and follows them: a course that shares a test file between
  assignments (hidden/q1.py -> ../../../shared/q1.py) edits the target, and a rerun into the same -o serves
  every journaled grade unchanged ("0 graded now"): 4/4 kept where a fresh batch gives 8/8. hidden._expose_reference
  also puts the course root on sys.path, so a hidden test may `from course_answers import ANSWER` (a module
  at the course root): changing it regrades nothing either (4/4 kept, fresh: 3/4).
- **A grade made at a weaker sandbox level is served to a default-level rerun.** `batch --isolation rlimits`
  (where, without Landlock, "files readable by the user are readable by the student") then `batch` into the same
  -o: "0 graded now, 2 already in the journal", results still say isolation rlimits. The level is no part of
  the fingerprint nor of the reuse check.
- **Outputs of a submission no longer in the class stay in OUT.** A rerun after a submission is removed (or its
  key changes: a Canvas resubmission's new id) leaves results/<old>.json and feedback/<old>.html: two feedback
  pages for one student, the stale one with the old score, nothing said.
- **Hand scores kept in the journal by submission key are silently dropped when the key changes.** A hand score
  given by sid (Canvas user id 1234) is stored under "smithjohn_1234_56789"; after the student resubmits (Canvas
  names it smithjohn_1234_99999_...), a rerun without --hand-scores shows the question "awaiting hand grading"
  (0 points) with no word, though README says a rerun without the option keeps them.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

pytestmark = pytest.mark.sandbox


def _course(where: Path, q3_points: float | None = None) -> Path:
    shutil.copytree(FIXTURE_COURSE, where, ignore=shutil.ignore_patterns("__pycache__"))
    if q3_points is not None:
        config = yaml.safe_load((where / "grading.yml").read_text())
        config["assignments"]["toy"]["manual_points"] = {"q3": q3_points}
        (where / "grading.yml").write_text(yaml.safe_dump(config))
    return where


def _run(*args: str, course: Path) -> tuple[int, str]:
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    return proc.returncode, proc.stdout


def _book(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="") as fh:
        return {r["submission"]: r for r in csv.DictReader(fh)}


# --- the fingerprint covers what the hidden tests load -------------------------------------------------
def test_a_symlinked_hidden_test_file_is_fingerprinted(tmp_path):
    from autograder.config import Course, load_config
    from autograder.course.fingerprint import grading_fingerprint
    root = _course(tmp_path / "course")
    shared = tmp_path / "shared"
    shared.mkdir()
    q1 = root / "assignments" / "toy" / "hidden" / "q1.py"
    shutil.move(q1, shared / "q1.py")
    q1.symlink_to(shared / "q1.py")
    course = Course(root, load_config(root / "grading.yml"))
    before, _ = grading_fingerprint(course, "toy")
    text = (shared / "q1.py").read_text()
    assert "@test_case(points=2, hidden=True)" in text
    (shared / "q1.py").write_text(text.replace("@test_case(points=2, hidden=True)", "@test_case(points=6, hidden=True)", 1))
    after, _ = grading_fingerprint(course, "toy")
    assert after != before, "a hidden test file reached through a link changed its points: nothing is regraded"


def test_a_course_root_module_the_hidden_tests_import_is_fingerprinted(tmp_path):
    from autograder.config import Course, load_config
    from autograder.course.fingerprint import grading_fingerprint
    root = _course(tmp_path / "course")
    (root / "course_answers.py").write_text('ANSWER = "B"\n')
    q2 = root / "assignments" / "toy" / "hidden" / "q2.py"
    q2.write_text(q2.read_text().replace("from otter.test_files import test_case",
                                         "from otter.test_files import test_case\nfrom course_answers import ANSWER", 1)
                  .replace('== "B"', "== ANSWER"))
    course = Course(root, load_config(root / "grading.yml"))
    before, _ = grading_fingerprint(course, "toy")
    (root / "course_answers.py").write_text('ANSWER = "C"\n')
    after, _ = grading_fingerprint(course, "toy")
    assert after != before, "the module the hidden tests import from the course root changed: nothing is regraded"


# --- the sandbox level ---------------------------------------------------------------------------------
def test_a_grade_made_at_rlimits_is_not_served_to_a_default_level_rerun(tmp_path):
    course = _course(tmp_path / "course")
    cls = tmp_path / "class"
    cls.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", cls / "alice.ipynb")
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(tmp_path / "fresh"), "-j1", course=course)
    assert rc == 0, text
    default = json.loads((tmp_path / "fresh" / "results" / "alice.ipynb.json").read_text())["extra_data"]["isolation"]
    if default == "rlimits":
        pytest.skip("this machine's default level is rlimits itself")
    out = tmp_path / "out"
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j1", "--isolation", "rlimits", course=course)
    assert rc == 0, text
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j1", course=course)
    assert rc == 0, text
    served = json.loads((out / "results" / "alice.ipynb.json").read_text())["extra_data"]["isolation"]
    assert served == default, f"a default-level ({default}) rerun served the grade made at {served}: {text[-400:]}"


# --- outputs of submissions no longer in the class ---------------------------------------------------
def test_a_rerun_leaves_no_results_or_feedback_of_a_submission_gone_from_the_class(tmp_path):
    course = _course(tmp_path / "course")
    cls = tmp_path / "class"
    cls.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", cls / "ann.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", cls / "sam.ipynb")
    out = tmp_path / "out"
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j2", course=course)
    assert rc == 0, text
    (cls / "ann.ipynb").unlink()
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j2", course=course)
    assert rc == 0, text
    assert set(_book(out)) == {"sam.ipynb"}
    left = sorted(p.name for p in (out / "results").iterdir()) + sorted(p.name for p in (out / "feedback").iterdir())
    assert left == ["sam.ipynb.json", "sam.ipynb.html"], f"outputs of a submission no longer graded stay: {left}"


# --- hand scores across a key change ----------------------------------------------------------------
def test_a_hand_score_given_by_sid_survives_a_resubmission_or_is_said_lost(tmp_path):
    course = _course(tmp_path / "course", q3_points=2)
    cls = tmp_path / "class"
    cls.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", cls / "smithjohn_1234_56789_toy.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", cls / "doejane_2222_33333_toy.ipynb")
    hand = tmp_path / "hand.csv"
    hand.write_text("sid,question,score,comment\n1234,q3,2,Clear proof.\n2222,q3,1,Half.\n")
    out = tmp_path / "out"
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j2", "--hand-scores", str(hand), course=course)
    assert rc == 0, text
    assert _book(out)["smithjohn_1234_56789"]["q3"] == "2", _book(out)
    # the student resubmits: Canvas's download names the new attempt with a new id
    nb = nbformat.read(cls / "smithjohn_1234_56789_toy.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("Resubmitted: a typo fixed."))
    nbformat.write(nb, cls / "smithjohn_1234_99999_toy-1.ipynb")
    (cls / "smithjohn_1234_56789_toy.ipynb").unlink()
    rc, text = _run("batch", str(cls), "-a", "toy", "-o", str(out), "-j2", course=course)
    assert rc == 0, text
    rows = _book(out)
    assert rows["doejane_2222_33333"]["q3"] == "1"
    kept = rows["smithjohn_1234_99999"]["q3"] == "2"
    said = "smithjohn_1234_56789" in text and "hand" in text.lower()
    assert kept or said, f"sid 1234's hand score vanished without a word: {rows['smithjohn_1234_99999']}\n{text[-600:]}"
