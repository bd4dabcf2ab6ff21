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


@pytest.mark.parametrize("product", [
    lambda: torch.mm(torch.ones(2, 3, 4), torch.ones(4, 3).mT.mT),           # blind36: torch.mm on batched Q
    lambda: torch.ones(3, 4).mm(torch.ones(2, 4, 3)),                        # a batched second operand
    lambda: torch.bmm(torch.ones(2, 2, 3, 4), torch.ones(2, 2, 4, 3)),       # bmm given heads too
    lambda: torch.bmm(torch.ones(3, 4), torch.ones(4, 3)),                   # bmm given matrices
])
def test_a_fixed_rank_matrix_product_is_named_by_its_words(product):
    named = crash_words(_raised(product))
    assert named is not None and named.key == "matmul_fixed_rank" and "torch.matmul" in str(named)


def test_the_words_quoted_in_a_failure_message_name_it_too():
    named = crash_words("the output is wrong: your code raised RuntimeError: self must be a matrix")
    assert named is not None and named.key == "matmul_fixed_rank"


@pytest.mark.parametrize("message", ["mat1 and mat2 shapes cannot be multiplied (5x12 and 0x5)",
                                     "expected self must be a matrix of floats",
                                     "size mismatch, got input (3), mat (3x4), vec (3)"])
def test_other_product_errors_are_not_named_so(message):
    named = crash_words(StudentCodeError("RuntimeError", message))
    assert named is None or named.key != "matmul_fixed_rank"
