"""Every process the grader starts imports only what is installed, never a student's file.

An instructor runs `autograder batch . -o ../out` from inside a class folder, or `autograder grade` from
inside a student's folder: that folder holds the students' json.py, torch.py, yaml.py, numpy.py,
sitecustomize.py, usercustomize.py, a .pth file, a poisoned __pycache__ and a sourceless .pyc, each of
which writes a marker file when imported. The batch parent, its grader processes (which hold the
hidden tests), their zygotes, `grade`, `merge` and `gradescope-run` all run from there: grading works
and no marker appears. A control shows that every poison does fire when a folder is on the import
path, so its silence means something."""
from __future__ import annotations

import csv
import json
import os
import py_compile
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.course.pool import grader_command
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SLUG = "toy"
AUTOGRADER = Path(sys.executable).with_name("autograder")  # the console script `make install` puts there
# Modules the grader's processes import (stdlib and installed), shadowed by a student's file of that name.
SHADOWS = ["json", "torch", "yaml", "numpy", "typing", "typer", "pydantic", "nbformat", "sqlite3", "safetensors",
           "sitecustomize", "usercustomize"]
PACKAGES = ["autograder", "reference"]  # a student's folder named like our own packages


def _poison(code_name: str, markers: Path) -> str:
    # Only when imported: the same file graded as a submission runs as __main__, in the sandbox.
    return (f"import os as _o, sys as _s\n"
            f"if __name__ != '__main__':\n"
            f"    _f = open(_o.path.join({str(markers)!r}, '{code_name}-%d' % _o.getpid()), 'w')\n"
            f"    _f.write(' '.join(_s.argv)[:300]); _f.close()\n")


