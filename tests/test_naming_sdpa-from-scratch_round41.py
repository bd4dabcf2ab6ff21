"""sdpa-from-scratch, naming round 41 (after blind40): a floor on the softmax's exponentials inside the fraction
(exp(...).clamp(min=eps), torch.maximum, exp + eps, a clamp on the shifted logits) is exponentials_floored, shown by
a float64 probe whose rows still sum to 1 while each -inf entry gets eps / its row's sum (no longer
epsilon_added_to_weights, which stays for an eps added after the division: rows of 1 + n eps); attention whose
scores pass through float16 or bfloat16 on float32/float64 inputs is half_precision_scores (replayed); q2's scores
as cosine similarities is scores_as_cosine_similarities; a weights_shape of (4, 100) is query_key_axes_flattened;
q8's two counts each holding the other's right value is counts_swapped. Each kind is graded through the sandbox on
variants of its own, with correct neighbours that keep full marks."""
from __future__ import annotations

import math

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round41_diagnose")


# --- unit: what each check reads -------------------------------------------------------------------------------------

def _softmax(x, dim=-1):
    return torch.exp(x - x.amax(dim=dim, keepdim=True))


def test_a_floor_inside_the_fraction_is_told_from_an_epsilon_outside():
    x = diag.FLOOR_PROBE
    for c in (1e-12, 1e-9, 1e-6):
        for out in diag.floored_softmaxes(x, c).values():    # a clamp and an added c (one key: at 1e-12 alike)
            fit = diag.floored_exponentials(out)
            assert fit is not None and math.isclose(fit[0], c, rel_tol=1e-6)
    e = _softmax(x)
    right = e / e.sum(-1, keepdim=True)
    assert diag.floored_exponentials(right) is None                     # nothing weighted: nothing to name
    assert diag.floored_exponentials(right + 1e-12) is None             # eps outside: rows of 1 + n eps
    assert diag.floored_exponentials(right.clamp(min=1e-12)) is None    # a floor on the weights: one constant
    finite = torch.exp(x.nan_to_num(neginf=-30.0) - x.amax(-1, keepdim=True))   # -inf turned into a finite logit
    assert diag.floored_exponentials(finite / finite.sum(-1, keepdim=True)) is None


def test_half_score_replays_differ_from_the_right_output():
    g = torch.Generator().manual_seed(3)
    Q, K, V = (torch.randn(2, 5, 12, generator=g, dtype=torch.float64) for _ in range(3))
    expected = diag.ref.scaled_dot_product_attention(Q, K, V, None)
    for replays in diag.half_score_replays(Q, K, V, None).values():
        for r in replays:
            assert not diag.matching_variants(r, {"right": expected}, torch.float64)


# --- through the sandbox ---------------------------------------------------------------------------------------------

SM = "def stable_softmax(x, dim=-1):\n"
SDPA = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n{scores}"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    weights = stable_softmax(scores, dim=-1)\n    if mask is not None:\n"
        "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
        "    return {ret}\n")
Q2 = ("d_k = Q.shape[-1]\n{scores}raw_score_var = raw_scores.var().item()\n"
      "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = math.sqrt(64)\n")
Q8 = "{counts}\ncost_ratio = 4\n"

