"""sdpa-from-scratch, naming round 72 (after blind72: Pythonic and functional idioms, and blind73: defensive,
validating, input-normalising code): two kinds the grader mis-named, two it said only as a difference, one it named
on square masks only, and one no test tried are named now, each by its evidence.
q8: a count from a one-shot iterator (a generator expression, map, zip, iter) that an earlier line of its cell
already read, so the answer's math.prod / sum / reduce of it gets nothing (1, 0, the start value), shown by the
cell's source and the replay of the answer's line with that empty value, is iterator_read_twice; a score_madds of
64 was madds_of_one_score ("one dot product"), which the student never wrote.
q8: a count of 0 from a product its cell starts at 0 (reduce(mul, sizes, 0), math.prod(..., start=0), total = 0
then total *= n) is product_started_at_zero, by that line; it was only a difference.
q6: out3 = each weight row zipped with a ROW of V3 (zip stops at d_v), by the replay weights[:, :2] @ V3[:, :2].T, is
output_rows_zipped_with_value_rows; it was only a shape difference.
q1: a shape unpacked as `*batch, d, T = q_shape` (a width name before a length name) whose length name is put where a
length goes, holding a width, is shape_unpacked_width_first; out_shape (4, 64, 128) was output_as_features_product
(K^T V), which the student never wrote; a K^T V answer with the names in order keeps that key.
q4: a mask whose entries are listed keys-outer and reshaped row-major (its rectangular calls are that replay; a
square one, the upper triangle, only with two rectangular second calls) is mask_grid_filled_column_major; the
rectangular masks were only a difference, and a plain upper triangle keeps upper_triangular_mask.
q3/q4 (borderline, were one_edit_fix with test-fitted edits, or a cause the code did not have): stable_softmax's own
assert that dim < 0, by second calls (dim=-2 right, dim=0 fails the assert again), is softmax_dim_sign_assert;
causal_mask's own assert T_k >= T_q, by second calls (more keys right, causal_mask(T_k + 2, T_k) fails again), is
causal_mask_assert_more_keys; a softmax result that loses only a LEADING length-1 axis (a (2, 1, n) input keeps
its shape) is softmax_leading_axis_squeezed, where a bare .squeeze() stays softmax_result_squeezed.
q5: 4-D inputs with ONE head (the notebook: "any number of leading dimensions (3-D and 4-D inputs are both
tested)") are now tried (a test gap: a squeeze(1) on every output lost nothing); the right output with that heads
axis dropped is output_heads_axis_squeezed.
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
MASK = "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
Q1_HEAD = "q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\n"
Q6_HEAD = "scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\n"
Q6_TAIL = "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"


def _q8(lines: str) -> dict[str, str]:
    """Question 8's cell: `lines` set attn_entries and score_madds (T = 1024, D = 64 in scope)."""
    return {"attn_entries": "import functools, operator\nT, D = 1024, 64\n" + lines + "cost_ratio = 4\n"}


