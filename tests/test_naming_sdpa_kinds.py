"""sdpa-from-scratch's fifth round of names (issue 21): mistakes named by KIND, from a property of the
answer that holds for any code with that mistake, never for a correct answer, and never where two
kinds coincide. In-process: the hidden tests' functions called with plain values and trusted proxies."""
from __future__ import annotations

from types import SimpleNamespace
import functools
import importlib.util
import math
from pathlib import Path

import pytest
import torch

from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file, read_misconceptions
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"
NEW_KEYS = ("shape_of_an_input", "shape_dims_swapped", "batch_dim_dropped", "example_value_reused",
            "reciprocal_scale", "raw_variance_of_scaled_scores", "diagonal_scores_only", "mean_of_slice_variances",
            "softmax_max_wrong_axis", "result_axes_permuted", "clamped_logits", "size_not_int",
            "values_weighted_by_scores", "rounded_answer", "count_per_query", "causal_triangle_count",
            "weights_not_normalised", "softmax_sum_wrong_axis")


def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_kinds_diagnose", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _load_diagnose()


def _test(question: str, name: str):
    return next(c.func for c in load_test_file(HIDDEN / f"{question}.py", ROOT) if c.name == name)


def _key(thunk) -> str | None:
    """The key a check names, None when it passes, "" when it fails unnamed."""
    try:
        thunk()
    except Misconception as e:
        return e.key
    except AssertionError:
        return ""
    return None


def test_every_new_key_has_a_text() -> None:
    assert set(NEW_KEYS) <= set(read_misconceptions(HIDDEN / "_misconceptions.py"))


@pytest.mark.parametrize("weights, out, key", [
    ((4, 10, 64), (4, 10, 128), "shape_of_an_input"),       # Q's shape for the weights
    ((4, 10, 10), (4, 128, 10), "shape_dims_swapped"),
    ((4, 10, 10), (10, 4, 128), "shape_dims_swapped"),
    ((10, 10), (10, 128), "batch_dim_dropped"),
    ((4, 10, 10), (4, 10, 128), None),                      # right
    ((4, 10, 11), (4, 10, 128), ""),                        # wrong, and no kind of the catalogue
])
def test_q1_shapes_named_by_kind(weights, out, key) -> None:
    keys = {_key(lambda: _test("q1", "test_weights_shape")(weights)),
            _key(lambda: _test("q1", "test_out_shape")(out))} - {None}
    assert keys == ({key} if key is not None else set())


@pytest.mark.parametrize("raw, scaled, divisor, key", [
    (ref.scaled_score_var, ref.scaled_score_var, 8.0, "raw_variance_of_scaled_scores"),
    (ref.scaled_score_var, ref.raw_score_var, 8.0, "answers_swapped"),      # blind15: never the in-place key
    (diag.score_statistics()["diagonal_scores_only"][0], ref.scaled_score_var, 8.0, "diagonal_scores_only"),
    (diag.score_statistics()["mean_of_slice_variances"][1], ref.scaled_score_var, 8.0, "mean_of_slice_variances"),
    (ref.raw_score_var, diag.score_statistics(8 ** 0.5)["mean_of_slice_variances"][0], 8.0,
     "mean_of_slice_variances"),
    (ref.raw_score_var, ref.scaled_score_var, math.sqrt(8), "example_value_reused"),
    (ref.raw_score_var, ref.scaled_score_var, 0.125, "reciprocal_scale"),
    (ref.raw_score_var, ref.scaled_score_var, 8.0, None),
    (ref.raw_score_var + 1.0, ref.scaled_score_var, 8.0, ""),
])
def test_q2_numbers_equal_to_one_related_quantity(raw, scaled, divisor, key) -> None:
    keys = {_key(lambda: _test("q2", "test_score_variances")(raw, scaled)),
            _key(lambda: _test("q2", "test_scale_divisor")(divisor))} - {None}
    assert keys == ({key} if key is not None else set())


def test_name_number_names_nothing_where_two_kinds_coincide() -> None:
    diag.name_number(1.0, 3.0, {"a": [1.0], "b": [1.0005]}, "x", 1e-3)          # a and b coincide: no name
    diag.name_number(3.0005, 3.0, {"a": [3.0001]}, "x", 1e-3)                    # a equals the right answer
    with pytest.raises(Misconception) as named:
        diag.name_number(1.0, 3.0, {"a": [1.0], "b": [2.0]}, "x", 1e-3)
    assert named.value.key == "a"


