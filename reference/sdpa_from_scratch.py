"""Reference for `sdpa-from-scratch` (Lesson 80): the oracle of every hidden test.

Plain minGPT-style code. The oracle computes in float64 and casts back to the input's dtype, so it is
sharper than any float32/float16 implementation it is compared with. The known wrong variants (the
lesson's traps) live here too, so a failed test can say which mistake the output matches.

Shapes: Q (..., T_q, d_k), K (..., T_k, d_k), V (..., T_k, d_v), mask bool broadcastable to
(..., T_q, T_k) with True = "this query may attend to this key"; output (..., T_q, d_v).
"""
from __future__ import annotations

import math

import torch

# ----------------------------------------------------------------------------------------------
# the oracle
# ----------------------------------------------------------------------------------------------


def stable_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax along `dim` with max-subtraction, computed in float64, returned in x's dtype.

    A slice that is entirely -inf gives zeros (not NaN), which is what attention needs for a query
    whose keys are all masked."""
    x64 = x.to(torch.float64)
    m = x64.amax(dim=dim, keepdim=True)                       # (..., 1, ...) largest logit
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))  # all -inf slice: shift by 0
    e = torch.exp(x64 - m)                                    # every entry in [0, 1]
    s = e.sum(dim=dim, keepdim=True)                          # >= 1 unless the slice is all -inf
    s = torch.where(s > 0, s, torch.ones_like(s))             # all -inf slice: 0 / 1 = 0
    return (e / s).to(x.dtype)


def causal_mask(T_q: int, T_k: int | None = None) -> torch.Tensor:
    """(T_q, T_k) bool, True on and below the diagonal: query i may see keys 0..i (top-left aligned,
    like F.scaled_dot_product_attention(is_causal=True))."""
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()


def attention_weights(Q: torch.Tensor, K: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """(..., T_q, T_k) float64 weights; rows of a fully masked query are zeros."""
    d_k = Q.shape[-1]
    Q64, K64 = Q.to(torch.float64), K.to(torch.float64)
    scores = Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k)    # (..., T_q, T_k)
    if mask is not None:
        mask = mask.to(device=scores.device, dtype=torch.bool)
        scores = scores.masked_fill(~mask, float("-inf"))      # blocked BEFORE the softmax
    return stable_softmax(scores, dim=-1)                      # (..., T_q, T_k), rows sum to 1 (or 0)


def scaled_dot_product_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor,
                                 mask: torch.Tensor | None = None) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d_k), masked) @ V, in float64, returned in Q's dtype: (..., T_q, d_v)."""
    weights = attention_weights(Q, K, mask)                    # (..., T_q, T_k)
    out = weights @ V.to(torch.float64)                        # (..., T_q, d_v)
    return out.to(Q.dtype)


# ----------------------------------------------------------------------------------------------
# worked values of the notebook (the devrun --reference mode reads answers from this module)
# ----------------------------------------------------------------------------------------------

# Lesson 80's batched example: torch.manual_seed(0); Q, K, V = randn(2, 5, 8) each.
def _batched_example() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)  # same stream as torch.manual_seed(0) on the CPU
    return (torch.randn(2, 5, 8, generator=g), torch.randn(2, 5, 8, generator=g),
            torch.randn(2, 5, 8, generator=g))


_Qb, _Kb, _Vb = _batched_example()
raw_score_var = float((_Qb @ _Kb.transpose(-2, -1)).var())                 # 6.5991 (unbiased)
scaled_score_var = float((_Qb @ _Kb.transpose(-2, -1) / math.sqrt(8)).var())  # 0.8249
scale_divisor = 8.0                                                          # sqrt(64)

# Shape contract: Q, K (4, 10, 64), V (4, 10, 128)
out_shape = (4, 10, 128)
weights_shape = (4, 10, 10)

# The 3-token trace (T=3, d_k=4, d_v=2): the same fixed tensors as in the notebook.
Q3 = torch.tensor([[1., 0., 1., 0.],
                   [0., 2., 0., 1.],
                   [1., 1., 0., 1.]], dtype=torch.float64)
K3 = torch.tensor([[1., 0., 0., 1.],
                   [0., 1., 1., 0.],
                   [2., 1., 0., 0.]], dtype=torch.float64)
V3 = torch.tensor([[1., 0.],
                   [0., 1.],
                   [1., 1.]], dtype=torch.float64)
weights3 = attention_weights(Q3, K3)                                  # (3, 3)
weights3_causal = attention_weights(Q3, K3, causal_mask(3))           # (3, 3)
out3 = weights3 @ V3                                                  # (3, 2)
out3_causal = weights3_causal @ V3                                    # (3, 2)

# Cost: one head, T = 1024, d_k = 64
score_madds = 1024 * 1024 * 64      # multiply-adds of Q @ K^T: T * T * d_k = 67_108_864
attn_entries = 1024 * 1024          # entries of the (T, T) weight matrix
cost_ratio = 4                      # doubling T multiplies both by 4

# The zero-after-softmax trap (multiple choice in the notebook)
q_trap_answer = "C"


# ----------------------------------------------------------------------------------------------
# known wrong variants (the lessons' traps), each in float64 and returned in Q's dtype
# ----------------------------------------------------------------------------------------------


