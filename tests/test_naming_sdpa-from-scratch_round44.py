"""sdpa-from-scratch, naming round 44 (after blind43): an out_shape whose last entry is len(x[i]) (the rows of one
value matrix, T_k = 10, one level short of the width d_v = 128) is len_counts_rows_not_width, read off the cell, and
no longer weights_as_output by the shape's coincidence with the weights'; q2's raw_score_var equal, to rounding, to the
variance of Q @ K[b].T (one sequence's keys broadcast to every batch entry) is keys_of_one_sequence, and
mean_of_slice_variances is named only to rounding (7.50662 was within 1e-3 of one of its values); q7's letter A, the
one lesson 80's own quiz gives for this question, is answer_lesson_80_quiz_letter where the cell cites the lesson, else
zero_after_softmax with the lesson's reading said first; q4's mask causal only where T_q == T_k and all True
otherwise is rectangular_mask_not_causal (every call shows it), the upper triangle turned over (flip(0) or flip(1))
is triangle_flipped (replayed on the same sizes); q6's weights3_causal that holds the masked scores is
softmax_not_applied. Each kind is graded through the sandbox on variants of its own, with correct neighbours that
keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round44_diagnose")
q2 = load("sdpa-from-scratch", "q2", "_test_sdpa_round44_q2")
ref = diag.ref

Q2 = ("d_k = Q.shape[-1]\n{scores}raw_score_var = {raw}\n"
      "scaled_score_var = {scaled}\nscale_divisor = math.sqrt(64)\n")
W3 = ("scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
      "{causal}\n")
Q1 = "_q, _k, _v = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)\n"
MASK = ("def causal_mask(T_q, T_k=None):\n"
        "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
        "{body}")


# --- unit: the replays are no other catalogued value ------------------------------------------------------------

def test_one_sequence_keys_are_no_other_value_of_q2():
    others = [r for r, _ in q2._other_values(50)] + [ref.raw_score_var]
    others += [v for vs in diag.score_statistics().values() for v in vs]
    Q, K = ref._Qb, ref._Kb
    for b in (0, 1):
        v = float((Q @ K[b].T).var())
        assert all(abs(v - o) > 2e-5 * v for o in others)
        with pytest.raises(diag.Misconception) as named:
            diag.name_one_sequence_keys(v, float((Q @ K[b].T / 8 ** 0.5).var()), others)
        assert named.value.key == "keys_of_one_sequence"
        diag.name_one_sequence_keys(v + 1e-3, ref.scaled_score_var, others)       # not to rounding: nothing
        diag.name_one_sequence_keys(v, ref.scaled_score_var, others + [v * (1 + 1e-5)])   # coincides: nothing


def test_flipped_triangles_differ_from_the_right_mask_and_its_variants():
    for T_q, T_k in ((11, None), (9, 6), (4, 9), (3, None)):
        n, k = T_q, T_q if T_k is None else T_k
        up = diag.torch.ones(n, k, dtype=diag.torch.bool).triu()
        others = [ref.causal_mask(T_q, T_k), *ref.causal_mask_variants(T_q, T_k).values()]
        for dim in (0, 1):
            assert all(not bool((up.flip(dim) == o).all()) for o in others if o.shape == up.shape)


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "len_counts_rows_not_width": (("q1",), "d_v = 128", [
        {"weights_shape": Q1 + "weights_shape = (len(_q), len(_q[0]), len(_k[0]))\n"
                               "out_shape = (len(_q), len(_q[0]), len(_v[0]))\n"},
        {"weights_shape": "values = torch.randn(4, 10, 128)\nweights_shape = (4, 10, 10)\n"
                          "out_shape = (values.shape[0], 10, len(values[-1]))   # width of the values\n"},
    ]),
    "keys_of_one_sequence": (("q2",), "K[", [
        {"raw_score_var": Q2.format(scores="s = torch.matmul(Q, K[1].transpose(0, 1))\n", raw="s.var().item()",
                                    scaled="(s / math.sqrt(d_k)).var().item()")},
        {"raw_score_var": Q2.format(scores="kt = K[0].t()\ns = Q @ kt\n", raw="float(s.var())",
                                    scaled="float((s / d_k ** 0.5).var())")},
    ]),
    "answer_lesson_80_quiz_letter": (("q7",), "lesson 80", [
        {"q_trap_answer": "# the lesson's check-your-understanding answer\nq_trap_answer = 'A'\n"},
        {"q_trap_answer": "q_trap_answer = \" a \"   # same as the quiz: the weights stop summing to 1\n"},
    ]),
    "zero_after_softmax": (("q7",), "lesson 80", [
        {"q_trap_answer": "q_trap_answer = \"A\"\n"},
    ]),
    "rectangular_mask_not_causal": (("q4",), "T_q == T_k", [
        {"causal_mask": MASK.format(body="    if T_k is not None and T_k != T_q:\n"
                                         "        return torch.ones(T_q, T_k, dtype=torch.bool)   # cross-attention\n"
                                         "    return torch.tril(torch.ones(T_q, T_q, dtype=torch.bool))\n")},
        {"causal_mask": MASK.format(body="    T_k = T_q if T_k is None else T_k\n"
                                         "    if T_q != T_k:\n"
                                         "        return torch.full((T_q, T_k), True)\n"
                                         "    i = torch.arange(T_q)\n"
                                         "    return i[None, :] <= i[:, None]\n")},
    ]),
    "triangle_flipped": (("q4",), "turned over", [
        {"causal_mask": MASK.format(body="    T_k = T_q if T_k is None else T_k\n"
                                         "    return torch.flipud(torch.triu(torch.ones(T_q, T_k, dtype=torch.bool)))\n")},
        {"causal_mask": MASK.format(body="    T_k = T_k or T_q\n"
                                         "    return torch.triu(torch.ones(T_q, T_k)).flip(1).bool()\n")},
    ]),
    "softmax_not_applied": (("q6",), "masked scores", [
        {"weights3": W3.format(causal="weights3_causal = scores3.masked_fill(causal_mask(3) == 0, -math.inf)")},
        {"weights3": W3.format(causal="s = scores3.clone()\ns[~causal_mask(3)] = -1e9\nweights3_causal = s")},
    ]),
}

CORRECT = [
    {"weights_shape": Q1 + "weights_shape = (len(_q), len(_q[0]), len(_k[0]))\n"
                           "out_shape = (len(_v), len(_v[0]), len(_v[0][0]))\n"},
    {"raw_score_var": Q2.format(scores="s = Q @ K.transpose(-2, -1)   # not K[0].T\n", raw="s.var().item()",
                                scaled="(s / math.sqrt(d_k)).var().item()")},
    {"q_trap_answer": "# lesson 80's quiz says A, but its A is this notebook's C\nq_trap_answer = 'C'\n"},
    {"causal_mask": MASK.format(body="    T_k = T_q if T_k is None else T_k\n"
                                     "    return torch.triu(torch.ones(T_k, T_q, dtype=torch.bool)).T\n")},
    {"weights3": W3.format(causal="weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), "
                                  "float('-inf')), dim=-1)")},
]


_graded = graded_as("sdpa-from-scratch", "round44")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    # the question the kind is about: every failure named with the key; elsewhere (q5 and q6 calling a wrong mask)
    # a failure may stay generic, never another key
    assert all(k == key for q, _t, k, _m in outcome.failed if q in where), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()
    assert any(q in where for q, _t, _k, _m in outcome.failed), outcome.explain()
    assert all(words in m for q, _t, _k, m in outcome.failed if q in where), outcome.explain()


def test_a_shape_copied_from_the_weights_is_still_weights_as_output(grader):
    outcome = _graded(grader, {"weights_shape": "weights_shape = (4, 10, 10)\nout_shape = weights_shape\n"})
    assert [k for _q, _t, k, _m in outcome.failed] == ["weights_as_output"], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
