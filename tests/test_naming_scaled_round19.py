"""Naming scaled-attention's mistakes, round 19 (issue 21): blind17's misses, each as its kind, in-process on
the hidden files' own helpers. A name rests on the crash's own words or on a replay of the mistake on the same
input; a right answer is evidence of nothing."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, tuple_as_tensor

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_r19_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _crash(thunk) -> StudentCodeError:
    try:
        thunk()
    except Exception as e:  # noqa: BLE001 - turned into what the sandbox hands back
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("no crash")


# --- reduction_tuple_as_tensor: shared with sdpa-from-scratch (autograder.grading.checks) -----------------

x: Any = torch.randn(4, 5, dtype=torch.float64)   # Any: the crashes are the point


@pytest.mark.parametrize("thunk, key", [
    (lambda: x - x.max(dim=-1, keepdim=True), "reduction_tuple_as_tensor"),
    (lambda: x - torch.min(x, -1, keepdim=True), "reduction_tuple_as_tensor"),
    (lambda: x.max(1).unsqueeze(1), "reduction_tuple_as_tensor"),              # AttributeError of the pair
    (lambda: torch.exp(x - x.sort(-1)), "reduction_tuple_as_tensor"),
    (lambda: x - (x.amax(-1, keepdim=True), 0), None),                         # a plain tuple: no name
    (lambda: x.view(7), None),
])
def test_a_values_indices_pair_used_as_a_tensor_is_named_from_the_crash(thunk, key) -> None:
    e = _crash(thunk)
    named = tuple_as_tensor(e, "said")
    assert (named.key if named is not None else None) == key
    q1 = _hidden("q1")
    named = q1.D._crash_named(e, x, x)
    assert (named.key if named is not None else None) == key


# --- q4: the entropy's dtype, and a sum over dim = logits.dim() ----------------------------------------------

def _entropy_over(dim_of):
    def softmax_entropy(logits):
        p = torch.softmax(logits, dim=-1)
        try:
            return -(p * torch.log(p + 1e-9)).sum(dim=dim_of(logits))
        except Exception as e:  # noqa: BLE001 - as the sandbox hands a crash back
            raise StudentCodeError(type(e).__name__, str(e)) from None
    return softmax_entropy


@pytest.mark.parametrize("dim_of, key", [
    (lambda t: t.dim(), "entropy_wrong_dim"),
    (lambda t: len(t.shape), "entropy_wrong_dim"),
    (lambda t: 2, None),              # a constant 2 is the rank of 2-D logits by chance: it runs on 3-D ones
    (lambda t: t.shape[0], None),     # a size as the dim, equal to the rank on (3, 5, 7)
])
def test_a_sum_one_past_the_last_axis_is_named_only_when_a_second_rank_shows_it(dim_of, key) -> None:
    q4 = _hidden("q4")
    fn = _entropy_over(dim_of)
    for shape in ((6, 6), (3, 5, 7)):
        try:
            fn(torch.randn(*shape))
        except StudentCodeError as e:
            named = q4.D.entropy_crash(fn, e, shape)
            assert (named.key if named is not None else None) == key
            continue
        assert key is None


def test_a_float32_entropy_of_float64_logits_is_dtype_changed_and_a_right_one_passes() -> None:
    q4 = _hidden("q4")
    logits = torch.randn(4, 6, dtype=torch.float64)

    def as_float32(x):
        return -(torch.softmax(x, -1, dtype=torch.float32) * torch.log_softmax(x, -1, dtype=torch.float32)).sum(-1)

    def right_with_eps(x):
        p = torch.softmax(x, -1)
        return -(p * torch.log(p + 1e-9)).sum(-1)

    with pytest.raises(Misconception) as named:
        q4.D.check_entropy_dtype(as_float32, logits)
    assert named.value.key == "dtype_changed"
    q4.D.check_entropy_dtype(right_with_eps, logits)
    with pytest.raises(AssertionError) as said:           # another dtype and wrong values: said, not named
        q4.D.check_entropy_dtype(lambda x: as_float32(x) * 2, logits)
    assert not isinstance(said.value, Misconception) and "same dtype as logits" in str(said.value)


# --- q2: a NaN estimate (one number's variance) is said, not named ---------------------------------------------

def _flattened_dot(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    return torch.dot(q.flatten(), k.flatten()).var().item()


def _one_pair(d_k, n_samples, generator, scaled=False):      # the same NaN: n_samples unused
    return (torch.randn(d_k, generator=generator) @ torch.randn(d_k, generator=generator)).var().item()


@pytest.mark.parametrize("fn", [_flattened_dot, _one_pair])
def test_a_nan_variance_says_one_number_and_names_nothing(fn) -> None:
    q2 = _hidden("q2")
    with pytest.warns(UserWarning):
        value = fn(12, 100, torch.Generator().manual_seed(0))
    with pytest.raises(AssertionError) as said:
        q2._number(value, "dot_product_variance(...)")
    assert not isinstance(said.value, Misconception) and "single number" in str(said.value)
    assert q2._number(12.5, "dot_product_variance(...)") == 12.5


# --- q1: the softmax in float16 / bfloat16, cast back ----------------------------------------------------------

@pytest.mark.parametrize("low, key", [(torch.float16, "dtype_changed"), (torch.bfloat16, "dtype_changed"),
                                      (None, None)])
def test_a_softmax_through_a_16_bit_dtype_is_named_by_its_replay(low, key) -> None:
    from reference import scaled_attention as sa
    q1 = _hidden("q1")
    g = torch.Generator().manual_seed(4)
    Q, K, V = (torch.randn(5, 12, generator=g, dtype=torch.float64), torch.randn(7, 12, generator=g, dtype=torch.float64),
               torch.randn(7, 10, generator=g, dtype=torch.float64))
    S = Q @ K.T / 12 ** 0.5
    w = torch.softmax(S, -1) if low is None else torch.softmax(S.to(low), -1).double()
    right = sa.attention(Q, K, V, 12)
    found = q1.D.half_softmax_evidence((w @ V, w), Q, K, V, 12, right)
    assert (found[0] if found is not None else None) == key
    # float16 numbers that are no softmax of these scores (every weight one float16 step off): named nothing
    if low is torch.float16:
        off = (w.half() + torch.finfo(torch.float16).eps * 4).double()
        assert q1.D.half_softmax_evidence((off @ V, off), Q, K, V, 12, right) is None


# --- q2: the mean of the dots returned for their variance (var_mean's pair read the wrong way round) ------------

def _mean_of_dots(seed, d_k=12, n=10000):
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(n, d_k, generator=g), torch.randn(n, d_k, generator=g)
    return float(torch.var_mean((q * k).sum(-1))[1])


def test_the_mean_of_the_dots_is_named_on_two_generators_and_nothing_near_zero_else() -> None:
    q2 = _hidden("q2")
    with pytest.raises(Misconception) as named:
        q2.D.raise_if_mean_returned(((_mean_of_dots(3), 3), (_mean_of_dots(4), 4)), 12, 10000, False)
    assert named.value.key == "variance_mean_swapped"
    q2.D.raise_if_mean_returned(((0.0, 3), (0.0, 4)), 12, 10000, False)                 # a constant 0
    q2.D.raise_if_mean_returned(((_mean_of_dots(3), 3), (0.0012, 4)), 12, 10000, False)  # one seed only
    q2.D.raise_if_mean_returned(((12.1, 3), (11.9, 4)), 12, 10000, False)                # right: no replay
