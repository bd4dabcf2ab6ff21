"""Twenty-first blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons (79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind20.py, so that their mistakes are not repeated in the same form.

How it was made: counting the earlier sets' names by question gives q2 47, q8 56, q1 72 and q4 78, and
every wrong letter of q5-q7 is already taken, so this set leans on q2 (four wrong variants) and q8 (four),
with four in q4 (two in `softmax_entropy`, two in `entropy_table`) and two in q1. Each pairs a right idea
with one wrong detail: the 1/sqrt(d_k) put on the queries (a right trick) and kept on the scores too,
weights rounded to the trace's 4 decimals, `torch.rand` for `torch.randn`, `randn_like` (which takes no
generator) for the keys, a mean of products for the dot product, the variance taken along the wrong axis
of a keepdim'd column, a `keepdim=True` carried over from the softmax into the entropy, an epsilon of 1e-5
(a default argument) inside the log, the table's draws in float64, the seed written as the lesson's
literal 0, heads stacked along the last axis before the merge, values chunked with the default `dim=0`,
a residual connection added to the output, and a decoder's causal mask.

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip seen
there, named in a comment above each (with the repository where the index gave it): `torch.rand` draws,
`randn_like` and its missing generator (pytorch/pytorch#27072), scores that average per-feature terms,
keepdim from CS336 self-study softmaxes, `eps=1e-5` (hankyul2/DomainAdaptation), the Annotated
Transformer's residual (Temtselt/transformer-impl and copies), and an always-on causal mask. The other
seven (both scaled, rounded weights, variance over the wrong axis, float64 draws, hard-coded seed, stacked
heads, chunk's default dim) are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip
that changes the output costs q8 too). Correct variants are valid but unusual (scores through `movedim`
and a hand-written stable softmax normalised in place, the draws from `torch.normal` with the variance
rescaled by `d_k` afterwards, the entropy as the soft-label cross entropy of p with itself, the table
built by `map` over a row helper with `torch.mv` scores, heads cut with `narrow` and merged with
`column_stack`). Every variant was run against the full-marks cells and plain torch
(`F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`) before it was written down here (a
script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

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
    "movedim_scores_softmax_normalised_in_place": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.matmul(Q, K.movedim(-1, -2)).div(d_k ** 0.5)
    weights = (scores - scores.amax(dim=-1, keepdim=True)).exp()
    weights /= weights.sum(dim=-1, keepdim=True)
    return weights.matmul(V), weights
'''},
    "normal_draws_variance_rescaled": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Var(q.k) over n_samples pairs; Var(c X) = c^2 Var(X), so the scaled one is Var(q.k) / d_k."""
    q = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    var = torch.einsum("nd,nd->n", q, k).var().item()
    return var / d_k if scaled else var
'''},
    "entropy_as_self_cross_entropy": {"softmax_entropy": '''
def softmax_entropy(logits):
    """H(p) = cross entropy of p with itself, p = softmax(logits), soft labels over the last dim."""
    T = logits.shape[-1]
    flat = logits.reshape(-1, T)
    p = flat.softmax(dim=-1)
    return F.cross_entropy(flat, p, reduction="none").reshape(logits.shape[:-1])
''' + _TABLE},
    "table_by_map_over_row_helper": {"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    def row(d):
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = torch.mv(k, q[0])              # the same 5 scores as (q @ k.T)[0]
        scaled = raw * d ** -0.5
        stats = {}
        for name, s in (("raw", raw), ("scaled", scaled)):
            stats[name + "_std"] = torch.std(s).item()
            stats["H_" + name] = softmax_entropy(s).item()
        return {"d": d, **stats}
    return list(map(row, dims))
'''},
    "narrow_heads_column_stack": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.size(1)
    d_k = d_model // n_heads
    Q, K, V = (torch.matmul(X, W) for W in (W_Q, W_K, W_V))
    outs = [attention(Q.narrow(1, h * d_k, d_k), K.narrow(1, h * d_k, d_k),
                      V.narrow(1, h * d_k, d_k), d_k)[0] for h in range(n_heads)]
    return torch.column_stack(outs) @ W_O
'''},
}

WRONG = {
    "q1_queries_and_scores_both_scaled": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    Q = Q / math.sqrt(d_k)               # scale the queries: cheaper than scaling the (T_q, T_k) scores
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights
'''}, {"mistake": "the 1/sqrt(d_k) scale is applied twice, once to the queries and again to the scores, so the "
                  "scores are divided by d_k instead of sqrt(d_k) and the weights are too flat",
       "where": ["q1", "q8"]}),
    "q1_weights_rounded_like_trace": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    output = weights @ V
    return output, weights.round(decimals=4)   # same 4 decimals as the lesson's trace
