"""sdpa-from-scratch's second round of names (issue 21), in-process: each is given only when the output
matches what that mistake gives on the same input, or a second call shows it, and never to a correct
function; the test shapes keep every catalogued mistake apart."""
from __future__ import annotations

from types import SimpleNamespace
import importlib.util
import itertools
import math
from pathlib import Path

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading import checks
from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file, read_misconceptions
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"


def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_diagnose", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _load_diagnose()


def _test(question: str, name: str):
    return next(c.func for c in load_test_file(HIDDEN / f"{question}.py", ROOT) if c.name == name)


def _qkv(shape_q, shape_k, shape_v, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in (shape_q, shape_k, shape_v))


# --- the catalogue ---------------------------------------------------------------------------------------

def test_every_key_the_diagnosis_names_has_a_text() -> None:
    texts = read_misconceptions(HIDDEN / "_misconceptions.py")
    keys = {k.split("/")[0] for k in diag.VARIANT_FUNCTIONS} | {k.split("/")[0] for k in diag.KEEPDIM}
    keys |= {"scale_by_batch_dim", "mask_unsqueezed", "dtype_changed", "gradient_cut", "softmax_global_sum",
             "log_softmax", "softmax_twice", "mask_not_bool", "causal_ignores_T_k", "variance_scaled_like_scores",
             "cost_linear_in_T", "entries_times_d_k", "bool_mask_arithmetic", "softmax_over_batch_axis",
             "keys_not_transposed", "torch_sqrt_of_int"}
    assert keys <= set(texts) | set(checks.MISCONCEPTIONS)


@pytest.mark.parametrize("shapes, dtype, mask_shape", [
    (((3, 7, 16), (3, 9, 16), (3, 9, 10)), torch.float32, None),             # test_float32_no_mask
    (((2, 6, 12), (2, 8, 12), (2, 8, 5)), torch.float64, (2, 6, 8)),         # test_float64_dk12
    (((2, 3, 7, 16),) * 3, torch.float32, (2, 3, 7, 7)),                     # test_float32_4d_random_mask
    (((2, 3, 6, 16), (2, 3, 9, 16), (2, 3, 9, 16)), torch.float32, (6, 9)),  # test_mask_2d_broadcast
    (((2, 5, 12), (2, 7, 12), (2, 7, 10)), torch.float64, (2, 5, 7)),        # test_gradients_float64
    (((7, 16),) * 3, torch.float32, (7, 7)),                                 # a square 2-D re-run
])
def test_the_q5_shapes_keep_every_new_mistake_apart(shapes, dtype, mask_shape) -> None:
    shape_q, shape_k, shape_v = shapes
    Q, K, V = _qkv(shape_q, shape_k, shape_v, dtype=dtype)
    mask = None if mask_shape is None else diag.random_mask(mask_shape, torch.Generator().manual_seed(1))
    expected = ref.scaled_dot_product_attention(Q, K, V, mask)
    outs = diag.wrong_variants(Q, K, V, mask)
    assert {"scale_after_softmax", "softmax_global_sum", "log_softmax", "softmax_twice"} <= set(outs)
    for a, b in itertools.combinations(sorted(outs), 2):
        # two outputs with no finite entry are apart on no input of this shape (log_softmax and round 80's
        # softmax_returns_shifted_logits both give -inf on a masked key, and every row here loses a key, so both
        # come out NaN): raise_if_variant then lists both and names neither, which is right; not a collision
        lost = not torch.isfinite(outs[a]).any() and not torch.isfinite(outs[b]).any()
        if a.split("/")[0] != b.split("/")[0] and a in diag.VARIANT_FUNCTIONS and not lost:
            assert not checks._close(outs[a], outs[b], dtype, equal_nan=True), (a, b)
    for key in diag.VARIANT_FUNCTIONS:
        if key in outs:
            assert not checks._close(outs[key], expected, dtype, equal_nan=True), key


