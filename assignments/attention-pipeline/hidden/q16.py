"""Multiple choice: ans_complexity (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q16"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_ans_complexity(ans_complexity):
    expect_choice(ans_complexity, "ans_complexity", answer=ref.ans_complexity, wrong=ref.MCQ_MISCONCEPTIONS["ans_complexity"],
                  bare_letter_only=True)
