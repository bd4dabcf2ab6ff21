"""Question 7: the zero-after-softmax trap (multiple choice)."""
from otter.test_files import test_case

from autograder.checks import Misconception
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q7"

# what each wrong choice reveals (see the notebook's options)
_WRONG = {
    "A": "zero_after_softmax",
    "B": "upper_triangular_mask",
    "D": "zero_after_softmax",
}


@test_case(points=1, hidden=True)
def test_trap_answer(q_trap_answer):
    if q_trap_answer is None or q_trap_answer is Ellipsis:
        raise AssertionError("q_trap_answer is not set")
    if not isinstance(q_trap_answer, str) or q_trap_answer.strip().upper() not in ("A", "B", "C", "D"):
        raise AssertionError('q_trap_answer should be one letter: "A", "B", "C" or "D"')
    letter = q_trap_answer.strip().upper()
    if letter == ref.q_trap_answer:
        return
    if letter in _WRONG:
        raise Misconception(_WRONG[letter], "q_trap_answer is not the best answer: compare what each "
                            "approach does to the sum of a row's weights")
    raise AssertionError("q_trap_answer is not the best answer")
