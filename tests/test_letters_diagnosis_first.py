"""Issue 21, diagnosis first: a wrong letter that is the one the lesson's own quiz gives (the lesson orders its options
differently) is told by what the choice reflects here, the lesson's order after it, as a side note; only where the
answer's cell cites the lesson or its quiz is the lesson's reading the diagnosis, and said first."""
from __future__ import annotations

from tests.heldout.harness import assert_named, graded_as

_sdpa = graded_as("sdpa-from-scratch", "letters_first")
_scaled = graded_as("scaled-attention", "letters_first")


def test_sdpa_uncited_lesson_letter_leads_with_the_diagnosis(grader):
    (failure,) = assert_named(_sdpa(grader, {"q_trap_answer": "q_trap_answer = 'A'   # same zeros, same result\n"}),
                              "zero_after_softmax", "q7")
    said = failure[3]
    assert said.startswith("q_trap_answer is 'A': in this notebook A says"), said
    assert 0 < said.find("reflects") < said.find("lesson 80's quiz"), said


def test_sdpa_cited_lesson_letter_leads_with_the_lesson(grader):
    (failure,) = assert_named(_sdpa(grader, {"q_trap_answer": "# lesson 80's quiz answer\nq_trap_answer = 'A'\n"}),
                              "answer_lesson_80_quiz_letter", "q7")
    assert failure[3].startswith("q_trap_answer is 'A', the letter lesson 80's quiz gives"), failure[3]


def test_scaled_uncited_lesson_letter_leads_with_the_diagnosis(grader):
    failures = assert_named(_scaled(grader, {"q7_answer": "q7_answer = 'A'   # the best-matching value wins\n"}),
                            "attention_as_argmax", "q7")
    for _q, _t, _k, said in failures:
        assert said.startswith("q7_answer is 'A': in this notebook A is"), said
        assert 0 < said.find("reflects") < said.find("lesson 79's quiz"), said
