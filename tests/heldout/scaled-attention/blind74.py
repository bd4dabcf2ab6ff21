"""Seventy-fourth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, `assignments/scaled-attention/hidden/`, `reference/`, `autograder/`,
`variants.py`, `measure.py`, the naming tests or the round tests. What was read: the solution cells of
`examples/submissions/scaled-attention/full_marks.ipynb` (q1 a 2-D `attention`; q2 `dot_product_variance`;
q4 `softmax_entropy` and `entropy_table` in one cell; q5..q7 one letter each; q8 a loop over heads calling the
2-D `attention`; the notebook has no masks), `tests/heldout/harness.py`, blind73.py for the format, and only
the variant NAMES of the earlier blind*.py sets. The grader was not run on this set.

Focus of the round: NUMPY HABITS, torch written as if it were NumPy. In q1: a max shift taken without
keepdim (the (T_q,) maxima broadcast along the key axis: a column-wise shift, wrong for square scores and a
shape error otherwise), the key transpose written as `K.reshape(d_k, T_k)` (a reshape is not a transpose), the
output rows written into a `torch.zeros(T_q, d_v)` buffer (NumPy's zeros are float64, torch's are float32:
float64 inputs come back float32 and rounded), and the inputs upcast to float64 "as NumPy does" and never
cast back (float32 inputs get float64 results); in q2: the draws taken from
`np.random.randn` (the generator is ignored: not reproducible) and the products summed with `.sum(0)`
(`axis=0` habit: sums over the samples, not the coordinates); in q4: log-probabilities `logits -
torch.logsumexp(logits, -1)` without keepdim (1-D rows fine, batches wrong or a shape error), the table's stds
taken by `np.std` (ddof=0, not torch's unbiased default), and the table's draws made in float64 "as NumPy
does" (another random stream than the specified float32 one); q5 'D' from a probe that used `q @ k.T`
(np.dot habit) on (n, d_k) draws with n = d_k and summed the rows; q6 'B' from a probe that printed
`W.max(-1)[1]` (the indices of the max pair) and read the diagonal indices as "each token keeps itself"; q7
'C' from a probe on `torch.arange(12).reshape(4, 3)`-style test keys (huge raw scores: a saturated, one-hot
softmax read as an argmax); in q8: `d_model = len(X)` (len is the number of tokens, not the width), and heads
reshaped to (n_heads, T, d_k) whose keys are transposed with `.T` (reverses all three axes). Spread: q1 x4,
q2 x2, q4 x3, q5 x1, q6 x1, q7 x1, q8 x2 (q3 is a hand-graded markdown answer). The correct variants are
NumPy-flavoured and right: `axis=`/`keepdim=True` reductions with `.values` taken from the max pair, `.mT`,
`swapaxes(-2, -1)` and `transpose(-2, -1)` for the key transpose, a scale built in the input's dtype,
`torch.var(..., correction=1)` on draws all taken from the generator, a log-sum-exp entropy with keepdim, an
unbiased `torch.std`, and batched heads through `.mT` with the merge by `transpose(0, 1).reshape`.

Public material used (nothing copied verbatim): the torch.max documentation page (pytorch.org/docs/stable/
generated/torch.max.html: with a dim it returns a namedtuple (values, indices), and keepdim defaults to False
so the reduced axis is squeezed); pytorch/pytorch PR #64180 ("Deprecate x.T on tensors of dimension other than
0 or 2": `.T` reverses all the axes, NumPy style; the warning recommends `x.mT` for batches of matrices) and the
issues that hit that warning in real code (tud-amr/mppi-isaac #57, datamol-io/graphium #295, braindecode PR
#446, ML4GW/ml4gw PR #147 "Use .mT instead of .T"); DeNA/HandyRL PR #209 (a NumPy softmax fixed by
`keepdims=True` on the max and the sum so it broadcasts back over multi-dimensional input); pytorch/pytorch
issues #1020 and #1763 (softmax over the wrong dimension for 3-D input before `dim` was explicit).

How the variants were checked: /tmp/w74-scaled-attention/check.py built each notebook with
harness.build_notebook, ran its code cells top to bottom in one namespace (otter's init and `grader.check`
cells skipped) and compared every function with plain torch: `attention` against a float64
`softmax(Q K^T / sqrt(d_k)) V` (itself checked against `F.scaled_dot_product_attention`) on (T_q, T_k, d_k,
d_v) including T_q != T_k, d_v != d_k, T_q = 1, T_k = 1, d_v = 1 and a d_k argument different from the query
width, in float64 and float32 (dtype of both results checked), inputs unchanged and repeated calls equal; the
correct ones also in float16 (dtype kept) and backward; `dot_product_variance` at several d_k, scaled and not,
within 10%, a Python float, reproducible with equally seeded generators; `softmax_entropy` against a
log_softmax entropy on (7,), (3, 5), (5, 5), (2, 3, 7), (4, 1), (1, 5), (2, 3, 4, 5) and saturated rows;
`entropy_table` against the spec with the defaults and other dims/seed; the letters against C / A / D;
`multi_head_attention` against a head loop and `torch.nn.MultiheadAttention` (no biases, transposed weights)
in float64 and float32 with T = 1, T equal to the head width and to d_model, odd and width-1 heads. The
correct variants agree everywhere; each wrong one differs only in its "where"."""

