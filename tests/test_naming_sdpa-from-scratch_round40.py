"""sdpa-from-scratch, naming round 40 (after blind39): a cost ratio of 2 given as the exponent of T^2 where the cell
says the cost is quadratic (a comment, or a log2 of the ratio) is cost_ratio_as_exponent, no longer cost_linear_in_T
(which stays for a bare 2 nothing explains, and for a linear expression); a power of two typed in e-notation (2e20 for
2 ** 20, T = 2e10) is power_typed_as_e_notation; a shape written as a dict of named axes is shape_as_dict_of_axes; a
lower triangle of numbered positions cast to bool (the cells numbered 0 blocked) is numbered_grid_cast_to_bool, in q4
from second calls at several sizes and in q6 from the notebook's causal_mask(3); and an out= write into the input is
inplace_on_input on the gradient test too, where torch's own words had been left raw. Each kind is graded through
the sandbox on variants of its own, with correct neighbours that keep full marks."""
from __future__ import annotations


import pytest
import torch

from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round40_diagnose")


# --- unit: what each check reads -------------------------------------------------------------------------------------

def test_e_notation_readings_are_no_other_count():
    readings = {**diag.E_NOTATION["attn_entries"], **diag.E_NOTATION["score_madds"]}
    assert float(2e20) in diag.E_NOTATION["attn_entries"] and float(2e26) in diag.E_NOTATION["score_madds"]
    # never the right counts, nor a power of two, nor the counts at T rounded to 1000
    for n in (2 ** 20, 2 ** 26, 2 ** 16, 2 ** 21, 2 ** 22, 10 ** 6, 64 * 10 ** 6, 1024, 4):
        assert float(n) not in readings


def _numbered(number):
    def causal_mask(T_q, T_k=None):
        T_k = T_q if T_k is None else T_k
        i, j = torch.arange(T_q)[:, None], torch.arange(T_k)[None, :]
        return torch.tril(number(i, j).expand(T_q, T_k)).bool()
    return causal_mask


def test_numbered_grid_named_only_where_each_size_agrees():
    for number in (lambda i, j: i * 1000 + j, lambda i, j: j + 0 * i, lambda i, j: i * j):
        fn = _numbered(number)
        with pytest.raises(AssertionError) as named:
            diag.name_numbered_grid(fn, fn(5, 5), "causal_mask(5)")
        assert getattr(named.value, "key", None) == "numbered_grid_cast_to_bool"
    right = _numbered(lambda i, j: i * 1000 + j + 1)       # numbered from 1: nothing is 0, the right mask
    assert bool((right(4, 6) == torch.ones(4, 6, dtype=torch.bool).tril()).all())
    diag.name_numbered_grid(right, right(4, 6), "causal_mask(4, 6)")      # nothing to name

    def only_at_five(T_q, T_k=None):       # [0, 0] blocked at one size alone: no pattern, not named
        T_k = T_q if T_k is None else T_k
        m = torch.ones(T_q, T_k, dtype=torch.bool).tril()
        if T_q == 5:
            m[0, 0] = False
        return m
    diag.name_numbered_grid(only_at_five, only_at_five(5), "causal_mask(5)")


# --- through the sandbox ---------------------------------------------------------------------------------------------

Q8 = "attn_entries = {entries}\nscore_madds = {madds}\ncost_ratio = {ratio}\n"
SM = "def stable_softmax(x, dim=-1):\n"
CM = "def causal_mask(T_q, T_k=None):\n    if T_k is None:\n        T_k = T_q\n"

WRONG = {
    "cost_ratio_as_exponent": (("q8",), [
        {"attn_entries": "T, d_k = 1024, 64\n" + Q8.format(entries="T * T", madds="T * T * d_k",
                                                             ratio="2   # attention is O(T**2)")},
        {"attn_entries": "import math\nT = 1024\n" + Q8.format(entries="T ** 2", madds="T ** 2 * 64",
                                                                ratio="int(math.log2((2 * T) ** 2 / T ** 2))")},
        {"attn_entries": "attn_entries = 1048576\nscore_madds = 67108864\n"
                         "# the cost is quadratic in the sequence length\ncost_ratio = 2.0\n"},
    ]),
    "power_typed_as_e_notation": (("q8",), [
        {"attn_entries": Q8.format(entries="int(4e10)   # 4^10 entries", madds="1024 * 1024 * 64", ratio="4")},
        {"attn_entries": "T = int(2e10)   # 2^10 tokens\n" + Q8.format(entries="T * T", madds="T * T * 64",
                                                                        ratio="(2 * T) ** 2 // T ** 2")},
        {"attn_entries": Q8.format(entries="1024 ** 2", madds="2e26", ratio="4")},
    ]),
    "shape_as_dict_of_axes": (("q1",), [
        {"weights_shape": "weights_shape = dict(B=4, T_q=10, T_k=10)\nout_shape = dict(B=4, T_q=10, d_v=128)\n"},
        {"weights_shape": "axes = ('batch', 'query', 'key')\n"
                          "weights_shape = {a: n for a, n in zip(axes, (4, 10, 10))}\n"
                          "out_shape = {**{a: n for a, n in zip(axes[:2], (4, 10))}, 'value': 128}\n"},
    ]),
    "numbered_grid_cast_to_bool": (("q4", "q5", "q6"), [
        {"causal_mask": CM + "    keys = torch.arange(T_k).expand(T_q, T_k)\n    return keys.tril().bool()\n"},
        {"causal_mask": CM + "    cells = torch.arange(T_q)[:, None] * T_k + torch.arange(T_k)[None, :]\n"
                             "    return torch.tril(cells) != 0\n"},
        {"causal_mask": CM + "    n = torch.arange(T_q * T_k).reshape(T_k, T_q).T   # numbered down the columns\n"
                             "    return n.tril().to(torch.bool)\n"},
    ]),
    "inplace_on_input": (("q3", "q5", "q6"), [
        {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n    torch.sub(x, m, out=x)\n"
                                "    e = x.exp()\n    return e / e.sum(dim=dim, keepdim=True)\n"},
        {"stable_softmax": SM + "    e = torch.exp(x - x.max(dim, keepdim=True).values)\n"
                                "    return torch.div(e, e.sum(dim, keepdim=True), out=x)\n"},
    ]),
}

