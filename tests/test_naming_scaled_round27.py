"""Naming scaled-attention's mistakes, round 27 (issue 21): blind22's kinds, in-process on the hidden files'
own helpers. A name rests on a replay of the mistake on the same input (or a second call that proves it)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError

from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r27_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_cross_entropy_replay_is_f_cross_entropy_on_3d_only():
    L = _r(2, 3, 5, seed=1)
    got = D.entropy_variants(L)["entropy_wrong_dim/cross_entropy_dim1"]
    assert torch.allclose(got, F.cross_entropy(L, F.softmax(L, dim=-1), reduction="none"))
    assert got.shape == (2, 5) and sa.softmax_entropy(L).shape == (2, 3)   # dim 1 dropped, not the last
    # 1-D and 2-D logits: F.cross_entropy's class axis is the last, the right entropy; no replay there
    assert "entropy_wrong_dim/cross_entropy_dim1" not in D.entropy_variants(_r(4, 6, seed=2))


def test_batched_split_replay_is_the_transpose_1_2_code():
    X, Ws = _r(6, 12, seed=4), [_r(12, 12, seed=5 + i) for i in range(4)]
    got = D.batched_split_variants(X, *Ws, 3)
    assert set(got) == {"mha_heads_features_as_tokens/per_token_d_k", "mha_heads_features_as_tokens/per_token_n_heads"}
    T, d_k = 6, 4
    Q, K, V = ((X @ W).view(T, 3, d_k).transpose(1, 2) for W in Ws[:3])
    y = (F.softmax(Q @ K.transpose(-2, -1) / d_k ** 0.5, dim=-1) @ V).transpose(1, 2).reshape(T, 12) @ Ws[3]
    assert torch.allclose(got["mha_heads_features_as_tokens/per_token_d_k"], y)
    assert not torch.allclose(y, sa.multi_head_attention(X, *Ws, 3))
    assert D.batched_split_variants(X, *Ws, 1) == {}


def _einsum_kt(Q, K, V, d_k):
    """"qd,dk->qk": Q @ K, raised as the sandbox raises it when T_k != d_k."""
    try:
        w = torch.softmax(torch.einsum("qd,dk->qk", Q, K) / d_k ** 0.5, dim=-1)
    except RuntimeError as e:
        raise StudentCodeError("RuntimeError", str(e)) from None
    return w @ V, w


def test_einsum_keys_as_kt_named_from_a_square_rerun():
    Q, K, V = _r(5, 12, seed=1), _r(7, 12, seed=2), _r(7, 10, seed=3)
    try:
        _einsum_kt(Q, K, V, 12)
    except StudentCodeError as e:
        named = D._untransposed_rerun(_einsum_kt, e, Q, K, V, 12)
    assert named is not None and named.key == "keys_not_transposed"


def test_einsum_crash_not_named_when_the_rerun_is_right():
    def right_when_square(Q, K, V, d_k):
        if K.shape[0] != Q.shape[1]:
            raise StudentCodeError("RuntimeError", f"einsum(): subscript d has size {K.shape[0]} for operand 1 which "
                                   f"does not broadcast with previously seen size {Q.shape[1]}")
        return sa.attention(Q, K, V, d_k)
    Q, K, V = _r(5, 12, seed=1), _r(7, 12, seed=2), _r(7, 10, seed=3)
    try:
        right_when_square(Q, K, V, 12)
    except StudentCodeError as e:
        assert D._untransposed_rerun(right_when_square, e, Q, K, V, 12) is None