CORRECT = {
    "q1_numpy_style_axis_keepdim_softmax_values_of_max_pair_mT": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.mT / math.sqrt(d_k)
    # NumPy's  s - s.max(axis=-1, keepdims=True) : torch spells it keepdim and max gives (values, indices)
    row_max = scores.max(axis=-1, keepdim=True).values
    e = torch.exp(scores - row_max)
    weights = e / e.sum(axis=-1, keepdim=True)
    out = weights @ V
    return out, weights
'''},

    "q1_max_pair_unpacked_swapaxes_scale_in_input_dtype": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # np.sqrt(d_k) would be float64; build the scale as a 0-d tensor in the inputs' own dtype instead
    scale = torch.as_tensor(d_k, dtype=Q.dtype).sqrt()
    scores = torch.matmul(Q, K.swapaxes(-2, -1)) / scale
    m, _ = torch.max(scores, dim=-1, keepdim=True)      # values first, indices second
    e = (scores - m).exp()
    weights = e / torch.sum(e, dim=-1, keepdim=True)
    out = torch.matmul(weights, V)
    return out, weights
'''},

    "q2_float64_draws_from_generator_einsum_var_correction_one": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    # like np.random.default_rng(seed).standard_normal((n, d)), but every number from the torch generator
    q = torch.randn((n_samples, d_k), generator=generator, dtype=torch.float64)
    k = torch.randn((n_samples, d_k), generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", q, k)              # sum over axis=-1 (the coordinates), one per sample
    if scaled:
        dots = dots / math.sqrt(d_k)
    return float(torch.var(dots, axis=0, correction=1))
'''},

    "q4_logsumexp_keepdim_entropy_table_unbiased_std_mT": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = logits - torch.logsumexp(logits, axis=-1, keepdim=True)   # keepdim: broadcasts back per row
    return -(log_p.exp() * log_p).sum(axis=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)                      # torch's default float32, as the lesson draws them
        k = torch.randn(5, d)
        raw = (q @ k.mT)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d,
                     "raw_std": torch.std(raw, correction=1).item(),      # unbiased, unlike np.std
                     "scaled_std": torch.std(scaled, correction=1).item(),
                     "H_raw": softmax_entropy(raw).item(),
                     "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''},

    "q8_batched_heads_mT_transpose_merge_reshape": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape                    # shape[-1] is the width; len(X) would be T
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    # (T, d_model) -> (T, n_heads, d_k) -> (n_heads, T, d_k): swap the two leading axes only
    Qh, Kh, Vh = (M.reshape(T, n_heads, d_k).transpose(0, 1) for M in (Q, K, V))
    scores = Qh @ Kh.mT / math.sqrt(d_k)    # .mT swaps the last two axes; .T would reverse all three
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ Vh                    # (n_heads, T, d_k)
    concat = heads.transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''},
}

WRONG = {
    "q1_max_shift_without_keepdim_broadcasts_over_keys": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    # stable softmax, the NumPy way: subtract the row max, exponentiate, normalise
    row_max = scores.max(axis=-1).values
    e = torch.exp(scores - row_max)
    weights = e / e.sum(axis=-1, keepdim=True)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The row maxima are taken without keepdim, so they have shape (T_q,) and broadcast along the "
                  "key axis: column j is shifted by the maximum of row j, not every entry of a row by that row's "
                  "maximum. That is not a constant per row, so the softmax changes: for square scores (T_q == "
                  "T_k, every head in q8) the weights and output are wrong, for a single query (T_q = 1) it "
                  "happens to be right, and otherwise the subtraction raises a shape error.",
       "where": ["q1", "q8"]}),

    "q1_key_transpose_written_as_reshape": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    T_k = K.shape[0]
    K_t = K.reshape(K.shape[1], T_k)        # (d_k, T_k), the shape K^T should have
    scores = Q @ K_t / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "K^T is made with `reshape(d_k, T_k)`, which has the right shape but re-reads K's entries in "
                  "row-major order instead of swapping the axes: the scores pair queries with scrambled key "
                  "coordinates, so the weights and output are wrong whenever T_k > 1 and d_k > 1 (q8's heads "
                  "reuse it).",
       "where": ["q1", "q8"]}),

    "q1_output_rows_written_into_default_float32_zeros": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = torch.zeros(Q.shape[0], V.shape[1])       # like np.zeros((T_q, d_v))
    for i in range(Q.shape[0]):
        out[i] = weights[i] @ V                     # each output row mixes the value rows
    return out, weights
'''}, {"mistake": "The output buffer comes from `torch.zeros(T_q, d_v)` with no dtype: NumPy's zeros are "
                  "float64 but torch's default is float32, so for float64 inputs the output is rounded to "
                  "float32 and returned as float32 (the weights stay float64); q8 then multiplies a float32 "
                  "concatenation by a float64 W_O and fails.",
       "where": ["q1", "q8"]}),

    "q1_inputs_upcast_to_float64_like_numpy_never_cast_back": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
    # work in double precision, as NumPy does by default
    Q, K, V = Q.double(), K.double(), V.double()
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "The inputs are converted to float64 'as NumPy would' and never converted back: float32 inputs "
                  "give float64 weights and output instead of keeping their dtype (the values are right, the "
                  "dtype is not); in q8 the float64 concatenation of heads then meets a float32 W_O and the "
                  "matrix product fails.",
       "where": ["q1", "q8"]}),

    "q2_draws_from_numpy_random_ignore_the_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    import numpy as np
    q = torch.from_numpy(np.random.randn(n_samples, d_k))
    k = torch.from_numpy(np.random.randn(n_samples, d_k))
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The normals come from NumPy's global `np.random.randn`, not from `generator`: the variance is "
                  "about right, but two calls with equally seeded generators give different numbers (not "
                  "reproducible, the generator is ignored).",
       "where": ["q2"]}),

    "q2_products_summed_over_axis_zero_the_samples": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(0)               # np.sum(q * k, axis=0)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "The products are summed over axis 0, the samples, instead of over the d_k coordinates: it "
                  "gets d_k sums of n_samples products each, whose variance is about n_samples (n_samples / d_k "
                  "when scaled), not d_k and 1 (and NaN for d_k = 1).",
       "where": ["q2"]}),

    "q4_log_probs_logsumexp_without_keepdim": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = logits - torch.logsumexp(logits, dim=-1)      # log softmax, no 0 * log 0 problem
    return -(log_p.exp() * log_p).sum(dim=-1)


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
'''}, {"mistake": "The log-sum-exp is taken without keepdim, so for batched logits its (..., ) result broadcasts "
                  "against the last (key) axis instead of each row: a 1-D row (the table) and a single (1, T) row are "
                  "right, but other batches either give wrong entropies (each row normalised by another row's "
                  "log-sum-exp, sometimes with a wrong shape) or raise a shape error.",
       "where": ["q4"]}),

    "q4_table_std_by_numpy_population_ddof_zero": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    import numpy as np
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": float(np.std(raw.numpy())),
                        "scaled_std": float(np.std(scaled.numpy())),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The stds are taken with `np.std`, whose default is ddof=0 (divide by n), not torch.std's "
                  "unbiased default the question asks for (divide by n - 1): with 5 scores both stds are "
                  "sqrt(4/5), about 0.894, times the right ones (entropies right).",
       "where": ["q4"]}),

    "q4_table_draws_in_float64_as_numpy_would": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        # double precision, like np.random.randn gives
        q = torch.randn(1, d, dtype=torch.float64); k = torch.randn(5, d, dtype=torch.float64)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "The table's draws are made in float64 instead of torch's default float32 the question "
                  "specifies: from the same seed torch produces a different stream of normals in float64 (for "
                  "d >= 16), so the stds and entropies are not the lesson's table.",
       "where": ["q4"]}),

    "q5_answer_d_from_np_dot_style_probe_rows_summed": ({"q5_answer": '''
