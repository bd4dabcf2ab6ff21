"""A multiple-choice answer in the wrong form is named for its form, in every assignment (checks.expect_choice):
a letter in a tuple or list, several letters, a letter with punctuation or with the option's words after it.
A written-out wrong letter names that choice's misconception; a bare letter in any case is judged as a letter."""
from __future__ import annotations

import pytest

from autograder.grading.checks import Misconception, expect_choice

WRONG = {"A": "zero_after_softmax", "D": "upper_triangular_mask"}


def _named(value: object, **kwargs: object) -> str | None:
    """The key expect_choice names for `value` (answer C), None when it passes, "" for an unnamed failure."""
    try:
        expect_choice(value, "ans", answer="C", choices="ABCD", wrong=WRONG, **kwargs)  # type: ignore[arg-type]
    except Misconception as e:
        return e.key
    except AssertionError:
        return ""
    return None


@pytest.mark.parametrize("value, key", [
    (("C",), "answer_in_container"), (["b"], "answer_in_container"), (("a",), "answer_in_container"),
    ("A or D", "answer_hedged"), ("b/c", "answer_hedged"), ("A, B", "answer_hedged"), ("c and d", "answer_hedged"),
    ("maybe B or C", "answer_hedged"),
    ("C.", "answer_extra_characters"), ("'C'", "answer_extra_characters"), ("[b]", "answer_extra_characters"),
    ("C. After zeroing, a row's weights no longer add up to 1", "answer_extra_characters"),
    ("C - the rows stop summing to one", "answer_extra_characters"),
    ("c: rows no longer sum to 1", "answer_extra_characters"),
    # a written-out wrong choice is named for the choice, which is the bigger mistake
    ("A) zero them after the softmax", "zero_after_softmax"), ("D. because of the mask", "upper_triangular_mask"),
    # blind31: a label before the letter, Markdown emphasis around it, an option's words with no letter at all
    ("Option C", "answer_extra_characters"), ("answer: c", "answer_extra_characters"),
    ("Choice (C)", "answer_extra_characters"), ("**C.**", "answer_extra_characters"), ("`c`", "answer_extra_characters"),
    ("After zeroing, a row's remaining weights no longer add up to 1", "answer_in_words"),
    ("the rows do not sum to one", "answer_in_words"),
])
def test_an_answer_in_the_wrong_form_is_named(value: object, key: str) -> None:
    assert _named(value) == key


@pytest.mark.parametrize("value", ["C", "c", " c ", "(C)", "C)", "C\n"])
def test_the_right_letter_alone_passes(value: str) -> None:
    assert _named(value) is None


@pytest.mark.parametrize("value, expected", [
    ("B", ""),                              # a wrong letter with no key: told it is not the best answer
    ("B. since it is simpler", ""),         # written out, no key for B: not named for its form
    ("A", "zero_after_softmax"),
    ("A or A", ""), ("Attention", ""), ("I think C", ""), (["C", "A"], ""), ("E.", ""), (("z",), ""),
])
def test_other_answers_are_not_named_for_their_form(value: object, expected: str) -> None:
    assert _named(value) == expected


@pytest.mark.parametrize("value", ["(c)", "C)"])
def test_bare_letter_only_names_brackets_the_notebook_check_rejects(value: str) -> None:
    assert _named(value) is None
    assert _named(value, bare_letter_only=True) == "answer_extra_characters"


def test_a_letter_from_another_alphabet_that_looks_latin_is_named_with_its_unicode_name():
    from autograder.grading import checks
    for typed, latin, name in (("\u0421", "C", "CYRILLIC CAPITAL LETTER ES"), ("\u0391", "A", "GREEK CAPITAL LETTER ALPHA"),
                               ("\uff22", "B", "FULLWIDTH LATIN CAPITAL LETTER B"), (" \u0441 ", "c", "CYRILLIC SMALL LETTER ES")):
        with pytest.raises(checks.Misconception) as e:
            checks.expect_choice(typed, "q5_answer", answer="c")
        assert e.value.key == "answer_lookalike_letter" and f"looks like {latin!r}" in str(e.value) and name in str(e.value)
    checks.expect_choice("C", "q5_answer", answer="c")            # the Latin letter itself passes
    for other in ("\u00e9", "\u0416", "CC"):                       # not a look-alike of a choice: the plain message
        with pytest.raises(AssertionError) as e:
            checks.expect_choice(other, "q5_answer", answer="c")
        assert getattr(e.value, "key", None) != "answer_lookalike_letter"


class _Notebook:
    def __init__(self, *cells: str) -> None:
        self.cells = list(cells)


@pytest.mark.parametrize("cells, key", [
    (['q5_answer: "C"'], "answer_annotated_not_assigned"),
    (["x = 1", 'q5_answer == "C"'], "answer_compared_not_assigned"),
    (['q5_answer: str = "C"'], None),            # an annotation with a value binds
    (['q5_answer: "C"', 'q5_answer = "C"'], None),   # bound elsewhere: not this
    (['q5_answer: "C"', 'if True:\n    q5_answer = "C"'], None),   # bound in module-level code, nested
    (['def f():\n    q5_anwser = "C"'], None),         # a function's own name is no global spelt near it
    (['other == "C"'], None),
    (['q5_anwser = "C"'], "answer_name_misspelled"),
    (['q5_anwser = "C"', 'q5_answr = "C"'], None),   # two near names: which one is meant is not said
    (['q7_answer = "C"'], None),                      # another question's answer is not a slip of this one's
])
def test_an_answer_left_unbound_by_a_colon_or_a_comparison_is_named_from_the_source(cells: list[str],
                                                                                     key: str | None) -> None:
    from autograder.grading.runner import unbound_answer
    named = unbound_answer("q5_answer", _Notebook(*cells))  # type: ignore[arg-type]
    assert (named.key if named is not None else None) == key


@pytest.mark.parametrize("value, key", [
    ((2, 8, 128.0), "float_for_int"), ([4.0, 10, 10], "float_for_int"), ((2, 8, 128.5), ""),
    ((2, 8, float("nan")), ""),
    ((10 ** 400, 2.0), "float_for_int"), ((10 ** 5000, 2.0), "float_for_int"), ((2, float("inf")), ""),
    ((2, "8", 128), ""), ((2.0,) * 9, ""), ((True, 3), ""), ((2, 8, 128), None)])
def test_a_shape_with_a_whole_float_is_named_float_for_int(value: object, key: str | None) -> None:
    # blind32: 2 * 64 / 1 is 128.0; a float that is not whole, NaN, a string or a long tuple stays unnamed
    from autograder.grading.checks import expect_shape
    try:
        expect_shape(value, "out_shape")
    except Misconception as e:
        assert key and e.key == key and repr(next(n for n in value if isinstance(n, float))) in str(e), e  # type: ignore[attr-defined]
        return
    except AssertionError:
        assert key == "", value
        return
    assert key is None