def test_a_divisor_another_variant_stands_for_is_left_out() -> None:
    Q, K, V = _qkv((2, 5, 4), (2, 5, 4), (2, 5, 4))      # d_k = 4: d_k / 2 = 2 = sqrt(d_k), the right scale
    assert "scale_precedence/half" not in diag.wrong_variants(Q, K, V)
    Q, K, V = _qkv((2, 5, 16), (2, 5, 16), (2, 5, 16))
    assert "scale_precedence/half" in diag.wrong_variants(Q, K, V)


# --- the softmax: a crash named from a square re-run, a dtype from right values ---------------------------

def _no_keepdim(x, dim=-1):
    e = torch.exp(x - x.max(dim=dim).values)
    return e / e.sum(dim=dim, keepdim=True)


def _crash_on_rectangles(x, dim=-1):
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError("rectangles not supported")
    return ref.stable_softmax(x, dim)


def test_a_softmax_crash_is_named_from_a_square_rerun_only_when_it_matches() -> None:
    x = torch.randn(3, 5, 7, dtype=torch.float64)
    fn = TrustedProxy(_no_keepdim, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        fn(x, dim=-1)
    with pytest.raises(Misconception) as named:
        diag.name_softmax_crash(fn, crash.value, "stable_softmax(x)")
    assert named.value.key == "reduction_without_keepdim"
    # right on the square re-run: the crash is its own mistake, nothing is named
    fine = TrustedProxy(_crash_on_rectangles, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        fine(x, dim=-1)
    diag.name_softmax_crash(fine, crash.value, "stable_softmax(x)")


def test_a_result_of_another_dtype_is_named_only_with_right_values() -> None:
    x = torch.randn(4, 6, dtype=torch.float64)
    expected = ref.stable_softmax(x)
    with pytest.raises(Misconception) as named:
        diag.name_dtype_changed(expected.float(), expected, "stable_softmax(x)")
    assert named.value.key == "dtype_changed"
    diag.name_dtype_changed((expected * 2).float(), expected, "stable_softmax(x)")   # wrong values: no name
    diag.name_dtype_changed(expected, expected, "stable_softmax(x)")                 # same dtype: nothing


# --- attention: the padding-mask habit, a crash about dtypes, a cut graph --------------------------------

def _unsqueezed(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask.unsqueeze(1), float("-inf"))
    return torch.softmax(s, -1) @ V


def test_the_padding_mask_probe_names_an_unsqueezed_mask_and_never_a_correct_function() -> None:
    with pytest.raises(Misconception) as named:
        diag.name_mask_unsqueezed(TrustedProxy(_unsqueezed, "cpu"), "it crashed")
    assert named.value.key == "mask_unsqueezed"
    diag.name_mask_unsqueezed(TrustedProxy(ref.scaled_dot_product_attention, "cpu"), "it crashed")


def _float32_weights(Q, K, V, mask=None):
    w = torch.softmax((Q @ K.transpose(-2, -1)).float() / math.sqrt(Q.shape[-1]), -1)
    return w @ V


def test_a_dtype_crash_is_named_when_the_same_values_in_float32_are_right() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    fn = TrustedProxy(_float32_weights, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        fn(Q, K, V, mask=None)
    with pytest.raises(Misconception) as named:
        diag.name_crash(fn, Q, K, V, None, crash.value)
    assert named.value.key == "dtype_changed"


def test_a_missing_gradient_is_named_gradient_cut() -> None:
    with pytest.raises(Misconception) as named:
        diag.name_missing_gradient([None, None, torch.zeros(1)], "the output")
    assert named.value.key == "gradient_cut" and "reached V" in str(named.value)
    diag.name_missing_gradient([torch.zeros(1)] * 3, "the output")      # every gradient there: nothing


def _torch_sqrt_of_int(Q, K, V, mask=None):
    return torch.softmax(Q @ K.transpose(-2, -1) / torch.sqrt(Q.shape[-1]), -1) @ V


def _untransposed(Q, K, V, mask=None):
    return torch.softmax(Q @ K / math.sqrt(Q.shape[-1]), -1) @ V


def test_a_crash_from_a_product_of_wrong_shapes_is_named_only_where_square_keys_show_it() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    for fn, key in ((_torch_sqrt_of_int, "torch_sqrt_of_int"), (_untransposed, "keys_not_transposed")):
        proxy = TrustedProxy(fn, "cpu")
        with pytest.raises(StudentCodeError) as crash:
            proxy(Q, K, V, mask=None)
        with pytest.raises(Misconception) as named:
            diag.name_crash(proxy, Q, K, V, None, crash.value)
        assert named.value.key == key


def _bool_arithmetic(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(s + (1 - mask) * -1e9, -1) @ V


def test_arithmetic_on_a_bool_mask_is_named_when_the_same_mask_as_numbers_runs_right() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    mask = diag.random_mask((2, 5, 7), torch.Generator().manual_seed(3))
    proxy = TrustedProxy(_bool_arithmetic, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, K, V, mask=mask)
    with pytest.raises(Misconception) as named:
        diag.name_crash(proxy, Q, K, V, mask, crash.value)
    assert named.value.key == "bool_mask_arithmetic"


def test_a_softmax_over_the_heads_is_its_own_mistake_on_4d_scores() -> None:
    Q, K, V = _qkv((2, 3, 7, 16), (2, 3, 7, 16), (2, 3, 7, 16), dtype=torch.float32)
    got = (torch.softmax(Q.double() @ K.double().transpose(-2, -1) / 4.0, dim=1) @ V.double()).float()
    with pytest.raises(Misconception) as named:
        checks.assert_matches(got, ref.scaled_dot_product_attention(Q, K, V), variants=diag.wrong_variants(Q, K, V))
    assert named.value.key == "softmax_over_batch_axis"


def _log_softmax_attention(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.log_softmax(s, -1) @ V


def test_a_float16_nan_is_not_blamed_on_the_fill_when_the_mask_free_call_is_wrong_too() -> None:
    Q, K, V = _qkv((2, 16, 64), (2, 16, 64), (2, 16, 64), dtype=torch.float16)
    Q, K = 3 * Q, 3 * K
    mask = diag.random_mask((16, 16), torch.Generator().manual_seed(2))
    fn = TrustedProxy(_log_softmax_attention, "cpu")
    got = fn(Q, K, V, mask=mask)
    assert not torch.isfinite(got).all()
    with pytest.raises(AssertionError) as failure:
        diag.judge_large_scores(fn, Q, K, V, mask, got)
    assert getattr(failure.value, "key", None) != "pos_inf_fill"


# --- written answers --------------------------------------------------------------------------------------

def test_the_written_answers_name_what_they_match() -> None:
    with pytest.raises(Misconception) as named:
        _test("q8", "test_cost_ratio")(cost_ratio=2)
    assert named.value.key == "cost_linear_in_T"
    with pytest.raises(Misconception) as named:
        _test("q8", "test_attn_entries")(attn_entries=1024 * 1024 * 64)
    assert named.value.key == "entries_times_d_k"
    with pytest.raises(Misconception) as named:
        _test("q8", "test_score_madds")(score_madds=1024 * 1024)
    assert named.value.key == "madds_without_d_k"
    with pytest.raises(Misconception) as named:
        _test("q2", "test_score_variances")(raw_score_var=ref.raw_score_var ** 0.5,
                                            scaled_score_var=ref.scaled_score_var ** 0.5)
    assert named.value.key == "variance_returned_std"
    with pytest.raises(AssertionError) as failure:       # 3 is the increase (cost_ratio_as_increase, naming18)
        _test("q8", "test_cost_ratio")(cost_ratio=5)
    assert not isinstance(failure.value, Misconception)
    with pytest.raises(Misconception) as named:
        _test("q2", "test_score_variances")(raw_score_var=ref.raw_score_var,
                                            scaled_score_var=ref.raw_score_var / math.sqrt(8))
    assert named.value.key == "variance_scaled_like_scores"


@pytest.mark.parametrize("mask_fn, key", [
    (lambda T_q, T_k=None: torch.ones(T_q, T_q if T_k is None else T_k).tril(), "mask_not_bool"),
    (lambda T_q, T_k=None: torch.ones(T_q, T_q, dtype=torch.bool).tril(), "causal_ignores_T_k"),
    (lambda T_q, T_k=None: torch.ones(T_q, T_q if T_k is None else T_k, dtype=torch.bool).triu(1), "inverted_mask"),
])
def test_a_causal_mask_of_numbers_or_of_one_length_is_named(mask_fn, key) -> None:
    with pytest.raises(Misconception) as named:
        _test("q4", "test_more_keys_than_queries")(causal_mask=TrustedProxy(mask_fn, "cpu"),
                                                    rng=torch.Generator().manual_seed(0))
    assert named.value.key == key


# --- fourth round: blind2/blind3's mis-names, by cause --------------------------------------------------

def _attention(scores, mask, V, has_key=lambda m: m.any(dim=-1, keepdim=True)):
    if mask is not None:
        w = torch.softmax(scores.masked_fill(~mask, float("-inf")), -1)
        return torch.where(has_key(mask), w, torch.zeros_like(w)) @ V
    return torch.softmax(scores, -1) @ V


def _d_k_from_dim_1(Q, K, V, mask=None):
    return _attention(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(1)), mask, V)


def _sqrt_T_q(Q, K, V, mask=None):
    return _attention(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-2)), mask, V)


def test_d_k_from_axis_1_is_scale_by_batch_dim_on_3d_and_a_real_sqrt_T_stays_scale_by_T() -> None:
    Q, K, V = _qkv((2, 6, 12), (2, 8, 12), (2, 8, 5))
    mask = diag.random_mask((2, 6, 8), torch.Generator().manual_seed(1))
    for fn, key in ((_d_k_from_dim_1, "scale_by_batch_dim"), (_sqrt_T_q, "scale_by_T")):
        with pytest.raises(Misconception) as named:
            diag.judge(fn, Q, K, V, mask, fn(Q, K, V, mask), "the output")
        assert named.value.key == key


def _any_without_keepdim(Q, K, V, mask=None):
    return _attention(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)), mask, V, lambda m: m.any(dim=-1))


