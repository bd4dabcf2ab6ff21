"""sdpa-from-scratch q7: option D ("It only goes wrong in float16; in float32 and float64 the two approaches agree")
had A's key, zero_after_softmax, so a message that says what the chosen option stands for said "option D stands for
zeroing masked weights after the softmax: rows no longer sum to 1", which is C's text, the right answer (blind75's
`q_trap_answer = options[3]`, judged at first sight). D has its own key now, zeroing_harmless_but_float16: the
belief D states, and why it is wrong in every dtype. A keeps zero_after_softmax."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

_graded = graded_as("sdpa-from-scratch", "q7_option_d")
OPTIONS = 'options = ["A", "B", "C", "D"]\n'


@pytest.mark.parametrize("answer, key", [('"D"', "zeroing_harmless_but_float16"),
                                         ('"d"  # float16 underflow is the problem', "zeroing_harmless_but_float16"),
                                         ("options[3]", "answer_by_position")])
def test_option_d_is_named_by_what_d_says(grader, answer, key):
    failed = assert_named(_graded(grader, {"q_trap_answer": OPTIONS + f"q_trap_answer = {answer}\n"}), key, "q7")
    words = " ".join(m for _q, _t, _k, m in failed)
    assert "only in float16" in words, failed
    assert "stands for zeroing masked weights after the softmax" not in words, failed


def test_option_a_keeps_zero_after_softmax(grader):
    assert_named(_graded(grader, {"q_trap_answer": 'q_trap_answer = "A"\n'}), "zero_after_softmax", "q7")


def test_option_c_keeps_full_marks(grader):
    assert_full_marks(_graded(grader, {"q_trap_answer": OPTIONS + "q_trap_answer = options[2]\n"}))
