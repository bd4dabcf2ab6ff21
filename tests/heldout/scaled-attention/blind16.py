"""Sixteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, `measure.py`, the naming tests or
the git log. What was read: the lessons, the student-facing text of the master notebook, `full_marks.ipynb`,
`harness.py`, the docstring of blind15.py and the variant names of blind.py .. blind15.py, so that their
mistakes are not repeated in the same form.

How it was made: public attention code was searched (code, issues and pages corpora) for slips that first
attention classes make, and each was carried into this notebook's functions. From public code: the softmax
taken in float32 and never cast back (Hugging Face's `softmax(..., dtype=torch.float32).to(dtype)` copied
without the `.to`), a hand-written softmax called with `d_k` as its dimension (a CS336 fork), the row sums
of a softmax made with a default-dtype ones column (the CMU 11-785 `exp(Z) @ Ones_C` Softmax), the
nanoGPT-lecture `C ** -0.5` with C the model width inside a head, entropy helpers hard-wired to `dim=1`
(TENT-style `softmax_entropy`), summed to one scalar (a discuss.pytorch.org answer), or averaged as
`-log p` (a domain-adaptation repo's `ent_v2`), and a d2l-style masked_softmax that shifts the caller's
tensor in place. Plausible for a student of these lessons: rows "normalised" by dividing the raw scores by
their sum, the scale put on the output instead of the scores, a scaling of q that comes after the dots
are taken, the q and k of the table drawn in one randn call, the table scaled with the notebook's global
`d_k`, a `return` indented into the head loop, and a batched version whose softmax runs over the queries.

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake;
`where` lists the questions whose tests may lose points (q8 calls the student's `attention`, so a broken
q1 may cost q8 too). Correct variants are really correct but unusual (F.linear scores with an F.normalize
softmax and a tensor sqrt, a value-free entropy from softmax(log_softmax), the table's q @ k.T kept 2-D,
the variance from a (d_k, n) layout divided by d_k afterwards, heads from a reshape of Q.T). Every variant
was checked against plain torch before it was written down here.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"          # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"

_ENT_OK = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''

_TABLE_OK = '''

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


def _att(body: str) -> str:
    return ('def attention(Q, K, V, d_k):\n'
            '    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""\n' + body)


def _var(body: str) -> str:
    return ('def dot_product_variance(d_k, n_samples, generator, scaled=False):\n'
            '    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs from `generator`."""\n'
            + body)


def _mha(body: str) -> str:
    return ('def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n'
            '    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""\n'
            + body)


CORRECT = {
    # q1: F.linear(Q, K) is Q @ K.T; the scale as a tensor of the input's dtype (CS336 forks write it this
    # way); the softmax as shifted exponentials normalised with F.normalize(p=1) along the keys.
    "linear_scores_l1_normalize": {ATT: _att('''    scale = torch.sqrt(torch.tensor(d_k, dtype=Q.dtype))
    scores = F.linear(Q, K) / scale
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = F.normalize(e, p=1, dim=-1)
    out = F.linear(weights, V.T)
    return out, weights
''')},
    # q4: entropy as sum(softmax(log_p) * -log_p) (seen in a public get_entropy helper); the table keeps
    # q @ k.T as a (1, 5) matrix, whose std and one-row entropy are the same numbers.
    "softmax_of_log_softmax_2d_table": {ENT: '''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return (F.softmax(log_p, dim=-1) * -log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = q @ k.T                      # (1, 5)
        scaled = raw * d ** -0.5
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=scaled.std().item(),
                         H_raw=softmax_entropy(raw).item(), H_scaled=softmax_entropy(scaled).item()))
    return rows
'''},
    # q2: vectors as columns of a (d_k, n) draw, dots summed over dim 0; the scaled variance as the raw
    # variance divided by d_k (Var(x / c) = Var(x) / c**2), returned with float().
    "columns_layout_variance_over_d_k": {VAR: _var('''    q = torch.randn(d_k, n_samples, generator=generator)
    k = torch.randn(d_k, n_samples, generator=generator)
    v = torch.var((q * k).sum(dim=0))
    if scaled:
        v = v / d_k
    return float(v)
''')},
    # q8: heads from Q.T reshaped to (n_heads, d_k, T), batched scores, merged back through the transpose.
    "heads_from_transposed_reshape": {MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Qh = Q.T.reshape(n_heads, d_k, T).transpose(1, 2)
    Kh = K.T.reshape(n_heads, d_k, T).transpose(1, 2)
    Vh = V.T.reshape(n_heads, d_k, T).transpose(1, 2)
    w = torch.softmax(Qh @ Kh.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    out = w @ Vh                                   # (n_heads, T, d_k)
    concat = out.transpose(1, 2).reshape(d_model, T).T
    return concat @ W_O
''')},
    # q1 + q8: the softmax written by hand with keepdim sums, and the heads looped with torch.split.
    "manual_softmax_split_heads": {
        ATT: _att('''    s = torch.matmul(Q, K.transpose(0, 1)) * (1.0 / math.sqrt(d_k))
    s = s - s.max(dim=1, keepdim=True).values
    e = s.exp()
    w = e / e.sum(dim=1, keepdim=True)
    return torch.matmul(w, V), w
'''),
        MHA: _mha('''    d_k = X.shape[-1] // n_heads
    parts = [torch.split(X @ W, d_k, dim=1) for W in (W_Q, W_K, W_V)]
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]
    return torch.cat(outs, dim=-1) @ W_O
''')},
}

WRONG = {
    # seen in: Hugging Face attention code, softmax(attn_weights, dim=-1, dtype=torch.float32).to(dtype),
    # copied without the .to(...)
    "q1_softmax_forced_float32": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1, dtype=torch.float32)
    out = weights @ V
    return out, weights
''')}, {"mistake": "the softmax is asked for dtype=torch.float32 and never cast back, so float64 inputs "
                   "get float32 weights and `weights @ V` fails on the dtype mismatch; drop the dtype "
                   "argument (or cast back to Q.dtype)",
        "where": ["q1", "q8"]}),

    # seen in: a CS336 assignment-1 fork, `softmax(attn_scores, d_k)` - the key width passed where the
    # softmax's dimension goes
    "q1_softmax_dim_is_d_k": ({ATT: '''
def _softmax(x, dim):
    x = x - x.max(dim=dim, keepdim=True).values
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    scores = Q @ K.T / math.sqrt(d_k)
    weights = _softmax(scores, d_k)
    return weights @ V, weights
'''}, {"mistake": "the softmax helper is called with d_k as its dimension argument; the scores are 2-D, so "
                  "that dimension does not exist (or is the wrong one); the softmax must run over dim=-1, "
                  "the keys",
       "where": ["q1", "q8"]}),

    # student slip: "turn each row into a probability distribution" read as dividing by the row sum; the
    # notebook's own assert (rows sum to 1) still passes
    "q1_scores_divided_by_row_sum": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    weights = scores / scores.sum(dim=-1, keepdim=True)
    assert abs(weights.sum(-1) - 1).max() < 1e-5
    return weights @ V, weights
