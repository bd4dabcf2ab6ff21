"""The zygote: a clean process inside the sandbox that has imported torch and forks one worker per
submission. It is started by exec, never forked from the grader, so it holds no tests, reference
or seeds; each worker then isolates itself from the zygote and from its classmates
(autograder.sandbox.worker)."""
from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from autograder.errors import GraderError
from autograder.sandbox import timers
from autograder.sandbox.isolation import (SANDBOX_ENV, SANDBOX_GID, SANDBOX_UID, bwrap_command, candidate_levels,
                                          hold_host_cpu_limit, hold_host_memory_limits, package_module_args, remove_tree,
                                          runtime_paths)
from autograder.sandbox.messages import SpawnRequest
from autograder.sandbox.levels import Isolation

# The prefix of a workers' folder that its grader process holds an flock on while it lives (Zygote._held_scratch_host),
# the only folders a sweep may take. A grader from before round 85 made `autograder-scratch-` + 8 characters of
# [a-z0-9_] and holds no lock: today's sweep took such a folder from a live batch of an older install on the host, and
# each of its later students' workers failed to start (red-team round 90). No such name starts with this one.
HELD_SCRATCH_PREFIX = "autograder-scratch-held-"

if TYPE_CHECKING:
    from autograder.config import Course
    from autograder.sandbox.session import SandboxPolicy, WorkerSession


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
    def __init__(self, isolation: Isolation, hide: Sequence[str] = (), gradients: bool = True) -> None:
        self.isolation = isolation
        self.hide = [str(Path(p).resolve()) for p in hide]
        # whether to import up front what torch.autograd.grad imports lazily (Course.takes_gradients)
        self.gradients = gradients
        self._lock = threading.Lock()
        self._scratch_host: str | None = None
        self._scratch_lock: int | None = None   # the flock on _scratch_host that says its grader is alive
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
        opts: dict[str, Any] = {"fd": child.fileno(), "keep": runtime_paths(), "gradients": self.gradients,
                                "level": self.isolation.value}
        if self.isolation is Isolation.bwrap:
            cmd = bwrap_command(sys.executable)
        elif self.isolation is Isolation.fallback:
            cmd = [sys.executable]
            opts.update(drop=True, uid=SANDBOX_UID, gid=SANDBOX_GID, hide=self.hide)
        elif self.isolation is Isolation.container:
            # No mounts here: each worker's scratch dir lives in a folder of ours that workers may
            # pass through but not list (0711), so no worker can name a classmate's
            self._scratch_host = self._scratch_host or self._held_scratch_host()
            os.chmod(self._scratch_host, 0o711)
            opts.update(drop=True, level="container", hide=self.hide, scratch_root=self._scratch_host)
            cmd = [sys.executable]
        else:
            # Only for a worker the kernel gives no namespaces: its scratch dir is made here
            self._scratch_host = self._scratch_host or self._held_scratch_host()
            os.chmod(self._scratch_host, 0o711)
            opts.update(level="rlimits", hide=self.hide, scratch_root=self._scratch_host)
            cmd = [sys.executable]
        cmd += [*package_module_args("autograder.sandbox.worker"), json.dumps(opts)]
        timers.mark(f"zygote launch {self.isolation.value}")
        self.proc = subprocess.Popen(cmd, pass_fds=[child.fileno()], env=dict(SANDBOX_ENV),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True, cwd="/")
        child.close()
        self.control = parent
        self._ready = False

    def _held_scratch_host(self) -> str:
        """A new `autograder-scratch-` folder for the workers' scratch dirs, flock-ed by this process for as long as it
        lives (the kernel lets go when it dies, however it dies). Such folders left by a grader process that was killed
        (Ctrl-C and SLURM's limit SIGKILL the grader processes mid-grade, the OOM killer too) held whatever its worker
        had written, on the host's disk for good: a notebook that filled the disk stopped every rerun of the class
        (red-team round 85). Those no process holds are removed first."""
        remove_abandoned_scratch(tempfile.gettempdir())
        while True:
            path = tempfile.mkdtemp(prefix=HELD_SCRATCH_PREFIX)
            # a grader starting beside us (batch -j2's) may sweep it before it is open: that raised FileNotFoundError,
            # the zygote did not launch and the batch stopped (red-team round 90): make another
            try:
                fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:   # another grader's sweep may have taken it between mkdtemp and flock (and removed it): make another
                if os.path.samestat(os.fstat(fd), os.lstat(path)):
                    self._scratch_lock = fd
                    return path
            except OSError:
                pass
            os.close(fd)

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
            try:  # it closed the socket as it exited: give it a moment to be gone, then read why
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            if self.proc.poll() is not None and self.proc.stderr is not None:
                err = self.proc.stderr.read().decode(errors="replace")[-800:]
            self.close()
            raise GraderError(f"the sandbox zygote did not start ({self.isolation.value}): {why_not_started(err)}")
        self.host_pid = pid
        self._ready = True
        if timers.ON:  # the zygote's own stamps (trusted: no student code exists yet); for the bench
            for name in ("started", "imported"):
                if isinstance(hello.get(name), float):
                    timers.mark(f"zygote {name}", hello[name])
            timers.mark("zygote ready seen")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def spawn(self, policy: "SandboxPolicy") -> "WorkerSession":
        with timers.span("worker fork"):
            return self._spawn(policy)

    def _spawn(self, policy: "SandboxPolicy") -> "WorkerSession":
        from autograder.sandbox.session import WorkerSession
        return WorkerSession(self.fork_worker(policy), policy)

    def fork_worker(self, policy: "SandboxPolicy") -> socket.socket:
        """Have the zygote fork a fresh worker and return the grader's end of its socket at once:
        the worker locks itself down meanwhile, and `WorkerSession(sock, policy)` later reads its
        `ready` (and starts its clock). Closing the socket unused ends the worker."""
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
        return parent

    def fork_sibling(self) -> "SiblingZygote":
        """Have the zygote fork a copy of itself for another grader process of the same batch (one
        `import torch` for both). The copy has never run student code, as this zygote has not; it
        serves its own control socket, inside this zygote's sandbox, and dies with it. Call before
        this process forks the grader that will own it (the new grader takes the returned object)."""
        with self._lock:
            self._wait_ready()
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            parent.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            token = os.urandom(8).hex()
            socket.send_fds(self.control, [json.dumps({"op": "zygote", "token": token}).encode()], [child.fileno()])
            child.close()
            try:
                reply = json.loads(self.control.recv(1 << 16) or b"{}")
            except (OSError, ValueError):
                reply = {}
        if not isinstance(reply, dict) or reply.get("token") != token:
            parent.close()
            raise GraderError("the sandbox zygote answered out of turn")
        return SiblingZygote(self, parent)

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
            remove_tree(self._scratch_host)   # a worker's folders nested past the recursion limit (round 82)
            self._scratch_host = None
        if self._scratch_lock is not None:
            os.close(self._scratch_lock)   # after the removal: a sweep must never find it unheld with files in it
            self._scratch_lock = None


