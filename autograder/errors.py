"""One exceptions module. Grader errors (our fault or the instructor's) and student errors are
different classes: a grader error stops the command with a one-line reason, a student error only
costs the student points."""
from __future__ import annotations


class AutograderError(Exception):
    """Base of everything raised on purpose by this package."""


# --- grader-side: the command cannot do its job -------------------------------------------------
class GraderError(AutograderError):
    """The grader itself cannot proceed (bad config, unreadable assignment). Exit non-zero."""


class ConfigError(GraderError):
    @classmethod
    def from_validation(cls, path: str, key: str, reason: str) -> "ConfigError":
        return cls(f"{path}: bad value at '{key}': {reason}")


class AssignmentNotFound(GraderError):
    pass


# --- student-side: the submission is at fault ---------------------------------------------------
class SubmissionError(AutograderError):
    """The submission cannot be read or run (not a notebook, too large, broken JSON)."""


class StudentCodeError(SubmissionError, AssertionError):
    """The student's function raised inside the sandbox. Carries only strings across the boundary.

    It is an AssertionError so that a hidden test that does not catch it simply fails."""

    def __init__(self, exc_type: str, message: str, traceback: str = "") -> None:
        self.exc_type = (exc_type.splitlines() or [""])[0][:100]
        self.message = message[:500]
        self.traceback = traceback[:4000]
        first_line = (self.message.splitlines() or [""])[0][:200]
        super().__init__(f"your code raised {self.exc_type}: {first_line}")


class WorkerTimeout(SubmissionError, AssertionError):
    def __init__(self, what: str, seconds: float) -> None:
        self.what = what
        self.seconds = seconds
        super().__init__(f"{what} did not finish within {seconds:g} s")


class WorkerCrashed(SubmissionError, AssertionError):
    """The sandboxed worker died or broke the protocol (exit, kill, forged or oversized message)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the sandboxed worker stopped: {reason}")


class ProtocolError(WorkerCrashed):
    pass


class NotAnswered(SubmissionError, AssertionError):
    """A name the tests read is still the template's `...`: the question is not answered yet."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"`{name}` is not answered yet: replace the `...` with your answer and run the cell")

