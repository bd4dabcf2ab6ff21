"""attention-pipeline, naming round 58 (blind58's kinds: a statement read in another convention).

q05: the additive mask converted once more as a 1/0 keep mask (Hugging Face's extended-mask step, S + (1 - M) *
finfo.min, or its entries where 1 - M is not 0 filled with finfo.min): the open keys all get the same weight, which
uniform_weights used to say (the scores ignored). Named additive_mask_as_boolean where a second call on the same S and
M gives what that conversion gives, replayed in S's dtype, and a third, with a 1/0 keep mask, gives the softmax over
its 1 entries; weights that really ignore the scores stay uniform_weights, and S + M keeps full marks.

q01: a batched (B, T, d_model) X moved to nn.MultiheadAttention's sequence-first (T, B, d_model) before projecting:
projection_sequence_first, where Q, K, V are all the right ones with axes 0 and 1 exchanged (replayed) and
project_qkv exchanges axes 0 and 1 (transpose(0, 1), permute(1, 0, 2), swapaxes). A swap undone keeps full marks.

q02: S = Q^T K, the column-vector formula on row-stored Q and K (a d_k x d_k matrix; a crash where T_q != T_k):
scores_queries_transposed, where a call with as many keys as queries gives exactly Q^T K / sqrt(d_k) (replayed) and
scaled_scores transposes its first parameter. (K Q^T)^T, the transpose on Q but the right scores, keeps full marks.

q08: the kernel scaled by the query's own length, exp(k . q / |q|): scale_by_query_norm, by replay. The right scale
written from q's size keeps full marks.

q09: the lesson's 1-based numbering kept as storage, a (T+1) x (T+1) matrix whose row and column 0 are unused:
prefix_average_one_based, by replay (row and column 0 zero, the rest the right matrix).
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
SCORES = "scaled_scores"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"


_graded = graded_as("attention-pipeline", "round58")


# --- q05: the additive mask converted again as a 1/0 keep mask --------------------------------------------------------

@pytest.mark.parametrize("body", [
    # Hugging Face's get_extended_attention_mask step, on a mask that is already additive
    '''def attention_weights(S, M=None):
    if M is not None:
        S = S + (1.0 - M) * torch.finfo(S.dtype).min
    return torch.softmax(S, dim=-1)
''',
    # the same conversion through a named bias and a hand-written, max-shifted softmax
    '''def attention_weights(S, M=None):
    if M is None:
        Z = S
    else:
        bias = (1 - M.to(S.dtype)) * torch.finfo(S.dtype).min
        Z = S + bias
    E = torch.exp(Z - Z.amax(dim=-1, keepdim=True))
    return E / E.sum(dim=-1, keepdim=True)
''',
    # the entries where 1 - M is not 0 filled with finfo.min (masked_fill of the inverted mask)
    '''def attention_weights(S, M=None):
    if M is not None:
        inverted = 1.0 - M
        S = S.masked_fill(inverted.bool(), torch.finfo(S.dtype).min)
    return torch.softmax(S, dim=-1)
''',
    # torch.where on the inverted mask
    '''def attention_weights(S, M=None):
    if M is None:
        return torch.softmax(S, dim=-1)
    neg = torch.finfo(S.dtype).min
    Z = torch.where((1 - M) > 0, torch.full_like(S, neg), S)
    return torch.nn.functional.softmax(Z, dim=-1)
''',
])
def test_mask_converted_again_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {WEIGHTS: body}))
    q05 = [(t, k) for q, t, k, _ in failed if q == "q05"]
    assert len(q05) == 4 and all(k == "additive_mask_as_boolean" for _, k in q05), failed
    assert all(k != "uniform_weights" for _, _, k, _ in failed), failed
    assert all("1/0 keep mask" in said and "S + M" in said for q, _, _, said in failed if q == "q05"), failed


def test_weights_that_ignore_the_scores_stay_uniform_weights(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {WEIGHTS: '''def attention_weights(S, M=None):
    Z = torch.zeros_like(S) if M is None else torch.zeros_like(S) + M
    return torch.softmax(Z, dim=-1)
'''}))
    keys = {k for q, _, k, _ in failed if q == "q05"}
    assert keys == {"uniform_weights"}, failed


@pytest.mark.parametrize("body", [
    '''def attention_weights(S, M=None):
    return torch.softmax(S if M is None else S + M, dim=-1)
''',
    # a boolean keep mask converted, an additive one added as it is
    '''def attention_weights(S, M=None):
    if M is not None and M.dtype == torch.bool:
        M = (~M).to(S.dtype) * torch.finfo(S.dtype).min
    Z = S if M is None else S + M
    return torch.softmax(Z, dim=-1)
''',
])
def test_mask_added_as_it_is_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: body}))


# --- q01: a batched input moved to sequence-first before projecting ---------------------------------------------------

@pytest.mark.parametrize("body, quote", [
    ('''def project_qkv(X, W_Q, W_K, W_V):
    if X.dim() == 3:
        X = X.transpose(0, 1)        # (B, T, d_model) -> (T, B, d_model), as nn.MultiheadAttention wants
    return X @ W_Q, X @ W_K, X @ W_V
''', "X.transpose(0, 1)"),
    ('''def project_qkv(X, W_Q, W_K, W_V):
    if X.ndim == 3:
        X = X.permute(1, 0, 2)   # seq-first
    Q = torch.matmul(X, W_Q)
    K = torch.matmul(X, W_K)
    V = torch.matmul(X, W_V)
    return Q, K, V
''', "X.permute(1, 0, 2)"),
    ('''def project_qkv(X, W_Q, W_K, W_V):
    outs = []
    for W in (W_Q, W_K, W_V):
        Y = X @ W
        if Y.dim() == 3:
            Y = torch.swapaxes(Y, 0, 1)   # (T, B, d) for nn.MultiheadAttention
        outs.append(Y)
    return tuple(outs)
''', "torch.swapaxes(Y, 0, 1)"),
])
def test_sequence_first_projection_is_named(grader: Grader, body: str, quote: str) -> None:
    failed = assert_lost(_graded(grader, {PROJ: body}))
    q01 = [(t, k) for q, t, k, _ in failed if q == "q01"]
    assert q01 == [("test_project_views", "projection_sequence_first")], failed
    said = next(s for q, _, _, s in failed if q == "q01")
    assert quote in said and "batch and token axes exchanged" in said, failed


def test_a_swap_undone_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    if X.dim() == 3:
        Xs = X.transpose(0, 1)                       # (T, B, d_model)
        return tuple((Xs @ W).transpose(0, 1) for W in (W_Q, W_K, W_V))
    return X @ W_Q, X @ W_K, X @ W_V
'''}))


# --- q02: S = Q^T K on row-stored Q and K -----------------------------------------------------------------------------

@pytest.mark.parametrize("body, quote", [
    ('''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return Q.transpose(-2, -1) @ K / math.sqrt(d_k)       # S = Q^T K / sqrt(d_k)
''', "Q.transpose(-2, -1)"),
    ('''def scaled_scores(Q, K):
    scores = torch.matmul(Q.mT, K)     # column convention
    return scores / (K.size(-1) ** 0.5)
''', "Q.mT"),
    ('''def scaled_scores(queries, keys):
    dk = queries.shape[-1]
    qt = torch.transpose(queries, -1, -2)
    return (qt @ keys) * (1.0 / math.sqrt(dk))
''', "torch.transpose(queries, -1, -2)"),
])
def test_column_convention_scores_are_named(grader: Grader, body: str, quote: str) -> None:
    failed = assert_lost(_graded(grader, {SCORES: body}))
    q02 = [(t, k) for q, t, k, _ in failed if q == "q02"]
    assert len(q02) == 4 and all(k == "scores_queries_transposed" for _, k in q02), failed
    assert all(quote in s and "Q^T K / sqrt(d_k)" in s for q, _, _, s in failed if q == "q02"), failed


def test_the_transpose_on_q_with_the_right_scores_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCORES: '''def scaled_scores(Q, K):
    return (K @ Q.transpose(-2, -1)).transpose(-2, -1) / math.sqrt(Q.shape[-1])
'''}))


# --- q08: the kernel scaled by the query's length ---------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / q.norm())           # |q| is about sqrt(d_k)
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()
''',
    '''def nadaraya_watson(q, K, V):
    length = torch.linalg.vector_norm(q)
    w = torch.softmax((K @ q) / length, dim=0)
    return w @ V
''',
    '''def nadaraya_watson(q, K, V):
    scale = torch.sqrt((q * q).sum())
    s = K @ q / scale
    w = torch.exp(s - s.max())
    return (w[:, None] * V).sum(0) / w.sum()
''',
])
def test_kernel_scaled_by_query_norm_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {NW: body}))
    assert {(q, k) for q, _, k, _ in failed} == {("q08", "scale_by_query_norm")}, failed


@pytest.mark.parametrize("body", [
    '''def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / q.numel() ** 0.5, dim=0)
    return w @ V
''',
    '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(len(q))
    kappa = torch.exp(s - s.max())
    return (kappa[:, None] * V).sum(0) / kappa.sum()
''',
])
def test_kernel_scaled_by_sqrt_d_k_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {NW: body}))


# --- q09: 1-based rows and columns kept as storage --------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    '''def prefix_average_matrix(T):
    W = torch.zeros(T + 1, T + 1, dtype=torch.float64)     # index 0 unused: rows and columns from 1
    for t in range(1, T + 1):
        W[t, 1:t + 1] = 1.0 / t
    return W
''',
    '''def prefix_average_matrix(T):
    # rows and columns numbered 1..T as in the lesson
    n = torch.arange(0, T + 1, dtype=torch.float64)
    W = (n[None, :] <= n[:, None]).double() * (n[None, :] >= 1)
    return W / n[:, None].clamp(min=1)
''',
])
def test_one_based_storage_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {AVG: body}))
    q09 = [(t, k) for q, t, k, _ in failed if q == "q09"]
    assert q09 == [("test_prefix_average_matrix", "prefix_average_one_based")], failed


def test_prefix_average_counted_from_zero_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {AVG: '''def prefix_average_matrix(T):
    W = torch.zeros(T, T, dtype=torch.float64)
    for t in range(T):
        W[t, :t + 1] = 1.0 / (t + 1)
    return W
'''}))
