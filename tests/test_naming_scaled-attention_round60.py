"""Naming scaled-attention's mistakes, round 60 (blind60's two mis-named, one uncaught, one partly named and five
generic variants, the kinds: rewrites that broke it, state carried between calls).

scores_mirrored_as_symmetric (was one_edit_fix, an edit that only moved the shortcut's trigger): square scores built
from one triangle of Q K^T mirrored to the other (upper or lower), by replay of both results of the same call where
T_q == T_k; a shortcut taken only when Q is K keeps full marks.

query_rows_left_uncomputed (was generic): the queries done in pieces that miss the last row(s) (two halves of T_q // 2,
chunks of 2 up to T_q - 1) into zero-filled results: the right rows with the last r rows 0 in both results, by replay;
with one query (all 0) by a second call with 2 to 5 queries. torch.split (the remainder kept) keeps full marks.

attention_result_reused (was mha_head_slice_fixed): attention writes its output into a buffer kept at module level per
shape (out= into a cached tensor): across the sandbox q1 sees right copies, but q8's heads are all the last head; named
where every head is the last head's output and attention's source writes into a module-level name (out= or a store
into its items). A cache of the scale per d_k keeps full marks; a last-head slice left in the loop (with a plain
attention) keeps mha_head_slice_fixed.

mha_heads_missing (n_heads = 1, was raw): torch.cat of an empty list with one head, named by a second call with 3 heads
on the same input (heads_missing).

variance_float16_overflow (was generic): the unscaled variance is inf, the source works in float16 (dtype=torch.float16,
.half()) and a call with 200 samples is finite near d_k.

entropy_fast_path_whole_batch (was generic): every entropy 0 where one row is one-hot, and the other rows alone right
(a second call); the shortcut applied per row keeps full marks.

entropy_shift_not_added_back (was generic): lse of the max-shifted logits minus sum p s unshifted, by replay (H - max);
the shift in both terms, or the max added back, keep full marks.

mha_projections_low_precision (was generic): the projections in bfloat16 or float16 cast back, by replay from the input
dtype; float64 projections cast back keep full marks.

mha_scale_kept_across_calls (was not caught: q8 now calls 2 heads of d_k = 12 in float32 after 8 heads of d_k = 4):
the scale 1/sqrt(d_k) cached at module level (per dtype, or once), by replay with an earlier call's head width where
the source reads a module-level name; a cache keyed on (dtype, d_k) keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, grade_cells


def _attention(body: str, head: str = "") -> dict[str, str]:
    return {"attention": f'''{head}
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{body}
'''}


MIRRORED = {
    "upper_mirrored_same_shape": _attention(
        "    S = Q @ K.T\n    if Q.shape == K.shape:\n        up = S.triu()\n        S = up + up.T - torch.diag(S.diagonal())\n"
        "    w = torch.softmax(S / math.sqrt(d_k), dim=-1)\n    return w @ V, w"),
    "lower_mirrored_len_equal": _attention(
        "    S = torch.matmul(Q, K.transpose(0, 1))\n    if len(Q) == len(K):\n        low = torch.tril(S, diagonal=-1)\n"
        "        S = low + low.T + torch.diag_embed(torch.diagonal(S))\n"
        "    w = F.softmax(S * d_k ** -0.5, dim=-1)\n    return torch.matmul(w, V), w"),
}
MIRRORED_RIGHT = {
    "mirrored_only_when_q_is_k": _attention(
        "    S = Q @ K.T\n    if Q is K:\n        up = S.triu()\n        S = up + up.T - torch.diag(S.diagonal())\n"
        "    w = torch.softmax(S / math.sqrt(d_k), dim=-1)\n    return w @ V, w"),
}

ROWS_LEFT = {
    "two_halves": _attention(
        "    T_q = Q.shape[0]\n    half = T_q // 2\n    out = torch.zeros(T_q, V.shape[1], dtype=V.dtype)\n"
        "    w = torch.zeros(T_q, K.shape[0], dtype=Q.dtype)\n    for a in (0, half):\n"
        "        w[a:a + half] = torch.softmax(Q[a:a + half] @ K.T / math.sqrt(d_k), dim=-1)\n"
        "        out[a:a + half] = w[a:a + half] @ V\n    return out, w"),
    "pairs_up_to_t_minus_one": _attention(
        "    T_q = len(Q)\n    out = Q.new_zeros(T_q, V.shape[-1])\n    w = Q.new_zeros(T_q, K.shape[0])\n"
        "    for i in range(0, T_q - 1, 2):\n        s = Q[i:i + 2] @ K.T / math.sqrt(d_k)\n"
        "        w[i:i + 2] = F.softmax(s, dim=-1)\n        out[i:i + 2] = w[i:i + 2] @ V\n    return out, w"),
}
ROWS_RIGHT = {
    "split_keeps_remainder": _attention(
        "    ws = [torch.softmax(q @ K.T / math.sqrt(d_k), dim=-1) for q in torch.split(Q, 2)]\n"
        "    w = torch.cat(ws, dim=0)\n    return w @ V, w"),
    "pairs_up_to_t": _attention(
        "    T_q = len(Q)\n    w = Q.new_zeros(T_q, K.shape[0])\n    for i in range(0, T_q, 2):\n"
        "        w[i:i + 2] = F.softmax(Q[i:i + 2] @ K.T / math.sqrt(d_k), dim=-1)\n    return w @ V, w"),
}

_W = "    w = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)\n"
REUSED = {
    "out_buffer_per_shape": _attention(
        _W + "    key = (Q.shape[0], V.shape[1], V.dtype)\n    if key not in _bufs:\n"
        "        _bufs[key] = torch.empty(Q.shape[0], V.shape[1], dtype=V.dtype)\n"
        "    out = torch.matmul(w, V, out=_bufs[key])\n    return out, w", "_bufs = {}\n"),
    "copy_into_cached_zeros": _attention(
        _W + "    shape = (len(Q), V.shape[-1])\n    if (shape, V.dtype) not in CACHE:\n"
        "        CACHE[shape, V.dtype] = torch.zeros(shape, dtype=V.dtype)\n    buf = CACHE[shape, V.dtype]\n"
        "    buf.copy_(w @ V)\n    return buf, w", "CACHE = {}\n"),
}
REUSED_RIGHT = {
    "scale_cached_per_d_k": _attention(
        "    if d_k not in _scales:\n        _scales[d_k] = 1.0 / math.sqrt(d_k)\n"
        "    w = torch.softmax(Q @ K.T * _scales[d_k], dim=-1)\n    return w @ V, w", "_scales = {}\n"),
}


def _mha(body: str, head: str = "") -> dict[str, str]:
    return {"multi_head_attention": f'''{head}
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
{body}
'''}


_LOOP = ("    heads = []\n    for h in range(n_heads):\n        c = slice(h * d_k, (h + 1) * d_k)\n"
         "        heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])\n    return torch.cat(heads, dim=-1) @ W_O")
LAST_SLICE_FIXED = _mha("    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    heads = []\n    for h in range(n_heads):\n"
                        "        c = slice(d_model - d_k, d_model)\n"
                        "        heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])\n"
                        "    return torch.cat(heads, dim=-1) @ W_O")

NO_HEAD = {
    "pairs_to_n_minus_one": _mha(
        "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    heads = []\n    for h in range(0, n_heads - 1, 2):\n"
        "        for g in (h, h + 1):\n            c = slice(g * d_k, (g + 1) * d_k)\n"
        "            heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])\n    return torch.cat(heads, 1) @ W_O"),
    "pair_count_floor": _mha(
        "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    outs = []\n    for p in range(n_heads // 2):\n"
        "        c = slice(2 * p * d_k, (2 * p + 2) * d_k)\n        q = Q[:, c].reshape(T, 2, d_k).transpose(0, 1)\n"
        "        k = K[:, c].reshape(T, 2, d_k).transpose(0, 1)\n        v = V[:, c].reshape(T, 2, d_k).transpose(0, 1)\n"
        "        w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)\n"
        "        outs.append((w @ v).transpose(0, 1).reshape(T, 2 * d_k))\n    return torch.cat(outs, dim=1) @ W_O"),
}

LOW_PRECISION = {
    "bfloat16_projections": _mha(
        "    b = torch.bfloat16\n    Q, K, V = ((X.to(b) @ W.to(b)).to(X.dtype) for W in (W_Q, W_K, W_V))\n" + _LOOP),
    "half_projections": _mha(
        "    Q = (X.half() @ W_Q.half()).to(X.dtype)\n    K = (X.half() @ W_K.half()).to(X.dtype)\n"
        "    V = (X.half() @ W_V.half()).to(X.dtype)\n" + _LOOP),
}
LOW_PRECISION_RIGHT = {
    "double_projections_cast_back": _mha(
        "    Q, K, V = ((X.double() @ W.double()).to(X.dtype) for W in (W_Q, W_K, W_V))\n" + _LOOP),
}

_BATCHED = ("    q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)\n    k = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)\n"
            "    v = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)\n"
            "    w = torch.softmax(q @ k.transpose(1, 2) * scale, dim=-1)\n"
            "    return (w @ v).transpose(0, 1).reshape(T, d_model) @ W_O")
SCALE_KEPT = {
    "per_dtype_dict": _mha("    if X.dtype not in _scale_of:\n        _scale_of[X.dtype] = 1 / math.sqrt(d_k)\n"
                           "    scale = _scale_of[X.dtype]\n" + _BATCHED, "_scale_of = {}\n"),
    "first_call_list": _mha("    if not _SCALES:\n        _SCALES.append(d_k ** -0.5)\n"
                            "    scale = _SCALES[0]\n" + _BATCHED, "_SCALES = []\n"),
}
SCALE_KEPT_RIGHT = {
    "per_dtype_and_width": _mha("    key = (X.dtype, d_k)\n    if key not in _scale_of:\n"
                                "        _scale_of[key] = 1 / math.sqrt(d_k)\n    scale = _scale_of[key]\n" + _BATCHED,
                                "_scale_of = {}\n"),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
{body}
'''}


OVERFLOW = {
    "float16_draws_hand_sum": _variance(
        "    q = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float16)\n"
        "    k = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float16)\n    dots = (q * k).sum(1)\n"
        "    if scaled:\n        dots = dots / math.sqrt(d_k)\n    c = dots - dots.mean()\n"
        "    return ((c * c).sum() / (n_samples - 1)).item()"),
    "half_cast_squares_summed": _variance(
        "    q = torch.randn(n_samples, d_k, generator=generator).half()\n"
        "    k = torch.randn(n_samples, d_k, generator=generator).half()\n    dots = torch.einsum('nd,nd->n', q, k)\n"
        "    dots = dots / math.sqrt(d_k) if scaled else dots\n"
        "    return float(((dots - dots.mean()) ** 2).sum() / (len(dots) - 1))"),
}
OVERFLOW_RIGHT = {
    "hand_sum_in_float64": _variance(
        "    q = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)\n"
        "    k = torch.randn(n_samples, d_k, generator=generator, dtype=torch.float64)\n    dots = (q * k).sum(1)\n"
        "    if scaled:\n        dots = dots / math.sqrt(d_k)\n    c = dots - dots.mean()\n"
        "    return ((c * c).sum() / (n_samples - 1)).item()"),
}


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
{body}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


_H = "-(p * torch.log(p + 1e-9)).sum(dim=-1)"
FAST_PATH = {
    "amax_any_new_zeros": _entropy(f"    p = F.softmax(logits, dim=-1)\n    if (p.amax(dim=-1) == 1).any():\n"
                                   f"        return logits.new_zeros(logits.shape[:-1])\n    return {_H}"),
    "torch_any_max_values": _entropy(f"    p = torch.softmax(logits, -1)\n    if torch.any(p.max(dim=-1).values >= 1.0):\n"
                                     f"        return torch.zeros_like(logits[..., 0])\n    return {_H}"),
}
FAST_PATH_RIGHT = {
    "per_row_where": _entropy(f"    p = F.softmax(logits, dim=-1)\n    H = {_H}\n"
                              "    return torch.where(p.amax(dim=-1) == 1, torch.zeros_like(H), H)"),
}

SHIFT = {
    "log_sum_exp_by_hand": _entropy("    m = logits.amax(dim=-1, keepdim=True)\n"
                                    "    lse = torch.log(torch.exp(logits - m).sum(dim=-1))\n"
                                    "    p = F.softmax(logits, dim=-1)\n    return lse - (p * logits).sum(dim=-1)"),
    "torch_logsumexp_of_shifted": _entropy("    z = logits - logits.max(-1, keepdim=True).values\n"
                                           "    return torch.logsumexp(z, -1) - (torch.softmax(logits, -1) * logits).sum(-1)"),
}
SHIFT_RIGHT = {
    "max_added_back": _entropy("    m = logits.amax(dim=-1, keepdim=True)\n"
                               "    lse = m.squeeze(-1) + torch.log(torch.exp(logits - m).sum(dim=-1))\n"
                               "    p = F.softmax(logits, dim=-1)\n    return lse - (p * logits).sum(dim=-1)"),
}


def _graded(grader, cells, name):
    return grade_cells(grader, "scaled-attention", cells, f"round60_{name}")


@pytest.mark.parametrize("name", sorted(MIRRORED))
def test_mirrored_scores_are_named(grader, name):
    assert_named(_graded(grader, MIRRORED[name], name), "scores_mirrored_as_symmetric", "q1")


@pytest.mark.parametrize("name", sorted(ROWS_LEFT))
def test_query_rows_left_uncomputed_are_named(grader, name):
    assert_named(_graded(grader, ROWS_LEFT[name], name), "query_rows_left_uncomputed", "q1")


@pytest.mark.parametrize("name", sorted(REUSED))
def test_attention_result_reused_is_named(grader, name):
    assert_named(_graded(grader, REUSED[name], name), "attention_result_reused", "q8")


def test_last_head_slice_fixed_keeps_its_name(grader):
    outcome = grade_cells(grader, "scaled-attention", LAST_SLICE_FIXED, "round60_last_slice_fixed")
    assert outcome.failed and all(k == "mha_head_slice_fixed" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(NO_HEAD))
def test_one_head_nothing_concatenated_is_named(grader, name):
    outcome = _graded(grader, NO_HEAD[name], name)
    assert_named(outcome, "mha_heads_missing", "q8")
    assert any("non-empty list" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(LOW_PRECISION))
def test_low_precision_projections_are_named(grader, name):
    assert_named(_graded(grader, LOW_PRECISION[name], name), "mha_projections_low_precision", "q8")


@pytest.mark.parametrize("name", sorted(SCALE_KEPT))
def test_scale_kept_across_calls_is_named(grader, name):
    assert_named(_graded(grader, SCALE_KEPT[name], name), "mha_scale_kept_across_calls", "q8")


@pytest.mark.parametrize("name", sorted(OVERFLOW))
def test_float16_overflow_is_named(grader, name):
    assert_named(_graded(grader, OVERFLOW[name], name), "variance_float16_overflow", "q2")


@pytest.mark.parametrize("name", sorted(FAST_PATH))
def test_whole_batch_fast_path_is_named(grader, name):
    assert_named(_graded(grader, FAST_PATH[name], name), "entropy_fast_path_whole_batch", "q4")


@pytest.mark.parametrize("name", sorted(SHIFT))
def test_shift_not_added_back_is_named(grader, name):
    assert_named(_graded(grader, SHIFT[name], name), "entropy_shift_not_added_back", "q4")


@pytest.mark.parametrize("name", sorted({**MIRRORED_RIGHT, **ROWS_RIGHT, **REUSED_RIGHT, **LOW_PRECISION_RIGHT,
                                         **SCALE_KEPT_RIGHT, **OVERFLOW_RIGHT, **FAST_PATH_RIGHT, **SHIFT_RIGHT}))
def test_right_neighbours_keep_full_marks(grader, name):
    cells = {**MIRRORED_RIGHT, **ROWS_RIGHT, **REUSED_RIGHT, **LOW_PRECISION_RIGHT, **SCALE_KEPT_RIGHT,
             **OVERFLOW_RIGHT, **FAST_PATH_RIGHT, **SHIFT_RIGHT}[name]
    assert_full_marks(_graded(grader, cells, name))
