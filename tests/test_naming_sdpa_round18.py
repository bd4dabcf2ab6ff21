"""sdpa-from-scratch, naming round 18 (issue 21, blind16's misses), in-process: code written for one input rank
(fixed_axes, proven by a second call at the rank the code expects), the causal mask in its additive 0/-inf
form (mask_not_bool, in q4 and once more in q6's cell that calls it), shapes written as strings
(shape_as_string) and the cost growth given as the increase (cost_ratio_as_increase). Each is named only when
the answer equals what that mistake gives, never for a right answer, and a near miss stays generic."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file, read_misconceptions
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"


def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_round18_diagnose", HIDDEN / "_diagnose.py")
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


def _qkv(shape_q, shape_k, shape_v, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(s, generator=g, dtype=torch.float64) for s in (shape_q, shape_k, shape_v))


def test_the_new_keys_have_texts() -> None:
    assert {"shape_as_string", "cost_ratio_as_increase", "fixed_axes", "mask_not_bool"} \
        <= set(read_misconceptions(HIDDEN / "_misconceptions.py"))


# --- fixed_axes from a crash at a rank the test did not give -----------------------------------------------

def _four_names(Q, K, V, mask=None):
    b, h, t, d = K.size()
    s = Q @ K.transpose(2, 3) / math.sqrt(d)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1).nan_to_num(0.0) @ V


def _axes_2_3(Q, K, V, mask=None):
    return torch.softmax(Q @ K.transpose(2, 3) / math.sqrt(Q.shape[-1]), -1) @ V


def _three_names(Q, K, V, mask=None):
    B, T, d = Q.shape
    return torch.softmax(Q @ K.transpose(1, 2) / math.sqrt(d), -1) @ V


def _four_names_unscaled(Q, K, V, mask=None):
    b, h, t, d = K.size()                          # also wrong at rank 4: no scale
    return torch.softmax(Q @ K.transpose(2, 3), -1) @ V


@pytest.mark.parametrize("fn, shapes, masked", [
    (_four_names, ((2, 5, 12), (2, 7, 12), (2, 7, 10)), True),
    (_four_names, ((2, 5, 12), (2, 7, 12), (2, 7, 10)), False),
    (_axes_2_3, ((2, 5, 12), (2, 7, 12), (2, 7, 10)), False),
    (_three_names, ((2, 3, 5, 12), (2, 3, 7, 12), (2, 3, 7, 10)), False),
])
def test_a_crash_at_another_rank_is_fixed_axes_when_that_rank_runs_right(fn, shapes, masked) -> None:
    Q, K, V = _qkv(*shapes)
    mask = diag.random_mask(Q.shape[:-1] + K.shape[-2:-1], torch.Generator().manual_seed(3)) if masked else None
    proxy = TrustedProxy(fn, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, K, V, mask=mask)
    with pytest.raises(Misconception) as named:
        diag.name_fixed_rank(proxy, Q, K, V, mask, crash.value, "said")
    assert named.value.key == "fixed_axes"


def test_a_crash_at_another_rank_names_nothing_when_that_rank_is_wrong_too() -> None:
    Q, K, V = _qkv((2, 5, 12), (2, 7, 12), (2, 7, 10))
    proxy = TrustedProxy(_four_names_unscaled, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, K, V, mask=None)
    diag.name_fixed_rank(proxy, Q, K, V, None, crash.value, "said")      # no name: the rank alone is not it


# --- the causal mask as numbers: 0/1 or additive -----------------------------------------------------------

def _additive(fill, dtype=torch.float32):
    def causal_mask(T_q, T_k=None):
        T_k = T_q if T_k is None else T_k
        return torch.full((T_q, T_k), fill, dtype=dtype).triu(diagonal=1)
    return causal_mask


def _inverted_numbers(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k).triu(diagonal=1)                   # 1 where blocked: not the right pattern


@pytest.mark.parametrize("mask_fn, key", [
    (_additive(float("-inf")), "mask_not_bool"),
    (_additive(-1e9, torch.float64), "mask_not_bool"),
    (_additive(torch.finfo(torch.float32).min), "mask_not_bool"),
    (_additive(-1.0), ""),                     # a fill that does not block a softmax: not the additive mask
    (_inverted_numbers, ""),
    (ref.causal_mask, None),
])
def test_q4_an_additive_mask_is_a_mask_of_numbers(mask_fn, key) -> None:
    for test in ("test_more_keys_than_queries", "test_more_queries_than_keys"):
        assert _key(lambda t=test: _test("q4", t)(causal_mask=TrustedProxy(mask_fn, "cpu"),
                                                   rng=torch.Generator().manual_seed(0))) == key


def test_q6_a_missing_causal_weights_are_named_from_an_additive_mask_too() -> None:
    hook = _test("q6", "test_weights3_causal").on_missing
    for fill in (float("-inf"), -1e9):
        with pytest.raises(Misconception) as named:
            hook("weights3_causal", lambda name, f=fill: TrustedProxy(_additive(f), "cpu")
                 if name == "causal_mask" else None)
        assert named.value.key == "mask_not_bool"
    hook("weights3_causal", lambda name: TrustedProxy(_inverted_numbers, "cpu") if name == "causal_mask" else None)


# --- shapes as strings -------------------------------------------------------------------------------------

@pytest.mark.parametrize("weights, out, key", [
    ("(4, 10, 10)", "(4, 10, 128)", "shape_as_string"),
    ("4x10x10", "4 x 10 x 128", "shape_as_string"),
    ("torch.Size([4, 10, 10])", "[4, 10, 128]", "shape_as_string"),
    ("(4, 10, 10,)", (4, 10, 128), "shape_as_string"),
    ("(4, 10, 64)", "(4, 10, 64)", ""),         # strings of wrong shapes: two mistakes, generic
    ("four by ten by ten", "__import__('os')", ""),
    ((4, 10, 10), (4, 10, 128), None),
])
def test_q1_a_shape_written_as_a_string(weights, out, key) -> None:
    keys = {_key(lambda: _test("q1", "test_weights_shape")(weights)),
            _key(lambda: _test("q1", "test_out_shape")(out))} - {None}
    assert (key in keys) if key is not None else keys == set()
    if key == "":
        assert keys == {""}


# --- the increase instead of the ratio ---------------------------------------------------------------------

@pytest.mark.parametrize("ratio, key", [
    (3, "cost_ratio_as_increase"),
    (3.0, "cost_ratio_as_increase"),
    (300, "cost_ratio_as_increase"),
    (3 * ref.score_madds, "cost_ratio_as_increase"),
    (3 * ref.attn_entries, "cost_ratio_as_increase"),
    (0.25, "cost_ratio_inverted"),
    (2, "cost_linear_in_T"),
    (8, "cost_ratio_eight"),
    (5, ""),
    (4, None),
])
def test_q8_the_increase_is_not_the_ratio(ratio, key) -> None:
    assert _key(lambda: _test("q8", "test_cost_ratio")(ratio)) == key
