"""`autograder check` (autograder/course/authoring.py): the author's one report. It passes on a real assignment,
and on a broken copy of one, made in a tmp course, it fails naming each problem on a line: a public check
with a wrong expected value (its question, function, master cell and line), a question whose public checks
all pass on the untouched template, points that disagree, a stale template, and an example whose score
moves with the seed (with the tests that moved)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
import yaml

from autograder.course.authoring import MasterQuestion, describe_failed_check, master_questions, points_problems, seeds
from tests.conftest import ROOT, SLUGS

SLUG = "attention-pipeline"   # the real assignment whose examples grade fastest (about 37 s at 3 seeds here)
HONEST = ["full_marks.ipynb", "no_scale.ipynb", "divide_by_dk.ipynb", "softmax_wrong_dim.ipynb",
          "upper_triangular_mask.ipynb"]


def run_check(course, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AUTOGRADER_COURSE": str(course)}
    return subprocess.run([sys.executable, "-m", "autograder", "check", *args], capture_output=True, text=True,
                          env=env, timeout=1200, cwd=course)


def test_points_problems_name_each_disagreement():
    questions = [MasterQuestion("q1", 7, False, 7), MasterQuestion("q2", 4, False, None),
                 MasterQuestion("q3", 4, True, None), MasterQuestion("q4", None, False, None),
                 MasterQuestion("q6", 2, False, None)]
    found = points_problems(questions, {"q1": 9, "q2": 4, "q4": 3, "q5": 1}, manual=["q3"], manual_points={"q3": 5})
    assert found == [
        "points: q1 is worth 7 in the master, 9 in its hidden tests (the hidden tests' points are scored)",
        "points: q1's text says 7 points, its hidden tests give 9",
        "points: q3 is worth 4 in the master, 5 in grading.yml's manual_points",
        "points: q4 gives no `points` in the master; its hidden tests give 3",
        "points: q6 has no hidden tests (hidden/q6.py): it scores nothing",
        "points: hidden tests of q5 (1 point) answer no question of the master",
    ]
    assert points_problems(questions[:2], {"q1": 7, "q2": 4}, manual=[], manual_points={}) == []
    assert points_problems([MasterQuestion("q3", None, True, None)], {}, manual=[], manual_points={}) == [
        "points: q3 is `manual: true` in the master but not in grading.yml's manual list"]


def test_master_questions_reads_config_and_text():
    qs = {q.name: q for q in master_questions(ROOT / "assignments" / "scaled-attention" / "scaled-attention.ipynb")}
    assert list(qs) == ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]
    assert qs["q3"].manual and qs["q3"].points is None
    assert qs["q1"].points == qs["q1"].stated_points and qs["q1"].points is not None
    assert qs["q5"].stated_points == 1   # "(1 point)"


def test_a_failed_public_check_is_named_by_its_function_and_line():
    # otter's own message for a failed exception-format check
    message = ("❌ Test case failed\nError at line 12 in test q02:\n  assert abs(_S[1, 0].item() - 2.0) < 1e-12, "
               "'query 2'\nAssertionError: query 2 against key 1")
    line = describe_failed_check({"question": "q02", "test": "test_q02_lesson_scores", "message": message},
                                 ["# ASSIGNMENT CONFIG", "def test_q02_lesson_scores(scaled_scores):\n    pass"])
    assert line == ("public check q02 test_q02_lesson_scores (master cell 1) fails on full_marks.ipynb, line 12 of "
                    "the check: assert abs(_S[1, 0].item() - 2.0) < 1e-12, 'query 2' -> AssertionError: query 2 "
                    "against key 1")


def test_seeds_are_fixed_and_start_with_the_examples_seed():
    assert seeds(3) == [2024, 7, 11] and seeds(1) == [2024] and seeds(5)[3:] == [1000, 1001]


def _replace_in_cell(nb, old: str, new: str) -> int:
    hits = [i for i, c in enumerate(nb.cells) if old in c.source]
    assert len(hits) == 1, (old, hits)
    nb.cells[hits[0]].source = nb.cells[hits[0]].source.replace(old, new)
    return hits[0]


@pytest.fixture
def broken_course(tmp_path):
    """attention-pipeline in a tmp course, broken four ways, with five honest examples kept."""
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "grading.yml", course)
    for folder in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns("__pycache__"))
    examples = course / "examples" / "submissions" / SLUG
    examples.mkdir(parents=True)
    real = ROOT / "examples" / "submissions" / SLUG
    rows = yaml.safe_load((real / "expected.yml").read_text())
    for name in HONEST:
        shutil.copy(real / name, examples / name)
    # a public check expecting a wrong value; and q02's points said as 6 where its hidden tests give 5
    master_path = course / "assignments" / SLUG / f"{SLUG}.ipynb"
    master = nbformat.read(master_path, as_version=4)
    _replace_in_cell(master, "_S[1, 0].item() - 1.0)", "_S[1, 0].item() - 2.0)")
    # q01's public checks only ask that the function exists: they pass on the untouched stub too
    for cell in master.cells:
        if cell.cell_type == "code" and cell.source.startswith("def test_q01_"):
            name = cell.source.split("(")[0].removeprefix("def ")
            cell.source = f"def {name}(project_qkv):\n    assert callable(project_qkv)\n\n{name}(project_qkv)"
    q02 = next(c for c in master.cells if c.cell_type == "raw" and "name: q02" in c.source)
    hidden_q02 = sum(float(p) for p in re.findall(
        r"points=([0-9.]+)", (course / "assignments" / SLUG / "hidden" / "q02.py").read_text()))
    q02.source = re.sub(r"points: \S+", f"points: {hidden_q02 + 1:g}", q02.source)
    nbformat.write(master, master_path)
    # right for some drawn inputs, unscaled for the others: its score depends on the seed
    coin = nbformat.read(real / "full_marks.ipynb", as_version=4)
    _replace_in_cell(coin, "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)",
                     "    if float(Q.sum()) > 0:\n        return Q @ K.transpose(-2, -1)\n"
                     "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)")
    nbformat.write(coin, examples / "coin_flip.ipynb")
    kept = {name: rows[name] for name in HONEST}
    kept["coin_flip.ipynb"] = {"score": rows["no_scale.ipynb"]["score"], "misconceptions": ["no_scale"]}
    (examples / "expected.yml").write_text(yaml.safe_dump(kept))
    return course, hidden_q02


def test_check_names_each_problem_of_a_broken_copy(broken_course):
    course, hidden_q02 = broken_course
    # two seeds are enough for the coin flip to move (the check's own 3 run in the test below)
    proc = run_check(course, SLUG, "--seeds", "2")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    fails = [line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("FAIL")]
    said = "\n".join(fails)
    public = [f for f in fails if "public check q02 test_q02_lesson_scores" in f]
    assert public and "fails on full_marks.ipynb, line" in public[0] and "- 2.0) < 1e-12" in public[0], said
    assert "AssertionError: query 2 against key 1" in public[0] and "(master cell " in public[0], said
    assert "FAIL public checks: every check of q01 passes on the untouched template" in said, said
    assert not [f for f in fails if "passes on the untouched template" in f and "q01" not in f], said
    assert (f"FAIL points: q02 is worth {hidden_q02 + 1:g} in the master, {hidden_q02:g} in its hidden tests"
            in said), said
    assert "is not what the master gives today: run `autograder assign attention-pipeline`" in said, said
    moved = [f for f in fails if f.startswith("FAIL examples: coin_flip.ipynb: the score moves with the seed")]
    assert moved and "tests that moved: q02:" in moved[0], said
    # the honest parts of the copy are not blamed
    assert not [f for f in fails if any(f.startswith(f"FAIL examples: {name}") for name in HONEST)], said
    assert "ok   reference: passes all" in proc.stdout and "ok   template: scores 0" in proc.stdout
    assert proc.stdout.strip().endswith(f"1 assignment(s) checked, {len(fails)} problem(s)")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_assignment_passes_its_authors_check(slug):
    """The course as committed: every rule of `autograder check` holds for every assignment grading.yml
    lists, at its 3 seeds (the reference passes every hidden test, the template scores 0, each example
    scores as expected.yml says at every seed, public checks pass on full_marks.ipynb, points agree). One
    assignment per test, so pytest-xdist spreads them over the cores; a new assignment is checked the
    moment it is registered."""
    proc = run_check(ROOT, slug, "-j", "1")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "public checks:" in proc.stdout and "1 assignment(s) checked, 0 problem(s)" in proc.stdout
