"""attention-pipeline, naming round 71 (blind71's kinds: memory- and speed-conscious code: in-place work, buffers,
chunks, caches, half precision).

q04: a mask built in float32 (a constant, or a mask made once) and cast to the dtype asked: the float64 blocked
entries hold float32's finfo.min. Still mask_not_dtype_min; its message now says whose finfo.min it is and why.

q05: attention_weights with an added block-size parameter (chunk=4) looping over range(T // chunk): the rows past the
last whole block stay zero. A block of 1 divides every length, so the second call with chunk=1 was right and the
failure was named default_argument_wrong: MIS-NAMED. Now chunk_remainder_dropped where the source has the whole-blocks
range and the same call's A is that replay. A loop over range(0, T, chunk) keeps full marks.

q08: nadaraya_watson's kernel (or normalised) weights made in float16 and cast back ("half the memory"). Named
float16_precision where the row matches that replay (the kernel exp'd from float16 scores, the kernel rounded to
float16, the softmax in float16). Before: generic. float16 used only for float16 inputs keeps full marks.

q10: the log taken in place on the tensor the same product reads (P * P.log2_()): log2_ runs first, so the terms are
log2(p)^2. Named inplace_operand_overwritten where the source has such an operation and H matches the replay. Before:
one_edit_fix (where, not why). The out-of-place P * P.log2() keeps full marks.

q12: the parameter count returned in bytes (4 per float32 weight). Named param_count_in_bytes where the count is 2, 4
or 8 times the right one at three sizes, with and without W_O, and the def's text speaks of bytes. Before:
one_edit_fix. A count that only mentions bytes in a comment, right, keeps full marks.

q13: cross_attention over query blocks with the slice end taken as inclusive (stop = start + chunk - 1, then
[start:stop]): the last row of every block stays zero. Named slice_end_inclusive where the source slices to `... - 1`
and (O, A) match the replay. Before: one_edit_fix. [start:start + chunk] keeps full marks.
"""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
ENT = "row_entropy_bits"
PARAMS = "qkv_param_count"
CROSS = "cross_attention"


_graded = graded_as("attention-pipeline", "round71")


# --- q04: a float32 mask cast to the dtype asked ----------------------------------------------------------------------

_Q04 = [
    "def causal_additive_mask(T, dtype=torch.float32, device=None):\n"
    "    blocked = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)\n"
    "    M = torch.zeros(T, T, device=device).masked_fill(blocked, torch.finfo(torch.float32).min)\n"
    "    return M.to(dtype)\n",
    "def causal_additive_mask(T, dtype=torch.float32, device=None):\n    NEG = -3.4028234663852886e38\n"
    "    return torch.full((T, T), NEG, device=device).triu(diagonal=1).to(dtype=dtype)\n",
]


@pytest.mark.parametrize("cell", _Q04)
def test_float32_mask_cast_says_whose_minimum(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {MASK: cell}), "mask_not_dtype_min", "q04")
    assert any("float32's torch.finfo(...).min" in m for _, _, _, m in failed), failed


# --- q05: a block-size parameter over whole blocks only ---------------------------------------------------------------

_Q05 = [
    "def attention_weights(S, M=None, block=3):\n    Z = S if M is None else S + M\n    out = torch.zeros_like(Z)\n"
    "    for b in range(Z.shape[-2] // block):\n        lo, hi = b * block, (b + 1) * block\n"
    "        out[..., lo:hi, :] = torch.softmax(Z[..., lo:hi, :], dim=-1)\n    return out\n",
    "def attention_weights(S, M=None, rows_per_step=4):\n    if M is not None:\n        S = S + M\n"
    "    A = S.new_zeros(S.shape)\n    steps = int(S.size(-2) / rows_per_step)\n    for i in range(steps):\n"
    "        r = slice(i * rows_per_step, i * rows_per_step + rows_per_step)\n"
    "        A[..., r, :] = (S[..., r, :] - S[..., r, :].amax(-1, keepdim=True)).exp()\n"
    "        A[..., r, :] /= A[..., r, :].sum(-1, keepdim=True)\n    return A\n",
]


@pytest.mark.parametrize("cell", _Q05)
def test_whole_blocks_with_a_block_parameter_is_chunk_remainder_dropped(grader: Grader, cell: str) -> None:
    # not default_argument_wrong: a block of 1 is right only because it divides every length
    assert_named(_graded(grader, {WEIGHTS: cell}), "chunk_remainder_dropped", {"q05", "q07", "q09", "q13"})


def test_blocks_with_their_tail_keep_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None, block=3):\n    Z = S if M is None else S + M\n"
            "    out = torch.empty_like(Z)\n    for lo in range(0, Z.shape[-2], block):\n"
            "        out[..., lo:lo + block, :] = torch.softmax(Z[..., lo:lo + block, :], dim=-1)\n    return out\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q08: kernel weights in float16 -----------------------------------------------------------------------------------

