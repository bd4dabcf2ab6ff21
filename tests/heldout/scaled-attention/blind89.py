"""Eighty-ninth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the other blind sets' code. What was read: the cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention(Q, K, V, d_k)` returning
`(output, weights)`; q2 `dot_product_variance`; q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one
letter each; q8 a loop over heads calling the 2-D `attention`; the notebook has no masks and no batch axis), the
student-facing question text, `tests/heldout/harness.py`, blind87.py for the format only, and only the variant
NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: SELECTION, INDEXING AND SPARSE FORMULATIONS. Each wrong cell is careful code by a student who
thinks in terms of which entries are kept and computes with index tensors (`gather`, `scatter`, `index_add_`,
`topk`, `sort`, `masked_select`, `torch.where`, `tril_indices`, `meshgrid` grids, advanced indexing), and each
slip is one that formulation invites. q1: the mix of values accumulated with `index_add_` keyed by the KEY index
of each (query, key) pair instead of the query index (output row j gets column j's weights times V[j]; an index
error when T_k > T_q); a softmax computed on the scores sorted in descending order and put back in place with
`gather(-1, idx)` instead of `scatter(-1, idx, .)` (the inverse permutation is applied the wrong way round, so
the weights land on the wrong keys whenever a row's sort order is not its own inverse); the row max for the
stable softmax taken with `topk(1, dim=0)`, along the queries, so each column is shifted by its own max and the
row softmax is no longer shift-invariant. q2: the per-pair dot products summed with `scatter_` (overwrite) where
`scatter_add_` was meant, so each "dot product" is one product q_i k_i (variance 1, not d_k); the draws shaped
`(n_samples, 2, d_k)` and split with `pairs[0], pairs[1]` (the sample axis) instead of `pairs[:, 0], pairs[:, 1]`,
so the variance comes from 2 dot products. q4: the 0 * log 0 terms dropped with `masked_select`, which flattens
every row into one vector, so a batch of rows gives one scalar (1-D rows and the table stay right); the
probabilities taken from the sorted logits but the log-probabilities from the unsorted ones, so the products
pair the wrong entries; the stabilising shift read as `sort(...)[..., :1]` with the default ascending sort, i.e.
the row MIN, so a saturated row overflows to inf and gives NaN. q5: a probe that sums the outer product q k^T
over `tril_indices(d, d, offset=0)` believing offset 0 means "the diagonal" (it is the whole lower triangle,
d(d+1)/2 terms, variance about d^2/2, so D). q6: a probe whose "weighted average" candidate is built on a
`meshgrid(..., indexing="xy")` grid, so the candidate is each row scaled by its column sum and the plain-self
option B fits the output better at the probe's seed (so B). q7: a probe that counts the keys with non-zero weight as
`len(torch.where(row > 0))`, the length of the tuple of index tensors (always 1 for a row), and so concludes
that only one key is used (so C). q8: the heads gathered with an index grid as `Q[:, idx]` of shape
(T, n_heads, d_k) and then looped as `Qh[h]`, which is token h's heads, not head h's tokens (wrong shape unless
T = n_heads, an index error when T < n_heads); each head's columns taken with `masked_select` and refolded as
`.view(d_k, T).T`, as if the selection walked column by column; the head outputs `index_add_`-ed at the local
columns `arange(d_k)` instead of `arange(d_k) + h * d_k`, so every head lands on the first block. Spread: q1 x3,
q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x3 (q3 is a hand-graded markdown answer). The q1 variants also change q8,
which calls `attention`. The correct variants use the same tools and get them right: pair scores on a
`meshgrid(indexing="ij")` grid with `...` indexing (any batch rank); a stable softmax shifted by
`topk(1, dim=-1).values`; the mix by `index_add_` over the query index; q2 row sums by `scatter_add_`; q4 an
entropy on the descending sort (order does not change an entropy) and the table's scores by `index_select`; q8
heads by `index_select` written back with `index_copy_`, or by one-hot selection matrices (`F.one_hot(cols)`,
exact 0/1 products); letters from index-style probes done right.

Public material used (nothing copied verbatim): pytorch/pytorch issues #27080 and #31776 (the `scatter_` and
`scatter_add_` docs: with repeated indices `scatter_` keeps one written value, `scatter_add_` accumulates them;
grounds the overwriting q2 row sums and the q1 mix keyed by the wrong index); OpenImagingLab/FlashVSR issue #42
(top-k selection done across all query-key pairs rather than per query row: a top-k taken along the wrong axis;
grounds the q1 `topk(1, dim=0)` row max); AnswerDotAI/cold-compress PR #12 (sparse top-K attention: indices of
the top tokens computed and then gathered; grounds the sort-then-restore softmax and its gather/scatter
confusion); pytorch/pytorch issue #50276 and bennyguo/instant-nsr-pl PR #49 (`torch.meshgrid` 'ij' vs 'xy'
indexing differ and produce transposed grids, "an extremely hard bug to uncover"; grounds the q6 probe's grid);
whittle-org/whittle issue #235 (head indexing for grouped-query attention computed with the wrong indexes, giving
an incorrect reshaping; grounds the q8 heads indexed along the token axis and refolded in the wrong order).

How the variants were checked: /tmp/w89-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check` cells
skipped) and compared with full_marks: `attention` in float64, float32 and float16 for square and non-square
shapes (T_q != T_k both ways, T_q = 1, T_k = 1, d_v != d_k, d_k not a square, logits 30x wider), and its
gradients with respect to Q, K and V; `dot_product_variance` for several d_k and n_samples, scaled and not,
repeated with equal seeds; `softmax_entropy` on 1-D, 2-D and 3-D inputs, saturated rows (a gap of 1000), a
partly -inf row, float64/float32/float16, and its gradient; `entropy_table` with default and other dims and
seeds; the letters against C / A / D; `multi_head_attention` against full_marks and torch.nn.MultiheadAttention
(no biases) for 1 to 4 heads, T below, equal to and above n_heads and d_model, float32 and float64, and its
gradients to X and the four weights. The correct variants agree everywhere (those that rewrite `attention` also
on 3-D and 4-D batched inputs against a batched reference); each wrong one differs, only in the questions of its
"where", and runs without error on the notebook's own cells."""

