"""The trusted side of the sandbox: start a clean zygote inside bwrap (or the fallback), fork one
worker per submission from it, talk to it in plain data, and enforce every limit from outside.

    Zygote          one per grader process; exec'd fresh, imports only what students may use
    WorkerSession   one submission's worker: run cells, resolve names, call, time, kill
    WorkerProxy     what a hidden test holds in place of a student function
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from autograder import protocol
from autograder.errors import (GraderError, ProtocolError, StudentCodeError, WorkerCrashed,
                               WorkerTimeout)
from autograder.results import CellReport, Isolation

if TYPE_CHECKING:
    import torch

    from autograder.config import Course

# The unprivileged user student code runs as: nobody, or the user Gradescope's setup.sh creates.
NOBODY = int(os.environ.get("AUTOGRADER_SANDBOX_UID", 65534))
NOGROUP = int(os.environ.get("AUTOGRADER_SANDBOX_GID", NOBODY))
PKG_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class SandboxPolicy:
    memory_mb: int = 3072
    cell_timeout_s: float = 30.0
    call_timeout_s: float = 30.0
    submission_timeout_s: float = 300.0
    output_kb: int = 256
    max_reply_mb: int = 64
    forbidden: tuple[str, ...] = ()
    max_restarts: int = 2

    def for_worker(self, scratch_root: str) -> dict[str, Any]:
        return {"memory_mb": self.memory_mb, "output_kb": self.output_kb,
                "forbidden": list(self.forbidden), "scratch_root": scratch_root}


# --- which isolation can this machine give? ------------------------------------------------------
def _bwrap_cmd(python: str, hide_tmp_size: int = 512 << 20) -> list[str]:
    """bwrap recipe from DESIGN.md: every namespace, no capabilities, read-only system, tmpfs /tmp."""
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOGROUP),
           # /tmp first: the binds below may live under /tmp (a checkout in /tmp) and must stay on top
           "--dev", "/dev", "--proc", "/proc", "--size", str(hide_tmp_size), "--tmpfs", "/tmp"]
    for top in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf",
              "/etc/passwd", "/etc/group"):
        if os.path.exists(f):
            cmd += ["--ro-bind", f, f]
    # The interpreter, its environment and our package: read-only. Nothing else of the course.
    for path in _runtime_paths():
        cmd += ["--ro-bind", path, path]
    for dev in sorted(glob.glob("/dev/nvidia*")):
        cmd += ["--dev-bind", dev, dev]
    cmd += ["--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
            "--setenv", "OMP_NUM_THREADS", "1", "--setenv", "MPLBACKEND", "Agg",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--chdir", "/tmp", "--", python]
    return cmd


BWRAP_PROBLEM: list[str] = []  # why bwrap was not used, for the instructor


def _runtime_paths() -> list[str]:
    """What the worker needs to read: the interpreter, its environment, this package."""
    return sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix,
                   str(PKG_DIR)})


@lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """Can bwrap start our interpreter with the full recipe? Tried twice: a loaded machine is slow."""
    if shutil.which("bwrap") is None:
        BWRAP_PROBLEM.append("bwrap is not installed")
        return False
    for _ in range(2):
        try:
            r = subprocess.run(_bwrap_cmd(sys.executable) + ["-I", "-c", "import autograder.calls"],
                               capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            BWRAP_PROBLEM.append(f"bwrap probe failed: {e}")
            continue
        if r.returncode == 0:
            return True
        BWRAP_PROBLEM.append(r.stderr.decode(errors="replace").strip()[-300:])
    print(f"note: bubblewrap is unusable here ({BWRAP_PROBLEM[-1]}); using the fallback sandbox",
          file=sys.stderr)
    return False


def detect_isolation(prefer: str | None = None) -> Isolation:
    """bwrap where it works; else the unprivileged-uid fallback (needs root); else rlimits only.
    `prefer` (or AUTOGRADER_ISOLATION) forces a weaker level, for tests of the fallback path."""
    prefer = prefer or os.environ.get("AUTOGRADER_ISOLATION")
    if prefer:
        return Isolation(prefer)
    if bwrap_works():
        return Isolation.bwrap
    if os.geteuid() == 0:
        return Isolation.fallback
    return Isolation.rlimits


# --- /proc helpers: everything measured from outside ---------------------------------------------
def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    except OSError:
        return {}


def host_pid(ns_pid: int, pidns: str | None) -> int | None:
    """Host pid of the process that is `ns_pid` inside pid namespace `pidns` (None: same namespace)."""
    if pidns is None:
        return ns_pid
    for path in glob.glob("/proc/[0-9]*"):
        pid = int(path.rsplit("/", 1)[1])
        nspid = _status(pid).get("NSpid", "").split()
        if len(nspid) >= 2 and nspid[-1] == str(ns_pid):
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") == pidns:
                    return pid
            except OSError:
                continue
    return None


def cpu_seconds_of(pid: int) -> float:
    """CPU time of a whole process (all its threads), read by the parent: a clock the student cannot
    touch. The process's CPU clock (clock_getcpuclockid) has nanosecond resolution; /proc/<pid>/stat
    (10 ms ticks) is the fallback."""
    try:
        return time.clock_gettime((~pid << 3) | 2)  # CPUCLOCK_SCHED of process `pid`
    except OSError:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the zygote -----------------------------------------------------------------------------------
class Zygote:
    """A clean process inside the sandbox that has imported torch and forks a worker per submission.

    It is started by exec, never forked from the grader, so it holds no tests, reference or seeds."""

    def __init__(self, isolation: Isolation, hide: Sequence[str] = ()) -> None:
        self.isolation = isolation
        self.hide = [str(Path(p).resolve()) for p in hide]
        self._lock = threading.Lock()
        self._scratch_host: str | None = None
        self.proc: subprocess.Popen | None = None
        self.pidns: str | None = None
        self.host_pid: int | None = None

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start the zygote without waiting: its imports overlap with the grader's own."""
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        opts: dict[str, Any] = {"fd": child.fileno()}
        env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp"}
        if self.isolation is Isolation.bwrap:
            cmd = _bwrap_cmd(sys.executable)
            self.scratch_root = "/tmp"
        elif self.isolation is Isolation.fallback:
            self.scratch_root = "/tmp"  # a private tmpfs in the zygote's own mount namespace
            cmd = [sys.executable]
            opts.update(drop=True, uid=NOBODY, gid=NOGROUP, hide=self.hide, keep=_runtime_paths())
        else:
            self._scratch_host = tempfile.mkdtemp(prefix="autograder-scratch-")
            self.scratch_root = self._scratch_host
            cmd = [sys.executable]
        cmd += ["-I", "-m", "autograder.worker", json.dumps(opts)]
        self.proc = subprocess.Popen(cmd, pass_fds=[child.fileno()], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True, cwd="/")
        child.close()
        self.control = parent
        self._ready = False

    def wait_ready(self) -> None:
        with self._lock:
            self._wait_ready()

    def _wait_ready(self) -> None:
        if self._ready:
            return
        assert self.proc is not None
        self.control.settimeout(120)
        try:
            hello = json.loads(self.control.recv(1 << 16) or b"{}")
        except (OSError, ValueError):
            hello = {}
        if hello.get("event") != "zygote_ready":
            err = self.proc.stderr.read().decode(errors="replace")[-800:] if self.proc.poll() is not None else ""
            self.close()
            raise GraderError(f"the sandbox zygote did not start ({self.isolation.value}): {err.strip()}")
        if self.isolation is Isolation.bwrap:
            self.host_pid = host_pid(hello["pid"], pidns=self._any_pidns_below(self.proc.pid))
            self.pidns = os.readlink(f"/proc/{self.host_pid}/ns/pid") if self.host_pid else None
        else:
            self.host_pid = hello["pid"]
        self._ready = True

    @staticmethod
    def _any_pidns_below(root: int) -> str | None:
        # bwrap's own children live in the new pid namespace: find one whose parent chain hits root.
        for path in glob.glob("/proc/[0-9]*"):
            pid = int(path.rsplit("/", 1)[1])
            if _status(pid).get("PPid") == str(root):
                try:
                    return os.readlink(f"/proc/{pid}/ns/pid")
                except OSError:
                    return None
        return None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def spawn(self, policy: SandboxPolicy) -> "WorkerSession":
        with self._lock:
            if not self.alive():
                self.launch()
            self._wait_ready()
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            token = os.urandom(8).hex()
            request = {"op": "spawn", "token": token, "policy": policy.for_worker(self.scratch_root)}
            socket.send_fds(self.control, [json.dumps(request).encode()], [child.fileno()])
            child.close()
            reply = json.loads(self.control.recv(1 << 16) or b"{}")
        if reply.get("token") != token:
            raise GraderError("the sandbox zygote answered out of turn")
        hp = host_pid(reply["pid"], self.pidns)
        if hp is None:
            raise GraderError("could not find the worker's host pid")
        return WorkerSession(self, parent, hp, policy)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        if self._scratch_host:
            shutil.rmtree(self._scratch_host, ignore_errors=True)
            self._scratch_host = None


