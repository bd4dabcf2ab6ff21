"""Naming scaled-attention's mistakes (issue 21, second round), in-process: the evidence each name rests on,
checked on the reference and on the hidden files' own helpers. A mistake is named only when the output
equals what it gives on the same input (for q2: the same generator), or a second call shows it."""
from __future__ import annotations

import importlib.util
import math
from itertools import combinations
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception
from reference import scaled_attention as sa

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "scaled-attention" / "hidden"


def _hidden(name: str):
    spec = importlib.util.spec_from_file_location(f"_test_scaled_more_{name}", HIDDEN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _same(a, b):
    return a.shape == b.shape and bool(torch.allclose(a, b, rtol=1e-10, atol=1e-10, equal_nan=True))


# --- q1: both results of one call, together --------------------------------------------------------------

def test_the_scale_on_the_output_is_not_named_no_scale_from_its_weights():
    q1 = _hidden("q1")
    Q, K, V = _r(5, 12), _r(7, 12, seed=1), _r(7, 10, seed=2)
    w = torch.softmax(Q @ K.T, -1)
    pair = (w @ V / math.sqrt(12), w)           # its weights alone are no_scale's
    assert _same(w, sa.wrong_variants(Q, K, V, 12, "weights")["no_scale"])
    key, wrong, _ = q1.D.pair_evidence(pair, Q, K, V, 12)
    assert key == "scale_after_softmax" and _same(wrong[0], pair[0])
    # and the right pair is evidence of nothing
    assert q1.D.pair_evidence(sa.attention(Q, K, V, 12), Q, K, V, 12) is None


def test_the_scores_returned_as_weights_are_told_from_a_missing_softmax():
    q1 = _hidden("q1")
    Q, K, V = _r(6, 16), _r(6, 16, seed=1), _r(6, 10, seed=2)
    out, _ = sa.attention(Q, K, V, 16)
    S = Q @ K.T / 4
    assert q1.D.pair_evidence((out, S), Q, K, V, 16)[0] == "returns_scores_as_weights"
    assert q1.D.pair_evidence((S @ V, S), Q, K, V, 16)[0] == "no_softmax"


@pytest.mark.parametrize("c", [8.0, 6.0, 1.7, -3.0])
def test_a_scale_constant_is_fitted_to_the_weights_and_reported(c):
    q1 = _hidden("q1")
    Q, K, V = _r(5, 12), _r(7, 12, seed=1), _r(7, 10, seed=2)
    w = torch.softmax(Q @ K.T / c, -1)
    if c < 0:   # a sign, not a scale constant (naming9): only -sqrt(d_k) is named, as scores_negated
        assert q1.D.pair_evidence((w @ V, w), Q, K, V, 12) is None
        return
    key, _, message = q1.D.pair_evidence((w @ V, w), Q, K, V, 12)
    assert key == "wrong_scale_constant" and f"c = {c:.4g}" in message
    assert ("d_k ** 1/2" in message) == (c == 6.0)      # d_k / 2 for d_k = 12
    # the same weights with an output that is not theirs: nothing follows from the weights alone
    assert q1.D.pair_evidence((w @ V + 0.1, w), Q, K, V, 12) is None


def test_the_fitted_kernels_are_named_only_when_they_fit():
    q1 = _hidden("q1")
    Q, K, V = _r(6, 12), _r(6, 12, seed=1), _r(6, 5, seed=2)
    gauss = torch.softmax(-torch.cdist(Q, K) ** 2 / 3.0, -1)
    assert q1.D.pair_evidence((gauss @ V, gauss), Q, K, V, 12)[0] == "gaussian_kernel"
    cos = torch.softmax(F.normalize(Q, dim=-1) @ F.normalize(K, dim=-1).T * 2.5, -1)
    assert q1.D.pair_evidence((cos @ V, cos), Q, K, V, 12)[0] == "cosine_scores"
    uniform = torch.full((6, 6), 1 / 6, dtype=torch.float64)   # a softmax of nothing: no c fits
    assert q1.D.pair_evidence((uniform @ V, uniform), Q, K, V, 12)[0] == "uniform_weights"
    assert sa.fitted_scale(Q @ K.T, uniform) is None


def test_crashes_named_from_torchs_own_message():
    q1 = _hidden("q1")
    Q, K = _r(5, 12), _r(7, 12)
    e = StudentCodeError("TypeError", "sqrt(): argument 'input' (position 1) must be Tensor, not int")
    assert q1.D._crash_named(e, Q, K).key == "torch_sqrt_of_int"
    e = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x12 and 7x12)")
    assert q1.D._crash_named(e, Q, K).key == "keys_not_transposed"
    # the same error with other shapes (weights @ V.T, say) names nothing
    e = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x7 and 10x7)")
    assert q1.D._crash_named(e, Q, K) is None


