"""Twentieth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons (79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind19.py, so that their mistakes are not repeated in the same form.

How it was made: counting the earlier sets' names by question puts q2 (43 names) well below q1, q4 and
q8, and every wrong letter of q5-q7 is already taken, so this set leans on q2 (four wrong variants) and
on the parts of q4 not yet worked (six: three in `softmax_entropy`, three in `entropy_table`), with three
in q1 and one in q8. Each pairs a right idea with one wrong detail: an exact `== 1` row-sum assert, a
`//` for a `/`, a scale from a float32 `torch.ones(1)`, a square root written `** 1/2`, a `normal_` whose
in-place result aliases the query, the moment formula of the variance with its terms swapped, a
`randperm` that draws from the global generator by default, `Categorical(logits)` where the positional
parameter is `probs`, a `logsumexp` without `keepdim`, `clamp(max=...)` for `clamp(min=...)`, the
lesson's milestone dims `(4, 16, 64)` as the default, the returned values rounded to 2 decimals, one draw
at the largest `d` sliced for the smaller ones, and a heads list as a mutable default argument.

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip
seen there, each named in a comment above it (where the index named the repository, it is given). The
other seven (in-place `normal_`, swapped moments, `logsumexp` without keepdim, `clamp(max=)`, the
milestone dims, one sliced draw, the mutable default) are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake; `where` lists the questions that should lose points (q8 calls the student's `attention`, so a
q1 slip costs q8 too). Correct variants are valid but unusual (scale as a same-dtype `rsqrt` multiplied in
place, both draws from one `normal_` buffer with the scale as `d_k ** (scaled / 2)`, entropy as
`log T - KL(p || uniform)`, a log guarded by `finfo.tiny`, heads cut and put back with columns of an
identity matrix). Every variant was run against the full-marks cells and plain torch before it was
written down here (a script in /tmp, not in the repository).

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

_TABLE = '''

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
'''

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''

CORRECT = {
    "rsqrt_same_dtype_scale_in_place": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    inv_scale = torch.tensor(d_k, dtype=Q.dtype).rsqrt()
    scores = torch.mm(Q, K.t()).mul_(inv_scale)
    weights = scores.softmax(dim=1)
    return torch.mm(weights, V), weights
'''},
    "one_normal_buffer_power_of_flag": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q, k = torch.empty(2, n_samples, d_k).normal_(generator=generator)
    dots = torch.linalg.vecdot(q, k) / d_k ** (scaled / 2)
    return float(dots.var())
'''},
    "entropy_as_log_t_minus_kl_to_uniform": {"softmax_entropy": '''
def softmax_entropy(logits):
    """H(p) = log T - KL(p || uniform over the T keys)."""
    T = logits.shape[-1]
    p = F.softmax(logits, dim=-1)
    log_uniform = torch.full_like(p, -math.log(T))
    return math.log(T) - F.kl_div(log_uniform, p, reduction="none").sum(-1)
''' + _TABLE},
    "log_guarded_by_finfo_tiny": {"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats; a probability that underflowed to 0 is raised to the smallest normal float,
    so 0 * log(tiny) is 0 instead of 0 * log(0) = NaN."""
    p = torch.softmax(logits, -1)
    log_p = p.clamp_min(torch.finfo(p.dtype).tiny).log()
    return -(p * log_p).sum(-1)
''' + _TABLE},
    "heads_through_identity_columns": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """Head h reads columns h*d_k .. (h+1)*d_k - 1 through a block of the identity, and its output is
    written back to the same columns through the transposed block."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    eye = torch.eye(d_model, dtype=X.dtype)
    concat = torch.zeros_like(Q)
    for h in range(n_heads):
        E = eye[:, h * d_k:(h + 1) * d_k]
        out_h, _ = attention(Q @ E, K @ E, V @ E, d_k)
        concat = concat + out_h @ E.T
    return concat @ W_O
'''},
}

WRONG = {
    # seen in: public code that checks "the row of obs should sum to 1" with
    # `assert (obs.sum(dim=-1) == 1).all()` (left commented out there); the lesson's rule is
    # `assert abs(W.sum(-1) - 1).max() < 1e-5`.
    "q1_row_sums_asserted_exactly": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    assert (weights.sum(-1) == 1).all(), "rows must sum to 1"
    out = weights @ V
    return out, weights
'''}, {"mistake": "the row-sum check compares floating-point sums with 1 exactly (== 1) instead of within a "
                  "tolerance, so the function raises AssertionError on ordinary inputs whose rows sum to "
                  "0.99999994 or 1.0000001",
       "where": ["q1", "q8"]}),
    # seen in: eight public "transformer from scratch" attention functions (copies of one tutorial) with
    # `attention_scores = (query @ key.transpose(-2, -1)) // math.sqrt(d_k)`.
    "q1_floor_division_scale": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T // d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scale is applied with floor division (//) instead of true division, so every scaled "
                  "score is rounded down to a whole number before the softmax",
       "where": ["q1", "q8"]}),
    # seen in: ies0411/openViT model/backbone/attention/self_attention.py,
    # `q @ k / torch.sqrt(self.head_dim * torch.ones(1))`.
    "q1_scale_from_float32_ones": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / torch.sqrt(d_k * torch.ones(1))
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scale is sqrt(d_k * torch.ones(1)), a float32 tensor, so for float64 inputs the "
                  "scores are divided by a square root rounded to float32 precision and the output is off "
                  "by about 1e-8 relative (float32 accuracy in a float64 result)",
       "where": ["q1", "q8"]}),
    # seen in: two public PyTorch attention modules, `energy = th.matmul(Qh, Kh.transpose(1, 2)) /
    # (self.d_k ** 1/2)` and `T.softmax(scores, dim=-1) / self.d_k ** 1/2`.
    "q2_square_root_as_power_one_half": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / d_k ** 1/2
    return dots.var().item()
'''}, {"mistake": "the square root is written dots / d_k ** 1/2, which Python reads as (dots / d_k) / 2, so "
                  "the scaled dots are divided by 2 d_k instead of sqrt(d_k) and their variance is "
                  "1 / (4 d_k) instead of 1",
       "where": ["q2"]}),
    "q2_key_drawn_in_place_over_query": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True)."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = q.normal_(generator=generator)   # a fresh draw of the same shape
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the keys are drawn with the in-place q.normal_(...), which overwrites q and returns q "
                  "itself, so k is q and every 'dot product' is |q|^2, whose variance is 2 d_k (2 when "
                  "scaled), not d_k",
       "where": ["q2"]}),
    "q2_moment_formula_terms_swapped": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k via Var = E[X^2] - E[X]^2."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return (dots.mean() ** 2 - (dots ** 2).mean()).item()
