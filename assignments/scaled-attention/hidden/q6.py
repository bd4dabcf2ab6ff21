"""Hidden test for q6: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q6"
points = 1
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_q6_answer(q6_answer):
    expect_choice(q6_answer, "q6_answer", answer=ref.q6_answer, choices="ABCD",
                  wrong=ref.MCQ_MISCONCEPTIONS["q6_answer"])
