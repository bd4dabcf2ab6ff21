"""sdpa-from-scratch, naming round 80 (after blind80: habits carried over from MATLAB, JAX, Keras, R or Julia, and
blind81: debugging leftovers and half-finished edits): one kind the grader mis-named and one it said without a name
are named now, each by its evidence.
q3 (and q5, q6 through it): stable_softmax returning x - max, never exponentiated nor normalised (an early return
left from a check): softmax_returns_shifted_logits, by a replay of the shifted scores used as the weights; it was
log_softmax on two of q5's tests and no key on the rest. Exponentials never divided by their sum keep
weights_not_normalised, and a check that reads the shifted logits and goes on keeps full marks.
q8: (T - 1)^2 entries (x d_k multiply-adds) counted over range(1, T) (MATLAB's inclusive 1:T ported as is):
inclusive_range_ported_exclusive, by the value AND a range(1, stop) in the cell that binds the count (read with
ast); 1023 ** 2 typed without a range names nothing new, and range(1, T + 1) keeps full marks.
q5 (borderline before): fully masked queries NaN, with the zeroing written into x.clone()[rows] = 0 (a copy made
on that line and never kept, JAX's .at[].set rewritten): write_into_discarded_copy; a copy that is kept keeps full
marks, and no zeroing at all keeps fully_masked_nan.
q4 (borderline before): a mask matching causal_includes_next (or causal_excludes_self) whose def numbers one axis's
positions from 1 and the other's from 0: positions_from_one_on_one_side; both from 1 keeps full marks, and
tril(diagonal=1) keeps causal_includes_next.
q5 (borderline before): the output matching a softmax over the queries, from a def that computes K @ Q^T and takes
the softmax over that layout's last axis: scores_keys_by_queries; K @ Q^T with the softmax over dim=-2 keeps full
marks, and Q @ K^T with the softmax over dim=-2 keeps softmax_wrong_dim.
q6 (borderline before): weights3 the right weights transposed, bound to stack(<per-row results>, dim=1) (R's
apply(S, 1, f)): rows_stacked_as_columns (out3 keeps weights_transposed); stacking along dim=0 keeps full marks,
and a .T written out keeps result_axes_permuted.
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

SOFTMAX = "def stable_softmax(x, dim=-1):\n"


def _softmax(body: str) -> dict[str, str]:
    """Question 3's cell: stable_softmax with `body`."""
    return {"stable_softmax": SOFTMAX + body}


def _counts(entries: str) -> dict[str, str]:
    """Question 8's cell: `entries` (lines that bind attn_entries), then score_madds from it and the ratio."""
    return {"attn_entries": entries + "score_madds = attn_entries * 64\ncost_ratio = 4\n"}


def _zeroed(lines: str) -> dict[str, str]:
    """Attention whose fully masked rows are zeroed by `lines` (w: the weights, dead: the queries with no key)."""
    return {"scaled_dot_product_attention": (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        dead = ~mask.any(dim=-1).expand(w.shape[:-1])\n" + lines +
        "    return w @ V\n")}


def _attention(params: str, lines: str) -> dict[str, str]:
    """Attention with parameters `params` whose scores, masking and weights `w` are `lines` (empty rows zeroed)."""
    m = params.split(", ")[-1].split("=")[0]
    v = params.split(", ")[2]
    return {"scaled_dot_product_attention": (
        f"def scaled_dot_product_attention({params}):\n" + lines +
        f"    if {m} is not None:\n        w = w.masked_fill(~{m}.any(dim=-1, keepdim=True), 0.0)\n"
        f"    return w @ {v}\n")}


def _trace(weights: str) -> dict[str, str]:
    """Question 6's cell, right but for weights3 = `weights`."""
    return {"scores3": "scores3 = Q3 @ K3.T / math.sqrt(4)\n"
                       f"weights3 = {weights}\n"
                       "out3 = weights3 @ V3\n"
                       "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"}


def _mask(body: str) -> dict[str, str]:
    """Question 4's cell: causal_mask with `body` (T_k already filled in)."""
    return {"causal_mask": "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n" + body}


WRONG = {
    "softmax_returns_shifted_logits": (("q3", "q5", "q6"), "the logits with their max subtracted", [
        _softmax("    m, _ = torch.max(x, dim=dim, keepdim=True)\n    z = x - m\n    return z\n"
                 "    # e = torch.exp(z)\n    # return e / e.sum(dim=dim, keepdim=True)\n"),
        _softmax("    out = x.sub(x.amax(dim=dim, keepdim=True))\n    if out.numel() > 0:   # debug: look at the shift\n"
                 "        return out\n    out = out.exp()\n    return out / out.sum(dim, keepdim=True)\n"),
    ]),
    "inclusive_range_ported_exclusive": ("q8", "counted over range(1, ", [
        _counts("attn_entries = 0\nfor q in range(1, 1024):\n    for k in range(1, 1024):\n        attn_entries += 1\n"),
        _counts("T = 1024\nattn_entries = len(range(1, T)) ** 2\n"),
    ]),
    "write_into_discarded_copy": ("q5", "writes into a copy made on that line", [
        _zeroed("        w.clone()[dead] = 0.0\n"),
        _zeroed("        torch.clone(w)[dead, :] *= 0\n"),
    ]),
    "scores_keys_by_queries": ("q5", "laying the scores out keys by queries", [
        _attention("Q, K, V, mask=None",
                   "    s = (K @ Q.mT) / math.sqrt(Q.shape[-1])\n"
                   "    if mask is not None:\n        s = s.masked_fill(~mask.mT, float('-inf'))\n"
                   "    w = stable_softmax(s, dim=-1).mT\n"),
        _attention("query, key, value, mask=None",
                   "    scores = torch.matmul(key, query.transpose(-1, -2)) * query.shape[-1] ** -0.5\n"
                   "    if mask is not None:\n"
                   "        scores = scores.masked_fill(~mask.transpose(-1, -2), float('-inf'))\n"
                   "    w = stable_softmax(scores, dim=-1).transpose(-1, -2)\n"),
    ]),
    "rows_stacked_as_columns": ("q6", "the right weights transposed", [
        _trace("torch.stack([stable_softmax(row, dim=-1) for row in scores3], dim=1)"),
        _trace("torch.stack(list(map(lambda r: stable_softmax(r, dim=0), scores3.unbind(0))), -1)"),
    ]),
}

