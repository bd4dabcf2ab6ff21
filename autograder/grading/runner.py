"""Run hidden tests in the trusted process against a student namespace, classify each outcome once."""
from __future__ import annotations

import hashlib
import inspect
import re
import signal
import threading
import time
import unicodedata
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence, Mapping

import torch

from autograder.grading.crash_words import crash_words
from autograder.grading.checks import (TIMING_UNVERIFIED, ChargeRecord, Misconception, callable_not_called,
                                      charges_recorded, describe)
from autograder.errors import CheckTooSlow, NotAnswered, StudentCodeError, WorkerCrashed, WorkerTimeout
from autograder.grading.hidden import HiddenTestCase
from autograder.grading.global_reads import name_global_reads
from autograder.grading.length_one import name_length_one
from autograder.grading.repair import name_by_one_edit
from autograder.results import TestReport
from autograder.sandbox import timers
from autograder.grading.shrink import ShrinkBudget, current_budget
from autograder.text import escape_non_ascii


@dataclass(frozen=True)
class SubmissionInfo:
    """What a test may know about the submission besides its functions: its source, for static checks.
    `cells` are the code cells as intake read them (each parsed on its own by source_checks)."""
    source: str
    path: str = ""
    cells: tuple[str, ...] = ()
    # (index into cells, the error's first line) of each cell that stopped with an error or a timeout
    cell_errors: tuple[tuple[int, str], ...] = ()
    # (name, "markdown" or "raw") of each name a cell that never runs binds as code would (intake's prose_bound)
    prose_bound: tuple[tuple[str, str], ...] = ()


class InfraUnavailable(Exception):
    """Raised by a namespace that cannot serve a device for a reason of the grader's (CUDA could not
    be initialised in the worker): the case is reported `not_run`, never failed. The message is the
    reason, one line."""


class StudentNamespace(Protocol):
    def resolve(self, name: str, device: str) -> object:
        """A callable proxy for a student function, a plain value for data, None if undefined.
        Raises InfraUnavailable when this namespace cannot run anything on `device`."""

    def alive(self) -> bool: ...


