"""Misconceptions are data: declared once per assignment (hidden/_misconceptions.py), copied into
each test report by the runner, and read from the reports by every output, so a resumed batch (which
loads no test) says the same as a fresh one."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.errors import GraderError
from autograder.grading.hidden import load_misconceptions
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

TOY_TEXT = "toy: the scores were not divided by sqrt(d_k)"


def test_the_assignment_file_is_plain_data(tmp_path: Path) -> None:
    assert load_misconceptions(FIXTURE_COURSE / "assignments" / "toy" / "hidden") == {"no_scale": TOY_TEXT}
    assert load_misconceptions(tmp_path) == {}
    (tmp_path / "_misconceptions.py").write_text("MISCONCEPTIONS = {'k': 3}\n")
    with pytest.raises(GraderError, match="string keys and texts"):
        load_misconceptions(tmp_path)


def test_the_text_travels_in_the_report_and_a_resumed_batch_keeps_it(tmp_path: Path, toy_grader) -> None:
    from autograder.course.batch import run_batch
    subs = tmp_path / "class"
    subs.mkdir()
    (subs / "no_scale.ipynb").write_bytes((FIXTURE_SUBS / "no_scale.ipynb").read_bytes())
    out = tmp_path / "out"
    first = run_batch(subs, "toy", out, jobs=1, grader=toy_grader, seed=3)
    named = [t for t in first[0].tests if t.misconception == "no_scale"]
    assert named and all(t.misconception_text == TOY_TEXT for t in named)
    data = json.loads(next((out / "results").glob("*.json")).read_text())
    outputs = [t["output"] for t in data["tests"] if "misconception:no_scale" in t["tags"]]
    assert outputs and all(o.count("sqrt(d_k)") == 1 for o in outputs), "the misconception is said once"
    (out / "report.html").unlink()
    again = run_batch(subs, "toy", out, jobs=1, grader=toy_grader, seed=3)   # served from the journal
    assert again[0].tests == first[0].tests
    assert TOY_TEXT in (out / "report.html").read_text().replace("&#39;", "'")