'''}, {"mistake": "the variance is computed as E[X]^2 - E[X^2], the moment formula with its two terms "
                  "swapped, so it returns about -d_k (about -1 when scaled)",
       "where": ["q2"]}),
    # seen in: public ablation code that builds explicit generators (`make_generator(...)`) yet shuffles
    # with `z = z[torch.randperm(batch_size, device=device)]`, no generator passed.
    "q2_randperm_on_global_generator": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k: queries drawn from `generator`, keys = the queries shuffled."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = q[torch.randperm(n_samples)]
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the keys are the queries shuffled with torch.randperm, which is given no generator and so "
                  "draws from the global one: the result changes from call to call with generators seeded "
                  "the same way (not all random numbers come from `generator`)",
       "where": ["q2"]}),
    # seen in: a public PyTorch actor-critic learner, `dist_entropy = Categorical(logits).entropy()`
    # (the TF / distrax habit, where the first parameter is logits); cf. pytorch/pytorch#50378.
    "q4_categorical_positional_is_probs": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    return torch.distributions.Categorical(logits).entropy()
''' + _TABLE}, {"mistake": "Categorical(logits) passes the logits positionally, and the first parameter of "
                           "Categorical is probs, so the scores are taken as unnormalised probabilities (a "
                           "ValueError for any negative score) instead of being put through a softmax",
                "where": ["q4"]}),
    "q4_logsumexp_without_keepdim": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim, from log-probabilities."""
    log_p = logits - torch.logsumexp(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)
''' + _TABLE}, {"mistake": "the log-normaliser logsumexp(logits, dim=-1) is subtracted without keepdim=True, "
                           "so for batched rows it broadcasts along the last axis (row i's normaliser is "
                           "subtracted from column i): right for a single 1-D row, a shape error or wrong "
                           "entropies for a (..., T) batch",
                "where": ["q4"]}),
    "q4_clamp_max_instead_of_min": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p.clamp(max=1e-9))).sum(dim=-1)
''' + _TABLE}, {"mistake": "the guard before the log is clamp(max=1e-9) instead of clamp(min=1e-9), so every "
                           "probability is cut down to 1e-9 and the 'entropy' is about -log(1e-9) = 20.7 "
                           "for every row",
                "where": ["q4"]}),
    "q4_table_default_dims_from_milestone": ({"entropy_table": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64), seed=0):
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
'''}, {"mistake": "the default dims is (4, 16, 64), the lesson's variance milestone, instead of (4, 16, 64, "
                  "256), so the table called with its defaults has no d = 256 row",
       "where": ["q4"]}),
    # seen in: public experiment code that returns rounded statistics, e.g. an init-scale experiment
    # `std_layer.append(round(torch.std(a).item(),2))` and attention stats
    # `stats["std_max_attn"] = round(torch.std(max_values).item(), 4)`.
    "q4_table_values_rounded": ({"entropy_table": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d, values to 2 decimals for a readable table."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": round(raw.std().item(), 2),
                        "scaled_std": round(scaled.std().item(), 2),
                        "H_raw": round(softmax_entropy(raw).item(), 2),
                        "H_scaled": round(softmax_entropy(scaled).item(), 2)})
    return results
'''}, {"mistake": "the returned stds and entropies are rounded to 2 decimals (for a readable table), so "
                  "they differ from the true values by up to 5e-3",
       "where": ["q4"]}),
    "q4_table_one_draw_sliced_per_d": ({"entropy_table": _ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d; the vectors are drawn once at the largest d and cut down for smaller ones."""
    torch.manual_seed(seed)
    q_all = torch.randn(1, max(dims)); k_all = torch.randn(5, max(dims))
    results = []
    for d in dims:
        q, k = q_all[:, :d], k_all[:, :d]
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "q and k are drawn once, at the largest d, and the first d columns are sliced for each "
                  "smaller d, instead of reseeding and drawing q (1, d) then k (5, d) for every d, so only "
                  "the largest d's row matches the lesson's table",
       "where": ["q4"]}),
    "q8_heads_list_as_default_argument": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, heads=[]):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the list of head outputs is a mutable default argument (heads=[]), created once and kept "
                  "between calls, so from the second call on it still holds the earlier heads and the "
                  "concatenation is too wide (a shape error) or mixes in another input's heads",
       "where": ["q8"]}),
}
