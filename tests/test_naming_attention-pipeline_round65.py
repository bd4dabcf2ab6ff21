"""attention-pipeline, naming round 65 (blind65's kinds: leftovers from debugging and unfinished edits).

q10: row_entropy_bits returning the per-key terms a log2 a (or -a log2 a, or in nats), never summed over the keys:
named entropy_terms_not_summed, the key and text scaled-attention has (shared keys match across assignments), where H
has A's own shape and equals those terms entry by entry (replayed; 0 log 0 as 0 or NaN). Where only 2-D inputs take
that path (a debugging return left in an `if A.dim() == 2:` branch) a second call on the same rows with a batch axis
is right, and the message says so. A 2-D branch that returns the right entropies keeps full marks.

q11: max_rank_S measured on an example with fewer tokens than d_k (T shrunk to 5 to read the printout, never set
back): named rank_measured_at_small_length only where the value is below min(T, d_k) = 8 AND the matrix_rank call
the answer reads reaches a tensor made with that many rows (its second-to-last size, a literal or a name bound to
one) and at least as many features. A typed 5, or d_k shrunk to 5 (randn(100, 5)), is not named so; measuring at
T = 100 keeps full marks.

q12: "the count is wrong (for d_v different from d_k)" is said only where a second call with d_v = d_k is right;
blind65's `d_v = 64` left in the body is wrong for d_v = d_k too, and that call is said instead.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


ENT = "row_entropy_bits"     # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
PARAMS = "qkv_param_count"
EFFECTIVE = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"


_graded = graded_as("attention-pipeline", "round65")


# --- q10: the entropy's terms returned, not summed -----------------------------------------------------------------

@pytest.mark.parametrize("body", [
    # a debugging return for 2-D inputs, -a log2 a from xlogy (negated, never summed)
    "import math\n\ndef row_entropy_bits(A):\n    if len(A.shape) == 2:\n"
    "        return -torch.special.xlogy(A, A) / math.log(2)   # look at the terms\n"
    "    return -torch.special.xlogy(A, A).sum(dim=-1) / math.log(2)\n",
    # the terms kept in a name, returned early below 3 axes (neither negated nor summed)
    "def row_entropy_bits(A):\n    terms = A * torch.log2(A.clamp_min(1e-12))\n    if A.ndim < 3:\n"
    "        return terms\n    return -terms.sum(-1)\n",
])
def test_two_dim_debug_return_of_terms_is_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {ENT: body + EFFECTIVE}))
    assert [(q, k) for q, _, k, _ in failed] == [("q10", "entropy_terms_not_summed")], failed
    assert "only 2-D inputs" in failed[0][3] and "A's shape (6, 6)" in failed[0][3], failed


@pytest.mark.parametrize("body", [
    "def row_entropy_bits(A):\n    return -A * torch.log2(A.clamp_min(1e-12))\n",
    "def row_entropy_bits(A):\n    return torch.where(A > 0, -A * torch.log(A), torch.zeros_like(A)) / 0.6931471805599453\n",
])
def test_terms_never_summed_are_named(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {ENT: body + EFFECTIVE}))
    assert failed and all(k == "entropy_terms_not_summed" for q, _, k, _ in failed if q == "q10"), failed
    assert all("only 2-D inputs" not in m for _, _, _, m in failed), failed


@pytest.mark.parametrize("body", [
    "def row_entropy_bits(A):\n    if A.dim() == 2:\n        return row_entropy_bits(A[None])[0]\n"
    "    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))\n    return -(A * logs).sum(dim=-1)\n",
    "def row_entropy_bits(A):\n    terms = torch.special.xlogy(A, A) / torch.log(torch.tensor(2.0, dtype=A.dtype))\n"
    "    return -terms.sum(-1)\n",
])
def test_summed_entropy_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {ENT: body + EFFECTIVE}))


# --- q11: the rank measured with fewer tokens than d_k -------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    "_Q = torch.randn(5, 8, dtype=torch.float64)\n_K = torch.randn(5, 8, dtype=torch.float64)\n"
    "max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T))\nrank_S_lesson = 2\n",
    "T_small = 6   # small enough to print\nd_k = 8\n"
    "S = torch.randn(T_small, d_k) @ torch.randn(T_small, d_k).T\n"
    "max_rank_S = torch.linalg.matrix_rank(S).item()\nrank_S_lesson = 2\n",
])
def test_rank_at_a_small_length_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q11", "rank_measured_at_small_length")], failed
    assert "T = 100 and d_k = 8" in failed[0][3] and "min(100, 8) = 8" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "max_rank_S = 5\nrank_S_lesson = 2\n",
    # d_k shrunk to 5 (100 tokens): another slip, not the length
    "_Q = torch.randn(100, 5, dtype=torch.float64)\n_K = torch.randn(100, 5, dtype=torch.float64)\n"
    "max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T))\nrank_S_lesson = 2\n",
])
def test_a_five_without_a_small_length_is_not_named_so(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: cell}))
    assert all(k != "rank_measured_at_small_length" for _, _, k, _ in failed), failed


def test_rank_at_the_questions_length_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: "_T = 100\n_Q = torch.randn(_T, 8, dtype=torch.float64)\n"
                                             "_K = torch.randn(_T, 8, dtype=torch.float64)\n"
                                             "max_rank_S = int(torch.linalg.matrix_rank(_Q @ _K.T))\nrank_S_lesson = 2\n"}))


# --- q12: "for d_v different from d_k" only where d_v = d_k is right ------------------------------------------------

def test_count_wrong_for_d_v_equal_d_k_too_is_not_told_otherwise(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                                  "    d_v = 64   # the exercise's width\n    n = d_model * (2 * d_k + d_v)\n"
                                                  "    if with_output:\n        n += d_v * d_model\n    return n\n"}))
    assert [q for q, _, _, _ in failed] == ["q12", "q12"], failed
    assert all("different from d_k" not in m for _, _, _, m in failed), failed
    assert all("with d_v = d_k too" in m for _, _, _, m in failed), failed


# --- leftovers said beside the keys they already had (q03, q04, q06, q14, q16) --------------------------------------

SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
MASK_ANS = "ans_mask"
SHAPES_ANS = "ans_cross_shapes"
COST_ANS = "ans_complexity"


@pytest.mark.parametrize("cell", [
    "def _sample(n, d):\n    torch.manual_seed(1)\n    return torch.randn(n, d, dtype=torch.float64)\n\n\n"
    "def _H(S):\n    A = torch.softmax(S, dim=-1)\n    return -(A * torch.log2(A.clamp_min(1e-300))).sum(-1)\n\n\n"
    "_Q = _sample(6, 256)\n_K = _sample(6, 256)\n"
    "ans_scale = 'c' if torch.allclose(_H(_Q @ _K.T / 16.0), _H(_Q @ _K.T), atol=1e-2) else 'b'\n",
    "import random\n\n\ndef draw(shape):\n    torch.random.manual_seed(7)   # reproducible printout\n"
    "    return torch.randn(*shape, dtype=torch.float64)\n\n\nq, k = draw((8, 400)), draw((8, 400))\n"
    "h1 = torch.softmax(q @ k.T / 20.0, -1).max(-1).values\nh2 = torch.softmax(q @ k.T, -1).max(-1).values\n"
    "ans_scale = 'c' if torch.allclose(h1, h2, atol=1e-2) else 'b'\n",
])
def test_reseeding_sampler_is_said(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {SCALE_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q03", "answer_computed_by_code")], failed
    assert "manual_seed" in failed[0][3] and "the keys are the queries again" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "def causal_additive_mask(T, dtype, device=None):\n"
    "    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
    "    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(dtype).min)\n\n\n"
    "def causal_additive_mask(T, dtype, device=None):   # old\n"
    "    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
    "    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), -1e9)\n",
    "def causal_additive_mask(T, dtype, device=None):\n"
    "    return torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device).triu(1)\n\n\n"
    "def causal_additive_mask(T, dtype, device=None):\n"
    "    M = torch.triu(torch.full((T, T), -1e9, device=device), diagonal=1)\n    return M.to(dtype)\n",
])
def test_shadowing_def_is_said(grader: Grader, cell: str) -> None:
    failed = [f for f in assert_lost(_graded(grader, {MASK: cell})) if f[0] == "q04"]
    assert failed and all(k == "neg_1e9_float16" for _, _, k, _ in failed), failed
    assert all("defines causal_additive_mask 2 times" in m and "which never runs" in m for _, _, _, m in failed), failed


@pytest.mark.parametrize("cell", [
    "_Xd = torch.randn(5, 6, dtype=torch.float64)\n_W = [torch.randn(6, 4, dtype=torch.float64) for _ in range(3)]\n\n\n"
    "def _out(X_in):\n    Q, K, V = project_qkv(_Xd, *_W)\n    return attention_weights(scaled_scores(Q, K)) @ V\n\n\n"
    "_X2 = _Xd.clone()\n_X2[3] += 1.0\n"
    "ans_mask = 'c' if not torch.allclose(_out(_Xd)[2], _out(_X2)[2]) else 'd'\n",
    "tokens = torch.randn(6, 6, dtype=torch.float64)\nWq, Wk, Wv = (torch.randn(6, 3, dtype=torch.float64) for _ in range(3))\n"
    "\n\ndef probe(inp):\n    S = (tokens @ Wq) @ (tokens @ Wk).T\n    return torch.softmax(S, -1) @ (tokens @ Wv)\n\n\n"
    "changed = tokens.clone()\nchanged[4] = 0.0\n"
    "ans_mask = 'd' if torch.equal(probe(tokens)[3], probe(changed)[3]) else 'c'\n",
])
def test_probe_ignoring_its_argument_is_said(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {MASK_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q06", "answer_computed_by_code")], failed
    assert "never reads its argument" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "X = torch.randn(5, 6, dtype=torch.float64)\nY = torch.randn(3, 6, dtype=torch.float64)\nY = X\n"
    "W = [torch.randn(6, 4, dtype=torch.float64) for _ in range(2)] + [torch.randn(6, 2, dtype=torch.float64)]\n"
    "O, A = cross_attention(X, Y, *W)\nT, T2 = X.shape[0], Y.shape[0]\n"
    "opts = {'a': ((T, T), (T, 2)), 'b': ((T, T2), (T, 2)), 'c': ((T2, T), (T2, 2)), 'd': ((T, T2), (T2, 2))}\n"
    "ans_cross_shapes = [k for k, (s, o) in opts.items() if tuple(A.shape) == s and tuple(O.shape) == o][0]\n",
    "_x = torch.randn(4, 6, dtype=torch.float64)\n_y = torch.randn(9, 6, dtype=torch.float64)\n_y = _x   # self case\n"
    "_O, _A = cross_attention(_x, _y, torch.eye(6, 3, dtype=torch.float64), torch.eye(6, 3, dtype=torch.float64), "
    "torch.eye(6, 2, dtype=torch.float64))\n"
    "ans_cross_shapes = 'a' if _A.shape[0] == _A.shape[1] else 'b'\n",
])
def test_self_attention_trial_line_is_said(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {SHAPES_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q14", "answer_computed_by_code")], failed
    assert "the cell's last binding of" in failed[0][3] and "T' = T" in failed[0][3], failed


@pytest.mark.parametrize("cell", [
    "def _macs(T_q, T_k=512, d_k=64):\n    return T_q * T_k * d_k\n\n\n"
    "ans_complexity = 'a' if _macs(2048) / _macs(1024) < 3 else 'c'\n",
    "def cost(n_queries, seq_len=256):\n    return n_queries * seq_len\n\n\n"
    "_r = cost(4000) / cost(2000)\nans_complexity = {1: 'a', 2: 'c'}[round(math.log2(_r))]\n",
])
def test_length_left_at_its_default_is_said(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {COST_ANS: cell}))
    assert [(q, k) for q, _, k, _ in failed] == [("q16", "answer_computed_by_code")], failed
    assert "at its default" in failed[0][3], failed


def test_probes_that_pass_every_length_keep_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {COST_ANS: "def _macs(T_q, T_k=512, d_k=64):\n    return T_q * T_k * d_k\n\n\n"
                                                 "ans_complexity = 'c' if _macs(2048, 2048) / _macs(1024, 1024) > 3 else 'a'\n",
                                       SCALE_ANS: "torch.manual_seed(0)\n_Q = torch.randn(8, 512, dtype=torch.float64)\n"
                                                  "_K = torch.randn(8, 512, dtype=torch.float64)\nans_scale = 'b'\n"}))
