"""attention-pipeline, naming round 57 (blind57's kinds).

q12: the running total added to after the loop over the weight shapes instead of in it (`total += n` dedented):
only the last matrix's count leaks out, so both flags give one matrix's count, at the test's sizes and at (97, 5,
11) too, and the def writes an augmented total (or `x = x + ...`) right after a for loop, reading a name the loop's
body binds: sum_after_loop. The same numbers used to be told param_count_conditional_precedence (W_V's and W_O's
counts are both d_model * d_v); that key now needs a def that holds a conditional expression or an and/or, and
blind41's `... + with_output and d_v * d_model` keeps it. The total added in the loop keeps full marks.

q01: the `return` indented into the loop over (W_Q, W_K, W_V): project_qkv gives a tuple or list of fewer than
three, each the right one of Q, K in order (replayed), and the def ends with a loop whose body ends with the return
(source_checks.return_inside_loop): return_inside_loop. The return below the loop keeps full marks.

q06: the Question 6 cell a copy of another letter cell with only the letter changed (`ans_scale = "c"`): ans_mask is
bound nowhere, and exactly one other answer name is set by string literals in two cells, the last a one-line cell:
answer_cell_copied_name_kept (q06's on_missing hook). A cell that sets ans_mask keeps full marks.

q10: effective_tokens returning 2 ** a notebook global (the lesson table's entropies) whatever it is given: a second
call on other weights (another shape) returns the same tensor, and the def loads none of its parameters and a name
the notebook binds: reads_global_not_parameter. 2 ** row_entropy_bits(A) beside the same globals keeps full marks.

q11: the lesson's Q typed with a wrong row: rank_S_lesson is matrix_rank of the notebook's typed Q times the lesson's
K (replayed from the literals), one or two rows off the lesson's, and the answer's cell calls matrix_rank:
lesson_matrix_mistyped. A typed number is not told so; the lesson's Q and K keep full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
PARAMS = "qkv_param_count"
MASK_ANS = "ans_mask"
ENT = "row_entropy_bits"     # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
ENTROPY = """def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=-1)


"""
LESSON_TABLE = """