# keys that other tests of the same variant say, true of them: out3 = weights3 @ V3 is A^T V
ALSO = {"rows_stacked_as_columns": ("weights_transposed",)}

CORRECT = [
    # the shift checked, then the softmax finished
    _softmax("    z = x - x.amax(dim=dim, keepdim=True)\n    assert bool((z <= 0).all() | z.isnan().any())\n"
             "    e = torch.exp(z)\n    return e / e.sum(dim=dim, keepdim=True)\n"),
    # MATLAB's 1:T ported as range(1, T + 1), or range(T)
    _counts("attn_entries = 0\nfor q in range(1, 1024 + 1):\n    for k in range(1, 1024 + 1):\n        attn_entries += 1\n"),
    _counts("T = 1024\nattn_entries = len(range(T)) ** 2\n"),
    # the copy kept, then written into
    _zeroed("        w2 = w.clone()\n        w2[dead] = 0.0\n        w = w2\n"),
    # keys by queries, with the softmax over the keys' axis of that layout (dim=-2)
    _attention("Q, K, V, mask=None",
               "    s = (K @ Q.mT) / math.sqrt(Q.shape[-1])\n"
               "    if mask is not None:\n        s = s.masked_fill(~mask.mT, float('-inf'))\n"
               "    w = stable_softmax(s, dim=-2).mT\n"),
    # the rows stacked as rows
    _trace("torch.stack([stable_softmax(row, dim=-1) for row in scores3], dim=0)"),
    # both axes numbered from 1
    _mask("    return torch.arange(1, T_q + 1)[:, None] >= torch.arange(1, T_k + 1)[None, :]\n"),
]

_graded = graded_as("sdpa-from-scratch", "round80")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where, also=ALSO.get(key, ()))
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


def test_exponentials_left_unnormalised_are_not_shifted_logits(grader):
    # exp(x - max) returned without the division: another mistake, its own key
    cells = _softmax("    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n    return e\n")
    assert "softmax_returns_shifted_logits" not in failed_keys(_graded(grader, cells))


def test_the_number_without_a_range_names_no_range(grader):
    # 1023 ** 2 typed as such: the same number, but nothing in the cell counts over a range
    keys = failed_keys(_graded(grader, _counts("attn_entries = 1023 ** 2\n")))
    assert "inclusive_range_ported_exclusive" not in keys


@pytest.mark.parametrize("key, body", [
    ("causal_includes_next", "    q = torch.arange(1, T_q + 1)[:, None]\n    k = torch.arange(0, T_k)[None, :]\n"
                             "    return k <= q\n"),
    ("causal_excludes_self", "    rows = torch.arange(T_q).view(-1, 1)\n    cols = torch.arange(1, T_k + 1).view(1, -1)\n"
                             "    return cols <= rows\n"),
])
def test_one_axis_numbered_from_one_is_named_in_q4(grader, key, body):
    failed = assert_named(_graded(grader, _mask(body)), "positions_from_one_on_one_side", ("q4", "q6"), also=(key,))
    assert sum(q == "q4" and k == "positions_from_one_on_one_side" for q, _t, k, _m in failed) >= 2, failed


def test_a_diagonal_offset_keeps_its_key(grader):
    # tril(diagonal=1) makes the same mask with no range from 1: the values' key, not the cause
    keys = failed_keys(_graded(grader, _mask("    return torch.ones(T_q, T_k).tril(diagonal=1).bool()\n")))
    assert "causal_includes_next" in keys and "positions_from_one_on_one_side" not in keys


def test_queries_by_keys_softmaxed_over_the_queries_keeps_its_key(grader):
    cells = _attention("Q, K, V, mask=None",
                       "    s = Q @ K.mT / math.sqrt(Q.shape[-1])\n"
                       "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
                       "    w = stable_softmax(s, dim=-2)\n")
    keys = failed_keys(_graded(grader, cells))
    assert "softmax_wrong_dim" in keys and "scores_keys_by_queries" not in keys


def test_a_transpose_written_out_keeps_its_key(grader):
    keys = failed_keys(_graded(grader, _trace("stable_softmax(scores3, dim=-1).T")))
    assert "rows_stacked_as_columns" not in keys


def test_no_zeroing_at_all_keeps_fully_masked_nan(grader):
    keys = failed_keys(_graded(grader, _zeroed("        pass\n")))
    assert "fully_masked_nan" in keys and "write_into_discarded_copy" not in keys


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
