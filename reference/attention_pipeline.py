"""Reference for `attention-pipeline` (Lesson 08): the oracle of its hidden tests.

Conventions (the same as the student notebook):
- tokens are rows; tensors may carry leading batch dims: X is (..., T, d_model), Q/K are (..., T, d_k),
  V is (..., T, d_v); projections are plain matrices W_Q, W_K (d_model, d_k) and W_V (d_model, d_v).
- an additive mask M has 0 where a query may read a key and torch.finfo(dtype).min where it may not;
  it is finite in every dtype (-1e9 overflows float16 to -inf).
- entropies are in bits, with 0 * log 0 = 0.

Below the correct functions come the known wrong variants (the lesson's traps) and helpers that return
{misconception_key: tensor}, so a failed test can name the mistake it matches. The texts of the keys
are data in assignments/attention-pipeline/hidden/_misconceptions.py: this module is plain torch."""
from __future__ import annotations

import math

import torch


# ---------------------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------------------
def project_qkv(X, W_Q, W_K, W_V):
    # X: (..., T, d_model); W_Q, W_K: (d_model, d_k); W_V: (d_model, d_v)
    Q = X @ W_Q  # (..., T, d_k)
    K = X @ W_K  # (..., T, d_k)
    V = X @ W_V  # (..., T, d_v)
    return Q, K, V


def scaled_scores(Q, K):
    # Q: (..., T_q, d_k); K: (..., T_k, d_k)
    d_k = Q.shape[-1]
    return (Q @ K.transpose(-2, -1)) / math.sqrt(d_k)  # (..., T_q, T_k); math.sqrt is a double


def causal_additive_mask(T, dtype=torch.float32, device=None):
    # (T, T): 0 where key i <= query t, finfo(dtype).min where i > t (the future)
    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)  # True strictly above diag
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(blocked, torch.finfo(dtype).min)


def attention_weights(S, M=None):
    # S: (..., T_q, T_k); M: None or broadcastable to S. Softmax along each row (over the keys).
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1)  # (..., T_q, T_k), rows sum to 1


def self_attention(X, W_Q, W_K, W_V, causal=True, *, parts=None):
    # X: (..., T, d_model) -> O: (..., T, d_v), A: (..., T, T)
    # `parts` replaces the stages by name ({"scaled_scores": f, ...}): the tests build the pipeline from
    # a student's own stages, so that a wrong stage is charged once, by its own question
    f = {**STAGES, **(parts or {})}
    Q, K, V = f["project_qkv"](X, W_Q, W_K, W_V)
    S = f["scaled_scores"](Q, K)  # (..., T, T)
    M = None
    if causal:  # a student's stage is called as the tests call it: (T, dtype), on the CPU
        M = (f["causal_additive_mask"](X.shape[-2], S.dtype) if "causal_additive_mask" in (parts or {})
             else causal_additive_mask(X.shape[-2], S.dtype, S.device))
    A = f["attention_weights"](S, M)  # (..., T, T)
    O = A @ V  # (..., T, d_v)
    return O, A


def cross_attention(X, Y, W_Q, W_K, W_V, M=None, *, parts=None):
    # X: (..., T_q, d_model) asks; Y: (..., T_k, d_model) answers. No causal mask by default.
    f = {**STAGES, **(parts or {})}
    Q = X @ W_Q  # (..., T_q, d_k)
    K = Y @ W_K  # (..., T_k, d_k)
    V = Y @ W_V  # (..., T_k, d_v)
    A = f["attention_weights"](f["scaled_scores"](Q, K), M)  # (..., T_q, T_k)
    O = A @ V  # (..., T_q, d_v)
    return O, A


STAGES = {"project_qkv": project_qkv, "scaled_scores": scaled_scores,
          "causal_additive_mask": causal_additive_mask, "attention_weights": attention_weights}


