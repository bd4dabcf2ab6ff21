"""Engine, naming round 42 (after blind41): answers whose form is the slip, told from their type or source alone.

- a shape given as tuple(t) (the tensor's slices: tuple_of_tensor_rows), as a NumPy array or NumPy integers
  (numpy_array_for_shape);
- a 0-d NumPy array where a number is asked (numpy_scalar_answer; the array used to cross as shape (1,));
- a matrix given as ragged rows (each row's kept entries: ragged_rows);
- a letter followed by a `#` comment inside the quotes (answer_extra_characters, the comment said);
- an answer still the template's `...`: answer_left_empty, or answer_compared_not_assigned where the notebook has
  `name == value` as a statement;
- bytes where a string is asked (`"C".encode()`: the sandbox refuses them, and that refusal was shown raw):
  bytes_for_text;
- a wrong letter picked by its position from constants (chr(ord("a") + 3), "abcd"[3], options[3]): answer_by_position,
  the count said and the option's meaning said as the option's, not as the student's belief (a student who counted
  from 1 believes nothing of the option their count landed on: blind32's and blind42's mis-names);
- a letter the code worked out in a cell that names an action without calling it (`out.sum().backward`): the
  probe did nothing, said as callable_not_called with the line (blind43).
Each is checked on values and sources of our own (not blind41's cells), with right neighbours that pass, and the
last two through the sandbox on the toy course."""
from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading.checks import Misconception, expect_choice, expect_matrix, expect_number, expect_shape
from autograder.grading.source_checks import compared_answer
from tests.conftest import FIXTURE_SUBS


def _key(check, *args, **kwargs) -> str | None:
    """The key a check names, None when it passes, "" for an unnamed failure."""
    try:
        check(*args, **kwargs)
    except Misconception as e:
        return e.key
    except AssertionError:
        return ""
    return None


# --- shapes ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, key", [
    (tuple(torch.zeros(4, 10, 10)), "tuple_of_tensor_rows"),
    (list(torch.ones(2, 3)), "tuple_of_tensor_rows"),            # rows of a (2, 3) tensor
    (tuple(torch.zeros(3, 5, 2, 2)), "tuple_of_tensor_rows"),
    (np.array([4, 10, 10]), "numpy_array_for_shape"),
    (np.arange(5)[[0, 2, 2]], "numpy_array_for_shape"),
    ((np.int64(4), np.int64(10)), "numpy_array_for_shape"),
    ([np.int32(2), np.int32(3), np.int32(4)], "numpy_array_for_shape"),
    # neither: left to the plain message
    ((torch.tensor(4), torch.tensor(10)), ""),                     # 0-d tensors are not a tensor's rows
    ((torch.zeros(3), torch.zeros(4)), ""),                        # slices of different shapes come from no tensor
    (np.array([4.0, 10.0]), ""),                                   # floats: not a shape of ints
    ("(4, 10, 10)", ""),
    # right shapes pass
    ((4, 10, 10), None), ([4, 10, 10], None), (torch.Size([4, 10, 10]), None), ((), None),
])
def test_a_shape_in_a_form_whose_type_is_the_slip(value: object, key: str | None) -> None:
    assert _key(expect_shape, value, "weights_shape") == key


def test_the_message_says_what_the_tensor_shape_was() -> None:
    with pytest.raises(Misconception) as told:
        expect_shape(tuple(torch.zeros(4, 10, 10)), "weights_shape")
    assert "4 tensors, each of shape (10, 10)" in str(told.value) and "(4, 10, 10)" in str(told.value)
    assert "tuple(t.shape)" in str(told.value)


# --- numbers -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, key", [
    (np.array(0.98), "numpy_scalar_answer"), (np.array([3.5]), "numpy_scalar_answer"),
    (np.array([[7]]), "numpy_scalar_answer"), (np.float32(1.5), "numpy_scalar_answer"),
    (np.array([1.0, 2.0]), ""),                                    # two numbers: not one wrapped
    (0.98, None), (torch.tensor(0.98), None),
])
def test_a_numpy_array_of_one_number_is_named(value: object, key: str | None) -> None:
    assert _key(expect_number, value, "dot_product_variance(...)") == key


def test_a_zero_dim_array_is_said_as_such() -> None:
    with pytest.raises(Misconception, match=r"a 0-d NumPy array holding 0\.98"):
        expect_number(np.array(0.98), "x")


