"""Naming scaled-attention's mistakes, round 35: blind34's weights returned transposed (output right), linear
"efficient" attention, the entropy weighted by unnormalised exp(logits), the table's stds of the keys and the heads
folded into the sequence axis, each by its own key, in-process on the hidden files' helpers."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from autograder.grading.checks import Misconception
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r35__diagnose")


def _inputs(T_q, T_k, d_k, d_v):
    g = torch.Generator().manual_seed(7)
    return tuple(torch.randn(*s, generator=g, dtype=torch.float64) for s in ((T_q, d_k), (T_k, d_k), (T_k, d_v)))


def test_weights_returned_transposed_needs_the_right_output():
    Q, K, V = _inputs(5, 7, 12, 10)
    w = F.softmax(Q @ K.T / math.sqrt(12), dim=-1)
    with pytest.raises(Misconception) as e:
        D.check_pair((w @ V, w.T), Q, K, V, 12, "weights")
    assert e.value.key == "weights_returned_transposed"
    # the output wrong too (A^T V through the key-major weights): not this key
    with pytest.raises(AssertionError) as e:
        D.check_pair((w @ V + 1, w.T), Q, K, V, 12, "weights")
    assert getattr(e.value, "key", None) != "weights_returned_transposed"


def test_linear_attention_is_named_from_both_results():
    Q, K, V = _inputs(6, 6, 16, 10)
    w = torch.softmax(Q / 2, dim=-1) @ torch.softmax(K / 2, dim=0).T
    found = D.pair_evidence((w @ V, w), Q, K, V, 16)
    assert found is not None and found[0] == "linear_attention"
    # the weights alone of it with another output: nothing
    found = D.pair_evidence((V * 0, w), Q, K, V, 16)
    assert found is None or found[0] != "linear_attention"


def test_unnormalised_entropy_replays_and_probe():
    z = torch.tensor([[0.3, -1.2, 2.5, 0.0, 0.7], [1.0, 0.5, -0.5, 2.0, -1.5]])
    got = -(torch.exp(z) * F.log_softmax(z, dim=-1)).sum(-1)
    m = D._unnormalised_nan(got, z)
    assert m is not None and m.key == "entropy_probs_unnormalised"
    right = -(F.softmax(z, -1) * F.log_softmax(z, -1)).sum(-1)
    assert D._unnormalised_nan(right, z) is None


def test_table_stds_of_keys_is_not_the_right_table():
    from reference import scaled_attention as ref
    dims = (4, 16, 64, 256)
    right = ref.table_as_tensor(ref.entropy_table(dims, 0))
    keys = D.table_input_stds(dims, 0, "k")
    assert not torch.allclose(keys[:, :2].double(), right[:, :2].double())
    assert torch.allclose(keys[:, 2:].double(), right[:, 2:].double())


def test_heads_as_sequence_only_with_several_heads():
    g = torch.Generator().manual_seed(3)
    X = torch.randn(5, 8, generator=g, dtype=torch.float64)
    Ws = [torch.randn(8, 8, generator=g, dtype=torch.float64) for _ in range(4)]
    assert D.heads_as_sequence_variants(X, *Ws, 1) == {}
    out = D.heads_as_sequence_variants(X, *Ws, 2)
    assert set(out) == {"mha_heads_as_sequence", "mha_heads_as_sequence/head_major"}
    from reference import scaled_attention as ref
    right = ref.multi_head_attention(X, *Ws, 2)
    assert all(not torch.allclose(v, right) for v in out.values())
