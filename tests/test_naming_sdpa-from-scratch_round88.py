"""sdpa-from-scratch, naming round 88 (after blind88: defensive, validating and edge-case-handling code, and blind89:
selection, indexing and sparse formulations): kinds said without a name, or mis-named, are named now by evidence.
q1 (no key before): a shape whose sequence length is a padded one (10 rounded up to a multiple of 8 or 16, or a power
of two) where a cell that stores it pads or rounds up: shape_lengths_padded (the replay of the padding, source gate).
q6 (no key before): out3 with each row divided by its own sum: output_rows_renormalised (replay).
q2 (no key before): scale_divisor sqrt(63), the head width counted one short: head_width_off_by_one (replay), and
both variances over every score plus the diagonal again (tril with triu): diagonal_scores_counted_twice (replay).
q8 (no key before): attn_entries = 2 T^2 where the count is numel() of an index-pair list: pair_list_numel (value and
source), and (2T)^2 counts where the cell pads with the power of two above T (1 << T.bit_length()):
power_of_two_padding_past_length (value and source).
q6 (weights_not_normalised before, mis-named): rows divided by one of their own exponentials, the row sum written
with scatter: row_sum_scatter_overwrites (replay; on the causal trace it equals the undivided exponentials, the
source's scatter tells them apart).
q3, q6 (hand_score_slip or no key before): the softmax of the sorted logits put back with gather(dim, order):
sorted_softmax_regathered (replay on every input).
q3, q5, q6 (no key before): NaN on every slice holding a -inf where the softmax picks its max as a sum of a one_hot
(or ==) selection times the logits (0 * -inf): max_picked_by_product (second calls on a probe, source gate: a min
shift gives the same numbers).
q5 (no key, or fully_masked_nan alone, before): the fully masked rows cleared through the flattened nonzero() of a
batched flag (empty_rows_indices_mixed_across_batch) or with a has-a-key flag gathered along the query axis
(has_key_flag_gathered_wrong_axis), each by its replay; and float16 overflow only with a mask where the shift is
skipped on every slice holding a -inf (shift_skipped_where_minus_inf, by three second calls).
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


def _shapes(body: str) -> dict[str, str]:
    """Question 1's cell, written as `body` (it binds weights_shape and out_shape)."""
    return {"weights_shape": body}


def _counts(body: str) -> dict[str, str]:
    """Question 8's cell, written as `body` (it binds attn_entries, score_madds and cost_ratio)."""
    return {"attn_entries": body}


def _variances(divisor: str = "scale_divisor = math.sqrt(64)\n", scores: str = "") -> dict[str, str]:
    """Question 2's cell: `scores` binds raw (the scores measured; the whole Q @ K^T where empty), `divisor` binds
    scale_divisor."""
    return {"raw_score_var": ("d_k = Q.shape[-1]\nS = Q @ K.transpose(-2, -1)\n" + (scores or "raw = S\n")
                              + "raw_score_var = raw.var().item()\n"
                              "scaled_score_var = (raw / math.sqrt(d_k)).var().item()\n" + divisor)}


def _trace(out3: str = "out3 = weights3 @ V3\n", causal: str = "") -> dict[str, str]:
    """Question 6's cell: `out3` binds out3, `causal` binds weights3_causal (the masked softmax where empty)."""
    return {"weights3": ("scores3 = Q3 @ K3.T / math.sqrt(4)\nweights3 = stable_softmax(scores3, dim=-1)\n" + out3
                         + (causal or "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), "
                                      "float('-inf')), dim=-1)\n"))}


def _softmax(body: str) -> dict[str, str]:
    """stable_softmax(x, dim) whose body is `body`."""
    return {"stable_softmax": "def stable_softmax(x, dim=-1):\n" + body}


