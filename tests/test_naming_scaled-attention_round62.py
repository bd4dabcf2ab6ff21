"""Naming scaled-attention's mistakes, round 62 (blind62's conventions carried over from another source, the kinds).

attention_batch_axis_at_dim_one: attention adds the batch axis at dim 1 (Q.unsqueeze(1), Q[:, None],
torch.unsqueeze(Q, 1): nn.MultiheadAttention's sequence-first (L, N=1, E)) and multiplies with @ / matmul, which
batches over the leading dims, so every token attends only to itself: named where the pair is that replay's (weights
a (T, 1) column of ones, output V; after the T_q != T_k crash, a second call on as many queries as keys) and the
source adds the axis at dim 1; fixed_axes (K.T, transpose(1, 2)) is no longer said of it. unsqueeze(0) keeps full marks.

mask_polarity_inverted: a keep mask (True = attend, all True here) filled as a padding mask (masked_fill(mask, -inf),
scores[mask] = -inf, torch.where(mask, -inf, scores)): every weight and output entry NaN, the replay of -inf on
every score, with that fill of -inf in the source; masked_fill(~mask, -inf) keeps full marks.

scores_low_precision: Q @ K^T in bfloat16 or float16 and cast back (JAX's default TPU precision): both results
are the replay's (scale after or before the cast); the product in float64 cast back keeps full marks.

out_of_place_result_dropped: multi_head_attention writes each head with concat.index_add(...) /
concat.scatter(...) as a statement (no underscore: a new tensor, thrown away): an all-zero output with that bare
statement in the source; index_copy_ and concat = concat.index_add(...) keep full marks.

mha_values_length_heads_layout: the values kept in Flax's (T, heads, head_dim) while the weights are (heads, T,
T): the crash word for word what weights @ V_h gives on that layout, with the reshape(T, n_heads, d) fed to @ /
matmul in the source; the einsum 'hqk,khd->qhd' keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{body}
'''}


BATCH_AXIS = {
    "none_index_matmul": _attention(
        "    q, k, v = Q[:, None], K[:, None], V[:, None]\n"
        "    scores = torch.matmul(q, k.transpose(-1, -2)) / d_k ** 0.5\n"
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    return torch.matmul(weights, v).squeeze(1), weights.squeeze(1)"),
    "torch_unsqueeze_mT": _attention(
        "    q = torch.unsqueeze(Q, 1)\n    k = torch.unsqueeze(K, 1)\n    v = torch.unsqueeze(V, 1)\n"
        "    weights = F.softmax(q @ k.mT / math.sqrt(d_k), dim=-1)\n"
        "    out = weights @ v\n    return out[:, 0], weights[:, 0]"),
}
BATCH_AXIS_RIGHT = {
    "batch_first_unsqueeze_zero": _attention(
        "    q, k, v = Q.unsqueeze(0), K.unsqueeze(0), V.unsqueeze(0)\n"
        "    weights = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)\n"
        "    return (weights @ v).squeeze(0), weights.squeeze(0)"),
}

MASK = {
    "index_assign": _attention(
        "    scores = Q @ K.T / math.sqrt(d_k)\n    keep = torch.ones_like(scores, dtype=torch.bool)\n"
        "    scores[keep] = float('-inf')\n    weights = torch.softmax(scores, dim=-1)\n    return weights @ V, weights"),
    "where_math_inf": _attention(
        "    scores = torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k)\n"
        "    attn_mask = torch.full(scores.shape, True)\n"
        "    scores = torch.where(attn_mask, -math.inf, scores)\n"
        "    weights = F.softmax(scores, -1)\n    return weights @ V, weights"),
}
MASK_RIGHT = {
    "fill_inverted_keep_mask": _attention(
        "    scores = Q @ K.T / math.sqrt(d_k)\n    keep = torch.ones_like(scores, dtype=torch.bool)\n"
        "    scores = scores.masked_fill(~keep, float('-inf'))\n    weights = torch.softmax(scores, dim=-1)\n"
        "    return weights @ V, weights"),
}

LOW = {
    "float16_type_as": _attention(
        "    scores = (Q.to(torch.float16) @ K.to(torch.float16).transpose(-2, -1)).type_as(Q) / math.sqrt(d_k)\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ V, weights"),
    "bfloat16_scaled_before_cast": _attention(
        "    s = torch.matmul(Q.bfloat16(), K.bfloat16().T) / math.sqrt(d_k)\n    scores = s.to(Q.dtype)\n"
        "    weights = F.softmax(scores, dim=-1)\n    return weights @ V, weights"),
}
LOW_RIGHT = {
    "float64_product_cast_back": _attention(
        "    scores = (Q.to(torch.float64) @ K.to(torch.float64).T).to(Q.dtype) / math.sqrt(d_k)\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ V, weights"),
}


def _mha(loop: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros(T, d_model, dtype=X.dtype)
    for h in range(n_heads):
        idx = torch.arange(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, idx], K[:, idx], V[:, idx], d_k)
{loop}
    return concat @ W_O
'''}


DROPPED = {
    "index_add": _mha("        concat.index_add(1, idx, out_h)"),
    "scatter": _mha("        concat.scatter(1, idx.expand(T, -1), out_h)"),
}
DROPPED_RIGHT = {
    "index_copy_in_place": _mha("        concat.index_copy_(1, idx, out_h)"),
    "index_add_assigned": _mha("        concat = concat.index_add(1, idx, out_h)"),
}


def _flax(values: str, mix: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).view(T, n_heads, d_k)
    Kh = (X @ W_K).view(T, n_heads, d_k)
{values}
    scores = Qh.transpose(0, 1) @ Kh.permute(1, 2, 0) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
{mix}
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
'''}


LAYOUT = {
    "view_then_matmul": _flax("    Vh = (X @ W_V).view(T, n_heads, d_k)", "    out = torch.matmul(weights, Vh)"),
    "reshape_then_at": _flax("    values = torch.matmul(X, W_V).reshape(T, n_heads, d_k)", "    out = weights @ values"),
}
LAYOUT_RIGHT = {
    "einsum_names_the_layout": _flax("    Vh = (X @ W_V).view(T, n_heads, d_k)",
                                     "    out = torch.einsum('hqk,khd->hqd', weights, Vh)"),
}

CASES = [(name, cells, "attention_batch_axis_at_dim_one", "q1") for name, cells in BATCH_AXIS.items()] \
    + [(name, cells, "mask_polarity_inverted", "q1") for name, cells in MASK.items()] \
    + [(name, cells, "scores_low_precision", "q1") for name, cells in LOW.items()] \
    + [(name, cells, "out_of_place_result_dropped", "q8") for name, cells in DROPPED.items()] \
    + [(name, cells, "mha_values_length_heads_layout", "q8") for name, cells in LAYOUT.items()]


@pytest.mark.parametrize("name,cells,key,question", CASES, ids=[c[0] for c in CASES])
def test_carried_convention_is_named(grader, name, cells, key, question):
    outcome = grade_cells(grader, "scaled-attention", cells, f"round62_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    mine = [(k, m) for q, _t, k, m in outcome.failed if q == question]
    assert len(mine) >= 3 and all(k == key for k, _m in mine), outcome.explain()
    assert all(k in (key, None) or q != question for q, _t, k, _m in outcome.failed), outcome.explain()
    assert "fixed_axes" not in {k for _q, _t, k, _m in outcome.failed}, outcome.explain()


RIGHT = {**BATCH_AXIS_RIGHT, **MASK_RIGHT, **LOW_RIGHT, **DROPPED_RIGHT, **LAYOUT_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round62_{name}")
    assert outcome.full_marks, outcome.explain()


def test_nan_without_a_minus_inf_fill_is_not_the_mask_polarity(grader):
    # every entry NaN too (0/0 in a hand softmax of scores pushed to -inf by a huge factor), but no mask is filled
    cells = _attention("    scores = Q @ K.T / math.sqrt(d_k) * float('inf')\n    e = torch.exp(scores - scores.max())\n"
                       "    weights = e / e.sum(-1, keepdim=True)\n    return weights @ V, weights")
    outcome = grade_cells(grader, "scaled-attention", cells, "round62_nan_without_mask")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "mask_polarity_inverted" for _q, _t, k, _m in outcome.failed), outcome.explain()