def test_the_new_q1_mistakes_are_apart_as_pairs_on_the_test_shapes():
    for T_q, T_k, d_k, d_v in [(5, 7, 12, 10), (6, 4, 12, 5), (6, 6, 16, 10), (4, 9, 16, 3), (6, 6, 12, 5), (7, 7, 16, 4)]:
        Q, K, V = _r(T_q, d_k, seed=1), _r(T_k, d_k, seed=2), _r(T_k, d_v, seed=3)
        pairs = sa.pair_variants(Q, K, V, d_k)
        assert {"scale_precedence", "softmax_whole_matrix", "causal_mask_added", "returns_scores_as_weights"} <= set(pairs)
        for (a, x), (b, y) in combinations(pairs.items(), 2):
            if a.split("/")[0] != b.split("/")[0]:
                assert not (_same(x[0], y[0]) and _same(x[1], y[1])), (a, b)


# --- q2: the same generator, replayed ---------------------------------------------------------------------

def test_a_sampler_mistake_is_named_from_the_same_generator_and_nothing_else():
    q2 = _hidden("q2")
    seed, d_k = 1234, 12
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(d_k, generator=g), torch.randn(q2.N, d_k, generator=g)
    shared = float((k @ q).var())
    assert q2._replayed(d_k, seed, False, shared) == "shared_sample"
    # the right estimate, and the same mistake on another generator, name nothing
    right, _ = sa.variance_variants(d_k, q2.N, seed, False)
    assert q2._replayed(d_k, seed, False, right[0]) is None
    _, other = sa.variance_variants(d_k, q2.N, seed + 1, False)
    assert q2._replayed(d_k, seed, False, other["shared_sample"]) is None


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("seed", [7, 8, 9])
def test_a_replayed_mistake_is_named_as_itself_or_not_at_all(seed, scaled):
    # two mistakes whose values come within rounding of each other on one generator name neither
    q2 = _hidden("q2")
    _, wrong = sa.variance_variants(64, q2.N, seed, scaled)
    named = {k: q2._replayed(64, seed, scaled, v) for k, v in wrong.items()}
    D = q2.D   # the assignment's _diagnose: a replayed draw's key (a swapped randn shape has a key of its own)
    assert all(n in (None, D.replay_key(k)) for k, n in named.items()), named
    assert sum(n is not None for n in named.values()) >= len(named) - 4


# --- q4: the entropy ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, 6), (2, 3, 5), (4, 8), (3, 5, 7)])
def test_entropy_mistakes_are_apart_on_the_test_shapes(shape):
    logits = _r(*shape) * 2
    right = sa.softmax_entropy(logits)
    items = [(k, v) for k, v in sa.entropy_variants(logits).items() if v is not None]
    assert not [k for k, v in items if _same(v, right)]
    assert not [(a, b) for (a, x), (b, y) in combinations(items, 2) if a.split("/")[0] != b.split("/")[0] and _same(x, y)]


def test_a_nan_is_blamed_on_its_cause_by_the_probe():
    def no_max(x):      # exp of the raw logits: overflows
        e = x.exp()
        p = e / e.sum(-1, keepdim=True)
        return -(p * (p + 1e-9).log()).sum(-1)

    def zero_log_zero(x):
        p = F.softmax(x, -1)
        return -(p * p.log()).sum(-1)

    probe = sa.ENTROPY_PROBE
    a, b = no_max(probe), zero_log_zero(probe)
    assert not torch.isfinite(a[0]) and torch.isfinite(a[1])
    assert torch.isnan(b[1]) and torch.isfinite(b[0])
    assert torch.isfinite(sa.softmax_entropy(probe)).all()


