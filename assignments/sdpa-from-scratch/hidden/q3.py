"""Question 3: stable_softmax(x, dim=-1), written by hand with max-subtraction."""
import importlib.util
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_function_avoids,
    assert_matches,
    assert_plain_tensor,
    call,
    describe,
    earned_with,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q3"
register_misconceptions(__file__)


def _diagnose():
    """hidden/_diagnose.py, beside this file (the hidden folder is no package)."""
    path = Path(__file__).with_name("_diagnose.py")
    spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _diagnose()


def _softmax(fn, x, what, **kwargs):
    """The student's softmax of x; a crash is named only from what a second call on a square input shows."""
    try:
        return call(fn, x, what="stable_softmax", **kwargs)
    except StudentCodeError as e:
        if "dim" in kwargs:      # a crash for a dim that is not the last axis: keepdim put back with unsqueeze(-1)?
            diag.name_unsqueeze_last(fn, kwargs["dim"], e, what)
        diag.name_softmax_crash(fn, e, what)
        raise


_shift = diag.q3_softmax_shift      # what the softmax subtracts before exp (moved to _diagnose.py, round47)

@test_case(points=1, hidden=True)
def test_matches_softmax(stable_softmax, device, rng):
    for dtype in (torch.float64, torch.float32):
        x = randn((3, 5, 7), rng, dtype, scale=3.0)
        x[0, 1, :] = x[0, 1, 0]                  # a tie: one slice of equal logits (uniform weights)
        x[1, 2, 3] = 0.0                         # an exact zero
        what = f"stable_softmax of a {dtype} input"
        got = _softmax(stable_softmax, x, what)
        diag.name_dtype_changed(got, ref.stable_softmax(x, dim=-1), what)
        def variants(x=x):   # the wrong softmaxes, only for a wrong answer
            out = diag.softmax_variants(x, dim=-1)
            # called without dim: a default of dim=0 normalises over the batch axis (sizes 3, 5, 7 keep axes apart)
            out["softmax_over_batch_axis"] = ref.stable_softmax(x, dim=0)
            out.update(diag.typed_e_softmaxes(x, dim=-1))       # round51: 2.718 ** x for exp(x)
            return out
        diag.assert_softmax(got, x, -1, what, variants, fn=stable_softmax)
    row = randn((1, 7), rng, torch.float64, scale=3.0)     # round65: one row, a length-1 axis (a single query)
    what = "stable_softmax of a (1, 7) row"
    got = _softmax(stable_softmax, row, what)
    diag.name_softmax_result_squeezed(stable_softmax, got, row, what)
    diag.assert_softmax(got, row, -1, what, lambda: diag.softmax_variants(row, dim=-1), fn=stable_softmax)


@test_case(points=1, hidden=True)
def test_dim_argument(stable_softmax, device, rng, submission=None):
    x = randn((4, 6, 5), rng, torch.float64, scale=2.0)
    for dim in (0, 1, -2):
        what = f"stable_softmax(x, dim={dim})"
        got = _softmax(stable_softmax, x, what, dim=dim)
        def variants(dim=dim):   # only for a wrong answer
            # the wrong softmaxes along `dim`; "the other dim" is -1 here, which is softmax_ignores_dim's reading
            out = {k: v for k, v in diag.softmax_variants(x, dim=dim).items() if k != "softmax_wrong_dim"}
            out["softmax_ignores_dim"] = ref.stable_softmax(x, dim=-1)
            if dim < 0:      # dim + x.dim() - 1: a negative dim turned positive one axis too early (axis 0 here)
                out["negative_dim_off_by_one"] = ref.stable_softmax(x, dim=dim + x.dim() - 1)
            # a middle axis: x.T reverses every axis (fixed_axes); not for dim=-2, where it is axis 0 as above
            if 0 < dim < x.dim() - 1:
                out["fixed_axes/dot_T"] = diag.softmax_through_dot_T(x)
            # a kind, not an instance: the right values in any other axis order; round46: reshape, not movedim
            out.update(diag.permuted_variants(ref.stable_softmax(x, dim=dim)) | diag.reshaped_softmax_variants(x, dim))
            out.update(diag.typed_e_softmaxes(x, dim=dim))      # round51: 2.718 ** x for exp(x)
            return out
        diag.name_dtype_changed(got, ref.stable_softmax(x, dim=dim), what)
        diag.assert_softmax(got, x, dim, what, variants, fn=stable_softmax, submission=submission)


