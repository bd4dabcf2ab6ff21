"""attention-pipeline, naming round 84 (blind84's kinds: code written for any rank, a reshape where a transpose was
needed, a mask stretched in the wrong order; blind85's: code that fits the one example the student ran).

q05: the row-maximum shift clamped at 0 (amax(...).clamp(min=0), max(m, 0)): softmax_max_before_mask before on the
fully blocked row (MIS-NAMED: both NaN it alike). Now softmax_shift_clamped, by its replay and a second call on rows
near -1000 (NaN for the clamp, right for S's own row maximum). S's row maximum before the mask keeps its key.

q05: the weights cut to their lower triangle whenever a mask is given (A.tril(), A * tril): weights_not_normalised on
the float16 test before (MIS-NAMED). Now weights_tril_for_any_mask, by its replay; the float16 test, where the replay
is no different from an overflowed one, names nothing. Zeroing the blocked weights after the softmax keeps
zero_after_softmax; a tril only under causal=True keeps full marks.

q07 and q08: a (..., a, b) matrix brought to (..., b, a) with reshape or view (O^T = V^T A^T reshaped back, V reshaped
to (d_v, T)): only "does not match" before. Now reshaped_not_transposed, by its replay. The transpose keeps full marks.

q07 (through attention_weights): the 2-D mask stretched with repeat_interleave against batch-major flattened scores:
"does not match" before. Now mask_rows_interleaved, by its replay. M.repeat(B, 1) (the scores' order) keeps full marks.

q07, q09: the causal mask expanded over X.shape[0] as if it were a batch: only "A has shape (T, T, T)" before. Now
batch_axis_assumed: every slice along the new first axis is the right A. A new axis whose slices differ is not it.

q10: weights below a cut-off (A > 1e-2) left out of the entropy: "does not match" before. Now
entropy_small_weights_dropped, by the def's own cut-off (a bounded ast read) and H equal to the replay with it.
A guard on A > 0 keeps full marks; a cut-off in a comment or on another name with a right H is not it.

q10: effective_tokens as the count of nonzero weights, an int64 tensor: only its dtype before. Now
effective_tokens_support_size, by its values equal to that replay.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

WEIGHTS = "attention_weights"
SELF = "self_attention"
NW = "nadaraya_watson"
ENT = "row_entropy_bits"

_graded = graded_as("attention-pipeline", "round84")

_SELF_HEAD = ("def self_attention(X, W_Q, W_K, W_V, causal=True):\n"
              "    Q, K, V = project_qkv(X, W_Q, W_K, W_V)\n"
              "    S = scaled_scores(Q, K)\n")
_SELF_RIGHT_TAIL = ("    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None\n"
                    "    A = attention_weights(S, M)\n")


# --- q05: the shift clamped at 0 ---------------------------------------------------------------------------------

def test_shift_clamped_with_clamp_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S + M if M is not None else S\n"
            "    m = torch.clamp(Z.max(dim=-1, keepdim=True).values, min=0.0)\n"
            "    e = (Z - m).exp()\n    return e / e.sum(-1, keepdim=True)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "softmax_shift_clamped", ["q05", "q13"])


def test_shift_clamped_with_maximum_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    if M is not None:\n        S = S + M\n"
            "    top = torch.maximum(S.amax(-1, keepdim=True), torch.zeros((), dtype=S.dtype))\n"
            "    w = torch.exp(S - top)\n    return w / w.sum(dim=-1, keepdim=True)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "softmax_shift_clamped", ["q05", "q13"])


def test_row_max_of_s_before_mask_keeps_its_key(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S - S.amax(dim=-1, keepdim=True)\n"
            "    if M is not None:\n        Z = Z + M\n    e = torch.exp(Z)\n    return e / e.sum(dim=-1, keepdim=True)\n")
    keys = failed_keys(_graded(grader, {WEIGHTS: cell}))
    assert "softmax_shift_clamped" not in keys and "softmax_max_before_mask" in keys


def test_unclamped_row_shift_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))\n    return e / e.sum(dim=-1, keepdim=True)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q05: the weights cut to a triangle for any mask ---------------------------------------------------------------

def test_tril_for_any_mask_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    A = torch.softmax(S if M is None else S + M, dim=-1)\n"
            "    return A if M is None else torch.tril(A)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "weights_tril_for_any_mask", ["q05", "q13"], also=(None, "one_edit_fix"))


def test_lower_triangle_product_for_any_mask_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    if M is None:\n        return S.softmax(-1)\n"
            "    A = (S + M).softmax(-1)\n    keep = torch.ones(A.shape[-2:], dtype=A.dtype).tril()\n    return A * keep\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "weights_tril_for_any_mask", ["q05", "q13"], also=(None, "one_edit_fix"))


def test_blocked_weights_zeroed_keeps_zero_after_softmax(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    A = torch.softmax(S, dim=-1)\n"
            "    return A if M is None else A.masked_fill(M != 0, 0.0)\n")
    keys = failed_keys(_graded(grader, {WEIGHTS: cell}))
    assert "weights_tril_for_any_mask" not in keys


def test_tril_only_for_causal_keeps_full_marks(grader: Grader) -> None:
    cell = (_SELF_HEAD + _SELF_RIGHT_TAIL
            + "    if causal:\n        A = A.tril()   # already zero there\n    return A @ V, A\n")
    assert_full_marks(_graded(grader, {SELF: cell}))


# --- q07, q08: reshape for a transpose ---------------------------------------------------------------------------

def test_output_view_of_transposed_product_is_named(grader: Grader) -> None:
    cell = (_SELF_HEAD + _SELF_RIGHT_TAIL
            + "    Ot = torch.matmul(V.mT, A.mT).contiguous()\n    return Ot.view(A.shape[:-1] + (V.shape[-1],)), A\n")
    assert_named(_graded(grader, {SELF: cell}), "reshaped_not_transposed", ["q07", "q09"], also=(None,))


def test_output_einsum_columns_reshaped_is_named(grader: Grader) -> None:
    cell = (_SELF_HEAD + _SELF_RIGHT_TAIL
            + "    cols = torch.einsum('...tv,...qt->...vq', V, A)\n    return cols.reshape(*A.shape[:-1], -1), A\n")
    assert_named(_graded(grader, {SELF: cell}), "reshaped_not_transposed", ["q07", "q09"], also=(None,))


def test_output_transposed_back_keeps_full_marks(grader: Grader) -> None:
    cell = (_SELF_HEAD + _SELF_RIGHT_TAIL + "    return (V.mT @ A.mT).transpose(-2, -1), A\n")
    assert_full_marks(_graded(grader, {SELF: cell}))


def test_values_viewed_as_columns_is_named(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    w = torch.softmax(K @ q / q.shape[-1] ** 0.5, dim=0)\n"
            "    return V.contiguous().view(V.shape[1], V.shape[0]) @ w\n")
    assert_named(_graded(grader, {NW: cell}), "reshaped_not_transposed", "q08")


def test_values_reshaped_with_minus_one_is_named(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    k = torch.exp((K @ q) / math.sqrt(len(q)))\n"
            "    cols = V.reshape(-1, V.shape[0])\n    return (cols * k).sum(-1) / k.sum()\n")
    assert_named(_graded(grader, {NW: cell}), "reshaped_not_transposed", "q08")


def test_values_transposed_keeps_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    k = torch.exp((K @ q) / math.sqrt(q.shape[-1]))\n"
            "    return (V.T @ k) / k.sum()\n")
    assert_full_marks(_graded(grader, {NW: cell}))


# --- q07: the mask rows interleaved --------------------------------------------------------------------------------

def test_mask_rows_interleaved_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    T_k = S.shape[-1]\n    flat = S.reshape(-1, T_k)\n"
            "    if M is not None:\n        reps = flat.shape[0] // M.shape[-2]\n"
            "        flat = flat + torch.repeat_interleave(M.reshape(-1, T_k), reps, dim=0)\n"
            "    return flat.softmax(dim=-1).reshape(S.shape)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "mask_rows_interleaved", ["q05", "q07", "q09", "q13"], also=(None,))


def test_mask_rows_interleaved_by_expand_is_named(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    if M is None or M.dim() != 2:\n"
            "        return torch.softmax(S if M is None else S + M, dim=-1)\n"
            "    T_q, T_k = S.shape[-2:]\n    B = S.numel() // (T_q * T_k)\n"
            "    big = M[:, None, :].expand(T_q, B, T_k).reshape(B * T_q, T_k)\n"
            "    return torch.softmax(S.reshape(B * T_q, T_k) + big, dim=-1).reshape(S.shape)\n")
    assert_named(_graded(grader, {WEIGHTS: cell}), "mask_rows_interleaved", ["q05", "q07", "q09", "q13"], also=(None,))


def test_mask_rows_repeated_in_order_keeps_full_marks(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    T_q, T_k = S.shape[-2:]\n    flat = S.reshape(-1, T_k)\n"
            "    if M is not None:\n        M = M.expand(*S.shape[:-2], T_q, T_k) if M.dim() > 2 else M\n"
            "        big = M.reshape(-1, T_k) if M.dim() > 2 else M.repeat(flat.shape[0] // T_q, 1)\n"
            "        flat = flat + big\n    return torch.softmax(flat, dim=-1).reshape(S.shape)\n")
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q07, q09: a batch axis assumed --------------------------------------------------------------------------------

def test_mask_expanded_over_first_axis_is_named(grader: Grader) -> None:
    cell = (_SELF_HEAD + "    M = None\n    if causal:\n        n = X.size(-2)\n"
            "        M = causal_additive_mask(n, S.dtype, S.device).unsqueeze(0).repeat(X.size(0), 1, 1)\n"
            "    A = attention_weights(S, M)\n    return A @ V, A\n")
    # round 88: q07 also asks a 4-D X (two batch axes), where a mask made for one batch axis raises: told
    # batched_input_unsupported there (code for one fixed number of dims), batch_axis_assumed on unbatched X
    failed = assert_named(_graded(grader, {SELF: cell}), "batch_axis_assumed", ["q07", "q09"],
                          also=(None, "batched_input_unsupported"))
    assert any(k == "batch_axis_assumed" for _q, _t, k, _m in failed), failed


def test_mask_broadcast_to_len_x_is_named(grader: Grader) -> None:
    cell = (_SELF_HEAD + "    T = X.shape[-2]\n"
            "    M = causal_additive_mask(T, S.dtype, S.device).expand(len(X), T, T) if causal else None\n"
            "    A = attention_weights(S, M)\n    return A @ V, A\n")
    # round 88: q07 also asks a 4-D X (two batch axes), where a mask made for one batch axis raises: told
    # batched_input_unsupported there (code for one fixed number of dims), batch_axis_assumed on unbatched X
    failed = assert_named(_graded(grader, {SELF: cell}), "batch_axis_assumed", ["q07", "q09"],
                          also=(None, "batched_input_unsupported"))
    assert any(k == "batch_axis_assumed" for _q, _t, k, _m in failed), failed


def test_mask_expanded_over_batch_dims_keeps_full_marks(grader: Grader) -> None:
    cell = (_SELF_HEAD + "    T = X.shape[-2]\n    M = None\n    if causal:\n"
            "        M = causal_additive_mask(T, S.dtype, S.device).expand(*X.shape[:-2], T, T)\n"
            "    A = attention_weights(S, M)\n    return A @ V, A\n")
    assert_full_marks(_graded(grader, {SELF: cell}))


def test_new_axis_of_differing_slices_is_not_batch_axis(grader: Grader) -> None:
    cell = (_SELF_HEAD + _SELF_RIGHT_TAIL
            + "    A = torch.stack([A * (i + 1) for i in range(X.shape[0])])\n    return A @ V, A\n")
    assert "batch_axis_assumed" not in failed_keys(_graded(grader, {SELF: cell}))


# --- q10: small weights dropped, the support counted -----------------------------------------------------------------

_EFF = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"


def test_weights_under_a_cut_off_dropped_is_named(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    keep = A >= 0.02\n"
            "    return -(A * torch.log2(torch.where(keep, A, torch.ones_like(A)))).sum(dim=-1)" + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "entropy_small_weights_dropped", "q10")


def test_weights_cut_off_written_reversed_is_named(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    terms = A * torch.log2(A.clamp_min(1e-30))\n"
            "    return -torch.where(0.005 < A, terms, torch.zeros_like(A)).sum(-1)" + _EFF)
    assert_named(_graded(grader, {ENT: cell}), "entropy_small_weights_dropped", "q10")


def test_guard_on_zero_keeps_full_marks(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    # weights below 0.01 are small but still count\n"
            "    return -torch.where(A > 0, A * torch.log2(A), torch.zeros_like(A)).sum(-1)" + _EFF)
    assert_full_marks(_graded(grader, {ENT: cell}))


def test_cut_off_clamp_without_compare_is_not_named(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n    return -(A * torch.log2(A.clamp(min=0.02))).sum(-1)" + _EFF)
    assert "entropy_small_weights_dropped" not in failed_keys(_graded(grader, {ENT: cell}))


_ENT_RIGHT = "def row_entropy_bits(A):\n    return -torch.special.xlogy(A, A).sum(-1) / math.log(2)\n"


def test_support_counted_as_integers_is_named(grader: Grader) -> None:
    cell = _ENT_RIGHT + "\n\ndef effective_tokens(A):\n    return torch.count_nonzero(A, dim=-1)\n"
    assert_named(_graded(grader, {ENT: cell}), "effective_tokens_support_size", "q10")


def test_support_counted_with_sum_of_bools_is_named(grader: Grader) -> None:
    cell = _ENT_RIGHT + "\n\ndef effective_tokens(A):\n    return (A != 0).long().sum(-1)\n"
    assert_named(_graded(grader, {ENT: cell}), "effective_tokens_support_size", "q10")


def test_integer_tokens_of_another_count_is_not_support(grader: Grader) -> None:
    cell = _ENT_RIGHT + "\n\ndef effective_tokens(A):\n    return (A > 0.5).sum(-1) + 1\n"
    assert "effective_tokens_support_size" not in failed_keys(_graded(grader, {ENT: cell}))


def test_overflowed_unshifted_sum_keeps_not_normalised(grader: Grader) -> None:
    # e / exp(Z).sum(): exp overflows float16's sum to inf, every weight 0 there; near zero, the tril replay is no evidence
    cell = ("def attention_weights(S, M=None):\n    Z = S if M is None else S + M\n"
            "    e = torch.exp(Z - Z.amax(dim=-1, keepdim=True))\n    return e / torch.exp(Z).sum(dim=-1, keepdim=True)\n")
    keys = failed_keys(_graded(grader, {WEIGHTS: cell}))
    assert "weights_tril_for_any_mask" not in keys and "weights_not_normalised" in keys
