"""Red-team round 126: naming round 64's new keys, met as a student meets them (a key that accuses code that does not
make its mistake, right code the new test inputs might fail, the cost of the replays, the passing-call rule).

Tried (repros in /tmp/rt126/: variants.py grades sdpa-from-scratch's full_marks with causal_mask or
scaled_dot_product_attention replaced by right code written another way: an expanded or viewed mask, a numpy one,
~triu(1), a bare squeeze(0), special cases for a length-1 axis, nan_to_num, a 2-D mask expanded, a flag from
mask.sum(-1) > 0; all keep full marks on q4's length-1 axes and q5's 2-D mask with a later empty query. scaled.py
grades scaled-attention's full_marks with attention replaced by other slips of the same symptom). Found:

- **scores_square_from_query_count and size_fixed_from_example told to a student who sized the scores from the keys.**
  attention with `T = K.shape[0]; scores = K.new_zeros(T, T)` and both loops run to T (the mirror of round 64's
  buffer sized from the queries): with fewer queries than keys Q[i] runs out of range, and trace_sizes_crash, which
  took any IndexError with T_q != T_k, said "sizing the scores from the number of queries alone (T = Q.shape[0])";
  with more queries the output has T_k rows, kept again when 3 queries are added, and _fixed_count said "a fixed 4
  ... typing a size of the example as a number": a count read from K, not typed. Measured: scaled.py
  buffer_from_keys and rows_loop_len_k, 3 q1 tests each named so (scores_square_from_query_count on
  2, size_fixed_from_example on 1). Now the query-sized crash is taken only
  in the direction it happens (IndexError, K[j], with more queries than keys; weights @ V that cannot be multiplied
  with fewer), and a kept count equal to the other axis's size is no fixed count: the plain fact is said.
- **divisor_proportional_to_dk told for a root times a root.** sdpa-from-scratch q2's `scale_divisor =
  math.sqrt(64) * math.sqrt(n_heads)` (or `* 8 ** 0.5`) is sqrt(8 * 64) = sqrt(512), the model's full width; the
  student read "the example's divisor sqrt(8) made 8 times larger for a head 8 times wider", a scaling the cell
  never does. Measured: q2q8.py q2_root_times_root_heads. _root_scaled_outside took any root multiplied by anything;
  now the factor outside must be no root itself, and a product of two roots names the model width as the root of a
  product already did (scale_by_d_model).
- **q14's experiment sentence told a cell that did try another length.** attention-pipeline's ans_cross_shapes worked
  out by a cell that calls `cross_attention(X, X, ...)` as a self-attention comparison and then `cross_attention(X, Y,
  ...)` with a Y of 7 rows against X's 4, picking "c" through a transposed S: the student read "your check calls
  cross_attention(X, X, ...): with T' = T the shapes of the options coincide ...; try a Y with another length than
  X", which the cell had done. Measured: q14.py self_call_beside_a_real_check. experiment_said took the first call
  with the same name twice; now every cross_attention call of the cell must give X as Y (a cell with only the self
  call still reads the sentence).

Also tried, no hole: q8's ratio_floor_divided and cost_ratio_as_increase on other spellings (a `- 1` after a floor
division, the causal triangles' `//`); scaled-attention's reshape to V's shape (not named, the plain fact); sdpa's
empty rows given Q instead of zeros (output_width_dk, whose advice, zeros like the output, is the fix); q12's count
read from notebook globals or a memo of the first call (param_count_constant: "a number worked out once" holds). The
passing-call rule (repair._kept_right) was only touched (passing.py: a table field copied is named
table_field_copied, a float16 std the plain fact), not searched for a lost fix."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import grade_cells


def _attention(body: str) -> dict[str, str]:
    return {"attention": f'def attention(Q, K, V, d_k):\n    """Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""\n{body}\n'}


