"""grade_submission: intake -> sandbox execution -> hidden tests -> one SubmissionResult.

A `Grader` holds what is trusted and warm (config, loaded hidden tests, the zygote) and grades any
number of submissions; one bad submission never raises out of `grade`."""
from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

from autograder.config import Course, find_course
from autograder.errors import ConfigError, SubmissionError
from autograder.grading.hidden import HiddenTestCase, load_hidden_tests, load_misconceptions, load_references
from autograder.grading.intake import Submission, read_submission
from autograder.text import escape_undecodable, shown_name
from autograder.sandbox.messages import jupyter_cell
from autograder.results import Isolation, ManualAnswer, SandboxRecord, SubmissionResult, TestReport
from autograder.grading.runner import SubmissionInfo, out_of_order, run_tests
from autograder.grading.source_checks import cells_too_deep, reaches_into_grader
from autograder.sandbox.isolation import detect_isolation
from autograder.grading.outcome import TestSpec, build_result, failed_everything, visible_specs
from autograder.sandbox.gpu import CudaSlots, cuda_available
from autograder.grading.namespaces import RestartingNamespace
from autograder.sandbox import timers
from autograder.sandbox.messages import CudaInit
from autograder.sandbox.session import SandboxPolicy, WorkerSession
from autograder.sandbox.zygote import LevelChain, Zygote, launch


def sandbox_record(session: WorkerSession, policy: SandboxPolicy) -> SandboxRecord:
    facts = session.facts
    shm = ("shared memory refused" if facts.get("shared_memory") == "denied"
           else "shared memory NOT refused (no seccomp)")
    cuda = None
    if policy.cuda:
        cuda = "ready" if facts.get("cuda_ready") else f"failed: {facts.get('cuda_error') or 'no reason given'}"
    return SandboxRecord(seccomp=bool(facts.get("seccomp")), namespaces=list(facts.get("namespaces", [])),
                         landlock=bool(facts.get("landlock")), stdlib_readable=facts.get("stdlib_readable") is not False,
                         memory=f"RLIMIT_DATA {policy.memory_mb} MiB + " + (
                             f"private /tmp {policy.tmp_mb} MiB + /dev/shm {policy.shm_mb} MiB"
                             if "mount" in facts.get("namespaces", [])
                             else "a scratch dir of its own (no private mounts: files count against the host's /tmp)")
                         + f"; {shm}", cuda=cuda)


def infra_line(tests: list[TestReport]) -> str | None:
    """The one line an instructor reads when cases were not run for a grader-side reason."""
    skipped = [t for t in tests if t.status == "not_run"]
    if not skipped:
        return None
    reasons = list(dict.fromkeys(t.infra_reason or "no reason given" for t in skipped))
    devices = sorted({t.device or "cpu" for t in skipped})
    return (f"{len(skipped)} {'/'.join(devices)} case(s) not run, not the student's fault: "
            + "; ".join(reasons))[:600]


@dataclass(frozen=True)
class Spare:
    """A worker forked during the previous submission for the next (Grader.prefork): the grader's end
    of its socket, the policy it was forked for, and the CUDA slot it holds (a CUDA worker's)."""
    sock: socket.socket
    policy: SandboxPolicy
    slot: Optional[int] = None


def check_forbidden_apis(course: Course, slug: str) -> None:
    """ConfigError naming each of the assignment's forbidden_apis entries that the worker's guard could never match
    (calls.unknown_forbidden_apis): checked before any student code runs, and when the Gradescope zip is built."""
    from autograder.sandbox.calls import unknown_forbidden_apis
    problems = unknown_forbidden_apis(course.settings(slug).forbidden_apis)
    if problems:
        raise ConfigError(f"grading.yml: assignments.{slug}.forbidden_apis: {'; '.join(problems)}")