CORRECT = {
    'q1_meshgrid_ij_pair_grid_q4_entropy_on_descending_sort_table_by_index_select': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    # one (query, key) pair per grid cell: qi[i, j] = i, kj[i, j] = j
    qi, kj = torch.meshgrid(torch.arange(T_q, device=Q.device), torch.arange(T_k, device=K.device),
                            indexing="ij")
    scores = (Q[..., qi, :] * K[..., kj, :]).sum(dim=-1) / math.sqrt(d_k)    # (..., T_q, T_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
''',
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    # the entropy does not depend on the order of the entries, so work on the row sorted largest first
    s, _ = logits.sort(dim=-1, descending=True)
    z = (s - s[..., :1]).clamp_min(torch.finfo(logits.dtype).min)    # row max at 0; -inf kept finite
    logp = z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))
    p = torch.exp(logp)
    return -(p * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    first = torch.tensor([0])
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T).index_select(0, first).reshape(-1)    # the one query's 5 scores
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    },

    'q2_scatter_add_row_sums_q8_index_select_heads_index_copy_back': {
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    prods = (q * k).reshape(-1)                                  # pair i's products at i*d_k .. i*d_k + d_k - 1
    rows = torch.arange(n_samples).repeat_interleave(d_k)        # which pair each product belongs to
    dots = torch.zeros(n_samples, dtype=prods.dtype).scatter_add_(0, rows, prods)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = Q.new_zeros(T, d_model)
    for h in range(n_heads):
        cols = torch.arange(h * d_k, (h + 1) * d_k, device=X.device)
        out_h, _ = attention(Q.index_select(1, cols), K.index_select(1, cols), V.index_select(1, cols), d_k)
        concat.index_copy_(1, cols, out_h)                       # head h back into its own columns
    return concat @ W_O
''',
    },

    'q1_topk_row_max_stable_softmax_q8_one_hot_selection_matrices': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    row_max = scores.topk(1, dim=-1).values           # (..., T_q, 1): the best key of each query
    e = torch.exp(scores - row_max)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = 0
    for h in range(n_heads):
        # selection matrix of head h: row c is the one-hot vector of column h*d_k + c
        P = F.one_hot(torch.arange(h * d_k, (h + 1) * d_k, device=X.device), d_model).to(X.dtype)
        out_h, _ = attention(Q @ P.T, K @ P.T, V @ P.T, d_k)
        concat = concat + out_h @ P                              # back into columns h*d_k .. (h+1)*d_k - 1
    return concat @ W_O
