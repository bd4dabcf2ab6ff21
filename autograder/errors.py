"""One exceptions module. Grader errors (our fault or the instructor's) and student errors are
different classes: a grader error stops the command with a one-line reason, a student error only
costs the student points."""
from __future__ import annotations

import re
from typing import NamedTuple


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


    def notebook_frames(self) -> list["NotebookFrame"]:
        """The traceback's frames in notebook cells, outermost first (notebook_frames)."""
        return notebook_frames(self.traceback)


class NotebookFrame(NamedTuple):
    """One frame of a student's traceback that lies in a notebook cell: `File "In[3]", line 7, in scaled`."""
    cell: int          # the cell's number as the traceback writes it (In[N]: the notebook's N-th code cell, from 1)
    line: int          # the line in that cell, from 1
    function: str      # the function's name, or "<module>" for the cell's own top level


# The worker writes a cell's code under the file name "In[N]" (sandbox.messages.cell_filename). A traceback is
# student text (the worker formats it): every part of the pattern is bounded.
_NOTEBOOK_FRAME = re.compile(r'File "In\[(\d{1,9})\]", line (\d{1,7}), in ([A-Za-z_]\w{0,60}|<module>)')


def notebook_frames(traceback: str) -> list[NotebookFrame]:
    """The frames of a formatted traceback that lie in notebook cells, outermost first: the last one is where
    the student's own code was when it raised."""
    return [NotebookFrame(int(cell), int(line), function)
            for cell, line, function in _NOTEBOOK_FRAME.findall(traceback[:4000])]


class CheckTooSlow(SubmissionError, AssertionError):
    """A hidden test's own work in the trusted process (its checks and diagnoses of what the student's code gave
    it, not the calls into that code) ran past its CPU budget: a value built to make a check slow (a string of
    megabytes that a pattern backtracks on). The test fails, with these words; an ordinary answer is nowhere near."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"the grader's checks of this test spent over {seconds:g} s of CPU on what your code gave "
                         "them (an answer far longer or larger than the question asks for?), so it failed: if your "
                         "answer is an ordinary one, tell your instructor")


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

