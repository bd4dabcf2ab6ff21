"""The one place a submission's result is built, whatever happened to it:

    graded          the notebook ran (or failed to) in a worker and every hidden test was run
    rejected        the file could not be read as a submission (the student's problem)
    worker_failed   the grader could not finish it (a grader process died, a grader error): not the
                    student's problem, never journaled, so a rerun grades it again

Every path gives the same shape: one report per hidden test (a test that was not run is failed with
the reason), `max_score` the assignment's whole maximum, `score` the sum of the reports. Built in
the trusted grader (Grader.grade), in the batch parent when a grader process dies (from the test
list the process announced), and for Gradescope. Torch-free: the batch parent imports it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Literal, Optional, Sequence

from autograder.results import (CellReport, Isolation, ManualAnswer, SandboxRecord, SubmissionResult,
                                TestReport)

Outcome = Literal["graded", "rejected", "worker_failed"]


@dataclass(frozen=True)
class TestSpec:
    """What a result needs to know of one hidden test case: its name and points."""
    question: str
    name: str
    points: float
    hidden: bool = True

    @classmethod
    def of(cls, case: Any) -> "TestSpec":
        return cls(question=str(case.question), name=str(case.name), points=float(case.points),
                   hidden=bool(case.hidden))

    def to_json(self) -> list[Any]:
        return [self.question, self.name, self.points, self.hidden]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "TestSpec":
        question, name, points, hidden = data
        return cls(question=str(question), name=str(name), points=float(points), hidden=bool(hidden))


# Each row of a submission that was not run says only that; the reason is said once, in its message.
NOT_GRADED = "not graded (why is said once, at the top)"


def failed_everything(specs: Iterable[TestSpec], message: str) -> list[TestReport]:
    """One failed report per test, each saying why nothing was run."""
    return [TestReport(question=s.question, name=s.name, device="cpu", hidden=s.hidden,
                       max_score=s.points, score=0.0, status="failed", message=message)
            for s in specs]


def build_result(submission: str, slug: str, *, status: Outcome, seed: int, specs: Sequence[TestSpec],
                 isolation: Optional[Isolation] = None, message: str = "",
                 tests: Optional[list[TestReport]] = None, cells: Sequence[CellReport] = (),
                 manual: Sequence[ManualAnswer] = (), sandbox: Optional[SandboxRecord] = None,
                 infra: Optional[str] = None, elapsed_s: float = 0.0) -> SubmissionResult:
    """A submission's result. `tests` only for `graded` (its reports as run); for the other outcomes
    every test is failed with `message` as the reason and the score is 0."""
    if status == "graded":
        if tests is None:
            raise ValueError("a graded result needs its test reports")
        reports = list(tests)
        score = round(sum(t.score for t in reports), 6)
    else:
        if tests is not None:
            raise ValueError(f"a {status} result has no test reports of its own")
        reports = failed_everything(specs, NOT_GRADED)
        score = 0.0
    extra: dict[str, Any] = {}
    if infra is not None:
        extra["infra"] = infra
    return SubmissionResult(
        submission=submission, assignment=slug, status=status, score=score,
        max_score=round(sum(s.points for s in specs), 6), tests=reports, cells=list(cells),
        manual=list(manual), message=message, seed=int(seed), isolation=isolation, sandbox=sandbox,
        execution_time_s=round(max(0.0, elapsed_s), 3), **extra)
