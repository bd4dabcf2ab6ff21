"""Multiple choice: ans_mask (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q06"
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
def test_ans_mask(ans_mask, submission=None):
    def check():
        D.raise_if_letter_past_options("ans_mask", ans_mask, submission)   # "e": counted one past d (blind54)
        D.raise_if_answer_hedged(ans_mask, "ans_mask", ref.ans_mask, ref.MCQ_MISCONCEPTIONS["ans_mask"])
        expect_choice(ans_mask, "ans_mask", answer=ref.ans_mask, wrong=ref.MCQ_MISCONCEPTIONS["ans_mask"],
                      bare_letter_only=True)
    # letters joined by `and` / `or` ("c" and "d" is "d"): what Python did with them said first (blind50)
    # answer_computed_by_code: what made the experiment mislead, where its cell shows it (blind64)
    D.hedge_said(lambda: D.with_experiment_said(check, submission, "ans_mask"), submission, "ans_mask", ans_mask)


test_ans_mask.test_func.on_missing = D.on_missing_copied_answer_cell   # a copied letter cell (blind57)
