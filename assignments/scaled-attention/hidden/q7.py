"""Hidden test for q7: a multiple-choice answer from the lesson's "check your understanding"."""
from otter.test_files import test_case

from autograder.grading.checks import (Misconception, expect_choice, raise_if_answer_copied, raise_if_answer_overwritten,
                                      register_misconceptions)
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q7"
points = 1
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


@test_case(points=1, hidden=True)
def test_q7_answer(q7_answer, submission=None):
    if isinstance(q7_answer, str):   # another question's letter (a function's name copied is not that)
        raise_if_answer_copied(submission, "q7_answer", q7_answer, lambda v: v.strip().upper() == ref.q7_answer)
    D.raise_if_read_under_other_key("q7_answer", q7_answer, ref.q7_answer, submission)   # naming67
    raise_if_answer_overwritten(q7_answer, "q7_answer", ref.q7_answer, ref.MCQ_MISCONCEPTIONS["q7_answer"])
    D.raise_if_keyword_search("q7_answer", q7_answer, ref.q7_answer, submission)
    D.raise_if_probe_slip("q7_answer", q7_answer, ref.q7_answer, submission)   # the probe's own slip
    D.raise_if_computed_choice("q7_answer", q7_answer, ref.q7_answer, submission)
    D.raise_if_option_first_char("q7_answer", q7_answer)
    D.raise_if_option_text("q7_answer", q7_answer, ref.q7_answer, ref.MCQ_MISCONCEPTIONS["q7_answer"])
    D.raise_if_lesson_letter("q7_answer", q7_answer, ref.q7_answer, ref.MCQ_MISCONCEPTIONS["q7_answer"], submission)
    D.raise_if_letter_past_options("q7_answer", q7_answer, submission)   # "E": counted one past D
    D.raise_if_letter_in_dict("q7_answer", q7_answer, ref.q7_answer, ref.MCQ_MISCONCEPTIONS["q7_answer"])
    try:
        expect_choice(q7_answer, "q7_answer", answer=ref.q7_answer, choices="ABCD",
                      wrong=ref.MCQ_MISCONCEPTIONS["q7_answer"])
    except Misconception as m:   # naming67: a probe's size read from another cell, said where the source shows it
        raise D.probe_global_size_said(m, "q7_answer", submission) from None


test_q7_answer.test_func.on_missing = D.on_missing_answer
