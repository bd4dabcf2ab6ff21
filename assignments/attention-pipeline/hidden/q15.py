"""Multiple choice: ans_cross_causal (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q15"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_ans_cross_causal(ans_cross_causal):
    expect_choice(ans_cross_causal, "ans_cross_causal", answer=ref.ans_cross_causal, wrong=ref.MCQ_MISCONCEPTIONS["ans_cross_causal"],
                  bare_letter_only=True)
