"""attention-pipeline, naming round 36 (blind35's kinds): an extra term in the softmax's denominator is
softmax_extra_denominator_term by replay and never weights_not_normalised (its rows are divided, by more than
their own sum); zero projections' uniform weights are no_causal_mask only where nonzero projections do not show
the mask applied (mask_by_score_value where a zeroed token's replay matches); cross-attention's default mask
made T x T is default_mask_square from two second calls; a mask's open entries that hold 1 are said as
holding 1, not as blocked."""
from __future__ import annotations

import math
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, matching_variants
from reference import attention_pipeline as ref
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming36__diagnose")


def _student(f: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kw: Any) -> Any:
        try:
            return f(*args, **kw)
        except Exception as e:   # the sandbox's boundary: a student's exception arrives as StudentCodeError
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return run


def _softmax_one(S: torch.Tensor) -> torch.Tensor:
    m = S.amax(dim=-1, keepdim=True).clamp(min=0)
    e = torch.exp(S - m)
    return e / (torch.exp(-m) + e.sum(dim=-1, keepdim=True))


def test_extra_denominator_term_replays_and_is_not_unnormalised() -> None:
    S = torch.randn(3, 6, 7, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    got = _softmax_one(S)
    hits = {k.split("/")[0] for k in matching_variants(got, D.weights_variants(S), torch.float64)}
    assert hits == {"softmax_extra_denominator_term"}
    D.raise_if_rows_unnormalised(got, torch.softmax(S, dim=-1), torch.float64, "A")   # says nothing
    with pytest.raises(Misconception) as e:   # exp(s - max) undivided still is
        D.raise_if_rows_unnormalised(torch.exp(S - S.amax(-1, keepdim=True)), torch.softmax(S, dim=-1),
                                     torch.float64, "A")
    assert e.value.key == "weights_not_normalised"


def _self_attention(by_value: bool) -> Callable[..., Any]:
    def f(X, W_Q, W_K, W_V, causal=True):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        S = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
        if causal and by_value:
            S = torch.tril(S)
            S = S.masked_fill(S == 0, torch.finfo(S.dtype).min)
        elif causal:   # blocked by position, but a row of all-zero scores left open whole
            keep = torch.ones_like(S).tril().bool() | (S == 0).all(dim=-1, keepdim=True)
            S = S.masked_fill(~keep, torch.finfo(S.dtype).min)
        A = torch.softmax(S, dim=-1)
        return A @ V, A
    return _student(f)


def test_zero_projections_mask_by_value() -> None:
    g = torch.Generator().manual_seed(2)
    X, W_V = torch.randn(8, 6, generator=g, dtype=torch.float64), torch.randn(6, 5, generator=g, dtype=torch.float64)
    told = D.zero_projections_mask_by_value(_self_attention(True), X, W_V, 12)
    assert isinstance(told, Misconception) and told.key == "mask_by_score_value"
    other = D.zero_projections_mask_by_value(_self_attention(False), X, W_V, 12)
    assert type(other) is AssertionError   # the mask is applied: no key, and not no_causal_mask
    never = _student(lambda X, W_Q, W_K, W_V, causal=True: (torch.softmax((X @ W_Q) @ (X @ W_K).T, -1) @ (X @ W_V),
                                                          torch.softmax((X @ W_Q) @ (X @ W_K).T, -1)))
    assert D.zero_projections_mask_by_value(never, X, W_V, 12) is None


def test_default_mask_square_crash() -> None:
    g = torch.Generator().manual_seed(3)
    X, Y = torch.randn(5, 7, generator=g, dtype=torch.float64), torch.randn(10, 7, generator=g, dtype=torch.float64)
    W = [torch.randn(7, d, generator=g, dtype=torch.float64) for d in (12, 12, 6)]

    def f(X, Y, W_Q, W_K, W_V, M=None):
        Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
        if M is None:
            M = torch.zeros(X.shape[-2], X.shape[-2], dtype=Q.dtype)
        A = torch.softmax(Q @ K.T / math.sqrt(K.shape[-1]) + M, dim=-1)
        return A @ V, A
    fn = _student(f)
    with pytest.raises(StudentCodeError) as e:
        fn(X, Y, *W)
    named = D.default_mask_square_crash(e.value, X, Y, lambda Y_, M_: fn(X, Y_, *W, M_) if M_ is not None else fn(X, Y_, *W),
                                        lambda Y_, M_, out: D.all_right(out, ref.cross_attention(X, Y_, *W, M_), torch.float64))
    assert named is not None and named.key == "default_mask_square"


def test_open_entries_holding_one_are_said_so() -> None:
    T = 5
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    M = torch.ones(T, T).masked_fill(future, torch.finfo(torch.float32).min)
    words = D.pattern_differs(M != 0, future, M)
    assert "hold 1 instead of 0" in words and "blocked that must stay open" not in words
    assert "blocked that must stay open" in D.pattern_differs(M != 0, future)   # without M: as before
