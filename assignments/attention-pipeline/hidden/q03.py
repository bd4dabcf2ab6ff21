"""Multiple choice: ans_scale (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q03"
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the assignment's diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


@test_case(points=1, hidden=True)
def test_ans_scale(ans_scale, submission=None):
    def check():
        D.raise_if_letter_past_options("ans_scale", ans_scale, submission)   # "e": counted one past d (blind54)
        # naming round 74: 'd' typed beside a comment that describes option b (mirror letters, blind75)
        D.raise_if_letter_contradicts_comment("ans_scale", ans_scale, submission)
        # 'c' worked out by comparing two values bound to one expression: a copied line (blind47), first (round 82)
        D.raise_if_same_expression_compared(ans_scale, submission)
        D.raise_if_scale_said_applied_elsewhere(ans_scale, submission)   # "the library scales anyway" (round 80)
        D.raise_if_letter_index_minus_power("ans_scale", ans_scale, ref.ans_scale, submission)   # "abcd"[-1 ** 2]
        # the 0 option b's entropies fall toward is that value, not option a's number counted from 0
        expect_choice(ans_scale, "ans_scale", answer=ref.ans_scale, wrong=ref.MCQ_MISCONCEPTIONS["ans_scale"],
                      bare_letter_only=True, values_in_options=(0,))
    # letters joined by `and` / `or` ("c" and "d" is "d"): what Python did with them said first (blind50)
    # answer_computed_by_code: what made the experiment mislead, where its cell shows it (blind64)
    # uniform [0, 1) draws in the experiment (rand, not randn) said as what misled it (round 74)
    D.hedge_said(lambda: D.with_experiment_said(lambda: D.with_uniform_draws_said(check, submission, "ans_scale"),
                                                submission, "ans_scale"), submission, "ans_scale", ans_scale)