_Q08 = [
    "def nadaraya_watson(q, K, V):\n    w = torch.softmax((K @ q / math.sqrt(q.shape[-1])).half(), dim=0)\n"
    "    return w.to(V.dtype) @ V\n",
    "def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5).to(torch.float16)  # small buffer\n"
    "    kappa = kappa.type_as(V)\n    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n",
]


@pytest.mark.parametrize("cell", _Q08)
def test_kernel_weights_in_half_are_float16_precision(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {NW: cell}), "float16_precision", "q08")


def test_half_only_for_half_inputs_keeps_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    s = K @ q / math.sqrt(q.shape[-1])\n"
            "    w = torch.softmax(s.float(), dim=0).to(V.dtype) if V.dtype == torch.float16 else torch.softmax(s, 0)\n"
            "    return w @ V\n")
    assert_full_marks(_graded(grader, {NW: cell}))


# --- q10: the log taken in place on the tensor the product reads ------------------------------------------------------

_ENT_TAIL = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"
_Q10 = [
    "def row_entropy_bits(A):\n    p = torch.where(A > 0, A, torch.ones_like(A))\n"
    "    terms = p.log2_() * p\n    return -terms.sum(-1)\n" + _ENT_TAIL,
    "def row_entropy_bits(A):\n    P = A.clone()\n    P[P == 0] = 1.0\n"
    "    return -(P * P.log_()).sum(dim=-1) / math.log(2)\n" + _ENT_TAIL,
]


@pytest.mark.parametrize("cell", _Q10)
def test_log_in_place_on_the_product_operand_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {ENT: cell}), "inplace_operand_overwritten", "q10")
    assert all("in-place" in m for _, _, _, m in failed), failed


def test_log_out_of_place_keeps_full_marks(grader: Grader) -> None:
    cell = _Q10[1].replace("P.log_()", "P.log()")
    assert_full_marks(_graded(grader, {ENT: cell}))


# --- q12: the count in bytes ------------------------------------------------------------------------------------------

_Q12 = [
    "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n    bytes_per_weight = 4\n"
    "    total = d_model * d_k * 2 + d_model * d_v + (d_v * d_model if with_output else 0)\n"
    "    return total * bytes_per_weight\n",
    "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]\n"
    "    if with_output:\n        shapes.append((d_v, d_model))\n"
    "    return sum(torch.empty(s, dtype=torch.float16).nbytes for s in shapes)\n",
]


@pytest.mark.parametrize("cell", _Q12)
def test_count_in_bytes_is_named(grader: Grader, cell: str) -> None:
    failed = assert_named(_graded(grader, {PARAMS: cell}), "param_count_in_bytes", "q12")
    assert all("bytes per float" in m for _, _, _, m in failed), failed


def test_count_mentioning_bytes_keeps_full_marks(grader: Grader) -> None:
    cell = ("def qkv_param_count(d_model, d_k, d_v, with_output=False):\n    # weights, not bytes (4 bytes each in float32)\n"
            "    n = d_model * (2 * d_k + d_v)\n    return n + d_v * d_model if with_output else n\n")
    assert_full_marks(_graded(grader, {PARAMS: cell}))


# --- q13: a slice end taken as inclusive ------------------------------------------------------------------------------

_Q13 = [
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None, rows=3):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
    "    A = Q.new_zeros(*Q.shape[:-1], K.shape[-2])\n    for i in range(0, Q.shape[-2], rows):\n"
    "        S = scaled_scores(Q[..., i:i + rows - 1, :], K)\n"
    "        if M is not None:\n            S = S + M[..., i:i + rows - 1, :]\n"
    "        A[..., i:i + rows - 1, :] = torch.softmax(S, dim=-1)\n    return A @ V, A\n",
    "def cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n"
    "    A = torch.zeros(Q.shape[:-1] + (K.shape[-2],), dtype=Q.dtype)\n    block = 2\n"
    "    for first in range(0, Q.shape[-2], block):\n        last = first + block - 1\n"
    "        part = attention_weights(scaled_scores(Q[..., first:last, :], K), None if M is None else M[..., first:last, :])\n"
    "        A[..., first:last, :] = part\n    return A @ V, A\n",
]


@pytest.mark.parametrize("cell", _Q13)
def test_inclusive_slice_end_is_named(grader: Grader, cell: str) -> None:
    assert_named(_graded(grader, {CROSS: cell}), "slice_end_inclusive", "q13")


def test_exclusive_slice_end_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {CROSS: _Q13[0].replace("i + rows - 1", "i + rows")}))
