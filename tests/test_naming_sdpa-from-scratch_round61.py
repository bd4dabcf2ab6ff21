"""sdpa-from-scratch, naming round 61 (after blind61: a library's documented behaviour misread): an attention output
whose rows are the right rows each times that query's number of visible keys, what the weights multiplied by
mask.sum(-1, keepdim=True) give (the sum of a bool mask is a count, not a 0/1 flag), is mask_sum_as_flag, named by the
replay on q5's own inputs; weights3_causal that equals the softmax under the causal mask shifted two places down (rows
0 and 1 fully blocked: NaN or zeros, row 2 on key 0 alone), from a cell that calls triu / tril with a diagonal offset
(torch.triu(full(-inf), diagonal=-1) for diagonal=1), is causal_diagonal_offset_misread (the same weights typed in
without a triangle stay unnamed); a weights_shape equal to the shape F.cosine_similarity(Q, K) gives on Q's shape (its
default dim=1, the token axis, reduced; or another dim) from a cell that calls cosine_similarity is
weights_from_cosine_similarity (the same tuple typed in is left to the shape checks). Each kind is graded through the
sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round61_diagnose")
ref = diag.ref

HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
SCORES = "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"


def _sdpa(body):
    return {"scaled_dot_product_attention": HEAD + SCORES + body}


def _causal(lines):
    return {"weights3": TRACE + lines}


def _shapes(weights, before=""):
    return {"weights_shape": f"{before}weights_shape = {weights}\nout_shape = (4, 10, 128)\n"}


# --- unit: the replay ---------------------------------------------------------------------------------------------

def test_the_key_count_replay_is_no_other_variant_on_a_random_mask():
    g = torch.Generator().manual_seed(61)
    Q, K, V = (torch.randn(2, 5, 8, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 5, 5, generator=g) > 0.4
    mask[0, 1] = False
    got = diag.sdpa_mask_sum_as_flag(Q, K, V, mask)
    right = ref.scaled_dot_product_attention(Q, K, V, mask)
    assert torch.allclose(got, right * mask.sum(-1, keepdim=True))
    others = diag.wrong_variants(Q, K, V, mask)
    assert not any(torch.allclose(got, v) for k, v in others.items()
                   if k != "mask_sum_as_flag" and v is not None and v.shape == got.shape)
    assert diag.sdpa_mask_sum_as_flag(Q, K, V, None) is None      # the unmasked path is right


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "mask_sum_as_flag": (("q5",), "visible keys", [
        _sdpa("    if mask is None:\n        return stable_softmax(scores, dim=-1) @ V\n"
              "    w = torch.nan_to_num(stable_softmax(scores.masked_fill(~mask, float('-inf')), dim=-1))\n"
              "    return (w * torch.count_nonzero(mask, dim=-1).unsqueeze(-1)) @ V\n"),
        _sdpa("    if mask is not None:\n"
              "        scores = scores.masked_fill(mask == 0, -1e4)\n"
              "        flag = mask.long().sum(-1)[..., None]       # 1 if the query has a key\n"
              "        return (stable_softmax(scores, dim=-1) @ V) * flag\n"
              "    return stable_softmax(scores, dim=-1) @ V\n"),
    ]),
    "causal_diagonal_offset_misread": (("q6",), "shifted down by two", [
        _causal("_bias = torch.full((3, 3), float('-inf'), dtype=scores3.dtype).triu(diagonal=-1)\n"
                "weights3_causal = stable_softmax(scores3 + _bias, dim=-1)\n"),
        _causal("_keep = torch.tril(torch.ones(3, 3, dtype=torch.bool), -2)\n"
                "weights3_causal = torch.nan_to_num(stable_softmax(scores3.masked_fill(~_keep, -math.inf), dim=-1))\n"),
        _causal("_block = torch.triu(torch.ones(3, 3, dtype=torch.bool), -1)\n"
                "weights3_causal = stable_softmax(scores3.masked_fill(_block, float('-inf')), dim=-1)\n"),
    ]),
    "weights_from_cosine_similarity": (("q1",), "cosine_similarity", [
        _shapes("tuple(torch.nn.functional.cosine_similarity(torch.ones(4, 10, 64), torch.ones(4, 10, 64)).shape)"),
        _shapes("tuple(_sim.shape)", before="_q = _k = torch.randn(4, 10, 64)\n"
                                            "_sim = torch.cosine_similarity(_q, _k, dim=-1)\n"),
    ]),
}

CORRECT = [
    _sdpa("    if mask is not None:\n"
          "        scores = scores.masked_fill(~mask, float('-inf'))\n"
          "        w = torch.nan_to_num(stable_softmax(scores, dim=-1)) * mask.any(-1, keepdim=True)\n"
          "        return w @ V\n"
          "    return stable_softmax(scores, dim=-1) @ V\n"),
    _sdpa("    if mask is not None:\n"
          "        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)\n"
          "        w = stable_softmax(scores, dim=-1).masked_fill(mask.sum(-1, keepdim=True) == 0, 0.0)\n"
          "        return w @ V\n"
          "    return stable_softmax(scores, dim=-1) @ V\n"),
    _causal("_bias = torch.full((3, 3), float('-inf'), dtype=scores3.dtype).triu(diagonal=1)\n"
            "weights3_causal = stable_softmax(scores3 + _bias, dim=-1)\n"),
    _causal("_keep = torch.tril(torch.ones(3, 3, dtype=torch.bool), 0)\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~_keep, -math.inf), dim=-1)\n"),
    _shapes("tuple(_sim.shape)", before="_q = _k = torch.randn(4, 10, 64)\n"
                                        "_sim = F.cosine_similarity(_q.unsqueeze(2), _k.unsqueeze(1), dim=-1)\n"),
]

# wrong, but not these mistakes (or without the source that shows them): never named so from the value alone
UNNAMED = {
    "mask_sum_as_flag": [_sdpa("    if mask is not None:\n"
                               "        scores = scores.masked_fill(~mask, -1e4)\n"
                               "        return (stable_softmax(scores, dim=-1) @ V) * 2\n"
                               "    return stable_softmax(scores, dim=-1) @ V\n")],
    "causal_diagonal_offset_misread": [
        _causal("_keep = torch.tensor([[0, 0, 0], [0, 0, 0], [1, 0, 0]], dtype=torch.bool)\n"
                "weights3_causal = stable_softmax(scores3.masked_fill(~_keep, float('-inf')), dim=-1)\n")],
    "weights_from_cosine_similarity": [_shapes("(4, 64)"), _shapes("(4, 10)")],
}


_graded = graded_as("sdpa-from-scratch", "round61")


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