''')}, {"mistake": "the rows are made to sum to 1 by dividing the scaled scores by their row sum instead "
                   "of applying a softmax; the weights can be negative or huge and are not "
                   "exp(s) / sum(exp(s))",
        "where": ["q1", "q8"]}),

    # student slip: the 1/sqrt(d_k) put on the mixed values, as if the formula were softmax(QK^T) V / sqrt(d_k)
    "q1_scale_on_output": ({ATT: _att('''    weights = F.softmax(Q @ K.T, dim=-1)
    out = weights @ V / math.sqrt(d_k)
    return out, weights
''')}, {"mistake": "the 1/sqrt(d_k) is applied to the output (weights @ V) instead of to the scores "
                   "before the softmax, so the weights are those of unscaled scores and the output is "
                   "shrunk",
        "where": ["q1", "q8"]}),

    # student slip: the scaled branch rescales q after the dot products were already taken
    "q2_scaling_after_the_dots": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        q = q / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "with scaled=True the queries are divided by sqrt(d_k) after the dot products were "
                   "computed, so the scaling never reaches `dots` and the scaled variance is still about d_k",
        "where": ["q2"]}),

    # seen in: TENT-style `softmax_entropy(x) = -(x.softmax(1) * x.log_softmax(1)).sum(1)`
    "q4_entropy_dim_one": ({ENT: '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1)
''' + _TABLE_OK}, {"mistake": "the entropy is taken over dim 1 instead of the last dimension: right only "
                              "for 2-D input, an error for a single row of scores (as in entropy_table) "
                              "and the wrong axis for 3-D input",
                   "where": ["q4"]}),

    # seen in: a domain-adaptation repo's `ent_v2 = -mean(log(softmax(x + 1e-6)))`
    "q4_mean_of_minus_log_p": ({ENT: '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return -torch.log(F.softmax(logits + 1e-6, dim=-1)).mean(dim=-1)
''' + _TABLE_OK}, {"mistake": "computes the plain average of -ln p over the keys (the cross-entropy "
                              "against a uniform row) instead of the p-weighted sum -sum p ln p; it is "
                              "too large, infinite for a saturated row",
                   "where": ["q4"]}),

    # seen in: a discuss.pytorch.org answer for an entropy loss, `b = F.softmax(x, 1) * F.log_softmax(x, 1);
    # b = -1.0 * b.sum()`
    "q4_entropy_summed_to_scalar": ({ENT: '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    b = F.softmax(logits, dim=-1) * F.log_softmax(logits, dim=-1)
    return -1.0 * b.sum()
''' + _TABLE_OK}, {"mistake": "the -p ln p terms are summed over every element, not over the last "
                              "dimension, so a batch of rows gives one scalar (the total) instead of one "
                              "entropy per row",
                   "where": ["q4"]}),

    # seen in: d2l masked_softmax forks that `inputs.reshape(...)` and write -1e6 into rows, changing the
    # caller's scores in place; here the max shift is done in place on the caller's logits
    "q4_shifts_caller_logits_in_place": ({ENT: '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    logits -= logits.max(dim=-1, keepdim=True).values
    p = logits.exp() / logits.exp().sum(dim=-1, keepdim=True)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _TABLE_OK}, {"mistake": "the stabilising max shift is done in place (logits -= ...), so the function "
                              "changes the caller's tensor; shift a copy (logits - logits.max(...)) or use "
                              "F.softmax",
                   "where": ["q4"]}),

    # student slip: "one draw, then slice" looks the same as two calls, but torch's normal sampler gives
    # different numbers for small d, so the d = 4 row no longer matches the lesson
    "q4_table_one_randn_call": ({ENT: _ENT_OK + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        qk = torch.randn(6, d)
        q, k = qk[:1], qk[1:]
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "q and k are drawn with one torch.randn(6, d) call and sliced, not as randn(1, d) and then "
                  "randn(5, d); for small d (d = 4) the sampler gives different numbers, so that row of the "
                  "table is not the specified experiment",
       "where": ["q4"]}),

    # student slip: the notebook cell above defines d_k = 4 at top level; the table divides by it
    "q4_table_uses_global_d_k": ({ENT: _ENT_OK + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d_k)
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "the scaled scores divide by sqrt(d_k), the notebook's global d_k = 4, instead of by "
                  "sqrt(d) for the current d, so every row but d = 4 is under-scaled",
       "where": ["q4"]}),

    # seen in: Karpathy's "Let's build GPT" lecture Head, `wei = q @ k.transpose(-2, -1) * C**-0.5` with C
    # the embedding width (ng-video-lecture issue #28; the same fix in aladdinpersson PR #159)
    "q8_head_scores_times_C_power": ({MHA: _mha('''    T, C = X.shape
    head_size = C // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        q = Q[:, h * head_size:(h + 1) * head_size]
        k = K[:, h * head_size:(h + 1) * head_size]
        v = V[:, h * head_size:(h + 1) * head_size]
        wei = q @ k.T * C ** -0.5
        wei = F.softmax(wei, dim=-1)
        outs.append(wei @ v)
    return torch.cat(outs, dim=-1) @ W_O
''')}, {"mistake": "each head's scores are scaled by C ** -0.5 with C the model width d_model, not by "
                   "head_size ** -0.5; a head must be scaled by the sqrt of its own width d_k",
        "where": ["q8"]}),

    # seen in: the CMU 11-785 Softmax class, `exp(Z) / (exp(Z) @ Ones_C)` with `Ones_C = torch.ones((C, 1))`
    "q8_row_sums_with_float32_ones": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    ones = torch.ones((T, 1))
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        s = Q[:, cols] @ K[:, cols].T / math.sqrt(d_k)
        e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
        w = e / (e @ ones)
        heads.append(w @ V[:, cols])
    return torch.cat(heads, dim=1) @ W_O
