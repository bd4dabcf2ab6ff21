"""attention-pipeline, naming round 61 (blind61's kinds: a library's documented behaviour misread).

q01: torch.split given the cut points of the fused projection ([d_k, 2 * d_k], where Q and K end, as tensor_split
takes them) where it takes the sizes of the pieces: torch's crash reports sizes that are exactly those cut points,
and either they end at the fused width (all three offsets given) or a second call with d_v = d_k (where [d_k, 2 d_k]
adds up to the width) gives two pieces for three names: split_given_cut_points. Sizes that are not the cut points
([d_k, d_k], d_v forgotten) are not told so; split([d_k, d_k, d_v]) and tensor_split([d_k, 2 * d_k]) keep full marks.

q08: the weighted values divided by torch.logsumexp of the scores, taken for a stable sum of the kernel weights (it
is the LOG of that sum): named nw_denominator_logsumexp where the row is that replayed. Weights
exp(s - logsumexp(s)) keep full marks.

q11: max_rank_S read as torch.max(ranks, dim)[1] (or .indices, or sort(...)[1]): the pair is (values, indices),
so the answer is the position of the largest sampled rank. Named max_indices_read_as_values where the number is a
valid index below the bound and the answer's assignment reads a [1] / .indices of such a call (or of a name its cell
bound to one). A typed 0 is not told so; .values and [0] keep full marks.

q12 (the judge's borderline): `[nn.Linear(d_model, d_k)] * 2` for W_Q and W_K is ONE module twice, and parameters()
yields the shared weight once: where the count is W_K's term missing (replayed) and the def multiplies a list of one
module call by a number, named module_list_repeated (the cause) instead of param_count_no_wk. A count that leaves
W_K out by hand stays param_count_no_wk; one Linear per projection keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_lost, graded_as


PROJ = "project_qkv"
NW = "nadaraya_watson"
RANK = "max_rank_S"          # the q11 cell (also sets rank_S_lesson)
PARAMS = "qkv_param_count"


_graded = graded_as("attention-pipeline", "round61")


def _keys(failed: list[tuple[str, str, str | None, str]], question: str) -> set[str | None]:
    return {k for q, _, k, _ in failed if q == question}


# --- q01: torch.split given cut points ----------------------------------------------------------------------------

_FUSED = "    QKV = X @ torch.cat([W_Q, W_K, W_V], dim=-1)\n"


@pytest.mark.parametrize("cell", [
    ("def project_qkv(X, W_Q, W_K, W_V):\n    d_k = W_Q.shape[-1]\n" + _FUSED
     + "    Q, K, V = QKV.split((d_k, d_k + d_k), -1)   # cut after Q and after K\n    return Q, K, V\n"),
    ("def project_qkv(X, W_Q, W_K, W_V):\n    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]\n" + _FUSED
     + "    return tuple(torch.split(QKV, [d_k, 2 * d_k, 2 * d_k + d_v], dim=-1))   # the three ends\n"),
])
def test_split_given_cut_points_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {PROJ: cell}))
    assert _keys(failed, "q01") == {"split_given_cut_points"}, failed
    said = next(m for q, _, _, m in failed if q == "q01")
    assert "cut points" in said and "[d_k, d_k, d_v]" in said, said


def test_split_sizes_missing_d_v_is_not_told_cut_points(grader: Grader) -> None:
    cell = ("def project_qkv(X, W_Q, W_K, W_V):\n    d_k = W_Q.shape[-1]\n" + _FUSED
            + "    Q, K, V = torch.split(QKV, [d_k, d_k], dim=-1)\n    return Q, K, V\n")
    failed = assert_lost(_graded(grader, {PROJ: cell}))
    assert "split_given_cut_points" not in _keys(failed, "q01"), failed


@pytest.mark.parametrize("split", [
    "torch.split(QKV, [d_k, d_k, d_v], dim=-1)",
    "QKV.tensor_split([d_k, 2 * d_k], dim=-1)",
])
def test_split_at_sizes_or_tensor_split_at_cuts_keeps_full_marks(grader: Grader, split: str) -> None:
    assert_full_marks(_graded(grader, {PROJ: "def project_qkv(X, W_Q, W_K, W_V):\n    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]\n"
                                             + _FUSED + f"    Q, K, V = {split}\n    return Q, K, V\n"}))


# --- q08: logsumexp taken for the kernels' sum ----------------------------------------------------------------------

@pytest.mark.parametrize("cell", [
    ("def nadaraya_watson(q, K, V):\n    s = K @ q / math.sqrt(q.shape[-1])\n"
     "    return (torch.exp(s)[:, None] * V).sum(dim=0) / s.logsumexp(0)   # a stable sum of the kernels\n"),
    ("def nadaraya_watson(q, K, V):\n    s = torch.mv(K, q) / q.shape[-1] ** 0.5\n"
     "    kappa = s.exp()\n    total = torch.logsumexp(s, dim=-1)\n    return V.T @ kappa / total\n"),
])
def test_logsumexp_denominator_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {NW: cell}))
    assert _keys(failed, "q08") == {"nw_denominator_logsumexp"}, failed
    assert "LOG of that sum" in failed[0][3], failed


def test_weights_from_logsumexp_keep_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {NW: "def nadaraya_watson(q, K, V):\n    s = K @ q / math.sqrt(q.shape[-1])\n"
                                           "    return torch.exp(s - torch.logsumexp(s, dim=0)) @ V\n"}))


# --- q11: the index of torch.max's pair read as the maximum ---------------------------------------------------------

_RANKS = ("_g = torch.Generator().manual_seed(0)\n"
          "_ranks = torch.stack([torch.linalg.matrix_rank(torch.randn(100, 8, generator=_g, dtype=torch.float64)\n"
          "                      @ torch.randn(8, 100, generator=_g, dtype=torch.float64)) for _ in range(4)])\n")
_LESSON = "\nrank_S_lesson = 2\n"


@pytest.mark.parametrize("line", [
    "max_rank_S = int(_ranks.max(0).indices)",
    "_best = torch.max(_ranks, dim=0)\nmax_rank_S = _best[1].item()",
    "max_rank_S = int(torch.sort(_ranks, descending=True)[1][0])",
])
def test_max_indices_read_as_the_maximum_is_named(grader: Grader, line: str) -> None:
    failed = assert_lost(_graded(grader, {RANK: _RANKS + line + _LESSON}))
    assert [(q, k) for q, _, k, _ in failed] == [("q11", "max_indices_read_as_values")], failed
    assert "(values, indices)" in failed[0][3], failed


def test_a_typed_zero_is_not_told_an_index(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {RANK: "max_rank_S = 0" + _LESSON}))
    assert "max_indices_read_as_values" not in _keys(failed, "q11"), failed


@pytest.mark.parametrize("line", [
    "max_rank_S = int(torch.max(_ranks, dim=0)[0])",
    "max_rank_S = int(_ranks.max(0).values)",
])
def test_max_values_keep_full_marks(grader: Grader, line: str) -> None:
    outcome = _graded(grader, {RANK: _RANKS + line + _LESSON})
    assert not [f for f in outcome.failed if f[0] == "q11"], outcome.failed


# --- q12: a list of one module multiplied -------------------------------------------------------------------------

_COUNT = "    return sum(p.numel() for p in layers.parameters())\n"
_WO = ("    if with_output:\n        layers.append(torch.nn.Linear(d_v, d_model, bias=False))\n")


@pytest.mark.parametrize("cell", [
    ("def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
     "    layers = torch.nn.ModuleList([torch.nn.Linear(d_model, d_k, bias=False)] * 2\n"
     "                                 + [torch.nn.Linear(d_model, d_v, bias=False)])\n" + _WO + _COUNT),
    ("from torch.nn import Linear\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
     "    n_qk = 2\n    qk = n_qk * [Linear(d_model, d_k, bias=False)]\n"
     "    layers = torch.nn.ModuleList(qk + [Linear(d_model, d_v, bias=False)])\n" + _WO + _COUNT),
])
def test_module_list_repeated_is_named(grader: Grader, cell: str) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: cell}))
    assert _keys(failed, "q12") == {"module_list_repeated"}, failed
    assert "ONE module" in failed[0][3], failed


def test_w_k_left_out_by_hand_stays_no_wk(grader: Grader) -> None:
    failed = assert_lost(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                                  "    return d_model * d_k + d_model * d_v + (d_v * d_model if with_output else 0)\n"}))
    assert _keys(failed, "q12") == {"param_count_no_wk"}, failed


def test_one_linear_per_projection_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                               "    layers = torch.nn.ModuleList([torch.nn.Linear(d_model, d_k, bias=False) for _ in "
                                               "range(2)]\n                                 + [torch.nn.Linear(d_model, d_v,"
                                               " bias=False)])\n"
                                               + _WO + _COUNT}))