def nadaraya_watson(q, K, V):
    # q: (d_k,), K: (T, d_k), V: (T, d_v) -> (d_v,)
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))  # (T,) kernel weights
    return (kappa[:, None] * V).sum(0) / kappa.sum()


def prefix_average_matrix(T, dtype=torch.float64):
    # Lesson 07's W_avg: row t (1-based) holds 1/t on columns 1..t, 0 after
    t = torch.arange(1, T + 1, dtype=dtype)
    return torch.ones(T, T, dtype=dtype).tril() / t[:, None]


def row_entropy_bits(A):
    # A: (..., T_q, T_k) rows are distributions -> (..., T_q), with 0 * log 0 = 0
    return -torch.special.xlogy(A, A).sum(-1) / math.log(2)


def effective_tokens(A, *, entropy=None):
    return 2.0 ** (entropy or row_entropy_bits)(A)  # (..., T_q)


def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * d_k + d_model * d_k + d_model * d_v  # W_Q, W_K, W_V
    if with_output:
        n += d_v * d_model  # W_O: (d_v, d_model)
    return n


# Written answers, graded by the hidden tests (the student notebook has `...` here).
max_rank_S = 8        # T = 100 tokens, d_k = 8: rank(S) <= min(T, d_k)
rank_S_lesson = 2     # the hand-built S of the lesson: its queries ask two questions
ans_scale = "b"       # no 1/sqrt(d_k) at d_k = 512: rows become nearly one-hot, entropy falls to ~0
ans_mask = "c"        # without the mask, position t reads the token it must predict
ans_cross_shapes = "b"  # S and A are T x T', O is T x d_v
ans_cross_causal = "d"  # only when both sequences share one time axis
ans_complexity = "c"  # S costs O(T^2 d_k): doubling T quadruples it

# wrong choice -> misconception key (a choice not listed is simply wrong)
MCQ_MISCONCEPTIONS = {
    "ans_scale": {"a": "scale_direction_reversed", "c": "softmax_scale_invariant", "d": "entropy_negative"},
    "ans_mask": {"a": "mask_breaks_normalisation", "b": "mask_changes_rank", "d": "mask_blocks_gradient"},
    "ans_cross_shapes": {"a": "cross_is_self_attention", "c": "cross_roles_swapped", "d": "cross_output_from_keys"},
    "ans_cross_causal": {"a": "causal_in_cross", "b": "causal_needs_square", "c": "causal_needs_square"},
    "ans_complexity": {"a": "cost_linear_in_T", "b": "cost_independent_of_T", "d": "cost_cubic_in_T"},
}


# ---------------------------------------------------------------------------------------------------
# wrong variants (each a complete, plausible student mistake)
# ---------------------------------------------------------------------------------------------------
def scores_variants(Q, K):
    d_k = Q.shape[-1]
    QK = Q @ K.transpose(-2, -1)
    out = {
        "no_scale": QK,
        "divide_by_dk": QK / d_k,
        "float32_scale": QK / torch.sqrt(torch.tensor(float(d_k), dtype=torch.float32)).item(),
    }
    if K.shape[-2] != d_k:
        out["scale_by_T"] = QK / math.sqrt(K.shape[-2])
    if Q.shape[-2] not in (d_k, K.shape[-2]):
        out["scale_by_T/queries"] = QK / math.sqrt(Q.shape[-2])
    out["scores_transposed"] = (K @ Q.transpose(-2, -1)) / math.sqrt(d_k)   # (..., T_k, T_q)
    if math.isqrt(d_k) ** 2 != d_k:
        out["integer_sqrt_scale"] = QK / math.isqrt(d_k)
    out["keys_are_queries"] = (Q @ Q.transpose(-2, -1)) / math.sqrt(d_k)    # (..., T_q, T_q)
    return out