def case_seed(seed: int, test: HiddenTestCase, device: str) -> int:
    """Fresh inputs per submission: derive each test's generator seed from the submission seed."""
    digest = hashlib.sha256(f"{seed}:{test.question}:{test.name}:{device}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def not_run(test: HiddenTestCase, device: str, reason: str) -> TestReport:
    """A case the grader could not run, for a reason of its own (`reason`, one line): 0 of 0 points,
    so it never costs or grants anything, and it is not the student's failure."""
    return TestReport(question=test.question, name=test.name, device=device, hidden=test.hidden,
                      max_score=0.0, score=0.0, status="not_run", infra_reason=reason[:400],
                      message=f"not run: {reason[:400]}")


def classify(test: HiddenTestCase, device: str, points: float, exc: BaseException | None,
             duration: float, submission: SubmissionInfo | None = None) -> TestReport:
    """The one place an outcome becomes a report."""
    base: dict[str, Any] = dict(question=test.question, name=test.name, device=device, hidden=test.hidden,
                                max_score=points, duration_s=round(duration, 4))
    if exc is None:
        return TestReport(**base, score=points, status="passed")
    if isinstance(exc, InfraUnavailable):
        return not_run(test, device, str(exc) or "the grader could not run this case")
    if not isinstance(exc, Misconception) and isinstance(exc, (AssertionError, StudentCodeError)):
        # a function or method returned where a value is due, in a test that let the sandbox's refusal
        # through (or quoted it): named from the type the refusal names, whichever test met it
        try:
            named = callable_not_called(exc, f"{test.student_names[0]}(...)" if len(test.student_names) == 1
                                        else "your function")
            exc = named or (crash_words(exc, submission.cells, dict(submission.cell_errors)) if submission is not None
                            else crash_words(exc)) or exc
        except Exception:  # noqa: BLE001 - naming only words a failure: one it cannot read stays as it was, never
            pass            # the grader's failure (a student's source nested past the recursion limit: round 67)
    misconception = exc.key if isinstance(exc, Misconception) else None
    if isinstance(exc, (AssertionError, StudentCodeError, WorkerTimeout, WorkerCrashed)):
        message = str(exc) or "assertion failed"
    else:
        # An unexpected error inside the test while handling the student's values (for example a
        # list where a tensor was due). Name its type; never show a traceback of hidden code.
        message = too_large_words(exc) or f"{type(exc).__name__}: {exc}"
    if submission is not None and ("not answered yet" in message or "raised NotImplementedError" in message):
        message = stub_below(test, submission) + message
    return TestReport(**base, score=0.0, status="failed", message=message[:1000],
                      misconception=misconception)


# Python's refusals of an int too large to print (past sys.int_max_str_digits, 4300 digits) or to make a float of
# (past about 1.8e308). Hidden tests and the reference hold no such number: a test meets one only in the student's value
# (such an int crosses the sandbox: round 54), where a check formats it or compares it as a float (red-team round 86).
_TOO_LARGE = re.compile(r"^(?:Exceeds the limit \(\d+ digits\) for integer string conversion|int too large to convert to "
                        r"float|integer division result too large for a float)")


def too_large_words(exc: BaseException) -> str | None:
    """What to tell the student where a test stopped on an int of theirs too large to print or to make a float of,
    else None."""
    if type(exc) not in (ValueError, OverflowError) or not _TOO_LARGE.match(str(exc)):
        return None
    return ("your answer holds a whole number too large to print or to compare as a float (more than 4300 digits, or "
            "past about 1.8e308): far too large to be right: check the formula and how Python groups its operators")


def stub_below(test: HiddenTestCase, submission: SubmissionInfo) -> str:
    """Where a test's function is None because the template's stub was run after the student's def (a stub cell
    duplicated, or left below the answer: source_checks.stub_replaces), a sentence that says so, else ""."""
    from autograder.grading.source_checks import stub_replaces
    from autograder.sandbox.messages import jupyter_cell
    for name in test.student_names:
        try:
            found = stub_replaces(submission.cells, name)
        except Exception:  # noqa: BLE001 - naming only words a failure (a source past the recursion limit)
            found = None
        if found is not None:
            return (f"`{name}` is defined twice: {jupyter_cell(found[0])} is the template's empty stub, and running it "
                    f"replaced your def in {jupyter_cell(found[1])}: delete the stub's cell. ")
    return ""


# "Fails only on the GPU": what the error says -> what to tell the student. Measured on 85 real
# student implementations graded on an H200 (issue 12): 4 failed only on CUDA, for these reasons.
GPU_ONLY_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (   # first match wins
    (("legacy constructor", "FloatTensor", "LongTensor", "DoubleTensor", "ByteTensor", "BoolTensor"),
     "legacy constructors such as torch.FloatTensor(...) always build CPU tensors: use torch.tensor / "
     "torch.empty with device=... instead"),
    (("numpy", "to host memory"),
     "`.numpy()` (and numpy functions) work only on CPU tensors: stay with torch operations"),
    (("same device", "another device", "different device", "device type"),
     "a tensor made inside the function lives on the CPU while the inputs are on the GPU: create it "
     "on the inputs' device (torch.zeros(..., device=Q.device), torch.ones_like(scores), Q.new_full(...))"),
)


def gpu_only_hint(message: str) -> str:
    low = message.lower()
    for needles, hint in GPU_ONLY_HINTS:
        if any(n.lower() in low for n in needles):
            return hint
    return ("look for tensors created without device=..., and for calls that only work on the CPU "
            "(.numpy(), numpy or Python math on tensors, legacy constructors)")


KNOCK_ON = "the worker had already stopped before this test"


def name_gpu_only_failures(reports: Sequence[TestReport]) -> list[TestReport]:
    """A per-device case that passed on the CPU and failed on CUDA fails because of the device: its
    CUDA report names the misconception `gpu_only_failure` (replacing a variant the failure may have
    matched by accident: the CPU run proves the logic right) and says what to look for. A case that
    failed only because an earlier one had stopped the worker says nothing about the device."""
    passed_on_cpu = {(r.question, r.name) for r in reports if r.device == "cpu" and r.status == "passed"}
    out = []
    for r in reports:
        if (r.device == "cuda" and r.status == "failed" and (r.question, r.name) in passed_on_cpu
                and not r.message.startswith(KNOCK_ON)):
            r = r.model_copy(update={
                "misconception": "gpu_only_failure",
                "message": (f"{r.message}\nIt passes on the CPU and fails on the GPU: "
                            f"{gpu_only_hint(r.message)}.")[:1200]})
        out.append(r)
    return out


def runaway_reason(namespace: StudentNamespace, test: HiddenTestCase) -> BaseException | None:
    """The timeout of an earlier call into one of the functions `test` takes, if any: such a test
    fails at once with that reason (RestartingNamespace remembers runaways; other namespaces have
    none)."""
    reason_of = getattr(namespace, "runaway_reason", None)
    if reason_of is None:
        return None
    for name in test.student_names:
        reason = reason_of(name)
        if reason is not None:
            return reason
    return None


# Modules whose frames are the worker's protocol: a test is never stopped there, between a request and its reply
# (the session would read the next test's reply for this one); the budget waits for the test to leave them.
_IO_MODULES = ("autograder.sandbox.", "autograder.grading.namespaces")


def _in_worker_io(frame: FrameType | None) -> bool:
    """Whether the stack is inside the worker's protocol, or inside a context manager's __enter__ or __exit__
    (`torch.no_grad().__enter__` turns grad mode off and returns: stopped between the two, its __exit__ would never
    run and grad mode would stay off for later tests: red-team round 49)."""
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).startswith(_IO_MODULES) or \
                frame.f_code.co_name in ("__enter__", "__exit__", "__aenter__", "__aexit__"):
            return True
        frame = frame.f_back
    return False