''',
    },

    'q1_mix_by_index_add_over_query_rows_q5_q6_q7_index_probes': {
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    qi, kj = torch.meshgrid(torch.arange(T_q, device=Q.device), torch.arange(T_k, device=Q.device),
                            indexing="ij")
    qi, kj = qi.reshape(-1), kj.reshape(-1)                     # one entry per (query, key) pair
    contrib = weights.reshape(*weights.shape[:-2], T_q * T_k, 1) * V[..., kj, :]
    out = V.new_zeros(*weights.shape[:-2], T_q, V.shape[-1]).index_add_(-2, qi, contrib)
    return out, weights
''',
        'q5_answer': '''
# probe: the dot product is the diagonal of the outer product q k^T, summed
_g = torch.Generator().manual_seed(0)
_d, _n = 64, 4000
_q = torch.randn(_n, _d, generator=_g)
_k = torch.randn(_n, _d, generator=_g)
_outer = _q[:, :, None] * _k[:, None, :]                 # (n, d, d): entry (i, j) is q_i k_j
_r = _c = torch.arange(_d)                               # the i == j entries
_var = _outer[:, _r, _c].sum(-1).var().item()
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d ** 2)}
q5_answer = min(_options, key=lambda L: abs(math.log(_var / _options[L])))
print(f"Var(q.k) at d = {_d}: {_var:.1f} -> {q5_answer}")
''',
        'q6_answer': '''
# probe: compare the self-attention output with each option built explicitly
_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 8, generator=_g, dtype=torch.float64)
_out, _W = attention(_X, _X, _X, 8)
_i, _j = torch.meshgrid(torch.arange(6), torch.arange(6), indexing="ij")     # _i: query, _j: key
_cands = {"A": (_W[_i, _j][..., None] * _X[_j]).sum(1),
          "B": _X,
          "C": _X[(_X @ _X.T).argmax(-1)],
          "D": _X.mean(0).expand_as(_X)}
q6_answer = min(_cands, key=lambda L: (_cands[L] - _out).abs().max().item())
print("closest option:", q6_answer)
''',
        'q7_answer': '''
# probe: how many keys does one query actually take something from?
_g = torch.Generator().manual_seed(0)
_q = torch.randn(1, 8, generator=_g)
_K = torch.randn(5, 8, generator=_g)
_V = torch.randn(5, 3, generator=_g)
_, _W = attention(_q, _K, _V, 8)
_used = torch.where(_W[0] > 0)[0].numel()               # indices of the keys with non-zero weight
q7_answer = "D" if _used == _K.shape[0] else "C"
print(f"{_used} of {_K.shape[0]} keys used -> {q7_answer}")
''',
    },
}