@pytest.mark.parametrize("count, test, key", [
    (1024, "test_attn_entries", "count_per_query"),
    (1024 * 1025 // 2, "test_attn_entries", "causal_triangle_count"),
    (1024 * 64, "test_score_madds", "count_per_query"),
    (1024 * 1023 // 2 * 64, "test_score_madds", "distinct_pairs_counted_once"),   # naming31: T (T - 1) / 2
    (1024 * 1023 // 2, "test_attn_entries", "distinct_pairs_counted_once"),
    (1024 * 1024 * 512, "test_score_madds", "madds_all_heads_width"),             # naming31: d_model = 8 d_k
    (1024 * 64, "test_attn_entries", "entries_of_Q"),                          # still its own kind
])
def test_q8_counts(count, test, key) -> None:
    assert _key(lambda: _test("q8", test)(count)) == key


def _softmax_max_over(axis):
    def f(x, dim=-1):
        e = torch.exp(x - x.amax(dim=axis, keepdim=True))
        return e / e.sum(dim=dim, keepdim=True)
    return f


def _not_divided(x, dim=-1):
    return torch.exp(x - x.amax(dim=dim, keepdim=True))


def _softmax_moved(x, dim=-1):
    y = x.movedim(dim, -1)
    e = torch.exp(y - y.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def _capped(cap):
    def f(x, dim=-1):
        e = torch.exp(x.clamp(max=cap))
        return e / e.sum(dim=dim, keepdim=True)
    return f


def _logsumexp(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))


@pytest.mark.parametrize("fn, key", [
    (_softmax_max_over(-1), "softmax_max_wrong_axis"),
    (_softmax_max_over(2), "softmax_max_wrong_axis"),
    (_softmax_moved, "result_axes_permuted"),
    (lambda x, dim=-1: _not_divided(x, dim) / _not_divided(x, dim).sum(-1, keepdim=True), "softmax_sum_wrong_axis"),
    (ref.stable_softmax, None),
])
def test_q3_dim_argument_kinds(fn, key) -> None:
    rng = torch.Generator().manual_seed(3)
    assert _key(lambda: _test("q3", "test_dim_argument")(TrustedProxy(fn, "cpu"), "cpu", rng)) == key


@pytest.mark.parametrize("cap", [10.0, 30.0, 140.0])
def test_capped_logits_are_named_from_the_probe_for_any_cap_below_150(cap) -> None:
    with pytest.raises(Misconception) as named:
        diag.name_clamped_softmax(TrustedProxy(_capped(cap), "cpu"), "it overflowed")
    assert named.value.key == "clamped_logits"


@pytest.mark.parametrize("fn", [ref.stable_softmax, _logsumexp, _softmax_max_over(-1),
                                lambda x, dim=-1: torch.ones_like(x) / x.shape[dim]])
def test_the_clamp_probe_names_no_other_softmax(fn) -> None:
    assert not diag.ties_capped_logits(fn(diag.CLAMP_PROBE.clone(), dim=-1))


def test_a_float16_logsumexp_softmax_keeps_its_point_and_a_numerator_alone_does_not() -> None:
    test = _test("q3", "test_float16_logits_in_the_thousands")
    for seed in range(5):
        assert _key(lambda s=seed: test(TrustedProxy(_logsumexp, "cpu"), "cpu", torch.Generator().manual_seed(s))) is None
    centre = torch.tensor([2000.0, -3000.0]).repeat(4).reshape(8, 1)
    x = (centre + 4 * torch.randn(8, 24, generator=torch.Generator().manual_seed(0), dtype=torch.float64)).half()
    e = torch.exp(x - x.amax(-1, keepdim=True))
    assert not diag.f16_normaliser_rounding(e, x)                                 # not normalised
    assert not diag.f16_normaliser_rounding(e / e.sum(-1, keepdim=True) * 2, x)   # off by more than the rounding
    assert diag.f16_normaliser_rounding(_logsumexp(x), x)


def test_a_size_in_place_of_a_number_is_named_from_its_type_error() -> None:
    def sized(Q, K, V, mask=None):
        return torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1:]), -1) @ V
    Q, K, V = (torch.randn(2, 3, 4, dtype=torch.float64) for _ in range(3))
    with pytest.raises(Misconception) as named:
        diag.check(TrustedProxy(sized, "cpu"), Q, K, V, None, "the output")
    assert named.value.key == "size_not_int"


@pytest.mark.parametrize("out3, key", [
    (ref.out3.round(decimals=2), "rounded_answer"),
    (ref.weights3.round(decimals=1) @ ref.V3, "rounded_answer"),
    (ref.Q3 @ ref.K3.T / 2 @ ref.V3, "values_weighted_by_scores"),
    (ref.out3, None),
])
def test_q6_out3_kinds(out3, key) -> None:
    assert _key(lambda: _test("q6", "test_out3")(out3)) == key


def test_q6_a_missing_causal_weights_are_named_from_a_mask_of_numbers_and_only_then() -> None:
    hook = _test("q6", "test_weights3_causal").on_missing
    assert _test("q6", "test_out3").on_missing.__name__ == hook.__name__

    def numbers(T_q, T_k=None):
        return torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.uint8).tril()
    with pytest.raises(Misconception) as named:
        hook("weights3_causal", lambda name: TrustedProxy(numbers, "cpu") if name == "causal_mask" else None)
    assert named.value.key == "mask_not_bool"
    hook("weights3_causal", lambda name: TrustedProxy(ref.causal_mask, "cpu"))     # a bool mask: says nothing
    hook("weights3_causal", lambda name: None)                                     # no causal_mask: nothing


def test_q4_a_transposed_rectangular_mask_is_the_upper_triangle() -> None:
    def swapped(T_q, T_k=None):
        T_k = T_q if T_k is None else T_k
        return torch.arange(T_k)[:, None] <= torch.arange(T_q)[None, :]       # (T_k, T_q)
    rng = torch.Generator().manual_seed(0)
    assert _key(lambda: _test("q4", "test_more_queries_than_keys")(TrustedProxy(swapped, "cpu"), rng)) \
        == "upper_triangular_mask"


def test_q6_a_missing_output_is_named_from_a_softmax_that_changes_the_dtype() -> None:
    hook = _test("q6", "test_out3").on_missing

    def upcast(x, dim=-1):
        return ref.stable_softmax(x.float(), dim=dim)
    names = {"stable_softmax": TrustedProxy(upcast, "cpu"), "causal_mask": TrustedProxy(ref.causal_mask, "cpu")}
    with pytest.raises(Misconception) as named:
        hook("out3", names.get)
    assert named.value.key == "dtype_changed"
    hook("out3", {"stable_softmax": TrustedProxy(ref.stable_softmax, "cpu")}.get)   # right: says nothing
    hook("weights3", names.get)                                                        # not a name it explains


@pytest.mark.parametrize("fn, key", [
    (_not_divided, "weights_not_normalised"),
    (lambda x, dim=-1: _not_divided(x, dim) / _not_divided(x, dim).sum(), "softmax_global_sum"),   # its own kind
    (ref.stable_softmax, None),
])
def test_q3_exponentials_never_divided_by_their_sum(fn, key) -> None:
    rng = torch.Generator().manual_seed(5)
    assert _key(lambda: _test("q3", "test_matches_softmax")(TrustedProxy(fn, "cpu"), "cpu", rng)) == key


def test_q2_scores_multiplied_by_sqrt_d_k() -> None:
    assert _key(lambda: _test("q2", "test_score_variances")(ref.raw_score_var, ref.raw_score_var * 8)) \
        == "multiply_by_sqrt_dk"


# --- naming round 6: blind5's misses, by kind -----------------------------------------------------------------
ROUND6_KEYS = ("softmax_shift_by_max_abs", "size_one_axes_added", "causal_sizes_swapped", "output_keeps_key_axis",
               "cost_ratio_inverted", "negative_dim_off_by_one")


def test_every_round6_key_has_a_text() -> None:
    """Each key has one text: the assignment's own, or the engine's for a kind every assignment shares."""
    from autograder.grading.checks import MISCONCEPTIONS
    assert set(ROUND6_KEYS) <= set(read_misconceptions(HIDDEN / "_misconceptions.py")) | set(MISCONCEPTIONS)


def _shifted(shift):
    def softmax(x, dim=-1):
        e = torch.exp(x - shift(x, dim))
        return e / e.sum(dim=dim, keepdim=True)
    return softmax