# Probe: q = torch.randn(n, d_k), k = torch.randn(n, d_k) with n = d_k samples, dots = (q @ k.T).sum(1)
# (like np.dot(q, k.T)), then dots.var(): about 16, 256, 4096 for d_k = 4, 16, 64, i.e. d_k squared.
q5_answer = "D"
'''}, {"mistake": "Answers D (d_k^2) from a probe that used `q @ k.T` as if it paired rows (np.dot habit): that is "
                  "the matrix of all q_i . k_j, and summing its rows with n = d_k samples multiplies the variance "
                  "by n; the variance of one dot product is d_k (C).",
       "where": ["q5"]}),

    "q6_answer_b_from_max_pair_indices_read_as_weights": ({"q6_answer": '''
# Probe: X = torch.randn(4, 8); out, W = attention(X, X, X, 8); print(W.max(-1)[1])
# -> tensor([0, 1, 2, 3]): row i's weight sits on token i, so each token attends only to itself.
q6_answer = "B"
'''}, {"mistake": "Answers B from a probe that printed `W.max(-1)[1]`, the indices of the (values, indices) pair, "
                  "and read [0, 1, 2, 3] as 'all the weight on itself'; the values (below 1) show each output "
                  "row is a softmax-weighted average of all rows of X (A).",
       "where": ["q6"]}),

    "q7_answer_c_from_probe_on_arange_keys_saturating": ({"q7_answer": '''
