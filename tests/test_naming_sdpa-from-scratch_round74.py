"""sdpa-from-scratch, naming round 74 (after blind74: NumPy habits, and blind75: slips of the hand): two kinds the
grader mis-named, one it said only as a difference, and three it named by effect alone are named now, each by its
evidence.
q3/q5: a softmax that subtracts the index half of torch.max(x, dim)'s pair ([1], .indices, `_, m = x.max(...)`) was
no_max_subtraction, true in effect but silent on the [1]; a float64 probe with its largest logit, 711.5, last is
right while the same logits with it first overflow (exp(711.5 - 3) fits, exp(711.5 - 0) does not): the shift is
the max's position: max_index_taken_for_value. The same key names q5's 'has a visible key' flag read from
mask.max(-1)[1] (the first True's position), by the replay that zeroes every row whose first visible key is key 0
(it was one_edit_fix).
q5: d_k taken as the element count of Q[0, 0] (numel, nelement, len of its flattening), a (T_q, d_k) matrix for 4-D
inputs, by the replay sqrt(T_q * d_k), the same values folded to 3-D right, and a second 4-D call where B x H !=
T_q: d_k_from_slice_numel. It was scale_by_batch_dim where B x H == T_q (Q.numel() // T_q coincides).
q4/q6: causal_mask right in its first row (or column) alone, the rest still its starting fill, whose `return` is
indented into its loop (source_checks.return_inside_loop), is helper_return_in_loop; it was only a difference.
q4/q6: causal_mask False everywhere whose source compares a triangle of ones (tril/triu of ones, or a name the def
bound it to) with a threshold its 0 and 1 never pass (> 1, >= 2) is triangle_compared_past_one; it was
causal_mask_all_false, whose example causes (a comparison inside the triangle call) were not this code's.
q8: cost_ratio = f(a, 2T) // f(a, T) where the notebook's own def f returns a product quadratic in its other
parameter and linear in the one the doubled length goes to is helper_args_swapped; it was cost_linear_in_T, which
the student never wrote (their helper is T * T * d).
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

SM = "def stable_softmax(x, dim=-1):\n"
SM_TAIL = "    e = torch.exp(x - m)\n    return e / e.sum(dim=dim, keepdim=True)\n"
SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
MASK = "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"


def _attention(d_k: str = "    d_k = Q.shape[-1]\n", flag: str = "mask.any(dim=-1, keepdim=True)") -> dict[str, str]:
    """Attention with the line `d_k` and the 'has a visible key' test `flag` (an expression of mask and w)."""
    return {"scaled_dot_product_attention": SDPA + d_k + (
        "    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(scores, dim=-1)\n"
        f"    if mask is not None:\n        w = torch.where({flag}, w, torch.zeros_like(w))\n"
        "    return w @ V\n")}


def _q8(lines: str) -> dict[str, str]:
    """Question 8's cell: `lines` define a helper and set cost_ratio; the two counts are right."""
    return {"attn_entries": "attn_entries = 1024 * 1024\nscore_madds = 1024 * 1024 * 64\n" + lines}


WRONG = {
    "max_index_taken_for_value": (("q3", "q5"), "WHERE the maximum is", [
        {"stable_softmax": SM + "    _, m = x.max(dim=dim, keepdim=True)\n" + SM_TAIL},
        {"stable_softmax": SM + "    m = torch.max(x, dim, True)[-1]\n" + SM_TAIL},
    ]),
    "d_k_from_slice_numel": ("q5", "sqrt(T_q * d_k)", [
        _attention("    d_k = Q[0][0].nelement()\n"),
        _attention("    d_k = len(Q[0, 0].flatten())\n"),
    ]),
    "helper_return_in_loop": (("q4", "q6"), "indented into its for loop", [
        {"causal_mask": MASK + "    m = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
                               "    for j in range(T_k):\n        m[j:, j] = True\n        return m\n"},
        {"causal_mask": MASK + "    keep = torch.ones(T_q, T_k).bool()\n"
                               "    for i in range(T_q):\n        keep[i, i + 1:] = False\n        return keep\n"},
    ]),
    "helper_args_swapped": ("q8", "wrong order", [
        _q8("def cost(d, T):\n    return d * T ** 2\n\ncost_ratio = cost(2 * 1024, 64) / cost(1024, 64)\n"),
        _q8("T = 1024\nD = 64\n\ndef flops(T, D):\n    return T * D * T\n\ncost_ratio = flops(D, 2 * T) // flops(D, T)\n"),
    ]),
    "triangle_compared_past_one": (("q4", "q6"), "threshold neither passes", [
        {"causal_mask": MASK + "    return torch.triu(torch.ones(T_k, T_q)).T >= 2\n"},
        {"causal_mask": MASK + "    tri = torch.ones(T_q, T_k, dtype=torch.long).tril()\n    return tri > 1\n"},
    ]),
}

