"""Naming scaled-attention's mistakes, round 65 (blind65's raw, generic and mis-named variants, the kinds).

parameters_overwritten_in_body: attention assigns its queries and keys anew (from a draw or a constant) before it
reads them, lines pasted from the trace cell while debugging: named on the crash (weights (3, 3) times V) where the
source shows the assignment to a parameter before any read and two second calls with other queries and keys give
the same weights; `K = torch.as_tensor(K)` (a parameter assigned from itself) keeps full marks.

helper_head_count_default: multi_head_attention calls a helper that cuts the heads without passing it n_heads, so
the helper's default (n_heads=4 from a demo) is used: named where the answer equals that many heads' replay and a
second call with n_heads equal to the default is right; the same helper given n_heads keeps full marks. And
mha_split_by_head_count (d_k heads of width n_heads) now needs a split, chunk, view, reshape or head-count-bounded
slice in the source: four hard-coded heads on the eight-heads test (4 heads of width 8 equal d_k = 32 // 8 = 4 heads
of width 8 only by the sizes) are not given that key.

name_assigned_nowhere: dot_product_variance reads a name that neither it nor any cell assigns (left from a rename or
a refactor): named from the NameError and the source, with the function's own name that looks like it.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(head: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{head}
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
'''}


OVERWRITTEN = {
    "tuple_of_draws": _attention("    torch.manual_seed(0)\n    Q, K = torch.randn(3, d_k), torch.randn(3, d_k)"),
    "seeded_keys_first_then_constant_queries": _attention(
        "    torch.manual_seed(7)\n    K = torch.randn((3, d_k))   # debugging\n    Q = torch.ones(3, d_k)"),
}
OVERWRITTEN_RIGHT = {
    "as_tensor_of_itself": _attention("    K = torch.as_tensor(K)\n    Q = torch.as_tensor(Q)"),
}


def _mha(helper: str, call: str) -> dict[str, str]:
    return {"multi_head_attention": f'''{helper}


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for q, k, v in zip({call.format(M="Q")}, {call.format(M="K")}, {call.format(M="V")}):
        heads.append(attention(q, k, v, d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}


_CHUNK = "def to_heads(M, n_head=4):\n    return M.chunk(n_head, dim=-1)"
_SLICES = ("def head_columns(M, num_heads=2):\n    w = M.shape[-1] // num_heads\n"
           "    return [M[:, i * w:(i + 1) * w] for i in range(num_heads)]")
DEFAULTED = {
    "chunk_helper_default_four": _mha(_CHUNK, "to_heads({M})"),
    "slice_helper_default_two": _mha(_SLICES, "head_columns({M})"),
}
DEFAULTED_RIGHT = {
    "chunk_helper_given_n_heads": _mha(_CHUNK, "to_heads({M}, n_heads)"),
    "slice_helper_given_by_keyword": _mha(_SLICES, "head_columns({M}, num_heads=n_heads)"),
}
# four heads hard-coded, cut by slices of width d_model // 4 (no split, chunk or view): wrong for every head count
# but 4; on the eight-heads test its values equal d_k = 4 heads of width n_heads = 8 by the sizes alone
FOUR_FIXED = {"multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    w = X.shape[1] // 4
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, i * w:(i + 1) * w], K[:, i * w:(i + 1) * w], V[:, i * w:(i + 1) * w], d_k)[0]
             for i in range(4)]
    return torch.cat(heads, dim=-1) @ W_O
'''}


def _variance(dots: str, scaled: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    {dots}
    if scaled:
        {scaled}
    return dots.var().item()
'''}


NOWHERE = {
    "einsum_then_old_products": (_variance('dots = torch.einsum("nd,nd->n", q, k)',
                                           "dots = products.sum(-1) / math.sqrt(d_k)"), "products"),
    "scale_reads_old_spelling_dk": (_variance("dots = (q * k).sum(dim=1)", "dots = dots / math.sqrt(dk)"), "dk"),
}


@pytest.mark.parametrize("name", sorted(OVERWRITTEN))
def test_parameters_overwritten_in_body_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", OVERWRITTEN[name], f"round65_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 4 and all(k == "parameters_overwritten_in_body" for k, _m in q1), outcome.explain()
    assert all("before reading" in m and "same weights" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(DEFAULTED))
def test_helper_head_count_default_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", DEFAULTED[name], f"round65_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q8 = [(k, m) for q, _t, k, m in outcome.failed if q == "q8"]
    assert len(q8) >= 2 and all(k == "helper_head_count_default" for k, _m in q8), outcome.explain()
    assert all(q == "q8" for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all("without" in m and "called again with n_heads" in m for _k, m in q8), outcome.explain()


def test_four_fixed_heads_are_not_a_split_by_head_count(grader):
    outcome = grade_cells(grader, "scaled-attention", FOUR_FIXED, "round65_four_fixed_heads")
    assert outcome.score < outcome.max_score, outcome.explain()
    eight = [(k, m) for q, t, k, m in outcome.failed if q == "q8" and "eight_heads" in t]
    assert eight, outcome.explain()
    assert all(k != "mha_split_by_head_count" for k, _m in eight), outcome.explain()
    assert all("4 heads of width 8" in m and "no split" in m for _k, m in eight), outcome.explain()


@pytest.mark.parametrize("name", sorted(NOWHERE))
def test_name_assigned_nowhere_is_named(grader, name):
    cells, missing = NOWHERE[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round65_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q2 = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert q2 and all(k == "name_assigned_nowhere" for k, _m in q2), outcome.explain()
    assert all(f"reads `{missing}`" in m for _k, m in q2), outcome.explain()


RIGHT = {**OVERWRITTEN_RIGHT, **DEFAULTED_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round65_{name}")
    assert outcome.full_marks, outcome.explain()
