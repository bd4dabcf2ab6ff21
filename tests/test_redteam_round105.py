"""Red-team round 105: points, rounded and added, in every place they are shown.

Repros in /tmp/rt105/ (probe1.py: one result through gradebook.csv, canvas.csv, results.json and the feedback page;
probe2.py: report.html's class mean beside the terminal's; probe3.py: a mistake's cost; probe4.py: the author check's
points; probe5.py and probe6.py: hand scores). Points that are not whole (2.5 over 3 tests, 0.1 a test) came out the
same in gradebook.csv, canvas.csv, results.json and the feedback page; these did not:

- **The class mean in report.html counted the grader's failures as 0.** The terminal's mean leaves a `worker_failed`
  submission out ("the grader's failure has no score yet, not 0") and canvas.csv leaves its cell empty; report.html's
  summary and histogram took its 0. Two graded 10 / 10 and one failed worker: the terminal said mean 10.00, the report
  6.67 / 10, with a bar at 0. Now the report leaves it out too, and says how many it left out.
- **A mistake's cost was a float sum.** Ten failed tests of 0.1 point cost 0.9999999999999999: the feedback page and
  the terminal said "1 points" beside another mistake's "1 point", and ranked it below that one though it came
  first. Now a group's lost, withheld and cost points are rounded as a total is (6 decimals).
- **The author check compared float sums.** A question of ten 0.1-point tests whose master says `points: 1` (and
  "(1 point)") was three problems: "worth 1 in the master, 1 in its hidden tests", "its text says 1 points, its
  hidden tests give 1", "hidden/q1.py says points = 1, its test cases give 1". Now the sums are rounded first.
- **Hand scores that did not come back as given.** hand-scores template wrote a merged score with :g's six digits: a
  spreadsheet's 2.3333333333 came back 2.33333, and filling the template in again changed the total (3.333333 ->
  3.33333). A "-0" was shown "-0 / 4"; a score 1e-10 under the points (accepted, as one 1e-9 over is) was shown
  "4 / 4" and a failed test. Now the template writes a score that reads back the same, "-0" is 0, and a score within
  the tolerance of the points is the points.
"""
from __future__ import annotations

import csv
import re

from autograder.course.authoring import MasterQuestion, file_points_problems, points_problems
from autograder.course.feedback import render_feedback
from autograder.course.handscores import apply_hand_scores, read_hand_scores, write_template
from autograder.course.report import write_report
from autograder.grading.diagnosis import diagnose, points
from autograder.grading.hidden import HiddenTestCase
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report   # not collected as a test class

SLUG = "scaled-attention"


def _result(key: str, tests: list[Report], status: str = "graded") -> SubmissionResult:
    return SubmissionResult(submission=key, assignment=SLUG, status=status,  # type: ignore[arg-type]
                            score=round(sum(t.score for t in tests), 6), max_score=round(sum(t.max_score for t in tests), 6),
                            tests=tests)


def test_report_mean_leaves_out_the_graders_failures_as_the_terminal_does(tmp_path, course):
    def one(key: str, status: str, score: float) -> SubmissionResult:
        return _result(key, [Report(question="q1", name="t", max_score=10.0, score=score,
                                        status="passed" if score else "failed")], status)
    results = [one("a.ipynb", "graded", 10.0), one("b.ipynb", "graded", 10.0), one("c.ipynb", "worker_failed", 0.0)]
    html = write_report(results, course, SLUG, tmp_path).read_text()
    summary = re.search(r'<p id="summary">([^<]*)', html)
    assert summary is not None
    assert "mean 10.00 / 10" in summary.group(1), summary.group(1)     # the terminal's mean (cli._summary)
    assert "1 without a score left out" in summary.group(1)


def test_a_mistakes_cost_is_a_rounded_total():
    tenths = [Report(question="q1", name=f"t{i}", max_score=0.1, score=0.0, status="failed", misconception="tenths")
              for i in range(10)]
    whole = [Report(question="q2", name="u", max_score=1.0, score=0.0, status="failed", misconception="whole")]
    result = _result("a.ipynb", tenths + whole)
    found = diagnose(result)
    assert [g.key for g in found.mistakes] == ["tenths", "whole"]       # equal costs: in the order they came
    assert [points(g.cost) for g in found.mistakes] == ["1 point", "1 point"]
    page = render_feedback(result, None)
    assert re.findall(r"Cost you <b>([^<]*)", page) == ["1 point", "1 point"]


def test_the_author_check_compares_points_as_totals(tmp_path):
    hidden_file = tmp_path / "q1.py"
    hidden_file.write_text("points = 1\n")
    cases = [HiddenTestCase(question="q1", name=f"t{i}", points=0.1, hidden=True, func=lambda: None, file=str(hidden_file))
             for i in range(10)]
    summed = {"q1": 0.0}
    for case in cases:                                       # as the author check sums them
        summed["q1"] += case.points
    assert points_problems([MasterQuestion("q1", 1.0, False, 1.0)], summed, [], {}) == []
    assert file_points_problems(cases) == []
    # a real difference is still one
    assert points_problems([MasterQuestion("q1", 1.5, False, None)], summed, [], {})


def test_hand_scores_come_back_as_given(tmp_path):
    auto = [Report(question="q1", name="t", max_score=1.0, score=1.0, status="passed")]
    result = _result("a.ipynb", auto)
    hand_points = {"q3": 4.0}
    given = tmp_path / "hand.csv"
    given.write_text("submission,question,score,comment\na.ipynb,q3,2.3333333333,a third off\n")
    merged = apply_hand_scores(result, hand_points, read_hand_scores(given, hand_points, submissions=["a.ipynb"]))
    assert merged.score == 3.333333
    template = write_template([merged], hand_points, tmp_path / "template.csv")
    again = apply_hand_scores(result, hand_points, read_hand_scores(template, hand_points, submissions=["a.ipynb"]))
    assert again.score == merged.score, list(csv.reader(template.open()))


def test_a_hand_score_of_minus_zero_is_zero(tmp_path):
    result = _result("a.ipynb", [Report(question="q1", name="t", max_score=1.0, score=1.0, status="passed")])
    hand_points = {"q3": 4.0}
    given = tmp_path / "hand.csv"
    given.write_text("submission,question,score,comment\na.ipynb,q3,-0,nothing\n")
    zero = apply_hand_scores(result, hand_points, read_hand_scores(given, hand_points, submissions=["a.ipynb"]))
    assert "q3 — 0 / 4" in render_feedback(zero, None)


def test_a_hand_score_within_the_tolerance_of_the_points_is_full_marks(tmp_path):
    result = _result("a.ipynb", [Report(question="q1", name="t", max_score=1.0, score=1.0, status="passed")])
    hand_points = {"q3": 4.0}
    given = tmp_path / "hand.csv"
    given.write_text("submission,question,score,comment\na.ipynb,q3,3.9999999999,full marks\n")
    full = apply_hand_scores(result, hand_points, read_hand_scores(given, hand_points, submissions=["a.ipynb"]))
    hand = next(t for t in full.tests if t.question == "q3")
    assert (hand.score, hand.status, full.score) == (4.0, "passed", 5.0)
