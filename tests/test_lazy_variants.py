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


def test_no_hidden_test_computes_its_variants_before_the_answer_is_known():
    """`variants=some_function(...)` builds every catalogued mistake for every submission, right ones too (it
    was most of a right scaled-attention table's grading time); `variants=lambda: ...` builds them for a wrong one."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "assignments"
    eager = re.compile(r"\bvariants=(?!lambda\b)[A-Za-z_][\w.]*\(")
    found = [f"{p.relative_to(root)}:{i}: {line.strip()}" for p in sorted(root.glob("*/hidden/*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if eager.search(line)]
    assert not found, "\n".join(found)
