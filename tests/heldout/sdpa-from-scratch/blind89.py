"""Eighty-ninth blind held-out set for sdpa-from-scratch, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or `measure.py`.
What was read: the student-facing text and solution cells of the notebook (as they stand in
`full_marks.ipynb`, whose cells these replace), `harness.py`, blind87.py (for the format only), and only the
variant names of the other earlier blind sets. The grader was not run on this set.

This round's focus: SELECTION, INDEXING AND SPARSE FORMULATIONS. Each wrong cell is written by a student who
thinks in terms of which entries are kept and computes with indices (gather, take_along_dim, scatter /
scatter_add / index_add, index_fill, nonzero, torch.where index tuples, tril_indices / triu_indices, topk, sort,
one-hot matrices, meshgrid and arange grids, lists of allowed keys per query), and the one slip is one that such
a formulation invites: q1's output shape probed with a hard-attention `gather` whose index was expanded to the
query width d_k, so the gathered "output" is (4, 10, 64); q2's divisor for d_k = 64 counted with
`count_nonzero(arange(64))`, which drops feature 0 and gives sqrt(63), and q2's list of (query, key) pairs built
from `tril_indices` and `triu_indices` together, which both contain the diagonal, so the diagonal scores count
twice in the variances; q3's row max read through a one-hot of the argmax multiplied into the logits, where
`0 * -inf = nan` turns every slice with a masked entry into NaN, and q3's sort-based softmax put back into the
original order with `gather(dim, order)` instead of `scatter(dim, order, ...)`, which applies the sorting
permutation a second time instead of undoing it; q4's causal index grid offset by `T_k - T_q` (the bottom-right
alignment of FlashAttention 2.1+), which differs from the asked top-left alignment whenever T_q != T_k, and
q4's mask built from an identity (one-hot) matrix cumulatively summed along the key axis instead of the query
axis, which keeps the diagonal and the future; q5's fully masked query rows located with `nonzero()` and
flattened for `index_fill`, which mixes batch indices into the query indices as soon as the mask has leading
axes, and q5's "has any key" flag gathered at each row's first allowed key along the query axis (-2) instead of
the key axis; q6's per-query key lists read from the causal mask's column instead of its row (the future keys),
q6's out3 accumulated with `index_add` over a `meshgrid(..., indexing="xy")` pair grid, which pairs each weight
with the wrong value row (weights3 transposed), and q6's causal row sums made with `scatter` (overwrite)
instead of `scatter_add`, so each row is divided by its last kept exponential only; q7 answered from a check
that compares the top-3 key indices of the two methods, which zeroing after the softmax never changes (answers
A); q8's entry count taken as the `numel` of the `cartesian_prod` pair list, which counts both coordinates of
every pair (2 * 1024**2). The correct variants use the same tools rightly (gather / take_along_dim / topk /
sort + scatter for the row max, tril_indices, torch.where index tuples, eye + cumsum over the query axis and
per-query key counts for the causal mask, scatter_add, index_add over an "ij" grid, nonzero index tuples over
the expanded row flag) and get every answer right.

Public material used (search tool, corpus `issues`):
- pytorch/pytorch issues #31776 and #27080 (what `scatter_` does with repeated indices: no guarantee which value
  is written, while `scatter_add_` accumulates): grounds q6's row sums made with scatter instead of scatter_add,
  and the correct variant's scatter_add.
- Dao-AILab/flash-attention issue #517 and PR #436, NVIDIA/cutlass issue #2336 (the causal mask of
  flash-attention is aligned to the bottom right when seqlen_q != seqlen_k, torch SDPA to the top left, and
  ports get it mixed up): grounds q4's index grid offset by T_k - T_q.
- numpy/numpy issue #16844 and pytorch/vision PR #4645 (meshgrid's 'xy' default swaps the first two axes and
  bites people "many times"; torch asks for an explicit indexing argument): grounds q6's out3 over an 'xy'
  grid and the correct variants' indexing="ij".
- sgl-project/sglang PR #19635 (`nonzero()` returns an (N, ndim) tensor whose columns must be taken apart,
  `nonzero(as_tuple=True)` one index tensor per axis): grounds q5's flattened nonzero indices and q8's numel
  of a pair list; the correct variant uses the per-axis index tuple.
- The one-hot times -inf (q3), the gather to undo a sort (q3), the gather along the wrong axis (q1, q5), the
  identity cumsum (q4), the count_nonzero of an index range (q2), the tril + triu pair list (q2), the column
  read for a row (q6) and the top-k agreement check (q7) are this round's indexing habits, each in a form of
  its own.

How the variants were checked: a throwaway script under /tmp/w89-sdpa-from-scratch/ built each notebook with
`tests.heldout.harness.build_notebook`, ran every code cell but otter's in one namespace, and compared the
answers and functions with the full_marks notebook's own (and torch.softmax / F.scaled_dot_product_attention)
on many inputs: several shapes, float64/float32/float16/bfloat16, 1-D to 4-D softmax inputs with positive and
negative `dim`, 3-D and 4-D attention inputs, T_q != T_k, d_v != d_k, no mask, 2-D, batched, broadcast
(padding) and random masks, fully masked rows, large float16 logits, -inf entries, and gradients to Q, K, V.
Every correct variant agrees everywhere (float64 to 1e-9 relative, gradients to 1e-8); every wrong one differs
in its "where" questions and only there, and runs the notebook's own cells without error.

Each wrong variant has exactly one mistake; "mistake" says in plain words what is wrong and what it gives,
"where" lists the questions whose tests may lose points.
"""

