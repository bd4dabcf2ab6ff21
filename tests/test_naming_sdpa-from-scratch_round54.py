"""sdpa-from-scratch, naming round 54 (after blind54): a shape tuple holding a one-element torch.Size where an int
belongs (K.shape[1:2] for K.shape[1]) is size_slice_in_shape; the example's variances replayed from torch.rand draws
after the example's seed are uniform_draws (another seed is left generic); a softmax that normalises the logistic sigmoid of the shifted
(or raw) logits where exp belongs is sigmoid_for_exp, named by the replay on q3's own inputs; weights3_causal NaN
exactly where the notebook's softmax of scores3 filled with NaN is NaN, from a cell that writes a NaN and no infinity,
is mask_fill_nan (a +inf fill gives the same NaN rows and stays unnamed); q8's score_madds that the cell's own
power of a product of exponents gives, and the right count once the exponents are added, is exponents_multiplied;
a cost_ratio that the cell's `%` gives, and the right ratio once it is `//`, is remainder_for_quotient (the value 0
alone names nothing). Each kind is graded through the sandbox on variants of its own, with correct neighbours at
full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round54_diagnose")
ref = diag.ref

SM = "def stable_softmax(x, dim=-1):\n    m = x.amax(dim=dim, keepdim=True)\n"
TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"


def _causal(lines):
    return {"weights3": TRACE + lines}


def _shapes(weights="(4, 10, 10)", out="(4, 10, 128)", before=""):
    return {"weights_shape": f"{before}weights_shape = {weights}\nout_shape = {out}\n"}


def _variances(draws):
    return {"raw_score_var": draws + "raw_scores = Qe @ Ke.transpose(-2, -1)\n"
                                     "raw_score_var = raw_scores.var().item()\n"
                                     "scaled_score_var = (raw_scores / math.sqrt(Qe.shape[-1])).var().item()\n"
                                     "scale_divisor = math.sqrt(64)\n"}


def _counts(madds="1024 * 1024 * 64", ratio="4", before=""):
    return {"attn_entries": f"{before}attn_entries = 1024 ** 2\nscore_madds = {madds}\ncost_ratio = {ratio}\n"}


# --- unit: the replays --------------------------------------------------------------------------------------------

def test_the_sigmoid_softmax_differs_from_the_right_one_and_from_every_other_variant():
    x = torch.randn(3, 5, 7, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 3
    variants = diag.softmax_variants(x, -1)
    right = ref.stable_softmax(x, -1)
    for key in ("sigmoid_for_exp", "sigmoid_for_exp/unshifted"):
        w = variants[key]
        assert not torch.allclose(w, right, atol=1e-3)
        assert torch.allclose(w.sum(-1), torch.ones(3, 5, dtype=torch.float64))
        assert not any(torch.allclose(w, v, atol=1e-3) for k, v in variants.items()
                       if not k.startswith("sigmoid_for_exp") and v.shape == w.shape)


def test_a_nan_fill_and_a_plus_inf_fill_give_the_same_nan_rows():
    m = ref.causal_mask(3)
    s = ref.Q3 @ ref.K3.T / 2.0
    nan = ref.stable_softmax(s.masked_fill(~m, float("nan")), dim=-1)
    inf = ref.stable_softmax(s.masked_fill(~m, float("inf")), dim=-1)
    assert bool((torch.isnan(nan) == torch.isnan(inf)).all())    # why the cell's source must show the NaN


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "size_slice_in_shape": (("q1",), "one-element size", [
        _shapes(weights="(4, 10, _k.shape[-2:-1])", before="_k = torch.empty(4, 10, 64)\n"),
        _shapes(out="(_q.shape[0], _q.shape[1:2], 128)", before="_q = torch.zeros(4, 10, 64)\n"),
    ]),
    "uniform_draws": (("q2",), "torch.rand", [
        _variances("torch.manual_seed(0)\nQe = torch.rand(2, 5, 8)\nKe = torch.rand_like(Qe)\n"),
        _variances("_g = torch.Generator().manual_seed(0)\n"
                   "Qe, Ke = (torch.rand((2, 5, 8), generator=_g) for _ in range(2))\n"),
    ]),
    "sigmoid_for_exp": (("q3", "q5", "q6"), "sigmoid", [
        {"stable_softmax": SM + "    e = 1.0 / (1.0 + torch.exp(-(x - m)))\n"
                                "    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    s = torch.special.expit(x - m)\n"
                                "    return s / torch.sum(s, dim=dim, keepdim=True)\n"},
    ]),
    "mask_fill_nan": (("q6",), "NaN", [
        _causal("weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), math.nan), dim=-1)\n"),
        _causal("_s = torch.where(causal_mask(3), scores3, torch.tensor(float('NaN')))\n"
                "weights3_causal = stable_softmax(_s, dim=-1)\n"),
        _causal("_s = scores3.clone()\n_s[~causal_mask(3)] = torch.nan\n"
                "weights3_causal = stable_softmax(_s, dim=-1)\n"),
    ]),
    "exponents_multiplied": (("q8",), "multiplies the exponents", [
        _counts(madds="2 ** (20 * 6)"),
        _counts(madds="2 ** (2 * t * k)", before="t, k = 10, 6     # T = 2**t, d_k = 2**k\n"),
    ]),
    "remainder_for_quotient": (("q8",), "remainder", [
        _counts(ratio="(2048 ** 2 * 64) % (1024 ** 2 * 64)"),
        _counts(ratio="new % score_madds", before="new = 2048 * 2048 * 64\n"),
    ]),
}

CORRECT = [
    _shapes(weights="(4, _k.shape[1], _k.shape[-2])", out="tuple(_k.shape[:2]) + (128,)",
            before="_k = torch.empty(4, 10, 64)\n"),
    _variances("torch.manual_seed(0)\nQe = torch.randn(2, 5, 8)\nKe = torch.randn(2, 5, 8)\n"),
    {"stable_softmax": SM + "    e = (x - m).exp()\n    return e * (1.0 / e.sum(dim=dim, keepdim=True))\n"},
    _causal("_s = scores3.masked_fill(~causal_mask(3), -math.inf)\n"
            "weights3_causal = torch.nan_to_num(stable_softmax(_s, dim=-1), nan=0.0)\n"),
    _counts(madds="2 ** (10 * 2 + 6)"),
    _counts(madds="(2 ** 10) ** 2 * 2 ** 6", ratio="(2048 ** 2 * 64) // (1024 ** 2 * 64)"),
    _counts(ratio="new // score_madds if new % score_madds == 0 else new / score_madds",
            before="new = 2048 * 2048 * 64\n"),
]

# wrong, but not these mistakes: left generic (never named from the value alone)
UNNAMED = {
    "size_slice_in_shape": [_shapes(weights="(4, 10, _k.shape[0:2])", before="_k = torch.empty(4, 10, 64)\n")],
    "uniform_draws": [_variances("torch.manual_seed(1)\nQe = torch.rand(2, 5, 8)\nKe = torch.rand(2, 5, 8)\n")],
    "mask_fill_nan": [_causal("weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('inf')), "
                              "dim=-1)\n")],
    "remainder_for_quotient": [_counts(ratio="0     # no change")],
    "exponents_multiplied": [_counts(madds="2 ** 120")],
}


_graded = graded_as("sdpa-from-scratch", "round54")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure: the dependency's one_edit_fix or nothing (a generic message)
    assert all(k in (key, None, "one_edit_fix") for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("key, cells", [(k, c) for k, cs in UNNAMED.items() for c in cs],
                         ids=[f"{k}-{i}" for k, cs in UNNAMED.items() for i in range(len(cs))])
def test_look_alikes_are_not_named_so(grader, key, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert key not in [k for _q, _t, k, _m in outcome.failed], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
