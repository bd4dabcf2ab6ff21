"""Question 6: the 3-token trace (T = 3, d_k = 4, d_v = 2) with the notebook's fixed Q3, K3, V3."""
import torch
from otter.test_files import test_case

from autograder.checks import Misconception, describe
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q6"

ATOL = 5e-4   # answers typed with four decimals pass; every known wrong variant is > 1e-2 away


def _matrix(value, what, shape):
    if value is None or value is Ellipsis:
        raise AssertionError(f"{what} is not set")
    try:
        t = torch.as_tensor(value, dtype=torch.float64)
    except Exception:  # noqa: BLE001 - any unreadable answer
        raise AssertionError(f"{what} should be a tensor or a nested list of numbers") from None
    if tuple(t.shape) != shape:
        raise AssertionError(f"{what} should have shape {shape}, got {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise AssertionError(f"{what} contains NaN or inf")
    return t


def _compare(got, expected, variants, what):
    if torch.allclose(got, expected, rtol=0, atol=ATOL):
        return
    for key, wrong in variants.items():
        if wrong is not None and wrong.shape == got.shape and torch.allclose(got, wrong, rtol=0, atol=ATOL):
            raise Misconception(key, f"{what} is wrong: it matches {describe(key)}")
    raise AssertionError(f"{what} is not correct (recompute the scores, divide by sqrt(d_k) = 2, "
                         "then take the softmax of each row)")


@test_case(points=1, hidden=True)
def test_weights3(weights3):
    got = _matrix(weights3, "weights3", (3, 3))
    _compare(got, ref.weights3, ref.weight_variants(ref.Q3, ref.K3), "weights3")


@test_case(points=1, hidden=True)
def test_out3(out3):
    got = _matrix(out3, "out3", (3, 2))
    variants = {k: v.to(torch.float64) for k, v in ref.wrong_variants(ref.Q3, ref.K3, ref.V3).items()
                if v is not None}
    _compare(got, ref.out3, variants, "out3")


@test_case(points=1, hidden=True)
def test_weights3_causal(weights3_causal):
    got = _matrix(weights3_causal, "weights3_causal", (3, 3))
    if torch.allclose(got, ref.weights3, rtol=0, atol=ATOL):
        raise AssertionError("weights3_causal equals the unmasked weights: apply the causal mask "
                             "to the scores before the softmax")
    _compare(got, ref.weights3_causal, ref.weight_variants(ref.Q3, ref.K3, ref.causal_mask(3)),
             "weights3_causal")
