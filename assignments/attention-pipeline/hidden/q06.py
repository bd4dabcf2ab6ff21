"""Multiple choice: ans_mask (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q06"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_ans_mask(ans_mask):
    expect_choice(ans_mask, "ans_mask", answer=ref.ans_mask, wrong=ref.MCQ_MISCONCEPTIONS["ans_mask"])