# --- matrices ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, key", [
    ([[1.0], [0.4, 0.6], [0.2, 0.3, 0.5]], "ragged_rows"),         # causal rows, each the kept entries
    ([[0.5, 0.5], [1.0], [0.2, 0.3, 0.5]], "ragged_rows"),         # a padding mask's kept keys
    ([[1, 0, 0], [0.5, 0.5]], ""),                                 # too few rows for a (3, 3) matrix
    ([[1.0, 0, 0, 0], [0.5], [0.1]], ""),                          # a row longer than the matrix's
    ([[1.0], ["0.5", "0.5"], [0.2, 0.3, 0.5]], ""),                # not numbers throughout
    ([[1.0, 0, 0], [0.4, 0.6, 0], [0.2, 0.3, 0.5]], None),
])
def test_ragged_rows_where_a_matrix_is_asked(value: object, key: str | None) -> None:
    assert _key(expect_matrix, value, "weights3_causal", (3, 3)) == key


# --- letters -----------------------------------------------------------------------------------------------------

WRONG = {"A": "zero_after_softmax"}


@pytest.mark.parametrize("value, key", [
    ("C  # because the rows renormalise", "answer_extra_characters"),
    ("c# my guess", "answer_extra_characters"),
    ("(C) # see the lesson", "answer_extra_characters"),
    ("A  # zero them afterwards", "zero_after_softmax"),          # a wrong letter: the choice is the bigger mistake
    ("B  # not sure", ""),                                         # wrong, with no key: the plain "not the best"
    ("# C", ""),                                                   # a comment and no letter before it
    ("C", None),
])
def test_a_comment_inside_the_quotes(value: str, key: str | None) -> None:
    assert _key(expect_choice, value, "ans", answer="C", choices="ABCD", wrong=WRONG) == key


def test_the_comment_message_shows_the_fix() -> None:
    with pytest.raises(Misconception) as told:
        expect_choice("d  # only when they share a time axis", "ans_x", answer="d")
    assert "`#` comment typed inside the quotes" in str(told.value) and "ans_x = 'd'  # ..." in str(told.value)


# --- the template's `...` ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cells, found", [
    (["answer = ...", 'answer == "B"'], 'answer == "B"'.replace('"', "'")),
    (["answer = ...\nif True:\n    answer == 'B'"], "answer == 'B'"),           # under a module-level if
    (["answer = ...", "print(answer == 'B')"], None),                            # a comparison used, not dropped
    (["answer = ...", "other == 'B'"], None),
    (["def f():\n    answer == 'B'"], None),                                      # a function's own statement
    (["answer = ...", "'B' == answer"], None),                                   # the name not on the left
])
def test_a_dropped_comparison_is_found_in_the_source(cells: list[str], found: str | None) -> None:
    assert compared_answer(cells, "answer") == found


def _graded_with(tmp_path: Path, toy_grader, *extra: str):
    good = nbformat.read(FIXTURE_SUBS / "good.ipynb", as_version=4)
    nb = new_notebook(cells=list(good.cells) + [new_code_cell(c) for c in extra])
    path = tmp_path / "unfinished.ipynb"
    nbformat.write(nb, path)
    result = toy_grader.grade(path, "toy", seed=1)
    return [t for t in result.tests if t.question == "q2"]


def test_an_untouched_answer_is_named_left_empty(tmp_path: Path, toy_grader) -> None:
    q2 = _graded_with(tmp_path, toy_grader, "answer = ...")
    assert q2 and all(t.status == "failed" and t.misconception == "answer_left_empty" for t in q2), q2
    assert all("`answer` is not answered yet" in t.message for t in q2)


def test_an_answer_compared_instead_of_assigned_is_named(tmp_path: Path, toy_grader) -> None:
    q2 = _graded_with(tmp_path, toy_grader, "answer = ...", "answer == 'B'")
    assert q2 and all(t.misconception == "answer_compared_not_assigned" for t in q2), q2
    assert all("`answer == 'B'`" in t.message and "still the template's `...`" in t.message for t in q2)


# --- bytes (blind42: q5_answer = "C".encode("ascii")) ---------------------------------------------------------------

@pytest.mark.parametrize("text, key", [
    ("your code raised EncodeError: a value of type bytes cannot cross the sandbox boundary", "bytes_for_text"),
    ("your code raised EncodeError: a value of type bytearray cannot cross the sandbox boundary", "bytes_for_text"),
    ("your code raised EncodeError: a value of type generator cannot cross the sandbox boundary", "generator_returned"),
    ("your code raised EncodeError: a value of type Foo cannot cross the sandbox boundary", None),
    ("your code raised ValueError: bytes", None),
])
def test_bytes_refused_by_the_sandbox_are_named(text: str, key: str | None) -> None:
    from autograder.grading.checks import callable_not_called
    named = callable_not_called(text, "q5_answer(...)")
    assert (named.key if named is not None else None) == key
    if key == "bytes_for_text":
        assert named is not None and str(named).startswith("q5_answer is (or returns) a byte")