CORRECT = {
    "gather_of_the_argmax_tril_indices_and_a_gathered_any_key_flag": {
        "weights_shape": '''# probe with small tensors of the question's shapes
Qp, Kp, Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
wp = Qp @ Kp.transpose(-2, -1)
# hard-attention picture: each query picks one key and gets that key's value row (all d_v features)
best = wp.argmax(dim=-1, keepdim=True).expand(-1, -1, Vp.shape[-1])
weights_shape = tuple(wp.shape)
out_shape = tuple(torch.gather(Vp, 1, best).shape)
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, shifted by the largest logit of each slice (picked with gather)."""
    top = x.argmax(dim=dim, keepdim=True)          # where the largest logit of each slice sits
    m = x.gather(dim, top)                          # its value, same rank as x
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    rows, cols = torch.tril_indices(T_q, T_k)       # every (i, j) with j <= i
    mask = torch.zeros(T_q, T_k, dtype=torch.bool)
    mask[rows, cols] = True
    return mask
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    first = mask.int().argmax(dim=-1, keepdim=True)     # first allowed key of each query (0 if none)
    has_key = mask.gather(-1, first)                     # True exactly when that key is allowed
    weights = weights.masked_fill(~has_key, 0.0)         # fully masked queries: NaN row -> zeros
    return torch.matmul(weights, V)
''',
    },
    "sorted_softmax_scattered_back_eye_cumsum_and_scatter_add_row_sums": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax along `dim`, computed on the sorted slice (largest first) and scattered back."""
    vals, order = x.sort(dim=dim, descending=True)
    exps = torch.exp(vals - vals.narrow(dim, 0, 1))      # shift by the largest logit
    probs = exps / exps.sum(dim=dim, keepdim=True)
    return torch.empty_like(probs).scatter(dim, order, probs)   # entry k goes back to position order[k]
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    hits = torch.eye(T_q, T_k, dtype=torch.long)         # query i's own key i
    return hits.cumsum(dim=0).bool()                      # key j is open for every query from j down
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        n_keys = mask.sum(dim=-1, keepdim=True)            # allowed keys per query
        weights = torch.where(n_keys > 0, weights, torch.zeros_like(weights))
    return torch.matmul(weights, V)
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# causal weights from the kept entries only: (row, col) lists and per-row sums with scatter_add
r, c = torch.tril_indices(3, 3)
e = torch.exp(scores3[r, c] - scores3.amax(dim=-1)[r])
row_sum = torch.zeros(3, dtype=scores3.dtype).scatter_add(0, r, e)
weights3_causal = torch.zeros_like(scores3).index_put((r, c), e / row_sum[r])
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "attn_entries": '''pairs = torch.cartesian_prod(torch.arange(1024), torch.arange(1024))   # one row per (query, key)
attn_entries = pairs.shape[0]
score_madds = pairs.shape[0] * 64          # one length-64 dot product per pair
cost_ratio = 4
''',
    },
    "topk_shift_where_index_tuples_ij_grids_and_nonzero_row_clearing": {
        "raw_score_var": '''d_k = Q.shape[-1]
qi, kj = torch.meshgrid(torch.arange(5), torch.arange(5), indexing="ij")   # every (query, key) pair
pair_scores = (Q[:, qi.flatten()] * K[:, kj.flatten()]).sum(dim=-1)       # (2, 25)
raw_scores = pair_scores.view(2, 5, 5)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
''',
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, shifted by the top-1 logit of each slice."""
    m = x.topk(1, dim=dim).values
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    qi, kj = torch.meshgrid(torch.arange(T_q), torch.arange(T_k), indexing="ij")
    rows, cols = torch.where(kj <= qi)
    mask = torch.zeros(T_q, T_k, dtype=torch.bool)
    mask[rows, cols] = True
    return mask
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        empty = (~mask.any(dim=-1)).expand(weights.shape[:-1])   # (..., T_q), one flag per query row
        idx = empty.nonzero(as_tuple=True)                        # one index tensor per leading axis
        weights = weights.index_put(idx, weights.new_zeros(()))  # whole rows of those queries -> 0
    return torch.matmul(weights, V)
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
# out3 as a sparse sum: out3[i] += w[i, j] * V3[j] over every (i, j) pair
qi, kj = torch.meshgrid(torch.arange(3), torch.arange(3), indexing="ij")
qi, kj = qi.flatten(), kj.flatten()
out3 = torch.zeros(3, 2, dtype=V3.dtype).index_add(0, qi, weights3.flatten()[:, None] * V3[kj])
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
''',
    },
    "take_along_dim_shift_key_counts_and_per_query_key_lists": {
        "stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, shifted by each slice's largest logit."""
    m = torch.take_along_dim(x, x.argmax(dim=dim, keepdim=True), dim=dim)
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
''',
        "causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i."""
    if T_k is None:
        T_k = T_q
    n_keys = torch.arange(1, T_q + 1)                 # query i may see keys 0..i: i + 1 of them
    return torch.arange(T_k)[None, :] < n_keys[:, None]
''',
        "scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        weights = weights.masked_fill(mask.sum(dim=-1, keepdim=True) == 0, 0.0)
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
''',
        "weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
allowed = causal_mask(3)
weights3_causal = torch.zeros_like(scores3)
for i in range(3):
    keys = allowed[i].nonzero().flatten()           # the keys query i may look at
    weights3_causal[i, keys] = stable_softmax(scores3[i, keys], dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
''',
        "attn_entries": '''attn_entries = torch.ones(1024, 1024, dtype=torch.bool).nonzero().shape[0]   # one row per entry
score_madds = attn_entries * 64
cost_ratio = (2 * 1024) ** 2 * 64 // score_madds
''',
    },
}

WRONG = {
    "q1_out_probe_gathered_with_an_index_expanded_to_the_query_width": (
        {"weights_shape": '''# probe with small tensors of the question's shapes
Qp, Kp, Vp = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
wp = Qp @ Kp.transpose(-2, -1)
# hard-attention picture: each query picks one key and gets that key's value row
best = wp.argmax(dim=-1, keepdim=True).expand(-1, -1, Qp.shape[-1])
weights_shape = tuple(wp.shape)
out_shape = tuple(torch.gather(Vp, 1, best).shape)
'''},
        {"mistake": "out_shape is read off a gather whose index was expanded to the queries' width d_k = 64 "
                    "instead of the values' width d_v = 128; gather returns the index's shape, so out_shape is "
                    "(4, 10, 64) instead of (4, 10, 128)",
         "where": ["q1"]}),
    "q2_divisor_feature_count_taken_with_count_nonzero_of_arange_drops_feature_zero": (
        {"raw_score_var": '''d_k = Q.shape[-1]
raw_scores = Q @ K.transpose(-2, -1)
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
features = torch.arange(64)                     # feature positions of a head of width 64
scale_divisor = math.sqrt(torch.count_nonzero(features).item())
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the head width for scale_divisor is counted with count_nonzero(arange(64)), which skips "
                    "feature position 0 (its index is zero), so d_k is taken as 63 and scale_divisor is "
                    "sqrt(63) = 7.94 instead of 8.0",
         "where": ["q2"]}),
    "q2_pair_list_from_tril_and_triu_indices_counts_the_diagonal_twice": (
        {"raw_score_var": '''d_k = Q.shape[-1]
# every (query, key) pair: the lower triangle, then the upper triangle
r_lo, c_lo = torch.tril_indices(5, 5)
r_up, c_up = torch.triu_indices(5, 5)
qi, kj = torch.cat([r_lo, r_up]), torch.cat([c_lo, c_up])
raw_scores = (Q[:, qi] * K[:, kj]).sum(dim=-1)      # one score per listed pair
raw_score_var = raw_scores.var().item()
scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()
scale_divisor = math.sqrt(64)
print(raw_score_var, scaled_score_var, scale_divisor)
'''},
        {"mistake": "the list of (query, key) pairs joins tril_indices and triu_indices, and both include the "
                    "diagonal, so the 5 diagonal scores of each sequence are listed twice (30 pairs, not 25); "
                    "both variances are taken over this list and come out different from the variance of the "
                    "25 scores",
         "where": ["q2"]}),
    "q3_row_max_read_through_a_one_hot_of_the_argmax_makes_zero_times_minus_inf_nan": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`, shifted by the largest logit (picked with a one-hot of the argmax)."""
    pick = F.one_hot(x.argmax(dim=dim), num_classes=x.shape[dim]).movedim(-1, dim).to(x.dtype)
    m = (pick * x).sum(dim=dim, keepdim=True)        # keeps the largest logit, zeroes the rest
    exps = torch.exp(x - m)
    return exps / exps.sum(dim=dim, keepdim=True)
'''},
        {"mistake": "the largest logit is picked by multiplying a one-hot of the argmax into the logits and "
                    "summing; the zeros of the one-hot times a -inf entry give 0 * -inf = NaN, so every slice "
                    "that holds a masked (-inf) entry becomes all NaN instead of giving that entry weight 0 "
                    "(masked attention and the causal weights become NaN)",
         "where": ["q3", "q5", "q6"]}),
    "q3_sorted_softmax_put_back_with_gather_instead_of_scatter": (
        {"stable_softmax": '''def stable_softmax(x, dim=-1):
    """Softmax along `dim`, computed on the sorted slice (largest first) and put back in order."""
    vals, order = x.sort(dim=dim, descending=True)
    exps = torch.exp(vals - vals.narrow(dim, 0, 1))      # shift by the largest logit
    probs = exps / exps.sum(dim=dim, keepdim=True)
    return probs.gather(dim, order)                      # back to the original order
'''},
        {"mistake": "the softmax is computed on the sorted logits and put back with probs.gather(dim, order), "
                    "which applies the sorting permutation again instead of undoing it (that needs "
                    "scatter(dim, order, probs) or order.argsort()); the probabilities land on the wrong "
                    "entries whenever the sort order is not its own inverse (most slices of 3 or more)",
         "where": ["q3", "q5", "q6"]}),
    "q4_index_grid_offset_by_t_k_minus_t_q_aligns_the_mask_bottom_right": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j."""
    if T_k is None:
        T_k = T_q
    qi, kj = torch.meshgrid(torch.arange(T_q), torch.arange(T_k), indexing="ij")
    return kj <= qi + (T_k - T_q)        # line the last query up with the last key
'''},
        {"mistake": "the key index is compared with the query index plus T_k - T_q, which aligns the triangle "
                    "at the bottom right (FlashAttention's convention) instead of the asked top-left j <= i; "
                    "square masks are right, but with T_k > T_q every query sees T_k - T_q keys too many and "
                    "with T_k < T_q the first queries see no key at all",
         "where": ["q4"]}),
    "q4_identity_matrix_cumsummed_along_the_key_axis_keeps_the_future": (
        {"causal_mask": '''def causal_mask(T_q, T_k=None):
    """(T_q, T_k) bool mask, True where query i may see key j."""
    if T_k is None:
        T_k = T_q
    hits = torch.eye(T_q, T_k, dtype=torch.long)         # one-hot of key i for query i
    return hits.cumsum(dim=1).bool()                      # spread each hit over the keys
'''},
        {"mistake": "the one-hot (identity) matrix is cumulatively summed along the key axis (dim=1) instead "
                    "of the query axis (dim=0), so row i is True for keys j >= i: the mask keeps the diagonal "
                    "and the future and blocks the past (and rows past T_k are all False)",
         "where": ["q4", "q6"]}),
    "q5_empty_query_rows_from_flattened_nonzero_mix_batch_indices_into_query_indices": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    if mask is not None:
        empty = (~mask.any(dim=-1)).nonzero().flatten()    # the queries that have no key
        weights = weights.index_fill(-2, empty, 0.0)         # their rows -> 0
    return torch.matmul(weights, V)
'''},
        {"mistake": "the fully masked query rows are found with nonzero() and flattened, which is right for a "
                    "2-D mask only: for a batched or broadcast mask nonzero() gives one (batch, ..., query) "
                    "row per hit and flattening mixes the batch indices in with the query indices, so "
                    "index_fill zeroes those query rows in every batch entry, wiping the output of queries "
                    "that do have keys",
         "where": ["q5"]}),
    "q5_any_key_flag_gathered_at_the_first_allowed_key_along_the_query_axis": (
        {"scaled_dot_product_attention": '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend)."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is None:
        return torch.matmul(stable_softmax(scores, dim=-1), V)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    first = mask.int().argmax(dim=-1, keepdim=True)     # first allowed key of each query (0 if none)
    has_key = mask.gather(-2, first)                     # is that key allowed?
    weights = weights.masked_fill(~has_key, 0.0)         # fully masked queries: NaN row -> zeros
    return torch.matmul(weights, V)
'''},
        {"mistake": "the 'query has a key' flag gathers the mask at each query's first allowed key along axis "
                    "-2 (queries) instead of -1 (keys), so it reads mask[first, 0], an entry of another query's "
                    "row; with general masks queries that have keys get zero output and fully masked ones stay "
                    "NaN (causal masks happen to pass, and gather fails when the index passes the query axis)",
         "where": ["q5"]}),
    "q6_allowed_keys_read_from_the_causal_masks_column_not_its_row": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
allowed = causal_mask(3)
weights3_causal = torch.zeros_like(scores3)
for i in range(3):
    keys = allowed[:, i].nonzero().flatten()        # the keys query i may look at
    weights3_causal[i, keys] = stable_softmax(scores3[i, keys], dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "query i's key list is read from column i of the causal mask instead of row i; the column "
                    "lists the queries that may see key i (i, ..., 2), so each query gets its softmax over "
                    "keys i..2, the future, and weights3_causal is upper-triangular instead of lower",
         "where": ["q6"]}),
    "q6_out3_accumulated_with_index_add_over_an_xy_meshgrid": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
# out3 as a sparse sum: out3[i] += w[i, j] * V3[j] over every (i, j) pair
qi, kj = torch.meshgrid(torch.arange(3), torch.arange(3), indexing="xy")
qi, kj = qi.flatten(), kj.flatten()
out3 = torch.zeros(3, 2, dtype=V3.dtype).index_add(0, qi, weights3.flatten()[:, None] * V3[kj])
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the (query, key) pair grid is made with meshgrid(..., indexing='xy'), which swaps the two "
                    "grids relative to the row-major order of weights3.flatten(); each weight w[i, j] is "
                    "added to output row j with value row i, so out3 is weights3.T @ V3 instead of "
                    "weights3 @ V3",
         "where": ["q6"]}),
    "q6_causal_row_sums_built_with_scatter_which_overwrites_instead_of_scatter_add": (
        {"weights3": '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
# causal weights from the kept entries only: (row, col) lists and per-row sums
r, c = torch.tril_indices(3, 3)
e = torch.exp(scores3[r, c] - scores3.amax(dim=-1)[r])
row_sum = torch.zeros(3, dtype=scores3.dtype).scatter(0, r, e)
weights3_causal = torch.zeros_like(scores3).index_put((r, c), e / row_sum[r])
print(weights3, out3, weights3_causal, sep="\\n")
'''},
        {"mistake": "the per-row sums of the kept exponentials are made with scatter, which overwrites "
                    "(each row keeps one of its exponentials, here the last) instead of scatter_add, which "
                    "accumulates; rows 1 and 2 of weights3_causal are divided by one term instead of their "
                    "sum and no longer add up to 1 (row 0, with one key, is right)",
         "where": ["q6"]}),
    "q7_trap_checked_by_comparing_topk_key_indices_answers_a": (
        {"q_trap_answer": '''# try the shortcut: do both methods rely on the same keys?
torch.manual_seed(1)
s = torch.randn(4, 6, 6)
blocked = ~causal_mask(6)
right = stable_softmax(s.masked_fill(blocked, float("-inf")), dim=-1)
shortcut = F.softmax(s, dim=-1)
shortcut[blocked.expand_as(shortcut)] = 0.0
same_keys = torch.equal(right.topk(3, dim=-1).indices, shortcut.topk(3, dim=-1).indices)
q_trap_answer = "A" if same_keys else "C"
'''},
        {"mistake": "the shortcut is checked by comparing the top-3 key indices of each query's weights; zeroing "
                    "after the softmax keeps the order of the kept weights (it only shrinks them), so the "
                    "indices agree and the answer is A instead of C (the rows no longer sum to 1)",
         "where": ["q7"]}),
    "q8_entries_counted_as_numel_of_the_cartesian_pair_list_counts_both_coordinates": (
        {"attn_entries": '''pairs = torch.cartesian_prod(torch.arange(1024), torch.arange(1024))   # one row per (query, key)
attn_entries = pairs.numel()
score_madds = pairs.shape[0] * 64          # one length-64 dot product per pair
cost_ratio = 4
'''},
        {"mistake": "attn_entries is the numel of the (1024*1024, 2) list of (query, key) index pairs, which "
                    "counts both coordinates of every pair: 2 * 1024**2 = 2097152 instead of 1024**2 = 1048576",
         "where": ["q8"]}),
}
