"""Blind held-out submissions for scaled-attention (Lesson 79, issue 21), written without reading the
grader's catalogue of misconceptions, its hidden tests or the reference solution: only the lesson, the
student template and full_marks.ipynb. Same cell-replacement format as `variants.py` (see
`tests/heldout/harness.py`), except that each wrong variant says its mistake in plain English instead of a
catalogue key:

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}

`where` lists the questions where points should be lost; `multi_head_attention` calls `attention`, so a
broken `attention` also costs q8, and `entropy_table` calls `softmax_entropy`."""

ATT = "attention"
DPV = "dot_product_variance"
ENT = "softmax_entropy"      # its cell also defines entropy_table
MHA = "multi_head_attention"

_ENTROPY_TABLE = '''

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

_SOFTMAX_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

CORRECT = {
    # einsum and torch.softmax; the scale applied to Q before the product
    "einsum_prescaled": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.einsum("qd,kd->qk", Q / math.sqrt(d_k), K)
    weights = torch.softmax(scores, dim=1)
    return torch.einsum("qk,kv->qv", weights, V), weights
'''},
    # hand-written stable softmax with a per-row max
    "manual_softmax": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.matmul(Q, K.transpose(0, 1)) / math.sqrt(d_k)
    scores = scores - scores.max(dim=-1, keepdim=True).values
    e = scores.exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    output = torch.matmul(weights, V)
    return (output, weights)
'''},
    # one draw of a (2, n, d) tensor, explicit unbiased variance, scale on the dot products
    "variance_one_draw": {DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    qk = torch.randn(2, n_samples, d_k, generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", qk[0], qk[1])
    if scaled:
        dots = dots * d_k ** -0.5
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
'''},
    # entropy from log_softmax (no epsilon needed: 0 * finite = 0)
    "entropy_log_softmax": {ENT: '''
def softmax_entropy(logits):
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(-1)
''' + _ENTROPY_TABLE},
    # entropy with torch.special.entr (entr(0) = 0); the table with math.sqrt and torch.std
    "entropy_entr": {ENT: '''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, -1)).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.transpose(0, 1)).squeeze(0)
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=torch.std(raw).item(), scaled_std=torch.std(scaled).item(),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''},
    # heads reshaped to (n_heads, T, d_k), batched matmuls, merged back with permute
    "mha_reshape": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(M):                                   # (T, d_model) -> (n_heads, T, d_k)
        return M.reshape(T, n_heads, d_k).permute(1, 0, 2)
    Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    heads = weights @ V                             # (n_heads, T, d_k)
    concat = heads.permute(1, 0, 2).reshape(T, d_model)
    return concat @ W_O
'''},
    # heads from torch.chunk, each through attention, stacked and flattened
    "mha_chunk_stack": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[-1] // n_heads
    qs = torch.chunk(X @ W_Q, n_heads, dim=-1)
    ks = torch.chunk(X @ W_K, n_heads, dim=-1)
    vs = torch.chunk(X @ W_V, n_heads, dim=-1)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(qs, ks, vs)]
    concat = torch.stack(outs, dim=1).flatten(1)      # (T, n_heads, d_k) -> (T, d_model)
    return torch.matmul(concat, W_O)
'''},
    # attention with the row shift done by subtracting the mean (softmax is shift-invariant), and the
    # scale written as a power
    "shift_by_row_mean": {ATT: '''
def attention(Q, K, V, d_k):
    scores = (Q @ K.mT) * (1 / d_k) ** 0.5
    scores = scores - scores.mean(dim=1, keepdim=True)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''},
}

