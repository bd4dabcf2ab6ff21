"""The right values in fewer axes than asked (blind49's `.view(-1)` on row_entropy_bits, a (2, 7) answer given as
(14,)): `axes_flattened`, a generic name in checks.raise_if_other_container, said with the axes merged. Named only
when the output is exactly the reference with neighbouring axes merged and its values right in order; another split
of the same entries ((7, 2) for (2, 7)) or wrong values in the merged shape keep their old messages."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.grading.checks import Misconception, merged_axes, raise_if_other_container
from autograder.grading.grader import Grader
from tests.heldout.harness import grade_cells


@pytest.mark.parametrize(("got", "want", "runs"), [
    ((14,), (2, 7), [(0, 2)]),
    ((6, 5), (2, 3, 5), [(0, 2)]),
    ((2, 15), (2, 3, 5), [(1, 3)]),
    ((30,), (2, 3, 5), [(0, 3)]),
    ((14,), (2, 1, 7), [(0, 3)]),
    ((7, 2), (2, 7), []),        # another split, not a merge
    ((3, 4), (2, 6), []),
    ((2, 7), (2, 7), []),
    ((7,), (1, 7), []),          # a size-1 axis dropped: size_one_axis_dropped's case
    ((2,), (2, 1), []),
])
def test_merged_axes(got: tuple[int, ...], want: tuple[int, ...], runs: list[tuple[int, int]]) -> None:
    assert merged_axes(got, want) == runs


def test_flattened_right_values_are_named_with_the_axes() -> None:
    H = torch.rand(2, 7, dtype=torch.float64)
    with pytest.raises(Misconception) as e:
        raise_if_other_container(H.reshape(-1), H, "H")
    assert e.value.key == "axes_flattened"
    assert "axes 0-1 (2 x 7)" in str(e.value)
    raise_if_other_container(H.reshape(-1) + 0.5, H, "H")        # wrong values in the merged shape: not this name
    raise_if_other_container(H.t().contiguous(), H, "H")          # same entries in another split: not this name
    raise_if_other_container(H.reshape(-1).flip(0), H, "H")       # right entries, out of order: not this name


ENT = "row_entropy_bits"


def _entropy(body: str) -> dict[str, str]:
    return {ENT: "def row_entropy_bits(A):\n" + body
            + "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"}


def _graded(grader: Grader, slug: str, cells: dict[str, str]) -> Any:
    return grade_cells(grader, slug, cells, "axes_flattened")


@pytest.mark.parametrize("body", [
    "    return -torch.where(A > 0, A * torch.log2(A), 0.0).sum(dim=-1).flatten()\n",
    "    H = -torch.special.xlogy(A, A).sum(-1) / torch.log(torch.tensor(2.0, dtype=A.dtype))\n"
    "    return H.reshape(-1)\n",
    "    rows = A.reshape(-1, A.shape[-1])\n"
    "    return -torch.where(rows > 0, rows * torch.log2(rows), 0.0).sum(dim=1)\n",
])
def test_pipeline_entropy_flattened_is_named(grader: Grader, body: str) -> None:
    outcome = _graded(grader, "attention-pipeline", _entropy(body))
    assert outcome.failed, "a wrong variant lost no points"
    assert {q for q, *_ in outcome.failed} == {"q10"}, outcome.failed
    assert all(k == "axes_flattened" for _, _, k, _ in outcome.failed), outcome.failed


def test_pipeline_entropy_reshaped_back_keeps_full_marks(grader: Grader) -> None:
    body = ("    rows = A.reshape(-1, A.shape[-1])\n"
            "    H = -torch.where(rows > 0, rows * torch.log2(rows), 0.0).sum(dim=1)\n"
            "    return H.reshape(A.shape[:-1])\n")
    outcome = _graded(grader, "attention-pipeline", _entropy(body))
    assert outcome.score == outcome.max_score and not outcome.failed, outcome.failed


def test_sdpa_output_flattened_is_named(grader: Grader) -> None:
    cell = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.nan_to_num(weights, nan=0.0)
    out = torch.matmul(weights, V)
    return out.reshape(-1, out.shape[-1])
'''
    outcome = _graded(grader, "sdpa-from-scratch", {"scaled_dot_product_attention": cell})
    assert outcome.failed, "a wrong variant lost no points"
    assert any(k == "axes_flattened" for _, _, k, _ in outcome.failed), outcome.failed
