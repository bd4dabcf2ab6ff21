"""Letters the notebook's code worked out into something that is no letter (blind50, scaled-attention): a dict look-up
with .get whose key is missing gives None (answer_lookup_missed, said with the statement, only where no cell that
assigns the answer stopped), and chr of a number whose digits read as hex give the letter meant (chr(44) is ',',
chr(0x44) is 'D') is answer_computed_by_code with that said. Right answers written the same ways keep full marks."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


_graded = graded_as("scaled-attention", "answers50")


@pytest.mark.parametrize("cell", [
    '_by_words = {"weighted average": "A", "itself": "B"}\nq6_answer = _by_words.get("a weighted average")\n',
    '_options = {"a": "A", "b": "B", "c": "C", "d": "D"}\nq6_answer = _options.get("A")   # keys are lower case\n',
])
def test_a_missed_lookup_is_named(grader: Grader, cell: str) -> None:
    message = assert_named(_graded(grader, {"q6_answer": cell}), "answer_lookup_missed", "q6", tests=1)[0][3]
    assert ".get" in message and "None" in message


def test_a_lookup_that_hits_keeps_full_marks(grader: Grader) -> None:
    cell = '_options = {"a": "A", "b": "B"}\nq6_answer = _options.get("a")\n'
    assert_full_marks(_graded(grader, {"q6_answer": cell}))


def test_a_lookup_in_a_cell_that_stopped_is_not_called_a_miss(grader: Grader) -> None:
    # the dict is never defined: the cell stops with a NameError, so q6_answer is undefined, not a .get's None
    outcome = _graded(grader, {"q6_answer": "q6_answer = _never_defined.get('A')\n"})
    assert outcome.failed and all(k != "answer_lookup_missed" for _, _, k, _ in outcome.failed), outcome.failed


@pytest.mark.parametrize(("number", "meant"), [(44, "D"), (42, "B"), (61, "a")])
def test_chr_of_a_hex_code_typed_as_decimal_is_said(grader: Grader, number: int, meant: str) -> None:
    message = assert_named(_graded(grader, {"q7_answer": f"q7_answer = chr({number})   # the letter's code\n"}),
                           "answer_computed_by_code", "q7", tests=1)[0][3]
    assert f"chr({number}) is {chr(number)!r}" in message and repr(meant) in message


def test_chr_of_the_right_decimal_code_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {"q7_answer": "q7_answer = chr(68)\n"}))
