"""Hidden test for q7: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q7"
points = 1
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_q7_answer(q7_answer):
    expect_choice(q7_answer, "q7_answer", answer=ref.q7_answer, choices="ABCD",
                  wrong=ref.MCQ_MISCONCEPTIONS["q7_answer"])
