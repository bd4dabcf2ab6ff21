"""Hidden tests for q2: dot_product_variance(d_k, n_samples, generator, scaled=False).

A correct estimator lands within 10% of its target at n = 10000 with probability above 1 - 1e-6
(DESIGN.md); d_k >= 12 keeps the band at more than 6 standard errors."""
import math

import torch
from otter.test_files import test_case

from autograder.errors import StudentCodeError
from autograder.grading.checks import (Misconception, beside_next_request, call, describe, expect_number,
                                       raise_if_return_missing, raise_if_wrong_default, register_misconceptions)

OK_FORMAT = False
name = "q2"
points = 4
register_misconceptions(__file__)

N = 10_000


def _load_diagnose():
    """hidden/_diagnose.py, the diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _number(value, what):
    number = D.numpy_scalar(value)   # read like a one-element tensor; test_draws_from_generator charges the type
    value = value if number is None else number
    D.raise_if_nan_variance(value, what)
    return expect_number(value, what)


def _near(v, target):
    """Within the 10% band of DESIGN.md (a correct estimator at n = 10000 misses it w.p. < 1e-6)."""
    return abs(v / target - 1) < 0.10


def _seed(rng):
    return int(torch.randint(0, 2**31 - 1, (1,), generator=rng))


def _replayed(d_k, seed, scaled, value):
    """The one known mistake whose value, replayed on a generator seeded as the student's was (the same
    random numbers), is `value` to rounding, and the right draw is not: the output equals what that
    mistake gives on the same input (reference.variance_variants). None when none or several do."""
    right, wrong = D.variance_variants_replayed(d_k, N, seed, scaled)

    def same(a, b):
        # float32 rounding of the same numbers summed in another order stays below 1e-6 relative; two
        # different draws differ by about sqrt(2 / N) = 1.4%
        return abs(a - b) <= 2e-5 * max(abs(b), 1e-12)

    if any(same(value, r) for r in right):
        return None
    hits = {D.replay_key(k) for k, v in wrong.items() if same(value, v)}
    return hits.pop() if len(hits) == 1 else None


def _estimate(fn, d_k, rng, **kwargs):
    """One estimate from a fresh generator: (value, seed)."""
    seed = _seed(rng)
    try:
        # the right variance of these draws, replayed here while the worker draws them (a right estimate is then
        # confirmed from the cache: the replays had cost a full-marks notebook more CPU than its own calls)
        with beside_next_request(lambda: D.replay_right_draws(d_k, N, seed, kwargs.get("scaled", False) is True)):
            got = call(fn, d_k, N, torch.Generator().manual_seed(seed), **kwargs, what="dot_product_variance")
    except StudentCodeError as e:
        raise (D.generator_positional(e) or D.pairs_transposed_crash(fn, e, d_k, N) or e) from None
    _raise_if_return_missing(fn, got, d_k, seed, kwargs.get("scaled", False))
    return _number(got, "dot_product_variance(...)"), seed


def _raise_if_return_missing(fn, got, d_k, seed, scaled):
    """A None from one flag value where the other returns its right estimate (within the 10% band) on
    the same generator: that branch computes the variance and drops it."""
    other = not scaled
    target = 1.0 if other else float(d_k)

    def right(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and _near(float(v), target)

    def again():
        return fn(d_k, N, torch.Generator().manual_seed(seed), scaled=other)

    raise_if_return_missing(got, {f"with scaled={other}": again}, right, what=f"dot_product_variance(d_k={d_k}, "
                            f"..., scaled={scaled})")


def _explicit_right(out, d_k, seed) -> bool:
    """The explicit scaled=False call's value is the right unscaled estimate of that generator's draws:
    within the 10% band of d_k and not what a known mistake gives on those draws."""
    if isinstance(out, bool) or not isinstance(out, (int, float)) or not _near(float(out), d_k):
        return False
    return _replayed(d_k, seed, False, float(out)) is None


def _two_estimates(fn, d_k, rng, **kwargs):
    """Two estimates from two different generators: both must be estimates, not a constant."""
    (a, sa), (b, sb) = _estimate(fn, d_k, rng, **kwargs), _estimate(fn, d_k, rng, **kwargs)
    if a == b:
        D.raise_if_generator_unused(fn, d_k, N, (sa, sb), a, kwargs.get("scaled", False))
        raise AssertionError("dot_product_variance returns the same value for two different generators: "
                             "it should estimate the variance from random samples drawn from the generator")
    return (a, sa), (b, sb)


def _raise_replayed(submission, d_k, seed, scaled, v):
    D.raise_if_dots_made_integers(d_k, N, seed, scaled, v)   # which rounding, before or after the scale
    key = _replayed(d_k, seed, scaled, v)
    if key is not None:
        raise Misconception(key, f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the result is what "
                            f"the same generator gives when {describe(key)}{D.helper_swap_said(submission, key)}")


def _raise_if_of_the_mean(v, target, d_k, scaled):
    """A value off by the sample count: times n (or sqrt(n)) it is the variance, or the std, within the 10%
    band (N = 10000 keeps every such value far from any other mistake's): a statistic of the sample mean
    (var / n, its standard error std / sqrt(n), ...) returned for that of the dot products."""
    for stat, said in ((target, "variance"), (math.sqrt(target), "standard deviation")):
        for factor, by in ((N, "n_samples"), (math.sqrt(N), "sqrt(n_samples)")):
            if v > 0 and _near(v * factor, stat):
                raise Misconception("variance_of_the_mean", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} "
                                    f"the result {v:.4g} is the {said} of the dot products ({stat:.4g}) divided by "
                                    f"{by} = {factor:.0f}: " + describe("variance_of_the_mean"))


@test_case(points=2, hidden=True)
def test_unscaled_variance_is_d_k(dot_product_variance, rng, submission=None):
    for d_k in (12, 64):
        estimates = D.overflow_checked(lambda d_k=d_k: D.unassigned_name_guard(   # naming65: a name assigned nowhere
            submission, "dot_product_variance", lambda: _two_estimates(dot_product_variance, d_k, rng)), dot_product_variance,
                                       submission, d_k, N)   # inf with float16 in the source: told (naming60)
        D.raise_if_mean_returned(estimates, d_k, N, False)
        for v, seed in estimates:
            if _near(v, d_k):
                continue
            # a call without the flag is wrong: the same generator with scaled=False passed explicitly tells a
            # wrong default (scaled=True in the signature) from a flag read the other way round
            raise_if_wrong_default(dot_product_variance, (d_k, N, torch.Generator().manual_seed(seed)),
                                   {"scaled": False}, lambda out, d_k=d_k, seed=seed: _explicit_right(out, d_k, seed),
                                   what=f"dot_product_variance(d_k={d_k}, ...)")
            D.raise_if_scale_reaches_unscaled(dot_product_variance, submission, d_k, N, seed, v)
            _raise_replayed(submission, d_k, seed, False, v)
            D.raise_if_polarisation_misdivided(v, d_k, N, seed, False, submission)
            D.raise_if_precedence(v, d_k, N, seed, False)
            D.raise_if_averaged(v, seed, d_k, N, False, submission)
            if _near(v, math.sqrt(d_k)):
                raise Misconception("variance_returned_std", f"the result is wrong: it matches {describe('variance_returned_std')}")
            if _near(v, 2.0 * d_k):   # q.q (keys_are_queries) or 2 d_k-term dots: named above only by a replay
                raise AssertionError(f"for d_k = {d_k} the result {v:.4g} is about 2 d_k, twice the expected variance: "
                                     "each dot product has twice the variance of a sum of d_k products of two "
                                     "independent standard normals")
            if _near(v, 1.0):   # Var(q_i k_i) = 1 whatever d_k; scaled, 1/d_k (not 1: flag inverted)
                scaled, _ = _estimate(dot_product_variance, d_k, rng, scaled=True)
                if _near(scaled, 1.0 / d_k):
                    raise Misconception("variance_of_products", f"the result is about 1 for d_k = {d_k}: it matches "
                                        + describe("variance_of_products"))
            _raise_if_of_the_mean(v, float(d_k), d_k, False)
            D.raise_if_draws_not_unit_variance(dot_product_variance, v, seed, d_k, N, False, submission)
            raise AssertionError(f"for d_k = {d_k} the variance of q.k is not within 10% of its expected value")
        D.raise_if_coordinate_dropped(estimates, d_k, N, False)   # inside the band: only an exact replay
        D.raise_if_standardised_per_vector(estimates, d_k, N, False)
    D.raise_if_not_sampled(dot_product_variance, 12, rng, False, _number)


@test_case(points=1, hidden=True)
def test_scaled_variance_is_one(dot_product_variance, rng, submission=None):
    for d_k in (12, 64):
        estimates = D.unassigned_name_guard(submission, "dot_product_variance",   # naming65: a name assigned nowhere
                                            lambda d_k=d_k: _two_estimates(dot_product_variance, d_k, rng, scaled=True))
        D.raise_if_mean_returned(estimates, d_k, N, True)
        for v, seed in estimates:
            if _near(v, 1.0):
                continue
            D.raise_if_dots_kept(dot_product_variance, d_k, seed, True, submission)   # naming69: before any value's key
            _raise_replayed(submission, d_k, seed, True, v)
            D.raise_if_polarisation_misdivided(v, d_k, N, seed, True, submission)
            D.raise_if_precedence(v, d_k, N, seed, True)
            D.raise_if_averaged(v, seed, d_k, N, True, submission)
            # the unscaled estimate of the same function tells mistakes apart that give the same
            # scaled number (1/d_k: dividing by d_k, or the variance of the products scaled)
            plain, _ = _estimate(dot_product_variance, d_k, rng)
            if _near(v, 1.0 / d_k) and _near(plain, d_k):
                raise Misconception("divide_by_dk", f"the scaled variance is wrong: it matches {describe('divide_by_dk')}")
            if _near(v, 1.0 / d_k) and _near(plain, 1.0):
                raise Misconception("variance_of_products", "the scaled variance is about 1/d_k and the unscaled one "
                                    "about 1: it matches " + describe("variance_of_products"))
            if _near(v, 2.0) and _near(plain, 2.0 * d_k):   # q.q or 2 d_k-term dots: named only by a replay
                raise AssertionError(f"for d_k = {d_k} the variances are about 2 d_k and 2 (scaled): twice the "
                                     "expected ones, so the dot products themselves are drawn wrong, not the scale")
            if _near(v, d_k) and _near(plain, d_k):
                raise Misconception("scaled_flag_ignored", "with scaled=True the result is the unscaled variance, "
                                    "about d_k: it matches " + describe("scaled_flag_ignored") + D.flag_negation_said())
            if _near(v, d_k) and _near(plain, 1.0):   # the same number as scaled_flag_ignored when scaled
                raise Misconception("scaled_flag_inverted", "with scaled=True the result is about d_k and without "
                                    "it about 1: it matches " + describe("scaled_flag_inverted"))
            if _near(v, math.sqrt(d_k)) and _near(plain, d_k):
                raise Misconception("variance_scaled_by_sqrt", "with scaled=True the result is about sqrt(d_k) and "
                                    "without it about d_k: it matches " + describe("variance_scaled_by_sqrt"))
            if _near(v, float(d_k) ** 2) and _near(plain, d_k):
                raise Misconception("multiply_by_sqrt_dk", "with scaled=True the result is about d_k^2: it matches "
                                    + describe("multiply_by_sqrt_dk"))
            _raise_if_of_the_mean(v, 1.0, d_k, True)
            D.raise_if_both_kept(dot_product_variance, v, seed, d_k, N)
            D.raise_if_draws_not_unit_variance(dot_product_variance, v, seed, d_k, N, True, submission)
            D.raise_if_scaled_by_other(dot_product_variance, v, seed, d_k, N, submission)
            if _near(v, math.sqrt(d_k)) or _near(v, 1 / math.sqrt(d_k)):
                raise AssertionError("with scaled=True the variance is off by a factor sqrt(d_k): "
                                     "check what you divide by, and that you return a variance, not a std")
            raise AssertionError(f"for d_k = {d_k} the variance of q.k / sqrt(d_k) is not within 10% of its expected value")
        D.raise_if_in_band_replayed(estimates, d_k, N, True, dot_product_variance)   # naming58: the scale exact
    D.raise_if_not_sampled(dot_product_variance, 12, rng, True, _number)


@test_case(points=1, hidden=True)
def test_draws_from_generator(dot_product_variance, rng, submission=None):
    # two generators seeded alike give the same Python float (the notebook asks for .item())
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=rng))
    try:
        first = call(dot_product_variance, 16, 2000, torch.Generator().manual_seed(seed), what="dot_product_variance")
    except StudentCodeError as e:
        raise (D.generator_positional(e) or D.pairs_transposed_crash(dot_product_variance, e, 16, 2000) or e) from None
    _raise_if_return_missing(dot_product_variance, first, 16, seed, False)
    a = _number(first, "dot_product_variance(...)")
    b = _number(call(dot_product_variance, 16, 2000, torch.Generator().manual_seed(seed), what="dot_product_variance"),
                "dot_product_variance(...)")
    if abs(a - b) > 1e-9 * max(1.0, abs(a)):
        D.raise_if_dots_kept(dot_product_variance, 16, seed, False, submission, f"two generators seeded alike gave {a:.6g} and {b:.6g}")
        raise Misconception("ignores_generator", "two generators with the same seed gave different results: "
                            f"this matches {describe('ignores_generator')}")
    moved, other = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed + 1)
    torch.randn(1, generator=moved)     # seeded alike, one draw taken (round79: torch.manual_seed(g.initial_seed()))
    c, d = (_number(call(dot_product_variance, 16, 2000, g, what="dot_product_variance"), "dot_product_variance(...)")
            for g in (moved, other))
    if abs(a - c) <= 1e-9 * max(1.0, abs(a)) < abs(a - d):     # the same one draw on, another for another seed
        raise Misconception("ignores_generator", f"the same seed, one draw on, gave the same value: {describe('ignores_generator')}")
    D.raise_if_all_pairs(dot_product_variance, a, 16, 2000, seed)
    D.raise_if_numpy_scalar(first, "dot_product_variance")
    if type(first) is torch.Tensor:
        raise Misconception("returns_tensor_not_number", f"dot_product_variance returns a tensor of shape "
                            f"{tuple(first.shape)}, not a Python float: " + describe("returns_tensor_not_number"))
