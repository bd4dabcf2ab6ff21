"""sdpa-from-scratch, naming round 20 (issue 21, blind17's remaining problems), in-process: q8's cost_ratio
computed with the old cost as an unbracketed denominator (new / T * T * d_k, new / T**2 * d_k,
new / d_k * T * T) is ratio_denominator_unbracketed; (2T)^2 = 4 T^2, which is also the new count itself, stays
generic and says both readings; the right ratio in any form passes. q5's float16 test has a fully masked
query: NaN there is fully_masked_nan, and the message adds that float32 gives zeros only when a float32 replay
does (a guard such as + 1e-13 that is 0 in float16)."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"
T, D_K = 1024, 64


def _test(question: str, name: str):
    return next(c.func for c in load_test_file(HIDDEN / f"{question}.py", ROOT) if c.name == name)


def _outcome(thunk) -> tuple[str | None, str]:
    """(key, message): key None when it passes, "" when it fails unnamed."""
    try:
        thunk()
    except Misconception as e:
        return e.key, str(e)
    except AssertionError as e:
        return "", str(e)
    return None, ""


@pytest.mark.parametrize("ratio", [
    (2 * T) ** 2 * D_K // T * T * D_K, 2 * T * 2 * T * D_K / T * D_K * T,     # / T * T * d_k
    (2 * T) ** 2 * D_K // T ** 2 * D_K,                                       # / T**2 * d_k
    (2 * T) ** 2 * D_K / D_K * T * T,                                         # / d_k * T * T
])
def test_unbracketed_denominator_is_named(ratio) -> None:
    key, said = _outcome(lambda: _test("q8", "test_cost_ratio")(cost_ratio=ratio))
    assert key == "ratio_denominator_unbracketed"
    assert "bracket" in said


def test_new_count_reading_stays_generic_and_says_both() -> None:
    for ratio in ((2 * T) ** 2 // T * T, 2 * T * 2 * T / T * T):
        key, said = _outcome(lambda r=ratio: _test("q8", "test_cost_ratio")(cost_ratio=r))
        assert key == ""
        assert "not bracketed" in said and "never divided out" in said


@pytest.mark.parametrize("ratio", [4, (2 * T) ** 2 * D_K // (T * T * D_K), (2 * T) ** 2 // T ** 2])
def test_right_ratio_passes(ratio) -> None:
    assert _outcome(lambda: _test("q8", "test_cost_ratio")(cost_ratio=ratio))[0] is None


# naming22: the notebook's format asks for a Python int, so the right ratio as a float is float_for_int
@pytest.mark.parametrize("ratio", [4.0, (2 * T) ** 2 / T ** 2])
def test_right_ratio_as_a_float_is_named(ratio) -> None:
    assert _outcome(lambda: _test("q8", "test_cost_ratio")(cost_ratio=ratio))[0] == "float_for_int"


def _renormalised(eps: float):
    def sdpa(Q, K, V, mask=None):
        scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
        if mask is None:
            return ref.stable_softmax(scores, dim=-1) @ V
        weights = ref.stable_softmax(scores * mask, dim=-1) * mask
        return weights / (weights.sum(dim=-1, keepdim=True) + eps) @ V
    return sdpa


def _nan_on_empty_rows(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V


def _float16(fn):
    return lambda: _test("q5", "test_float16")(TrustedProxy(fn, "cpu"), "cpu", torch.Generator().manual_seed(5))


def test_a_guard_that_is_zero_in_float16_is_named_with_its_float32_replay() -> None:
    key, said = _outcome(_float16(_renormalised(1e-13)))
    assert key == "fully_masked_nan"
    assert "the same values in float32 give it zeros" in said


def test_nan_on_empty_rows_in_every_dtype_is_named_without_the_half_precision_text() -> None:
    key, said = _outcome(_float16(_nan_on_empty_rows))
    assert key == "fully_masked_nan"
    assert "float32 give it zeros" not in said


def test_a_guard_float16_can_hold_passes() -> None:
    assert _outcome(_float16(_renormalised(1e-4)))[0] is None
    assert _outcome(_float16(ref.scaled_dot_product_attention))[0] is None


def _float32_bias_and_wrong_values(Q, K, V, mask=None):
    """A float32 bias (a Python float times a bool mask) and a finite fill: wrong in float32 on empty rows."""
    scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores + -1e4 * (~mask)
    return torch.softmax(scores, dim=-1) @ V


def _bfloat16(fn):
    return lambda: _test("q5", "test_bfloat16")(TrustedProxy(fn, "cpu"), "cpu", torch.Generator().manual_seed(5))


def test_a_half_crash_on_float32_whose_float32_replay_runs_wrong_is_dtype_changed() -> None:
    key, said = _outcome(_float16(_float32_bias_and_wrong_values))    # float16 has an empty row: wrong in float32
    # since naming round 62 the float32 replay's values are named (the finite bias on a fully masked row, naming27's
    # order: the value mistake first), and the crash's own cause is said after it
    assert key == "fully_masked_bias", said
    assert "the same values in float32 run but are wrong" in said and "finite additive bias" in said, said
    assert "the crash itself: a float32 tensor" in said and "keep the input's dtype" in said, said
    key, said = _outcome(_bfloat16(_float32_bias_and_wrong_values))   # no empty row: right in float32
    assert key == "dtype_changed", said
    assert "the same values in float32 run and are right" in said
