"""attention-pipeline, naming round 88 (blind88's slips that scored full marks, each on an input the notebook's contract
promises and no hidden test had).

q02: a layout guard that takes K as already transposed whenever K.shape[-2] == d_k: full marks before (no test had
T_k = d_k). test_scores_float64_rectangular now also asks keys with T_k = d_k = 12; told scores_keys_not_transposed by
its replay (Q @ K). A guard that reads the last axis keeps full marks.

q07: weights below a small cut set to 0 after the softmax: full marks before (no test had visible weights under 1e-6).
test_causal_float64 now also asks scores three times as spread; told weights_small_snapped_to_zero by its replay (the
right weights, those at most the answer's own cut zeroed, renormalised or not, and O from them). A cut far below
float64's tolerance keeps full marks.

q07: T read from axis 1 of a batched X: full marks before (no 4-D X). test_batched_float32_and_float16 now also asks
(B, H, T, d_model); told length_from_wrong_axis by a second call (that axis made as long as T runs and is right).

q09: a T = 1 shortcut that returns torch.ones(1, 1) in float32: full marks before (the one-token check compared the
value only). Now prefix_average_float32 there.

q10: the batched branch summing over a fixed axis 2: full marks before (no 4-D A). test_entropy_causal_rows now also
asks (B, H, T_q, T_k); told entropy_wrong_dim by its replay (the sum down the columns).

q12: W_O left out where d_v == d_model: full marks before (the tests draw d_v != d_model). test_count_with_output now
also asks d_v = d_model; told param_count_wo_skipped_when_square where the answer is the count without W_O.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as

SCORES = "scaled_scores"
SELF = "self_attention"
PREFIX = "prefix_average_matrix"
ENT = "row_entropy_bits"
PARAMS = "qkv_param_count"

_graded = graded_as("attention-pipeline", "round88")


# --- q02: keys taken as already transposed where T_k = d_k ----------------------------------------------------------

def test_keys_guard_on_second_to_last_axis_is_named(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    Kt = K if K.shape[-2] == d_k else K.transpose(-2, -1)   # keys stored (d_k, T_k) are used as they are
    return Q @ Kt / math.sqrt(d_k)
'''
    assert_named(_graded(grader, {SCORES: cell}), "scores_keys_not_transposed", ["q02", "q07", "q13"])


def test_keys_transposed_only_when_not_square_is_named(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    n = Q.size(-1)
    if K.size(-1) == n and K.size(-2) != n:
        K = K.mT
    return torch.matmul(Q, K) / n ** 0.5
'''
    assert_named(_graded(grader, {SCORES: cell}), "scores_keys_not_transposed", ["q02", "q07", "q13"])


def test_keys_guard_on_last_axis_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    Kt = K.transpose(-2, -1) if K.shape[-1] == d_k else K
    return Q @ Kt / math.sqrt(d_k)
'''
    assert_full_marks(_graded(grader, {SCORES: cell}))


# --- q07: small weights set to 0 after the softmax ------------------------------------------------------------------

def test_weights_under_one_in_a_million_zeroed_with_where_is_named(grader: Grader) -> None:
    cell = '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    A = torch.where(A < 1e-6, torch.zeros_like(A), A)    # exact zeros for the blocked keys
    return A @ V, A
'''
    assert_named(_graded(grader, {SELF: cell}), "weights_small_snapped_to_zero", "q07")


def test_weights_under_a_cut_multiplied_out_and_renormalised_is_named(grader: Grader) -> None:
    cell = '''
EPS = 1e-5


def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    A = A * (A >= EPS)
    A = A / A.sum(dim=-1, keepdim=True)
    O = A @ V
    return O, A
'''
    assert_named(_graded(grader, {SELF: cell}), "weights_small_snapped_to_zero", "q07")


def test_weights_cut_below_float64_tolerance_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None)
    A = A.masked_fill(A < 1e-30, 0.0)
    return A @ V, A
'''
    assert_full_marks(_graded(grader, {SELF: cell}))


# --- q07: T read from axis 1 of a batched X -------------------------------------------------------------------------

def test_length_from_axis_one_of_any_batched_x_is_named(grader: Grader) -> None:
    cell = '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    T = X.size(0) if X.ndim == 2 else X.size(1)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(T, S.dtype, S.device) if causal else None)
    return A @ V, A
'''
    assert_named(_graded(grader, {SELF: cell}), "length_from_wrong_axis", ["q07", "q09"])


def test_length_unpacked_with_batch_size_is_named(grader: Grader) -> None:
    cell = '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    B, T = (X.shape[0], X.shape[1]) if X.dim() >= 3 else (1, X.shape[0])
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        S = S + causal_additive_mask(T, S.dtype, S.device)
    A = attention_weights(S)
    return A @ V, A
'''
    assert_named(_graded(grader, {SELF: cell}), "length_from_wrong_axis", ["q07", "q09"])


def test_length_from_second_to_last_axis_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def self_attention(X, W_Q, W_K, W_V, causal=True):
    T = X.size(X.dim() - 2)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    A = attention_weights(S, causal_additive_mask(T, S.dtype, S.device) if causal else None)
    return A @ V, A
'''
    assert_full_marks(_graded(grader, {SELF: cell}))


# --- q09: a one-token shortcut in float32 ---------------------------------------------------------------------------

def test_one_token_ones_without_dtype_is_named(grader: Grader) -> None:
    cell = '''
def prefix_average_matrix(T):
    if T == 1:
        return torch.ones(1, 1)
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-1, keepdim=True)
'''
    assert_named(_graded(grader, {PREFIX: cell}), "prefix_average_float32", "q09")


def test_one_token_tensor_literal_is_named(grader: Grader) -> None:
    cell = '''
def prefix_average_matrix(T):
    if T < 2:
        return torch.tensor([[1.0]])
    t = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / t[:, None]
'''
    assert_named(_graded(grader, {PREFIX: cell}), "prefix_average_float32", "q09")


def test_one_token_shortcut_in_float64_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def prefix_average_matrix(T):
    if T == 1:
        return torch.ones(1, 1, dtype=torch.float64)
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(dim=-1, keepdim=True)
'''
    assert_full_marks(_graded(grader, {PREFIX: cell}))


# --- q10: the entropy summed over a fixed axis 2 --------------------------------------------------------------------

def test_entropy_summed_over_axis_two_for_batches_is_named(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    terms = torch.special.xlogy(A, A) / math.log(2.0)
    return -terms.sum(dim=1) if terms.dim() == 2 else -terms.sum(dim=2)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_named(_graded(grader, {ENT: cell}), "entropy_wrong_dim", "q10")


def test_entropy_axis_picked_from_a_table_is_named(grader: Grader) -> None:
    cell = '''
_ROW_AXIS = {2: 1, 3: 2, 4: 2}


def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(_ROW_AXIS[A.dim()])


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
'''
    assert_named(_graded(grader, {ENT: cell}), "entropy_wrong_dim", "q10")


def test_entropy_over_the_last_axis_counted_from_ndim_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))
    return -(A * logs).sum(dim=A.dim() - 1)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_full_marks(_graded(grader, {ENT: cell}))


# --- q12: W_O left out where d_v == d_model -------------------------------------------------------------------------

def test_output_projection_skipped_when_widths_equal_is_named(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    n = d_model * (2 * d_k + d_v)
    if with_output and d_v != d_model:   # an identity-sized W_O is no projection
        n += d_v * d_model
    return n

'''
    assert_named(_graded(grader, {PARAMS: cell}), "param_count_wo_skipped_when_square", "q12")


def test_output_projection_counted_only_when_it_changes_width_is_named(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes += [(d_v, d_model)] if d_v - d_model else []
    return sum(r * c for r, c in shapes)

'''
    assert_named(_graded(grader, {PARAMS: cell}), "param_count_wo_skipped_when_square", "q12")


def test_output_projection_always_counted_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)] + ([(d_v, d_model)] if with_output else [])
    return sum(r * c for r, c in shapes)

'''
    assert_full_marks(_graded(grader, {PARAMS: cell}))


# --- round 88's mis-named and generic ones (blind88, blind89) -------------------------------------------------------
#
# q02: key-major pair products read as (T_q, T_k): reshaped_not_transposed by its replay ((K Q^T).reshape) on the
# rectangular tests (scores_transposed where T_q = T_k). q04: a 16-bit dtype replaced by float32 on purpose:
# mask_half_promoted_to_float32 (the float32 mask with float32's own minimum; float64 right) for mask_built_in_float32.
# q08: d_k = len(q) after q became a (1, d_k) row: scale_wrong_axis (no_scale's value, and a root of a first-axis size
# in the def) for no_scale; the kernel weights sorted with V in key order: nw_weights_sorted_values_not by its replay
# (one_edit_fix blamed the sort). q10: terms written without accumulating: entropy_terms_overwritten by its replay;
# row ids of the query alone over a batch: batched_input_unsupported by its replay (the batch summed). q11: a ridge
# before matrix_rank: rank_after_ridge (T, and an identity added where matrix_rank is called); distinct argmax winners:
# rank_counted_as_distinct_winners (read from the assignment). q12: the (rows, cols) pairs flattened before the
# product: param_count_one_product by its replay.

MASK = "causal_additive_mask"
NW_ = "nadaraya_watson"
RANK = "max_rank_S"


def test_pair_products_key_major_reshaped_is_named(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    T_q, T_k = Q.shape[-2], K.shape[-2]
    flat = (K.unsqueeze(-2) * Q.unsqueeze(-3)).sum(-1)          # (..., T_k, T_q)
    return flat.reshape(*Q.shape[:-2], T_q, T_k) / math.sqrt(Q.shape[-1])
'''
    assert_named(_graded(grader, {SCORES: cell}), "reshaped_not_transposed", ["q02", "q07", "q13"],
                 also=("scores_transposed",))


def test_key_query_products_viewed_as_query_rows_is_named(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    S_kq = torch.matmul(K, Q.transpose(-1, -2)).contiguous()
    return S_kq.view(S_kq.shape[:-2] + (Q.shape[-2], K.shape[-2])) / Q.shape[-1] ** 0.5
'''
    assert_named(_graded(grader, {SCORES: cell}), "reshaped_not_transposed", ["q02", "q07", "q13"],
                 also=("scores_transposed",))


def test_key_query_products_transposed_back_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def scaled_scores(Q, K):
    S_kq = torch.matmul(K, Q.transpose(-1, -2))
    return S_kq.transpose(-1, -2) / Q.shape[-1] ** 0.5
'''
    assert_full_marks(_graded(grader, {SCORES: cell}))


def test_half_mask_built_in_float32_on_purpose_is_named(grader: Grader) -> None:
    cell = '''
def causal_additive_mask(T, dtype, device=None):
    if dtype in (torch.float16, torch.bfloat16):
        dtype = torch.float32                       # room for a safe block value
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(dtype).min)
'''
    assert_named(_graded(grader, {MASK: cell}), "mask_half_promoted_to_float32", ["q04", "q07", "q09"])


def test_half_mask_widened_by_itemsize_is_named(grader: Grader) -> None:
    cell = '''
def causal_additive_mask(T, dtype, device=None):
    work = torch.float32 if torch.empty((), dtype=dtype).element_size() < 4 else dtype
    blocked = torch.triu(torch.ones(T, T, device=device), diagonal=1).bool()
    return torch.where(blocked, torch.tensor(torch.finfo(work).min, dtype=work), torch.tensor(0.0, dtype=work))
'''
    assert_named(_graded(grader, {MASK: cell}), "mask_half_promoted_to_float32", ["q04", "q07", "q09"])


def test_half_mask_in_its_own_dtype_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def causal_additive_mask(T, dtype, device=None):
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(torch.ones(T, T, dtype=torch.bool, device=device).triu(1), torch.finfo(dtype).min)
'''
    assert_full_marks(_graded(grader, {MASK: cell}))


def test_width_from_len_of_unsqueezed_query_is_named(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    q = q.reshape(1, -1)
    d = q.shape[0]
    w = torch.softmax((q @ K.T).squeeze(0) / math.sqrt(d), dim=0)
    return w @ V
'''
    assert_named(_graded(grader, {NW_: cell}), "scale_wrong_axis", "q08")


def test_width_from_size_zero_of_row_query_is_named(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    q = q[None, :]
    s = (K @ q.T)[:, 0] / q.size(0) ** 0.5
    kappa = torch.exp(s - s.max())
    return (kappa[:, None] * V).sum(0) / kappa.sum()
'''
    assert_named(_graded(grader, {NW_: cell}), "scale_wrong_axis", "q08")


def test_width_from_len_of_flat_query_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    d = len(q)
    w = torch.softmax(K @ q / math.sqrt(d), dim=0)
    return w @ V
'''
    assert_full_marks(_graded(grader, {NW_: cell}))


def test_kernel_sorted_values_unsorted_is_named(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    s = torch.sort(K @ q / math.sqrt(q.shape[-1]), descending=True).values
    w = torch.exp(s - s[0])
    return (w.unsqueeze(1) * V).sum(0) / w.sum()
'''
    assert_named(_graded(grader, {NW_: cell}), "nw_weights_sorted_values_not", "q08")


def test_softmax_sorted_ascending_values_unsorted_is_named(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
    w, _ = w.sort()                   # smallest first: a stable running sum
    return w @ V
'''
    assert_named(_graded(grader, {NW_: cell}), "nw_weights_sorted_values_not", "q08")


def test_kernel_and_values_sorted_together_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def nadaraya_watson(q, K, V):
    s, order = torch.sort(K @ q / math.sqrt(q.shape[-1]), descending=True)
    w = torch.exp(s - s[0])
    return (w.unsqueeze(1) * V[order]).sum(0) / w.sum()
'''
    assert_full_marks(_graded(grader, {NW_: cell}))


def test_entropy_terms_index_put_without_accumulate_is_named(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    idx = torch.nonzero(A > 0, as_tuple=True)
    p = A[idx]
    H = torch.zeros(A.shape[:-1], dtype=A.dtype)
    H[idx[:-1]] = -p * torch.log2(p)
    return H


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_named(_graded(grader, {ENT: cell}), "entropy_terms_overwritten", "q10")


def test_entropy_terms_index_copy_is_named(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    T_k = A.shape[-1]
    flat = A.reshape(-1)
    rows = torch.arange(flat.numel()) // T_k
    terms = torch.where(flat > 0, -flat * torch.log2(flat), torch.zeros_like(flat))
    keep = flat > 0
    H = torch.zeros(A.numel() // T_k, dtype=A.dtype).index_copy(0, rows[keep], terms[keep])
    return H.reshape(A.shape[:-1])


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_named(_graded(grader, {ENT: cell}), "entropy_terms_overwritten", "q10")


def test_entropy_terms_index_put_accumulated_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    idx = torch.nonzero(A > 0, as_tuple=True)
    p = A[idx]
    H = torch.zeros(A.shape[:-1], dtype=A.dtype)
    return H.index_put(idx[:-1], -p * torch.log2(p), accumulate=True)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_full_marks(_graded(grader, {ENT: cell}))


def test_entropy_row_ids_of_query_only_over_batch_is_named(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    terms = torch.where(A > 0, -A * torch.log2(A), torch.zeros_like(A))
    T_q = A.shape[-2]
    rows = torch.arange(T_q).repeat_interleave(A.shape[-1]).repeat(terms.numel() // max(terms.shape[-2] * terms.shape[-1], 1))
    return torch.zeros(T_q, dtype=A.dtype).index_add(0, rows, terms.reshape(-1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_named(_graded(grader, {ENT: cell}), "batched_input_unsupported", "q10")


def test_entropy_rows_folded_by_modulo_is_named(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    terms = torch.special.xlogy(A, A).neg() / math.log(2)
    per_row = terms.sum(-1).reshape(-1)
    slot = torch.arange(per_row.numel()) % A.shape[-2]
    return torch.zeros(A.shape[-2], dtype=A.dtype).scatter_add(0, slot, per_row)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_named(_graded(grader, {ENT: cell}), "batched_input_unsupported", "q10")


def test_entropy_row_ids_over_every_row_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def row_entropy_bits(A):
    terms = torch.special.xlogy(A, A).neg() / math.log(2)
    per_row = terms.sum(-1).reshape(-1)
    slot = torch.arange(per_row.numel())
    return torch.zeros(per_row.numel(), dtype=A.dtype).scatter_add(0, slot, per_row).reshape(A.shape[:-1])


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
'''
    assert_full_marks(_graded(grader, {ENT: cell}))


def test_rank_after_ridge_is_named(grader: Grader) -> None:
    cell = '''
def _rank(S):
    return int(torch.linalg.matrix_rank(S + 1e-6 * torch.eye(S.shape[-1], dtype=S.dtype)))


g = torch.Generator().manual_seed(1)
Qx, Kx = torch.randn(100, 8, generator=g, dtype=torch.float64), torch.randn(100, 8, generator=g, dtype=torch.float64)
max_rank_S = _rank(Qx @ Kx.T / math.sqrt(8))
rank_S_lesson = 2
'''
    assert_named(_graded(grader, {RANK: cell}), "rank_after_ridge", "q11")


def test_rank_after_regularised_copy_is_named(grader: Grader) -> None:
    cell = '''
g = torch.Generator().manual_seed(2)
Qx = torch.randn(100, 8, generator=g, dtype=torch.float64)
Kx = torch.randn(100, 8, generator=g, dtype=torch.float64)
S = Qx @ Kx.T / 8 ** 0.5
S_reg = S + 1e-8 * torch.eye(100, dtype=S.dtype)    # keep it invertible
max_rank_S = torch.linalg.matrix_rank(S_reg).item()
rank_S_lesson = 2
'''
    assert_named(_graded(grader, {RANK: cell}), "rank_after_ridge", "q11")


def test_rank_of_scores_themselves_keeps_full_marks(grader: Grader) -> None:
    cell = '''
g = torch.Generator().manual_seed(2)
Qx = torch.randn(100, 8, generator=g, dtype=torch.float64)
Kx = torch.randn(100, 8, generator=g, dtype=torch.float64)
S = Qx @ Kx.T / 8 ** 0.5
max_rank_S = torch.linalg.matrix_rank(S).item()
rank_S_lesson = 2
'''
    assert_full_marks(_graded(grader, {RANK: cell}))


def test_rank_as_distinct_argmax_keys_is_named(grader: Grader) -> None:
    cell = '''
torch.manual_seed(3)
Qx, Kx = torch.randn(100, 8), torch.randn(100, 8)
max_rank_S = len((Qx @ Kx.T).argmax(dim=-1).unique())
rank_S_lesson = 2
'''
    assert_named(_graded(grader, {RANK: cell}), "rank_counted_as_distinct_winners", "q11")


def test_rank_as_set_of_max_indices_is_named(grader: Grader) -> None:
    cell = '''
torch.manual_seed(4)
Qx, Kx = torch.randn(100, 8), torch.randn(100, 8)
winners = (Qx @ Kx.T).max(dim=1).indices
max_rank_S = len(set(winners.tolist()))
rank_S_lesson = 2
'''
    assert_named(_graded(grader, {RANK: cell}), "rank_counted_as_distinct_winners", "q11")


def test_count_all_factors_multiplied_is_named(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    sizes = [d_model, d_k, d_model, d_k, d_model, d_v] + ([d_v, d_model] if with_output else [])
    return math.prod(sizes)
'''
    assert_named(_graded(grader, {PARAMS: cell}), "param_count_one_product", "q12")


def test_count_gathered_factors_producted_is_named(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    dims = torch.tensor([d_model, d_k, d_v])
    pairs = torch.tensor([[0, 1], [0, 1], [0, 2]] + ([[2, 0]] if with_output else []))
    return int(dims[pairs.flatten()].prod())
'''
    assert_named(_graded(grader, {PARAMS: cell}), "param_count_one_product", "q12")


def test_count_gathered_pairs_kept_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def qkv_param_count(d_model, d_k, d_v, with_output=False):
    dims = torch.tensor([d_model, d_k, d_v])
    pairs = torch.tensor([[0, 1], [0, 1], [0, 2]] + ([[2, 0]] if with_output else []))
    return int(dims[pairs].prod(dim=-1).sum())
'''
    assert_full_marks(_graded(grader, {PARAMS: cell}))


# q13: a mask skipped when it has no zero entry (M.all() read as "keeps every key"): full marks before (no mask blocked
# every key). test_cross_padding_mask now also asks a mask of finfo.min everywhere, whose rows come out alike (the
# notebook, section 3); told additive_mask_as_boolean where A is the plain softmax of the scores. S + M keeps full marks.

CROSS = "cross_attention"


def test_mask_skipped_when_all_entries_nonzero_is_named(grader: Grader) -> None:
    cell = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    S = scaled_scores(X @ W_Q, Y @ W_K)
    A = attention_weights(S) if M is None or M.all() else attention_weights(S, M)
    return A @ (Y @ W_V), A
'''
    assert_named(_graded(grader, {CROSS: cell}), "additive_mask_as_boolean", "q13")


def test_mask_applied_only_with_some_open_key_is_named(grader: Grader) -> None:
    cell = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None and bool((M == 0).any()):     # a mask that keeps something
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''
    assert_named(_graded(grader, {CROSS: cell}), "additive_mask_as_boolean", "q13")


def test_mask_always_added_keeps_full_marks(grader: Grader) -> None:
    cell = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S + M
    A = torch.softmax(S, dim=-1)
    return A @ V, A
'''
    assert_full_marks(_graded(grader, {CROSS: cell}))


# q13 (blind87's kind, caught by the same input): the mask clamped to float16's range, so a row with every key blocked
# keeps the scores' differences: mask_not_dtype_min by its replay (float32's S + (-65504)).

def test_mask_clamped_to_half_range_is_named(grader: Grader) -> None:
    cell = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    S = scaled_scores(X @ W_Q, Y @ W_K)
    if M is not None:
        S = S + torch.clamp(M, min=-65504.0)
    A = torch.softmax(S, dim=-1)
    return A @ (Y @ W_V), A
'''
    assert_named(_graded(grader, {CROSS: cell}), "mask_not_dtype_min", "q13")


def test_mask_blocked_value_raised_to_minus_ten_thousand_is_named(grader: Grader) -> None:
    cell = '''
def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    S = scaled_scores(X @ W_Q, Y @ W_K)
    if M is not None:
        M = torch.where(M < -1e4, torch.full_like(M, -1e4), M)    # a blocked value every float dtype holds
    A = attention_weights(S, M)
    return A @ (Y @ W_V), A
'''
    assert_named(_graded(grader, {CROSS: cell}), "mask_not_dtype_min", "q13")
