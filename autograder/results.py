"""Reports: one per test run, one per submission. Everything after the runner only reads these."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, Field, field_validator, model_validator
from typing_extensions import Self   # typing.Self is 3.11; Gradescope's image runs 3.10

from autograder.sandbox.levels import Isolation  # noqa: F401 - a result records its level: importable from here
from autograder.text import escape_unshown, inert_lines

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
# not_run: the grader could not run the case (a grader-side failure, e.g. CUDA unusable in the
# sandbox): it scores 0 of 0, so it neither costs nor grants points, and `infra_reason` says why.
Status = Literal["passed", "failed", "not_run"]


def _inert_update(update: Optional[Mapping[str, Any]], fields: tuple[str, ...]) -> Optional[dict[str, Any]]:
    """A model_copy update with its text `fields` made inert: pydantic's model_copy runs no validator, and the
    one-edit fix set a message quoting the student's raw line that way (red-team round 71: a raw ESC and U+202E in
    results.json)."""
    if not update:
        return None
    return {k: inert_lines(v) if k in fields and isinstance(v, str) else v for k, v in update.items()}


def _words(text: str) -> str:
    """Text as compared for "already said": case, spacing and closing punctuation do not count."""
    return " ".join(text.casefold().split()).rstrip(" .;:!")


# The misconception key of a one-edit fix (autograder/grading/repair.py): its message's first line is the fix itself
# (the function, the line, the change), so two reports with this key are one mistake only where that line is the same
# (autograder/grading/diagnosis.py groups them so). Here, where both read it without importing the engine's torch.
ONE_EDIT_FIX_KEY = "one_edit_fix"
# The key of a fix that only steers what a function keeps between calls (repair._state_steered): its first line names
# the function too, so two functions that each keep state are two mistakes, grouped the same way.
STATE_KEPT_KEY = "state_kept_between_calls"
# keys whose reports are one mistake per first line of their message (diagnosis._mistake_of)
PER_FIX_KEYS = (ONE_EDIT_FIX_KEY, STATE_KEPT_KEY)


class TestReport(BaseModel):
    question: str
    name: str
    device: Optional[str] = None
    hidden: bool = True                # declared hidden by its test file (@test_case(hidden=True))
    # Shown to the student before grades are published, with its message: a test declared hidden=False,
    # or one the assignment lists in grading.yml's `visible_tests` (outcome.visible_specs). Every output
    # reads it from here, never from the config.
    visible: bool = False
    max_score: float
    score: float
    status: Status
    message: str = ""
    misconception: Optional[str] = None
    misconception_text: str = ""       # what the key means, from the assignment that named it
    duration_s: float = 0.0
    infra_reason: Optional[str] = None    # status "not_run": the grader's problem, in one line
    # A rule test that passed, its points withheld because the value case they wait for failed
    # ("q5:test_float32_no_mask"; hidden.HiddenTestCase.earned_with): the failure is charged there
    withheld_by: Optional[str] = None

    @field_validator("message", "infra_reason")
    @classmethod
    def _inert(cls, text: Optional[str]) -> Optional[str]:
        # a message quotes the student's code (an exception's first line, a value): inert in every output
        # that reads it, results.json included (red-team round 25: ESC, U+202E and a lone surrogate
        # reached Gradescope's results.json, which no other output wrote as they were)
        return None if text is None else inert_lines(text)

    def model_copy(self, *, update: Optional[Mapping[str, Any]] = None, deep: bool = False) -> Self:
        return super().model_copy(update=_inert_update(update, ("message", "infra_reason")), deep=deep)

    @model_validator(mode="after")
    def _declared_visible(self) -> "TestReport":
        if not self.hidden:  # a test its file does not hide is shown (also in reports written before `visible`)
            self.visible = True
        return self

    @property
    def misconception_description(self) -> str:
        """The text the report carries; a readable key for reports written before texts travelled."""
        return self.misconception_text or (self.misconception or "").replace("_", " ")

    @property
    def misconception_note(self) -> str:
        """The misconception's text to show beside the message, or "" when there is none or the message
        already says it (compared without case, spacing or a closing full stop): said once, not twice."""
        if not self.misconception:
            return ""
        text = self.misconception_description.strip()
        if not text or _words(text) in _words(self.message):
            return ""
        return text

    @property
    def display_name(self) -> str:
        dev = f" [{self.device}]" if self.device and self.device != "cpu" else ""
        return f"{self.question}: {self.name}{dev}"


class CellReport(BaseModel):
    index: int
    status: Literal["ok", "error", "timeout", "skipped"]
    error: str = ""
    duration_s: float = 0.0

    @field_validator("error")
    @classmethod
    def _one_inert_line(cls, text: str) -> str:
        # the student's exception, said by the worker: its first line only (a second line could pass for a
        # line of the grader's summary, "Score 35 / 35"), every unshown character escaped
        return escape_unshown((text.splitlines() or [""])[0][:300])


class SandboxRecord(BaseModel):
    """What the worker that ran a submission had of its own (instructors only)."""
    seccomp: bool = False
    namespaces: list[str] = Field(default_factory=list)   # pid, ipc, mount, net, uts, user
    landlock: bool = False    # Landlock walls: only the runtime readable, only its scratch dir writable
    memory: str = ""                                      # how the memory limit is enforced
    cuda: Optional[str] = None    # None: not asked for; "ready"; or why CUDA could not be initialised
    # False: the worker's uid could not read the interpreter's standard library (a Python under /root, at fallback
    # or container), so a module the zygote did not import failed to import in student code: the host's fault
    stdlib_readable: bool = True


ImageKind = Literal["png", "jpeg", "gif"]   # the attached images shown: decided by their bytes


class AnswerImage(BaseModel):
    """An image attached to a written answer (a Jupyter markdown attachment), as intake found it:
    `kind` and `data` (base64 that intake encoded from the decoded bytes whose magic bytes say PNG,
    JPEG or GIF) when it can be shown, else `note`, the sentence that says why it is not shown.
    `name` is the student's attachment name: hostile text, escaped wherever it is shown."""
    name: str
    kind: Optional[ImageKind] = None
    data: str = ""
    note: str = ""