@pytest.mark.parametrize("cell", ["answer = 'B'.encode()", "answer = b'B'", "answer = bytearray(b'B')"])
def test_a_bytes_answer_is_named_through_the_sandbox(tmp_path: Path, toy_grader, cell: str) -> None:
    q2 = _graded_with(tmp_path, toy_grader, cell)
    assert q2 and all(t.status == "failed" and t.misconception == "bytes_for_text" for t in q2), q2


# --- a letter picked by its position (blind42: ans_mask = chr(ord("a") + 3) for the third option) --------------------

@pytest.mark.parametrize("cells, found", [
    (['ans = chr(ord("a") + 3)'], ("ans = chr(ord('a') + 3)", 3)),
    (['ans = "ABCD"[2].lower()'], ("ans = 'ABCD'[2].lower()", 2)),
    (["import string\nans = string.ascii_uppercase[1]"], ("ans = string.ascii_uppercase[1]", 1)),
    (['letters = ["A", "B", "C", "D"]', "ans = letters[0]"], ("ans = letters[0]", 0)),
    (['ans = chr(ord("a") + k)'], None),                      # a computed count: the code's pick (computed_answer)
    (['ans = "abcd"[-1]'], None),
    (['ans = "c"'], None),
    (['ans = chr(ord("b") + 1)'], None),                      # not counted from the first letter
    (['ans = "abcd"[len("xyz")]'], None),
])
def test_a_positional_letter_is_read_off_the_source(cells: list[str], found: tuple[str, int] | None) -> None:
    from autograder.grading.source_checks import positional_answer
    assert positional_answer(cells, "ans") == found


def _choice_key(tmp_source: str, value: str) -> tuple[str | None, str]:
    """The key and message expect_choice gives `value` (answer C, A's belief known) for a notebook of `tmp_source`."""
    from autograder.grading.checks import charges_recorded
    from autograder.grading.runner import SubmissionInfo
    with charges_recorded(SubmissionInfo(source=tmp_source, cells=(tmp_source,))):
        try:
            expect_choice(value, "ans", answer="C", choices="ABCD", wrong={"D": "zero_after_softmax"})
        except Misconception as e:
            return e.key, str(e)
        except AssertionError as e:
            return "", str(e)
    return None, ""


def test_a_letter_counted_from_one_is_told_by_its_position_not_a_belief() -> None:
    key, said = _choice_key('ans = chr(ord("a") + 3)   # the third option', "d")
    assert key == "answer_by_position", said
    assert "position 3 counting from 0, the fourth option" in said and "option D stands for" in said
    assert "that choice reflects" not in said               # no belief said as the student's


@pytest.mark.parametrize("source, value, key", [
    ('ans = "d"', "d", "zero_after_softmax"),               # written out: the student's choice keeps its belief
    ('ans = "ABCD"[2]', "C", None),                          # the right letter by position: nothing to say
    ('opts = ["B", "A", "D", "C"]\nans = opts[0]', "B", ""),  # position 0 is not 'B' here: nothing said of a count
])
def test_a_positional_reading_only_where_the_count_gives_the_letter(source: str, value: str, key: str | None) -> None:
    assert _choice_key(source, value)[0] == key


# --- a probe whose action is named and not called (blind43: `(_out ** 2).sum().backward`) ----------------------------

def _choice_in(cells: tuple[str, ...], value: str) -> tuple[str | None, str]:
    from autograder.grading.checks import charges_recorded
    from autograder.grading.runner import SubmissionInfo
    with charges_recorded(SubmissionInfo(source="\n".join(cells), cells=cells)):
        try:
            expect_choice(value, "ans", answer="D", choices="ABCD")
        except Misconception as e:
            return e.key, str(e)
        except AssertionError as e:
            return "", str(e)
    return None, ""


PROBE = "import torch\n_x = torch.ones(3, requires_grad=True)\n{action}\nans = 'C' if _x.grad is None else 'D'"


@pytest.mark.parametrize("action", ["(_x * 2).sum().backward", "_x.sum().backward"])
def test_an_uncalled_action_in_the_letters_cell_is_said(action: str) -> None:
    key, said = _choice_in((PROBE.format(action=action),), "C")
    assert key == "callable_not_called", said
    assert f"`{action}` names the method without calling it" in said


@pytest.mark.parametrize("cells", [
    (PROBE.format(action="_x.shape"),),                                   # a value shown at a cell's end: harmless
    ("_y = [1]\n_y.append", PROBE.format(action="pass")),                   # another cell's slip: not this letter's
])
def test_other_bare_attributes_leave_the_computed_letter(cells: tuple[str, ...]) -> None:
    assert _choice_in(cells, "C")[0] == "answer_computed_by_code"
