"""sdpa-from-scratch, naming round 66 (after blind66: right in the middle, wrong at the edges): shape answers that
are the shapes built from 4-D (B, H, T, d) positions on q1's 3-D shapes, where the cell indexes `[2]` or slices
`[:3]`, are shape_helper_axes_from_the_front; raw_score_var equal to the variance of one triangle of each score
matrix of the example, where the cell takes a triangle (triu/tril, an i <= j comparison), is
variance_of_one_triangle; float16 probes right at logits of 5 and 200 but NaN at 30 are
max_shift_behind_a_threshold; a float64 output that exp(s - max) / (sum + eps) replays for one small eps is
denominator_epsilon. Edges no test gave are now in existing tests (points and test count unchanged):
test_fully_masked_rows adds a single query with a padding mask (the unmasked result, while two queries are masked
right: mask_dropped_for_one_query) and a single key masked for every other query (V's row for every query, while
two keys are masked right: single_key_returns_values); a wrong stable_softmax on that single query's
scores is left to Question 3. weights3_causal right but
its last row all zeros, with a loop over range(... - 1) in the cell, is causal_loop_last_row_skipped;
causal_mask(1, T_k) all True while causal_mask(2, T_k) is right is causal_single_query_all_visible (no longer
causal_extra_keys_visible, whose F.pad is not that code's). Each kind is
graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

HEAD = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
SCORES = "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))\n"
MASKED = ("    if mask is not None:\n"
          "        scores = scores.masked_fill(~mask, float('-inf'))\n"
          "        weights = stable_softmax(scores, dim=-1)\n"
          "        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))\n"
          "    else:\n"
          "        weights = stable_softmax(scores, dim=-1)\n"
          "    return weights @ V\n")
EPS_BODY = ("    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float('-inf'))\n"
            "    m = scores.amax(dim=-1, keepdim=True)\n"
            "    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)\n"
            "    e = torch.exp(scores - m)\n")
SM = "def stable_softmax(x, dim=-1):\n"
TRACE = ("scores3 = Q3 @ K3.T / math.sqrt(4)\n"
         "weights3 = stable_softmax(scores3, dim=-1)\n"
         "out3 = weights3 @ V3\n"
         "weights3_causal = torch.zeros_like(scores3)\n")


def _sdpa(body):
    return {"scaled_dot_product_attention": HEAD + body}


def _variances(lines):
    return {"d_k": "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n" + lines
                   + "scale_divisor = math.sqrt(64)\n"}


WRONG = {
    "shape_helper_axes_from_the_front": (("q1",), "4-D positions", set(), [
        {"weights_shape": "def shapes(q, k, v):\n"
                          "    B, H, T = q[0], q[1], q[2]      # (B, H, T, d) as in the comparison cell\n"
                          "    return (B, H, T, k[2]), (B, H, T, v[-1])\n"
                          "weights_shape, out_shape = shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"},
        {"weights_shape": "Q_s, K_s, V_s = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
                          "weights_shape = tuple(Q_s[:3]) + (K_s[2],)\n"
                          "out_shape = tuple(Q_s[:3]) + (V_s[-1],)\n"},
    ]),
    "variance_of_one_triangle": (("q2",), "triangle", set(), [
        _variances("iu = torch.triu_indices(5, 5, 1)     # each pair once, diagonal left out\n"
                   "raw_score_var = raw_scores[:, iu[0], iu[1]].var().item()\n"
                   "scaled_score_var = (raw_scores[:, iu[0], iu[1]] / math.sqrt(d_k)).var().item()\n"),
        _variances("vals = torch.stack([raw_scores[b, i, j] for b in range(2) for i in range(5) for j in range(5)\n"
                   "                    if i <= j])\n"
                   "raw_score_var = vals.var().item()\n"
                   "scaled_score_var = (vals / math.sqrt(d_k)).var().item()\n"),
    ]),
    "max_shift_behind_a_threshold": (("q5",), "threshold", set(), [
        {"stable_softmax": SM + "    if x.max().item() > 64:      # exp overflows past ~88\n"
                                "        x = x - x.amax(dim=dim, keepdim=True)\n"
                                "    e = torch.exp(x)\n"
                                "    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n"
                                "    m = torch.where(m.abs() > 88.7, m, torch.zeros_like(m))   # shift only where exp would overflow\n"
                                "    e = torch.exp(x - m)\n"
                                "    return e / e.sum(dim=dim, keepdim=True)\n"},
    ]),
    "denominator_epsilon": (("q5",), "denominator", {"fully_masked_nan"}, [
        _sdpa(SCORES + EPS_BODY + "    return (e / (e.sum(dim=-1, keepdim=True) + 1e-8)) @ V\n"),
        _sdpa(SCORES + EPS_BODY + "    total = e.sum(-1, keepdim=True)\n"
                                  "    weights = e / total.add(1e-6)       # no 0 / 0 for empty rows\n"
                                  "    return torch.matmul(weights, V)\n"),
    ]),
    "mask_dropped_for_one_query": (("q5",), "single query", set(), [
        _sdpa(SCORES + "    if Q.shape[-2] == 1:       # decoding: the newest token sees everything\n"
                       "        return stable_softmax(scores, dim=-1) @ V\n" + MASKED),
        _sdpa(SCORES + "    if mask is not None and Q.size(-2) > 1:\n"
                       "        scores = scores.masked_fill(~mask, float('-inf'))\n"
                       "        w = stable_softmax(scores, dim=-1)\n"
                       "        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
                       "        return w @ V\n"
                       "    return stable_softmax(scores, dim=-1) @ V\n"),
    ]),
    "single_key_returns_values": (("q5",), "single key", set(), [
        _sdpa("    if K.shape[-2] == 1:\n"
              "        return V.expand(*Q.shape[:-1], V.shape[-1])\n" + SCORES + MASKED),
        _sdpa("    if K.size(-2) == 1:       # a softmax over one score is 1\n"
              "        return V.repeat_interleave(Q.size(-2), dim=-2)\n" + SCORES + MASKED),
    ]),
    "causal_single_query_all_visible": (("q4", "q5"), "single query", set(), [
        {"causal_mask": "def causal_mask(T_q, T_k=None):\n"
                        "    T_k = T_q if T_k is None else T_k\n"
                        "    if T_q == 1:      # decoding: the newest token sees every key\n"
                        "        return torch.ones(1, T_k, dtype=torch.bool)\n"
                        "    return torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"},
        {"causal_mask": "def causal_mask(T_q, T_k=None):\n"
                        "    T_k = T_q if T_k is None else T_k\n"
                        "    m = torch.ones(T_q, T_k, dtype=torch.bool)\n"
                        "    if T_q > 1:\n"
                        "        m = torch.tril(m)\n"
                        "    return m\n"},
    ]),
    "causal_loop_last_row_skipped": (("q6",), "all zeros", set(), [
        {"scores3": TRACE + "for i in range(len(scores3) - 1):\n"
                            "    weights3_causal[i, :i + 1] = stable_softmax(scores3[i, :i + 1], dim=-1)\n"},
        {"scores3": TRACE + "for i in range(0, scores3.size(0) - 1):\n"
                            "    row = scores3[i].masked_fill(~causal_mask(3)[i], float('-inf'))\n"
                            "    weights3_causal[i] = stable_softmax(row, dim=-1)\n"},
    ]),
}

CORRECT = [
    {"weights_shape": "def shapes(q, k, v):\n"
                      "    return tuple(q[:-2]) + (q[-2], k[-2]), tuple(q[:-2]) + (q[-2], v[-1])\n"
                      "weights_shape, out_shape = shapes((4, 10, 64), (4, 10, 64), (4, 10, 128))\n"},
    _variances("raw_score_var = raw_scores.flatten().var().item()\n"
               "scaled_score_var = (raw_scores / math.sqrt(d_k)).flatten().var().item()\n"),
    {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n"
                            "    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)\n"
                            "    e = torch.exp(x - m)\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
    _sdpa(SCORES + EPS_BODY + "    total = e.sum(-1, keepdim=True)\n"
                              "    return (e / torch.where(total == 0, torch.ones_like(total), total)) @ V\n"),
    _sdpa(SCORES + "    if K.shape[-2] == 1 and mask is None:       # one key: every weight is 1\n"
                   "        return V.expand(*Q.shape[:-1], V.shape[-1]) + 0 * scores.sum()\n" + MASKED),
    _sdpa(SCORES + "    if Q.shape[-2] == 1 and mask is None:\n"
                   "        return stable_softmax(scores, dim=-1) @ V\n" + MASKED),
    {"causal_mask": "def causal_mask(T_q, T_k=None):\n"
                    "    T_k = T_q if T_k is None else T_k\n"
                    "    if T_q == 1:\n"
                    "        return torch.arange(T_k)[None, :] == 0\n"
                    "    return torch.tril(torch.ones(T_q, T_k, dtype=torch.bool))\n"},
    {"scores3": TRACE + "for i in range(len(scores3)):\n"
                        "    weights3_causal[i, :i + 1] = stable_softmax(scores3[i, :i + 1], dim=-1)\n"},
]


_graded = graded_as("sdpa-from-scratch", "round66")


@pytest.mark.parametrize("key, where, words, also, cells",
                         [(k, w, s, a, c) for k, (w, s, a, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, _a, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, also, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure (shape_axis_added, mask_ignored, one_edit_fix among them)
    assert all(k in (key, None, *also) for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
