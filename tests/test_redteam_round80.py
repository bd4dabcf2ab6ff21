"""Red-team round 80: score arithmetic and what the gradebook adds up (per-test points, hand scores, the late
policy, groups and duplicates, gradebook.csv, canvas.csv, results.json, the feedback page and report.html).

Repros in /tmp/rt80/ (canvas_pp.py; holding.py and probe_fmt.py for what held).

- **A student's name that Canvas reads as the points-possible row.** Canvas's gradebook import
  (GradebookImporter#check_for_non_student_row) takes any row whose first cell matches `/Points Possible/` as the
  row that sets each assignment's points possible (`process_pp`), not as a student. canvas.csv's Student cell is
  the student's own name: a flat folder's file stem (`Points Possible.ipynb`), a Gradescope `:name:` (a student's
  own profile), a Moodle folder's name. Measured (canvas_pp.py): a flat class with `Points Possible.ipynb` scoring
  1 and a Gradescope export with `Mallory Points Possible` scoring 1 each wrote that row as `..., 1` beside
  classmates' 35s, with no warning in the Gradescope case: imported, the assignment would be out of 1 point for the
  whole class (every classmate at 3500%), and the student's own row never read as a grade. Such a row is now left out
  of canvas.csv with a warning naming the submission (enter it by hand), as rows Canvas would misread already are.

Tried and holding (no test: nothing to fix): per-test scores are all or nothing (runner.classify) and a result's
score is the rounded sum of its reports, so no notebook reaches a score above its tests'; the late policy at the
due time's exact second (on time), one microsecond past grace (one day), across New York's DST change (elapsed
hours), Gradescope's nanoseconds (cut to microseconds); hand scores above the question's points or NaN/inf
(refused), a hand score for a student with no submission (the file refused, the row named); groups (one row per
member, the group's score); results.json's score is the sum of its tests' scores to 6 decimals; scores with more than six
significant digits (only from hand scores with many decimals) are shown to six by every output but results.json.
"""
from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

from autograder.course.exports import METADATA_NAME, discover
from autograder.course.gradebook import write_canvas_csv
from tests.conftest import FIXTURE_SUBS
from tests.test_lateness import result

# Canvas's own test (gradebook_importer.rb): `row[0] =~ /Points Possible/`
CANVAS_PP = re.compile("Points Possible")


def _flat(root: Path) -> Path:
    root.mkdir()
    for name in ("alice", "bob", "Points Possible"):
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / f"{name}.ipynb")
    return root


def _gradescope(root: Path) -> Path:
    root.mkdir()
    lines = []
    for i, name in enumerate(["Alice A", "Bob B", "Mallory Points Possible"]):
        (root / f"submission_{i}").mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / f"submission_{i}" / "toy.ipynb")
        lines.append(f"submission_{i}:\n  :submitters:\n  - :name: {name}\n    :sid: '100{i}'\n    :email: s{i}@x.edu\n")
    (root / METADATA_NAME).write_text("".join(lines))
    return root


@pytest.mark.parametrize("layout", ["flat", "gradescope"])
@pytest.mark.parametrize("points_possible", [False, True])
def test_a_name_canvas_reads_as_points_possible_is_not_a_row_of_canvas_csv(tmp_path, layout, points_possible):
    found = discover((_flat if layout == "flat" else _gradescope)(tmp_path / "class"), "toy", tmp_path / "scratch")
    hostile = {e.key for e in found.entries if "Points Possible" in e.name}
    assert len(hostile) == 1 and len(found.entries) == 3
    results = [result(e.key, 1.0 if e.key in hostile else 35.0, 35.0) for e in found.entries]
    path = tmp_path / "canvas.csv"
    warnings = write_canvas_csv(results, path, "Attention", found.entries, points_possible=points_possible)
    rows = list(csv.reader(path.open(newline="", encoding="utf-8")))[1:]
    read_as_pp = [row for row in rows if CANVAS_PP.search(row[0])]
    # only the grader's own "Points Possible" row (asked for), saying the assignment's maximum
    assert read_as_pp == ([["Points Possible", "", "", "", "", "35"]] if points_possible else []), rows
    assert sorted(row[5] for row in rows if not CANVAS_PP.search(row[0])) == ["35", "35"], rows   # classmates kept
    said = [w for w in warnings if "Points Possible" in w]
    assert said and next(iter(hostile)) in said[0], warnings          # the instructor is told whose grade to enter


def test_a_group_keeps_the_rows_of_members_whose_names_canvas_reads_as_students(tmp_path):
    """In a group, only the member whose name poses as the points-possible row is left out: the others' rows (their
    ids, the group's score) are what Canvas matches."""
    root = tmp_path / "class"
    root.mkdir()
    (root / "submission_1").mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", root / "submission_1" / "toy.ipynb")
    (root / METADATA_NAME).write_text(
        "submission_1:\n  :submitters:\n  - :name: Carol C\n    :sid: '1003'\n"
        "  - :name: \"Dan ＰＯＩＮＴＳ possible\"\n    :sid: '1004'\n")    # full-width: NFKC reads it as Canvas would not
    found = discover(root, "toy", tmp_path / "scratch")
    path = tmp_path / "canvas.csv"
    warnings = write_canvas_csv([result("submission_1", 30.0, 35.0)], path, "Attention", found.entries)
    rows = list(csv.reader(path.open(newline="", encoding="utf-8")))[1:]
    assert rows == [["Carol C", "", "1003", "", "", "30"]], rows
    assert any("submission_1" in w and "Points Possible" in w for w in warnings), warnings
