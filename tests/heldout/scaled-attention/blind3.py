"""Third blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the two earlier blind
sets, so that none of their kinds of mistake is repeated here.

The mistakes are common slips in published attention homework and multi-head code: `int(math.sqrt(d_k))`
for the scale, a function that returns only the output where a pair is asked, the caller's queries scaled
in place (`Q /= ...`), a row sum without `keepdim`, a missing `return` on one branch, keys drawn as
`randn(d, 5)` columns, a copy-paste swap of two dict entries, results returned as a dict of lists, heads
concatenated along the rows, head slices that start at `h` instead of `h * d_k`, and each head projecting
only its own slice of the input (the bug fixed in MarcoMeter/episodic-transformer-memory-ppo#22). Each
wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain words;
`where` lists the questions that should lose points (`attention` is also called by q8's function).
Correct variants are really correct but written differently from `full_marks.ipynb` and the earlier sets;
every variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`,
`torch.nn.MultiheadAttention`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"      # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"


def _attention(scores: str = "scores = Q @ K.T / d_k ** 0.5", weights: str = "weights = F.softmax(scores, dim=-1)",
               ret: str = "return out, weights") -> str:
    return f'''
def attention(Q, K, V, d_k):
    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)."""
    {scores}
    {weights}
    out = weights @ V
    {ret}
'''


def _variance(body: str) -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or q.k / sqrt(d_k)) over n_samples pairs drawn from `generator`."""
{body}
'''


_ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _table(draw: str = "q = torch.randn(1, d); k = torch.randn(5, d)\n        raw = (q @ k.T)[0]",
           row: str = '{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),\n'
                      '                        "H_raw": softmax_entropy(raw).item(), '
                      '"H_scaled": softmax_entropy(scaled).item()}',
           entropy: str = _ENTROPY) -> str:
    return entropy + f'''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {{"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        {draw}
        scaled = raw / d**0.5
        results.append({row})
    return results
'''


def _mha(body: str) -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
{body}
'''


CORRECT = {
    # torch.mm, torch.softmax over dim=1 (the last dim of a 2-D tensor), the scale as a multiplication
    "attention_mm_dim1": {ATT: '''
def attention(Q, K, V, d_k):
    weights = torch.softmax(torch.mm(Q, K.t()) * (1.0 / math.sqrt(d_k)), dim=1)   # (T_q, T_k)
    return torch.mm(weights, V), weights
'''},
    # q and k drawn in one call, dots with einsum, the scale applied to q before the product
    "variance_one_draw_einsum": {VAR: _variance('''    qk = torch.randn(2, n_samples, d_k, generator=generator)
    q, k = qk[0], qk[1]
    if scaled:
        q = q / math.sqrt(d_k)
    return torch.einsum("nd,nd->n", q, k).var().item()''')},
    # entropy from torch.distributions; the table with a 1-D query and k @ q (the same draws)
    "entropy_categorical_1d_query": {ENT: _table(
        draw="q = torch.randn(1, d)[0]\n        k = torch.randn(5, d)\n        raw = k @ q",
        entropy='''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    return torch.distributions.Categorical(logits=logits).entropy()
