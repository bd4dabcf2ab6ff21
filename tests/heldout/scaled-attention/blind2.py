"""Second blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the student template, the master
notebook's student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`,
`measure.py` and the first blind set `blind.py`, so that none of its kinds of mistake is repeated here.

The mistakes are modelled on code that students publish for this exercise and on common PyTorch slips:
the softmax over dim 0, multiplying by sqrt(d_k), the scale taken from `len(K)`, pre-softmax scores
returned as the weights, `(q * k).sum(0)` over the samples, `torch.randn` without the generator, the
entropy in bits, `F.softmax` without `dim` (legacy implicit dim), `log(0)`, numpy's population std,
`torch.rand` for `torch.randn`, heads split with `view(n_heads, T, d_k)` (the annotated-transformer
issue), heads scaled by sqrt(d_model), `d_model / n_heads` as a float, rows sliced for columns.
Each wrong variant changes one thing in an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points (`multi_head_attention` calls `attention`,
so a broken `attention` also costs q8; `entropy_table` calls `softmax_entropy`). Correct variants are
really correct but written differently from `full_marks.ipynb` and from `blind.py`.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
DPV = "dot_product_variance"
ENT = "softmax_entropy"      # its cell also defines entropy_table
MHA = "multi_head_attention"


def _table(draw_q: str = "q = torch.randn(1, d)", draw_k: str = "k = torch.randn(5, d)",
           std: str = "{t}.std().item()") -> str:
    """entropy_table as full_marks writes it, with the draws or the std swappable."""
    raw_std, scaled_std = std.format(t="raw"), std.format(t="scaled")
    return f'''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {{"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        {draw_q}
        {draw_k}
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({{"d": d, "raw_std": {raw_std}, "scaled_std": {scaled_std},
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''


_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _att(scores: str = "scores = Q @ K.T / d_k ** 0.5", weights: str = "weights = F.softmax(scores, dim=-1)",
         ret: str = "return weights @ V, weights") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    {weights}
    {ret}
'''


def _dpv(draw: str = "q = torch.randn(n_samples, d_k, generator=generator)\n"
                     "    k = torch.randn(n_samples, d_k, generator=generator)",
         dots: str = "dots = (q * k).sum(1)") -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    {draw}
    {dots}
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''


def _mha_loop(project: str = "Q, K, V = X @ W_Q, X @ W_K, X @ W_V", cols: str = "Q[:, s], K[:, s], V[:, s]",
              head_dk: str = "d_k", d_k: str = "d_model // n_heads") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = {d_k}
    {project}
    heads = []
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        q_h, k_h, v_h = {cols}
        heads.append(attention(q_h, k_h, v_h, {head_dk})[0])
    return torch.cat(heads, dim=1) @ W_O
'''


CORRECT = {
    # log-sum-exp weights, torch.mm and .t()
    "attention_logsumexp_mm": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.mm(Q, K.t()).div(math.sqrt(d_k))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=1, keepdim=True))
    return torch.mm(weights, V), weights
'''},
    # an nn.Softmax module and matmul; the tuple built explicitly
    "attention_softmax_module": {ATT: '''
def attention(Q, K, V, d_k):
    softmax = torch.nn.Softmax(dim=-1)
    weights = softmax(torch.matmul(Q, K.transpose(-1, -2)) * (1.0 / math.sqrt(d_k)))
    output = torch.matmul(weights, V)
    return tuple([output, weights])
'''},
    # queries pre-scaled, einsum row dot products, var_mean
    "variance_einsum_prescaled": {DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    if scaled:
        q = q / math.sqrt(d_k)
    dots = torch.einsum("nd,nd->n", q, k)
    var, _ = torch.var_mean(dots)
    return float(var)
'''},
    # batched 1x1 dot products with bmm, in float64
    "variance_bmm_float64": {DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, 1, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, 1, generator=generator, dtype=torch.float64)
    dots = torch.bmm(q, k).reshape(n_samples)
    scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
    return torch.var(dots * scale, correction=1).item()
'''},
    # entropy as logsumexp(s) - sum(p * s): no log of a probability at all
    "entropy_logsumexp_identity": {ENT: '''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return torch.logsumexp(logits, dim=-1) - (p * logits).sum(dim=-1)
''' + _table()},
    # xlogy (0 log 0 = 0); the table with a 1-D query (the same random numbers as randn(1, d))
    "entropy_xlogy_1d_query": {ENT: '''
def softmax_entropy(logits):
    p = logits.softmax(-1)
    return -torch.xlogy(p, p).sum(-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)
        k = torch.randn(5, d)
        raw = k @ q                            # (5,)
        scaled = raw * d ** -0.5
        table.append({"d": d,
                      "raw_std": float(torch.std(raw)), "scaled_std": float(torch.std(scaled)),
                      "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))})
    return table
'''},
    # heads by reshape to (T, h, d_k) and einsum over the head axis
    "mha_einsum_heads": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).reshape(T, n_heads, d_k)            # (T, h, d_k)
    K = (X @ W_K).reshape(T, n_heads, d_k)
    V = (X @ W_V).reshape(T, n_heads, d_k)
    scores = torch.einsum("thd,shd->hts", Q, K) / math.sqrt(d_k)   # (h, T, T)
    weights = torch.softmax(scores, dim=-1)
    heads = torch.einsum("hts,shd->thd", weights, V)              # (T, h, d_k)
    return heads.reshape(T, d_model) @ W_O
'''},
    # torch.split, hstack; attention from this notebook per head
    "mha_split_hstack": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.size(-1) // n_heads
    parts = [torch.split(X @ W, d_k, dim=1) for W in (W_Q, W_K, W_V)]
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(*parts)]
    return torch.hstack(heads) @ W_O
'''},
    # W_O applied block by block and summed: concat(heads) @ W_O = sum_h head_h @ W_O[rows of head h]
    "mha_blockwise_output_projection": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = torch.zeros(X.shape[0], d_model, dtype=X.dtype, device=X.device)
    for h in range(n_heads):
        block = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, block], K[:, block], V[:, block], d_k)
        out = out + head @ W_O[block, :]
    return out
'''},
}

WRONG = {
    # ---- q1 (attention is also called by q8's multi_head_attention)
    "q1_softmax_over_queries": ({ATT: _att(weights="weights = F.softmax(scores, dim=0)")},
                                {"mistake": "takes the softmax over dim=0, so each column (key) sums to 1 "
                                            "instead of each row (query)", "where": ["q1", "q8"]}),

    "q1_multiplies_by_sqrt": ({ATT: _att(scores="scores = Q @ K.T * math.sqrt(d_k)")},
                              {"mistake": "multiplies the scores by sqrt(d_k) instead of dividing", "where": ["q1", "q8"]}),

    "q1_scale_from_len": ({ATT: _att(scores="scores = Q @ K.T / math.sqrt(len(K))")},
                          {"mistake": "scales by sqrt(len(K)), the number of keys, instead of sqrt(d_k)",
                           "where": ["q1", "q8"]}),

    "q1_returns_scores_as_weights": ({ATT: _att(ret="return weights @ V, scores")},
                                     {"mistake": "returns the scaled scores (before the softmax) as the weights",
                                      "where": ["q1"]}),

    "q1_weights_transposed_in_output": ({ATT: _att(ret="return weights.T @ V, weights")},
                                        {"mistake": "mixes the values with weights.T, so output row i uses "
                                                    "column i of the weights (crashes when T_q != T_k)",
                                         "where": ["q1", "q8"]}),

    # ---- q2
    "q2_sums_over_samples": ({DPV: _dpv(dots="dots = (q * k).sum(0)")},
                             {"mistake": "sums the products over the samples (dim 0) instead of the coordinates, "
                                         "so it returns the variance of d_k sums of n_samples terms",
                              "where": ["q2"]}),

    "q2_ignores_generator": ({DPV: _dpv(draw="q = torch.randn(n_samples, d_k)\n"
                                             "    k = torch.randn(n_samples, d_k)")},
                             {"mistake": "draws from the global RNG instead of `generator`, so two calls with "
                                         "identically seeded generators give different numbers",
                              "where": ["q2"]}),

    "q2_variance_of_products": ({DPV: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    prods = q * k                                   # never summed into dot products
    if scaled:
        prods = prods / math.sqrt(d_k)
    return prods.var().item()
'''}, {"mistake": "takes the variance of the elementwise products q_i k_i (about 1) instead of their sums, "
                  "the dot products (about d_k)", "where": ["q2"]}),

    # ---- q4 (entropy_table calls softmax_entropy)
    "q4_entropy_in_bits": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log2(p + 1e-9)).sum(dim=-1)
''' + _table()}, {"mistake": "computes the entropy with log2 (bits) instead of the natural log (nats)",
                  "where": ["q4"]}),

    "q4_softmax_without_dim": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits)                           # implicit dim: 0 for 1-D and 3-D inputs
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _table()}, {"mistake": "calls F.softmax without dim; the legacy implicit choice normalises dim 0 for "
                            "3-D inputs (and 1-D), not the last dimension", "where": ["q4"]}),

    "q4_log_of_zero": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)
''' + _table()}, {"mistake": "takes log(p) with no epsilon or log_softmax, so a saturated row gives "
                            "0 * (-inf) = NaN instead of 0", "where": ["q4"]}),

    "q4_table_numpy_std": ({ENT: _ENTROPY + _table(std="float({t}.numpy().std())")},
                           {"mistake": "the table's stds use numpy's .std(), the population std (divide by n), "
                                       "instead of torch's unbiased default", "where": ["q4"]}),

    "q4_table_uniform_draws": ({ENT: _ENTROPY + _table(draw_q="q = torch.rand(1, d)", draw_k="k = torch.rand(5, d)")},
                               {"mistake": "draws q and k with torch.rand (uniform on [0, 1)) instead of "
                                           "torch.randn (standard normal)", "where": ["q4"]}),

    # ---- q5, q6, q7
    "q5_answer_d_squared": ({"q5_answer": '''
q5_answer = "D"
'''}, {"mistake": "thinks Var(q.k) is d_k^2", "where": ["q5"]}),

    "q6_answer_self_only": ({"q6_answer": '''
q6_answer = "B"
'''}, {"mistake": "thinks each token attends only to itself in unprojected self-attention", "where": ["q6"]}),

    "q7_answer_exact_match": ({"q7_answer": '''
q7_answer = "A"
'''}, {"mistake": "thinks attention returns the value of the key equal to the query, like a hash table",
       "where": ["q7"]}),

    # ---- q8
    "q8_split_view_without_transpose": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(n_heads, T, d_k)             # reinterprets memory: not the column blocks
    K = (X @ W_K).view(n_heads, T, d_k)
    V = (X @ W_V).view(n_heads, T, d_k)
    heads = [attention(Q[h], K[h], V[h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "splits heads with view(n_heads, T, d_k) directly, which chops the row-major memory "
                  "instead of taking column blocks (needs view(T, n_heads, d_k) then a transpose)",
       "where": ["q8"]}),

    "q8_heads_scaled_by_d_model": ({MHA: _mha_loop(head_dk="d_model")},
                                   {"mistake": "scales each head by sqrt(d_model) instead of sqrt(d_k) of the "
                                               "slice", "where": ["q8"]}),

    "q8_no_input_projections": ({MHA: _mha_loop(project="Q = K = V = X")},
                                {"mistake": "runs the heads on slices of X itself, never applying W_Q, W_K, W_V",
                                 "where": ["q8"]}),

    "q8_slices_rows": ({MHA: _mha_loop(cols="Q[s], K[s], V[s]")},
                       {"mistake": "slices rows (tokens) Q[h*d_k:(h+1)*d_k] instead of columns Q[:, ...]",
                        "where": ["q8"]}),

    "q8_true_division_head_size": ({MHA: _mha_loop(d_k="d_model / n_heads")},
                                   {"mistake": "computes d_k = d_model / n_heads, a float, so the slice indices "
                                               "are floats and slicing raises TypeError", "where": ["q8"]}),
}
