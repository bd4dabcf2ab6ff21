"""Red team: every hostile submission gains nothing, leaks nothing, writes nothing outside its
scratch dir, leaves no process behind, and the grader finishes; also all of them in one batch."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.redteam.cases import CASES, Case

COURSE = Path(__file__).parent / "fixtures" / "course"
SECRET_ENV = "AUTOGRADER_REDTEAM_SECRET"
SECRET_VALUE = "env-secret-5b1d"
MARKERS = ("SECRET-MARKER", SECRET_VALUE)


def write_case(case: Case, where: Path, escape: Path) -> Path:
    nb = new_notebook()
    for cell in case.cells:
        nb.cells.append(new_code_cell(cell.replace("{course}", str(COURSE.resolve()))
                                      .replace("{escape}", str(escape))))
    path = where / f"{case.name}.ipynb"
    nbformat.write(nb, path)
    return path


def stray_processes() -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,uid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines()[1:]
            if "autograder.worker" in line or line.split()[1] == "65534"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_gains_nothing(case: Case, tmp_path: Path) -> None:
    escape = tmp_path / "escaped.txt"
    sub = write_case(case, tmp_path, escape)
    results = tmp_path / "results.json"
    env = dict(os.environ, AUTOGRADER_COURSE=str(COURSE), **{SECRET_ENV: SECRET_VALUE})
    proc = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", str(sub), "-a", "toy",
                           "--results", str(results)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(results.read_text())
    assert data["score"] == 0, f"{case.name} gained points: {data['score']}"
    blob = results.read_text() + proc.stdout + proc.stderr
    for marker in MARKERS:
        assert marker not in blob, f"{case.name} leaked {marker}"
    assert not escape.exists(), f"{case.name} wrote outside its scratch dir"
    assert not (COURSE / "pwned.txt").exists()
    assert not stray_processes(), f"{case.name} left processes behind: {stray_processes()}"


def test_all_hostile_in_one_grader_and_good_still_graded(tmp_path: Path) -> None:
    """One warm grader (the batch path) grades every hostile case and, after them, a good one."""
    from autograder.config import find_course
    from autograder.grading import Grader

    os.environ[SECRET_ENV] = SECRET_VALUE
    course = find_course(COURSE)
    with Grader(course) as grader:
        for case in CASES:
            sub = write_case(case, tmp_path, tmp_path / "escaped.txt")
            result = grader.grade(sub, "toy", seed=1)
            assert result.score == 0, case.name
        good = grader.grade(COURSE.parent / "submissions" / "good.ipynb", "toy", seed=1)
        assert good.score == good.max_score == 4
    assert not stray_processes()