# the 'has a visible key' flag read from the index half of the mask's max over the keys (q5 only)
FLAGS = [
    "torch.max(mask.to(w.dtype), -1, keepdim=True)[1].bool()",
    "mask.float().max(dim=-1, keepdim=True).indices != 0",
]

CORRECT = [
    # the values half of the pair, by unpacking, by index, by name
    {"stable_softmax": SM + "    m, _ = x.max(dim=dim, keepdim=True)\n" + SM_TAIL},
    {"stable_softmax": SM + "    m = torch.max(x, dim, True)[0]\n" + SM_TAIL},
    _attention(flag="mask.float().max(dim=-1, keepdim=True).values > 0"),
    # d_k from one query vector whatever the leading axes, or from the last axis
    _attention("    d_k = Q.reshape(-1, Q.shape[-1])[0].numel()\n"),
    _attention("    d_k = Q[..., 0, :].shape[-1]\n"),
    # the return below the loop
    {"causal_mask": MASK + "    m = torch.zeros(T_q, T_k, dtype=torch.bool)\n"
                           "    for j in range(T_k):\n        m[j:, j] = True\n    return m\n"},
    # the triangle of ones compared with 0, or with 1 by ==
    {"causal_mask": MASK + "    return torch.ones(T_q, T_k).tril() > 0\n"},
    {"causal_mask": MASK + "    tri = torch.ones(T_q, T_k, dtype=torch.long).tril()\n    return tri == 1\n"},
    # the helper called in the def's order, and by name
    _q8("def cost(d, T):\n    return d * T ** 2\n\ncost_ratio = cost(64, 2 * 1024) // cost(64, 1024)\n"),
    _q8("def madds(T, d):\n    return T * T * d\n\ncost_ratio = madds(d=64, T=2048) // madds(d=64, T=1024)\n"),
]

_graded = graded_as("sdpa-from-scratch", "round74")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


@pytest.mark.parametrize("flag", FLAGS, ids=range(len(FLAGS)))
def test_a_flag_from_the_max_pair_index_is_named(grader, flag):
    failed = assert_named(_graded(grader, _attention(flag=flag)), "max_index_taken_for_value", "q5")
    assert all("FIRST visible key is key 0" in m for _q, _t, _k, m in failed), failed


def test_a_softmax_with_no_shift_keeps_its_key(grader):
    # nothing subtracted at all: the probe with the largest logit last overflows too
    cells = {"stable_softmax": SM + "    e = torch.exp(x)\n    return e / e.sum(dim=dim, keepdim=True)\n"}
    failed = assert_named(_graded(grader, cells), "no_max_subtraction", ("q3", "q5"))
    assert all(k != "max_index_taken_for_value" for _q, _t, k, _m in failed), failed


def test_a_batch_axis_scale_keeps_its_key(grader):
    # sqrt(Q.shape[0]): the batch size, wrong on 3-D inputs too
    failed = assert_named(_graded(grader, _attention("    d_k = Q.shape[0]\n")), "scale_by_batch_dim", "q5")
    assert all(k != "d_k_from_slice_numel" for _q, _t, k, _m in failed), failed


def test_a_comparison_inside_the_triangle_call_keeps_its_key(grader):
    # blind53's triu(ones == 0, diagonal=1): the comparison typed inside the call, no threshold past 1
    cells = {"causal_mask": MASK + "    return torch.triu(torch.ones(T_q, T_k) == 0, diagonal=1)\n"}
    failed = assert_named(_graded(grader, cells), "causal_mask_all_false", ("q4", "q6"))
    assert all(k != "triangle_compared_past_one" for _q, _t, k, _m in failed), failed


def test_a_linear_helper_called_in_order_keeps_its_key(grader):
    # the helper itself linear in T, called in its order: the belief, not the call
    failed = assert_named(_graded(grader, _q8("def cost(T, d):\n    return T * d\n\ncost_ratio = cost(2048, 64) // "
                                                "cost(1024, 64)\n")), "cost_linear_in_T", "q8")
    assert all(k != "helper_args_swapped" for _q, _t, k, _m in failed), failed


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
