"""grade_submission on the fixture course: replayable seeds, fresh inputs per seed, clear rejection of
broken files, and a maximum that never depends on the submission."""
from __future__ import annotations

import torch

from autograder.grading.hidden import HiddenTestCase
from autograder.grading.runner import case_seed as derive_seed
from tests.conftest import FIXTURE_SUBS


def outcome(result):
    return [(t.name, t.status, t.score, t.message) for t in result.tests]


def test_same_seed_replays_exactly(toy_grader):
    a = toy_grader.grade(FIXTURE_SUBS / "no_scale.ipynb", "toy", seed=42)
    b = toy_grader.grade(FIXTURE_SUBS / "no_scale.ipynb", "toy", seed=42)
    assert a.seed == b.seed == 42 and outcome(a) == outcome(b)
    assert a.misconceptions == ["no_scale"]


def test_inputs_are_fresh_for_each_seed():
    case = HiddenTestCase(question="q1", name="t", points=1, hidden=True, func=lambda: None)
    draws = {tuple(torch.randn(4, generator=torch.Generator().manual_seed(derive_seed(s, case, "cpu"))).tolist())
             for s in range(20)}
    assert len(draws) == 20


def test_unseeded_grades_draw_and_record_a_seed(toy_grader):
    a = toy_grader.grade(FIXTURE_SUBS / "good.ipynb", "toy")
    b = toy_grader.grade(FIXTURE_SUBS / "good.ipynb", "toy")
    assert a.seed != b.seed and a.score == b.score == 4


def test_broken_notebook_is_rejected_with_zero_and_a_reason(toy_grader, tmp_path):
    bad = tmp_path / "sub.ipynb"
    bad.write_text('{"cells": "nope", "nbformat": 4}')
    result = toy_grader.grade(bad, "toy", seed=1)
    assert result.status == "rejected" and result.score == 0 and result.max_score == 4
    assert "the notebook is damaged" in result.message
    assert all(t.status == "failed" and "not graded" in t.message and "damaged" not in t.message
               for t in result.tests)


def test_missing_function_fails_its_tests_only(toy_grader, tmp_path):
    sub = tmp_path / "sub.py"
    sub.write_text("answer = 'B'\n")
    result = toy_grader.grade(sub, "toy", seed=1)
    assert result.status == "graded" and result.score == 1
    failed = [t for t in result.tests if t.status == "failed"]
    assert failed and all("`attend` is not defined" in t.message for t in failed)


def test_syntax_error_cell_is_reported_and_others_still_run(toy_grader, tmp_path):
    sub = tmp_path / "sub.py"
    sub.write_text("def broken(:\n")
    result = toy_grader.grade(sub, "toy", seed=1)
    assert result.cells[0].status == "error" and "SyntaxError" in result.cells[0].error
    assert result.score == 0 and "Cell In[1]: SyntaxError" in result.message


def test_a_runaway_call_costs_only_the_tests_of_its_function(toy_grader, tmp_path):
    """The worker is killed at the call deadline and restarted from the zygote (cells re-run): the
    tests of other names are still graded, while later calls into the function that ran away fail
    at once with the same reason (issue 10: one runaway costs about one call timeout, not one per
    test)."""
    sub = tmp_path / "sub.py"
    sub.write_text("import torch, math\n"
                   "def attend(Q, K, V):\n"
                   "    if Q.shape[0] == 5:\n"
                   "        while True:\n"
                   "            pass\n"
                   "    return torch.softmax(Q @ K.T / math.sqrt(Q.shape[-1]), -1) @ V\n"
                   "answer = 'B'\n")
    result = toy_grader.grade(sub, "toy", seed=1)
    by_name = {t.name: t for t in result.tests}
    assert by_name["test_attend_matches"].status == "failed"
    assert "did not finish" in by_name["test_attend_matches"].message
    assert by_name["test_attend_rows"].status == "failed"
    assert by_name["test_attend_rows"].message == by_name["test_attend_matches"].message
    assert by_name["test_attend_rows"].duration_s < 1.0, "fails at once, no second timeout"
    others = [t for t in result.tests if t.question != "q1"]
    assert others and all(t.status == "passed" for t in others if t.max_score > 0)
    assert result.score == sum(t.max_score for t in others)
