"""The Gradescope package: it builds, and a rehearsal of Gradescope's layout under a temporary root
grades full marks to the maximum and the template to 0, with schema-valid results.json."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SCHEMA = json.loads((Path(__file__).parent / "gradescope_results.schema.json").read_text())


def build(course_root: Path, slug: str, tmp: Path) -> Path:
    out = tmp / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_COURSE=str(course_root))
    subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", slug, "-o", str(out)],
                   check=True, env=env, capture_output=True)
    return out


def rehearse(zpath: Path, tmp: Path, put_submission) -> dict:
    root = tmp / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        z.extractall(root / "source")
    put_submission(root / "submission")
    run = root / "source" / "run_autograder"
    run.chmod(run.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_COURSE"}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    proc = subprocess.run(["bash", str(run)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(data, SCHEMA)
    return data


def test_zip_layout(tmp_path):
    z = zipfile.ZipFile(build(ROOT, "sdpa-from-scratch", tmp_path))
    names = set(z.namelist())
    assert {"setup.sh", "run_autograder", "course/grading.yml", "package/pyproject.toml"} <= names
    assert any(n.startswith("course/assignments/sdpa-from-scratch/hidden/") for n in names)
    assert not any(n.startswith("course/assignments/scaled-attention/") for n in names)
    assert "torch==2.13.0" in z.read("setup.sh").decode()
    assert (z.getinfo("run_autograder").external_attr >> 16) & 0o111


@pytest.mark.parametrize("where", ["alone", "folder", "zip"])
def test_fixture_submission_in_every_form(tmp_path, where):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)

    def put(sub: Path) -> None:
        if where == "alone":
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "toy.ipynb")
        elif where == "folder":
            (sub / "work").mkdir()
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "work" / "my notebook.ipynb")
        else:
            with zipfile.ZipFile(sub / "submission.zip", "w") as z:
                z.write(FIXTURE_SUBS / "good.ipynb", "hw/toy.ipynb")
                z.writestr("../../evil.ipynb", "{}")

    data = rehearse(zpath, tmp_path, put)
    assert data["score"] == 4
    assert not (tmp_path / "evil.ipynb").exists()
    info = [t for t in data["tests"] if t["name"].startswith("Grader information")]
    assert info and info[0]["visibility"] == "hidden" and "isolation:" in info[0]["output"]


@pytest.mark.parametrize("problem", ["missing", "two_notebooks"])
def test_missing_or_ambiguous_notebook_scores_zero_with_a_message(tmp_path, problem):
    zpath = build(FIXTURE_COURSE, "toy", tmp_path)

    def put(sub: Path) -> None:
        if problem == "missing":
            (sub / "readme.txt").write_text("oops")
        else:
            shutil.copy(FIXTURE_SUBS / "good.ipynb", sub / "a.ipynb")
            shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", sub / "b.ipynb")

    data = rehearse(zpath, tmp_path, put)
    assert data["score"] == 0
    assert "toy.ipynb" in data["output"]


@pytest.mark.parametrize("notebook,expect_max", [
    (ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", True),
    (ROOT / "student_template" / "sdpa-from-scratch.ipynb", False),
])
def test_real_assignment_full_marks_and_template(tmp_path, notebook, expect_max):
    zpath = build(ROOT, "sdpa-from-scratch", tmp_path)
    data = rehearse(zpath, tmp_path, lambda sub: shutil.copy(notebook, sub / "sdpa-from-scratch.ipynb"))
    total = sum(t["max_score"] for t in data["tests"])
    assert total > 0
    assert data["score"] == (total if expect_max else 0)
