"""Red-team round 68: a student who changes a classmate's grade through the machine they share.

A worker's private tmpfs mounts (/tmp, /dev/shm, /var/tmp: worker._private_tmpfs) are sized in bytes
(`size=`) but not in inodes, so the kernel's default applies: half the machine's RAM pages (about 3
million inodes per mount on a 23 GB host: os.statvfs('/tmp').f_files == 3085474 in a bwrap worker, the same
for /dev/shm). An empty file uses no block, so `tmp_mb` does not bound it,
but each one pins an inode and a dentry in unreclaimable slab (about 0.8 KB with a 200-character name:
488,000 files and +393 MB of SUnreclaim in 10 s from one cell). Two or three such mounts give one worker several GB of
kernel memory beyond `memory_mb + tmp_mb + shm_mb`, charged to no process, so the OOM killer picks a
trusted process instead: in a `batch -j2` run in a 2.5 GB memory cgroup beside 200 full-marks notebooks
(/tmp/rt68/b7), the grader process of a classmate was killed and that classmate (v099, a right
notebook) got `worker_failed` ("grader error: the grader process stopped").

The bound asked for here: a private tmpfs holds at most one inode per KiB of its size (so the kernel
memory of its inodes stays within the size the course gave it)."""
from __future__ import annotations

import pytest

from autograder.sandbox.isolation import candidate_levels
from autograder.sandbox.session import SandboxPolicy
from autograder.sandbox.zygote import Zygote
from tests.conftest import FIXTURE_COURSE

MOUNTS = {"/tmp": 16, "/dev/shm": 16, "/var/tmp": 1}    # MiB each: tmp_mb, shm_mb, and /var/tmp's fixed 1 MiB
POLICY = SandboxPolicy(cell_timeout_s=20, call_timeout_s=5, submission_timeout_s=60, tmp_mb=16, shm_mb=16)


@pytest.fixture(scope="module")
def zygote():
    level = candidate_levels()[0]                       # the default level: the strongest that is offered
    z = Zygote(level, hide=[str(FIXTURE_COURSE / "assignments"), str(FIXTURE_COURSE / "reference"),
                            str(FIXTURE_COURSE / "grading.yml")])
    try:
        z.start()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"{level.value} does not start here: {e}")
    yield z
    z.close()


FILL = r'''
import os
def fill(root, most):
    """Empty files (no block used) until the mount refuses one or `most` exist."""
    made = 0
    try:
        d = os.path.join(root, "rt68")
        os.mkdir(d)
        for i in range(most):
            os.close(os.open(f"{d}/{'x' * 200}{i}", os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError:
        pass
    return made
made = {root: fill(root, @MOST@) for root in @ROOTS@}
'''


def test_empty_files_do_not_pin_kernel_memory_beyond_the_tmpfs_size(zygote):
    """A worker's private tmpfs refuses files past one inode per KiB of its size (today: 60,000 of 60,000
    empty files are made in a 16 MiB /tmp and in a 16 MiB /dev/shm; /var/tmp, where it is a mount, is held to
    1,024)."""
    session = zygote.spawn(POLICY)
    try:
        if session.exec_cells(["import os\nprivate = os.path.ismount('/tmp')"]).cells[0].status != "ok" or \
                not session.resolve("private", "cpu"):
            pytest.skip("no private tmpfs at this level (container, rlimits without namespaces)")
        cell = FILL.replace("@MOST@", "60_000").replace("@ROOTS@", repr(list(MOUNTS)))
        outcome = session.exec_cells([cell])
        assert [c.status for c in outcome.cells] == ["ok"]
        made = session.resolve("made", "cpu")
    finally:
        session.close()
    too_many = {root: n for root, n in made.items() if n > MOUNTS[root] * 1024}
    assert not too_many, (f"empty files made past one per KiB of the mount's size {too_many}: each pins "
                          "unreclaimable kernel memory that no limit of the worker counts (worker._private_tmpfs "
                          "should mount with nr_inodes=)")
