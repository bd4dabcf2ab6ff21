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


def raw_score_var_other_draws() -> list[float]:
    """The raw scores' variance when the scores come from another pair of the three draws (V drawn
    before Q or K): Q K^T and K Q^T have the same variance, so only pairs with V differ."""
    draws = _batched_example()
    return [float((draws[a] @ draws[b].transpose(-2, -1)).var()) for a, b in ((0, 2), (2, 0), (1, 2), (2, 1))]

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


def plain_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax with max-subtraction and nothing else, in float64, as students write it: a slice that is
    entirely -inf gives NaN (exp(-inf - (-inf)))."""
    x64 = x.to(torch.float64)
    e = torch.exp(x64 - x64.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def _zero_dead_rows(weights: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None:
        return weights
    dead = ~mask.to(torch.bool).any(dim=-1, keepdim=True)
    return weights.masked_fill(dead, 0.0)


def _variant(Q, K, V, mask, *, divisor=None, dim=-1, fill=float("-inf"), zero_dead=False):
    """The oracle with one step changed: the divisor of the scores, the softmax dim, the fill value;
    `zero_dead` zeroes the rows of fully masked queries afterwards (as the notebook asks)."""
    divisor = math.sqrt(Q.shape[-1]) if divisor is None else divisor
    w = stable_softmax(_masked(_scores(Q, K, divisor), mask, fill), dim=dim)
    if zero_dead:
        w = _zero_dead_rows(w, mask)
    return _finish(w, V, Q.dtype)


def sdpa_divide_by_dk(Q, K, V, mask=None):
    """scores / d_k instead of / sqrt(d_k)"""
    return _variant(Q, K, V, mask, divisor=Q.shape[-1])


def sdpa_no_scale(Q, K, V, mask=None):
    """no scaling at all"""
    return _variant(Q, K, V, mask, divisor=1.0)


def sdpa_multiply_by_sqrt_dk(Q, K, V, mask=None):
    """scores * sqrt(d_k)"""
    return _variant(Q, K, V, mask, divisor=1.0 / math.sqrt(Q.shape[-1]))


def sdpa_scale_by_d_v(Q, K, V, mask=None):
    """scores / sqrt(d_v): the width of V instead of the width of the keys"""
    return _variant(Q, K, V, mask, divisor=math.sqrt(V.shape[-1]))


def sdpa_scale_by_T(Q, K, V, mask=None):
    """scores / sqrt(T_k): the number of keys instead of their width"""
    return _variant(Q, K, V, mask, divisor=math.sqrt(K.shape[-2]))


def sdpa_scale_by_T_q(Q, K, V, mask=None):
    """scores / sqrt(T_q): the number of queries instead of the keys' width"""
    return _variant(Q, K, V, mask, divisor=math.sqrt(Q.shape[-2]))


def sdpa_float32_scale(Q, K, V, mask=None):
    """the scale constant rounded to float32 (torch.sqrt(torch.tensor(d_k)))"""
    divisor = float(torch.tensor(float(Q.shape[-1]), dtype=torch.float32).sqrt())
    return _variant(Q, K, V, mask, divisor=divisor)


def sdpa_softmax_wrong_dim(Q, K, V, mask=None):
    """softmax over the queries (dim=-2)"""
    return _variant(Q, K, V, mask, dim=-2, zero_dead=True)


def sdpa_scores_transposed(Q, K, V, mask=None):
    """K Q^T instead of Q K^T: only the right shape when T_q == T_k (None otherwise)"""
    if Q.shape[-2] != K.shape[-2]:
        return None
    scores = K.to(torch.float64) @ Q.to(torch.float64).transpose(-2, -1) / math.sqrt(Q.shape[-1])
    w = _zero_dead_rows(stable_softmax(_masked(scores, mask), dim=-1), mask)
    return _finish(w, V, Q.dtype)


def sdpa_zero_after_softmax(Q, K, V, mask=None):
    """softmax over every key, then zero the blocked weights: rows no longer sum to 1"""
    w = stable_softmax(_scores(Q, K, math.sqrt(Q.shape[-1])), dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask.to(torch.bool), 0.0)
    return _finish(w, V, Q.dtype)


