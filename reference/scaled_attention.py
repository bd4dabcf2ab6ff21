"""Oracle for the `scaled-attention` assignment (Lesson 79: why scale by sqrt(d_k)).

Plain code with shapes in comments, minGPT style. Beside each correct function are the known wrong
variants (the lesson's traps), so a hidden test can say which mistake a wrong answer matches.
Runs only in the trusted grader process. Plain torch: the texts of the misconception keys are data in
assignments/scaled-attention/hidden/_misconceptions.py."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F


# ----------------------------------------------------------------------------------------------
# Milestone 1: attention
# ----------------------------------------------------------------------------------------------
def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, d_k: int):
    """softmax(Q K^T / sqrt(d_k)) V. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output (T_q, d_v), weights (T_q, T_k)); every row of weights sums to 1.
    Also works with leading batch dims (used by multi_head_attention below)."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)  # (T_q, T_k)
    weights = F.softmax(scores, dim=-1)                # (T_q, T_k), rows sum to 1
    output = weights @ V                               # (T_q, d_v)
    return output, weights


def _finish(scores: torch.Tensor, V: torch.Tensor, dim: int = -1):
    weights = F.softmax(scores, dim=dim)
    return weights @ V, weights


def attention_divide_by_dk(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) / d_k, V)


def attention_no_scale(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1), V)


def attention_multiply_by_sqrt_dk(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) * math.sqrt(d_k), V)


def attention_softmax_wrong_dim(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) / math.sqrt(d_k), V, dim=-2)


def attention_weights_not_normalised(Q, K, V, d_k):
    weights = torch.exp(Q @ K.transpose(-2, -1) / math.sqrt(d_k))
    return weights @ V, weights


def attention_no_softmax(Q, K, V, d_k):
    weights = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    return weights @ V, weights


def attention_float32_scale(Q, K, V, d_k):
    # torch.sqrt(torch.tensor(d_k)) is a float32 0-d tensor: the scale loses digits for float64 inputs
    return _finish(Q @ K.transpose(-2, -1) / torch.sqrt(torch.tensor(float(d_k))), V)


def attention_scores_transposed(Q, K, V, d_k):
    # K Q^T: weights (T_k, T_q); the output exists only when T_q == T_k
    weights = F.softmax(K @ Q.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (weights @ V if Q.shape[-2] == K.shape[-2] else None), weights


def attention_scale_by_d_v(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) / math.sqrt(V.shape[-1]), V)


def attention_scale_by_T(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2]), V)


def attention_integer_sqrt(Q, K, V, d_k):
    # int(math.sqrt(d_k)) or math.isqrt(d_k): 3 for d_k = 12
    return _finish(Q @ K.transpose(-2, -1) / math.isqrt(d_k), V)


def attention_keys_are_queries(Q, K, V, d_k):
    # Q Q^T: K is never used; the output exists only when T_q == T_k
    weights = F.softmax(Q @ Q.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (weights @ V if Q.shape[-2] == K.shape[-2] else None), weights


def attention_weights_transposed_on_values(Q, K, V, d_k):
    # A^T V: right weights, mixed down the columns; only when T_q == T_k
    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (weights.transpose(-2, -1) @ V if Q.shape[-2] == K.shape[-2] else None), weights


def attention_uniform_weights(Q, K, V, d_k):
    # every key the same weight 1/T_k: the scores never reach the weights
    weights = torch.full((*Q.shape[:-1], K.shape[-2]), 1.0 / K.shape[-2], dtype=Q.dtype)
    return weights @ V, weights


def attention_scale_by_T_queries(Q, K, V, d_k):
    return _finish(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-2]), V)


def attention_precedence_inline(Q, K, V, d_k):
    # S / d_k ** 1/2 is (S / d_k) / 2 in Python: divided by 2 d_k
    return _finish(Q @ K.transpose(-2, -1) / d_k ** 1 / 2, V)


def attention_scale_after_softmax(Q, K, V, d_k):
    # softmax(Q K^T) / sqrt(d_k): the scale lands on the weights (rows sum to 1 / sqrt(d_k))
    weights = F.softmax(Q @ K.transpose(-2, -1), dim=-1) / math.sqrt(d_k)
    return weights @ V, weights


def attention_whole_matrix(Q, K, V, d_k):
    # one normaliser for every entry of the (T_q, T_k) matrix, not one per row
    e = torch.exp(Q @ K.transpose(-2, -1) / math.sqrt(d_k))
    weights = e / e.sum(dim=(-2, -1), keepdim=True)
    return weights @ V, weights


def attention_sigmoid(Q, K, V, d_k):
    s = torch.sigmoid(Q @ K.transpose(-2, -1) / math.sqrt(d_k))
    weights = s / s.sum(dim=-1, keepdim=True)
    return weights @ V, weights


def attention_log_softmax(Q, K, V, d_k):
    weights = F.log_softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights


