"""Naming scaled-attention's mistakes, round 54 (blind54's three generic variants, the kinds).

softmax_running_normaliser: attention divides each exponential by a running sum over the keys up to it
(exp(s - logcumsumexp(s, -1)), e / e.cumsum(-1), the max-shifted form) instead of its row's total: named where both
results of the same call are that replay's (every row's first weight 1); the total read off the running sum's last
column is right and keeps full marks.

dots_norm_of_products: dot_product_variance takes the length of the elementwise products (vector_norm, .norm(), by
hand, squared, L1) for q.k: named by exact replay on a generator seeded as the student's (float32 and float64 draws);
|q.k| (the absolute value of the right dot product) is another mistake and is not named so.

table_scores_row_of_transpose: entropy_table takes row [0] of k @ q.T (shape (5, 1), one score): the table is what
one score per d gives (std NaN, entropy 0), and the source shows the keys times the query transposed indexed [0]
(inline or through a name, @, matmul or mm, .T, .t() or .transpose); [:, 0] of k @ q.T (the 5 scores) keeps full
marks, and [:, 0] of q @ k.T (one score too, another slip) is not given this key.

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(weights: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
{weights}
    return weights @ V, weights
'''}


RUNNING = {
    "exp_over_cumsum": _attention("    e = torch.exp(scores)\n    weights = e / e.cumsum(dim=-1)"),
    "shifted_over_torch_cumsum": _attention(
        "    m = scores.max(dim=-1, keepdim=True).values\n    e = torch.exp(scores - m)\n"
        "    weights = e / torch.cumsum(e, -1)"),
    "method_logcumsumexp": _attention("    weights = (scores - scores.logcumsumexp(-1)).exp()"),
}
RUNNING_RIGHT = {
    "cumsum_last_column_is_the_total": _attention("    e = torch.exp(scores)\n"
                                                   "    weights = e / e.cumsum(dim=-1)[..., -1:]"),
    "logsumexp_keepdim": _attention("    weights = torch.exp(scores - torch.logsumexp(scores, -1, keepdim=True))"),
}


def _variance(head: str, dots: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
{head}
    dots = {dots}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(dots.var())
'''}


_F32 = ("    a = torch.randn(n_samples, d_k, generator=generator)\n"
        "    b = torch.randn(n_samples, d_k, generator=generator)")
_F64 = ("    a = torch.randn((n_samples, d_k), generator=generator, dtype=torch.float64)\n"
        "    b = torch.randn((n_samples, d_k), generator=generator, dtype=torch.float64)")

NORM = {
    "norm_method": _variance(_F32, "(a * b).norm(dim=-1)"),
    "root_of_squares_float64": _variance(_F64, "torch.sqrt(((a * b) ** 2).sum(1))"),
    "linalg_norm_squared": _variance(_F32, "torch.linalg.norm(a * b, dim=1) ** 2"),
    "l1_of_products": _variance(_F64, "torch.linalg.vector_norm(a * b, ord=1, dim=-1)"),
}
NORM_RIGHT = {
    "einsum": _variance(_F32, 'torch.einsum("nd,nd->n", a, b)'),
    "mul_sum_float64": _variance(_F64, "torch.mul(a, b).sum(dim=-1)"),
}


def _table(lines: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
{lines}
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''}


TRANSPOSED = {
    "named_matmul_then_row": _table("        query = torch.randn(1, d)\n        keys = torch.randn(5, d)\n"
                                    "        s = torch.matmul(keys, query.T)\n        raw = s[0]"),
    "tuple_draw_mm_t": _table("        q, k = torch.randn(1, d), torch.randn(5, d)\n        raw = k.mm(q.t())[0]"),
    "transpose_call_inline": _table("        q = torch.randn(size=(1, d))\n        k = torch.randn(5, d)\n"
                                    "        raw = (k @ q.transpose(0, 1))[0]"),
}
TRANSPOSED_RIGHT = {
    "column_of_transpose": _table("        q = torch.randn(1, d)\n        k = torch.randn(5, d)\n"
                                 "        raw = (k @ q.T)[:, 0]"),
    "row_of_q_k_t": _table("        q, k = torch.randn(1, d), torch.randn(5, d)\n        raw = torch.matmul(q, k.t())[0]"),
}


@pytest.mark.parametrize("name", sorted(RUNNING))
def test_running_normaliser_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RUNNING[name], f"round54_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 4 and all(k == "softmax_running_normaliser" for k, _m in q1), outcome.explain()
    assert all(k == "softmax_running_normaliser" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("logsumexp" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(NORM))
def test_norm_of_products_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", NORM[name], f"round54_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q2", "dots_norm_of_products")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("(q * k).sum(dim=-1)" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_absolute_dot_product_is_not_the_norm_of_products(grader):
    # |q.k|: the right sum, then its size: another mistake, whose variance the norms' replays do not give
    outcome = grade_cells(grader, "scaled-attention", _variance(_F32, "(a * b).sum(-1).abs()"), "round54_abs_dot")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "dots_norm_of_products" for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(TRANSPOSED))
def test_row_of_transposed_scores_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", TRANSPOSED[name], f"round54_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q4", "table_scores_row_of_transpose")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("(q @ k.T)[0]" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


def test_column_of_q_k_t_is_not_the_transposed_row(grader):
    # (q @ k.T)[:, 0] keeps one score too (the same numbers), but nothing is transposed: not this key
    cells = _table("        q = torch.randn(1, d)\n        k = torch.randn(5, d)\n        raw = (q @ k.T)[:, 0]")
    outcome = grade_cells(grader, "scaled-attention", cells, "round54_column_of_q_k_t")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert all(k != "table_scores_row_of_transpose" for _q, _t, k, _m in outcome.failed), outcome.explain()


RIGHT = {**RUNNING_RIGHT, **NORM_RIGHT, **TRANSPOSED_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round54_{name}")
    assert outcome.full_marks, outcome.explain()