def poison(folder: Path, markers: Path) -> None:
    """Fill `folder` with files that write a marker into `markers` when Python imports them from it."""
    folder.mkdir(parents=True, exist_ok=True)
    markers.mkdir(parents=True, exist_ok=True)
    for name in SHADOWS:
        (folder / f"{name}.py").write_text(_poison(name, markers))
    for name in PACKAGES:
        (folder / name).mkdir(exist_ok=True)
        (folder / name / "__init__.py").write_text(_poison(f"{name}-package", markers))
    # a .pth file: only site-packages folders run them, whatever folder it lies in
    (folder / "zz-evil.pth").write_text(f"import os; open(os.path.join({str(markers)!r}, 'pth'), 'w').close()\n")
    # a poisoned cache: an unchecked-hash .pyc is loaded instead of its source, whatever the source says
    src = markers.parent / "poison-src"
    src.mkdir(exist_ok=True)
    (src / "pycache_yaml.py").write_text(_poison("pycache-yaml", markers))
    (folder / "__pycache__").mkdir(exist_ok=True)
    py_compile.compile(str(src / "pycache_yaml.py"),
                       cfile=str(folder / "__pycache__" / f"yaml.{sys.implementation.cache_tag}.pyc"),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    # a sourceless .pyc beside them: imported as typing_extensions (pydantic imports it) from any folder on the path
    (src / "te.py").write_text(_poison("sourceless-typing_extensions", markers))
    py_compile.compile(str(src / "te.py"), cfile=str(folder / "typing_extensions.pyc"), doraise=True)


def fired(markers: Path) -> list[str]:
    return sorted(f"{p.name}: {p.read_text()[:200]}" for p in markers.iterdir())


def clean_env(**extra: str) -> dict[str, str]:
    """The instructor's environment, without anything that puts a folder on every Python's path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH", "PYTHONSTARTUP",
                                                            "PYTHONHOME", "AUTOGRADER_COURSE")}
    env.update(extra)
    return env


def run(cmd: list[str], cwd: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=clean_env(**env), capture_output=True, text=True, timeout=timeout)


def test_every_poison_fires_when_its_folder_is_on_the_path(tmp_path):
    """The control: from this folder, plain `python -c` and `python -m` do import the students' files
    (Python puts the working directory first), so no marker later means isolation, not a dud poison."""
    folder, markers = tmp_path / "folder", tmp_path / "markers"
    poison(folder, markers)
    run([sys.executable, "-c", "import json, yaml, typing_extensions"], folder)
    run([sys.executable, "-c", "pass"], folder, PYTHONPATH=str(folder))  # sitecustomize, as site imports it
    got = {name.split(":")[0].rsplit("-", 1)[0] for name in fired(markers)}
    assert {"json", "pycache-yaml", "sourceless-typing_extensions", "sitecustomize"} <= got, got
    for p in markers.iterdir():
        p.unlink()
    # `python -m autograder.cli` from such a folder imports its typing.py: hence the console script and -I
    proc = run([sys.executable, "-m", "autograder.cli", "--version"], folder)
    assert proc.returncode != 0 and any(m.startswith("typing-") for m in fired(markers)), proc.stderr[-500:]


def test_grader_processes_start_isolated():
    cmd = grader_command({"course": "/x"})
    assert cmd[:3] == [sys.executable, "-I", "-c"] and cmd[4:6] == [str(ROOT / "autograder"), "autograder.course.pool"]


def test_a_started_process_runs_this_package_whatever_is_installed(tmp_path):
    """The child imports the autograder its parent runs (and fingerprints), from the folder the parent
    imported it from, not an installed copy nor one in the working directory."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "autograder", copy / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "autograder" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "copy-'))
    folder, markers = tmp_path / "folder", tmp_path / "markers"
    poison(folder, markers)
    code = ("import sys, subprocess; sys.path.insert(0, sys.argv[1]); "
            "from autograder.course.pool import isolated_module_command as c; "
            "print(subprocess.run(c('autograder.cli', '--version'), capture_output=True, text=True).stdout)")
    proc = run([sys.executable, "-I", "-c", code, str(copy)], folder)
    assert proc.stdout.startswith("autograder copy-"), proc.stdout + proc.stderr[-1000:]
    assert fired(markers) == []


@pytest.fixture
def flat_class(tmp_path: Path) -> tuple[Path, Path]:
    """A flat class folder whose students' files include the poisons (each one also a .py submission)."""
    folder, markers = tmp_path / "class", tmp_path / "markers"
    poison(folder, markers)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", folder / "good.ipynb")
    shutil.copy(FIXTURE_SUBS / "no_scale.ipynb", folder / "no_scale.ipynb")
    return folder, markers


def _book(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="") as fh:
        return {row["submission"]: row for row in csv.DictReader(fh)}


def test_batch_and_merge_from_inside_a_hostile_class_folder(flat_class):
    folder, markers = flat_class
    # the course given relative to the working directory, as an instructor may: the grader processes
    # work in folders of their own, so it must reach them as an absolute path
    course = os.path.relpath(FIXTURE_COURSE, folder)
    proc = run([str(AUTOGRADER), "batch", ".", "-a", SLUG, "-o", "../out", "-j", "2", "--seed", "3"], folder,
               AUTOGRADER_COURSE=course)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert fired(markers) == []
    book = _book(folder.parent / "out" / "gradebook.csv")
    assert (book["good.ipynb"]["score"], book["good.ipynb"]["max_score"]) == ("4", "4")
    assert book["no_scale.ipynb"]["score"] == "1"
    assert "json.py" in book  # the student's json.py was graded as what it is: a submission, in the sandbox

    proc = run([str(AUTOGRADER), "merge", "../out", "-o", "../merged"], folder, AUTOGRADER_COURSE=course)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert fired(markers) == []
    assert _book(folder.parent / "merged" / "gradebook.csv")["good.ipynb"]["score"] == "4"


def test_grade_and_batch_from_inside_a_students_folder(tmp_path):
    markers = tmp_path / "markers"
    classroom = tmp_path / "class"
    for student in ("alice", "bob"):
        poison(classroom / student, markers)
        shutil.copy(FIXTURE_SUBS / "good.ipynb", classroom / student / f"{SLUG}.ipynb")
    alice = classroom / "alice"
    proc = run([str(AUTOGRADER), "grade", f"{SLUG}.ipynb", "-a", SLUG, "--results", "r.json"], alice,
               AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Score: 4 / 4" in proc.stdout
    assert json.loads((alice / "r.json").read_text())["score"] == 4
    assert fired(markers) == []
    # `python -I -m autograder.cli` is the module form that is safe from here
    proc = run([sys.executable, "-I", "-m", "autograder.cli", "batch", "..", "-a", SLUG, "-o", str(tmp_path / "out"),
                "-j", "1"], alice, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert fired(markers) == []
    book = _book(tmp_path / "out" / "gradebook.csv")
    assert {k: r["score"] for k, r in book.items()} == {"alice": "4", "bob": "4"}


def test_gradescope_run_from_inside_the_submission_folder(tmp_path):
    """gradescope-run as `python -I -m autograder.cli`, its working directory the student's folder
    (run_autograder itself is covered where the Gradescope package is tested)."""
    zpath = tmp_path / "autograder.zip"
    built = run([sys.executable, "-I", "-m", "autograder.cli", "gradescope", SLUG, "-o", str(zpath)], tmp_path,
                AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    assert built.returncode == 0, built.stderr[-2000:]
    root = tmp_path / "autograder"
    for d in ("source", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        z.extractall(root / "source")
    markers = tmp_path / "markers"
    poison(root / "submission", markers)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", root / "submission" / f"{SLUG}.ipynb")
    proc = run([sys.executable, "-I", "-m", "autograder.cli", "gradescope-run", "--root", str(root), "--slug", SLUG],
               root / "submission")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert fired(markers) == []
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 4
