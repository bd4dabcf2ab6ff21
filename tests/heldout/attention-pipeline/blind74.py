"""Blind held-out set 74 for attention-pipeline.

Seventy-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind73.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 74's angle: NUMPY HABITS. The student learned array programming in NumPy and writes torch as if it
were NumPy. Each wrong variant has one such slip in otherwise careful code: the column-vector convention
`(W.T @ X.T).T`, where `.T` reverses ALL axes of a batched X (q01); the head size read as `len(Q[0])`, which is
d_k for a 2-D Q but the number of queries once a batch axis leads (q02); a row maximum taken without
keepdim, so it broadcasts along the key axis instead of back over each row (q05); the mask sized with
`len(X)`, the batch size of a batched input (q07); a mask buffer made with `torch.zeros(T, T)` and no dtype,
as np.zeros would give float64 but torch gives float32, so float16 gets a float32 mask and float64's finfo.min cannot even be stored (q04); the values transposed to broadcast the kernel and
then summed over axis 0, now the token axis of nothing (q08); the prefix average divided by `W.sum(axis=0)`
(column sums, and without keepdims they broadcast along columns) (q09); np.log2 with an `out=np.zeros(...)`
buffer, float64 by NumPy's default, turned back with torch.from_numpy (q10); the rank read as the number of
singular values, `len(np.linalg.svd(S)[1])` (q11); a table of weight shapes reduced with `.prod(0)` (down the
column, NumPy's axis=0) instead of per row (q12); the cross-attention mask passed through
`np.asarray(M, dtype=float)`, which is float64 and promotes the output (q13). The written answers carry
NumPy-flavoured wrong reasoning: keys drawn with torch.rand (np.random.rand's uniform [0,1)) so all unscaled
scores sit near the same mean, read as "flatter" (q03 a); column sums checked with `sum(axis=0)` on the
unmasked and masked A, read as the mask being what normalises the rows (q06 a); the score matrix laid out as
`np.dot(K, Q.T)`, keys down the rows like a data matrix (q14 c).

Public material found with the `search` tool, and what it showed:
- pytorch/pytorch#31042, #5616 and #2609, CUNY-CL/yoyodyne#285 (torch.max(x, dim) returns a (values, indices)
  pair, indexed with [0] / [1] by NumPy users; keepdim and the reduced shape): why the correct variants take
  `.values` from the pair with keepdim=True.
- pytorch/pytorch#64180, braindecode/braindecode#446, ML4GW/ml4gw#147, tud-amr/mppi-isaac#57 (`x.T` on a tensor
  that is not 2-D reverses all its axes, NumPy's meaning, now deprecated in favour of `.mT`), and
  pytorch/pytorch#153785 (NumPy and torch transpose read differently): the q01 slip, and `.mT` in the correct
  variants.
- A Stack Overflow answer on porting a NumPy softmax to PyTorch (questions/50170011) and a post on numpy's
  keepdims found while writing a softmax (shuang0420.cn, "numpy - keepdims=True"): a row max without
  keepdims broadcasts along the wrong axis (q05), and np.sum(axis=0) vs the last axis (q08, q09, q12).
- The remaining kinds follow the brief's list for NumPy habits: len() for an axis (q02, q07, q11), NumPy's
  float64 defaults meeting torch's float32 (q04, q10, q13).

The correct variants are NumPy-flavoured too and right everywhere: `.mT` / `swapaxes(-2, -1)`, the max pair's
`.values` with keepdim=True, reductions over the last axis with keepdim=True, `[:, None]` broadcasting of 1-D
kernels, dtypes passed explicitly to every factory call, torch.where with dtype-matched operands.

Every variant was checked with a throwaway script under /tmp/w74-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function
compared with full_marks' formulas and with plain torch (torch.softmax of S + M,
F.scaled_dot_product_attention) on unbatched, batched and 4-D inputs, batch of size 1, T_q != T_k,
d_k != d_v, float64, float32, float16, causal masks, padding masks and a fully blocked row; every written
answer compared with the right letter or integer. The correct variants agree everywhere; each wrong variant
differs in its own questions and only in those listed in "where".

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
    # max pair's values with keepdim, .mT, explicit dtypes everywhere
    "max_pair_values_keepdim_softmax_and_mt_scores": {
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]              # not len(Q[0]): that is the query count once a batch axis leads
    return (Q @ K.mT) / math.sqrt(d_k)
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    # np.triu(ones, k=1) is torch.triu(..., diagonal=1): strictly above the diagonal
    future = torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)
    zero = torch.zeros((), dtype=dtype, device=device)
    blocked = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, blocked, zero)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    work = S.to(torch.promote_types(S.dtype, torch.float32))
    row_max = work.max(dim=-1, keepdim=True).values     # the pair's values, kept as a column
    e = torch.exp(work - row_max)
    return (e / e.sum(dim=-1, keepdim=True)).to(S.dtype)
''',
    },
    # swapaxes / [:, None] broadcasting, numpy-style but with torch's dims
    "swapaxes_scores_column_broadcast_kernel_and_arange_prefix": {
        SCORES: '''def scaled_scores(Q, K):
    return torch.matmul(Q, torch.swapaxes(K, -2, -1)) / math.sqrt(Q.shape[-1])
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(len(q)))     # q is 1-D, so len(q) is d_k
    return (kappa[:, None] * V).sum(axis=0) / kappa.sum()
''',
        AVG: '''def prefix_average_matrix(T):
    rows = torch.arange(1, T + 1, dtype=torch.float64)
    return torch.tril(torch.ones(T, T, dtype=torch.float64)) / rows[:, None]
''',
        ENT: '''def row_entropy_bits(A):
    plogp = torch.where(A > 0, A * torch.log2(A), torch.zeros((), dtype=A.dtype, device=A.device))
    return -plogp.sum(axis=-1)


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },
    # a numpy user's pipeline: shapes read with .shape[-2], counts from a shape table reduced per row
    "shape_axis_minus_two_pipeline_and_row_product_count": {
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    T = X.shape[-2]                 # the token axis, whatever leads it
    M = causal_additive_mask(T, dtype=S.dtype, device=S.device) if causal else None
    A = attention_weights(S, M)
    return torch.matmul(A, V), A
''',
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return int(torch.tensor(shapes).prod(dim=1).sum())     # product of each row, then the total
''',
        RANK: '''max_rank_S = min(100, 8)

# np.linalg.matrix_rank counts the singular values above a tolerance, not all of them
rank_S_lesson = 2
''',
    },
    # cross-attention with the mask cast to the scores' dtype, matmul over the last two axes only
    "mask_cast_to_scores_dtype_cross_and_tensordot_projection": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # tensordot over X's last axis and W's first, like np.tensordot(X, W, axes=1)
    return tuple(torch.tensordot(X, W, dims=([-1], [0])) for W in (W_Q, W_K, W_V))
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = X @ W_Q
    K = Y @ W_K
    V = Y @ W_V
    S = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if M is not None:
        M = torch.as_tensor(M, dtype=S.dtype, device=S.device)
    A = attention_weights(S, M)
    return A @ V, A
''',
    },
    # the answers checked NumPy-style but over the right axes, and a where-built mask with dtype-matched operands
    "last_axis_checked_answers_and_dtype_matched_where_mask": {
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    idx = torch.arange(T, device=device)
    future = idx[None, :] > idx[:, None]          # key index after query index
    blocked = torch.tensor(torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.where(future, blocked, torch.tensor(0, dtype=dtype, device=device))
''',
        SCALE_ANS: '''# randn components: unscaled scores have std sqrt(512) ~ 22.6, so softmax snaps to one key
ans_scale = "b"
''',
        MASK_ANS: '''# A.sum(axis=-1) is all ones with and without the mask; the problem is reading the target token
ans_mask = "c"
''',
        SHAPES_ANS: '''# S = Q @ K.mT: rows are queries (T), columns keys (T'); O = A @ V keeps the rows: T x d_v
ans_cross_shapes = "b"
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = torch.einsum("...td,...sd->...ts", Q, K) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return torch.einsum("...ts,...sv->...tv", A, V), A
''',
    },
}

WRONG = {
    # --- q01: column-vector convention with .T on a batched X
    "q01_column_convention_dot_t_reverses_batch_axes": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # column-vector convention from my linear algebra notes: Q^T = W_Q^T X^T
    return (W_Q.T @ X.T).T, (W_K.T @ X.T).T, (W_V.T @ X.T).T
''',
    }, {"mistake": "Writes the projections as (W.T @ X.T).T: right for a 2-D X, but on a batched X `.T` reverses all "
                   "axes (NumPy's meaning), so the product fails or mixes batch and token axes; use X @ W.",
        "where": ["q01", "q07", "q09"]}),

    # --- q02: head size from len(Q[0])
    "q02_head_size_from_len_of_first_row": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = len(Q[0])                # length of one query vector
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
''',
    }, {"mistake": "Reads d_k as len(Q[0]): for a 2-D Q that is d_k, but with a batch axis Q[0] is a (T_q, d_k) "
                   "matrix and len gives T_q, so batched scores are divided by sqrt(T_q).",
        "where": ["q02", "q07", "q13"]}),

    # --- q03: uniform draws read as flatter rows
    "q03_uniform_rand_keys_read_as_flatter_answers_a": ({
        SCALE_ANS: '''# q = torch.rand(512); K = torch.rand(8, 512)   (like np.random.rand)
# without the scale every score is close to 512/4 = 128, all about the same, so the rows get flatter
ans_scale = "a"
''',
    }, {"mistake": "Answers 'a' from an experiment with uniform [0, 1) draws (np.random.rand habit) whose scores all "
                   "share one large mean: unit-variance components give unscaled scores of spread sqrt(512), so each "
                   "row snaps to one key and the entropy falls toward 0 (answer 'b').",
        "where": ["q03"]}),

    # --- q04: torch.zeros without dtype
    "q04_mask_buffer_zeros_without_dtype_is_float32": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)
    M = torch.zeros(T, T, device=device)          # like np.zeros((T, T))
    M[future] = torch.finfo(dtype).min
    return M
''',
    }, {"mistake": "Builds the mask buffer with torch.zeros(T, T) and no dtype, as with np.zeros: torch's default is "
                   "float32, so the mask is float32 for float16 inputs, and for float64 storing float64's finfo.min "
                   "overflows float32 and raises.",
        "where": ["q04", "q07", "q09"]}),

    # --- q05: row max without keepdim
    "q05_row_max_without_keepdim_broadcasts_along_keys": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    row_max = S.max(dim=-1).values            # like np.max(S, axis=-1)
    e = torch.exp(S - row_max)
    return e / e.sum(dim=-1, keepdim=True)
''',
    }, {"mistake": "Takes the row maximum without keepdim: the (..., T_q) maxima broadcast along the key axis, so "
                   "column i is shifted by row i's maximum; the weights change when T_q = T_k, and it fails when "
                   "T_q != T_k or when a batch axis no longer lines up.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q06: column sums
    "q06_column_sums_with_axis_zero_answers_a": ({
        MASK_ANS: '''# A.sum(axis=0) on the causal A was not all ones, and without the mask it was not either,
# so the mask is what keeps the rows of A summing to 1
ans_mask = "a"
''',
    }, {"mistake": "Answers 'a' after checking sums over axis 0 (columns, NumPy habit) instead of the last axis: the "
                   "rows sum to 1 with or without the mask; the problem is that position t reads the token it must "
                   "predict (answer 'c').",
        "where": ["q06"]}),

    # --- q07: mask sized from len(X)
    "q07_mask_length_from_len_of_x": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(len(X), S.dtype, S.device) if causal else None    # number of tokens
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Sizes the causal mask with len(X), the first axis: for a 2-D X that is T, but for a batched X "
                   "it is the batch size, so the mask has the wrong shape and fails (or mis-masks when the sizes "
                   "happen to broadcast).",
        "where": ["q07", "q09"]}),

    # --- q08: transposed values summed over axis 0
    "q08_transposed_values_summed_over_axis_zero": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
    weighted = V.T * kappa                    # (d_v, T): kappa broadcasts over the last axis
    return weighted.sum(axis=0) / kappa.sum()
''',
    }, {"mistake": "Transposes V so the kernel broadcasts, then still sums over axis 0, which is now the value "
                   "axis: the result is a (T,) vector of per-token terms instead of the (d_v,) weighted average.",
        "where": ["q08"]}),

    # --- q09: column sums without keepdims
    "q09_prefix_divided_by_sum_over_axis_zero": ({
        AVG: '''def prefix_average_matrix(T):
    W = torch.tril(torch.ones(T, T, dtype=torch.float64))
    return W / W.sum(axis=0)
''',
    }, {"mistake": "Normalises with W.sum(axis=0): those are column sums (T, T-1, ..., 1) and, with no keepdim, "
                   "they divide each column, so row t does not hold 1/t (row 1 gets 1/T).",
        "where": ["q09"]}),

    # --- q10: numpy out buffer in float64
    "q10_numpy_log2_out_buffer_defaults_to_float64": ({
        ENT: '''import numpy as np


def row_entropy_bits(A):
    a = A.detach().cpu().numpy()
    logs = np.log2(a, out=np.zeros(a.shape), where=a > 0)      # 0 log 0 = 0
    return torch.from_numpy(-(a * logs).sum(axis=-1))


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "Computes the entropy in NumPy with an out=np.zeros(...) buffer, float64 by NumPy's default, and "
                   "converts back with torch.from_numpy: float32 and float16 weights get float64 entropies (and the "
                   "result leaves the input's device).",
        "where": ["q10"]}),

    # --- q11: rank as the count of singular values
    "q11_rank_as_count_of_singular_values": ({
        RANK: '''max_rank_S = 8

# S = Q @ K.T / 2 from the Question 2 check; rank = len(np.linalg.svd(S)[1])
rank_S_lesson = 5
''',
    }, {"mistake": "Takes the rank as the number of singular values, len(svd(S)[1]), which is always min(T_q, T_k) = 5; "
                   "the rank counts only the non-zero ones, 2 for the lesson's Q and K.",
        "where": ["q11"]}),

    # --- q12: shape table reduced down axis 0
    "q12_shape_table_product_down_axis_zero": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    if with_output:
        shapes.append((d_v, d_model))
    return int(torch.tensor(shapes).prod(0).sum())
''',
    }, {"mistake": "Multiplies the shape table down axis 0 (NumPy's axis=0 read as 'each row'), so it multiplies all "
                   "the row counts together and all the column counts together and adds the two, instead of summing "
                   "each matrix's rows x columns.",
        "where": ["q12"]}),

    # --- q13: mask via np.asarray(dtype=float)
    "q13_mask_through_numpy_float_promotes_to_float64": ({
        CROSS: '''import numpy as np


def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    if M is not None:
        M = torch.from_numpy(np.asarray(M, dtype=float))     # accept lists and arrays too
    A = attention_weights(scaled_scores(Q, K), M)
    return A @ V, A
''',
    }, {"mistake": "Normalises the mask with np.asarray(M, dtype=float), which is float64: adding it promotes float32 "
                   "and float16 scores, so with a mask A and O come back in float64 (and on the CPU).",
        "where": ["q13"]}),

    # --- q14: np.dot(K, Q.T) layout
    "q14_numpy_dot_keys_first_layout_answers_c": ({
        SHAPES_ANS: '''# in NumPy I write S = np.dot(K, Q.T): one row per key, like a data matrix,
# so S is T' x T and O = S-rows x d_v is T' x d_v
ans_cross_shapes = "c"
''',
    }, {"mistake": "Answers 'c' from a keys-first layout np.dot(K, Q.T): with tokens as rows the scores are Q K^T, one "
                   "row per query and one column per key (T x T'), and O has one row per query (T x d_v), answer 'b'.",
        "where": ["q14"]}),
}
