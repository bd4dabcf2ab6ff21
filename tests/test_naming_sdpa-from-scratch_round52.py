"""sdpa-from-scratch, naming round 52 (after blind52): a 3-D mask unsqueezed at dim 1 "for a heads axis" is
mask_unsqueezed by the replay of the reference with mask.unsqueeze(1), and fixed_axes from a 2-D slice now also needs
the batched call WITHOUT the mask to go wrong; a bfloat16 crash whose error pairs BFloat16 with Half says the cast to
float16 (.half()), not float32; causal_mask(T_q, T_k) padded with True past T_q is causal_extra_keys_visible (padding
with False is right); causal weights padded on the left (F.pad(w, (n, 0))) are causal_weights_padded_left; attn_entries
from element_size() is entries_from_element_size (the cell's own words: 4 alone could be cost_ratio's value);
score_madds = T^3 is madds_n_cubed_rule. Each kind is graded through the sandbox on variants of its own, with correct
neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round52_diagnose")
ref = diag.ref

SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n" \
       "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
SDPA_TAIL = "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n" \
            "    w = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)\n    return w @ V\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"


def _counts(entries="1024 * 1024", madds="1024 * 1024 * 64"):
    return {"attn_entries": f"attn_entries = {entries}\nscore_madds = {madds}\ncost_ratio = 4\n"}


def _prefix_rows(pad_line):
    return {"weights3": TRACE + "_rows = []\nfor i in range(3):\n"
                                "    _w = stable_softmax(scores3[i, : i + 1], dim=-1)\n" + pad_line
                                + "weights3_causal = torch.stack(_rows)\n"}


# --- unit: the replays --------------------------------------------------------------------------------------------

def test_the_mask_replay_differs_from_the_right_result_and_is_what_unsqueeze_gives():
    g = torch.Generator().manual_seed(3)
    Q, K, V = (torch.randn(2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 4, 4, generator=g) > 0.3
    replays = diag.mask_reshaped_replays(Q, K, V, mask)
    assert 1 in replays and replays[1].shape == (2, 2, 4, 3)
    assert diag.mask_reshaped_replays(Q, K, V, mask[0]) == {}       # a 2-D mask: nothing to replay
    assert diag.mask_reshaped_replays(Q, K, V, None) == {}


def test_only_the_true_padding_of_the_square_triangle_is_wrong():
    for T_q, T_k in ((3, 5), (4, 9), (6, 8)):
        tri = ref.causal_mask(T_q)
        false_pad = torch.cat([tri, torch.zeros(T_q, T_k - T_q, dtype=torch.bool)], 1)
        true_pad = torch.cat([tri, torch.ones(T_q, T_k - T_q, dtype=torch.bool)], 1)
        assert bool((false_pad == ref.causal_mask(T_q, T_k)).all())
        assert not bool((true_pad == ref.causal_mask(T_q, T_k)).all())
        assert all(not bool((true_pad == m).all()) for m in ref.causal_mask_variants(T_q, T_k).values())


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "mask_unsqueezed": (("q5",), "unsqueeze(1)", [
        {"scaled_dot_product_attention": SDPA + "    if mask is not None and mask.dim() == 3:\n"
                                                "        mask = mask[:, None]\n" + SDPA_TAIL},
        {"scaled_dot_product_attention": SDPA + "    if mask is not None and mask.ndim >= 3:\n"
                                                "        mask = mask.reshape(mask.shape[0], 1, *mask.shape[1:])\n"
                                                + SDPA_TAIL},
    ]),
    "dtype_changed": (("q5",), "casts to float16 (.half())", [
        {"stable_softmax": SM + "    if x.dtype in (torch.float16, torch.bfloat16):\n"
                                "        z = torch.exp(x.float() - x.float().amax(dim=dim, keepdim=True))\n"
                                "        return (z / z.sum(dim=dim, keepdim=True)).to(torch.float16)\n"
                                "    z = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                                "    return z / z.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    half = x.element_size() == 2\n    y = x.double() if half else x\n"
                                "    z = (y - y.max(dim, keepdim=True).values).exp()\n"
                                "    p = z / z.sum(dim, keepdim=True)\n    return p.half() if half else p\n"},
    ]),
    "causal_extra_keys_visible": (("q4", "q5", "q6"), "all True", [
        {"causal_mask": CM + "    tri = torch.ones(T_q, T_q).tril()\n"
                             "    return torch.cat([tri, torch.ones(T_q, T_k - T_q)], dim=1).bool()\n"},
        {"causal_mask": CM + "    m = torch.ones(T_q, T_k, dtype=torch.bool)\n"
                             "    m[:, :T_q] = torch.tril(torch.ones(T_q, T_q, dtype=torch.bool))\n    return m\n"},
    ]),
    "causal_weights_padded_left": (("q6",), "F.pad", [
        _prefix_rows("    _rows.append(torch.cat([torch.zeros(2 - i), _w]))\n"),
        _prefix_rows("    _r = torch.zeros(3)\n    _r[3 - (i + 1):] = _w\n    _rows.append(_r)\n"),
    ]),
    "entries_from_element_size": (("q8",), "element_size", [
        _counts("torch.empty(1024, 1024).element_size()"),
        _counts("torch.ones(1024, 1024, dtype=torch.float32).element_size()  # entries"),
    ]),
    "madds_n_cubed_rule": (("q8",), "T^3", [
        _counts(madds="1024 ** 3"),
        _counts(madds="pow(1024, 3)"),
        _counts(madds="1024 * 1024 * 1024"),
    ]),
}

CORRECT = [
    {"scaled_dot_product_attention": SDPA + "    if mask is not None and mask.dim() == 2:\n"
                                            "        mask = mask.unsqueeze(0)\n" + SDPA_TAIL},
    {"stable_softmax": SM + "    if x.dtype in (torch.float16, torch.bfloat16):\n"
                            "        z = torch.exp(x.float() - x.float().amax(dim=dim, keepdim=True))\n"
                            "        return (z / z.sum(dim=dim, keepdim=True)).to(x.dtype)\n"
                            "    z = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
                            "    return z / z.sum(dim=dim, keepdim=True)\n"},
    {"causal_mask": CM + "    tri = torch.ones(T_q, T_q).tril()\n"
                         "    return F.pad(tri, (0, T_k - T_q), value=0.0).bool()\n"},
    _prefix_rows("    _rows.append(F.pad(_w, (0, 2 - i)))\n"),
    _counts("torch.empty(1024, 1024).numel()"),
    _counts(madds="1024 ** 2 * 64"),
]


_graded = graded_as("sdpa-from-scratch", "round52")


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


def test_a_mask_unsqueezed_is_never_called_fixed_axes(grader):
    outcome = _graded(grader, WRONG["mask_unsqueezed"][2][0])
    assert "fixed_axes" not in [k for _q, _t, k, _m in outcome.failed], outcome.explain()


def test_a_lone_four_without_element_size_stays_unnamed(grader):
    outcome = _graded(grader, _counts("4"))
    assert "entries_from_element_size" not in [k for _q, _t, k, _m in outcome.failed], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
