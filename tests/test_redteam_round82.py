"""Red-team round 82: what a student reaches inside Gradescope's container.

Gradescope's layout rehearsed as Gradescope runs it (repros in /tmp/rt82/: rehearse.sh, rehearse2.sh, mkprobe.py):
the zip built by `autograder gradescope`, unpacked into <root>/source, setup.sh's permission lines applied (source and
results root-only), a world-readable <root> and submission folder, a `submission_metadata.json` written readable by
all, and `run_autograder` run as root without CAP_SYS_ADMIN (tests/docker_default.py). A probe notebook tried, from
a cell, to read the metadata, list and write source/ and results/, write into the submission folder and the root,
read the environment, /proc/<pid>/environ of its parent, and open sockets, and raised what it found so that it
appears in results.json.

- **submission_metadata.json was readable by the student's code.** It names every member of a group (emails, ids)
  and carries each earlier submission's whole results.json, tests hidden until publication included. The sandbox
  hid only the course (`Course.secret_paths`): with Landlock the worker cannot reach it, but without (Docker
  before 23.0, a kernel before 5.13: the "permissions only" case the container level is documented to hold in) the
  notebook read it at the container level (`docker_default.py --no-landlock`), and at the fallback level too (root
  with CAP_SYS_ADMIN, Landlock refused: its mounts covered only the course), and its text came back in
  results.json's output through the cell's exception. Everything else held: source/ and results/ refused, no write
  outside the host's /tmp (a known limit without Landlock), the environment cleared, /proc/<pid>/environ refused,
  sockets refused. Fix: `gradescope.gradescope_private` makes the metadata root-only before any worker exists and
  the Gradescope run launches its zygote with it among the hidden paths, so the level's own check (container) or
  its mounts (fallback) keep it out, and a level that cannot is refused by name.
- **A right notebook graded as the autograder's failure.** At the container level (and rlimits without namespaces)
  a worker's scratch dir is on the host's disk and the grader removes it once the worker is gone
  (session.remove_scratch: os.walk to open folders up, then shutil.rmtree; the zygote's close: shutil.rmtree). Both
  recurse once per folder: a cell with `os.mkdir('a'); os.chdir('a')` 3000 times made the removal raise
  RecursionError in the grader, and run_autograder's results.json read "The autograder could not grade this
  submission" (0 points, `autograder_error: RecursionError`) for the full-marks fixture, with Landlock; the tree stayed
  in /tmp. Fix: isolation.remove_tree, iterative and descriptor-relative (no path longer than one name, never a
  link's target, never above the folder it was given), used by both: 4/4.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS

SECRET = "SECRET-HIDDEN-OUTPUT-r82"
METADATA = {"users": [{"email": "other.member@example.edu", "name": "Other Member", "sid": "1234"}],
            "previous_submissions": [{"score": "7.0", "results": {"tests": [{"name": "hidden q9", "output": SECRET}]}}]}


def _notebook_reading(path: Path) -> dict:
    """The fixture's full-marks notebook plus a cell that reads `path` and raises its text (a cell's error is
    quoted in results.json's output)."""
    nb = json.loads((FIXTURE_SUBS / "good.ipynb").read_text())
    probe = (f"try:\n    seen = open({str(path)!r}).read()\nexcept OSError as e:\n    seen = 'refused ' + type(e).__name__\n"
             "raise RuntimeError('metadata: ' + seen[:300])\n")
    nb["cells"].insert(1, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": probe})
    return nb


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_submission_metadata_is_out_of_reach_without_landlock(tmp_path):
    from tests.docker_default import command
    zpath = tmp_path / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", "toy", "-o", str(zpath)],
                   check=True, env=env, capture_output=True, timeout=120)
    # Gradescope's /autograder is traversable by every user: a root outside pytest's root-only tmp folder
    open_root = Path(tempfile.mkdtemp(prefix="ag-r82-"))
    try:
        os.chmod(open_root, 0o755)
        root = open_root / "autograder"
        for d in ("source", "submission", "results"):
            (root / d).mkdir(parents=True)
        with zipfile.ZipFile(zpath) as z:
            z.extractall(root / "source")
        for p in [root / "source", *(root / "source").rglob("*"), root / "results"]:   # setup.sh's chmod
            os.chmod(p, 0o700 if p.is_dir() else 0o600)
        os.chmod(root, 0o755)
        os.chmod(root / "submission", 0o755)
        metadata = root / "submission_metadata.json"
        metadata.write_text(json.dumps(METADATA))
        os.chmod(metadata, 0o644)                   # as Gradescope leaves it
        nb = root / "submission" / "toy.ipynb"
        nb.write_text(json.dumps(_notebook_reading(metadata)))
        os.chmod(nb, 0o644)
        run_env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
        run_env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, AUTOGRADER_ISOLATION="container")
        proc = subprocess.run(command(["bash", str(root / "source" / "run_autograder")], landlock=False), env=run_env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        text = (root / "results" / "results.json").read_text()
        data = json.loads(text)
        assert data["extra_data"]["isolation"] == "container" and data["extra_data"]["sandbox"]["landlock"] is False
        assert "metadata: refused PermissionError" in data["output"], data["output"][:600]   # the probe ran
        assert SECRET not in text and "other.member@example.edu" not in text
        assert data["score"] == 4                     # graded as before
        assert metadata.stat().st_mode & 0o077 == 0   # left root-only for whatever runs after
    finally:
        shutil.rmtree(open_root, ignore_errors=True)


DEEP = 3000   # folders, each inside the last: past the interpreter's recursion limit and PATH_MAX (2 bytes a level)


def _nest(top: Path, depth: int = DEEP) -> None:
    here = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=here)
            with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=here), "w") as f:
                f.write("x")
            inner = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=here)
            os.close(here)
            here = inner
    finally:
        os.close(here)