MAX_ABS = [_shifted(lambda x, d: x.abs().amax(dim=d, keepdim=True)),
           _shifted(lambda x, d: torch.max(torch.abs(x), dim=d, keepdim=True)[0])]
GLOBAL = [_shifted(lambda x, d: x.max()), _shifted(lambda x, d: x.amax())]


@pytest.mark.parametrize("fn, key", [(f, "softmax_shift_by_max_abs") for f in MAX_ABS]
                         + [(f, "global_max_subtraction") for f in GLOBAL] + [(ref.stable_softmax, None)])
def test_q3_a_shift_is_named_by_which_constant_a_second_probe_shows(fn, key) -> None:
    rng = torch.Generator().manual_seed(1)
    test = _test("q3", "test_float16_logits_in_the_thousands")
    assert _key(lambda: test(TrustedProxy(fn, "cpu"), "cpu", rng)) == key
    # the max-abs shift's NaN rows with -inf entries are named; one global max is right there
    got = _key(lambda: _test("q3", "test_minus_inf_entries")(TrustedProxy(fn, "cpu"), "cpu",
                                                            torch.Generator().manual_seed(2)))
    assert got == (key if key == "softmax_shift_by_max_abs" else None)


def test_the_second_shift_probe_tells_only_its_two_readings() -> None:
    assert diag.global_or_max_abs(MAX_ABS[0](diag.MAX_ABS_PROBE.clone())) == "softmax_shift_by_max_abs"
    assert diag.global_or_max_abs(GLOBAL[0](diag.MAX_ABS_PROBE.clone())) == "global_max_subtraction"
    assert diag.global_or_max_abs(torch.full((1, 3), 1 / 3)) is None          # uniform: neither
    assert diag.global_or_max_abs(torch.zeros(3)) is None                      # another shape


@pytest.mark.parametrize("out, key", [((4, 10, 10, 128), "output_keeps_key_axis"),
                                      ((4, 10, 128, 10), "output_keeps_key_axis"),
                                      ((1, 4, 10, 128), None), ((4, 10, 10, 64), None)])
def test_q1_an_output_that_keeps_the_key_axis(out, key) -> None:
    got = _key(lambda: _test("q1", "test_out_shape")(out))
    assert got == key if key else got != "output_keeps_key_axis"


@pytest.mark.parametrize("fn, key", [
    (lambda T_q, T_k=None: ref.causal_mask(T_q, T_k)[None], "size_one_axes_added"),
    (lambda T_q, T_k=None: ref.causal_mask(T_q, T_k).view(1, 1, T_q, T_q if T_k is None else T_k).float(),
     "size_one_axes_added"),
    (lambda T_q, T_k=None: ref.causal_mask(T_q, T_k).T.contiguous()[None], None),         # wrong values
    (lambda T_q, T_k=None: ref.causal_mask(T_q if T_k is None else T_k, T_q), "causal_sizes_swapped"),
    (lambda T_q, T_k=None: torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.bool).triu().T,
     "causal_sizes_swapped"),
])
def test_q4_masks_named_by_kind(fn, key) -> None:
    got = _key(lambda: _test("q4", "test_more_keys_than_queries")(TrustedProxy(fn, "cpu"),
                                                                  torch.Generator().manual_seed(0)))
    assert got == key if key else got not in ROUND6_KEYS


@pytest.mark.parametrize("weights, key", [(ref.weights3_causal[None], "size_one_axes_added"),
                                          (ref.weights3_causal.float()[None, None], "size_one_axes_added"),
                                          (ref.weights3[None], "mask_ignored"),
                                          (ref.weights3_causal.T.contiguous()[None], "")])
def test_q6_causal_weights_with_leading_axes(weights, key) -> None:
    got = _key(lambda: _test("q6", "test_weights3_causal")(weights))
    assert got == key if key != "mask_ignored" else got != "size_one_axes_added"


@pytest.mark.parametrize("ratio, key", [(0.25, "cost_ratio_inverted"), (1 / 4, "cost_ratio_inverted"),
                                        (4, None), (0.5, ""), ("0.25", "number_as_string"), (True, "")])
def test_q8_a_ratio_upside_down(ratio, key) -> None:
    assert _key(lambda: _test("q8", "test_cost_ratio")(ratio)) == key


def test_q8_twice_the_madds_says_both_readings() -> None:
    # 2 T^2 d_k = T^2 x 128, Question 1's d_v (naming11, blind10): one key, every reading in its message
    with pytest.raises(Misconception) as named:
        _test("q8", "test_score_madds")(2 * ref.score_madds)
    assert named.value.key == "madds_counted_twice"
    assert "weights @ V" in str(named.value) and "Question 1's d_v" in str(named.value)
    assert "weights @ V" in read_misconceptions(HIDDEN / "_misconceptions.py")["madds_counted_twice"]


def test_q3_a_negative_dim_turned_positive_one_axis_early() -> None:
    def early(x, dim=-1):
        axis = dim if dim >= 0 else x.dim() + dim - 1
        e = torch.exp(x - x.amax(dim=axis, keepdim=True))
        return e / e.sum(dim=axis, keepdim=True)
    rng = torch.Generator().manual_seed(3)
    assert _key(lambda: _test("q3", "test_dim_argument")(TrustedProxy(early, "cpu"), "cpu", rng)) \
        == "negative_dim_off_by_one"


# naming7 (issue 21, third round): blind6's misses built as kinds, each named from a probe or an equality

