"""sdpa-from-scratch, naming round 62 (after blind62: code carried over from another source's conventions): the
example's variances replayed from Q and K each moved with .transpose(0, 1) (the batch-first example read as
sequence-first, nn.MultiheadAttention's default) are sequence_first_layout; a softmax whose max and sum use one
hard-coded axis (the (N, C) classifier habit of axis 1), shown by the answer on the asked dim and by second calls with
every dim of a 4-D probe giving that same axis, is softmax_ignores_dim on q3's dim test too; a fully masked query
that attends to every key as if unmasked, replayed with BERT's finite additive bias of -10000 in the input's dtype,
is fully_masked_bias on the float32 test (the float16 one, rounded to uniform weights, keeps its own keys); q6's
weights from additive (Bahdanau, Keras AdditiveAttention) scores sum(tanh(q + k)) are additive_scores on all three
trace tests; an out3 whose every row is weights3 @ V3 with some weights zeroed and the rest divided by 1 - p, from
a cell that calls a dropout, is dropout_in_training_mode (the same value without a dropout in the cell stays
generic); q8's score_madds = 4 T^2 d_k from a cell that multiplies by a literal 4 or says FLOPs is
madds_flops_both_products ((2T)^2 d_k, the doubled length, is not). Each kind is graded through the sandbox on
variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

SM = "def stable_softmax(x, dim=-1):\n"
SDPA = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))\n")
CAUSAL = "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"


def _variances(scores):
    return {"raw_score_var": "d_k = Q.shape[-1]\n" + scores
            + "raw_score_var = raw_scores.var().item()\n"
              "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n"
              "scale_divisor = math.sqrt(64)\n"}


def _trace(scores="scores3 = Q3 @ K3.T / math.sqrt(4)\n", weights="weights3 = stable_softmax(scores3, dim=-1)\n",
           out="out3 = weights3 @ V3\n", before=""):
    return {"weights3": before + scores + weights + out + CAUSAL}


def _counts(madds, before=""):
    return {"attn_entries": f"T, d_head = 1024, 64\nattn_entries = T * T\n{before}score_madds = {madds}\n"
                            "cost_ratio = 4\n"}


def _masked_sdpa(bias_line):
    return {"scaled_dot_product_attention": SDPA + "    if mask is not None:\n" + bias_line
            + "    return torch.matmul(stable_softmax(scores, dim=-1), V)\n"}


# key: (questions, the test that must name it (or None: every failure of those questions), words, variants)
WRONG = {
    "sequence_first_layout": (("q2",), "test_score_variances", "transpose(0, 1)", [
        _variances("Qs, Ks = Q.transpose(0, 1), K.transpose(0, 1)\nraw_scores = Qs @ Ks.transpose(-2, -1)\n"),
        _variances("raw_scores = Q.permute(1, 0, 2) @ K.permute(1, 2, 0)\n"),
        _variances("_q = torch.swapaxes(Q, 0, 1)\n_k = K.movedim(1, 0)\nraw_scores = torch.matmul(_q, _k.mT)\n"),
    ]),
    "softmax_ignores_dim": (("q3", "q5"), "test_dim_argument", "`dim` argument is never used", [
        {"stable_softmax": SM + "    s = x - x.max(dim=1, keepdim=True).values\n"
                                "    e = torch.exp(s)\n    return e / e.sum(dim=1, keepdim=True)\n"},
        {"stable_softmax": SM + "    e = torch.exp(x - torch.amax(x, 0, keepdim=True))\n"
                                "    return e / torch.sum(e, 0, keepdim=True)\n"},
        {"stable_softmax": SM + "    axis = -2\n    e = (x - x.amax(axis, keepdim=True)).exp()\n"
                                "    return e / e.sum(axis, keepdim=True)\n"},
    ]),
    "fully_masked_bias": (("q5",), "test_fully_masked_rows", "finite additive bias", [
        _masked_sdpa("        scores = scores + (1 - mask.to(torch.int64)) * -10000\n"),
        _masked_sdpa("        scores = scores + (~mask).to(scores.dtype) * -10000.0\n"),
        _masked_sdpa("        scores = scores + torch.where(mask, 0.0, -1e4).to(scores.dtype)\n"),
    ]),
    "additive_scores": (("q6",), None, "tanh(q + k)", [
        _trace(scores="scores3 = torch.tanh(Q3[:, None, :] + K3[None, :, :]).sum(dim=-1)\n"),
        _trace(scores="scores3 = torch.tanh(Q3.unsqueeze(1) + K3.unsqueeze(0)).sum(2) / math.sqrt(4)\n"),
        _trace(scores="scores3 = torch.stack([torch.tanh(q + K3).sum(-1) for q in Q3])\n"),
    ]),
    "dropout_in_training_mode": (("q6",), "test_out3", "dropout in training mode", [
        _trace(out="out3 = _drop(weights3) @ V3\n", before="from torch import nn\n_drop = nn.Dropout(0.1)\n"),
        _trace(out="out3 = F.dropout(weights3, p=0.2) @ V3\n"),
        _trace(out="out3 = torch.nn.functional.dropout(weights3, 0.5, training=True) @ V3\n"),
    ]),
    "madds_flops_both_products": (("q8",), "test_score_madds", "4 x T^2 x d_k", [
        _counts("4 * T ** 2 * 1 * d_head"),
        _counts("2 * 2 * T * T * d_head     # FLOPs: 2 per multiply-add, two matmuls"),
        _counts("flops", before="flops = 2 * (2 * T * T * d_head)     # the FLOP count of QK^T and PV\n"),
    ]),
}

CORRECT = [
    _variances("Qs, Ks = Q.transpose(0, 1), K.transpose(0, 1)\n"
               "raw_scores = Qs.transpose(0, 1) @ Ks.transpose(0, 1).transpose(-2, -1)\n"),
    {"stable_softmax": SM + "    axis = dim\n    e = (x - x.amax(axis, keepdim=True)).exp()\n"
                            "    return e / e.sum(axis, keepdim=True)\n"},
    _masked_sdpa("        scores = scores + (1 - mask.to(torch.int64)) * -10000\n"
                 "        w = stable_softmax(scores, dim=-1) * mask.any(-1, keepdim=True)\n"
                 "        return torch.matmul(w, V)\n"),
    _trace(out="out3 = _drop(weights3) @ V3\n", before="from torch import nn\n_drop = nn.Dropout(0.1).eval()\n"),
    _trace(out="out3 = F.dropout(weights3, p=0.1, training=False) @ V3\n"),
    _counts("4 * T ** 2 * d_head // 4"),
]

# wrong, but not these mistakes: never named so
UNNAMED = {
    "madds_flops_both_products": [_counts("(2 * T) ** 2 * d_head"), _counts("268435456")],
    "dropout_in_training_mode": [_trace(out="out3 = (weights3 / 0.9) @ V3\n")],
    "sequence_first_layout": [_variances("raw_scores = Q.transpose(0, 1) @ Q.transpose(0, 1).transpose(-2, -1)\n")],
}


_graded = graded_as("sdpa-from-scratch", "round62")


@pytest.mark.parametrize("key, where, test, words, cells",
                         [(k, w, t, s, c) for k, (w, t, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _t, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, test, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, t, m) for q, t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _t, _m in named), outcome.explain()
    assert all(words in m for _q, t, m in named if test is None or test in t), outcome.explain()
    if test is not None:
        assert any(test in t for _q, t, _m in named), outcome.explain()
    else:   # every failure of the question is this key
        assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()


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
