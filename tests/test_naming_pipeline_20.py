"""attention-pipeline's naming20 diagnoses (issue 21: blind17's misses as kinds), checked directly and
through the engine's TrustedProxy (a crash arrives as StudentCodeError, as from the sandbox): a float64
smoothed row for float32 inputs is dtype_changed; cross_attention's float16 overflow crash with a mask is
neg_1e9_float16 only when a float64 probe pins the blocked value to -1e9 (not finfo(float32).min, not -1e5)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from autograder.grading.otter_format import stand_in
from autograder.grading.runner import TrustedProxy
from reference import attention_pipeline as ap

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden"


def _load(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_naming20_{stem}", HIDDEN / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    with stand_in():
        spec.loader.exec_module(mod)
    return mod


D = _load("_diagnose")


def _r(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


# --- q08: the row computed and returned in float64 ------------------------------------------------------

def test_a_float64_row_for_float32_inputs_is_dtype_changed():
    q, K, V = _r(12).float(), _r(7, 12, seed=1).float(), _r(7, 5, seed=2).float()
    want = ap.nadaraya_watson(q, K, V)
    with pytest.raises(Misconception) as e:
        D.assert_matches(ap.nadaraya_watson(q.double(), K.double(), V.double()), want, what="the smoothed row",
                         reduced=True)
    assert e.value.key == "dtype_changed"
    with pytest.raises(AssertionError) as wrong:   # wrong values in float64 are not a dtype change
        D.assert_matches(2 * ap.nadaraya_watson(q.double(), K.double(), V.double()), want, reduced=True)
    assert getattr(wrong.value, "key", None) != "dtype_changed"


# --- q13: blocked scores filled with a constant float16 cannot hold --------------------------------------

def _filled_with(value: float):
    def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
        S = ap.scaled_scores(X @ W_Q, Y @ W_K)
        if M is not None:
            S = S.masked_fill(M != 0, value)
        A = torch.softmax(S, dim=-1)
        return A @ (Y @ W_V), A
    return TrustedProxy(cross_attention, "cpu")


def _inputs():
    T_q, T_k, d_model = 4, 7, 8
    X, Y = _r(T_q, d_model).half(), _r(T_k, d_model, seed=1).half()
    W = [(_r(d_model, d, seed=s) / 3).half() for s, d in ((2, 12), (3, 12), (4, 6))]
    M = torch.zeros(T_q, T_k, dtype=torch.float16)
    M[:, T_k - 2:] = torch.finfo(torch.float16).min
    return X, Y, W, M


def _named(value: float) -> Misconception | None:
    X, Y, W, M = _inputs()
    fn = _filled_with(value)
    with pytest.raises(StudentCodeError) as e:
        fn(X, Y, *W, M)
    W64 = [w.double() for w in W]
    return D.neg_1e9_fill_crash(e.value, X, Y, W, M, lambda X2, M64: fn(X2, Y.double(), *W64, M64))


def test_a_minus_1e9_fill_is_named_from_the_float64_probe():
    named = _named(-1e9)
    assert isinstance(named, Misconception) and named.key == "neg_1e9_float16"
    assert "c10::Half without overflow" in str(named) and "-2e9" in str(named)


@pytest.mark.parametrize("value", [torch.finfo(torch.float32).min, -1e5, -1e10])
def test_another_constant_too_big_for_float16_is_not_called_minus_1e9(value):
    assert _named(value) is None


def test_no_mask_or_another_crash_names_nothing():
    X, Y, W, _ = _inputs()
    e = StudentCodeError("RuntimeError", "value cannot be converted to type c10::Half without overflow")
    assert D.neg_1e9_fill_crash(e, X, Y, W, None, lambda X2, M64: None) is None
    other = StudentCodeError("RuntimeError", "shape mismatch")
    assert D.neg_1e9_fill_crash(other, X, Y, W, _inputs()[3], lambda X2, M64: None) is None
