"""attention-pipeline, naming round 78 (blind78's kinds: device-, dtype- and global-state-aware code; blind79's:
terse one-liners).

q03: a letter picked from "abcd" by an index that puts a minus before a power ("abcd"[-1 ** 2], meaning (-1) ** 2):
entropy_negative before (MIS-NAMED: the option's belief). Now answer_by_position, by a bounded read of the answer's
last binding: the index -a ** b gives the letter held, (-a) ** b another; the message says ** binds tighter.

q04: ~ on an integer 0/1 triangle (long, int32: ~1 = -2, ~0 = -1) times a constant: generic, and infinite_mask on
float16 (MIS-NAMED). Now invert_of_float_mask on every q04 failure, by the replay ((~P) * c cast to the dtype) and
a read of the def or lambda (it writes ~). The same numbers without ~ ((P + 1) * min) do not get it.

q09: the chained comparison 0 <= j <= i on index tensors: raw before ("Boolean value of Tensor ... ambiguous").
Now chained_comparison_on_tensors, by the crash and a read of the def or lambda (a chained comparison, nothing
else that asks a truth value). An `if` on a tensor beside a chained comparison of ints does not get it.

q10: the 0 log 0 terms dropped by a boolean index taken after the log ((A * A.log2())[A > 0]), in a lambda:
reduced_every_axis before (MIS-NAMED: the code has a dim=). Now entropy_rows_flattened_by_selection: the source
read follows a lambda and a selection of the log's terms. A .sum() without dim= keeps reduced_every_axis.

blind78's q10 (a clamp at float32's tiny in float16) is left: q10's float16 test keeps rows without a zero on
purpose, so the lesson's own clamp recipe keeps its marks.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"

_graded = graded_as("attention-pipeline", "round78")


# --- q03: a minus before a power in a letter's index -------------------------------------------------------------

def test_minus_one_to_the_fourth_index_is_named(grader: Grader) -> None:
    failed = assert_named(_graded(grader, {SCALE_ANS: "ans_scale = 'abcd'[-1 ** 4]\n"}), "answer_by_position",
                          "q03", tests=1)
    assert "binds tighter" in failed[0][3] and "'b'" in failed[0][3]


def test_minus_power_minus_one_index_is_named(grader: Grader) -> None:
    failed = assert_named(_graded(grader, {SCALE_ANS: 'ans_scale = "abcd"[-1 ** 2 - 1]  # 1 - 1 = 0?\n'}),
                          "answer_by_position", "q03", tests=1)
    assert "binds tighter" in failed[0][3]


def test_parenthesised_minus_power_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCALE_ANS: 'ans_scale = "abcd"[(-1) ** 4]\n'}))


def test_plain_negative_index_is_not_told_precedence(grader: Grader) -> None:
    out = _graded(grader, {SCALE_ANS: 'ans_scale = "abcd"[-1]\n'})
    assert failed_keys(out)
    assert not any("binds tighter" in msg for _, _, _, msg in out.failed)


# --- q04: ~ on an integer triangle ----------------------------------------------------------------------------

def test_invert_of_int32_future_triangle_is_named(grader: Grader) -> None:
    cell = ("def causal_additive_mask(T, dtype=torch.float32, device=None):\n"
            "    blocked = torch.triu(torch.ones(T, T, device=device, dtype=torch.int32), diagonal=1)\n"
            "    return torch.finfo(dtype).min * (~blocked).to(dtype)\n")
    assert_named(_graded(grader, {MASK: cell}), "invert_of_float_mask", ("q04", "q07", "q09"))


def test_invert_of_long_lower_triangle_lambda_is_named(grader: Grader) -> None:
    cell = ("causal_additive_mask = lambda T, dtype=torch.float32, device=None: torch.finfo(dtype).max * "
            "(~torch.tril(torch.ones(T, T, dtype=torch.int64, device=device))).to(dtype=dtype)\n")
    assert_named(_graded(grader, {MASK: cell}), "invert_of_float_mask", ("q04", "q07", "q09"))


def test_invert_of_bool_triangle_keeps_full_marks(grader: Grader) -> None:
    cell = ("def causal_additive_mask(T, dtype=torch.float32, device=None):\n"
            "    keep = torch.ones(T, T, dtype=torch.bool, device=device).tril()\n"
            "    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(~keep, torch.finfo(dtype).min)\n")
    assert_full_marks(_graded(grader, {MASK: cell}))


def test_same_numbers_without_invert_are_not_named_invert(grader: Grader) -> None:
    cell = ("def causal_additive_mask(T, dtype=torch.float32, device=None):\n"
            "    P = torch.ones(T, T, dtype=torch.long, device=device).tril()\n"
            "    return (P + 1).to(dtype) * torch.finfo(dtype).min\n")
    assert "invert_of_float_mask" not in failed_keys(_graded(grader, {MASK: cell}))


# --- q09: a chained comparison on tensors -------------------------------------------------------------------------

def test_chained_comparison_in_def_is_named(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    i = torch.arange(T)\n"
            "    W = (i[:, None] >= i[None, :] >= 0).to(torch.float64)\n"
            "    return W / W.sum(dim=1, keepdim=True)\n")
    failed = assert_named(_graded(grader, {AVG: cell}), "chained_comparison_on_tensors", "q09")
    assert "(j >= 0) & (j <= i)" in failed[0][3]


def test_chained_comparison_in_nested_lambda_is_named(grader: Grader) -> None:
    cell = ("prefix_average_matrix = lambda T: (lambda r: (r[None] <= r[:, None] < T).double() "
            "/ (r + 1).double()[:, None])(torch.arange(T))\n")
    assert_named(_graded(grader, {AVG: cell}), "chained_comparison_on_tensors", "q09")


def test_comparisons_joined_with_and_operator_keep_full_marks(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]\n"
            "    W = ((0 <= j) & (j <= i)).to(torch.float64)\n    return W / W.sum(-1, keepdim=True)\n")
    assert_full_marks(_graded(grader, {AVG: cell}))


def test_if_on_tensor_beside_int_chain_is_not_named_chained(grader: Grader) -> None:
    cell = ("def prefix_average_matrix(T):\n    L = torch.ones(T, T, dtype=torch.float64).tril()\n"
            "    small = 0 < T < 10 ** 6\n    if L.sum(-1):\n        L = L / L.sum(-1, keepdim=True)\n"
            "    return L if small else None\n")
    assert "chained_comparison_on_tensors" not in failed_keys(_graded(grader, {AVG: cell}))


# --- q10: the log's terms picked by a boolean index -------------------------------------------------------------

_EFF = "\n\ndef effective_tokens(A):\n    return 2 ** row_entropy_bits(A)\n"


def test_xlogy_terms_selected_in_lambda_are_named(grader: Grader) -> None:
    cell = ("import math\n\nrow_entropy_bits = lambda A: -torch.xlogy(A, A)[A != 0].sum(dim=-1) / math.log(2)\n"
            + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "entropy_rows_flattened_by_selection", "q10")


def test_log_terms_selected_by_bound_mask_are_named(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    terms = A * torch.log2(A)\n    keep = A > 0\n"
            "    return -terms[keep].sum(-1)\n" + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "entropy_rows_flattened_by_selection", "q10")


def test_log_terms_zeroed_by_masked_write_keep_full_marks(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    terms = A * torch.log2(A)\n    terms[A == 0] = 0\n"
            "    return -terms.sum(-1)\n" + _EFF)
    assert_full_marks(_graded(grader, {ENT: cell}))


def test_selected_terms_summed_without_dim_keep_reduced_every_axis(grader: Grader) -> None:
    cell = "row_entropy_bits = lambda A: -(A * A.log2())[A > 0].sum()\n" + _EFF
    keys = failed_keys(_graded(grader, {ENT: cell}))
    assert "entropy_rows_flattened_by_selection" not in keys and "reduced_every_axis" in keys
