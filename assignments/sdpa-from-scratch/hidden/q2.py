"""Question 2: score variance before and after scaling (Lesson 80's batched example)."""
import importlib.util
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.grading.checks import Misconception, describe, expect_number, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q2"
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

# The notebook's printed values have four decimals; every wrong variant below is > 0.1 away.
ATOL = 1e-3


@test_case(points=1, hidden=True)
def test_score_variances(raw_score_var, scaled_score_var, submission=None):
    raw = expect_number(raw_score_var, "raw_score_var")
    scaled = expect_number(scaled_score_var, "scaled_score_var")
    _check_variances(raw, scaled, submission)
    # the notebook asks for Python floats (its own check asserts isinstance(..., float)): right values left
    # in 0-d tensors lose this answer's point, and only once the values are right
    tensors = [n for n, v in (("raw_score_var", raw_score_var), ("scaled_score_var", scaled_score_var))
               if isinstance(v, torch.Tensor)]
    if tensors:
        raise Misconception("returns_tensor_not_number", f"{' and '.join(tensors)}: the right value"
                            f"{'s' if len(tensors) > 1 else ''} in a tensor, not the Python float the question asks: "
                            + describe("returns_tensor_not_number"))


def _check_variances(raw, scaled, submission=None):
    n = 2 * 5 * 5                                             # entries of the (2, 5, 5) scores
    diag.name_baddbmm_input_added(raw, scaled, submission, ATOL)    # round60: baddbmm(raw, Q, K^T, alpha=...), beta 1
    diag.name_variance_sum_not_reset(raw, scaled, ATOL)      # round69: the running sum not set back to 0
    diag.name_rounded_pair(((raw, ref.raw_score_var), (scaled, ref.scaled_score_var)), _other_values(n),
                           "raw_score_var and scaled_score_var", submission, ("raw_score_var", "scaled_score_var"))
    if abs(raw - ref.raw_score_var * (n - 1) / n) < ATOL or abs(scaled - ref.scaled_score_var * (n - 1) / n) < ATOL:
        raise Misconception("biased_variance", "the variances are the biased ones (divided by n): use "
                            "torch's default .var(), which divides by n - 1")
    diag.name_count_unbracketed(raw, scaled, n, [v for pair in _other_values(n) for v in pair], ATOL)   # round47
    if abs(raw - ref.raw_score_var ** 0.5) < ATOL or abs(scaled - ref.scaled_score_var ** 0.5) < ATOL:
        raise Misconception("variance_returned_std", "the answer is a standard deviation (.std(), or the square "
                            "root of the variance): the question asks for the variance, .var()")
    if abs(raw - ref.scaled_score_var) < ATOL and abs(scaled - ref.raw_score_var) < ATOL:
        # exactly the two right values, each under the other's name (blind15): not an in-place div_, which
        # leaves scaled_score_var at the scaled value too
        raise Misconception("answers_swapped", f"raw_score_var is {raw:.4g} and scaled_score_var {scaled:.4g}: "
                            + describe("answers_swapped"))
    if abs(raw - ref.raw_score_var) > ATOL:
        diag.name_variances_typed_in(raw, scaled, submission)     # round65: numbers typed in from another run
        if any(abs(raw - v) < ATOL for v in ref.raw_score_var_other_draws()):
            # the same numbers from Q @ V^T on the notebook's draws and from a K drawn third: the source says
            # which (blind24 q2_scores_against_values), else what differs without a name
            said = ("raw_score_var is the variance of the scores of another pair of the example's tensors (one of "
                    "them V, the third draw)")
            shown = diag.scores_source(submission)
            if shown == "values":
                raise Misconception("variance_of_other_scores", f"{said}: your cell multiplies by V transposed, the "
                                    "values where the keys go: " + describe("variance_of_other_scores"))
            if shown == "draw_order":
                raise Misconception("draw_order", "raw_score_var is the variance of scores from tensors drawn in "
                                    "another order: after torch.manual_seed(0) draw Q, then K, then V")
            raise AssertionError(f"{said}: the scores are Q @ K.transpose(-2, -1), with Q, K, V drawn in that order")
        diag.name_half_precision_variances(raw, scaled, ATOL)    # round43: the scores or their variance in bfloat16
        # related quantities: the scaled scores' variance (raw_scores divided in place, named only while scaled_score_var
        # is not the raw value: else the answers are swapped or otherwise crossed, not an in-place div_), other statistics
        inplace = [ref.scaled_score_var] if abs(scaled - ref.raw_score_var) > ATOL else []
        diag.name_cross_sequence_scores(raw, "raw_score_var")     # torch.inner: the batch read as one sequence
        diag.name_products_not_summed(raw, scaled, ATOL)          # round42: q_i k_i never summed over d_k
        diag.name_score_distances(raw, scaled, ATOL)
        diag.name_one_sequence_keys(raw, scaled, [r for r, _ in _other_values(n)])    # round44: Q @ K[0].T
        diag.name_slice_centred_variance(raw, scaled, [r for r, _ in _other_values(n)], ATOL)   # round45: row means
        diag.name_reseeded_draws(raw, submission, ATOL)     # naming round 78: manual_seed before each draw
        diag.name_number(raw, ref.raw_score_var, {"raw_variance_of_scaled_scores": inplace,
                                                  **diag.score_statistics_to_rounding(raw),
                                                  **diag.diagonal_twice_statistics()}, "raw_score_var", ATOL)
        if raw > 0 and abs(scaled * 8 - raw) < 1e-4 * raw and abs(raw - 8) > ATOL:
            # both wrong by the same factor: the scale is right, the scores measured are other ones; named only
            # when a replayed fresh sample gives this very value (naming21), else said without a name
            said = (f"raw_score_var is {raw:.4g} and scaled_score_var {scaled:.4g}, exactly 1/8 of it, so the "
                    "scale is right; but neither is the variance of the example's scores")
            _name_count_from_one_axis(raw, said)
            diag.name_feature_zero_skipped(raw, said, submission)     # round58: range(1, d_k)
            diag.name_triangle_variance(raw, said, submission)     # round66: triu_indices, as if Q K^T were symmetric
            _name_standardised_inputs(raw, said)
            diag.name_cosine_scores(raw, said)
            diag.name_reduced_score_variance(raw, scaled, said, [r for r, _ in _other_values(n)], ATOL)   # round46
            diag.name_uniform_example(raw, said)     # round54: the example rebuilt with torch.rand (replayed)
            if any(abs(raw - v) < 1e-5 * v for v in diag.new_sample_score_variances()):
                raise Misconception("variance_of_other_scores", f"{said}: " + describe("variance_of_other_scores"))
            raise AssertionError(f"{said} (Q @ K.transpose(-2, -1) of the batched example, whose variance is "
                                 f"{ref.raw_score_var:.4g}): either other scores were measured or another "
                                 "statistic than their .var() was taken")
        raise AssertionError("raw_score_var is not the variance of the raw scores of the batched example")
    if abs(scaled - ref.raw_score_var / 8 ** 0.5) < ATOL:    # the variance / sqrt(d_k), or the scores / d_k ** 0.25
        diag.name_variance_over_root_d_k(scaled, submission)     # round45: the source tells which, else both said
    if abs(scaled - ref.raw_score_var) < ATOL:
        raise Misconception("no_scale", "scaled_score_var is the raw variance: the scores were not scaled")
    if abs(scaled - ref.raw_score_var / 64) < ATOL:       # d_k = 8: scores / 8 have variance raw / 64
        # a coincidence of the question's numbers: 8 is the example's d_k AND sqrt(64), scale_divisor's right
        # value for the d_k = 64 head; scores / d_k and scores / sqrt(64) give the same variance, so never
        # divide_by_dk alone (blind14): one key whose message gives both readings
        raise Misconception("divisor_d_k_or_sqrt_64", "scaled_score_var matches the example's scores divided by 8: "
                            + describe("divisor_d_k_or_sqrt_64"))
    n = ref._Qb.shape[0] * ref._Qb.shape[1] * ref._Kb.shape[1]     # entries of the example's scores
    if abs(scaled - 1.0) < ATOL or abs(scaled - n / (n - 1)) < ATOL:
        # exactly 1 (n / (n - 1) with a biased std): the theory's value written down, or the scores divided by their
        # own std, which makes any scores' variance 1 (blind30): one number, two readings, one key saying both
        raise Misconception("variance_one_theory_or_own_std", f"scaled_score_var is {scaled:.6g}: "
                            + describe("variance_one_theory_or_own_std"))
    if abs(scaled - ref.raw_score_var / 2 ** 2) < ATOL:     # round42: math.isqrt(8) = 2; no other scale gives raw / 4
        raise Misconception("integer_sqrt_scale", f"scaled_score_var is {scaled:.4g} = raw / 4: the scores were divided "
                            "by math.isqrt(8) = 2, not sqrt(8) = 2.83: divide by math.sqrt(d_k) (a float)")
    if abs(scaled - ref.raw_score_var / 4 ** 2) < ATOL or abs(scaled - ref.raw_score_var / 16 ** 2) < ATOL:
        diag.name_scores_over_four(scaled, submission)     # d_k / 2 = 4 = sqrt(2 x 8): by source (round58)
    if abs(scaled - ref.scaled_score_var) > ATOL:
        diag.name_cross_sequence_scores(scaled, "scaled_score_var", 8 ** 0.5)
        # Q is (2, 5, 8): sqrt of T = Q.size(1) = 5 (scores / sqrt(5)), or of the batch Q.size(0) = 2
        diag.name_number(scaled, ref.scaled_score_var, {"multiply_by_sqrt_dk": [ref.raw_score_var * 8],
                                                        "scale_by_T": [ref.raw_score_var / 5],
                                                        "scale_by_batch_dim": [ref.raw_score_var / 2],
                                                        "scale_from_ndim": [ref.raw_score_var / ref._Qb.dim()],
                                                        **diag.score_statistics_to_rounding(scaled, 8 ** 0.5)},
                         "scaled_score_var", ATOL)
        diag.name_scores_changed_in_place_before_scaling(scaled, submission, ATOL)     # round56: a view's -=, pow_
        diag.name_scores_through_dropout(scaled, submission)     # round70: F.dropout left training, by source
        raise AssertionError("scaled_score_var is not the variance of the scaled scores")