def sdpa_pos_inf_fill(Q, K, V, mask=None):
    """masked scores filled with +inf: every row with a blocked key becomes NaN"""
    return _variant(Q, K, V, mask, fill=float("inf"), zero_dead=True)


def sdpa_mask_ignored(Q, K, V, mask=None):
    """the mask never applied"""
    return scaled_dot_product_attention(Q, K, V, None)


def sdpa_inverted_mask(Q, K, V, mask=None):
    """True treated as 'blocked'"""
    if mask is None:
        return None
    return scaled_dot_product_attention(Q, K, V, ~mask.to(torch.bool))


def sdpa_inverted_mask_nan(Q, K, V, mask=None):
    """True treated as 'blocked', and a query left with no key gets NaN (its zeroing, if any, looks at
    the mask as given)"""
    if mask is None:
        return None
    mask = mask.to(torch.bool)
    w = plain_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), ~mask), dim=-1)
    return _finish(_zero_dead_rows(w, mask), V, Q.dtype)


def sdpa_softmax_wrong_dim_nan(Q, K, V, mask=None):
    """softmax over the queries, where a key blocked for every query gives a NaN column"""
    w = plain_softmax(_masked(_scores(Q, K, math.sqrt(Q.shape[-1])), mask), dim=-2)
    return _finish(_zero_dead_rows(w, mask), V, Q.dtype)


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
    return _variant(Q, K, V, mask, fill=-1e9)


def sdpa_no_max_subtraction(Q, K, V, mask=None):
    """softmax as exp(x) / sum(exp(x)) in the input's dtype: overflows in float16"""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    scores = _masked(scores, mask)
    e = torch.exp(scores)
    return (e / e.sum(dim=-1, keepdim=True)) @ V


def sdpa_integer_sqrt_scale(Q, K, V, mask=None):
    """scores / int(math.sqrt(d_k)) (or math.isqrt): an integer square root"""
    return _variant(Q, K, V, mask, divisor=float(math.isqrt(Q.shape[-1])))


def sdpa_weights_as_output(Q, K, V, mask=None):
    """the (..., T_q, T_k) weights returned instead of weights @ V"""
    return attention_weights(Q, K, mask).to(Q.dtype)


def sdpa_keys_are_queries(Q, K, V, mask=None):
    """scores Q Q^T (k = q): only the right shape when T_q == T_k (None otherwise)"""
    if Q.shape[-2] != K.shape[-2]:
        return None
    w = stable_softmax(_masked(_scores(Q, Q, math.sqrt(Q.shape[-1])), mask), dim=-1)
    return _finish(_zero_dead_rows(w, mask), V, Q.dtype)


def _uniform(Q, K, mask):
    T_q, T_k = Q.shape[-2], K.shape[-2]
    w = torch.ones(*Q.shape[:-2], T_q, T_k, dtype=torch.float64)
    if mask is not None:
        w = w * mask.to(torch.bool)
    return w / w.sum(-1, keepdim=True).clamp_min(1.0)


def sdpa_uniform_weights(Q, K, V, mask=None):
    """every key the same weight 1/T_k: the mean of V (the mask ignored)"""
    return _finish(_uniform(Q, K, None), V, Q.dtype)


def sdpa_uniform_weights_masked(Q, K, V, mask=None):
    """every allowed key the same weight: the mean of the allowed values"""
    return _finish(_uniform(Q, K, mask), V, Q.dtype)


def _gaussian(width):
    def variant(Q, K, V, mask=None):
        """softmax(-||q - k||^2 / width): a Gaussian kernel instead of scaled dot products"""
        Q64, K64 = Q.to(torch.float64), K.to(torch.float64)
        # ||q - k||^2 = |q|^2 + |k|^2 - 2 q.k: a matmul, where the difference tensor (..., T_q, T_k, d)
        # cost 30 ms per call at (2, 128, 128, 64), six widths per naming
        dist = ((Q64 * Q64).sum(-1, keepdim=True) + (K64 * K64).sum(-1).unsqueeze(-2)
                - 2 * Q64 @ K64.transpose(-2, -1)).clamp_min(0)                 # (..., T_q, T_k)
        w = stable_softmax(_masked(-dist / width(Q.shape[-1]), mask), dim=-1)
        return _finish(_zero_dead_rows(w, mask), V, Q.dtype)
    return variant


