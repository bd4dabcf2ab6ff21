"""Fourth blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, `measure.py` and the three earlier
blind sets, so that none of their kinds of mistake is repeated here.

The mistakes are slips of the kind seen in published attention homework and forum questions:
`torch.sqrt` called on a Python int, a softmax numerator never divided by its sum, log-softmax used as
the weights, the `scaled` flag tested the wrong way round, the 1/sqrt(d_k) applied to both q and k,
the logits used in place of log p in the entropy, an entropy upcast to float64, `(k @ q.T)[0]` for
`(q @ k.T)[0]`, a loop over `range(len(dims))` that records the index as d, a `range(n_heads - 1)`
off-by-one, a query slice that never moves with the head, and q6 answered with the argmax row. Each
wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain words;
`where` lists the questions that should lose points (a broken `attention` also costs q8). Correct
variants are really correct but written differently from `full_marks.ipynb` and the earlier sets. Every
variant was checked against plain torch (`F.scaled_dot_product_attention`, `torch.softmax`) before it
was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"       # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"


def _att(scores: str = "scores = Q @ K.T / d_k ** 0.5",
         weights: str = "weights = F.softmax(scores, dim=-1)") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    {weights}
    out = weights @ V
    return out, weights
'''


def _var(body: str) -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
{body}
'''


_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
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

_ENTROPY = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _mha(loop: str = "for h in range(n_heads):",
         call: str = "out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    {loop}
        cols = slice(h * d_k, (h + 1) * d_k)
        {call}
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''


CORRECT = {
    # the scale as a negative power; einsum for both products
    "attention_einsum_negative_power": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.einsum("qd,kd->qk", Q, K) * d_k ** -0.5
    weights = torch.softmax(scores, dim=1)
    return torch.einsum("qk,kv->qv", weights, V), weights
'''},
    # a hand-written max-shifted softmax and torch.mm / K.t()
    "attention_manual_softmax_mm": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.mm(Q, K.t()) / math.sqrt(d_k)
    e = torch.exp(scores - scores.max(dim=1, keepdim=True).values)
    weights = e / e.sum(dim=1, keepdim=True)
    return torch.mm(weights, V), weights
'''},
    # samples laid out as columns (d_k, n_samples), dot products summed over rows
    "variance_column_layout": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(d_k, n_samples, generator=generator)
    k = torch.randn(d_k, n_samples, generator=generator)
    dots = (q * k).sum(dim=0)
    if scaled:
        dots = dots * (1.0 / math.sqrt(d_k))
    return float(torch.var(dots))
'''},
    # entropy with torch.special.entr (entr(0) = 0 exactly); the table by a helper and a comprehension
    "entropy_entr_table_comprehension": {ENT: '''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)


def _row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = (q @ k.T).squeeze(0)
    scaled = raw / math.sqrt(d)
    return {"d": d, "raw_std": float(raw.std()), "scaled_std": float(scaled.std()),
            "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return [_row(d, seed) for d in dims]
'''},
    # entropy from log_softmax (finite even where p underflows to 0)
    "entropy_log_softmax": {ENT: '''
def softmax_entropy(logits):
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)
''' + _TABLE},
    # the output projection split by head: concat @ W_O == sum_h head_h @ W_O[rows of head h]
    "mha_blockwise_output_projection": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    total = torch.zeros(X.shape[0], W_O.shape[1], dtype=X.dtype)
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        head, _ = attention(Q[:, s], K[:, s], V[:, s], d_k)
        total = total + head @ W_O[s, :]
    return total
'''},
}

WRONG = {
    "q1_torch_sqrt_of_int": ({ATT: _att(scores="scores = Q @ K.T / torch.sqrt(d_k)")},
                             {"mistake": "torch.sqrt is called on the Python int d_k and raises TypeError",
                              "where": ["q1", "q8"]}),
    "q1_softmax_numerator_only": ({ATT: _att(
        weights="weights = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)")},
        {"mistake": "the max-shifted exponentials are never divided by their row sum: rows do not sum to 1",
         "where": ["q1", "q8"]}),
    "q1_log_softmax_weights": ({ATT: _att(weights="weights = F.log_softmax(scores, dim=-1)")},
                               {"mistake": "log_softmax used as the attention weights (negative, rows do not "
                                           "sum to 1)", "where": ["q1", "q8"]}),
    "q2_scaled_flag_inverted": ({VAR: _var('''    dots = (q * k).sum(1)
    if not scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()''')}, {"mistake": "the scaled flag is tested the wrong way round",
                                    "where": ["q2"]}),
    "q2_both_operands_scaled": ({VAR: _var('''    if scaled:
        q = q / math.sqrt(d_k)
        k = k / math.sqrt(d_k)
    return (q * k).sum(1).var().item()''')},
        {"mistake": "divides both q and k by sqrt(d_k), so the dot products are divided by d_k (variance "
                    "about 1/d_k)", "where": ["q2"]}),
    "q4_logits_as_log_probs": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * logits).sum(dim=-1)
''' + _TABLE}, {"mistake": "uses the logits where log p belongs (log p = logits - logsumexp(logits))",
                "where": ["q4"]}),
    "q4_entropy_upcast_float64": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits.double(), dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
''' + _TABLE}, {"mistake": "computes in float64 and returns float64 whatever the logits' dtype",
                "where": ["q4"]}),
    "q4_table_k_times_q": ({ENT: _ENTROPY + _TABLE.replace("raw = (q @ k.T)[0]", "raw = (k @ q.T)[0]")},
                           {"mistake": "(k @ q.T)[0] is the first key's single score, not the 5 scores of "
                                       "the query (its std is NaN)", "where": ["q4"]}),
    "q4_table_loop_over_indices": ({ENT: _ENTROPY + _TABLE.replace(
        "    for d in dims:\n", "    for i in range(len(dims)):\n        d = i + 1\n")},
        {"mistake": "loops over range(len(dims)) and uses the position (1, 2, 3, 4) as d", "where": ["q4"]}),
    "q6_answer_argmax_row": ({"q6_answer": 'q6_answer = "C"\n'},
                             {"mistake": "takes the output row to be the single best-matching row of X",
                              "where": ["q6"]}),
    "q8_range_off_by_one": ({MHA: _mha(loop="for h in range(n_heads - 1):")},
                            {"mistake": "range(n_heads - 1) drops the last head (concat is d_model - d_k wide)",
                             "where": ["q8"]}),
    "q8_query_slice_fixed": ({MHA: _mha(call="out_h, _ = attention(Q[:, :d_k], K[:, cols], V[:, cols], d_k)")},
                             {"mistake": "every head uses head 0's query columns (the slice was not updated)",
                              "where": ["q8"]}),
}
