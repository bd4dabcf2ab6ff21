"""attention-pipeline, naming round 70 (blind70's kinds: code an AI assistant wrote, fluent with one confident wrong detail).

q01: project_qkv returns Q already multiplied by 1/sqrt(d_k) (or 1/d_k), the softmax scale "folded into the query
projection", with K and V plain. Named query_prescaled where (Q, K, V) together match that replay. Before, Q alone
matched the Q of inputs_scaled_before_projection (X scaled before projecting), which was named though K and V are
right: MIS-NAMED. X scaled is now judged on all three results only (and is still named so); plain products keep full
marks.

q08: nadaraya_watson's scale written `d_k ** -1 / 2`, which Python reads as (d_k ** -1) / 2: the kernel
exp(q.k / (2 d_k)). Named sqrt_precedence where the row matches that replay (sqrt_precedence/times). Before: generic.
`d_k ** -0.5` and `d_k ** (-1 / 2)` keep full marks.

q13: cross_attention turns the additive mask into -inf (masked_fill(M != 0, -inf), torch.where(M != 0, -inf, S)): a
query whose keys are all blocked becomes NaN, where the notebook's finfo.min added stays finite and uniform. q13's
padding test now blocks every key of one query (the notebook, section 3, says that row stays finite). Named
mask_filled_with_inf where O and A are NaN on exactly that row and right elsewhere AND a second call with the blocked
entries at -5 gives those keys no weight at all (what -inf gives, not -5 added). Before: full marks (not caught). The
notebook's S + M and masked_fill with finfo.min keep full marks; an unguarded exp(S + M) / sum, NaN on that row too
but adding -5 as it is, is not given this name. Only finiteness is asked of that row (exp(Z - logsumexp(Z)) gives it
ones in float32, and the variants hold that softmax right); a NaN there with no such evidence fails unnamed.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


PROJ = "project_qkv"
NW = "nadaraya_watson"
CROSS = "cross_attention"


_graded = graded_as("attention-pipeline", "round70")


# --- q01: Q returned already scaled -----------------------------------------------------------------------------------

_Q01 = [
    "def project_qkv(X, W_Q, W_K, W_V):\n    d_k = W_Q.shape[-1]\n"
    "    return torch.matmul(X, W_Q) / math.sqrt(d_k), torch.matmul(X, W_K), torch.matmul(X, W_V)\n",
    "def project_qkv(X, W_Q, W_K, W_V):\n    inv = 1.0 / W_Q.size(-1) ** 0.5\n    Q = X @ W_Q\n    Q = Q * inv\n"
    "    K = X @ W_K\n    V = X @ W_V\n    return Q, K, V\n",
    "def project_qkv(X, W_Q, W_K, W_V):\n    Q = (X @ W_Q) / W_Q.shape[1]\n    return Q, X @ W_K, X @ W_V\n",
]


@pytest.mark.parametrize("cell", _Q01)
def test_query_prescaled_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {PROJ: cell}), "query_prescaled", "q01")
    assert all("folded into the query projection" in m for q, _, _, m in failed), failed


def test_plain_projections_and_x_scaled_keep_their_outcomes(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PROJ: "def project_qkv(X, W_Q, W_K, W_V):\n"
                                             "    return torch.matmul(X, W_Q), torch.matmul(X, W_K), torch.matmul(X, W_V)\n"}))
    # X itself scaled before projecting: all three too small, still inputs_scaled_before_projection
    scaled = ("def project_qkv(X, W_Q, W_K, W_V):\n    X = X / math.sqrt(W_Q.shape[-1])\n"
              "    return X @ W_Q, X @ W_K, X @ W_V\n")
    assert_named(_graded(grader, {PROJ: scaled}), "inputs_scaled_before_projection", "q01")


# --- q08: d_k ** -1 / 2 -----------------------------------------------------------------------------------------------

_Q08 = [
    "def nadaraya_watson(q, K, V):\n    d_k = q.shape[-1]\n    logits = (K @ q) * d_k ** -1/2\n"
    "    w = torch.exp(logits)\n    return (w[:, None] * V).sum(0) / w.sum()\n",
    "def nadaraya_watson(q, K, V):\n    w = torch.softmax(torch.mv(K, q) * q.numel() ** -1 / 2, dim=0)\n    return w @ V\n",
]


@pytest.mark.parametrize("cell", _Q08)
def test_power_minus_one_over_two_is_sqrt_precedence(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {NW: cell}), "sqrt_precedence", "q08")


@pytest.mark.parametrize("power", ["** -0.5", "** (-1 / 2)"])
def test_inverse_root_written_right_keeps_full_marks(grader: Grader, power: str) -> None:
    assert_full_marks(_graded(grader, {NW: _Q08[0].replace("** -1/2", power)}))


# --- q13: the mask turned into -inf -----------------------------------------------------------------------------------

_HEAD = ("def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
         "    S = scaled_scores(Q, K)\n    if M is not None:\n")
_TAIL = "    A = torch.softmax(S, dim=-1)\n    return A @ V, A\n"
_Q13 = [
    _HEAD + "        S = torch.where(M != 0, torch.full_like(S, float('-inf')), S)\n" + _TAIL,
    _HEAD + "        S = S.masked_fill(M < 0, -math.inf)\n" + _TAIL,
]


@pytest.mark.parametrize("cell", _Q13)
def test_mask_turned_into_inf_is_named_on_a_fully_blocked_query(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {CROSS: cell}), "mask_filled_with_inf", "q13", tests=1)
    assert all("blocks entirely" in m for _, _, _, m in failed), failed


@pytest.mark.parametrize("line", ["        S = S + M\n", "        S = S.masked_fill(M != 0, torch.finfo(S.dtype).min)\n"])
def test_finite_mask_keeps_full_marks(grader: Grader, line: str) -> None:
    assert_full_marks(_graded(grader, {CROSS: _HEAD + line + _TAIL}))


def test_unguarded_exp_is_not_called_the_mask_turned_into_inf(grader: Grader) -> None:
    # exp(S + M) / sum: 0 / 0 on the fully blocked row as well, but a mask of -5 is added as it is
    cell = (_HEAD + "        S = S + M\n    E = torch.exp(S)\n    A = E / E.sum(dim=-1, keepdim=True)\n"
            "    return A @ V, A\n")
    assert "mask_filled_with_inf" not in failed_keys(_graded(grader, {CROSS: cell}))
