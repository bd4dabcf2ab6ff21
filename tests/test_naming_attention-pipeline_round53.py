"""attention-pipeline, naming round 53 (blind53's kinds).

q11: rank_S_lesson counted from the singular values (or the pivots on QR's diagonal) of the lesson's S that are not
exactly zero, with no tolerance (svdvals(S) != 0, > 0, count_nonzero(R.diagonal())): float64 round-off leaves one
value of about 1e-16, so the count is 3, not 2. Named rank_without_tolerance where the count replayed so on the
lesson's S is the student's and the cell that assigns it tests against exactly zero after a singular value or QR
decomposition; the one-edit search's `== 0` for `!= 0` (right by coincidence) is no longer offered. A count with a
tolerance, however small, or a 3 typed, keeps the generic message; matrix_rank or a fitting tolerance keeps full marks.

q07: self_attention that caches its mask in a dict keyed by T alone crashes on float16 input of a length an earlier
float32 call used (the float32 mask promotes A, and A @ V mixes dtypes). Named mask_cached_by_size where second calls
show it: at a fresh length float32 then float16 crashes the same way, while float16 first at another fresh length
runs and is right. Code that makes float32 on every call stays dtype_changed; a cache keyed by (T, dtype) keeps full
marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
SELF = "self_attention"
LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
          "dtype=torch.float64)\n"
          "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], "
          "dtype=torch.float64)\n")


_graded = graded_as("attention-pipeline", "round53")


# --- q11: a rank counted with no tolerance ------------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    # the singular values above exactly zero, through a name bound in the cell
    "max_rank_S = 8\n_s = torch.linalg.svdvals(_Q @ _K.T / math.sqrt(4))\nrank_S_lesson = int((_s > 0).sum().item())\n",
    # count_nonzero of the full SVD's S
    "max_rank_S = 8\n_U, _sv, _Vh = torch.linalg.svd(_Q @ _K.T)\nrank_S_lesson = int(torch.count_nonzero(_sv))\n",
    # QR's pivots, 0 written on the left
    "max_rank_S = 8\n_R = torch.linalg.qr(_Q @ _K.T).R\nrank_S_lesson = sum(1 for r in _R.diagonal() if 0 != r)\n",
])
def test_rank_without_tolerance_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_rank_S_lesson", "rank_without_tolerance")], failed
    assert "rank_S_lesson is 3, not 2" in failed[0][3] and "matrix_rank" in failed[0][3], failed
    assert "in place of" not in failed[0][3], failed      # no one-edit fix that is right by coincidence


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\n_s = torch.linalg.svdvals(_Q @ _K.T)\nrank_S_lesson = int((_s > _s.max() * 5 * 1e-15).sum())\n",
    "max_rank_S = 8\nrank_S_lesson = int(torch.linalg.matrix_rank(torch.linalg.qr(_Q @ _K.T).R))\n",
    "max_rank_S = 8\n_s = torch.linalg.svdvals(_Q @ _K.T)\nrank_S_lesson = int((_s > 1e-10).sum())\n",
])
def test_rank_with_a_tolerance_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + cell}))


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\nrank_S_lesson = 3\n",       # typed: no exact-zero count read
    # a tolerance too small for float32 (1e-13): one number cannot say it is no tolerance at all
    "max_rank_S = 8\n_s = torch.linalg.svdvals((_Q @ _K.T).float())\nrank_S_lesson = int((_s > 1e-13).sum())\n",
    # the same too-small tolerance, counted with count_nonzero: the comparison is a tolerance, not an exact zero
    "max_rank_S = 8\nrank_S_lesson = torch.count_nonzero(torch.linalg.svdvals((_Q @ _K.T).float()) > 1e-13).item()\n",
])
def test_three_without_an_exact_zero_test_is_not_told_so(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert all(k != "rank_without_tolerance" for _, _, k, _ in failed), failed


# --- q07: a mask cached by T alone, served in another dtype ---------------------------------------------------------

def _self(body: str) -> dict[str, str]:
    return {SELF: body}


CACHED_DICT = '''_CACHE = {}


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        n = X.shape[-2]
        M = _CACHE.get(n)
        if M is None:
            M = _CACHE[n] = causal_additive_mask(n, S.dtype, S.device)
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''

CACHED_ATTR = '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    masks = self_attention.__dict__.setdefault("masks", {})
    T = S.shape[-1]
    if causal and T not in masks:
        masks[T] = torch.full((T, T), float("-inf"), dtype=S.dtype).triu(1)
    A = attention_weights(S, masks[T] if causal else None)
    return A @ V, A
'''


@pytest.mark.parametrize("body", [CACHED_DICT, CACHED_ATTR])
def test_mask_cached_by_length_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, _self(body)))
    q07 = [(t, k, m) for q, t, k, m in failed if q == "q07"]
    assert q07 and all(k == "mask_cached_by_size" for _, k, _ in q07), failed
    assert all("(T, dtype, device)" in m for _, _, m in q07), failed


def test_mask_always_float32_stays_dtype_changed(grader: Grader) -> None:
    # no state: a float32 mask on every call fails float16 at any length, so no cache is claimed
    failed = assert_lost(_graded(grader, _self('''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(S.shape[-1], torch.float32, S.device)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''')))
    assert all(k != "mask_cached_by_size" for _, _, k, _ in failed), failed


@pytest.mark.parametrize("body", [
    CACHED_DICT.replace("n = X.shape[-2]", "n = (X.shape[-2], S.dtype, S.device)").replace(
        "causal_additive_mask(n,", "causal_additive_mask(n[0],"),
    CACHED_ATTR.replace("T not in masks", "(T, S.dtype) not in masks").replace("masks[T]", "masks[T, S.dtype]"),
])
def test_mask_cached_by_length_and_dtype_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, _self(body)))
