"""A batch's grader forks the next submission's worker while it grades this one (Grader.prefork). A CUDA
worker holds a CUDA slot from its start, so a CUDA spare is forked only where a slot is free then, keeps
that slot until it becomes the next submission's worker, and frees it only once it has exited when it is
never used. Checked with the CUDA stand-in (worker.CudaStandIn), without a GPU."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from autograder.sandbox.gpu import CudaSlots
from tests.conftest import FIXTURE_SUBS
from tests.test_cuda_policy import cuda_course


@pytest.fixture
def make_grader(monkeypatch, tmp_path):
    import torch

    import autograder.grading.grader as grading
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the stand-in is not what its workers run")
    monkeypatch.setattr(grading, "cuda_available", lambda: True)
    made = []

    def make(cuda_workers: int) -> "grading.Grader":
        grader = grading.Grader(cuda_course(cuda_workers=cuda_workers))
        grader.cuda_init = "os_standin"  # type: ignore[assignment]
        grader._cuda_slots = CudaSlots(cuda_workers, tmp_path / f"slots{len(made)}")  # ours alone
        grader.prefork = True
        made.append(grader)
        return grader
    yield make
    for grader in made:
        grader.close()


def watch_workers(grader):
    """How each worker for `grader` started: "spawn" (forked when a submission needed it) or "spare"
    (forked ahead by Grader._fork_spare)."""
    zygote = grader.zygote
    started, inside = [], threading.local()
    real_spawn, real_fork = zygote.spawn, zygote.fork_worker

    def spawn(policy):
        inside.spawn = True
        try:
            return real_spawn(policy)
        finally:
            inside.spawn = False
            started.append("spawn")

    def fork_worker(policy):
        sock = real_fork(policy)
        if not getattr(inside, "spawn", False):
            started.append("spare")
        return sock

    zygote.spawn, zygote.fork_worker = spawn, fork_worker
    return started


def zygote_children(grader) -> int:
    """Workers alive now: the processes whose parent is the zygote (a worker, or the reaper holding a
    worker's pid namespace), read from /proc, so whatever starts them is counted."""
    parents, names = {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                names[int(entry.name)] = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    below = {grader.zygote.proc.pid}
    for _ in range(4):   # the zygote is at most a few levels under its launcher (bwrap and its init)
        below |= {pid for pid, parent in parents.items() if parent in below}
    # python processes running the worker module (bwrap's own two carry it in their arguments too)
    workers = [pid for pid in below if b"autograder.sandbox.worker" in names.get(pid, b"")
               and not names[pid].split(b"\0")[0].endswith(b"bwrap")]
    zygote = [pid for pid in workers if parents[pid] not in workers]
    return sum(1 for pid in workers if zygote and parents.get(pid) == zygote[0])


def free_slots(grader) -> int:
    taken = []
    while (fd := grader._cuda_slots.take()) is not None:
        taken.append(fd)
    for fd in taken:
        CudaSlots.give_back(fd)
    return len(taken)


def test_a_cuda_spare_is_forked_while_a_slot_is_free_and_becomes_the_next_worker(make_grader):
    grader = make_grader(cuda_workers=2)
    started = watch_workers(grader)
    results = [grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3) for _ in range(3)]
    assert all(r.score == r.max_score and r.sandbox.cuda == "ready" for r in results)
    # the first submission forks its own; each one forks the next one's spare
    assert started == ["spawn", "spare", "spare", "spare"]
    assert grader._spare is not None and grader._spare.slot is not None
    assert free_slots(grader) == 1            # the spare's slot is held, the submissions' are free
    grader.close()
    assert grader._spare is None and free_slots(grader) == 2


def test_no_cuda_spare_where_every_slot_is_in_use(make_grader):
    grader = make_grader(cuda_workers=1)
    started = watch_workers(grader)
    for _ in range(2):
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3)
        assert result.score == result.max_score and result.sandbox.cuda == "ready"
    assert started == ["spawn", "spawn"]
    assert grader._spare is None and free_slots(grader) == 1


def test_cuda_workers_and_spares_never_exceed_the_limit_when_graded_side_by_side(make_grader, tmp_path):
    grader = make_grader(cuda_workers=2)
    grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3)      # the zygote is up, a spare forked
    counts, stop = [], threading.Event()

    def sample():
        while not stop.is_set():
            counts.append(zygote_children(grader))
    sampler = threading.Thread(target=sample)
    sampler.start()
    # a notebook that takes a while, so that submissions graded side by side overlap
    nb = json.loads((FIXTURE_SUBS / "good.ipynb").read_text())
    nb["cells"].append({"cell_type": "code", "id": "slow", "metadata": {}, "outputs": [], "execution_count": None,
                        "source": "import time\ntime.sleep(0.5)"})
    slow = tmp_path / "slow.ipynb"
    slow.write_text(json.dumps(nb))
    threads = [threading.Thread(target=grader.grade, args=(slow, "toy")) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    stop.set()
    sampler.join()
    # two at once were seen (the count is real), never three
    assert len(counts) > 20 and max(counts) == 2
    grader.close()
    assert free_slots(grader) == 2


def test_an_unused_cuda_spare_frees_its_slot_only_once_its_worker_has_exited(make_grader):
    from autograder.sandbox.session import WorkerSession
    grader = make_grader(cuda_workers=2)
    grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3)
    spare = grader._spare
    assert spare is not None and spare.slot is not None
    closed = []
    real_close = WorkerSession.close

    def close(self, wait=True):
        real_close(self, wait=wait)
        closed.append((wait, self.gone, free_slots(grader)))
    WorkerSession.close = close
    try:
        grader._drop_spare()
    finally:
        WorkerSession.close = real_close
    # waited for, gone, and its slot still held at that moment; free after
    assert closed == [(True, True, 1)] and free_slots(grader) == 2