WRONG = {
    "shape_lengths_padded": ("q1", "padded to 16", [
        # a multiple of 16 with math.ceil
        _shapes("T = 10\nTp = math.ceil(T / 16) * 16   # the kernel's tile\n"
                "weights_shape = (4, Tp, Tp)\nout_shape = (4, Tp, 128)\n"),
        # the next power of two, in a helper
        _shapes("def next_pow2(n):\n    return 1 << (n - 1).bit_length()\n\nL = next_pow2(10)\n"
                "weights_shape = (4, L, L)\nout_shape = (4, L, 128)\n"),
    ]),
    "output_rows_renormalised": ("q6", "own sum", [
        _trace("out3 = weights3 @ V3\nout3 = out3 / out3.sum(-1, keepdim=True)\n"),
        _trace("o = weights3 @ V3\nout3 = o / o.sum(1)[:, None]   # each row a weighted average\n"),
    ]),
    "head_width_off_by_one": ("q2", "one short", [
        _variances("scale_divisor = math.sqrt(len(range(1, 64)))\n"),
        _variances("head = torch.arange(64)\nscale_divisor = math.sqrt(int((head > 0).sum()))\n"),
    ]),
    "diagonal_scores_counted_twice": ("q2", "diagonal", [
        # lists over i >= j and i <= j
        _variances(scores="raw = torch.stack([S[b, i, j] for b in range(2) for i in range(5) for j in range(5) "
                          "if j <= i]\n                   + [S[b, i, j] for b in range(2) for i in range(5) "
                          "for j in range(5) if j >= i])\n"),
        # two boolean triangles
        _variances(scores="lo = torch.ones(5, 5).tril().bool()\nup = torch.ones(5, 5).triu().bool()\n"
                          "raw = torch.cat([S[:, lo].flatten(), S[:, up].flatten()])\n"),
    ]),
    "pair_list_numel": ("q8", "2 x T^2", [
        _counts("idx = torch.ones(1024, 1024).nonzero()\nattn_entries = idx.numel()\n"
                "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"),
        _counts("qi, kj = torch.meshgrid(torch.arange(1024), torch.arange(1024), indexing='ij')\n"
                "pairs = torch.stack([qi.flatten(), kj.flatten()], dim=1)\nattn_entries = int(pairs.nelement())\n"
                "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"),
    ]),
    "power_of_two_padding_past_length": ("q8", "already a power", [
        _counts("T = 1024\nP = 2 ** (int(math.log2(T)) + 1)   # pad to a power of two\n"
                "attn_entries = P * P\nscore_madds = P * P * 64\ncost_ratio = 4\n"),
        _counts("def pad(n):\n    return 1 << n.bit_length()\n\nattn_entries = pad(1024) ** 2\n"
                "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"),
    ]),
    "row_sum_scatter_overwrites": ("q6", "scatter", [
        # the causal trace's rows over torch.where's pairs, scatter_ in place
        _trace(causal="r, c = torch.where(causal_mask(3))\ne = torch.exp(scores3[r, c] - scores3.amax(-1)[r])\n"
                      "sums = torch.zeros(3, dtype=scores3.dtype)\nsums.scatter_(0, r, e)\n"
                      "weights3_causal = torch.zeros(3, 3, dtype=scores3.dtype)\n"
                      "weights3_causal[r, c] = e / sums[r]\n"),
        # the unmasked weights built the same way (each row over its last term, exp(s[i, 2] - max))
        {"weights3": "scores3 = Q3 @ K3.T / math.sqrt(4)\nr, c = torch.ones(3, 3).nonzero(as_tuple=True)\n"
                     "e = (scores3[r, c] - scores3.max(dim=1).values[r]).exp()\n"
                     "row_sum = torch.zeros(3, dtype=e.dtype).scatter(0, r, e)\n"
                     "weights3 = (e / row_sum[r]).reshape(3, 3)\nout3 = stable_softmax(scores3, dim=-1) @ V3\n"
                     "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"},
    ]),
}

WRONG_SORTED = [
    # ascending sort, shifted by the last (largest) value, gathered back
    _softmax("    vals, order = torch.sort(x, dim=dim)\n"
             "    exps = torch.exp(vals - vals.select(dim, -1).unsqueeze(dim))\n"
             "    p = exps / exps.sum(dim, keepdim=True)\n    return torch.gather(p, dim, order)\n"),
    # argsort and take_along_dim both ways
    _softmax("    order = x.argsort(dim=dim, descending=True)\n    xs = torch.take_along_dim(x, order, dim)\n"
             "    e = (xs - xs.amax(dim, keepdim=True)).exp()\n"
             "    return torch.take_along_dim(e / e.sum(dim, keepdim=True), order, dim)\n"),
]

def _cleared(lines: str) -> dict[str, str]:
    """scaled_dot_product_attention whose weights `w` of the masked softmax (NaN for a fully masked query) are
    cleared by `lines` (which bind `w` again)."""
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is None:\n        return stable_softmax(scores, dim=-1) @ V\n"
        "    w = stable_softmax(scores.masked_fill(~mask, float('-inf')), dim=-1)\n" + lines + "    return w @ V\n")}


