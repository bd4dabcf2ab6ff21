"""attention-pipeline, naming round 47b (blind46's q07_mask_built_once_as_default_argument).

q07/q09: self_attention whose causal mask has one fixed size, whatever the input's length (a default argument
evaluated once when the def ran, a length default T=5, a mask made at the notebook's top level), crashes on every
other length: mask_sized_once, where fresh inputs exactly that many tokens long (their widths apart from it) run and
are right, and one token fewer or more crashes against the same size again. A mask cut from a larger buffer (right
below its size) is told as one since naming round 82, with the buffer's own evidence; a length read from X's width
is not this kind; a default of None filled on each call, or a
cache keyed by the length, keeps full marks."""
from __future__ import annotations

from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.grader import Grader
from reference import attention_pipeline as ref
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming47b__diagnose")

SELF = "self_attention"
KEY = "mask_sized_once"


_graded = graded_as("attention-pipeline", "round47b")


_BODY = ("    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
         "    S = scaled_scores(Q, K)\n")


@pytest.mark.parametrize("cell", [
    # a mask made once at the top level, for 6 tokens, added inside
    "_MASK = causal_additive_mask(6, torch.float64)\n\n\n"
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n" + _BODY +
    "    A = attention_weights(S, _MASK if causal else None)\n"
    "    return A @ V, A\n",
    # a length default, T=4, the mask built from it on each call
    "def self_attention(X, W_Q, W_K, W_V, causal=True, T=4):\n" + _BODY +
    "    M = causal_additive_mask(T, S.dtype) if causal else None\n"
    "    return attention_weights(S, M) @ V, attention_weights(S, M)\n",
    # a boolean triangle as a default argument, for 9 tokens, filled with the dtype's minimum
    "def self_attention(X, W_Q, W_K, W_V, causal=True, future=torch.ones(9, 9, dtype=torch.bool).triu(1)):\n"
    + _BODY +
    "    if causal:\n"
    "        S = S.masked_fill(future, torch.finfo(S.dtype).min)\n"
    "    A = torch.softmax(S, dim=-1)\n"
    "    return A @ V, A\n",
])
def test_mask_sized_once_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {SELF: cell}), KEY, {"q07", "q09", "q10"})


@pytest.mark.parametrize("cell", [
    # a default of None, filled on each call from the input's length
    "def self_attention(X, W_Q, W_K, W_V, causal=True, mask=None):\n" + _BODY +
    "    if causal and mask is None:\n"
    "        mask = causal_additive_mask(X.shape[-2], S.dtype)\n"
    "    A = attention_weights(S, mask if causal else None)\n"
    "    return A @ V, A\n",
    # a cache keyed by the length and dtype: built once per size, never reused at another
    "import functools\n\n\n"
    "@functools.lru_cache(maxsize=None)\n"
    "def _mask(T, dtype):\n"
    "    return causal_additive_mask(T, dtype)\n\n\n"
    "def self_attention(X, W_Q, W_K, W_V, causal=True):\n" + _BODY +
    "    A = attention_weights(S, _mask(X.shape[-2], S.dtype) if causal else None)\n"
    "    return A @ V, A\n",
])
def test_mask_per_call_keeps_full_marks(grader: Grader, cell: str) -> None:
    assert_full_marks(_graded(grader, {SELF: cell}))


def test_buffer_cut_is_told_as_a_buffer(grader: Grader) -> None:
    # a mask cut from an 8-token buffer runs and is right up to 8 tokens: not one fixed size, and until naming round 82
    # left as the raw crash. Round 82 names it with the buffer's own evidence (a top-level buffer no def writes, right
    # up to its size, 9 tokens crashing against 8 again), and the message says so, not "any other length"
    failures = assert_named(_graded(grader, {SELF: "_BUF = torch.ones(8, 8, dtype=torch.bool).triu(1)\n\n\n"
                                                   "def self_attention(X, W_Q, W_K, W_V, causal=True):\n" + _BODY +
                                                   "    T = X.shape[-2]\n"
                                                   "    if causal:\n"
                                                   "        S = S.masked_fill(_BUF[:T, :T], torch.finfo(S.dtype).min)\n"
                                                   "    A = torch.softmax(S, dim=-1)\n"
                                                   "    return A @ V, A\n"}), KEY)
    assert all("`_BUF[:T, :T]`" in m and "up to 8 tokens run and are right" in m for _q, _t, _k, m in failures), failures


def test_length_from_width_keeps_its_name(grader: Grader) -> None:
    # the mask sized from X.shape[-1] (d_model): the size follows the input's width, not one fixed number
    keys = failed_keys(_graded(grader, {SELF: "def self_attention(X, W_Q, W_K, W_V, causal=True):\n" + _BODY +
                                              "    A = attention_weights(S, causal_additive_mask(X.shape[-1], S.dtype) if causal "
                                              "else None)\n"
                                              "    return A @ V, A\n"}))
    assert KEY not in keys, keys


def _crash(fn: Any, X: torch.Tensor, W: tuple[torch.Tensor, ...]) -> StudentCodeError:
    try:
        fn(X, *W, causal=True)
    except StudentCodeError as e:
        return e
    raise AssertionError("no crash")


def _student(fn: Any) -> Any:
    def run(*args: Any, **kw: Any) -> Any:
        try:
            return fn(*args, **kw)
        except RuntimeError as e:
            raise StudentCodeError("RuntimeError", str(e)) from None
    return run


def _inputs(T: int) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(0)
    X = torch.randn((T, 7), generator=g, dtype=torch.float64)
    return X, tuple(torch.randn((7, w), generator=g, dtype=torch.float64) for w in (12, 12, 5))


def test_sized_once_crash_needs_every_call() -> None:
    fixed = ref.causal_additive_mask(5, torch.float64)

    def once(X, W_Q, W_K, W_V, causal=True):
        A = torch.softmax((X @ W_Q) @ (X @ W_K).mT / W_Q.shape[-1] ** 0.5 + fixed, dim=-1)
        return A @ (X @ W_V), A

    def buffer(X, W_Q, W_K, W_V, causal=True):
        T = X.shape[-2]
        big = ref.causal_additive_mask(6, torch.float64)[:T, :T]
        A = torch.softmax((X @ W_Q) @ (X @ W_K).mT / W_Q.shape[-1] ** 0.5 + big, dim=-1)
        return A @ (X @ W_V), A

    def by_width(X, W_Q, W_K, W_V, causal=True):   # sized from d_v: n follows a width, not a constant
        M = ref.causal_additive_mask(W_V.shape[-1], torch.float64)
        A = torch.softmax((X @ W_Q) @ (X @ W_K).mT / W_Q.shape[-1] ** 0.5 + M, dim=-1)
        return A @ (X @ W_V), A

    X, W = _inputs(10)
    named = D.mask_sized_once_crash(_student(once), _crash(_student(once), X, W), X)
    assert named is not None and named.key == KEY
    assert D.mask_sized_once_crash(_student(buffer), _crash(_student(buffer), X, W), X) is None
    assert D.mask_sized_once_crash(_student(by_width), _crash(_student(by_width), X, W), X) is None
