"""Twenty-fifth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons (08, 79, 80), the student-facing text of the master notebook,
`full_marks.ipynb`, `harness.py`, and only the module docstrings and variant names of blind.py ..
blind24.py, so that their mistakes are not repeated in the same form.

How it was made: round 25 asks for what a class hands in when it half-remembers PyTorch, half of it in the
core (scores, scale, softmax, value mix, head split) and half in the other questions. Seven wrong variants
are in the core (q1 and q8): `^` written for the power in the scale (it is XOR in Python, and binds after
the division), the value mix done with `F.linear` (which multiplies by the transpose), the queries dotted
with themselves, the scale written as the out-of-place `scores.div(...)` whose result is dropped, the head
count passed to `attention` where the head width belongs, a head slice whose end lost its parentheses
(`h + 1 * d_k`), and the values sliced from the notebook's global `V` (a lower-case/upper-case slip).
Six are in q2 and q4: the variance taken along the axis the dots were summed over (a crash), the variance
truncated with `int(...)`, `q @ k.T[0]` in the table (indexing binds before `@`), a `torch.Generator`
seeded in the table but never passed to `torch.randn`, a float16 epsilon that underflows to 0 inside the
log, and `math.log` called on a tensor. Crashes: the caret, `F.linear` (whenever d_v != T_k), the head
slice, the global `V` (for most shapes), `.var(1)`, `q @ k.T[0]` and `math.log`; the rest return a
plausible number silently. No multiple-choice variant: every wrong letter of q5-q7 is taken by an earlier
set, and q3 is read by a person.

Public code was searched (code and issues corpora); seven of the thirteen wrong variants carry a slip seen
there, named in a comment above each: `^` for a power (acsicuib/YAFS#52, lc222/text_classification_AI100#3,
sujitpal/statlearning-notebooks#3), `F.linear`/`nn.Linear` read as `x @ W` (pytorch/pytorch#139598,
#129834), queries reused as keys (CHANDRASHEKHAR234/NLP calls `attention(q, q, q)`), a head quantity
confused in the per-head scale (karpathy/ng-video-lecture#6, chelsea0x3b/dfdx#171, rezazad68/TMUnet#13),
an epsilon that is 0 in float16 (kornia/kornia#3966, pyg-team/pytorch_geometric#2106,
lisa-lab/DeepLearningTutorials#86), and a `math` function fed a tensor (610265158/face_landmark#47). The
other six (dropped out-of-place `div`, missing parentheses in the slice end, notebook global `V`, `.var(1)`,
`int(...)`, `q @ k.T[0]`, a generator made but not passed) are plausible for a student of these lessons.
Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions that should lose points (q8 calls the student's `attention`, so a q1 slip that
changes the output costs q8 too). Correct variants are valid but unusual (scores and mix through
`torch.linalg.multi_dot` with an in-place scale, the sample variance as a squared `vector_norm` of the
centred `vecdot` dots, the table's scaled std derived from the raw std and both entropies from one stacked
call, the entropy from a hand-made log-softmax, the heads merged and projected by one einsum over a
reshaped `W_O`). Every variant was run against the full-marks cells and plain torch
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

CORRECT = {
    "multi_dot_scores_in_place_scale": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.linalg.multi_dot([Q, K.t()])
    scores.mul_(1.0 / math.sqrt(d_k))
    weights = scores.softmax(dim=1)
    out = torch.linalg.multi_dot([weights, V])
    return out, weights
'''},
    "centred_vecdot_squared_norm": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of the dot products of n_samples standard-normal pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(q, k)
    if scaled:
        dots.mul_(d_k ** -0.5)
    centred = dots - dots.mean()
    return (torch.linalg.vector_norm(centred) ** 2 / (n_samples - 1)).item()
'''},
    "table_std_rescaled_stacked_entropies": {"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = k @ q.squeeze(0)
        scale = d ** 0.5
        h_raw, h_scaled = softmax_entropy(torch.stack([raw, raw / scale])).tolist()
        raw_std = raw.std().item()
        rows.append(dict(d=d, raw_std=raw_std, scaled_std=raw_std / scale, H_raw=h_raw, H_scaled=h_scaled))
    return rows
'''},
    "entropy_from_hand_made_log_softmax": {"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim."""
    log_p = logits - logits.logsumexp(dim=-1, keepdim=True)
    return -(log_p.exp() * log_p).sum(dim=-1)
''' + _TABLE},
    "heads_merged_and_projected_by_one_einsum": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    outs = torch.stack([
        attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], d_k)[0]
        for h in range(n_heads)
    ])
    return torch.einsum("htd,hdm->tm", outs, W_O.reshape(n_heads, d_k, d_model))
'''},
}