WRONG_Q5 = {
    "empty_rows_indices_mixed_across_batch": [
        _cleared("    rows = torch.nonzero(mask.sum(-1) == 0).reshape(-1)\n    w = w.index_fill(-2, rows, 0.0)\n"),
        _cleared("    rows = (~mask.any(dim=-1)).nonzero().ravel()   # the queries with no key\n"
                 "    w = w.clone()\n    w[..., rows, :] = 0.0\n"),
    ],
    "has_key_flag_gathered_wrong_axis": [
        _cleared("    first = mask.long().argmax(dim=-1, keepdim=True)\n"
                 "    ok = torch.take_along_dim(mask, first, dim=-2)\n    w = torch.where(ok, w, torch.zeros_like(w))\n"),
        _cleared("    ok = mask.gather(-2, mask.to(torch.uint8).argmax(-1, keepdim=True))\n"
                 "    w = w.masked_fill(ok.logical_not(), 0.0)\n"),
    ],
}

WRONG_MAX = [
    _softmax("    m = (x * (x == x.amax(dim, keepdim=True))).sum(dim, keepdim=True)\n"
             "    e = torch.exp(x - m)\n    return e / e.sum(dim, keepdim=True)\n"),
    _softmax("    sel = F.one_hot(x.argmax(dim), x.shape[dim]).movedim(-1, dim).to(x.dtype)\n"
             "    m = torch.sum(sel * x, dim=dim, keepdim=True)\n"
             "    e = torch.exp(x - m)\n    return e / e.sum(dim, keepdim=True)\n"),
]

WRONG_GUARD = [
    # each slice that holds a -inf left unshifted
    _softmax("    has_inf = (x == float('-inf')).any(dim=dim, keepdim=True)\n"
             "    m = torch.where(has_inf, 0.0, x.amax(dim, keepdim=True))\n"
             "    e = torch.exp(x - m)\n    return e / e.sum(dim, keepdim=True)\n"),
    # the whole tensor left unshifted as soon as it holds a -inf
    _softmax("    if torch.isfinite(x).all():\n        x = x - x.amax(dim, keepdim=True)\n"
             "    e = torch.exp(x)\n    return e / e.sum(dim, keepdim=True)\n"),
]

CORRECT = [
    # the guard on an all -inf slice only
    _softmax("    m = x.amax(dim, keepdim=True)\n    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)\n"
             "    e = torch.exp(x - m)\n    return e / e.sum(dim, keepdim=True)\n"),
    # the max picked with an == selection, without a product
    _softmax("    sel = x == x.amax(dim, keepdim=True)\n"
             "    m = torch.where(sel, x, torch.full_like(x, float('-inf'))).amax(dim, keepdim=True)\n"
             "    e = torch.exp(x - m)\n    return e / e.sum(dim, keepdim=True)\n"),
    # the empty rows cleared with the per-axis index tuple of the expanded flag, or the flag gathered along -1
    _cleared("    empty = (~mask.any(dim=-1)).expand(w.shape[:-1])\n"
             "    w = w.index_put(empty.nonzero(as_tuple=True), w.new_zeros(()))\n"),
    _cleared("    first = mask.long().argmax(dim=-1, keepdim=True)\n"
             "    ok = torch.take_along_dim(mask, first, dim=-1)\n    w = torch.where(ok, w, torch.zeros_like(w))\n"),
    # padding spoken of, the shapes right
    _shapes("# no padding here: the shapes of the question's tensors themselves (T = 10)\n"
            "weights_shape = (4, 10, 10)\nout_shape = (4, 10, 128)\n"),
    # the weight rows checked, out3 left as it is
    _trace("out3 = weights3 @ V3\nassert torch.allclose(weights3.sum(-1), torch.ones(3, dtype=weights3.dtype))\n"),
    # the head width counted from 1 to 64
    _variances("scale_divisor = math.sqrt(len(range(1, 65)))\n"),
    # tril with triu from offset 1: every score once
    _variances(scores="lo, up = torch.tril_indices(5, 5), torch.triu_indices(5, 5, 1)\n"
                      "raw = torch.cat([S[:, lo[0], lo[1]], S[:, up[0], up[1]]], dim=-1)\n"),
    # an index-pair list counted by its rows; a pad to the power of two at or above T
    _counts("pairs = torch.argwhere(torch.ones(1024, 1024))\nattn_entries = len(pairs)\n"
            "score_madds = attn_entries * 64\ncost_ratio = 4\n"),
    _counts("def pad(n):\n    return 1 << (n - 1).bit_length()\n\nattn_entries = pad(1024) ** 2\n"
            "score_madds = attn_entries * 64\ncost_ratio = pad(2048) ** 2 // attn_entries\n"),
    # the causal rows summed with scatter_add
    _trace(causal="r, c = torch.where(causal_mask(3))\ne = torch.exp(scores3[r, c] - scores3.amax(-1)[r])\n"
                  "sums = torch.zeros(3, dtype=scores3.dtype).scatter_add(0, r, e)\n"
                  "weights3_causal = torch.zeros(3, 3, dtype=scores3.dtype)\n"
                  "weights3_causal[r, c] = e / sums[r]\n"),
    # the sorted softmax scattered back, or gathered with the inverse permutation
    _softmax("    vals, order = torch.sort(x, dim=dim)\n"
             "    exps = torch.exp(vals - vals.select(dim, -1).unsqueeze(dim))\n"
             "    p = exps / exps.sum(dim, keepdim=True)\n    return torch.empty_like(p).scatter(dim, order, p)\n"),
    _softmax("    order = x.argsort(dim=dim, descending=True)\n    xs = torch.take_along_dim(x, order, dim)\n"
             "    e = (xs - xs.amax(dim, keepdim=True)).exp()\n"
             "    return torch.take_along_dim(e / e.sum(dim, keepdim=True), order.argsort(dim=dim), dim)\n"),
]

