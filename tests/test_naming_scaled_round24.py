"""Naming scaled-attention's mistakes, round 24 (issue 21): blind20's kinds, in-process on the hidden files'
own helpers. A name rests on a replay of the mistake on the same input (or a second call that proves it)."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r24_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _hidden("_diagnose")


def _sandboxed(fn):
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the sandbox turns every exception into one
            raise StudentCodeError(type(e).__name__, str(e), "") from None
    return wrapped


def _qkv(dtype, T_q=6, T_k=6, d_k=12, d_v=5):
    g = torch.Generator().manual_seed(3)
    return (torch.randn(T_q, d_k, generator=g, dtype=dtype), torch.randn(T_k, d_k, generator=g, dtype=dtype),
            torch.randn(T_k, d_v, generator=g, dtype=dtype))


# --- q1: the student's own assert: each row == 1 exactly, or the whole matrix's total ----------------------

@pytest.mark.parametrize("check,named", [("rows_exact", "own_assert_exact_equality"),
                                         ("total", "own_assert_total_weight"),
                                         ("rows_tolerance_and_finite", None)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_own_assert_exact_rows_is_not_the_total(check, named, dtype):
    Q, K, V = _qkv(dtype, T_k=7)

    def attention(Q, K, V, d_k):
        w = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
        if check == "rows_exact":
            assert (w.sum(-1) == 1).all()
        elif check == "total":
            assert abs(float(w.sum()) - 1) < 1e-5
        else:   # a right check that fails only on these inputs' first query (not a float-equality slip)
            assert not bool(torch.equal(Q[0], Q_first))
        return w @ V, w
    Q_first = Q[0].clone()
    rows = [i for i in range(6) if float(F.softmax(Q @ K.T / math.sqrt(12), dim=-1)[i].sum()) != 1]
    if check == "rows_exact" and not rows:
        pytest.skip("every row happens to sum to exactly 1")
    with pytest.raises(AssertionError) as raised:
        D.call_pair(_sandboxed(attention), Q, K, V, 12)
    if dtype == torch.float32 and check == "rows_exact" and "tolerance" in str(raised.value):
        return   # the float64 copy ran: said as a tolerance tighter than float32's rounding (accurate)
    assert getattr(raised.value, "key", None) == named, str(raised.value)
    assert "your own assert failed" in str(raised.value)


# --- q2: the square root written d_k ** 1/2 ---------------------------------------------------------------

@pytest.mark.parametrize("form,named", [("after_division", "scale_precedence"), ("as_scale", "scale_precedence"),
                                        ("by_six", None)])
def test_power_one_half_is_named_from_two_d_k(form, named):
    def variance(d_k, n, g, scaled=False):
        q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
        dots = (q * k).sum(1)
        if scaled:
            if form == "after_division":
                dots = dots / d_k ** 1/2
            elif form == "as_scale":
                dots = dots / (d_k ** 1 / 2)
            else:   # a constant 6 (= 12 / 2 at d_k = 12 only): not the precedence slip at another d_k
                dots = dots / 6
        return dots.var().item()
    v = variance(12, 2000, torch.Generator().manual_seed(5), True)
    try:
        D.raise_if_scaled_by_other(_sandboxed(variance), v, 5, 12, 2000)
    except AssertionError as e:
        assert getattr(e, "key", None) == named, str(e)
    else:
        assert named is None