def sdpa_prefix_average(Q, K, V, mask=None):
    """output t = mean of V[0..t] (weights 1/(t+1)): a running average, no scores at all; under a causal
    mask it is the masked uniform weights, so it is a way of making that mistake"""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    w = torch.ones(T_q, T_k, dtype=torch.float64).tril()
    return _finish(w / w.sum(-1, keepdim=True).clamp_min(1.0), V, Q.dtype)


# Each wrong variant, as a function of (Q, K, V, mask) like the oracle (the timing check accepts
# their values: a value mistake is charged by the value tests only).
VARIANT_FUNCTIONS = {
    "divide_by_dk": sdpa_divide_by_dk,
    "no_scale": sdpa_no_scale,
    "multiply_by_sqrt_dk": sdpa_multiply_by_sqrt_dk,
    "scale_by_d_v": sdpa_scale_by_d_v,
    "scale_by_T": sdpa_scale_by_T,
    "scale_by_T/queries": sdpa_scale_by_T_q,
    "float32_scale": sdpa_float32_scale,
    "softmax_wrong_dim": sdpa_softmax_wrong_dim,
    "softmax_wrong_dim/nan": sdpa_softmax_wrong_dim_nan,
    "scores_transposed": sdpa_scores_transposed,
    "zero_after_softmax": sdpa_zero_after_softmax,
    "pos_inf_fill": sdpa_pos_inf_fill,
    "mask_ignored": sdpa_mask_ignored,
    "inverted_mask": sdpa_inverted_mask,
    "inverted_mask/nan": sdpa_inverted_mask_nan,
    "upper_triangular_mask": sdpa_upper_triangular_mask,
    "fully_masked_uniform": sdpa_fully_masked_uniform,
    "integer_sqrt_scale": sdpa_integer_sqrt_scale,
    "weights_as_output": sdpa_weights_as_output,
    "keys_are_queries": sdpa_keys_are_queries,
    "uniform_weights": sdpa_uniform_weights,
    "uniform_weights/masked": sdpa_uniform_weights_masked,
    "gaussian_kernel/sqrt_dk": _gaussian(math.sqrt),
    "gaussian_kernel/2sqrt_dk": _gaussian(lambda d: 2 * math.sqrt(d)),
    "gaussian_kernel/one": _gaussian(lambda d: 1.0),
    "gaussian_kernel/two": _gaussian(lambda d: 2.0),
    "gaussian_kernel/dk": _gaussian(float),
    "gaussian_kernel/2dk": _gaussian(lambda d: 2.0 * d),
    "uniform_weights/prefix": sdpa_prefix_average,
}


