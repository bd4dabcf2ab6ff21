"""Red team: every hostile submission gains nothing, leaks nothing, writes nothing outside its
scratch dir, leaves no process behind, and the grader finishes; also all of them in one batch."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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


def sandbox_processes() -> set[str]:
    out = subprocess.run(["ps", "-eo", "pid,uid,args"], capture_output=True, text=True).stdout
    return {line.strip() for line in out.splitlines()[1:]
            if "autograder.worker" in line or line.split()[1] == "65534"}


_BEFORE: set[str] = set()


def stray_processes(settle_s: float = 5.0) -> list[str]:
    """Sandbox processes that were not there before the case (warm graders of other tests are).
    A finished grader's sandbox dies with it, but asynchronously: allow it a moment."""
    deadline = time.monotonic() + settle_s
    while True:
        left = sorted(sandbox_processes() - _BEFORE)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_gains_nothing(case: Case, tmp_path: Path) -> None:
    _BEFORE.clear()
    _BEFORE.update(sandbox_processes())
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
    left = stray_processes()
    assert not left, f"{case.name} left processes behind: {left}"


@pytest.mark.parametrize("level", ["bwrap", "fallback"])
def test_all_hostile_in_one_batch_and_good_still_graded(tmp_path: Path, level: str) -> None:
    """Every hostile case and two correct submissions in one `run_batch` (two at a time, one warm
    grader): the batch finishes, the hostile ones get 0, the correct ones full marks."""
    from autograder.batch import run_batch
    from autograder.config import find_course
    from autograder.grading import Grader
    from autograder.results import Isolation
    from autograder.sandbox import bwrap_works

    if level == "bwrap" and not bwrap_works():
        pytest.skip("bwrap is not usable here")
    if level == "fallback" and os.geteuid() != 0:
        pytest.skip("the fallback needs root")
    os.environ[SECRET_ENV] = SECRET_VALUE
    _BEFORE.clear()
    _BEFORE.update(sandbox_processes())
    subs = tmp_path / "class"
    subs.mkdir()
    for case in CASES:
        write_case(case, subs, tmp_path / "escaped.txt")
    for name in ("aaa_good.ipynb", "zzz_good.ipynb"):
        (subs / name).write_bytes((COURSE.parent / "submissions" / "good.ipynb").read_bytes())
    with Grader(find_course(COURSE), isolation=Isolation(level)) as grader:
        results = {r.submission: r for r in run_batch(subs, "toy", tmp_path / "out", jobs=2, grader=grader)}
    assert len(results) == len(CASES) + 2
    for name, r in results.items():
        assert r.isolation == Isolation(level)
        if name.endswith("_good.ipynb"):
            assert r.score == r.max_score == 4, (name, [t.message for t in r.tests])
        else:
            assert r.score == 0, name
    report = (tmp_path / "out" / "report.html").read_text()
    assert not any(m in report for m in MARKERS)
    assert not (tmp_path / "escaped.txt").exists()
    assert not stray_processes()
