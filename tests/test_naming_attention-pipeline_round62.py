"""attention-pipeline, naming round 62 (blind62's kinds: conventions carried over from other sources).

q11: max_rank_S taken as d_model / h of the paper's base model (512 / 8 = 64), the question's d_k = 8 read as
h = 8 heads: named d_k_from_paper_heads where the answer is N / 8 and the cell that assigns it reaches a division
of a whole N by 8 (a literal or a name bound to 8; / or //, inside min(T, ...) or not). It was mis-named
rank_from_size_arithmetic ("d_k^2 (8 * 8)"), which a cell that squares d_k, or a bare 64, still gets.

q08: the weighted sum taken in log space, logsumexp(s + log V) - logsumexp(s): NaN in every column of V that holds
a negative value. Named nw_log_of_values where that replay is NaN at exactly the same entries, a second call with V
made positive returns the right row, and the def takes a log of V (torch.log(V), V.log()). A row NaN the same way
without a log of V (a square root squared) is not told so; the log-sum-exp trick on the weights keeps full marks.

q01: a head axis of size 1 kept in the projections (Flax's (..., T, heads, head_dim) with one head, an unsqueeze(-2)
or [..., None, :]): test_project_views now says size_one_axes_added as the other two tests do, never
keepdim_left_on (project_qkv reduces no axis).
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
NW = "nadaraya_watson"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)


_graded = graded_as("attention-pipeline", "round62")


# --- q11: d_k = d_model / h of the paper's base model ----------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    "d_model = 512\nheads = 8\nmax_rank_S = int(min(100, d_model / heads))\nrank_S_lesson = 2\n",
    "max_rank_S = 512 // 8   # d_k = d_model / h, as in the base model\nrank_S_lesson = 2\n",
    "_cfg_d, _cfg_h = 512, 8\n_head_dim = _cfg_d // _cfg_h\n_T = 100\nmax_rank_S = min(_T, _head_dim)\n"
    "rank_S_lesson = 2\n",
])
def test_d_k_from_paper_heads_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_max_rank_S", "d_k_from_paper_heads")], failed
    assert "max_rank_S is 64" in failed[0][3] and "= 512 / 8" in failed[0][3] and "min(T, d_k) = 8" in failed[0][3]


@pytest.mark.parametrize("cell", [
    "_d_k = 8\nmax_rank_S = _d_k * _d_k\nrank_S_lesson = 2\n",     # squares d_k: the size arithmetic
    "max_rank_S = 64\nrank_S_lesson = 2\n",                        # no division in the cell
])
def test_sixty_four_without_a_division_by_eight_stays_size_arithmetic(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q11", "rank_from_size_arithmetic")], failed


@pytest.mark.parametrize("cell", [
    "_d_model, _h = 64, 8\n_d_k = _d_model // _h\nmax_rank_S = min(100, _d_k)\nrank_S_lesson = 2\n",
    "d_k, T = 8, 100\nmax_rank_S = min(T, d_k)\nrank_S_lesson = 2\n",
])
def test_rank_bound_right_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {RANK: cell}))


# --- q08: the values taken into log space ----------------------------------------------------------------------------

LOG_V_METHOD = '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    log_w = s - torch.logsumexp(s, 0)
    return torch.exp(torch.logsumexp(log_w[:, None] + V.log(), dim=0))
'''
LOG_V_BOUND = '''def nadaraya_watson(q, K, V):
    logits = (K @ q) / q.shape[-1] ** 0.5
    lv = torch.log(V)
    return (torch.log_softmax(logits, 0).unsqueeze(1) + lv).logsumexp(0).exp()
'''


@pytest.mark.parametrize("body", [LOG_V_METHOD, LOG_V_BOUND])
def test_nw_log_of_values_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {NW: body}))
    assert failed and all((q, k) == ("q08", "nw_log_of_values") for q, _, k, _ in failed), failed
    assert len(failed) == 3, failed
    assert "exactly the columns of V that hold a negative value" in failed[0][3] and "softmax" in failed[0][3]


def test_nan_without_a_log_of_values_is_not_told_so(grader: Grader) -> None:
    # sqrt(V) ** 2 is NaN in the same columns and right on positive V, but takes no log: not this key
    body = '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    return (w[:, None] * V.sqrt() ** 2).sum(0)
'''
    failed = assert_lost(_graded(grader, {NW: body}))
    assert all(k != "nw_log_of_values" for _, _, k, _ in failed), failed


@pytest.mark.parametrize("body", [
    '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    return torch.exp(s - torch.logsumexp(s, dim=0)) @ V
''',
    '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    log_a = s - torch.log(torch.exp(s - s.max()).sum()) - s.max()
    return (log_a.exp()[:, None] * V).sum(0)
''',
])
def test_log_domain_weights_keep_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {NW: body}))


# --- q01: a head axis of size 1 added, not a reduced axis kept ---------------------------------------------------------

@pytest.mark.parametrize("body", [
    '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple((X @ W)[..., None, :] for W in (W_Q, W_K, W_V))
''',
    '''def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = (torch.unsqueeze(torch.matmul(X, W), -2) for W in (W_Q, W_K, W_V))
    return Q, K, V
''',
])
def test_head_axis_added_is_size_one_axes_added(grader: Grader, body: str) -> None:
    failed = [f for f in assert_lost(_graded(grader, {PROJ: body})) if f[0] == "q01"]
    assert {t for _, t, _, _ in failed} >= {"test_project_views"}, failed
    assert all(k == "size_one_axes_added" for _, _, k, _ in failed), failed


def test_projection_without_head_axis_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    return tuple(torch.einsum("...td,dk->...tk", X, W) for W in (W_Q, W_K, W_V))
'''}))
