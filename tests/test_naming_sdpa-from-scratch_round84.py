"""sdpa-from-scratch, naming round 84 (after blind84: code written for any rank, view/reshape/permute/einsum slips that
keep the shape, and blind85: code that fits the one example the student ran): one kind said without a name and one
named on half its failures are named now, each by its evidence.
q3 (no key before): the softmax's axis moved last the right way (x.movedim(dim, -1), x.transpose(dim, -1), a
permute), the rows normalised, and the result put back with .reshape(x.shape) / .view / .reshape_as(x) instead of
moving the axis back: moved_axis_reshaped_back, by the replay of exactly that (moved by movedim or by transpose,
reshaped straight to x's shape) on each dim the test asks. Reshaping without moving (x.reshape(-1, x.shape[dim]))
keeps softmax_reshaped_not_moved; moving back (movedim(-1, dim), the same transpose again) keeps full marks.
q5 (result_axes_permuted on 3-D inputs, no key on 4-D or float16 before): the output computed in the column
convention, V^T W^T of shape (..., d_v, T_q), and reshaped (not transposed) back to (..., T_q, d_v):
output_column_convention, on every rank, by the replay (the right output transposed and reshaped back; in float16
with large scores within that test's own rounding) AND the source (a product whose left factor is the function's
third parameter transposed, directly or through a name bound to that transpose, read with ast). The same replay
without V on the left (a multi-head merge's transpose(-2, -1).reshape of W V) does not get it; the column form
transposed back (.mT) keeps full marks.
q6 (result_axes_permuted before, borderline): weights3 bound to a call of the notebook's own helper whose one return
is a column stack (torch.stack(rows, dim=1)): rows_stacked_as_columns, by the replay (the right weights transposed)
AND the helper's return, read with ast; a helper that transposes its stack back, or stacks on dim 0, keeps full
marks; a row stack transposed by the caller does not get it.
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


def _softmax(body: str) -> dict[str, str]:
    """stable_softmax(x, dim=-1) whose body is `body`."""
    return {"stable_softmax": "def stable_softmax(x, dim=-1):\n" + body}


def _output(lines: str) -> dict[str, str]:
    """Attention, right up to the weights `w`, that returns what `lines` make of them (they end in a return)."""
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n" + lines)}


def _trace(helper: str, call: str) -> dict[str, str]:
    """Question 6's cell, right but for weights3 = `call`, with `helper` (a def) before it."""
    return {"weights3": helper + "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
                                 f"weights3 = {call}\n"
                                 "out3 = stable_softmax(scores3, dim=-1) @ V3\n"
                                 "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), "
                                 "float('-inf')), dim=-1)\n"}


WRONG = {
    "rows_stacked_as_columns": ("q6", "returns torch.stack", [
        # a helper that softmaxes row by row and stacks the rows with dim=1
        _trace("def row_softmax(m):\n    rows = [stable_softmax(r, dim=-1) for r in m]\n"
               "    return torch.stack(rows, dim=1)\n", "row_softmax(scores3)"),
        # axis=-1 spelling, a loop over unbind
        _trace("def per_query(s):\n    out = []\n    for q in torch.unbind(s, 0):\n"
               "        out.append(stable_softmax(q, dim=0))\n    return torch.stack(out, -1)\n", "per_query(scores3)"),
    ]),
    "moved_axis_reshaped_back": ("q3", "it matches moving `dim` last", [
        # moved by transpose(dim, -1), put back by reshape
        _softmax("    t = x.transpose(dim, -1)\n"
                 "    e = torch.exp(t - t.max(dim=-1, keepdim=True).values)\n"
                 "    return (e / e.sum(dim=-1, keepdim=True)).reshape(x.shape)\n"),
        # moved by a permute that brings dim last, put back by view
        _softmax("    d = dim % x.dim()\n"
                 "    order = [a for a in range(x.dim()) if a != d] + [d]\n"
                 "    y = x.permute(*order).contiguous()\n"
                 "    y = y - y.amax(-1, keepdim=True)\n"
                 "    p = y.exp() / y.exp().sum(-1, keepdim=True)\n"
                 "    return p.view(x.shape)\n"),
        # moved by movedim, put back by reshape_as
        _softmax("    m = torch.movedim(x, dim, -1)\n"
                 "    z = torch.exp(m - m.amax(dim=-1, keepdim=True))\n"
                 "    return (z / z.sum(-1, keepdim=True)).reshape_as(x)\n"),
    ]),
    "output_column_convention": ("q5", "your function computes the values on the left", [
        # the transposed values bound to a name first, torch.matmul, view back
        _output("    Vt = V.transpose(-2, -1)\n"
                "    out = torch.matmul(Vt, w.transpose(-2, -1))\n"
                "    return out.view(*out.shape[:-2], out.shape[-1], out.shape[-2])\n"),
        # .mT on both factors, reshaped to (T_q, d_v) read from the inputs
        _output("    cols = V.mT @ w.mT\n"
                "    return cols.reshape(*cols.shape[:-2], Q.shape[-2], V.shape[-1])\n"),
    ]),
}

