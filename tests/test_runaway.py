"""Runaway submissions are bounded: once a call into a student function times out, later calls into it
fail at once with the same reason; other functions run in a restarted worker with half the call
timeout; a second runaway stops every call. One runaway costs about one call timeout, not one per test."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from autograder.errors import WorkerCrashed, WorkerTimeout
from autograder.grading.namespaces import RUNAWAY_SHARE, RestartingNamespace
from autograder.sandbox.session import SandboxPolicy, WorkerProxy


class FakeSession:
    """A worker from the grader's side: `loops` are the functions that never return."""

    def __init__(self, policy: SandboxPolicy, loops: set[str], log: list[str]) -> None:
        self.policy, self.loops, self.log = policy, loops, log
        self.dead = False
        self.cells: list[str] = []
        self.cells_completed = True
        self.deadline = time.monotonic() + 300
        self.facts: dict = {}

    def alive(self) -> bool:
        return not self.dead

    def close(self) -> None:
        self.dead = True

    def exec_cells(self, cells):
        self.cells = list(cells)

    def resolve(self, name: str, device: str):
        return WorkerProxy(self, name, device)

    def take_ahead(self, name, device, args, kwargs):
        return None   # nothing is ever called ahead here: each call is one request

    def request(self, op, timeout, what, **fields):
        if self.dead:
            raise WorkerCrashed("the worker had already stopped")
        self.log.append(f"{fields.get('name')}@{timeout:g}")
        if fields.get("name") in self.loops:
            self.dead = True
            raise WorkerTimeout(what, timeout)
        from autograder.sandbox import protocol
        return {"ok": True, "value": protocol.encode_value(1.0)}


class FakeGrader:
    def __init__(self, loops: set[str]) -> None:
        self.loops, self.log, self.spawned = loops, [], []

    @property
    def zygote(self):
        return self

    def spawn(self, policy: SandboxPolicy) -> FakeSession:
        self.spawned.append(policy)
        return FakeSession(policy, self.loops, self.log)


def namespace(loops: set[str]) -> tuple[RestartingNamespace, FakeGrader]:
    grader = FakeGrader(loops)
    policy = SandboxPolicy(call_timeout_s=30.0)
    return RestartingNamespace(grader.spawn, policy, grader.spawn(policy)), grader  # type: ignore[arg-type]


def test_a_function_that_timed_out_fails_at_once_with_the_same_reason():
    ns, grader = namespace({"attend"})
    attend = ns.resolve("attend", "cpu")
    with pytest.raises(WorkerTimeout) as first:
        attend(1)
    assert grader.log == ["attend@30"]
    # a later call, through the same proxy or a fresh one, never reaches a worker
    with pytest.raises(WorkerTimeout) as again:
        attend(2)
    assert str(again.value) == str(first.value) == "calling attend did not finish within 30 s"
    assert ns.runaway_reason("attend") is not None
    with pytest.raises(WorkerTimeout):
        ns.resolve("attend", "cpu")
    assert grader.log == ["attend@30"] and len(grader.spawned) == 1, "nothing restarted for a runaway"
    # another function still works, in a restarted worker with a shorter call timeout
    assert ns.alive()
    assert ns.resolve("softmax", "cpu")(3) == 1.0
    assert grader.spawned[-1].call_timeout_s == 30.0 * RUNAWAY_SHARE
    assert grader.log == ["attend@30", f"softmax@{30 * RUNAWAY_SHARE:g}"]


def test_a_second_runaway_stops_every_call():
    ns, grader = namespace({"attend", "softmax"})
    with pytest.raises(WorkerTimeout):
        ns.resolve("attend", "cpu")(1)
    assert ns.alive()
    with pytest.raises(WorkerTimeout) as second:
        ns.resolve("softmax", "cpu")(1)
    assert "within 15 s" in str(second.value)
    assert not ns.alive(), "no restart after a second runaway"
    blocked = ns.runaway_reason("mask")
    assert blocked is not None and str(blocked) == str(second.value)
    # bounded: one full call timeout and one shortened one, whatever is called afterwards
    assert grader.log == ["attend@30", "softmax@15"]


LOOP = """
import torch
def attend(Q, K, V):
    while True:
        pass
answer = 'B'
"""

SLEEP_IGNORING_SIGNALS = """
import signal, time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
def attend(Q, K, V):
    time.sleep(10 ** 6)
answer = 'B'
"""


@pytest.mark.parametrize("source", [LOOP, SLEEP_IGNORING_SIGNALS], ids=["loop", "sleep"])
def test_a_runaway_submission_costs_one_call_timeout(toy_grader, tmp_path: Path, source: str):
    """The fixture course: call_timeout_s 5, two tests call `attend`, one reads `answer`. Only the first
    call waits out the timeout; the second attend test fails at once; the answer is still graded."""
    sub = tmp_path / "runaway.py"
    sub.write_text(source)
    result = toy_grader.grade(sub, "toy", seed=1)
    by_name = {t.name: t for t in result.tests}
    first, second = by_name["test_attend_matches"], by_name["test_attend_rows"]
    assert first.status == second.status == "failed"
    assert first.message == second.message == "calling attend did not finish within 5 s"
    assert first.duration_s >= 4.5
    assert second.duration_s < 1.0, "the second call into a runaway function waited again"
    assert by_name["test_answer"].status == "passed" and result.score == 1