def _unnest(top: Path) -> None:
    """Remove what _nest made whatever the code under test did: pytest's shared tmp folder must never keep a tree that
    its own (recursive) cleanup cannot remove. Walked with chdir, so no path is long and nothing recurses."""
    if not top.is_dir():
        return
    cwd = os.getcwd()
    try:
        os.chdir(top)
        depth = 0
        while os.path.isdir("a") and not os.path.islink("a"):
            os.chmod("a", 0o700)
            os.chdir("a")
            depth += 1
        for _ in range(depth):
            for name in os.listdir("."):
                os.unlink(name)
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(cwd)
    shutil.rmtree(top)


def test_a_scratch_dir_nested_past_the_recursion_limit_is_removed(tmp_path):
    from autograder.sandbox.session import remove_scratch
    scratch = tmp_path / "sub-deep"
    scratch.mkdir()
    _nest(scratch)
    (scratch / "out").symlink_to(tmp_path / "kept")    # a link is removed, never followed
    (tmp_path / "kept").write_text("not the worker's")
    os.chmod(scratch / "a", 0)                         # made unreadable by its writer (the rlimits level's uid)
    try:
        remove_scratch(str(scratch))                   # raised RecursionError (os.walk, shutil.rmtree)
        assert not scratch.exists() and (tmp_path / "kept").read_text() == "not the worker's"
    finally:
        _unnest(scratch)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_a_notebook_that_nests_folders_is_graded_on_gradescope(tmp_path):
    """run_autograder at the container level (Gradescope's): the worker's scratch dir is on the host's disk and removed
    by the grader once the worker is gone; 3000 nested folders made that removal raise, and results.json said the
    autograder had failed (0 points) for a notebook whose answers are right."""
    from tests.docker_default import command
    zpath = tmp_path / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_COURSE=str(FIXTURE_COURSE))
    subprocess.run([sys.executable, "-m", "autograder.cli", "gradescope", "toy", "-o", str(zpath)],
                   check=True, env=env, capture_output=True, timeout=120)
    root = tmp_path / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        z.extractall(root / "source")
    nb = json.loads((FIXTURE_SUBS / "good.ipynb").read_text())
    nest = f"import os\nfor _ in range({DEEP}):\n    os.mkdir('a')\n    os.chdir('a')\n"
    nb["cells"].insert(1, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": nest})
    (root / "submission" / "toy.ipynb").write_text(json.dumps(nb))
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    run_env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, AUTOGRADER_ISOLATION="container")
    proc = subprocess.run(command(["bash", str(root / "source" / "run_autograder")]), env=run_env,
                          capture_output=True, text=True, timeout=600)
    data = json.loads((root / "results" / "results.json").read_text())
    assert "autograder_error" not in data.get("extra_data", {}), data["extra_data"]
    assert proc.returncode == 0 and data["score"] == 4 and data["extra_data"]["isolation"] == "container"
