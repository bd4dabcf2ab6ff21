"""attention-pipeline, naming round 48 (red-team 52 and blind48's kinds).

q07 / q09: a self_attention whose weights never see the scores (W_Q, W_K unused, the scores times 0, Lesson 07's
prefix-average matrix in their place) gives every visible key the same weight. q07's property test (A lower-
triangular, rows of 1, O = A V) and q09's zero projections (with W_Q = W_K = 0 the uniform causal weights ARE the
answer) could not tell it: both now compare A with uniform_weights' own A on ordinary projections (q09 with a second
call, the same X and W_V). Weights that are uniform because the student's attention_weights stage ignores S are
charged once, by q05. Right variants keep full marks.

q10: an entropy that skips the zero weights by picking out the positive ones (A[A > 0], A[mask], masked_select,
A[A.nonzero(as_tuple=True)]) takes every row's entries into one flat tensor: one number, the entropy of every positive
entry of A together. Named entropy_rows_flattened_by_selection where the number is that replay and the code takes the
log of such a selection; the same number from a .sum() without dim= (no selection into the log, or a dim-less sum
beside it) stays reduced_every_axis. Per-row selections (a loop over the rows, a masked scatter into a tensor of A's
shape) keep full marks."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading.grader import Grader
from reference import attention_pipeline as ref
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming48__diagnose")

SA = "def self_attention(X, W_Q, W_K, W_V, causal=True):\n"
ENT = "row_entropy_bits"
EFFECTIVE = "\n\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"
UNIFORM = "uniform_weights"
FLAT = "entropy_rows_flattened_by_selection"


_graded = graded_as("attention-pipeline", "round48")


def _entropy(body: str, before: str = "") -> dict[str, str]:
    return {ENT: before + "def row_entropy_bits(A):\n" + body + EFFECTIVE}


class _Notebook:
    def __init__(self, *cells: str) -> None:
        self.cells = list(cells)


# --- q07 / q09: weights that never see the scores -----------------------------------------------------------------

@pytest.mark.parametrize("body", [
    # the scores made, then multiplied by 0 before the stages' softmax
    "    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    S = scaled_scores(Q, K) * 0\n"
    "    M = causal_additive_mask(X.shape[-2], S.dtype) if causal else None\n"
    "    A = attention_weights(S, M)\n"
    "    return A @ V, A\n",
    # Lesson 07's fixed prefix-average matrix in place of the weights
    "    T = X.shape[-2]\n"
    "    A = prefix_average_matrix(T).to(X.dtype) if causal else torch.full((T, T), 1.0 / T, dtype=X.dtype)\n"
    "    A = A.expand(*X.shape[:-2], T, T)\n"
    "    return A @ (X @ W_V), A\n",
    # a softmax of zero scores plus the mask: W_Q and W_K never read
    "    V = X @ W_V\n"
    "    T = X.shape[-2]\n"
    "    S = torch.zeros(*X.shape[:-2], T, T, dtype=X.dtype)\n"
    "    if causal:\n"
    "        S = S + causal_additive_mask(T, X.dtype)\n"
    "    A = torch.softmax(S, dim=-1)\n"
    "    return A @ V, A\n",
])
def test_weights_that_never_see_the_scores_are_named_everywhere(grader: Grader, body: str) -> None:
    failed = assert_lost(_graded(grader, {"self_attention": SA + body}))
    assert {q for q, *_ in failed} <= {"q07", "q09"}, failed
    assert all(k == UNIFORM for _, _, k, _ in failed), failed
    tests = {f"{q}:{t}" for q, t, *_ in failed}
    # the two tests that gave these points before (red-team 52)
    assert {"q07:test_causal_properties", "q09:test_zero_projections"} <= tests, tests


def test_uniform_weights_from_the_softmax_stage_are_charged_once(grader: Grader) -> None:
    # attention_weights ignoring S: q05 charges it; self_attention built on it is not charged again
    failed = assert_lost(_graded(grader, {"attention_weights": "def attention_weights(S, M=None):\n"
                                                               "    Z = torch.zeros_like(S)\n"
                                                               "    return torch.softmax(Z if M is None else Z + M, dim=-1)\n"}))
    assert {q for q, *_ in failed} == {"q05"}, failed


@pytest.mark.parametrize("body", [
    # einsum projections and scores
    "    Q = torch.einsum('...td,dk->...tk', X, W_Q)\n"
    "    K = torch.einsum('...td,dk->...tk', X, W_K)\n"
    "    V = torch.einsum('...td,dv->...tv', X, W_V)\n"
    "    S = torch.einsum('...qk,...tk->...qt', Q, K) / math.sqrt(Q.shape[-1])\n"
    "    if causal:\n"
    "        S = S + causal_additive_mask(X.shape[-2], S.dtype)\n"
    "    A = torch.softmax(S, dim=-1)\n"
    "    return A @ V, A\n",
    # the stages, the mask only when asked
    "    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
    "    S = scaled_scores(Q, K)\n"
    "    A = attention_weights(S, causal_additive_mask(S.shape[-1], S.dtype) if causal else None)\n"
    "    return torch.matmul(A, V), A\n",
])
def test_self_attention_that_uses_the_scores_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, {"self_attention": SA + body}))


def test_uniform_check_needs_scores_that_differ() -> None:
    g = torch.Generator().manual_seed(48)
    T, d_model, d_k, d_v = 6, 5, 4, 3
    X = torch.randn(T, d_model, generator=g, dtype=torch.float64)
    W = [torch.randn(d_model, d, generator=g, dtype=torch.float64) / math.sqrt(d_model) for d in (d_k, d_k, d_v)]
    uniform = ref.self_attention_variants(X, *W)[UNIFORM][1]
    with pytest.raises(AssertionError) as told:
        D.raise_if_uniform_weights(uniform, X, W, True, torch.float64, "A gives")
    assert getattr(told.value, "key", None) == UNIFORM
    # the right weights, and another mistake's, are not uniform
    D.raise_if_uniform_weights(ref.self_attention(X, *W)[1], X, W, True, torch.float64, "A gives")
    D.raise_if_uniform_weights(ref.self_attention_variants(X, *W)["no_scale"][1], X, W, True, torch.float64, "A gives")
    # with W_Q = W_K = 0 the uniform weights are the right ones: nothing to name there
    Z = torch.zeros(d_model, d_k, dtype=torch.float64)
    D.raise_if_uniform_weights(ref.self_attention(X, Z, Z, W[2])[1], X, (Z, Z, W[2]), True, torch.float64, "A gives")
    # without the mask: 1 / T everywhere
    flat = torch.full((T, T), 1.0 / T, dtype=torch.float64)
    with pytest.raises(AssertionError):
        D.raise_if_uniform_weights(flat, X, W, False, torch.float64, "A gives")


# --- q10: the positive entries picked out into one flat tensor ---------------------------------------------------

@pytest.mark.parametrize("cells", [
    _entropy("    keep = A > 0\n    vals = A[keep]\n    return -(vals * torch.log2(vals)).sum(-1)\n"),
    _entropy("    nz = torch.masked_select(A, A.gt(0))\n    return -torch.sum(nz * torch.log2(nz), dim=-1)\n"),
    _entropy("    p = A[A.nonzero(as_tuple=True)]\n    return -(p * p.log2()).sum(dim=0)\n"),
    _entropy("    return -_plogp(A[A != 0]).sum(dim=-1)\n", "def _plogp(x):\n    return x * torch.log2(x)\n\n\n"),
    _entropy("    p = A[(A > 0) & torch.isfinite(A)]\n    return -torch.xlogy(p, p).sum(-1) / math.log(2)\n"),
])
def test_selection_that_flattens_the_rows_is_named(grader: Grader, cells: dict[str, str]) -> None:
    failed = assert_lost(_graded(grader, cells))
    assert {q for q, *_ in failed} == {"q10"}, failed
    assert all(k == FLAT for _, _, k, _ in failed), failed


@pytest.mark.parametrize("cells", [
    # a sum without dim=, the zeros skipped by torch.where (no selection)
    _entropy("    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))\n    return -(A * logs).sum()\n"),
    # a masked scatter into A's shape, summed without dim=
    _entropy("    H = torch.zeros_like(A)\n    m = A > 0\n    H[m] = -A[m] * torch.log2(A[m])\n    return H.sum()\n"),
    # a selection and a sum without dim= in the same line: the dim-less sum is said
    _entropy("    p = A[A > 0]\n    return -(p * torch.log2(p)).sum()\n"),
])
def test_sum_without_dim_stays_reduced_every_axis(grader: Grader, cells: dict[str, str]) -> None:
    failed = assert_lost(_graded(grader, cells))
    assert {k for _, _, k, _ in failed} == {"reduced_every_axis"}, failed


@pytest.mark.parametrize("cells", [
    # one selection per row, in a loop
    _entropy("    flat = A.reshape(-1, A.shape[-1])\n"
             "    out = torch.empty(flat.shape[0], dtype=A.dtype)\n"
             "    for i in range(flat.shape[0]):\n"
             "        p = flat[i][flat[i] > 0]\n"
             "        out[i] = -(p * torch.log2(p)).sum()\n"
             "    return out.reshape(A.shape[:-1])\n"),
    # the selection scattered back into A's shape, summed over the keys
    _entropy("    H = torch.zeros(A.shape, dtype=A.dtype)\n    m = A > 0\n    H[m] = -A[m] * torch.log2(A[m])\n"
             "    return H.sum(dim=-1)\n"),
    # a selection read only for a floor (one number)
    _entropy("    tiny = A[A > 0].min() * 0 + 1e-300\n    return -(A * torch.log2(A.clamp_min(tiny))).sum(dim=-1)\n"),
])
def test_per_row_selections_keep_full_marks(grader: Grader, cells: dict[str, str]) -> None:
    assert_full_marks(_graded(grader, cells))


def test_selection_reads_the_source() -> None:
    def flattens(src: str) -> bool:
        return D.entropy_selection_flattens(_Notebook(src), ENT)
    assert flattens("def row_entropy_bits(A):\n    p = A[A > 0]\n    return -(p * torch.log2(p)).sum(dim=-1)\n")
    assert flattens("def row_entropy_bits(A):\n    m = ~(A == 0)\n    q = A[m]\n    return -(q * q.log2()).sum(-1)\n")
    assert flattens("def row_entropy_bits(A):\n    p = A[torch.where(A > 0)]\n"
                    "    return -(p * torch.log(p)).sum(-1) / math.log(2)\n")
    # a written selection (A[A == 0] = 1), a per-row floor (.min()), torch.where's three-argument form: no flattening
    assert not flattens("def row_entropy_bits(A):\n    B = A.clone()\n    B[B == 0] = 1.0\n"
                        "    return -(A * torch.log2(B)).sum(dim=-1)\n")
    assert not flattens("def row_entropy_bits(A):\n    e = A[A > 0].min()\n    return -(A * torch.log2(A + e)).sum(-1)\n")
    assert not flattens("def row_entropy_bits(A):\n    L = torch.where(A > 0, torch.log2(A), 0.0)\n"
                        "    return -(A * L).sum(-1)\n")
    # a logical_and mask is no log; a dim-less sum beside the selection is reduced_every_axis's
    assert not flattens("def row_entropy_bits(A):\n    p = A[torch.logical_and(A > 0, A < 1)]\n"
                        "    return -(p * p).sum(-1)\n")
    assert not flattens("def row_entropy_bits(A):\n    p = A[A > 0]\n    return -(p * torch.log2(p)).sum()\n")
    # nothing to read
    assert not D.entropy_selection_flattens(None, ENT)
    assert not flattens("x = 1\n")


def test_flattened_entropy_is_named_only_on_its_replay() -> None:
    A = ref.attention_weights(torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64),
                              ref.causal_additive_mask(5, torch.float64))
    src = _Notebook("def row_entropy_bits(A):\n    p = A[A > 0]\n    return -(p * torch.log2(p)).sum(dim=-1)\n")
    p = A[A > 0]
    total = -(p * torch.log2(p)).sum()
    with pytest.raises(AssertionError) as told:
        D.raise_if_rows_flattened_by_selection(total, A, src, "H", torch.float64)
    assert getattr(told.value, "key", None) == FLAT
    # another one number (the mean of the positive entries' terms), the right rows, no source: nothing named
    D.raise_if_rows_flattened_by_selection(total / p.numel(), A, src, "H", torch.float64)
    D.raise_if_rows_flattened_by_selection(ref.row_entropy_bits(A), A, src, "H", torch.float64)
    D.raise_if_rows_flattened_by_selection(total, A, None, "H", torch.float64)