def _attention(tail: str, head: str = "") -> dict[str, str]:
    """Attention with `head` first (Q, K, V, mask normalised), then the usual steps, then `tail` returning out."""
    return {"scaled_dot_product_attention": SDPA + head + (
        "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(scores, dim=-1)\n"
        "    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "    out = w @ V\n") + tail}


LIFT = ("    lifted = Q.dim() == 3\n"
        "    if lifted:\n        Q, K, V = Q[:, None], K[:, None], V[:, None]\n"
        "        mask = mask[:, None] if mask is not None and mask.dim() == 3 else mask\n")

WRONG = {
    "iterator_read_twice": ("q8", "one-shot iterator", [
        _q8("axes = map(int, (T, T))\nattn_entries = math.prod(axes)\nscore_madds = math.prod(axes) * D\n"),
        _q8("attn_entries = T * T\ndims = (s for s in (T, T, D))\nprint('dims:', list(dims))\n"
            "score_madds = functools.reduce(operator.mul, dims, 1)\n"),
        _q8("pair = iter((T, T))\nprint(*pair)\nattn_entries = math.prod(pair)\nscore_madds = T * T * D\n"),
    ]),
    "product_started_at_zero": ("q8", "starts the product at 0", [
        _q8("attn_entries = T * T\nscore_madds = math.prod((T, T, D), start=0)\n"),
        _q8("attn_entries = T * T\ntotal = 0\nfor n in (T, T, D):\n    total *= n\nscore_madds = total\n"),
        _q8("attn_entries = functools.reduce(lambda a, b: a * b, [T, T], 0)\nscore_madds = T * T * D\n"),
    ]),
    "output_rows_zipped_with_value_rows": ("q6", "value ROW", [
        {"scores3": Q6_HEAD + "out3 = torch.tensor([[float(sum(a * b for a, b in zip(w, v))) for v in V3] "
                              "for w in weights3])\n" + Q6_TAIL},
        {"scores3": Q6_HEAD + "out3 = [list(map(lambda v, w=w: sum(x * y for x, y in zip(w.tolist(), v.tolist())), "
                              "V3)) for w in weights3]\n" + Q6_TAIL},
    ]),
    "shape_unpacked_width_first": ("q1", "unpacks", [
        {"weights_shape": Q1_HEAD + "B, dq, Lq = q_shape\n_, dk, Lk = k_shape\n_, Lv, dv = v_shape\n"
                                    "weights_shape = (B, Lq, Lk)\nout_shape = (B, Lq, dv)\n"},
        {"weights_shape": Q1_HEAD + "weights_shape = (4, 10, 10)\n*lead, width, n_q = q_shape\n"
                                    "out_shape = (*lead, n_q, v_shape[-1])\n"},
    ]),
    "mask_grid_filled_column_major": (("q4", "q6"), "wrong order", [
        {"causal_mask": MASK + "    return torch.tensor([k <= q for k in range(T_k) for q in range(T_q)]).view(T_q, T_k)\n"},
        {"causal_mask": MASK + "    m = torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"
                               "    return m.t().reshape(T_q, T_k)\n"},
    ]),
    "output_heads_axis_squeezed": ("q5", "heads axis", [
        _attention("    return out.squeeze(1)\n", LIFT),
        _attention("    return out.squeeze(-3) if out.dim() == 4 else out\n"),
    ]),
}

SM = "def stable_softmax(x, dim=-1):\n"
SM_BODY = ("    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n    out = e / e.sum(dim=dim, keepdim=True)\n")
LIFT_ROW = "    lifted = x.dim() == 1\n    if lifted:\n        x, dim = x[None], -1\n"
WRONG.update({
    "softmax_dim_sign_assert": ("q3", "fails its assert again", [
        {"stable_softmax": SM + "    assert dim < 0, 'use a negative dim'\n" + SM_BODY + "    return out\n"},
        {"stable_softmax": SM + "    assert dim in (-1, -2, -3, -4), f'dim {dim}: count from the end'\n" + SM_BODY
                              + "    return out\n"},
    ]),
    "causal_mask_assert_more_keys": ("q4", "fails the same way", [
        {"causal_mask": MASK + "    assert T_q <= T_k, 'need at least as many keys as queries'\n"
                               "    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"},
        {"causal_mask": MASK + "    assert T_k - T_q >= 0\n"
                               "    return torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]\n"},
    ]),
    "softmax_leading_axis_squeezed": ("q3", "leading length-1 axis", [
        {"stable_softmax": SM + LIFT_ROW + SM_BODY + "    return out.squeeze(dim=0)\n"},
        {"stable_softmax": SM + "    x = torch.atleast_2d(x)\n    dim = -1 if dim in (0, -1) and x.shape[0] == 1 else dim\n"
                              + SM_BODY + "    return out[0] if out.shape[0] == 1 else out\n"},
    ]),
})

CORRECT = [
    # a product started at 1, a tuple read twice, a generator read once, a loop from 1
    _q8("sizes = (T, T)\nattn_entries = math.prod(sizes)\nscore_madds = functools.reduce(operator.mul, sizes, 1) * D\n"),
    _q8("attn_entries = math.prod(n for n in (T, T))\ntotal = 1\nfor n in (T, T, D):\n    total *= n\n"
        "score_madds = total\n"),
    # out3 from the columns of V3, zipped strictly
    {"scores3": Q6_HEAD + "cols = list(zip(*V3.tolist()))\nout3 = [[sum(a * b for a, b in zip(w, c, strict=True)) "
                          "for c in cols] for w in weights3.tolist()]\n" + Q6_TAIL},
    # the shapes unpacked in order
    {"weights_shape": Q1_HEAD + "B, Lq, dq = q_shape\n_, Lk, dk = k_shape\n_, Lv, dv = v_shape\n"
                                "weights_shape = (B, Lq, Lk)\nout_shape = (B, Lq, dv)\n"},
    # the grid filled queries-outer
    {"causal_mask": MASK + "    return torch.tensor([k <= q for q in range(T_q) for k in range(T_k)]).view(T_q, T_k)\n"},
    # the heads axis squeezed only where it was added
    _attention("    return out[:, 0] if lifted else out\n", LIFT),
    # an assert on the full range of dims, one that T_k is positive, the row axis squeezed only where it was added
    {"stable_softmax": SM + "    assert -x.dim() <= dim < x.dim(), f'dim {dim} out of range'\n" + SM_BODY
                          + "    return out\n"},
    {"causal_mask": MASK + "    assert T_q >= 1 and T_k >= 1\n    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"},
    {"stable_softmax": SM + LIFT_ROW + SM_BODY + "    return out.squeeze(0) if lifted else out\n"},
]

_graded = graded_as("sdpa-from-scratch", "round72")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    # the refill's square masks are the upper triangle: q6's traced 3 x 3 causal weights are named so, rightly
    failed = assert_named(_graded(grader, cells), key, where, also=("upper_triangular_mask",) * ("q6" in where))
    assert all(words in m for _q, _t, k, m in failed if k == key), failed


def test_a_features_product_with_its_names_in_order_keeps_its_key(grader):
    # (B, d_k, d_v), K^T V, where the unpacking names the axes in order: not the unpacking's slip
    cells = {"weights_shape": Q1_HEAD + "weights_shape = (4, 10, 10)\n*b, T, d_k = k_shape\n"
                                        "out_shape = (*b, d_k, v_shape[-1])\n"}
    assert_named(_graded(grader, cells), "output_as_features_product", "q1")


def test_a_plain_upper_triangle_keeps_its_key(grader):
    cells = {"causal_mask": MASK + "    return torch.ones(T_q, T_k, dtype=torch.bool).triu()\n"}
    failed = assert_named(_graded(grader, cells), "upper_triangular_mask", ("q4", "q6"))
    assert all(k != "mask_grid_filled_column_major" for _q, _t, k, _m in failed), failed


def test_a_bare_squeeze_keeps_its_key(grader):
    # every length-1 axis dropped (a (2, 1, 7) input too): not only the leading one
    cells = {"stable_softmax": SM + SM_BODY + "    return out.squeeze()\n"}
    failed = assert_named(_graded(grader, cells), "softmax_result_squeezed", ("q3", "q5", "q6"))
    assert all(k != "softmax_leading_axis_squeezed" for _q, _t, k, _m in failed), failed


def test_a_bare_squeeze_of_the_output_keeps_its_key(grader):
    # every length-1 axis of the output dropped (one query too): judge's size_one_axis_dropped, not the heads alone
    failed = assert_named(_graded(grader, _attention("    return out.squeeze()\n")), "size_one_axis_dropped", "q5")
    assert all(k != "output_heads_axis_squeezed" for _q, _t, k, _m in failed), failed


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
