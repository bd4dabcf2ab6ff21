"""sdpa-from-scratch, naming round 78 (after blind78: device-, dtype- and global-state-aware code, and blind79: terse
one-liners): one kind the grader mis-named, one said without a name and one named on all tests but one are named
now, each by its evidence.
q2: raw_score_var = var(Q Q^T) of the example where the submission draws Q and K each seeded anew (a def that calls
manual_seed and is called for each tensor, or a manual_seed statement before each draw, read with ast):
reseeded_each_draw; it was keys_are_queries, which told the student to write the Q @ K^T they had written. K = Q
written out (a clone) keeps keys_are_queries, and a helper that seeds only when asked keeps full marks.
q8: cost_ratio from a cell whose `^` tokens, written `**` (the power meant, at the power's precedence), give the
right ratio: caret_is_xor (a replay of the cell); it was a hint without a name.
q5: the mask's polarity reversed as an added finite bias, s + mask * -1e9: a query that may see every key keeps its
row (the same bias on every key), which masked_fill(mask, -inf)'s replay does not; a replay of the bias now names
inverted_mask on a padding mask too. The right bias, s + (~mask) * -1e9, keeps full marks.
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
Q8 = "attn_entries = 1024 * 1024\nscore_madds = 1024 * 1024 * 64\n"


def _draws(cell: str) -> dict[str, str]:
    """The notebook's example cell (the one that defines Q, K and V) replaced by `cell`."""
    return {"Q": cell}


def _ratio(lines: str) -> dict[str, str]:
    """Question 8's cell: the two counts right, then `lines`, which assign cost_ratio."""
    return {"attn_entries": Q8 + lines}


def _biased(bias: str) -> dict[str, str]:
    """Attention that adds `bias` (of the mask) to the scaled scores, with the empty rows zeroed."""
    return {"scaled_dot_product_attention": SDPA + (
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        f"    if mask is not None:\n        s = s + {bias}\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "    return w @ V\n")}


WRONG = {
    "reseeded_each_draw": ("q2", "seeds the random stream again", [
        _draws("torch.manual_seed(0)\nQ = torch.randn(2, 5, 8)\ntorch.manual_seed(0)\nK = torch.randn(2, 5, 8)\n"
               "torch.manual_seed(0)\nV = torch.randn(2, 5, 8)\n"),
        _draws("def sample(b, t, d):\n    gen = torch.random.manual_seed(0)\n    return torch.randn(b, t, d, generator=gen)\n\n\n"
               "Q, K, V = sample(2, 5, 8), sample(2, 5, 8), sample(2, 5, 8)\n"),
    ]),
    "caret_is_xor": ("q8", "a bitwise xor", [
        _ratio("cost_ratio = (2 * 1024) ^ 2 // 1024 ** 2\n"),
        _ratio("new = (2 * 1024) ^ 2 * 64\nold = 1024 ^ 2 * 64\ncost_ratio = new // old\n"),
    ]),
}

CORRECT = [
    # seeded once (the helper seeds only when asked), and the notebook's order
    _draws("def draw(*shape, seed=None):\n    if seed is not None:\n        torch.manual_seed(seed)\n"
           "    return torch.randn(*shape)\n\n\nQ = draw(2, 5, 8, seed=0)\nK = draw(2, 5, 8)\nV = draw(2, 5, 8)\n"),
    _draws("torch.manual_seed(0)\nQ = torch.randn(2, 5, 8)\nK = torch.randn(2, 5, 8)\nV = torch.randn(2, 5, 8)\n"),
    # a ^ that is no slip (4 ^ 0 is 4), and the power written **
    _ratio("cost_ratio = 4 ^ 0\n"),
    _ratio("cost_ratio = (2 * 1024) ** 2 // 1024 ** 2\n"),
    # the right finite bias: -1e9 where the key is blocked
    _biased("(~mask).to(s.dtype) * -1e9"),
    _biased("torch.where(mask, 0.0, -1e9).to(s.dtype)"),
]

_graded = graded_as("sdpa-from-scratch", "round78")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


@pytest.mark.parametrize("bias", ["mask.to(s.dtype) * -1e9", "torch.where(mask, -1e9, 0.0).to(s.dtype)"])
def test_a_reversed_finite_bias_is_named_on_every_masked_test(grader, bias):
    # the padding mask of test_dv_differs_from_dk has queries that may see every key: the bias replay names it
    failed = assert_named(_graded(grader, _biased(bias)), "inverted_mask", "q5")
    assert any(t == "test_dv_differs_from_dk" for _q, t, _k, _m in failed), failed


def test_keys_written_as_the_queries_keep_their_key(grader):
    # K = Q.clone() after one seed: the scores really are Q Q^T, no second seeding
    cells = _draws("torch.manual_seed(0)\nQ = torch.randn(2, 5, 8)\nK = Q.clone()\nV = torch.randn(2, 5, 8)\n")
    assert_named(_graded(grader, cells), "keys_are_queries", "q2")


def test_a_caret_whose_power_is_not_right_names_no_xor(grader):
    # 3 ^ 1 is 2, and 3 ** 1 is 3, not 4: the replay does not give the right ratio
    failed = assert_named(_graded(grader, _ratio("cost_ratio = 3 ^ 1\n")), "cost_linear_in_T", "q8")
    assert all(k != "caret_is_xor" for _q, _t, k, _m in failed), failed


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