''')},
    # heads stacked along a new middle axis: (T, n_heads, d_k) reshapes straight back to (T, d_model)
    "mha_stack_dim1": {MHA: _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                      V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.stack(outs, dim=1).reshape(X.shape[0], d_model) @ W_O''')},
    # head outputs written into their columns of a fresh tensor
    "mha_write_columns": {MHA: _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    concat = torch.empty_like(V)
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        concat[:, lo:hi] = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)[0]
    return torch.matmul(concat, W_O)''')},
    # the multiple-choice answers, written with surrounding spaces stripped
    "answers_stripped": {
        "q5_answer": 'q5_answer = " C ".strip()',
        "q6_answer": 'q6_answer = "a".upper()',
        "q7_answer": 'q7_answer = "D"',
    },
}

WRONG = {
    # ---- q1 (attention is also called by multi_head_attention, q8)
    "q1_int_sqrt_scale": ({ATT: _attention(scores="scores = Q @ K.T / int(math.sqrt(d_k))")},
                          {"mistake": "rounds the scale down to an integer, int(math.sqrt(d_k)): wrong whenever d_k "
                                      "is not a perfect square", "where": ["q1", "q8"]}),

    "q1_returns_output_only": ({ATT: _attention(ret="return out")},
                               {"mistake": "returns only the output tensor instead of the pair (output, weights) "
                                           "(so `out_h, _ = attention(...)` in q8 also breaks)",
                                "where": ["q1", "q8"]}),

    "q1_scales_queries_in_place": ({ATT: _attention(
        scores="Q /= math.sqrt(d_k)                          # in place: the caller's Q is changed\n"
               "    scores = Q @ K.T")},
        {"mistake": "scales the queries in place (Q /= sqrt(d_k)), so the caller's tensor is modified (and a "
                    "leaf that requires grad raises)", "where": ["q1", "q8"]}),

    "q1_row_sum_without_keepdim": ({ATT: _attention(
        weights="e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)\n"
                "    weights = e / e.sum(dim=-1)                     # (T_q,) broadcasts along the keys")},
        {"mistake": "normalises with e.sum(dim=-1) without keepdim, so the (T_q,) sums broadcast along the key "
                    "axis: wrong rows when T_q == T_k, a crash otherwise", "where": ["q1", "q8"]}),

    # ---- q2
    "q2_missing_return": ({VAR: _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        return (dots / math.sqrt(d_k)).var().item()
    dots.var().item()                                  # no return: the unscaled call gives None''')},
        {"mistake": "forgets the `return` on the unscaled branch, so dot_product_variance(..., scaled=False) "
                    "returns None", "where": ["q2"]}),

    "q2_key_equals_query": ({VAR: _variance('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = q                                               # "self-attention: the key is the query"
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()''')},
        {"mistake": "uses the same vector as query and key, so each dot product is |q|^2 (variance 2 d_k) "
                    "instead of the product of two independent vectors", "where": ["q2"]}),

    # ---- q4
    "q4_entropy_sum_dim0": ({ENT: _table(entropy='''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=0)      # numpy-style axis=0
''')}, {"mistake": "sums p log p over dim 0 instead of the last dim: right for a 1-D row, wrong for a batch "
                   "of rows", "where": ["q4"]}),

    "q4_table_keys_as_columns": ({ENT: _table(draw="q = torch.randn(1, d); k = torch.randn(d, 5)\n"
                                                   "        raw = (q @ k)[0]")},
                                 {"mistake": "draws the keys as a (d, 5) matrix of columns, which uses the random "
                                             "stream differently from randn(5, d), so the table's numbers differ",
                                  "where": ["q4"]}),

    "q4_table_entropies_swapped": ({ENT: _table(
        row='{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),\n'
            '                        "H_raw": softmax_entropy(scaled).item(), '
            '"H_scaled": softmax_entropy(raw).item()}')},
        {"mistake": "copy-paste slip: H_raw holds the entropy of the scaled scores and H_scaled that of the raw "
                    "ones", "where": ["q4"]}),

    "q4_table_dict_of_lists": ({ENT: _ENTROPY + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = {"d": [], "raw_std": [], "scaled_std": [], "H_raw": [], "H_scaled": []}
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        table["d"].append(d)
        table["raw_std"].append(raw.std().item())
        table["scaled_std"].append(scaled.std().item())
        table["H_raw"].append(softmax_entropy(raw).item())
        table["H_scaled"].append(softmax_entropy(scaled).item())
    return table                                        # one dict of columns, pandas-style
'''}, {"mistake": "returns one dict of columns (pandas style) instead of a list with one dict per d",
       "where": ["q4"]}),

    # ---- q5 to q7 (multiple choice)
    "q5_answer_one": ({"q5_answer": 'q5_answer = "A"'},
                      {"mistake": "thinks the dot product has variance 1 whatever d_k (confuses the raw and the "
                                  "scaled dot product)", "where": ["q5"]}),
    "q6_answer_plain_mean": ({"q6_answer": 'q6_answer = "D"'},
                             {"mistake": "thinks unprojected self-attention outputs the unweighted mean of the rows",
                              "where": ["q6"]}),
    "q7_answer_sorted_keys": ({"q7_answer": 'q7_answer = "B"'},
                              {"mistake": "thinks attention needs the keys sorted", "where": ["q7"]}),

    # ---- q8
    "q8_heads_concatenated_as_rows": ({MHA: _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads) @ W_O                       # torch.cat's default dim=0: heads stacked as rows''')},
        {"mistake": "concatenates the head outputs with torch.cat's default dim=0 (along the rows) instead of "
                    "the columns: (n_heads * T, d_k), which cannot be multiplied by W_O", "where": ["q8"]}),

    "q8_head_slices_start_at_h": ({MHA: _mha('''    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h, h + d_k)                        # should start at h * d_k
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "starts head h's columns at h instead of h * d_k, so the heads overlap and the last columns "
                    "are never used", "where": ["q8"]}),

    "q8_heads_project_own_input_slice": ({MHA: _mha('''    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        x_h = X[:, cols]                                # each head reads only its slice of the input
        out_h, _ = attention(x_h @ W_Q[cols, cols], x_h @ W_K[cols, cols], x_h @ W_V[cols, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "splits the input X into slices before projecting, each head using only its diagonal block "
                    "of W_Q, W_K, W_V, instead of projecting all of X and then splitting Q, K, V",
         "where": ["q8"]}),
}
