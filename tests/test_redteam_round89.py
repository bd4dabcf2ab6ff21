"""Red-team round 89: what the feedback gives away.

Students resubmit (Gradescope takes any number of submissions) and read every word. Before grades are published a
student on Gradescope sees results.json's summary (`output`), the tests shown now (`visible_tests`, or a whole
question listed there, with their name, number, score and message) and nothing of the tests that wait
(`visibility.hidden_tests`: after_published). Gradescope itself keeps the total from students while a test is hidden
(otter-grader issues #260 and #383: "students on Gradescope can't see their autograder score when there are hidden
tests"). Repros in /tmp/rt89/ (mk_mcq.py, vis.py, exfil/).

- **The summary told the total, hidden tests' points included.** `to_gradescope` wrote "Score 25 / 28." on the first
  line of the summary whenever `show_total` was on, before publication too. Measured: scaled-attention's
  wrong_mcq_answers notebook with q5_answer set to A, B, C and D in turn, batch-graded (a batch adds q3's 4 hand-graded
  points to the maximum): "Score 25 / 32" for A, B and D, "Score 26 / 32" for C, every shown test the same. The
  right letter of a multiple-choice question in at most three submissions (each answer cell, numeric ones too, pass
  or fail in one), with no hidden test shown. Now, while tests
  wait, the summary's score is that of the tests shown now ("Score on the tests shown now: 7 / 7."), and there is no
  score line while none is shown; the whole total is said once nothing waits (hidden_tests: visible). results.json's
  top-level `score` stays the total: Gradescope's gradebook needs it, and Gradescope withholds it itself.
- **A shown test's number counted the tests that wait.** Numbers ran through each question in file order, shown or
  not: sdpa-from-scratch's shown q5 test was "5.12" (eleven q5 tests waiting before it), q4's second shown test "4.3".
  Now within a question the shown tests are numbered first (5.1), the waiting ones after them.

Tried and holding (no test): every shown test's message over the 68 examples of the three assignments (no reference
name, path, hidden test name or expected answer of a fixed question; the shrunk examples are of this grade's own
inputs, drawn fresh per grade); the student template's public checks of the multiple-choice and count questions
(format only); a multiple-choice letter by `execution_time` (0.60-0.69 s over A-D: no signal). A graded function
that records its inputs and raises in a shown test carries their shapes and dtypes and a count of the calls before
into the shown message ("18 float32(2, 4, 6, 16)0 ..."): inputs are fresh per grade, as DESIGN says, so nothing of it
can be hard-coded (docs/security.md, known limits)."""
from __future__ import annotations

import json
from pathlib import Path

from autograder.config import VisibilitySettings
from autograder.course.outputs import to_gradescope
from autograder.grading.outcome import build_result, visible_specs
from autograder.grading.outcome import TestSpec as Spec
from autograder.results import TestReport as Report
from tests.conftest import ROOT

WRONG_MCQ = ROOT / "examples/submissions/scaled-attention/wrong_mcq_answers.ipynb"


def _with_q5(letter: str, tmp_path: Path) -> Path:
    nb = json.loads(WRONG_MCQ.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith("q5_answer ="))
    cell["source"] = [f'q5_answer = "{letter}"']
    path = tmp_path / f"q5_{letter}.ipynb"
    path.write_text(json.dumps(nb))
    return path


def _what_a_student_sees(data: dict) -> tuple:
    """Everything of results.json Gradescope shows a student before publication (the top-level score Gradescope
    withholds itself while a test is hidden)."""
    shown = tuple((t["name"], t["number"], t["score"], t["max_score"], t["status"], t["output"])
                  for t in data["tests"] if t["visibility"] == "visible")
    return data["output"], shown


def test_trying_each_letter_of_a_hidden_multiple_choice_shows_the_same_page(grader, course, tmp_path):
    vis = course.config.visibility
    assert vis.show_total and vis.hidden_tests == "after_published"      # the course's settings, as shipped
    seen, q5_scores = {}, {}
    for letter in "ABCD":
        result = grader.grade(_with_q5(letter, tmp_path), "scaled-attention", seed=3)
        q5_scores[letter] = next(t.score for t in result.tests if t.question == "q5")
        seen[letter] = _what_a_student_sees(to_gradescope(result, vis))
    assert sorted(q5_scores.values()) == [0, 0, 0, 1], q5_scores         # one letter is right: the grades differ
    assert len(set(seen.values())) == 1, {k: v[0] for k, v in seen.items()}
    summary = seen["A"][0]
    assert "Score on the tests shown now:" in summary and "/ 28" not in summary, summary


def _reports() -> list[Report]:
    return [Report(question="q5", name=f"test_{k}", max_score=1, score=k % 2, status="passed" if k % 2 else "failed",
                   message="" if k % 2 else "wrong") for k in range(1, 6)]


def _graded(visible: list[str]) -> dict:
    specs = visible_specs([Spec("q5", f"test_{k}", 1.0) for k in range(1, 6)], visible, "toy")
    return to_gradescope(build_result("a.ipynb", "toy", status="graded", seed=1, specs=specs, tests=_reports()),
                         VisibilitySettings())


def test_a_shown_tests_number_counts_no_test_that_waits():
    data = _graded(["q5:test_4"])
    numbers = {t["name"]: t["number"] for t in data["tests"] if t["tags"] != ["grader"]}
    assert numbers["q5: test_4"] == "5.1", numbers                         # was 5.4: three tests waited before it
    assert sorted(numbers.values()) == ["5.1", "5.2", "5.3", "5.4", "5.5"]  # one number each, as before
    waiting = [numbers[f"q5: test_{k}"] for k in (1, 2, 3, 5)]
    assert waiting == ["5.2", "5.3", "5.4", "5.5"]                          # the others keep their order after it


def test_the_summary_scores_only_what_is_shown_until_nothing_waits():
    one = _graded(["q5:test_4"])["output"].splitlines()
    assert one[0] == "Score on the test shown now: 0 / 1.", one              # test_4 failed; the others' 3 of 4 unsaid
    none = _graded([])["output"]
    assert "Score" not in none and "3" not in none, none
    every = to_gradescope(build_result("a.ipynb", "toy", status="graded", seed=1, specs=[Spec("q5", f"test_{k}", 1.0)
                                                                                          for k in range(1, 6)],
                                       tests=_reports()), VisibilitySettings(hidden_tests="visible"))
    assert every["output"].splitlines()[0] == "Score 3 / 5." and every["score"] == 3
    assert _graded([])["score"] == 3                                       # the gradebook's total, withheld by Gradescope
