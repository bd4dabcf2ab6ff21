"""sdpa-from-scratch, naming round 82 (after blind82: extensions and options whose defaults break the plain call, and
blind83: a textbook's, a video's or a course's conventions): two kinds the grader mis-named and one it said without a
name are named now, each by its evidence.
q5 (mis-named scale_constant before): a mutable default argument (opts={}, cache=[]) that the attention fills with
the first call's divisor and reads back on every later call: mutable_default_kept_between_calls, by the replay (two
calls with d_k = 6 and 11 divide by one sqrt(n)) AND the source (a def's mutable default filled from a width or a
root and read back, read with ast). A default only read (a fixed divisor in it) keeps scale_constant, and so does a
list default filled with something else beside a fixed divisor; a fresh dict per call, or a cache keyed by d_k,
keeps full marks.
q6 (no key before): the hand trace's scores divided by a written 8 (the blog's sqrt(64)): trace_divided_by_fixed_8,
by the replay of the scores divided by 8 AND the 8 (or sqrt(64), or * 0.125) in the trace's cells; `** -1/2`, which
divides by 8 too, keeps scale_precedence, and `/ 8 * 4` (right) keeps full marks.
q8 (mis-named count_in_bytes before): attn_entries = 8 T^2 where the line multiplies by a heads name the cell binds to
8 (the paper's h = 8): entries_all_heads; a bare 8, or a bytes name, keeps count_in_bytes, and a heads name bound to
1 keeps full marks.
Each kind is graded through the sandbox on variants of its own, with right neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


def _attention(params: str, lines: str) -> dict[str, str]:
    """Attention with parameters `params` whose scores `s` are `lines` (masking, empty rows zeroed, then w @ V)."""
    return {"scaled_dot_product_attention": (
        f"def scaled_dot_product_attention({params}):\n" + lines +
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
        "    return w @ V\n")}


def _trace(scores: str) -> dict[str, str]:
    """Question 6's cell, right but for scores3 = `scores`."""
    return {"scores3": f"scores3 = {scores}\n"
                       "weights3 = stable_softmax(scores3, dim=-1)\n"
                       "out3 = weights3 @ V3\n"
                       "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"}


def _counts(entries: str) -> dict[str, str]:
    """Question 8's cell: `entries` (lines that bind attn_entries), then the right score_madds and ratio."""
    return {"attn_entries": entries + "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"}


WRONG = {
    "mutable_default_kept_between_calls": ("q5", "your function's default is filled", [
        _attention("Q, K, V, mask=None, cache=[]",
                   "    if not cache:\n        cache.append(math.sqrt(Q.shape[-1]))\n"
                   "    s = torch.matmul(Q, K.transpose(-2, -1)) / cache[0]\n"),
        _attention("Q, K, V, mask=None, *, memo=dict()",
                   "    scale = memo.setdefault('scale', Q.size(-1) ** -0.5)\n"
                   "    s = (Q @ K.mT) * scale\n"),
    ]),
    "trace_divided_by_fixed_8": (("q6",), "your trace writes that 8", [
        _trace("torch.matmul(Q3, K3.T) / math.sqrt(64)"),
        _trace("(Q3 @ K3.transpose(0, 1)) * 0.125"),
    ]),
    "entries_all_heads": ("q8", "multiplies by the number of heads", [
        _counts("n_heads = 8\nT = 1024\nattn_entries = n_heads * T ** 2\n"),
        _counts("T, d_k, num_heads = 1024, 64, 8\nattn_entries = T * T * num_heads\n"),
    ]),
}

CORRECT = [
    # a fresh options dict on every call
    _attention("Q, K, V, mask=None, opts=None",
               "    opts = dict(opts or {})\n    opts.setdefault('divisor', math.sqrt(Q.size(-1)))\n"
               "    s = Q @ K.transpose(-2, -1) / opts['divisor']\n"),
    # a mutable default cache keyed by d_k: right for every width
    _attention("Q, K, V, mask=None, cache={}",
               "    d = cache.setdefault(Q.shape[-1], math.sqrt(Q.shape[-1]))\n"
               "    s = Q @ K.transpose(-2, -1) / d\n"),
    # the 8 written, then made right
    _trace("Q3 @ K3.T / 8 * 4"),
    # a heads name, bound to one head
    _counts("h = 1\nT = 1024\nattn_entries = h * T * T\n"),
]

_graded = graded_as("sdpa-from-scratch", "round82")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, words, c) for k, (w, words, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _words, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    failed = assert_named(_graded(grader, cells), key, where)
    assert any(words in m for _q, _t, k, m in failed if k == key), failed


@pytest.mark.parametrize("params, lines", [
    # the default holds a fixed divisor and is only read
    ("Q, K, V, mask=None, opts={'divisor': 4.0}", "    s = Q @ K.mT / opts.get('divisor')\n"),
    # a list default filled (a call log) beside a fixed divisor: the log holds no width
    ("Q, K, V, mask=None, calls=[]", "    calls.append(1)\n    s = Q @ K.mT / 4.0 + 0 * len(calls[:0])\n"),
    # a cache keyed by the width (right in itself) beside a fixed divisor
    ("Q, K, V, mask=None, cache={}", "    d = cache.setdefault(Q.shape[-1], math.sqrt(Q.shape[-1]))\n"
                                     "    s = Q @ K.mT / 4.0 + 0 * d\n"),
])
def test_a_default_that_keeps_no_width_keeps_scale_constant(grader, params, lines):
    keys = failed_keys(_graded(grader, _attention(params, lines)))
    assert "scale_constant" in keys and "mutable_default_kept_between_calls" not in keys


def test_a_precedence_slip_that_divides_by_8_keeps_its_key(grader):
    # 4 ** -1/2 is (4 ** -1) / 2 = 1/8: the same weights, no 8 written (one_edit_fix quotes the slip's line)
    keys = failed_keys(_graded(grader, _trace("Q3 @ K3.T * 4 ** -1/2")))
    assert keys & {"scale_precedence", "one_edit_fix"} and "trace_divided_by_fixed_8" not in keys


@pytest.mark.parametrize("entries", [
    "T = 1024\nattn_entries = T * T * 8\n",                              # a bare 8
    "h = 8\nT = 1024\nbytes_per = 8\nattn_entries = T * T * bytes_per\n",    # the heads name not in the count
    "h = 8\nh = 2\nT = 1024\nattn_entries = h * 4 * T * T\n",            # h rebound: not the 8 heads
])
def test_eight_times_without_eight_heads_keeps_count_in_bytes(grader, entries):
    keys = failed_keys(_graded(grader, _counts(entries)))
    assert "count_in_bytes" in keys and "entries_all_heads" not in keys


@pytest.mark.parametrize("cells", CORRECT, ids=range(len(CORRECT)))
def test_right_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