SIZED_FROM_KEYS = {
    "buffer_from_keys": _attention(
        "    T = K.shape[0]\n    scores = K.new_zeros(T, T)\n    for i in range(T):\n        for j in range(T):\n"
        "            scores[i, j] = torch.dot(Q[i], K[j])\n"
        "    weights = F.softmax(scores / math.sqrt(d_k), dim=-1)\n    return weights @ V, weights"),
    "rows_loop_len_k": _attention(
        "    scores = torch.zeros(len(K), len(K), dtype=Q.dtype)\n    for i in range(len(K)):\n"
        "        scores[i] = K @ Q[i]\n    weights = torch.softmax(scores / d_k ** 0.5, -1)\n    return weights @ V, weights"),
}


@pytest.mark.parametrize("variant", sorted(SIZED_FROM_KEYS))
def test_scores_sized_from_the_keys_are_not_said_sized_from_the_queries_or_fixed(grader: Grader, variant: str) -> None:
    outcome = grade_cells(grader, "scaled-attention", SIZED_FROM_KEYS[variant], "round126")
    q1 = [f for f in outcome.failed if f[0] == "q1"]
    assert q1, outcome.failed                 # wrong code: it still loses q1's points
    said = {key for _q, _t, key, _m in q1}
    assert not said & {"scores_square_from_query_count", "size_fixed_from_example"}, q1


ROOT_TIMES_ROOT = ("d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
                   "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
                   "n_heads = 8\nscale_divisor = math.sqrt(64) * math.sqrt(n_heads)\n")


def test_a_root_times_a_root_is_not_said_scaled_in_proportion_to_dk(grader: Grader) -> None:
    outcome = grade_cells(grader, "sdpa-from-scratch", {"raw_score_var": ROOT_TIMES_ROOT}, "round126")
    q2 = [f for f in outcome.failed if f[0] == "q2"]
    assert [t for _q, t, _k, _m in q2] == ["test_scale_divisor"], outcome.failed    # 22.63 is still wrong
    assert q2[0][2] == "scale_by_d_model", q2      # sqrt(64 * 8): the model's width, not sqrt(8) made 8 times larger


SELF_CALL = ("torch.manual_seed(0)\nX = torch.randn(4, 6)\nW_Q, W_K, W_V = torch.randn(6, 3), torch.randn(6, 3), torch.randn(6, 5)\n"
             "O_self, S_self = cross_attention(X, X, W_Q, W_K, W_V)\nassert S_self.shape == (4, 4)\n")
CROSS_CELLS = {
    "beside_a_real_check": (SELF_CALL + "Y = torch.randn(7, 6)\nO, S = cross_attention(X, Y, W_Q, W_K, W_V)\n"
                            "T, Tp = X.shape[0], Y.shape[0]\noptions = {'a': (T, T), 'b': (T, Tp), 'c': (Tp, T), 'd': (T, Tp)}\n"
                            "ans_cross_shapes = [k for k, s in options.items() if s == tuple(S.T.shape)][0]\n", False),
    "only_the_self_call": (SELF_CALL + "T = Tp = X.shape[0]\n"
                           "options = {'a': ((T, T), (T, 5)), 'b': ((T, Tp), (T, 5)), 'c': ((Tp, T), (Tp, 5))}\n"
                           "ans_cross_shapes = [k for k, s in options.items() if s == (tuple(S_self.shape), "
                           "tuple(O_self.shape))][0]\n", True),
}


@pytest.mark.parametrize("variant", sorted(CROSS_CELLS))
def test_the_self_call_sentence_needs_every_call_to_give_x_as_y(grader: Grader, variant: str) -> None:
    cell, said = CROSS_CELLS[variant]
    outcome = grade_cells(grader, "attention-pipeline", {"ans_cross_shapes": cell}, "round126")
    q14 = [f for f in outcome.failed if f[0] == "q14"]
    assert len(q14) == 1 and q14[0][2] == "answer_computed_by_code", outcome.failed    # a wrong letter worked out
    assert ("your check calls cross_attention(X, X" in q14[0][3]) is said, q14[0][3]
