"""attention-pipeline, naming round 69 (blind69's kinds: verbose beginner code with one buried slip; blind68's q11).

q01: project_qkv goes through a helper whose parameter defaults to a list (`def _project_all(X, weights, results=[])`):
the default is made once, so every call appends to the same list and reads back outputs[0:3], the first call's Q, K,
V. Named mutable_default_keeps_results where the output is wrong, a second call with a new X and new weights (same
shapes) gives back the very same tensors, AND project_qkv or a helper it calls takes a list, dict or set default.
Before, the test said only that Q's dtype or shape differed (another call's). A new list per call keeps full marks.

q04: the mask's rows built as `[[0.0] * T] * T`, T references to one row list: the future written row by row lands in
every row, so every row blocks every key after the first. Named mask_rows_share_one_list where the blocked pattern is
that replay (only key 0 open, in every row) AND the def multiplies a list that holds a list (or a row it bound).
Before: generic ("blocks the wrong entries"). Rows made by a comprehension keep full marks.

q08: nadaraya_watson's running sum of value rows started as torch.zeros_like(q), shape (d_k,): the sum of (d_v,) rows
crashes when d_v != d_k. Named accumulator_shaped_like_query where the crash pairs d_k with d_v, a second call with
values as wide as the keys runs and is right, AND the def makes a buffer from the query. Before: the raw exception.
A buffer of V's width keeps full marks.

q11: the lesson's rank counted by hand. A row reduction whose elimination loop stops one row short (range(rank + 1,
n_rows - 1)) never clears the last row (0.5 q1 + 0.5 q3) and counts 3 pivots: named elimination_skips_last_row where
that reduction replayed on the lesson's S gives the student's number AND the answer's cell has a nested loop whose
range stops at `n - 1` (and calls no library rank). blind68's len(torch.unique(S, dim=0)), the distinct rows (3),
is rank_counts_distinct_rows where that count replayed gives the number AND the cell calls unique(..., dim=0). Before,
3 was generic (it is also the count of singular values not exactly zero); a typed 3 stays generic.

Borderline, said with its cause: q13's no_softmax where O is right (`return output, masked_scores`: the softmax was made
and used for O, and the scores were returned in the weights' place) now says that O is right and the A returned is the
scores from before the softmax. Values only (O right, A the no_softmax variant's A); returning the weights keeps full
marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


PROJ = "project_qkv"
MASK = "causal_additive_mask"
NW = "nadaraya_watson"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)


_graded = graded_as("attention-pipeline", "round69")


# --- q01: a helper's list default keeps the first call's projections ----------------------------------------------

_Q01 = [
    ("def project_qkv(X, W_Q, W_K, W_V, _out=[]):\n    if not _out:\n"
     "        _out.extend([X @ W_Q, X @ W_K, X @ W_V])\n    return tuple(_out)\n",
     "def project_qkv(X, W_Q, W_K, W_V, _out=None):\n    _out = []\n"
     "    _out.extend([X @ W_Q, X @ W_K, X @ W_V])\n    return tuple(_out)\n"),
    ("def _collect(parts, acc=list()):\n    acc += parts\n    return acc\n\n\n"
     "def project_qkv(X, W_Q, W_K, W_V):\n    Q, K, V = _collect([X @ W_Q, X @ W_K, X @ W_V])[:3]\n    return Q, K, V\n",
     "def _collect(parts, acc=None):\n    acc = [] if acc is None else acc\n    acc += parts\n    return acc\n\n\n"
     "def project_qkv(X, W_Q, W_K, W_V):\n    Q, K, V = _collect([X @ W_Q, X @ W_K, X @ W_V])[:3]\n    return Q, K, V\n"),
]


@pytest.mark.parametrize("cell,fixed", _Q01)
def test_mutable_default_keeps_results_is_named(grader: Grader, cell: str, fixed: str) -> None:
    failed = assert_named(_graded(grader, {PROJ: cell}), "mutable_default_keeps_results", "q01")
    assert all("is made once" in m for q, _, _, m in failed if q == "q01"), failed
    assert_full_marks(_graded(grader, {PROJ: fixed}))


# --- q04: the mask's rows are one list ------------------------------------------------------------------------------

_Q04 = [
    "def causal_additive_mask(T, dtype, device=None):\n    blocked = torch.finfo(dtype).min\n"
    "    rows = [[0.0] * T] * T\n    for r in range(T):\n        for c in range(r + 1, T):\n"
    "            rows[r][c] = blocked\n    return torch.tensor(rows, dtype=dtype, device=device)\n",
    "def causal_additive_mask(T, dtype, device=None):\n    row = [0.0 for _ in range(T)]\n    grid = [row] * T\n"
    "    for i in range(T):\n        for j in range(T):\n            if j > i:\n"
    "                grid[i][j] = torch.finfo(dtype).min\n    return torch.tensor(grid, dtype=dtype, device=device)\n",
]


@pytest.mark.parametrize("cell", _Q04)
def test_mask_rows_share_one_list_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {MASK: cell}), "mask_rows_share_one_list", "q04")
    assert all("ONE row list" in m for q, _, _, m in failed if q == "q04"), failed
    fixed = cell.replace("[[0.0] * T] * T", "[[0.0] * T for _ in range(T)]").replace(
        "    row = [0.0 for _ in range(T)]\n    grid = [row] * T\n", "    grid = [[0.0 for _ in range(T)] for _ in range(T)]\n")
    assert_full_marks(_graded(grader, {MASK: fixed}))
    # the same pattern (only key 0 open) from a tensor: no list of lists, so not this key
    cell = ("def causal_additive_mask(T, dtype, device=None):\n"
            "    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)\n    M[:, 0] = 0\n    return M\n")
    failed = _graded(grader, {MASK: cell}).failed
    assert any(q == "q04" for q, _, _, _ in failed) and all(k != "mask_rows_share_one_list" for _, _, k, _ in failed)


# --- q08: the running sum started in the query's shape ------------------------------------------------------------

_Q08 = [
    "def nadaraya_watson(q, K, V):\n    numerator = torch.zeros_like(q)\n    denominator = 0.0\n"
    "    for i in range(K.shape[0]):\n        w = torch.exp((q * K[i]).sum() / math.sqrt(q.shape[0]))\n"
    "        numerator = numerator + w * V[i]\n        denominator = denominator + w\n    return numerator / denominator\n",
    "def nadaraya_watson(q, K, V):\n    d = q.shape[-1]\n    acc = torch.zeros(d, dtype=q.dtype)\n    total = 0.0\n"
    "    for k, v in zip(K, V):\n        w = torch.exp(k @ q / d ** 0.5)\n        acc = acc + w * v\n"
    "        total = total + w\n    return acc / total\n",
]


@pytest.mark.parametrize("cell", _Q08)
def test_accumulator_shaped_like_query_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {NW: cell}), "accumulator_shaped_like_query", "q08")
    assert all("has the query's shape" in m for q, _, _, m in failed if q == "q08"), failed
    fixed = cell.replace("torch.zeros_like(q)", "torch.zeros(V.shape[-1], dtype=V.dtype)").replace(
        "torch.zeros(d, dtype=q.dtype)", "torch.zeros(V.shape[-1], dtype=V.dtype)")
    assert_full_marks(_graded(grader, {NW: fixed}))


# --- q11: the lesson's rank counted by hand -------------------------------------------------------------------------

_LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
           "dtype=torch.float64)\n_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], "
           "[0.5, 0.5, 0, 0]], dtype=torch.float64)\n_S = _Q @ _K.T / 2\n")

_SHORT = [
    "rows = _S.tolist()\nn_rows = len(rows)\nrank = 0\nfor col in range(len(rows[0])):\n    pivot = None\n"
    "    for r in range(rank, n_rows):\n        if abs(rows[r][col]) > 1e-9:\n            pivot = r\n            break\n"
    "    if pivot is None:\n        continue\n    rows[rank], rows[pivot] = rows[pivot], rows[rank]\n"
    "    for r in range(rank + 1, n_rows - 1):\n        f = rows[r][col] / rows[rank][col]\n"
    "        rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]\n    rank += 1\nrank_S_lesson = rank\n",
    "M = [list(r) for r in (_Q @ _K.T).tolist()]\np = 0\nfor j in range(4):\n"
    "    best = max(range(p, len(M)), key=lambda i: abs(M[i][j]))\n    if abs(M[best][j]) < 1e-12:\n        continue\n"
    "    M[p], M[best] = M[best], M[p]\n    for i in range(p + 1, len(M) - 1):\n        ratio = M[i][j] / M[p][j]\n"
    "        for c in range(5):\n            M[i][c] -= ratio * M[p][c]\n    p += 1\nrank_S_lesson = p\n",
]


@pytest.mark.parametrize("line", _SHORT)
def test_elimination_skips_last_row_is_named(grader: Grader, line: str) -> None:
    failed = assert_named(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + line}), "elimination_skips_last_row", "q11")
    assert "stops before the last row" in failed[0][3], failed
    fixed = line.replace("range(rank + 1, n_rows - 1)", "range(rank + 1, n_rows)").replace(
        "range(p + 1, len(M) - 1)", "range(p + 1, len(M))")
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + fixed}))


@pytest.mark.parametrize("line", [
    "rank_S_lesson = len(torch.unique(_S, dim=0))\n",
    "_distinct = (_Q @ _K.T).unique(dim=0)\nrank_S_lesson = _distinct.shape[0]\n",
])
def test_rank_counted_as_unique_rows_is_named(grader: Grader, line: str) -> None:
    failed = assert_named(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + line}), "rank_counts_distinct_rows", "q11")
    assert "keeps one copy of each different row" in failed[0][3], failed
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + "rank_S_lesson = int(torch.linalg.matrix_rank(_S))\n"}))
    # a typed 3, with no count in the cell, is named by neither hand count
    failed = _graded(grader, {RANK: "max_rank_S = 8\nrank_S_lesson = 3\n"}).failed
    assert [q for q, _, _, _ in failed] == ["q11"], failed
    assert all(k not in ("elimination_skips_last_row", "rank_counts_distinct_rows") for _, _, k, _ in failed), failed


# --- q13 (borderline, said with its cause): the scores returned in the weights' place, O right ----------------------

@pytest.mark.parametrize("cell", [
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
    "    masked_scores = scaled_scores(Q, K)\n    if M is not None:\n        masked_scores = masked_scores + M\n"
    "    weights = attention_weights(masked_scores)\n    output = weights @ V\n    return output, masked_scores\n",
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    S = scaled_scores(X @ W_Q, Y @ W_K)\n"
    "    A = attention_weights(S, M)\n    return A @ (Y @ W_V), S if M is None else S + M\n",
])
def test_scores_returned_beside_right_output_says_so(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {"cross_attention": cell}), "no_softmax", "q13")
    assert all("but O is right" in m for q, _, _, m in failed if q == "q13"), failed
    assert_full_marks(_graded(grader, {"cross_attention": cell.replace("return output, masked_scores", "return output, weights").replace(
                            "S if M is None else S + M", "A")}))