''')}, {"mistake": "the softmax row sums come from multiplying by torch.ones((T, 1)), which is float32 "
                   "whatever the input; with float64 input the matmul fails on the dtype mismatch (use "
                   "e.sum(-1, keepdim=True) or ones of X's dtype)",
        "where": ["q8"]}),

    # student slip: the return indented one level too far, inside the head loop
    "q8_return_inside_loop": ({MHA: _mha('''    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
        return torch.cat(heads, dim=1) @ W_O
''')}, {"mistake": "the return sits inside the for loop, so the function returns after head 0 with a "
                   "(T, d_k) concat that cannot be multiplied by W_O (only n_heads = 1 works); dedent it "
                   "out of the loop",
        "where": ["q8"]}),

    # student slip: batched heads, softmax over dim=1 (the query axis of (n_heads, T, T)) from the 2-D habit
    # "dim=1 is along a row"
    "q8_batched_softmax_dim_one": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).transpose(0, 1)
    K = (X @ W_K).view(T, n_heads, d_k).transpose(0, 1)
    V = (X @ W_V).view(T, n_heads, d_k).transpose(0, 1)
    scores = torch.einsum("hqd,hkd->hqk", Q, K) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=1)
    out = torch.einsum("hqk,hkd->hqd", weights, V)
    return out.transpose(0, 1).reshape(T, d_model) @ W_O
''')}, {"mistake": "with the heads batched as (n_heads, T_q, T_k) the softmax runs over dim=1, the queries, "
                   "not over dim=-1, the keys; each head's weights are normalised down the columns",
        "where": ["q8"]}),
}
