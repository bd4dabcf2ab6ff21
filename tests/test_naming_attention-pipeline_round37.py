"""attention-pipeline, naming round 37 (blind36's kinds): exp(S) divided by anything but its row sum, whose
float16 / large float32 overflow no unstable softmax matches, is weights_not_normalised where a float64 replay
(of the same scores, or of them scaled into [-4, 4] where exp overflows float64 too) shows the rows unnormalised,
and never where the replay is right (no maximum subtracted); the row counts repeated flat (T against T * T in
the crash) are prefix_average_counts_repeated_flat only where the source repeats or tiles."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming37__diagnose")


def _student(f: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kw: Any) -> Any:
        try:
            return f(*args, **kw)
        except Exception as e:   # the sandbox's boundary: a student's exception arrives as StudentCodeError
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return run


def _exp_over_lse(S, M=None):
    Z = S if M is None else S + M
    return torch.exp(Z) / torch.logsumexp(Z, dim=-1, keepdim=True)


def _no_max(S, M=None):
    Z = S if M is None else S + M
    e = torch.exp(Z)
    return e / e.sum(dim=-1, keepdim=True)


@pytest.mark.parametrize("dtype,scale", [(torch.float16, 6.0), (torch.float32, 1000.0)])
def test_exp_over_logsumexp_overflow_is_unnormalised(dtype: torch.dtype, scale: float) -> None:
    S = (torch.randn(3, 4, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * scale).to(dtype)
    M = torch.zeros(4, 16, dtype=dtype)
    got = _exp_over_lse(S, M)
    assert not bool(torch.isfinite(got).all())
    with pytest.raises(Misconception) as e:
        D.raise_if_unnormalised_overflow(_student(_exp_over_lse), got, S, M, "A")
    assert e.value.key == "weights_not_normalised" and "overflows" in str(e.value)


@pytest.mark.parametrize("dtype,scale", [(torch.float16, 6.0), (torch.float32, 1000.0)])
def test_no_max_subtraction_overflow_is_not_unnormalised(dtype: torch.dtype, scale: float) -> None:
    S = (torch.randn(3, 4, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * scale).to(dtype)
    M = torch.zeros(4, 16, dtype=dtype)
    got = _no_max(S, M)
    assert not bool(torch.isfinite(got).all())
    D.raise_if_unnormalised_overflow(_student(_no_max), got, S, M, "A")   # says nothing
    D.raise_if_unnormalised_overflow(None, got, S, M, "A")


def _crash(T: int, n: int) -> StudentCodeError:
    return StudentCodeError("RuntimeError", f"The size of tensor a ({T}) must match the size of tensor b ({n}) at "
                            "non-singleton dimension 1")


def test_counts_repeated_flat_needs_sizes_and_source() -> None:
    src = ("def prefix_average_matrix(T):\n    W = torch.ones(T, T, dtype=torch.float64).tril()\n"
           "    return W / torch.arange(1, T + 1, dtype=torch.float64).repeat(1, T)\n")
    sub = SimpleNamespace(cells=[src])
    m = D.prefix_average_repeated_flat_crash(_crash(7, 49), 7, sub)
    assert m is not None and m.key == "prefix_average_counts_repeated_flat"
    assert D.prefix_average_repeated_flat_crash(_crash(7, 6), 7, sub) is None   # T - 1 counts: another slip
    assert D.prefix_average_repeated_flat_crash(_crash(7, 49), 7, None) is None
    plain = SimpleNamespace(cells=[src.replace(".repeat(1, T)", "")])
    assert D.prefix_average_repeated_flat_crash(_crash(7, 49), 7, plain) is None   # no repeat in the source