# round38 (blind37): the squared deviations of the (2, 5, 5) scores divided by a count read off one axis, or a product
# of two, instead of n - 1 = 49: len(t) is 2 (len(t) - 1 = 1), t.shape[-1] is 5, t.shape[-2] * t.shape[-1] is 25 ...
# (50, the biased variance, is named before). No other catalogued value of q2 is one of these (score_statistics first)
_AXIS_COUNTS = {1: "len(t) - 1 (len() of a (2, 5, 5) tensor is its first dimension, 2)",
                2: "len(t) (len() of a (2, 5, 5) tensor is its first dimension)",
                4: "t.shape[-1] - 1 (one axis's length, 5, minus 1)", 5: "t.shape[-1] (one axis's length)",
                9: "2 x 5 - 1 (two axes' lengths)", 10: "2 x 5 (two axes' lengths)",
                24: "5 x 5 - 1 (the last two axes' lengths)", 25: "5 x 5 (the last two axes' lengths)"}


def _name_count_from_one_axis(raw, said):
    """raw_score_var equal to the sum of squared deviations of the example's scores over one of _AXIS_COUNTS (the
    caller has seen scaled_score_var = raw / 8: the same statistic of the scaled scores)."""
    squares = ref.raw_score_var * 49                    # the unbiased variance times n - 1
    for count, how in _AXIS_COUNTS.items():
        if abs(raw - squares / count) < ATOL:
            raise Misconception("variance_count_from_one_axis", f"{said}: both are the sum of squared deviations "
                                f"divided by {count}, {how}, where the scores have 2 x 5 x 5 = 50 entries: "
                                + describe("variance_count_from_one_axis"))
    diag.name_mean_count_from_axes(raw, said)      # round69: the mean over that count too (sum / 10)