def _mean_centred(x, dim=-1):
    e = torch.exp(x - x.mean(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def _midrange_centred(x, dim=-1):      # another shift a -inf entry breaks, which is not the mean
    e = torch.exp(x - (x.amax(dim=dim, keepdim=True) + x.amin(dim=dim, keepdim=True)) / 2)
    return e / e.sum(dim=dim, keepdim=True)


def _sdpa_with(softmax, fill=float("-inf")):
    def sdpa(Q, K, V, mask=None):
        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        if mask is not None:
            s = s.masked_fill(~mask, fill)
        return softmax(s, dim=-1) @ V
    return sdpa


@pytest.mark.parametrize("softmax, shift", [
    (ref.stable_softmax, ""), (_mean_centred, "softmax_subtracts_mean"), (_midrange_centred, None)])
def test_a_shift_only_a_minus_inf_entry_breaks_is_told_from_the_max(softmax, shift) -> None:
    # both probes hold finite maxima: a sound softmax is right on them; the mean is NaN and overflows;
    # the midrange is NaN on the -inf row but does not overflow the wide one: cannot be named
    assert diag.softmax_shift(TrustedProxy(_sdpa_with(softmax), "cpu")) == shift


def test_plus_inf_fill_is_named_only_when_the_softmax_takes_a_minus_inf_score() -> None:
    rng = torch.Generator().manual_seed(4)
    Q, K, V = (torch.randn(2, 5, 4, generator=rng, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 5, 5, generator=rng) < 0.6
    mask[..., 0] = True
    for softmax, key in ((ref.stable_softmax, "pos_inf_fill"), (_mean_centred, "softmax_subtracts_mean")):
        fill = float("inf") if key == "pos_inf_fill" else float("-inf")
        fn = TrustedProxy(_sdpa_with(softmax, fill), "cpu")
        assert _key(lambda f=fn: diag.judge(f, Q, K, V, mask, f(Q, K, V, mask=mask), "the output")) == key


def test_q3_mean_centred_softmax_is_named_from_its_probes() -> None:
    fn = TrustedProxy(_mean_centred, "cpu")
    assert _key(lambda: _test("q3", "test_minus_inf_entries")(fn, "cpu", torch.Generator().manual_seed(2))) \
        == "softmax_subtracts_mean"
    # float16 rows whose max is within ~11 of their mean do not overflow: passed, or named, never generic
    for seed in (0,):
        assert _key(lambda s=seed: _test("q3", "test_float16_logits_in_the_thousands")(
            fn, "cpu", torch.Generator().manual_seed(s))) in (None, "softmax_subtracts_mean")


@pytest.mark.parametrize("weights, out, key", [
    ((4, 10, 10), (4, 128), "shape_axis_dropped"),           # pooled over the queries
    ((4, 10, 10), (4, 10), "shape_axis_dropped"),            # the feature axis left out
    ((4, 10), (4, 10, 128), "shape_axis_dropped"),
])
def test_q1_an_axis_left_out(weights, out, key) -> None:
    keys = {_key(lambda: _test("q1", "test_weights_shape")(weights)),
            _key(lambda: _test("q1", "test_out_shape")(out))} - {None}
    assert keys == {key}


def test_q2_variance_of_an_input() -> None:
    Q, K, V = ref._batched_example()
    assert _key(lambda: _test("q2", "test_score_variances")(float(Q.var()), ref.scaled_score_var)) \
        == "variance_of_an_input"
    assert _key(lambda: _test("q2", "test_score_variances")(ref.raw_score_var, float((K / 8 ** 0.5).var()))) \
        == "variance_of_an_input"


@pytest.mark.parametrize("count, test, key", [
    (1024 * 1024 // 2, "test_attn_entries", "count_halved_symmetric"),
    (1024 * 1024 * 32, "test_score_madds", "count_halved_symmetric"),
    (1024 * 1025 // 2, "test_attn_entries", "causal_triangle_count"),  # the triangle stays its own kind
])
def test_q8_half_the_count(count, test, key) -> None:
    assert _key(lambda: _test("q8", test)(count)) == key


def _list_mask(T_q, T_k=None):
    return ref.causal_mask(T_q, T_k).tolist()


def _wrong_list_mask(T_q, T_k=None):
    return ref.causal_mask(T_q, T_k).T.tolist() if T_k is None else [[True] * T_k] * T_q


def test_q4_mask_as_a_list_is_named_only_with_the_right_values() -> None:
    rng = torch.Generator().manual_seed(1)
    assert _key(lambda: _test("q4", "test_square")(TrustedProxy(_list_mask, "cpu"), rng)) == "returns_list_not_tensor"
    assert _key(lambda: _test("q4", "test_square")(TrustedProxy(_wrong_list_mask, "cpu"), rng)) == ""


def test_an_output_squeezed_is_named_from_a_batch_of_one() -> None:
    rng = torch.Generator().manual_seed(2)
    Q, K, V = (torch.randn(1, 5, 4, generator=rng, dtype=torch.float64) for _ in range(3))
    squeezed = TrustedProxy(lambda Q, K, V, mask=None: ref.scaled_dot_product_attention(Q, K, V, mask).squeeze(), "cpu")
    assert _key(lambda: diag.judge(squeezed, Q, K, V, None, squeezed(Q, K, V), "the output")) \
        == "size_one_axis_dropped"


# ---------------------------------------------------------------------------------------------
# naming8 (issue 21, blind7's misses as kinds)
# ---------------------------------------------------------------------------------------------

def _trace_weights(divisor: float, causal: bool = False) -> torch.Tensor:
    s = ref.Q3 @ ref.K3.T / divisor
    if causal:
        s = s.masked_fill(~ref.causal_mask(3), float("-inf"))
    return torch.softmax(s, -1)


@pytest.mark.parametrize("causal", [False, True])
def test_hand_trace_scaled_by_the_token_count_is_not_scale_by_d_v(causal: bool) -> None:
    """V = I stood in for V3 in the weights' variants, so d_v was T = 3: sqrt(3) was named scale_by_d_v."""
    name, arg = ("test_weights3_causal", "weights3_causal") if causal else ("test_weights3", "weights3")
    test = _test("q6", name)
    assert _key(lambda: test(**{arg: _trace_weights(math.sqrt(3), causal)})) == "scale_by_T"
    # sqrt(d_v) = sqrt(2) = d_k ** 0.25 on the trace (naming round 58): scale_by_d_v only where the cells read V's width
    d_v = _trace_weights(math.sqrt(ref.V3.shape[-1]), causal)
    reads_width = SimpleNamespace(cells=[f"scores3 = Q3 @ K3.T / math.sqrt(V3.shape[-1])\n{arg} = torch.softmax(scores3, -1)\n"])
    assert _key(lambda: test(**{arg: d_v, "submission": reads_width})) == "scale_by_d_v"
    assert _key(lambda: test(**{arg: d_v})) == ""
    assert _key(lambda: test(**{arg: _trace_weights(2.0, causal)})) is None


def _buffer_mask(size: int, crash: bool = False):
    tril = torch.tril(torch.ones(size, size))

    def causal_mask(T_q, T_k=None):
        T_k = T_q if T_k is None else T_k
        m = tril[:T_q, :T_k] == 1
        return m.view(T_q, T_k) if crash else m
    return causal_mask


# test_square asks for a mask of 300-340 (small buffers); test_more_keys_than_queries for 3-7 queries over
# 1030-1100 keys, past nanoGPT's block_size = 1024, which a square one that long would cost every submission
@pytest.mark.parametrize("size,crash,test_name", [
    (16, False, "test_square"), (256, False, "test_square"), (16, False, "test_more_keys_than_queries"),
    (512, True, "test_more_keys_than_queries"), (1024, True, "test_more_keys_than_queries"),
    (1024, False, "test_more_keys_than_queries")])
def test_fixed_size_buffer_mask_is_named(size: int, crash: bool, test_name: str) -> None:
    test = _test("q4", test_name)
    fn = TrustedProxy(_buffer_mask(size, crash), "cpu")
    assert _key(lambda: test(causal_mask=fn, rng=torch.Generator().manual_seed(0))) == "fixed_size_mask"


def test_long_mask_right_or_wrong_everywhere_is_not_a_fixed_buffer() -> None:
    test = _test("q4", "test_square")
    right = TrustedProxy(ref.causal_mask, "cpu")
    assert _key(lambda: test(causal_mask=right, rng=torch.Generator().manual_seed(0))) is None
    inverted = TrustedProxy(lambda T_q, T_k=None: ~ref.causal_mask(T_q, T_k), "cpu")
    assert _key(lambda: test(causal_mask=inverted, rng=torch.Generator().manual_seed(0))) == "inverted_mask"


def _sdpa_if_mask(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ V


def test_if_mask_on_a_tensor_is_named_from_two_reruns() -> None:
    fn = TrustedProxy(_sdpa_if_mask, "cpu")
    test = _test("q5", "test_float32_4d_random_mask")
    assert _key(lambda: test(fn, "cpu", torch.Generator().manual_seed(0))) == "tensor_truthiness"


def test_a_truthiness_crash_that_is_wrong_without_a_mask_is_not_named() -> None:
    def wrong(Q, K, V, mask=None):
        return _sdpa_if_mask(Q, K, V, mask) * 2.0
    test = _test("q5", "test_float32_4d_random_mask")
    assert _key(lambda: test(TrustedProxy(wrong, "cpu"), "cpu", torch.Generator().manual_seed(0))) != "tensor_truthiness"


def test_out3_from_the_causal_weights_is_named() -> None:
    assert _key(lambda: _test("q6", "test_out3")(out3=ref.weights3_causal @ ref.V3)) == "output_from_causal_weights"


def _divides_by_max(x, dim=-1):
    e = torch.exp(x / x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def test_softmax_dividing_by_the_max_is_named() -> None:
    fn = TrustedProxy(_divides_by_max, "cpu")
    assert _key(lambda: _test("q3", "test_dim_argument")(fn, "cpu", torch.Generator().manual_seed(0))) \
        == "softmax_divides_by_max"
    trace = ref.Q3 @ ref.K3.T / 2
    assert _key(lambda: _test("q6", "test_weights3")(weights3=_divides_by_max(trace))) == "softmax_divides_by_max"


def test_variance_of_the_first_sequence_only_is_named() -> None:
    Q, K, _ = ref._batched_example()
    S = Q @ K.transpose(-2, -1)
    test = _test("q2", "test_score_variances")
    assert _key(lambda: test(raw_score_var=float(S[0].var()),
                             scaled_score_var=float((S[0] / 8 ** 0.5).var()))) == "variance_of_one_slice"


@pytest.mark.parametrize("shape", [(4, 64, 64), (4, 128, 128), (4, 64, 128)])
def test_weights_sized_by_the_feature_widths_are_named(shape) -> None:
    assert _key(lambda: _test("q1", "test_weights_shape")(weights_shape=shape)) == "weights_sized_by_features"


# naming9: blind8's misses built as kinds, each proved by a probe or a value


def _fixed_d_k(d_k: float):
    def fn(Q, K, V, mask=None):
        return ref.scaled_dot_product_attention(Q * math.sqrt(Q.shape[-1] / d_k), K, V, mask)
    return fn


def _by_keys(Q, K, V, mask=None):
    return ref.scaled_dot_product_attention(Q * math.sqrt(Q.shape[-1] / K.shape[-2]), K, V, mask)


@pytest.mark.parametrize("fn, key", [(_fixed_d_k(8), "scale_constant"), (_fixed_d_k(64), "scale_constant"),
                                     (_by_keys, "scale_by_T"), (ref.scaled_dot_product_attention, None)])
def test_a_fixed_d_k_is_not_named_by_a_size_it_equals_on_one_input(fn, key) -> None:
    """T = 8 = the notebook's global d_k on this input (and 64 = 2 d_k): the probes, whose sizes all
    differ, tell a constant from a sequence length."""
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 8, d, generator=g, dtype=torch.float64) for d in (32, 32, 5))
    assert _key(lambda: diag.check(TrustedProxy(fn, "cpu"), Q, K, V, None, "the output")) == key


def _aranges(T_q, T_k=None):
    return torch.arange(T_q if T_k is None else T_k) <= torch.arange(T_q)


def test_a_one_dimensional_mask_comparison_is_named_in_q4_and_q6() -> None:
    assert _key(lambda: diag.name_mask_not_outer(_aranges, "it")) == "mask_not_outer"
    assert _key(lambda: diag.name_mask_not_outer(ref.causal_mask, "it")) is None
    assert _key(lambda: _test("q4", "test_square")(TrustedProxy(_aranges, "cpu"),
                                                     torch.Generator().manual_seed(0))) == "mask_not_outer"
    test = _test("q6", "test_weights3_causal")
    # the cell applied the (all-True) mask it got: the mask is blamed, not the cell
    assert _key(lambda: test(ref.weights3, TrustedProxy(_aranges, "cpu"))) == "mask_not_outer"
    assert _key(lambda: test(ref.weights3, TrustedProxy(ref.causal_mask, "cpu"))) == "mask_ignored"


def test_plain_sum_weights_and_counted_additions_are_named() -> None:
    s = ref.Q3 @ ref.K3.T / 2.0
    assert _key(lambda: _test("q6", "test_weights3")(weights3=s / s.sum(-1, keepdim=True))) == "weights_by_plain_sum"
    for madds in (1024 ** 2 * 63, 1024 ** 2 * 127):
        assert _key(lambda m=madds: _test("q8", "test_score_madds")(score_madds=m)) == "madds_counts_additions"


# naming10: blind9's misses built as kinds, each named from the value that mistake gives on the same input


def test_every_naming10_key_has_a_text() -> None:
    keys = ("causal_mask_forced", "weights_times_wrong_input", "theoretical_variance", "e_rounded", "count_in_bytes")
    assert set(keys) <= set(read_misconceptions(HIDDEN / "_misconceptions.py"))


def _causal_forced(combine: bool):
    def fn(Q, K, V, mask=None):
        causal = ref.causal_mask(Q.shape[-2], K.shape[-2])
        if mask is None:
            return ref.scaled_dot_product_attention(Q, K, V, causal if combine else None)
        return ref.scaled_dot_product_attention(Q, K, V, mask & causal if combine else causal)
    return fn


def _qkv(d_v: int = 5):
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, n, d, generator=g, dtype=torch.float64) for n, d in ((4, 6), (7, 6), (7, d_v)))
    return Q, K, V, torch.rand(2, 4, 7, generator=g) < 0.6


@pytest.mark.parametrize("combine", [False, True])
def test_a_causal_mask_forced_on_the_call_is_named_and_a_causal_mask_passes(combine) -> None:
    Q, K, V, mask = _qkv()
    fn = TrustedProxy(_causal_forced(combine), "cpu")
    assert _key(lambda: diag.check(fn, Q, K, V, mask, "the output")) == "causal_mask_forced"
    causal = ref.causal_mask(4, 7)
    assert _key(lambda: diag.check(fn, Q, K, V, causal, "the output")) is None      # the mask IS causal
    assert _key(lambda: diag.check(fn, Q, K, V, None, "the output")) == ("causal_mask_forced" if combine else None)


@pytest.mark.parametrize("d_v", [5, 6])
def test_weights_times_keys_is_named_whatever_d_v(d_v) -> None:
    Q, K, V, mask = _qkv(d_v)

    def fn(Q, K, V, mask=None):
        return ref.scaled_dot_product_attention(Q, K, K, mask)
    assert _key(lambda: diag.check(TrustedProxy(fn, "cpu"), Q, K, V, mask, "the output")) \
        == "weights_times_wrong_input"


def test_theory_and_self_scores_in_q2_are_named() -> None:
    Q, K, _ = ref._batched_example()
    test = _test("q2", "test_score_variances")
    assert _key(lambda: test(raw_score_var=8.0, scaled_score_var=1.0)) == "theoretical_variance"
    # the scaled variance alone exactly 1: the theory, or scores divided by their own std (blind30): both said
    assert _key(lambda: test(raw_score_var=ref.raw_score_var, scaled_score_var=1.0)) == "variance_one_theory_or_own_std"
    S = Q @ K.transpose(-2, -1)
    for correction in (1, 0):       # an unbiased or a biased std: 1, or n / (n - 1)
        own = float((S / S.std(correction=correction)).var())
        assert _key(lambda own=own: test(raw_score_var=ref.raw_score_var, scaled_score_var=own)) \
            == "variance_one_theory_or_own_std", own
    S = K @ K.transpose(-2, -1)
    assert _key(lambda: test(raw_score_var=float(S.var()), scaled_score_var=float((S / 8 ** 0.5).var()))) \
        == "keys_are_queries"


def test_a_rounded_e_is_named_only_where_it_fails() -> None:
    s = ref.Q3 @ ref.K3.T / 2
    test = _test("q6", "test_weights3")
    for b, key in ((2.7, "e_rounded"), (3.0, "e_rounded"), (2.718, None)):
        assert _key(lambda b=b: test(weights3=b ** s / (b ** s).sum(-1, keepdim=True))) == key


@pytest.mark.parametrize("size, key", [(4, "count_times_four"), (8, "count_in_bytes")])
def test_entries_in_bytes_are_named(size, key) -> None:
    # 4 T^2 is float32's bytes, or the count at T doubled (blind27): one key whose text says both
    assert _key(lambda: _test("q8", "test_attn_entries")(attn_entries=1024 * 1024 * size)) == key


def test_twice_the_entries_is_said_both_ways_and_named_neither() -> None:
    """blind21: 2 T^2 was the scores and the weights counted together, named count_in_bytes (float16's 2
    bytes). One number cannot say which: the message gives both readings."""
    with pytest.raises(AssertionError, match="two T x T matrices") as said:
        _test("q8", "test_attn_entries")(attn_entries=2 * 1024 * 1024)
    assert not isinstance(said.value, Misconception) and "float16" in str(said.value)


# naming11: a count written with another question's width; an option written out in words
@pytest.mark.parametrize("count, key", [
    (1024 * 1024 * 128, "madds_counted_twice"),    # Question 1's d_v = 128: also 2 T^2 d_k; the message says both
    (1024 * 1024 * 64, None),
])
def test_q8_madds_with_another_questions_width(count, key) -> None:
    assert _key(lambda: _test("q8", "test_score_madds")(count)) == key


@pytest.mark.parametrize("answer, key", [
    ("D (float16 underflow)", "zeroing_harmless_but_float16"),
    ("B) an upper-triangular mask", "upper_triangular_mask"),
    ("(A). mask after", "zero_after_softmax"),
    ("C (the weights no longer sum to 1)", "answer_extra_characters"),   # the right letter, not the letter only
    ("A softmax then a mask", ""),                  # "A" here may be the article: read as no letter
    ("(c)", None),
])
def test_q7_option_written_out(answer, key) -> None:
    assert _key(lambda: _test("q7", "test_trap_answer")(answer)) == key


@pytest.mark.parametrize("weights, out, key", [
    ((40, 10), (40, 128), "batch_folded_into_rows"),      # B x T_q = 40 rows, the batch axis gone
    ((4, 10, 10), (40, 128), "batch_folded_into_rows"),
    ((40, 10, 10), (4, 10, 128), ""),                       # a batch axis kept: not this kind
])
def test_q1_batch_folded_into_rows(weights, out, key) -> None:
    keys = {_key(lambda: _test("q1", "test_weights_shape")(weights)),
            _key(lambda: _test("q1", "test_out_shape")(out))} - {None}
    assert keys == {key}


@pytest.mark.parametrize("raw, scaled, key", [
    (7.9, 7.9 / 8, ""),                                     # other scores, scaled right, no replay gives 7.9
    (8.0, 1.0, "theoretical_variance"),                     # the theory's numbers: their own kind
    (7.9, 1.0, ""),                                         # not scaled by 1/8: no kind
])
def test_q2_variances_of_other_scores(raw, scaled, key) -> None:
    assert _key(lambda: _test("q2", "test_score_variances")(raw, scaled)) == key


# naming21: a fresh sample is named only when a replay gives its very value; K reshaped, not transposed, is its
# own kind (the example's tensors, regrouped)
def test_q2_fresh_sample_replayed_and_keys_reshaped() -> None:
    torch.manual_seed(0)
    Qn, Kn = torch.randn(1000, 8), torch.randn(1000, 8)
    raw = float((Qn @ Kn.T).var())
    assert _key(lambda: _test("q2", "test_score_variances")(raw, raw / 8)) == "variance_of_other_scores"
    Q, K, _ = ref._batched_example()
    S = Q @ K.reshape(2, 8, 5)
    raw, scaled = float(S.var()), float((S / 8 ** 0.5).var())
    assert _key(lambda: _test("q2", "test_score_variances")(raw, scaled)) == "view_as_transpose"


# naming21: weights3_causal NaN in every row is mask_times_inf only when the notebook's softmax handles -inf
def test_q6_trace_mask_times_inf_needs_a_sound_softmax() -> None:
    def softmax(x, dim=-1):
        e = torch.exp(x - x.amax(dim=dim, keepdim=True))
        return e / e.sum(dim=dim, keepdim=True)

    def softmax_min(x, dim=-1):     # subtracts one global minimum: NaN everywhere once a -inf is in
        e = torch.exp(x - x.min())
        return e / e.sum(dim=dim, keepdim=True)

    nan = torch.full((3, 3), float("nan"), dtype=torch.float64)
    test = _test("q6", "test_weights3_causal")
    assert _key(lambda: test(nan, ref.causal_mask, stable_softmax=softmax)) == "mask_times_inf"
    assert _key(lambda: test(nan, ref.causal_mask, stable_softmax=softmax_min)) != "mask_times_inf"
    assert _key(lambda: test(nan, ref.causal_mask)) != "mask_times_inf"


# naming12: the wrong operand transposed (Q^T K: d_k x d_k, summed over the tokens) on the example's own tensors
def test_q2_wrong_operand_transposed() -> None:
    Q, K, _ = ref._batched_example()
    S = Q.transpose(-2, -1) @ K
    raw, scaled = float(S.var()), float((S / 8 ** 0.5).var())
    assert _key(lambda: _test("q2", "test_score_variances")(raw, scaled)) == "weights_sized_by_features"


# naming12: T d_k^2 (= T^2 x 4 here, T = 16 d_k): named unless attn_entries is the float32 bytes
@pytest.mark.parametrize("entries, key", [(None, "madds_features_squared"), (1024 * 1024, "madds_features_squared"),
                                          (4 * 1024 * 1024, "")])
def test_q8_madds_width_squared(entries, key) -> None:
    assert _key(lambda: _test("q8", "test_score_madds")(1024 * 64 * 64, entries)) == key


def _log_domain_unshifted(x, dim=-1):
    return torch.exp(x - torch.log(torch.exp(x).sum(dim=dim, keepdim=True)))


def _nan_to_num_unshifted(x, dim=-1):
    e = torch.exp(x)
    return torch.nan_to_num(e / e.sum(dim=dim, keepdim=True))


# naming12: an unshifted softmax whose overflowing row comes out 0 (log domain, or NaN turned into 0): the
# probe's row of 100, 99, 10 gets weights of exactly 0; no right softmax, nor another shift, gives that
@pytest.mark.parametrize("fn, named", [(_log_domain_unshifted, True), (_nan_to_num_unshifted, True),
                                       (ref.stable_softmax, False), (ref.softmax_no_max_subtraction, False)])
def test_overflow_zeroes_weights(fn, named) -> None:
    assert diag.overflow_zeroes_weights(fn(ref.SOFTMAX_PROBE.clone(), dim=-1)) is named


# naming14 (blind13's kinds): one extra axis whose removal gives the right shape; a count at a rounded T
@pytest.mark.parametrize("question, name, args, key", [
    ("q1", "test_weights_shape", ((4, 8, 10, 10),), "shape_axis_added"),     # a heads axis of 8
    ("q1", "test_out_shape", ((4, 10, 2, 128),), "shape_axis_added"),
    ("q1", "test_weights_shape", ((4, 10, 4, 10),), "batch_axis_repeated"),  # the batch size again: its own kind
    ("q1", "test_weights_shape", ((4, 10, 10),), None),
    ("q8", "test_attn_entries", (1000 * 1000,), "size_rounded"),
    ("q8", "test_score_madds", (1000 * 1000 * 64, None), "size_rounded"),
    ("q8", "test_score_madds", (1024 * 1024 * 64, None), None),
])
def test_naming14_shape_and_count_kinds(question, name, args, key) -> None:
    assert _key(lambda: _test(question, name)(*args)) == key


def _inf_to_zero(x, dim=-1):
    x = torch.where(torch.isinf(x), torch.zeros_like(x), x)
    return ref.stable_softmax(x, dim)


def _inf_to_min(x, dim=-1):      # a finite fill far below every logit: right
    return ref.stable_softmax(torch.nan_to_num(x), dim)


# naming14: the probe that blames q5/q6's mask_fills_zero on the softmax's own NaN guard
@pytest.mark.parametrize("fn, named", [(_inf_to_zero, True), (_inf_to_min, False), (ref.stable_softmax, False),
                                       (None, False)])
def test_softmax_turns_inf_finite(fn, named) -> None:
    assert diag.softmax_turns_inf_finite(fn) is named


def _inf_to_zero_after_shift(x, dim=-1):     # the guard after the shift: blocked entries get exp(0) = 1
    s = x - x.amax(dim=dim, keepdim=True)
    e = torch.exp(torch.where(torch.isinf(s), torch.zeros_like(s), s))
    return e / e.sum(dim=dim, keepdim=True)


@pytest.mark.parametrize("fn, key", [(_inf_to_zero, "softmax_inf_to_zero"), (_inf_to_zero_after_shift,
                                                                             "softmax_inf_to_zero"),
                                     (_inf_to_min, None)])
def test_q3_inf_entries_weighted(fn, key) -> None:
    assert _key(lambda: _test("q3", "test_minus_inf_entries")(TrustedProxy(fn, "cpu"), "cpu",
                                                              torch.Generator().manual_seed(3))) == key


# naming15 (blind14's kinds); each hidden file loaded once for these tests
@functools.cache
def _cached_test(question: str, name: str):
    return _test(question, name)


def _softmax_unsqueeze_last(max_last: bool, sum_last: bool):
    def fn(x, dim=-1):
        m = x.max(dim=dim).values.unsqueeze(-1) if max_last else x.max(dim=dim, keepdim=True).values
        e = torch.exp(x - m)
        return e / (e.sum(dim=dim).unsqueeze(-1) if sum_last else e.sum(dim=dim, keepdim=True))
    return fn


@pytest.mark.parametrize("fn, key", [(_softmax_unsqueeze_last(True, False), "keepdim_by_unsqueeze_last"),
                                     (_softmax_unsqueeze_last(True, True), "keepdim_by_unsqueeze_last"),
                                     (_softmax_unsqueeze_last(False, False), None)])
def test_q3_keepdim_put_back_last(fn, key) -> None:
    got = _key(lambda: _cached_test("q3", "test_dim_argument")(TrustedProxy(fn, "cpu"), "cpu",
                                                                torch.Generator().manual_seed(4)))
    assert got == key


def test_q2_scores_over_8_never_divide_by_dk_alone() -> None:
    # 8 is the example's d_k and sqrt(64): scores / d_k and scores / sqrt(64) give the same variance
    assert _key(lambda: _cached_test("q2", "test_score_variances")(ref.raw_score_var, ref.raw_score_var / 64)) \
        == "divisor_d_k_or_sqrt_64"


@pytest.mark.parametrize("entries, key", [(ref.attn_entries, "madds_with_sqrt_d_k"), (None, "madds_with_sqrt_d_k"),
                                          (8 * ref.attn_entries, "")])
def test_q8_madds_with_sqrt_d_k(entries, key) -> None:
    assert _key(lambda: _cached_test("q8", "test_score_madds")(1024 * 1024 * 8, entries)) == key


# naming17: a (values, indices) pair used as a tensor, named from the crash's own words
def _pair_subtracted(op):
    def softmax(x, dim=-1):
        pair = {"max": lambda: torch.max(x, dim=dim, keepdim=True), "min": lambda: x.min(dim, True),
                "topk": lambda: x.topk(1, dim=dim), "sort": lambda: torch.sort(x, dim=dim, descending=True),
                "median": lambda: x.median(dim, True)}[op]()
        e = torch.exp(x - pair)
        return e / e.sum(dim=dim, keepdim=True)
    return softmax


def _pair_unsqueezed(x, dim=-1):
    e = torch.exp(x.sub(x.max(dim=dim).unsqueeze(dim)))
    return e / e.sum(dim=dim, keepdim=True)


def _plain_tuple_subtracted(x, dim=-1):      # a tuple the student built: not a torch call's pair
    e = torch.exp(x - (x.amax(dim=dim, keepdim=True), 0))
    return e / e.sum(dim=dim, keepdim=True)


@pytest.mark.parametrize("fn, key", [
    *((_pair_subtracted(op), "reduction_tuple_as_tensor") for op in ("max", "min", "topk", "sort", "median")),
    (_pair_unsqueezed, "reduction_tuple_as_tensor"),       # an AttributeError of the pair
    (_plain_tuple_subtracted, ""),                         # "'Tensor' and 'tuple'": no name
    (ref.stable_softmax, None),
])
def test_q3_a_values_indices_pair_used_as_a_tensor(fn, key) -> None:
    rng = torch.Generator().manual_seed(3)
    assert _key(lambda: _test("q3", "test_matches_softmax")(TrustedProxy(fn, "cpu"), "cpu", rng)) == key


def test_q5_a_values_indices_pair_in_the_attention_itself() -> None:
    def attention(Q, K, V, mask=None):
        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        e = torch.exp(s - s.max(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True) @ V
    Q, K, V = (torch.randn(2, 3, 4, dtype=torch.float64) for _ in range(3))
    with pytest.raises(Misconception) as named:
        diag.check(TrustedProxy(attention, "cpu"), Q, K, V, None, "the output")
    assert named.value.key == "reduction_tuple_as_tensor"


@pytest.mark.parametrize("missing", ["weights3", "out3", "weights3_causal"])
def test_q6_a_missing_answer_is_named_from_a_pair_crash_of_the_softmax(missing) -> None:
    hook = _test("q6", "test_weights3").on_missing
    names = {"stable_softmax": TrustedProxy(_pair_subtracted("max"), "cpu"),
             "causal_mask": TrustedProxy(ref.causal_mask, "cpu")}
    with pytest.raises(Misconception) as named:
        hook(missing, names.get)
    assert named.value.key == "reduction_tuple_as_tensor"
    hook(missing, {**names, "stable_softmax": TrustedProxy(_plain_tuple_subtracted, "cpu")}.get)   # says nothing


# naming17: the output stored where the weights are asked, and the converse, proven on the same Q3, K3, V3
@pytest.mark.parametrize("test, value, key", [
    ("test_weights3_causal", ref.weights3_causal @ ref.V3, "weights_as_output"),
    ("test_weights3", ref.out3, "weights_as_output"),
    ("test_out3", ref.weights3, "weights_as_output"),
    ("test_weights3_causal", ref.out3, ""),          # the unmasked output: two mistakes, said in words only
    ("test_weights3", ref.weights3_causal @ ref.V3, ""),
    ("test_out3", ref.weights3_causal, ""),
    ("test_weights3_causal", ref.weights3_causal, None),
    ("test_weights3", ref.weights3, None),
    ("test_out3", ref.out3, None),
])
def test_q6_output_for_weights_and_weights_for_output(test, value, key) -> None:
    assert _key(lambda: _test("q6", test)(value)) == key


def test_q6_an_answer_of_the_other_shape_says_whose_shape_it_has() -> None:
    with pytest.raises(AssertionError, match=r"got \(3, 2\): the shape of the causal attention output"):
        _test("q6", "test_weights3_causal")(ref.out3)


def test_q6_out3_from_right_weights_is_told_about_the_product_not_the_scores() -> None:
    # blind34: out3 typed by hand with its two columns swapped, weights3 typed right (nested lists): the advice was
    # to recompute the scores and the softmax, which were right
    swapped = ref.out3.flip(-1).tolist()
    typed_weights = [[round(float(v), 4) for v in row] for row in ref.weights3]
    with pytest.raises(AssertionError) as e:
        _test("q6", "test_out3")(swapped, typed_weights)
    assert "your weights3 is right: out3 is weights3 @ V3" in str(e.value) and "recompute" not in str(e.value)
    with pytest.raises(AssertionError) as e:                 # wrong weights: the scores' advice stays
        _test("q6", "test_out3")(swapped, (ref.weights3 * 0.5).tolist())
    assert "your weights3 is right" not in str(e.value)
