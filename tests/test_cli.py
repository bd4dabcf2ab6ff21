"""The CLI contract: exit 0 when grading finished whatever the score, 2 with a one-line reason when
the grader itself cannot do its job."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS


def cli(*args: str, course=FIXTURE_COURSE):
    env = dict(os.environ, AUTOGRADER_COURSE=str(course))
    return subprocess.run([sys.executable, "-m", "autograder.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("args,needle", [
    (("grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "nope"), "unknown assignment 'nope'"),
    (("grade", "missing.ipynb", "-a", "toy"), "no such file"),
    (("batch", "not-a-dir", "-a", "toy", "-o", "out"), "is not a directory"),
    (("gradescope", "nope", "-o", "x.zip"), "unknown assignment"),
])
def test_grader_problems_exit_2_with_one_line(args, needle):
    proc = cli(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_bad_grading_yml_names_the_key(tmp_path):
    (tmp_path / "grading.yml").write_text("limits: {cell_timeout_s: fast}\n")
    proc = cli("grade", str(FIXTURE_SUBS / "good.ipynb"), "-a", "toy", course=tmp_path)
    assert proc.returncode == 2 and "limits.cell_timeout_s" in proc.stderr


def test_a_zero_score_still_exits_0(tmp_path):
    bad = tmp_path / "sub.ipynb"
    bad.write_text("not a notebook")
    proc = cli("grade", str(bad), "-a", "toy", "--results", str(tmp_path / "r.json"))
    assert proc.returncode == 0 and (tmp_path / "r.json").is_file()
    assert "could not be graded" in (tmp_path / "r.json").read_text()
