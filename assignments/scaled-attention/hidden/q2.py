"""Hidden tests for q2: dot_product_variance(d_k, n_samples, generator, scaled=False).

A correct estimator lands within 10% of its target at n = 10000 with probability above 1 - 1e-6
(DESIGN.md); d_k >= 12 keeps the band at more than 6 standard errors."""
import math

import torch
from otter.test_files import test_case

from autograder.checks import Misconception, describe

OK_FORMAT = False
name = "q2"
points = 4

N = 10_000


def _number(value, what):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AssertionError(f"{what} should be a number (a Python float), got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise AssertionError(f"{what} is not finite")
    return value


def _generator(rng):
    return torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=rng)))


def _two_estimates(fn, d_k, rng, **kwargs):
    """Two estimates from two different generators: both must be estimates, not a constant."""
    a = _number(fn(d_k, N, _generator(rng), **kwargs), "dot_product_variance(...)")
    b = _number(fn(d_k, N, _generator(rng), **kwargs), "dot_product_variance(...)")
    if a == b:
        raise AssertionError("dot_product_variance returns the same value for two different generators: "
                             "it should estimate the variance from random samples drawn from the generator")
    return a, b


@test_case(points=2, hidden=True)
def test_unscaled_variance_is_d_k(dot_product_variance, rng):
    for d_k in (12, 64):
        for v in _two_estimates(dot_product_variance, d_k, rng):
            if abs(v / d_k - 1) < 0.10:
                continue
            if abs(v / math.sqrt(d_k) - 1) < 0.10:
                raise Misconception("variance_returned_std", f"the result is wrong: it matches {describe('variance_returned_std')}")
            raise AssertionError(f"for d_k = {d_k} the variance of q.k is not within 10% of its expected value")


@test_case(points=1, hidden=True)
def test_scaled_variance_is_one(dot_product_variance, rng):
    for d_k in (12, 64):
        for v in _two_estimates(dot_product_variance, d_k, rng, scaled=True):
            if abs(v - 1) < 0.10:
                continue
            if abs(v * d_k - 1) < 0.10:
                raise Misconception("divide_by_dk", f"the scaled variance is wrong: it matches {describe('divide_by_dk')}")
            if abs(v / d_k - 1) < 0.10:
                raise Misconception("no_scale", f"the scaled variance is wrong: it matches {describe('no_scale')}")
            if abs(v / math.sqrt(d_k) - 1) < 0.10 or abs(v * math.sqrt(d_k) - 1) < 0.10:
                raise AssertionError("with scaled=True the variance is off by a factor sqrt(d_k): "
                                     "check what you divide by, and that you return a variance, not a std")
            raise AssertionError(f"for d_k = {d_k} the variance of q.k / sqrt(d_k) is not within 10% of its expected value")


@test_case(points=1, hidden=True)
def test_draws_from_generator(dot_product_variance, rng):
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
    a = _number(dot_product_variance(16, 2000, torch.Generator().manual_seed(seed)), "dot_product_variance(...)")
    b = _number(dot_product_variance(16, 2000, torch.Generator().manual_seed(seed)), "dot_product_variance(...)")
    if abs(a - b) > 1e-9 * max(1.0, abs(a)):
        raise Misconception("ignores_generator", "two generators with the same seed gave different results: "
                            f"this matches {describe('ignores_generator')}")