WRONG = {
    "exponentials_floored": (("q3", "q5", "q6"), [
        {"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                                "    e = torch.maximum(e, torch.full_like(e, 1e-10))   # no zero weights\n"
                                "    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    m = x.max(dim=dim, keepdim=True).values\n"
                                "    e = torch.exp((x - m).clamp(min=-30.0))\n"
                                "    return e / torch.sum(e, dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    e = (x - x.amax(dim, keepdim=True)).exp() + 1e-9\n"
                                "    return e / e.sum(dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    e = (x - x.amax(dim, keepdim=True)).exp().clamp_min(1e-6)\n"
                                "    return e / e.sum(dim, keepdim=True)\n"},
    ]),
    "half_precision_scores": (("q5",), [
        {"scaled_dot_product_attention": SDPA.format(
            scores="    scores = (Q @ K.transpose(-2, -1)).to(torch.float16).to(Q.dtype) / math.sqrt(d_k)\n",
            ret="weights @ V")},
        {"scaled_dot_product_attention": SDPA.format(
            scores="    scores = (Q @ K.mT / math.sqrt(d_k)).bfloat16().to(Q.dtype)   # save memory\n",
            ret="weights @ V")},
        {"scaled_dot_product_attention": SDPA.format(
            scores="    q, k = Q.to(torch.float16), K.to(torch.float16)\n"
                   "    scores = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).type(Q.dtype)\n",
            ret="weights @ V")},
    ]),
    "scores_as_cosine_similarities": (("q2",), [
        {"raw_score_var": Q2.format(scores="raw_scores = torch.cosine_similarity(Q.unsqueeze(-2), K.unsqueeze(-3), "
                                           "dim=-1)\n")},
        {"raw_score_var": Q2.format(scores="Qn = Q / Q.norm(dim=-1, keepdim=True)\n"
                                           "Kn = K / torch.linalg.vector_norm(K, dim=-1, keepdim=True)\n"
                                           "raw_scores = torch.einsum('bqd,bkd->bqk', Qn, Kn)\n")},
    ]),
    "query_key_axes_flattened": (("q1",), [
        {"weights_shape": "B, T = 4, 10\nweights_shape = (B, T ** 2)\nout_shape = (B, T, 128)\n"},
        {"weights_shape": "weights_shape = [4, 10 * 10]   # every query-key score\nout_shape = [4, 10, 128]\n"},
    ]),
    "counts_swapped": (("q8",), [
        {"attn_entries": Q8.format(counts="T, d_k = 1024, 64\nscore_madds = T * T\nattn_entries = T * T * d_k")},
        {"attn_entries": Q8.format(counts="attn_entries, score_madds = 2 ** 26, 2 ** 20")},
    ]),
}

CORRECT = [
    {"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                            "    return e / (e.sum(dim=dim, keepdim=True) + 1e-12)   # eps inside the denominator\n"},
    {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n"
                            "    e = torch.where(torch.isinf(x), torch.zeros_like(x), torch.exp(x - m))\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
    {"scaled_dot_product_attention": SDPA.format(
        scores="    scores = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(d_k)\n",
        ret="(weights @ V.double()).to(Q.dtype)")},
    {"raw_score_var": Q2.format(scores="raw_scores = torch.einsum('bqd,bkd->bqk', Q, K)\n")},
    {"weights_shape": "B, T = 4, 10\nweights_shape = (B, T, T)\nout_shape = (B, T, 128)\n"},
    {"attn_entries": Q8.format(counts="T, d_k = 1024, 64\nattn_entries, score_madds = T * T, T * T * d_k")},
]

# neighbours that keep their old names: an eps added after the division (rows of 1 + n eps) stays
# epsilon_added_to_weights; one of q8's counts alone keeps that count's own key
NEIGHBOURS = [
    ({"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                             "    return e / e.sum(dim=dim, keepdim=True) + 1e-12\n"},
     [("q3", "test_minus_inf_entries", "epsilon_added_to_weights")]),
    ({"attn_entries": Q8.format(counts="attn_entries = 2 ** 26\nscore_madds = 2 ** 26")},
     [("q8", "test_attn_entries", "entries_times_d_k")]),
    ({"attn_entries": Q8.format(counts="attn_entries = 2 ** 20\nscore_madds = 2 ** 20")},
     [("q8", "test_score_madds", "madds_without_d_k")]),
]


_graded = graded_as("sdpa-from-scratch", "round41")


@pytest.mark.parametrize("key, where, cells", [(k, w, c) for k, (w, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(q in where and k == key for q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()


@pytest.mark.parametrize("cells, failed", NEIGHBOURS, ids=["eps_after_division", "entries_alone", "madds_alone"])
def test_neighbours_keep_their_names(grader, cells, failed):
    outcome = _graded(grader, cells)
    assert [(q, t, k) for q, t, k, _m in outcome.failed] == failed, outcome.explain()
