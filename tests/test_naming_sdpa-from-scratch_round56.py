"""sdpa-from-scratch, naming round 56 (after blind56): a shape probe whose permute numbers the axes from 1, as MATLAB
does (permute(1, 3, 2) for permute(0, 2, 1)), is axes_counted_from_one when that permute on zeros of the question's
shapes raises the cell's own crash (another out-of-range axis stays generic); a variance cell stopped by the
statistics module given a tensor's 0-dim items is statistics_of_tensor, by the replay of statistics.variance of a
flattened tensor; a tensor changed in place and then reused is overwritten_in_place_then_reused: q2's
scaled_score_var that the replayed squared deviations (or squares) of the scores give, from a cell writing in place
into the scores or a view of them (view(-1), flatten), and q6's weights3_causal that the causal softmax of
exp(scores3) gives, from a cell whose exp writes over a tensor (out=, exp_); einsum strings for Flax's (batch,
length, heads, features) layout are einsum_heads_layout on every crash and on the timing test, by a second call
that is right for that layout; dtype_changed is said on q3's -inf test (torch.float_power's float64) and q5's
large float16 scores (torch.autocast's bfloat16) too. Each kind is graded through the sandbox on variants of its
own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

SDPA_HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
SM_HEAD = "def stable_softmax(x, dim=-1):\n    shifted = x - x.amax(dim=dim, keepdim=True)\n"


def _shapes(probe):
    return {"weights_shape": "_Q, _K, _V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
                             f"_W = _Q @ {probe}\n"
                             "weights_shape = tuple(_W.shape)\nout_shape = tuple((_W @ _V).shape)\n"}


def _variances(body, scaled="(raw_scores / math.sqrt(Q.shape[-1])).var().item()"):
    return {"raw_score_var": "raw_scores = Q @ K.transpose(-2, -1)\n" + body
                             + f"scaled_score_var = {scaled}\nscale_divisor = math.sqrt(64)\n"}


def _trace(lines):
    return {"weights3": "scores3 = Q3 @ K3.T / math.sqrt(4)\n" + lines}


def _flax(scores, output):
    return {"scaled_dot_product_attention": SDPA_HEAD +
            f"    scores = torch.einsum(\"{scores}\", Q, K) / math.sqrt(Q.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float('-inf'))\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
            "    else:\n"
            "        weights = stable_softmax(scores, dim=-1)\n"
            f"    return torch.einsum(\"{output}\", weights, V)\n"}


def _autocast(opening):
    return {"scaled_dot_product_attention": SDPA_HEAD +
            f"    {opening}\n"
            "        scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
            "        if mask is not None:\n"
            "            scores = scores.masked_fill(~mask, float('-inf'))\n"
            "        weights = torch.softmax(scores.float(), dim=-1).to(scores.dtype)\n"
            "        if mask is not None:\n"
            "            weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
            "        return weights @ V\n"}


WRONG = {
    "axes_counted_from_one": (("q1",), "numbers the axes from 1", [
        _shapes("_K.permute(1, 3, 2)"),
        _shapes("torch.permute(_K, (1, 3, 2))     # permute(K, [1 3 2])"),
        _shapes("_K.permute([1, 3, 2])"),
    ]),
    "statistics_of_tensor": (("q2",), "statistics", [
        {"raw_score_var": "import statistics\nraw_scores = Q @ K.transpose(-2, -1)\n"
                          "raw_score_var = statistics.variance(raw_scores.flatten())\n"
                          "scaled_score_var = statistics.variance((raw_scores / math.sqrt(8)).flatten())\n"
                          "scale_divisor = math.sqrt(64)\n"},
        {"raw_score_var": "from statistics import stdev\nraw_scores = Q @ K.transpose(-2, -1)\n"
                          "raw_score_var = stdev(list(raw_scores.reshape(-1))) ** 2\n"
                          "scaled_score_var = raw_score_var / 8\nscale_divisor = math.sqrt(64)\n"},
    ]),
    "overwritten_in_place_then_reused": (("q2", "q6"), "in place", [
        _variances("_dev = raw_scores.view(-1)\n_dev -= _dev.mean()\n_dev.pow_(2)\n"
                   "raw_score_var = (_dev.sum() / (_dev.numel() - 1)).item()\n"),
        _variances("_d = raw_scores.flatten()\n_d.sub_(_d.mean())\n_d.square_()\n"
                   "raw_score_var = float(_d.sum() / 49)\n"),
        _trace("_e = torch.exp(scores3, out=scores3)\nweights3 = _e / _e.sum(dim=-1, keepdim=True)\n"
               "out3 = weights3 @ V3\n"
               "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"),
        _trace("_e = scores3.exp_()\nweights3 = _e / _e.sum(-1, keepdim=True)\nout3 = weights3 @ V3\n"
               "weights3_causal = stable_softmax(torch.where(causal_mask(3), scores3, -math.inf), dim=-1)\n"),
    ]),
    "einsum_heads_layout": (("q5",), "(batch, length, heads, features)", [
        _flax("...qhd,...khd->...hqk", "...hqk,...khd->...qhd"),
        _flax("bqhd,bkhd->bhqk", "bhqk,bkhd->bqhd"),
    ]),
}

# dtype_changed said where it was not: (the test, the cells)
DTYPE_CHANGED = [
    ("q3", "test_minus_inf_entries",
     {"stable_softmax": SM_HEAD + "    exps = torch.float_power(math.e, shifted)\n"
                                  "    return exps / exps.sum(dim=dim, keepdim=True)\n"}),
    ("q3", "test_minus_inf_entries",
     {"stable_softmax": SM_HEAD + "    exps = shifted.double().exp()\n"
                                  "    return exps / exps.sum(dim=dim, keepdim=True)\n"}),
    ("q5", "test_float16_large_scores", _autocast("with torch.autocast(device_type=Q.device.type):")),
    ("q5", "test_float16_large_scores", _autocast("with torch.autocast('cpu', dtype=torch.bfloat16):")),
]

CORRECT = [
    _shapes("_K.permute(0, 2, 1)"),
    {"raw_score_var": "import statistics\nraw_scores = Q @ K.transpose(-2, -1)\n"
                      "_v = raw_scores.flatten().tolist()\nraw_score_var = statistics.variance(_v)\n"
                      "scaled_score_var = statistics.variance([x / math.sqrt(8) for x in _v])\n"
                      "scale_divisor = math.sqrt(64)\n"},
    _variances("_dev = raw_scores.view(-1).clone()\n_dev -= _dev.mean()\n_dev.pow_(2)\n"
               "raw_score_var = (_dev.sum() / (_dev.numel() - 1)).item()\n"),
    _trace("_e = torch.exp(scores3 - scores3.amax(-1, keepdim=True))\nweights3 = _e / _e.sum(-1, keepdim=True)\n"
           "out3 = weights3 @ V3\n"
           "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"),
    _flax("...qd,...kd->...qk", "...qk,...kd->...qd"),
]

# wrong, but not these mistakes: never named so
UNNAMED = {
    "axes_counted_from_one": [_shapes("_K.permute(0, 3, 1)")],                    # out of range, not 1..n
    "overwritten_in_place_then_reused": [
        _trace("weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"     # exp(scores) written out,
               "weights3_causal = stable_softmax(torch.exp(scores3).masked_fill(~causal_mask(3), float('-inf')), "
               "dim=-1)\n"),                                                            # nothing in place
    ],
}


_graded = graded_as("sdpa-from-scratch", "round56")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # every failure of the question named so: no generic message, no other key
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()


@pytest.mark.parametrize("question, test, cells", DTYPE_CHANGED, ids=[f"{q}-{t}-{i}" for i, (q, t, _c)
                                                                      in enumerate(DTYPE_CHANGED)])
def test_dtype_changed_is_said_on_the_tests_that_left_it_unnamed(grader, question, test, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded", outcome.explain()
    keys = {t: k for q, t, k, _m in outcome.failed if q == question}
    assert keys.get(test) == "dtype_changed", outcome.explain()


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
