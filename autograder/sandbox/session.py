"""One submission's worker, from the grader's side: run the cells, resolve names, call, time, kill.
Every limit is enforced from out here; every byte that comes back is checked.

    SandboxPolicy   the limits of one worker, built from grading.yml
    WorkerSession   the grader's handle on one worker (implements runner.StudentNamespace)
    WorkerProxy     what a hidden test holds in place of a student function
    optional_calls  a deadline of the grader's own for calls that only add to feedback (shrinking)
    beside_next_request  the grader's own work done while the worker answers the next request
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from autograder.sandbox import protocol, timers
from autograder.config import Limits
from autograder.errors import (NotAnswered, GraderError, ProtocolError, StudentCodeError, WorkerCrashed,
                               WorkerTimeout)
from autograder.sandbox.isolation import cpu_seconds_of, remove_tree, run_queue_seconds_of
from autograder.sandbox.messages import (CUDA_INITS, MAX_AHEAD, MAX_AHEAD_BYTES, RESOLVE_THEN_BYTES, CudaInit,
                                         Op, WorkerPolicy, jupyter_cell)
from autograder.results import CellReport

if TYPE_CHECKING:
    import torch


MAX_CELL_ERROR = 500
# a reply later than this has the worker's run-queue clock read (_await_reply); one read costs ~40 us, a poll ~2
QUICK_REPLY_S = 0.25
# a frame that starts at its limit's edge still gets this long to arrive in full
FRAME_READ_S = 0.5
# The submission's deadline is moved on by the time its worker (and the thread grading it) spent runnable while other
# processes had the CPU, by at most this share of submission_timeout_s in all (WorkerSession.deadline). A classmate's
# busy notebook beside an honest one in `batch -j4` (three of them, each within its own limits) took an honest notebook
# graded 35/35 alone in 33 s of its 40 s to 0/35, its last cell cut by the deadline (red-team round 117). Half the limit
# keeps a whole grade within a batch lane's task timeout (twice the limit) and Gradescope's.
DEADLINE_WAIT_SHARE = 0.5
RESOLVE_KINDS = ("missing", "unanswered", "callable", "value")   # messages.Reply's `kind`


_DEFAULTS = Limits()  # grading.yml's model is the one declaration of every limit and its default


@dataclass(frozen=True)
class SandboxPolicy:
    memory_mb: int = _DEFAULTS.memory_mb
    tmp_mb: int = _DEFAULTS.tmp_mb
    shm_mb: int = _DEFAULTS.shm_mb
    cell_timeout_s: float = _DEFAULTS.cell_timeout_s
    call_timeout_s: float = _DEFAULTS.call_timeout_s
    shrink_test_s: float = _DEFAULTS.shrink_test_s
    shrink_submission_s: float = _DEFAULTS.shrink_submission_s
    repair_submission_s: float = _DEFAULTS.repair_submission_s
    submission_timeout_s: float = _DEFAULTS.submission_timeout_s
    output_kb: int = _DEFAULTS.output_kb
    max_reply_mb: int = _DEFAULTS.max_reply_mb
    forbidden: tuple[str, ...] = ()
    max_restarts: int = 2
    cuda: bool = False                 # initialise CUDA in the worker, before its filter
    cuda_init: CudaInit = "torch"      # how (messages.CUDA_INITS): tests without a GPU use "os_standin"

    @classmethod
    def from_limits(cls, limits: Limits, forbidden: Sequence[str] = (), cuda: bool = False) -> "SandboxPolicy":
        return cls(memory_mb=limits.memory_mb, tmp_mb=limits.tmp_mb, shm_mb=limits.shm_mb,
                   cell_timeout_s=limits.cell_timeout_s, call_timeout_s=limits.call_timeout_s,
                   shrink_test_s=limits.shrink_test_s, shrink_submission_s=limits.shrink_submission_s,
                   repair_submission_s=limits.repair_submission_s,
                   submission_timeout_s=limits.submission_timeout_s, output_kb=limits.output_kb,
                   max_reply_mb=limits.max_reply_mb, forbidden=tuple(forbidden), cuda=cuda)

    def for_worker(self) -> WorkerPolicy:
        if self.cuda_init not in CUDA_INITS:
            raise GraderError(f"unknown CUDA initialisation {self.cuda_init!r}")
        return {"memory_mb": self.memory_mb, "output_kb": self.output_kb, "tmp_mb": self.tmp_mb,
                "shm_mb": self.shm_mb, "forbidden": list(self.forbidden), "cuda": self.cuda,
                "cuda_init": self.cuda_init}


class CallCutShort(Exception):
    """A call made inside `optional_calls` that did not return by the grader's deadline for it, or
    whose worker stopped: it was not (or is no longer) running. Not a timeout of the student's code
    and never a runaway: the optional work it belonged to just ends. `lost_worker`: the call cost the
    worker (it was killed, or died), which `RestartingNamespace` replaces without counting it."""

    def __init__(self, what: str, reason: str, lost_worker: bool = False) -> None:
        self.what, self.reason, self.lost_worker = what, reason, lost_worker
        super().__init__(f"{what}: {reason}")


# The monotonic time by which calls made now must end: set only around work that may add to feedback
# but never change an outcome (the search for a smallest failing input). A context variable, so that
# it reaches the proxies through any wrapper a hidden test puts around them.
_OPTIONAL_UNTIL: ContextVar[float | None] = ContextVar("optional_calls_until", default=None)


@contextmanager
def optional_calls(deadline: float) -> Iterator[None]:
    """Inside, every call into a worker ends by `deadline` (time.monotonic()) rather than after the
    call timeout: none starts once it has passed, and one still running then is interrupted, its
    worker killed (the only way to stop student code). Either way the call raises CallCutShort."""
    token = _OPTIONAL_UNTIL.set(deadline)
    try:
        with timers.span("shrinking"):
            yield
    finally:
        _OPTIONAL_UNTIL.reset(token)


def optional_deadline() -> float | None:
    """The deadline of the `optional_calls` block running now, or None outside one."""
    return _OPTIONAL_UNTIL.get()


class Aside:
    """Work of the grader's own (a reference's answer on the test's inputs) that needs nothing the worker sends back:
    done while the worker runs the next request (`beside_next_request`), on another core, instead of before or
    after it. The grader and the worker took turns on one core each: at `-j1` half the machine waited (bench/
    breakdown.py: "cores busy 1.00 of 2"). Nothing the student sends is read here, and the order of the
    requests and replies does not change."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work: Callable[[], Any] | None = work
        self._value: Any = None
        self._error: Exception | None = None

    @property
    def done(self) -> bool:
        return self._work is None

    def run(self) -> None:
        work, self._work = self._work, None
        if work is None:
            return
        try:
            self._value = work()
        except Exception as e:  # noqa: BLE001 - raised where the value is asked for, after the reply is read
            self._error = e

    @property
    def value(self) -> Any:
        """The work's value (done now if no request has run it), or what it raised."""
        self.run()
        if self._error is not None:
            raise self._error
        return self._value