def test_any_without_keepdim_is_named_from_the_square_probe_not_fixed_axes() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 5, 16), (2, 5, 16))
    mask = diag.random_mask((2, 5, 5), torch.Generator().manual_seed(2))
    proxy = TrustedProxy(_any_without_keepdim, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, K, V, mask=mask)
    with pytest.raises(Misconception) as named:
        diag.name_crash(proxy, Q, K, V, mask, crash.value)
    assert named.value.key == "reduction_without_keepdim"
    # a correct function gives the right result on the probe: nothing to name
    diag.name_from_mask_probes(TrustedProxy(ref.scaled_dot_product_attention, "cpu"), "said")


def _keys_viewed(Q, K, V, mask=None):
    return _attention(Q @ K.view(*K.shape[:-2], K.shape[-1], K.shape[-2]) / math.sqrt(Q.size(-1)), mask, V)


def test_a_view_taken_for_a_transpose_is_view_as_transpose_on_contiguous_and_strided_inputs() -> None:
    Q, K, V = _qkv((2, 6, 12), (2, 8, 12), (2, 8, 5))
    with pytest.raises(Misconception) as named:
        diag.judge(_keys_viewed, Q, K, V, None, _keys_viewed(Q, K, V), "the output")
    assert named.value.key == "view_as_transpose"
    Kt = K.transpose(-2, -1).contiguous().transpose(-2, -1)          # not contiguous: .view raises
    proxy = TrustedProxy(_keys_viewed, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, Kt, V, mask=None)
    with pytest.raises(Misconception) as named:
        diag.name_crash(proxy, Q, Kt, V, None, crash.value)
    assert named.value.key == "view_as_transpose"