'''}, {"mistake": "the returned weights are rounded to 4 decimals (to match the printed trace), so they are off "
                  "by up to 5e-5 and their rows no longer sum to 1 exactly; the output itself is right",
       "where": ["q1"]}),
    # seen in: a public scaled-attention demo that seeds with 42 and draws `q = torch.rand(batch_size,
    # seq_length, d_k)` (uniform) for the queries, keys and values.
    "q2_uniform_rand_draws": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.rand(n_samples, d_k, generator=generator)
    k = torch.rand(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the vectors are drawn with torch.rand (uniform on [0, 1)) instead of torch.randn (standard "
                  "normal), so each product has variance 7/144 and Var(q.k) is about 0.05 d_k, not d_k",
       "where": ["q2"]}),
    # seen in: pytorch/pytorch#27072 ("RNG for torch.randn_like"), where users reach for randn_like with a
    # generator and find it has none: the keys here silently come from the global state.
    "q2_randn_like_for_keys": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn_like(q)                 # same shape and dtype as q
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the keys come from torch.randn_like(q), which takes no generator and draws from the global "
                  "random state, so two calls with generators seeded the same way give different numbers "
                  "(not all random numbers come from `generator`)",
       "where": ["q2"]}),
    # seen in: a public graph-attention module whose scores average the per-feature terms,
    # `scores.mean(dim=-1) / math.sqrt(self.head_dim)`, where a dot product sums them.
    "q2_mean_of_products": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).mean(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the dot product is taken as the mean of the coordinate products instead of their sum, so "
                  "every dot is divided by d_k and the variance is 1/d_k (1/d_k^2 when scaled) instead of "
                  "d_k (1)",
       "where": ["q2"]}),
    "q2_variance_over_wrong_axis": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1, keepdim=True)   # (n_samples, 1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var(dim=1).mean().item()
'''}, {"mistake": "the dots are kept as an (n_samples, 1) column and the variance is taken along dim 1, over a "
                  "single value per row, which gives NaN (a sample variance of one value) instead of the "
                  "variance across the samples (dim 0)",
       "where": ["q2"]}),
    # seen in: from-scratch softmaxes in CS336 self-study code
    # (`exp_x / torch.sum(exp_x, dim=dim, keepdim=True)`), where keepdim is needed; carried to the entropy.
    "q4_entropy_keepdim": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1, keepdim=True)
''' + _TABLE}, {"mistake": "the sum over the keys keeps its dimension (keepdim=True), so a (..., T) input gives "
                           "a (..., 1) tensor instead of shape (...); the values are right",
                "where": ["q4"]}),
    # seen in: hankyul2/DomainAdaptation src/entropy.py, `def entropy(prediction_softmax, eps=1e-5)` with
    # `torch.log(prediction_softmax + eps)`.
    "q4_log_epsilon_1e_5": ({"softmax_entropy": '''
def softmax_entropy(logits, eps=1e-5):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + eps)).sum(dim=-1)
''' + _TABLE}, {"mistake": "the guard inside the log is 1e-5 (a default argument) instead of something tiny like "
                           "1e-9, so every entropy is biased low by about T * 1e-5 nats (uniform over 5 keys "
                           "gives ln 5 - 5e-5)",
                "where": ["q4"]}),
    "q4_table_draws_in_float64": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d, dtype=torch.float64)   # float64 for a more exact table
        k = torch.randn(5, d, dtype=torch.float64)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "q and k are drawn as float64 instead of float32; with the same seed float64 randn produces "
                  "different numbers, so the table is not the lesson's (d = 4 stds and d = 256 entropies "
                  "differ)",
       "where": ["q4"]}),
    "q4_table_seed_hardcoded_zero": ({"softmax_entropy": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(0)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "the seed is the lesson's literal torch.manual_seed(0) instead of the `seed` argument, so "
                  "any other seed still gives the seed-0 table",
       "where": ["q4"]}),
    "q8_heads_stacked_last_axis": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        outs.append(out_h)
    concat = torch.stack(outs, dim=-1).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "the head outputs are stacked along the last axis, (T, d_k, n_heads), before the reshape to "
                  "(T, d_model), so the columns of the heads are interleaved instead of head 0's block "
                  "first (stacking on dim 1 or torch.cat(dim=-1) is right)",
       "where": ["q8"]}),
    "q8_values_chunked_default_dim": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for q_h, k_h, v_h in zip(Q.chunk(n_heads, dim=-1), K.chunk(n_heads, dim=-1), V.chunk(n_heads)):
        heads.append(attention(q_h, k_h, v_h, d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}, {"mistake": "the values are chunked with chunk's default dim=0, so they are cut into blocks of tokens "
                  "(rows) with all d_model columns instead of into column blocks like Q and K; with more "
                  "than one head the shapes no longer fit",
       "where": ["q8"]}),
    # seen in: Temtselt/transformer-impl model/sublayer.py and other copies of the Annotated Transformer's
    # SublayerConnection, `return x + self.dropout(sublayer(self.norm(x)))`.
    "q8_residual_added": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    out = torch.cat(heads, dim=1) @ W_O
    return X + out                   # residual connection around the sublayer
'''}, {"mistake": "the input X is added to the result (the residual connection of a transformer block), so "
                  "the function returns X + MHA(X) instead of multi-head attention alone",
       "where": ["q8"]}),
    # seen in: a public `scaled_dotprod_attn` that always adds `torch.triu(ones, diagonal=1) * (-1e9)` "to
    # prevent peaking", and Karpathy's nanoGPT heads with `masked_fill(tril == 0, float('-inf'))`.
    "q8_decoder_causal_mask": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Q = Q.view(T, n_heads, d_k).transpose(0, 1)
    K = K.view(T, n_heads, d_k).transpose(0, 1)
    V = V.view(T, n_heads, d_k).transpose(0, 1)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    tril = torch.tril(torch.ones(T, T, dtype=torch.bool))
    scores = scores.masked_fill(~tril, float("-inf"))   # no peeking at later tokens
    heads = F.softmax(scores, dim=-1) @ V
    concat = heads.transpose(0, 1).reshape(T, d_model)
    return concat @ W_O
'''}, {"mistake": "a causal (decoder) mask is applied, so each token attends only to itself and earlier "
                  "tokens; the exercise (and nn.MultiheadAttention without attn_mask) lets every token "
                  "attend to all tokens",
       "where": ["q8"]}),
}
