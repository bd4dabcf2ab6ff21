"""Question 7: the zero-after-softmax trap (multiple choice)."""
import re

from otter.test_files import test_case

from autograder.grading.checks import Misconception, describe, expect_choice, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q7"
register_misconceptions(__file__)

WRONG = {"A": "zero_after_softmax", "B": "upper_triangular_mask", "D": "zero_after_softmax"}
# an option written out: its letter, then ")", ".", ":", "-" or a parenthesised gloss ("D (float16 underflow)")
_LEADING = re.compile(r"\s*\(?([A-Da-d])(?:\)|\.|:|\s*-|\s+\()")


def _raise_if_written_out(value):
    """An answer that starts with an option's letter and goes on with words: which letter it starts with and
    whether that letter is the answer; only the letter is graded."""
    if not isinstance(value, str) or len(value.strip().strip("()").strip()) <= 1:
        return
    m = _LEADING.match(value)
    if m is None:
        return
    letter = m.group(1).upper()
    if letter == ref.q_trap_answer.strip().upper():
        raise AssertionError(f"q_trap_answer is {value!r}: it starts with {letter}, the right choice, but the answer "
                             f"must be the letter only: q_trap_answer = \"{letter}\"")
    raise Misconception(WRONG[letter], f"q_trap_answer is {value!r}: it starts with {letter}, which is not the best "
                        f"answer: that choice reflects {describe(WRONG[letter])}; answer with one letter only")


def _raise_if_hedged(value):
    """Two or more option letters joined by ",", "/", "or", "and", "&" or spaces ("C, D"): one letter is asked."""
    if not isinstance(value, str):
        return
    parts = [p for p in re.split(r"\s*(?:,|/|&|\bor\b|\band\b|\s)\s*", value.strip()) if p]
    if len(parts) > 1 and all(re.fullmatch(r"[A-Da-d]", p) for p in parts) and len({p.upper() for p in parts}) > 1:
        raise Misconception("answer_hedged", f"q_trap_answer is {value!r}, {len({p.upper() for p in parts})} "
                            "letters: " + describe("answer_hedged"))


@test_case(points=1, hidden=True)
def test_trap_answer(q_trap_answer):
    # what each wrong choice reveals (see the notebook's options)
    _raise_if_hedged(q_trap_answer)
    _raise_if_written_out(q_trap_answer)
    expect_choice(q_trap_answer, "q_trap_answer", answer=ref.q_trap_answer, choices="ABCD", wrong=WRONG,
                  hint="compare what each approach does to the sum of a row's weights")
