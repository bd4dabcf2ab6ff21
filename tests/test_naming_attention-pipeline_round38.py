"""attention-pipeline, naming round 38 (blind37's kinds): K^T taken with reshape / view is
keys_reshaped_not_transposed (replayed on the test's own Q and K); a softmax run in float16 or bfloat16 and cast
back is softmax_low_precision (replayed on the same scores, rounded as the student's code rounds them);
len() of a comparison counted as the rank is rank_len_of_boolean_mask where the answer is that length and the
cell's source shows len(<comparison>); an in-place add into the caller's (T, T') mask that batched scores
cannot fit ('output with shape ... doesn't match the broadcast shape') is inplace_on_input where a slice of the
inputs runs and writes into one of them. Each kind: two wrong variants of my own, a correct one at full marks,
and a near miss that keeps another name."""
from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming38__diagnose")

SCORES, WEIGHTS, RANK, CROSS = "scaled_scores", "attention_weights", "max_rank_S", "cross_attention"

LESSON = '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                        dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                        dtype=torch.float64)
max_rank_S = 8
s = torch.linalg.svdvals(Q_lesson @ K_lesson.T / 2)
'''


_graded = graded_as("attention-pipeline", "round38")


# --- K^T by reshape or view -----------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "    d_k = K.shape[-1]\n    return Q @ K.reshape(K.shape[:-2] + (d_k, -1)) / math.sqrt(d_k)\n",
    "    d_k = Q.size(-1)\n    Kt = K.contiguous().view(*K.shape[:-2], d_k, K.shape[-2])\n"
    "    return torch.matmul(Q, Kt) * d_k ** -0.5\n",
])
def test_keys_reshaped_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {SCORES: "def scaled_scores(Q, K):\n" + body}), "keys_reshaped_not_transposed", {"q02"})


def test_keys_transposed_by_einsum_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCORES: 'def scaled_scores(Q, K):\n    return torch.einsum("...qd,...kd->...qk", Q, K) / '
                                               'math.sqrt(Q.size(-1))\n'}))


def test_keys_reshaped_is_no_other_catalogued_score() -> None:
    g = torch.Generator().manual_seed(5)
    Q, K = (torch.randn(5, n, 12, generator=g, dtype=torch.float64) for n in (3, 7))
    got = Q @ K.reshape(5, 12, 7) / 12 ** 0.5
    from autograder.grading.checks import matching_variants
    assert matching_variants(got, D.scores_variants(Q, K), torch.float64) == ["keys_reshaped_not_transposed"]
    # T_k = 1: reshape is the transpose (the right scores); T_k = d_k: reshape is K itself (Q @ K, another key)
    with warnings.catch_warnings():   # one key per row: the row std of the scores has no degrees of freedom
        warnings.simplefilter("ignore", UserWarning)
        assert "keys_reshaped_not_transposed" not in D.scores_variants(Q, K[:, :1])
    assert "keys_reshaped_not_transposed" not in D.scores_variants(Q, torch.randn(5, 12, 12, generator=g,
                                                                                dtype=torch.float64))


# --- the softmax in float16 / bfloat16 --------------------------------------------------------------------

_MASKED = "def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"


@pytest.mark.parametrize("body", [
    "    return torch.softmax(Z, dim=-1, dtype=torch.float16).to(S.dtype)\n",
    "    return Z.to(torch.bfloat16).softmax(-1).type_as(S)\n",
])
def test_softmax_low_precision_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {WEIGHTS: _MASKED + body}), "softmax_low_precision", {"q05"})


def test_softmax_in_own_dtype_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {WEIGHTS: _MASKED + "    return torch.softmax(Z, dim=-1, dtype=S.dtype)\n"}))


def test_softmax_in_float32_is_not_low_precision(grader: Grader) -> None:
    # float32 for float64 is another slip (dtype_changed / generic), never the float16 one
    outcome = _graded(grader, {WEIGHTS: _MASKED + "    return torch.softmax(Z.float(), dim=-1).to(S.dtype)\n"})
    assert outcome.failed and all(k != "softmax_low_precision" for *_, k, _ in outcome.failed), outcome.failed


# --- len() of a comparison as the rank -----------------------------------------------------------------------

@pytest.mark.parametrize("tail", [
    "nonzero = s > 1e-10\nrank_S_lesson = len(nonzero)\n",
    "rank_S_lesson = int(len(torch.linalg.svdvals(Q_lesson @ K_lesson.T).gt(1e-9)))\n",
])
def test_len_of_comparison_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {RANK: LESSON + tail}), "rank_len_of_boolean_mask", {"q11"})


def test_len_of_the_true_entries_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {RANK: LESSON + "rank_S_lesson = len(s[s > 1e-10])\n"}))


def test_len_without_a_comparison_is_not_named() -> None:
    def sub(tail: str) -> SimpleNamespace:
        return SimpleNamespace(cells=["import torch", LESSON + tail])
    assert D.len_of_comparison(sub("rank_S_lesson = len(s)\n"), "rank_S_lesson") is None
    assert D.len_of_comparison(sub("rank_S_lesson = len((s > 0).nonzero())\n"), "rank_S_lesson") is None
    assert D.len_of_comparison(sub("x = len(s > 0)\nrank_S_lesson = 5\n"), "rank_S_lesson") is None
    assert D.len_of_comparison(None, "rank_S_lesson") is None
    assert D.len_of_comparison(sub("rank_S_lesson = len(s > 0)\n"), "rank_S_lesson") == "len(s > 0)"


# --- the scores added into the caller's mask in place -------------------------------------------------------

_CROSS = "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n" \
         "    S = scaled_scores(Q, K)\n"


@pytest.mark.parametrize("body", [
    "    if M is not None:\n        M += S\n        S = M\n",
    "    if M is not None:\n        S = torch.Tensor.sub_(M, -S)\n",
])
def test_scores_added_into_callers_mask_is_inplace(grader: Grader, body: str) -> None:
    tail = "    A = attention_weights(S)\n    return A @ V, A\n"
    assert_named(_graded(grader, {CROSS: _CROSS + body + tail}), "inplace_on_input", {"q13"})


def test_mask_added_out_of_place_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {CROSS: _CROSS + "    if M is not None:\n        S = M + S\n    A = attention_weights(S)\n"
                                       "    return A @ V, A\n"}))


def test_mask_added_into_in_attention_weights_is_inplace(grader: Grader) -> None:
    # the same slip one question earlier: the (T, T') mask cannot hold the batched large float32 scores; the
    # 2-D calls are named by the write itself, the expanded M's crash is left generic (not batched_input_unsupported)
    outcome = _graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    if M is not None:\n"
                                        "        M += S\n        S = M\n    return torch.softmax(S, dim=-1)\n"})
    keys = {t: k for q, t, k, _ in outcome.failed}
    assert keys.get("test_weights_large_float32") == "inplace_on_input", outcome.failed
    assert {q for q, *_ in outcome.failed} == {"q05"} and set(keys.values()) <= {"inplace_on_input", None}, keys


class _Proxy:
    """A student's function as the sandbox's proxy shows it: last_changed_inputs after each call."""

    def __init__(self, f: Any) -> None:
        self.f, self.last_changed_inputs = f, []

    def __call__(self, *args: Any) -> Any:
        before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        try:
            return self.f(*args)
        except Exception as e:
            raise StudentCodeError(type(e).__name__, str(e)) from None
        finally:
            self.last_changed_inputs = [f"argument {i + 1}" for i, (a, b) in enumerate(zip(args, before))
                                        if isinstance(a, torch.Tensor) and not torch.equal(a, b)]


def _crash(fn: Any, *args: Any) -> StudentCodeError:
    try:
        fn(*args)
    except StudentCodeError as e:
        return e
    raise AssertionError("no crash")


def test_inplace_broadcast_crash_needs_a_written_input() -> None:
    S = torch.randn(2, 4, 7)

    def into_mask(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
        return M.add_(S)

    def into_buffer(S: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
        Z = torch.zeros(S.shape[-2], S.shape[-1])
        Z += S
        return Z + M

    M = torch.zeros(4, 7)
    fn = _Proxy(into_mask)
    e = _crash(fn, S, M)
    m = D.inplace_broadcast_crash(e, fn, {"S": S, "M": M}, lambda t: fn(t["S"], t["M"]))
    assert m is not None and m.key == "inplace_on_input"
    assert str(m).startswith("your code adds into the caller's M in place"), str(m)
    assert bool((M == 0).all())   # the probe wrote into a copy, not into the test's mask
    fn = _Proxy(into_buffer)   # a buffer of its own too small: code for 2-D only, not an input written
    e = _crash(fn, S, M)
    assert D.inplace_broadcast_crash(e, fn, {"S": S, "M": M}, lambda t: fn(t["S"], t["M"])) is None