_graded = graded_as("sdpa-from-scratch", "round88")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


@pytest.mark.parametrize("cells", WRONG_SORTED, ids=range(len(WRONG_SORTED)))
def test_a_sorted_softmax_gathered_back_is_named(grader, cells):
    failed = assert_named(_graded(grader, cells), "sorted_softmax_regathered", ("q3", "q5", "q6"), also=(None,))
    named = {t for q, t, k, _m in failed if k == "sorted_softmax_regathered"}
    assert {"test_matches_softmax", "test_dim_argument"} <= named, failed
    assert all(k == "sorted_softmax_regathered" for q, _t, k, _m in failed if q == "q6"), failed


def test_a_bare_two_t_squared_keeps_no_key(grader):
    keys = failed_keys(_graded(grader, _counts("attn_entries = 2 * 1024 * 1024\nscore_madds = 1024 * 1024 * 64\n"
                                               "cost_ratio = 4\n")))
    assert "pair_list_numel" not in keys, keys


def test_a_plain_missing_division_keeps_weights_not_normalised(grader):
    keys = failed_keys(_graded(grader, _trace(causal="s = scores3.masked_fill(~causal_mask(3), float('-inf'))\n"
                                                     "weights3_causal = torch.exp(s - s.amax(-1, keepdim=True))\n")))
    assert "weights_not_normalised" in keys and "row_sum_scatter_overwrites" not in keys, keys


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))


@pytest.mark.parametrize("key, cells", [(k, c) for k, cs in WRONG_Q5.items() for c in cs],
                         ids=[f"{k}-{i}" for k, cs in WRONG_Q5.items() for i in range(len(cs))])
def test_each_empty_row_slip_is_named_on_q5(grader, key, cells):
    failed = assert_named(_graded(grader, cells), key, "q5", also=(None, "fully_masked_nan"))
    assert sum(k == key for _q, _t, k, _m in failed) >= 2, failed


@pytest.mark.parametrize("cells", WRONG_MAX, ids=range(len(WRONG_MAX)))
def test_a_max_picked_by_a_product_is_named(grader, cells):
    failed = assert_named(_graded(grader, cells), "max_picked_by_product", ("q3", "q5", "q6"), also=(None,))
    named = {q for q, _t, k, _m in failed if k == "max_picked_by_product"}
    assert named == {"q3", "q5", "q6"}, failed


@pytest.mark.parametrize("cells", WRONG_GUARD, ids=range(len(WRONG_GUARD)))
def test_a_shift_skipped_where_a_slice_holds_minus_inf_is_named(grader, cells):
    assert_named(_graded(grader, cells), "shift_skipped_where_minus_inf", "q5")