# Probe: K = torch.arange(12.).reshape(4, 3), V = torch.eye(4), Q = K[1:2] + 1; attention(Q, K, V, 3)
# gives weights like [0, 0, 0, 1]: only the best-scoring key comes back, an argmax.
q7_answer = "C"
'''}, {"mistake": "Answers C from a probe on `arange(12).reshape(4, 3)`-style test keys (NumPy demo data): their "
                  "raw scores differ by tens, so the softmax saturates to one-hot and looks like an argmax; in "
                  "general attention returns a softmax-weighted mix of all values, a differentiable soft lookup "
                  "(D).",
       "where": ["q7"]}),

    "q8_d_model_from_len_of_x_counts_tokens": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = len(X)
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "`len(X)` is the size of the first axis, the number of tokens T, not the width d_model: the head "
                  "width becomes T // n_heads, so the slices and the scale are wrong (the concatenation then has "
                  "the wrong width and the product with W_O fails, or the heads are empty) unless T == d_model.",
       "where": ["q8"]}),

    "q8_batched_heads_keys_transposed_with_T_reversing_all_axes": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Qh, Kh, Vh = (M.reshape(T, n_heads, d_k).transpose(0, 1) for M in (Q, K, V))   # (n_heads, T, d_k)
    scores = Qh @ Kh.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ Vh
    concat = heads.transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "The batched keys are transposed with `.T`, which on a 3-D tensor reverses all three axes "
                  "(NumPy semantics), giving (d_k, T, n_heads) instead of (n_heads, d_k, T): the batched product "
                  "raises a shape error for most shapes and mixes heads, tokens and coordinates where the sizes "
                  "happen to match; `.mT` or transpose(-2, -1) was meant.",
       "where": ["q8"]}),
}
