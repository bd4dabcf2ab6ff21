"""attention-pipeline, naming round 39 (blind38's kinds): the rank taken as the count of non-zero eigenvalues is
rank_from_eigenvalues where the answer is that count on the lesson's S (1; its rank is 2) and the notebook computes
eigenvalues (it was one_edit_fix, proposing Q_lesson for K_lesson); an integer 0/1 triangle used as the mask's
index is mask_integer_triangle_index where the mask is the replay (rows 0 and 1 picked whole); the NaN of
0 log 0 zeroed after the row sum is entropy_nan_zeroed_after_sum (a replayed variant); the projections counted as
torch.nn.MultiheadAttention(d_model, 1, kdim=d_k, vdim=d_v) builds them is param_count_mha_input_widths. Each
kind: two wrong variants of my own, a correct one at full marks, and a near miss that keeps another name (or none).
A float rank (2.0) stays accepted: tests/heldout/attention-pipeline/variants.py holds it as a correct form."""
from __future__ import annotations

import pytest
import torch

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as
from tests.hidden_modules import load


D = load("attention-pipeline", "_diagnose", "_naming39__diagnose")

MASK, ENT, RANK, PARAMS = "causal_additive_mask", "row_entropy_bits", "max_rank_S", "qkv_param_count"

LESSON = '''K_lesson = torch.tensor([[2.0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
                        dtype=torch.float64)
Q_lesson = torch.tensor([[1.0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]],
                        dtype=torch.float64)
max_rank_S = 8
'''


_graded = graded_as("attention-pipeline", "round39")


# --- the rank from the non-zero eigenvalues --------------------------------------------------------------------

@pytest.mark.parametrize("tail", [
    "vals, _ = torch.linalg.eig(Q_lesson @ K_lesson.T)\nrank_S_lesson = sum(1 for v in vals if abs(v) > 1e-9)\n",
    "import numpy as np\nS_np = (Q_lesson @ K_lesson.T / 2).numpy()\n"
    "rank_S_lesson = int(np.count_nonzero(np.abs(np.linalg.eigvals(S_np)) > 1e-8))\n",
])
def test_rank_from_eigenvalues_is_named(grader: Grader, tail: str) -> None:
    assert_named(_graded(grader, {RANK: LESSON + tail}), "rank_from_eigenvalues", {"q11"})


def test_rank_from_eigenvalues_of_gram_keeps_full_marks(grader: Grader) -> None:
    # the eigenvalues of S^T S are the squared singular values: their count is the rank
    assert_full_marks(_graded(grader, {RANK: LESSON + "S = Q_lesson @ K_lesson.T / 2\n"
                                              "rank_S_lesson = int((torch.linalg.eigvalsh(S.T @ S) > 1e-10).sum())\n"}))


def test_bare_one_without_eigenvalues_is_not_named(grader: Grader) -> None:
    # the same number with no eigen-decomposition in the notebook: no evidence of the method, left generic
    outcome = _graded(grader, {RANK: LESSON + "rank_S_lesson = 1\n"})
    assert outcome.failed and all(k != "rank_from_eigenvalues" for *_, k, _ in outcome.failed), outcome.failed


# --- an integer 0/1 triangle as the mask's index ----------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "    future = torch.ones(T, T, device=device).triu(1).long()\n"
    "    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
    "    M[future] = torch.finfo(dtype).min\n    return M\n",
    "    keep = torch.tril(torch.ones(T, T, dtype=torch.int32, device=device))\n"
    "    M = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype, device=device)\n"
    "    M[keep] = 0\n    return M\n",
])
def test_integer_triangle_index_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {MASK: "def causal_additive_mask(T, dtype, device=None):\n" + body}),
                         "mask_integer_triangle_index", {"q04", "q05", "q07", "q09", "q10", "q13"})


def test_boolean_triangle_index_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {MASK: "def causal_additive_mask(T, dtype, device=None):\n"
                                             "    future = torch.ones(T, T, dtype=torch.long, device=device).triu(1).bool()\n"
                                             "    M = torch.zeros(T, T, dtype=dtype, device=device)\n"
                                             "    M[future] = torch.finfo(dtype).min\n    return M\n"}))


