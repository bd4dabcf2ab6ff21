"""Red-team round 122: what a student's own outputs reveal about classmates.

Classes built from examples/submissions with fake names that are substrings of each other (Ann Lee / Ann Leeson,
Bo Chen / Bob Chenko, sids 2001 / 20011) in a Gradescope export, each notebook carrying a marker of its student in
its code and written answer; every student's feedback page and results.json grepped for every other student's name,
e-mail, sid, folder, file name and marker (/tmp/rt122/grepleak.py): none. The same 21 scaled-attention and 20
attention-pipeline examples graded in one `batch -j1` and each alone with `grade --seed` (its batch seed): results
word for word the same (/tmp/rt122/cmp.py), so no cache shared across a batch (shrink's searches, typeset formulas,
the yardstick, the journal) put one student's values into another's messages. A worker's own view at bwrap (its
environment, working directory, `/`, mount table) holds no class folder, output or classmate.

- **`grade` left the class readable by the notebook it graded** (container level without Landlock). A batch hides its
  class folder and output from every worker (round 56's mounts at fallback; at container and rlimits its zygote
  refuses to start while one is readable by the worker's uid); `grade` hid only the course. A TA's
  `autograder grade class/bob/toy.ipynb` (Docker's default capabilities, no Landlock: tests/docker_default.py
  --no-landlock) graded bob's notebook, whose first cell read `class/alice/toy.ipynb` and raised it in `attend`: bob's
  results.json and the TA's terminal said "ALICE-PRIVATE-ANSWER-42 alice@x.edu" (/tmp/rt122/repro_grade_class.py).
  Now `grade` hides the notebook's folder and the one above it (a flat class; a folder per student, a Gradescope
  export) as a batch hides its class: the level is refused in one line naming the folder and the chmod, and nothing
  of alice's reaches bob's outputs.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.test_container_level import course_copy, grade_in_container, notebook

needs_container = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                     reason="a default-capability container is made by dropping root's CAP_SYS_ADMIN")
MARKER = "ALICE-PRIVATE-ANSWER-42"


@needs_container
@pytest.mark.parametrize("layout", ["flat", "per-student"])
def test_grade_keeps_the_class_beside_the_notebook_from_it(tmp_path: Path, layout: str) -> None:
    course = course_copy(tmp_path / "private", readable_by_all=False)
    # a class folder every user can reach, as a TA's download often is (pytest's tmp_path is root-only)
    cls = Path(tempfile.mkdtemp(prefix="ag-rt122-class-"))
    try:
        os.chmod(cls, 0o755)
        alice_dir = cls / "alice" if layout == "per-student" else cls
        bob_dir = cls / "bob" if layout == "per-student" else cls
        for d in {alice_dir, bob_dir}:
            d.mkdir(mode=0o755, exist_ok=True)
            os.chmod(d, 0o755)
        notebook(alice_dir / "alice.ipynb", f"# {MARKER} alice@x.edu\ndef attend(Q, K, V):\n    return V")
        bob = notebook(bob_dir / "bob.ipynb",
                       "import glob\nseen = []\n"
                       f"for p in glob.glob('{cls}/**/*.ipynb', recursive=True):\n"
                       "    try:\n        t = open(p).read()\n    except OSError:\n        continue\n"
                       "    i = t.find('PRIVATE-ANSWER')\n    seen.append(t[max(i - 6, 0):i + 20])\n",
                       "def attend(Q, K, V):\n    raise ValueError('seen=' + repr(seen))")
        results = tmp_path / "r.json"
        proc = grade_in_container(course, bob, results, landlock=False)
        said = proc.stdout + proc.stderr + (results.read_text() if results.exists() else "")
        # the marker is in alice's notebook only: bob's run says it only if bob's code read it
        assert MARKER not in said, said[-3000:]
        # refused as a batch is, in one line naming the folder to make private
        assert proc.returncode == 2, said[-3000:]
        errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and "readable by other users" in errors[0] and str(cls) in errors[0], proc.stderr
    finally:
        shutil.rmtree(cls, ignore_errors=True)


@needs_container
def test_grade_of_a_notebook_in_a_private_class_still_grades(tmp_path: Path) -> None:
    """The fix refuses only a readable class: a private one (pytest's tmp_path) is graded as before."""
    course = course_copy(tmp_path / "private", readable_by_all=False)
    (tmp_path / "cls" / "bob").mkdir(parents=True)
    sub = notebook(tmp_path / "cls" / "bob" / "toy.ipynb", "def attend(Q, K, V):\n    return V")
    proc = grade_in_container(course, sub, tmp_path / "r.json", landlock=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "r.json").is_file()
