"""sdpa-from-scratch, naming round 69 (after blind69: verbose beginner code, one mistake buried): six kinds the
grader said only as a difference are named now, each by a replay of the mistake on the question's own input.
q2: a running sum of squared deviations not set back to 0 before the second set of scores makes that answer the
first variance plus its own (variance_sum_not_reset, either order); a hand-written variance whose count is read
off one or two axes and used for the mean too (sum / 10, then / 9) is variance_count_from_one_axis, the count and
the mean said. q3/q5: a stable_softmax whose own assert demands a 2-D input, right on 2-D inputs along either axis
and failing its assert again on a 3-D one (second calls), is softmax_rank_assert. q6: the trace's dot products
summed over the first 3 of its 4 features (a loop over range(n_tokens)) are dot_product_features_cut_short.
q8: a count one too many from a counter its cell starts at 1 and adds to is count_started_at_one, and a cost_ratio
of 5 from a counting function whose total outlives the call (a global, a module-level dict) is
count_kept_between_calls; the same numbers with no such source are the plain fact, no key. Two borderlines now say
their cause: weights_not_normalised from a softmax whose denominator is 1 plus the sum (the max's exp(0) counted
twice), and from causal rows divided by a running total never set back to 0 for the next query, each replayed on the
same scores. Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

Q2_HEAD = "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\n"
Q2_TAIL = "scale_divisor = math.sqrt(64)\n"
SM = "def stable_softmax(x, dim=-1):\n"
SM_BODY = ("    m = x.amax(dim=dim, keepdim=True)\n    e = torch.exp(x - m)\n"
           "    return e / e.sum(dim=dim, keepdim=True)\n")
Q6_TAIL = ("weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
           "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n")
Q8_HEAD = "T8 = 1024\nd_k8 = 64\n"


def _q6(loop: str) -> dict[str, str]:
    return {"weights3": "scores3 = torch.zeros(3, 3, dtype=torch.float64)\n" + loop + Q6_TAIL}


WRONG = {
    "variance_sum_not_reset": (("q2",), "the raw variance plus the scaled one", [
        {"d_k": Q2_HEAD + "scaled_scores = raw_scores / math.sqrt(d_k)\nn = raw_scores.numel()\nacc = 0.0\n"
                          "for t, which in ((raw_scores, 'raw'), (scaled_scores, 'scaled')):\n"
                          "    acc += ((t - t.mean()) ** 2).sum().item()\n"
                          "    if which == 'raw':\n        raw_score_var = acc / (n - 1)\n"
                          "    else:\n        scaled_score_var = acc / (n - 1)\n" + Q2_TAIL},
        {"d_k": Q2_HEAD + "ss = 0.0\nsc = (raw_scores / math.sqrt(d_k)).flatten().tolist()\nm = sum(sc) / len(sc)\n"
                          "for v in sc:\n    ss += (v - m) ** 2\nscaled_score_var = ss / (len(sc) - 1)\n"
                          "rw = raw_scores.flatten().tolist()\nm = sum(rw) / len(rw)\n"
                          "for v in rw:\n    ss = ss + (v - m) ** 2\nraw_score_var = ss / (len(rw) - 1)\n" + Q2_TAIL},
    ]),
    "variance_count_from_one_axis": (("q2",), "the mean is the sum /", [
        {"d_k": Q2_HEAD + "def my_var(s):\n    count = s.shape[0] * s.shape[2]     # batch x keys\n"
                          "    mu = s.sum() / count\n    return float(((s - mu) ** 2).sum() / (count - 1))\n"
                          "raw_score_var = my_var(raw_scores)\nscaled_score_var = my_var(raw_scores / math.sqrt(d_k))\n"
                          + Q2_TAIL},
        {"d_k": Q2_HEAD + "def var_by_hand(s):\n    n = s.shape[-1] * s.shape[-2]\n    total = 0.0\n"
                          "    mean = s.sum().item() / n\n    for v in s.flatten().tolist():\n"
                          "        total += (v - mean) ** 2\n    return total / (n - 1)\n"
                          "raw_score_var = var_by_hand(raw_scores)\n"
                          "scaled_score_var = var_by_hand(raw_scores / math.sqrt(d_k))\n" + Q2_TAIL},
    ]),
    "softmax_rank_assert": (("q3", "q5"), "on 2-D inputs the same stable_softmax runs", [
        {"stable_softmax": SM + "    assert len(x.shape) == 2\n" + SM_BODY},
        {"stable_softmax": SM + "    if x.ndim != 2:\n        raise AssertionError('softmax of a (batch, classes) "
                                "matrix only')\n" + SM_BODY},
    ]),
    "dot_product_features_cut_short": (("q6",), "the first 3 of the d_k = 4", [
        _q6("for i in range(3):\n    for j in range(3):\n"
            "        scores3[i, j] = sum(Q3[i, f] * K3[j, f] for f in range(len(Q3))) / 2\n"),
        _q6("d = Q3.shape[1]\nfor i in range(3):\n    for j in range(3):\n        dot = 0.0\n"
            "        for f in range(d - 1):\n            dot = dot + float(Q3[i, f] * K3[j, f])\n"
            "        scores3[i, j] = dot / math.sqrt(d)\n"),
    ]),
    "count_started_at_one": (("q8",), "starts the counter at 1", [
        {"attn_entries": Q8_HEAD + "attn_entries = 1\nfor q in range(T8):\n    attn_entries += T8\n"
                                   "score_madds = T8 * T8 * d_k8\ncost_ratio = 4\n"},
        {"attn_entries": Q8_HEAD + "count = 1\nfor i in range(T8):\n    for j in range(T8):\n"
                                   "        count = count + 1\nattn_entries = count\n"
                                   "score_madds = T8 ** 2 * d_k8\ncost_ratio = (2 * T8) ** 2 // T8 ** 2\n"},
        {"attn_entries": Q8_HEAD + "attn_entries = T8 * T8\nscore_madds = 1\nfor q in range(T8):\n"
                                   "    for k in range(T8):\n        score_madds += d_k8\ncost_ratio = 4\n"},
    ]),
    "count_kept_between_calls": (("q8",), "adds to a total that outlives the call", [
        {"attn_entries": Q8_HEAD + "attn_entries = T8 * T8\n_count = 0\ndef madds(T, d):\n    global _count\n"
                                   "    _count += T * T * d\n    return _count\nscore_madds = madds(T8, d_k8)\n"
                                   "cost_ratio = madds(2 * T8, d_k8) / score_madds\n"},
        {"attn_entries": Q8_HEAD + "attn_entries = T8 * T8\ntally = {'madds': 0}\ndef cost(T, d):\n"
                                   "    for q in range(T):\n        tally['madds'] += T * d\n    return tally['madds']\n"
                                   "score_madds = cost(T8, d_k8)\ncost_ratio = cost(2 * T8, d_k8) // score_madds\n"},
    ]),
}

# weights_not_normalised whose message now says the cause (test, words)
PLUS_ONE = "counts the max's exp(0) = 1 twice"
RUNNING = "the total is not set back to 0 for each query"
CAUSES = [
    ({"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n    e = torch.exp(x - m)\n"
                            "    denom = torch.ones_like(m)\n    denom = denom + e.sum(dim=dim, keepdim=True)\n"
                            "    return e / denom\n"}, "q3", PLUS_ONE),
    ({"stable_softmax": SM + "    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
                            "    return e / (1.0 + e.sum(dim=dim, keepdim=True))\n"}, "q3", PLUS_ONE),
    ({"weights3": "scores3 = Q3 @ K3.T / 2\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
                  "rows = []\ntotal = 0.0\nfor i in range(3):\n    ex = [math.exp(float(scores3[i, j])) for j in range(i + 1)]\n"
                  "    total += sum(ex)\n    rows.append([v / total for v in ex] + [0.0] * (2 - i))\n"
                  "weights3_causal = torch.tensor(rows, dtype=torch.float64)\n"}, "q6", RUNNING),
    ({"weights3": "scores3 = Q3 @ K3.T / 2\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
                  "weights3_causal = torch.zeros(3, 3, dtype=torch.float64)\nacc = 0.0\nfor i in range(3):\n"
                  "    e = torch.exp(scores3[i, :i + 1] - scores3[i, :i + 1].max())\n    acc = acc + e.sum()\n"
                  "    weights3_causal[i, :i + 1] = e / acc\n"}, "q6", RUNNING),
]

# the same numbers with no such source: the plain fact, no key
UNNAMED = [
    ({"attn_entries": Q8_HEAD + "attn_entries = T8 * T8 + 1     # plus the class token\n"
                                "score_madds = T8 * T8 * d_k8\ncost_ratio = 4\n"}, "one more than 1,048,576"),
    ({"attn_entries": Q8_HEAD + "attn_entries = T8 * T8\nscore_madds = T8 * T8 * d_k8\n"
                                "cost_ratio = 5     # T^2 plus the old one\n"}, "5 is (1 + 4)"),
]

CORRECT = [
    {"d_k": Q2_HEAD + "scaled_scores = raw_scores / math.sqrt(d_k)\nn = raw_scores.numel()\nacc = 0.0\n"
                      "for t, which in ((raw_scores, 'raw'), (scaled_scores, 'scaled')):\n"
                      "    acc = ((t - t.mean()) ** 2).sum().item()\n"
                      "    if which == 'raw':\n        raw_score_var = acc / (n - 1)\n"
                      "    else:\n        scaled_score_var = acc / (n - 1)\n" + Q2_TAIL},
    {"d_k": Q2_HEAD + "def my_var(s):\n    count = s.numel()\n"
                      "    mu = s.sum() / count\n    return float(((s - mu) ** 2).sum() / (count - 1))\n"
                      "raw_score_var = my_var(raw_scores)\nscaled_score_var = my_var(raw_scores / math.sqrt(d_k))\n"
                      + Q2_TAIL},
    {"stable_softmax": SM + "    assert x.dim() >= 1, 'a tensor of logits'\n" + SM_BODY},
    _q6("for i in range(3):\n    for j in range(3):\n"
        "        scores3[i, j] = sum(Q3[i, f] * K3[j, f] for f in range(Q3.shape[1])) / 2\n"),
    {"attn_entries": Q8_HEAD + "attn_entries = 0\nfor q in range(T8):\n    attn_entries += T8\n"
                               "score_madds = T8 * T8 * d_k8\ncost_ratio = 4\n"},
    {"attn_entries": Q8_HEAD + "attn_entries = T8 * T8\n_count = 0\ndef madds(T, d):\n    global _count\n"
                               "    _count = 0\n    _count += T * T * d\n    return _count\nscore_madds = madds(T8, d_k8)\n"
                               "cost_ratio = madds(2 * T8, d_k8) // score_madds\n"},
]


_graded = graded_as("sdpa-from-scratch", "round69")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells, question, words", CAUSES, ids=[f"cause-{i}" for i in range(len(CAUSES))])
def test_weights_not_normalised_says_the_cause_a_replay_shows(grader, cells, question, words):
    outcome = _graded(grader, cells)
    named = [m for q, _t, k, m in outcome.failed if k == "weights_not_normalised" and q == question]
    assert named and all(words in m for m in named), outcome.explain()
    assert all(k in ("weights_not_normalised", "one_edit_fix", None) for _q, _t, k, _m in outcome.failed), \
        outcome.explain()


@pytest.mark.parametrize("cells, words", UNNAMED, ids=[f"unnamed-{i}" for i in range(len(UNNAMED))])
def test_the_same_count_without_its_source_is_the_plain_fact(grader, cells, words):
    outcome = _graded(grader, cells)
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q8", None)], outcome.explain()
    assert all(words in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
