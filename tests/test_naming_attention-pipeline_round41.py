"""attention-pipeline, naming round 41 (blind40's kinds): an additive mask multiplied by a large negative number
(TensorFlow's `mask * -1e9`) is mask_times_neg_1e9 where A is softmax(S + M * -1e9) (NaN where finfo.min * -1e9
overflows) and a tame mask (blocked -2) gives the blocked keys the weight, and a true row-mean shift keeps
softmax_subtracts_mean only where tame scores WITH a tame mask are right too; rank_S_lesson read off the attention
weights (matrix_rank of a softmax / attention_weights, the number A's rank) is rank_of_attention_weights, before any
one-edit repair; a fused K/V projection cut into two halves (chunk(2), tensor_split(2), [: n // 2]) is
fused_kv_equal_halves where the crash goes away with d_v = d_k and a W_Q as wide as a half gives exactly the halves'
cross-attention; a count one too many without W_O (math.prod(()), np.prod([]), torch.Size([]).numel() = 1), right
with it, on the test's sizes and (9, 5, 3), is param_count_empty_term_one; rows of unit Euclidean length
(F.normalize's default p=2) are prefix_average_unit_length_rows. Each kind: two wrong variants of my own, a correct
one at full marks, and a near miss that keeps another name (or none)."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.grading.checks import Misconception
from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming41__diagnose")


WEIGHTS, RANK, PARAMS, CROSS, AVG = ("attention_weights", "max_rank_S", "qkv_param_count", "cross_attention",
                                    "prefix_average_matrix")
WHERE_WEIGHTS = {"q05", "q07", "q09", "q10", "q13"}

LESSON = '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                        dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                        dtype=torch.float64)
max_rank_S = 8
'''


_graded = graded_as("attention-pipeline", "round41")


# --- the additive mask multiplied by -1e9 (TensorFlow's 0/1 idiom) ----------------------------------------------

@pytest.mark.parametrize("body", [
    "    Z = S if M is None else S - 1e9 * M      # blocked logits far down\n    return Z.softmax(dim=-1)\n",
    "    if M is not None:\n        S = S.add(M.mul(-1e4))\n    return torch.nn.functional.softmax(S, dim=-1)\n",
    "    logits = S + (M * -1e9 if M is not None else 0.0)\n    return torch.softmax(logits, -1)\n",
])
def test_mask_times_neg_1e9_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n" + body}), "mask_times_neg_1e9", WHERE_WEIGHTS)


def test_mask_added_as_is_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    logits = S if M is None else S + M\n"
                                                "    return torch.nn.functional.softmax(logits, dim=-1)\n"}))


def test_row_mean_shift_keeps_its_own_name(grader: Grader) -> None:
    # the row mean subtracted for the maximum: NaN where a finfo.min entry widens the row, right on tame scores with
    # a tame mask: softmax_subtracts_mean, never the mask scaled
    keys = failed_keys(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
                                                 "    e = torch.exp(Z - Z.mean(dim=-1, keepdim=True))\n"
                                                 "    return e / e.sum(dim=-1, keepdim=True)\n"}))
    assert "mask_times_neg_1e9" not in keys and "softmax_subtracts_mean" in keys, keys


# --- the rank of the attention weights for the rank of S ---------------------------------------------------------

@pytest.mark.parametrize("tail", [
    # the causal weights built by hand: rank T = 5
    "_S = Q_lesson @ K_lesson.T / 2.0\n_future = torch.triu(torch.full((5, 5), -1e9, dtype=torch.float64), 1)\n"
    "rank_S_lesson = int(torch.linalg.matrix_rank(torch.softmax(_S + _future, dim=-1)))\n",
    # the weights without a mask: rank 3 (three distinct queries), read off the softmax all the same
    "_weights = scaled_scores(Q_lesson, K_lesson).softmax(dim=-1)\nrank_S_lesson = torch.linalg.matrix_rank(_weights).item()\n",
])
def test_rank_of_attention_weights_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {RANK: LESSON + tail}), "rank_of_attention_weights", {"q11"})


def test_rank_of_scores_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + "_S = scaled_scores(Q_lesson, K_lesson)\n"
                                                      "rank_S_lesson = int(torch.linalg.matrix_rank(_S))\n"}))


def test_rank_of_masked_scores_is_not_named_weights(grader: Grader) -> None:
    # S + M with the lesson's -1e9 mask has rank 5 too, but no softmax is measured: not the weights' key
    keys = failed_keys(_graded(grader, {RANK: LESSON + "_S = scaled_scores(Q_lesson, K_lesson)\n"
                                                       "_M = torch.triu(torch.full((5, 5), -1e9, dtype=torch.float64), 1)\n"
                                                       "rank_S_lesson = int(torch.linalg.matrix_rank(_S + _M))\n"}))
    assert "rank_of_attention_weights" not in keys, keys


def test_rank_of_softmax_of_queries_alone_is_not_named_weights(grader: Grader) -> None:
    # softmax(Q_lesson) has rank 3, the unmasked A's rank by coincidence: the softmax does not read the scores
    keys = failed_keys(_graded(grader, {RANK: LESSON + "rank_S_lesson = int(torch.linalg.matrix_rank(torch.softmax(Q_lesson, dim=-1)))\n"}))
    assert "rank_of_attention_weights" not in keys, keys


def test_mean_shift_not_named_where_the_mask_is_mishandled() -> None:
    # blind40's mis-name: `S + M * -1e9` is right on tame scores without a mask, NaN where the mean shift is NaN too;
    # the mean shift must also be right with a tame mask, so only the mask's own key is raised
    g = torch.Generator().manual_seed(41)
    S = torch.randn(4, 6, dtype=torch.float64, generator=g)
    M = torch.zeros(4, 6, dtype=torch.float64)
    M[:, 4:] = torch.finfo(torch.float64).min

    def tf_mask(S_: torch.Tensor, M_: Any = None) -> torch.Tensor:
        return torch.softmax(S_ if M_ is None else S_ + M_ * -1e9, dim=-1)

    D.raise_if_mean_shift(tf_mask, S, M)   # names nothing
    with pytest.raises(Misconception) as named:
        D.raise_if_mask_scaled(tf_mask, S, M)
    assert named.value.key == "mask_times_neg_1e9"

    def mean_shift(S_: torch.Tensor, M_: Any = None) -> torch.Tensor:
        Z = S_ if M_ is None else S_ + M_
        e = torch.exp(Z - Z.mean(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    D.raise_if_mask_scaled(mean_shift, S, M)   # names nothing
    with pytest.raises(Misconception) as named:
        D.raise_if_mean_shift(mean_shift, S, M)
    assert named.value.key == "softmax_subtracts_mean"


# --- a fused key/value projection cut into two halves --------------------------------------------------------------

CROSS_HEAD = "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q = X @ W_Q\n"
CROSS_TAIL = "    A = attention_weights(scaled_scores(Q, K), M)\n    return A @ V, A\n"


@pytest.mark.parametrize("split", [
    "    KV = Y @ torch.cat([W_K, W_V], dim=1)\n    K, V = KV.tensor_split(2, dim=-1)\n",
    "    KV = torch.cat([Y @ W_K, Y @ W_V], -1)\n    half = KV.shape[-1] // 2\n    K, V = KV[..., :half], KV[..., half:]\n",
    "    K, V = torch.chunk(torch.matmul(Y, torch.hstack([W_K, W_V])), 2, -1)\n",
])
def test_fused_kv_equal_halves_is_named(grader: Grader, split: str) -> None:
    assert_named(_graded(grader, {CROSS: CROSS_HEAD + split + CROSS_TAIL}), "fused_kv_equal_halves", {"q13"})


def test_fused_kv_split_at_widths_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {CROSS: CROSS_HEAD + "    K, V = (Y @ torch.cat([W_K, W_V], -1)).split("
                                                           "[W_K.shape[-1], W_V.shape[-1]], dim=-1)\n" + CROSS_TAIL}))


def test_values_projected_with_keys_is_not_named_halves(grader: Grader) -> None:
    # V = Y @ W_K (W_K where W_V belongs) runs on every shape: no crash, never the halves' key
    keys = failed_keys(_graded(grader, {CROSS: CROSS_HEAD + "    K, V = Y @ W_K, Y @ W_K\n" + CROSS_TAIL}))
    assert "fused_kv_equal_halves" not in keys, keys


# --- the empty product for the missing W_O ---------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    "import numpy as np\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
    "    out_shape = (d_v, d_model) if with_output else []\n"
    "    return int(sum(np.prod(s) for s in [(d_model, 2 * d_k + d_v), out_shape]))\n",
    "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
    "    n = torch.Size([d_model, 2 * d_k + d_v]).numel()\n"
    "    return n + torch.Size([d_v, d_model] if with_output else []).numel()\n",
])
def test_param_count_empty_term_one_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {PARAMS: cell}), "param_count_empty_term_one", {"q12"})


def test_param_count_guarded_prod_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: "import math\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                               "    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]\n"
                                               "    if with_output:\n        shapes.append((d_v, d_model))\n"
                                               "    return sum(math.prod(s) for s in shapes)\n"}))


def test_one_too_many_with_output_too_is_not_named_empty_term(grader: Grader) -> None:
    # one extra parameter with and without W_O: not the empty product's key
    keys = failed_keys(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                                "    return d_model * (2 * d_k + d_v) + 1 + (d_v * d_model if with_output else 0)\n"}))
    assert "param_count_empty_term_one" not in keys, keys


# --- rows of unit Euclidean length for rows that sum to 1 --------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "    W = torch.ones(T, T, dtype=torch.float64).tril()\n    return W / W.norm(dim=1, keepdim=True)\n",
    "    W = torch.tril(torch.ones(T, T, dtype=torch.float64))\n"
    "    return W / torch.linalg.vector_norm(W, dim=-1, keepdim=True)\n",
    "    return torch.nn.functional.normalize(torch.ones(T, T, dtype=torch.float64).tril(), p=2, dim=1)\n",
])
def test_prefix_average_unit_length_rows_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {AVG: "def prefix_average_matrix(T):\n" + body}), "prefix_average_unit_length_rows", {"q09", "q10"})


def test_prefix_average_p1_normalize_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {AVG: "def prefix_average_matrix(T):\n"
                                            "    return torch.nn.functional.normalize(torch.ones(T, T, dtype=torch.float64).tril(), p=1,"
                                            " dim=-1)\n"}))
