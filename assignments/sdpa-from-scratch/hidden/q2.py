"""Question 2: score variance before and after scaling (Lesson 80's batched example)."""
import math

from otter.test_files import test_case

from autograder.checks import Misconception
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q2"


def _number(value, what):
    if value is None or value is Ellipsis:
        raise AssertionError(f"{what} is not set")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AssertionError(f"{what} should be a Python float (use .item() on a one-element tensor)")
    if not math.isfinite(value):
        raise AssertionError(f"{what} is not a finite number")
    return float(value)


@test_case(points=1, hidden=True)
def test_score_variances(raw_score_var, scaled_score_var):
    raw = _number(raw_score_var, "raw_score_var")
    scaled = _number(scaled_score_var, "scaled_score_var")
    biased = ref.raw_score_var * 49 / 50  # the population (biased) variance of the 50 scores
    if abs(raw - ref.raw_score_var) > 1e-3:
        if abs(raw - biased) < 1e-3:
            raise AssertionError("raw_score_var uses the biased variance: use torch's default .var()")
        raise AssertionError("raw_score_var is not the variance of the raw scores of the batched example")
    if abs(scaled - ref.raw_score_var / 64) < 1e-3:
        raise Misconception("divide_by_dk", "scaled_score_var matches scores divided by d_k, not sqrt(d_k)")
    if abs(scaled - ref.scaled_score_var) > 1e-3:
        raise AssertionError("scaled_score_var is not the variance of the scaled scores")


@test_case(points=1, hidden=True)
def test_scale_divisor(scale_divisor):
    got = _number(scale_divisor, "scale_divisor")
    if got == 64:
        raise Misconception("divide_by_dk", "scale_divisor is d_k; the scores are divided by sqrt(d_k)")
    if got == 1:
        raise Misconception("no_scale", "scale_divisor of 1 means no scaling at all")
    if abs(got - ref.scale_divisor) > 1e-9:
        raise AssertionError("scale_divisor is not the divisor for d_k = 64")
