"""Question 7: the zero-after-softmax trap (multiple choice)."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q7"
register_misconceptions(__file__)

WRONG = {"A": "zero_after_softmax", "B": "upper_triangular_mask", "D": "zero_after_softmax"}


@test_case(points=1, hidden=True)
def test_trap_answer(q_trap_answer):
    # what each wrong choice reveals (see the notebook's options)
    expect_choice(q_trap_answer, "q_trap_answer", answer=ref.q_trap_answer, choices="ABCD", wrong=WRONG,
                  hint="compare what each approach does to the sum of a row's weights")