def qkv_variants(X, W_Q, W_K, W_V):
    """{key: (Q, K, V)}"""
    out = {
        "qk_swapped": (X @ W_K, X @ W_Q, X @ W_V),
        "same_projection": (X @ W_Q, X @ W_Q, X @ W_V),
    }
    if all(W.shape[-2] == W.shape[-1] for W in (W_Q, W_K, W_V)):   # only square weights let X @ W.T run
        out["weight_transposed"] = (X @ W_Q.T, X @ W_K.T, X @ W_V.T)
    return out


def mask_variants(T, dtype):
    lo = torch.finfo(dtype).min
    above = torch.ones(T, T, dtype=torch.bool).triu(1)
    below = torch.ones(T, T, dtype=torch.bool).tril(-1)
    after_next = torch.ones(T, T, dtype=torch.bool).triu(2)   # tril(1) left open: t may read t + 1
    out = {
        "causal_includes_next": torch.zeros(T, T, dtype=dtype).masked_fill(after_next, lo),
        "upper_triangular_mask": torch.zeros(T, T, dtype=dtype).masked_fill(below, lo),
        "mask_blocks_diagonal": torch.zeros(T, T, dtype=dtype).masked_fill(~below, lo),
        "infinite_mask": torch.zeros(T, T, dtype=dtype).masked_fill(above, float("-inf")),
    }
    return out


def weights_variants(S, M=None):
    S_ = S if M is None else S + M
    out = {
        "softmax_wrong_dim": torch.softmax(S_, dim=-2),
        # the scores never reach the weights: the same weight on every (open) key
        "uniform_weights": torch.softmax(torch.zeros_like(S_) if M is None else torch.zeros_like(S_) + M, dim=-1),
    }
    if S_.dim() >= 4:   # a hard-coded dim=1: the key axis of a 2-D S only
        out["softmax_wrong_dim/dim1"] = torch.softmax(S_, dim=1)
    if M is not None:
        out["uniform_weights/all_keys"] = torch.full_like(S_, 1.0 / S.shape[-1])
        out["mask_ignored"] = torch.softmax(S, dim=-1)
        out["zero_after_softmax"] = torch.softmax(S, dim=-1) * (M == 0)
        out["mask_sign_flipped"] = torch.softmax(S - M, dim=-1)
    return out


def _attend(Q, K, V, M, *, scale, dim=-1, zero_after=False, values_by_transposed=False):
    S = (Q @ K.transpose(-2, -1)) * scale
    if zero_after:
        A = torch.softmax(S, dim=dim) * (M == 0) if M is not None else torch.softmax(S, dim=dim)
    else:
        A = torch.softmax(S if M is None else S + M, dim=dim)
    if values_by_transposed:   # A^T V: only when T_q == T_k
        return (A.transpose(-2, -1) @ V if A.shape[-1] == A.shape[-2] else None), A
    return A @ V, A


