"""The student's namespace as hidden tests see it: names resolved in the sandboxed worker, the worker
restarted (cells re-run) when a test killed it, and runaway functions remembered so that one endless
loop costs about one call timeout, not one per test. It also holds the submission's shrinking budget
(shrink.ShrinkBudget): a worker lost while shrinking (a call interrupted at the shrinking deadline)
is replaced without counting as a restart or a runaway, so that it never touches a later test."""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional, Sequence

import torch

from autograder.errors import StudentCodeError, WorkerTimeout
from autograder.grading.runner import InfraUnavailable
from autograder.sandbox.session import SandboxPolicy, WorkerProxy, WorkerSession, optional_deadline
from autograder.grading.repair import GeneratorAt
from autograder.grading.shrink import ShrinkBudget


# After one call into the student's code has run away (timed out), every later call gets this share
# of call_timeout_s, and a second runaway stops all calls: one runaway submission costs at most about
# 1.5x call_timeout_s (plus restarting its worker), however many tests call into it.
RUNAWAY_SHARE = 0.5

# Workers lost to optional work (shrinking) that are replaced without counting: one per submission is
# all shrinking can cost (ShrinkBudget stops searching after a loss); any further one counts.
FREE_RESTARTS = 1


class RestartingNamespace:
    """The student's namespace, restarted from a fresh worker (cells re-run) if a test killed it,
    a bounded number of times, so one runaway call does not cost every later test.

    Runaways are remembered across restarts: once a call into a function times out, every later call
    into that function fails at once with the same reason (a test that takes it is not even started,
    and no worker is restarted for it); calls into the other functions run in a restarted worker with
    RUNAWAY_SHARE of the call timeout; a second timeout stops every later call, with its reason."""

    def __init__(self, spawn: Callable[[SandboxPolicy], WorkerSession], policy: SandboxPolicy,
                 session: WorkerSession) -> None:
        self.spawn, self.policy, self.session = spawn, policy, session
        self.restarts = 0
        self.free_restarts = 0   # workers replaced after an optional call cost them (FREE_RESTARTS)
        self.shrink_budget = ShrinkBudget(policy.shrink_test_s, policy.shrink_submission_s)
        self.runaway: dict[str, WorkerTimeout] = {}   # function -> the timeout it ran into
        self.halted: Optional[WorkerTimeout] = None   # a second runaway: no call at all any more
        # the calls the tests made on the CPU, for the one-edit search after them (repair.py)
        self.recorded = CallRecord(on=policy.repair_submission_s > 0)

    def begin_test(self, key: tuple[str, str]) -> None:
        """The runner says which test runs now: the calls recorded next are that test's."""
        self.recorded.test = key

    def define(self, source: str, timeout_s: float) -> bool:
        """Run one cell of the grader's own in the worker after the tests (repair.py's edited copies)."""
        return self.session.alive() and self.session.define(source, timeout_s)

    def call_copy(self, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """Call a function `define` made, on the CPU (inside optional_calls: the caller's deadline holds)."""
        return WorkerProxy(self.session, name, "cpu")(*args, **kwargs)

    def runaway_reason(self, name: str) -> Optional[WorkerTimeout]:
        """Why a call into `name` must fail at once (a copy of the first timeout), or None."""
        e = self.halted or self.runaway.get(name)
        return WorkerTimeout(e.what, e.seconds) if e is not None else None

    def ran_away(self, name: str, e: WorkerTimeout) -> None:
        if self.runaway and name not in self.runaway and self.halted is None:
            self.halted = e
        self.runaway.setdefault(name, e)

    def alive(self) -> bool:
        if self.session.alive():
            return True
        # a worker an optional call killed (shrinking's deadline) is the grader's cost, not the student's
        free = getattr(self.session, "lost_to_optional", False) and self.free_restarts < FREE_RESTARTS
        if ((self.restarts >= self.policy.max_restarts and not free) or not self.session.cells_completed
                or self.session.deadline - time.monotonic() < 5 or self.halted is not None):
            return False
        if free:
            self.free_restarts += 1
        else:
            self.restarts += 1
        deadline = self.session.deadline
        granted = getattr(self.session, "deadline_granted_s", 0.0)   # the submission's, not one worker's
        cells = self.session.cells
        self.session.close()  # gone, with its memory (and CUDA context), before the next one starts
        policy = self.policy
        if self.runaway:
            policy = dataclasses.replace(policy, call_timeout_s=policy.call_timeout_s * RUNAWAY_SHARE)
        self.session = self.spawn(policy)
        self.session.deadline = deadline
        self.session.deadline_granted_s = granted
        self.session.exec_cells(cells)
        return self.session.alive()

    def resolve(self, name: str, device: str) -> object:
        if device == "cuda":
            reason = cuda_problem(self.session, self.policy)
            if reason:
                raise InfraUnavailable(reason)
        blocked = self.runaway_reason(name)
        if blocked is not None:
            raise blocked
        try:
            value = self.session.resolve(name, device)
        except WorkerTimeout as e:
            self.ran_away(name, e)
            raise
        return RunawayGuard(value, name, self) if isinstance(value, WorkerProxy) else value


class RunawayGuard:
    """A student function as a hidden test holds it: the worker's proxy, plus the namespace's memory
    of runaways (a call into a function that timed out before fails at once, with that reason). If an
    optional call (shrinking) cost its worker, the next call outside optional work goes to the
    replacement: a call after shrinking gets the answer it would have got without it."""

    def __init__(self, proxy: WorkerProxy, name: str, namespace: RestartingNamespace) -> None:
        self._proxy, self._name, self._namespace = proxy, name, namespace

    def _current(self) -> WorkerProxy:
        session = self._proxy.session
        if (getattr(session, "lost_to_optional", False) and not session.alive()
                and optional_deadline() is None and self._namespace.alive()):
            fresh = self._namespace.resolve(self._name, self._proxy.device)
            if isinstance(fresh, RunawayGuard):
                self._proxy = fresh._proxy
        return self._proxy

    def _guarded(self, method: str, *args: Any, **kwargs: Any) -> Any:
        blocked = self._namespace.runaway_reason(self._name)
        if blocked is not None:
            raise blocked
        proxy = self._current()
        try:
            return getattr(proxy, method)(*args, **kwargs)
        except WorkerTimeout as e:
            self._namespace.ran_away(self._name, e)
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        recorded = self._namespace.recorded
        snap = recorded.snapshot(args, kwargs) if self._proxy.device == "cpu" and optional_deadline() is None else None
        try:
            out = self._guarded("__call__", *args, **kwargs)
        except StudentCodeError as e:
            if snap is not None:
                recorded.keep(self._name, snap, e)
            raise
        if snap is not None:
            recorded.keep(self._name, snap, out)
        return out

    def call_with_grad(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded("call_with_grad", *args, **kwargs)

    def time_fresh(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded("time_fresh", *args, **kwargs)

    def call_ahead(self, *args: Any, **kwargs: Any) -> tuple[int, bool]:
        """WorkerProxy.call_ahead (shrinking's candidates in one round trip): none for a runaway."""
        if self._namespace.runaway_reason(self._name) is not None:
            return 0, False
        made, lost = self._current().call_ahead(*args, **kwargs)
        return int(made), bool(lost)

    def __getattr__(self, attr: str) -> Any:  # last_devices and the like
        return getattr(self._proxy, attr)

    def __repr__(self) -> str:
        return repr(self._proxy)


def _tensor_bytes(value: Any, depth: int = 0) -> int:
    """The bytes of the tensors in an answer: itself, or inside tuples, lists and dicts (a few levels deep; deeper
    counts as too large)."""
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (tuple, list, dict)):
        if depth >= 4:
            return 1 << 62
        items = value.values() if isinstance(value, dict) else value
        return sum(_tensor_bytes(v, depth + 1) for v in items)
    return 0


@dataclass(eq=False)
class RecordedCall:
    test: tuple[str, str]            # (question, test name)
    name: str                        # the student function called
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    answer: Any                      # what came back, or the StudentCodeError it raised


@dataclass
class CallRecord:
    """The calls into student functions the tests made (plain calls on the CPU, never shrinking's), with
    their answers: the inputs the one-edit search checks a fix on. Tensors are copied before the call (the
    student's code or the test may change them after), a generator as its state then (repair.GeneratorAt:
    each replay draws what the call drew); a call with more than MAX_BYTES of tensors, or past MAX_CALLS or
    MAX_TOTAL_BYTES, is not kept."""
    MAX_CALLS: ClassVar[int] = 400
    MAX_BYTES: ClassVar[int] = 1 << 20
    MAX_TOTAL_BYTES: ClassVar[int] = 32 << 20
    on: bool = True                  # off where no search will run (limits.repair_submission_s = 0): nothing kept
    test: tuple[str, str] = ("", "")
    calls: list[RecordedCall] = field(default_factory=list)
    kept_bytes: int = 0

    def snapshot(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """Copies of a call's arguments taken before it runs, or None where this call is not to be kept."""
        if not self.on or len(self.calls) >= self.MAX_CALLS:
            return None
        values = (*args, *kwargs.values())
        size = sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))
        if size > self.MAX_BYTES or self.kept_bytes + size > self.MAX_TOTAL_BYTES:
            return None
        self.kept_bytes += size

        def copy(v: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return v.detach().clone()
            return GeneratorAt(v.get_state()) if isinstance(v, torch.Generator) else v
        return tuple(copy(a) for a in args), {k: copy(v) for k, v in kwargs.items()}

    def keep(self, name: str, snapshot: tuple[tuple[Any, ...], dict[str, Any]], answer: Any) -> None:
        """Keep a call whose arguments were snapshot, unless its answer's tensors pass the same bounds as the
        arguments': the answers stay until the submission ends (a student's function returning a 47 MB tensor
        to every call held gigabytes in the grader process: red-team round 49)."""
        size = _tensor_bytes(answer)
        if size > self.MAX_BYTES or self.kept_bytes + size > self.MAX_TOTAL_BYTES:
            return
        self.kept_bytes += size
        self.calls.append(RecordedCall(self.test, name, snapshot[0], snapshot[1], answer))

    def add(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], answer: Any) -> None:
        """snapshot and keep in one (a call already made: its generators' states are after it)."""
        snap = self.snapshot(args, kwargs)
        if snap is not None:
            self.keep(name, snap, answer)


def cuda_problem(session: WorkerSession, policy: SandboxPolicy) -> str:
    """Why this worker cannot run CUDA cases although the grader runs them ("" when it can). The
    grader asked for CUDA because its own probe saw a GPU; a worker that could not initialise it
    disagrees with the probe: the grader's problem, never the student's."""
    if not policy.cuda:
        return "the grader did not initialise CUDA in this worker"
    if session.facts.get("cuda_ready"):
        return ""
    error = session.facts.get("cuda_error") or "no reason given"
    return f"CUDA could not be initialised in the sandbox although the grader sees a GPU ({error})"