def attention_normalised_by_sum(Q, K, V, d_k):
    # scores divided by their row sum, no exp
    s = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = s / s.sum(dim=-1, keepdim=True)
    return weights @ V, weights


def attention_normalised_l1(Q, K, V, d_k):
    # F.normalize(scores, p=1, dim=-1): divided by the row's sum of |s|, no exp
    weights = F.normalize(Q @ K.transpose(-2, -1) / math.sqrt(d_k), p=1.0, dim=-1)
    return weights @ V, weights


def attention_normalised_l2(Q, K, V, d_k):
    # F.normalize(scores, dim=-1): unit-length rows, no exp
    weights = F.normalize(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ V, weights


def attention_sum_without_keepdim(Q, K, V, d_k):
    # e / e.sum(-1): the (T,) sums broadcast along the last axis, entry (i, j) divided by row j's sum;
    # only when T_q == T_k (else it raises)
    e = torch.exp(Q @ K.transpose(-2, -1) / math.sqrt(d_k))
    if Q.shape[-2] != K.shape[-2]:
        return None, None
    weights = e / e.sum(dim=-1)
    return weights @ V, weights


def attention_max_without_keepdim(Q, K, V, d_k):
    # s - s.max(-1).values: entry (i, j) shifted by row j's maximum; only when T_q == T_k
    s = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if Q.shape[-2] != K.shape[-2]:
        return None, None
    e = torch.exp(s - s.max(dim=-1).values)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights


def attention_stable_sum_without_keepdim(Q, K, V, d_k, keep_max: bool = True):
    # exp(s - s.max(-1, keepdim=keep_max)) / e.sum(-1): the sum (and without keep_max the max too) of row j
    # broadcast along the keys; only when T_q == T_k (else it raises)
    s = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if Q.shape[-2] != K.shape[-2]:
        return None, None
    m = s.max(dim=-1, keepdim=True).values if keep_max else s.max(dim=-1).values
    e = torch.exp(s - m)
    weights = e / e.sum(dim=-1)
    return weights @ V, weights


def attention_values_are_keys(Q, K, V, d_k):
    # weights @ K: the keys mixed instead of the values (output width d_k)
    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ K, weights


def attention_causal(Q, K, V, d_k):
    # a causal mask (query i sees keys 0..i, top-left aligned) where every key should be seen
    s = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    allowed = torch.ones(Q.shape[-2], K.shape[-2], dtype=torch.bool).tril()
    weights = F.softmax(s.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ V, weights


ATTENTION_VARIANTS = {
    "divide_by_dk": attention_divide_by_dk,
    "no_scale": attention_no_scale,
    "multiply_by_sqrt_dk": attention_multiply_by_sqrt_dk,
    "softmax_wrong_dim": attention_softmax_wrong_dim,
    "weights_not_normalised": attention_weights_not_normalised,
    "no_softmax": attention_no_softmax,
    "float32_scale": attention_float32_scale,
    "scores_transposed": attention_scores_transposed,
    "scale_by_d_v": attention_scale_by_d_v,
    "scale_by_T": attention_scale_by_T,
    "integer_sqrt_scale": attention_integer_sqrt,
    "keys_are_queries": attention_keys_are_queries,
    "output_uses_weights_transposed": attention_weights_transposed_on_values,
    "uniform_weights": attention_uniform_weights,
    "scale_by_T/queries": attention_scale_by_T_queries,
    "scale_precedence": attention_precedence_inline,
    "scale_after_softmax": attention_scale_after_softmax,
    "softmax_whole_matrix": attention_whole_matrix,
    "sigmoid_weights": attention_sigmoid,
    "log_softmax_weights": attention_log_softmax,
    "scores_normalised_without_exp": attention_normalised_by_sum,
    "scores_normalised_without_exp/l1": attention_normalised_l1,
    "scores_normalised_without_exp/l2": attention_normalised_l2,
    "keepdim_missing": attention_sum_without_keepdim,
    "keepdim_missing/max": attention_max_without_keepdim,
    "keepdim_missing/stable_sum": attention_stable_sum_without_keepdim,
    "keepdim_missing/stable_both": lambda Q, K, V, d_k: attention_stable_sum_without_keepdim(Q, K, V, d_k, False),
    "values_are_keys": attention_values_are_keys,
    "causal_mask_added": attention_causal,
}


def _scaled_scores(Q, K, d_k):
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)


# Mistakes told only by both results together: one of their parts alone equals another mistake's (the
# weights of scale_after_softmax/output are no_scale's, the scores returned as weights are no_softmax's)
PAIR_VARIANTS = {
    # softmax(Q K^T) V / sqrt(d_k): the scale applied to the output, the weights unscaled
    "scale_after_softmax/output": lambda Q, K, V, d_k: (
        F.softmax(Q @ K.transpose(-2, -1), dim=-1) @ V / math.sqrt(d_k), F.softmax(Q @ K.transpose(-2, -1), dim=-1)),
    # the right output, and the scores before the softmax returned as the weights
    "returns_scores_as_weights": lambda Q, K, V, d_k: (attention(Q, K, V, d_k)[0], _scaled_scores(Q, K, d_k)),
    "returns_scores_as_weights/unscaled": lambda Q, K, V, d_k: (attention(Q, K, V, d_k)[0], Q @ K.transpose(-2, -1)),
}


def pair_variants(Q, K, V, d_k) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """{key: (output, weights)} of every mistake with both results (the ones of ATTENTION_VARIANTS and
    PAIR_VARIANTS), except those equal to the right pair on these inputs."""
    right = attention(Q, K, V, d_k)
    sizes = {"scale_by_d_v": V.shape[-1], "scale_by_T": K.shape[-2], "scale_by_T/queries": Q.shape[-2]}
    out = {}
    for key, fn in {**ATTENTION_VARIANTS, **PAIR_VARIANTS}.items():
        if sizes.get(key) in (d_k * d_k, 1):
            continue
        got = fn(Q, K, V, d_k)
        if any(g is None for g in got):
            continue
        if all(tuple(g.shape) == tuple(r.shape) and torch.allclose(g, r, rtol=1e-12, atol=1e-12)
               for g, r in zip(got, right)):
            continue
        out[key] = got
    return out


def kernel_scores(Q, K) -> dict[str, torch.Tensor]:
    """Scores of the other similarity kernels a softmax might be taken of, divided by some constant c:
    {key: scores} (the dot product itself: a scale constant other than sqrt(d_k))."""
    sq = (Q.unsqueeze(-2) - K.unsqueeze(-3)).pow(2).sum(-1)                       # (T_q, T_k)
    cos = F.normalize(Q, dim=-1) @ F.normalize(K, dim=-1).transpose(-2, -1)       # (T_q, T_k)
    return {"wrong_scale_constant": Q @ K.transpose(-2, -1), "gaussian_kernel": -sq, "cosine_scores": cos}


def fitted_scale(S: torch.Tensor, weights: torch.Tensor) -> float | None:
    """The c for which softmax(S / c) is closest to `weights` (least squares on each row's centred log
    weights), or None when the weights cannot be a softmax of S at all (an entry <= 0, not finite)."""
    w = weights.to(torch.float64)
    if w.shape != S.shape or not bool(torch.isfinite(w).all()) or bool((w <= 0).any()):
        return None
    lw = w.log()
    lw = lw - lw.mean(dim=-1, keepdim=True)
    s = S.to(torch.float64) - S.to(torch.float64).mean(dim=-1, keepdim=True)
    num, den = float((lw * s).sum()), float((lw * lw).sum())
    if float(lw.abs().max()) < 1e-9 or num == 0.0:   # equal weights in every row: a softmax of nothing
        return None
    return num / den


def wrong_variants(Q, K, V, d_k, part: str = "output") -> dict[str, torch.Tensor]:
    """{misconception_key: what that mistake returns} for `part` in ("output", "weights")."""
    index = {"output": 0, "weights": 1}[part]
    right = attention(Q, K, V, d_k)[index]
    sizes = {"scale_by_d_v": V.shape[-1], "scale_by_T": K.shape[-2], "scale_by_T/queries": Q.shape[-2]}
    out = {}
    for key, fn in ATTENTION_VARIANTS.items():
        if sizes.get(key) in (d_k * d_k, 1):
            continue   # the same numbers as divide_by_dk / no_scale: these shapes cannot show it
        got = fn(Q, K, V, d_k)[index]
        if got is None or tuple(got.shape) == tuple(right.shape) and torch.allclose(got, right, rtol=1e-12, atol=1e-12):
            continue   # these inputs cannot tell it from the right answer (d_k = 16: isqrt, float32 scale)
        out[key] = got
    return out


# ----------------------------------------------------------------------------------------------
# Milestone 2: Var(q.k) = d_k
# ----------------------------------------------------------------------------------------------
def dot_product_variance(d_k: int, n_samples: int, generator: torch.Generator | None = None,
                         scaled: bool = False) -> float:
    """Empirical variance of q.k over n_samples pairs q, k ~ N(0, I_{d_k}); of q.k / sqrt(d_k)
    when scaled=True. Expect about d_k (unscaled) and about 1 (scaled)."""
    q = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)  # (n, d_k)
    k = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)  # (n, d_k)
    dots = (q * k).sum(dim=-1)                                                # (n,)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()  # unbiased


