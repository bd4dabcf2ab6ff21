"""Blind held-out set 89 for attention-pipeline.

Eighty-ninth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind87.py (for the format and the docstring only), and only the variant names of the earlier
blind sets (to avoid repeating a mistake in the same form).

Round 89's angle: SELECTION, INDEXING AND SPARSE FORMULATIONS. Each wrong cell comes from a student who thinks
in terms of which entries are kept and computes with index tensors (repeat / repeat_interleave pair lists,
meshgrid grids, gather, triu_indices / tril_indices, bincount, sort orders, nonzero tuples, index_put_,
scatter_add), and the one slip is one that such a formulation invites: the (query, key) pair vectors built
key-major and reshaped query-major, so the scores come out transposed or scrambled (q02); the number of kept
weights (nonzero entries) compared with and without the scale instead of the entropy, which finds 8 of 8 both
times and answers "nothing changes" (q03); the position grid built with meshgrid's indexing="xy", which swaps
the query and key coordinates and blocks the past instead of the future (q04); the row maximum for the stable
softmax gathered along the query axis (gather(-2, ...)) instead of the key axis, which shifts by some other
score, overflows on large logits and reads out of range when T_k > T_q (q05); triu_indices called without
offset=1 in self-attention, so the diagonal is blocked too and the first row is fully blocked (q07); the
kernel weights sorted for a stable shift but the values left in key order, so each weight multiplies the
wrong value (q08); the per-row counts taken with bincount of the COLUMN indices, giving 1/(T - t) instead of
1/(t + 1) (q09); entropy terms written with index_put_ without accumulate=True, so each row keeps one term
instead of their sum (q10); the flat row ids of a scatter_add built per query only, so the batch is summed into
one set of T_q slots (q10); the rank bound counted as the number of distinct keys that win a row (argmax then
unique) in a T = 100 trial (q11); the (rows, columns) index pairs of the weight shapes flattened before the
product, so one product of all six (or eight) factors is returned (q12); the positions of the mask's nonzero
entries taken from the 2-D mask and used on the batched scores, so the indices address the batch and query
axes (q13); the score grid built with meshgrid(..., indexing="xy"), whose shape (T', T) is read as the shape
of S, answering c (q14); the score count read from `nonzero().shape[-1]` (the 2 coordinates, as if nonzero
returned (2, n) like triu_indices) so the count does not grow and the answer is b (q16). Questions 1, 6 and 15
carry no variant: a projection keeps every entry, and the two conceptual choices have no indexing reading that
earlier sets have not already taken (square-only masks, broadcast errors, the rectangular tril).

Public material found with the `search` tool, and what it showed:
- numpy/numpy issue #16844 ("np.meshgrid documentation - warn about the indexing='xy' default": the grid's
  first two axes come out swapped, "I have been bitten by this default behavior many times"), and the torch
  side in bennyguo/instant-nsr-pl pull #49 and pytorch/vision pull #4645 (torch and numpy default to
  different indexings, a warning now asks for it explicitly): grounded the two meshgrid slips (q04, q14).
- pytorch/pytorch issue #31776 and #27080 (scatter_ vs scatter_add_: with repeated indices scatter keeps one
  value, scatter_add accumulates them) and pytorch/pytorch pull #143116 (index_put_ with accumulate=False is
  undefined on duplicate indices): the index_put_ without accumulate (q10) and the scatter_add whose ids
  collide across the batch (q10).
- lxtGH/OMG-Seg issue #24 (`attention_mask[:i] = True` where `attention_mask[:, :i]` was meant: an index
  applied to the batch axis instead of the key axis; fixing it improved results) and sooftware/attentions
  issue #4 (a mask not permuted along with the queries and keys): indices built for one layout used on a tensor
  with another (q13 nonzero of the 2-D mask on batched scores, q05 gather along the query axis, q08 a sort
  order applied to the weights but not the values).
- stelzner/monet issue #1 (a mask built N x W x H compared with one built N x H x W, i.e. transposed): pair
  and grid orders swapped (q02 key-major pairs reshaped query-major, q09 counts from the other index tensor).
- The counting slips (nonzero weights instead of entropy, distinct argmax winners for a rank, the nonzero
  shape's wrong axis) follow the brief's "counts only the kept entries or the index tensors' sizes"; no single
  public thread was used for them.

The correct variants use the same formulations right: pair vectors built query-major, meshgrid with
indexing="ij", the row maximum gathered along the key axis (in float32 for half inputs), triu_indices with
offset=1, tril_indices with bincount of the row indices, a kernel sort order applied to the values too,
index_put_ with accumulate=True, scatter_add over (batch, query) row ids, index pairs kept as rows before the
product, nonzero positions of the mask broadcast to the scores' shape first, torch.where index tuples, a fused
projection picked apart with index_select on the last axis, and answer cells computed from trials sized like
the questions (d_k = 512 row entropies, T = 100 rank trial, nonzero().shape[0] score counts).

Every variant was checked with a throwaway script under /tmp/w89-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's) in one namespace, then
every function and answer compared with full_marks.ipynb's on unbatched, 3-D and 4-D inputs, T_q != T_k,
d_k != d_v != d_model, float64, float32 and float16, 2-D and batched random masks, fully masked rows, large
logits, zero projections, and gradients (float64) of every differentiable function; each wrong variant
differs only in the questions of its "where", and every correct variant agrees everywhere, with one
exception left out of the comparison: in float16 with large scores full_marks' unshifted kernel (q08)
overflows to NaN, where the sorted, shifted kernel of the correct variant gives the finite average.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

PROJ = "project_qkv"
SCORES = "scaled_scores"
SCALE_ANS = "ans_scale"
MASK = "causal_additive_mask"
WEIGHTS = "attention_weights"
MASK_ANS = "ans_mask"
SELF = "self_attention"
NW = "nadaraya_watson"
AVG = "prefix_average_matrix"
ENT = "row_entropy_bits"         # the q10 cell (also defines effective_tokens)
RANK = "max_rank_S"              # the q11 cell (also defines rank_S_lesson)
PARAMS = "qkv_param_count"
CROSS = "cross_attention"
SHAPES_ANS = "ans_cross_shapes"
CAUSAL_ANS = "ans_cross_causal"
COST_ANS = "ans_complexity"

CORRECT = {
    # every (query, key) pair as two index vectors, a meshgrid in matrix indexing, a gathered row maximum,
    # and the prefix weights written at tril_indices with per-row counts
    "pair_vectors_ij_grid_gathered_max_and_bincount_rows": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q, T_k = Q.shape[-2], K.shape[-2]
    # every (query, key) pair, query-major: pair n = i * T_k + j is (query i, key j)
    qi = torch.arange(T_q, device=Q.device).repeat_interleave(T_k)
    ki = torch.arange(T_k, device=Q.device).repeat(T_q)
    S = torch.einsum("...nd,...nd->...n", Q[..., qi, :], K[..., ki, :])
    return S.reshape(*S.shape[:-1], T_q, T_k) / math.sqrt(d_k)''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    qpos, kpos = torch.meshgrid(pos, pos, indexing="ij")   # qpos[t, i] = t, kpos[t, i] = i
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[kpos > qpos] = torch.finfo(dtype).min
    return M''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    acc = torch.promote_types(S.dtype, torch.float32)
    Z = S.to(acc)
    top = Z.argmax(dim=-1, keepdim=True)             # the winning key of each row
    e = torch.exp(Z - Z.gather(-1, top))             # shift by the row maximum, read along the key axis
    return (e / e.sum(dim=-1, keepdim=True)).to(S.dtype)''',
        AVG: '''def prefix_average_matrix(T):
    r, c = torch.tril_indices(T, T)                   # the kept (row, column) pairs
    counts = torch.bincount(r, minlength=T)           # row t keeps t + 1 entries
    W = torch.zeros(T, T, dtype=torch.float64)
    W[r, c] = 1.0 / counts[r].to(torch.float64)
    return W''',
    },
    # a kernel sorted for its shift with the values permuted alike, accumulated index_put_, index pairs
    # kept as rows, and mask positions taken after broadcasting the mask to the scores
    "sorted_kernel_accumulated_entropy_pair_rows_and_broadcast_mask_positions": {
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    s, order = s.sort(descending=True)                # s[0] is the largest score: a safe shift
    kappa = torch.exp(s - s[0])
    return (kappa[:, None] * V[order]).sum(dim=0) / kappa.sum()''',
        ENT: '''def row_entropy_bits(A):
    idx = torch.nonzero(A > 0, as_tuple=True)         # only the kept entries: 0 log 0 is skipped
    p = A[idx]
    H = torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)
    return H.index_put(idx[:-1], -p * torch.log2(p), accumulate=True)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    dims = torch.tensor([d_model, d_k, d_v])
    pairs = [[0, 1], [0, 1], [0, 2]]                  # W_Q, W_K, W_V as (rows, cols) indices into dims
    if with_output:
        pairs.append([2, 0])                          # W_O: d_v x d_model
    idx = torch.tensor(pairs)
    factors = dims.index_select(0, idx.reshape(-1)).reshape(idx.shape)
    return int(factors.prod(dim=-1).sum())''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S, Mb = torch.broadcast_tensors(S.to(torch.promote_types(S.dtype, M.dtype)), M)
        S = S.clone()
        idx = Mb.nonzero(as_tuple=True)               # only the entries the mask changes
        S[idx] = S[idx] + Mb[idx]
    A = attention_weights(S)
    return A @ V, A''',
    },
    # the future filled at triu_indices(offset=1), and answers from index-style trials done right
    "triu_indices_fill_and_index_trials": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = X.shape[-2]
        r, c = torch.triu_indices(T, T, offset=1, device=S.device)   # strictly above the diagonal
        S = S.clone()
        S[..., r, c] = torch.finfo(S.dtype).min
    A = attention_weights(S)
    return A @ V, A''',
        SCALE_ANS: '''# trial at the question's size: 8 keys, d_k = 512, entropy of each row with and without the scale
torch.manual_seed(0)
_q = torch.randn(64, 512, dtype=torch.float64)
_k = torch.randn(8, 512, dtype=torch.float64)
_s = _q @ _k.T


def _row_bits(P):
    return -(P * torch.log2(P.clamp_min(1e-300))).sum(dim=-1)


_h_scaled = _row_bits(torch.softmax(_s / math.sqrt(512), dim=-1)).mean()
_h_raw = _row_bits(torch.softmax(_s, dim=-1)).mean()
ans_scale = "b" if _h_raw < 0.5 * _h_scaled else "c"''',
        RANK: '''# trial at the question's size: T = 100 tokens, d_k = 8
torch.manual_seed(0)
_Qr = torch.randn(100, 8, dtype=torch.float64)
_Kr = torch.randn(100, 8, dtype=torch.float64)
max_rank_S = int(torch.linalg.matrix_rank(_Qr @ _Kr.T / math.sqrt(8)))

rank_S_lesson = 2''',
        SHAPES_ANS: '''# index the scores by a grid of (query, key) positions: T = 3 queries, T' = 5 keys
_qi, _ki = torch.meshgrid(torch.arange(3), torch.arange(5), indexing="ij")
_S_shape = tuple(_qi.shape)                          # one score per (query, key): (T, T')
ans_cross_shapes = {(3, 5): "b", (5, 3): "c"}[_S_shape]''',
        COST_ANS: '''# count the scores as the (query, key) positions of a full score matrix, at T and 2T
def _n_scores(T, d_k=64):
    return torch.ones(T, T).nonzero().shape[0]       # nonzero() is (n, 2): n positions


_ratio = _n_scores(256) / _n_scores(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]''',
    },
    # torch.where index tuples for the mask, and one fused projection picked apart by column indices
    "where_tuples_and_fused_columns_by_index_select": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    P = X @ torch.cat([W_Q, W_K, W_V], dim=-1)        # one matmul for the three maps
    cols = torch.arange(2 * d_k + d_v, device=P.device)
    return (P.index_select(-1, cols[:d_k]),
            P.index_select(-1, cols[d_k:2 * d_k]),
            P.index_select(-1, cols[2 * d_k:]))''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
    r, c = torch.where(future)                        # (rows, cols) of the blocked entries
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[r, c] = torch.finfo(dtype).min
    return M''',
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A > 0, -A * torch.log2(A), torch.zeros_like(A))
    T_k = A.shape[-1]
    n_rows = terms.numel() // max(T_k, 1)
    # one flat row id per (batch, query) row, repeated over its keys, then one scatter_add
    rows = torch.arange(n_rows, device=A.device).repeat_interleave(T_k)
    H = torch.zeros(n_rows, dtype=A.dtype, device=A.device).scatter_add(0, rows, terms.reshape(-1))
    return H.reshape(A.shape[:-1])


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
    },
}

WRONG = {
    "q02_pair_vectors_built_key_major_reshaped_query_major": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    T_q, T_k = Q.shape[-2], K.shape[-2]
    # every (query, key) pair as two index vectors
    qi = torch.arange(T_q, device=Q.device).repeat(T_k)
    ki = torch.arange(T_k, device=Q.device).repeat_interleave(T_q)
    S = torch.einsum("...nd,...nd->...n", Q[..., qi, :], K[..., ki, :])
    return S.reshape(*S.shape[:-1], T_q, T_k) / math.sqrt(d_k)''',
    }, {"mistake": "The pair vectors are built key-major (query index repeated, key index repeat_interleaved), so pair "
                   "n is (query n mod T_q, key n div T_q), but the flat scores are reshaped query-major into "
                   "(T_q, T_k). With T_q = T_k the score matrix comes out transposed (S[t, i] = q_i . k_t); with "
                   "T_q != T_k the scores are scrambled across rows.",
        "where": ["q02", "q07", "q13"]}),

    "q03_kept_weights_counted_with_nonzero_answers_nothing_changes": ({
        SCALE_ANS: '''# trial at the question's size: 8 keys, d_k = 512; how many keys does a row keep with and without the scale?
torch.manual_seed(0)
_q = torch.randn(1, 512, dtype=torch.float64)
_k = torch.randn(8, 512, dtype=torch.float64)
_kept_scaled = torch.nonzero(torch.softmax(_q @ _k.T / math.sqrt(512), dim=-1)).shape[0]
_kept_raw = torch.nonzero(torch.softmax(_q @ _k.T, dim=-1)).shape[0]
ans_scale = "c" if _kept_raw == _kept_scaled else "b"''',
    }, {"mistake": "The trial counts the keys a row keeps (nonzero weights) instead of measuring how the weight is "
                   "spread. A softmax weight is never exactly zero, so both rows keep all 8 keys and the answer is "
                   "c ('nothing changes'); without the scale nearly all the weight sits on one key and the entropy "
                   "falls toward 0 (b).",
        "where": ["q03"]}),

    "q04_position_grid_from_meshgrid_xy_blocks_the_past": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    pos = torch.arange(T, device=device)
    qpos, kpos = torch.meshgrid(pos, pos, indexing="xy")
    M = torch.zeros(T, T, dtype=dtype, device=device)
    M[kpos > qpos] = torch.finfo(dtype).min
    return M''',
    }, {"mistake": "meshgrid with indexing='xy' puts the first vector along the columns, so 'qpos' holds the key "
                   "index and 'kpos' the query index. 'kpos > qpos' then marks the entries strictly BELOW the "
                   "diagonal: the mask blocks the past and leaves the future open (the transpose of the causal "
                   "mask), and causal self-attention reads ahead.",
        "where": ["q04", "q07", "q09"]}),

    "q05_row_maximum_gathered_along_the_query_axis": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    acc = torch.promote_types(S.dtype, torch.float32)
    Z = S.to(acc)
    top = Z.argmax(dim=-1, keepdim=True)             # the winning key of each row
    e = torch.exp(Z - Z.gather(-2, top))
    return (e / e.sum(dim=-1, keepdim=True)).to(S.dtype)''',
    }, {"mistake": "The stabilising shift is gathered along dim -2 (the query axis) with the key indices from "
                   "argmax, so row t is shifted by S[argmax_t, 0], some score from column 0, not by its own maximum. "
                   "Large scores then overflow exp to inf and the row becomes NaN (a blocked column 0 gives a shift "
                   "of finfo.min), and when T_k > T_q the gather reads a query row that does not exist and raises.",
        "where": ["q05", "q07", "q13"]}),

    "q07_triu_indices_without_offset_blocks_the_diagonal": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    if causal:
        T = X.shape[-2]
        r, c = torch.triu_indices(T, T, device=S.device)   # the future: above the diagonal
        S = S.clone()
        S[..., r, c] = torch.finfo(S.dtype).min
    A = attention_weights(S)
    return A @ V, A''',
    }, {"mistake": "torch.triu_indices defaults to offset=0, which includes the diagonal, so every token is also "
                   "blocked from its own key. Row 1 has every key blocked and comes out uniform over all T keys "
                   "(including the future), and every other row is spread over the strictly earlier tokens only; "
                   "the zero-projection case no longer gives the prefix-average matrix.",
        "where": ["q07", "q09"]}),

    "q08_kernel_sorted_but_values_left_in_key_order": ({
        NW: '''def nadaraya_watson(q, K, V):
    s = K @ q / math.sqrt(q.shape[-1])
    s, order = s.sort(descending=True)                # s[0] is the largest score: a safe shift
    kappa = torch.exp(s - s[0])
    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()''',
    }, {"mistake": "The scores are sorted (largest first) to get a safe shift, but the sort order is applied only to "
                   "the kernel weights, not to the values: the largest weight multiplies V[0], the next V[1], and so "
                   "on, so the average mixes the wrong value rows whenever the keys are not already in score order.",
        "where": ["q08"]}),

    "q09_row_counts_from_bincount_of_column_indices": ({
        AVG: '''def prefix_average_matrix(T):
    r, c = torch.tril_indices(T, T)                   # the kept (row, column) pairs
    counts = torch.bincount(c, minlength=T)           # how many entries each row keeps
    W = torch.zeros(T, T, dtype=torch.float64)
    W[r, c] = 1.0 / counts[r].to(torch.float64)
    return W''',
    }, {"mistake": "The counts come from bincount of the COLUMN indices (column j of the lower triangle holds T - j "
                   "entries) but are looked up by row, so row t (from 0) holds 1/(T - t) instead of 1/(t + 1): the "
                   "first row holds 1/T instead of 1, the last row holds 1 in every column, and the rows no longer "
                   "sum to 1 (row t sums to (t + 1)/(T - t)).",
        "where": ["q09"]}),

    "q10_entropy_terms_written_with_index_put_without_accumulate": ({
        ENT: '''def row_entropy_bits(A):
    idx = torch.nonzero(A > 0, as_tuple=True)         # only the kept entries: 0 log 0 is skipped
    p = A[idx]
    H = torch.zeros(A.shape[:-1], dtype=A.dtype, device=A.device)
    return H.index_put(idx[:-1], -p * torch.log2(p))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
    }, {"mistake": "index_put without accumulate=True writes each row's terms to the same slot, one over another, so "
                   "each row keeps a single -p log2 p term (whichever is written last) instead of their sum: the "
                   "entropy is too small for every row with more than one nonzero weight, and so is effective_tokens.",
        "where": ["q10"]}),

    "q10_scatter_add_row_ids_per_query_sum_over_the_batch": ({
        ENT: '''def row_entropy_bits(A):
    terms = torch.where(A > 0, -A * torch.log2(A), torch.zeros_like(A))
    T_q, T_k = A.shape[-2], A.shape[-1]
    # one row id per entry, then one scatter_add over the flattened entries
    rows = torch.arange(T_q, device=A.device).repeat_interleave(T_k)
    rows = rows.repeat(terms.numel() // max(T_q * T_k, 1))
    return torch.zeros(T_q, dtype=A.dtype, device=A.device).scatter_add(0, rows, terms.reshape(-1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)''',
    }, {"mistake": "The flat row ids are the query index only, repeated for every batch element, so the scatter_add "
                   "puts row t of every sequence in the batch into the same slot: for batched weights the result has "
                   "shape (T_q,) and holds the entropies summed over the batch, not one entropy per row of each "
                   "sequence (unbatched input is right).",
        "where": ["q10"]}),

    "q11_rank_counted_as_distinct_winning_keys": ({
        RANK: '''# trial at the question's size: T = 100 tokens, d_k = 8; each distinct key that wins some query's row
# (its argmax) is one question the head can ask
torch.manual_seed(0)
_Qr = torch.randn(100, 8, dtype=torch.float64)
_Kr = torch.randn(100, 8, dtype=torch.float64)
max_rank_S = int((_Qr @ _Kr.T / math.sqrt(8)).argmax(dim=-1).unique().numel())

rank_S_lesson = 2''',
    }, {"mistake": "max_rank_S counts the distinct keys that are some row's argmax in a random trial instead of the "
                   "rank of S. That number is neither a bound nor 8: the rank of QK^T is at most d_k = 8 whatever T "
                   "is, while the count of winning keys depends on the draw and far exceeds 8 (35 with this seed).",
        "where": ["q11"]}),

    "q12_index_pairs_flattened_before_the_product": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    dims = torch.tensor([d_model, d_k, d_v])
    pairs = [[0, 1], [0, 1], [0, 2]]                  # W_Q, W_K, W_V as (rows, cols) indices into dims
    if with_output:
        pairs.append([2, 0])                          # W_O: d_v x d_model
    idx = torch.tensor(pairs)
    factors = dims.index_select(0, idx.reshape(-1))   # one gather for every factor
    return int(factors.prod(dim=-1).sum())''',
    }, {"mistake": "The (rows, cols) index pairs are flattened for one index_select and never reshaped back, so "
                   "prod(dim=-1) multiplies all the factors together: the result is d_model^3 d_k^2 d_v (times d_v "
                   "d_model with W_O) instead of the sum of the matrices' sizes d_model(2 d_k + d_v) (+ d_v d_model).",
        "where": ["q12"]}),

    "q13_mask_positions_from_nonzero_of_the_unbroadcast_mask": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = scaled_scores(Q, K)
    if M is not None:
        S = S.to(torch.promote_types(S.dtype, M.dtype)).clone()
        idx = M.nonzero(as_tuple=True)                # only the entries the mask changes
        S[idx] = S[idx] + M[idx]
    A = attention_weights(S)
    return A @ V, A''',
    }, {"mistake": "The positions of the blocked entries are taken from the mask as given, (T, T'), and used to index "
                   "the scores. For unbatched inputs that is right, but with a batch axis the (row, column) index "
                   "pair addresses the leading (batch and query) axes of S: whole score rows of the wrong sequences "
                   "get the mask value (or the index is out of range), and the real blocked keys stay open.",
        "where": ["q13"]}),

    "q14_score_grid_from_meshgrid_xy_answers_c": ({
        SHAPES_ANS: '''# index the scores by a grid of (query, key) positions: T = 3 queries, T' = 5 keys
_qi, _ki = torch.meshgrid(torch.arange(3), torch.arange(5), indexing="xy")
_S_shape = tuple(_qi.shape)                          # one score per (query, key)
ans_cross_shapes = {(3, 5): "b", (5, 3): "c"}[_S_shape]''',
    }, {"mistake": "The shape of S is read off a meshgrid built with indexing='xy', whose grids are (T', T): the "
                   "student concludes S is T' x T and picks c. S = QK^T has one row per query and one column per key, "
                   "T x T', and O = AV is T x d_v: answer b.",
        "where": ["q14"]}),

    "q16_score_count_read_from_nonzero_last_axis_answers_b": ({
        COST_ANS: '''# count the scores as the (query, key) positions of a full score matrix, at T and 2T
def _n_scores(T, d_k=64):
    return torch.ones(T, T).nonzero().shape[-1]      # positions listed like triu_indices: (2, n)


_ratio = _n_scores(256) / _n_scores(128)
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_ratio)]''',
    }, {"mistake": "nonzero() returns an (n, 2) tensor, not (2, n) like triu_indices, so shape[-1] is the 2 "
                   "coordinates of a position, not the number of scores. The 'count' is 2 at every length, the ratio "
                   "is 1 and the answer b ('not at all'); there are T^2 scores of d_k multiply-adds each, so doubling "
                   "T quadruples the work (c).",
        "where": ["q16"]}),
}