_BESIDE: ContextVar[Aside | None] = ContextVar("beside_next_request", default=None)


@contextmanager
def beside_next_request(work: Callable[[], Any]) -> Iterator[Aside]:
    """Inside, the first request sent to a worker runs `work` between sending and reading the reply (a
    context variable, so that it reaches the proxy through any wrapper a hidden test puts around it). The
    work must not depend on the reply, and is trusted code on the grader's own values: a CPU budget's stop
    waits until it is over, as for the rest of a request (runner._in_worker_io). No request inside: it
    runs when its value is asked for."""
    aside = Aside(work)
    token = _BESIDE.set(aside)
    try:
        yield aside
    finally:
        _BESIDE.reset(token)


def _run_aside() -> None:
    aside = _BESIDE.get()
    if aside is not None and not aside.done:
        with timers.span("grader work beside a request") if timers.ON else _nothing():
            aside.run()


@dataclass
class ExecOutcome:
    cells: list[CellReport] = field(default_factory=list)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _same_arguments(a: Any, b: Any) -> bool:
    """The same call: the same tensor objects (never copied or changed on the grader's side between
    the call made ahead and the call asked for), and equal plain values, in the same structure."""
    import torch
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return a is b
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_arguments(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_arguments(a[k], b[k]) for k in a)
    if a is None or type(a) in (bool, int, float, str):
        return bool(a == b)
    return a is b


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply of a call that returned; the student's error as StudentCodeError for one that raised."""
    if reply.get("ok") is not True:
        error = reply.get("error")
        err: dict[str, Any] = error if isinstance(error, dict) else {}
        raise StudentCodeError(str(err.get("type", "Error")), str(err.get("message", "")),
                               str(err.get("traceback", "")))
    return reply


def _recv_ready(sock: socket.socket, timeout: float) -> tuple[dict[str, Any], int]:
    """The worker's first frame and its sender's pid in our namespace, from the kernel (SO_PASSCRED
    on our end): each worker is pid 1 of its own namespace, so it could not tell us if it wanted."""
    deadline = time.monotonic() + timeout
    header, pid = b"", None
    while len(header) < protocol.HEADER.size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WorkerTimeout("starting the worker", timeout)
        sock.settimeout(left)
        try:
            data, anc, _flags, _addr = sock.recvmsg(protocol.HEADER.size - len(header),
                                                    socket.CMSG_SPACE(12))
        except socket.timeout:
            continue
        except OSError as e:
            raise WorkerCrashed(f"connection lost ({e.strerror or e})") from None
        if not data:
            raise WorkerCrashed("the worker exited while starting")
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= 12:
                pid = pid or int.from_bytes(payload[:4], sys.byteorder, signed=True)
        header += data
    if not pid or pid <= 0:
        raise GraderError("the worker's pid is not visible from the grader")
    (size,) = protocol.HEADER.unpack(header)
    if size > 1 << 16:
        raise ProtocolError("the worker's first message is too large")
    body = protocol._recv_exact(sock, size, deadline, timeout, "starting the worker")
    try:
        message = json.loads(body)
    except ValueError:
        raise ProtocolError("the worker's first message is not JSON") from None
    if type(message) is not dict:
        raise ProtocolError("the worker's first message is not an object")
    return message, pid


