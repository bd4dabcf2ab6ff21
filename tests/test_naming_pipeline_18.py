"""attention-pipeline's naming18 diagnoses (issue 21: blind16's misses and mis-names as kinds), checked
directly and through the engine's TrustedProxy (a crash arrives as StudentCodeError, as from the sandbox):
the scale from the number of dimensions, named only where the rank is no size of the input; Q, K, V with
tokens as columns; the causal mask filled on tril itself; V @ A named from a d_v = T re-run only when that
re-run is exactly (V @ A, A); (Q, V, K) unpacked; Q Q^T named keys_are_queries when project_qkv is right."""
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
    spec = importlib.util.spec_from_file_location(f"_naming18_{stem}", HIDDEN / f"{stem}.py")
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


# --- q02: d_k = K.dim() -------------------------------------------------------------------------------

def test_scale_from_ndim_only_where_the_rank_is_no_size():
    Q, K = _r(2, 6, 16), _r(2, 6, 16, seed=1)
    wrong = D.scores_variants(Q, K)
    assert torch.allclose(wrong["scale_from_ndim/k"], Q @ K.mT / math.sqrt(3))
    # rank 4 with T_k = 4 (blind16's broadcast shapes): the scale is a length as well, so no name
    Q4, K4 = _r(3, 2, 6, 12), _r(3, 2, 4, 12, seed=1)
    assert not [k for k in D.scores_variants(Q4, K4) if k.startswith("scale_from_ndim")]
    # and rank 3 with a batch of 3: Q.shape[0] read as d_k gives the same scale
    assert not [k for k in D.scores_variants(_r(3, 6, 16), _r(3, 6, 16, seed=1)) if k.startswith("scale_from_ndim")]


def test_the_q02_shapes_keep_the_rank_apart_from_every_size():
    src = (HIDDEN / "q02.py").read_text()
    assert "randn((2, 6, 16), rng)" in src and "3, 2, 6, 5, 12" in src


# --- q01: tokens as columns -------------------------------------------------------------------------

def test_projections_transposed_is_the_transpose_and_left_out_where_square():
    X, W = _r(7, 9), [_r(9, 12, seed=1), _r(9, 12, seed=2), _r(9, 5, seed=3)]
    Q, K, V = ap.project_qkv(X, *W)
    got = D.qkv_variants(X, *W)["projections_transposed"]
    assert all(torch.equal(g, w.mT) for g, w in zip(got, (Q, K, V)))
    X12 = _r(12, 9)   # T = d_k: (d_k, T) has Q's own shape
    assert "projections_transposed" not in D.qkv_variants(X12, *W)


# --- q04: masked_fill(tril, min) ----------------------------------------------------------------------

def test_the_inverted_mask_pattern_is_tril_with_its_diagonal_and_no_other_mask():
    T = 6
    inv = D.mask_patterns(T)["upper_triangular_mask/inverted"]
    assert torch.equal(inv, torch.ones(T, T, dtype=torch.bool).tril())
    for key, M in ap.mask_variants(T, torch.float64).items():
        assert not torch.equal(M != 0, inv), key


# --- q07: V @ A, (Q, V, K), Q Q^T ---------------------------------------------------------------------

def _attn(body):
    def self_attention(X, W_Q, W_K, W_V, causal=True):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        M = ap.causal_additive_mask(X.shape[-2], X.dtype) if causal else None
        return body(Q, K, V, M)
    return TrustedProxy(self_attention, "cpu")


def _softmax(S, M):
    return torch.softmax(S if M is None else S + M, dim=-1)


def test_values_times_weights_is_named_from_a_d_v_equal_T_rerun():
    X, W = _r(10, 7), (_r(7, 12, seed=1) / 3, _r(7, 12, seed=2) / 3, _r(7, 5, seed=3))

    def v_at_a(Q, K, V, M):
        A = _softmax(Q @ K.mT / math.sqrt(Q.shape[-1]), M)
        return V @ A, A
    fn = _attn(v_at_a)
    named = D.values_as_long_crash(fn, _crash(fn, X, *W), X, W)
    assert named is not None and named.key == "nw_operands_swapped"


def test_a_crash_whose_d_v_equal_T_rerun_is_right_or_other_is_not_named_v_at_a():
    X, W = _r(10, 7), (_r(7, 12, seed=1) / 3, _r(7, 12, seed=2) / 3, _r(7, 5, seed=3))

    def crash_unless_square_values(Q, K, V, M):   # right whenever it runs: the crash is its own mistake
        if V.shape[-1] != V.shape[-2]:
            raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (10x5 and 10x10)")
        A = _softmax(Q @ K.mT / math.sqrt(Q.shape[-1]), M)
        return A @ V, A

    def transposed_weights(Q, K, V, M):            # runs there too, but is A^T V, not V @ A
        if V.shape[-1] != V.shape[-2]:
            raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (10x5 and 10x10)")
        A = _softmax(Q @ K.mT / math.sqrt(Q.shape[-1]), M)
        return A.mT @ V, A
    for body in (crash_unless_square_values, transposed_weights):
        fn = _attn(body)
        assert D.values_as_long_crash(fn, _crash(fn, X, *W), X, W) is None


def test_q_v_k_unpacked_is_scores_from_values_where_d_v_equals_d_k():
    X, W = _r(6, 7), (_r(7, 12, seed=1), _r(7, 12, seed=2), _r(7, 12, seed=3))
    wrong = D.self_attention_variants(X, *W)
    Q, K, V = ap.project_qkv(X, *W)
    A = _softmax(Q @ V.mT / math.sqrt(12), ap.causal_additive_mask(6, torch.float64))
    assert torch.allclose(wrong["scores_from_values/keys_averaged"][0], A @ K)
    W5 = (W[0], W[1], _r(7, 5, seed=3))
    assert "scores_from_values/keys_averaged" not in D.self_attention_variants(X, *W5)


def test_queries_scored_twice_is_keys_are_queries_only_when_project_qkv_is_right():
    X, W = _r(6, 7), (_r(7, 12, seed=1), _r(7, 12, seed=2), _r(7, 5, seed=3))
    right = TrustedProxy(lambda X, W_Q, W_K, W_V: (X @ W_Q, X @ W_K, X @ W_V), "cpu")
    with pytest.raises(Misconception) as named:
        D.raise_queries_twice(right, X, W, torch.float64)
    assert named.value.key == "keys_are_queries"
    one_matrix = TrustedProxy(lambda X, W_Q, W_K, W_V: (X @ W_Q, X @ W_Q, X @ W_V), "cpu")
    D.raise_queries_twice(one_matrix, X, W, torch.float64)   # K from W_Q: same_projection stays
