"""sdpa-from-scratch, naming round 22 (issue 21, blind19's misses), in-process: q8's counts are checked as
strictly as the notebook's own format (isinstance(value, int)); a right count given as a float is named
float_for_int, a wrong float keeps the message of its value, and another type holding the right count stays
generic; `not mask` is named tensor_truthiness when the call without a mask is right and a one-entry mask
arrives as a Python bool where the mask tensor goes (torch's "got (bool, ..."), and only then."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file, read_misconceptions
from autograder.grading.runner import TrustedProxy
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"


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


def test_the_new_keys_have_texts() -> None:
    # float_for_int's text is the engine's now (expect_shape names it in any assignment), declared once
    from autograder.grading.checks import MISCONCEPTIONS
    assert "float_for_int" in MISCONCEPTIONS and "float_for_int" not in read_misconceptions(HIDDEN / "_misconceptions.py")


@pytest.mark.parametrize("name", ["attn_entries", "score_madds", "cost_ratio"])
def test_right_count_as_a_float_is_named(name: str) -> None:
    right = getattr(ref, name)
    check = _test("q8", f"test_{name}")
    assert _key(lambda: check(right)) is None
    assert _key(lambda: check(float(right))) == "float_for_int"
    assert _key(lambda: check(np.float64(right))) == "float_for_int"
    assert _key(lambda: check(torch.tensor(float(right)))) == "float_for_int"


def test_math_pow_counts_are_named() -> None:
    assert _key(lambda: _test("q8", "test_attn_entries")(math.pow(1024, 2))) == "float_for_int"
    assert _key(lambda: _test("q8", "test_score_madds")(math.pow(1024, 2) * 64)) == "float_for_int"


def test_a_wrong_float_keeps_its_value_message_and_other_types_stay_generic() -> None:
    assert _key(lambda: _test("q8", "test_attn_entries")(1024.0)) == "count_per_query"
    assert _key(lambda: _test("q8", "test_cost_ratio")(2.0)) == "cost_linear_in_T"
    # a NumPy integer holding the right count: named for its type since blind36 (numpy_scalar_answer)
    assert _key(lambda: _test("q8", "test_attn_entries")(np.int64(ref.attn_entries))) == "numpy_scalar_answer"
    # a tensor holding the right count: returns_tensor_not_number since blind49 (the message was exact, keyless)
    assert _key(lambda: _test("q8", "test_attn_entries")(torch.tensor(ref.attn_entries))) == "returns_tensor_not_number"


# --- `not mask`: the mask's truth value (tensor_truthiness), proven by a replay -------------------------------

def _load_diagnose():
    spec = importlib.util.spec_from_file_location("_test_sdpa_round22_diagnose", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _load_diagnose()


def _not_mask(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(not mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V


def _not_mask_wrong_without_mask(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1)                   # unscaled: the mask=None call is wrong too
    if mask is not None:
        scores = scores.masked_fill(not mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ V


def _crash(fn, Q, K, V, mask):
    proxy = TrustedProxy(fn, "cpu")
    with pytest.raises(StudentCodeError) as crash:
        proxy(Q, K, V, mask=mask)
    return proxy, crash.value


def test_not_mask_is_tensor_truthiness_and_its_message_gives_the_fix() -> None:
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 4, 4, generator=g) < 0.7
    proxy, crash = _crash(_not_mask, Q, K, V, mask)
    with pytest.raises(Misconception) as named:
        diag.name_crash(proxy, Q, K, V, mask, crash)
    assert named.value.key == "tensor_truthiness" and "~mask" in str(named.value)


def test_not_mask_is_not_named_when_the_call_without_mask_is_wrong_too() -> None:
    g = torch.Generator().manual_seed(1)
    Q, K, V = (torch.randn(2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 4, 4, generator=g) < 0.7
    proxy, crash = _crash(_not_mask_wrong_without_mask, Q, K, V, mask)
    diag.name_mask_as_python_bool(proxy, (Q, K, V, mask), "said")     # no name


# --- out3 as a broadcast product summed over the queries (output_keeps_key_axis) ------------------------------

def test_out3_summed_over_the_queries_keeps_the_key_axis() -> None:
    check = _test("q6", "test_out3")
    w, V = ref.weights3.double(), ref.V3.double()
    assert _key(lambda: check((w[:, :, None] * V[None]).sum(0), weights3=w)) == "output_keeps_key_axis"
    assert _key(lambda: check((w[:, :, None] * V[None]).sum(1), weights3=w)) is None


# --- q3's float16 test: exp divided by its mean (weights_not_normalised) -----------------------------------

def _mean_softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.mean(dim=dim, keepdim=True)


def test_float16_softmax_times_the_length_is_weights_not_normalised() -> None:
    check = _test("q3", "test_float16_logits_in_the_thousands")
    rng = torch.Generator().manual_seed(0)
    assert _key(lambda: check(TrustedProxy(_mean_softmax, "cpu"), "cpu", rng)) == "weights_not_normalised"
    rng = torch.Generator().manual_seed(0)
    assert _key(lambda: check(TrustedProxy(ref.stable_softmax, "cpu"), "cpu", rng)) is None