# --- one submission's worker ----------------------------------------------------------------------
@dataclass
class ExecOutcome:
    cells: list[CellReport] = field(default_factory=list)
    output: str = ""


class WorkerSession:
    """The grader's handle on one submission's worker. Implements runner.StudentNamespace."""

    def __init__(self, zygote: Zygote, sock: socket.socket, pid: int, policy: SandboxPolicy) -> None:
        self.zygote, self.sock, self.pid, self.policy = zygote, sock, pid, policy
        self._next_id = 0
        self._dead = False
        self.facts: dict[str, Any] = {}
        self.deadline = time.monotonic() + policy.submission_timeout_s
        self.cells: list[str] = []
        self.cells_completed = False  # a restart re-runs the cells only if they finished once
        self.death_reason = ""
        ready = self._recv(timeout=30, what="starting the worker")
        if ready.get("event") != "ready":
            self.kill("did not start")
            raise GraderError("the worker did not start")
        self.facts = {k: v for k, v in ready.items() if k in ("seccomp",)}

    # transport
    def _budget(self, limit: float) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise WorkerTimeout("grading this submission", self.policy.submission_timeout_s)
        return min(limit, left)

    def _recv(self, timeout: float, what: str) -> dict[str, Any]:
        try:
            return protocol.recv_frame(self.sock, max_bytes=self.policy.max_reply_mb << 20,
                                       timeout=timeout, what=what)
        except (WorkerTimeout, WorkerCrashed) as e:
            self.kill(str(e))
            raise

    def request(self, op: str, timeout: float, what: str, **fields: Any) -> dict[str, Any]:
        if self._dead:
            raise WorkerCrashed(self.death_reason or "the worker had already stopped")
        self._next_id += 1
        rid = self._next_id
        try:
            protocol.send_frame(self.sock, {"id": rid, "op": op, **fields})
        except OSError:
            self.kill("the worker stopped reading")
            raise WorkerCrashed("the worker stopped reading") from None
        reply = self._recv(self._budget(timeout), what)
        if reply.get("id") != rid:
            self.kill("forged reply")
            raise ProtocolError("the worker sent a reply out of turn")
        if reply.get("ok") is not True:
            err = reply.get("error") if isinstance(reply.get("error"), dict) else {}
            raise StudentCodeError(str(err.get("type", "Error")), str(err.get("message", "")),
                                   str(err.get("traceback", "")))
        return reply

    def kill(self, reason: str = "") -> None:
        if not self._dead:
            self._dead = True
            self.death_reason = reason
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self.sock.close()

    def close(self) -> None:
        if not self._dead:
            try:
                protocol.send_frame(self.sock, {"id": 0, "op": "exit"})
            except OSError:
                pass
        self.kill("closed")

    def cpu_seconds(self) -> float:
        try:
            return cpu_seconds_of(self.pid)
        except OSError:
            raise WorkerCrashed("the worker exited") from None

    # notebook
    def exec_cells(self, cells: list[str]) -> ExecOutcome:
        self.cells = list(cells)
        outcome = ExecOutcome()
        self._next_id += 1
        rid = self._next_id
        protocol.send_frame(self.sock, {"id": rid, "op": "exec", "cells": cells})
        current, started = None, 0.0
        while True:
            limit = self.policy.cell_timeout_s if current is not None else 30
            try:
                msg = self._recv(self._budget(limit), f"cell {current}")
            except WorkerTimeout as e:
                if current is not None:
                    outcome.cells.append(CellReport(index=current, status="timeout", error=str(e),
                                                    duration_s=round(time.monotonic() - started, 3)))
                self._skip_rest(outcome, cells)
                return outcome
            except WorkerCrashed as e:
                if current is not None:
                    outcome.cells.append(CellReport(index=current, status="error", error=str(e)))
                self._skip_rest(outcome, cells)
                return outcome
            event = msg.get("event")
            if event == "cell_start":
                current, started = int(msg.get("index", -1)), time.monotonic()
            elif event == "cell_end":
                outcome.cells.append(CellReport(index=int(msg.get("index", -1)),
                                                status="ok" if msg.get("status") == "ok" else "error",
                                                error=str(msg.get("error", ""))[:500],
                                                duration_s=float(msg.get("duration_s", 0) or 0)))
                current = None
            elif msg.get("id") == rid:
                self.cells_completed = True
                outcome.output = str(msg.get("output", ""))[: self.policy.output_kb * 1024]
                return outcome
            else:
                self.kill("protocol violation")
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
        reply = self.request("resolve", self.policy.call_timeout_s, f"reading {name}", name=name)
        kind = reply.get("kind")
        if kind == "callable":
            return WorkerProxy(self, name, device)
        if kind == "value":
            return protocol.decode_value(reply.get("value"))
        return None


