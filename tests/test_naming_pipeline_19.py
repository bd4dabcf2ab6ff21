"""attention-pipeline's naming19 diagnoses (issue 21: blind17's misses as kinds), checked directly and
through the engine's TrustedProxy (a crash arrives as StudentCodeError, as from the sandbox): self_attention
written for exactly (B, T, d_model) named from X with a batch axis added, and only when that re-run is right;
nadaraya_watson's dot products summed over the keys named from a T = d_k = d_v re-run, and only then."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from autograder.grading.otter_format import stand_in
from autograder.grading.runner import TrustedProxy
from reference import attention_pipeline as ap

HIDDEN = Path(__file__).resolve().parents[1] / "assignments" / "attention-pipeline" / "hidden"


def _load(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_naming19_{stem}", HIDDEN / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    with stand_in():
        spec.loader.exec_module(mod)
    return mod


D = _load("_diagnose")


def _r(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _crash(fn, *args, **kwargs) -> StudentCodeError:
    with pytest.raises(StudentCodeError) as e:
        fn(*args, **kwargs)
    return e.value


# --- q07 / q09: B, T, C = X.shape -----------------------------------------------------------------------

def _three_dims_only(wrong_values: bool):
    def self_attention(X, W_Q, W_K, W_V, causal=True):
        B, T, C = X.shape
        O, A = ap.self_attention(X, W_Q, W_K, W_V, causal=causal)
        return (2 * O if wrong_values else O), A
    return TrustedProxy(self_attention, "cpu")


def test_code_for_exactly_three_dims_is_named_from_a_batch_axis_added():
    X, W = _r(10, 7), (_r(7, 12, seed=1) / 3, _r(7, 12, seed=2) / 3, _r(7, 5, seed=3))
    fn = _three_dims_only(False)
    for causal in (True, False):
        named = D.self_attention_crash(fn, _crash(fn, X, *W, causal=causal), X, W, causal)
        assert isinstance(named, Misconception) and named.key == "batched_input_unsupported"
        assert "with a batch axis added (X (1, 10, 7))" in str(named)


def test_a_batch_axis_rerun_that_is_wrong_or_crashes_names_nothing():
    X, W = _r(10, 7), (_r(7, 12, seed=1) / 3, _r(7, 12, seed=2) / 3, _r(7, 5, seed=3))
    fn = _three_dims_only(True)
    assert D.self_attention_crash(fn, _crash(fn, X, *W), X, W) is None

    def always(X, W_Q, W_K, W_V, causal=True):
        raise ValueError("not enough values to unpack (expected 4, got 2)")
    fn = TrustedProxy(always, "cpu")
    assert D.self_attention_crash(fn, _crash(fn, X, *W), X, W) is None


# --- q08: (K * q).sum(dim=0) ------------------------------------------------------------------------------

def _nw(scores):
    def nadaraya_watson(q, K, V):
        kappa = torch.exp(scores(q, K) / math.sqrt(q.shape[-1]))
        return (kappa[:, None] * V).sum(0) / kappa.sum()
    return TrustedProxy(nadaraya_watson, "cpu")


def test_dot_products_summed_over_the_keys_are_named_from_a_square_rerun():
    q, K, V = _r(12), _r(7, 12, seed=1), _r(7, 5, seed=2)
    fn = _nw(lambda q, K: (K * q).sum(dim=0))
    e = _crash(fn, q, K, V)
    assert "must match the size" in e.message
    with pytest.raises(Misconception) as named:
        D.raise_if_operands_swapped(fn, e, q)
    assert named.value.key == "nw_dot_over_keys"


def test_a_square_rerun_that_is_right_or_another_mistake_is_not_dot_over_keys():
    q, K, V = _r(12), _r(7, 12, seed=1), _r(7, 5, seed=2)

    def crash_unless_square(q, K):   # right whenever it runs
        if K.shape[0] != K.shape[1]:
            raise RuntimeError("The size of tensor a (12) must match the size of tensor b (7)")
        return K @ q
    fn = _nw(crash_unless_square)
    D.raise_if_operands_swapped(fn, _crash(fn, q, K, V), q)    # nothing raised

    def squared_over_keys(q, K):     # summed over the keys, of another product
        if K.shape[0] != K.shape[1]:
            raise RuntimeError("The size of tensor a (12) must match the size of tensor b (7)")
        return (K * q * q).sum(dim=0)
    fn = _nw(squared_over_keys)
    D.raise_if_operands_swapped(fn, _crash(fn, q, K, V), q)


def test_length_read_from_axis_1_is_not_named_three_dims_only():
    # T = X.shape[1] is d_model on a 2-D X (a size mismatch) and T with a batch axis added: right there too,
    # so the batch-axis re-run never names a size mismatch (width_crash names it length_from_wrong_axis)
    X, W = _r(10, 7), (_r(7, 12, seed=1) / 3, _r(7, 12, seed=2) / 3, _r(7, 5, seed=3))

    def self_attention(X, W_Q, W_K, W_V, causal=True):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        S = Q @ K.mT / math.sqrt(Q.shape[-1]) + ap.causal_additive_mask(X.size(1), X.dtype)
        return torch.softmax(S, dim=-1) @ V, torch.softmax(S, dim=-1)
    fn = TrustedProxy(self_attention, "cpu")
    named = D.self_attention_crash(fn, _crash(fn, X, *W), X, W)
    assert named is None or named.key != "batched_input_unsupported"


# --- q04: masked_fill / torch.where given a 0/1 pattern of numbers ----------------------------------------

def test_a_pattern_of_numbers_for_masked_fill_or_where_is_named_from_the_crash():
    q04 = _load("q04")

    def float_triu(T, dtype, device=None):
        future = torch.triu(torch.ones(T, T, device=device), diagonal=1)
        return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)

    def int_where(T, dtype, device=None):
        future = torch.ones(T, T, dtype=torch.int64).triu(1)
        return torch.where(future, torch.finfo(dtype).min, 0.0).to(dtype)

    for fn in (float_triu, int_where):
        with pytest.raises(Misconception) as named:
            q04._get(TrustedProxy(fn, "cpu"), 6, torch.float32)
        assert named.value.key == "fill_mask_not_bool"

    def other_crash(T, dtype, device=None):
        raise RuntimeError("masked_fill_ got an unexpected keyword argument")
    with pytest.raises(StudentCodeError):
        q04._get(TrustedProxy(other_crash, "cpu"), 6, torch.float32)


# --- q01: X.reshape(-1, d_model) @ W never shaped back -----------------------------------------------------

def test_batch_flattened_into_rows_is_named_only_when_all_three_are_the_right_rows():
    q01 = _load("q01")
    X, W = _r(2, 3, 6, 10), (_r(10, 12, seed=1), _r(10, 12, seed=2), _r(10, 5, seed=3))
    want = ap.project_qkv(X, *W)
    flat = tuple(w.reshape(-1, w.shape[-1]) for w in want)
    with pytest.raises(Misconception) as named:
        q01.D.raise_if_rows_flattened(flat, want, X, torch.float64)
    assert named.value.key == "batched_input_unsupported" and "(36, 12)" in str(named.value)
    q01.D.raise_if_rows_flattened((flat[0], flat[1], 2 * flat[2]), want, X, torch.float64)   # V wrong: no name
    q01.D.raise_if_rows_flattened(flat, want, X[0, 0], torch.float64)                        # 2-D X: no name