def _finish(weights: torch.Tensor, V: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return (weights @ V.to(torch.float64)).to(dtype)


def _scores(Q: torch.Tensor, K: torch.Tensor, divisor: float) -> torch.Tensor:
    return Q.to(torch.float64) @ K.to(torch.float64).transpose(-2, -1) / divisor


def _masked(scores: torch.Tensor, mask: torch.Tensor | None, fill: float = float("-inf")) -> torch.Tensor:
    return scores if mask is None else scores.masked_fill(~mask.to(torch.bool), fill)


def _zero_dead_rows(weights: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None:
        return weights
    dead = ~mask.to(torch.bool).any(dim=-1, keepdim=True)
    return weights.masked_fill(dead, 0.0)


def sdpa_divide_by_dk(Q, K, V, mask=None):
    """scores / d_k instead of / sqrt(d_k)"""
    w = stable_softmax(_masked(_scores(Q, K, Q.shape[-1]), mask), dim=-1)
    return _finish(w, V, Q.dtype)


def sdpa_no_scale(Q, K, V, mask=None):
    """no scaling at all"""
    w = stable_softmax(_masked(_scores(Q, K, 1.0), mask), dim=-1)
    return _finish(w, V, Q.dtype)


def sdpa_float32_scale(Q, K, V, mask=None):
    """the scale constant rounded to float32 (torch.sqrt(torch.tensor(d_k)))"""
    divisor = float(torch.tensor(float(Q.shape[-1]), dtype=torch.float32).sqrt())
    w = stable_softmax(_masked(_scores(Q, K, divisor), mask), dim=-1)
    return _finish(w, V, Q.dtype)


def sdpa_softmax_wrong_dim(Q, K, V, mask=None):
    """softmax over the queries (dim=-2)"""
    w = stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask), dim=-2)
    return _finish(_zero_dead_rows(w, mask), V, Q.dtype)


def sdpa_zero_after_softmax(Q, K, V, mask=None):
    """softmax over every key, then zero the blocked weights: rows no longer sum to 1"""
    w = stable_softmax(_scores(Q, K, math.sqrt(Q.shape[-1])), dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.to(torch.bool), 0.0)
    return _finish(w, V, Q.dtype)


def sdpa_inverted_mask(Q, K, V, mask=None):
    """True treated as 'blocked'"""
    if mask is None:
        return None
    return scaled_dot_product_attention(Q, K, V, ~mask.to(torch.bool))


def sdpa_upper_triangular_mask(Q, K, V, mask=None):
    """a causal mask built upper-triangular (the future instead of the past)"""
    if mask is None:
        return None
    T_q, T_k = Q.shape[-2], K.shape[-2]
    upper = torch.ones(T_q, T_k, dtype=torch.bool).triu()
    return scaled_dot_product_attention(Q, K, V, upper)


def sdpa_fully_masked_uniform(Q, K, V, mask=None):
    """masked scores filled with a large finite negative number: a query with no allowed key gets
    uniform weights, i.e. the mean of V, instead of zeros"""
    w = stable_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask, fill=-1e9), dim=-1)
    return _finish(w, V, Q.dtype)


def sdpa_no_max_subtraction(Q, K, V, mask=None):
    """softmax as exp(x) / sum(exp(x)) in the input's dtype: overflows in float16"""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = _masked(scores, mask)
    e = torch.exp(scores)
    return (e / e.sum(dim=-1, keepdim=True)) @ V


def wrong_variants(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor,
                   mask: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """{misconception key: what that mistake returns on these inputs} (keys of autograder.checks)."""
    out: dict[str, torch.Tensor] = {
        "divide_by_dk": sdpa_divide_by_dk(Q, K, V, mask),
        "no_scale": sdpa_no_scale(Q, K, V, mask),
        "softmax_wrong_dim": sdpa_softmax_wrong_dim(Q, K, V, mask),
    }
    if Q.dtype == torch.float64:
        out["float32_scale"] = sdpa_float32_scale(Q, K, V, mask)
    if mask is not None:
        mask = mask.to(torch.bool)
        out["zero_after_softmax"] = sdpa_zero_after_softmax(Q, K, V, mask)
        out["inverted_mask"] = sdpa_inverted_mask(Q, K, V, mask)
        T_q, T_k = Q.shape[-2], K.shape[-2]
        if mask.shape[-2:] == (T_q, T_k) and bool((mask == causal_mask(T_q, T_k)).all()):
            out["upper_triangular_mask"] = sdpa_upper_triangular_mask(Q, K, V, mask)
        if bool((~mask.any(dim=-1)).any()):
            out["fully_masked_uniform"] = sdpa_fully_masked_uniform(Q, K, V, mask)
    return out


def weight_variants(Q: torch.Tensor, K: torch.Tensor, mask: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Wrong variants of the weight matrix alone (for the hand trace)."""
    eye = torch.eye(K.shape[-2], dtype=torch.float64)  # V = I turns the output into the weights
    return {k: v.to(torch.float64) for k, v in wrong_variants(Q.to(torch.float64), K.to(torch.float64),
                                                              eye, mask).items() if v is not None}


# Wrong causal masks
def causal_mask_upper(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).triu()


def causal_mask_strict(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)


def causal_mask_bottom_right(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)


def causal_mask_variants(T_q: int, T_k: int | None = None) -> dict[str, torch.Tensor]:
    return {
        "upper_triangular_mask": causal_mask_upper(T_q, T_k),
        "causal_excludes_self": causal_mask_strict(T_q, T_k),
        "causal_bottom_right": causal_mask_bottom_right(T_q, T_k),
    }


# Wrong softmaxes
def softmax_no_max_subtraction(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def softmax_variants(x: torch.Tensor, dim: int = -1) -> dict[str, torch.Tensor]:
    out = {}
    other = -2 if dim in (-1, x.dim() - 1) else -1
    out["softmax_wrong_dim"] = stable_softmax(x, dim=other)
    return out