CORRECT = [
    {"attn_entries": "T, d_k = 1024, 64\n" + Q8.format(entries="T * T", madds="T * T * d_k",
                                                         ratio="2 ** 2   # quadratic: O(T^2), so 2^2")},
    {"attn_entries": "import math\nT = 1024\n" + Q8.format(entries="int(1.048576e6)", madds="int(6.7108864e7)",
                                                            ratio="int(2 ** math.log2(4))")},
    {"weights_shape": "axes = {'batch': 4, 'query': 10, 'key': 10}\nweights_shape = tuple(axes.values())\n"
                      "out_shape = (axes['batch'], axes['query'], 128)\n"},
    {"causal_mask": CM + "    cells = torch.arange(1, T_q * T_k + 1).reshape(T_q, T_k)   # numbered from 1\n"
                         "    return torch.tril(cells).bool()\n"},
    {"stable_softmax": SM + "    m = x.amax(dim=dim, keepdim=True)\n    e = torch.exp(torch.sub(x, m))\n"
                            "    return torch.div(e, e.sum(dim=dim, keepdim=True))\n"},
]

# neighbours of the new key that keep their old names (or none): a bare 2 nothing explains (blind.py's
# q8_cost_ratio_linear) and a linear expression stay cost_linear_in_T; a power grouped wrong is the engine's
# one_edit_fix ((2 * T) ** 2 for 2 * T ** 2), never the exponent
NEIGHBOURS = [
    ({"attn_entries": Q8.format(entries="1024 ** 2", madds="1024 * 1024 * 64", ratio="2")}, "cost_linear_in_T"),
    ({"attn_entries": "T = 1024\n" + Q8.format(entries="T * T", madds="T * T * 64",
                                               ratio="(2 * T) // T   # twice the tokens")}, "cost_linear_in_T"),
    ({"attn_entries": "T = 1024\n" + Q8.format(entries="T * T", madds="T * T * 64",
                                               ratio="2 * T ** 2 // T ** 2   # quadratic")}, "one_edit_fix"),
]


_graded = graded_as("sdpa-from-scratch", "round40")


@pytest.mark.parametrize("key, where, cells", [(k, w, c) for k, (w, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(q in where and k == key for q, _t, k, _m in outcome.failed), outcome.explain()


def test_the_gradient_crash_of_an_out_write_is_named(grader):
    outcome = _graded(grader, WRONG["inplace_on_input"][1][0])
    grads = [(k, m) for q, t, k, m in outcome.failed if t == "test_gradients_float64"]
    assert grads and grads[0][0] == "inplace_on_input" and "out=" in grads[0][1], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[next(iter(c)) for c in CORRECT])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()


@pytest.mark.parametrize("cells, key", NEIGHBOURS, ids=["bare_two", "linear_expression", "power_grouped_wrong"])
def test_a_ratio_of_two_that_shows_no_exponent_keeps_its_name(grader, cells, key):
    outcome = _graded(grader, cells)
    assert [(q, t, k) for q, t, k, _m in outcome.failed] == [("q8", "test_cost_ratio", key)], outcome.explain()


def test_a_dict_of_other_sizes_is_said_not_named(grader):
    # two mistakes (the form and the sizes): said in words, with the tuple its sizes make, and no key
    outcome = _graded(grader, {"weights_shape": "weights_shape = {'batch': 4, 'query': 10, 'd_k': 64}\n"
                                                "out_shape = {'batch': 4, 'query': 10, 'd_v': 128}\n"})
    assert [(q, t, k) for q, t, k, _m in outcome.failed] == [("q1", "test_weights_shape", None),
                                                             ("q1", "test_out_shape", "shape_as_dict_of_axes")], \
        outcome.explain()
    assert "(4, 10, 64)" in outcome.failed[0][3] and "dict" in outcome.failed[0][3], outcome.explain()