def _not_gradable(cells: list[str], name: str) -> str | None:
    """Why the notebook is not graded at all, from its source alone, or None: a cell too deep for the grader's parse
    (the static rules cannot read it, and the worker may still run it: its recursion limit is the notebook's), or code
    that reaches into the grader's own code or the interpreter's internals (the worker's own checks run in the
    student's interpreter: such a notebook could make them say anything; source_checks.reaches_into_grader)."""
    deep = cells_too_deep(cells)
    if deep:
        return (f"{name}: code cell {deep[0]} holds an expression nested too deeply for the grader to read (hundreds "
                "of levels: a sum of thousands of terms, say), so the rules that grade it cannot be checked: split it "
                "into several statements and submit again")
    try:
        reach = reaches_into_grader(cells)
    except (RecursionError, MemoryError):   # fails closed: a source the check cannot read is not graded
        reach = "code nested too deeply for the grader to read"
    if reach is not None:
        return (f"{name} reaches into the grader's own code or the interpreter's internals ({reach}), which no "
                "homework needs and which would let a notebook change how it is graded: remove it and submit again")
    return None


def newer_python(version: str) -> str:
    """Words for a notebook with a SyntaxError that last ran on a newer Python than the grader's (its metadata's
    "3.12" beside the grader's 3.11), else "": Colab's `f"{cfg["d"]}"` (PEP 701) is a SyntaxError here, told only as
    "f-string: unmatched '['" to a student whose notebook ran (red-team round 98). The grader cannot run newer syntax
    (docs/security.md, known limits), so it says which line to write as the older Python reads it. Said as a
    condition: a typo is a SyntaxError on the newer Python too, and told "write that line as Python 3.11 reads it"
    a Colab notebook's `def f(:` read as the grader's fault (red-team round 101); no parse here tells the two apart."""
    try:
        notebook = tuple(int(part) for part in version.split("."))
    except ValueError:
        return ""
    if len(notebook) != 2 or notebook <= sys.version_info[:2]:
        return ""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return (f". This notebook last ran on Python {version} (its metadata says so); the grader runs Python {here}, "
            "which does not read syntax newer than that: if that line is newer syntax (an f-string that nests its own "
            f"quotes, as in f\"{{d[\"k\"]}}\", is 3.12's), write it as Python {here} reads it; if not, it is a "
            f"SyntaxError on Python {version} too")


