"""Multiple choice: ans_cross_shapes (one of "a", "b", "c", "d")."""
from otter.test_files import test_case

from autograder.grading.checks import expect_choice, register_misconceptions
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q14"
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
def test_ans_cross_shapes(ans_cross_shapes, submission=None):
    # letters joined by `and` / `or` ("c" and "d" is "d"): what Python did with them said first (blind50)
    def check():
        # "e" counted out one past the last option, d (blind54)
        D.raise_if_letter_past_options("ans_cross_shapes", ans_cross_shapes, submission)
        # naming round 74: 'c' from scores written keys first (np.dot(K, Q.T)); a letter its own comment contradicts
        D.raise_if_keys_first_scores_said(ans_cross_shapes, submission)
        D.raise_if_letter_contradicts_comment("ans_cross_shapes", ans_cross_shapes, submission)
        expect_choice(ans_cross_shapes, "ans_cross_shapes", answer=ref.ans_cross_shapes,
                      wrong=ref.MCQ_MISCONCEPTIONS["ans_cross_shapes"], bare_letter_only=True)
    # answer_computed_by_code: what made the experiment mislead, where its cell shows it (blind64)
    D.hedge_said(lambda: D.with_experiment_said(check, submission, "ans_cross_shapes"), submission, "ans_cross_shapes", ans_cross_shapes)
