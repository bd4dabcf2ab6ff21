"""Hidden test for q5: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q5"
points = 1
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_q5_answer(q5_answer):
    expect_choice(q5_answer, "q5_answer", answer=ref.q5_answer, choices="ABCD",
                  wrong=ref.MCQ_MISCONCEPTIONS["q5_answer"])
