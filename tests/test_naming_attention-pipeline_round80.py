"""attention-pipeline, naming round 80 (blind80's kinds: habits carried over from JAX, Keras/TF, MATLAB, R or Julia;
blind81's: debugging leftovers and half-finished edits).

q05: Keras's keep-mask formula S + (1 - M) * -1e9 on the additive mask: float32_precision and one_edit_fix before
(MIS-NAMED). Now keep_mask_formula_on_additive_mask, by a replay of softmax(S + (1 - M) * -1e9) in S's dtype and a
second call with a mask of 0s, 1s and 2s (the 2s take all the weight). `S + M * -1e9` keeps mask_times_neg_1e9, and
a keep-mask read by M == 0 (torch.where) keeps additive_mask_as_boolean.

q05: an in-place clamp_ inside an assert (or an if test): sigmoid_weights and unnamed before (MIS-NAMED). Now
check_mutates_input, by a bounded read of attention_weights (an in-place clamp with number bounds in a check) and a
replay of the softmax of the clamped scores. An out-of-place clamp in the check keeps full marks.

q07: the output returned transposed, (d_v, T): generic before (shapes only). Now output_transposed, by the replay
(the last two axes swapped back give the right O); an einsum with its output letters reversed keeps one_edit_fix,
which quotes the letters to write (blind79).

q09: the rows stacked as columns (torch.stack(rows, dim=1)): upper_triangular_mask before (MIS-NAMED). Now
rows_stacked_as_columns, by the replay (the right W transposed) and a read of a column stack in the def.

q10: F.cross_entropy(A, A) ported from Keras's categorical_crossentropy on probabilities: generic before. Now
cross_entropy_on_probabilities, by the replay (torch's cross_entropy of A against itself, in bits or nats).

q14: 'c' beside R's crossprod(K, Q) / t(K) %*% Q (keys on the rows): cross_roles_swapped before (MIS-NAMED). Now
scores_transposed, by round 74's bounded read of the answer cell, which now knows R's keys-first products too.

q03: 'c' beside a comment that a library applies the default 1/sqrt(d) scale anyway: softmax_scale_invariant before
(MIS-NAMED, borderline). Now scale_assumed_applied_elsewhere, by a bounded read of the answer cell: one comment that
names a library or its attention function, says it scales by default and has no negation.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

WEIGHTS = "attention_weights"
SELF = "self_attention"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"
SHAPES_ANS = "ans_cross_shapes"
SCALE_ANS = "ans_scale"

_graded = graded_as("attention-pipeline", "round80")


# --- q05: (1 - M) * -1e9 on the additive mask ------------------------------------------------------------------

def test_keep_mask_formula_subtracted_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S - 1e9 * (1 - M)\n"
            "    return torch.softmax(Z, dim=-1)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "keep_mask_formula_on_additive_mask", "q05")


def test_keep_mask_adder_bound_first_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    if M is None:\n        return S.softmax(-1)\n"
            "    adder = (1.0 - M) * (-1e9)\n    return (S + adder).softmax(-1)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "keep_mask_formula_on_additive_mask", "q05")


def test_mask_added_as_it_is_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    return torch.softmax(Z, dim=-1)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


def test_mask_times_neg_1e9_is_not_named_keep_formula(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M * -1e9\n"
            "    return torch.softmax(Z, dim=-1)\n")
    assert "keep_mask_formula_on_additive_mask" not in failed_keys(_graded(grader, {WEIGHTS: cell}))


def test_keep_mask_by_comparison_is_not_named_keep_formula(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    if M is not None:\n"
            "        S = S.masked_fill(M == 0, float('-inf'))\n    return torch.softmax(S, dim=-1)\n")
    assert "keep_mask_formula_on_additive_mask" not in failed_keys(_graded(grader, {WEIGHTS: cell}))


# --- q05: an in-place clamp inside a check ------------------------------------------------------------------

def test_clamp_in_place_in_assert_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    S = S if M is None else S + M\n"
            "    assert not torch.isnan(S.clamp_(min=-20.0, max=20.0)).any(), 'nan scores'\n"
            "    return torch.softmax(S, dim=-1)\n")
    failed = assert_named(_graded(grader, {WEIGHTS: cell}), "check_mutates_input", "q05")
    assert "clamp_" in failed[0][3]


def test_clip_in_place_in_if_test_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S + M if M is not None else S.clone()\n"
            "    if Z.clip_(-5, 5).abs().max() > 100:\n        print('large scores')\n"
            "    return torch.softmax(Z, dim=-1)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "check_mutates_input", "q05")


def test_out_of_place_clamp_in_assert_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    S = S if M is None else S + M\n"
            "    assert torch.isfinite(S.clamp(-10, 10)).all()\n    return torch.softmax(S, dim=-1)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


def test_clamp_outside_a_check_is_not_named_check(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    S = S if M is None else S + M\n"
            "    S = S.clamp(-10, 10)\n    return torch.softmax(S, dim=-1)\n")
    assert "check_mutates_input" not in failed_keys(_graded(grader, {WEIGHTS: cell}))


# --- q07: the output transposed ------------------------------------------------------------------------------

_SELF_HEAD = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
              "    S = scaled_scores(Q, K)\n"
              "    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None\n"
              "    A = attention_weights(S, M)\n")


def test_output_transposed_after_matmul_is_named(grader: Grader) -> None:
    cell = _SELF_HEAD + "    return (A @ V).transpose(-2, -1), A\n"
    assert_named(_graded(grader, {SELF: cell}), "output_transposed", "q07")


def test_output_by_transposed_factors_is_named(grader: Grader) -> None:
    cell = _SELF_HEAD + "    O = torch.matmul(V.transpose(-1, -2), A.transpose(-1, -2))\n    return O, A\n"
    assert_named(_graded(grader, {SELF: cell}), "output_transposed", "q07")


def test_einsum_output_letters_reversed_keeps_one_edit_fix(grader: Grader) -> None:
    cell = _SELF_HEAD + "    O = torch.einsum('...ij,...jd->...di', A, V)\n    return O, A\n"
    assert "output_transposed" not in failed_keys(_graded(grader, {SELF: cell}))


def test_output_transposed_twice_keeps_full_marks(grader: Grader) -> None:
    cell = _SELF_HEAD + "    O = (V.mT @ A.mT).mT\n    return O, A\n"
    assert_full_marks(_graded(grader, {SELF: cell}))


def test_weights_transposed_output_is_not_named_output_transposed(grader: Grader) -> None:
    cell = _SELF_HEAD + "    return A.mT @ V, A\n"
    assert "output_transposed" not in failed_keys(_graded(grader, {SELF: cell}))


# --- q09: the rows stacked as columns ----------------------------------------------------------------------

def test_column_stack_of_rows_is_named(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    L = torch.ones(T, T, dtype=torch.float64).tril()\n"
            "    return torch.column_stack([r / r.sum() for r in L])\n")
    failed = assert_named(_graded(grader, {AVG: cell}), "rows_stacked_as_columns", "q09")
    assert "column_stack" in failed[0][3]


def test_stack_on_last_axis_is_named(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    rows = []\n    for t in range(T):\n"
            "        r = torch.zeros(T, dtype=torch.float64)\n        r[: t + 1] = 1.0 / (t + 1)\n"
            "        rows.append(r)\n    return torch.stack(rows, -1)\n")
    assert_named(_graded(grader, {AVG: cell}), "rows_stacked_as_columns", "q09")


def test_stack_on_rows_keeps_full_marks(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    L = torch.ones(T, T, dtype=torch.float64).tril()\n"
            "    return torch.stack([r / r.sum() for r in L], dim=0)\n")
    assert_full_marks(_graded(grader, {AVG: cell}))


def test_triu_over_column_sums_is_not_named_stacked(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    U = torch.ones(T, T, dtype=torch.float64).triu()\n"
            "    return U / U.sum(dim=0, keepdim=True)\n")
    assert "rows_stacked_as_columns" not in failed_keys(_graded(grader, {AVG: cell}))


# --- q10: torch's cross_entropy on probabilities -----------------------------------------------------------------

_EFF = "\n\ndef effective_tokens(A):\n    return 2 ** row_entropy_bits(A)\n"


def test_cross_entropy_of_weights_with_itself_is_named(grader: Grader) -> None:
    cell = ("import math\nimport torch.nn.functional as F\n\ndef row_entropy_bits(A):\n"
            "    return F.cross_entropy(A, target=A, reduction='none') / math.log(2)\n" + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "cross_entropy_on_probabilities", "q10")


def test_cross_entropy_in_nats_is_named(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    ce = torch.nn.CrossEntropyLoss(reduction='none')\n"
            "    return ce(A, A)\n" + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "cross_entropy_on_probabilities", "q10")


def test_xlogy_entropy_keeps_full_marks(grader: Grader) -> None:
    cell = ("import math\n\ndef row_entropy_bits(A):\n    return -torch.xlogy(A, A).sum(dim=-1) / math.log(2)\n"
            + _EFF)
    assert_full_marks(_graded(grader, {ENT: cell}))


def test_entropy_of_softmax_is_not_named_cross_entropy(grader: Grader) -> None:
    cell = ("import math\n\ndef row_entropy_bits(A):\n    P = torch.softmax(A, dim=-1)\n"
            "    return -(P * torch.log2(P)).sum(dim=-1)\n" + _EFF)
    assert "cross_entropy_on_probabilities" not in failed_keys(_graded(grader, {ENT: cell}))


# --- q14: R's keys-first products -------------------------------------------------------------------------------

def test_r_crossprod_keys_first_answer_c_is_scores_transposed(grader: Grader) -> None:
    cell = "# S = crossprod(Key, Query): one row per key, so S is T' x T\nans_cross_shapes = 'c'\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "scores_transposed", "q14", tests=1)


def test_r_transpose_times_keys_first_answer_c_is_scores_transposed(grader: Grader) -> None:
    cell = "ans_cross_shapes = 'c'   # as in R: t(K) %*% Q, tokens in columns\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "scores_transposed", "q14", tests=1)


def test_r_crossprod_queries_first_answer_c_keeps_roles_swapped(grader: Grader) -> None:
    cell = "# crossprod(Q, K) with Q from Y: the output follows Y\nans_cross_shapes = 'c'\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "cross_roles_swapped", "q14", tests=1)


def test_r_crossprod_answer_b_keeps_full_marks(grader: Grader) -> None:
    cell = "# crossprod(t(Q), t(K)) in R: queries on the rows\nans_cross_shapes = 'b'\n"
    assert_full_marks(_graded(grader, {SHAPES_ANS: cell}))


# --- q03: the scale said to be applied by a library -------------------------------------------------------------

def test_sdpa_scales_by_default_answer_c_is_named(grader: Grader) -> None:
    cell = ("# F.scaled_dot_product_attention divides by sqrt(d_k) by default, so dropping it changes nothing\n"
            "ans_scale = 'c'\n")
    failed = assert_named(_graded(grader, {SCALE_ANS: cell}), "scale_assumed_applied_elsewhere", "q03", tests=1)
    assert "scaled_dot_product_attention" in failed[0][3]


def test_torch_scales_internally_answer_c_is_named(grader: Grader) -> None:
    cell = "ans_scale = 'c'  # torch does the 1/sqrt(d) scaling internally anyway\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "scale_assumed_applied_elsewhere", "q03", tests=1)


def test_softmax_invariance_comment_keeps_option_key(grader: Grader) -> None:
    cell = "# the softmax is invariant to scaling every score by one constant\nans_scale = 'c'\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "softmax_scale_invariant", "q03", tests=1)


def test_library_named_beside_invariance_keeps_option_key(grader: Grader) -> None:
    cell = "# torch's softmax is scaled by nothing that matters: invariant to scaling the scores\nans_scale = 'c'\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "softmax_scale_invariant", "q03", tests=1)


def test_library_said_not_to_scale_keeps_option_key(grader: Grader) -> None:
    cell = "# torch does not apply any 1/sqrt(d) scale by default here\nans_scale = 'c'\n"
    assert "scale_assumed_applied_elsewhere" not in failed_keys(_graded(grader, {SCALE_ANS: cell}))


def test_library_comment_answer_b_keeps_full_marks(grader: Grader) -> None:
    cell = "# torch's sdpa applies the scale by default, but scaled_scores is ours: rows go one-hot\nans_scale = 'b'\n"
    assert_full_marks(_graded(grader, {SCALE_ANS: cell}))
