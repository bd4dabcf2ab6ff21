"""A submission's failures grouped by what went wrong (issue 21): one mistake, one block.

One wrong scale fails a dozen tests; the student should read it once, with the tests it explains, the
points it cost and one smallest failing example. `diagnose` reads a SubmissionResult's reports and
returns that grouping; the terminal (outputs.print_table), the feedback page (feedback.render_feedback)
and the class report (report.write_report) only draw it. Nothing here formats for a medium: every
string that comes out is as hostile as the reports it came from, and each renderer escapes it.

- A **mistake** is a misconception key: every failed test named with it, plus the rule tests whose
  points wait on one of those tests (TestReport.withheld_by), said under it, not as failures of their own.
- A failure no misconception explains is grouped with the failures that say the same thing (its
  message without the shrunk example): said once, with every test that said it.
- Passed tests fold into one line per question, and contiguous questions that passed whole fold
  into a range ("q1–q4: all 12 tests passed").
- Cases the grader could not run (status not_run) are the grader's, never the student's mistake: they
  are listed apart, for one note.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from autograder.results import PER_FIX_KEYS, SubmissionResult, TestReport

# The first line of the example shrink.describe appends to a failure's message (autograder/grading/shrink.py):
# the example runs from the last such line to the end. Only the last counts: a student's exception
# text quoted earlier in the message may contain the same words.
_EXAMPLE_HEAD = re.compile(r"^(?:The smallest input of this kind that still fails:"
                           r"|A smaller input of this kind that still fails \(could not shrink further\):"
                           r"|The input \(could not shrink further\):"
                           r"|The input \(no smaller one of this kind fails the same way\):)$", re.MULTILINE)
_SHAPE = re.compile(r"^\s+\S+ \((\d+(?:, \d+)*,?)\)", re.MULTILINE)   # "  Q (1, 2, 4) float32 ..."


def split_example(message: str) -> tuple[str, str]:
    """(what the test said, the smallest failing example shrink appended to it, or "")."""
    heads = list(_EXAMPLE_HEAD.finditer(message))
    if not heads:
        return message.strip(), ""
    start = heads[-1].start()
    return message[:start].strip(), message[start:].rstrip()


def said_beyond(message: str, text: str) -> str:
    """What a test said of one case (split_example's first part), without the mistake's own text at its end
    where the block already leads with it (a named crash's message: "...raised TypeError: ...: <text>"). The
    whole message when the text is elsewhere in it, or when nothing else is said."""
    said = split_example(message)[0]
    tail = ": " + text
    if not text or not said.endswith(tail) or not said[:-len(tail)].strip(" :;.,"):
        return said
    return said[:-len(tail)].rstrip()


def _example_size(example: str) -> tuple[int, int, int]:
    """Smaller is better: an example shrink could finish first, then the fewest input elements, then
    the shortest text."""
    stopped = "could not shrink further" in example.split("\n", 1)[0]
    elements = sum(math.prod(int(n) for n in m.group(1).split(",") if n.strip()) for m in _SHAPE.finditer(example))
    return int(stopped), elements, len(example)


@dataclass(frozen=True)
class Example:
    test: TestReport    # the test whose message it ends
    text: str           # the example as shrink wrote it, several lines


@dataclass
class FailureGroup:
    """Failed tests that one cause explains. `key` is the misconception's key, or None for failures
    no diagnosis explains (then `text` is the message they share)."""
    key: Optional[str]
    text: str
    tests: list[TestReport] = field(default_factory=list)
    withheld: list[TestReport] = field(default_factory=list)   # rule tests whose points wait on these
    example: Optional[Example] = None

    # Rounded as a total is (outcome.build_result): ten failed tests of 0.1 points summed to 0.9999999999999999,
    # said "1 points" beside another mistake's "1 point" and ranked below it though it came first (red-team round 105)
    @property
    def lost(self) -> float:
        return round(sum(t.max_score - t.score for t in self.tests), 6)

    @property
    def withheld_points(self) -> float:
        return round(sum(t.max_score - t.score for t in self.withheld), 6)

    @property
    def cost(self) -> float:
        """Every point this cause takes: its failures' and the rule points it withholds."""
        return round(self.lost + self.withheld_points, 6)


@dataclass(frozen=True)
class PassedLine:
    questions: tuple[str, ...]   # one question, or a contiguous run that passed whole
    passed: int
    total: int

    @property
    def label(self) -> str:
        return self.questions[0] if len(self.questions) == 1 else f"{self.questions[0]}–{self.questions[-1]}"

    @property
    def sentence(self) -> str:
        """"q1–q4: all 12 tests passed", "q5: 3 of 16 tests passed", "q7: its one test failed"."""
        if self.total == 1:
            said = f"its one test {'passed' if self.passed else 'failed'}"
        elif self.passed == self.total:
            said = f"all {self.total} tests passed"
        elif self.passed == 0:
            said = f"none of its {self.total} tests passed"
        else:
            said = f"{self.passed} of {self.total} tests passed"
        return f"{self.label}: {said}"


@dataclass
class Diagnosis:
    mistakes: list[FailureGroup]       # most points first
    unexplained: list[FailureGroup]    # in the order the tests ran
    passed: list[PassedLine]
    not_run: list[TestReport]          # the grader's, not the student's

    @property
    def failed_count(self) -> int:
        return sum(len(g.tests) + len(g.withheld) for g in (*self.mistakes, *self.unexplained))


def _withholder(t: TestReport, failed: dict[tuple[str, str], TestReport]) -> Optional[TestReport]:
    """The failed value case whose failure withheld `t`'s points: on t's device, else on the CPU (as
    runner.withhold_unearned decides it)."""
    if not t.withheld_by:
        return None
    return failed.get((t.withheld_by, t.device or "cpu")) or failed.get((t.withheld_by, "cpu"))


def _pick_example(tests: Iterable[TestReport]) -> Optional[Example]:
    found = [Example(t, ex) for t in tests for ex in [split_example(t.message)[1]] if ex]
    return min(found, key=lambda e: _example_size(e.text), default=None)


def fold_passed(tests: Sequence[TestReport]) -> list[PassedLine]:
    """One line per question in the order the questions first appear; contiguous questions whose every
    test passed fold into one range. Cases the grader did not run count nowhere."""
    order: dict[str, list[int]] = {}
    for t in tests:
        if t.status == "not_run":
            continue
        counts = order.setdefault(t.question, [0, 0])
        counts[0] += t.status == "passed"
        counts[1] += 1
    lines: list[PassedLine] = []
    run: list[str] = []
    run_total = 0

    def close_run() -> None:
        nonlocal run, run_total
        if run:
            lines.append(PassedLine(tuple(run), run_total, run_total))
        run, run_total = [], 0

    for q, (passed, total) in order.items():
        if total == 0:
            continue
        if passed == total:
            run.append(q)
            run_total += total
        else:
            close_run()
            lines.append(PassedLine((q,), passed, total))
    close_run()
    return lines


def _mistake_of(t: TestReport) -> str:
    """Which mistake a named failure is: its key; for a one-edit fix or state kept between calls, the key and its
    message's first line (the function, and the line and the change or what it keeps), since two functions' fixes
    are two mistakes."""
    if t.misconception in PER_FIX_KEYS:
        return f"{t.misconception}\n{t.message.split(chr(10), 1)[0]}"
    return t.misconception or ""


def diagnose(result: SubmissionResult, tests: Optional[Sequence[TestReport]] = None) -> Diagnosis:
    """`result`'s failures grouped by cause. `tests`: the reports to consider (default: all of them);
    a page that withholds hidden tests passes only those it shows, so nothing hidden is grouped in.
    Hand-graded questions are not tests of code: the caller leaves them out."""
    tests = list(result.tests if tests is None else tests)
    failed = [t for t in tests if t.status == "failed"]
    by_case: dict[tuple[str, str], TestReport] = {}
    for t in failed:
        if not t.withheld_by:
            by_case.setdefault((f"{t.question}:{t.name}", t.device or "cpu"), t)
    mistakes: dict[str, FailureGroup] = {}
    unexplained: dict[str, FailureGroup] = {}
    withheld: list[tuple[TestReport, TestReport]] = []
    for t in failed:
        cause = _withholder(t, by_case)
        if cause is not None:
            withheld.append((t, cause))
        elif t.misconception:
            group = mistakes.setdefault(_mistake_of(t), FailureGroup(t.misconception, t.misconception_description))
            group.tests.append(t)
        else:
            said = split_example(t.message)[0] or "failed (no message)"
            unexplained.setdefault(" ".join(said.split()), FailureGroup(None, said)).tests.append(t)
    for t, cause in withheld:
        if cause.misconception:
            mistakes[_mistake_of(cause)].withheld.append(t)
        else:
            said = " ".join((split_example(cause.message)[0] or "failed (no message)").split())
            unexplained[said].withheld.append(t)
    for group in (*mistakes.values(), *unexplained.values()):
        group.example = _pick_example(group.tests)
    first = {id(t): i for i, t in enumerate(tests)}
    return Diagnosis(
        mistakes=sorted(mistakes.values(), key=lambda g: (-g.cost, first[id(g.tests[0])])),
        unexplained=list(unexplained.values()),
        passed=fold_passed(tests),
        not_run=[t for t in tests if t.status == "not_run"])


def tests_by_question(tests: Sequence[TestReport]) -> list[tuple[str, list[str]]]:
    """[(question, [test name with its device when not the CPU, ...]), ...]: a group's tests listed
    compactly ("q5: test_a, test_b [cuda]"), questions in order of appearance."""
    out: dict[str, list[str]] = {}
    for t in tests:
        dev = f" [{t.device}]" if t.device and t.device != "cpu" else ""
        out.setdefault(t.question, []).append(f"{t.name}{dev}")
    return list(out.items())


def points(x: float) -> str:
    """"1 point", "13 points", "2.5 points"."""
    return f"{x:g} point{'' if x == 1 else 's'}"


__all__ = ["Diagnosis", "Example", "FailureGroup", "PassedLine", "diagnose", "fold_passed", "split_example",
           "tests_by_question", "points"]
