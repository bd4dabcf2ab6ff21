"""sdpa-from-scratch, naming round 58 (after blind58): q2's scaled_score_var = raw / 16 (scores divided by 4, which is
d_k / 2 and sqrt(2 x 8) on the (2, 5, 8) example) is scale_precedence only where the cell writes `** 1/2`, and
scale_by_batch_dim where it reads a leading axis (Q.shape[0]: the batch read as heads); q2's variances of the
example's scores summed over range(1, d_k) (feature 0 left out), replayed, with that range in the cell, are
dot_product_skips_first_feature; q6's weights scaled by 1/sqrt(2), which is sqrt(d_v) AND d_k ** 0.25 on the trace, are
scale_by_d_v only where the trace reads V3's width, and scale_root_taken_twice where it roots 2 or a root (else
neither); q6's (4, 4) weights3 equal to the softmax of Q3.T @ K3, and the crash of its product with V3, are
scores_column_convention; q5's crash that a second call with Q, K, V given sequence-first (axes 0 and 1 swapped) turns
into the right output swapped back is sequence_first_layout; q5's attention under the mirror image of a square mask
(scores K Q^T masked untransposed, or a mask transposed onto Q K^T), and its broadcast crash on a rectangular mask where
a square probe shows that mirror image, is mask_transposed_to_scores; the scale times log2(e) = 1.4427 before a
natural-exp softmax is scale_extra_factor; powers of ten for the exponentials (softmax(x ln 10)) are softmax_base_10.
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
MASKED = ("    if mask is not None:\n"
          "        scores = scores.masked_fill(~mask, float('-inf'))\n"
          "    weights = torch.softmax(scores, dim=-1)\n"
          "    if mask is not None:\n"
          "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n")
SM = "def stable_softmax(x, dim=-1):\n    shifted = x - x.amax(dim=dim, keepdim=True)\n"
TAIL6 = ("weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
         "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")


def _sdpa(body):
    return {"scaled_dot_product_attention": HEAD + body}


def _scaled(body, ret="    return weights @ V\n"):
    return _sdpa("    d_k = Q.shape[-1]\n" + body + MASKED + ret)


def _variances(lines, scaled="raw_scores / math.sqrt(d_k)"):
    return {"raw_score_var": "d_k = Q.shape[-1]\n" + lines + "raw_score_var = raw_scores.var().item()\n"
                             f"scaled_score_var = ({scaled}).var().item()\nscale_divisor = math.sqrt(64)\n"}


def _trace(scores):
    return {"weights3": scores + TAIL6}


WRONG = {
    "scale_by_batch_dim": (("q2",), "leading axis", [
        _variances("raw_scores = Q @ K.transpose(-2, -1)\nn_heads = Q.shape[0]\n",
                   scaled="raw_scores / math.sqrt(n_heads * d_k)"),
        _variances("raw_scores = Q @ K.transpose(-2, -1)\nd_model = Q.size(0) * Q.size(-1)\n",
                   scaled="raw_scores / d_model ** 0.5"),
    ]),
    "dot_product_skips_first_feature": (("q2",), "range(1", [
        _variances("raw_scores = sum(Q[..., i, None] * K[..., None, :, i] for i in range(1, d_k))\n"),
        _variances("raw_scores = torch.zeros(2, 5, 5)\nfor f in range(1, Q.shape[-1]):\n"
                   "    raw_scores = raw_scores + Q[:, :, f].unsqueeze(2) * K[:, :, f].unsqueeze(1)\n"),
    ]),
    "scale_root_taken_twice": (("q6",), "4 ** 0.25", [
        _trace("divisor = 2\nscores3 = Q3 @ K3.T / math.sqrt(divisor)\n"),
        _trace("scores3 = Q3 @ K3.T / 2 ** 0.5\n"),
        _trace("d_k = math.sqrt(Q3.shape[-1])\nscores3 = Q3 @ K3.T / math.sqrt(d_k)\n"),
    ]),
    "scores_column_convention": (("q6",), "Q3.T @ K3", [
        _trace("scores3 = Q3.T @ K3 / math.sqrt(4)\n"),
        _trace("scores3 = torch.matmul(Q3.transpose(0, 1), K3) / 2\n"),
    ]),
    "sequence_first_layout": (("q5",), "sequence-first", [
        _sdpa("    Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)\n"
              "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n" + MASKED
              + "    return (weights @ V).transpose(0, 1)\n"),
        _sdpa("    q, k, v = (t.swapaxes(0, 1) for t in (Q, K, V))     # (T, B, d) -> (B, T, d)\n"
              "    scores = torch.matmul(q, k.transpose(-1, -2)) * q.size(-1) ** -0.5\n"
              "    if mask is not None:\n"
              "        scores = scores.masked_fill(mask.logical_not(), float('-inf'))\n"
              "    w = torch.nan_to_num(torch.softmax(scores, dim=-1))\n"
              "    return torch.matmul(w, v).swapaxes(0, 1)\n"),
    ]),
    "mask_transposed_to_scores": (("q5",), "mirror", [
        _sdpa("    s = K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])     # (T_k, T_q)\n"
              "    if mask is not None:\n"
              "        s = s.masked_fill(~mask, float('-inf'))\n"
              "    w = torch.softmax(s, dim=-2)\n"
              "    if mask is not None:\n"
              "        w = torch.where(mask.any(dim=-1).unsqueeze(-2), w, torch.zeros_like(w))\n"
              "    return w.transpose(-2, -1) @ V\n"),
        _scaled("    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
                "    mask = None if mask is None else mask.transpose(-2, -1)\n"),
    ]),
    "scale_extra_factor": (("q5",), "1.4427", [
        _scaled("    scores = (Q @ K.transpose(-2, -1)) * (1.4426950408889634 / math.sqrt(d_k))\n"),
        _scaled("    scores = torch.matmul(Q, K.transpose(-2, -1)) * math.log2(math.e) * d_k ** -0.5\n"),
    ]),
    "softmax_base_10": (("q3", "q5", "q6"), "powers of ten", [
        {"stable_softmax": SM + "    e = 10 ** shifted\n    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    e = torch.pow(10.0, shifted)\n    return e / torch.sum(e, dim, keepdim=True)\n"},
    ]),
}

CORRECT = [
    _variances("raw_scores = Q @ K.transpose(-2, -1)\nn_heads = Q.shape[0]\n",
               scaled="raw_scores / math.sqrt(d_k)"),
    _variances("raw_scores = sum(Q[..., i, None] * K[..., None, :, i] for i in range(0, d_k))\n"),
    _trace("divisor = 2\nscores3 = Q3 @ K3.T / divisor\n"),
    _trace("scores3 = (K3 @ Q3.T).T / math.sqrt(Q3.shape[-1])\n"),
    _sdpa("    Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)\n"
          "    Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)\n"
          "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n" + MASKED + "    return weights @ V\n"),
    _sdpa("    s = K @ Q.transpose(-2, -1) / math.sqrt(Q.shape[-1])     # (T_k, T_q)\n"
          "    if mask is not None:\n"
          "        s = s.masked_fill(~mask.transpose(-2, -1), float('-inf'))\n"
          "    w = torch.softmax(s, dim=-2)\n"
          "    if mask is not None:\n"
          "        w = torch.where(mask.any(dim=-1).unsqueeze(-2), w, torch.zeros_like(w))\n"
          "    return w.transpose(-2, -1) @ V\n"),
    _scaled("    scores = (Q @ K.transpose(-2, -1)) * (1.4426950408889634 / math.sqrt(d_k))\n"
            "    scores = scores / math.log2(math.e)\n"),
    {"stable_softmax": SM + "    e = torch.pow(math.e, shifted)\n    return e / e.sum(dim=dim, keepdim=True)\n"},
]

# where two mistakes give one value on the question's numbers, the source decides: each group is graded together, the
# variant of the kind named so, its neighbours of the other kind named theirs, a look-alike with neither (None)
BY_SOURCE = {
    "scores_over_four": [
        (WRONG["scale_by_batch_dim"][2][0], "scale_by_batch_dim"),
        (_variances("raw_scores = Q @ K.transpose(-2, -1)\n", scaled="raw_scores / d_k ** 1/2"), "scale_precedence"),
        (_variances("raw_scores = Q @ K.transpose(-2, -1)\n", scaled="raw_scores / 4"), None),
    ],
    "trace_over_root_two": [
        (WRONG["scale_root_taken_twice"][2][0], "scale_root_taken_twice"),
        (_trace("scores3 = Q3 @ K3.T / math.sqrt(V3.shape[-1])\n"), "scale_by_d_v"),
        (_trace("scores3 = Q3 @ K3.T / 1.4142135623730951\n"), None),
    ],
    "feature_zero": [
        (WRONG["dot_product_skips_first_feature"][2][0], "dot_product_skips_first_feature"),
        (_variances("raw_scores = Q[..., 1:] @ K[..., 1:].transpose(-2, -1)\n"), None),
    ],
    "features_by_features": [
        (WRONG["scores_column_convention"][2][0], "scores_column_convention"),
        (_trace("scores3 = Q3.T @ Q3 / 2\n"), None),     # (4, 4) weights too, not Q3.T @ K3's: out3's crash unnamed
    ],
}
KEYS = ("scale_by_batch_dim", "scale_precedence", "scale_root_taken_twice", "scale_by_d_v",
        "dot_product_skips_first_feature", "scores_column_convention")


_graded = graded_as("sdpa-from-scratch", "round58")


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


@pytest.mark.parametrize("group", list(BY_SOURCE), ids=list(BY_SOURCE))
def test_the_source_tells_coinciding_values_apart(grader, group):
    for cells, key in BY_SOURCE[group]:
        outcome = _graded(grader, cells)
        assert outcome.status == "graded" and outcome.failed, outcome.explain()
        keys = [k for _q, _t, k, _m in outcome.failed if k in KEYS]
        assert keys == ([key] * len(keys) if key else []) and (keys or key is None), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