class Grader:
    def __init__(self, course: Optional[Course] = None, isolation: Optional[Isolation] = None,
                 zygote: Optional[Zygote] = None) -> None:
        self.course = course or find_course()
        self._isolation = zygote.isolation if zygote else isolation  # None: the strongest that starts
        self._tests: dict[str, list[HiddenTestCase]] = {}
        self._misconceptions: dict[str, dict[str, str]] = {}
        self._references: dict[str, dict[str, Any]] = {}
        self._forbidden_checked: set[str] = set()   # assignments whose forbidden_apis each name a torch function
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
        self.cuda_init: CudaInit = "torch"      # tests without a GPU use a stand-in
        self._cuda_level_checked = False
        self._infra_said: set[str] = set()
        # A batch's grader process grades one submission after another: the next one's worker is
        # forked (by the zygote, fresh, holding nothing of anyone) and locks itself down while this
        # one is graded, instead of after. A CUDA worker holds a CUDA slot from its start, so a CUDA
        # spare is forked only where a slot is free at that moment, and keeps it (its initialisation,
        # 0.4-0.7 s on an H200, is then off the next submission's path).
        self.prefork = False
        self._spare: Spare | None = None
        # The grader's torch work is small tensors (references, comparisons): one thread. More only
        # wait on each other, and on a busy machine cost several times the work (bench/breakdown.py:
        # a `grade` under load spent 10 s in its tests with two threads, 1 s with one). A batch's
        # grader processes do the same; parallelism comes from grading submissions side by side.
        import torch
        torch.set_num_threads(1)

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
        # falls back (zygote.ProbingZygote) rather than trying bwrap again blindly.
        if self._zygote is None:
            self._zygote = launch(self.course, self._isolation)

    @property
    def zygote(self) -> Zygote:
        self.warm_up()
        assert self._zygote is not None
        self._zygote.wait_ready()          # not under the grader's lock: loading tests may go on meanwhile
        with self._lock:
            if not self._cuda_level_checked:
                self._cuda_level_checked = True
                self._zygote = self._level_for_cuda(self._zygote)
            return self._zygote

    # On the one GPU machine tried (an H200, 2026-12-04, bench/gpu_check.sh) CUDA at first initialised
    # in the workers of the fallback level and not in those of bwrap ("Error 304: OS call failed"):
    # every CUDA case of a class went unrun. The cause found and mended since (worker.CUDA_NEEDS_PROC),
    # this stays as the net for the next one a driver brings: where the grader chose bwrap itself,
    # runs as root, and the course grades on a GPU it sees, one CUDA worker is started before the
    # first grade (about half a second, measured there); if CUDA does not initialise in it and does
    # at the fallback level, the grader moves to the fallback level (namespaces made by root, a uid of
    # its own per worker, seccomp) and says so in one line. A level asked for is kept.
    def _level_for_cuda(self, zygote: Zygote) -> Zygote:
        if ("cuda" not in self.devices or type(zygote) is not LevelChain
                or zygote.isolation is not Isolation.bwrap or os.geteuid() != 0):
            return zygote
        ready, why = self._cuda_starts(zygote)
        if ready:
            return zygote
        lower = Zygote(Isolation.fallback, hide=zygote.hide, gradients=zygote.gradients)
        try:
            lower.launch()
            lower.wait_ready()
            ready_lower, _ = self._cuda_starts(lower)
        except Exception:  # noqa: BLE001 - no better level: CUDA cases are reported not run, as before
            ready_lower = False
        if not ready_lower:
            lower.close()
            return zygote
        print(f"note: sandbox level bwrap left for fallback: CUDA does not initialise in bwrap's workers "
              f"({why[:200]}) and does in the fallback level's", file=sys.stderr, flush=True)
        zygote.close()
        return lower

    def _cuda_starts(self, zygote: Zygote) -> tuple[bool, str]:
        """Does CUDA initialise in a worker of `zygote`? (ready, why not). The worker holds a CUDA slot."""
        self._cuda_slots.acquire()
        try:
            session = zygote.spawn(SandboxPolicy(cuda=True, cuda_init=self.cuda_init))
            try:
                facts = dict(session.facts)
            finally:
                session.close(wait=True)
        finally:
            self._cuda_slots.release()
        return bool(facts.get("cuda_ready")), str(facts.get("cuda_error") or "no reason given")

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

    def references(self, slug: str) -> dict[str, Any]:
        """The assignment's reference functions and values by name (hidden.load_references), loaded once."""
        with self._lock:
            if slug not in self._references:
                self._references[slug] = load_references(self.course.root, slug)
            return self._references[slug]

    def _load_tests(self, slug: str) -> list[HiddenTestCase]:
        if slug not in self._tests:
            self._tests[slug] = load_hidden_tests(self.course.assignment_dir(slug) / "hidden",
                                                  self.course.root)
        return self._tests[slug]

    def max_score(self, slug: str) -> float:
        return sum(t.points for t in self.tests(slug))

    def specs(self, slug: str) -> list[TestSpec]:
        """The tests as results carry them, `visible` from grading.yml's visible_tests (an entry that
        names no test is a ConfigError naming it, as is a forbidden_apis entry that matches no torch function)."""
        if slug not in self._forbidden_checked:
            check_forbidden_apis(self.course, slug)
            self._forbidden_checked.add(slug)
        return visible_specs([TestSpec.of(t) for t in self.tests(slug)],
                             self.course.settings(slug).visible_tests, slug)

    def policy(self, slug: str) -> SandboxPolicy:
        """The worker's limits; CUDA only where some case of this assignment will run on it."""
        cuda = "cuda" in self.devices and any(t.per_device for t in self.tests(slug))
        policy = SandboxPolicy.from_limits(self.course.config.limits,
                                           forbidden=self.course.settings(slug).forbidden_apis, cuda=cuda)
        return policy if self.cuda_init == "torch" else replace(policy, cuda_init=self.cuda_init)

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
            return build_result(shown_name(path), slug, status="worker_failed", seed=seed,
                                specs=self.specs(slug), isolation=self.isolation,
                                message=escape_undecodable(f"grader error: {type(e).__name__}: {e}"),
                                elapsed_s=time.perf_counter() - start)

    def grade(self, path: Path, slug: str, seed: Optional[int] = None) -> SubmissionResult:
        """Grade one submission. Raises only GraderError (our problem), never for the student's."""
        start = time.perf_counter()
        self.warm_up()
        seed = secrets.randbits(63) if seed is None else int(seed)
        with timers.span("load tests"):
            tests = self.tests(slug)
            specs = self.specs(slug)  # a bad visible_tests entry stops here, before any student code runs

        def result(status: str, **parts: object) -> SubmissionResult:
            # isolation is read last: the level the worker really ran at
            return build_result(shown_name(path), slug, status=status, seed=seed,  # type: ignore[arg-type]
                                specs=specs, isolation=self.isolation,
                                elapsed_s=time.perf_counter() - start, **parts)  # type: ignore[arg-type]

        reading = time.monotonic()   # from here the submission's own time runs (red-team round 78)
        try:
            with timers.span("read notebook"):
                sub: Submission = read_submission(Path(path), self.course.config.limits)
        except Exception as e:  # noqa: BLE001 - whatever the file is, it is the submission's fault
            if not isinstance(e, SubmissionError):
                e = SubmissionError(f"{shown_name(path)} could not be read as a notebook ({type(e).__name__})")
            return result("rejected", message=str(e))
        other = sub.assignment_name
        if other and other != slug and other in self.course.config.assignments:
            # The template it was written in says which assignment it is: 33 rows of "not defined"
            # would only hide that.
            return result("rejected", message=f"{shown_name(path)} is the notebook of another assignment, "
                                              f"'{other}' (its metadata says so), not '{slug}': submit the "
                                              f"{slug}.ipynb notebook")
        rejection: list[str] = []

        def read_statically() -> bool:
            # the notebook's parse and the rules that refuse to grade it, done while its worker runs the cells (on
            # another core: 6 ms of a full-marks grade's ~150 ms); a refusal ends that worker before anything of
            # it is read, and the submission is not graded
            said = _not_gradable(sub.cells, shown_name(path))
            if said is not None:
                rejection.append(said)
            return said is None

        manual = self._manual(slug, sub)
        policy = self.policy(slug)
        message = ""
        # reading and checking the notebook's own bytes here is its time too: submission_timeout_s bounds the grade
        read_s = time.monotonic() - reading
        with timers.span("wait for the zygote"):
            zygote = self.zygote     # before a CUDA slot: its first use may start a CUDA worker of its own
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and spare.policy != policy:
            self._close_spare(spare)
            spare = None
        slot = self._cuda_slots if policy.cuda else None
        if slot is not None:
            if spare is not None and spare.slot is not None:
                slot.hold(spare.slot)    # the spare's worker and its slot become this submission's
            else:
                try:
                    slot.acquire()
                except BaseException:
                    if spare is not None:
                        self._close_spare(spare)
                    raise
        try:
            session = self._worker(zygote, policy, spare)
            session.deadline -= read_s
            try:
                with timers.span("cells"):
                    outcome = session.exec_cells(sub.cells, meanwhile=read_statically)
                if rejection:
                    return result("rejected", message=rejection[0])
                errors = [c for c in outcome.cells if c.status in ("error", "timeout")]
                if errors:
                    # the first stopped cell that uses a function a cell below defines says so (ran out of order)
                    told = [f"{jupyter_cell(c.index)}: {c.error}" for c in errors[:5]]
                    for k, c in enumerate(errors[:5]):
                        if said := out_of_order(c.index, SubmissionInfo(source="", cells=tuple(sub.cells))):
                            told[k] += said
                            break
                    message = "; ".join(told)
                    if any((c.error or "").startswith("SyntaxError") for c in errors):
                        message += newer_python(sub.python_version)
                namespace = RestartingNamespace(self.zygote.spawn, policy, session)
                reports = run_tests(tests, namespace, seed=seed, devices=self.devices,
                                    submission=SubmissionInfo(source=sub.source, path=str(path),
                                                              cells=tuple(sub.cells),
                                                              cell_errors=tuple((c.index, c.error) for c in errors),
                                                              prose_bound=tuple(sub.prose_bound.items())),
                                    gpu_points=self.course.config.gpu_points,
                                    misconceptions=self.misconceptions(slug), references=self.references(slug),
                                    check_cpu_s=self.course.config.limits.check_cpu_s)
                sandbox = sandbox_record(session, policy)
                with timers.span("close worker"):
                    # a CPU worker's exit is not waited for (WorkerSession.close): only a CUDA
                    # worker's must be over before its slot frees
                    namespace.session.close(wait=policy.cuda)
            finally:
                with timers.span("close worker"):
                    session.close(wait=policy.cuda)
        finally:
            if slot is not None:
                slot.release()
        infra = infra_line(reports)
        if infra:
            self._say_infra(infra)
        return result("graded", tests=reports, cells=outcome.cells, manual=manual, message=message,
                      sandbox=sandbox, infra=infra)

    def _worker(self, zygote: Zygote, policy: SandboxPolicy, spare: Spare | None) -> WorkerSession:
        """A fresh worker for one submission: the spare forked during the previous one where there
        is one (forked from this zygote for this policy, never used), else one forked now."""
        session: WorkerSession | None = None
        if spare is not None:
            try:
                with timers.span("worker fork"):
                    session = WorkerSession(spare.sock, policy)   # its clock starts now
            except Exception:  # noqa: BLE001 - it died with an old zygote, or never started: fork anew
                spare.sock.close()
                session = None
        if session is None:
            session = zygote.spawn(policy)
        if self.prefork:
            self._fork_spare(zygote, policy)
        return session

    def _fork_spare(self, zygote: Zygote, policy: SandboxPolicy) -> None:
        slot = None
        if policy.cuda:
            slot = self._cuda_slots.take()
            if slot is None:
                return   # every slot in use: the next submission starts its own CUDA worker
        try:
            fresh = zygote.fork_worker(policy)
        except Exception:  # noqa: BLE001 - no spare: the next submission forks its own
            if slot is not None:
                self._cuda_slots.give_back(slot)
            return
        with self._lock:
            self._spare = Spare(fresh, policy, slot)

    def _close_spare(self, spare: Spare) -> None:
        """End a spare never used. A CUDA spare's slot frees only once its worker has exited (its
        device memory with it), as a used CUDA worker's does."""
        if spare.slot is None:
            spare.sock.close()   # the worker reads EOF and exits
            return
        try:
            WorkerSession(spare.sock, spare.policy).close(wait=True)
        except Exception:  # noqa: BLE001 - it never started, or died: nothing left to wait for
            spare.sock.close()
        finally:
            self._cuda_slots.give_back(spare.slot)

    def _drop_spare(self) -> None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            self._close_spare(spare)

    def _say_infra(self, line: str) -> None:
        """One line on stderr for the person running the grader, once per distinct problem (a batch
        says it once, not once per submission); results.json and the report carry it too."""
        from autograder.text import terminal_text
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
        found = list(sub.manual_answers)
        chosen = {key: key for key in found if key in names}   # question -> the block that answers it
        others = iter(key for key in found if key not in names)
        for name in names:
            if name not in chosen:
                block = next(others, None)
                if block is None:
                    break
                chosen[name] = block
        return [ManualAnswer(question=name, text=sub.manual_answers[chosen[name]],
                             attachments=sub.manual_attachments.get(chosen[name], []))
                for name in names if name in chosen]

    def close(self) -> None:
        self._drop_spare()
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
