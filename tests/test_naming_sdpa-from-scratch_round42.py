"""sdpa-from-scratch, naming round 42 (after blind41): q2's scores divided by an integer square root (math.isqrt(8) =
int(math.sqrt(8)) = 2, scaled_score_var = raw / 4) is integer_sqrt_scale on q2 too; q2's products q_i k_i of every
query with every key never summed over the d_k features (variance about 1) is products_not_summed, replayed on the
example's own Q and K; a softmax whose sum is detached (with its max, or alone) is gradient_cut where q5's gradients
equal that replay while the output is right (a max-only detach, which is exact, keeps full marks). Each kind is
graded through the sandbox on variants of its own, with correct neighbours that keep full marks."""
from __future__ import annotations

import math

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round42_diagnose")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round42_q2")


# --- unit: what each check reads -------------------------------------------------------------------------------------

def test_integer_sqrt_variance_is_no_other_scale_on_the_example():
    raw = diag.ref.raw_score_var
    isqrt = raw / math.isqrt(8) ** 2
    others = [raw / d for d in (1, 2, 3, 5, 8, 16, 64, 256, 8 ** 0.5, 1 / 8)]   # q2's other scale keys
    assert all(abs(isqrt - v) > 10 * q2.ATOL for v in others)


def test_pair_products_are_no_other_statistic_of_q2():
    q, k = diag.ref._Qb.double(), diag.ref._Kb.double()
    p = q[:, :, None, :] * k[:, None, :, :]
    values = [v for vs in diag.score_statistics().values() for v in vs] + [diag.ref.raw_score_var]
    for v in (float(p.var()), float(p.var(unbiased=False))):
        assert all(abs(v - w) > 10 * q2.ATOL for w in values)
    with pytest.raises(diag.Misconception) as named:
        diag.name_products_not_summed(float(p.var()), float((p / 8 ** 0.5).var()), q2.ATOL)
    assert named.value.key == "products_not_summed"
    diag.name_products_not_summed(diag.ref.raw_score_var, diag.ref.scaled_score_var, q2.ATOL)     # right: nothing


def _inputs():
    g = torch.Generator().manual_seed(5)
    Q, K, V = (torch.randn(2, 5, s, generator=g, dtype=torch.float64) for s in (12, 12, 10))
    mask = torch.rand(2, 5, 5, generator=g) > 0.4
    mask[0, 1] = False                                                     # a fully masked query
    return Q, K, V, mask, torch.randn(2, 5, 10, generator=g, dtype=torch.float64)


def test_detached_normaliser_replays_differ_from_the_right_gradients():
    Q, K, V, mask, G = _inputs()
    leaves = [t.clone().requires_grad_(True) for t in (Q, K, V)]
    right = diag.vector_jacobian_product(diag.ref.scaled_dot_product_attention(*leaves, mask), leaves, G)
    for max_detached in (True, False):
        replay = diag.detached_normaliser_gradients(Q, K, V, mask, G, max_detached)
        assert not diag.matching_variants(replay[0], {"right": right[0]}, torch.float64)
        assert torch.allclose(replay[2], right[2])                          # V's gradient is the same
        diag.name_normaliser_detached(right, right, Q, K, V, mask, G)       # right gradients: nothing named
    both, alone = (diag.detached_normaliser_gradients(Q, K, V, mask, G, m) for m in (True, False))
    assert not torch.allclose(both[0], alone[0])                            # two replays, told apart
    with pytest.raises(diag.Misconception) as named:
        diag.name_normaliser_detached(both, right, Q, K, V, mask, G)
    assert named.value.key == "gradient_cut"


# --- through the sandbox ---------------------------------------------------------------------------------------------

SM = "def stable_softmax(x, dim=-1):\n"
Q2 = ("d_k = Q.shape[-1]\n{scores}raw_score_var = raw_scores.var().item()\n"
      "scaled_score_var = {scaled}.var().item()\nscale_divisor = math.sqrt(64)\n")

WRONG = {
    "integer_sqrt_scale": (("q2",), [
        {"raw_score_var": Q2.format(scores="raw_scores = Q @ K.transpose(-2, -1)\n",
                                    scaled="(raw_scores / int(math.sqrt(d_k)))")},
        {"raw_score_var": Q2.format(scores="raw_scores = torch.matmul(Q, K.mT)\nroot = math.floor(d_k ** 0.5)\n",
                                    scaled="(raw_scores / root)")},
        {"raw_score_var": Q2.format(scores="raw_scores = torch.einsum('bqd,bkd->bqk', Q, K)\n",
                                    scaled="(raw_scores * (1 / (d_k ** 0.5 // 1)))")},
    ]),
    "products_not_summed": (("q2",), [
        {"raw_score_var": Q2.format(scores="raw_scores = torch.einsum('bqd,bkd->bqkd', Q, K)   # all pairs\n",
                                    scaled="(raw_scores / math.sqrt(d_k))")},
        {"raw_score_var": Q2.format(scores="raw_scores = Q[:, :, :, None] * K.transpose(-2, -1)[:, None]\n",
                                    scaled="(raw_scores / d_k ** 0.5)")},
        {"raw_score_var": Q2.format(scores="raw_scores = Q.unsqueeze(2) * K.unsqueeze(1)\n",
                                    scaled="(raw_scores.sum(-1) / math.sqrt(d_k))")},
    ]),
    "gradient_cut": (("q5",), [
        {"stable_softmax": SM + "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                                "    with torch.no_grad():\n"
                                "        total = e.sum(dim=dim, keepdim=True)\n"
                                "    return e / total\n"},
        {"stable_softmax": SM + "    m = x.detach().max(dim=dim, keepdim=True).values\n"
                                "    e = (x - m).exp()\n"
                                "    return e / e.sum(dim, keepdim=True).data\n"},
    ]),
}

CORRECT = [
    {"raw_score_var": Q2.format(scores="raw_scores = Q @ K.transpose(-2, -1)\n",
                                scaled="(raw_scores / torch.sqrt(torch.tensor(float(d_k))))")},
    {"raw_score_var": Q2.format(scores="raw_scores = (Q[:, :, None, :] * K[:, None, :, :]).sum(-1)\n",
                                scaled="(raw_scores / math.sqrt(d_k))")},
    {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True).detach()      # a constant shift\n"
                            "    e = torch.exp(x - m)\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
    {"stable_softmax": SM + "    with torch.no_grad():\n"
                            "        m = x.max(dim=dim, keepdim=True).values\n"
                            "    e = torch.exp(x - m)\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
]


_graded = graded_as("sdpa-from-scratch", "round42")


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