def _standardised(x, how):
    """x (the example's Q or K, float64) standardised over each row's d_k = 8 features, or over the whole tensor."""
    if how == "layer_norm":
        return torch.nn.functional.layer_norm(x, (x.shape[-1],))
    if how == "layer_norm without eps":
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=0.0)
    dims = {"row": (-1,), "tensor": tuple(range(x.dim()))}[how.split()[0]]
    centred = x - x.mean(dim=dims, keepdim=True)
    return centred / x.std(dim=dims, keepdim=True, unbiased=how.endswith("unbiased"))


def _name_standardised_inputs(raw, said):
    """round39 (blind38): raw_score_var equal to the variance (unbiased or not) of the scores of standardised
    copies of the example's Q and K (both, or one): F.layer_norm (with or without its eps), or each row's (or the
    whole tensor's) mean subtracted and std divided. The caller has seen scaled = raw / 8. None of these values
    (5.4 to 8.7) is the example's 6.599 or another of q2's catalogued values, named before."""
    Q, K = ref._Qb.double(), ref._Kb.double()
    for how in ("layer_norm", "layer_norm without eps", "row std unbiased", "row std biased",
                "tensor std unbiased", "tensor std biased"):
        for which, q, k in (("Q and K", _standardised(Q, how), _standardised(K, how)),
                            ("Q", _standardised(Q, how), K), ("K", Q, _standardised(K, how))):
            s = q @ k.transpose(-2, -1)
            if any(abs(raw - float(v)) < 1e-5 * abs(float(v)) for v in (s.var(), s.var(unbiased=False))):
                raise Misconception("scores_of_standardised_inputs", f"{said}: they are those of the scores of "
                                    f"{which} standardised first ({how}): "
                                    + describe("scores_of_standardised_inputs"))


