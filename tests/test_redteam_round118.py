"""Red-team round 118: naming round 62's new keys and replays (d_k_from_paper_heads, mask_polarity_inverted,
out_of_place_result_dropped, dropout_in_training_mode, attention_batch_axis_at_dim_one) met as a student meets
them: wrong code of another kind that shares the symptom a key reads, and the cost of its source walk in the grader.

1. d_k_from_paper_heads (attention-pipeline q11) read any division by 8 whose quotient is the answer:
   `max_rank_S = T // d_k` (100 // 8 = 12, a count of blocks, rank_from_size_arithmetic before round 62) was told
   it had taken d_model / h from the paper. Measured: graded, q11 named d_k_from_paper_heads. Now the division must
   leave no remainder (d_model / h is a whole head width, 512 = 8 x 64); 100 // 8 is size arithmetic again.
2. mask_polarity_inverted (scaled-attention q1) read any -inf in a masked_fill or torch.where: an attention all
   NaN for another reason (scores times inf) with a RIGHT-polarity fill (torch.where(keep, scores, -inf),
   masked_fill(~keep, -inf), scores[~keep] = -inf) was told to fill where the mask is False, which it does. Measured:
   graded, 6 q1 tests named it. Now torch.where fills only with -inf as its True branch, and a mask written inverted
   (~m, not m, m == 0, logical_not) is not this key's fill.
3. out_of_place_result_dropped (scaled-attention q8) read any bare out-of-place statement: a harmless
   `X.masked_fill(torch.isnan(X), 0.0)` while the zeros came from `concat[:, idx].copy_(out_h)` (a copy of an
   advanced-indexed slice) was told the masked_fill was why the buffer stayed zeros. Measured: graded, 3 q8 tests.
   Now the statement's tensor must be one the def returns (followed through a few assignments, not through the
   buffer's torch.zeros(..., dtype=X.dtype)); `out = concat @ W_O; return out` with concat.index_add is still named.
4. dropout_in_training_mode (sdpa-from-scratch q6) took the drop rate from any literal of the cell in (0, 1): an eps
   1e-9 as p made weights masked after the softmax (zeroed, not rescaled) a "dropout" (the cell had an eval-mode
   dropout). Measured: graded, q6 test_out3 named it "divided by 1 - 1e-09". Now the division by 1 - p must be seen
   in some row (a row with kept weights that the unscaled product does not also give).
5. attention_batch_axis_at_dim_one (scaled-attention q1) read weights of (T, 1) ones and an output equal to V with
   any [:, None] in the def: elementwise scores (Q * K).sum(-1, keepdim=True), weights * V, give exactly that, and
   `torch.full(...)[:, None]` (a scale) was taken for the batch axis. Measured: graded, 6 q1 tests named it. Now
   the axis must be added to a named tensor and the def must multiply matrices (@, matmul, bmm), as the key says.
6. Cost: mask_polarity_inverted's fill search wrote back (ast.unparse) every argument of every masked_fill / where
   to compare its text with float('-inf'): nested masked_fills around a long list in a 17 KB def (the read limit is
   20,000 characters) took 0.8 s of the grader's CPU per call, each of q1's calls on an all-NaN pair. Measured with
   time.process_time on the def parsed. Now -inf is read off the node (float('-inf'), -math.inf ...), never unparsed.
"""
from __future__ import annotations

import time

import pytest

from autograder.grading.grader import Grader
from autograder.grading.pyparse import parse
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load


def _keys(outcome: object) -> list[str | None]:
    return [k for _q, _t, k, _m in outcome.failed]  # type: ignore[attr-defined]


def test_blocks_of_d_k_tokens_are_not_the_paper_heads(grader: Grader) -> None:
    cell = "d_k = 8\nT = 100\nmax_rank_S = T // d_k   # one rank per block of d_k tokens\nrank_S_lesson = 2\n"
    outcome = grade_cells(grader, "attention-pipeline", {"max_rank_S": cell}, "rt118_blocks")
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q11", "rank_from_size_arithmetic")], outcome.explain()


