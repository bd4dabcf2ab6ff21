"""Blind held-out set 84 for attention-pipeline.

Eighty-fourth blind held-out set for attention-pipeline, written without reading the grader's catalogue of
misconceptions, its hidden tests, its diagnosis code, the reference solution, `variants.py`, the naming
tests or `measure.py`, and without running the grader on these variants. What was read: the student-facing
text of attention-pipeline.ipynb (as it appears in full_marks.ipynb), the solution cells of full_marks.ipynb,
`harness.py`, blind83.py (for the format and the docstring), and only the variant names of the earlier blind
sets (to avoid repeating a mistake in the same form).

Round 84's angle: RESHAPING, VIEWING AND PERMUTING, CODE WRITTEN FOR ANY RANK. Each wrong variant is careful
code that moves dimensions around (stack/split, einsum, flatten/unflatten, reshape for bmm, unsqueeze,
repeat_interleave, unbind/stack) and keeps the right shape, with one slip in how the axes are laid out:
W_Q and W_K stacked on the last axis (columns interleaved) then split in blocks (q01); einsum output letters
written `...kq` (q02); the row and column aranges unsqueezed on swapped sides, so the mask blocks the past (q04);
a (T_q, T_k) mask repeat_interleaved against batch-major flattened score rows (q05); the scores flattened over
both last axes before the softmax, one distribution per matrix (q05); the column-convention output V^T A^T
brought back with reshape instead of a transpose (q07); the values reshaped to (d_v, T) instead of transposed
(q08); the 1/t reciprocals unsqueezed as a row instead of a column (q09); an entropy einsum that keeps the key
letter (q10); the parameter count read off a fused (3, d_model, d_k) QKV weight, which assumes d_v = d_k (q12);
`transpose(0, 1)` for the keys, right only for unbatched input (q13); keys reshaped to (.., d_k, T') for a
flattened bmm instead of transposed (q13); a shape probe that stacks per-key score columns on dim 0 and so
reads S as T' x T (q14); a cost probe whose einsum uses one letter for queries and keys, counting T scores (q16).

Public material found with the `search` tool, and what it showed:
- github.com/jsbaan/transformer-from-scratch/pull/6 ("a missing permute before a reshape in multi-head
  attention ... row-major reshape mixes chunks from different sequence positions"), ajhalthor/Transformer-Neural-
  Network pull 4 and issue 8 (values.reshape(B, T, H*D) without permute(0, 2, 1, 3)), reczoo/FuxiCTR issue 30
  (`query.view(batch_size * num_heads, -1, dim)` without a transpose), xieenze/Trans2Seg issue 4 and
  leaderj1001/Attention-Augmented-Conv2d issue 21 (reshape where a permute was needed, with printed scrambled
  values): the reshape-instead-of-transpose kind (q07, q08, q13 bmm) and the stacked-then-split-in-blocks kind
  of q01.
- github.com/lsdefine/attention-is-all-you-need-keras/issues/36: the mask repeated with `repeat_elements(x,
  n_head, 0)` (each mask repeated in place) against scores flattened head-major, so the mask rows land on the
  wrong flattened rows (q05 repeat_interleave); gazelle93/Transformer-Various-Positional-Encoding issue 1
  (flattened (B*NH) viewed back in the other order).
- Code corpus: Peter-obi/protein-structure-prediction-from-scratch MHA.py (`torch.einsum('bhid,bhjd->bhij', q,
  k)` after view + transpose(1, 2)), uselesstechjunks/toplynx attn.py (`einsum('k,mk->m', q, K)`,
  `einsum('m,mv->v', weights, V)`: the einsum correct variant's Nadaraya-Watson), a JAX test_einsum.py probing
  output letters of "...qhd,...khd->qhk" by printing shapes (q02 letters, q14/q16 probes).
- The remaining kinds (unsqueeze on the wrong side for aranges and reciprocals, softmax over a flattened matrix,
  `.transpose(0, 1)` / `.T` only right for 2-D, fused QKV weights assuming d_v = d_k) follow the brief's list.

The correct variants move dimensions the same ways and are right everywhere: einsum with ellipses for every
stage; flattened batches through torch.bmm with `transpose(-2, -1).contiguous().view(...)` and broadcast
leading dims; a fused QKV weight split with [d_k, d_k, d_v], a row-by-row softmax through unbind(-2)/stack(-2)
and a prefix average stacked from rows; a column-convention pipeline brought back with `.mT`, a correctly
unsqueezed arange mask and shape probes that stack on the right axis.

Every variant was checked with a throwaway script under /tmp/w84-attention-pipeline/: each variant's notebook
built with harness.build_notebook and run top to bottom (all code cells but otter's), then every function and
answer compared with torch.softmax / scaled_dot_product_attention-based references (fully masked rows included)
on unbatched, batched and 4-D inputs, T_q != T_k, d_k != d_v != d_model, float64, float32 and float16, with and
without masks, and with both 2-D and full-batch masks.

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
    # einsum with ellipses at every stage: any number of leading dims, no transposes to get wrong
    "ellipsis_einsum_every_stage_with_einsum_entropy_and_kernel": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    # '...td,de->...te': every token row (t) of every batch times the weight, whatever the leading dims
    Q = torch.einsum('...td,de->...te', X, W_Q)
    K = torch.einsum('...td,de->...te', X, W_K)
    V = torch.einsum('...td,de->...te', X, W_V)
    return Q, K, V
''',
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    # queries index the rows (q), keys the columns (k); d is summed
    return torch.einsum('...qd,...kd->...qk', Q, K) / math.sqrt(d_k)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(S.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = torch.einsum('...qk,...kv->...qv', A, V)    # each query row mixes the value rows
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(torch.einsum('d,td->t', q, K) / math.sqrt(q.shape[-1]))   # one weight per key
    return torch.einsum('t,tv->v', kappa, V) / kappa.sum()
''',
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))   # 0 log 0 = 0
    return -torch.einsum('...qk,...qk->...q', A, logs)               # sum over the keys of each query row


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = torch.einsum('...td,de->...te', X, W_Q)
    K = torch.einsum('...sd,de->...se', Y, W_K)
    V = torch.einsum('...sd,dv->...sv', Y, W_V)
    A = attention_weights(scaled_scores(Q, K), M)
    return torch.einsum('...ts,...sv->...tv', A, V), A
''',
    },

    # every leading dim flattened into one batch for torch.bmm, transposes made contiguous before view
    "flattened_bmm_with_contiguous_transposed_keys_and_row_flattened_softmax": {
        SCORES: '''def scaled_scores(Q, K):
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    T_q, d_k = Q.shape[-2:]
    T_k = K.shape[-2]
    Qf = Q.expand(*lead, T_q, d_k).reshape(-1, T_q, d_k)                       # (N, T_q, d_k)
    Kt = K.expand(*lead, T_k, d_k).transpose(-2, -1).contiguous().view(-1, d_k, T_k)   # (N, d_k, T_k)
    S = torch.bmm(Qf, Kt) / math.sqrt(d_k)
    return S.view(*lead, T_q, T_k)
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M                      # broadcast first, then flatten: every row keeps its own mask row
    rows = S.reshape(-1, S.shape[-1])  # one row per (batch..., query)
    return torch.softmax(rows, dim=-1).view(S.shape)
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    T, d_model = X.shape[-2:]
    Q, K, V = project_qkv(X.reshape(-1, d_model), W_Q, W_K, W_V)   # all tokens of all batches as rows
    Q = Q.view(*X.shape[:-1], -1)
    K = K.view(*X.shape[:-1], -1)
    V = V.view(*X.shape[:-1], -1)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(T, S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    d_v = V.shape[-1]
    O = torch.bmm(A.reshape(-1, T, T), V.reshape(-1, T, d_v)).view(*X.shape[:-1], d_v)
    return O, A
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    T, Tp = X.shape[-2], Y.shape[-2]
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    A = attention_weights(scaled_scores(Q, K), M)
    lead = A.shape[:-2]
    d_v = V.shape[-1]
    O = torch.bmm(A.reshape(-1, T, Tp), V.expand(*lead, Tp, d_v).reshape(-1, Tp, d_v))
    return O.view(*lead, T, d_v), A
''',
    },

    # a fused QKV weight split in blocks of [d_k, d_k, d_v]; softmax row by row with unbind / stack
    "fused_qkv_split_unbind_stack_softmax_and_stacked_rows_prefix": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k, d_v = W_Q.shape[-1], W_V.shape[-1]
    W = torch.cat([W_Q, W_K, W_V], dim=-1)            # (d_model, 2 d_k + d_v): blocks side by side
    Q, K, V = (X @ W).split([d_k, d_k, d_v], dim=-1)   # the same blocks back
    return Q, K, V
''',
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    rows = [torch.softmax(row, dim=-1) for row in S.unbind(-2)]   # one query row at a time
    return torch.stack(rows, dim=-2)                              # put them back as rows
''',
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    idx = torch.arange(T, device=device)
    future = idx.unsqueeze(0) > idx.unsqueeze(1)    # (1, T) key index j  >  (T, 1) query index i
    return torch.zeros(T, T, dtype=dtype, device=device).masked_fill(future, torch.finfo(dtype).min)
''',
        AVG: '''def prefix_average_matrix(T):
    rows = [torch.cat([torch.full((t,), 1.0 / t, dtype=torch.float64),
                       torch.zeros(T - t, dtype=torch.float64)]) for t in range(1, T + 1)]
    return torch.stack(rows, dim=0)                 # row t (from 1) is the t-th stacked row
''',
        ENT: '''def row_entropy_bits(A):
    rows = A.reshape(-1, A.shape[-1])
    terms = torch.where(rows > 0, rows * torch.log2(rows), torch.zeros_like(rows))
    return -terms.sum(dim=-1).view(A.shape[:-1])


def effective_tokens(A):
    return torch.exp2(row_entropy_bits(A))
''',
    },

    # column convention done right: work on transposed tensors and come back with .mT, never a reshape
    "column_convention_with_mt_and_shape_probes_stacked_on_the_right_axis": {
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    Xt = X.mT                                   # (..., d_model, T): tokens as columns
    return (W_Q.mT @ Xt).mT, (W_K.mT @ Xt).mT, (W_V.mT @ Xt).mT
''',
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    O = (V.mT @ A.mT).mT                        # O^T = V^T A^T, transposed back (not reshaped)
    return O, A
''',
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(q @ K.mT / math.sqrt(q.shape[-1]))    # (T,)
    return (V.mT @ kappa) / kappa.sum()                     # (d_v, T) @ (T,) -> (d_v,)
''',
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q = (W_Q.mT @ X.mT).mT
    K = (W_K.mT @ Y.mT).mT
    V = (W_V.mT @ Y.mT).mT
    A = attention_weights(scaled_scores(Q, K), M)
    return (V.mT @ A.mT).mT, A
''',
        SHAPES_ANS: '''# probe: 3 queries, 5 keys; one column of scores per key, stacked as columns (dim=-1)
_T, _Tp = 3, 5
_Q, _K, _V = torch.ones(_T, 4), torch.ones(_Tp, 4), torch.ones(_Tp, 2)
_S = torch.stack([_Q @ k for k in _K], dim=-1)          # (T, T')
_O = torch.softmax(_S, dim=-1) @ _V                     # (T, d_v)
_options = {"a": ((_T, _T), (_T, 2)), "b": ((_T, _Tp), (_T, 2)),
            "c": ((_Tp, _T), (_Tp, 2)), "d": ((_T, _Tp), (_Tp, 2))}
ans_cross_shapes = next(k for k, (s, o) in _options.items() if s == tuple(_S.shape) and o == tuple(_O.shape))
''',
        COST_ANS: '''# probe: count the multiply-adds of S = Q K^T at two lengths
_counts = {}
for _T in (64, 128):
    _Q, _K = torch.ones(_T, 16), torch.ones(_T, 16)
    _S = torch.einsum('qd,kd->qk', _Q, _K)              # (T, T): one letter per axis
    _counts[_T] = _S.numel() * _Q.shape[-1]
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_counts[128] / _counts[64])]
''',
    },
}

WRONG = {
    # --- q01
    "q01_q_and_k_weights_stacked_on_last_dim_then_split_in_blocks": ({
        PROJ: '''def project_qkv(X, W_Q, W_K, W_V):
    d_k = W_Q.shape[-1]
    # one matmul for queries and keys: (d_model, d_k, 2) flattened to (d_model, 2 d_k)
    W_QK = torch.stack([W_Q, W_K], dim=-1).flatten(-2)
    Q, K = (X @ W_QK).split(d_k, dim=-1)
    V = X @ W_V
    return Q, K, V
''',
    }, {"mistake": "Stacks W_Q and W_K on the last axis, which interleaves their columns (q0, k0, q1, k1, ...), "
                   "then splits the product in blocks of d_k: Q and K each get half query and half key columns. "
                   "Shapes are right; Q and K values are wrong.",
        "where": ["q01", "q07"]}),

    # --- q02
    "q02_einsum_output_letters_swapped_gives_keys_by_queries": ({
        SCORES: '''def scaled_scores(Q, K):
    d_k = Q.shape[-1]
    return torch.einsum('...qd,...kd->...kq', Q, K) / math.sqrt(d_k)
''',
    }, {"mistake": "The einsum output subscripts are written '...kq', so S comes out keys by queries: (..., T_k, T_q), "
                   "the transpose of QK^T/sqrt(d_k); wrong shape when T_q != T_k, transposed scores when square.",
        "where": ["q02", "q07", "q13"]}),

    # --- q04
    "q04_row_and_column_aranges_unsqueezed_on_swapped_sides": ({
        MASK: '''def causal_additive_mask(T, dtype, device=None):
    idx = torch.arange(T, device=device)
    future = idx.unsqueeze(1) > idx.unsqueeze(0)    # key index j  >  query index i
    M = torch.zeros(T, T, dtype=dtype, device=device)
    return M.masked_fill(future, torch.finfo(dtype).min)
''',
    }, {"mistake": "The arange meant as the key (column) index is unsqueezed into a column and the query index into "
                   "a row, so the comparison is i > j: finfo.min strictly BELOW the diagonal and 0 above, blocking "
                   "the past instead of the future (the transpose of the causal mask).",
        "where": ["q04", "q07", "q09"]}),

    # --- q05
    "q05_mask_rows_repeat_interleaved_against_batch_major_flattened_scores": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    T_q, T_k = S.shape[-2:]
    rows = S.reshape(-1, T_k)                 # (batch... * T_q, T_k), batch-major
    if M is not None:
        if M.dim() == 2 and rows.shape[0] != T_q:
            # one mask row for every flattened score row
            M = M.repeat_interleave(rows.shape[0] // T_q, dim=0)
        rows = rows + M.reshape(-1, T_k)
    return torch.softmax(rows, dim=-1).view(S.shape)
''',
    }, {"mistake": "Scores are flattened batch-major (row b*T_q + t) but the 2-D mask is stretched with "
                   "repeat_interleave (each mask row repeated B times in place) instead of repeat(B, 1), so with a "
                   "batch the mask rows land on the wrong query rows; right only for unbatched or batch-1 scores.",
        "where": ["q05", "q07", "q09", "q13"]}),

    "q05_scores_flattened_over_both_last_axes_before_softmax": ({
        WEIGHTS: '''def attention_weights(S, M=None):
    if M is not None:
        S = S + M
    flat = S.flatten(-2)                              # (..., T_q * T_k)
    return torch.softmax(flat, dim=-1).unflatten(-1, S.shape[-2:])
''',
    }, {"mistake": "flatten(-2) merges the query and key axes, so the softmax normalises the whole T_q x T_k matrix "
                   "at once: the entries sum to 1 over the matrix, not along each row.",
        "where": ["q05", "q07", "q09", "q13"]}),

    # --- q07
    "q07_column_convention_output_reshaped_instead_of_transposed": ({
        SELF: '''def self_attention(X, W_Q, W_K, W_V, causal=True):
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    S = scaled_scores(Q, K)
    M = causal_additive_mask(X.shape[-2], S.dtype, S.device) if causal else None
    A = attention_weights(S, M)
    # column convention: O^T = V^T A^T is (..., d_v, T); back to (..., T, d_v)
    O = (V.transpose(-2, -1) @ A.transpose(-2, -1)).reshape(*A.shape[:-1], V.shape[-1])
    return O, A
''',
    }, {"mistake": "Computes O^T = V^T A^T, shape (..., d_v, T), and brings it back with reshape to (..., T, d_v) "
                   "instead of a transpose: the right shape, but the output entries are scrambled row-major; A is "
                   "right.",
        "where": ["q07", "q09"]}),

    # --- q08
    "q08_values_reshaped_to_dv_by_t_instead_of_transposed": ({
        NW: '''def nadaraya_watson(q, K, V):
    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))   # (T,)
    Vt = V.reshape(V.shape[-1], -1)                     # (d_v, T)
    return (Vt @ kappa) / kappa.sum()
''',
    }, {"mistake": "Reshapes V (T, d_v) to (d_v, T) where a transpose was needed, so each output component is a "
                   "kernel-weighted average of scrambled value entries; the (d_v,) shape is right.",
        "where": ["q08"]}),

    # --- q09
    "q09_reciprocals_unsqueezed_as_a_row_not_a_column": ({
        AVG: '''def prefix_average_matrix(T):
    inv = 1.0 / torch.arange(1, T + 1, dtype=torch.float64)    # 1/t for t = 1..T
    return torch.tril(inv.unsqueeze(0).expand(T, T))           # 1/t spread along row t
''',
    }, {"mistake": "The reciprocals are unsqueezed as a row (1, T), so they vary along the columns: row t holds "
                   "1, 1/2, ..., 1/t instead of t copies of 1/t, and its entries no longer sum to 1.",
        "where": ["q09"]}),

    # --- q10
    "q10_entropy_einsum_output_keeps_the_key_letter": ({
        ENT: '''def row_entropy_bits(A):
    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))   # 0 log 0 = 0
    return -torch.einsum('...qk,...qk->...k', A, logs)


def effective_tokens(A):
    return 2.0 ** row_entropy_bits(A)
''',
    }, {"mistake": "The einsum keeps the key letter and sums over the queries, so it returns one number per key "
                   "column, -sum_t A[t,i] log2 A[t,i], not per query row; same shape when A is square, wrong values "
                   "(and effective_tokens with them).",
        "where": ["q10"]}),

    # --- q12
    "q12_param_count_read_off_a_fused_three_by_d_model_by_d_k_weight": ({
        PARAMS: '''def qkv_param_count(d_model, d_k, d_v, with_output=False):
    W_qkv = torch.empty(3, d_model, d_k)     # W_Q, W_K, W_V stacked into one fused weight
    n = W_qkv.numel()
    if with_output:
        n += torch.empty(d_v, d_model).numel()
    return n
''',
    }, {"mistake": "Counts a fused (3, d_model, d_k) QKV weight, which only exists when d_v = d_k: gives "
                   "3 d_model d_k instead of d_model (2 d_k + d_v), wrong whenever d_v != d_k (the lesson's 384/64/64 "
                   "numbers still come out right).",
        "where": ["q12"]}),

    # --- q13
    "q13_keys_transposed_on_axes_0_1_right_only_unbatched": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    S = Q @ K.transpose(0, 1) / math.sqrt(Q.shape[-1])
    A = attention_weights(S, M)
    return A @ V, A
''',
    }, {"mistake": "Transposes the keys with transpose(0, 1), which is the last two axes only for a 2-D (T', d_k) "
                   "tensor: with batch dimensions it swaps the batch and token axes and the product fails (or mixes "
                   "batches).",
        "where": ["q13"]}),

    "q13_keys_reshaped_for_flattened_bmm_instead_of_transposed": ({
        CROSS: '''def cross_attention(X, Y, W_Q, W_K, W_V, M=None):
    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V
    lead, T, Tp, d_k = X.shape[:-2], Q.shape[-2], K.shape[-2], Q.shape[-1]
    Qf = Q.reshape(-1, T, d_k)
    Kf = K.reshape(-1, d_k, Tp)                           # (N, d_k, T') for bmm
    S = (torch.bmm(Qf, Kf) / math.sqrt(d_k)).view(*lead, T, Tp)
    A = attention_weights(S, M)
    O = torch.bmm(A.reshape(-1, T, Tp), V.reshape(-1, Tp, V.shape[-1]))
    return O.view(*lead, T, V.shape[-1]), A
''',
    }, {"mistake": "For the flattened bmm the keys are reshaped from (N, T', d_k) to (N, d_k, T') instead of "
                   "transposed: the shape fits but the key entries are scrambled, so S, A and O are wrong.",
        "where": ["q13"]}),

    # --- q14
    "q14_score_probe_stacks_per_key_columns_on_dim_0_answers_c": ({
        SHAPES_ANS: '''# probe: 3 queries, 5 keys; one column of scores per key
_T, _Tp = 3, 5
_Q, _K, _V = torch.ones(_T, 4), torch.ones(_Tp, 4), torch.ones(_Tp, 2)
_S = torch.stack([_Q @ k for k in _K])          # the per-key columns, stacked
_O_shape = (_S.shape[0], _V.shape[-1])          # one output row per row of S
_options = {"a": ((_T, _T), (_T, 2)), "b": ((_T, _Tp), (_T, 2)),
            "c": ((_Tp, _T), (_Tp, 2)), "d": ((_T, _Tp), (_Tp, 2))}
ans_cross_shapes = next(k for k, (s, o) in _options.items() if s == tuple(_S.shape) and o == _O_shape)
''',
    }, {"mistake": "The probe stacks the per-key score columns Q @ k on dim 0 (stack's default), which makes them "
                   "rows: S reads (T', T) and O (T', d_v), so it answers 'c'; S is T x T' and O is T x d_v ('b').",
        "where": ["q14"]}),

    # --- q16
    "q16_cost_probe_einsum_reuses_one_letter_for_queries_and_keys_answers_a": ({
        COST_ANS: '''# probe: count the multiply-adds of the scores at two lengths
_counts = {}
for _T in (64, 128):
    _Q, _K = torch.ones(_T, 16), torch.ones(_T, 16)
    _S = torch.einsum('td,td->t', _Q, _K)               # query-key dot products
    _counts[_T] = _S.numel() * _Q.shape[-1]
ans_complexity = {1: "b", 2: "a", 4: "c", 8: "d"}[round(_counts[128] / _counts[64])]
''',
    }, {"mistake": "The probe's einsum uses the same letter t for queries and keys, so it computes only the T "
                   "diagonal scores q_t . k_t; doubling T doubles that count and it answers 'a' (linear), while "
                   "the T x T score matrix grows quadratically ('c').",
        "where": ["q16"]}),
}