def _other_values(n):
    """(raw, scaled) that q2's catalogued mistakes give: a rounded answer that is also one of these rounded is
    named only where the source shows the rounding (blind35's 6.6 is the mean square's 6.612 rounded too)."""
    r, s = ref.raw_score_var, ref.scaled_score_var
    out = [(r * (n - 1) / n, s * (n - 1) / n), (r ** 0.5, s ** 0.5), (s, r), *((v, v / 8) for v in ref.raw_score_var_other_draws())]
    out += [(r, v) for v in (r / 8 ** 0.5, r, r / 64, 1.0, n / (n - 1), r / 16, r / 256, r * 8, r / 5, r / 2, r / ref._Qb.dim())]
    raw, scaled = diag.score_statistics(), diag.score_statistics(8 ** 0.5)
    return out + [pair for k in raw for pair in zip(raw[k], scaled[k])]


@test_case(points=1, hidden=True)
def test_scale_divisor(scale_divisor, submission=None):
    got = expect_number(scale_divisor, "scale_divisor")
    if got == 64:
        raise Misconception("divide_by_dk", "scale_divisor is d_k; the scores are divided by sqrt(d_k)")
    if got == 32:                                       # 64 ** 1/2 is (64 ** 1) / 2
        raise Misconception("scale_precedence", f"scale_divisor is {got:g}: " + describe("scale_precedence"))
    if got == 1:
        raise Misconception("no_scale", "scale_divisor of 1 means no scaling at all")
    diag.name_divisor_model_width(got, submission)    # round53/64: sqrt(512), d_model or sqrt(8) * 64 / 8
    if abs(got - ref.scale_divisor) > 1e-9:
        # the example's d_k = 8 (sqrt 8), or the factor 1/sqrt(d_k) given for the divisor
        diag.name_number(got, ref.scale_divisor, {"example_value_reused": [8 ** 0.5],
                                                  "reciprocal_scale": [1 / 8],
                                                  "head_width_off_by_one": [63 ** 0.5]}, "scale_divisor", 1e-6)
        diag.name_divisor_measured(got)      # round47: the std (or variance) of the example's scores
        raise AssertionError("scale_divisor is not the divisor for d_k = 64")
    # the notebook's own check asserts isinstance(scale_divisor, (int, float)): a right 8 in a 0-d tensor
    if isinstance(scale_divisor, torch.Tensor):
        raise Misconception("returns_tensor_not_number", "scale_divisor: the right value in a tensor, not the "
                            "Python number the question asks: " + describe("returns_tensor_not_number"))


def _cell_crashed(missing, resolve, crash=""):
    """The variances or the divisor undefined because the cell stopped on the scores of Lesson 80's batched Q
    and K (2, 5, 8): named when the crash is what Q @ K, or Q @ K.T, gives on those shapes, or what
    .var(d).item() (a variance per slice) gives on their scores."""
    if missing in ("raw_score_var", "scaled_score_var", "scale_divisor"):
        diag.name_scores_crash(missing, crash, tuple(ref._Qb.shape), tuple(ref._Kb.shape))
        diag.name_variance_crash(missing, crash)
        diag.name_numpy_reduction_on_tensor(missing, crash)      # round55: np.var(tensor) calls Tensor.var(axis=...)
        diag.name_statistics_of_tensor_crash(missing, crash)     # round56: statistics.variance of 0-dim tensors


test_score_variances.test_func.on_missing = _cell_crashed
test_scale_divisor.test_func.on_missing = _cell_crashed

