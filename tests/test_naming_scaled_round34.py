"""Naming scaled-attention's mistakes, round 34: blind33's (A V)^T output, draws of mean 6, a table of five equal
scores and an unscaled path of one constant, each by its own key, in-process on the hidden files' helpers."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from autograder.grading.checks import Misconception
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r34__diagnose")


def _inputs(T_q, T_k, d_k, d_v):
    g = torch.Generator().manual_seed(5)
    return tuple(torch.randn(*s, generator=g, dtype=torch.float64) for s in ((T_q, d_k), (T_k, d_k), (T_k, d_v)))


def test_output_transposed_has_its_own_key():
    Q, K, V = _inputs(6, 4, 12, 5)
    w = F.softmax(Q @ K.T / math.sqrt(12), dim=-1)
    with pytest.raises(Misconception) as e:
        D.check_pair((torch.einsum("qk,kv->vq", w, V), w), Q, K, V, 12, "output")
    assert e.value.key == "output_transposed"


def test_weights_transposed_square_is_not_output_transposed():
    Q, K, V = _inputs(6, 6, 12, 6)       # A^T V and (A V)^T both (6, 6): the values tell
    w = F.softmax(Q @ K.T / math.sqrt(12), dim=-1)
    with pytest.raises(Misconception) as e:
        D.check_pair((w.T @ V, w), Q, K, V, 12, "output")
    assert e.value.key == "output_uses_weights_transposed"
    with pytest.raises(Misconception) as e:
        D.check_pair((V.T @ w.T, w), Q, K, V, 12, "output")
    assert e.value.key == "output_transposed"


def test_uncentred_uniform_sums_need_uniforms_in_the_source():
    c = D._uniform_sum_products(12)
    assert c == pytest.approx(73.0)
    with pytest.raises(AssertionError) as e:
        D.raise_if_draws_not_centred(c, None)       # no source: not named
    assert getattr(e.value, "key", None) is None
    D.raise_if_draws_not_centred(8.0, None)         # no uniform sum gives 8: left to draws_not_unit_variance


def test_table_of_equal_scores():
    ln5 = math.log(5)
    table = torch.tensor([[1e-7, 5e-8, ln5, ln5], [0.0, 0.0, ln5, ln5]])
    with pytest.raises(Misconception) as e:
        D.raise_if_scores_all_equal(table, (4, 16))
    assert e.value.key == "table_scores_all_equal"
    D.raise_if_scores_all_equal(torch.tensor([[0.5, 0.2, 1.5, 1.6], [0.0, 0.0, ln5, ln5]]), (4, 16))


def test_unscaled_constant_named_when_scaled_is_right():
    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        dots = (q * k).sum(1) / math.sqrt(d_k) if scaled else torch.ones(n)
        return dots.var().item()

    with pytest.raises(Misconception) as e:
        D.raise_if_zero_unscaled(fn, 12, 10_000, (11, 12))
    assert e.value.key == "unscaled_variance_zero"