CORRECT = [
    # moved last and moved back
    _softmax("    m = x.movedim(dim, -1)\n"
             "    e = torch.exp(m - m.amax(dim=-1, keepdim=True))\n"
             "    return (e / e.sum(dim=-1, keepdim=True)).movedim(-1, dim)\n"),
    # transposed and transposed back, after a reshape to the moved shape
    _softmax("    t = x.transpose(dim, -1)\n"
             "    e = torch.exp(t - t.max(dim=-1, keepdim=True).values)\n"
             "    return (e / e.sum(dim=-1, keepdim=True)).reshape(t.shape).transpose(dim, -1)\n"),
    # the column form transposed back
    _output("    return (V.mT @ w.mT).mT\n"),
    _output("    Vt = V.transpose(-2, -1)\n    return torch.matmul(Vt, w.transpose(-2, -1)).transpose(-2, -1)\n"),
    # the helper's column stack transposed back before it returns
    _trace("def row_softmax(m):\n    cols = torch.stack([stable_softmax(r, dim=-1) for r in m], dim=1)\n"
           "    return cols.T\n", "row_softmax(scores3)"),
    # a helper that stacks along dim=0
    _trace("def row_softmax(m):\n    return torch.stack([stable_softmax(r, dim=-1) for r in m], dim=0)\n",
           "row_softmax(scores3)"),
]

_graded = graded_as("sdpa-from-scratch", "round84")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


def test_output_column_convention_is_named_on_4d_and_float16_too(grader):
    failed = assert_named(_graded(grader, WRONG["output_column_convention"][2][1]), "output_column_convention", "q5")
    named = {t for _q, t, k, _m in failed if k == "output_column_convention"}
    assert {"test_float32_4d_random_mask", "test_float16", "test_float16_large_scores"} <= named, failed


def test_a_softmax_reshaped_without_moving_keeps_its_key(grader):
    keys = failed_keys(_graded(grader, _softmax(
        "    n = x.shape[dim]\n    r = x.reshape(-1, n)\n    e = torch.exp(r - r.amax(-1, keepdim=True))\n"
        "    return (e / e.sum(-1, keepdim=True)).reshape(x.shape)\n")))
    assert "softmax_reshaped_not_moved" in keys and "moved_axis_reshaped_back" not in keys


@pytest.mark.parametrize("lines", [
    # W V, right, then swapped and reshaped back: the same values, no V on the left
    "    out = w @ V\n    return out.transpose(-2, -1).reshape(out.shape)\n",
    # V on the left, transposed back, but scaled wrong: another mistake
    "    return (V.mT @ (w * 0.5).mT).mT\n",
])
def test_without_the_values_on_the_left_and_the_replay_no_column_convention(grader, lines):
    keys = failed_keys(_graded(grader, _output(lines)))
    assert "output_column_convention" not in keys, keys


def test_a_helper_with_a_column_stack_but_a_transposing_call_keeps_no_stack_key(grader):
    # the helper stacks rows right (dim=0); weights3 transposes the call's result: not a column stack
    keys = failed_keys(_graded(grader, _trace(
        "def row_softmax(m):\n    return torch.stack([stable_softmax(r, dim=-1) for r in m])\n",
        "row_softmax(scores3).T")))
    assert "rows_stacked_as_columns" not in keys, keys


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
