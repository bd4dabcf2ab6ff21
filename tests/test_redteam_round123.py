"""Red-team round 123: today's changes, a third look (rounds 118-122: `grade` hiding the notebook's folder and the one
above it, `check`'s slow-test and import-closure checks, merge's shared locks on every shard).

Held (/tmp/rt123/): `grade` of a notebook in /tmp, /var/tmp, a course-root subfolder and the course root itself at
bwrap, fallback and rlimits (28 / 28); a symlinked notebook (the resolved folder is hidden); numpy/torch submodules,
relative imports and `except (ImportError, ...)` in a hidden file (no false import problem); shards on a read-only
folder (a shared flock needs no write access). Four holes:

- **`grade` hid /dev** for a notebook in /dev/shm (the folder's parent): the fallback zygote died ("Unable to open
  /dev/urandom", `grade /dev/shm/x.ipynb --isolation fallback`, repro_tmp.py). The worker's system folders (and the
  folders holding them) are now left out of what is hidden, as the runtime's are (zygote.WORKER_SYSTEM).
- **The refusal told a TA to `chmod -R go-rwx /tmp`**: `grade /tmp/x.ipynb` at the container level without Landlock
  (and /dev/shm even with it) hides a folder every user shares, and the container check's advice named it. The
  refusal stands (a classmate dropped beside the notebook is readable there) and now says never to chmod such a
  sticky world-writable folder, and to move the class into a private one.
- **merge past `ulimit -n`**: `shards_held` read a lock file it could not open for want of descriptors (EMFILE) as
  no lock: 120 shards under a limit of 100 descriptors, the last held by a batch, were entered without a word
  (fdlimit.py). Out of descriptors is now a refusal naming the limit.
- **`check` refused an import under `if TYPE_CHECKING:`** (a type hint's import that never runs): `import pytest`
  there was "every grade there would fail" (imports.py). Such a block is now skipped as a guarded import is.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from autograder.config import find_course
from autograder.course.authoring import import_problems
from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote
from autograder.sandbox.zygote import launch_plan
from tests.conftest import ROOT
from tests.test_container_level import course_copy, grade_in_container, notebook
from tests.test_redteam_round121 import SLUG, _copy_course, _edit_q01

POLICY = SandboxPolicy(cell_timeout_s=5, call_timeout_s=5, submission_timeout_s=60)


def test_grade_never_hides_the_workers_system_folders(course):
    """A notebook in /dev/shm: its folder is hidden, its parent (/dev: /dev/null, /dev/urandom) is not."""
    hide = launch_plan(course, ["/dev/shm", "/dev"], ["sdpa-from-scratch"])["hide"]
    assert "/dev/shm" in hide and "/dev" not in hide, hide


@pytest.mark.skipif(os.geteuid() != 0, reason="the fallback level needs root")
def test_a_fallback_worker_starts_when_the_notebook_lies_in_dev_shm(course):
    z = Zygote(Isolation.fallback, hide=launch_plan(course, ["/dev/shm", "/dev"], ["sdpa-from-scratch"])["hide"])
    try:
        try:
            z.start()
        except Exception as e:  # noqa: BLE001 - a host without CAP_SYS_ADMIN has no fallback level at all
            if "Unable to open /dev/urandom" in str(e):
                raise
            pytest.skip(f"no fallback level here: {e}")
        session = z.spawn(POLICY)
        out = session.exec_cells(["import os\nx = len(os.urandom(4))\n"])
        assert out.cells[0].status == "ok", out.cells
        assert session.resolve("x", "cpu") == 4
        session.close()
    finally:
        z.close()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="a default-capability container is made by dropping root's CAP_SYS_ADMIN")
def test_the_refusal_never_says_to_chmod_a_folder_every_user_shares(tmp_path: Path) -> None:
    course = course_copy(tmp_path / "private", readable_by_all=False)
    shared = Path(tempfile.mkdtemp(prefix="ag-rt123-shared-"))
    try:
        os.chmod(shared, 0o1777)   # as /tmp and /dev/shm are
        sub = notebook(shared / "toy.ipynb", "def attend(Q, K, V):\n    return V")
        proc = grade_in_container(course, sub, tmp_path / "r.json", landlock=False)
        errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
        assert proc.returncode == 2 and len(errors) == 1, proc.stderr[-2000:]
        assert f"make {shared} root-only" not in errors[0] and "never chmod it" in errors[0], errors[0]
        assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    finally:
        shutil.rmtree(shared, ignore_errors=True)


MERGE_PAST_FD_LIMIT = textwrap.dedent("""
    import fcntl, os, resource, sys, tempfile
    from pathlib import Path
    from autograder.course.atomic import WRITER_LOCK, shards_held
    from autograder.errors import GraderError
    root = Path(tempfile.mkdtemp(prefix="ag-rt123-fd-", dir=sys.argv[1]))
    shards = []
    for i in range(120):
        (root / f"s{i}").mkdir()
        (root / f"s{i}" / WRITER_LOCK).touch()
        shards.append(root / f"s{i}")
    busy = os.open(shards[-1] / WRITER_LOCK, os.O_RDWR)
    fcntl.flock(busy, fcntl.LOCK_EX)   # a batch writing the last shard (another open file: flock conflicts)
    resource.setrlimit(resource.RLIMIT_NOFILE, (100, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    try:
        with shards_held(shards):
            print("ENTERED")
    except GraderError as e:
        print("REFUSED", e)
""")


def test_merge_past_the_open_file_limit_is_refused_not_unguarded(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", MERGE_PAST_FD_LIMIT, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("REFUSED") and "ulimit -n" in proc.stdout, proc.stdout + proc.stderr[-2000:]


def test_an_import_under_type_checking_is_no_missing_import(tmp_path: Path) -> None:
    course = _copy_course(tmp_path / "course")
    _edit_q01(course, before_first_test="import typing\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                        "    import pytest\nif typing.TYPE_CHECKING:\n    import hypothesis\n\n\n")
    assert import_problems(find_course(course), SLUG) == []
    # outside the block the same import is still named
    _edit_q01(course, before_first_test="import pytest\n\n\n")
    found = import_problems(find_course(course), SLUG)
    assert len(found) == 1 and " imports pytest," in found[0], found
