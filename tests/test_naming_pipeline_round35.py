"""attention-pipeline, naming round 35 (blind34's kinds): a softmax dim read from len(S) (the first axis's size,
not the number of axes) is size_as_dim, from a second call where S's first axis is cut (or its rows repeated) to
the size that makes that dim the last axis, never for a dim written out; a hand-written softmax shifted by the row
mean is softmax_subtracts_mean where its NaN/inf replay in S's dtype matches; Nadaraya-Watson with the 1/sqrt(d_k)
scale on one side of the quotient only is nw_kernel_mismatch."""
from __future__ import annotations

import math
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, matching_variants
from reference import attention_pipeline as ref
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming35__diagnose")


def _student(f: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    def run(*args: Any) -> torch.Tensor:
        try:
            return f(*args)
        except Exception as e:   # the sandbox's boundary: a student's exception arrives as StudentCodeError
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return run


def _crash(fn: Callable[..., object], *args: Any) -> StudentCodeError:
    with pytest.raises(StudentCodeError) as e:
        fn(*args)
    return e.value


def _z(S: torch.Tensor, M: torch.Tensor | None) -> torch.Tensor:
    return S if M is None else S + M


@pytest.mark.parametrize("offset", [-1, 0])
def test_len_as_dim_names_the_crash_and_the_wrong_axis(offset: int) -> None:
    fn = _student(lambda S, M=None: torch.softmax(_z(S, M), dim=len(S) + offset))
    g = torch.Generator().manual_seed(0)
    S = torch.randn(5, 8, generator=g, dtype=torch.float64)
    M = torch.zeros(5, 8, dtype=torch.float64)
    named = D.len_as_dim(fn, S, M, _crash(fn, S, M))
    assert named is not None and named.key == "size_as_dim" and "len(S)" in str(named)
    S4 = torch.randn(2, 3, 6, 7, generator=g, dtype=torch.float64)   # dim 1 or 2 of 4-D S: runs, wrong axis
    named = D.len_as_dim(fn, S4, None)
    assert named is not None and named.key == "size_as_dim"


def test_len_as_dim_never_for_a_dim_written_out() -> None:
    g = torch.Generator().manual_seed(1)
    S = torch.randn(5, 8, generator=g, dtype=torch.float64)
    fixed = _student(lambda S, M=None: torch.softmax(_z(S, M), dim=4))       # crashes with "got 4" = len(S) - 1
    assert D.len_as_dim(fixed, S, None, _crash(fixed, S, None)) is None
    S3 = torch.randn(2, 5, 8, generator=g, dtype=torch.float64)
    queries = _student(lambda S, M=None: torch.softmax(_z(S, M), dim=-2))    # dim -2 = len(S) - 1 here, always
    assert D.len_as_dim(queries, S3, None) is None
    one = _student(lambda S, M=None: torch.softmax(_z(S, M), dim=1))
    assert D.len_as_dim(one, S3, None) is None
    right = _student(lambda S, M=None: torch.softmax(_z(S, M), dim=-1))
    assert D.len_as_dim(right, S3, None) is None


def _mean_shift(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
    Z = _z(S, M)
    E = torch.exp(Z - Z.mean(dim=-1, keepdim=True))
    return E / E.sum(dim=-1, keepdim=True)


def test_mean_shift_named_from_its_overflow() -> None:
    g = torch.Generator().manual_seed(2)
    S = torch.randn(5, 8, generator=g, dtype=torch.float64)
    blocked = torch.rand(5, 8, generator=g) < 0.4
    blocked[:, 0] = False
    M = torch.zeros(5, 8, dtype=torch.float64).masked_fill(blocked, torch.finfo(torch.float64).min)
    with pytest.raises(Misconception) as named:
        D.raise_if_mean_shift(_student(_mean_shift), S, M)
    assert named.value.key == "softmax_subtracts_mean"
    # no maximum subtracted at all overflows elsewhere (finite here): nothing; a right softmax: nothing
    D.raise_if_mean_shift(_student(lambda S, M=None: torch.exp(_z(S, M)) / torch.exp(_z(S, M)).sum(-1, keepdim=True)),
                          S, M)
    D.raise_if_mean_shift(_student(lambda S, M=None: torch.softmax(_z(S, M), dim=-1)), S, M)


def test_mean_shift_all_nan_needs_the_tame_call() -> None:
    # two blocked keys in every row: the mean is -inf in float64, every entry NaN; named only where the same S
    # without the mask is right (a function that is NaN on every input is not named)
    g = torch.Generator().manual_seed(3)
    S = torch.randn(4, 6, generator=g, dtype=torch.float64)
    M = torch.zeros(4, 6, dtype=torch.float64)
    M[:, -2:] = torch.finfo(torch.float64).min
    assert not bool(torch.isfinite(_mean_shift(S, M)).any())
    with pytest.raises(Misconception):
        D.raise_if_mean_shift(_student(_mean_shift), S, M)

    def always_nan(S: torch.Tensor, M: torch.Tensor | None = None) -> torch.Tensor:
        return _mean_shift(S, M) if M is not None else torch.full_like(S, float("nan"))
    D.raise_if_mean_shift(_student(always_nan), S, M)


@pytest.mark.parametrize("side", ["numerator", "denominator"])
def test_nw_kernel_mismatch_is_one_variant(side: str) -> None:
    g = torch.Generator().manual_seed(4)
    q, K, V = (torch.randn(*s, generator=g, dtype=torch.float64) for s in ((12,), (7, 12), (7, 5)))
    raw, kappa = torch.exp(K @ q), torch.exp(K @ q / math.sqrt(12))
    got = ((raw[:, None] * V).sum(0) / kappa.sum() if side == "numerator"
           else (kappa[:, None] * V).sum(0) / raw.sum())
    variants = {**ref.nw_variants(q, K, V, got), **D.nw_variants(q, K, V)}
    hits = {k.split("/")[0] for k in matching_variants(got, variants, torch.float64, expected=ref.nadaraya_watson(q, K, V))}
    assert hits == {"nw_kernel_mismatch"}