def self_attention_variants(X, W_Q, W_K, W_V, causal=True):
    """{key: (O, A)} for the lesson's traps, on the same inputs."""
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    T, d_k = X.shape[-2], Q.shape[-1]
    good = 1.0 / math.sqrt(d_k)
    M = causal_additive_mask(T, Q.dtype) if causal else None
    upper = mask_variants(T, Q.dtype)["upper_triangular_mask"] if causal else None
    f32 = 1.0 / torch.sqrt(torch.tensor(float(d_k), dtype=torch.float32)).item()
    out = {
        "no_scale": _attend(Q, K, V, M, scale=1.0),
        "divide_by_dk": _attend(Q, K, V, M, scale=1.0 / d_k),
        "float32_scale": _attend(Q, K, V, M, scale=f32),
        "softmax_wrong_dim": _attend(Q, K, V, M, scale=good, dim=-2),
        "qk_swapped": _attend(K, Q, V, M, scale=good),
        "same_projection": _attend(Q, Q, V, M, scale=good),
        "output_uses_weights_transposed": _attend(Q, K, V, M, scale=good, values_by_transposed=True),
        "uniform_weights": _attend(Q, K, V, M, scale=0.0),
    }
    if math.isqrt(d_k) ** 2 != d_k:
        out["integer_sqrt_scale"] = _attend(Q, K, V, M, scale=1.0 / math.isqrt(d_k))
    for key, d in (("scale_by_d_model", X.shape[-1]), ("scale_by_d_v", V.shape[-1]), ("scale_by_T", T)):
        if d != d_k:
            out[key] = _attend(Q, K, V, M, scale=1.0 / math.sqrt(d))
    if causal:
        out["upper_triangular_mask"] = _attend(Q, K, V, upper, scale=good)
        out["causal_includes_next"] = _attend(Q, K, V, mask_variants(T, Q.dtype)["causal_includes_next"],
                                                scale=good)
        out["mask_blocks_diagonal"] = _attend(Q, K, V, mask_variants(T, Q.dtype)["mask_blocks_diagonal"],
                                              scale=good)
        out["zero_after_softmax"] = _attend(Q, K, V, M, scale=good, zero_after=True)
        out["no_causal_mask"] = _attend(Q, K, V, None, scale=good)
    else:
        out["ignores_causal_flag"] = _attend(Q, K, V, causal_additive_mask(T, Q.dtype), scale=good)
    return out


def cross_attention_variants(X, Y, W_Q, W_K, W_V, M=None):
    """{key: (O, A)}"""
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    d_k = Q.shape[-1]
    good = 1.0 / math.sqrt(d_k)
    T_q, T_k = Q.shape[-2], K.shape[-2]
    lo = torch.finfo(Q.dtype).min
    causal = torch.zeros(T_q, T_k, dtype=Q.dtype).masked_fill(
        torch.ones(T_q, T_k, dtype=torch.bool).triu(1), lo)  # top-left aligned
    out = {
        "no_scale": _attend(Q, K, V, M, scale=1.0),
        "divide_by_dk": _attend(Q, K, V, M, scale=1.0 / d_k),
        "float32_scale": _attend(Q, K, V, M, scale=1.0 / torch.sqrt(torch.tensor(float(d_k))).item()),
        "softmax_wrong_dim": _attend(Q, K, V, M, scale=good, dim=-2),
        "causal_in_cross": _attend(Q, K, V, causal if M is None else M + causal, scale=good),
        "scale_by_T": _attend(Q, K, V, M, scale=1.0 / math.sqrt(T_k)),
        "uniform_weights": _attend(Q, K, V, M, scale=0.0),
        "output_uses_weights_transposed": _attend(Q, K, V, M, scale=good, values_by_transposed=True),
    }
    if math.isqrt(d_k) ** 2 != d_k:
        out["integer_sqrt_scale"] = _attend(Q, K, V, M, scale=1.0 / math.isqrt(d_k))
    if M is not None:
        out["mask_ignored"] = _attend(Q, K, V, None, scale=good)
    if M is None or T_q == T_k:   # (with T_q != T_k their shapes differ from the correct ones: evidence too)
        out["cross_roles_swapped"] = _attend(Y @ W_Q, X @ W_K, X @ W_V, M, scale=good)
        out["cross_is_self_attention"] = _attend(Q, X @ W_K, X @ W_V, M, scale=good)
    return out


def gaussian_smoother(q, K, V, gamma: float):
    # kappa_i = exp(-gamma ||q - k_i||^2): a Gaussian (RBF) kernel, not the lesson's exp(q.k / sqrt(d_k))
    kappa = torch.exp(-gamma * ((K - q) ** 2).sum(-1))                 # (T,)
    return (kappa[:, None] * V).sum(0) / kappa.sum()                   # (d_v,)


