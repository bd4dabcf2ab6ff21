"""Multiple choice: ans_scale (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q03"
register_misconceptions(__file__)


@test_case(points=1, hidden=True)
def test_ans_scale(ans_scale):
    # the 0 option b's entropies fall toward is that value, not option a's number counted from 0
    expect_choice(ans_scale, "ans_scale", answer=ref.ans_scale, wrong=ref.MCQ_MISCONCEPTIONS["ans_scale"],
                  bare_letter_only=True, values_in_options=(0,))