# --- q8: multi-head attention ---------------------------------------------------------------------------

@pytest.mark.parametrize("T, d_model, n_heads", [(5, 48, 4), (7, 36, 3), (6, 32, 8)])
def test_mha_mistakes_are_apart_on_the_test_shapes(T, d_model, n_heads):
    X = _r(T, d_model)
    Ws = [_r(d_model, d_model, seed=s) / math.sqrt(d_model) for s in range(1, 5)]
    right = sa.multi_head_attention(X, *Ws, n_heads)
    items = list(sa.mha_variants(X, *Ws, n_heads).items())
    assert {"mha_strided_heads", "mha_merge_without_transpose", "mha_single_head", "same_projection/k_from_w_q",
            "mha_softmax_over_heads"} <= {k for k, _ in items}
    equal_to_right = {k for k, v in items if _same(v, right)}
    assert equal_to_right <= {"integer_sqrt_scale", "float32_scale"}     # d_k = 4: both exact (dropped by the tests)
    assert not [(a, b) for (a, x), (b, y) in combinations(items, 2)
                if a.split("/")[0] != b.split("/")[0] and _same(x, y) and a not in equal_to_right]


def test_a_misconception_is_what_the_hidden_helpers_raise():
    q1 = _hidden("q1")
    e = StudentCodeError("TypeError", "sqrt(): argument 'input' (position 1) must be Tensor, not int")
    assert isinstance(q1.D._crash_named(e, _r(5, 12), _r(7, 12)), Misconception)


# --- issue 21, fourth round ------------------------------------------------------------------------------

def test_the_input_split_before_projecting_is_the_diagonal_blocks_and_apart():
    X = _r(5, 48)
    Ws = [_r(48, 48, seed=s) / math.sqrt(48) for s in range(1, 5)]
    got = sa.mha_input_split_before_projection(X, *Ws, 4)
    # the same as projecting X by the block-diagonal part of each weight
    blocks = [torch.block_diag(*(W[i * 12:(i + 1) * 12, i * 12:(i + 1) * 12] for i in range(4))) for W in Ws[:3]]
    assert _same(got, sa.multi_head_attention(X, *blocks, Ws[3], 4))
    assert not _same(got, sa.multi_head_attention(X, *Ws, 4))
    assert "mha_input_split_before_projection" in sa.mha_variants(X, *Ws, 4)


def test_heads_stacked_as_rows_are_named_from_torchs_shapes_only():
    q8 = _hidden("q8")
    X = _r(5, 48)
    Ws = [_r(48, 48, seed=s) for s in range(1, 5)]

    def never(*_a):
        raise AssertionError("no re-run is needed")

    e = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (20x12 and 48x48)")
    named = q8._crash_named(never, e, X, Ws, 4)
    assert isinstance(named, Misconception) and named.key == "mha_heads_concatenated_as_rows"
    other = StudentCodeError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (5x12 and 48x48)")
    assert q8._crash_named(lambda *_a: None, other, X, Ws, 4) is None


def test_swapped_table_fields_are_apart_and_a_dict_of_columns_is_named_only_when_right():
    rows = sa.entropy_table((12, 48, 100), 3)
    variants = {k: sa.table_as_tensor(v) for k, v in sa.entropy_table_variants((12, 48, 100), 3).items()}
    right = sa.table_as_tensor(rows)
    swapped = {k: v for k, v in variants.items() if k.startswith("table_fields_swapped/")}
    assert len(swapped) == 6 and not any(torch.allclose(v, right) for v in swapped.values())
    assert not [(a, b) for (a, x), (b, y) in combinations(variants.items(), 2)
                if a.split("/")[0] != b.split("/")[0] and torch.allclose(x, y)]
    q4 = _hidden("q4")
    cols = {k: [r[k] for r in rows] for k in sa.ENTROPY_TABLE_KEYS}
    with pytest.raises(Misconception) as e:
        q4._raise_if_columns(cols, (12, 48, 100), right)
    assert e.value.key == "table_dict_of_lists"
    cols["H_raw"] = cols["H_scaled"]                  # wrong values as columns: not named
    q4._raise_if_columns(cols, (12, 48, 100), right)