def remove_abandoned_scratch(parent: str) -> list[str]:
    """Remove each HELD_SCRATCH_PREFIX folder of ours in `parent` that no process holds (Zygote._held_scratch_host):
    its grader process is dead. A live grader's folder is held and left alone, whoever runs it. Never follows a link;
    a folder made unreadable is opened up through a descriptor of its own (a worker of the dead grader may still run
    and swap it for a link): at the rlimits level a worker is the grader's uid, and what it wrote under a chmod-0
    folder stayed on the disk for good (red-team round 90). The folders removed."""
    removed: list[str] = []
    try:
        names = [n for n in os.listdir(parent) if n.startswith(HELD_SCRATCH_PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(parent, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:   # a link, a file, gone, or not ours to read
            continue
        try:
            if os.fstat(fd).st_uid != os.geteuid():
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:   # held: its grader is alive
                continue
            remove_tree(path, open_up=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


def launch_zygote(course: "Course", isolation: Isolation | None = None) -> Zygote:
    """Start the sandbox early, before the grader imports torch and the tests: the two overlap.
    Everything the course must keep from students is hidden from it."""
    return launch(course, isolation)


# --- choosing the level by starting it ------------------------------------------------------------
# Which level holds here is decided by starting the zygote at it, strongest first: bwrap where it is
# installed, then (as root) the fallback's private mounts, then the container level's uid-per-worker
# (each of these checks itself before importing anything, so a level that cannot hold fails in
# milliseconds), then, not as root, rlimits. No separate probe: the zygote's own start answers the
# question, so a working level costs nothing extra. A skipped level is said in one line (stderr);
# the level that runs is `zygote.isolation`, read once it is ready and recorded in every result. When
# none starts, the one GraderError names every level and why.


def why_not_started(stderr: str) -> str:
    """One line from a zygote's stderr: its own 'level unavailable' line, else the last line (the
    exception of a traceback), else what bwrap said."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("level unavailable: "):
            return ln.removeprefix("level unavailable: ")[:300]
    line = lines[-1] if lines else "it exited without a word"
    return line.split(". See <", 1)[0][:300]  # bwrap's pointer to its README is not the reason


class LevelChain(Zygote):
    """A zygote that starts at the strongest candidate level and steps down until one starts."""

    def __init__(self, course: "Course | None", levels: Sequence[Isolation], hide: Sequence[str] = (),
                 gradients: bool = True) -> None:
        if not levels:
            raise GraderError("no sandbox level to try here")
        secret = [str(p) for p in course.secret_paths] if course is not None else []
        super().__init__(levels[0], hide=secret + list(hide), gradients=gradients)
        self.remaining = list(levels[1:])
        self.skipped: list[str] = []  # "level: why", in the order tried

    def _wait_ready(self) -> None:
        while True:
            try:
                super()._wait_ready()
                return
            except GraderError as e:
                why = str(e).split("): ", 1)[-1]
                self.skipped.append(f"{self.isolation.value}: {why}")
                if not self.remaining:
                    raise GraderError("no sandbox level starts here (" + "; ".join(self.skipped) + ")") from None
                nxt = self.remaining.pop(0)
                print(f"note: sandbox level {self.isolation.value} skipped ({why}); trying {nxt.value}",
                      file=sys.stderr)
                self.isolation = nxt
                self.launch()


def launch(course: "Course", isolation: Isolation | None = None, hide: Sequence[str] = (),
           slugs: Sequence[str] | None = None) -> Zygote:
    """Start the zygote now, without waiting for it (it imports torch while the caller does too).
    A given level is used as it is; otherwise the strongest that starts (LevelChain). `hide`: more
    paths no student may read (a batch's class folder and output). `slugs`: the assignments it will
    serve (None: any of the course's), which decide whether it imports autograd's lazy imports up front."""
    return launch_planned(launch_plan(course, hide, slugs), isolation)


# What every worker reads whatever the level (worker.SYSTEM_READ_ONLY, and /dev for /dev/null, /dev/urandom): never
# hidden. `grade /dev/shm/x.ipynb` hid the notebook's folder's parent, /dev: the fallback zygote died ("Unable to open
# /dev/urandom") and the container level was refused, with Landlock too (red-team round 123)
WORKER_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys", "/dev/null", "/dev/urandom")


def launch_plan(course: "Course", hide: Sequence[str] = (), slugs: Sequence[str] | None = None) -> dict[str, Any]:
    """What `launch` needs of the course, as plain data: every path no student may read, and whether
    the zygote preloads autograd's lazy imports. A batch's grader process gets it from its parent and
    starts its zygote before it imports the course's config (pydantic: a tenth of a second)."""
    # before any process of the sandbox starts: each inherits the limits this one has (round 110)
    hold_host_memory_limits(course.config.limits.memory_mb)
    hold_host_cpu_limit()
    # A folder that holds the runtime itself (a class folder that is the checkout) cannot be hidden
    # whole; the course's own secret paths never hold it
    runtime = [Path(p) for p in runtime_paths()] + [Path(p) for p in WORKER_SYSTEM]
    extra = [str(h) for h in hide if not any(r == Path(h) or Path(h) in r.parents for r in runtime)]
    return {"hide": [str(p) for p in course.secret_paths] + extra, "gradients": course.takes_gradients(slugs)}


def launch_planned(plan: dict[str, Any], isolation: Isolation | None = None) -> Zygote:
    """`launch` from its `launch_plan`."""
    hide, gradients = [str(p) for p in plan["hide"]], bool(plan["gradients"])
    if isolation is None:
        zygote: Zygote = LevelChain(None, candidate_levels(), hide, gradients=gradients)
    else:
        zygote = Zygote(isolation, hide=hide, gradients=gradients)
    zygote.launch()
    return zygote


class SiblingZygote(Zygote):
    """A zygote forked by another grader process's zygote (`Zygote.fork_sibling`): no process of
    ours to wait for, only its control socket and its pid (the kernel's word, SO_PASSCRED). Where it
    dies (with the zygote it was forked from) the next spawn launches a zygote of its own, by exec,
    at the same level."""

    def __init__(self, origin: Zygote, control: socket.socket) -> None:
        super().__init__(origin.isolation, gradients=origin.gradients)
        self.hide = list(origin.hide)
        self.scratch_root = origin.scratch_root
        self.control = control
        self._ready = False

    def _wait_ready(self) -> None:
        if self.proc is not None:  # relaunched by exec: a zygote like any other
            super()._wait_ready()
            return
        if self._ready:
            return
        self.control.settimeout(120)
        try:
            data, pid = peer_pid(self.control, 1 << 16)
            hello = json.loads(data or b"{}")
        except (OSError, ValueError):
            hello, pid = {}, None
        if not isinstance(hello, dict) or hello.get("event") != "zygote_ready" or pid is None:
            self.close()
            raise GraderError(f"the sibling sandbox zygote did not start ({self.isolation.value})")
        self.host_pid = pid
        self._ready = True

    def alive(self) -> bool:
        if self.proc is not None:
            return super().alive()
        if self.host_pid is None:
            return not self._ready and self.control.fileno() >= 0
        try:
            os.kill(self.host_pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # another uid (the sandbox's): it exists
        try:  # a zygote that died closed its end: the socket reads EOF at once
            return not select.select([self.control], [], [], 0)[0] or bool(
                self.control.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False

    def close(self) -> None:
        if self.proc is not None:
            super().close()
            return
        if self.host_pid is not None:
            try:
                os.kill(self.host_pid, signal.SIGKILL)  # its workers die with it (die_with_parent)
            except OSError:
                pass
            self.host_pid = None
        try:
            self.control.close()
        except OSError:
            pass
