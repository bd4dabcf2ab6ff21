"""Red-team round 119: today's red-team changes, a second look (the deadline's run-queue credit and its carry over a
restart, the send's own limit, the OUT writer lock and merge's shared-lock probe, the journal's exact schema, the host
ulimit checks, hand-graded answers in the shown score). Repros in /tmp/rt119/ (twousers.py, old_schemas.py). Held:
every SCHEMA this grader has had opens under check_schema; the granted credit is carried over a restart (namespaces
reads it before the old session closes); the flock of a killed batch or merge goes with its process (the descriptor is
O_CLOEXEC and grader processes are exec'd, so none inherits it). Found:

- **A second user's batch or merge into a shared OUT ran unguarded, and merge read another user's shard mid-write.**
  sole_writer made OUT/.autograder-writing with mode 0600, and took any error opening it for "this file system takes no
  locks". In a group-writable course folder two TAs (two uids) share, the second one's open of the first one's lock file
  failed (EACCES): its batch ran into the same OUT beside the first, exit 0 both, and being_written said a shard the
  other user was still writing was not being written. Measured (/tmp/rt119/twousers.py, uid 1001 holding the lock in a
  2777 folder, uid 1002 asking): `being_written: False`, `B ALSO got the writer lock (unguarded)`. Now the lock file is
  made readable by all (fchmod 0644: it is empty; flock needs no write access), a run that may not open it for writing
  locks it read-only, and one that cannot open it at all is refused in one line (not run unguarded).
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

SETPRIV = shutil.which("setpriv")

HOLDER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from autograder.course.atomic import sole_writer
with sole_writer(Path(sys.argv[2])):
    print("held", flush=True)
    time.sleep(120)
"""

ASKER = r"""
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from autograder.course.atomic import OutputBusy, being_written, sole_writer
out = Path(sys.argv[2])
print("being_written", being_written(out))
try:
    with sole_writer(out):
        print("entered")
except OutputBusy:
    print("busy")
"""


def test_the_writer_lock_file_is_readable_by_the_other_users_of_a_shared_out(tmp_path):
    from autograder.course.atomic import WRITER_LOCK, sole_writer
    old = os.umask(0o077)   # a TA's private umask: the lock must still be one the group can take
    try:
        with sole_writer(tmp_path):
            mode = stat.S_IMODE(os.stat(tmp_path / WRITER_LOCK).st_mode)
    finally:
        os.umask(old)
    assert mode & 0o044 == 0o044, oct(mode)


def _as_user(uid: int) -> list[str]:
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-c"]


@pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None, reason="needs two users (root, and setpriv to become them)")
def test_a_second_user_is_refused_while_the_first_writes_a_shared_out():
    shared = Path(tempfile.mkdtemp(prefix="rt119-shared-"))
    holder = None
    try:
        os.chmod(shared, 0o2777)   # a course folder the TAs' group writes
        holder = subprocess.Popen([*_as_user(1001), HOLDER, str(ROOT), str(shared)], stdout=subprocess.PIPE, text=True,
                                  umask=0o022)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        asked = subprocess.run([*_as_user(1002), ASKER, str(ROOT), str(shared)], capture_output=True, text=True,
                               timeout=60)
        assert asked.stdout.split("\n")[:2] == ["being_written True", "busy"], asked.stdout + asked.stderr
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
        for entry in shared.iterdir():
            entry.unlink()
        shared.rmdir()


def test_merge_refuses_a_shard_whose_batch_started_while_merge_read_it(tmp_path, monkeypatch):
    """The probe was asked once, before the shard was read: a batch started on the shard after it (a rerun of that
    shard, begun while the merge ran) was merged, read half before and half after, exit 0."""
    from autograder.config import find_course
    from autograder.course import merge as merge_module
    from autograder.course.atomic import OutputBusy
    from tests.test_redteam_round112 import _one_shard
    from tests.conftest import FIXTURE_COURSE
    shard = tmp_path / "shard"
    (shard / "results").mkdir(parents=True)
    _one_shard(shard)
    started: list[subprocess.Popen[str]] = []
    real_view = merge_module.JournalView

    def view_after_a_batch_starts(path: Path) -> object:
        if not started:   # the shard's batch starts just after merge's probe
            holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ROOT), str(shard)], stdout=subprocess.PIPE,
                                      text=True)
            started.append(holder)
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        return real_view(path)

    monkeypatch.setattr(merge_module, "JournalView", view_after_a_batch_starts)
    try:
        with pytest.raises(OutputBusy, match="is being written by"):
            merge_module.merge([shard], tmp_path / "out", find_course(FIXTURE_COURSE))
    finally:
        for holder in started:
            holder.kill()
            holder.wait()
    assert started