class WorkerProxy:
    """Stands in for a student function in a hidden test. Calls cross the boundary as plain data."""

    def __init__(self, session: WorkerSession, name: str, device: str) -> None:
        self._session, self._name, self._device = session, name, device
        self.last_devices: list[str] = []

    def __repr__(self) -> str:
        return f"<student function {self._name} on {self._device}>"

    def _call(self, args: Sequence[Any], kwargs: dict[str, Any], **extra: Any) -> Any:
        try:
            payload = {"args": protocol.encode_value(list(args)), "kwargs": protocol.encode_value(kwargs)}
        except protocol.EncodeError as e:
            raise GraderError(f"a hidden test passed a value that cannot cross the boundary: {e}") from None
        reply = self._session.request("call", self._session.policy.call_timeout_s,
                                      f"calling {self._name}", name=self._name, device=self._device,
                                      **payload, **extra)
        devices = reply.get("devices")
        self.last_devices = [str(d) for d in devices][:1000] if isinstance(devices, list) else []
        return protocol.decode_value(reply.get("value"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(args, kwargs)

    def call_with_grad(self, *args: Any, grad_wrt: Sequence[int] = (0, 1, 2),
                       grad_output: torch.Tensor | None = None, **kwargs: Any) -> Any:
        extra: dict[str, Any] = {"grad_wrt": list(grad_wrt)}
        if grad_output is not None:
            extra["grad_output"] = protocol.encode_value(grad_output)
        result = self._call(args, kwargs, **extra)
        if not (isinstance(result, (list, tuple)) and len(result) == 2):
            raise ProtocolError("malformed gradient reply")
        return result[0], list(result[1]) if isinstance(result[1], (list, tuple)) else result[1]

    def cpu_seconds(self, *args: Any, repeat: int = 10, **kwargs: Any) -> float:
        """CPU seconds the worker spent on `repeat` calls, read from /proc by the grader."""
        s = self._session
        key = os.urandom(4).hex()
        s.request("stash", s.policy.call_timeout_s, f"calling {self._name}", name=self._name, key=key,
                  args=protocol.encode_value(list(args)), kwargs=protocol.encode_value(kwargs))
        s.request("call", s.policy.call_timeout_s, f"calling {self._name}", name=self._name,
                  device=self._device, args=protocol.encode_value(list(args)),
                  kwargs=protocol.encode_value(kwargs))  # warm-up, like the reference's
        before = s.cpu_seconds()
        s.request("time_call", s.policy.call_timeout_s, f"timing {self._name}", key=key,
                  repeat=int(repeat), device=self._device)
        return s.cpu_seconds() - before


def launch_zygote(course: "Course", isolation: Isolation | None = None) -> Zygote:
    """Start the sandbox early, before the grader imports torch and the tests: the two overlap.
    Everything the course must keep from students is hidden from it."""
    zygote = Zygote(isolation or detect_isolation(), hide=[str(p) for p in course.secret_paths])
    zygote.launch()
    return zygote