WRONG = {
    "q1_returns_weights_first": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return weights, out
'''}, {"mistake": "returns (weights, output) instead of (output, weights); the multi-head code that "
                  "unpacks it then concatenates weights", "where": ["q1", "q8"]}),

    "q1_whole_matrix_normalised": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 0.5
    e = torch.exp(scores)
    weights = e / e.sum()                   # one normaliser for the whole matrix
    out = weights @ V
    return out, weights
'''}, {"mistake": "normalises the exponentials over the whole score matrix instead of each row",
       "where": ["q1", "q8"]}),

    "q1_precedence_d_k_over_2": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 1/2           # parsed as (d_k ** 1) / 2
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "writes `d_k ** 1/2`, which Python reads as d_k / 2, so the scores are divided by d_k/2",
       "where": ["q1", "q8"]}),

    "q1_float32_cast": ({ATT: '''
def attention(Q, K, V, d_k):
    Q, K, V = Q.float(), K.float(), V.float()
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''}, {"mistake": "casts the inputs to float32, so float64 inputs come back as float32", "where": ["q1", "q8"]}),

    "q1_sigmoid_gate": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 0.5
    weights = torch.sigmoid(scores)
    weights = weights / weights.sum(-1, keepdim=True)
    out = weights @ V
    return out, weights
'''}, {"mistake": "uses normalised sigmoids instead of a softmax (rows sum to 1 but the weights are wrong)",
       "where": ["q1", "q8"]}),

    "q2_returns_std": ({DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.std().item()
'''}, {"mistake": "returns the standard deviation (about sqrt(d_k)) instead of the variance", "where": ["q2"]}),

    "q2_scaled_variance_by_sqrt": ({DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    var = (q * k).sum(1).var().item()
    if scaled:
        var = var / math.sqrt(d_k)          # the variance treated like the dot products
    return var
'''}, {"mistake": "divides the variance by sqrt(d_k) for scaled=True (gives about sqrt(d_k), not 1)",
       "where": ["q2"]}),

    "q2_returns_tensor": ({DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var()
'''}, {"mistake": "returns a 0-d tensor instead of a Python float (no .item())", "where": ["q2"]}),

    "q2_one_shared_query": ({DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(d_k, generator=generator)               # a single query for every sample
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = k @ q
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "draws one query and reuses it for every sample, so it measures the variance given q "
                  "(|q|^2, far from d_k for small d_k) instead of over independent pairs",
       "where": ["q2"]}),

    "q4_entropy_sign": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _ENTROPY_TABLE}, {"mistake": "drops the minus sign, so entropies come out negative", "where": ["q4"]}),

    "q4_entropy_mean_over_rows": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1).mean()
''' + _ENTROPY_TABLE}, {"mistake": "averages the row entropies into one number instead of one per row",
                        "where": ["q4"]}),

    "q4_entropy_of_scaled_by_T": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1) / math.log(logits.shape[-1])
''' + _ENTROPY_TABLE}, {"mistake": "normalises the entropy by ln T (returns a fraction of the maximum, not nats)",
                        "where": ["q4"]}),

    "q4_table_seeded_once": ({ENT: _SOFTMAX_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    torch.manual_seed(seed)                 # once, not for every d
    for d in dims:
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "seeds the generator once before the loop instead of again for every d", "where": ["q4"]}),

    "q4_table_keys_drawn_first": ({ENT: _SOFTMAX_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        k = torch.randn(5, d); q = torch.randn(1, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "draws k before q, so the random numbers land in the other tensor", "where": ["q4"]}),

    "q4_table_scaled_by_d": ({ENT: _SOFTMAX_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the table's scaled scores divide by d instead of sqrt(d)", "where": ["q4"]}),

    "q4_table_tensor_values": ({ENT: _SOFTMAX_ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std(), "scaled_std": scaled.std(),
                        "H_raw": softmax_entropy(raw), "H_scaled": softmax_entropy(scaled)})
    return results
'''}, {"mistake": "stores 0-d tensors in the table instead of Python numbers (no .item())", "where": ["q4"]}),

    "q5_answer_sqrt": ({"q5_answer": '''
q5_answer = "B"
'''}, {"mistake": "thinks Var(q.k) is sqrt(d_k) (confuses the standard deviation with the variance)",
       "where": ["q5"]}),

    "q7_answer_argmax": ({"q7_answer": '''
q7_answer = "C"
'''}, {"mistake": "thinks attention returns only the best-scoring key's value (a hard argmax)",
       "where": ["q7"]}),

    "q8_linear_convention": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q.T, X @ W_K.T, X @ W_V.T     # nn.Linear's x @ W.T
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O.T
'''}, {"mistake": "projects with the nn.Linear convention X @ W.T instead of X @ W", "where": ["q8"]}),

    "q8_strided_head_columns": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h, d_model, n_heads)              # every n_heads-th column
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "gives head h the strided columns h, h + n_heads, ... instead of a contiguous block",
       "where": ["q8"]}),

    "q8_no_output_projection": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1)
'''}, {"mistake": "forgets the output projection W_O", "where": ["q8"]}),

    "q8_merge_without_transpose": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    weights = torch.softmax(Q @ K.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    heads = weights @ V                               # (n_heads, T, d_k)
    concat = heads.reshape(T, d_model)                # heads not moved back behind T first
    return concat @ W_O
'''}, {"mistake": "splits heads correctly but merges them with reshape(T, d_model) without moving the head "
                  "axis back, scrambling tokens and heads", "where": ["q8"]}),

    "q8_single_full_width_head": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    _, weights_all = attention(Q, K, V, d_model)      # one set of weights from the full width
    return (weights_all @ V) @ W_O
'''}, {"mistake": "runs a single full-width attention scaled by sqrt(d_model) instead of n_heads heads",
       "where": ["q8"]}),
}
