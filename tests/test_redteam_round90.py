"""Red-team round 90: today's changes, again.

What the day's commits added or relaxed, attacked again (/tmp/rt90/): round 85's sweep of abandoned scratch folders,
the worker's parent-death re-arm, SIGHUP, the --regrade the journal keeps open; round 89's shown-first numbering and
Gradescope summary; round 88's cuda_call_without_gpu and own_assert; naming round 58's replays and second calls.

- **A grader starting beside another lost its new folder to the other's sweep.** `Zygote._held_scratch_host` sweeps,
  then makes its folder (mkdtemp) and only then opens and flocks it; a grader process starting at the same moment
  (batch -j2 starts its graders together, each at the container or rlimits level sweeping first) could take the new,
  not yet held folder for an abandoned one and remove it before it was opened: `os.open` raised FileNotFoundError, the
  zygote did not launch, and the grader process reported the error that stops a batch. Measured (race.py: two
  processes making held folders in one TMPDIR): 187 and 177 failures in 3000 each; 0 now. The folder taken before
  it is opened is made again, as one taken between the open and the flock already was.

- **The sweep took a live batch's folder from an older install.** A grader from before round 85 names its folder
  `autograder-scratch-` + 8 characters and holds no flock on it, so today's sweep (every zygote starting at those
  levels, whoever runs it on the host as the same uid) took it for abandoned while that batch graded. Measured
  (oldlive.py: the grader of commit 31a45ae at the container level, a worker that wrote a file, then a zygote of
  today): the folder removed, the worker's file gone (`open('work')` failed), and the old batch's next worker "exited
  while starting": every later student of that class failed. A held folder is now named `autograder-scratch-held-`
  (HELD_SCRATCH_PREFIX, which no older name can start with: its 8 characters hold no '-'), and only such folders are
  swept; an older grader's folder is left where it is.

- **At the rlimits level a killed grader's worker files stayed under a folder made unreadable.** There the worker is
  the grader's uid and may chmod 0 a folder of its scratch dir (round 74 opens such folders up when it removes a gone
  worker's dir), but the sweep never opened a folder up, since os.chmod follows a link that a worker still running
  could put in the folder's place: everything under it stayed on the disk for good, and the sweep said it removed
  the folder. Measured (chmod0.py, as uid nobody): 4 MiB under `a/b` with `a` chmod 0, left after the sweep. The
  sweep now opens folders up through a descriptor of the entry itself (O_PATH | O_NOFOLLOW, then chmod of its
  /proc/self/fd name: a link is never followed), and removes them.

Tried and holding: docs/security.md, round 90.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest


@pytest.fixture
def private_tmp(monkeypatch):
    """A TMPDIR of this test's own: the sweep never meets another grader's folders on the host."""
    base = tempfile.mkdtemp(prefix="rt90-")
    monkeypatch.setattr(tempfile, "tempdir", base)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _held_elsewhere(path: str) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_folder_swept_by_a_neighbour_before_it_is_opened_is_made_again(private_tmp, monkeypatch) -> None:
    from autograder.results import Isolation
    from autograder.sandbox import zygote as zygote_module
    real_mkdtemp = tempfile.mkdtemp
    taken: list[str] = []

    def swept_once(*args, **kwargs):
        path = real_mkdtemp(*args, **kwargs)
        if not taken:   # another grader's sweep takes the new folder before this one opens it
            os.rmdir(path)
            taken.append(path)
        return path

    monkeypatch.setattr(zygote_module.tempfile, "mkdtemp", swept_once)
    zygote = zygote_module.Zygote(Isolation.container)
    try:
        path = zygote._held_scratch_host()   # raised FileNotFoundError, and the grader process stopped its batch
        assert taken and path != taken[0]
        assert os.path.isdir(path) and _held_elsewhere(path)
    finally:
        zygote.close()


def test_the_sweep_leaves_an_older_graders_unheld_folder_and_takes_an_abandoned_held_one(private_tmp) -> None:
    from autograder.sandbox import zygote as zygote_module
    held_prefix = getattr(zygote_module, "HELD_SCRATCH_PREFIX", "autograder-scratch-")   # before round 90: the same
    older = tempfile.mkdtemp(prefix="autograder-scratch-")   # an older grader's, alive: it holds no lock
    os.mkdir(os.path.join(older, "sub-x"))
    with open(os.path.join(older, "sub-x", "work"), "w") as f:
        f.write("a live worker's file")
    abandoned = tempfile.mkdtemp(prefix=held_prefix)   # a killed grader's: nobody holds it now
    with open(os.path.join(abandoned, "left"), "w") as f:
        f.write("x")
    removed = zygote_module.remove_abandoned_scratch(private_tmp)
    assert os.path.isfile(os.path.join(older, "sub-x", "work")), "a live older grader's folder was swept"
    assert removed == [abandoned] and not os.path.exists(abandoned)


def _leave_and_sweep(base: str, outside: str) -> None:
    """A killed grader's folder at the rlimits level, as its worker left it (the grader's uid): a file under a folder
    made unreadable, and a link to a folder outside; then the next zygote's sweep."""
    from autograder.sandbox import zygote as zygote_module
    host = tempfile.mkdtemp(prefix=getattr(zygote_module, "HELD_SCRATCH_PREFIX", "autograder-scratch-"), dir=base)
    sub = tempfile.mkdtemp(prefix="sub-", dir=host)
    os.makedirs(os.path.join(sub, "a", "b"))
    with open(os.path.join(sub, "a", "b", "blob"), "wb") as f:
        f.write(b"x" * 65536)
    os.symlink(outside, os.path.join(sub, "link"))
    os.chmod(os.path.join(sub, "a"), 0)
    zygote_module.remove_abandoned_scratch(base)


def test_the_sweep_removes_what_a_worker_hid_under_an_unreadable_folder_and_follows_no_link(private_tmp) -> None:
    root = os.geteuid() == 0
    uid = 65534 if root else os.geteuid()   # root reads a chmod-0 folder anyway: there the sweep runs as nobody
    top = Path(private_tmp)                 # in the host's temp dir: nobody can pass through to it
    base, outside = top / "tmp", top / "outside"
    base.mkdir()
    outside.mkdir()
    os.chmod(outside, 0o555)
    if root:
        os.chmod(top, 0o755)
        os.chown(base, uid, uid)
        os.chown(outside, uid, uid)
    pid = os.fork()   # no exec: the interpreter may live where nobody cannot read (a Python under /root)
    if pid == 0:
        code = 1
        try:
            if root:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            _leave_and_sweep(str(base), str(outside))
            code = 0
        except BaseException:   # noqa: BLE001 - said on stderr, the exit status fails the test
            traceback.print_exc()
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    try:
        left = sorted(str(p.relative_to(base)) for p in base.rglob("*"))
        assert not os.listdir(base), f"left on the disk after the sweep: {left}"
        assert (os.stat(outside).st_mode & 0o777) == 0o555, "the sweep changed the mode of a link's target"
    finally:
        for folder, dirs, _files in os.walk(base):   # what nobody's worker left must not block pytest's own cleanup
            for d in dirs:
                os.chmod(os.path.join(folder, d), 0o700)
