"""Nineteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons, the student-facing text of the master notebook, `full_marks.ipynb`,
`harness.py`, and only the module docstrings and variant names of blind.py .. blind18.py, so that their
mistakes are not repeated in the same form.

How it was made: counting the earlier sets' names by question shows q2 (the variance experiment) as the
coded part touched least, then the q4 table, and every wrong letter of q5-q7 already taken, so four wrong
variants are in q2, six in q4 (three in `softmax_entropy`, three in `entropy_table`), two in q1 and two
in q8. Most pair a right idea with one wrong detail: an einsum with one index letter wrong (a free index
in q2, a reused one for the values in q1), a `vecdot` along the wrong axis, a `sum` without its `dim`,
a non-in-place `div` whose result is dropped, a mean over rows before the entropy, numpy's `.T`
broadcasting trick carried to batched rows, the entropy written as a matrix product, an `append` one
indent too far out, an index on the wrong axis, the scale put on the entropy instead of on the scores,
an inverse scale used as a divisor, 3-D heads pushed through a 2-D-only `K.T`, and a head width from
the paper's 8 heads instead of `n_heads`.

Public code was searched (code and issues corpora); seven of the fourteen wrong variants carry a slip from it: the numpy
softmax `(np.exp(x).T / np.sum(np.exp(x), axis=-1)).T` of a "MULTI-HEADED ATTENTION" from-scratch
tutorial (right for 2-D rows only); `inv_scale_factor = 1 / math.sqrt(...)` followed by
`qk.div(inv_scale_factor)` in ise-uiuc/WhiteFox's generated sfdp attention patterns; an einsum in
attention code with a wrong index letter (decisionintelligence/DUET#6, `"dd,bxcd->bxcd"`), carried to
two einsums here; `x.softmax(1).mean(0)` before the entropy in a test-time-adaptation losses module
(`softmax_mean_entropy`); a 2-D `np.dot(query, key.T)` attention reused on heads split to 4-D
(RasKrebs/llms4code_code_quality multihead-attention/gpt-4-turbo/medium.py, and a TF-tutorial copy); and
`self.head_dim = EMBED_DIM//8` beside a separate HEADS constant (Peter-obi/protein-structure-prediction-
from-scratch, Part-1-Pytorch-Fundamentals/MHA.py). The other seven (vecdot axis, sum without dim, dropped
`div`, entropy as a matrix product, append after the loop, [:, 0], entropy divided by sqrt(d)) are
plausible for a student of these lessons.

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions whose tests may lose points (q8 calls the student's `attention`, so a q1 slip
costs q8 too). Correct variants are valid but unusual (`F.linear` for both products with the weight
transposed back, q and k each scaled by d_k ** -0.25, the table's scores from a broadcast product with
both entropies from one stacked call, heads from `split` zipped with row blocks of `W_O` and summed).
Every variant was checked against plain torch (the full-marks cells, `F.scaled_dot_product_attention`,
`torch.nn.MultiheadAttention`) before it was written down here.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

CORRECT = {
    "f_linear_both_products": {"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    # F.linear(x, W) is x @ W.T: the keys are already "W" for the scores, the values need a .T
    scores = F.linear(Q, K) * d_k ** -0.5
    weights = scores.softmax(-1)
    return F.linear(weights, V.T), weights
'''},
    "quarter_power_on_both_draws": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        # share the 1/sqrt(d_k) between the two factors
        q = q * d_k ** -0.25
        k = k * d_k ** -0.25
    return torch.einsum("nd,nd->n", q, k).var().item()
'''},
    "broadcast_scores_stacked_entropies": {"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k * q).sum(-1)          # (5, d) * (1, d) -> 5 scores
        scaled = raw * d ** -0.5
        H_raw, H_scaled = softmax_entropy(torch.stack([raw, scaled])).tolist()
        rows.append(dict(d=d, raw_std=torch.std(raw, correction=1).item(),
                         scaled_std=torch.std(scaled, correction=1).item(),
                         H_raw=H_raw, H_scaled=H_scaled))
    return rows
'''},
    "split_zip_blockwise_sum": {"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_k = X.shape[-1] // n_heads
    parts = zip((X @ W_Q).split(d_k, dim=1), (X @ W_K).split(d_k, dim=1),
                (X @ W_V).split(d_k, dim=1), W_O.split(d_k, dim=0))
    # concat(heads) @ W_O == sum over heads of head_h @ (rows h*d_k..(h+1)*d_k-1 of W_O)
    return sum(attention(q, k, v, d_k)[0] @ w for q, k, v, w in parts)
'''},
}

WRONG = {
    # seen in: ise-uiuc/WhiteFox sfdp patterns, `inv_scale_factor = 1 / math.sqrt(...)` then
    # `qk.div(inv_scale_factor)`: the inverse scale is used as a divisor, so the scores grow by sqrt(d_k)
    "q1_inverse_scale_used_as_divisor": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    inv_scale = 1 / math.sqrt(d_k)
    scores = torch.matmul(Q, K.transpose(-2, -1)).div(inv_scale)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "the scores are divided by 1/sqrt(d_k), i.e. multiplied by sqrt(d_k), instead of divided "
                  "by sqrt(d_k)", "where": ["q1", "q8"]}),

    # seen in: decisionintelligence/DUET#6, an attention einsum with a wrong index letter
    "q1_einsum_value_index_reused": ({"attention": '''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    out = torch.einsum("qk,qd->qd", weights, V)
    return out, weights
'''}, {"mistake": "the value einsum labels V's row axis with the query letter q instead of the key letter k, "
                  "so k is summed over the weights alone (each row sums to 1) and the output is just V "
                  "(or a shape error when T_q != T_k)", "where": ["q1", "q8"]}),

    # seen in: decisionintelligence/DUET#6, an attention einsum with a wrong index letter
    "q2_einsum_free_index": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("ni,nj->n", q, k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "the einsum gives k's coordinate its own letter j, so it computes (sum of q) * (sum of k) "
                  "per sample, not the dot product: variance about d_k**2 (d_k when scaled)", "where": ["q2"]}),

    "q2_vecdot_over_samples": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.linalg.vecdot(q, k, dim=0)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "vecdot runs along dim 0, the samples, so it returns d_k sums of n_samples products each "
                  "and the variance is about n_samples, not d_k", "where": ["q2"]}),

    "q2_sum_without_dim": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.sum(q * k)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "torch.sum without dim adds up every product into one number, so the 'variance' is of a "
                  "single value (NaN) instead of over the n_samples dot products", "where": ["q2"]}),

    "q2_div_result_dropped": ({"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots.div(math.sqrt(d_k))
    return dots.var().item()
'''}, {"mistake": "dots.div(...) is not in place and its result is thrown away, so scaled=True still "
                  "returns about d_k instead of about 1", "where": ["q2"]}),

    # seen in: a test-time-adaptation losses module (`softmax_mean_entropy`: `x = x.softmax(1).mean(0)` then
    # `-(x * torch.log(x + eps)).sum()`, code corpus): the probabilities averaged over rows before the entropy
    "q4_entropy_of_mean_distribution": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1).mean(dim=0)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


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
'''}, {"mistake": "the softmax rows are averaged over the first axis before the entropy is taken, so it "
                  "returns the entropy of the mean distribution (wrong shape for a batch, wrong value for one "
                  "row of scores) instead of one entropy per row", "where": ["q4"]}),

    # seen in: a numpy "MULTI-HEADED ATTENTION" from-scratch tutorial,
    # `softmax(x) = (np.exp(x).T / np.sum(np.exp(x), axis=-1)).T`: right for 2-D, wrong for (..., T)
    "q4_softmax_by_transpose_broadcast": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    e = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    p = (e.T / e.sum(dim=-1)).T
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


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
'''}, {"mistake": "the transpose trick for dividing by the row sums only works for 1-D and 2-D logits: with "
                  "a batch shape (..., T) .T reverses every axis, so rows are divided by the wrong sums or "
                  "the shapes do not broadcast", "where": ["q4"]}),

    "q4_entropy_as_matrix_product": ({"softmax_entropy": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p @ torch.log(p + 1e-9).T)


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
'''}, {"mistake": "H = -p . log p written as a matrix product: right for one row, but for a batch of rows it "
                  "returns the (rows, rows) matrix of cross terms instead of one entropy per row",
       "where": ["q4"]}),

    "q4_table_append_after_loop": ({"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        row = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
               "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
    results.append(row)
    return results
'''}, {"mistake": "the append is one indent too far out, after the loop, so the table has only the row for "
                  "the last d", "where": ["q4"]}),

    "q4_table_scores_wrong_axis": ({"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[:, 0]
        scaled = raw / d ** 0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "(q @ k.T) is (1, 5) and [:, 0] takes its first column, one score, instead of the row of 5 "
                  "scores: the std is NaN and both entropies are 0", "where": ["q4"]}),

    "q4_table_entropy_scaled_not_scores": ({"entropy_table": '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        H_raw = softmax_entropy(raw).item()
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": H_raw, "H_scaled": H_raw / d ** 0.5})
    return results
'''}, {"mistake": "H_scaled divides the raw entropy by sqrt(d) instead of taking the entropy of the scaled "
                  "scores", "where": ["q4"]}),

    # seen in: RasKrebs/llms4code_code_quality multihead-attention/gpt-4-turbo/medium.py and a TF-tutorial
    # copy: a 2-D `np.dot(query, key.T)` attention fed heads split to (batch, heads, T, depth)
    "q8_batched_heads_through_2d_attention": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).reshape(T, n_heads, d_k).transpose(0, 1)
    K = (X @ W_K).reshape(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).reshape(T, n_heads, d_k).transpose(0, 1)
    out, _ = attention(Q, K, V, d_k)              # all heads at once
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
'''}, {"mistake": "the heads are split correctly but passed as one (n_heads, T, d_k) batch to an attention "
                  "that uses K.T, which on 3-D reverses all axes instead of swapping the last two: a shape "
                  "error, or scores that mix heads and tokens when the sizes happen to line up", "where": ["q8"]}),

    # seen in: Peter-obi/protein-structure-prediction-from-scratch Part-1-Pytorch-Fundamentals/MHA.py,
    # `self.head_dim = EMBED_DIM//8` next to a HEADS constant: the head width from a literal head count
    "q8_head_width_from_paper_head_count": ({"multi_head_attention": '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // 8                            # h = 8 heads, as in the paper
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "the head width is d_model // 8 (the paper's 8 heads) instead of d_model // n_heads, so "
                  "with any other head count the slices, the scale and the concatenated width are wrong",
       "where": ["q8"]}),
}
