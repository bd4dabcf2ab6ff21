"""sdpa-from-scratch, naming round 71 (after blind71: memory- and speed-conscious code: in-place work, buffers,
chunks, half precision): two kinds the grader mis-named, one it said only as a difference, and one borderline
are named now, each by its evidence.
q5 (through stable_softmax or the attention itself): the gradient test's crash in torch's own words "needed for
gradient computation has been modified by an inplace operation", where the same call without gradients runs and
writes into none of its inputs, is inplace_on_saved_tensor (a tensor autograd saved, exp's result, written in
place: e.div_(...), e /= ...); it was inplace_on_input, "do not write into an input", which such code never did.
Where stable_softmax alone, with gradients, raises the same words, the message puts the step there.
q5: an output whose rows past the last full block of queries are never computed (a block loop that stops at
T // B * B into a torch.empty buffer), shown by a second call with 67 queries right on its first k rows only and a
third with those k queries alone right everywhere, is output_rows_never_written; it was nondeterministic
("dropout or randomness left on"), the uninitialised rows' effect, not their cause.
q5: attention whose softmax is taken in half precision on half scores, only the weights cast back, is
half_precision_scores by a replay of that (the replays took the softmax in float64, so it was only a difference).
q8: attn_entries = 4 T^2 from a cell whose `attn_entries = ...` line reads a bytes size (a name saying bytes, or
.element_size(), .itemsize, finfo(...).bits) is count_in_bytes, quoting the line; without such a line it stays
count_times_four, whose text gives every reading of the number.
Each kind is graded through the sandbox on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import assert_full_marks, assert_named, graded_as

SM = "def stable_softmax(x, dim=-1):\n"
SDPA = "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
Q8_TAIL = "score_madds = N_TOK * N_TOK * 64\ncost_ratio = 4\n"


def _attention(body: str) -> dict[str, str]:
    """An attention whose scores, masked with -inf, go through `body` (scores, mask, V, d_k in scope; sets out)."""
    return {"scaled_dot_product_attention": SDPA + (
        "    d_k = Q.shape[-1]\n" + body + "    return out\n")}


FILL = ("    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n")
DEAD = ("    if mask is not None:\n        w = torch.where(mask.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n")


def _blocks(head: str, loop: str) -> dict[str, str]:
    """Attention computed block by block of queries into a preallocated buffer (`head` makes out, `loop` gives
    lo and hi of each block)."""
    return {"scaled_dot_product_attention": SDPA + (
        "    d_k, T_q = Q.shape[-1], Q.shape[-2]\n"
        "    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])\n" + head + loop +
        "        s = Q[..., lo:hi, :] @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
        "        if mask is not None:\n"
        "            m = mask[..., lo:hi, :] if mask.shape[-2] != 1 else mask\n"
        "            s = s.masked_fill(~m, float('-inf'))\n"
        "            w = stable_softmax(s, dim=-1)\n"
        "            w = torch.where(m.any(dim=-1, keepdim=True), w, torch.zeros_like(w))\n"
        "        else:\n            w = stable_softmax(s, dim=-1)\n"
        "        out[..., lo:hi, :] = w @ V\n" + "    return out\n")}


EMPTY = "    out = V.new_empty(*lead, T_q, V.shape[-1])\n"

WRONG = {
    "inplace_on_saved_tensor": ("q5", "writes into none of its inputs", [
        {"stable_softmax": SM + "    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n"
                                "    e /= e.sum(dim=dim, keepdim=True)      # normalise in place\n    return e\n"},
        {"stable_softmax": SM + "    e = (x - x.amax(dim=dim, keepdim=True)).exp()\n"
                                "    return e.mul_(1.0 / e.sum(dim=dim, keepdim=True))\n"},
        _attention("    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n" + FILL +
                   "    w = torch.exp(scores - scores.amax(dim=-1, keepdim=True))\n"
                   "    w.div_(w.sum(dim=-1, keepdim=True))     # no second (T_q, T_k) buffer\n"
                   "    w = torch.nan_to_num(w, nan=0.0)\n    out = w @ V\n"),
    ]),
    "output_rows_never_written": ("q5", "never computed", [
        _blocks(EMPTY, "    n_full = T_q - T_q % 8\n    for lo in range(0, n_full, 8):\n        hi = lo + 8\n"),
        _blocks("    out = torch.empty(*lead, T_q, V.shape[-1], dtype=V.dtype)\n",
                "    for lo, hi in zip(range(0, T_q, 3), range(3, T_q + 1, 3)):\n"),
    ]),
    "half_precision_scores": ("q5", "scores and softmax", [
        _attention("    scores = (Q.half() @ K.half().mT) / math.sqrt(d_k)     # half the memory\n" + FILL +
                   "    w = torch.softmax(scores, dim=-1).to(V.dtype)\n" + DEAD + "    out = w @ V\n"),
        _attention("    scores = (Q @ K.transpose(-2, -1) / math.sqrt(d_k)).to(torch.bfloat16)\n" + FILL +
                   "    w = stable_softmax(scores, dim=-1).type_as(V)\n" + DEAD + "    out = w @ V\n"),
    ]),
    "count_in_bytes": ("q8", "bytes of an entry", [
        {"attn_entries": "N_TOK = 1024\nbytes_per_float = 4\nattn_entries = N_TOK * N_TOK * bytes_per_float\n"
                         + Q8_TAIL},
        {"attn_entries": "N_TOK = 1024\nattn_entries = N_TOK ** 2 * torch.zeros(()).element_size()\n" + Q8_TAIL},
    ]),
}

CORRECT = [
    # in place on fresh tensors before anything is saved, the normalisation out of place
    {"stable_softmax": SM + "    e = x.clone()\n    e.sub_(x.amax(dim=dim, keepdim=True))\n    e.exp_()\n"
                            "    return e / e.sum(dim=dim, keepdim=True)\n"},
    # the same block loop run to the full length (the last block shorter). Blocks of 64, not 8: 32 blocks of 8
    # over q5's 256 timed queries measure ~4.1x the reference (limit 5x), and CI's load once pushed one grade
    # past it (not_vectorised, 34/35); 4 blocks of 64 measure ~1.8x (one thread, in-process, best of 5), and
    # the 67-query probe still ends on a short block
    _blocks(EMPTY, "    for lo in range(0, T_q, 64):\n        hi = lo + 64\n"),
    # a preallocated buffer written whole
    _attention("    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n" + FILL +
               "    w = stable_softmax(scores, dim=-1)\n" + DEAD +
               "    out = torch.empty(w.shape[:-1] + V.shape[-1:], dtype=V.dtype)\n    out[...] = w @ V\n"),
    # half precision only where the inputs are half, the softmax upcast
    _attention("    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n" + FILL +
               "    w = stable_softmax(scores.float() if scores.dtype in (torch.float16, torch.bfloat16) else scores,"
               " dim=-1).to(V.dtype)\n" + DEAD + "    out = w @ V\n"),
    # a bytes size computed in the cell, not in the count
    {"attn_entries": "N_TOK = 1024\nitemsize = torch.float32.itemsize\nweights_bytes = N_TOK * N_TOK * itemsize\n"
                     "attn_entries = N_TOK * N_TOK\n" + Q8_TAIL},
]

_graded = graded_as("sdpa-from-scratch", "round71")


@pytest.mark.parametrize("key, where, words, cells",
                         [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    # a block loop is a Python loop over queries: the timing test may say so (not_vectorised), rightly
    failed = assert_named(_graded(grader, cells), key, where, also=("not_vectorised",))
    assert all(words in m for _q, _t, k, m in failed if k == key), failed


def test_the_step_inside_stable_softmax_is_said_to_be_there(grader):
    failed = assert_named(_graded(grader, WRONG["inplace_on_saved_tensor"][2][0]), "inplace_on_saved_tensor", "q5")
    assert all("inside stable_softmax" in m for _q, _t, _k, m in failed), failed


def test_four_times_the_entries_without_a_bytes_size_keeps_its_name(grader):
    failed = assert_named(_graded(grader, {"attn_entries": "N_TOK = 1024\nB = 4\nattn_entries = B * N_TOK * N_TOK\n"
                                           + Q8_TAIL}), "count_times_four", "q8")
    assert failed


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    assert_full_marks(_graded(grader, cells))
