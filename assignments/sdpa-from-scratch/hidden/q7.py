"""Question 7: the zero-after-softmax trap (multiple choice)."""
import importlib.util
from pathlib import Path

from otter.test_files import test_case

from autograder.grading.checks import (Misconception, describe, expect_choice, raise_if_answer_overwritten,
                                      register_misconceptions)
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q7"
register_misconceptions(__file__)


def _diagnose():
    """hidden/_diagnose.py, beside this file (the hidden folder is no package)."""
    path = Path(__file__).with_name("_diagnose.py")
    spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _diagnose()

WRONG = {"A": "zero_after_softmax", "B": "upper_triangular_mask", "D": "zeroing_harmless_but_float16"}

# round44 (blind43 q7_letter_taken_from_the_lessons_quiz): lesson 80's quiz asks this very question ("weights =
# F.softmax(scores, dim=-1); weights[~causal_mask] = 0.0. What is wrong?") with its options in another order: its
# answer is A, "The weights no longer sum to 1", which is C here, while A here says nothing is wrong
LESSON_LETTER = ("A", "\"the weights no longer sum to 1\"")
_HERE = {"A": "nothing is wrong: zeroing after the softmax equals -inf before it"}


def _raise_if_lesson_letter(value, submission):
    """A wrong bare letter that is the one lesson 80's quiz gives for this question. answer_lesson_80_quiz_letter, the
    lesson's reading first, when a cell that sets q_trap_answer cites the lesson or its quiz; else the letter's own
    misconception here (zero_after_softmax) first, the lesson's order after it (the judges of blind81-83: a lead about
    the lesson is beside the point for a student whose cell gives another reason).
    A letter the cell's code works out is left to expect_choice (answer_computed_by_code)."""
    if not isinstance(value, str):
        return
    letter = value.strip().strip("()").strip().upper()
    lesson, there = LESSON_LETTER
    if letter != lesson or letter == ref.q_trap_answer.upper():
        return
    from autograder.grading.source_checks import cells_of, computed_answer, lesson_cited
    all_cells = cells_of(submission) if submission is not None else []
    if computed_answer(all_cells, "q_trap_answer"):
        return
    said = (f"q_trap_answer is {value!r}, the letter lesson 80's quiz gives for this question, but the lesson orders "
            f"its options differently (there {lesson} is {there}, which is {ref.q_trap_answer} here); in this "
            f"notebook {letter} says {_HERE[letter]}, not the best answer")
    cite = lesson_cited(all_cells, "q_trap_answer")
    if cite is not None:
        raise Misconception("answer_lesson_80_quiz_letter", f"{said}; its cell cites the lesson ({cite!r}): "
                            + describe("answer_lesson_80_quiz_letter"))
    key = WRONG.get(letter)
    if key:   # the cell does not cite the lesson: the diagnosis first, the lesson's order after it, as a side note
        raise Misconception(key, f"q_trap_answer is {value!r}: in this notebook {letter} says {_HERE[letter]}, not the "
                            f"best answer; that choice reflects {describe(key)} (if the letter came from lesson 80's "
                            f"quiz: the lesson orders its options differently, there {lesson} is {there})")


@test_case(points=1, hidden=True)
def test_trap_answer(q_trap_answer, submission=None):
    raise_if_answer_overwritten(q_trap_answer, "q_trap_answer", ref.q_trap_answer, WRONG)
    _raise_if_lesson_letter(q_trap_answer, submission)
    # what each wrong choice reveals (see the notebook's options)
    # round55: a check that picks its letter whatever the tensors hold (.any() of a match, `verdict is False`)
    slip = diag.trap_check_words(submission, q_trap_answer, ref.q_trap_answer)
    expect_choice(q_trap_answer, "q_trap_answer", answer=ref.q_trap_answer, choices="ABCD", wrong=WRONG,
                  hint=(slip + "; " if slip else "") + "compare what each approach does to the sum of a row's weights")
