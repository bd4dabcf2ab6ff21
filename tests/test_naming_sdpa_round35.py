"""sdpa-from-scratch, naming round 35 (after blind34): a softmax shifted by each slice's median looks like one
global max on the float32 probe; a float64 row whose median is far below its max (0, -1, -2000, -2000, -2000)
tells them apart, and a replay of the median shift must match before softmax_subtracts_median is named."""
from __future__ import annotations

import math

import torch

from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round35_diagnose")


def _median_softmax(x, dim=-1):
    e = torch.exp(x - x.median(dim=dim, keepdim=True).values)
    return e / e.sum(dim=dim, keepdim=True)


def _global_max_softmax(x, dim=-1):
    e = torch.exp(x - x.max())
    return e / e.sum(dim=dim, keepdim=True)


def _sdpa(softmax):
    def sdpa(Q, K, V, mask=None):
        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return softmax(s, dim=-1) @ V
    return sdpa


def test_median_probe_tells_median_from_global_max():
    assert diag.global_or_median(_median_softmax(diag.MEDIAN_PROBE.clone())) == "softmax_subtracts_median"
    assert diag.global_or_median(_global_max_softmax(diag.MEDIAN_PROBE.clone())) == "global_max_subtraction"
    assert diag.global_or_median(torch.full((1, 5), float("nan"), dtype=torch.float64)) is None


def test_softmax_shift_through_attention():
    assert diag.softmax_shift(_sdpa(_median_softmax)) == "softmax_subtracts_median"
    assert diag.softmax_shift(_sdpa(_global_max_softmax)) == "global_max_subtraction"


def test_median_replay_matches_only_the_median():
    x = torch.randn(6, 10)
    x[:, :6] = float("-inf")
    assert diag.median_replay_matches(_median_softmax(x), x)
    assert not diag.median_replay_matches(torch.softmax(x, dim=-1), x)
    Q, K, V = torch.randn(4, 3, dtype=torch.float64), torch.randn(6, 3, dtype=torch.float64), torch.randn(6, 2,
                                                                                                            dtype=torch.float64)
    mask = torch.ones(4, 6, dtype=torch.bool).tril()
    assert diag.sdpa_median_replay_matches(_sdpa(_median_softmax)(Q, K, V, mask), Q, K, V, mask)
    assert not diag.sdpa_median_replay_matches(_sdpa(torch.softmax)(Q, K, V, mask), Q, K, V, mask)
