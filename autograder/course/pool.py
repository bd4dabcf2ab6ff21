"""Batch grading on every core: N trusted grader processes, one submission at a time each.

One grader process (threads sharing one interpreter) stops scaling at about 4 workers: the hidden
tests, the reference and the comparisons all run in the grader, under one GIL. So a batch runs N
grader processes (`-j N`), each exactly what `autograder grade` runs: its own Grader (course, hidden
tests, reference) and its own zygote. The first is started by exec and forks the others once its
imports and tests are loaded, before it grades anything (trusted from trusted), each with a zygote
forked from its own zygote (which has never run student code): one `import torch` for the graders
and one for the zygotes. A worker is still forked only from a zygote, never from a process holding
tests, so the trust boundary is the one of a single grade (docs/performance.md, fourth round).

The parent (the `batch` command) only hands out work and collects results: it never imports the
tests, the reference or torch for grading. It is the journal's one writer. Work is handed out one
submission at a time, so a slow notebook never holds up a queue behind it.

    parent ── task {id, path, seed} ──> grader process ── spawn ──> zygote ──fork──> worker
           <── result (SubmissionResult JSON) ──

The two ends are trusted processes of the same user; the link is a socketpair carrying
length-prefixed JSON (never pickle). A grader process that dies (a grader bug, the OOM killer) costs
the submission it held a `worker_failed` result (not journaled: a rerun grades it again) and is
replaced; one that outlives a generous deadline is killed the same way."""
from __future__ import annotations

import gc
import json
import os
import select
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterator, Optional, Sequence

from autograder.errors import GraderError
from autograder.sandbox import timers
from autograder.sandbox.isolation import package_module_args
from autograder.sandbox.levels import Isolation

if TYPE_CHECKING:
    from autograder.config import Course
    from autograder.grading.outcome import TestSpec
    from autograder.results import SubmissionResult

_HEADER = struct.Struct(">Q")
MAX_FRAME = 1 << 30
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Task:
    name: str      # the submission's file name (its key in the journal and the gradebook)
    path: str
    seed: int
    results_path: str = ""  # where the grader process writes its results.json ("" : it does not)


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_exact(sock: socket.socket, n: int) -> Optional[bytes]:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def recv(sock: socket.socket) -> Optional[dict[str, Any]]:
    """One message, or None when the other end is gone (EOF mid-frame counts as gone)."""
    try:
        header = _recv_exact(sock, _HEADER.size)
        if header is None:
            return None
        (size,) = _HEADER.unpack(header)
        if size > MAX_FRAME:
            return None
        body = _recv_exact(sock, size)
    except OSError:
        return None
    if body is None:
        return None
    message = json.loads(body)
    return message if isinstance(message, dict) else None


def recv_with_fd(sock: socket.socket) -> tuple[Optional[dict[str, Any]], Optional[int]]:
    """`recv`, keeping the one file descriptor a message may carry (a forked grader process's link,
    sent with its `forked` event); any other descriptor is closed."""
    try:
        header, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, 4)
    except OSError:
        return None, None
    fd = fds[0] if len(fds) == 1 else None
    for extra in fds[1:] if fd is not None else fds:
        os.close(extra)
    if header and len(header) < _HEADER.size:
        rest = _recv_exact(sock, _HEADER.size - len(header)) if header else None
        header = header + rest if rest is not None else b""
    if len(header) < _HEADER.size:
        if fd is not None:
            os.close(fd)
        return None, None
    (size,) = _HEADER.unpack(header)
    body = _recv_exact(sock, size) if size <= MAX_FRAME else None
    message = json.loads(body) if body is not None else None
    if not isinstance(message, dict):
        if fd is not None:
            os.close(fd)
        return None, None
    return message, fd