@contextmanager
def cpu_budget(seconds: float, until: float | None = None) -> Iterator[None]:
    """Raise CheckTooSlow in the block once this process has spent `seconds` of CPU in it (ITIMER_PROF: this
    process's CPU, so the waits for the worker, whose CPU is its own, do not count). A hidden test's checks run
    on student values in the trusted process: a regular expression that backtracks on a string of megabytes, or
    any other check made slow on purpose, costs the test, not the batch (red-team round 48). The exception is
    raised between two Python instructions, never inside the worker's protocol (_in_worker_io). Only in the main
    thread (where signals are handled); elsewhere, or with 0 seconds, no budget. `until` (time.monotonic()): also
    stop there, looked at every UNTIL_TICK_S of CPU (a loaded host gives a check less CPU than wall time: the
    submission's deadline is a wall-clock one, red-team round 78)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    armed = True
    began = time.process_time()

    def next_look() -> float:   # CPU seconds to the next look: the budget's end, or sooner to see the clock
        left = max(seconds - (time.process_time() - began), 0.001)
        return left if until is None else min(left, UNTIL_TICK_S)

    def over_budget(_signum: int, frame: FrameType | None) -> None:
        if not armed:
            return
        if time.process_time() - began < seconds and (until is None or time.monotonic() < until):
            signal.setitimer(signal.ITIMER_PROF, next_look())
            return
        if _in_worker_io(frame):
            signal.setitimer(signal.ITIMER_PROF, 0.05)   # try again once the test is back in its own code
            return
        raise CheckTooSlow(seconds)

    previous = signal.signal(signal.SIGPROF, over_budget)
    grad, dtype, filters = torch.is_grad_enabled(), torch.get_default_dtype(), list(warnings.filters)
    signal.setitimer(signal.ITIMER_PROF, next_look())
    try:
        yield
    finally:
        armed = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        # the process-wide state a test (stopped anywhere, or careless) may leave changed, as it was before it
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)
        if warnings.filters != filters:
            warnings.filters[:] = filters  # type: ignore[index]  # a list at run time
            getattr(warnings, "_filters_mutated", lambda: None)()     # what catch_warnings calls on its way out


def run_tests(tests: Sequence[HiddenTestCase], namespace: StudentNamespace, *, seed: int,
              devices: Iterable[str] = ("cpu",), submission: SubmissionInfo | None = None,
              gpu_points: bool = False, misconceptions: Mapping[str, str] | None = None,
              references: Mapping[str, Any] | None = None, check_cpu_s: float = 30.0) -> list[TestReport]:
    """Run every test on every device it takes. A namespace that cannot serve a device (its worker
    has no CUDA) raises InfraUnavailable from `resolve`: those cases are `not_run`.

    `misconceptions` (the assignment's `hidden/_misconceptions.py`) gives each named mistake its
    text, which travels in the report: outputs read it there, whenever and wherever they run.

    Shrinking (autograder/grading/shrink.py) spends the namespace's budget for the submission
    (RestartingNamespace.shrink_budget; a fresh default one for other namespaces), a share per test.
    A rule test's points wait for the value cases it is earned with (withhold_unearned).

    `references` (the notebook's name -> the reference's function or value of that name): a failure that
    names nothing, where one edit of the student's function makes every call the tests made of it right (or
    one edit of the cell assigning a value it takes makes its tests pass), is then named by that edit
    (repair.name_by_one_edit), after every test has run.

    `check_cpu_s`: each test's own CPU in this process (cpu_budget; the course's limits.check_cpu_s)."""
    devices = list(devices)
    budget = getattr(namespace, "shrink_budget", None)
    with current_budget(budget if isinstance(budget, ShrinkBudget) else ShrinkBudget()) as budget:
        runs, reports, charges = _run_each(tests, namespace, seed, devices, submission, gpu_points, budget,
                                           check_cpu_s)
    reports = hold_excuses(runs, reports, charges)
    reports = withhold_unearned(name_gpu_only_failures(reports), tests)
    left = _seconds_left(namespace)
    if references and submission is not None and (left is None or left > 0):   # feedback only: not past the deadline
        with timers.span("one-edit search"):
            by_key = {(t.question, t.name): t for t in tests}
            try:
                reports = name_by_one_edit(
                    reports, namespace, references, submission.cells,
                    lambda key, swap: key in by_key and passes_with(by_key[key], seed, namespace, submission, swap),
                    {key: t.student_names for key, t in by_key.items()}, dict(submission.cell_errors))
            except Exception as e:  # noqa: BLE001 - feedback only: a fault of the search never costs the grade
                timers.count(f"one-edit search failed: {type(e).__name__}")
    if submission is not None:
        reports = _global_reads(reports, tests, namespace, submission, devices)
    if references and submission is not None:
        reports = _length_one(reports, namespace, references, submission)
    return [describe_misconception(r, misconceptions or {}) for r in reports]


def _length_one(reports: list[TestReport], namespace: StudentNamespace, references: Mapping[str, Any],
                submission: SubmissionInfo) -> list[TestReport]:
    """length_one.name_length_one: a failure still unnamed whose first call had a length-1 axis, where the student's
    function is right on the same input widened. Its calls into the worker run within LENGTH_ONE_S for the whole
    pass, capped by the submission's deadline; a fault of the naming never costs the grade."""
    from autograder.sandbox.session import optional_calls
    record = getattr(namespace, "recorded", None)
    call_copy = getattr(namespace, "call_copy", None)
    until = _feedback_until(namespace, LENGTH_ONE_S)
    if record is None or call_copy is None or not record.calls or time.monotonic() >= until:
        return reports

    def call_student(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with optional_calls(until):
            return call_copy(name, args, kwargs)
    with timers.span("length-one replays"):
        try:
            return name_length_one(reports, record.calls, references, submission.cells, call_student,
                                   lambda: time.monotonic() < until, dict(submission.cell_errors))
        except Exception as e:  # noqa: BLE001 - feedback only
            timers.count(f"length-one replays failed: {type(e).__name__}")
            return reports


LENGTH_ONE_S = 2.0     # seconds the widened calls of the student's functions may take, all together (length_one)


def _global_reads(reports: list[TestReport], tests: Sequence[HiddenTestCase], namespace: StudentNamespace,
                  submission: SubmissionInfo, devices: list[str]) -> list[TestReport]:
    """global_reads.name_global_reads: a failure still unnamed whose function reads a notebook global in the place of
    its own name. The worker's value of that global is read (to tell data from a function) only before the deadline
    and within GLOBAL_READS_S for the whole pass (a notebook with many such globals had 2 s
    for each); a fault of the naming never costs the grade."""
    from autograder.sandbox.session import optional_calls
    until = _feedback_until(namespace, GLOBAL_READS_S)
    device = devices[0] if devices else "cpu"

    def resolve(name: str) -> object:
        if time.monotonic() >= until:
            return None         # told from the source alone, as past the deadline
        with optional_calls(until):
            return namespace.resolve(name, device)
    with timers.span("global reads"):
        try:
            return name_global_reads(reports, tests, submission.cells, resolve)
        except Exception as e:  # noqa: BLE001 - feedback only
            timers.count(f"global reads failed: {type(e).__name__}")
            return reports


GLOBAL_READS_S = 2.0   # seconds the reads of globals' values in the worker may take, all together (global_reads)


def _feedback_until(namespace: StudentNamespace, budget_s: float) -> float:
    """The time.monotonic() a naming pass after the tests must end by: its own budget, capped by what is left of the
    submission's deadline (already past: now)."""
    left = _seconds_left(namespace)
    return time.monotonic() + (budget_s if left is None else max(0.0, min(budget_s, left)))


# Seconds a hidden test's own checks may still run past the submission's deadline: a test that would start later
# fails at once, so the whole grade ends within about this of submission_timeout_s.
SPENT_GRACE_S = 1.0
# CPU seconds between two looks at the clock by a check's budget that has a deadline (cpu_budget's `until`)
UNTIL_TICK_S = 0.25


def _seconds_left(namespace: StudentNamespace) -> float | None:
    """Seconds until the submission's deadline (its worker session's: every worker of the submission keeps the
    first one's), or None for a namespace without one (a local one in the tests)."""
    deadline = getattr(getattr(namespace, "session", None), "deadline", None)
    return deadline - time.monotonic() if isinstance(deadline, (int, float)) else None


def _run_each(tests: Sequence[HiddenTestCase], namespace: StudentNamespace, seed: int, devices: list[str],
              submission: SubmissionInfo | None, gpu_points: bool, budget: ShrinkBudget, check_cpu_s: float
              ) -> tuple[list[tuple[HiddenTestCase, str]], list[TestReport], list[ChargeRecord]]:
    """(the cases run, their reports, what charged_in_parts recorded in each)."""
    reports: list[TestReport] = []
    charges: list[ChargeRecord] = []
    # the names every case resolves, in the order it does (its parameters the runner does not fill):
    # the worker's session asks for the next ones in the round trip of the one it must ask for
    filled = ("device", "rng", "submission", "env")
    runs = [(test, device) for test in tests for device in (devices if test.per_device else ["cpu"])]
    names = [p for test, _device in runs for p in test.params if p not in filled]   # all cases, in order
    expect = getattr(getattr(namespace, "session", None), "expect", None)
    first = 0                                   # where the current case's names start in `names`
    for test, device in runs:
        if callable(expect):
            expect(names[first:])
        first += sum(p not in filled for p in test.params)
        budget.new_test()
        begin_test = getattr(namespace, "begin_test", None)
        if callable(begin_test):
            begin_test((test.question, test.name))
        # CUDA cases count for nobody unless the course says otherwise: the maximum must not
        # depend on whether the grading machine has a GPU.
        points = test.points if (device == "cpu" or gpu_points) else 0.0
        start = time.perf_counter()
        started = time.monotonic() if timers.ON else 0.0
        exc: BaseException | None = runaway_reason(namespace, test)
        charge = ChargeRecord()
        left = _seconds_left(namespace)
        spent = WorkerTimeout("grading this submission", float(getattr(getattr(namespace, "policy", None),
                                                                       "submission_timeout_s", 0.0)))
        if exc is None and left is not None and left <= -SPENT_GRACE_S:
            exc = spent   # the submission's whole time is spent: its checks would run here past it (red-team round 78)
        if exc is not None:
            pass  # it takes a function that ran away before: fails at once, nothing restarted
        elif test.student_names and not namespace.alive():
            exc = WorkerCrashed(KNOCK_ON)
        else:
            try:
                # never past the submission's own deadline by more than SPENT_GRACE_S
                with cpu_budget(check_cpu_s, None if left is None else time.monotonic() + left + SPENT_GRACE_S):
                    kwargs = test_arguments(test, device, seed, namespace, submission)
                    missing = [p for p in test.student_names if kwargs[p] is None and p not in test.optional]
                    if missing:
                        # a test may say why a name is missing (a cell that crashed on a mistake one of the
                        # notebook's functions shows): on_missing(name, resolve) raises a named failure or
                        # returns; resolve(other) is that name in the student's namespace (None if undefined).
                        # A hook with a `crash` parameter also gets the error of the cell that assigns the name
                        # ("RuntimeError: mat1 and mat2 shapes ...", or "" where no such cell stopped)
                        on_missing = getattr(test.func, "on_missing", None)
                        if callable(on_missing):
                            wants = inspect.signature(on_missing).parameters
                            extra: dict[str, object] = {}
                            if "crash" in wants:
                                extra["crash"] = cell_crash(missing[0], submission)
                            if "submission" in wants:      # a hook that reads the cell's source (parsed, never run)
                                extra["submission"] = submission
                            on_missing(missing[0], lambda other, d=device: namespace.resolve(other, d), **extra)
                        raise unbound_answer(missing[0], submission) or AssertionError(missing_answer(missing[0],
                                                                                                      submission))
                    with charges_recorded(submission) as charge:
                        test.func(**kwargs)
            except NotAnswered as e:
                exc = left_unanswered(e, submission)
            except Exception as e:  # noqa: BLE001 - every failure becomes a report
                now_left = _seconds_left(namespace)
                exc = spent if isinstance(e, CheckTooSlow) and now_left is not None and now_left <= 0 \
                    else e   # stopped by the submission's deadline, not by its own budget: said so
        reports.append(classify(test, device, points, exc, time.perf_counter() - start, submission))
        charges.append(charge)
        timers.add(f"test {test.question} {test.name}", started, time.monotonic())
    return runs, reports, charges


def test_arguments(test: HiddenTestCase, device: str, seed: int, namespace: StudentNamespace,
                   submission: SubmissionInfo | None, swap: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What `test` is called with: the runner's own (device, a generator seeded for this case, the submission)
    and each student name resolved (`swap` {name: other}: `other` resolved where the test takes `name`)."""
    kwargs: dict[str, Any] = {}
    for p in test.params:
        if p == "device":
            kwargs[p] = device
        elif p == "rng":
            kwargs[p] = torch.Generator().manual_seed(case_seed(seed, test, device))
        elif p == "submission":
            kwargs[p] = submission or SubmissionInfo(source="")
        elif p == "env":
            kwargs[p] = {}
        else:
            asked = swap.get(p, p) if swap is not None else p
            try:
                kwargs[p] = namespace.resolve(asked, device)
            except NotAnswered:   # an optional name left as the template's `...`
                if p not in test.optional:
                    raise
                kwargs[p] = None
            except StudentCodeError:
                # an optional name whose value the sandbox cannot send (an int-keyed dict, an object, an int past 2^16
                # bits) is one the grader does not have, as an undefined one: its own tests say why; a test that reads it
                # only to name a mistake must not fail a right answer for it (red-team round 86: score_madds, weights3)
                if p not in test.optional:
                    raise
                kwargs[p] = None
    return kwargs


def passes_with(test: HiddenTestCase, seed: int, namespace: StudentNamespace, submission: SubmissionInfo | None,
                swap: Mapping[str, str]) -> bool:
    """Whether `test` passes on the CPU, on its own inputs, with the student's name `other` where it takes
    `name`, for each name: other of `swap` (repair.py's edited copies): no shrinking, every error a no."""
    try:
        kwargs = test_arguments(test, "cpu", seed, namespace, submission, swap=swap)
        if any(kwargs[p] is None for p in test.student_names if p not in test.optional):
            return False
        with current_budget(ShrinkBudget(0.0, 0.0)), charges_recorded(submission):
            test.func(**kwargs)
    except Exception:  # noqa: BLE001 - any failure of the test is a no
        return False
    return True


def _crashed_cell(name: str, submission: SubmissionInfo | None) -> tuple[int, str] | None:
    """(index, error line) of the first cell that assigns `name` and stopped with an error, or None."""
    from autograder.grading.source_checks import cells_assigning
    errors = dict(submission.cell_errors) if submission is not None else {}
    if errors and submission is not None:
        for index in cells_assigning(submission.cells, name):
            if index in errors:
                return index, errors[index]
    return None


def cell_crash(name: str, submission: SubmissionInfo | None) -> str:
    """The error of the cell that should have defined `name` ("" where none stopped): for on_missing hooks."""
    found = _crashed_cell(name, submission)
    return found[1] if found is not None else ""


def unbound_answer(name: str, submission: SubmissionInfo | None) -> Misconception | None:
    """Why `name` is undefined where the source shows it (source_checks.unbound_answer: an annotation that binds
    nothing, a comparison where = was meant, R's arrow `name <- value`, one near name bound), as the key the
    student reads."""
    from autograder.grading.source_checks import left_none, left_none_call, left_none_lookup
    from autograder.grading.source_checks import unbound_answer as unbound
    found = unbound(submission.cells, name) if submission is not None else None
    if found is None:
        statement = left_none(submission.cells, name) if submission is not None else None
        if statement is not None:
            return Misconception("answer_left_empty", f"`{name}` is None: the notebook has `{statement}`: "
                                 + describe("answer_left_empty"))
        bound = left_none_call(submission.cells, name) if submission is not None else None
        if bound is not None:
            return Misconception("answer_from_none_call", f"`{name}` is None: the notebook has `{bound[0]}`, and "
                                 f"`{bound[1]}(...)` returns None: " + describe("answer_from_none_call"))
        # a look-up that missed: only where no cell that assigns the name stopped (then it is undefined, not None)
        lookup = left_none_lookup(submission.cells, name) if submission is not None else None
        if lookup is not None and _crashed_cell(name, submission) is None:
            return Misconception("answer_lookup_missed", f"`{name}` is None: the notebook has `{lookup}`, and .get "
                                 "found no such key: " + describe("answer_lookup_missed"))
        return None
    kind, shown = found
    shown, odd = spelt_out(shown) if kind == "misspelled" else (shown, "")
    key = {"annotated": "answer_annotated_not_assigned", "compared": "answer_compared_not_assigned",
           "arrow": "answer_r_arrow_not_assigned", "misspelled": "answer_name_misspelled",
           "local": "answer_bound_in_function"}[kind]
    said = {"annotated": f"the notebook has `{shown}`, an annotation", "compared": f"the notebook has `{shown}`, a "
            "comparison", "arrow": f"the notebook has `{shown}`, which Python reads as the comparison "
            f"`{shown.replace('<-', '< -', 1)}`", "misspelled": f"and the notebook binds `{shown}`{odd}",
            "local": f"the notebook binds it only inside a function, `{shown}`"}[kind]
    return Misconception(key, f"`{name}` is not defined{',' if kind == 'misspelled' else ':'} {said}: " + describe(key))


def spelt_out(name: str) -> tuple[str, str]:
    """A name the notebook binds in place of an asked one, as the student must read it, and a note naming what is
    odd in it: each character that is not ASCII written as its code point, the first two named. `cаusal_mask` (a
    Cyrillic а) or `causal_mask<U+034F>` (a joiner drawn as nothing) was shown as itself: "`causal_mask` is not
    defined, and the notebook binds `causal_mask`", a diagnosis that reads as false and hides the one letter to
    retype (red-team round 99)."""
    if name.isascii():
        return name, ""
    odd = list(dict.fromkeys(c for c in name if not c.isascii()))
    said = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in odd[:2])
    written = escape_non_ascii(name)
    verb = "is not an ASCII character" if len(odd) == 1 else "are not ASCII characters"
    return written, f" ({said}{' and more' if len(odd) > 2 else ''} {verb})"


def left_unanswered(error: NotAnswered, submission: SubmissionInfo | None) -> Misconception:
    """A name still the template's `...`, as the key the student reads: answer_compared_not_assigned where the
    notebook has `name == value` as a statement (== typed for =, so the template's `...` stayed), else
    answer_left_empty (the question is not answered: what the message says, now grouped as one mistake)."""
    from autograder.grading.source_checks import arrow_answer, compared_answer
    arrow = arrow_answer(submission.cells, error.name) if submission is not None else None
    if arrow is not None:   # R's `name <- "C"`: the comparison ... < -"C" raised, the template's `...` stayed
        read = arrow.replace("<-", "< -", 1)
        return Misconception("answer_r_arrow_not_assigned", f"`{error.name}` is still the template's `...`: the "
                             f"notebook has `{arrow}`, which Python reads as the comparison `{read}`: "
                             + describe("answer_r_arrow_not_assigned"))
    shown = compared_answer(submission.cells, error.name) if submission is not None else None
    if shown is not None:
        return Misconception("answer_compared_not_assigned", f"`{error.name}` is still the template's `...`: the "
                             f"notebook has `{shown}`, a comparison, where = assigns: "
                             + describe("answer_compared_not_assigned"))
    return Misconception("answer_left_empty", str(error))


def out_of_order(index: int, submission: SubmissionInfo | None) -> str:
    """What a stopped cell read that a cell below it defines (source_checks.defined_below), as a sentence to add to its
    error ("" where nothing): the grader runs the cells once, in order, so code that worked when run out of order
    stops here."""
    from autograder.grading.source_checks import defined_below
    from autograder.sandbox.messages import jupyter_cell
    try:
        found = defined_below(submission.cells, index) if submission is not None else None
    except Exception:  # noqa: BLE001 - naming only words a failure: never the grader's failure (round 67)
        found = None
    if found is None:
        return ""
    return (f". It uses `{found[0]}`, which {jupyter_cell(found[1])}, below it, defines: the grader runs every cell once, "
            "from the top (as Restart & Run All does), so define a function above the cells that use it")


def missing_answer(name: str, submission: SubmissionInfo | None) -> str:
    """Why `name` is not there to grade: where a cell that assigns it stopped with an error, that error (its
    words may name the slip: runner.classify tries crash_words on this message), else the plain request."""
    from autograder.sandbox.messages import jupyter_cell
    found = _crashed_cell(name, submission)
    if found is not None:
        return (f"`{name}` is not defined: the cell that assigns it ({jupyter_cell(found[0])}) stopped, "
                f"your code raised {found[1]}" + out_of_order(found[0], submission))
    kind = dict(submission.prose_bound).get(name) if submission is not None else None
    if kind is not None:
        return (f"`{name}` is not defined in your notebook: a {kind} cell defines it, and only code cells run. If that is "
                "your answer, put it in a code cell (change the cell's type to Code) and run it")
    return f"`{name}` is not defined in your notebook (or is None): run every cell, keep the given names"


def hold_excuses(runs: Sequence[tuple[HiddenTestCase, str]], reports: Sequence[TestReport],
                 charges: Sequence[ChargeRecord]) -> list[TestReport]:
    """One mistake, one charge, and no charge dodged: a test that passed because charged_in_parts blamed
    an earlier answer (the student's composition wrong only through their earlier functions) keeps its
    points only where a test of one of those functions that composes nothing failed too; else the
    failure it let through is its own. The evidence for the excuse came from the student's functions,
    which can tell the grader's re-run of a composition apart (red-team round 25); the earlier answer's
    own tests cannot be told apart from any other call."""
    charged: set[str] = set()
    for (test, _device), report, charge in zip(runs, reports, charges):
        if report.status == "failed" and not charge.composes:
            charged.update(test.student_names)
    out = []
    for (test, device), report, charge in zip(runs, reports, charges):
        if report.status == "passed":
            unproven = next((f for blamed, f in charge.excuses if not charged & set(blamed)), None)
            if unproven is not None:
                held = charge.submission if isinstance(charge.submission, SubmissionInfo) else None
                report = classify(test, device, report.max_score, unproven, report.duration_s, held)
        out.append(report)
    return out


def withhold_unearned(reports: Sequence[TestReport], tests: Sequence[HiddenTestCase]) -> list[TestReport]:
    """A rule test's points are earned by working code: a rule test that passed while a value case it
    is earned with (HiddenTestCase.earned_with) failed, on the same device or, where that case runs
    on the CPU only, there, scores 0 and says why. A value case the grader could not run (not_run)
    withholds nothing: that is the grader's problem. A rule test that failed keeps its own message."""
    earned_with = {t.key: t.earned_with for t in tests if t.earned_with}
    names = {t.key: t.student_names for t in tests}
    status = {(f"{r.question}:{r.name}", r.device or "cpu"): r.status for r in reports}
    out = []
    for r in reports:
        key, device = f"{r.question}:{r.name}", r.device or "cpu"
        failed = [n for n in earned_with.get(key, ())
                  if status.get((n, device), status.get((n, "cpu"))) == "failed"]
        if r.status == "failed" and not r.misconception and TIMING_UNVERIFIED in r.message and not failed:
            # its own value case passed, on other inputs than the timed ones: any failed test of its function
            failed = [k for k, own in names.items() if k != key and set(own) & set(names.get(key, ()))
                      and status.get((k, device), status.get((k, "cpu"))) == "failed"][:1]
        if r.status == "failed" and failed and not r.misconception and TIMING_UNVERIFIED in r.message:
            # the rule could not be checked because the answers are wrong: that is the value case's failure,
            # said there; this one is withheld by it, as a passed rule would be
            r = r.model_copy(update={"withheld_by": failed[0], "message": (
                f"{r.message} ({failed[0].replace(':', ': ', 1)} fails)")[:1000]})
        elif r.status == "passed" and failed:
            own = names.get(key, ())
            fn = next((n for n in names.get(failed[0], ()) if n in own), None) or (own or ("your function",))[0]
            earned = {0.0: "it is", 1.0: "its point is"}.get(r.max_score, f"its {r.max_score:g} points are")
            r = r.model_copy(update={
                "score": 0.0, "status": "failed", "withheld_by": failed[0],
                "message": (f"the rule holds, but {earned} earned once {fn} gives right values "
                            f"({failed[0].replace(':', ': ', 1)} fails)")})
        out.append(r)
    return out


def describe_misconception(report: TestReport, texts: Mapping[str, str]) -> TestReport:
    """Copy the text of the report's misconception into it: the assignment's own first, then the
    engine's (forbidden_api, not_vectorised, gpu_only_failure, ...)."""
    key = report.misconception
    if not key or report.misconception_text:
        return report
    text = texts.get(key) or describe(key)
    return report.model_copy(update={"misconception_text": text})


class TrustedProxy:
    """Same interface as the sandbox's WorkerProxy, for trusted code only (the reference)."""

    def __init__(self, fn: Callable[..., object], device: str, forbidden: Sequence[str] = (),
                 name: str | None = None) -> None:
        self._fn = fn
        self._name = name               # the student name it stands for, where a namespace resolved it
        self._device = device
        self._forbidden = tuple(forbidden)
        self.last_devices: list[str] = []
        self.last_changed_inputs: list[str] = []

    def _run(self, args, kwargs, grad_wrt=None, grad_output=None):
        from autograder.sandbox.calls import invoke, to_device
        self.last_changed_inputs = []
        try:
            out, self.last_devices = invoke(self._fn, args, kwargs, self._device, grad_wrt, grad_output,
                                           self._forbidden, self.last_changed_inputs)
        except Exception as e:  # noqa: BLE001 - mirrors the worker's error reply
            raise StudentCodeError(type(e).__name__, str(e)) from None
        return to_device(out, "cpu")

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs)

    def call_with_grad(self, *args, grad_wrt=(0, 1, 2), grad_output=None, **kwargs):
        return self._run(args, kwargs, list(grad_wrt), grad_output)

    def time_fresh(self, specs, kwargs=None, *, seed: int, repeat: int = 10):
        """Same contract as WorkerProxy.time_fresh, timed with this thread's CPU clock."""
        from autograder.sandbox.calls import run_fresh_calls
        start = time.thread_time()
        try:
            total = run_fresh_calls(self._fn, specs, dict(kwargs or {}), seed, repeat, self._device,
                                    self._forbidden)
        except Exception as e:  # noqa: BLE001 - mirrors the worker's error reply
            raise StudentCodeError(type(e).__name__, str(e)) from None
        return time.thread_time() - start, total


class TrustedNamespace:
    """Resolve names from a trusted dict (the reference module), for testing the hidden tests."""

    def __init__(self, values: dict[str, object], forbidden: Sequence[str] = ()) -> None:
        self._values = values
        self._forbidden = tuple(forbidden)

    def resolve(self, name: str, device: str) -> object:
        value = self._values.get(name)
        if value is Ellipsis:
            raise NotAnswered(name)
        return TrustedProxy(value, device, self._forbidden, name) if callable(value) else value

    def alive(self) -> bool:
        return True
