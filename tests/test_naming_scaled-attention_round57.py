"""Naming scaled-attention's mistakes, round 57 (blind57's mis-named and generic variants, the kinds).

wrong_scale_constant for a saturating scale (was attention_top_k): attention divides the scores by a tiny c
(math.pow(0.5, d_k) for math.pow(d_k, 0.5), 0.5 ** d_k, a factor 2 ** d_k), so the softmax saturates and most weights
are exactly 0, which a top-k also gives. attention_top_k now needs a second call with the queries scaled down (the
largest score 1e-6) to stay top-k's; a saturated softmax spreads over every key there, and two more calls fit its c.
A real top-k (torch.topk, masked to -inf) keeps its name.

state_shared_across_calls (was table_ignores_dims): entropy_table appends to a list made once outside the function (at
cell level, or a default argument rows=[]), so each call returns the earlier calls' rows first: named where two more
calls with the same dims return len(dims) more rows each. table_ignores_dims now needs a second call with other dims
to return rows for the same d's (a hard-coded list), which a shared list does not.

append_after_loop (was mha_heads_missing): multi_head_attention appends the head output right after the loop over the
heads instead of in it, so only the last head is concatenated: named where the second call (W_O cut) shows the last
head alone and the source has a collecting statement just after the loop reading a name the loop binds.
mha_heads_missing stays for a shorter range of heads (range(n_heads - 1)).

attention_return_in_loop (q1, the kind of sdpa-from-scratch's return_inside_loop): attention loops over the queries and returns inside the
loop, so only the first query's row comes back: named where both results are the right first row alone (a replay)
and the source has the return as the last line of the function's last loop (source_checks.return_inside_loop).

reads_global_not_parameter, two more spellings: a scores helper that uses the notebook's global K where its parameter is
k (a matmul crash; two second calls with different keys give the same weights: a fixed key matrix), and
dot_product_variance dividing by the display loop's global d (the same divisor 64 at d_k = 20, and the source reads a
module-level name that is none of its parameters).

name_shadows_function: multi_head_attention assigns to `attention` (out, attention = attention(...)) and calls it: the
UnboundLocalError's name, called and assigned in the function and defined at module level. Another name keeps full marks.

entropy_rows_hard_coded: softmax_entropy cuts its terms into rows of a fixed length (view(-1, 5), reshape(-1, 5)):
probes with 10 and 15 logits a row come back summed in chunks of 5 (a crash where 5 does not divide the input).

My own variants, not the blind sets' cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'''def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
{body}
'''}


def _scaled(scores: str) -> dict[str, str]:
    return _attention(f"    scores = {scores}\n    weights = torch.softmax(scores, dim=-1)\n    return weights @ V, weights")


SATURATED = {
    "power_operator_half_to_d_k": _scaled("Q @ K.T / (0.5 ** d_k)"),
    "times_two_to_the_d_k": _scaled("torch.matmul(Q, K.transpose(-2, -1)) * 2.0 ** d_k"),
}
SATURATED_RIGHT = {
    "math_pow_right_way_round": _scaled("Q @ K.T / math.pow(d_k, 0.5)"),
    "power_operator_d_k_to_half": _scaled("Q @ K.T / (d_k ** 0.5)"),
}
TOP_ONE = _attention("    scores = Q @ K.T / math.sqrt(d_k)\n"
                     "    idx = scores.topk(1, dim=-1).indices\n"
                     "    masked = torch.full_like(scores, float('-inf')).scatter(-1, idx, scores.gather(-1, idx))\n"
                     "    weights = torch.softmax(masked, dim=-1)\n    return weights @ V, weights")


def _table(head: str, sig: str, loop_end: str) -> dict[str, str]:
    return {"entropy_table": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
{head}

def entropy_table({sig}):
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        table.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                          H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
{loop_end}
'''}


SHARED = {
    "cell_level_list": _table("\ntable = []\n", "dims=(4, 16, 64, 256), seed=0", "    return table"),
    "mutable_default_argument": _table("", "dims=(4, 16, 64, 256), seed=0, table=[]", "    return table"),
}
SHARED_RIGHT = {
    "cell_level_list_cleared_each_call": _table("\ntable = []\n", "dims=(4, 16, 64, 256), seed=0",
                                                "    out = list(table)\n    table.clear()\n    return out"),
}
HARD_CODED = {"entropy_table": SHARED["cell_level_list"]["entropy_table"].replace(
    "    for d in dims:", "    table = []\n    for d in (4, 16, 64, 256):").replace("\ntable = []\n", "")}


def _mha(loop: str) -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
{loop}
    return torch.cat(heads, dim=-1) @ W_O
'''}


APPEND = {
    "plus_equals_after_for": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                                  "        head, _w = attention(Q[:, s], K[:, s], V[:, s], d_k)\n"
                                  "    heads += [head]"),
    "append_after_while": _mha("    h = 0\n    while h < n_heads:\n        lo = h * d_k\n"
                               "        o, _ = attention(Q[:, lo:lo + d_k], K[:, lo:lo + d_k], V[:, lo:lo + d_k], d_k)\n"
                               "        h += 1\n    heads.append(o)"),
}
APPEND_RIGHT = {
    "append_in_the_loop": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                               "        head, _w = attention(Q[:, s], K[:, s], V[:, s], d_k)\n"
                               "        heads += [head]"),
}
FEWER = _mha("    for h in range(n_heads - 1):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
             "        heads.append(attention(Q[:, s], K[:, s], V[:, s], d_k)[0])")

RETURN = {
    "for_over_rows_of_q": _attention("    outs, rows = [], []\n    for q in Q:\n"
                                     "        w = torch.softmax(K @ q / math.sqrt(d_k), dim=-1)\n"
                                     "        rows.append(w)\n        outs.append(w @ V)\n"
                                     "        return torch.stack(outs), torch.stack(rows)"),
    "while_over_indices": _attention("    i, outs, rows = 0, [], []\n    while i < Q.shape[0]:\n"
                                     "        w = F.softmax(Q[i:i + 1] @ K.T / d_k ** 0.5, dim=-1)\n"
                                     "        rows.append(w)\n        outs.append(w @ V)\n        i += 1\n"
                                     "        return torch.cat(outs), torch.cat(rows)"),
}
RETURN_RIGHT = {
    "for_over_rows_return_after": _attention("    outs, rows = [], []\n    for q in Q:\n"
                                             "        w = torch.softmax(K @ q / math.sqrt(d_k), dim=-1)\n"
                                             "        rows.append(w)\n        outs.append(w @ V)\n"
                                             "    return torch.stack(outs), torch.stack(rows)"),
}


GLOBAL_KEYS = {
    "helper_reads_global_k": {"attention": '''def _scores(q, k, d_k):
    return q @ K.T / math.sqrt(d_k)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention."""
    weights = torch.softmax(_scores(Q, K, d_k), dim=-1)
    return weights @ V, weights
