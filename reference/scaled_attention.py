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
}


def wrong_variants(Q, K, V, d_k, part: str = "output") -> dict[str, torch.Tensor]:
    """{misconception_key: what that mistake returns} for `part` in ("output", "weights")."""
    index = {"output": 0, "weights": 1}[part]
    right = attention(Q, K, V, d_k)[index]
    sizes = {"scale_by_d_v": V.shape[-1], "scale_by_T": K.shape[-2]}
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


def entropy_variants(logits: torch.Tensor) -> dict[str, torch.Tensor]:
    log2 = softmax_entropy_log2(logits)
    return {
        "entropy_sign": -softmax_entropy(logits),
        "entropy_log_base": log2,
        "entropy_log_base_10": softmax_entropy_log10(logits),
        "entropy_wrong_dim": softmax_entropy_wrong_dim(logits) if logits.dim() >= 2 else None,
        # a hard-coded dim=0: the same mistake, which on a batch of rows sums over the batch
        "entropy_wrong_dim/first": softmax_entropy_first_dim(logits) if logits.dim() >= 3 else None,
    }


ENTROPY_TABLE_KEYS = ("d", "raw_std", "scaled_std", "H_raw", "H_scaled")


def entropy_table(dims=(4, 16, 64, 256), seed: int = 0, *, _std_unbiased: bool = True,
                  _scale: str = "sqrt", _log_base: float = math.e, _seed_each: bool = True,
                  _keys_first: bool = False, entropy=None) -> list[dict]:
    """The lesson's table: for each d, re-seed, draw q (1, d) then k (5, d) with torch.randn,
    raw = (q @ k.T)[0], scaled = raw / sqrt(d); report unbiased std and softmax entropy of both.

    The underscored keywords build the known wrong variants; the oracle uses the defaults. `entropy`
    replaces softmax_entropy (the tests pass a student's own, to charge a wrong one once)."""
    H = entropy or softmax_entropy
    rows = []
    if not _seed_each:
        torch.manual_seed(seed)
    for d in dims:
        if _seed_each:
            torch.manual_seed(seed)
        if _keys_first:
            k = torch.randn(5, d)        # wrong order: the keys take the first numbers
            q = torch.randn(1, d)
        else:
            q = torch.randn(1, d)        # (1, d)
            k = torch.randn(5, d)        # (5, d)
        raw = (q @ k.T)[0]               # (5,)
        scaled = {"sqrt": raw / d ** 0.5, "d": raw / d, "none": raw}[_scale]  # (5,)
        nats = math.log(_log_base)
        rows.append({"d": int(d),
                     "raw_std": raw.std(unbiased=_std_unbiased).item(),
                     "scaled_std": scaled.std(unbiased=_std_unbiased).item(),
                     "H_raw": float(H(raw)) / nats,
                     "H_scaled": float(H(scaled)) / nats})
    return rows


def entropy_table_variants(dims, seed) -> dict[str, list[dict]]:
    return {
        "biased_std": entropy_table(dims, seed, _std_unbiased=False),
        "divide_by_dk": entropy_table(dims, seed, _scale="d"),
        "no_scale": entropy_table(dims, seed, _scale="none"),
        "entropy_log_base": entropy_table(dims, seed, _log_base=2.0),
        "entropy_log_base_10": entropy_table(dims, seed, _log_base=10.0),
        "seed_outside_loop": entropy_table(dims, seed, _seed_each=False),
        "keys_drawn_first": entropy_table(dims, seed, _keys_first=True),
    }


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


def mha_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict[str, torch.Tensor]:
    args = (X, W_Q, W_K, W_V, W_O, n_heads)
    d_model = X.shape[-1]
    return {
        "mha_head_slice_offset": mha_head_slice_offset(*args),
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
