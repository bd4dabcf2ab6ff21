"""sdpa-from-scratch, naming round 67 (after blind67: the glue between parts): a scale_divisor of sqrt(128) = 11.31
whose cell reads a name another cell sets, question 1's out_shape or a shape written out with its 128 (d_v where
the head's d_k = 64 belongs), is value_from_another_question, that cell's line quoted; the same 11.31 from a cell
that reads nothing of another question's (sqrt(8) x 4, the example's d_k) is the plain fact, no key.
Three messages now say the cause the student wrote, not the effect alone: out_shape of width d_k (output_width_dk) from a shape
helper called positionally with the keys' shape in its value slot names the call and the def's order; a q7 letter
worked out by code (answer_computed_by_code) whose check tries the shortcut on weights3_causal, whose blocked
entries are already 0, says so; a q5 autograd crash named inplace_on_input says the write is inside
stable_softmax where a call of stable_softmax alone changes its argument (the worker's copy shows it). Each is
graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

Q1_SHAPES = "Q_shape, K_shape, V_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
Q2_HEAD = ("d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
           "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\n")
TRAP_HEAD = "_mask = causal_mask(3)\n"


def _divisor(lines: str, q1: str | None = None) -> dict[str, str]:
    cells = {"d_k": Q2_HEAD + lines}
    if q1 is not None:
        cells["weights_shape"] = q1
    return cells


Q1_NAMED = Q1_SHAPES + "weights_shape = (4, 10, 10)\nout_shape = (Q_shape[0], Q_shape[1], V_shape[-1])\n"

WRONG = {
    "value_from_another_question": (("q2",), "sqrt(128): it reads", [
        _divisor("scale_divisor = out_shape[-1] ** 0.5     # the head of question 1\n"),
        _divisor("*_, head_width = out_shape\nscale_divisor = math.sqrt(head_width)\n"),
        _divisor("scale_divisor = float(V_shape[2]) ** 0.5\n", Q1_NAMED),
    ]),
    "output_width_dk": (("q1",), "slot", [
        {"weights_shape": "def attn_shapes(q_shape, k_shape, v_shape):\n"
                          "    return (*q_shape[:-1], k_shape[-2]), (*q_shape[:-1], v_shape[-1])\n"
                          + Q1_SHAPES + "weights_shape, out_shape = attn_shapes(Q_shape, V_shape, K_shape)\n"},
        {"weights_shape": "def shapes(query, key, value):\n"
                          "    B, T_q, _ = query\n"
                          "    return (B, T_q, key[1]), (B, T_q, value[2])\n"
                          "q, k, v = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
                          "weights_shape = shapes(q, v, k)[0]\n"
                          "out_shape = shapes(q, v, k)[1]\n"},
    ]),
    "answer_computed_by_code": (("q7",), "tries the shortcut on weights3_causal", [
        {"q_trap_answer": TRAP_HEAD + "_w = weights3_causal.clone()\n_w[~_mask] = 0.0\n"
                                      "q_trap_answer = 'A' if torch.allclose(_w @ V3, weights3_causal @ V3) else 'C'\n"},
        {"q_trap_answer": "zeroed = weights3_causal.masked_fill(~causal_mask(3), 0.0)\n"
                          "rows_ok = torch.allclose(zeroed.sum(dim=-1), torch.ones(3, dtype=zeroed.dtype))\n"
                          "q_trap_answer = 'C' if not rows_ok else 'A'\n"},
    ]),
}

SM = "def stable_softmax(x, dim=-1):\n"
INPLACE_SOFTMAX = [
    {"stable_softmax": SM + "    x.sub_(x.amax(dim=dim, keepdim=True))\n    x.exp_()\n"
                            "    return x / x.sum(dim=dim, keepdim=True)\n"},
    {"stable_softmax": SM + "    m = torch.amax(x, dim=dim, keepdim=True)\n    x -= m          # no copy of the scores\n"
                            "    e = torch.exp(x)\n    return e / e.sum(dim=dim, keepdim=True)\n"},
]

# the same 11.31 with nothing read from another question: the plain fact, no key
UNNAMED = [
    _divisor("scale_divisor = math.sqrt(d_k) * 2 ** 2\n"),
    _divisor("scale_divisor = math.sqrt(d_k) * 4     # 8 times wider: 4 x the example's\n"),
]

CORRECT = [
    _divisor("scale_divisor = math.sqrt(Q_shape[-1])\n", Q1_NAMED),
    _divisor("scale_divisor = math.sqrt(out_shape[-1] // 2)\n"),
    {"weights_shape": "def attn_shapes(q_shape, k_shape, v_shape):\n"
                      "    return (*q_shape[:-1], k_shape[-2]), (*q_shape[:-1], v_shape[-1])\n"
                      + Q1_SHAPES + "weights_shape, out_shape = attn_shapes(Q_shape, v_shape=V_shape, k_shape=K_shape)\n"},
    {"stable_softmax": SM + "    y = x - x.amax(dim=dim, keepdim=True)\n    y.exp_()     # in place on its own copy\n"
                            "    return y / y.sum(dim=dim, keepdim=True)\n"},
    {"q_trap_answer": TRAP_HEAD + "_w = weights3.clone()\n_w[~_mask] = 0.0\n"
                                  "q_trap_answer = 'A' if torch.allclose(_w @ V3, weights3_causal @ V3) else 'C'\n"},
]


_graded = graded_as("sdpa-from-scratch", "round67")


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


@pytest.mark.parametrize("cells", INPLACE_SOFTMAX, ids=[f"inplace-softmax-{i}" for i in range(len(INPLACE_SOFTMAX))])
def test_autograd_crash_of_an_in_place_softmax_says_where_the_write_is(grader, cells):
    outcome = _graded(grader, cells)
    grads = [(k, m) for q, t, k, m in outcome.failed if t == "test_gradients_float64"]
    assert grads and all(k == "inplace_on_input" and "inside stable_softmax" in m for k, m in grads), outcome.explain()
    assert all(k == "inplace_on_input" for q, _t, k, _m in outcome.failed if q in ("q3", "q5")), outcome.explain()


@pytest.mark.parametrize("cells", UNNAMED, ids=[f"unnamed-{i}" for i in range(len(UNNAMED))])
def test_the_same_divisor_without_another_questions_name_is_the_plain_fact(grader, cells):
    outcome = _graded(grader, cells)
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q2", None)], outcome.explain()
    assert all("128 is not 64" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
