"""attention-pipeline, naming round 67 (blind67's kinds: a right helper called wrong, a number read from the wrong place).

q07: self_attention calls attention_weights(M, S) where the helper is attention_weights(S, M=None): with the causal
mask M + S is the same sum, so the causal path is right; with causal=False the scores' slot gets None and the helper
raises. Named weights_helper_mask_first where the def passes the mask (a causal_additive_mask(...) value) first and
the scores second, AND the student's own attention_weights given (None, S) on the test's inputs raises the very same
error while (S, None) is right. The engine's optional_argument_not_checked (crash_words) no longer fires on a line
under `if M is not None:` (there M is not None: the None is another value), which had sent the student to edit a
correct attention_weights. The same call by keyword keeps full marks.

q13: cross_attention divides the scores by math.sqrt(d_k) where d_k is not its own name but the cell's try-out global
(`d_model, d_k, d_v = 6, 4, 2`): right only where the head is 4 wide. Named reads_global_not_parameter where the def
takes the root of a name it neither takes nor assigns, bound at module level to a number literal, AND (O, A) are
exactly attention scaled by 1/sqrt(that number) on the test's inputs. Before, the padding-mask test (T_q = 4) called it
scale_by_T, a coincidence of the numbers. The same cell with the width read from Q (or a local d_k) keeps full marks.

q11: rank_S_lesson counted on torch.linalg.svd(S)[0], the matrix U, as if it were the singular values. Named
rank_from_svd_vectors where the number is a count of U's (or Vh's) entries on the lesson's S, replayed, AND the
answer's cell reaches svd(...)[0] / [2] (or the U / Vh of `U, s, Vh = torch.linalg.svd(S)`). Counting s keeps full
marks; a typed 9 is not named so.

Borderline ones said with their cause: q15's `ans_cross_causal = ans_mask` (another question's answer name alone, the
value wrong here) is answer_copied_from_other_question, no longer the belief Question 6's letter stands for; a letter
held in a name of the cell's own is not. q08's no_scale, where the def has a statement that computes the scaled scores
and drops them (`scores.div(math.sqrt(d_k))` alone on its line), says that line; assigned, it keeps full marks.
q01's float32_precision, where project_qkv calls a helper of its own whose parameter defaults to torch.float32 and
never passes it, says the default and the call; passing X.dtype keeps full marks. q02's scores_keys_not_transposed,
where scaled_scores hands K transposed to a helper of its own that transposes that argument again, says that the two
transposes cancel; passing K itself keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


SELF = "self_attention"
CROSS = "cross_attention"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)


_graded = graded_as("attention-pipeline", "round67")


# --- q07: attention_weights called with the mask in the scores' place --------------------------------------------

@pytest.mark.parametrize("body", [
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    S = scaled_scores(Q, K)\n    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None\n"
    "    A = attention_weights(M, S)\n    return A @ V, A\n",
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    mask = None\n    if causal:\n        mask = causal_additive_mask(Q.shape[-2], dtype=Q.dtype)\n"
    "    weights = attention_weights(mask, scaled_scores(Q, K))\n    return weights @ V, weights\n",
])
def test_weights_helper_mask_first_is_named(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {SELF: body}), "weights_helper_mask_first", "q07")
    assert all("the mask first" in m and "optional" not in m for _, _, _, m in failed), failed
    # the neighbour: the same call by keyword, in the helper's own order or not, is right
    fixed = body.replace("attention_weights(M, S)", "attention_weights(M=M, S=S)").replace(
        "attention_weights(mask, scaled_scores(Q, K))", "attention_weights(scaled_scores(Q, K), mask)")
    assert_full_marks(_graded(grader, {SELF: fixed}))


# --- q13: the scale read from the cell's try-out global ------------------------------------------------------------

_TRY_OUT = ("d_model, d_k, d_v = 6, 4, 2\n_X13, _Y13 = torch.randn(5, d_model), torch.randn(3, d_model)\n"
            "_W13 = [torch.randn(d_model, d_k), torch.randn(d_model, d_k), torch.randn(d_model, d_v)]\n\n\n")


@pytest.mark.parametrize("cell", [
    _TRY_OUT + "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
    "    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n    A = attention_weights(S, M)\n    return A @ V, A\n",
    "d_k = 4\n\n\ndef cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    scores = (X @ W_Q) @ (Y @ W_K).mT * d_k ** -0.5\n"
    "    if M is not None:\n        scores = scores + M\n    A = torch.softmax(scores, dim=-1)\n"
    "    return A @ (Y @ W_V), A\n",
])
def test_scale_from_try_out_global_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {CROSS: cell}), "reads_global_not_parameter", "q13")
    assert {t for q, t, _, _ in failed if q == "q13"} == {"test_cross_float64", "test_cross_same_length",
                                                          "test_cross_padding_mask"}, failed
    assert all("`d_k`" in m and "1/sqrt(4)" in m for _, _, _, m in failed), failed
    # the neighbours: the width read from the queries, or a local d_k that shadows the global, are right
    assert_full_marks(_graded(grader, {CROSS: cell.replace("math.sqrt(d_k)", "math.sqrt(Q.shape[-1])").replace(
                            "d_k ** -0.5", "W_Q.shape[-1] ** -0.5")}))
    assert_full_marks(_graded(grader, {CROSS: cell.replace("    S = Q @", "    d_k = Q.shape[-1]\n    S = Q @").replace(
                            "    scores = (X", "    d_k = W_Q.shape[-1]\n    scores = (X")}))


# --- q11: the rank counted on svd's U (or Vh) ------------------------------------------------------------------------

_LESSON = ("_K = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], "
           "dtype=torch.float64)\n_Q = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], "
           "[0.5, 0.5, 0, 0]], dtype=torch.float64)\n_S = _Q @ _K.T / 2\n")


@pytest.mark.parametrize("line", [
    "_sing = torch.linalg.svd(_S)[0]\nrank_S_lesson = int((_sing > 1e-10).sum())\n",
    "U, s, Vh = torch.linalg.svd(_S)\nrank_S_lesson = int((U.abs() > 1e-8).sum().item())\n",
    "rank_S_lesson = int((torch.linalg.svd(_Q @ _K.T)[2] > 0).sum())\n",
])
def test_rank_from_svd_vectors_is_named(grader: Grader, line: str) -> None:
    failed = assert_named(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + line}), "rank_from_svd_vectors", "q11")
    assert "not the singular values" in failed[0][3], failed
    # the neighbour: the singular values counted are right
    assert_full_marks(_graded(grader, {RANK: "max_rank_S = 8\n" + _LESSON + "U, s, Vh = torch.linalg.svd(_S)\n"
                                       "rank_S_lesson = int((s > 1e-10 * s.max()).sum())\n"}))
    # a typed number, with no svd in the cell, is not named so
    value = int(failed[0][3].split(" is ", 1)[1].split(",", 1)[0])
    typed = _graded(grader, {RANK: f"max_rank_S = 8\nrank_S_lesson = {value}\n"}).failed
    assert [q for q, _, _, _ in typed] == ["q11"] and all(k != "rank_from_svd_vectors" for _, _, k, _ in typed), typed


# --- borderline, said with their cause: q15's copied answer name, q08's dropped division ----------------------------

@pytest.mark.parametrize("line", ["ans_cross_causal = ans_mask   # same reason as Question 6\n",
                                  "ans_cross_causal = ans_scale\n"])
def test_answer_copied_from_other_question_is_named(grader: Grader, line: str) -> None:
    failed = assert_named(_graded(grader, {"ans_cross_causal": line}), "answer_copied_from_other_question", "q15")
    assert "copied from `ans_" in failed[0][3], failed
    assert_full_marks(_graded(grader, {"ans_cross_causal": "ans_cross_causal = 'd'\n"}))
    # a letter held in a name of the cell's own is not another question's answer
    own = _graded(grader, {"ans_cross_causal": "_mine = 'c'\nans_cross_causal = _mine\n"}).failed
    assert [q for q, _, _, _ in own] == ["q15"] and all(k != "answer_copied_from_other_question" for _, _, k, _ in own), own


@pytest.mark.parametrize("body", [
    "def nadaraya_watson(q, K, V):\n    scores = K @ q\n    scores.div(math.sqrt(q.shape[-1]))\n"
    "    kappa = torch.exp(scores)\n    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n",
    "def nadaraya_watson(q, K, V):\n    s = torch.mv(K, q)\n    s / math.sqrt(K.shape[1])\n    w = torch.softmax(s, dim=0)\n"
    "    return w @ V\n",
])
def test_dropped_scaling_is_said(grader: Grader, body: str) -> None:
    failed = assert_named(_graded(grader, {"nadaraya_watson": body}), "no_scale", "q08")
    assert all("computes the scaled scores and drops them" in m for _, _, _, m in failed), failed
    fixed = body.replace("    scores.div(", "    scores = scores.div(").replace("    s / math", "    s = s / math")
    assert_full_marks(_graded(grader, {"nadaraya_watson": fixed}))


@pytest.mark.parametrize("cell", [
    "def _project(X, W, dtype=torch.float32):\n    return torch.matmul(X, W).to(dtype)\n\n\n"
    "def project_qkv(X, W_Q, W_K, W_V):\n    return _project(X, W_Q), _project(X, W_K), _project(X, W_V)\n",
    "def _lin(x, w, *, out_dtype=torch.float32):\n    return (x @ w).type(out_dtype)\n\n\n"
    "def project_qkv(X, W_Q, W_K, W_V):\n    return tuple(_lin(X, W) for W in (W_Q, W_K, W_V))\n",
])
def test_float32_default_kept_is_said(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {"project_qkv": cell}), "float32_precision", "q01")
    assert any("defaults to torch.float32 and `project_qkv` never passes it" in m for q, _, _, m in failed
               if q == "q01"), failed
    fixed = cell.replace("_project(X, W_Q), _project(X, W_K), _project(X, W_V)",
                         "_project(X, W_Q, X.dtype), _project(X, W_K, X.dtype), _project(X, W_V, X.dtype)").replace(
        "_lin(X, W) for W", "_lin(X, W, out_dtype=X.dtype) for W")
    assert_full_marks(_graded(grader, {"project_qkv": fixed}))


def test_none_under_its_own_guard_is_not_the_optional_argument() -> None:
    """crash_words: `S = S + M` under `if M is not None:` raising on a None is not M unchecked (the None is S)."""
    from autograder.errors import StudentCodeError
    from autograder.grading.crash_words import crash_words
    guarded = "def attention_weights(S, M=None):\n    if M is not None:\n        S = S + M\n    return S.softmax(-1)\n"
    bare = "def attention_weights(S, M=None):\n    S = S + M\n    return S.softmax(-1)\n"

    def crash(line: int, text: str) -> StudentCodeError:
        return StudentCodeError("TypeError", "unsupported operand type(s) for +: 'NoneType' and 'Tensor'",
                                'Traceback (most recent call last):\n  File "In[2]", line 5, in self_attention\n'
                                "    A = attention_weights(M, S)\n"
                                f'  File "In[1]", line {line}, in attention_weights\n    {text}\n'
                                "TypeError: unsupported operand type(s) for +: 'NoneType' and 'Tensor'")

    named = crash_words(crash(3, "S = S + M"), [guarded, "def self_attention(X):\n    pass\n"], {})
    assert named is None or named.key != "optional_argument_not_checked", named
    # the same line with no guard still is
    named = crash_words(crash(2, "S = S + M"), [bare, "def self_attention(X):\n    pass\n"], {})
    assert named is not None and named.key == "optional_argument_not_checked", named


@pytest.mark.parametrize("cell", [
    "def _dot_rows(A, B):\n    return A @ B.transpose(-2, -1)\n\n\ndef scaled_scores(Q, K):\n    d_k = Q.shape[-1]\n"
    "    return _dot_rows(Q, K.transpose(-2, -1)) / math.sqrt(d_k)\n",
    "def _pairwise(a, b):\n    return torch.matmul(a, b.mT)\n\n\ndef scaled_scores(Q, K):\n"
    "    return _pairwise(Q, K.mT) / math.sqrt(K.shape[-1])\n",
])
def test_keys_transposed_twice_is_said(grader: Grader, cell: str) -> None:
    failed = [f for f in _graded(grader, {"scaled_scores": cell}).failed if f[0] == "q02"]
    assert failed and all(k == "scores_keys_not_transposed" for _, _, k, _ in failed), failed
    assert all("K is transposed twice" in m for _, _, _, m in failed), failed
    assert_full_marks(_graded(grader, {"scaled_scores": cell.replace("_dot_rows(Q, K.transpose(-2, -1))", "_dot_rows(Q, K)").replace(
                            "_pairwise(Q, K.mT)", "_pairwise(Q, K)")}))
