"""sdpa-from-scratch, naming round 57 (after blind57): q8's score_madds that the cell's own statements give when it
is counted below a line that changes a length it reads (`T *= 2` for the ratio), and the right count once that line
is moved above the change (every other name the cell binds unchanged), is counted_after_rebinding; the one-edit
search no longer offers a fix that mends the failed value by breaking another value of the same cell that passed
(repair re-checks the cell's passing tests: "leave out `T *= 2`" mended score_madds and broke cost_ratio);
weights3_causal right in its first row alone, the later rows still the function's starting fill, made by a helper
whose body ends with a loop whose own body ends with `return` (source_checks.return_inside_loop), is
helper_return_in_loop (a helper whose loop skips rows, its return below the loop, stays unnamed). Each kind is graded
through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from autograder.grading.source_checks import return_inside_loop
from tests.heldout.harness import graded_as

TRACE = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"


def _causal(lines):
    return {"weights3": TRACE + lines}


def _rows_helper(loop_and_return):
    return _causal("def _rows(scores):\n    w = torch.zeros_like(scores)\n" + loop_and_return
                   + "weights3_causal = _rows(scores3)\n")


def _counts(lines):
    return {"attn_entries": lines}


# --- unit: the source check ---------------------------------------------------------------------------------------

def test_return_inside_loop_reads_the_function_a_value_is_made_by():
    cells = ["def f(x):\n    out = []\n    for v in x:\n        out.append(v)\n        return out\n",
             "y = f([1, 2, 3])\n"]
    assert return_inside_loop(cells, "y") == ("f", "return out")
    assert return_inside_loop(cells, "f") == ("f", "return out")
    searching = ["def g(x):\n    for v in x:\n        if v > 1:\n            return v\n", "z = g([1, 2])\n"]
    assert return_inside_loop(searching, "z") is None
    after = ["def h(x):\n    out = []\n    for v in x:\n        out.append(v)\n    return out\n", "z = h([1])\n"]
    assert return_inside_loop(after, "z") is None


# --- through the sandbox ------------------------------------------------------------------------------------------

WRONG = {
    "counted_after_rebinding": (("q8",), "counted below", [
        _counts("T, d_head = 1024, 64\nattn_entries = T ** 2\n_old = attn_entries * d_head\nT *= 2\n"
                "cost_ratio = (T ** 2 * d_head) // _old\nscore_madds = T ** 2 * d_head\n"),
        _counts("T = 1024\nd_k = 64\nattn_entries = T * T\nbase = T * T * d_k\nT = 2 * T\n"
                "cost_ratio = T * T * d_k // base\nscore_madds = T * T * d_k\n"),
        _counts("seq, width = 1024, 64\nattn_entries = seq ** 2\nold_cost = seq * seq * width\nseq = seq + seq\n"
                "new_cost = seq * seq * width\ncost_ratio = new_cost // old_cost\nscore_madds = seq * seq * width\n"),
    ]),
    "helper_return_in_loop": (("q6",), "indented into its for loop", [
        _rows_helper("    for i in range(scores.shape[0]):\n"
                     "        w[i, : i + 1] = stable_softmax(scores[i, : i + 1], dim=-1)\n"
                     "        return w\n"),
        _causal("def causal_weights(s):\n    n = s.shape[0]\n    out = torch.zeros(n, n)\n"
                "    for i, row in enumerate(s):\n        out[i, :i + 1] = torch.softmax(row[:i + 1], dim=0)\n"
                "        return out\n"
                "weights3_causal = causal_weights(scores3)\n"),
        _rows_helper("    for i in range(3):\n        row = scores[i].masked_fill(torch.arange(3) > i, -math.inf)\n"
                     "        w[i] = torch.softmax(row, dim=-1)\n        return w\n"),
    ]),
}

CORRECT = [
    _counts("T, d_head = 1024, 64\nattn_entries = T ** 2\nscore_madds = T ** 2 * d_head\nT *= 2\n"
            "cost_ratio = (T ** 2 * d_head) // score_madds\n"),
    _counts("T = 1024\nd_k = 64\nattn_entries = T * T\nscore_madds = T * T * d_k\nT2 = 2 * T\n"
            "cost_ratio = T2 * T2 * d_k // score_madds\n"),
    _rows_helper("    for i in range(scores.shape[0]):\n"
                 "        w[i, : i + 1] = stable_softmax(scores[i, : i + 1], dim=-1)\n"
                 "    return w\n"),
    _causal("def first_blocked(m):\n    for j in range(m.shape[-1]):\n        if not m[0, j]:\n            return j\n"
            "    return m.shape[-1]\n"
            "_s = scores3.masked_fill(~causal_mask(3), float('-inf'))\n"
            "weights3_causal = stable_softmax(_s, dim=-1) if first_blocked(causal_mask(3)) == 1 else None\n"),
]

# wrong, but not these mistakes: left unnamed so (never named from the value alone)
UNNAMED = {
    "counted_after_rebinding": [_counts("T, d_head = 1024, 64\nattn_entries = T ** 2\n"
                                        "score_madds = (2 * T) ** 2 * d_head\ncost_ratio = 4\n")],
    "helper_return_in_loop": [_rows_helper("    for i in range(1):\n"
                                        "        w[i, : i + 1] = stable_softmax(scores[i, : i + 1], dim=-1)\n"
                                        "    return w\n")],
}


_graded = graded_as("sdpa-from-scratch", "round57")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    assert all(k in (key, None) for _q, _t, k, _m in outcome.failed), outcome.explain()


def test_no_one_edit_fix_that_breaks_another_value_of_the_cell(grader):
    # the count is past the replay (int(...) is not folded): the one-edit search alone would see it, and leaving
    # out `T *= 2` mends score_madds but makes cost_ratio 1: no fix is offered, the failure stays in numbers
    outcome = _graded(grader, _counts("T, d_head = int(1024), 64\nattn_entries = T ** 2\n_old = attn_entries * d_head\n"
                                      "T *= 2\ncost_ratio = (T ** 2 * d_head) // _old\nscore_madds = T ** 2 * d_head\n"))
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert [(q, t) for q, t, _k, _m in outcome.failed] == [("q8", "test_score_madds")], outcome.explain()
    assert all(k != "one_edit_fix" for _q, _t, k, _m in outcome.failed), outcome.explain()


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
