"""Red-team round 58 (each test fails before its gap is closed).

- Gradescope's submission folder is walked without bounds. `gradescope.find_notebook` lists candidates with
  `Path.rglob`, which recurses once per folder level (CPython 3.11's pathlib): a submission whose folder holds,
  beside a right `<slug>.ipynb` at its top, a chain of ~1200 nested folders (what a student's uploaded zip or
  repository leaves once Gradescope unpacks it: 2.4 KB of path) raises RecursionError in the trusted process.
  `run_in_container` then writes the autograder-failure results ("This is a problem with the autograder, not
  with your work", score 0, `extra_data.autograder_error` = "RecursionError: maximum recursion depth exceeded")
  and run_autograder exits 2 (/tmp/rt58/gsdeep/run.sh). A batch reads the same folder with `exports._walk`
  (folder_depth 8, folder_files 2000) and grades the notebook; a zip holding the same chain is a plain
  rejection on both paths. The student's own bytes decide, so the answer should be theirs: the notebook at
  the top is graded (or, at worst, a rejection in words), never the grader's own failure.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_SUBS

DEPTH = 1200


def _make_chain(top: Path, depth: int = DEPTH) -> None:
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            nxt = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)


def _remove_chain(top: Path) -> None:
    """shutil.rmtree recurses too: remove the chain from the bottom with directory descriptors."""
    fds = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    try:
        while True:
            try:
                fds.append(os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("a", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


def test_gradescope_finds_the_notebook_beside_a_deep_folder_chain(tmp_path):
    from autograder.course.gradescope import find_notebook
    submission, scratch = tmp_path / "submission", tmp_path / "scratch"
    submission.mkdir(), scratch.mkdir()
    shutil.copy(FIXTURE_SUBS / "good.ipynb", submission / "toy.ipynb")
    _make_chain(submission)
    try:
        try:
            notebook, problem = find_notebook(submission, "toy", scratch)
        except RecursionError:
            pytest.fail("find_notebook raised RecursionError on a deep submission folder: Gradescope's student "
                        "reads that the autograder failed", pytrace=False)
        assert notebook is not None and notebook.name == "toy.ipynb", problem
    finally:
        _remove_chain(submission)


def test_gradescope_zip_with_a_deep_member_still_gives_the_notebook(tmp_path):
    """The same chain inside the student's zip: one member 1200 folders deep made safe_extract's
    mkdir(parents=True) recurse past the limit, and the student read "could not open submission.zip: maximum
    recursion depth exceeded"; such a member is skipped (unpack.MAX_MEMBER_DEPTH) and the notebook beside it graded."""
    import zipfile

    from autograder.course.gradescope import find_notebook
    submission, scratch = tmp_path / "submission", tmp_path / "scratch"
    submission.mkdir(), scratch.mkdir()
    with zipfile.ZipFile(submission / "submission.zip", "w") as z:
        z.writestr("toy.ipynb", (FIXTURE_SUBS / "good.ipynb").read_bytes())
        z.writestr("a/" * DEPTH + "deep.txt", b"x")
    try:
        notebook, problem = find_notebook(submission, "toy", scratch)
    except RecursionError:
        pytest.fail("find_notebook raised RecursionError on a zip with a deep member", pytrace=False)
    assert problem == "" and notebook is not None and notebook.name == "toy.ipynb"
