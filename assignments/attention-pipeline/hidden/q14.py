"""Multiple choice: ans_cross_shapes (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q14"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_ans_cross_shapes(ans_cross_shapes):
    expect_choice(ans_cross_shapes, "ans_cross_shapes", answer=ref.ans_cross_shapes, wrong=ref.MCQ_MISCONCEPTIONS["ans_cross_shapes"],
                  bare_letter_only=True)