WRONG = {
    'q1_mix_index_add_keyed_by_key_index_not_query_index': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_q, T_k = Q.shape[0], K.shape[0]
    weights = F.softmax(Q @ K.T / math.sqrt(d_k), dim=-1)
    qi, kj = torch.meshgrid(torch.arange(T_q), torch.arange(T_k), indexing="ij")
    qi, kj = qi.reshape(-1), kj.reshape(-1)                     # one entry per (query, key) pair
    contrib = weights.reshape(-1, 1) * V[kj]                    # w[i, j] * V[j]
    out = V.new_zeros(T_q, V.shape[1]).index_add_(0, kj, contrib)
    return out, weights
''',
    }, {
        "mistake": "The weighted values w[i, j] * V[j] are accumulated with index_add_ using the KEY index j of "
                   "each pair instead of the query index i, so output row j is (sum over queries of w[i, j]) * "
                   "V[j]: one value row scaled by a column sum of the weights, not the mix softmax(...) V. The "
                   "weights are right; the output is wrong for every input with more than one key, and raises an "
                   "index error when there are more keys than queries. The q8 heads inherit the wrong output.",
        "where": ['q1', 'q8']}),

    'q1_sorted_softmax_put_back_with_gather_not_scatter': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    # stable softmax on each row sorted largest first, then put the probabilities back in key order
    s, idx = scores.sort(dim=-1, descending=True)
    e = torch.exp(s - s[:, :1])
    p_sorted = e / e.sum(dim=-1, keepdim=True)
    weights = p_sorted.gather(-1, idx)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "After a softmax on the scores sorted in descending order, the probabilities are put back with "
                   "gather(-1, idx) instead of scatter(-1, idx, p_sorted): gather applies the sort permutation a "
                   "second time instead of undoing it, so key j gets the probability of key idx[idx[j]]. The rows "
                   "still sum to 1, but the weights sit on the wrong keys (right only when a row's sort order is "
                   "its own inverse, e.g. with two keys), so the weights and the output are wrong. The q8 heads "
                   "inherit it.",
        "where": ['q1', 'q8']}),

    'q1_row_max_by_topk_along_queries_axis': ({
        'attention': '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    m = scores.topk(1, dim=0).values                 # largest score, subtracted for stability
    e = torch.exp(scores - m)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = weights @ V
    return out, weights
''',
    }, {
        "mistake": "The stabilising maximum is taken with topk(1, dim=0), along the queries, so every COLUMN is "
                   "shifted by its own maximum. A softmax over a row is unchanged only by one constant per row; "
                   "subtracting a different number from each key's score re-weights the keys, so the weights "
                   "(rows still sum to 1) and the output are wrong. With one query every score becomes 0 and the "
                   "weights are uniform. The q8 heads inherit it.",
        "where": ['q1', 'q8']}),

    'q2_dot_products_scattered_with_scatter_overwrite_not_scatter_add': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    prods = (q * k).reshape(-1)                                  # pair i's products at i*d_k .. i*d_k + d_k - 1
    rows = torch.arange(n_samples).repeat_interleave(d_k)        # which pair each product belongs to
    dots = torch.zeros(n_samples, dtype=prods.dtype).scatter_(0, rows, prods)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The d_k products of each pair are written into its slot with scatter_ (overwrite) instead of "
                   "scatter_add_ (accumulate), so each 'dot product' is a single product q_i k_i, not the sum of "
                   "d_k of them. The variance is about 1 unscaled (not d_k) and about 1 / d_k scaled (not 1); "
                   "right only for d_k = 1.",
        "where": ['q2']}),

    'q2_pairs_split_on_sample_axis_not_pair_axis': ({
        'dot_product_variance': '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    pairs = torch.randn(n_samples, 2, d_k, generator=generator)   # pair i is pairs[i] = (q_i, k_i)
    q, k = pairs[0], pairs[1]
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''',
    }, {
        "mistake": "The draws are shaped (n_samples, 2, d_k), but q and k are taken as pairs[0] and pairs[1], "
                   "which index the SAMPLE axis (the first two pairs) instead of pairs[:, 0] and pairs[:, 1]. So "
                   "q and k are 2 x d_k, only 2 dot products are computed, and the 'variance' is the variance of "
                   "2 numbers: nowhere near d_k (or 1 scaled) in general, and an index error for n_samples = 1.",
        "where": ['q2']}),

    'q4_entropy_zero_probs_dropped_with_masked_select_sums_all_rows': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    logp = F.log_softmax(logits, dim=-1)
    keep = p > 0                                  # 0 * log 0 terms are dropped
    return -(p.masked_select(keep) * logp.masked_select(keep)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The zero probabilities are dropped with masked_select, which returns one flat vector of every "
                   "kept entry of every row, so the final sum adds the terms of ALL rows: a batch of rows (..., T) "
                   "gives a single number (shape ()) instead of one entropy per row. A single 1-D row, and so the "
                   "table, come out right.",
        "where": ['q4']}),

    'q4_entropy_probs_from_sorted_logits_log_probs_from_unsorted': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    s, _ = logits.sort(dim=-1, descending=True)   # s[..., 0] is the row max
    m = s[..., :1]
    lse = m + torch.log(torch.exp(s - m).sum(dim=-1, keepdim=True))
    p = torch.exp(s - lse)
    logp = logits - lse
    return -(p * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The probabilities are computed from the SORTED logits but the log-probabilities from the "
                   "logits in their original order, so each p is multiplied by the log-probability of a different "
                   "entry: the sum is a cross-entropy between a permuted distribution and the real one, larger "
                   "than the entropy whenever the row is not already sorted (a saturated row whose max is not "
                   "first gives a huge value instead of 0). The table's entropies are wrong too.",
        "where": ['q4']}),

    'q4_entropy_shift_from_ascending_sort_takes_row_min': ({
        'softmax_entropy': '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    s, _ = logits.sort(dim=-1)
    z = logits - s[..., :1]                        # shift by the row max so exp cannot overflow
    logp = z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))
    p = torch.exp(logp)
    return -(p * logp).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
''',
    }, {
        "mistake": "The stabilising shift is read as sort(...)[..., :1], but sort is ascending by default, so it "
                   "subtracts the row MINIMUM, not the maximum. Rows of moderate width come out right, but a wide "
                   "(saturated) row overflows: exp of a large positive number is inf and the entropy is NaN "
                   "instead of 0.",
        "where": ['q4']}),

    'q5_answer_probe_outer_product_over_tril_indices_taken_as_diagonal': ({
        'q5_answer': '''
# probe: the dot product is the diagonal of the outer product q k^T, summed
_g = torch.Generator().manual_seed(0)
_d, _n = 64, 4000
_q = torch.randn(_n, _d, generator=_g)
_k = torch.randn(_n, _d, generator=_g)
_outer = _q[:, :, None] * _k[:, None, :]                 # (n, d, d): entry (i, j) is q_i k_j
_r, _c = torch.tril_indices(_d, _d, offset=0)           # offset 0: the diagonal
_var = _outer[:, _r, _c].sum(-1).var().item()
_options = {"A": 1.0, "B": _d ** 0.5, "C": float(_d), "D": float(_d ** 2)}
q5_answer = min(_options, key=lambda L: abs(math.log(_var / _options[L])))
print(f"Var(q.k) at d = {_d}: {_var:.1f} -> {q5_answer}")
''',
    }, {
        "mistake": "The probe meant to sum the diagonal q_i k_i of the outer product, but tril_indices(d, d, "
                   "offset=0) lists the whole lower triangle (diagonal included), d(d+1)/2 products, not the d "
                   "diagonal ones. Their sum has variance d(d+1)/2 (about 2080 at d = 64), which is closest to "
                   "d^2, so the answer is D instead of C (Var(q.k) = d_k).",
        "where": ['q5']}),

    'q6_answer_probe_mix_candidate_on_meshgrid_xy_grid': ({
        'q6_answer': '''
# probe: compare the self-attention output with each option built explicitly
_g = torch.Generator().manual_seed(0)
_X = torch.randn(6, 8, generator=_g, dtype=torch.float64)
_out, _W = attention(_X, _X, _X, 8)
_i, _j = torch.meshgrid(torch.arange(6), torch.arange(6), indexing="xy")     # _i: query, _j: key
_cands = {"A": (_W[_i, _j][..., None] * _X[_j]).sum(1),
          "B": _X,
          "C": _X[(_X @ _X.T).argmax(-1)],
          "D": _X.mean(0).expand_as(_X)}
q6_answer = min(_cands, key=lambda L: (_cands[L] - _out).abs().max().item())
print("closest option:", q6_answer)
''',
    }, {
        "mistake": "The probe builds the 'weighted average' candidate on a meshgrid with indexing='xy', whose first "
                   "grid varies along the columns: _i[a, b] = b and _j[a, b] = a, so the candidate row a is X[a] "
                   "times the column sum of the weights, not sum_j W[a, j] X[j]. The broken candidate loses, the "
                   "raw rows of X (the token itself) fit the output best, and the answer is B instead of A.",
        "where": ['q6']}),

    'q7_answer_keys_counted_with_len_of_torch_where_tuple': ({
        'q7_answer': '''
# probe: how many keys does one query actually take something from?
_g = torch.Generator().manual_seed(0)
_q = torch.randn(1, 8, generator=_g)
_K = torch.randn(5, 8, generator=_g)
_V = torch.randn(5, 3, generator=_g)
_, _W = attention(_q, _K, _V, 8)
_used = len(torch.where(_W[0] > 0))                     # indices of the keys with non-zero weight
q7_answer = "D" if _used == _K.shape[0] else "C"
print(f"{_used} of {_K.shape[0]} keys used -> {q7_answer}")
''',
    }, {
        "mistake": "torch.where(cond) with one argument returns a TUPLE of index tensors, one per dimension, so "
                   "len(...) of it is 1 for a row however many keys have non-zero weight (all 5 here). The probe "
                   "concludes that a single key is used, i.e. an argmax lookup, and answers C instead of D (a "
                   "softmax-weighted mix of all the values).",
        "where": ['q7']}),

    'q8_heads_from_index_grid_taken_along_token_axis': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    idx = torch.arange(d_model).view(n_heads, d_k)         # row h: the columns of head h
    Qh, Kh, Vh = Q[:, idx], K[:, idx], V[:, idx]           # (T, n_heads, d_k)
    heads = []
    for h in range(n_heads):
        out_h, _ = attention(Qh[h], Kh[h], Vh[h], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "Q[:, idx] has shape (T, n_heads, d_k) with the TOKENS first, but the loop takes Qh[h], which is "
                   "token h's n_heads slices, not head h's T rows (that is Qh[:, h]). Each 'head' attends between "
                   "the heads of one token, and the result has n_heads rows instead of T: the wrong shape unless "
                   "T = n_heads (then wrong values), and an index error when T < n_heads.",
        "where": ['q8']}),

    'q8_head_columns_masked_select_refolded_column_major': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    col = torch.arange(d_model)
    heads = []
    for h in range(n_heads):
        keep = (col >= h * d_k) & (col < (h + 1) * d_k)     # the columns of head h
        # masked_select walks the kept columns one after the other: fold back and transpose to (T, d_k)
        Q_h = Q.masked_select(keep).view(d_k, T).T
        K_h = K.masked_select(keep).view(d_k, T).T
        V_h = V.masked_select(keep).view(d_k, T).T
        out_h, _ = attention(Q_h, K_h, V_h, d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
''',
    }, {
        "mistake": "masked_select returns the kept entries in row-major order (token 0's d_k columns, then token "
                   "1's, ...), so the right refold is .view(T, d_k). Folding as .view(d_k, T).T instead scrambles "
                   "the entries between tokens and columns, so every head's queries, keys and values are "
                   "permuted numbers (shapes right) and the output is wrong (right only when T = 1 or d_k = 1).",
        "where": ['q8']}),

    'q8_head_outputs_index_added_at_local_columns_without_offset': ({
        'multi_head_attention': '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = Q.new_zeros(T, d_model)
    local = torch.arange(d_k)
    for h in range(n_heads):
        cols = local + h * d_k
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        concat.index_add_(1, local, out_h)
    return concat @ W_O
''',
    }, {
        "mistake": "Each head's output is written back with index_add_ at the LOCAL columns arange(d_k) instead of "
                   "its own columns arange(d_k) + h * d_k, so all heads are added together into the first d_k "
                   "columns and the rest of the concatenation stays 0 before W_O. The output is wrong for every "
                   "input with more than one head.",
        "where": ['q8']}),
}
