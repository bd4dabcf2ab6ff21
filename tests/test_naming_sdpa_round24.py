"""sdpa-from-scratch, naming round 24 (issue 21, blind20): an epsilon in the softmax's sum shrinks each
row by its own factor s / (s + eps), all float64: it is never float32_precision, and the generic message
says the factor per slice; a float32 computation (noise per entry) is still float32_precision."""
from __future__ import annotations

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import Misconception
from reference import sdpa_from_scratch as ref


def _qkv() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(24)
    Q, K, V = (torch.randn(s, generator=g, dtype=torch.float64) for s in ((2, 5, 8), (2, 7, 8), (2, 7, 6)))
    return Q, K, V


@pytest.mark.parametrize("eps", [1e-6, 3e-7])
def test_epsilon_in_the_sum_is_not_float32_precision(eps: float) -> None:
    Q, K, V = _qkv()
    scores = Q @ K.mT / 8 ** 0.5
    e = (scores - scores.amax(-1, keepdim=True)).exp()
    got = (e / (e.sum(-1, keepdim=True) + eps)) @ V
    with pytest.raises(AssertionError) as failure:
        checks.assert_matches(got, ref.scaled_dot_product_attention(Q, K, V), variants=lambda: ref.wrong_variants(Q, K, V))
    assert not isinstance(failure.value, Misconception)
    assert "its own factor slightly below 1" in str(failure.value)


def test_float32_softmax_stays_float32_precision() -> None:
    Q, K, V = _qkv()
    w = torch.softmax((Q @ K.mT / 8 ** 0.5).float(), dim=-1).double()
    with pytest.raises(Misconception) as named:
        checks.assert_matches(w @ V, ref.scaled_dot_product_attention(Q, K, V))
    assert named.value.key == "float32_precision"
