"""assert_matches computes wrong variants given as a function only when the answer is wrong, and names
the same mistake as with the variants given outright."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.checks import Misconception, assert_matches


def test_a_right_answer_never_computes_them():
    expected = torch.arange(6.0).reshape(2, 3)

    def variants():
        raise AssertionError("computed for a right answer")
    assert_matches(expected.clone(), expected, variants=variants)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_wrong_answer_is_named_the_same_either_way(lazy):
    expected = torch.arange(1.0, 7.0, dtype=torch.float64).reshape(2, 3)
    table = {"no_scale": expected * 2, "divide_by_dk": expected / 3}
    with pytest.raises(Misconception) as caught:
        assert_matches(expected * 2, expected, variants=(lambda: table) if lazy else table)
    assert caught.value.key == "no_scale"
    with pytest.raises(AssertionError, match="has shape"):
        assert_matches(expected[:1], expected, variants=(lambda: table) if lazy else table)
