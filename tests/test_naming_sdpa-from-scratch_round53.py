"""sdpa-from-scratch, naming round 53 (after blind53): a mask with no True entry skipped as "no mask" (plain attention
where every row must be zeros) is mask_skipped_when_all_blocked, now caught by q5's all-False masks and named by the
replay (the unmasked output, while a mask that allows one key is applied right); causal_mask False everywhere at every
size is causal_mask_all_false, in q4 and in q6's NaN weights (which no longer call it mask_times_inf: the NaN comes
from the notebook's own mask); causal_mask raising a negative-size error with fewer keys than queries, right with as
many or more, is causal_mask_assumes_more_keys; a shape answer equal to the stride of the right contiguous tensor is
shape_read_as_stride; scale_divisor = sqrt(512) is scale_by_d_model; out3 = weights3 @ K3 is output_from_keys. Each
kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round53_diagnose")
ref = diag.ref

SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n    d_k = Q.size(-1)\n" \
       "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"
SCORES = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\n"
CAUSAL = "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"
Q2 = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n" \
     "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"


def _shapes(weights="(4, 10, 10)", out="(4, 10, 128)"):
    return {"weights_shape": f"weights_shape = {weights}\nout_shape = {out}\n"}


def _divisor(expr):
    return {"raw_score_var": Q2 + f"scale_divisor = {expr}\n"}


def _out3(line):
    return {"weights3": SCORES + line + CAUSAL}


# --- unit: the replays --------------------------------------------------------------------------------------------

def test_the_stride_differs_from_the_shape_and_from_every_other_shape_answer():
    for shape in ((4, 10, 10), (4, 10, 128)):
        stride = torch.empty(shape).stride()
        assert stride != shape and stride[1:] != shape[1:]
    assert diag.ref.weights_shape != torch.empty(diag.ref.weights_shape).stride()


def test_weights_times_keys_has_its_own_shape():
    assert (ref.weights3 @ ref.K3).shape != ref.out3.shape


def test_an_all_false_mask_gives_zeros_and_differs_from_unmasked_attention():
    g = torch.Generator().manual_seed(5)
    Q, K, V = (torch.randn(2, 4, 3, generator=g, dtype=torch.float64) for _ in range(3))
    none = torch.zeros(2, 4, 4, dtype=torch.bool)
    assert bool((ref.scaled_dot_product_attention(Q, K, V, none) == 0).all())
    assert not bool((ref.scaled_dot_product_attention(Q, K, V) == 0).all())


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "mask_skipped_when_all_blocked": (("q5",), "plain unmasked attention", [
        {"scaled_dot_product_attention": SDPA + "    if mask is None or not mask.any():\n"
                                                "        return stable_softmax(scores, dim=-1) @ V\n"
                                                "    scores = scores.masked_fill(~mask, float('-inf'))\n"
                                                "    w = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)\n"
                                                "    return w @ V\n"},
        {"scaled_dot_product_attention": SDPA + "    if mask is not None and int(mask.sum()) > 0:\n"
                                                "        scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
                                                "    w = stable_softmax(scores, dim=-1)\n"
                                                "    if mask is not None and int(mask.sum()) > 0:\n"
                                                "        w = w.masked_fill(~mask.any(-1, keepdim=True), 0.0)\n"
                                                "    return w @ V\n"},
    ]),
    "causal_mask_all_false": (("q4", "q6"), "False everywhere", [
        {"causal_mask": CM + "    return torch.tril(torch.zeros(T_q, T_k, dtype=torch.bool))\n"},
        {"causal_mask": CM + "    return torch.tril(torch.ones(T_q, T_k) != 1)\n"},
    ]),
    "causal_mask_assumes_more_keys": (("q4",), "fewer keys than queries", [
        {"causal_mask": CM + "    tri = torch.ones(T_q, T_q).tril()\n"
                             "    return torch.cat([tri, torch.zeros(T_q, T_k - T_q)], dim=1).bool()\n"},
        {"causal_mask": CM + "    pad = torch.full((T_q, T_k - T_q), False)\n"
                             "    return torch.hstack([torch.ones(T_q, T_q, dtype=torch.bool).tril(), pad])\n"},
    ]),
    "shape_read_as_stride": (("q1",), "stride", [
        _shapes(weights="torch.empty(4, 10, 10).stride()"),
        _shapes(weights="tuple(torch.zeros(4, 10, 64).matmul(torch.zeros(4, 64, 10)).stride())"),
        _shapes(out="torch.empty(4, 10, 128).stride()"),
    ]),
    "scale_by_d_model": (("q2",), "sqrt(512)", [
        _divisor("math.sqrt(512)"),
        _divisor("(8 * 64) ** 0.5    # 8 heads of 64"),
    ]),
    "output_from_keys": (("q6",), "weights3 @ K3", [
        _out3("out3 = weights3 @ K3\n"),
        _out3("out3 = torch.einsum('qk,kd->qd', weights3, K3)\n"),
    ]),
}

CORRECT = [
    {"scaled_dot_product_attention": SDPA + "    if mask is not None and not mask.all():\n"
                                            "        scores = scores.masked_fill(~mask, float('-inf'))\n"
                                            "    w = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)\n"
                                            "    return w @ V\n"},
    {"scaled_dot_product_attention": SDPA + "    if mask is not None:\n"
                                            "        if not mask.any():\n"
                                            "            return torch.zeros(*scores.shape[:-1], V.shape[-1],"
                                            " dtype=V.dtype)\n"
                                            "        scores = scores.masked_fill(~mask, float('-inf'))\n"
                                            "    w = torch.nan_to_num(stable_softmax(scores, dim=-1), nan=0.0)\n"
                                            "    return w @ V\n"},
    {"causal_mask": CM + "    return torch.triu(torch.ones(T_q, T_k), diagonal=1) == 0\n"},
    {"causal_mask": CM + "    tri = torch.ones(T_q, T_q, dtype=torch.bool).tril()[:, :T_k]\n"
                         "    return torch.cat([tri, torch.zeros(T_q, max(T_k - T_q, 0), dtype=torch.bool)], dim=1)\n"},
    _shapes(weights="tuple(torch.empty(4, 10, 10).shape)", out="tuple(torch.empty(4, 10, 128).size())"),
    _divisor("math.sqrt(512 // 8)"),
    _out3("out3 = torch.einsum('qk,kd->qd', weights3, V3)\n"),
]


_graded = graded_as("sdpa-from-scratch", "round53")


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


def test_an_all_false_causal_mask_is_never_called_mask_times_inf(grader):
    outcome = _graded(grader, WRONG["causal_mask_all_false"][2][0])
    assert "mask_times_inf" not in [k for _q, _t, k, _m in outcome.failed], outcome.explain()
    assert any(q == "q6" for q, _t, k, _m in outcome.failed if k == "causal_mask_all_false"), outcome.explain()


def test_the_inf_arithmetic_with_a_right_mask_is_still_mask_times_inf(grader):
    cells = {"weights3": SCORES + "out3 = weights3 @ V3\n"
                                  "_m = causal_mask(3)\n"
                                  "weights3_causal = stable_softmax(scores3 * _m + (~_m) * float('-inf'), dim=-1)\n"}
    outcome = _graded(grader, cells)
    assert "mask_times_inf" in [k for _q, _t, k, _m in outcome.failed], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
