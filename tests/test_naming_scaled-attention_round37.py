"""Naming scaled-attention's mistakes, round 37 (blind36): in-process on the hidden files' own helpers. A body
that mixes a global V where its parameter is v (proven by replays: one fixed matrix whatever values are passed),
row entropies of reshape(-1, T) never reshaped back, and a head loop whose keys/values come from the next head."""
from __future__ import annotations

import math

import torch

from autograder.errors import StudentCodeError
from reference import scaled_attention as sa
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r37__diagnose")


def _student(f):
    """f as the grader sees a student's function: its errors come back as StudentCodeError."""
    def wrapped(*args):
        try:
            return f(*args)
        except Exception as e:  # noqa: BLE001 - what the worker reports
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return wrapped


def _crash(fn, *args) -> StudentCodeError:
    try:
        fn(*args)
    except StudentCodeError as e:
        return e
    raise AssertionError("no crash")


def test_global_values_named_only_where_the_values_passed_are_ignored():
    G = torch.randn(3, 4)          # the notebook's trace V

    def reads_global(q, k, v, d_k):
        w = torch.softmax(q @ k.T / math.sqrt(d_k), dim=-1)
        return w @ G, w

    Q, K, V = torch.randn(5, 12), torch.randn(7, 12), torch.randn(7, 10)
    fn = _student(reads_global)
    named = D.fixed_values_crash(fn, _crash(fn, Q, K, V, 12), Q, K, V, 12)
    assert named is not None and named.key == "reads_global_not_parameter"

    # the same shapes in the crash, but the values passed ARE used (F.linear: weights @ v.T): nothing
    def linear_mix(q, k, v, d_k):
        w = torch.softmax(q @ k.T / math.sqrt(d_k), dim=-1)
        return torch.nn.functional.linear(w, v), w

    fn = _student(linear_mix)
    assert D.fixed_values_crash(fn, _crash(fn, Q, K, V, 12), Q, K, V, 12) is None


def test_flattened_entropies_only_from_three_dims():
    L = torch.randn(2, 3, 5, dtype=torch.float64)
    flat = D.entropy_variants(L)["entropy_shape_not_restored"]
    assert tuple(flat.shape) == (6,) and torch.allclose(flat, sa.softmax_entropy(L).reshape(-1))
    assert "entropy_shape_not_restored" not in D.entropy_variants(torch.randn(4, 5, dtype=torch.float64))
    assert "entropy_shape_not_restored" not in D.entropy_variants(torch.randn(5, dtype=torch.float64))


def _mha_shifted(shift_k: int, shift_v: int):
    def mha(X, W_Q, W_K, W_V, W_O, n_heads):
        d_k = X.shape[1] // n_heads
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        heads = []
        for h in range(n_heads):
            a, b, c = h * d_k, (h + shift_k) * d_k, (h + shift_v) * d_k
            heads.append(sa.attention(Q[:, a:a + d_k], K[:, b:b + d_k], V[:, c:c + d_k], d_k)[0])
        return torch.cat(heads, dim=1) @ W_O
    return mha


def test_keys_values_from_the_next_head_named_by_a_wider_replay():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(5, 48, generator=g, dtype=torch.float64)
    Ws = [torch.randn(48, 48, generator=g, dtype=torch.float64) / 7 for _ in range(4)]
    for shift_k, shift_v in ((1, 1), (0, 1)):
        fn = _student(_mha_shifted(shift_k, shift_v))
        named = D.mha_counter_advanced(fn, _crash(fn, X, *Ws, 4), X, Ws, 4)
        assert named is not None and named.key == "mha_kv_slice_next_head"

    # another crash (W_O on the left): the replay does not run either, nothing named
    def w_o_left(X, W_Q, W_K, W_V, W_O, n_heads):
        return W_O @ sa.multi_head_attention(X, W_Q, W_K, W_V, torch.eye(X.shape[1], dtype=X.dtype), n_heads)

    fn = _student(w_o_left)
    assert D.mha_counter_advanced(fn, _crash(fn, X, *Ws, 4), X, Ws, 4) is None