@test_case(points=1, hidden=True)
def test_float16_logits_in_the_thousands(stable_softmax, device, rng):
    # half the rows near +2000, half near -3000: exp overflows or underflows without the shift
    centre = torch.tensor([2000.0, -3000.0]).repeat(4).reshape(8, 1)
    x = (centre + randn((8, 24), rng, torch.float64, scale=4.0)).to(torch.float16)
    what = "stable_softmax of float16 logits in the thousands"
    got = assert_plain_tensor(_softmax(stable_softmax, x, what, dim=-1), "stable_softmax")
    diag.name_dtype_changed(got, ref.stable_softmax(x, dim=-1), what)
    if got.dtype == torch.float16 and tuple(got.shape) == (8, 24):
        if not torch.isfinite(got).all():
            shift = _shift(stable_softmax)
            if shift == "no_max_subtraction":     # round74: the max's position subtracted (max(dim)[1], .indices)
                diag.name_shift_by_max_index(lambda t: stable_softmax(t, dim=-1), f"{what} gave inf or NaN")
            if shift and (shift != "softmax_subtracts_median" or diag.median_replay_matches(got, x)):
                raise Misconception(shift, "stable_softmax of float16 logits in the thousands gave inf or NaN, "
                                    f"and so does a probe with large logits: it matches {describe(shift)}")
            if diag.overflow_zeroes_weights(diag.second_call(stable_softmax, ref.SOFTMAX_PROBE.clone(), dim=-1)):
                raise Misconception("no_max_subtraction", f"{what} gave inf or NaN, and a float32 probe with logits "
                                    "100, 99, 10 gives weights of exactly 0 (exp(100) overflows, and x - log(inf) is "
                                    "-inf): it matches " + describe("no_max_subtraction"))
            diag.name_unshifted_in_float64(stable_softmax, f"{what} gave inf or NaN")
            diag.name_clamped_softmax(stable_softmax, f"{what} gave inf or NaN")
            diag.name_shift_clamped_at_zero(stable_softmax, f"{what} gave inf or NaN")
            diag.name_nonfinite_unnormalised(stable_softmax, f"{what} gave inf or NaN")     # round47
            raise AssertionError("stable_softmax of float16 logits in the thousands gave inf or NaN: subtract "
                                 "each slice's max before exp, and keep every step in float16's range")
        diag.name_softmax_variant(got, x, -1, what)
        diag.name_online_softmax(got, x, -1, what)      # naming round 86: an online sum's rescale slip
        diag.name_sorted_softmax_regathered(got, x, -1, what)     # naming round 88: the sort permutation twice
        if diag.f16_normaliser_rounding(got, x):
            # exp(x - logsumexp(x)) in float16: right up to the rounding of logsumexp to float16 (half an
            # ulp is 0.5 near 2000), the limit of that correct method here, not a mistake
            return
        sums = got.double().sum(-1)
        # a correct float16 result sums to 1 within ~1e-2 (24 entries rounded to float16)
        if ((sums - 1).abs() > 0.05).any() and bool((sums == 0).any()) \
                and diag.overflow_zeroes_weights(diag.second_call(stable_softmax, ref.SOFTMAX_PROBE.clone(), dim=-1)):
            # slices of exact zeros: an unshifted softmax whose inf/NaN was turned into 0 (nan_to_num)
            raise Misconception("no_max_subtraction", f"{what}: some slices are all 0, and a float32 probe with "
                                "logits 100, 99, 10 gives weights of exactly 0 (exp(100) overflows): it matches "
                                + describe("no_max_subtraction"))
        if ((sums - 1).abs() > 0.05).any() and bool((sums == 0).any()):
            diag.name_unshifted_in_float64(stable_softmax, f"{what}: some slices are all 0")
        n = x.shape[-1]
        if torch.allclose(got.double(), ref.stable_softmax(x.double(), dim=-1) * n, rtol=1e-2, atol=1e-3):
            # naming22: the right softmax times the slice's length: exp divided by its mean, not its sum
            raise Misconception("weights_not_normalised", f"{what}: every slice is the right softmax times {n}, "
                                f"the slice's length (they sum to {n}; a division by the mean instead of the "
                                "sum gives that): " + describe("weights_not_normalised"))
        if ((sums - 1).abs() > 0.05).any():
            if bool((sums >= 0.99).all()):     # a divisor no larger than the sum (none, an L2 norm; naming30)
                diag.name_not_normalised(got, x, -1, what)
            raise AssertionError(f"stable_softmax of float16 logits in the thousands: slices sum to between "
                                 f"{float(sums.min()):.3g} and {float(sums.max()):.3g}, not 1: keep what you "
                                 "subtract from the logits exact in float16 (each slice's max is)")
    assert_matches(got, ref.stable_softmax(x, dim=-1), what="stable_softmax of float16 logits in the thousands")