'''},
    "renamed_parameters_body_says_k": {"attention": '''def attention(q, k, v, d_k):
    """Scaled dot-product attention."""
    weights = F.softmax(torch.matmul(q, K.transpose(0, 1)) / d_k ** 0.5, dim=-1)
    return weights @ v, weights
'''},
}


def _variance(scale: str) -> dict[str, str]:
    return {"dot_product_variance": f'''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k over n_samples pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = {scale}
    return dots.var().item()
'''}


GLOBAL_D = {
    "divides_by_sqrt_of_global_d": _variance("dots / math.sqrt(d)"),
    "power_of_global_d": _variance("dots * d ** -0.5"),
}
GLOBAL_D_RIGHT = {"power_of_d_k": _variance("dots * d_k ** -0.5")}

SHADOW = {
    "weights_named_attention": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                                    "        out, attention = attention(Q[:, s], K[:, s], V[:, s], d_k)\n"
                                    "        heads.append(out)"),
    "result_tuple_named_attention": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                                         "        attention = attention(Q[:, s], K[:, s], V[:, s], d_k)\n"
                                         "        heads.append(attention[0])"),
}
SHADOW_RIGHT = {
    "weights_named_attn": _mha("    for h in range(n_heads):\n        s = slice(h * d_k, (h + 1) * d_k)\n"
                               "        out, attn = attention(Q[:, s], K[:, s], V[:, s], d_k)\n"
                               "        heads.append(out)"),
}


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
    terms = -(p * torch.log(p + 1e-9))
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


FIXED_ROWS = {
    "view_minus_one_five": _entropy("    return terms.view(-1, 5).sum(dim=-1)"),
    "reshape_then_sum_axis_one": _entropy("    flat = terms.reshape(-1, 5)\n    return flat.sum(1)"),
}
FIXED_ROWS_RIGHT = {"reshape_to_last_axis_length": _entropy(
    "    flat = terms.reshape(-1, logits.shape[-1])\n    return flat.sum(1).reshape(logits.shape[:-1])")}


def _keys(outcome, question):
    return [k for q, _t, k, _m in outcome.failed if q == question]


@pytest.mark.parametrize("name", sorted(SATURATED))
def test_saturating_scale_is_wrong_scale_constant(grader, name):
    outcome = grade_cells(grader, "scaled-attention", SATURATED[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = _keys(outcome, "q1")
    assert len(q1) >= 4 and all(k == "wrong_scale_constant" for k in q1), outcome.explain()
    assert all(k != "attention_top_k" for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any("saturates" in m for q, _t, _k, m in outcome.failed if q == "q1"), outcome.explain()


def test_real_top_one_keeps_attention_top_k(grader):
    outcome = grade_cells(grader, "scaled-attention", TOP_ONE, "round57_top_one")
    q1 = _keys(outcome, "q1")
    assert q1 and "attention_top_k" in q1 and "wrong_scale_constant" not in q1, outcome.explain()


@pytest.mark.parametrize("name", sorted(SHARED))
def test_table_list_shared_across_calls_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", SHARED[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q4 = _keys(outcome, "q4")
    assert q4 and all(k == "state_shared_across_calls" for k in q4), outcome.explain()


def test_hard_coded_dims_stay_table_ignores_dims(grader):
    outcome = grade_cells(grader, "scaled-attention", HARD_CODED, "round57_hard_coded")
    q4 = _keys(outcome, "q4")
    assert "table_ignores_dims" in q4 and "state_shared_across_calls" not in q4, outcome.explain()


@pytest.mark.parametrize("name", sorted(APPEND))
def test_append_after_head_loop_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", APPEND[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q8 = _keys(outcome, "q8")
    assert q8 and all(k == "append_after_loop" for k in q8), outcome.explain()
    assert all(k != "mha_heads_missing" for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_shorter_range_of_heads_stays_mha_heads_missing(grader):
    outcome = grade_cells(grader, "scaled-attention", FEWER, "round57_fewer_heads")
    q8 = _keys(outcome, "q8")
    assert "mha_heads_missing" in q8 and "append_after_loop" not in q8, outcome.explain()


@pytest.mark.parametrize("name", sorted(RETURN))
def test_return_inside_query_loop_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RETURN[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = _keys(outcome, "q1")
    assert len(q1) >= 5 and all(k == "attention_return_in_loop" for k in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(GLOBAL_KEYS))
def test_global_keys_in_scores_are_reads_global(grader, name):
    outcome = grade_cells(grader, "scaled-attention", GLOBAL_KEYS[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q1 = _keys(outcome, "q1")
    assert len(q1) >= 5 and all(k == "reads_global_not_parameter" for k in q1), outcome.explain()


@pytest.mark.parametrize("name", sorted(GLOBAL_D))
def test_scale_by_global_d_is_reads_global(grader, name):
    outcome = grade_cells(grader, "scaled-attention", GLOBAL_D[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert outcome.failed and all((q, k) == ("q2", "reads_global_not_parameter")
                                  for q, _t, k, _m in outcome.failed), outcome.explain()
    assert all("`d`" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(SHADOW))
def test_assigned_function_name_is_name_shadows_function(grader, name):
    outcome = grade_cells(grader, "scaled-attention", SHADOW[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q8 = _keys(outcome, "q8")
    assert q8 and all(k == "name_shadows_function" for k in q8), outcome.explain()


@pytest.mark.parametrize("name", sorted(FIXED_ROWS))
def test_entropy_rows_of_fixed_length_are_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", FIXED_ROWS[name], f"round57_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    q4 = _keys(outcome, "q4")
    assert len(q4) >= 3 and all(k == "entropy_rows_hard_coded" for k in q4), outcome.explain()


RIGHT = {**SATURATED_RIGHT, **SHARED_RIGHT, **APPEND_RIGHT, **RETURN_RIGHT, **GLOBAL_D_RIGHT, **SHADOW_RIGHT,
         **FIXED_ROWS_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round57_{name}")
    assert outcome.full_marks, outcome.explain()
