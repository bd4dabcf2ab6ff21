"""Naming a mistake (issue 21), the general mechanisms of autograder.grading.checks, in-process: a failure is
named only when the output matches what that mistake gives on the same input, or a second call shows
it; otherwise the generic message says which part of the output is wrong."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading import checks
from autograder.sandbox.calls import invoke
from autograder.grading.checks import Misconception
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref


def _qkv(shape_q, shape_k, shape_v, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in (shape_q, shape_k, shape_v))


# --- coincidences of test shapes -----------------------------------------------------------------------

def test_a_variant_equal_to_the_reference_is_never_named() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 7, 16), (2, 7, 10))
    expected = ref.scaled_dot_product_attention(Q, K, V)
    # d_k = 16: the float32 scale constant is exact, so that "variant" is the right result
    twin = ref.sdpa_float32_scale(Q, K, V)
    assert torch.equal(twin, expected)
    wrong = expected + 1e-9 * torch.randn(expected.shape, dtype=torch.float64)   # fails f64 tolerance
    with pytest.raises(AssertionError) as failure:
        checks.assert_matches(wrong, expected, variants={"float32_scale": twin})
    assert not isinstance(failure.value, Misconception)
    assert checks.matching_variants(wrong, {"float32_scale": twin}, torch.float64, expected=expected) == []


@pytest.mark.parametrize("shapes", [
    ((2, 6, 12), (2, 8, 12), (2, 8, 5)),      # q5 test_float64_dk12
    ((2, 5, 12), (2, 7, 12), (2, 7, 10)),     # q5 test_gradients_float64 (d_v = 9 made isqrt(12) = sqrt(d_v))
    ((3, 4, 20), (3, 10, 20), (3, 10, 7)),    # q5 test_dv_differs_from_dk
])
def test_the_float64_shapes_keep_every_catalogued_mistake_apart(shapes) -> None:
    Q, K, V = _qkv(*shapes)
    expected = ref.scaled_dot_product_attention(Q, K, V)
    outs = {k: v for k, v in ref.wrong_variants(Q, K, V).items() if v.shape == expected.shape}
    assert "integer_sqrt_scale" in outs and "float32_scale" in outs
    keys = sorted(outs)
    for i, a in enumerate(keys):
        assert not torch.allclose(outs[a], expected, rtol=1e-10, atol=1e-10), a
        for b in keys[i + 1:]:
            if a.split("/")[0] != b.split("/")[0]:
                assert not torch.allclose(outs[a], outs[b], rtol=1e-10, atol=1e-10), (a, b)


def test_an_integer_square_root_is_named_as_such() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    got = Q.new_tensor(0) + (torch.softmax(Q @ K.transpose(-2, -1) / math.isqrt(12), -1) @ V)
    with pytest.raises(Misconception) as named:
        checks.assert_matches(got, ref.scaled_dot_product_attention(Q, K, V),
                              variants=ref.wrong_variants(Q, K, V))
    assert named.value.key == "integer_sqrt_scale"


# --- a crash named from a re-run --------------------------------------------------------------------

def test_a_rerun_that_is_simply_right_names_nothing() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 5, 16), (2, 5, 16))
    expected = ref.scaled_dot_product_attention(Q, K, V)
    variants = ref.wrong_variants(Q, K, V)
    assert checks.name_from_rerun(expected.clone(), expected, variants, torch.float64) is None
    assert checks.name_from_rerun(variants["divide_by_dk"], expected, variants, torch.float64) == "divide_by_dk"
    assert checks.name_from_rerun("not a tensor", expected, variants, torch.float64) is None


# --- one mistake charged once; randomness named -------------------------------------------------------

def _dropout_sdpa(Q, K, V, mask=None):
    w = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), -1)
    return torch.nn.functional.dropout(w, p=0.5) @ V


def test_a_second_call_that_differs_is_named_nondeterministic() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 5, 16), (2, 5, 16))
    fn = TrustedProxy(_dropout_sdpa, "cpu")
    first = fn(Q, K, V)
    with pytest.raises(Misconception) as named:
        checks.raise_if_nondeterministic(fn, (Q, K, V), {}, first)
    assert named.value.key == "nondeterministic"
    steady = TrustedProxy(ref.sdpa_divide_by_dk, "cpu")
    checks.raise_if_nondeterministic(steady, (Q, K, V), {}, steady(Q, K, V))   # deterministic: nothing


def test_charged_in_parts_does_not_charge_an_earlier_answers_randomness_twice() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 5, 16), (2, 5, 16))
    expected = ref.scaled_dot_product_attention(Q, K, V)

    def check(got):
        checks.assert_matches(got, expected)

    earlier = TrustedProxy(_dropout_sdpa, "cpu")     # the randomness is in an earlier answer
    checks.charged_in_parts(lambda: earlier(Q, K, V), check, lambda: earlier(Q, K, V))
    # randomness in this answer itself, its earlier answers sound: named here
    steady = TrustedProxy(ref.sdpa_divide_by_dk, "cpu")
    with pytest.raises(Misconception) as named:
        checks.charged_in_parts(lambda: earlier(Q, K, V), check, lambda: steady(Q, K, V))
    assert named.value.key == "nondeterministic"


# --- an input overwritten -------------------------------------------------------------------------------

def _softmax_in_place(S, dim=-1):
    S -= S.amax(dim=dim, keepdim=True)
    S.exp_()
    S /= S.sum(dim=dim, keepdim=True)
    return S


def test_the_call_reports_an_input_written_in_place_and_call_names_it() -> None:
    S = torch.randn(3, 4, dtype=torch.float64)
    changed: list[str] = []
    out, _ = invoke(_softmax_in_place, [S.clone()], {}, "cpu", changed=changed)
    assert changed == ["argument 0"] and torch.allclose(out, torch.softmax(S, -1))
    unchanged: list[str] = []
    invoke(lambda S, dim=-1: torch.softmax(S, dim), [S], {"dim": -1}, "cpu", changed=unchanged)
    assert unchanged == []
    fn = TrustedProxy(_softmax_in_place, "cpu")
    with pytest.raises(Misconception) as named:
        checks.call(fn, S.clone(), what="weights")
    assert named.value.key == "inplace_on_input" and "modifies its input in place" in str(named.value)
    checks.call(fn, S.clone(), what="weights", check_inputs=False)   # a rule test looks elsewhere


def test_nan_inputs_left_alone_are_not_changed() -> None:
    x = torch.tensor([float("nan"), 1.0, float("-inf")])
    changed: list[str] = []
    invoke(lambda t: t * 1, [x], {}, "cpu", changed=changed)
    assert changed == []


# --- the returned thing ----------------------------------------------------------------------------------

def test_a_tuple_holding_the_output_is_named() -> None:
    Q, K, V = _qkv((2, 5, 16), (2, 7, 16), (2, 7, 10))
    out = ref.scaled_dot_product_attention(Q, K, V)
    w = ref.attention_weights(Q, K)
    for got in ((out, w), (w, out)):
        with pytest.raises(Misconception) as named:
            checks.assert_matches(got, out, variants=ref.wrong_variants(Q, K, V))
        assert named.value.key == "returns_extra_values"
    with pytest.raises(Misconception) as named:
        checks.assert_matches(w, out, variants=ref.wrong_variants(Q, K, V))
    assert named.value.key == "weights_as_output"


def test_float32_precision_for_a_float64_input_is_named_but_a_tiny_epsilon_is_not() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    expected = ref.scaled_dot_product_attention(Q, K, V)
    in_float32 = ref.scaled_dot_product_attention(Q.float(), K.float(), V.float()).double()
    with pytest.raises(Misconception) as named:
        checks.assert_matches(in_float32, expected, variants=ref.wrong_variants(Q, K, V))
    assert named.value.key == "float32_precision"
    with pytest.raises(AssertionError) as failure:
        checks.assert_matches(expected * (1 + 3e-10), expected, variants=ref.wrong_variants(Q, K, V))
    assert not isinstance(failure.value, Misconception)


# --- the generic message says which part is wrong -----------------------------------------------------

@pytest.mark.parametrize(("change", "said"), [
    (lambda e: e * 1.5, "off by a constant factor x1.5"),
    (lambda e: -e, "opposite sign"),
    (lambda e: e.transpose(-2, -1), "transposed"),
    (lambda e: e.flip(-1), "permutation of the last axis"),
    (lambda e: e.roll(1, dims=-2), "rows (positions) permuted"),
])
def test_the_generic_message_names_a_whole_output_pattern(change, said) -> None:
    e = torch.randn(2, 5, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with pytest.raises(AssertionError) as failure:
        checks.assert_matches(change(e), e)
    assert said in str(failure.value)
    assert not isinstance(failure.value, Misconception)


def test_the_generic_message_says_which_part_is_wrong() -> None:
    e = torch.randn(2, 3, 6, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    got = e.clone()
    got[:, 1, 2] += 0.5                                         # one head, one query row
    with pytest.raises(AssertionError) as failure:
        checks.assert_matches(got, e)
    msg = str(failure.value)
    assert "index 1 of axis 1 (size 3)" in msg and "index 2 of axis -2 (rows) (size 6)" in msg
    assert "the rest is right" in msg


# --- the softmax probe tells the shifts apart ------------------------------------------------------------

@pytest.mark.parametrize(("softmax", "key"), [
    (lambda x: torch.exp(x) / torch.exp(x).sum(-1, keepdim=True), "no_max_subtraction"),
    (lambda x: torch.exp(x - x.max()) / torch.exp(x - x.max()).sum(-1, keepdim=True), "global_max_subtraction"),
    (lambda x: torch.exp(x - x.amin(-1, keepdim=True)) / torch.exp(x - x.amin(-1, keepdim=True)).sum(-1, keepdim=True),
     "softmax_subtracts_min"),
    (lambda x: torch.softmax(x, -1), None),
])
def test_the_softmax_probe_names_what_is_subtracted(softmax, key) -> None:
    out = softmax(ref.SOFTMAX_PROBE.clone())
    pattern = tuple(bool((~torch.isfinite(out[i])).any()) for i in range(2))
    assert ref.SOFTMAX_PROBE_PATTERNS.get(pattern) == key
    Q, K, V = ref.SOFTMAX_PROBE_QKV          # the same probe through attention: the output is the weights
    assert torch.allclose(Q @ K.T, ref.SOFTMAX_PROBE)
    assert torch.equal(V, torch.eye(3))


def test_a_min_subtracting_softmax_is_not_called_a_plus_inf_fill() -> None:
    """The two give the same NaN pattern on a masked input: the variants alone cannot tell them."""
    Q, K, V = _qkv((2, 6, 16), (2, 8, 16), (2, 8, 10), torch.float32)
    mask = torch.rand(2, 6, 8, generator=torch.Generator().manual_seed(1)) < 0.5
    mask[..., 0] = True
    scores = (Q @ K.transpose(-2, -1) / 4).masked_fill(~mask, float("-inf"))
    e = torch.exp(scores - scores.amin(-1, keepdim=True))
    got = (e / e.sum(-1, keepdim=True)) @ V
    assert torch.equal(torch.isnan(got), torch.isnan(ref.sdpa_pos_inf_fill(Q, K, V, mask)))