def _clamped(Q, K, V, mask=None):
    e = torch.exp((Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))).clamp(max=10.0))
    if mask is not None:
        e = e.masked_fill(~mask, 0.0)
    return (e / e.sum(-1, keepdim=True)) @ V


def test_half_precision_is_never_named_for_being_merely_nearer_to_a_mistake() -> None:
    g = torch.Generator().manual_seed(4)
    Q, K, V = diag.qkv(g, (2, 128, 64), (2, 128, 64), (2, 128, 64), torch.float16, scale=3.0)
    mask = diag.random_mask((128, 128), g)
    proxy = TrustedProxy(_clamped, "cpu")
    with pytest.raises(AssertionError) as failed:
        diag.judge_large_scores(proxy, Q, K, V, mask, proxy(Q, K, V, mask=mask))
    # no catalogued variant is named for being nearer; the cap itself is, from a probe call (issue 21, fifth round)
    assert not isinstance(failed.value, Misconception) or failed.value.key == "clamped_logits", failed.value


def _all_for_any(Q, K, V, mask=None):
    return _attention(Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1)), mask, V,
                      lambda m: m.all(dim=-1, keepdim=True))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_mask_all_for_mask_any_is_named_only_as_itself(dtype) -> None:
    g = torch.Generator().manual_seed(5)
    Q, K, V = diag.qkv(g, (2, 3, 10, 32), (2, 3, 10, 32), (2, 3, 10, 32), dtype)
    mask = diag.random_mask((2, 3, 10, 10), g)
    with pytest.raises(Misconception) as named:
        diag.judge(_all_for_any, Q, K, V, mask, _all_for_any(Q, K, V, mask), "the output")
    assert named.value.key == "mask_all_for_any"