def _draw(kind: str, d_k: int, n: int, g: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
    """The n dot products of one way of drawing them from `g` (the right one is "right")."""
    def r(*shape):
        return torch.randn(*shape, generator=g, dtype=dtype)
    if kind == "right":
        q, k = r(n, d_k), r(n, d_k)
        return (q * k).sum(-1)
    if kind == "shared_sample":                   # one query for every sample
        q, k = r(d_k), r(n, d_k)
        return k @ q
    if kind == "shared_sample/query_drawn_last":
        k, q = r(n, d_k), r(d_k)
        return k @ q
    if kind == "shared_sample/key":               # one key for every sample
        q, k = r(n, d_k), r(d_k)
        return q @ k
    if kind == "keys_are_queries":                # q . q
        q = r(n, d_k)
        return (q * q).sum(-1)
    if kind == "keys_are_queries/second_draw":    # k . k: q drawn, then overwritten by k (normal_ on one buffer)
        r(n, d_k)
        k = r(n, d_k)
        return (k * k).sum(-1)
    if kind == "draw_split_along_samples":        # one (n, 2 d_k) draw chunked along the samples: n/2 pairs of 2 d_k
        q, k = r(n, 2 * d_k).chunk(2, dim=0)
        return (q * k).sum(-1)
    if kind == "uniform_samples":                 # torch.rand: uniform on [0, 1)
        q = torch.rand(n, d_k, generator=g, dtype=dtype)
        k = torch.rand(n, d_k, generator=g, dtype=dtype)
        return (q * k).sum(-1)
    if kind == "dots_summed_over_samples":        # (q * k).sum(0): d_k sums over the n samples
        q, k = r(n, d_k), r(n, d_k)
        return (q * k).sum(0)
    if kind == "dots_summed_over_samples/shape_swapped":   # drawn (d_k, n), summed over the n
        q, k = r(d_k, n), r(d_k, n)
        return (q * k).sum(-1)
    raise ValueError(kind)


DRAWS = ("shared_sample", "shared_sample/query_drawn_last", "shared_sample/key", "keys_are_queries",
         "keys_are_queries/second_draw", "draw_split_along_samples",
         "uniform_samples", "dots_summed_over_samples", "dots_summed_over_samples/shape_swapped")


def variance_variants(d_k: int, n: int, seed: int, scaled: bool) -> tuple[list[float], dict[str, float]]:
    """What dot_product_variance(d_k, n, torch.Generator().manual_seed(seed), scaled) gives when drawn
    right (float32 and float64 draws: a list) and for each known mistake ({key: value}), replayed on
    the same generator: the same random numbers, so a mistake's value is reproduced to rounding."""
    def gen():
        return torch.Generator().manual_seed(seed)

    def var(dots: torch.Tensor, s: float = 1.0) -> float:
        return float((dots / s).var())

    scale = math.sqrt(d_k) if scaled else 1.0
    right, wrong = [], {}
    for dtype in (torch.float32, torch.float64):
        tag = "" if dtype == torch.float32 else "/float64"
        dots = _draw("right", d_k, n, gen(), dtype)
        right.append(var(dots, scale))
        wrong["variance_returned_std" + tag] = math.sqrt(var(dots, scale))
        q = torch.randn(n, d_k, generator=(g := gen()), dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        wrong["variance_of_products" + tag] = float((q * k / scale).var())
        wrong["scaled_flag_inverted" + tag] = var(dots, 1.0 if scaled else math.sqrt(d_k))
        if scaled:
            plain = var(dots)
            wrong["divide_by_dk" + tag] = var(dots, d_k)
            wrong["multiply_by_sqrt_dk" + tag] = var(dots * math.sqrt(d_k))
            wrong["variance_scaled_by_sqrt" + tag] = plain / math.sqrt(d_k)
            wrong["scaled_flag_ignored" + tag] = plain
        for kind in DRAWS:
            wrong[kind + tag] = var(_draw(kind, d_k, n, gen(), dtype), scale)
    return right, wrong


# ----------------------------------------------------------------------------------------------
# Milestone 3: entropy collapse
# ----------------------------------------------------------------------------------------------
def softmax_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy (natural log) of softmax(logits) over the last dim: shape logits.shape[:-1].

    log_softmax keeps a saturated row finite: p = 0 entries contribute 0 * (finite) = 0."""
    log_p = F.log_softmax(logits, dim=-1)  # (..., T)
    return -(log_p.exp() * log_p).sum(dim=-1)  # (...)


def softmax_entropy_log2(logits):
    return softmax_entropy(logits) / math.log(2)


def softmax_entropy_log10(logits):
    return softmax_entropy(logits) / math.log(10)


def softmax_entropy_wrong_dim(logits):
    log_p = F.log_softmax(logits, dim=-2)
    return -(log_p.exp() * log_p).sum(dim=-2)


def softmax_entropy_first_dim(logits):
    log_p = F.log_softmax(logits, dim=0)
    return -(log_p.exp() * log_p).sum(dim=0)


def implicit_softmax_dim(ndim: int) -> int:
    """The dim F.softmax picks without `dim` (torch's legacy rule, with a deprecation warning): 0 for
    0-, 1- and 3-D input, else 1."""
    return 0 if ndim in (0, 1, 3) else 1


def softmax_entropy_implicit_dim(logits):
    # p = F.softmax(logits): normalised over the implicit dim, summed over the last
    p = F.softmax(logits, dim=implicit_softmax_dim(logits.dim()))
    return -(p * torch.log(p)).sum(dim=-1)


def entropy_variants(logits: torch.Tensor) -> dict[str, torch.Tensor]:
    log2 = softmax_entropy_log2(logits)
    H = softmax_entropy(logits)
    n = logits.shape[-1]
    log_p = F.log_softmax(logits, dim=-1)
    terms = -(log_p.exp() * log_p)                                   # (..., n)
    out = {
        # one number for the whole tensor: the row entropies averaged or summed, or every term averaged
        "entropy_one_number": H.mean() if H.dim() > 0 else None,
        "entropy_one_number/sum": H.sum() if H.numel() > 1 else None,
        "entropy_one_number/mean_of_terms": terms.mean() if logits.dim() >= 2 else None,
        "entropy_mean_not_sum": H / n,                                # .mean(dim=-1) of the terms
        "entropy_terms_not_summed": terms,                            # no sum over the row
        "entropy_keepdim": H.unsqueeze(-1),                           # .sum(dim=-1, keepdim=True)
        # H / ln n: a fraction of the maximum, not nats (n = 2 or 10 is the same as log base 2 or 10)
        "entropy_normalised": H / math.log(n) if n not in (1, 2, 10) else None,
        # -sum [p ln p + (1 - p) ln(1 - p)]: every entry's two-outcome (Bernoulli) entropy summed
        "entropy_binary_terms": (terms - torch.special.xlog1py(1 - log_p.exp(), -log_p.exp())).sum(dim=-1),
        # -sum p * logits: the logits used in place of log p (they differ by logsumexp(logits))
        "entropy_without_log": -(log_p.exp() * logits).sum(dim=-1),
        # F.softmax(logits) without dim: another dim than the last only for 3-D (or 1-D: the same) input
        "softmax_implicit_dim": (softmax_entropy_implicit_dim(logits)
                                 if implicit_softmax_dim(logits.dim()) != logits.dim() - 1 else None),
    }
    # every other axis a reduction could use: the softmax right, the sum of p log p over another axis (a
    # numpy-style axis=0), and the softmax over another axis summed over the last
    for d in range(logits.dim() - 1):
        out[f"entropy_wrong_dim/sum_dim{d}"] = terms.sum(dim=d)
        if d != implicit_softmax_dim(logits.dim()):     # that one is softmax_implicit_dim
            log_q = F.log_softmax(logits, dim=d)
            out[f"entropy_wrong_dim/softmax_dim{d}"] = -(log_q.exp() * log_q).sum(dim=-1)
    return {**out, **{
        "entropy_sign": -softmax_entropy(logits),
        "entropy_log_base": log2,
        "entropy_log_base_10": softmax_entropy_log10(logits),
        "entropy_wrong_dim": softmax_entropy_wrong_dim(logits) if logits.dim() >= 2 else None,
        # a hard-coded dim=0: the same mistake, which on a batch of rows sums over the batch
        "entropy_wrong_dim/first": softmax_entropy_first_dim(logits) if logits.dim() >= 3 else None,
    }}


# Entropy probes: one row whose exp overflows float32 though no probability underflows, and one whose
# probabilities underflow to 0 though no exp overflows. A NaN in the first comes from exp of the raw
# logits (no max subtracted); a NaN in the second from 0 * log(0).
ENTROPY_PROBE = torch.tensor([[100.0, 100.5, 99.0, 100.25],
                              [0.0, -200.0, -150.0, -1.0]], dtype=torch.float32)


ENTROPY_TABLE_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def entropy_table(dims=(4, 16, 64, 256), seed: int = 0, *, _std_unbiased: bool = True,
                  _scale: str = "sqrt", _log_base: float = math.e, _seed_each: bool = True,
                  _keys_first: bool = False, _keys_shape: str = "rows", _dtype: torch.dtype = torch.float32,
                  _draw=torch.randn, _std_of: str = "scores",
                  entropy=None) -> list[dict]:
    """The lesson's table: for each d, re-seed, draw q (1, d) then k (5, d) with torch.randn,
    raw = (q @ k.T)[0], scaled = raw / sqrt(d); report unbiased std and softmax entropy of both.

    The underscored keywords build the known wrong variants; the oracle uses the defaults. `entropy`
    replaces softmax_entropy (the tests pass a student's own, to charge a wrong one once)."""
    H = entropy or softmax_entropy
    rows = []
    # a generator of its own, seeded as torch.manual_seed(seed) seeds the global one (the same CPU stream): the
    # global one is shared by every thread of the grader (`autograder check` grades two at a time in one process)
    g = torch.Generator().manual_seed(seed)
    for d in dims:
        if _seed_each:
            g.manual_seed(seed)
        if _keys_first:
            k = _draw(5, d, dtype=_dtype, generator=g)   # wrong order: the keys take the first numbers
            q = _draw(1, d, dtype=_dtype, generator=g)
        else:
            q = _draw(1, d, dtype=_dtype, generator=g)   # (1, d)
            k = _draw(5, d, dtype=_dtype, generator=g)   # (5, d)
        if _keys_shape == "transposed":  # wrong: k = torch.randn(d, 5), raw = q @ k
            k = k.reshape(d, 5).T
        raw = (q @ k.T)[0]               # (5,)
        scaled = {"sqrt": raw / d ** 0.5, "d": raw / d, "none": raw,
                  "precedence": raw / d ** 1 / 2, "half": raw / (d ** 1 / 2)}[_scale]  # (5,)
        nats = math.log(_log_base)
        spread = (raw, scaled) if _std_of == "scores" else (torch.softmax(raw, -1), torch.softmax(scaled, -1))
        rows.append({"d": int(d),
                     "raw_std": spread[0].std(unbiased=_std_unbiased).item(),
                     "scaled_std": spread[1].std(unbiased=_std_unbiased).item(),
                     "H_raw": float(H(raw)) / nats,
                     "H_scaled": float(H(scaled)) / nats})
    return rows


def entropy_table_variants(dims, seed) -> dict[str, list[dict]]:
    return {
        "scale_precedence": entropy_table(dims, seed, _scale="precedence"),
        "scale_precedence/scale": entropy_table(dims, seed, _scale="half"),
        "keys_drawn_transposed": entropy_table(dims, seed, _keys_shape="transposed"),
        "draws_in_float64": entropy_table(dims, seed, _dtype=torch.float64),
        "biased_std": entropy_table(dims, seed, _std_unbiased=False),
        "divide_by_dk": entropy_table(dims, seed, _scale="d"),
        "no_scale": entropy_table(dims, seed, _scale="none"),
        "entropy_log_base": entropy_table(dims, seed, _log_base=2.0),
        "entropy_log_base_10": entropy_table(dims, seed, _log_base=10.0),
        "seed_outside_loop": entropy_table(dims, seed, _seed_each=False),
        "keys_drawn_first": entropy_table(dims, seed, _keys_first=True),
        "uniform_samples": entropy_table(dims, seed, _draw=torch.rand),
        "table_stds_of_weights": entropy_table(dims, seed, _std_of="weights"),
        **table_fields_swapped(entropy_table(dims, seed)),
    }


def table_fields_swapped(rows: list[dict]) -> dict[str, list[dict]]:
    """The table with two of its number columns exchanged in every row (H_raw holding H_scaled's value and
    the other way round: a copy-paste slip), one variant per pair of columns."""
    cols = ENTROPY_TABLE_KEYS[1:]
    return {f"table_fields_swapped/{a}_{b}": [{**r, a: r[b], b: r[a]} for r in rows]
            for i, a in enumerate(cols) for b in cols[i + 1:]}


def table_as_tensor(rows) -> torch.Tensor:
    """(len(rows), 4) float32 tensor of raw_std, scaled_std, H_raw, H_scaled."""
    return torch.tensor([[float(r[key]) for key in ENTROPY_TABLE_KEYS[1:]] for r in rows],
                        dtype=torch.float32)


# ----------------------------------------------------------------------------------------------
# Check your understanding (multiple choice)
# ----------------------------------------------------------------------------------------------
q5_answer = "C"   # Var(q.k) = d_k
q6_answer = "A"   # weighted average of the rows of X
q7_answer = "D"   # soft, differentiable mixture of all values

# wrong choice -> misconception key (choices not listed are simply wrong)
MCQ_MISCONCEPTIONS = {
    "q5_answer": {"A": "variance_after_scaling", "B": "variance_vs_std", "D": "variance_d_k_squared"},
    "q6_answer": {"B": "self_attention_identity", "C": "attention_as_argmax", "D": "uniform_weights"},
    "q7_answer": {"A": "attention_as_argmax", "B": "attention_needs_sorted_keys", "C": "attention_as_argmax"},
}


# ----------------------------------------------------------------------------------------------
# Stretch: multi-head attention
# ----------------------------------------------------------------------------------------------
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads: int, *, _scale_dim=None,
                         _split: str = "transpose", _out_proj: bool = True,
                         _transpose_w: bool = False, _attn=attention, per_head=None):
    """X (T, d_model); W_Q, W_K, W_V, W_O (d_model, d_model), applied as X @ W.
    n_heads heads of size d_k = d_model // n_heads; returns (T, d_model).

    The underscored keywords build the known wrong variants; the oracle uses the defaults. `per_head`
    replaces attention, called once per head on (T, d_k) tensors (a student's own, in the tests)."""
    T, C = X.shape
    h = n_heads
    d_k = C // h
    if _transpose_w:
        W_Q, W_K, W_V, W_O = W_Q.T, W_K.T, W_V.T, W_O.T
    q, k, v = X @ W_Q, X @ W_K, X @ W_V                  # (T, C) each

    def split(x):
        if _split == "transpose":
            return x.view(T, h, d_k).transpose(0, 1)     # (h, T, d_k)
        return x.reshape(h, T, d_k)                      # wrong: mixes tokens across heads

    q, k, v = split(q), split(k), split(v)               # (h, T, d_k)
    if per_head is not None:
        y = torch.stack([per_head(q[i], k[i], v[i], _scale_dim or d_k)[0] for i in range(h)])
    else:
        y, _ = _attn(q, k, v, _scale_dim or d_k)         # (h, T, d_k)
    if _split == "transpose":
        y = y.transpose(0, 1).contiguous().view(T, C)    # (T, C): heads side by side
    else:
        y = y.reshape(T, C)
    return y @ W_O if _out_proj else y                   # (T, C)


def mha_head_slice_offset(X, W_Q, W_K, W_V, W_O, n_heads: int) -> torch.Tensor:
    """Head h read from columns h to h + d_k (not h * d_k to (h + 1) * d_k): the heads overlap."""
    d_k = X.shape[-1] // n_heads
    q, k, v = X @ W_Q, X @ W_K, X @ W_V                               # (T, C)
    heads = [attention(q[:, h:h + d_k], k[:, h:h + d_k], v[:, h:h + d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O                            # (T, C)


def mha_strided_heads(X, W_Q, W_K, W_V, W_O, n_heads: int, merge: str = "block") -> torch.Tensor:
    """Head h reads the columns h, h + n_heads, ... (x.view(T, d_k, n_heads) split); its output goes
    back to block h ("block") or to the same strided columns ("strided")."""
    T, C = X.shape
    d_k = C // n_heads
    q, k, v = (X @ W for W in (W_Q, W_K, W_V))                          # (T, C)
    heads = [attention(q[:, h::n_heads], k[:, h::n_heads], v[:, h::n_heads], d_k)[0] for h in range(n_heads)]
    if merge == "block":
        y = torch.cat(heads, dim=-1)                                      # (T, C)
    else:
        y = torch.stack(heads, dim=-1).reshape(T, C)                      # column j * n_heads + h
    return y @ W_O


def mha_merge_without_transpose(X, W_Q, W_K, W_V, W_O, n_heads: int, split: str = "transpose") -> torch.Tensor:
    """(n_heads, T, d_k) merged by reshape(T, d_model) without moving the head axis back behind T;
    `split`: the heads split right ("transpose") or also without the transpose ("reshape", which is
    mha_split_without_transpose)."""
    T, C = X.shape
    d_k = C // n_heads

    def heads(x):
        if split == "transpose":
            return x.reshape(T, n_heads, d_k).transpose(0, 1)             # (h, T, d_k)
        return x.reshape(n_heads, T, d_k)

    y, _ = attention(heads(X @ W_Q), heads(X @ W_K), heads(X @ W_V), d_k)  # (h, T, d_k)
    return y.reshape(T, C) @ W_O


def mha_input_split_before_projection(X, W_Q, W_K, W_V, W_O, n_heads: int) -> torch.Tensor:
    """X split into column slices before projecting: head h computes X[:, c] @ W[c, c] for its columns c,
    so it sees only its own slice of the input through the diagonal block of each projection."""
    d_k = X.shape[-1] // n_heads
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        x = X[:, c]                                                       # (T, d_k)
        heads.append(attention(x @ W_Q[c, c], x @ W_K[c, c], x @ W_V[c, c], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O                                 # (T, C)


def mha_split_only_without_transpose(X, W_Q, W_K, W_V, W_O, n_heads: int) -> torch.Tensor:
    """Split by reshape(n_heads, T, d_k) (tokens mixed across heads), merged back the right way."""
    T, C = X.shape
    d_k = C // n_heads
    q, k, v = (x.reshape(n_heads, T, d_k) for x in (X @ W_Q, X @ W_K, X @ W_V))
    y, _ = attention(q, k, v, d_k)
    return y.transpose(0, 1).reshape(T, C) @ W_O


def mha_single_head(X, W_Q, W_K, W_V, W_O, n_heads: int, scale_dim: int | None = None) -> torch.Tensor:
    """One attention over the full width (n_heads ignored), scaled by sqrt(d_model) or sqrt(scale_dim)."""
    C = X.shape[-1]
    y, _ = attention(X @ W_Q, X @ W_K, X @ W_V, scale_dim or C)
    return y @ W_O


def mha_attention_family(X, W_Q, W_K, W_V, W_O, n_heads) -> dict[str, torch.Tensor]:
    """Every catalogued mistake of attention (ATTENTION_VARIANTS and PAIR_VARIANTS) made in each head:
    one shared list, so that multi-head attention tries the whole family q1 tries. A variant that needs
    T_q != T_k or fails on (n_heads, T, d_k) heads is left out."""
    out = {}
    for key, fn in {**ATTENTION_VARIANTS, **PAIR_VARIANTS}.items():
        if key in ("keys_are_queries", "scores_transposed", "values_are_keys"):
            continue   # in self-attention heads: W_Q used for K, W_Q and W_K swapped, W_K for V (mha_variants' own)
        try:
            got = multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, _attn=fn)
        except (RuntimeError, TypeError, AttributeError):
            continue
        out[key] = got
    return out


def mha_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict[str, torch.Tensor]:
    args = (X, W_Q, W_K, W_V, W_O, n_heads)
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    mixed = {  # a projection matrix used for the wrong one of Q, K, V (copy-paste)
        "same_projection/k_from_w_q": (W_Q, W_Q, W_V), "same_projection/v_from_w_q": (W_Q, W_K, W_Q),
        "same_projection/v_from_w_k": (W_Q, W_K, W_K), "same_projection/q_from_w_k": (W_K, W_K, W_V),
        "qk_swapped": (W_K, W_Q, W_V),
    }
    T = X.shape[0]

    def heads(x):
        return x.reshape(T, n_heads, d_k).transpose(0, 1)                 # (h, T, d_k)

    s = heads(X @ W_Q) @ heads(X @ W_K).transpose(-2, -1) / math.sqrt(d_k)  # (h, T, T)
    over_heads = (F.softmax(s, dim=0) @ heads(X @ W_V)).transpose(0, 1).reshape(T, d_model) @ W_O
    eye = torch.eye(d_model, dtype=X.dtype)
    right = multi_head_attention(*args)
    family = {k: v for k, v in mha_attention_family(*args).items()
              if not (v.shape == right.shape and torch.allclose(v, right, rtol=1e-12, atol=1e-12))}
    return {
        **family,
        **{key: multi_head_attention(X, *Ws, W_O, n_heads) for key, Ws in mixed.items()},
        # the heads run on X itself: no W_Q, W_K, W_V (identity projections)
        "mha_no_input_projections": multi_head_attention(X, eye, eye, eye, W_O, n_heads),
        "mha_weight_transposed/output_only": multi_head_attention(X, W_Q, W_K, W_V, W_O.T, n_heads),
        "mha_weight_transposed/inputs_only": multi_head_attention(X, W_Q.T, W_K.T, W_V.T, W_O, n_heads),
        "mha_softmax_over_heads": over_heads,
        "mha_strided_heads": mha_strided_heads(*args),
        "mha_strided_heads/strided_merge": mha_strided_heads(*args, merge="strided"),
        "mha_merge_without_transpose": mha_merge_without_transpose(*args),
        "mha_split_without_transpose/split_only": mha_split_only_without_transpose(*args),
        "mha_single_head": mha_single_head(*args),
        "mha_single_head/scaled_by_d_k": mha_single_head(*args, scale_dim=d_k),
        "mha_head_slice_offset": mha_head_slice_offset(*args),
        "mha_input_split_before_projection": mha_input_split_before_projection(*args),
        "integer_sqrt_scale": multi_head_attention(*args, _attn=attention_integer_sqrt),
        "mha_scale_by_d_model": multi_head_attention(*args, _scale_dim=d_model),
        "divide_by_dk": multi_head_attention(*args, _attn=attention_divide_by_dk),
        "no_scale": multi_head_attention(*args, _attn=attention_no_scale),
        "float32_scale": multi_head_attention(*args, _attn=attention_float32_scale),
        "softmax_wrong_dim": multi_head_attention(*args, _attn=attention_softmax_wrong_dim),
        "mha_split_without_transpose": multi_head_attention(*args, _split="reshape"),
        "mha_no_output_projection": multi_head_attention(*args, _out_proj=False),
        "mha_weight_transposed": multi_head_attention(*args, _transpose_w=True),
    }


def torch_mha(X, W_Q, W_K, W_V, W_O, n_heads) -> torch.Tensor:
    """The same computation through torch.nn.MultiheadAttention (an independent implementation).

    nn.MultiheadAttention computes x @ W.T, so our X @ W_Q layout becomes in_proj rows W_Q.T."""
    T, C = X.shape
    mha = torch.nn.MultiheadAttention(C, n_heads, bias=False, dtype=X.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([W_Q.T, W_K.T, W_V.T], dim=0))  # (3C, C)
        mha.out_proj.weight.copy_(W_O.T)                                   # (C, C)
        out, _ = mha(X, X, X, need_weights=False)                          # (T, C), unbatched
    return out


def nameable_keys() -> set[str]:
    """Every misconception key this module's wrong variants can name (the part before any "/"), found by
    calling each variant function once on small float64 inputs: tests/test_authoring.py checks that each
    has a text in the assignment's hidden/_misconceptions.py. A new variant function belongs here too."""
    g = torch.Generator().manual_seed(0)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    keys = set(ATTENTION_VARIANTS) | set(entropy_variants(r(3, 4)))
    keys |= set(entropy_table_variants((4, 8), 0)) | set(mha_variants(r(4, 8), r(8, 8), r(8, 8), r(8, 8), r(8, 8), 2))
    keys |= {k for choice in MCQ_MISCONCEPTIONS.values() for k in choice.values()}
    return {k.split("/")[0] for k in keys}
