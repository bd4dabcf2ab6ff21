"""Red-team round 115: what a student with a right or nearly right notebook reads.

Repros in /tmp/rt115/ (grade --all --results of each examples/submissions/*/full_marks.ipynb, a batch of
scaled-attention's full_marks, no_scale and divide_by_dk, and their feedback pages and results/*.json).

- **The summary's "Score on the tests shown now" counted a written answer that no one had graded yet.** A batch
  merges one report per hand-graded question into each result (0 of its points, "awaiting hand grading", shown
  now), and results.json's summary added it to the tests shown: scaled-attention's full_marks.ipynb read "Score on
  the tests shown now: 11 / 15. 8 tests are shown now" in the batch's results/full_marks.ipynb.json, while `grade
  --results` of the same notebook (no hand report; the answer only as the 0-point instructors' row) read "11 / 11.
  7 tests are shown now". A right notebook was told it had lost 4 points it has not been graded on. Measured:
  `autograder grade full_marks.ipynb -a scaled-attention --results r.json` against `autograder batch` of a folder
  holding it. Decided: a question still awaiting hand grading is no score yet, so the line leaves it out (the row
  itself stays, saying "awaiting hand grading"), and both read 11 / 11 and 7 tests; once a hand score is merged it
  counts like any shown test.
- **The same answer, elsewhere.** With every test shown (`hidden_tests: visible`) the batch's summary read "Score 28 /
  32." with no word of the 4 points no one had graded, and the feedback page's per-question table read "q3 0 / 4"
  beside "Total: 28 / 32 (1 still to be graded by hand)". Now the summary says "(q3: 4 points still to be graded by
  hand)" and the row "awaiting hand grading (out of 4)"; a hand score of 0, once given, reads "0 / 4".

Measured beside them, and held: all 1,209 CORRECT held-out variants (variants.py and blind*.py of the three
assignments, /tmp/rt115/scan.py) got full marks with the same lines in the terminal and results.json, and full_marks
with one extra cell of the kind students leave in (magics, `!pip`, matplotlib, Colab's drive, tqdm, `input()`) said
only that cell's own true error.
"""
from __future__ import annotations

from autograder.course.handscores import HandScore, HandScores, apply_hand_scores, hand_points
from autograder.course.outputs import to_gradescope

from tests.conftest import ROOT

FULL_MARKS = ROOT / "examples" / "submissions" / "scaled-attention" / "full_marks.ipynb"


def test_a_written_answer_awaiting_hand_grading_is_not_in_the_score_shown_now(grader, course):
    vis = course.config.visibility
    result = grader.grade(FULL_MARKS, "scaled-attention", seed=5)
    assert result.score == result.max_score                              # a right notebook
    points = hand_points(course.settings("scaled-attention"), "scaled-attention")
    assert points == {"q3": 4.0}
    alone = to_gradescope(result, vis)["output"]                          # `grade --results`, Gradescope
    in_batch = to_gradescope(apply_hand_scores(result, points), vis)["output"]   # the batch's results/*.json
    assert alone.startswith("Score on the tests shown now: 11 / 11.\n7 tests are shown now;"), alone
    assert in_batch == alone, (in_batch, alone)
    # graded by hand, the answer is a score like any shown test's
    hand = HandScores(points=points)
    hand.scores[result.submission] = {"q3": HandScore(key=result.submission, question="q3", score=3.0, comment="ok",
                                                      row=2)}
    graded = to_gradescope(apply_hand_scores(result, points, hand), vis)["output"]
    assert graded.startswith("Score on the tests shown now: 14 / 15.\n8 tests are shown now;"), graded


def test_the_total_says_which_points_still_wait_for_hand_grading(grader, course):
    from autograder.config import VisibilitySettings
    result = grader.grade(FULL_MARKS, "scaled-attention", seed=5)
    points = hand_points(course.settings("scaled-attention"), "scaled-attention")
    every_test_shown = VisibilitySettings(hidden_tests="visible")
    assert to_gradescope(result, every_test_shown)["output"] == "Score 28 / 28."
    in_batch = to_gradescope(apply_hand_scores(result, points), every_test_shown)["output"]
    assert in_batch == "Score 28 / 32 (q3: 4 points still to be graded by hand).", in_batch


def test_the_feedback_pages_per_question_table_says_a_written_answer_waits(grader, course):
    import re

    from autograder.course.feedback import render_feedback
    result = grader.grade(FULL_MARKS, "scaled-attention", seed=5)
    points = hand_points(course.settings("scaled-attention"), "scaled-attention")
    table = re.search(r'<table id="questions">.*?</table>', render_feedback(apply_hand_scores(result, points)), re.S)
    assert table is not None
    rows = dict(re.findall(r"<tr><td>(q\d+)</td><td class=\"num\">([^<]*)</td></tr>", table.group(0)))
    assert rows["q3"] == "awaiting hand grading (out of 4)", rows          # was "0 / 4" for a right notebook
    assert rows["q1"] == "9 / 9", rows
    hand = HandScores(points=points)
    hand.scores[result.submission] = {"q3": HandScore(key=result.submission, question="q3", score=0.0, comment="no",
                                                      row=2)}
    graded = re.search(r'<table id="questions">.*?</table>', render_feedback(apply_hand_scores(result, points, hand)),
                       re.S)
    assert graded is not None and "<td>q3</td><td class=\"num\">0 / 4</td>" in graded.group(0)   # graded: its 0
