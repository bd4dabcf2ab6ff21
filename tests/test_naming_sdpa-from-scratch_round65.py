"""sdpa-from-scratch, naming round 65 (after blind65: leftovers from debugging and unfinished edits): a
weights_shape right but for its key axis, where the key count is no size of the question's and the cell writes it
as a number (a probe's T_k left from trying cross-attention), is probe_key_count_not_the_questions (a shape typed
into the answer itself stays unnamed, and the one-edit fix no longer proposes `Qp` for `Kp`); raw_score_var wrong
and typed into the cell as a number literal (copied from a printout of another run) is variance_typed_in; a
softmax whose result on a (1, 7) row, the input q3's test_matches_softmax now adds, is the right one with the
length-1 axis dropped, while the same row doubled keeps its shape and is right, is softmax_result_squeezed; a
broadcast crash with a padding mask that the right attention replays with the mask squeezed, while the same call
with the mask expanded to the scores' shape is right, is mask_squeezed_loses_broadcast_axes (no longer
sequence_first_layout, which that second call now rules out, nor mask_not_broadcast); weights3 or out3 that a
replay of the cell's subscript write into scores3 (`scores3[0, 1:] = float("-inf")`) gives is
scores_written_in_place. Each kind is graded through the sandbox on variants of its own, with correct neighbours
at full marks."""
from __future__ import annotations

import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round65_diagnose")
ref = diag.ref

SDPA_HEAD = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
             "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))\n")
SDPA_TAIL = ("        scores = scores.masked_fill(~m.bool(), float('-inf'))\n"
             "        weights = stable_softmax(scores, dim=-1)\n"
             "        weights = torch.where(m.bool().any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
             "    else:\n"
             "        weights = stable_softmax(scores, dim=-1)\n"
             "    return weights @ V\n")
SM = ("def stable_softmax(x, dim=-1):\n"
      "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n")
TRACE_TAIL = ("weights3 = stable_softmax(scores3, dim=-1)\n"
              "out3 = weights3 @ V3\n"
              "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")


def _sdpa(mask_line):
    return {"scaled_dot_product_attention": SDPA_HEAD + "    if mask is not None:\n" + mask_line + SDPA_TAIL}


def _trace(before, after=""):
    return {"scores3": "scores3 = Q3 @ K3.T / math.sqrt(4)\n" + before + TRACE_TAIL + after}


def _variances(lines):
    return {"d_k": "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n" + lines
                   + "scale_divisor = math.sqrt(64)\n"}


# --- unit: the value side of the squeezed mask (a (B, 1, T_k) mask with B = T_q still broadcasts) --------------

def _squeezing(Q, K, V, mask=None):
    return ref.scaled_dot_product_attention(Q, K, V, None if mask is None else mask.squeeze())


