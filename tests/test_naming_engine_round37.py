"""Engine keys from blind36 (issue 21): crashes whose words prove a fixed-rank matrix product."""
from __future__ import annotations

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.crash_words import crash_words


def _raised(fn) -> StudentCodeError:
    try:
        fn()
    except RuntimeError as e:
        return StudentCodeError("RuntimeError", str(e))
    raise AssertionError("did not raise")


@pytest.mark.parametrize("product, key", [
    (lambda: torch.mm(torch.ones(2, 3, 4), torch.ones(4, 3)), "matmul_fixed_rank"),      # blind36: torch.mm on batched Q
    (lambda: torch.ones(3, 4).mm(torch.ones(2, 4, 3)), "matmul_fixed_rank"),             # a batched second operand
    (lambda: torch.bmm(torch.ones(2, 2, 3, 4), torch.ones(2, 2, 4, 3)), "bmm_of_matrices"),  # bmm given heads too
    (lambda: torch.bmm(torch.ones(3, 4), torch.ones(4, 3)), "bmm_of_matrices"),          # bmm given matrices
])
def test_a_fixed_rank_matrix_product_is_named_by_its_words(product, key):
    named = crash_words(_raised(product))
    assert named is not None and named.key == key and "torch.matmul" in str(named)


def test_the_words_quoted_in_a_failure_message_name_it_too():
    named = crash_words("the output is wrong: your code raised RuntimeError: self must be a matrix")
    assert named is not None and named.key == "matmul_fixed_rank"


@pytest.mark.parametrize("message", ["mat1 and mat2 shapes cannot be multiplied (5x12 and 0x5)",
                                     "expected self must be a matrix of floats",
                                     "size mismatch, got input (3), mat (3x4), vec (3)"])
def test_other_product_errors_are_not_named_so(message):
    named = crash_words(StudentCodeError("RuntimeError", message))
    assert named is None or named.key != "matmul_fixed_rank"


# --- an answer copied from another question's variable (blind36's q7_answer = q6_answer) ----------------------

def _sub(*cells: str):
    from types import SimpleNamespace
    return SimpleNamespace(cells=list(cells))


def test_a_wrong_answer_copied_from_another_question_is_named_for_the_copy():
    from autograder.grading.checks import Misconception, raise_if_answer_copied
    with pytest.raises(Misconception) as e:
        raise_if_answer_copied(_sub('q6_answer = "A"', 'q7_answer = q6_answer'), "q7_answer", "A",
                               lambda v: v == "C")
    assert e.value.key == "answer_copied_from_other_question" and "`q6_answer`" in str(e.value)


@pytest.mark.parametrize("cells, value", [
    (('q6_answer = "C"', 'q7_answer = q6_answer'), "C"),                 # copied, and right: nothing to charge
    (('q7_answer = "A"',), "A"),                                          # its own wrong letter: the letter's check
    (('q7_answer = q6_answer', 'q7_answer = "A"'), "A"),                  # the copy overwritten later
    (('q7_answer = q6_answer.strip()',), "A"),                            # a call, not the bare name
])
def test_no_copy_is_charged_where_the_source_or_the_value_says_otherwise(cells, value):
    from autograder.grading.checks import raise_if_answer_copied
    raise_if_answer_copied(_sub(*cells), "q7_answer", value, lambda v: v == "C")


def test_a_number_the_options_show_is_that_value_not_an_option_number():
    """blind36: ans_complexity = 2 meant the 2 of O(T^2), not option 2."""
    from autograder.grading.checks import Misconception, expect_choice
    with pytest.raises(Misconception) as e:
        expect_choice(2, "ans_complexity", answer="c", values_in_options=(1, 2, 3))
    assert e.value.key == "answer_value_not_letter"
    with pytest.raises(Misconception) as e:
        expect_choice(2, "ans_complexity", answer="c")                        # no such number in the options
    assert e.value.key == "answer_option_number"
    with pytest.raises(Misconception) as e:
        expect_choice(4, "ans_complexity", answer="c", values_in_options=(1, 2, 3))
    assert e.value.key == "answer_option_number"


@pytest.mark.parametrize("call", [lambda: __import__("numpy").finfo(torch.float32),
                                  lambda: __import__("numpy").iinfo(torch.int64)])
def test_numpy_info_of_a_torch_dtype_is_named_by_its_words(call):
    """blind36: np.finfo(dtype).min with a torch dtype, for a mask's fill value."""
    try:
        call()
    except ValueError as e:
        named = crash_words(StudentCodeError("ValueError", str(e)))
    assert named is not None and named.key == "numpy_finfo_of_torch_dtype"


@pytest.mark.parametrize("value, key", [((72,), "answer_in_container"), ([3.5], "answer_in_container"),
                                        (__import__("numpy").int64(2), "numpy_scalar_answer")])
def test_a_number_in_a_wrapper_is_named_for_the_wrapper(value, key):
    """blind36: a trailing comma's (72,), np.linalg.matrix_rank's numpy.int64."""
    from autograder.grading.checks import Misconception, expect_number
    with pytest.raises(Misconception) as e:
        expect_number(value, "count")
    assert e.value.key == key


# (1, 2), several whole numbers, is shape_for_number since blind38 (tests/test_naming_engine_round38.py)
@pytest.mark.parametrize("value", [[], (True,), ("72",), (1.5, 2)])
def test_other_containers_stay_a_plain_type_error(value):
    from autograder.grading.checks import Misconception, expect_number
    with pytest.raises(AssertionError) as e:
        expect_number(value, "count")
    assert not isinstance(e.value, Misconception)


def test_numpy_floats_are_python_floats_and_pass():
    from autograder.grading.checks import expect_number
    assert expect_number(__import__("numpy").float64(0.5), "x") == 0.5


def test_a_copied_answer_is_quoted_cut_however_long_the_student_made_it():
    from autograder.grading.checks import Misconception, raise_if_answer_copied
    long_name = "x" * 5000
    with pytest.raises(Misconception) as e:
        raise_if_answer_copied(_sub(f"{long_name} = 'A' * 100000", f"q7_answer = {long_name}"), "q7_answer",
                               "A" * 100000, lambda v: v == "C")
    assert len(str(e.value)) < 600
