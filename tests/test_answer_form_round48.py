"""Answers of the wrong form, after blind48 (engine): a lazy iterator where a value is asked (Python 2's filter over a
string gave a string; Python 3's gives a filter object the sandbox cannot send), a letter in LaTeX dollars or angle
brackets, and the generic message showing what was given. My own cases, not blind48's cells."""
from __future__ import annotations

import pytest

from autograder.grading.checks import Misconception, callable_not_called, expect_choice
from autograder.sandbox import protocol


@pytest.mark.parametrize("value", [filter(str.isupper, "abCd"), map(str.upper, "c"), zip("c", "d"), reversed("dc"),
                                   {"c": 1}.keys(), iter(["c"]), enumerate("c")])
def test_a_lazy_iterator_answer_is_named_from_the_sandbox_refusal(value):
    with pytest.raises(protocol.EncodeError) as refused:
        protocol.encode_value(value)
    named = callable_not_called(f"EncodeError: {refused.value}", "q5_answer")
    assert named is not None and named.key == "lazy_iterator_answer", str(refused.value)
    assert type(value).__name__ in str(named)


def test_other_refusals_are_not_told_as_iterators():
    with pytest.raises(protocol.EncodeError) as refused:
        protocol.encode_value(object())
    assert callable_not_called(f"EncodeError: {refused.value}", "q5_answer") is None


@pytest.mark.parametrize("value", ["$C$", "$ c $", "<C>", "{C}", "**C**", "`c`"])
def test_a_decorated_letter_is_told_with_its_letter(value):
    with pytest.raises(Misconception) as told:
        expect_choice(value, "q7_answer", answer="c")
    assert told.value.key == "answer_extra_characters" and "'C'" in str(told.value).replace("'c'", "'C'")


def test_the_generic_form_message_shows_what_was_given():
    for value in ("$$", "Q", "e", "??"):
        with pytest.raises(AssertionError) as told:
            expect_choice(value, "q7_answer", answer="c")
        assert not isinstance(told.value, Misconception) and repr(value) in str(told.value), str(told.value)


def test_a_huge_whole_number_is_a_fail_not_a_grader_error():
    from autograder.grading.checks import expect_int, expect_number
    for value in (1 << 1280, -(10 ** 400)):
        for read in (expect_number, expect_int):
            with pytest.raises(AssertionError) as told:
                read(value, "score_madds")
            assert "digits" in str(told.value)
    assert expect_number(1 << 900, "x") == float(1 << 900)      # large but a float: read as before
