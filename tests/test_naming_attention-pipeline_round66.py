"""attention-pipeline, naming round 66 (blind66's kinds: right in the middle, wrong at the edges).

q05: the row maximum taken over S before the mask is added (S - S.amax(-1), then + M): a row whose keys are all
blocked is 0 / 0 = NaN. Named softmax_max_before_mask where A is NaN exactly where that softmax, replayed, is, and a
second call on rows 1000 apart (key 0 open in each) is right there; one maximum over the whole tensor gives NaN rows
on that call and stays global_max_subtraction (the key no longer fits code that takes each row's own maximum).

q02: K reshaped with the query length T (and S to T x T): right only when T_q == T_k. Named
keys_reshaped_with_query_length on a reshape / bmm size crash where the def reshapes K with a name bound to Q's
length (or Q.shape[-2] itself) AND a second call with T_q keys is right. Reshaping K with its own length keeps full
marks.

q11: rank_S_lesson counted as the keys whose score column is not all zero (3 on the lesson's S, rank 2): named
rank_counts_nonzero_columns only where the value is that count AND the answer's cell reduces S over the query axis
(sum / any over dim 0); a typed 3 is not named so.

q01: a real batch of one, X (1, T, d_model), added to test_project_batched_float32 (the notebook: X is (..., T,
d_model)); squeeze(0) run whether or not the axis was added drops it: batch_of_one_squeezed where Q, K, V are the right
values without the batch axis and the def squeezes axis 0. Squeezing only the axis it added keeps full marks.

q04: causal_additive_mask(1, float64) added to test_mask_pattern (the notebook: a (T, T) tensor of that dtype); a
one-token shortcut torch.zeros(1, 1) is float32: one_token_mask_dtype where [[0]] comes back in another dtype and T = 2
and T = 5 are right in the dtype asked. A shortcut with dtype= keeps full marks.

q09: prefix_average_matrix(1) added to test_prefix_average_matrix (the notebook: a T x T matrix; the lesson's table
starts at t = 1); squeeze() with no axis gives a 0-d tensor: prefix_average_squeezed where the value is 1 with fewer
than two axes and the def calls squeeze without an axis. squeeze(1) keeps full marks.

Left (not added): q10's float16 zero weights (variants.py's correct entropy_epsilon_in_log, the lesson's 1e-9 recipe,
is NaN there) and q12's truthy flags (the notebook names with_output a flag with default False, not which values).
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


PROJ = "project_qkv"
SCORES = "scaled_scores"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
AVG = "prefix_average_matrix"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)


_graded = graded_as("attention-pipeline", "round66")


# --- q05: the row maximum of S taken before the mask is added -----------------------------------------------------

@pytest.mark.parametrize("body", [
    "def attention_weights(S, M=None):\n    Z = S - S.max(dim=-1, keepdim=True).values\n    if M is not None:\n"
    "        Z = Z + M\n    E = Z.exp()\n    return E / E.sum(-1, keepdim=True)\n",
    "def attention_weights(S, M=None):\n    shifted = S - torch.max(S, dim=-1, keepdim=True)[0]\n"
    "    e = torch.exp(shifted + (0 if M is None else M))\n    return e / e.sum(dim=-1, keepdim=True)\n",
])
def test_row_max_before_mask_is_named(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {WEIGHTS: body}), "softmax_max_before_mask", "q05")
    assert all("subtract each row's own maximum" not in m for _, _, _, m in failed), failed
    # the neighbour: the maximum of S + M, each row's own, is right
    assert_full_marks(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
                                                "    E = torch.exp(Z - Z.amax(dim=-1, keepdim=True))\n    return E / E.sum(-1,"
                                                " keepdim=True)\n"}))
    # one maximum over the whole tensor stays global_max_subtraction: the second call on rows 1000 apart tells them
    glob = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n    E = torch.exp(Z - Z.max())\n"
            "    return E / E.sum(-1, keepdim=True)\n")
    keys = {k for q, _, k, _ in _graded(grader, {WEIGHTS: glob}).failed if q == "q05"}
    assert "global_max_subtraction" in keys and "softmax_max_before_mask" not in keys, keys



# --- q02: K reshaped with the query length --------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "def scaled_scores(Q, K):\n    T = Q.size(-2)\n    d_k = Q.size(-1)\n    Qb = Q.reshape(-1, T, d_k)\n"
    "    Kb = K.reshape(-1, T, d_k)\n    S = Qb @ Kb.transpose(-2, -1) / d_k ** 0.5\n"
    "    return S.reshape(*Q.shape[:-2], T, T)\n",
    "def scaled_scores(Q, K):\n    *lead, n, d = Q.shape\n"
    "    S = torch.bmm(Q.reshape(-1, n, d), K.reshape(-1, Q.shape[-2], d).transpose(1, 2)) / math.sqrt(d)\n"
    "    return S.reshape(*lead, n, n)\n",
])
def test_keys_reshaped_with_query_length_is_named(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {SCORES: body}), "keys_reshaped_with_query_length", "q02")
    assert all("with its own length" in m for _, _, _, m in failed), failed
    assert_full_marks(_graded(grader, {SCORES: "def scaled_scores(Q, K):\n    *lead, T_q, d_k = Q.shape\n    T_k = K.shape[-2]\n"
                                               "    S = torch.bmm(Q.reshape(-1, T_q, d_k), K.reshape(-1, T_k, d_k).transpose(1, 2))\n"
                                               "    return S.reshape(*lead, T_q, T_k) / math.sqrt(d_k)\n"}))


# --- q11: the keys with a non-zero score column counted as the rank -------------------------------------------------

_LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
           "dtype=torch.float64)\n_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], "
           "[0.5, 0.5, 0, 0]], dtype=torch.float64)\n_S = _Q @ _K.T / 2\n")


@pytest.mark.parametrize("line", [
    "keys_hit = (_S != 0).any(dim=0)\nrank_S_lesson = int(keys_hit.sum())\n",
    "rank_S_lesson = int(torch.count_nonzero(_S.abs().amax(0)))\n",
])
def test_nonzero_key_columns_counted_is_named(grader: Grader, line: str) -> None:
    failed = assert_named(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + line}), "rank_counts_nonzero_columns", "q11")
    assert "keys with a non-zero score column" in failed[0][3], failed
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + "rank_S_lesson = int(torch.linalg.matrix_rank(_S))\n"}))
    # a typed 3, with no count of columns in the cell, is not named so
    typed = _graded(grader, {RANK: "max_rank_S = 8\nrank_S_lesson = 3\n"}).failed
    assert [q for q, _, _, _ in typed] == ["q11"] and all(k != "rank_counts_nonzero_columns" for _, _, k, _ in typed), typed



# --- q01: a real batch of one squeezed ----------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "def project_qkv(X, W_Q, W_K, W_V):\n    if X.ndim == 2:\n        X = X[None]\n"
    "    return tuple(t.squeeze(dim=0) for t in (X @ W_Q, X @ W_K, X @ W_V))\n",
    "def project_qkv(X, W_Q, W_K, W_V):\n    Xb = X.unsqueeze(0) if X.dim() == 2 else X\n"
    "    Q, K, V = (torch.matmul(Xb, W) for W in (W_Q, W_K, W_V))\n"
    "    return torch.squeeze(Q, 0), torch.squeeze(K, 0), torch.squeeze(V, 0)\n",
])
def test_batch_of_one_squeezed_is_named(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {PROJ: body}), "batch_of_one_squeezed", "q01")
    assert "for a batch of one" in failed[0][3], failed
    assert_full_marks(_graded(grader, {PROJ: "def project_qkv(X, W_Q, W_K, W_V):\n    unbatched = X.dim() == 2\n    if unbatched:\n"
                                             "        X = X.unsqueeze(0)\n    out = (X @ W_Q, X @ W_K, X @ W_V)\n"
                                             "    return tuple(t.squeeze(0) for t in out) if unbatched else out\n"}))


# --- q04: a one-token mask built without dtype= ---------------------------------------------------------------------

@pytest.mark.parametrize("shortcut", [
    "    if T == 1:\n        return torch.zeros(1, 1)\n",
    "    if T < 2:\n        return torch.tensor([[0.0]], device=device)\n",
])
def test_one_token_mask_dtype_is_named(grader: Grader, shortcut: str) -> None:
    general = ("    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)\n"
               "    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)\n")
    head = "def causal_additive_mask(T, dtype, device=None):\n"
    failed = assert_named(_graded(grader, {MASK: head + shortcut + general}), "one_token_mask_dtype", "q04")
    assert "causal_additive_mask(1, torch.float64)" in failed[0][3], failed
    assert_full_marks(_graded(grader, {MASK: head + "    if T == 1:\n"
                                                    "        return torch.zeros(1, 1, dtype=dtype, device=device)\n" + general}))


# --- q09: squeeze() with no axis on the stacked rows -----------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "def prefix_average_matrix(T):\n    L = torch.tril(torch.ones(T, T, dtype=torch.float64))\n"
    "    rows = [L[t:t + 1] / (t + 1) for t in range(T)]\n    return torch.squeeze(torch.stack(rows))\n",
    "def prefix_average_matrix(T):\n    rows = []\n    for t in range(1, T + 1):\n"
    "        r = torch.zeros(1, T, dtype=torch.float64)\n        r[0, :t] = 1.0 / t\n        rows.append(r)\n"
    "    return torch.stack(rows, dim=0).squeeze()\n",
])
def test_prefix_average_squeezed_is_named(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {AVG: body}), "prefix_average_squeezed", "q09")
    assert "prefix_average_matrix(1) has shape ()" in failed[0][3], failed
    assert_full_marks(_graded(grader, {AVG: body.replace("torch.squeeze(torch.stack(rows))", "torch.stack(rows).squeeze(1)")
                                       .replace("torch.stack(rows, dim=0).squeeze()", "torch.stack(rows, dim=0).squeeze(1)")}))