def fitted_gaussian_smoother(q, K, V, got) -> torch.Tensor | None:
    """The Gaussian-kernel smoother whose width best explains `got` (any width: students pick 1/2,
    1/(2 sqrt(d_k)), ...), found by a search over log(gamma); None when `got` is not a (d_v,) tensor.
    One free number fitted to d_v >= 4 of them: a match to 1e-10 is still evidence."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(V.shape[-1:]) or not torch.isfinite(got).all():
        return None
    g = got.to(torch.float64)

    def err(log_gamma: float) -> float:
        return float((gaussian_smoother(q, K, V, math.exp(log_gamma)) - g).abs().max())

    grid = [i / 8 for i in range(-80, 41)]                             # gamma from e^-10 to e^5
    best = min(grid, key=err)
    lo, hi = best - 1 / 8, best + 1 / 8
    for _ in range(80):                                               # golden-section refinement
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if err(a) < err(b):
            hi = b
        else:
            lo = a
    return gaussian_smoother(q, K, V, math.exp((lo + hi) / 2))


def nw_variants(q, K, V, got=None):
    """`got`: the student's answer, to fit the width of a Gaussian kernel to it (see above)."""
    d_k = q.shape[-1]
    k_raw = torch.exp(K @ q)
    k_good = torch.exp(K @ q / math.sqrt(d_k))
    out = {
        "no_scale": (k_raw[:, None] * V).sum(0) / k_raw.sum(),
        "divide_by_dk": (torch.exp(K @ q / d_k)[:, None] * V).sum(0) / torch.exp(K @ q / d_k).sum(),
        "nw_unnormalised": (k_good[:, None] * V).sum(0),
        "nw_unnormalised/mean": (k_good[:, None] * V).mean(0),     # divided by T, not by the kernel's sum
        "uniform_weights": V.mean(0),
    }
    if V.shape[-1] == K.shape[0]:    # kappa * V without [:, None]: only d_v = T runs (q08 names the crash)
        out["nw_weights_on_columns"] = (k_good * V).sum(0) / k_good.sum()
    if math.isqrt(d_k) ** 2 != d_k:
        k_int = torch.exp(K @ q / math.isqrt(d_k))
        out["integer_sqrt_scale"] = (k_int[:, None] * V).sum(0) / k_int.sum()
    gaussian = fitted_gaussian_smoother(q, K, V, got)
    if gaussian is not None:
        out["gaussian_kernel"] = gaussian
    return out