WRONG = {
    # seen in: acsicuib/YAFS#52, lc222/text_classification_AI100#3, sujitpal/statlearning-notebooks#3
    # (`^` written as a power; in Python it is XOR and binds after `/`)
    "q1_caret_for_power": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / d_k ^ 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scale is written `d_k ^ 0.5`: `^` is bitwise XOR in Python, and it binds after the "
                  "division, so `(Q @ K.T / d_k) ^ 0.5` is evaluated and raises on a float tensor",
       "where": ["q1", "q8"]}),
    # seen in: pytorch/pytorch#139598 and #129834 (F.linear / nn.Linear read as x @ W; it is x @ W.T)
    "q1_value_mix_through_f_linear": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    out = F.linear(weights, V)
    return out, weights
'''}, {"mistake": "the values are mixed with `F.linear(weights, V)`, which computes `weights @ V.T`, not "
                  "`weights @ V`: it raises unless d_v == T_k and is wrong when they are equal",
       "where": ["q1", "q8"]}),
    # seen in: CHANDRASHEKHAR234/NLP (attention(q, q, q): the queries reused where the keys belong)
    "q1_scores_from_queries_alone": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ Q.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scores are `Q @ Q.T` (queries dotted with queries) instead of `Q @ K.T`: wrong weights, "
                  "and a shape error when T_q != T_k", "where": ["q1", "q8"]}),
    "q1_scale_method_result_discarded": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T
    scores.div(d_k ** 0.5)
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "the scale is applied with the out-of-place `scores.div(...)` whose result is thrown away "
                  "(not `div_` or `scores = ...`), so the softmax gets the unscaled scores",
       "where": ["q1", "q8"]}),
    # related slip seen in: karpathy/ng-video-lecture#6, chelsea0x3b/dfdx#171, rezazad68/TMUnet#13 (the
    # per-head scale taken from the wrong head quantity)
    "q8_head_count_passed_as_head_width": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], n_heads)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "each head calls `attention(..., n_heads)`: the number of heads is passed where the head width "
                  "d_k = d_model // n_heads belongs, so heads are scaled by 1/sqrt(n_heads)", "where": ["q8"]}),
    "q8_head_slice_end_without_parentheses": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, h + 1 * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the head slice ends at `h + 1 * d_k` instead of `(h + 1) * d_k`: head 0 is right, later heads "
                  "are one column wide or empty, and the concatenation no longer fits W_O", "where": ["q8"]}),
    "q8_values_sliced_from_notebook_global": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    q, k, v = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(q[:, cols], k[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the projections are named q, k, v but the values passed to each head are sliced from `V`, "
                  "the notebook's global 3x4 value matrix from the lesson trace, not from X @ W_V",
       "where": ["q8"]}),
    "q2_variance_along_summed_axis": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of the dot products of n_samples standard-normal pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var(1).item()
'''}, {"mistake": "the variance is taken with `.var(1)`, the axis the products were summed over; `dots` is 1-D "
                  "by then, so it raises a dimension-out-of-range error", "where": ["q2"]}),
    "q2_variance_truncated_to_int": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of the dot products of n_samples standard-normal pairs."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return int(dots.var())
'''}, {"mistake": "the variance is returned as `int(...)`, which truncates (0.99 becomes 0, 3.97 becomes 3) and "
                  "is not the Python float asked for", "where": ["q2"]}),
    "q4_table_query_times_first_key_column": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = q @ k.T[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the scores are written `q @ k.T[0]` instead of `(q @ k.T)[0]`: indexing binds before `@`, "
                  "so q is multiplied by the first column of k (5 numbers), which raises unless d == 5",
       "where": ["q4"]}),
    "q4_table_generator_seeded_but_not_passed": ({"entropy_table": _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        gen = torch.Generator().manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "a `torch.Generator` is seeded for each d (instead of `torch.manual_seed(seed)`) but never "
                  "passed to `torch.randn`, so q and k come from the unseeded global generator", "where": ["q4"]}),
    # seen in: kornia/kornia#3966, pyg-team/pytorch_geometric#2106, lisa-lab/DeepLearningTutorials#86
    # (a small epsilon that is exactly 0 in float16, so the guard it feeds does nothing)
    "q4_epsilon_as_float16_tensor": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    eps = torch.tensor(1e-9, dtype=torch.float16)
    return -(p * torch.log(p + eps)).sum(dim=-1)
''' + _TABLE}, {"mistake": "the 1e-9 guard is made a float16 tensor, where it underflows to exactly 0, so a "
                           "saturated row still computes 0 * log(0) and gives NaN instead of 0", "where": ["q4"]}),
    # seen in: 610265158/face_landmark#47 ("must be real number, not Tensor": a `math` function fed a tensor)
    "q4_entropy_math_log_of_tensor": ({"softmax_entropy": '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * math.log(p + 1e-9)).sum(dim=-1)
''' + _TABLE}, {"mistake": "the log is `math.log`, which takes one Python number, not `torch.log`: it raises on "
                           "any tensor with more than one element", "where": ["q4"]}),
}