def scratch_on_disk(value: Any) -> str | None:
    """The scratch dir a worker without private mounts made on the host's disk, as its `ready` says (trusted code
    wrote it, before any student code ran; still checked like any byte from there): a `sub-` dir directly inside
    one of the zygote's `autograder-scratch-` folders (Zygote.launch), else None."""
    if type(value) is not str or not value.startswith("/") or len(value) > 4096 or "\0" in value:
        return None
    parent, name = os.path.split(os.path.normpath(value))
    if not name.startswith("sub-") or not os.path.basename(parent).startswith("autograder-scratch-"):
        return None
    return os.path.join(parent, name)


def remove_scratch(path: str) -> None:
    """Remove a gone worker's scratch dir and everything under it, as root or as its owner (the rlimits level
    without namespaces runs the worker as the grader's uid: a folder its student made unreadable, chmod 0, is opened
    up before it is entered). Folders only, each seen through lstat, never a link's target; nothing but removal;
    iterative, so no depth of folders makes it raise (isolation.remove_tree)."""
    remove_tree(path, open_up=True)


class WorkerSession:
    """The grader's handle on one submission's worker. Implements runner.StudentNamespace."""

    def __init__(self, sock: socket.socket, policy: SandboxPolicy) -> None:
        self.sock, self.policy = sock, policy
        self._next_id = 0
        self._dead = False
        self.pid = 0
        self.deadline_granted_s = 0.0   # seconds the deadline was moved on for waits for a CPU (all this submission's)
        self.deadline = time.monotonic() + policy.submission_timeout_s
        self.cells: list[str] = []
        self.cells_completed = False  # a restart re-runs the cells only if they finished once
        self.death_reason = ""
        self.pidfd: int | None = None
        self.gone = False  # `close` saw the worker exit
        self.scratch: str | None = None   # its scratch dir on the host's disk, removed by `close` (scratch_on_disk)
        self._closed = False
        # an optional call (optional_calls) killed this worker, or saw it die: replacing it is the
        # grader's cost, not a restart charged to the submission
        self.lost_to_optional = False
        # What each name the tests resolved is, as the worker said after the last request that ran
        # student code (RESOLVE_KINDS): a resolve of a function, a missing name or an unanswered one
        # is answered from here without a round trip (resolve).
        self._kinds: dict[str, str] = {}
        self._asked: set[str] = set()
        # Answers to calls made ahead of time (call_ahead), in order: (name, device, the arguments
        # (args, kwargs) as the grader passed them, reply). A call with the very same argument objects
        # takes its answer from here; anything sent to the worker first drops them all (the
        # student's state may have changed).
        self._ahead: list[tuple[str, str, Any, dict[str, Any]]] = []
        # The names the tests will resolve next, in order (`expect`, from the runner), and the replies
        # read ahead for them by the last resolve (its `then`): (name, reply), consumed in order.
        # Anything sent to the worker drops them (student code may run).
        self._expected: list[str] = []
        self._resolved_ahead: list[tuple[str, dict[str, Any]]] = []
        try:
            ready, self.pid = _recv_ready(sock, timeout=30)
        except Exception:
            sock.close()
            raise
        try:
            # A handle on exactly this process: a recycled pid can never be killed by mistake.
            self.pidfd = os.pidfd_open(self.pid)
        except OSError:
            self.pidfd = None
        self.deadline = self._deadline   # the worker's run-queue clock counts from here
        if ready.get("event") != "ready":
            self.kill("did not start")
            self.close()
            raise GraderError("the worker did not start")
        stamps = ready.get("stamps")
        if timers.ON and isinstance(stamps, dict):
            if isinstance(stamps.get("forked"), float) and isinstance(stamps.get("locked"), float):
                timers.add("worker lock-down", stamps["forked"], stamps["locked"])
            if isinstance(stamps.get("cpu"), float):
                timers.count("worker lock-down cpu us", int(stamps["cpu"] * 1e6))
        namespaces = ready.get("namespaces")
        cuda_error = ready.get("cuda_error")
        self.facts: dict[str, Any] = {
            "seccomp": ready.get("seccomp") is True,
            "landlock": ready.get("landlock") is True,
            "namespaces": [str(n)[:20] for n in namespaces][:10] if isinstance(namespaces, list) else [],
            "shared_memory": "denied" if ready.get("shared_memory") == "denied" else "allowed",
            # Written by trusted code before any student code ran; still checked like any byte from there.
            "cuda_ready": policy.cuda and ready.get("cuda_ready") is True,
            "cuda_error": cuda_error[:400] if isinstance(cuda_error, str) else "",
            "stdlib_readable": ready.get("stdlib_readable") is not False,
        }
        self.scratch = scratch_on_disk(ready.get("scratch"))

    # the submission's deadline
    @property
    def deadline(self) -> float:
        """When the submission's time is up (time.monotonic()). Once reached, it is moved on by the seconds the worker's
        threads and the thread that set it spent runnable while other processes had the CPU since it was set (the
        kernel's run-queue clocks: a loaded host, a classmate's busy notebook beside this one), by at most
        DEADLINE_WAIT_SHARE of the limit for the whole submission (`deadline_granted_s`, carried over a restart). A
        notebook that sleeps or runs on a machine of its own still stops at its limit."""
        if time.monotonic() >= self._deadline:
            self._credit_waits()
        return self._deadline

    @deadline.setter
    def deadline(self, value: float) -> None:
        self._deadline = value
        self._grading_thread = threading.get_native_id()
        self._waits_seen = self._waits()

    def _waits(self) -> tuple[float | None, float | None]:
        """Run-queue seconds so far of the worker's threads, and of the thread grading this submission."""
        worker = run_queue_seconds_of(self.pid) if self.pid > 0 else None
        try:
            with open(f"/proc/self/task/{self._grading_thread}/schedstat", "rb") as fh:
                grading: float | None = int(fh.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            grading = None
        return worker, grading

    def _credit_waits(self) -> None:
        room = self.policy.submission_timeout_s * DEADLINE_WAIT_SHARE - self.deadline_granted_s
        if room <= 0:
            return
        now, seen = self._waits(), self._waits_seen
        (worker, grading), (worker_seen, grading_seen) = now, seen
        waited = 0.0
        for n, before in zip(now, seen):
            if n is not None and before is not None and n > before:
                waited += n - before
        # a clock not read this time (a worker between two threads' listing) keeps its last reading
        self._waits_seen = (worker if worker is not None else worker_seen, grading if grading is not None else grading_seen)
        credit = min(waited, room)
        if credit > 0:
            self._deadline += credit
            self.deadline_granted_s += credit

    # transport
    def _budget(self, limit: float) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise WorkerTimeout("grading this submission", self.policy.submission_timeout_s)
        return min(limit, left)

    def _reply_budget(self, limit: float) -> float:
        """`_budget` for the read of a reply to a request already sent: a submission's time spent there (the grader's
        work beside the request, session.beside_next_request, can be what spends it) ends the worker too, as a
        timeout in the read does; left running, its late reply was read as the next request's and the worker was
        ended as a forger (red-team round 129)."""
        try:
            return self._budget(limit)
        except WorkerTimeout as e:
            self.kill(str(e))
            raise

    def _left(self, limit: float) -> float:
        """`limit`, cut to what is left of the submission's time; never raises (the read after a send says so)."""
        return max(0.0, min(limit, self.deadline - time.monotonic()))

    def _recv(self, timeout: float, what: str, max_bytes: int | None = None, own: float | None = None) -> dict[str, Any]:
        try:
            timeout = self._await_reply(timeout, what, own)
            return protocol.recv_frame(self.sock, max_bytes=max_bytes or self.policy.max_reply_mb << 20,
                                       timeout=timeout, what=what)
        except (WorkerTimeout, WorkerCrashed) as e:
            self.kill(str(e))
            raise

    def _await_reply(self, limit: float, what: str, own: float | None = None) -> float:
        """Wait until the worker's next frame starts, for `limit` seconds of the worker's own time, and return the
        seconds left to read it. Time in which the worker was runnable while another process had the CPU (its
        threads' run-queue wait: a loaded machine, a classmate's busy loop beside it in a batch) is not its own: the
        wait is extended by it, by at most `limit` more and never past the submission's deadline (itself moved on by
        such waits: `deadline`). `own`: the request's own limit where the deadline cut `limit` shorter, the most the
        wait is extended by. A cell that runs or sleeps through its limit on a machine of its own still stops at
        the limit. A reply that comes within QUICK_REPLY_S (nearly all) costs one poll: the run-queue clock is read
        only for a slower one."""
        start = time.monotonic()
        if self._readable(min(limit, QUICK_REPLY_S)):
            return max(limit - (time.monotonic() - start), FRAME_READ_S)
        waited_before = run_queue_seconds_of(self.pid)
        granted = limit
        while True:
            left = start + granted - time.monotonic()
            if left > 0 and self._readable(left):
                return max(start + granted - time.monotonic(), FRAME_READ_S)
            waited = run_queue_seconds_of(self.pid) if waited_before is not None else None
            if waited is None or waited_before is None:
                raise WorkerTimeout(what, limit)
            extended = min(limit + min(waited - waited_before, max(limit, own or 0.0)), self.deadline - start)
            if extended <= granted + 0.05:
                raise WorkerTimeout(what, limit)
            granted = extended

    def _readable(self, timeout: float) -> bool:
        try:
            return bool(select.select([self.sock], [], [], max(timeout, 0.0))[0])
        except (OSError, ValueError):   # a closed socket: recv_frame says what happened
            return True

    def _send(self, op: Op, within: float, **fields: Any) -> int:
        """Send one request; a worker that stops reading it is killed once `within` seconds (the request's own
        limit) have passed. The socket had kept the last read's leftover timeout, up to 30 s whatever the call's
        limit or a search's 2 s (red-team round 113: a worker that stopped reading a 550 KB request held the grader
        there)."""
        if self._dead:
            raise WorkerCrashed(self.death_reason or "the worker had already stopped")
        self._next_id += 1
        self._ahead = []
        self._resolved_ahead = []
        try:
            self.sock.settimeout(max(within, 0.001))
            protocol.send_frame(self.sock, {"id": self._next_id, "op": op, **fields})
        except OSError:   # socket.timeout is one
            self.kill("the worker stopped reading")
            raise WorkerCrashed("the worker stopped reading") from None
        return self._next_id

    def request(self, op: Op, timeout: float, what: str, **fields: Any) -> dict[str, Any]:
        until = _OPTIONAL_UNTIL.get()
        if until is None:
            return self._request(op, timeout, what, **fields)
        left = until - time.monotonic()
        if left <= 0:
            raise CallCutShort(what, "the grader's time for it was spent")
        if self._dead:
            raise CallCutShort(what, "the worker had already stopped")
        try:
            return self._request(op, min(timeout, left), what, **fields)
        except (WorkerTimeout, WorkerCrashed) as e:
            # a timeout or a death here says nothing about the student's tests: the optional work ends
            if self._dead:
                self.lost_to_optional = True
            raise CallCutShort(what, str(e), lost_worker=self._dead) from None

    def _request(self, op: Op, timeout: float, what: str, **fields: Any) -> dict[str, Any]:
        if timers.ON:
            return self._timed_request(op, timeout, what, **fields)
        return self._untimed_request(op, timeout, what, **fields)

    def _timed_request(self, op: Op, timeout: float, what: str, **fields: Any) -> dict[str, Any]:
        """For bench/breakdown.py: the round trip's wall time, and the worker's CPU time in it."""
        try:
            before = cpu_seconds_of(self.pid)
        except OSError:
            before = None
        try:
            with timers.span(f"round trip {op}"):
                return self._untimed_request(op, timeout, what, **fields)
        finally:
            if before is not None:
                try:
                    timers.count(f"worker cpu us {op}", int((cpu_seconds_of(self.pid) - before) * 1e6))
                except OSError:
                    pass

    def _untimed_request(self, op: Op, timeout: float, what: str, **fields: Any) -> dict[str, Any]:
        if op != "resolve":
            self._kinds = {}   # student code runs: nothing known survives unless the reply says so
        rid = self._send(op, self._left(timeout), **fields)
        # the grader's own work while the worker answers (milliseconds: a reference's answer); the wait for the reply,
        # and the limit the worker is held to, start after it, so a limit is never shortened by the grader's work
        _run_aside()
        reply = self._recv(self._reply_budget(timeout), what, own=timeout)
        if reply.get("id") != rid or ("then" in fields and reply.get("index") != 0):
            self.kill("forged reply")
            raise ProtocolError("the worker sent a reply out of turn")
        if op in ("call", "time_fresh"):
            self._learn_kinds(reply.get("kinds"))
        if "then" in fields and reply.get("more") is True:
            self._read_resolved_ahead(rid, list(fields["then"]), timeout, what)
        return _answer(reply)

    def _read_resolved_ahead(self, rid: int, names: list[str], timeout: float, what: str) -> None:
        """The replies to a resolve's `then` names, each checked for its turn and capped at
        RESOLVE_THEN_BYTES, kept for `resolve` to hand out in order; a `skipped` one ends them."""
        ahead: list[tuple[str, dict[str, Any]]] = []
        for i, name in enumerate(names, start=1):
            try:
                reply = self._recv(self._reply_budget(timeout), what, max_bytes=RESOLVE_THEN_BYTES + 1024, own=timeout)
            except ProtocolError:
                self.kill("forged reply")   # over the size the worker itself keeps to: not ours
                raise
            if reply.get("id") != rid or reply.get("index") != i:
                self.kill("forged reply")
                raise ProtocolError("the worker sent a reply out of turn")
            if reply.get("skipped") is True:
                break
            ahead.append((name, reply))
            if reply.get("more") is not True:
                break
        else:
            if ahead and ahead[-1][1].get("more") is True:   # more replies than names: a forgery
                self.kill("forged reply")
                raise ProtocolError("the worker sent a reply out of turn")
        self._resolved_ahead = ahead

    def call_ahead(self, name: str, device: str, calls: list[dict[str, Any]], stop_after_s: float,
                   raw: Sequence[Any] = ()) -> tuple[int, bool]:
        """Make `calls` of `name` now, in one request, for a search that will ask for them one by one
        (shrink's candidates): each answer waits here until a call with exactly those arguments comes
        (`take_ahead`; `raw`: each call's (args, kwargs) as the grader holds them). Only inside
        `optional_calls` and by its deadline; how many were answered (0 if none: the calls are then
        made one by one as before). The worker starts the next call only
        while less than `stop_after_s` has passed; a request still running at the deadline loses the
        worker as an optional call does (the answers read before it are kept; the second value says
        the worker was lost)."""
        until = _OPTIONAL_UNTIL.get()
        calls = calls[:MAX_AHEAD]
        if until is None or self._dead or not calls or until - time.monotonic() <= 0:
            return 0, False
        if len(json.dumps(calls, separators=(",", ":"))) > MAX_AHEAD_BYTES:
            return 0, False
        with timers.span("round trip call_ahead") if timers.ON else _nothing():
            before = self._cpu_if_timed()
            self._kinds = {}
            rid = self._send("call_ahead", self._left(min(self.policy.call_timeout_s, until - time.monotonic())),
                             name=name, device=device, calls=calls,
                             stop_after_s=max(0.0, float(stop_after_s)))
            ahead: list[tuple[str, str, Any, dict[str, Any]]] = []
            last: dict[str, Any] = {}
            try:
                for i in range(len(calls)):
                    left = min(self.policy.call_timeout_s, until - time.monotonic())
                    reply = self._recv(self._budget(max(left, 0.0)), f"calling {name}")
                    if reply.get("id") != rid or reply.get("index") != i:
                        self.kill("forged reply")
                        raise ProtocolError("the worker sent a reply out of turn")
                    ahead.append((name, device, raw[i] if i < len(raw) else None, reply))
                    last = reply
                    if reply.get("more") is not True:
                        break
            except (WorkerTimeout, WorkerCrashed):
                if self._dead:
                    self.lost_to_optional = True   # as for a call cut short: replaced without charge
            finally:
                self._learn_kinds(last.get("kinds"))
                self._ahead = ahead
                self._count_cpu("call_ahead", before)
        timers.count("calls made ahead", len(ahead))
        return len(ahead), self._dead

    def take_ahead(self, name: str, device: str, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        """The answer made ahead of time to this very call (name, device, the same argument objects),
        or None; answers before it that nobody asked for are dropped, and all of them when none
        matches."""
        while self._ahead:
            n, d, made, reply = self._ahead.pop(0)
            if n == name and d == device and made is not None and _same_arguments(made, (args, kwargs)):
                timers.count("call answered ahead")
                return _answer(reply)
        return None

    def _cpu_if_timed(self) -> float | None:
        if not timers.ON:
            return None
        try:
            return cpu_seconds_of(self.pid)
        except OSError:
            return None

    def _count_cpu(self, op: str, before: float | None) -> None:
        if before is not None:
            try:
                timers.count(f"worker cpu us {op}", int((cpu_seconds_of(self.pid) - before) * 1e6))
            except OSError:
                pass

    def _learn_kinds(self, kinds: Any) -> None:
        """The kinds a reply to a request that ran student code carries (Reply.kinds): only names
        this session asked about, only known kinds, else nothing is learnt. A worker could lie here
        as it could lie to a resolve: a cached kind gives it nothing it could not answer anyway."""
        self._kinds = {}
        if type(kinds) is not dict or len(kinds) > len(self._asked):
            return
        if all(type(k) is str and k in self._asked and v in RESOLVE_KINDS for k, v in kinds.items()):
            self._kinds = {k: v for k, v in kinds.items() if v != "value"}

    def kill(self, reason: str = "") -> None:
        """SIGKILL the worker (through its pidfd) and stop talking to it. The pidfd stays open for
        `wait_gone`; `close` releases it."""
        if not self._dead:
            self._dead = True
            self.death_reason = reason
            try:
                if self.pidfd is not None:
                    signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                elif self.pid:
                    os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self.sock.close()

    def wait_gone(self, timeout: float = 10.0) -> bool:
        """After `kill`: wait until the worker has exited, so that what it held (its memory, its CUDA
        context and device memory, released when its device files close at exit) is free before the
        next worker starts. The pidfd turns readable when the process has exited; without one,
        /proc/<pid> is polled (a zombie has already released everything). True when it is gone."""
        deadline = time.monotonic() + timeout
        if self.pidfd is not None:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                try:
                    ready, _, _ = select.select([self.pidfd], [], [], left)
                except InterruptedError:
                    continue
                if ready:
                    return True
        while self.pid and time.monotonic() < deadline:
            try:
                with open(f"/proc/{self.pid}/stat") as fh:
                    state = fh.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                return True
            if state in ("Z", "X"):
                return True
            time.sleep(0.01)
        return not self.pid

    def close(self, wait: bool = True) -> None:
        """Ask the worker to exit, kill it, wait until it is gone, release the pidfd.

        `wait=False` (a CPU worker whose grade is done): the same SIGKILL, through the same pidfd,
        without waiting for the kernel to tear the process down (its exit, ~10-30 ms of unmapping a
        torch process, runs on its own while the grader goes on; the zygote's SIGCHLD is ignored, so
        the kernel reaps it). Nothing of the student runs after a SIGKILL is queued; what waiting buys
        is only that its memory is free first, which a CUDA worker needs (its slot) and a CPU one
        does not (`gone` then stays False: not seen)."""
        if timers.ON and not self._dead and self.pid:
            try:
                timers.count("worker cpu us", int(cpu_seconds_of(self.pid) * 1e6))
                timers.count("workers")
            except OSError:
                pass
        if not self._dead:
            try:
                protocol.send_frame(self.sock, {"id": 0, "op": "exit"})
            except OSError:
                pass
        self.kill("closed")
        if not self._closed:
            self._closed = True
            # a scratch dir on the host's disk is removed once its worker is gone, before the grader goes on: its
            # files outlived the worker until the batch's end, and one notebook filled the disk (red-team round 74)
            self.gone = self.wait_gone() if wait or self.scratch else False
            if self.pidfd is not None:
                os.close(self.pidfd)
                self.pidfd = None
            if self.scratch and self.gone:
                # only once it is gone: a live worker could swap a folder for a link between the lstat and the chmod
                # (the zygote's close removes what is left at the batch's end)
                remove_scratch(self.scratch)

    def cpu_seconds(self) -> float:
        try:
            return cpu_seconds_of(self.pid)
        except OSError:
            raise WorkerCrashed("the worker exited") from None

    # notebook
    def define(self, source: str, timeout_s: float) -> bool:
        """Run one cell of the grader's own after the notebook (the edited copies of a function that
        autograder.grading.repair tries): whether it ran without error. The notebook's cells stay what a
        restart re-runs; a cell still running after `timeout_s` ends the worker."""
        cells, completed = self.cells, self.cells_completed
        try:
            outcome = self.exec_cells([source], cell_timeout_s=timeout_s)
        finally:
            self.cells, self.cells_completed = cells, completed
        return bool(outcome.cells) and outcome.cells[0].status == "ok"

    def exec_cells(self, cells: list[str], cell_timeout_s: float | None = None,
                   meanwhile: Callable[[], bool] | None = None) -> ExecOutcome:
        """Run the cells; one report per cell that exists, whatever the worker claims. Events must
        come in order (start i, end i, start i+1, ...): anything else is a forgery and ends the
        worker. `meanwhile`: the grader's own work on its own values, done once the cells are sent and
        before any event is read; False from it ends the worker there, every cell reported skipped."""
        self.cells = list(cells)
        self._kinds = {}
        outcome = ExecOutcome()
        cell_limit = self.policy.cell_timeout_s if cell_timeout_s is None else cell_timeout_s
        rid = self._send("exec", self._left(min(30, cell_limit)), cells=cells)
        if meanwhile is not None and not meanwhile():
            self.kill("the notebook is not graded")
            self._skip_rest(outcome, cells)
            return outcome
        current, started = None, 0.0
        while True:
            limit = cell_limit if current is not None else min(30, cell_limit)
            try:
                msg = self._recv(self._budget(limit), jupyter_cell(current) if current is not None else "the notebook",
                                 own=limit)
            except WorkerTimeout as e:
                if current is not None:
                    outcome.cells.append(CellReport(index=current, status="timeout",
                                                    error=f"did not finish within {e.seconds:g} s",
                                                    duration_s=round(time.monotonic() - started, 3)))
                self._skip_rest(outcome, cells)
                return outcome
            except WorkerCrashed as e:
                if current is not None:
                    outcome.cells.append(CellReport(index=current, status="error", error=str(e)))
                self._skip_rest(outcome, cells)
                return outcome
            event, index = msg.get("event"), msg.get("index")
            expected = len(outcome.cells)
            if event == "cell_start" and current is None and index == expected and expected < len(cells):
                current, started = expected, time.monotonic()
            elif event == "cell_end" and current is not None and index == current:
                error = msg.get("error")
                outcome.cells.append(CellReport(
                    index=current, status="ok" if msg.get("status") == "ok" else "error",
                    error=error[:MAX_CELL_ERROR] if isinstance(error, str) else "",
                    duration_s=round(time.monotonic() - started, 4)))
                current = None
            elif msg.get("id") == rid and current is None and len(outcome.cells) == len(cells):
                self.cells_completed = True
                return outcome
            else:
                self.kill("protocol violation")
                if current is not None:
                    outcome.cells.append(CellReport(index=current, status="error",
                                                    error="the worker broke the protocol"))
                self._skip_rest(outcome, cells)
                return outcome

    @staticmethod
    def _skip_rest(outcome: ExecOutcome, cells: list[str]) -> None:
        done = {c.index for c in outcome.cells}
        outcome.cells += [CellReport(index=i, status="skipped") for i in range(len(cells)) if i not in done]

    # runner.StudentNamespace
    def alive(self) -> bool:
        return not self._dead

    def resolve(self, name: str, device: str) -> object:
        """A proxy for a function, a plain value, None for a name the notebook does not define.

        A name's kind changes only when student code runs, and every request that runs it (exec,
        call, time_fresh) clears what is known; a call's or a timing's reply then says what each name
        asked before is now (Worker.kinds). So a function is resolved once per test only where no
        call came before; a value is always read afresh. Every check a round trip would make first
        (a stopped worker, the submission's deadline, shrinking's deadline) is made here too."""
        if self._resolved_ahead and not self._dead:
            ahead_name, ahead_reply = self._resolved_ahead[0]
            if ahead_name == name:
                # read ahead by the last resolve, nothing sent since: what a resolve now would answer
                self._resolved_ahead.pop(0)
                self._check_time()
                timers.count("resolve answered ahead")
                return self._after_resolve(name, device, _answer(ahead_reply))
            if name not in self._kinds:
                self._resolved_ahead = []   # not the order they were read in: ask afresh
        kind = self._kinds.get(name)
        if kind is not None and not self._dead:
            until = _OPTIONAL_UNTIL.get()
            if until is not None and until - time.monotonic() <= 0:
                raise CallCutShort(f"reading {name}", "the grader's time for it was spent")
            self._budget(self.policy.call_timeout_s)
            timers.count("resolve from the last reply")
            return self._resolved(name, device, kind, None)
        self._asked.add(name)
        then = self._then(name)
        self._asked.update(then)
        reply = self.request("resolve", self.policy.call_timeout_s, f"reading {name}", name=name,
                             **({"then": then} if then else {}))
        return self._after_resolve(name, device, reply)

    def expect(self, names: Sequence[str]) -> None:
        """The names the tests will resolve next, in their order (the runner says so before each test):
        a resolve that has to ask the worker asks for the following ones in the same round trip."""
        self._expected = [n for n in names[:256] if type(n) is str]

    def _then(self, name: str) -> list[str]:
        """The distinct names expected after `name`'s first place in `expect`'s list (none if it is
        not there), at most MAX_AHEAD."""
        try:
            at = self._expected.index(name)
        except ValueError:
            return []
        out: list[str] = []
        for n in self._expected[at + 1:]:
            if n != name and n not in out:
                out.append(n)
                if len(out) == MAX_AHEAD:
                    break
        return out

    def _check_time(self) -> None:
        """What a round trip would check first: shrinking's deadline, the submission's."""
        until = _OPTIONAL_UNTIL.get()
        if until is not None and until - time.monotonic() <= 0:
            raise CallCutShort("reading a name", "the grader's time for it was spent")
        self._budget(self.policy.call_timeout_s)

    def _after_resolve(self, name: str, device: str, reply: dict[str, Any]) -> object:
        kind = reply.get("kind")
        if kind in ("callable", "missing", "unanswered"):
            self._kinds[name] = kind
        elif kind == "value":
            self._kinds = {}   # encoding a value may have run the student's code (a subclass's hooks)
        return self._resolved(name, device, kind, reply)

    def _resolved(self, name: str, device: str, kind: Any, reply: dict[str, Any] | None) -> object:
        if kind == "callable":
            return WorkerProxy(self, name, device)
        if kind == "value" and reply is not None:
            return protocol.decode_value(reply.get("value"))
        if kind == "unanswered":
            raise NotAnswered(name)
        return None


class WorkerProxy:
    """Stands in for a student function in a hidden test. Calls cross the boundary as plain data."""

    def __init__(self, session: WorkerSession, name: str, device: str) -> None:
        self._session, self._name, self._device = session, name, device
        self.last_devices: list[str] = []
        self.last_changed_inputs: list[str] = []   # inputs the last call wrote into (checks.call names it)

    def __repr__(self) -> str:
        return f"<student function {self._name} on {self._device}>"

    @property
    def session(self) -> WorkerSession:
        """The worker this proxy calls into (a restart brings a new one: resolve the name again)."""
        return self._session

    @property
    def device(self) -> str:
        return self._device

    def _call(self, args: Sequence[Any], kwargs: dict[str, Any], **extra: Any) -> Any:
        reply = None if extra else self._session.take_ahead(self._name, self._device, list(args), kwargs)
        if reply is not None:
            return self._reply(reply, extra)
        try:
            # layout=True: a transposed or expanded input reaches the student's code as the test built it
            payload = {"args": protocol.encode_value(list(args), layout=True),
                       "kwargs": protocol.encode_value(kwargs, layout=True)}
        except protocol.EncodeError as e:
            raise GraderError(f"a hidden test passed a value that cannot cross the boundary: {e}") from None
        reply = self._session.request("call", self._session.policy.call_timeout_s,
                                      f"calling {self._name}", name=self._name, device=self._device,
                                      **payload, **extra)
        return self._reply(reply, extra)

    def _reply(self, reply: dict[str, Any], extra: dict[str, Any]) -> Any:
        devices = reply.get("devices")
        self.last_devices = [str(d) for d in devices][:1000] if isinstance(devices, list) else []
        changed = reply.get("changed")
        self.last_changed_inputs = ([str(n)[:40] for n in changed][:20] if isinstance(changed, list)
                                    and "grad_wrt" not in extra else [])
        return protocol.decode_value(reply.get("value"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(args, kwargs)

    def call_ahead(self, calls: Sequence[tuple[Sequence[Any], dict[str, Any]]],
                   stop_after_s: float) -> tuple[int, bool]:
        """Make these calls (args, kwargs) now, in one round trip, for a search that will make them one
        by one next (WorkerSession.call_ahead): how many were made (0: none, nothing changes), and
        whether that cost the worker."""
        try:
            payloads = [{"args": protocol.encode_value(list(a), layout=True),
                         "kwargs": protocol.encode_value(dict(k), layout=True)} for a, k in calls]
        except protocol.EncodeError:
            return 0, False
        return self._session.call_ahead(self._name, self._device, payloads, stop_after_s,
                                        raw=[(list(a), dict(k)) for a, k in calls])

    def call_with_grad(self, *args: Any, grad_wrt: Sequence[int] = (0, 1, 2),
                       grad_output: "torch.Tensor | None" = None, **kwargs: Any) -> Any:
        extra: dict[str, Any] = {"grad_wrt": list(grad_wrt)}
        if grad_output is not None:
            extra["grad_output"] = protocol.encode_value(grad_output)
        result = self._call(args, kwargs, **extra)
        if not (isinstance(result, (list, tuple)) and len(result) == 2):
            raise ProtocolError("malformed gradient reply")
        return result[0], list(result[1]) if isinstance(result[1], (list, tuple)) else result[1]

    def time_fresh(self, specs: Sequence[tuple[Sequence[int], str]], kwargs: dict[str, Any] | None = None,
                   *, seed: int, repeat: int = 10) -> tuple[float, Any]:
        """CPU seconds the worker spent on `repeat` calls, each on inputs it had never seen (drawn
        inside the request from `seed`, see calls.run_fresh_calls), and the sum of their outputs."""
        s = self._session
        before = s.cpu_seconds()
        reply = s.request("time_fresh", s.policy.call_timeout_s, f"timing {self._name}", name=self._name,
                          device=self._device, specs=[[list(map(int, shape)), str(dtype)] for shape, dtype in specs],
                          kwargs=protocol.encode_value(dict(kwargs or {})), seed=int(seed), repeat=int(repeat))
        spent = s.cpu_seconds() - before
        return spent, protocol.decode_value(reply.get("value"))
