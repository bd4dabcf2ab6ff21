"""attention-pipeline, naming round 51 (blind51's kinds).

q09: prefix_average_matrix that turns the triangle over instead of taking the lower one (triu(ones).flip(0), tril
fliplr'd, the right matrix flipud'd or rot90'd) is named prefix_average_triangle_flipped (sdpa-from-scratch's
triangle_flipped is a mask's key, its text about future keys), replayed on the test's T: the right
matrix with its rows or its columns reversed, or turned a quarter. Reversed both ways (torch.triu averaged, or
rot90 by two) is the upper triangle: upper_triangular_mask. tril, triu(...).T and flips that cancel keep full marks.

q11: rank_S_lesson computed from the lesson's Q and K multiplied entry by entry (Q * K, torch.mul, Q.mul(K),
np.multiply) is elementwise_product: the answer equals the rank of Q * K on the lesson's Q and K (1), and the
notebook's matrix_rank reads that product. A 1 without such a product (typed, or counted from eigenvalues) is not
told so. rank_S_lesson read from the trace of the lesson's S (int of 1.5 scaled, or 3 unscaled; torch.trace,
S.trace(), np.trace, a diagonal summed as it is) is rank_from_trace; a QR diagonal counted against a tolerance is not.

q07: self_attention that puts its (one-head) output back with X's width (view / reshape to (..., T, d_model), blind27's
nanoGPT merge) crashes where d_v != d_model; the same call with W_V as wide as X runs and is right:
heads_merged_to_model_width. Merging to V's width (or -1) keeps full marks."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


AVG = "prefix_average_matrix"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
          "dtype=torch.float64)\n"
          "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], "
          "dtype=torch.float64)\n")


_graded = graded_as("attention-pipeline", "round51")


def _avg(body: str) -> dict[str, str]:
    return {AVG: "def prefix_average_matrix(T):\n" + body}


# --- q09: the triangle turned over -------------------------------------------------------------------------------

@pytest.mark.parametrize("body, said", [
    # the lower triangle mirrored left to right before the division
    ("    W = torch.ones(T, T, dtype=torch.float64).tril().fliplr()\n    return W / W.sum(dim=-1, keepdim=True)\n",
     "LAST columns"),
    # the upper triangle turned upside down with flipud
    ("    W = torch.flipud(torch.triu(torch.ones(T, T, dtype=torch.float64)))\n    return W / W.sum(1, keepdim=True)\n",
     "LAST columns"),
    # the right matrix's rows reversed after the division
    ("    W = torch.tril(torch.ones(T, T, dtype=torch.float64))\n    return (W / W.sum(-1, keepdim=True)).flip(0)\n",
     "reverse order"),
    # the right matrix turned a quarter
    ("    W = torch.tril(torch.ones(T, T, dtype=torch.float64))\n    return torch.rot90(W / W.sum(-1, keepdim=True))\n",
     "quarter"),
])
def test_flipped_triangle_is_named(grader: Grader, body: str, said: str) -> None:
    failed = assert_lost(_graded(grader, _avg(body)))
    q09 = [(t, k, m) for q, t, k, m in failed if q == "q09" and t == "test_prefix_average_matrix"]
    assert [k for _, k, _ in q09] == ["prefix_average_triangle_flipped"], failed
    assert said in q09[0][2] and "tril" in q09[0][2], failed
    assert all(k == "prefix_average_triangle_flipped" for q, _, k, _ in failed if q == "q09"), failed


@pytest.mark.parametrize("body", [
    "    W = torch.triu(torch.ones(T, T, dtype=torch.float64))\n    return W / W.sum(dim=-1, keepdim=True)\n",
    "    W = torch.ones(T, T, dtype=torch.float64).tril().flip(0).flip(1)\n    return W / W.sum(-1, keepdim=True)\n",
])
def test_triangle_reversed_both_ways_is_upper(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, _avg(body)))
    q09 = [k for q, t, k, _ in failed if q == "q09" and t == "test_prefix_average_matrix"]
    assert q09 == ["upper_triangular_mask"], failed


@pytest.mark.parametrize("body", [
    # the upper triangle transposed (not flipped)
    "    W = torch.triu(torch.ones(T, T, dtype=torch.float64)).T\n    return W / W.sum(dim=-1, keepdim=True)\n",
    # two flips that cancel
    "    W = torch.ones(T, T, dtype=torch.float64).tril().flip(0).flip(0)\n    return W / W.sum(-1, keepdim=True)\n",
    # a row-reversed anti-triangle flipped back the other way is the lower triangle again
    "    W = torch.ones(T, T, dtype=torch.float64).triu().flip(1).flip(0).T.flip(0).flip(1).T\n"
    "    return W.T / W.T.sum(-1, keepdim=True)\n",
])
def test_right_triangle_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, _avg(body)))


# --- q11: the lesson's scores as an entry-by-entry product --------------------------------------------------------

@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\nQ_lesson, K_lesson = _Q, _K\nS_lesson = Q_lesson * K_lesson / math.sqrt(4)\n"
    "rank_S_lesson = int(torch.linalg.matrix_rank(S_lesson))\n",
    "max_rank_S = 8\nrank_S_lesson = torch.linalg.matrix_rank(torch.mul(_Q, _K)).item()\n",
    "import numpy as np\nmax_rank_S = 8\nrank_S_lesson = int(np.linalg.matrix_rank(np.multiply(_K.numpy(), _Q.numpy())))\n",
    "max_rank_S = 8\nrank_S_lesson = int(torch.linalg.matrix_rank(_Q.mul(_K)))\n",
])
def test_elementwise_lesson_scores_are_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_rank_S_lesson", "elementwise_product")], failed
    assert "entry by entry" in failed[0][3] and "Q @ K.T" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\nrank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T / math.sqrt(4)))\n",
    "max_rank_S = 8\n_S = (_Q * 1.0) @ _K.mT\nrank_S_lesson = int(torch.linalg.matrix_rank(_S))\n",
    "max_rank_S = 8\nrank_S_lesson = int(torch.linalg.matrix_rank(torch.mul(_Q, 0.5) @ _K.T))\n",
])
def test_right_lesson_rank_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + cell}))


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\nrank_S_lesson = 1\n",      # typed: no product read
    "max_rank_S = 8\nrank_S_lesson = int((torch.linalg.eigvals(_Q @ _K.T).abs() > 1e-9).sum())\n",
])
def test_a_one_without_the_product_is_not_told_so(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [k for _, _, k, _ in failed] != ["elementwise_product"], failed
    assert all("entry by entry" not in m for *_, m in failed), failed


# --- q11: the trace read as the rank (blind44) --------------------------------------------------------------------

@pytest.mark.parametrize("cell, got", [
    ("max_rank_S = 8\n_S = _Q @ _K.T / 2\nrank_S_lesson = int(_S.trace())\n", 1),
    ("max_rank_S = 8\nrank_S_lesson = int(torch.diagonal(_Q @ _K.mT).sum().item())\n", 3),
    ("import numpy as np\nmax_rank_S = 8\nrank_S_lesson = int(np.trace((_K @ _Q.T).numpy()))\n", 3),
])
def test_trace_read_as_rank_is_named(grader: Grader, cell: str, got: int) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_rank_S_lesson", "rank_from_trace")], failed
    assert failed[0][3].startswith(f"rank_S_lesson is {got}: ") and "matrix_rank(S)" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    # the diagonal of a triangular factor counted against a tolerance (a QR rank): not a trace
    "max_rank_S = 8\n_R = torch.linalg.qr(_Q @ _K.T)[1]\nrank_S_lesson = int((torch.diag(_R).abs() > 1e-20).sum())\n",
    "max_rank_S = 8\nrank_S_lesson = 3\n",      # typed: no trace read
])
def test_other_diagonal_readings_are_not_a_trace(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert "rank_from_trace" not in [k for _, _, k, _ in failed], failed


def test_trace_that_is_not_the_answer_keeps_full_marks(grader: Grader) -> None:
    # the trace computed on the way, the rank from matrix_rank
    assert_full_marks(_graded(grader, {RANK: LESSON + "max_rank_S = 8\n_S = _Q @ _K.T / 2\n_t = _S.trace()\n"
                                       "rank_S_lesson = int(torch.linalg.matrix_rank(_S))\n"}))


# --- q07: the head outputs put back with d_model's width (blind27) ------------------------------------------------

SELF = "self_attention"


def _self(merge: str) -> dict[str, str]:
    return {SELF: "def self_attention(X, W_Q, W_K, W_V, causal=True):\n"
                  "    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
                  "    T = X.shape[-2]\n"
                  "    M = causal_additive_mask(T, X.dtype) if causal else None\n"
                  "    A = attention_weights(scaled_scores(Q, K), M)\n"
                  "    Y = (A.unsqueeze(-3) @ V.unsqueeze(-3)).transpose(-3, -2)   # one head, split off\n"
                  f"    O = {merge}\n"
                  "    return O, A\n"}


@pytest.mark.parametrize("merge", [
    "Y.reshape(*X.shape)",                                    # the output put in X's shape
    "Y.contiguous().view(*X.shape[:-1], W_Q.shape[0])",       # C = d_model, the rows of W_Q
])
def test_heads_merged_to_model_width_is_named(grader: Grader, merge: str) -> None:
    failed = assert_lost(_graded(grader, _self(merge)))
    keys = {k for _, _, k, _ in failed}
    assert keys == {"heads_merged_to_model_width"}, failed
    assert all("W_V as wide as X" in m for *_, m in failed), failed


@pytest.mark.parametrize("merge", [
    "Y.reshape(*X.shape[:-1], -1)",
    "Y.contiguous().view(*X.shape[:-1], V.shape[-1])",
])
def test_heads_merged_to_value_width_keep_full_marks(grader: Grader, merge: str) -> None:
    assert_full_marks(_graded(grader, _self(merge)))
