"""grade_submission: intake -> sandbox execution -> hidden tests -> one SubmissionResult.

A `Grader` holds what is trusted and warm (config, loaded hidden tests, the zygote) and grades any
number of submissions; one bad submission never raises out of `grade`."""
from __future__ import annotations

import dataclasses
import fcntl
import os
import secrets
import select
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

from autograder.config import Course, find_course
from autograder.errors import GraderError, SubmissionError, WorkerTimeout
from autograder.hidden import HiddenTestCase, load_hidden_tests, load_misconceptions
from autograder.intake import Submission, read_submission
from autograder.messages import jupyter_cell
from autograder.results import Isolation, ManualAnswer, SandboxRecord, SubmissionResult, TestReport
from autograder.runner import InfraUnavailable, SubmissionInfo, run_tests
from autograder.isolation import detect_isolation
from autograder.outcome import TestSpec, build_result, failed_everything, visible_specs
from autograder.session import SandboxPolicy, WorkerProxy, WorkerSession
from autograder.startup import launch
from autograder.zygote import Zygote


class CudaSlots:
    """At most `limit` CUDA workers alive at once on this machine, across every grader process of this
    user (`batch -j N` runs N of them) and across threads: slot k is an exclusive flock on file k of a
    private directory. The kernel drops a lock when its holder exits, so a killed grader frees its
    slot. Workers never see the directory (their /tmp is their own; the fallback level gives them
    another uid); at the rlimits level, which runs only trusted code, one could hold a slot until it
    is killed."""

    def __init__(self, limit: int, directory: Optional[Path] = None) -> None:
        self.limit = max(1, int(limit))
        self.dir = Path(directory or Path(tempfile.gettempdir()) / f"autograder-cuda-slots-{os.getuid()}")
        self._held = threading.local()

    def _directory(self) -> Path:
        self.dir.mkdir(mode=0o700, exist_ok=True)
        st = self.dir.lstat()
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise GraderError(f"{self.dir} is not a private directory of this user: cannot hold CUDA slots")
        return self.dir

    def acquire(self, timeout: Optional[float] = None) -> bool:
        """Wait for a free slot (polling every 20 ms); False if `timeout` passed first."""
        directory = self._directory()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            for k in range(self.limit):
                fd = os.open(directory / f"slot-{k}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                self._held.fd = fd
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def release(self) -> None:
        fd = getattr(self._held, "fd", None)
        if fd is not None:
            self._held.fd = None
            os.close(fd)  # drops the lock


def cuda_available() -> bool:
    # Asked in the trusted process only; CUDA is initialised in workers, never here.
    import torch
    return torch.cuda.is_available()


# After one call into the student's code has run away (timed out), every later call gets this share
# of call_timeout_s, and a second runaway stops all calls: one runaway submission costs at most about
# 1.5x call_timeout_s (plus restarting its worker), however many tests call into it.
RUNAWAY_SHARE = 0.5


class RestartingNamespace:
    """The student's namespace, restarted from a fresh worker (cells re-run) if a test killed it,
    a bounded number of times, so one runaway call does not cost every later test.

    Runaways are remembered across restarts: once a call into a function times out, every later call
    into that function fails at once with the same reason (a test that takes it is not even started,
    and no worker is restarted for it); calls into the other functions run in a restarted worker with
    RUNAWAY_SHARE of the call timeout; a second timeout stops every later call, with its reason."""

    def __init__(self, grader: "Grader", policy: SandboxPolicy, session: WorkerSession) -> None:
        self.grader, self.policy, self.session = grader, policy, session
        self.restarts = 0
        self.runaway: dict[str, WorkerTimeout] = {}   # function -> the timeout it ran into
        self.halted: Optional[WorkerTimeout] = None   # a second runaway: no call at all any more

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
        if (self.restarts >= self.policy.max_restarts or not self.session.cells_completed
                or self.session.deadline - time.monotonic() < 5 or self.halted is not None):
            return False
        self.restarts += 1
        deadline = self.session.deadline
        cells = self.session.cells
        self.session.close()  # gone, with its memory (and CUDA context), before the next one starts
        policy = self.policy
        if self.runaway:
            policy = dataclasses.replace(policy, call_timeout_s=policy.call_timeout_s * RUNAWAY_SHARE)
        self.session = self.grader.zygote.spawn(policy)
        self.session.deadline = deadline
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
    of runaways (a call into a function that timed out before fails at once, with that reason)."""

    def __init__(self, proxy: WorkerProxy, name: str, namespace: RestartingNamespace) -> None:
        self._proxy, self._name, self._namespace = proxy, name, namespace

    def _guarded(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        blocked = self._namespace.runaway_reason(self._name)
        if blocked is not None:
            raise blocked
        try:
            return method(*args, **kwargs)
        except WorkerTimeout as e:
            self._namespace.ran_away(self._name, e)
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded(self._proxy, *args, **kwargs)

    def call_with_grad(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded(self._proxy.call_with_grad, *args, **kwargs)

    def time_fresh(self, *args: Any, **kwargs: Any) -> Any:
        return self._guarded(self._proxy.time_fresh, *args, **kwargs)

    def __getattr__(self, attr: str) -> Any:  # last_devices and the like
        return getattr(self._proxy, attr)

    def __repr__(self) -> str:
        return repr(self._proxy)


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


def sandbox_record(session: WorkerSession, policy: SandboxPolicy) -> SandboxRecord:
    facts = session.facts
    shm = ("shared memory refused" if facts.get("shared_memory") == "denied"
           else "shared memory NOT refused (no seccomp)")
    cuda = None
    if policy.cuda:
        cuda = "ready" if facts.get("cuda_ready") else f"failed: {facts.get('cuda_error') or 'no reason given'}"
    return SandboxRecord(seccomp=bool(facts.get("seccomp")), namespaces=list(facts.get("namespaces", [])),
                         memory=f"RLIMIT_DATA {policy.memory_mb} MiB + private /tmp {policy.tmp_mb} MiB"
                                f" + /dev/shm {policy.shm_mb} MiB; {shm}", cuda=cuda)


def infra_line(tests: list[TestReport]) -> str | None:
    """The one line an instructor reads when cases were not run for a grader-side reason."""
    skipped = [t for t in tests if t.status == "not_run"]
    if not skipped:
        return None
    reasons = list(dict.fromkeys(t.infra_reason or "no reason given" for t in skipped))
    devices = sorted({t.device or "cpu" for t in skipped})
    return (f"{len(skipped)} {'/'.join(devices)} case(s) not run, not the student's fault: "
            + "; ".join(reasons))[:600]


def _ready_now(zygote: Zygote) -> bool:
    """Whether the zygote has said it is ready (or is about to be read as ready), without waiting."""
    if getattr(zygote, "_ready", False):
        return True
    control = getattr(zygote, "control", None)
    if control is None:
        return True
    try:
        return bool(select.select([control], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class Grader:
    def __init__(self, course: Optional[Course] = None, isolation: Optional[Isolation] = None,
                 zygote: Optional[Zygote] = None) -> None:
        self.course = course or find_course()
        self._isolation = zygote.isolation if zygote else isolation  # None: the strongest that starts
        self._tests: dict[str, list[HiddenTestCase]] = {}
        self._misconceptions: dict[str, dict[str, str]] = {}
        self._zygote: Optional[Zygote] = zygote
        self._lock = threading.RLock()
        cfg = self.course.config
        # CUDA where the course grades on it and this machine has a GPU (asked once, here). Without a
        # GPU there simply are no CUDA cases: nothing failed, nothing to report.
        self.devices = [d for d in cfg.devices if d == "cpu" or (d == "cuda" and cuda_available())]
        # A CUDA worker holds its context from start to exit (CUDA must be initialised before the
        # filter, so before any student code). At most `cuda_workers` are alive at once; a slot frees
        # only once its worker has exited (WorkerSession.close waits on the pidfd).
        self._cuda_slots = CudaSlots(cfg.limits.cuda_workers)
        self._infra_said: set[str] = set()

    @property
    def isolation(self) -> Isolation:
        """The level the zygote runs at (once it is ready: a bwrap start that fails falls back)."""
        if self._zygote is not None:
            return self._zygote.isolation
        if self._isolation is None:
            self._isolation = detect_isolation()
        return self._isolation

    def warm_up(self) -> None:
        """Launch the zygote now; it imports torch while the grader loads tests."""
        with self._lock:
            self._warm_up()

    def _warm_up(self) -> None:
        # Only a first launch here: a zygote that died is restarted by its own spawn (at its level),
        # and one that died before it was ever ready is a bwrap start that failed: waiting on it
        # falls back (startup.ProbingZygote) rather than trying bwrap again blindly.
        if self._zygote is None:
            self._zygote = launch(self.course, self._isolation)

    @property
    def zygote(self) -> Zygote:
        self.warm_up()
        assert self._zygote is not None
        if not _ready_now(self._zygote):
            self._while_waiting()
        self._zygote.wait_ready()
        return self._zygote

    def _while_waiting(self) -> None:
        """Work this process would do later anyway, done while the zygote is still importing: the
        first torch.autograd.grad given a grad_output imports sympy (~0.9 s, measured: most of a
        single `grade`'s own grading work), so where a loaded hidden test file takes gradients, it
        is imported now. On this thread, not another: a second thread fighting for the GIL was
        measured slower."""
        if "torch.fx.experimental.symbolic_shapes" in sys.modules:
            return
        with self._lock:
            files = {t.file for cases in self._tests.values() for t in cases}
        try:
            wanted = any("autograd" in Path(f).read_text() for f in files if f)
        except OSError:
            return
        if wanted:
            import torch.fx.experimental.symbolic_shapes  # noqa: F401

    def tests(self, slug: str) -> list[HiddenTestCase]:
        with self._lock:
            return self._load_tests(slug)

    def misconceptions(self, slug: str) -> dict[str, str]:
        """The assignment's hidden/_misconceptions.py, loaded once."""
        with self._lock:
            if slug not in self._misconceptions:
                self._misconceptions[slug] = load_misconceptions(
                    self.course.assignment_dir(slug) / "hidden")
            return self._misconceptions[slug]

    def _load_tests(self, slug: str) -> list[HiddenTestCase]:
        if slug not in self._tests:
            self._tests[slug] = load_hidden_tests(self.course.assignment_dir(slug) / "hidden",
                                                  self.course.root)
        return self._tests[slug]

    def max_score(self, slug: str) -> float:
        return sum(t.points for t in self.tests(slug))

    def specs(self, slug: str) -> list[TestSpec]:
        """The tests as results carry them, `visible` from grading.yml's visible_tests (an entry that
        names no test is a ConfigError naming it)."""
        return visible_specs([TestSpec.of(t) for t in self.tests(slug)],
                             self.course.settings(slug).visible_tests, slug)

    def policy(self, slug: str) -> SandboxPolicy:
        """The worker's limits; CUDA only where some case of this assignment will run on it."""
        cuda = "cuda" in self.devices and any(t.per_device for t in self.tests(slug))
        return SandboxPolicy.from_limits(self.course.config.limits,
                                         forbidden=self.course.settings(slug).forbidden_apis, cuda=cuda)

    def failed_everything(self, slug: str, message: str) -> list[TestReport]:
        return failed_everything(self.specs(slug), message)

    def grade_or_fail(self, path: Path, slug: str, seed: Optional[int] = None) -> SubmissionResult:
        """`grade`, and a worker_failed result instead of an exception when the grader itself could
        not finish (never journaled: a rerun grades it again). For batches: one submission never
        stops the others."""
        start = time.perf_counter()
        seed = secrets.randbits(63) if seed is None else int(seed)
        try:
            return self.grade(path, slug, seed=seed)
        except Exception as e:  # noqa: BLE001 - never lose the batch to one submission
            return build_result(Path(path).name, slug, status="worker_failed", seed=seed,
                                specs=self.specs(slug), isolation=self.isolation,
                                message=f"grader error: {type(e).__name__}: {e}",
                                elapsed_s=time.perf_counter() - start)

    def grade(self, path: Path, slug: str, seed: Optional[int] = None) -> SubmissionResult:
        """Grade one submission. Raises only GraderError (our problem), never for the student's."""
        start = time.perf_counter()
        self.warm_up()
        seed = secrets.randbits(63) if seed is None else int(seed)
        tests = self.tests(slug)
        specs = self.specs(slug)  # a bad visible_tests entry stops here, before any student code runs

        def result(status: str, **parts: object) -> SubmissionResult:
            # isolation is read last: the level the worker really ran at
            return build_result(Path(path).name, slug, status=status, seed=seed,  # type: ignore[arg-type]
                                specs=specs, isolation=self.isolation,
                                elapsed_s=time.perf_counter() - start, **parts)  # type: ignore[arg-type]

        try:
            sub: Submission = read_submission(Path(path), self.course.config.limits)
        except Exception as e:  # noqa: BLE001 - whatever the file is, it is the submission's fault
            if not isinstance(e, SubmissionError):
                e = SubmissionError(f"{Path(path).name} could not be read as a notebook ({type(e).__name__})")
            return result("rejected", message=str(e))
        other = sub.assignment_name
        if other and other != slug and other in self.course.config.assignments:
            # The template it was written in says which assignment it is: 33 rows of "not defined"
            # would only hide that.
            return result("rejected", message=f"{Path(path).name} is the notebook of another assignment, "
                                              f"'{other}' (its metadata says so), not '{slug}': submit the "
                                              f"{slug}.ipynb notebook")
        manual = self._manual(slug, sub)
        policy = self.policy(slug)
        message = ""
        slot = self._cuda_slots if policy.cuda else None
        if slot is not None:
            slot.acquire()
        try:
            session = self.zygote.spawn(policy)
            try:
                outcome = session.exec_cells(sub.cells)
                errors = [c for c in outcome.cells if c.status in ("error", "timeout")]
                if errors:
                    message = "; ".join(f"{jupyter_cell(c.index)}: {c.error}" for c in errors[:5])
                namespace = RestartingNamespace(self, policy, session)
                reports = run_tests(tests, namespace, seed=seed, devices=self.devices,
                                    submission=SubmissionInfo(source=sub.source, path=str(path),
                                                              cells=tuple(sub.cells)),
                                    gpu_points=self.course.config.gpu_points,
                                    misconceptions=self.misconceptions(slug))
                sandbox = sandbox_record(session, policy)
                namespace.session.close()
            finally:
                session.close()
        finally:
            if slot is not None:
                slot.release()
        infra = infra_line(reports)
        if infra:
            self._say_infra(infra)
        return result("graded", tests=reports, cells=outcome.cells, manual=manual, message=message,
                      sandbox=sandbox, infra=infra)

    def _say_infra(self, line: str) -> None:
        """One line on stderr for the person running the grader, once per distinct problem (a batch
        says it once, not once per submission); results.json and the report carry it too."""
        from autograder.outputs import terminal_text
        key = line.split(": ", 1)[-1]
        with self._lock:
            if key in self._infra_said:
                return
            self._infra_said.add(key)
        try:
            print(f"grader problem: {terminal_text(line, limit=600)}", file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - a closed or strict stderr must not lose a finished grade
            pass

    def _manual(self, slug: str, sub: Submission) -> list[ManualAnswer]:
        """Written answers for the questions grading.yml lists as manual, and for nothing else: at most
        one each. A block whose heading names a configured question answers it; the other blocks fill
        the configured questions still unanswered, in notebook order. Intake caps each text."""
        names = list(dict.fromkeys(self.course.settings(slug).manual))
        found = list(sub.manual_answers.items())
        chosen = {key: text for key, text in found if key in names}
        others = iter(text for key, text in found if key not in names)
        for name in names:
            if name not in chosen:
                text = next(others, None)
                if text is None:
                    break
                chosen[name] = text
        return [ManualAnswer(question=name, text=chosen[name]) for name in names if name in chosen]

    def close(self) -> None:
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None

    def __enter__(self) -> "Grader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def grade_submission(path: Path, slug: str, seed: Optional[int] = None,
                     course: Optional[Course] = None) -> SubmissionResult:
    with Grader(course) as grader:
        return grader.grade(path, slug, seed)
