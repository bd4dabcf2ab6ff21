"""Multiple choice: ans_cross_causal (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q15"
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
def test_ans_cross_causal(ans_cross_causal, submission=None):
    # letters joined by `and` / `or` ("c" and "d" is "d"): what Python did with them said first (blind50)
    def check():
        # "e" counted out one past the last option, d (blind54)
        D.raise_if_letter_past_options("ans_cross_causal", ans_cross_causal, submission)
        D.raise_if_answer_of_other_question(submission, "ans_cross_causal", ans_cross_causal)   # = ans_mask (blind67)
        expect_choice(ans_cross_causal, "ans_cross_causal", answer=ref.ans_cross_causal,
                      wrong=ref.MCQ_MISCONCEPTIONS["ans_cross_causal"], bare_letter_only=True)
    D.hedge_said(check, submission, "ans_cross_causal", ans_cross_causal)
