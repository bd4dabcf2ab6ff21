"""Red-team round 74: the zygote and what outlives one student.

One zygote serves a whole batch and a grader process serves many submissions in turn; the attacker's notebook runs in
one worker and goes after what is still there when the next student's worker runs. Repros in /tmp/rt74/
(traces.py, leftover.py, zmaps.py, the class folder cls/):

- **A container-level worker's files outlived it, for the whole batch.** Without mounts (the container level, and a
  worker the kernel gives no namespaces at rlimits) a worker's scratch dir is a `mkdtemp` in a folder on the host's
  disk, and nothing removed it when the worker ended: only `Zygote.close` did, at the end of the batch. Each file is
  capped (RLIMIT_FSIZE 64 MiB), their number is not, so one notebook leaves as much as the disk holds. Measured:
  leftover.py, a worker writing five 60 MB files and 2000 empty ones, closed: 301 MB and the dir still there while
  the next worker ran; `autograder batch --isolation container` of three full-marks notebooks, the first with a cell
  writing 60 MB files until the disk is full (a 400 MB tmpfs as TMPDIR and OUT): "error: cannot write the journal
  ...: no space left on the disk", the batch stopped after the first student, the two right notebooks never graded.
  Now the worker's `ready` (sent by trusted code before any student code) names that dir; WorkerSession accepts only
  a `sub-` dir inside an `autograder-scratch-` folder (scratch_on_disk), and its close waits for the worker to be gone
  and removes it (remove_scratch: folders opened up through lstat, links never followed) before the grader goes on,
  so the journal write after it finds the disk as it was: the same batch grades 35, 35, 35. Still open (known limit):
  while such a worker runs, a classmate's lane at -j2 meets the full disk (a batch of four stopped at 25%).

- **A forged crash made a grader process draw gigabytes.** The grader serves many submissions in turn (and two
  lanes of `batch -j2` share the host), so what one notebook makes it hold is every later student's problem.
  scaled-attention's q4 names `q @ k.T[0]` (index_before_matmul) by replaying the crash in the grader:
  `torch.randn(1, d) @ torch.randn(n, d).T[0]` with d and n read from the student's exception text. entropy_table
  raising `RuntimeError("size mismatch, got input (1), mat (1x20000), vec (30000)")` from a line holding `q @ k.T[0]`
  (`raise RuntimeError(msg) if True else q @ k.T[0]`) cost the trusted process 4.4 s of CPU and 2.3 GB
  (/tmp/rt74/mv.py; 1x50000 and 60000 would ask 12 GB, and two lanes at once more than this 23 GB host has). The
  grader's dims are at most 256 and the lesson draws 5 keys: the replay now runs only for d <= 4096 and n * d <=
  2^22 elements (16 MB), and a crash past that is left unnamed (it stays the failure it is).

Tried and holding (traces.py at bwrap, fallback, container, rlimits): a file left in /tmp, /dev/shm, /var/tmp,
/run/lock, the venv, torch's and the grader's __pycache__, ~/.cache (matplotlib's font cache), /sys/fs/cgroup: none
reaches the next worker nor the host (private tmpfs mounts, a read-only tree, Landlock). The zygote holds no
writable shared mapping (only glibc's read-only gconv cache), no fd but its control socket and stderr, one thread.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote

POLICY = SandboxPolicy(cell_timeout_s=30, call_timeout_s=10, submission_timeout_s=60)


def _left_in(root: str) -> list[str]:
    try:
        return os.listdir(root)
    except FileNotFoundError:
        return []


@pytest.mark.skipif(os.geteuid() != 0, reason="the container level drops to another uid: root only")
def test_a_container_level_workers_files_do_not_outlive_it() -> None:
    zygote = Zygote(Isolation.container)
    zygote.start()
    try:
        assert zygote._scratch_host is not None
        root = zygote._scratch_host
        session = zygote.spawn(POLICY)
        session.exec_cells(["import os\nblob = b'x' * (4 << 20)\n"
                            "for i in range(5):\n    open(f'f{i}', 'wb').write(blob)\n"
                            "os.makedirs('d/e', exist_ok=True)\nopen('d/e/g', 'w').close()\n"
                            "os.chmod('d/e', 0)\nos.chmod('d', 0o500)\n"
                            "where = os.getcwd()"])
        where = session.resolve("where", "cpu")
        assert os.path.dirname(where) == root and os.path.isfile(os.path.join(where, "f4"))
        session.close(wait=False)                     # as the grader closes a CPU worker
        # gone when close returns: the batch writes its journal next, and a full disk stopped it there
        assert _left_in(root) == [], "a worker's scratch dir is still on the host's disk after the worker ended"
        # and the next worker is served as before
        nxt = zygote.spawn(POLICY)
        nxt.exec_cells(["import os\nseen = sorted(os.listdir('.'))"])
        assert nxt.resolve("seen", "cpu") == []
        nxt.close()
    finally:
        zygote.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="drops to another uid to act as the worker's own")
def test_a_scratch_dir_is_removed_whatever_its_student_left_in_it() -> None:
    """As the worker's own uid (rlimits without namespaces: the grader's uid): folders made unreadable (chmod 0,
    nested), and links out of the dir, whose targets must stay untouched."""
    tmp_path = Path(tempfile.mkdtemp())   # pytest's tmp_path sits under a folder only root may enter
    try:
        _remove_as_its_owner(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _remove_as_its_owner(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("mine")
    host = tmp_path / "autograder-scratch-x"
    scratch = host / "sub-y"
    scratch.mkdir(parents=True)
    os.chown(tmp_path, 65534, 65534)
    for p in (outside, outside / "keep", host, scratch):
        os.chown(p, 65534, 65534)
    pid = os.fork()
    if pid == 0:   # the student's uid, then its grader's: the same one
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            os.makedirs(scratch / "a" / "b" / "c")
            (scratch / "a" / "b" / "c" / "f").write_text("x")
            os.symlink(outside, scratch / "a" / "to_dir")
            os.symlink(outside / "keep", scratch / "a" / "to_file")
            for d in ("a/b/c", "a/b", "a"):
                os.chmod(scratch / d, 0)
            os.chmod(outside, 0o500)
            from autograder.sandbox.session import remove_scratch, scratch_on_disk
            where = scratch_on_disk(str(scratch))
            assert where == str(scratch)
            remove_scratch(where)
            code = 0 if not os.path.exists(scratch) and (outside / "keep").read_text() == "mine" else 2
            code = code if oct(os.stat(outside).st_mode & 0o777) == "0o500" else 3
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.parametrize("said", ["/tmp", "/", "/tmp/autograder-scratch-x", "/etc/sub-x", "relative/sub-x", 7,
                                  "/tmp/autograder-scratch-x/sub-y/..", "/tmp/x/autograder-scratch-y/../sub-z"])
def test_only_a_scratch_dir_of_the_zygote_s_is_ever_removed(said) -> None:
    from autograder.sandbox.session import scratch_on_disk
    assert scratch_on_disk(said) is None


def test_a_forged_crash_does_not_make_the_grader_draw_gigabytes(monkeypatch) -> None:
    import torch

    from autograder.errors import StudentCodeError
    from tests.hidden_modules import load
    diagnose = load("scaled-attention", "_diagnose", "_rt74_scaled_diagnose")
    drawn: list[int] = []
    real_randn = torch.randn

    def randn(*size, **kwargs):
        shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        count = 1
        for n in shape:
            count *= int(n)
        drawn.append(count)
        if count > 1 << 24:   # not made: the test only needs to see that it was asked for
            raise MemoryError(f"the grader asked for {count} random numbers")
        return real_randn(*size, **kwargs)

    monkeypatch.setattr(torch, "randn", randn)
    tb = ('Traceback (most recent call last):\n  File "In[5]", line 3, in entropy_table\n'
          '    raise RuntimeError(msg) if True else q @ k.T[0]\nRuntimeError: x')
    forged = StudentCodeError("RuntimeError", "size mismatch, got input (1), mat (1x20000), vec (30000)", tb)
    assert diagnose.raise_if_index_before_matmul(forged) is None
    assert max(drawn, default=0) <= 1 << 22
    # the honest crash of the lesson's table (d = 16, five keys) is still named
    honest = StudentCodeError("RuntimeError", "size mismatch, got input (1), mat (1x16), vec (5)", tb)
    with pytest.raises(diagnose.Misconception, match="first coordinate of each of the 5 keys"):
        diagnose.raise_if_index_before_matmul(honest)