def test_integer_triangle_replay_needs_the_rows() -> None:
    T = 6
    right = torch.ones(T, T, dtype=torch.bool).triu(1)
    D.raise_if_integer_triangle_index(right, T)             # the right pattern: says nothing
    D.raise_if_integer_triangle_index(right.T.clone(), T)   # the past blocked (another mistake): says nothing
    rows = torch.zeros(T, T, dtype=torch.bool)
    rows[:2] = True
    from autograder.grading.checks import Misconception
    with pytest.raises(Misconception) as e:
        D.raise_if_integer_triangle_index(rows, T)
    assert e.value.key == "mask_integer_triangle_index"
    D.raise_if_integer_triangle_index(torch.ones(2, 2, dtype=torch.bool), 2)   # T < 3: rows 0, 1 are all


# --- the NaN of 0 log 0 zeroed after the row sum --------------------------------------------------------------

_EFF = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"


@pytest.mark.parametrize("body", [
    "    H = -(A * torch.log2(A)).sum(dim=-1)\n    H[torch.isnan(H)] = 0.0\n    return H\n",
    "    h = -(A * torch.log(A)).sum(-1) / math.log(2)\n    return torch.where(h.isnan(), torch.zeros_like(h), h)\n",
])
def test_nan_zeroed_after_sum_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {ENT: "def row_entropy_bits(A):\n" + body + _EFF}), "entropy_nan_zeroed_after_sum", {"q10"})


def test_nan_zeroed_before_sum_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {ENT: "def row_entropy_bits(A):\n    return -torch.nan_to_num(A * torch.log2(A), nan=0.0).sum(-1)\n"
                                            + _EFF}))


def test_nan_zeroed_after_sum_needs_a_zero_weight() -> None:
    A = torch.softmax(torch.randn(3, 5, dtype=torch.float64), dim=-1)   # no zero: the variant is the reference
    from autograder.grading.checks import matching_variants
    from reference import attention_pipeline as ref
    assert "entropy_nan_zeroed_after_sum" not in matching_variants(
        ref.row_entropy_bits(A) + 0.5, D.entropy_variants(A), torch.float64)
    assert torch.allclose(D.entropy_variants(A)["entropy_nan_zeroed_after_sum"], ref.row_entropy_bits(A))


# --- nn.MultiheadAttention's kdim / vdim read as output widths -----------------------------------------------------

@pytest.mark.parametrize("body", [
    "    n = d_model * d_model + d_model * d_k + d_model * d_v   # W_Q maps d_model to d_model\n"
    "    if with_output:\n        n += d_model * d_model\n    return n\n",
    "    mha = torch.nn.MultiheadAttention(d_model, 1, kdim=d_k, vdim=d_v)\n"
    "    if with_output:\n        return sum(p.numel() for p in mha.parameters())\n"
    "    return sum(p.numel() for n, p in mha.named_parameters() if 'out_proj' not in n)\n",
])
def test_mha_input_widths_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n" + body}),
                         "param_count_mha_input_widths", {"q12"})


def test_separate_linear_layers_keep_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                               "    layers = [torch.nn.Linear(d_model, d_k, bias=False), torch.nn.Linear(d_model, d_k, "
                                               "bias=False), torch.nn.Linear(d_model, d_v, bias=False)]\n"
                                               "    if with_output:\n        layers.append(torch.nn.Linear(d_v, d_model, bias=False))\n"
                                               "    return sum(l.weight.numel() for l in layers)\n"}))


def test_square_projections_keep_their_own_name(grader: Grader) -> None:
    # kdim / vdim left at d_model: every projection d_model x d_model, the catalogued param_count_squares
    outcome = _graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                       "    return (4 if with_output else 3) * d_model * d_model\n"})
    assert outcome.failed and all(k == "param_count_squares" for *_, k, _ in outcome.failed), outcome.failed