class ManualAnswer(BaseModel):
    question: str
    text: str
    attachments: list[AnswerImage] = Field(default_factory=list)

    @field_validator("text")
    @classmethod
    def _inert(cls, text: str) -> str:
        return inert_lines(text)        # the student's own words: their lines kept, nothing else unshown


class SubmissionResult(BaseModel):
    submission: str
    assignment: str
    status: Literal["graded", "rejected", "worker_failed"] = "graded"
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestReport] = Field(default_factory=list)
    cells: list[CellReport] = Field(default_factory=list)
    manual: list[ManualAnswer] = Field(default_factory=list)
    message: str = ""            # shown to the student (rejection reason, cell errors summary)
    seed: int = 0
    isolation: Optional[Isolation] = None
    sandbox: Optional[SandboxRecord] = None
    execution_time_s: float = 0.0
    # One line for the instructor when some cases were not run for a grader-side reason (never the
    # student's fault); None when everything that should have run did.
    infra: Optional[str] = None

    @field_validator("message", "infra")
    @classmethod
    def _inert(cls, text: Optional[str]) -> Optional[str]:
        return None if text is None else inert_lines(text)   # it joins the cells' errors: the student's words

    def model_copy(self, *, update: Optional[Mapping[str, Any]] = None, deep: bool = False) -> Self:
        return super().model_copy(update=_inert_update(update, ("message", "infra")), deep=deep)

    @property
    def misconceptions(self) -> list[str]:
        return [t.misconception for t in self.tests if t.misconception]


def misconception_texts(results: "list[SubmissionResult]") -> dict[str, str]:
    """{key: text} as the reports themselves carry it (a resumed batch loads no test at all)."""
    texts: dict[str, str] = {}
    for r in results:
        for t in r.tests:
            if t.misconception and (t.misconception not in texts or t.misconception_text):
                texts[t.misconception] = t.misconception_description
    return texts

