"""Run hidden tests in the trusted process against a student namespace, classify each outcome once."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

import torch

from autograder.checks import Misconception
from autograder.errors import StudentCodeError, WorkerCrashed, WorkerTimeout
from autograder.hidden import HiddenTestCase
from autograder.results import TestReport


@dataclass(frozen=True)
class SubmissionInfo:
    """What a test may know about the submission besides its functions: its source, for static checks.
    `cells` are the code cells as intake read them (each parsed on its own by source_checks)."""
    source: str
    path: str = ""
    cells: tuple[str, ...] = ()


class StudentNamespace(Protocol):
    def resolve(self, name: str, device: str) -> object:
        """A callable proxy for a student function, a plain value for data, None if undefined."""

    def alive(self) -> bool: ...


def test_seed(seed: int, test: HiddenTestCase, device: str) -> int:
    """Fresh inputs per submission: derive each test's generator seed from the submission seed."""
    digest = hashlib.sha256(f"{seed}:{test.question}:{test.name}:{device}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def classify(test: HiddenTestCase, device: str, points: float, exc: BaseException | None,
             duration: float) -> TestReport:
    """The one place an outcome becomes a report."""
    base = dict(question=test.question, name=test.name, device=device, hidden=test.hidden,
                max_score=points, duration_s=round(duration, 4))
    if exc is None:
        return TestReport(**base, score=points, status="passed")
    misconception = exc.key if isinstance(exc, Misconception) else None
    if isinstance(exc, (AssertionError, StudentCodeError, WorkerTimeout, WorkerCrashed)):
        message = str(exc) or "assertion failed"
    else:
        # An unexpected error inside the test while handling the student's values (for example a
        # list where a tensor was due). Name its type; never show a traceback of hidden code.
        message = f"{type(exc).__name__}: {exc}"
    return TestReport(**base, score=0.0, status="failed", message=message[:1000],
                      misconception=misconception)


def run_tests(tests: Sequence[HiddenTestCase], namespace: StudentNamespace, *, seed: int,
              devices: Iterable[str] = ("cpu",), submission: SubmissionInfo | None = None,
              gpu_points: bool = False) -> list[TestReport]:
    devices = list(devices)
    reports: list[TestReport] = []
    for test in tests:
        for device in (devices if test.per_device else ["cpu"]):
            # CUDA cases count for nobody unless the course says otherwise: the maximum must not
            # depend on whether the grading machine has a GPU.
            points = test.points if (device == "cpu" or gpu_points) else 0.0
            start = time.perf_counter()
            exc: BaseException | None = None
            if not namespace.alive():
                exc = WorkerCrashed("the worker had already stopped before this test")
            else:
                try:
                    kwargs = {}
                    for p in test.params:
                        if p == "device":
                            kwargs[p] = device
                        elif p == "rng":
                            kwargs[p] = torch.Generator().manual_seed(test_seed(seed, test, device))
                        elif p == "submission":
                            kwargs[p] = submission or SubmissionInfo(source="")
                        elif p == "env":
                            kwargs[p] = {}
                        else:
                            kwargs[p] = namespace.resolve(p, device)
                    missing = [p for p in test.student_names if kwargs[p] is None]
                    if missing:
                        raise AssertionError(f"`{missing[0]}` is not defined in your notebook "
                                             "(or is None): run every cell, keep the given names")
                    test.func(**kwargs)
                except Exception as e:  # noqa: BLE001 - every failure becomes a report
                    exc = e
            reports.append(classify(test, device, points, exc, time.perf_counter() - start))
    return reports


class TrustedProxy:
    """Same interface as the sandbox's WorkerProxy, for trusted code only (the reference)."""

    def __init__(self, fn: Callable[..., object], device: str, forbidden: Sequence[str] = ()) -> None:
        self._fn = fn
        self._device = device
        self._forbidden = tuple(forbidden)
        self.last_devices: list[str] = []

    def _run(self, args, kwargs, grad_wrt=None, grad_output=None):
        from autograder.calls import invoke, to_device
        try:
            out, self.last_devices = invoke(self._fn, args, kwargs, self._device, grad_wrt, grad_output,
                                           self._forbidden)
        except Exception as e:  # noqa: BLE001 - mirrors the worker's error reply
            raise StudentCodeError(type(e).__name__, str(e)) from None
        return to_device(out, "cpu")

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs)

    def call_with_grad(self, *args, grad_wrt=(0, 1, 2), grad_output=None, **kwargs):
        return self._run(args, kwargs, list(grad_wrt), grad_output)

    def time_fresh(self, specs, kwargs=None, *, seed: int, repeat: int = 10):
        """Same contract as WorkerProxy.time_fresh, timed with this thread's CPU clock."""
        from autograder.calls import run_fresh_calls
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
        return TrustedProxy(value, device, self._forbidden) if callable(value) else value

    def alive(self) -> bool:
        return True
