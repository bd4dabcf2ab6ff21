"""The container level, run for real as Docker's default runs us (tests/docker_default.py: root without
CAP_SYS_ADMIN, namespaces and mounts refused by seccomp): the level is chosen by trying, the grade is
right, the course stays out of reach (by Landlock where the kernel has it, else by its permissions),
and a grader that cannot isolate says so in one line. The red-team suites also run at this level
(tests/test_redteam*.py, tests/test_sandbox.py)."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS
from tests.docker_default import command

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="a default-capability container is made by dropping root's CAP_SYS_ADMIN (setpriv)")
MARKER = "SECRET-MARKER-hidden-7f3a"


@pytest.fixture
def open_dir():
    """A folder every user can reach (pytest's own tmp_path is under a root-only folder)."""
    path = Path(tempfile.mkdtemp(prefix="ag-open-course-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def course_copy(where: Path, readable_by_all: bool) -> Path:
    """The fixture course in a folder of its own: root-only (as Gradescope's setup.sh leaves it), or
    readable by every user (a careless deployment: `where` must then be reachable by all)."""
    where.mkdir(mode=0o755 if readable_by_all else 0o700, exist_ok=True)
    dest = where / "course"
    shutil.copytree(FIXTURE_COURSE, dest)
    for path in [dest, *dest.rglob("*")]:
        os.chmod(path, (0o755 if path.is_dir() else 0o644) if readable_by_all else (0o700 if path.is_dir() else 0o600))
    return dest


def grade_in_container(course: Path, notebook: Path, results: Path, landlock: bool = True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env["AUTOGRADER_COURSE"] = str(course)
    return subprocess.run(command([sys.executable, "-I", "-m", "autograder.cli", "grade", str(notebook), "-a", "toy",
                                   "--results", str(results)], landlock=landlock),
                          capture_output=True, text=True, env=env, timeout=300, cwd="/")


def notebook(path: Path, *cells: str) -> Path:
    nb = new_notebook()
    nb.cells = [new_code_cell(c) for c in cells]
    nbformat.write(nb, path)
    os.chmod(path, 0o644)
    return path


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "permissions-only"])
def test_grades_at_the_container_level(tmp_path: Path, landlock: bool) -> None:
    course = course_copy(tmp_path / "private", readable_by_all=False)
    scores = {}
    for name in ("good", "no_scale"):
        # the notebook's own folder must be private too (it may hold the class): a copy in tmp_path is
        sub = shutil.copy(FIXTURE_SUBS / f"{name}.ipynb", tmp_path / f"{name}.ipynb")
        proc = grade_in_container(course, Path(sub), tmp_path / f"{name}.json", landlock)
        assert proc.returncode == 0, proc.stderr[-2000:]
        data = json.loads((tmp_path / f"{name}.json").read_text())
        extra = data["extra_data"]
        assert extra["isolation"] == "container", proc.stderr
        assert extra["sandbox"]["seccomp"] is True and extra["sandbox"]["landlock"] is landlock
        scores[name] = data["score"]
        # the stronger levels were tried and skipped, each with one line saying why
        notes = [ln for ln in proc.stderr.splitlines() if ln.startswith("note: sandbox level")]
        assert [n.split()[3] for n in notes] == (["bwrap"] if shutil.which("bwrap") else []) + ["fallback"], proc.stderr
    assert scores["good"] == 4 and scores["no_scale"] < 4


def test_a_readable_course_without_landlock_is_refused_in_one_line(tmp_path: Path, open_dir: Path) -> None:
    course = course_copy(open_dir, readable_by_all=True)
    proc = grade_in_container(course, FIXTURE_SUBS / "good.ipynb", tmp_path / "r.json", landlock=False)
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "no sandbox level starts here" in errors[0] and "container: " in errors[0]
    assert str(course) in errors[0] and "readable by other users" in errors[0] and "chmod" in errors[0]


def test_landlock_hides_a_readable_course(tmp_path: Path, open_dir: Path) -> None:
    """Where the kernel has Landlock, a course readable by everyone is still out of the worker's reach."""
    course = course_copy(open_dir, readable_by_all=True)
    token = secrets.token_hex(6)
    nb = notebook(tmp_path / "peek.ipynb", _ATTACK.format(course=course, token=token),
                  "def attend(Q, K, V):\n    raise ValueError('reached=' + repr(seen))")
    proc = grade_in_container(course, nb, tmp_path / "r.json", landlock=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = (tmp_path / "r.json").read_text()
    data = json.loads(text)
    assert data["extra_data"]["isolation"] == "container" and data["extra_data"]["sandbox"]["landlock"] is True
    # what the worker reached is said back to us through its own error message: nothing
    assert "reached=[]" in text, text[:3000]
    assert MARKER not in text + proc.stdout


# Everything one worker might try at this level: read the course, write outside its scratch dir
# (host /tmp, /dev/shm, the course), open a socket, signal its parent. `seen` lists what worked.
_ATTACK = '''
import os, socket, glob
seen = []
for p in glob.glob("{course}/**", recursive=True) + ["{course}/assignments/toy/hidden/q1.py"]:
    try:
        if os.path.isfile(p) and "SECRET" in open(p).read():
            seen.append("read " + p)
    except OSError:
        pass
for d in ("/tmp", "/dev/shm", "/var/tmp", "{course}"):
    try:
        with open(os.path.join(d, "ag-container-escape-{token}"), "w") as fh:
            fh.write("x")
        seen.append("wrote " + d)
    except OSError:
        pass
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    seen.append("socket")
except OSError:
    pass
try:
    os.kill(os.getppid(), 9)
    seen.append("kill")
except OSError:
    pass
'''


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "permissions-only"])
def test_a_worker_reaches_nothing_outside_itself(tmp_path: Path, landlock: bool) -> None:
    course = course_copy(tmp_path / "private", readable_by_all=False)
    # the file it tries to leave on the host is named for this run: the permissions-only case may write
    # its own to /tmp while the landlock case runs on another pytest worker
    token = secrets.token_hex(6)
    nb = notebook(tmp_path / "attack.ipynb", _ATTACK.format(course=course, token=token),
                  "import torch\ndef attend(Q, K, V):\n    return torch.softmax(Q @ K.T / Q.shape[-1] ** 0.5, -1) @ V\n"
                  "def leak():\n    raise ValueError('reached=' + repr(seen))\nleak()")
    proc = grade_in_container(course, nb, tmp_path / "r.json", landlock)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["extra_data"]["isolation"] == "container"
    assert data["score"] >= 3, "the honest part still grades: the attacks cost nothing to the grader"
    text = json.dumps(data)
    assert MARKER not in text + proc.stdout
    said = text + proc.stdout
    assert "reached=" in said, "the cell's error (what the worker reached) is shown"
    reached = said.split("reached=", 1)[1][:300]
    assert "read " not in reached and "socket" not in reached and "kill" not in reached, reached
    for d in ("/tmp", "/dev/shm", "/var/tmp", str(course)):
        leftover = Path(d, f"ag-container-escape-{token}")
        written = leftover.exists()
        leftover.unlink(missing_ok=True)
        if landlock or d == str(course):  # without Landlock, world-writable host dirs stay writable (docs/security.md)
            assert not written, f"the worker wrote to {d}"


def batch_in_container(course: Path, class_dir: Path, out: Path, landlock: bool):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env["AUTOGRADER_COURSE"] = str(course)
    return subprocess.run(command([sys.executable, "-I", "-m", "autograder.cli", "batch", str(class_dir), "-a", "toy",
                                   "-o", str(out)], landlock=landlock),
                          capture_output=True, text=True, env=env, timeout=600, cwd="/")


# A student who, at grading time, looks for classmates' notebooks to borrow their functions from
_COPYCAT = '''
import glob, os
seen = []
for p in glob.glob("{class_dir}/*") + glob.glob("{out}/**", recursive=True):
    try:
        if os.path.isfile(p):
            open(p, "rb").read(1)
            seen.append(p)
    except OSError:
        pass
def attend(Q, K, V):
    raise ValueError("reached=" + repr(seen))
'''


@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "permissions-only"])
def test_a_batch_keeps_the_class_folder_from_each_student(tmp_path: Path, open_dir: Path, landlock: bool) -> None:
    course = course_copy(tmp_path / "private", readable_by_all=False)
    class_dir, out = open_dir / "class", open_dir / "out"
    class_dir.mkdir(mode=0o755)
    shutil.copy(FIXTURE_SUBS / "good.ipynb", class_dir / "alice.ipynb")
    notebook(class_dir / "mallory.ipynb", _COPYCAT.format(class_dir=class_dir, out=out))
    for p in class_dir.iterdir():
        os.chmod(p, 0o644)
    proc = batch_in_container(course, class_dir, out, landlock)
    if not landlock:
        # nothing can wall off a folder every user may read: refused, by name, before grading anyone
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert str(class_dir) in proc.stderr and "readable by other users" in proc.stderr
        return
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = {p.name.split(".")[0]: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
    assert set(results) == {"alice", "mallory"}, sorted(results)
    assert results["alice"]["score"] == 4 and results["alice"]["extra_data"]["isolation"] == "container"
    said = json.dumps(results["mallory"])
    assert "reached=[]" in said, said[:2000]