def prefix_average_variants(T, dtype=torch.float64):
    W = torch.ones(T, T, dtype=dtype).tril()
    t = torch.arange(1, T + 1, dtype=dtype)
    return {
        "upper_triangular_mask": prefix_average_matrix(T, dtype).transpose(0, 1),
        "prefix_average_divide_by_T": W / T,
        "prefix_average_off_by_one": W / (t[:, None] + 1),        # row t (from 1) divided by t + 1
        "prefix_average_wrong_axis": W / t[None, :],               # divided by the column's index
        "uniform_weights": torch.full((T, T), 1.0 / T, dtype=dtype),
        # the lower triangle forgotten: every column of row t holds 1/t
        "prefix_average_no_tril": torch.ones(T, T, dtype=dtype) / t[:, None],
        # integer tensors divided with //: 1 // t is 0 for t > 1, only the first row keeps its weight
        "prefix_average_floor_division": (W.long() // t.long()[:, None]).to(dtype),
    }


def entropy_variants(A):
    H = row_entropy_bits(A)
    return {
        "entropy_in_nats": H * math.log(2),
        "entropy_sign": -H,
        "entropy_wrong_dim": row_entropy_bits(A.transpose(-2, -1)),
    }


def effective_tokens_variants(A):
    H = row_entropy_bits(A)
    return {
        "entropy_in_nats": 2.0 ** (H * math.log(2)),
        "effective_tokens_wrong_base": torch.exp(H),
    }


def param_count_variants(d_model, d_k, d_v, with_output=False):
    """{key: int}"""
    out = {
        "param_count_bias": qkv_param_count(d_model, d_k, d_v, with_output) + 2 * d_k + d_v
        + (d_model if with_output else 0),
        "param_count_no_wv": 2 * d_model * d_k + (d_v * d_model if with_output else 0),
        "param_count_dv_as_dk": 3 * d_model * d_k + (d_k * d_model if with_output else 0),
        "param_count_squares": 3 * d_model * d_model + (d_model * d_model if with_output else 0),
    }
    if with_output:
        out["param_count_wo_ignored"] = qkv_param_count(d_model, d_k, d_v)
        out["param_count_wo_square"] = qkv_param_count(d_model, d_k, d_v) + d_model * d_model
    if with_output:
        out["param_count_wo_as_dk"] = qkv_param_count(d_model, d_k, d_v) + d_k * d_model
    # d_model * (2 * d_k + d_v) with the parentheses dropped: Python multiplies before it adds
    wo = d_v * d_model if with_output else 0
    out["param_count_precedence"] = d_model * 2 * d_k + d_v + wo                  # d_model * 2 * d_k + d_v
    out["param_count_precedence/last_term"] = 2 * d_k + d_v * d_model + wo         # 2 * d_k + d_v * d_model
    out["param_count_precedence/first_term"] = d_model * d_k + d_k + d_v + wo      # d_model * d_k + d_k + d_v
    return out


# ---------------------------------------------------------------------------------------------------
# the lesson's hand-built inputs (public checks use the same numbers)
# ---------------------------------------------------------------------------------------------------
def lesson_qk(dtype=torch.float64):
    K = torch.tensor([[2., 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=dtype)
    Q = torch.tensor([[1., 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [.5, .5, 0, 0]], dtype=dtype)
    return Q, K


def lesson_pipeline(dtype=torch.float64):
    X = torch.zeros(5, 6, dtype=dtype)
    for t, f in enumerate([0, 1, 2, 3, 1]):  # mat (noun), was (verb), soft (adj), it (pronoun), was
        X[t, f] = 1.0
    W_Q = torch.zeros(6, 4, dtype=dtype)
    W_Q[1] = torch.tensor([2., 2, 0, 0])
    W_Q[2] = torch.tensor([2., 0, 0, 0])
    W_Q[3] = torch.tensor([2., 0, 0, 0])
    W_K = torch.zeros(6, 4, dtype=dtype)
    W_K[0, 0] = W_K[3, 1] = W_K[1, 2] = W_K[2, 3] = 3.0
    W_V = torch.cat([torch.eye(4, dtype=dtype), torch.zeros(2, 4, dtype=dtype)])
    return X, W_Q, W_K, W_V


def nameable_keys() -> set[str]:
    """Every misconception key this module's wrong variants can name (the part before any "/"), found by
    calling each variant function once on small float64 inputs: tests/test_authoring.py checks that each
    has a text in the assignment's hidden/_misconceptions.py. A new variant function belongs here too."""
    g = torch.Generator().manual_seed(0)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    X, Y = r(5, 6), r(7, 6)
    W = (r(6, 12), r(6, 12), r(6, 4))
    M = torch.zeros(5, 7, dtype=torch.float64)
    keys = set(scores_variants(r(5, 12), r(7, 12))) | set(qkv_variants(X, *W)) | set(mask_variants(4, torch.float64))
    keys |= set(weights_variants(r(5, 7), M)) | set(self_attention_variants(X, *W))
    keys |= set(self_attention_variants(X, *W, causal=False)) | set(cross_attention_variants(X, Y, *W, M))
    keys |= set(nw_variants(r(12), r(5, 12), r(5, 5))) | set(prefix_average_variants(4))
    keys |= set(entropy_variants(r(3, 3).softmax(-1))) | set(effective_tokens_variants(r(3, 3).softmax(-1)))
    keys |= set(param_count_variants(10, 4, 6, True))
    return {k.split("/")[0] for k in keys}
