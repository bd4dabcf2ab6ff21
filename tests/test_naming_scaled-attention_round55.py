"""Naming scaled-attention's mistakes, round 55 (blind55's four generic and two raw variants, the kinds).

scores_paired_rows: attention scores each query against its own key only ((Q * K).sum(-1), einsum('id,id->i'),
torch.linalg.vecdot): named where both results of the same call are that replay's (weights of shape (T,)), and with
T_q != T_k from torch's size mismatch and the same call cut to as many queries as keys; all pairs by broadcasting or
einsum('id,jd->ij') keep full marks.

out_buffer_default_dtype: a scores or output buffer made by torch.empty / zeros in the default float32 and filled
with out=: float64 inputs crash with torch's "Expected out tensor to have dtype double" on the out= line, and the
same call in float32 runs and is right; a buffer made with dtype=Q.dtype keeps full marks.

dots_one_term_times_d_k: dot_product_variance computes q.k as d_k times one product q_1 k_1: named by exact replay on
a generator seeded as the student's (two (n,) draws, one (2, n) draw, the first column of (n, d_k) draws);
q.sum() * k.sum() (variance d_k^2 too, another mistake) is not named so.

table_low_precision: entropy_table draws q and k in bfloat16 or float16 (cast, or drawn so): named where the stds are
the replay's in that dtype exactly and the entropies to its rounding (a float16 table, every entry a float16 number,
keeps float16_precision); float64 draws keep full marks.

mha_heads_overlapping_windows: multi_head_attention cuts the heads as every window of d_k columns at step 1
(unfold(1, d_k, 1), or a slice per start): torch's width of those windows times W_O, and a second call with a W_O of
that many rows gives them; unfold(1, d_k, d_k) keeps full marks.

mha_weight_blocks_viewed: head h projects with W.view(n_heads, d_model, d_k)[h] (memory chunks, not column blocks):
named by replay; view(d_model, n_heads, d_k).permute(1, 0, 2) keeps full marks.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(scores: str, rest: str = "    weights = F.softmax(scores, dim=-1)\n    return weights @ V, weights"
               ) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{scores}
{rest}
'''}


PAIRED = {
    "mul_sum": _attention("    scores = (Q * K).sum(dim=-1) / math.sqrt(d_k)"),
    "mul_method_sum_axis": _attention("    scores = Q.mul(K).sum(axis=1) * d_k ** -0.5"),
    "torch_sum_mul_then_scale": _attention("    s = torch.sum(torch.mul(Q, K), 1)\n    scores = s / math.sqrt(d_k)"),
}
PAIRED_RIGHT = {
    "broadcast_all_pairs": _attention("    scores = (Q[:, None, :] * K[None, :, :]).sum(dim=-1) / math.sqrt(d_k)"),
    "einsum_id_jd": _attention("    scores = torch.einsum('id,jd->ij', Q, K) / d_k ** 0.5"),
}

BUFFER = {
    "zeros_mm_scores": _attention("    scores = torch.zeros(Q.shape[0], K.shape[0])\n"
                                  "    torch.mm(Q, K.t(), out=scores)\n    scores = scores / math.sqrt(d_k)"),
    "empty_output_buffer": _attention(
        "    scores = Q @ K.T / math.sqrt(d_k)",
        "    weights = torch.softmax(scores, -1)\n    out = torch.empty((Q.shape[0], V.shape[1]))\n"
        "    torch.matmul(weights, V, out=out)\n    return out, weights"),
}
BUFFER_RIGHT = {
    "empty_in_input_dtype": _attention("    scores = torch.empty(Q.shape[0], K.shape[0], dtype=Q.dtype)\n"
                                       "    torch.matmul(Q, K.T, out=scores)\n    scores /= math.sqrt(d_k)"),
}


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
{body}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}


ONE_TERM = {
    "first_column_times_d_k": _variance(
        "    q = torch.randn(n_samples, d_k, generator=generator)\n"
        "    k = torch.randn(n_samples, d_k, generator=generator)\n    dots = d_k * (q[:, 0] * k[:, 0])"),
    "one_draw_float64": _variance(
        "    qk = torch.randn(2, n_samples, generator=generator, dtype=torch.float64)\n"
        "    dots = qk[0] * qk[1] * d_k"),
    "two_vectors_times_d_k": _variance(
        "    a = torch.randn(n_samples, generator=generator)\n    b = torch.randn(n_samples, generator=generator)\n"
        "    dots = torch.mul(a, b).mul(d_k)"),
}
ONE_TERM_RIGHT = {
    "mul_sum": _variance("    q = torch.randn(n_samples, d_k, generator=generator)\n"
                         "    k = torch.randn(n_samples, d_k, generator=generator)\n    dots = (q * k).sum(-1)"),
}


_P_LOG_P = "    p = F.softmax(logits, dim=-1)\n    return -(p * torch.log(p + 1e-9)).sum(dim=-1)"
_LOG_SOFTMAX = "    log_p = F.log_softmax(logits, dim=-1)\n    return -(log_p.exp() * log_p).sum(dim=-1)"


def _table(draw: str, entropy: str = _P_LOG_P) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
{entropy}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
{draw}
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


LOW = {
    "type_bfloat16_log_softmax": _table("        q = torch.randn(1, d).type(torch.bfloat16)\n"
                                        "        k = torch.randn(5, d).type(torch.bfloat16)", _LOG_SOFTMAX),
    "drawn_in_bfloat16": _table("        q = torch.randn(1, d, dtype=torch.bfloat16)\n"
                                "        k = torch.randn(5, d, dtype=torch.bfloat16)"),
    "to_bfloat16": _table("        q, k = torch.randn(1, d), torch.randn(5, d)\n"
                          "        q, k = q.to(torch.bfloat16), k.to(torch.bfloat16)"),
}
LOW_RIGHT = {
    "float64_cast": _table("        q = torch.randn(1, d).double()\n        k = torch.randn(5, d).double()"),
}


def _mha(split: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
{split}
    return torch.cat(heads, dim=-1) @ W_O
'''}


OVERLAP = {
    "slice_every_start": _mha("    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    heads = []\n"
                              "    for s in range(d_model - d_k + 1):\n"
                              "        heads.append(attention(Q[:, s:s + d_k], K[:, s:s + d_k], V[:, s:s + d_k], d_k)[0])"),
    "unfold_last_dim_comprehension": _mha(
        "    Qw, Kw, Vw = ((X @ W).unfold(-1, d_k, 1) for W in (W_Q, W_K, W_V))\n"
        "    heads = [attention(Qw[:, i], Kw[:, i], Vw[:, i], d_k)[0] for i in range(Qw.size(1))]"),
}
OVERLAP_RIGHT = {
    "unfold_step_d_k": _mha("    Qw, Kw, Vw = ((X @ W).unfold(1, d_k, d_k) for W in (W_Q, W_K, W_V))\n"
                            "    heads = [attention(Qw[:, i], Kw[:, i], Vw[:, i], d_k)[0] for i in range(n_heads)]"),
}

VIEWED = {
    "reshape_minus_one": _mha("    heads = []\n    for h in range(n_heads):\n"
                              "        q, k, v = (X @ W.reshape(n_heads, -1, d_k)[h] for W in (W_Q, W_K, W_V))\n"
                              "        heads.append(attention(q, k, v, d_k)[0])"),
    "viewed_query_key_only": _mha("    Wq, Wk = W_Q.view(n_heads, d_model, d_k), W_K.view(n_heads, d_model, d_k)\n"
                                  "    heads = []\n    for h in range(n_heads):\n"
                                  "        v = X @ W_V[:, h * d_k:(h + 1) * d_k]\n"
                                  "        heads.append(attention(X @ Wq[h], X @ Wk[h], v, d_k)[0])"),
}
VIEWED_RIGHT = {
    "view_then_permute": _mha("    Ws = [W.view(d_model, n_heads, d_k).permute(1, 0, 2) for W in (W_Q, W_K, W_V)]\n"
                              "    heads = [attention(X @ Ws[0][h], X @ Ws[1][h], X @ Ws[2][h], d_k)[0]\n"
                              "             for h in range(n_heads)]"),
}


def _named(name, cells, question, key, label):
    return pytest.param(cells, question, key, id=f"{label}-{name}")


NAMED = [_named(n, c, ["q1"], "scores_paired_rows", "paired") for n, c in PAIRED.items()] \
    + [_named(n, c, ["q1"], "out_buffer_default_dtype", "buffer") for n, c in BUFFER.items()] \
    + [_named(n, c, ["q2"], "dots_one_term_times_d_k", "one_term") for n, c in ONE_TERM.items()] \
    + [_named(n, c, ["q4"], "table_low_precision", "low") for n, c in LOW.items()] \
    + [_named(n, c, ["q8"], "mha_heads_overlapping_windows", "overlap") for n, c in OVERLAP.items()] \
    + [_named(n, c, ["q8"], "mha_weight_blocks_viewed", "viewed") for n, c in VIEWED.items()]


@pytest.mark.parametrize(("cells", "questions", "key"), NAMED)
def test_kind_is_named(grader, cells, questions, key, request):
    outcome = grade_cells(grader, "scaled-attention", cells, f"round55_{request.node.callspec.id}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all(k == key for q, _t, k, _m in outcome.failed if q in questions), outcome.explain()
    # q8 calls the student's attention: a q1 slip may cost q8 points only where q8 says so (charged by q1, not named)
    assert all(q in questions + ["q8"] for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert any(q in questions for q, _t, _k, _m in outcome.failed), outcome.explain()


def test_einsum_paired_rows_is_named(grader):
    # einsum('id,id->i'): with T_q != T_k torch's einsum words name the letter i given to both lengths
    # (einsum_letter_on_two_axes, the same slip told from the crash); with T_q = T_k the row-paired scores
    cells = _attention("    scores = torch.einsum('id,id->i', Q, K) / d_k ** 0.5")
    outcome = grade_cells(grader, "scaled-attention", cells, "round55_paired_einsum")
    q1 = [k for q, _t, k, _m in outcome.failed if q == "q1"]
    assert "scores_paired_rows" in q1, outcome.explain()
    assert set(q1) <= {"scores_paired_rows", "einsum_letter_on_two_axes"}, outcome.explain()


def test_float16_table_keeps_float16_precision(grader):
    # float16 draws: every entry a float16 number, named float16_precision as before (not the bfloat16 replay's key)
    cells = _table("        q = torch.randn(1, d).half()\n        k = torch.randn(5, d).half()", _LOG_SOFTMAX)
    outcome = grade_cells(grader, "scaled-attention", cells, "round55_half_table")
    assert outcome.failed and all(k in ("float16_precision", "table_low_precision")
                                  for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_paired_rows_message_says_the_shape(grader):
    outcome = grade_cells(grader, "scaled-attention", PAIRED["mul_sum"], "round55_paired_message")
    q1 = [m for q, _t, _k, m in outcome.failed if q == "q1"]
    assert q1 and all("Q @ K.T" in m for m in q1), outcome.explain()
    assert any("T_q = " in m and "as many queries as keys" in m for m in q1), outcome.explain()


def test_sum_times_sum_is_not_one_term(grader):
    # q.sum() * k.sum(): variance d_k^2 as well, but another mistake: the one-term replays do not give it
    cells = _variance("    q = torch.randn(n_samples, d_k, generator=generator)\n"
                      "    k = torch.randn(n_samples, d_k, generator=generator)\n    dots = q.sum(-1) * k.sum(-1)")
    outcome = grade_cells(grader, "scaled-attention", cells, "round55_sum_times_sum")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "dots_one_term_times_d_k" for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_added_logsumexp_is_said(grader):
    cells = _attention("    scores = Q @ K.T / math.sqrt(d_k)",
                       "    weights = torch.exp(scores + scores.logsumexp(-1, keepdim=True))\n"
                       "    return weights @ V, weights")
    outcome = grade_cells(grader, "scaled-attention", cells, "round55_logsumexp_added")
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert q1 and all(k == "weights_not_normalised" for k, _m in q1), outcome.explain()
    assert any("ADDED" in m for _k, m in q1), outcome.explain()


RIGHT = {**PAIRED_RIGHT, **BUFFER_RIGHT, **ONE_TERM_RIGHT, **LOW_RIGHT, **OVERLAP_RIGHT, **VIEWED_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round55_{name}")
    assert outcome.full_marks, outcome.explain()