def _attention(body: str) -> dict[str, str]:
    return {"attention": 'def attention(Q, K, V, d_k):\n    """Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""\n'
                         "    scores = Q @ K.T / math.sqrt(d_k) * float('inf')   # NaN for another reason\n"
                         "    keep = torch.ones(scores.shape, dtype=torch.bool)\n" + body
                         + "    e = torch.exp(scores - scores.max())\n    weights = e / e.sum(-1, keepdim=True)\n"
                           "    return weights @ V, weights\n"}


@pytest.mark.parametrize("fill", [
    "    scores = torch.where(keep, scores, float('-inf'))\n",
    "    scores = scores.masked_fill(~keep, float('-inf'))\n",
    "    scores[keep == 0] = -math.inf\n",
])
def test_right_polarity_fill_with_nan_elsewhere_is_not_inverted(grader: Grader, fill: str) -> None:
    outcome = grade_cells(grader, "scaled-attention", _attention(fill), "rt118_polarity")
    assert outcome.failed and "mask_polarity_inverted" not in _keys(outcome), outcome.explain()


def _mha(extra: str, write: str, tail: str = "    return concat @ W_O\n") -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
{extra}    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.zeros(T, d_model, dtype=X.dtype)
    for h in range(n_heads):
        idx = torch.arange(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, idx], K[:, idx], V[:, idx], d_k)
{write}
{tail}'''}


def test_harmless_bare_masked_fill_is_not_why_the_buffer_is_zeros(grader: Grader) -> None:
    cells = _mha("    X.masked_fill(torch.isnan(X), 0.0)\n", "        concat[:, idx].copy_(out_h)")
    outcome = grade_cells(grader, "scaled-attention", cells, "rt118_harmless")
    assert outcome.failed and "out_of_place_result_dropped" not in _keys(outcome), outcome.explain()
    assert "`X.masked_fill" not in outcome.explain(), outcome.explain()


def test_dropped_index_add_on_the_returned_buffer_is_still_named(grader: Grader) -> None:
    cells = _mha("", "        concat.index_add(1, idx, out_h)", "    out = concat @ W_O\n    return out\n")
    outcome = grade_cells(grader, "scaled-attention", cells, "rt118_dropped")
    q8 = [k for q, _t, k, _m in outcome.failed if q == "q8"]
    assert q8 and all(k == "out_of_place_result_dropped" for k in q8), outcome.explain()


def test_eps_literal_is_not_a_drop_rate(grader: Grader) -> None:
    cell = ("from torch import nn\n_drop = nn.Dropout(0.1).eval()\n"
            "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\n"
            "_w = weights3 * torch.tril(torch.ones(3, 3))   # causal after the softmax, not renormalised\n"
            "out3 = _drop(_w / (1 + 1e-9)) @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"weights3": cell}, "rt118_eps")
    assert outcome.failed and "dropout_in_training_mode" not in _keys(outcome), outcome.explain()


def test_elementwise_scores_are_not_a_batch_axis_at_dim_one(grader: Grader) -> None:
    cells = {"attention": '''def attention(Q, K, V, d_k):
    """Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scale = torch.full((Q.shape[0],), d_k ** -0.5)[:, None]
    scores = (Q * K).sum(-1, keepdim=True) * scale
    weights = torch.softmax(scores, dim=-1)
    return weights * V, weights
'''}
    outcome = grade_cells(grader, "scaled-attention", cells, "rt118_elementwise")
    assert outcome.failed and "attention_batch_axis_at_dim_one" not in _keys(outcome), outcome.explain()


def test_minus_inf_fill_search_is_bounded() -> None:
    diag = load("scaled-attention", "_diagnose", "_test_scaled_round118_diagnose")
    expr = "[" + ",".join(["x"] * 7000) + "]"
    for _ in range(150):    # 150 nested masked_fills around a 14,000-character list: a 16.7 KB def
        expr = f"s.masked_fill(m, {expr})"
    func = parse(f"def attention(Q, K, V, d_k):\n    return {expr}\n").body[0]
    start = time.process_time()
    found = diag._fills_minus_inf(func)
    spent = time.process_time() - start
    assert found is None
    assert spent < 0.25, f"q1's -inf fill search took {spent:.2f} s of the grader's CPU on one 16.7 KB def"