@pytest.mark.parametrize("question, test, kwargs, key", [
    ("q2", "test_scale_divisor", {"scale_divisor": 64 ** 1 / 2}, "scale_precedence"),
    # raw / 16 is d_k ** 1/2 = 4 and also sqrt(2 x 8), the batch read as heads (naming round 58): named by the source
    ("q2", "test_score_variances", {"raw_score_var": ref.raw_score_var, "scaled_score_var": ref.raw_score_var / 16,
                                    "submission": SimpleNamespace(cells=["scaled_score_var = (raw / (8 ** 1/2)).var()\n"])},
     "scale_precedence"),
    ("q8", "test_attn_entries", {"attn_entries": 1024 ^ 2}, "caret_is_xor"),
    ("q8", "test_attn_entries", {"attn_entries": 1024 * 64}, "entries_of_Q"),
    ("q8", "test_score_madds", {"score_madds": 1024 ^ 2 * 64}, "caret_is_xor"),
    ("q8", "test_cost_ratio", {"cost_ratio": 8}, "cost_ratio_eight"),
])
def test_written_answers_of_the_fourth_round_name_what_they_equal(question, test, kwargs, key) -> None:
    with pytest.raises(Misconception) as named:
        _test(question, test)(**kwargs)
    assert named.value.key == key


@pytest.mark.parametrize("question, test, kwargs", [
    ("q2", "test_scale_divisor", {"scale_divisor": 31}),
    ("q8", "test_attn_entries", {"attn_entries": 1025}),
    ("q8", "test_cost_ratio", {"cost_ratio": 6}),
])
def test_other_wrong_written_answers_stay_generic(question, test, kwargs) -> None:
    with pytest.raises(AssertionError) as failed:
        _test(question, test)(**kwargs)
    assert not isinstance(failed.value, Misconception)


# --- q6's trace: a max without keepdim told from a max over dim 0 by a second call (blind22) ---------------

def _max_over_queries(x, dim=-1):
    e = torch.exp(x - x.max(dim=0).values)
    return e / e.sum(dim=dim, keepdim=True)


@pytest.mark.parametrize("softmax, key", [(_no_keepdim, "reduction_without_keepdim"), (_max_over_queries, None)])
def test_trace_weights_with_a_max_without_keepdim_are_named_only_by_the_notebooks_softmax(softmax, key) -> None:
    # on scores3 the row maxes equal the column maxes: both softmaxes give the same weights3 there
    scores3 = ref.Q3 @ ref.K3.T / 2.0
    weights3 = softmax(scores3)
    assert torch.allclose(weights3, _no_keepdim(scores3)) and not torch.allclose(weights3, ref.weights3, atol=1e-3)
    test = _test("q6", "test_weights3")
    with pytest.raises(AssertionError) as failed:
        test(weights3, stable_softmax=TrustedProxy(softmax, "cpu"))
    assert (failed.value.key if isinstance(failed.value, Misconception) else None) == key
    with pytest.raises(AssertionError) as unnamed:     # without the notebook's softmax: no second call, no name
        test(weights3)
    assert not isinstance(unnamed.value, Misconception) or unnamed.value.key != "reduction_without_keepdim"
