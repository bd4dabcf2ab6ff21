"""attention-pipeline, naming round 54 (blind54's kinds).

Letter questions (q03, q06, q14, q15, q16): the letter right after the last option ('e' for a..d) counted out by the
answer's binding (chr(ord("a") + 4), "abcde"[4], string.ascii_lowercase[len(...)]) is named
answer_letter_past_last_option, the key and text scaled-attention has (shared keys match across assignments). A
literal 'e' says nothing of a count and stays generic; the right count keeps full marks.

q11: rank_S_lesson taken as the nuclear norm (the sum of the singular values) made whole: named
rank_from_nuclear_norm where the number is that norm of the lesson's S replayed (round, int or ceil; scaled,
unscaled) and the cell that assigns it reads a nuclear norm (matrix_norm(..., "nuc"), svdvals(...).sum()). A
Frobenius norm, or a typed 3, is not named so; a nuclear norm computed beside matrix_rank keeps full marks.

q13: the padded keys cut off K and V (or Y) instead of masked: A has one column per open key, and (O, A) are exactly
attention over those keys (replayed): padded_keys_sliced_off. Adding M to the scores keeps full marks.

q01: out= buffers made in the default float32: the float64 call crashes with torch's "Expected out tensor to have
dtype double, but got float" on a line that passes out=, and the same call in float32 runs and is right:
out_buffer_default_dtype. Buffers made with dtype=X.dtype keep full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
CROSS = "cross_attention"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"
MASK_ANS = "ans_mask"
LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
          "dtype=torch.float64)\n"
          "_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], "
          "dtype=torch.float64)\n")


_graded = graded_as("attention-pipeline", "round54")


# --- letter questions: one letter past the last option, counted out ------------------------------------------------

@pytest.mark.parametrize("cells, question", [
    # (a literal index, "abcde"[4], is the engine's one-edit search's: picked by position, it is told the fix)
    ({CAUSAL_ANS: '_fourth = 4\nans_cross_causal = "abcde"[_fourth]\n'}, "q15"),
    ({CAUSAL_ANS: 'import string\n\n_options = ["a", "b", "c", "d"]\n'
                  'ans_cross_causal = string.ascii_lowercase[len(_options)]\n'}, "q15"),
    ({COST_ANS: '_n_options = 4\nans_complexity = chr(97 + _n_options)\n'}, "q16"),
    ({MASK_ANS: 'ans_mask = chr(ord("a") + 4).upper()\n'}, "q06"),
])
def test_letter_past_the_options_is_named(grader: Grader, cells: dict[str, str], question: str) -> None:
    failed = assert_lost(_graded(grader, cells))
    assert [(q, k) for q, _, k, _ in failed] == [(question, "answer_letter_past_last_option")], failed
    assert "one past the last option, d" in failed[0][3] and "chr(ord" in failed[0][3], failed


def test_a_literal_e_is_not_told_a_count(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {CAUSAL_ANS: 'ans_cross_causal = "e"\n'}))
    assert all(k != "answer_letter_past_last_option" for _, _, k, _ in failed), failed


@pytest.mark.parametrize("cell", [
    'ans_cross_causal = chr(ord("a") + 3)          # the fourth option\n',
    'import string\n\nans_cross_causal = string.ascii_lowercase[3]\n',
])
def test_the_right_count_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {CAUSAL_ANS: cell}))


# --- q11: the nuclear norm taken as the rank ----------------------------------------------------------------------

@pytest.mark.parametrize("cell, got", [
    # the singular values of the scaled S summed, rounded: 2.09 + 1.17 = 3.26 -> 3
    ("max_rank_S = 8\nrank_S_lesson = int(torch.linalg.svdvals(_Q @ _K.T / 2).sum().round())\n", 3),
    # the unscaled S's nuclear norm through a bound name, cut to an int: 6.53 -> 6 (also rank Q + rank K)
    ("max_rank_S = 8\n_nuc = torch.linalg.norm(_Q @ _K.T, ord='nuc')\nrank_S_lesson = int(_nuc)\n", 6),
    # the full SVD's S summed with the builtin, rounded up: 7
    ("max_rank_S = 8\n_U, _sv, _Vh = torch.linalg.svd(_K @ _Q.T)\nrank_S_lesson = math.ceil(sum(_sv).item())\n", 7),
])
def test_rank_from_nuclear_norm_is_named(grader: Grader, cell: str, got: int) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert [(q, t, k) for q, t, k, _ in failed] == [("q11", "test_rank_S_lesson", "rank_from_nuclear_norm")], failed
    assert f"rank_S_lesson is {got}, not 2" in failed[0][3] and "matrix_rank" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\nrank_S_lesson = 3\n",     # typed: no norm read
    # a Frobenius norm (4.80 -> 5): a norm, but not the sum of the singular values
    "max_rank_S = 8\nrank_S_lesson = round(torch.linalg.matrix_norm(_Q @ _K.T).item())\n",
    # a sum over the singular values compared with zero is a count (rank_without_tolerance's), not a norm
    "max_rank_S = 8\nrank_S_lesson = int((torch.linalg.svdvals(_Q @ _K.T / 2) != 0).sum())\n",
])
def test_no_nuclear_norm_is_not_told_so(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + cell}))
    assert all(k != "rank_from_nuclear_norm" for _, _, k, _ in failed), failed


def test_three_without_a_known_cause_says_only_what_it_shows(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {RANK: LESSON + "max_rank_S = 8\nrank_S_lesson = 3\n"}))
    said = failed[0][3]
    assert failed[0][2] is None and said.startswith("rank_S_lesson is 3, and S = Q K^T has rank 2: use "
                                                    "torch.linalg.matrix_rank(S)"), failed
    assert "e-16 in float64" in said and "e-08 in float32" in said, failed   # sizes only, no dtype claimed


@pytest.mark.parametrize("cell", [
    "max_rank_S = 8\n_nuc = torch.linalg.matrix_norm(_Q @ _K.T, 'nuc')\n"
    "rank_S_lesson = int(torch.linalg.matrix_rank(_Q @ _K.T))\n",
    "max_rank_S = 8\n_s = torch.linalg.svdvals(_Q @ _K.T)\nrank_S_lesson = int((_s > _s.max() * 1e-10).sum())\n",
])
def test_rank_counted_right_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + cell}))


# --- q13: padded keys sliced off instead of masked ------------------------------------------------------------------

SLICE_Y = '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    if M is not None:
        Y = Y[..., : int((M[-1] == 0).sum()), :]           # drop the padding tokens
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)[0], Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K))
    return A @ V, A
'''

KEEP_INDEX = '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        keep = (M == 0).all(dim=0)
        K, V = K[..., keep, :], V[..., keep, :]
    A = torch.softmax(scaled_scores(Q, K), dim=-1)
    return A @ V, A
'''


@pytest.mark.parametrize("body", [SLICE_Y, KEEP_INDEX])
def test_padded_keys_sliced_off_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {CROSS: body}))
    assert [(q, k) for q, _, k, _ in failed] == [("q13", "padded_keys_sliced_off")], failed
    assert "S + M" in failed[0][3] and "open keys" in failed[0][3], failed


@pytest.mark.parametrize("body", [
    '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    A = attention_weights(S if M is None else S + M)
    return A @ V, A
''',
    '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = torch.where(M == 0, S, M)
    A = torch.softmax(S, dim=-1)
    return A @ V, A
''',
])
def test_masked_keys_keep_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {CROSS: body}))


# --- q01: out= buffers in the default dtype -------------------------------------------------------------------------

ZEROS_BUFFERS = '''def project_qkv(X, W_Q, W_K, W_V):
    out = []
    for W in (W_Q, W_K, W_V):
        buf = torch.zeros(X.shape[:-1] + (W.shape[-1],))
        torch.matmul(X, W, out=buf)
        out.append(buf)
    return out[0], out[1], out[2]
'''

FLOAT32_BUFFERS = '''def project_qkv(X, W_Q, W_K, W_V):
    Q = torch.empty(*X.shape[:-1], W_Q.shape[1], dtype=torch.float32)
    K = torch.empty(*X.shape[:-1], W_K.shape[1], dtype=torch.float32)
    V = torch.empty(*X.shape[:-1], W_V.shape[1], dtype=torch.float32)
    torch.matmul(X, W_Q, out=Q)
    torch.matmul(X, W_K, out=K)
    torch.matmul(X, W_V, out=V)
    return Q, K, V
'''


@pytest.mark.parametrize("body", [ZEROS_BUFFERS, FLOAT32_BUFFERS])
def test_out_buffer_in_default_dtype_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {PROJ: body}))
    q01 = [(t, k, m) for q, t, k, m in failed if q == "q01"]
    assert q01 and all(k == "out_buffer_default_dtype" for _, k, _ in q01), failed
    assert all("dtype=X.dtype" in m and "out=" in m for _, _, m in q01), failed
    assert all(k in (None, "out_buffer_default_dtype") for _, _, k, _ in failed), failed


def test_out_buffer_in_the_inputs_dtype_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PROJ: ZEROS_BUFFERS.replace("(W.shape[-1],))", "(W.shape[-1],), dtype=X.dtype, device=X.device)")}))
    assert_full_marks(_graded(grader, {PROJ: FLOAT32_BUFFERS.replace("dtype=torch.float32", "dtype=X.dtype")}))
