"""Multiple choice: ans_complexity (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q16"
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
def test_ans_complexity(ans_complexity, submission=None):
    def check():
        D.raise_if_letter_past_options("ans_complexity", ans_complexity, submission)   # "e": counted one past d (blind54)
        # an option's words ("quadratic", "O(T^2)") for its letter: named after that option (naming29)
        D.raise_if_option_text("ans_complexity", ans_complexity, ref.ans_complexity,
                               ref.MCQ_MISCONCEPTIONS["ans_complexity"])
        # 'a' worked out by a probe that counts the scores with len() (rows only, blind47)
        D.raise_if_cost_counted_with_len(ans_complexity, submission)
        # a cost probe that writes T squared as T ^ 2 (xor), right with ** there (blind52)
        D.raise_if_caret_for_power(ans_complexity, submission)
        # the 2 of option c's T^2 (the exponent) is that value, not option b's number (blind36)
        expect_choice(ans_complexity, "ans_complexity", answer=ref.ans_complexity,
                      wrong=ref.MCQ_MISCONCEPTIONS["ans_complexity"], bare_letter_only=True, values_in_options=(2,))
    # letters joined by `and` / `or` ("c" and "d" is "d"): what Python did with them said first (blind50)
    D.hedge_said(lambda: D.with_experiment_said(check, submission, "ans_complexity"), submission, "ans_complexity",
                 ans_complexity)   # a size left at its default in the probe said (naming round 65)