_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=torch.float64)
_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)
A_lesson = attention_weights(scaled_scores(_Q, _K), causal_additive_mask(5, torch.float64))
H = row_entropy_bits(A_lesson)
"""


_graded = graded_as("attention-pipeline", "round57")


# --- q12: the sum after the loop --------------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    # blind57's: the shapes listed, W_O appended, `total += n` at the loop's level
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        n = rows * cols
    total += n
    return total
''',
    # `x = x + ...` after a loop over named shapes, W_V listed first (the last one is W_K's d_model x d_k)
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = {"W_V": (d_model, d_v), "W_Q": (d_model, d_k), "W_K": (d_model, d_k)}
    if with_output:
        sizes["W_O"] = (d_v, d_model)
    params = 0
    for name, (r, c) in sizes.items():
        size = r * c
    params = params + size
    return params
''',
])
def test_sum_after_the_loop_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: cell}))
    assert {(q, k) for q, _, k, _ in failed} == {("q12", "sum_after_loop")}, failed
    assert all("stands after the loop, not in it" in said for _, _, _, said in failed), failed


def test_and_precedence_is_still_told_so(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    return d_model * (2 * d_k + d_v) + with_output and d_v * d_model
'''}))
    assert {(q, k) for q, _, k, _ in failed} == {("q12", "param_count_conditional_precedence")}, failed


@pytest.mark.parametrize("cell", [
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    total = 0
    for rows, cols in shapes:
        n = rows * cols
        total += n
    return total
''',
    '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    total = 0
    for r, c in [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else []):
        total = total + r * c
    last = total
    total += 0
    return last
''',
])
def test_sum_in_the_loop_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {PARAMS: cell}))


# --- q01: the return inside the loop over the weights -------------------------------------------------------------

@pytest.mark.parametrize("cell, kind", [
    ('''def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        out.append(X @ W)
        return tuple(out)
''', "tuple"),
    ('''def project_qkv(X, W_Q, W_K, W_V):
    projections = []
    for weight in [W_Q, W_K, W_V]:
        projections.append(torch.matmul(X, weight))
        return projections
''', "list"),
    ('''def project_qkv(X, W_Q, W_K, W_V):
    res = ()
    for W in (W_Q, W_K, W_V):
        res = res + (X @ W,)
        return res
''', "tuple"),
])
def test_return_inside_the_weight_loop_is_named(grader: Grader, cell: str, kind: str) -> None:
    failed = assert_lost(_graded(grader, {PROJ: cell}))
    mine = [(q, t, k) for q, t, k, _ in failed if q == "q01"]
    assert mine and all(k == "return_inside_loop" for _, _, k in mine), failed
    assert all(k in (None, "return_inside_loop") or q != "q01" for q, _, k, _ in failed), failed
    said = next(s for q, _, _, s in failed if q == "q01")
    assert f"returned a {kind} of 1 (Q, right)" in said and "the last line of the loop" in said, failed


@pytest.mark.parametrize("cell", [
    '''def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        out.append(X @ W)
    return tuple(out)
''',
    '''def project_qkv(X, W_Q, W_K, W_V):
    res = ()
    for W in (W_Q, W_K, W_V):
        res = res + (X @ W,)
    return res
''',
])
def test_return_below_the_loop_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {PROJ: cell}))


# --- q06: a copied letter cell, the name left as the other question's ---------------------------------------------

@pytest.mark.parametrize("cell", ['ans_scale = "c"\n', "# Question 6\nans_scale = 'd'\n"])
def test_copied_letter_cell_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {MASK_ANS: cell}))
    q06 = [(t, k, said) for q, t, k, said in failed if q == "q06"]
    assert [k for _, k, _ in q06] == ["answer_cell_copied_name_kept"], failed
    assert "`ans_mask` is not defined" in q06[0][2] and "ans_scale = 'b'" in q06[0][2], failed


def test_ans_mask_missing_without_a_copy_is_not_told_a_copy(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {MASK_ANS: "pass\n"}))
    assert all(k != "answer_cell_copied_name_kept" for _, _, k, _ in failed), failed


def test_ans_mask_set_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {MASK_ANS: 'ans_mask = "c"\n'}))


# --- q10: a notebook global read instead of the parameter -----------------------------------------------------------

@pytest.mark.parametrize("body", ["    return 2.0 ** H\n", "    return torch.exp2(H_table)\n"])
def test_global_read_for_the_argument_is_named(grader: Grader, body: str) -> None:
    cell = ENTROPY + "def effective_tokens(A):\n" + body + LESSON_TABLE + "H_table = H.clone()\n"
    failed = assert_lost(_graded(grader, {ENT: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q10", "reads_global_not_parameter")], failed
    assert "never reads its parameter A" in failed[0][3], failed


def test_entropy_of_the_argument_beside_the_globals_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {ENT: ENTROPY + "def effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"
                                       + LESSON_TABLE}))


# --- q11: the lesson's Q retyped with a wrong row --------------------------------------------------------------------

LESSON_K = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
            "dtype=torch.float64)\n")


@pytest.mark.parametrize("q_rows, row", [
    ("[[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0.5, 0.5]]", "row 5"),   # blind57's
    ("[[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]]", "row 3"),
])
def test_mistyped_lesson_query_is_named(grader: Grader, q_rows: str, row: str) -> None:
    cell = ("max_rank_S = 8\n\n" + LESSON_K + f"Q_typed = torch.tensor({q_rows}, dtype=torch.float64)\n"
            "rank_S_lesson = int(torch.linalg.matrix_rank(Q_typed @ _K.T))\n")
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q11", "lesson_matrix_mistyped")], failed
    assert "rank_S_lesson is 3" in failed[0][3] and row in failed[0][3], failed


def test_typed_number_beside_a_mistyped_query_is_not_told_so(grader: Grader) -> None:
    cell = ("max_rank_S = 8\n" + LESSON_K + "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], "
            "[1, 0, 0, 0], [0, 0, 0.5, 0.5]], dtype=torch.float64)\nrank_S_lesson = 3\n")
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert all(k != "lesson_matrix_mistyped" for _, _, k, _ in failed), failed


def test_lesson_query_typed_right_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = 8\n" + LESSON_K + "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], "
                                       "[0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=torch.float64)\n"
                                       "rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T))\n"}))
