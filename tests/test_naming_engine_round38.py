"""Engine keys from blind37 (issue 21), for every assignment's multiple-choice answers: a letter left in a NumPy
array of text (it used to stop the answer at the sandbox boundary, "your code raised TypeError"), and a letter
with invisible characters pasted with it."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.errors import ProtocolError
from autograder.grading.checks import Misconception, expect_choice
from autograder.sandbox.protocol import (MAX_STRING_ARRAY, MAX_STRING_IN_ARRAY, EncodeError, decode_value,
                                         encode_value)
from tests.heldout.harness import Variant, grade, graded_as


def _named(value: object) -> Misconception:
    with pytest.raises(Misconception) as e:
        expect_choice(value, "q5_answer", answer="c")
    return e.value


# --- an array of text crosses the sandbox as what it is ---------------------------------------------------

@pytest.mark.parametrize("array", [np.array(["C"]), np.array([["b", "c"], ["d", "a"]]), np.array([], dtype=np.str_),
                                   np.array("A"), np.array(["ünïcödé", ""])])
def test_a_numpy_array_of_text_crosses_as_itself(array):
    back = decode_value(encode_value(array))
    assert isinstance(back, np.ndarray) and back.dtype.kind == "U" and back.shape == array.shape
    assert back.tolist() == array.tolist()


@pytest.mark.parametrize("tree", [
    {"__strarray__": ["a", "b"], "shape": [3]},            # a shape its strings do not fill
    {"__strarray__": ["a", 1], "shape": [2]},              # not all text
    {"__strarray__": ["a"], "shape": [-1]},                # a negative size
    {"__strarray__": "ab", "shape": [2]},                  # not a list
    {"__strarray__": ["a"], "shape": [1], "dtype": "U"},   # an extra field
    {"__strarray__": ["a"] * (MAX_STRING_ARRAY + 1), "shape": [MAX_STRING_ARRAY + 1]},
    {"__strarray__": [], "shape": [0] * 9},                # too many axes
    # one long string among many: NumPy pads each to the longest (10,000 x 1 MB would be 40 GB in the grader)
    {"__strarray__": ["x" * (MAX_STRING_IN_ARRAY + 1)] + ["a"] * 9_999, "shape": [10_000]},
])
def test_a_malformed_array_of_text_from_the_worker_is_refused(tree):
    with pytest.raises(ProtocolError):
        decode_value(tree)


@pytest.mark.parametrize("array", [np.array(["x"] * (MAX_STRING_ARRAY + 1)),
                                   np.array(["x" * (MAX_STRING_IN_ARRAY + 1), "a"])])
def test_a_huge_array_of_text_is_refused_in_the_worker(array):
    with pytest.raises(EncodeError):
        encode_value(array)


# --- a letter left in an array: named for the array ----------------------------------------------------------

@pytest.mark.parametrize("value", [np.array(["C"]), np.array([["c"]]), np.array([" C "]), np.array(["A"])])
def test_a_letter_left_in_a_numpy_array_is_named_answer_in_container(value):
    e = _named(value)
    assert e.key == "answer_in_container" and "NumPy array holding a letter" in str(e) and "str(arr.item())" in str(e)


@pytest.mark.parametrize("value", [np.array(["C", "D"]), np.array(["maybe"]), np.array([3])])
def test_an_array_that_holds_no_single_letter_is_not_named_so(value):
    with pytest.raises(AssertionError) as e:
        expect_choice(value, "q5_answer", answer="c")
    assert getattr(e.value, "key", None) != "answer_in_container"


# --- invisible characters pasted with the letter ---------------------------------------------------------------

@pytest.mark.parametrize("value, code", [("A\u200b", "U+200B"), ("\ufeffC", "U+FEFF"), ("B\u00ad", "U+00AD"),
                                         ("\u2060d\u2060", "U+2060"), ("(\u200bC)", "U+200B")])
def test_a_letter_with_an_invisible_character_is_named_for_it(value, code):
    e = _named(value)
    assert e.key == "answer_invisible_character" and code in str(e) and "retype" in str(e)


@pytest.mark.parametrize("value", ["C", " c ", "(C)", "\u00a0C\u00a0"])   # a no-break space is space: stripped
def test_a_plain_letter_is_still_right(value):
    expect_choice(value, "q5_answer", answer="c")


def test_invisible_characters_around_no_letter_are_not_named_so():
    with pytest.raises(AssertionError) as e:
        expect_choice("\u200bmaybe\u200b", "q5_answer", answer="c")
    assert getattr(e.value, "key", None) != "answer_invisible_character"


# --- through the sandbox: a scaled-attention notebook -----------------------------------------------------

_graded = graded_as("scaled-attention", "round38")


@pytest.mark.parametrize("source, key", [
    ('import numpy as np\nopts = np.array(list("ABCD"))\nq5_answer = opts[opts == "C"]\n', "answer_in_container"),
    ('import numpy as np\nq5_answer = np.char.upper(np.array(["c"]))\n', "answer_in_container"),
    ('q5_answer = "C\\u200b"\n', "answer_invisible_character"),
])
def test_answers_of_these_forms_are_named_through_the_sandbox(grader, source, key):
    outcome = _graded(grader, {"q5_answer": source})
    named = [(q, k) for q, _n, k, _m in outcome.failed]
    assert named and all(q == "q5" and k == key for q, k in named), outcome.failed


# --- several whole numbers where one is asked (blind38's attn_entries = (1024, 1024)) -------------------------

@pytest.mark.parametrize("value, product", [((1024, 1024), 1048576), ([4, 10, 10], 400), (torch.Size([3, 4]), 12)])
def test_a_shape_given_for_a_number_is_named_with_its_product(value, product):
    from autograder.grading.checks import expect_number
    with pytest.raises(Misconception) as e:
        expect_number(value, "attn_entries")
    assert e.value.key == "shape_for_number" and str(product) in str(e.value)


@pytest.mark.parametrize("value", [(1.0, 2), (True, 2), (3, -1), ("4", "4"), tuple(range(9))])
def test_other_tuples_are_not_named_a_shape(value):
    from autograder.grading.checks import expect_number
    with pytest.raises(AssertionError) as e:
        expect_number(value, "attn_entries")
    assert getattr(e.value, "key", None) != "shape_for_number"


def test_a_shape_given_for_a_count_is_named_through_the_sandbox(grader):
    with tempfile.TemporaryDirectory() as tmp:
        cells = {"attn_entries": "T, head = 1024, 64\nattn_entries = (T, T)\nscore_madds = T * T * head\n"
                                 "cost_ratio = 4\n"}
        outcome = grade(grader, Variant("sdpa-from-scratch", "round38", cells, False), Path(tmp))
    named = [(q, n, k) for q, n, k, _m in outcome.failed]
    assert ("q8", "test_attn_entries", "shape_for_number") in named, outcome.failed


# --- numbers written as strings in a matrix answer (blind38's weights3 = [[f"{x:.4f}" ...]]) -------------------

@pytest.mark.parametrize("value", [[["0.2119", "0.5761"], ["1", "0"]], [[" 0.5", "0.25"]], ("0.1", "2e-3")])
def test_a_matrix_of_numbers_as_strings_is_named_number_as_string(value):
    from autograder.grading.checks import expect_matrix
    with pytest.raises(Misconception) as e:
        expect_matrix(value, "weights3", (len(value), len(value[0])) if isinstance(value[0], list) else (2,))
    assert e.value.key == "number_as_string" and ("'0.2119'" in str(e.value) or "'" in str(e.value))


@pytest.mark.parametrize("value", [[["0.2", "x"]], [["0.2", None]], [["nan", "0.1"]], [[]], [["0.1"] * 20001]])
def test_other_unreadable_matrices_stay_a_plain_error(value):
    from autograder.grading.checks import expect_matrix
    with pytest.raises(AssertionError) as e:
        expect_matrix(value, "weights3", (1, 2))
    assert getattr(e.value, "key", None) != "number_as_string"


# --- a one-edit fix is never an edit of the grader's own return (blind38 sdpa q6's "line 1") ------------------

def test_a_value_cells_one_edit_fixes_are_all_in_the_students_code():
    from autograder.grading.repair import value_edits
    found = value_edits(["x = 2\ny = x * 3\nans = y + 1\nprint(ans)"], ["ans"], "_copy")
    assert found is not None
    index, edits = found
    # the name read in print(ans), line 4, may be changed; the answer read back by the grader may not
    assert {(e.line, e.before, e.after) for e in edits if e.before == "ans"} == {(4, "ans", "x"), (4, "ans", "y")}
    assert all(1 <= e.line <= 4 for e in edits)