def wrong_variants(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor,
                   mask: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """{misconception key: what that mistake returns on these inputs}, for the mistakes these inputs
    can show: a variant that equals the correct result here (sqrt(d_v) when d_v = d_k, a mask
    variant without a mask...) is left out, and so is one that equals another variant (the test's
    shapes must separate them to name them)."""
    d_k, d_v, T_q, T_k = Q.shape[-1], V.shape[-1], Q.shape[-2], K.shape[-2]
    keys = ["divide_by_dk", "no_scale", "multiply_by_sqrt_dk", "softmax_wrong_dim", "scores_transposed",
            "weights_as_output", "keys_are_queries", "uniform_weights", "uniform_weights/prefix"]
    keys += [k for k in VARIANT_FUNCTIONS if k.startswith("gaussian_kernel/")]
    divisors = {"scale_by_d_v": d_v, "scale_by_T": T_k, "scale_by_T/queries": T_q}
    seen = {d_k, d_k * d_k, 1}                       # sqrt of these: the correct, d_k and no scale
    for key, n in divisors.items():
        if n not in seen:
            keys.append(key)
            seen.add(n)
    if Q.dtype == torch.float64:
        keys.append("float32_scale")
    if math.isqrt(d_k) ** 2 != d_k and math.isqrt(d_k) ** 2 not in seen:
        keys.append("integer_sqrt_scale")
    if mask is not None:
        mask = mask.to(torch.bool)
        keys += ["zero_after_softmax", "pos_inf_fill", "mask_ignored", "inverted_mask", "inverted_mask/nan",
                 "softmax_wrong_dim/nan", "uniform_weights/masked"]
        if mask.shape[-2:] == (T_q, T_k) and bool((mask == causal_mask(T_q, T_k)).all()):
            keys.append("upper_triangular_mask")
        if bool((~mask.any(dim=-1)).any()):
            keys.append("fully_masked_uniform")
    out = {key: VARIANT_FUNCTIONS[key](Q, K, V, mask) for key in keys}
    return {k: v for k, v in out.items() if v is not None}


# Telling -1e9 from another finite fill (float32's minimum) by what it does, in float32: one query,
# an allowed key with score -4e9 and a blocked one. -inf, finfo(dtype).min or float32's minimum give
# the blocked key weight 0 (output 1); a fill of -1e9 sits ABOVE -4e9 and takes all the weight (0).
FILL_PROBE = (torch.tensor([[-2e5]]), torch.tensor([[2e4], [0.0]]), torch.tensor([[1.0], [0.0]]),
              torch.tensor([[True, False]]))


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


def causal_mask_next(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=1)


def causal_mask_variants(T_q: int, T_k: int | None = None) -> dict[str, torch.Tensor]:
    """The wrong causal masks that differ from the right one at this shape (bottom-right alignment is
    the right mask when T_q == T_k)."""
    right = causal_mask(T_q, T_k)
    out = {
        "upper_triangular_mask": causal_mask_upper(T_q, T_k),
        "causal_excludes_self": causal_mask_strict(T_q, T_k),
        "causal_bottom_right": causal_mask_bottom_right(T_q, T_k),
        "causal_includes_next": causal_mask_next(T_q, T_k),
    }
    return {k: m for k, m in out.items() if not bool((m == right).all())}


# Wrong softmaxes
# Which shift a softmax subtracts, seen from which rows of a float32 probe come out non-finite: row 0
# holds scores 100, 99, 10 and row 1 their negatives. Subtracting each row's max: both finite; no
# shift: exp(100) overflows row 0; one max over the whole tensor: row 1 underflows to 0 / 0; each
# row's minimum: exp(90) overflows both. As attention inputs: d_k = 1 (scale 1), q = (1, -1),
# k = (100, 99, 10), V the identity, so the output is the weights.
SOFTMAX_PROBE = torch.tensor([[100.0, 99.0, 10.0], [-100.0, -99.0, -10.0]])
SOFTMAX_PROBE_QKV = (torch.tensor([[1.0], [-1.0]]), torch.tensor([[100.0], [99.0], [10.0]]), torch.eye(3))
SOFTMAX_PROBE_PATTERNS = {
    (True, False): "no_max_subtraction",
    (False, True): "global_max_subtraction",
    (True, True): "softmax_subtracts_min",
}


def softmax_no_max_subtraction(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def softmax_variants(x: torch.Tensor, dim: int = -1) -> dict[str, torch.Tensor]:
    out = {}
    other = -2 if dim in (-1, x.dim() - 1) else -1
    out["softmax_wrong_dim"] = stable_softmax(x, dim=other)
    return out


def nameable_keys() -> set[str]:
    """Every misconception key this module's wrong variants can name (the part before any "/"), found by
    calling each variant function once on small float64 inputs: tests/test_authoring.py checks that each
    has a text in the assignment's hidden/_misconceptions.py. A new variant function belongs here too."""
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(*s, generator=g, dtype=torch.float64) for s in ((2, 5, 12), (2, 7, 12), (2, 7, 3)))
    m = torch.rand(2, 5, 7, generator=g) < 0.5
    m[:, 0] = False
    keys = set(VARIANT_FUNCTIONS) | set(causal_mask_variants(4, 6)) | set(softmax_variants(Q))
    keys |= set(wrong_variants(Q, K, V, m))
    return {k.split("/")[0] for k in keys}
