"""Naming scaled-attention's mistakes, round 59 (blind59's two mis-named, one uncaught and three generic variants, the kinds).

mha_values_not_sliced (was mha_head_slice_fixed): multi_head_attention slices Q and K per head but passes the whole V,
and cuts the too-wide concatenation back to d_model columns: the numbers are head 0's Q, K slice with every head's V
slice (mha_head_slice_fixed/qk_0), so the source tells which (attention called with Q, K sliced and V whole, inline
or through a name); a Q[:, :d_k] left in the loop keeps mha_head_slice_fixed.

attention_row_totals_tiled (was one_edit_fix on the rectangular tests): attention divides e by the row totals tiled
to the scores' shape (totals.repeat(T_k).view(T_q, T_k), torch.tile, expand then reshape): entry (i, j) by the total
of row (i * T_k + j) mod T_q, by replay of both results of the same call where T_q != T_k; square inputs keep
keepdim_missing (the same numbers); repeat_interleave, or repeat(T_k, 1).T, put row i's total in row i and keep full
marks.

entropy_logits_clamped (was not caught): softmax_entropy clamps the logits (to [-c, c] or at most c) against exp's
overflow: test_entropy_saturated_rows has a row with logits 85 and 45 above the rest (a clamp ties them), named by
replay of the clamp; a clamp of the max-shifted logits (from below) keeps full marks.

output_rows_loop_clipped (was generic): attention fills the output rows in a loop over min(T_q, T_k) (or zip with the
keys): rows T_k .. T_q - 1 stay zero, named by replay (right weights) where T_q > T_k.

table_dims_one_based (was generic): entropy_table walks the dims with 1-based positions and clips the index: rows for
dims[1:] and dims[-1] again, right values there.

mha_heads_numbered_from_one (was generic): multi_head_attention numbers the heads from 1 and clips the slice start to
d_model - d_k: head h uses head min(h + 1, n_heads - 1)'s columns, by replay (from 3 heads on).

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _mha(loop: str, merge: str = "torch.cat(heads, dim=-1)") -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
{loop}
    return {merge} @ W_O
'''}


UNSLICED_V = {
    "whole_v_name_cut_by_narrow": _mha(
        "    for h in range(n_heads):\n        q_h = Q[:, h * d_k:(h + 1) * d_k]\n        k_h = K[:, h * d_k:(h + 1) * d_k]\n"
        "        v_h = V\n        o, _ = attention(q_h, k_h, v_h, d_k)\n        heads.append(o)",
        "torch.cat(heads, dim=1).narrow(1, 0, d_model)"),
    "projection_inline_cut_by_ellipsis": _mha(
        "    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
        "        o, _ = attention(Q[:, s], K[:, s], X @ W_V, d_k)\n        heads.append(o)",
        "torch.cat(heads, -1)[..., :d_model]"),
}
FIXED_Q_K = _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                 "        o, _ = attention(Q[:, :d_k], K[:, :d_k], V[:, s], d_k)\n        heads.append(o)")
MHA_RIGHT = {
    "values_sliced_too": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                              "        v_h = V[:, s]\n        o, _ = attention(Q[:, s], K[:, s], v_h, d_k)\n"
                              "        heads.append(o)"),
}

ONE_BASED_HEADS = {
    "range_from_one_if_clipped": _mha(
        "    for h in range(1, n_heads + 1):\n        lo = h * d_k if h < n_heads else d_model - d_k\n"
        "        o, _ = attention(Q[:, lo:lo + d_k], K[:, lo:lo + d_k], V[:, lo:lo + d_k], d_k)\n        heads.append(o)"),
    "next_head_min_start": _mha(
        "    for h in range(n_heads):\n        lo = min((h + 1) * d_k, d_model - d_k)\n        cols = slice(lo, lo + d_k)\n"
        "        o, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)\n        heads.append(o)"),
}
ONE_BASED_RIGHT = {
    "zero_based_min_start": _mha(
        "    for h in range(n_heads):\n        lo = min(h * d_k, d_model - d_k)\n        cols = slice(lo, lo + d_k)\n"
        "        o, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)\n        heads.append(o)"),
}


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    T_q, T_k = Q.shape[0], K.shape[0]
    scores = Q @ K.T / math.sqrt(d_k)
{body}
'''}


_SOFTMAX = "    weights = torch.softmax(scores, dim=-1)\n"
TILED = {
    "torch_tile_reshape": _attention("    e = torch.exp(scores)\n"
                                     "    weights = e / torch.tile(e.sum(-1), (T_k,)).reshape(T_q, T_k)\n"
                                     "    return weights @ V, weights"),
    "expand_then_reshape_shifted": _attention(
        "    e = (scores - scores.max(dim=1, keepdim=True).values).exp()\n    s = e.sum(dim=1)\n"
        "    weights = e / s.expand(K.shape[0], -1).reshape(e.shape)\n    return weights @ V, weights"),
}
TILED_RIGHT = {
    "repeat_interleave_view": _attention("    e = torch.exp(scores)\n"
                                         "    weights = e / e.sum(-1).repeat_interleave(T_k).view(T_q, T_k)\n"
                                         "    return weights @ V, weights"),
    "repeat_rows_transposed": _attention("    e = torch.exp(scores)\n    weights = e / e.sum(-1).repeat(T_k, 1).T\n"
                                         "    return weights @ V, weights"),
}

CLIPPED_ROWS = {
    "loop_to_min_length": _attention(_SOFTMAX + "    out = torch.zeros(T_q, V.shape[1], dtype=V.dtype)\n"
                                     "    for i in range(min(len(Q), len(K))):\n        out[i] = weights[i] @ V\n"
                                     "    return out, weights"),
    "zip_with_key_positions": _attention(_SOFTMAX + "    out = V.new_zeros(T_q, V.shape[-1])\n"
                                         "    for i, _ in zip(range(T_q), K):\n        out[i] = weights[i] @ V\n"
                                         "    return out, weights"),
}
CLIPPED_RIGHT = {
    "loop_over_queries": _attention(_SOFTMAX + "    out = torch.zeros(T_q, V.shape[1], dtype=V.dtype)\n"
                                    "    for i in range(T_q):\n        out[i] = weights[i] @ V\n    return out, weights"),
}


def _entropy(body: str, loop: str = "    for d in dims:") -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
{body}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
{loop}
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


_RIGHT_ENTROPY = "    p = F.softmax(logits, dim=-1)\n    return -(p * F.log_softmax(logits, dim=-1)).sum(dim=-1)"
CLAMPED = {
    "torch_clamp_thirty": _entropy("    z = torch.clamp(logits, -30, 30)\n"
                                   "    return -(F.softmax(z, -1) * F.log_softmax(z, -1)).sum(-1)"),
    "clamp_max_fifty_by_hand": _entropy("    e = logits.clamp(max=50.0).exp()\n    p = e / e.sum(-1, keepdim=True)\n"
                                        "    return -(p * torch.log(p + 1e-12)).sum(-1)"),
}
CLAMPED_RIGHT = {
    "shift_then_clamp_below": _entropy("    z = (logits - logits.amax(-1, keepdim=True)).clamp(min=-80.0)\n"
                                       "    e = z.exp()\n    p = e / e.sum(-1, keepdim=True)\n"
                                       "    return -(p * (z - e.sum(-1, keepdim=True).log())).sum(-1)"),
}

ONE_BASED_DIMS = {
    "range_from_one_if_else": _entropy(_RIGHT_ENTROPY, "    for i in range(1, len(dims) + 1):\n"
                                       "        d = dims[i] if i < len(dims) else dims[-1]"),
    "next_position_min": _entropy(_RIGHT_ENTROPY, "    for i in range(len(dims)):\n"
                                  "        d = dims[min(i + 1, len(dims) - 1)]"),
}
DIMS_RIGHT = {
    "zero_based_positions": _entropy(_RIGHT_ENTROPY, "    for i in range(len(dims)):\n        d = dims[i]"),
}


@pytest.mark.parametrize("name", sorted(UNSLICED_V))
def test_values_not_sliced_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", UNSLICED_V[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "mha_values_not_sliced")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


def test_fixed_query_key_slice_keeps_its_name(grader):
    # Q[:, :d_k] and K[:, :d_k] left in the loop, V moving: the same numbers, but the source shows the fixed slice
    outcome = grade_cells(grader, "scaled-attention", FIXED_Q_K, "round59_fixed_q_k")
    assert outcome.failed and all(k == "mha_head_slice_fixed" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(ONE_BASED_HEADS))
def test_heads_numbered_from_one_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ONE_BASED_HEADS[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q8", "mha_heads_numbered_from_one")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(TILED))
def test_tiled_row_totals_are_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", TILED[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(t, k) for q, t, k, _m in outcome.failed if q == "q1"]
    assert sum(k == "attention_row_totals_tiled" for _t, k in q1) >= 3, outcome.explain()
    assert all(k in ("attention_row_totals_tiled", "keepdim_missing")
               for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(CLIPPED_ROWS))
def test_clipped_row_loop_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", CLIPPED_ROWS[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q1", "output_rows_loop_clipped")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(CLAMPED))
def test_clamped_logits_are_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", CLAMPED[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q4", "entropy_logits_clamped")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(ONE_BASED_DIMS))
def test_one_based_dims_are_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ONE_BASED_DIMS[name], f"round59_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q4", "table_dims_one_based")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()


RIGHT = {**MHA_RIGHT, **ONE_BASED_RIGHT, **TILED_RIGHT, **CLIPPED_RIGHT, **CLAMPED_RIGHT, **DIMS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round59_{name}")
    assert outcome.full_marks, outcome.explain()
