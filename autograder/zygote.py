"""The zygote: a clean process inside the sandbox that has imported torch and forks one worker per
submission. It is started by exec, never forked from the grader, so it holds no tests, reference
or seeds; each worker then isolates itself from the zygote and from its classmates
(autograder.worker)."""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from autograder.errors import GraderError
from autograder.isolation import (SANDBOX_ENV, SANDBOX_GID, SANDBOX_UID, bwrap_command, bwrap_executable,
                                  detect_isolation, runtime_paths)
from autograder.messages import SpawnRequest
from autograder.results import Isolation

if TYPE_CHECKING:
    from autograder.config import Course
    from autograder.session import SandboxPolicy, WorkerSession


def peer_pid(sock: socket.socket, bufsize: int) -> tuple[bytes, int | None]:
    """Receive one message and the sender's pid as the kernel reports it in our pid namespace
    (SO_PASSCRED must be on): no /proc scan, and nothing the sender can forge."""
    data, ancdata, _flags, _addr = sock.recvmsg(bufsize, socket.CMSG_SPACE(12))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= 12:
            pid = int.from_bytes(payload[:4], sys.byteorder, signed=True)
            return data, pid if pid > 0 else None
    return data, None


class Zygote:
    def __init__(self, isolation: Isolation, hide: Sequence[str] = ()) -> None:
        self.isolation = isolation
        self.hide = [str(Path(p).resolve()) for p in hide]
        self._lock = threading.Lock()
        self._scratch_host: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.host_pid: int | None = None
        self.scratch_root = "/tmp"

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start the zygote without waiting: its imports overlap with the grader's own."""
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        parent.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        opts: dict[str, Any] = {"fd": child.fileno(), "keep": runtime_paths()}
        if self.isolation is Isolation.bwrap:
            cmd = bwrap_command(sys.executable)
        elif self.isolation is Isolation.fallback:
            cmd = [sys.executable]
            opts.update(drop=True, uid=SANDBOX_UID, gid=SANDBOX_GID, hide=self.hide)
        else:
            # Only for a worker the kernel gives no namespaces: its scratch dir is made here
            self._scratch_host = tempfile.mkdtemp(prefix="autograder-scratch-")
            os.chmod(self._scratch_host, 0o711)
            opts["scratch_root"] = self._scratch_host
            cmd = [sys.executable]
        cmd += ["-I", "-m", "autograder.worker", json.dumps(opts)]
        self.proc = subprocess.Popen(cmd, pass_fds=[child.fileno()], env=dict(SANDBOX_ENV),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True, cwd="/")
        child.close()
        self.control = parent
        self._ready = False

    def ready_now(self) -> bool:
        """Whether the zygote has said it is ready (or is about to be read as ready), without waiting."""
        if getattr(self, "_ready", False):
            return True
        control = getattr(self, "control", None)
        if control is None:
            return True
        try:
            return bool(select.select([control], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def wait_ready(self) -> None:
        with self._lock:
            self._wait_ready()

    def _wait_ready(self) -> None:
        if self._ready:
            return
        assert self.proc is not None
        self.control.settimeout(120)
        try:
            data, pid = peer_pid(self.control, 1 << 16)
            hello = json.loads(data or b"{}")
        except (OSError, ValueError):
            hello, pid = {}, None
        if not isinstance(hello, dict) or hello.get("event") != "zygote_ready" or pid is None:
            err = ""
            if self.proc.poll() is not None and self.proc.stderr is not None:
                err = self.proc.stderr.read().decode(errors="replace")[-800:]
            self.close()
            raise GraderError(f"the sandbox zygote did not start ({self.isolation.value}): {err.strip()}")
        self.host_pid = pid
        self._ready = True

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def spawn(self, policy: "SandboxPolicy") -> "WorkerSession":
        from autograder.session import WorkerSession
        with self._lock:
            if not self.alive():
                self.launch()
            self._wait_ready()
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            parent.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            token = os.urandom(8).hex()
            request: SpawnRequest = {"op": "spawn", "token": token, "policy": policy.for_worker()}
            socket.send_fds(self.control, [json.dumps(request).encode()], [child.fileno()])
            child.close()
            try:
                reply = json.loads(self.control.recv(1 << 16) or b"{}")
            except (OSError, ValueError):
                reply = {}
        if not isinstance(reply, dict) or reply.get("token") != token:
            parent.close()
            raise GraderError("the sandbox zygote answered out of turn")
        return WorkerSession(parent, policy)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
        if self._scratch_host:
            shutil.rmtree(self._scratch_host, ignore_errors=True)
            self._scratch_host = None


def launch_zygote(course: "Course", isolation: Isolation | None = None) -> Zygote:
    """Start the sandbox early, before the grader imports torch and the tests: the two overlap.
    Everything the course must keep from students is hidden from it."""
    zygote = Zygote(isolation or detect_isolation(), hide=[str(p) for p in course.secret_paths])
    zygote.launch()
    return zygote


# --- starting without a separate probe ---------------------------------------------------------------
# Start the sandbox zygote without a separate probe first.
#
# `detect_isolation()` decides whether bubblewrap works by starting our interpreter under the full bwrap
# recipe and importing the worker's modules (torch included): a whole extra `import torch`, paid
# before the zygote itself starts, on every `grade` (measured here: most of `launch_zygote`'s 4 s on a
# loaded 2-core machine). The zygote under bwrap runs that same recipe and imports the same modules,
# so its own start answers the same question: where bwrap is installed and no level is forced, start
# the zygote under bwrap straight away; if it does not come up, ask `detect_isolation()` (which probes,
# records why bwrap failed and says so) and start it again at the level that gives. The level that
# actually ran is `zygote.isolation`, read after it is ready, and recorded in every result.


class ProbingZygote(Zygote):
    """A zygote started at the bwrap level with no probe before it: its own start is the probe."""

    def __init__(self, course: "Course") -> None:
        super().__init__(Isolation.bwrap, hide=[str(p) for p in course.secret_paths])
        self.probing = True

    def _wait_ready(self) -> None:
        if not self.probing:
            super()._wait_ready()
            return
        try:
            super()._wait_ready()
        except GraderError:
            # bwrap did not come up: the probe says why (and warns), and picks the level to use
            self.isolation = detect_isolation()
            self.probing = False
            self.launch()
            super()._wait_ready()
        self.probing = False


def launch(course: "Course", isolation: Isolation | None = None) -> Zygote:
    """Start the zygote now, without waiting for it (it imports torch while the caller does too)."""
    if isolation is None and not os.environ.get("AUTOGRADER_ISOLATION") and bwrap_executable() is not None:
        zygote: Zygote = ProbingZygote(course)
        zygote.launch()
        return zygote
    return launch_zygote(course, isolation)