class _ForkedProc:
    """What the parent holds of a grader process forked by another (not its child, so no Popen):
    its pidfd, to know when it is gone and to kill it. Its exit status is its forker's to read."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: Optional[int] = None
        try:
            self.pidfd: Optional[int] = os.pidfd_open(pid)
        except OSError:  # already gone
            self.pidfd, self.returncode = None, 1

    def _gone(self, timeout: float) -> bool:
        if self.pidfd is None:
            return True
        if select.select([self.pidfd], [], [], timeout)[0]:
            os.close(self.pidfd)
            self.pidfd = None
            if self.returncode is None:
                self.returncode = 1
            return True
        return False

    def poll(self) -> Optional[int]:
        return self.returncode if self._gone(0) else None

    def wait(self, timeout: Optional[float] = None) -> int:
        if not self._gone(86400.0 if timeout is None else timeout):
            raise subprocess.TimeoutExpired("forked grader process", timeout or 0)
        return self.returncode if self.returncode is not None else 1

    def kill(self) -> None:
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                self.returncode = -signal.SIGKILL
            except OSError:
                pass


# --- the parent's side ------------------------------------------------------------------------------
def isolated_module_command(module: str, *args: str) -> list[str]:
    """The command that runs `module` of this package as `python -m` would, but isolated (`-I`):
    neither the working directory nor PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, the user's site-packages
    or a sitecustomize beside them decide what it imports; the interpreter's own library, its
    site-packages, and this very package from the folder it was imported from (so the child runs the
    code this process runs and fingerprints, installed or not; nothing of the caller's folder). The same
    start as the sandbox's worker (isolation.package_module_args)."""
    return [sys.executable, *package_module_args(module), *args]


def grader_command(options: dict[str, Any]) -> list[str]:
    """How a grader process is started (isolated_module_command). The course's `reference` package
    joins its path explicitly, by absolute path, when the hidden tests load (autograder.grading.hidden)."""
    return isolated_module_command("autograder.course.pool", json.dumps(options))


class GraderProcess:
    """One trusted grader process, from the parent's side."""

    proc: "subprocess.Popen[bytes] | _ForkedProc"
    stderr: IO[bytes]

    def __init__(self, index: int, options: dict[str, Any],
                 forked: Optional[tuple[socket.socket, int, "GraderProcess"]] = None) -> None:
        self.index = index
        self.task: Optional[Task] = None
        self.next: Optional[Task] = None   # handed out ahead: waits in the socket until `task` is done
        self.since = 0.0
        self.ready = False
        if forked is not None:  # forked by `template` once its imports and tests were loaded
            self.sock, pid, template = forked
            self.proc = _ForkedProc(pid)
            self.stderr = os.fdopen(os.dup(template.stderr.fileno()), "rb")  # it writes where its forker does
            self.home = ""
            return
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = parent
        self.stderr = tempfile.TemporaryFile(prefix="autograder-grader-")
        opts = dict(options, fd=child.fileno(), parent=os.getpid())
        # Its own empty working directory: whatever folder the instructor ran `batch` from (a class
        # folder full of students' json.py) is neither its cwd nor on its import path.
        self.home = tempfile.mkdtemp(prefix="autograder-grader-")
        # Started by exec, from the parent's own thread: PR_SET_PDEATHSIG in the child follows it.
        self.proc = subprocess.Popen(grader_command(opts), pass_fds=[child.fileno()], cwd=self.home,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr)
        child.close()

    def give(self, task: Task) -> None:
        if self.task is None:
            self.task, self.since = task, time.monotonic()
        else:
            self.next = task
        # Absolute paths: the grader process works in its own folder, not in the caller's.
        results_path = os.path.abspath(task.results_path) if task.results_path else ""
        timers.mark("task given")
        try:
            send(self.sock, {"op": "grade", "name": task.name, "path": os.path.abspath(task.path),
                             "seed": task.seed, "results_path": results_path})
        except OSError:
            pass  # it died: its socket reads EOF next, and the task is reported with its death

    def stderr_tail(self, limit: int = 800) -> str:
        try:
            self.stderr.seek(0)
            return self.stderr.read().decode(errors="replace").strip()[-limit:]
        except (OSError, ValueError):
            return ""

    def ask_to_exit(self) -> None:
        if self.proc.poll() is None:
            try:
                send(self.sock, {"op": "exit"})
            except OSError:
                pass

    def stop(self, kill: bool = False) -> None:
        if kill and self.proc.poll() is None:
            self.proc.kill()
        elif not kill:
            self.ask_to_exit()
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=None if kill else 30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.home:
            shutil.rmtree(self.home, ignore_errors=True)


def _why_stopped(proc: GraderProcess) -> str:
    try:
        code = proc.proc.wait(timeout=5)  # its socket closed as it died: the exit follows at once
    except subprocess.TimeoutExpired:
        return "the grader process broke off"
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return f"the grader process stopped ({how})"


class GraderPool:
    """`jobs` grader processes for one assignment of one course; `run` grades tasks on them."""

    def __init__(self, course_root: Path, slug: str, jobs: int, isolation: Optional[Isolation] = None,
                 task_timeout_s: float = 600.0, private: Sequence[Path] = (),
                 course: Optional["Course"] = None) -> None:
        # absolute: the grader processes do not share this process's working directory. `private`:
        # folders no student may read besides the course (the class, the output): zygote.launch
        from autograder.sandbox.zygote import launch_plan
        if course is None:
            from autograder.config import Course, load_config
            course = Course(Path(course_root), load_config(Path(course_root) / "grading.yml"))
        hidden = [str(Path(p).resolve()) for p in private]
        self.options: dict[str, Any] = {"course": str(Path(course_root).resolve()), "slug": slug,
                                        "isolation": isolation.value if isolation else None,
                                        # the zygote's launch as data, `private` hidden with the course:
                                        # started before the grader process imports its config (child_main)
                                        "sandbox": launch_plan(course, hidden, [slug])}
        self.slug = slug
        self.jobs = max(1, int(jobs))
        self.task_timeout_s = task_timeout_s
        self.procs: list[GraderProcess] = []
        self.specs: list[TestSpec] = []
        self.isolation: Optional[Isolation] = isolation
        self.notes: list[str] = []
        self.misconceptions: dict[str, str] = {}  # texts of the keys the hidden tests may name
        self._started = 0
        # -jN with N > 1: the first grader process forks the other N - 1 once its imports and tests
        # are loaded, each with a zygote forked from its own (one `import torch` for the batch
        # instead of 2N). AUTOGRADER_FORK_GRADERS=0 starts each by exec, as before (bench/: the
        # comparison).
        self.fork_graders = os.environ.get("AUTOGRADER_FORK_GRADERS", "1") != "0"

    def _start_one(self) -> GraderProcess:
        self._started += 1
        options = self.options
        if self._started == 1 and self.jobs > 1 and self.fork_graders:
            options = dict(options, forks=self.jobs - 1)
        proc = GraderProcess(self._started, options)
        self.procs.append(proc)
        return proc

    def _adopt(self, template: GraderProcess, sock: socket.socket, pid: int) -> GraderProcess:
        """A grader process `template` forked (its `forked` event): graded like any other."""
        self._started += 1
        proc = GraderProcess(self._started, self.options, forked=(sock, pid, template))
        self.procs.append(proc)
        return proc

    def starting_at_once(self) -> int:
        """How many grader processes may start at the same time. Each start is two processes importing
        torch side by side (the grader and its zygote): on C cores, C // 2 of them fill the machine,
        and more only slow every one down, the first included (measured on 2 cores: the first result
        of a -j2 batch came at 3.8x `import torch` with both started at once). The others start as
        soon as one is ready, while it grades."""
        return max(1, min(self.jobs, (os.cpu_count() or 2) // 2))

    def start(self) -> None:
        """Start the first grader processes now (`starting_at_once`); `run` starts the rest as they
        become ready."""
        at_once = 1 if self.fork_graders else self.starting_at_once()
        while len(self.procs) < at_once:
            self._start_one()

    def _starting(self) -> int:
        return sum(not p.ready for p in self.procs)

    def _failed(self, task: Task, reason: str) -> "SubmissionResult":
        from autograder.grading.outcome import build_result
        return build_result(task.name, self.slug, status="worker_failed", seed=task.seed, specs=self.specs,
                            isolation=self.isolation, message=f"grader error: {reason}")

    def _retire(self, proc: GraderProcess, kill: bool) -> None:
        proc.stop(kill=kill)
        self.procs.remove(proc)
        tail = proc.stderr_tail()
        if tail and tail not in self.notes:
            self.notes.append(tail)
        proc.stderr.close()

    def run(self, tasks: list[Task]) -> Iterator[tuple[Task, SubmissionResult, bool, bool]]:
        """Grade every task; yields (task, result, final, written) as each finishes, in completion
        order. `final` is False for a result the grader could not finish (worker_failed: not
        journaled); `written` says the grader process wrote task.results_path itself."""
        from autograder.grading.outcome import TestSpec
        from autograder.results import SubmissionResult
        queue = deque(tasks)
        if not queue:
            return
        self.start()
        sel = selectors.DefaultSelector()
        for p in self.procs:
            sel.register(p.sock, selectors.EVENT_READ, p)
        # At -j1 the grader process holds the next task too: it reads it from its socket as soon as
        # it has sent a result, without waiting for this process to wake up, read the result and hand
        # the next one out (at -jN a task given ahead could wait behind a slow one while another
        # process idles).
        ahead = self.jobs == 1

        def feed(proc: GraderProcess) -> None:
            while queue and (proc.task is None or (ahead and proc.next is None)):
                proc.give(queue.popleft())

        # One task each right away: it waits in the socket while the process starts up.
        for p in self.procs:
            feed(p)
        # Failures seen before any process announced the tests wait for the test list.
        unannounced: list[tuple[Task, str]] = []
        failures_before_ready = 0

        def replace(proc: GraderProcess, reason: str) -> None:
            nonlocal failures_before_ready
            sel.unregister(proc.sock)
            tail = proc.stderr_tail()
            self._retire(proc, kill=True)
            if not proc.ready:
                failures_before_ready += 1
                if failures_before_ready >= 2:
                    raise GraderError(f"a grader process could not start: {tail or reason}")
            if proc.task is not None:
                unannounced.append((proc.task, reason))
            if proc.next is not None:
                # never started: a grader process reads it only after sending the result before it,
                # which came first on the same socket; it goes to the next process like any other
                queue.appendleft(proc.next)
            proc.task = proc.next = None
            if queue:
                fresh = self._start_one()
                sel.register(fresh.sock, selectors.EVENT_READ, fresh)
                feed(fresh)

        try:
            while any(p.task is not None for p in self.procs) or unannounced:
                if unannounced and (self.specs or not any(p.task is not None for p in self.procs)):
                    for task, reason in unannounced:
                        yield task, self._failed(task, reason), False, False
                    unannounced.clear()
                    continue
                for key, _mask in sel.select(timeout=1.0):
                    proc: GraderProcess = key.data
                    message, fd = recv_with_fd(proc.sock)
                    message = message or {}  # {}: EOF or nonsense, handled below
                    event = message.get("event")
                    if fd is not None and (event != "forked" or not isinstance(message.get("pid"), int)):
                        os.close(fd)
                        fd = None
                    if event == "forked":
                        if fd is not None:
                            forked = self._adopt(proc, socket.socket(fileno=fd), int(message["pid"]))
                            sel.register(forked.sock, selectors.EVENT_READ, forked)
                            feed(forked)  # it waits in the socket while the fork gets ready
                    elif event == "ready":
                        proc.ready = True
                        feed(proc)  # started while others graded: work now
                        # one more may start now; it takes a task once it is ready (a short class
                        # is then not left waiting on a start-up)
                        while queue and len(self.procs) < self.jobs and self._starting() < self.starting_at_once():
                            sel.register(self._start_one().sock, selectors.EVENT_READ, self.procs[-1])
                        if not self.specs:
                            self.specs = [TestSpec.from_json(s) for s in message.get("tests", [])]
                        if self.isolation is None and message.get("isolation"):
                            self.isolation = Isolation(message["isolation"])
                        texts = message.get("misconceptions")
                        if isinstance(texts, dict):
                            self.misconceptions.update({str(k): str(v) for k, v in texts.items()})
                    elif event == "error":
                        # The grader cannot do its job at all (bad course, unreadable tests): stop.
                        raise GraderError(str(message.get("message") or "a grader process failed"))
                    elif event == "result" and proc.task is not None and message.get("name") == proc.task.name:
                        task, proc.task, proc.next = proc.task, proc.next, None
                        proc.since = time.monotonic()   # the one given ahead starts now
                        result = SubmissionResult.model_validate_json(message["result"])
                        timers.mark("result received")
                        feed(proc)
                        yield task, result, result.status != "worker_failed", bool(task.results_path)
                    else:  # EOF or nonsense: this grader process is gone with the submission it held
                        replace(proc, _why_stopped(proc))
                now = time.monotonic()
                for proc in list(self.procs):
                    if proc.task is not None and now - proc.since > self.task_timeout_s:
                        replace(proc, f"not finished within {self.task_timeout_s:g} s")
        finally:
            sel.close()

    def release(self) -> None:
        """Ask every grader process to exit, without waiting: they wind down while the caller works.
        One still starting holds no work: it is stopped at once rather than waited for."""
        for proc in self.procs:
            if not proc.ready and proc.task is None and proc.proc.poll() is None:
                proc.proc.kill()
            else:
                proc.ask_to_exit()

    def close(self, kill: bool = False) -> None:
        """Ask every grader process to exit (kill: stop them now, mid-grade, as a stopped batch does)."""
        if not kill:
            self.release()  # all at once: their shutdowns (zygote, interpreter) overlap
        for proc in list(self.procs):
            self._retire(proc, kill=kill)


# --- the grader process's side ----------------------------------------------------------------------
def readable_result(result: "SubmissionResult") -> tuple["SubmissionResult", str]:
    """(result, its JSON) for the parent and the results file. A text that still holds bytes of a
    file name that are not UTF-8 (an exception's message naming the path) cannot be JSON: they are
    written \\xNN rather than losing the submission and this grader process to a serialisation
    error."""
    try:
        return result, result.model_dump_json()
    except ValueError:  # pydantic's PydanticSerializationError: "surrogates not allowed"
        from autograder.text import escape_undecodable

        def readable(value: Any) -> Any:
            if isinstance(value, str):
                return escape_undecodable(value)
            if isinstance(value, list):
                return [readable(v) for v in value]
            if isinstance(value, dict):
                return {readable(k): readable(v) for k, v in value.items()}
            return value
        from autograder.results import SubmissionResult
        fixed = SubmissionResult.model_validate(readable(result.model_dump(mode="json")))
        return fixed, fixed.model_dump_json()


def _die_with_parent(parent: int) -> None:
    """No grader process outlives the batch: SIGKILL when the parent goes (its zygote and workers die
    with it: they die with their own parents)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _one_thread() -> bool:
    """No Python thread besides this one (a lock it held would stay held in the fork). Native
    threads may exist: OpenBLAS starts its pool when numpy is imported and stops it around a fork
    (pthread_atfork), as in the zygote, which forks after the same imports; torch runs one thread
    here and no multi-threaded op has run."""
    import threading
    return threading.active_count() == 1


def _fork_grader(sock: socket.socket, grader: Any) -> "socket.socket | int | None":
    """Fork another grader process of this batch from this one, once its imports and tests are
    loaded (trusted from trusted: it holds what this one holds, nothing of any student yet), with a
    zygote forked from this one's (which has never run student code). Only while this process has
    one thread and no worker forked ahead. The forker sends the parent the new process's link and
    pid, and gets its pid; the fork gets its link; None: not forked (the parent starts one by exec)."""
    if not _one_thread() or grader._spare is not None:
        return None
    try:
        sibling = grader.zygote.fork_sibling()
    except Exception:  # noqa: BLE001 - no sibling zygote: no fork
        return None
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        mine.close()
        sock.close()  # the forker's link: the parent's talk with it is not ours
        forker = os.getppid()
        _die_with_parent(forker)  # its zygote, and so ours, die with it
        timers.take()  # the forker's spans are its own
        timers.mark("grader process forked")
        inherited, grader._zygote = grader._zygote, sibling
        inherited.control.close()  # the forker's zygote is the forker's to talk to (and to close)
        if inherited.proc is not None and inherited.proc.stderr is not None:
            inherited.proc.stderr.close()
        return theirs
    theirs.close()
    sibling.control.close()  # the fork's own
    try:
        data = json.dumps({"event": "forked", "pid": pid}, separators=(",", ":")).encode()
        socket.send_fds(sock, [_HEADER.pack(len(data)) + data], [mine.fileno()])
    except OSError:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    finally:
        mine.close()
    return pid


def child_main(options: dict[str, Any]) -> int:
    _die_with_parent(int(options["parent"]))
    # A terminal's Ctrl-C goes to its whole foreground group: the batch stops this process itself (it kills
    # it), so a KeyboardInterrupt here would only add a traceback, or a grade cut short, to its stop. Its
    # zygote and workers inherit the ignored SIGINT across exec.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    timers.role("grader process")
    timers.mark("grader process start")
    sock = socket.socket(fileno=int(options["fd"]))
    slug = str(options["slug"])
    try:
        from autograder.sandbox.zygote import launch_planned
        root = Path(options["course"])
        if not root.is_absolute():  # this process's cwd is its own empty folder, not the caller's
            raise GraderError(f"the course root must be an absolute path, not {root}")
        iso = Isolation(options["isolation"]) if options.get("isolation") else None
        # first: it imports torch while this process imports the course's config, torch and the tests
        zygote = launch_planned(options["sandbox"], iso)
        from autograder.config import Course, load_config
        course = Course(root, load_config(root / "grading.yml"))  # the parent's course, whatever the env says
        with timers.span("import the grader"):
            import torch
            torch.set_num_threads(1)  # parallelism comes from the grader processes side by side
            from autograder.grading.grader import Grader
        grader = Grader(course, zygote=zygote)
        grader.prefork = True  # submissions come one after another: the next worker starts early
        with timers.span("load tests"):
            specs = [s.to_json() for s in grader.specs(slug)]
        with timers.span("wait for the zygote"):
            grader.zygote  # noqa: B018 - wait until it is ready (or replaced by a weaker level)
    except Exception as e:  # noqa: BLE001 - the grader cannot work: say why, once
        try:
            send(sock, {"event": "error", "message": str(e) if isinstance(e, GraderError)
                        else f"{type(e).__name__}: {e}"})
        except OSError:
            pass  # the batch already stopped (a sibling said the same first): nothing to add
        return 2
    from autograder.grading.checks import MISCONCEPTIONS
    from autograder.course.outputs import write_results
    vis = course.config.visibility
    # torch, the tests and the references are loaded for good: out of the collector's reach, so that the full
    # collections a grade's garbage sets off (one every few grades) walk only what grading made since
    gc.freeze()
    forker = 0  # in a grader process forked by another: that one's pid
    forked: list[int] = []  # the grader processes this one forked: reaped as it ends
    for _ in range(int(options.get("forks") or 0)):
        link = _fork_grader(sock, grader)
        if link is None:
            break  # the parent starts the rest by exec, as they are missing
        if isinstance(link, socket.socket):  # the fork: grade on this link, nothing more to fork
            forker, sock, forked = os.getppid(), link, []
            break
        forked.append(link)
    send(sock, {"event": "ready", "tests": specs, "isolation": grader.isolation.value,
                "misconceptions": dict(MISCONCEPTIONS)})
    try:
        while True:
            message = recv(sock)
            timers.mark("task received")
            if message is None or message.get("op") != "grade":
                return 0
            path, name, seed = Path(message["path"]), str(message["name"]), int(message["seed"])
            cpu = time.process_time()
            with timers.span("grade"):
                result = grader.grade_or_fail(path, slug, seed=seed)
            timers.count("grader cpu us", int((time.process_time() - cpu) * 1e6))
            if forker and os.getppid() != forker:
                # Our forker died, and its zygote with ours: this grade may have lost its worker to
                # that, not to the student. Say nothing: the parent sees this process go and grades
                # the submission again.
                os._exit(1)
            with timers.span("result writing"):
                result, payload = readable_result(result.model_copy(update={"submission": name}))  # named by its key
                if message.get("results_path"):  # here, where the misconception texts are loaded
                    write_results(result, vis, Path(message["results_path"]))
                send(sock, {"event": "result", "name": name, "result": payload})
    except (BrokenPipeError, ConnectionResetError):  # the batch stopped listening (a full disk, Ctrl-C):
        return 0                                      # it says why itself; a traceback here would be noise
    finally:
        grader.close()
        _reap(forked)


def _reap(pids: list[int], within_s: float = 10.0) -> None:
    """Wait for the grader processes this one forked (asked to exit with it), so that their CPU is
    counted where a parent counts its children's; one that takes longer is left to init."""
    deadline = time.monotonic() + within_s
    pending = list(pids)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                pending.remove(pid)
        if pending:
            time.sleep(0.02)


if __name__ == "__main__":
    from autograder import exit_without_teardown
    exit_without_teardown(child_main(json.loads(sys.argv[1])))