def test_a_squeezed_padding_mask_that_still_broadcasts_is_named_by_its_replay():
    g = torch.Generator().manual_seed(65)
    Q, K, V = (torch.randn(3, 3, 4, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(3, 1, 3, generator=g) < 0.6
    mask[..., 0] = True
    got = _squeezing(Q, K, V, mask)
    assert not torch.allclose(got, ref.scaled_dot_product_attention(Q, K, V, mask))
    with pytest.raises(diag.Misconception) as named:
        diag.name_sdpa_mask_squeezed_values(_squeezing, Q, K, V, mask, got, "the output")
    assert named.value.key == "mask_squeezed_loses_broadcast_axes"
    # another wrong output on the same input is not named so
    diag.name_sdpa_mask_squeezed_values(_squeezing, Q, K, V, mask, got * 2, "the output")


WRONG = {
    "probe_key_count_not_the_questions": (("q1",), "keys", [
        {"weights_shape": "Qp = torch.randn(4, 10, 64)\n"
                          "Kp = torch.randn(4, 16, 64)      # cross-attention try\n"
                          "Vp = torch.randn(4, 16, 128)\n"
                          "weights_shape = tuple((Qp @ Kp.transpose(-2, -1)).shape)\n"
                          "out_shape = tuple((Qp @ Kp.transpose(-2, -1) @ Vp).shape)\n"},
        {"weights_shape": "n_keys = 7\n"
                          "_q, _k = torch.zeros(4, 10, 64), torch.zeros(4, n_keys, 64)\n"
                          "weights_shape = tuple(torch.einsum('bqd,bkd->bqk', _q, _k).shape)\n"
                          "out_shape = (4, 10, 128)\n"},
    ]),
    "variance_typed_in": (("q2",), "typed", [
        _variances("raw_score_var = 7.25      # from my printout\nscaled_score_var = 0.906\n"),
        _variances("raw_score_var, scaled_score_var = 9.1, 1.1375\n"),
    ]),
    # q5 too since round 72: its one-head 4-D call (2, 1, 5, 16) goes through the student's softmax, whose bare
    # squeeze drops the heads axis there as well
    "softmax_result_squeezed": (("q3", "q5"), "length-1", [
        {"stable_softmax": SM + "    return (e / e.sum(dim=dim, keepdim=True)).squeeze()\n"},
    ]),
    # round 72: a squeeze of axis 0 only is told as that (a (2, 1, n) second call keeps its axis), no longer as a bare
    # squeeze of every length-1 axis
    "softmax_leading_axis_squeezed": (("q3",), "length-1", [
        {"stable_softmax": SM + "    p = e / e.sum(dim=dim, keepdim=True)\n"
                                "    return torch.squeeze(p, 0)   # (1, T) -> (T,) for printing\n"},
    ]),
    "mask_squeezed_loses_broadcast_axes": (("q5",), "squeezed", [
        _sdpa("        m = mask.squeeze()      # easier to print\n"),
        _sdpa("        m = torch.squeeze(mask)\n"),
    ]),
    "scores_written_in_place": (("q6",), "in place", [
        _trace("scores3[0, 1:] = float('-inf')     # the hint: query 0 with key 0 only\n"),
        _trace("scores3[1, 2] = -math.inf\n"),
        _trace("scores3[:, 0] = 0\n"),
    ]),
}

CORRECT = [
    {"weights_shape": "_kx = torch.randn(4, 12, 64)      # cross-attention experiment, its own names\n"
                      "Qp, Kp, Vp = torch.randn(4, 10, 64), torch.randn(4, 10, 64), torch.randn(4, 10, 128)\n"
                      "weights_shape = tuple((Qp @ Kp.transpose(-2, -1)).shape)\n"
                      "out_shape = tuple((Qp @ Kp.transpose(-2, -1) @ Vp).shape)\n"},
    _variances("raw_score_var = float(raw_scores.var())\n"
               "scaled_score_var = float((raw_scores / 8 ** 0.5).var())\n"),
    {"stable_softmax": SM + "    p = e / e.sum(dim=dim, keepdim=True)\n"
                            "    if p.dim() > 5:\n        print(p.squeeze())\n"
                            "    return p\n"},
    _sdpa("        m = mask\n        if m.dim() > 6:\n            print(m.squeeze())\n"),
    _trace("_try = scores3.clone()\n_try[0, 1:] = float('-inf')\n"),
    _trace("", after="scores3[0, 1:] = float('-inf')     # the hint, tried after the answers\n"),
]

# wrong, but not these mistakes: not named so
UNNAMED = {
    "probe_key_count_not_the_questions": [{"weights_shape": "weights_shape = (4, 10, 12)\nout_shape = (4, 10, 128)\n"}],
    "variance_typed_in": [_variances("raw_score_var = raw_scores.abs().var().item()\n"
                                     "scaled_score_var = raw_score_var / 8\n")],
}


_graded = graded_as("sdpa-from-scratch", "round65")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure (sequence_first_layout, mask_not_broadcast, one_edit_fix among them)
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()


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
