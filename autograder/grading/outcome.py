"""The one place a submission's result is built, whatever happened to it:

    graded          the notebook ran (or failed to) in a worker and every hidden test was run
    rejected        the file could not be read as a submission (the student's problem)
    worker_failed   the grader could not finish it (a grader process died, a grader error): not the
                    student's problem, never journaled, so a rerun grades it again

Every path gives the same shape: one report per hidden test (a test that was not run is failed with
the reason), `max_score` the assignment's whole maximum, `score` the sum of the reports. Built in
the trusted grader (Grader.grade), in the batch parent when a grader process dies (from the test
list the process announced), and for Gradescope. Each report's `visible` (shown to the student before
grades are published) comes from the specs, so every output reads it from the result. Torch-free: the
batch parent imports it."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Literal, Optional, Sequence

from autograder.errors import ConfigError
from autograder.results import (CellReport, Isolation, ManualAnswer, SandboxRecord, SubmissionResult,
                                TestReport)

Outcome = Literal["graded", "rejected", "worker_failed"]


@dataclass(frozen=True)
class TestSpec:
    """What a result needs to know of one hidden test case: its name, points and who sees it before
    grades are published (`visible`: declared hidden=False, or listed in grading.yml's visible_tests;
    see `visible_specs`)."""
    question: str
    name: str
    points: float
    hidden: bool = True
    visible: bool = False

    @classmethod
    def of(cls, case: Any) -> "TestSpec":
        hidden = bool(case.hidden)
        return cls(question=str(case.question), name=str(case.name), points=float(case.points),
                   hidden=hidden, visible=not hidden)

    def to_json(self) -> list[Any]:
        return [self.question, self.name, self.points, self.hidden, self.visible]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "TestSpec":
        question, name, points, hidden, *rest = data   # 4 items: written before `visible` existed
        return cls(question=str(question), name=str(name), points=float(points), hidden=bool(hidden),
                   visible=bool(rest and rest[0]) or not bool(hidden))


def visible_specs(specs: Iterable[TestSpec], visible_tests: Sequence[str], slug: str) -> list[TestSpec]:
    """`specs` with `visible` set for every test an entry of the assignment's `visible_tests` names: a
    question (`q1`: all its tests) or one test (`q5:test_float32_no_mask`). An entry that names no
    question or test of the assignment is the course's mistake: ConfigError, naming it."""
    specs = list(specs)
    questions: dict[str, list[str]] = {}
    for s in specs:
        questions.setdefault(s.question, []).append(s.name)
    chosen: set[tuple[str, str]] = set()
    where = f"grading.yml: assignments.{slug}.visible_tests"
    for entry in visible_tests:
        question, sep, name = str(entry).strip().partition(":")
        question, name = question.strip(), name.strip()
        if question not in questions:
            known = ", ".join(questions) or "none"
            raise ConfigError(f"{where}: '{entry}' names no question of {slug} (its questions: {known})")
        if not sep:
            chosen.update((question, n) for n in questions[question])
        elif name in questions[question]:
            chosen.add((question, name))
        else:
            raise ConfigError(f"{where}: '{entry}' names no test of {slug} ({question}'s tests: "
                              f"{', '.join(questions[question])})")
    return [replace(s, visible=s.visible or not s.hidden or (s.question, s.name) in chosen) for s in specs]


# Each row of a submission that was not run says only that; the reason is said once, in its message.
NOT_GRADED = "not graded (why is said once, at the top)"


def failed_everything(specs: Iterable[TestSpec], message: str) -> list[TestReport]:
    """One failed report per test, each saying why nothing was run."""
    return [TestReport(question=s.question, name=s.name, device="cpu", hidden=s.hidden, visible=s.visible,
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
        # who sees a report before publication is the spec's (the runner knows only the test file)
        shown = {(s.question, s.name) for s in specs if s.visible}
        reports = [t.model_copy(update={"visible": True}) if not t.visible and (t.question, t.name) in shown
                   else t for t in tests]
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
