"""Naming scaled-attention's mistakes, round 66 (blind66's generic, raw and not-caught variants, the kinds: right
in the middle, wrong at the edges).

attention_single_key_value_once: a branch for one key (T_k == 1) returns V itself, (1, d_v), not one row per
query: named where, with 4 queries and 1 key, the output is V (the replay) and the source branches on the key
count; V repeated per query keeps full marks.

own_assert_value_width: the student's assert demands values as wide as the keys (V.shape[-1] == d_k), which the
question does not: named where the assert's line reads V's width and the same call with values of width d_k runs
and is right; an assert on Q's and K's widths only keeps full marks.

variance_floor_divided: the scaled variance written `var // d_k`: named where the result is floor(unscaled / d_k)
of the same draws (a second call, scaled=False) and the source has `//`; `/` keeps full marks.

entropy_shift_by_mean: a hand softmax shifted by the row mean, not the max, overflows on saturated rows: named
where the NaN rows are exactly those of the replay (exp(x - mean) is inf) and the source subtracts a .mean(...);
the max shift keeps full marks.

entropy_one_row_item: a one-row branch of softmax_entropy returns .item() or float(...): named where one row
(T,) gives a Python float of the right entropy and a return of the source is such a call; a 0-d tensor keeps
full marks.

table_width_one_squeezed: entropy_table's q.squeeze() (no dim) also removes the width at d = 1 (q4's other-dims
test now has d = 1 in dims, which the statement allows: "for each d in dims"): named from the crash, the bare
squeeze in the source and a second call without the 1 that runs; q.squeeze(0) keeps full marks.

mha_token_axis_squeezed: multi_head_attention squeezes its input (X.squeeze(0)), so one token (T = 1, q8's
float32 test now has one, which the statement's X of shape (T, d_model) allows) loses its token axis: named from
the crash, the squeeze of X in the source and a second call on two tokens that runs; a squeeze only of a 3-D
input keeps full marks.

attention_size_one_axes_dropped, said for code with no squeeze: the query axis lost by Q[0] in a one-query
branch (the key kept, the sentence narrowed).

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


SINGLE_KEY = {
    "shape_branch_value_clone": _attention(
        "    if K.shape[0] == 1:\n        return V.clone(), torch.ones(Q.shape[0], 1, dtype=Q.dtype)"),
    "len_branch_value_itself": _attention("    if len(K) == 1:   # one key: all the weight on it\n"
                                          "        return V, torch.ones_like(Q[:, :1])"),
}
VALUE_WIDTH = {
    "assert_v_width_is_d_k": _attention("    assert V.shape[-1] == d_k"),
    "assert_k_size_equals_v_size": _attention(
        '    assert K.size(1) == V.size(1), "keys and values must have the same width"'),
}
ATTENTION_RIGHT = {
    "single_key_value_repeated": _attention(
        "    if K.size(0) == 1:\n        return V.repeat(Q.shape[0], 1), torch.ones_like(Q[:, :1])"),
    "assert_query_key_widths_only": _attention("    assert Q.shape[-1] == K.shape[-1] == d_k"),
}
ONE_QUERY_INDEXED = _attention("    if Q.shape[0] == 1:\n        w = torch.softmax(K @ Q[0] / math.sqrt(d_k), dim=-1)\n"
                               "        return w @ V, w")


def _variance(body: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
{body}
'''}


FLOORED = {
    "augmented_floor_division": _variance("    var = dots.var().item()\n    if scaled:\n        var //= d_k\n"
                                          "    return var"),
    "floor_division_in_the_return": _variance("    return (dots.var() // d_k).item() if scaled else dots.var().item()"),
}
FLOORED_RIGHT = {
    "true_division": _variance("    var = dots.var().item()\n    if scaled:\n        var = var / d_k\n    return var"),
}

_TABLE_FLOAT = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))})
    return results
'''


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f"def softmax_entropy(logits):\n{body}\n" + _TABLE_FLOAT}


MEAN_SHIFT = {
    "mean_keepdim_log_eps": _entropy("    z = logits - logits.mean(dim=-1, keepdim=True)\n    e = torch.exp(z)\n"
                                     "    p = e / e.sum(dim=-1, keepdim=True)\n"
                                     "    return -(p * torch.log(p + 1e-9)).sum(dim=-1)"),
    "mean_then_clamped_log": _entropy("    e = torch.exp(logits - logits.mean(-1, keepdim=True))\n"
                                      "    p = e / e.sum(-1, keepdim=True)\n"
                                      "    return -(p * p.clamp_min(1e-12).log()).sum(-1)"),
}
ONE_ROW_ITEM = {
    "float_of_the_sum": _entropy("    p = torch.softmax(logits, dim=-1)\n    if logits.dim() == 1:\n"
                                 "        return float(-(p * torch.log(p + 1e-9)).sum())\n"
                                 "    return -(p * torch.log(p + 1e-9)).sum(dim=-1)"),
    "item_of_the_negated_sum": _entropy("    p = torch.softmax(logits, dim=-1)\n    logp = torch.log_softmax(logits, -1)\n"
                                        "    if logits.ndim == 1:\n        return (-(p * logp).sum()).item()\n"
                                        "    return -(p * logp).sum(-1)"),
}
ENTROPY_RIGHT = {
    "max_shift": _entropy("    z = logits - logits.amax(dim=-1, keepdim=True)\n    e = torch.exp(z)\n"
                          "    p = e / e.sum(dim=-1, keepdim=True)\n    return -(p * torch.log(p + 1e-9)).sum(dim=-1)"),
    "one_row_zero_d_tensor": _entropy("    p = torch.softmax(logits, dim=-1)\n    if logits.dim() == 1:\n"
                                      "        return -(p * torch.log(p + 1e-9)).sum()\n"
                                      "    return -(p * torch.log(p + 1e-9)).sum(dim=-1)"),
}


def _table(scores: str) -> dict[str, str]:
    return {"entropy_table": f'''def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = {scores}
        scaled = raw / d**0.5
        results.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''}


WIDTH_ONE = {
    "bare_squeeze_times_keys": _table("q.squeeze() @ k.T"),
    "keys_times_bare_squeeze": _table("torch.matmul(k, q.squeeze())"),
}
WIDTH_ONE_RIGHT = {
    "squeeze_row_axis_only": _table("q.squeeze(0) @ k.T"),
}


def _mha(head: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
{head}
    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1) @ W_O
'''}


TOKEN_SQUEEZED = {
    "torch_squeeze_dim_0": _mha("    X = torch.squeeze(X, 0)   # a batch of one"),
    "bare_method_squeeze": _mha("    X = X.squeeze()"),
}
TOKEN_RIGHT = {
    "squeeze_only_three_d": _mha("    if X.dim() == 3:\n        X = X.squeeze(0)"),
}


@pytest.mark.parametrize("name", sorted(SINGLE_KEY))
def test_single_key_value_once_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", SINGLE_KEY[name], f"round66_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert q1 and all(k == "attention_single_key_value_once" for k, _m in q1), outcome.explain()
    assert all("1 key" in m and "returned once" in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(VALUE_WIDTH))
def test_own_assert_value_width_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", VALUE_WIDTH[name], f"round66_{name}")
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert len(q1) >= 4 and all(k == "own_assert_value_width" for k, _m in q1), outcome.explain()
    assert all("values as wide as the keys" in m for _k, m in q1), outcome.explain()


def test_one_query_branch_by_index_is_said_without_squeeze(grader):
    outcome = grade_cells(grader, "scaled-attention", ONE_QUERY_INDEXED, "round66_one_query_indexed")
    q1 = [(k, m) for q, _t, k, m in outcome.failed if q == "q1"]
    assert q1 and all(k == "attention_size_one_axes_dropped" for k, _m in q1), outcome.explain()
    assert all("no squeeze" in m and "Q[:1]" in m and "bmm" not in m for _k, m in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(FLOORED))
def test_variance_floor_divided_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", FLOORED[name], f"round66_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q2 = [(k, m) for q, _t, k, m in outcome.failed if q == "q2"]
    assert q2 and all(k == "variance_floor_divided" for k, _m in q2), outcome.explain()
    assert all("rounded down" in m and "//" in m for _k, m in q2), outcome.explain()


@pytest.mark.parametrize("name", sorted(MEAN_SHIFT))
def test_entropy_shift_by_mean_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", MEAN_SHIFT[name], f"round66_{name}")
    q4 = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert q4 and all(k == "entropy_shift_by_mean" for k, _m in q4), outcome.explain()
    assert all("shifted by the row mean" in m and ".mean(" in m for _k, m in q4), outcome.explain()


@pytest.mark.parametrize("name", sorted(ONE_ROW_ITEM))
def test_entropy_one_row_item_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", ONE_ROW_ITEM[name], f"round66_{name}")
    q4 = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert q4 and all(k == "entropy_one_row_item" for k, _m in q4), outcome.explain()
    assert all("Python float" in m and "the right entropy" in m for _k, m in q4), outcome.explain()


@pytest.mark.parametrize("name", sorted(WIDTH_ONE))
def test_table_width_one_squeezed_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", WIDTH_ONE[name], f"round66_{name}")
    q4 = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert q4 and all(k == "table_width_one_squeezed" for k, _m in q4), outcome.explain()
    assert all("no d = 1" in m and "squeeze()" in m for _k, m in q4), outcome.explain()


@pytest.mark.parametrize("name", sorted(TOKEN_SQUEEZED))
def test_mha_token_axis_squeezed_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", TOKEN_SQUEEZED[name], f"round66_{name}")
    q8 = [(k, m) for q, _t, k, m in outcome.failed if q == "q8"]
    assert q8 and all(k == "mha_token_axis_squeezed" for k, _m in q8), outcome.explain()
    assert all("one token" in m and "on two tokens it runs" in m for _k, m in q8), outcome.explain()


RIGHT = {**ATTENTION_RIGHT, **FLOORED_RIGHT, **ENTROPY_RIGHT, **WIDTH_ONE_RIGHT, **TOKEN_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round66_{name}")
    assert outcome.full_marks, outcome.explain()
