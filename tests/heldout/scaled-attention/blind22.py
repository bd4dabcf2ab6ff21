"""Twenty-second blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the student-facing text of the master notebook (its solution cells included),
`full_marks.ipynb`, `harness.py`, the file names under examples/submissions/, and only the module docstrings and variant names of blind.py ..
blind21.py (plus blind21's layout, to copy the format), so that their mistakes are not repeated in the same
form.

How it was made: round 22 asks for slips spread over every question, so this set has two wrong variants in
q1, three in q2, four in q4 (two in `softmax_entropy`, two in `entropy_table`), one written answer (q6) and
four in q8. Each pairs a right idea with one wrong detail: numpy's/Paddle's `axis=` keyword given to
`F.softmax`, an einsum that labels K in the layout of K^T, the query times the *transposed* keys
elementwise, `torch.dot` on the (n, d_k) sample matrices, the caller's generator re-seeded inside the
function, the entropy as a soft-label `F.cross_entropy` (whose class axis is dim 1, not the last), the
entropy as ln T minus a KL whose `F.kl_div` arguments are the wrong way round, a 1-D query that still gets
the 2-D code's `[0]`, the two entropies taken from a stack along the wrong axis, the "each token attends
to itself" answer, heads kept as the (output, weights) pairs that `attention` returns, nanoGPT's
`transpose(1, 2)` used on q8's batch-free 2-D input, correctly batched heads whose softmax is left to the
implicit dim (dim 0 of a 3-D stack), and the output projection cut into column blocks instead of row
blocks. Seven crash (axis keyword, einsum labels, transposed-keys broadcast, torch.dot, stack axis, list
of pairs, W_O column blocks) and seven silently return plausible wrong numbers (re-seeded generator, cross
entropy's class axis, swapped KL, indexed 1-D query, the q6 letter, nanoGPT's transpose, implicit dim).

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip seen
there, named in a comment above each: `F.softmax(scores, axis=-1)` in PaddleNLP's XLM attention and numpy
homework, `torch.dot` on 2-D tensors (DeepVAC/TorchPod#51, pytorch/pytorch#2401), `F.kl_div(a, b)` meaning
KL(b || a) (pytorch/pytorch#7337, #57459), soft-label cross entropy with the class axis at dim 1
(composer's `soft_cross_entropy` docs), Karpathy's `torch.cat([h(x) for h in self.heads], dim=-1)`
(ambujpawar/lets_learn_gpt, ChadBowman/ChadGPT), the batched `view(B, T, nh, hs).transpose(1, 2)` split
(nanoGPT, Open-Superintelligence-Lab's MHA tutorial), and implicit-dim `F.softmax(attn)` after a
`torch.bmm` (an early attention-is-all-you-need-pytorch ScaledDotProductAttention copy in the code index).
The other seven (einsum labels, transposed keys, re-seeded generator, indexed 1-D query, stack axis, q6
letter, W_O column blocks) are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (full_marks' q8 loops over the heads and calls the
student's `attention` on 2-D slices, so a q1 slip that breaks 2-D inputs costs q8 too). Correct variants
are valid but unusual (scores through `.mT` and an ellipsis einsum for the mix, the draws from
`torch.empty(...).normal_(generator=...)` with the scale applied in place, the entropy as an ellipsis
einsum of p with -log p, the table's stds and entropies from one stacked (2, 5) tensor unpacked with
`tolist`, and a fused QKV projection split with `split`, heads cut with `unflatten`, run one by one and
merged with `stack(dim=1).flatten(1)`). Every variant was run against the full-marks cells and plain torch
(`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written down here (a
script in /tmp, not in the repository): each correct one gives the full-marks values (float32 and float64,
other shapes, other seeds) and each wrong one differs or raises exactly in its `where`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)

'''

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''

CORRECT = {
    "mt_scores_ellipsis_einsum_mix": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.matmul(Q, K.mT) * d_k ** -0.5
    weights = scores.softmax(-1)
    output = torch.einsum("...qk,...kv->...qv", weights, V)
    return output, weights
'''},
    "empty_normal_draws_scaled_in_place": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.empty(n_samples, d_k).normal_(generator=generator)
    k = torch.empty(n_samples, d_k).normal_(generator=generator)
    dots = q.mul(k).sum(1)
    if scaled:
        dots.div_(math.sqrt(d_k))
    return float(torch.var(dots, correction=1))
'''},
    "entropy_ellipsis_einsum": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = torch.log_softmax(logits, -1)
    return torch.einsum("...t,...t->...", log_p.exp(), -log_p)
''' + _TABLE},
    "table_from_one_stacked_pair": {"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        pair = torch.stack([raw, raw / d ** 0.5])            # (2, 5): raw row, scaled row
        raw_std, scaled_std = pair.std(dim=1).tolist()
        H_raw, H_scaled = softmax_entropy(pair).tolist()
        rows.append(dict(d=d, raw_std=raw_std, scaled_std=scaled_std, H_raw=H_raw, H_scaled=H_scaled))
    return rows
'''},
    "fused_qkv_unflatten_stacked_heads": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    qkv = X @ torch.cat([W_Q, W_K, W_V], dim=1)               # (T, 3 d_model), like nanoGPT's c_attn
    Q, K, V = (t.unflatten(1, (n_heads, d_k)) for t in qkv.split(d_model, dim=1))   # (T, n_heads, d_k)
    outs = [attention(Q[:, h], K[:, h], V[:, h], d_k)[0] for h in range(n_heads)]
    return torch.stack(outs, dim=1).flatten(1) @ W_O          # (T, n_heads, d_k) -> (T, d_model)
'''},
}

WRONG = {
    # plausible: einsum for the scores, with K's subscripts written in the order of K^T ("dk") although K
    # itself is (T_k, d_k)
    "q1_einsum_keys_subscripts_reversed": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.einsum("qd,dk->qk", Q, K) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "the einsum labels K as 'dk' (the layout of K^T) although K is (T_k, d_k): d is bound to both "
                   "d_k and T_k, so it raises whenever T_k != d_k, and when they are equal it silently "
                   "contracts the queries' features with the key positions",
       "where": ["q1", "q8"]}),
    # seen in: PaddleNLP's XLM attention `F.softmax(scores, axis=-1)` and numpy attention homework that
    # write `softmax(scores, axis=-1)`; torch.nn.functional.softmax takes dim, not axis
    "q1_softmax_numpy_axis_keyword": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores, axis=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "the softmax is given numpy's/Paddle's keyword axis=-1; torch.nn.functional.softmax only "
                   "takes dim, so every call raises a TypeError",
       "where": ["q1", "q8"]}),
    # plausible: the transpose of QK^T carried over into the elementwise product of the pairs
    "q2_pairs_times_transposed_keys": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k.T).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the keys are transposed before the elementwise product, as in Q @ K^T; (n, d_k) * (d_k, n) "
                   "does not broadcast, so it raises a size-mismatch error (and would give the wrong products "
                   "even when n_samples == d_k)",
       "where": ["q2"]}),
    # seen in: DeepVAC/TorchPod#51 and pytorch/pytorch#2401 (torch.dot on 2-D tensors: "1D tensors expected")
    "q2_torch_dot_on_sample_matrices": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.dot(q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the n_samples dot products are taken with torch.dot on the (n_samples, d_k) matrices; "
                   "torch.dot only accepts 1-D vectors (it does not batch like numpy's dot), so it raises",
       "where": ["q2"]}),
    # plausible: "to make it reproducible" the student seeds the generator they were handed
    "q2_generator_reseeded_inside": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    generator.manual_seed(0)
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the caller's generator is re-seeded with 0 inside the function, so the caller's seed is "
                   "thrown away: every call draws the same numbers whatever generator state it is given "
                   "(and the caller's generator is reset as a side effect)",
       "where": ["q2"]}),
    # seen in: soft-label cross entropy (composer's soft_cross_entropy docs: input (N, C, d_1, ...), the
    # class axis is dim 1); H(p) = CE(p, p) is a right idea, F.cross_entropy's class axis is not the last
    "q4_entropy_soft_label_cross_entropy": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return F.cross_entropy(logits, F.softmax(logits, dim=-1), reduction="none")
''' + _TABLE}, {"mistake": "the entropy is computed as the soft-label cross entropy of p with itself, but "
                           "F.cross_entropy takes the classes along dim 1, not the last dim: right for 1-D and "
                           "2-D logits, but for 3-D and higher logits the values are wrong and the shape drops "
                           "dim 1 instead of the last",
                "where": ["q4"]}),
    # seen in: pytorch/pytorch#7337 and #57459 (F.kl_div(x, y) is KL(y || x), easy to swap)
    "q4_entropy_kl_div_arguments_swapped": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    T = logits.shape[-1]
    log_p = F.log_softmax(logits, dim=-1)
    uniform = torch.full_like(log_p, 1.0 / T)
    kl = F.kl_div(log_p, uniform, reduction="none").sum(dim=-1)   # meant KL(p || uniform)
    return math.log(T) - kl
''' + _TABLE}, {"mistake": "uses H(p) = ln T - KL(p || uniform), but F.kl_div(input, target) computes "
                           "KL(target || exp(input)), so with log p as input and the uniform as target it is "
                           "KL(uniform || p): the value is wrong for every non-uniform row and goes very "
                           "negative on saturated rows",
                "where": ["q4"]}),
    # plausible: the query drawn as a vector (same numbers as randn(1, d)) but the 2-D code's [0] kept
    "q4_table_vector_query_still_indexed": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "the query is drawn as a 1-D vector, so q @ k.T already holds the 5 scores, and the [0] "
                   "kept from the 2-D version picks just the first score: the stds are NaN (std of one "
                   "number) and both entropies are 0",
       "where": ["q4"]}),
    # plausible: entropies of the raw and scaled rows in one call, stacked along the wrong axis
    "q4_table_entropies_stacked_on_wrong_axis": ({"softmax_entropy": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        H_raw, H_scaled = softmax_entropy(torch.stack([raw, scaled], dim=1)).tolist()
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": H_raw, "H_scaled": H_scaled})
    return rows
'''}, {"mistake": "the raw and scaled scores are stacked along dim=1, giving a (5, 2) tensor, so the "
                   "entropy is taken over each (raw, scaled) pair: five values come back and unpacking them "
                   "into two names raises a ValueError",
       "where": ["q4"]}),
    # plausible: "X_i . X_i = |X_i|^2 is the biggest score, so each token attends to itself"
    "q6_answer_self_score_largest": ({"q6_answer": '''q6_answer = "B"  # a token's score with itself is the largest
'''}, {"mistake": "answers B (each token returns itself); the output row is a softmax-weighted average of all "
                   "rows (A): the self-score is often but not always the largest, and the softmax is not an "
                   "argmax anyway",
       "where": ["q6"]}),
    # seen in: Karpathy's MultiHeadAttention `torch.cat([h(x) for h in self.heads], dim=-1)`
    # (ambujpawar/lets_learn_gpt, ChadBowman/ChadGPT), whose heads return one tensor, not a pair
    "q8_heads_kept_as_pairs": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k) for h in range(n_heads)]
    return torch.cat(heads, dim=-1) @ W_O
'''}, {"mistake": "each head keeps the (output, weights) pair that attention returns, so torch.cat receives a "
                   "list of tuples and raises a TypeError; only the outputs should be concatenated",
       "where": ["q8"]}),
    # seen in: nanoGPT's CausalSelfAttention and Open-Superintelligence-Lab's MHA tutorial,
    # `.view(B, T, n_head, hs).transpose(1, 2)`, which assumes a batch axis that q8's 2-D X does not have
    "q8_batched_transpose_on_2d_input": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(1, 2)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(1, 2)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(1, 2)
    att = (Q @ K.transpose(-2, -1)) * (1.0 / math.sqrt(d_k))
    att = F.softmax(att, dim=-1)
    y = (att @ V).transpose(1, 2).contiguous().view(T, d_model)
    return y @ W_O
'''}, {"mistake": "copies the batched split view(B, T, h, d_k).transpose(1, 2) onto a 2-D X: with no batch "
                   "axis, transpose(1, 2) gives (T, d_k, n_heads), so the softmax runs within each token over "
                   "its d_k features instead of over the tokens; the shapes still work out and the result is "
                   "silently wrong",
       "where": ["q8"]}),
    # seen in: an early attention-is-all-you-need-pytorch ScaledDotProductAttention copy in the code index,
    # `attn = F.softmax(attn)` right after a torch.bmm over a (batch, T, T) stack
    "q8_batched_heads_softmax_dim_implicit": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)     # (n_heads, T, d_k)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    attn = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(d_k)
    attn = F.softmax(attn)
    heads = torch.bmm(attn, V)                                 # (n_heads, T, d_k)
    return heads.transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "the heads are batched correctly, but the softmax is called without dim; for a 3-D "
                   "(n_heads, T, T) tensor PyTorch's implicit choice is dim 0, so the weights are normalised "
                   "across the heads instead of across the keys (with one head every weight becomes 1)",
       "where": ["q8"]}),
    # plausible: the blockwise output projection (a right idea) cut along the wrong axis of W_O
    "q8_w_o_blocks_cut_by_columns": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = 0
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        out = out + head @ W_O[:, cols]
    return out
'''}, {"mistake": "writes concat @ W_O as a sum of per-head products (a right identity) but takes head h's "
                   "block of W_O as columns h*d_k.. instead of rows: (T, d_k) @ (d_model, d_k) does not "
                   "multiply, so it raises whenever n_heads > 1",
       "where": ["q8"]}),
}