@test_case(points=1, hidden=True)
def test_minus_inf_entries(stable_softmax, device, rng):
    x = randn((6, 10), rng, torch.float32, scale=2.0)
    blocked = torch.rand((6, 10), generator=rng) < 0.5
    blocked[:, 3] = False                         # every row keeps at least one finite logit
    x = x.masked_fill(blocked, float("-inf"))
    got = _softmax(stable_softmax, x, "stable_softmax with -inf entries", dim=-1)
    diag.name_dtype_changed(got, ref.stable_softmax(x, dim=-1), "stable_softmax with -inf entries")   # round56
    try:
        def variants():   # only for a wrong answer
            out = diag.softmax_variants(x, dim=-1)
            inf_to_zero = diag.softmax_inf_to_finite(x, dim=-1)
            if inf_to_zero is not None:      # a kind: a NaN guard in the softmax that turns -inf into a finite 0
                out["softmax_inf_to_zero"] = inf_to_zero.to(x.dtype)
            out.update(diag.typed_e_softmaxes(x, dim=-1))       # round51: 2.718 ** x for exp(x)
            return out
        diag.assert_softmax(got, x, -1, "stable_softmax with -inf entries", variants,
                           fn=stable_softmax)
    except Misconception as named:
        diag.confirm_softmax_of_negated(stable_softmax, named)     # or no exp at all (round 37): tame logits tell
        raise
    except AssertionError:
        if diag.inf_entries_weighted(got, x):
            raise Misconception("softmax_inf_to_zero", "stable_softmax with -inf entries gives every -inf entry a "
                                "weight above 0 while the finite entries keep the right proportions: it matches "
                                + describe("softmax_inf_to_zero")) from None
        if type(got) is torch.Tensor and got.shape == x.shape and not torch.isfinite(got).all():
            shift = _shift(stable_softmax)
            if shift == "softmax_subtracts_mean" and bool(torch.isnan(got[blocked.any(dim=-1)]).all()):
                raise Misconception(shift, "stable_softmax with -inf entries is NaN on every row with a -inf "
                                    "(its mean is -inf), and float64 probes (0, -1, -inf; 1000, 0, 0, 0) give NaN "
                                    f"and overflow: it matches {describe(shift)}") from None
            if shift == "softmax_subtracts_median" and diag.median_replay_matches(got, x):
                raise Misconception(shift, "stable_softmax with -inf entries is NaN where half or more of a row is -inf (its "
                                    f"median is -inf), as a replay of that shift is: it matches {describe(shift)}") from None
            if shift == "softmax_subtracts_min":
                raise Misconception(shift, "stable_softmax with -inf entries gave NaN (-inf - (-inf)), and a "
                                    f"float32 probe with large logits gives inf or NaN: it matches {describe(shift)}") from None
            if shift == "softmax_of_negated":
                raise Misconception(shift, "stable_softmax with -inf entries gave NaN (exp(max - (-inf)) is inf), and "
                                    f"on small logits it gives the softmax of -x: it matches {describe(shift)}") from None
            if shift == "softmax_shift_by_first_entry":
                raise Misconception(shift, "stable_softmax with -inf entries gave NaN or inf, and a float32 probe whose "
                                    f"max is not its first entry overflows: it matches {describe(shift)}") from None
            if shift == "softmax_shift_by_max_abs" and bool(torch.isnan(got[blocked.any(dim=-1)]).all()):
                raise Misconception(shift, "stable_softmax with -inf entries is NaN on every row with a -inf (its "
                                    "largest |x| is inf), and float32 probes show which shift it subtracts: it "
                                    f"matches {describe(shift)}") from None
            diag.name_nonfinite_unnormalised(stable_softmax, "stable_softmax with -inf entries gave NaN or inf")
        raise
    if bool((got[blocked] != 0).any()):
        diag.name_exponentials_floored(stable_softmax, "stable_softmax with -inf entries")      # round41
        if not diag.rows_sum_to_one(stable_softmax):        # rows of 1 in float64: no eps added after the division
            diag.name_weight_epsilon(got, ref.stable_softmax(x, dim=-1), "stable_softmax with -inf entries")
        raise AssertionError("entries equal to -inf should get weight exactly 0")


@test_case(points=1, hidden=True)
@earned_with("test_matches_softmax")
def test_no_builtin_softmax(stable_softmax, submission, rng):
    # The rule only, not the values (those are the tests above): an answer that returns a tensor of the
    # right shape is checked, and the point is earned once test_matches_softmax passes (earned_with).
    # Static only (the notebook may use torch.softmax outside stable_softmax): follows the helpers
    # stable_softmax calls and fails when the source cannot show what runs. "softmax" also catches
    # log_softmax, nn.Softmax...; a distribution's probabilities from logits are one too
    # (Categorical(logits=x).probs, distributions.utils.logits_to_probs: red-team round 45; Multinomial's: round 59)
    x = randn((4, 9), rng, torch.float64)
    try:
        got = assert_plain_tensor(call(stable_softmax, x, dim=-1, what="stable_softmax", check_inputs=False),
                                  "stable_softmax(x)")
    except StudentCodeError as e:
        diag.name_softmax_crash(stable_softmax, e, "stable_softmax(x)")
        raise
    if tuple(got.shape) != (4, 9):
        raise AssertionError(f"stable_softmax(x) has shape {tuple(got.shape)}, expected (4, 9)")
    assert_function_avoids(submission, "stable_softmax", ("softmax", "softmin", "categorical", "logits_to_probs",
                                                          "multinomial"), key="builtin_softmax",
                           rule="a built-in softmax: compute it from exp, max and sum yourself")

diag.name_renamed_parameters_in(globals())   # a renamed parameter's TypeError, named in every test
