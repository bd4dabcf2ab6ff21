"""Tenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution, `variants.py`,
the naming tests or the key comments of `measure.py`. What was read: the student-facing text of
`full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of `measure.py`
and the variant names and code of the nine earlier blind sets, so that their mistakes are not repeated
in the same form.

A mixed class. Beginners: `torch.bmm` on 2-D inputs, d_k read from the number of rows, the generator
passed positionally to `torch.randn`, `scaled=True` made the default, the scaled dot products divided
by d_k, the variance answer taken as a product of variances, the lookup answer taken as an argmax.
Intermediate: `F.dropout` left at its default `training=True`, `log1p` used as the "safe" log, one
entropy for the whole flattened tensor, the table's keys drawn with their axes swapped or ten of them,
the values left unsplit across heads, and sqrt(d_k) passed where `attention` expects d_k.

Each wrong variant changes one or two cells of an otherwise full-marks notebook and says its mistake
in words; `where` lists the questions that may lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"          # the q4 cell (also defines entropy_table)
Q5 = "q5_answer"
Q6 = "q6_answer"
Q7 = "q7_answer"
MHA = "multi_head_attention"

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

_ENT = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _mha(body: str) -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
{body}
    return torch.cat(heads, dim=1) @ W_O
'''


CORRECT = {
    # q1 with einsum and a hand-written shifted softmax; q2 drawing q and k in one call
    "einsum_attention_one_draw": {
        ATT: '''
def attention(Q, K, V, d_k):
    s = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    e = torch.exp(s - s.max(dim=1, keepdim=True).values)
    w = e / e.sum(dim=1, keepdim=True)
    return torch.einsum("qk,kv->qv", w, V), w
''',
        VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    qk = torch.randn(2, n_samples, d_k, generator=generator)
    dots = (qk[0] * qk[1]).sum(dim=-1) / (math.sqrt(d_k) if scaled else 1.0)
    return float(dots.var())
'''},
    # q4: entropy from torch.distributions; the scaled std derived from the raw one
    "categorical_entropy_std_rule": {
        ENT: '''
def softmax_entropy(logits):
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (k @ q.T).squeeze(1)
        rows.append(dict(d=d, raw_std=raw.std().item(), scaled_std=raw.std().item() / math.sqrt(d),
                         H_raw=softmax_entropy(raw).item(),
                         H_scaled=softmax_entropy(raw / math.sqrt(d)).item()))
    return rows
'''},
    # q4 with log_softmax; q8 with W_O applied per head on its block of rows and summed
    "log_softmax_entropy_blockwise_wo": {
        ENT: '''
def softmax_entropy(logits):
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(-1)
''' + _TABLE,
        MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = 0
    for h in range(n_heads):
        s = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(Q[:, s], K[:, s], V[:, s], d_k)
        out = out + o @ W_O[s, :]           # concat then W_O == sum of per-head blocks
    return out
'''},
    # q8 vectorised with reshape/transpose; multiple-choice answers written as expressions
    "vectorised_heads_expression_answers": {
        MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    def split(M):
        return M.reshape(T, n_heads, d_k).transpose(0, 1)     # (n_heads, T, d_k)
    q, k, v = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    o = (w @ v).transpose(0, 1).reshape(T, d_model)
    return o @ W_O
''',
        Q5: '''
q5_answer = chr(ord("A") + 2)
''',
        Q6: '''
q6_answer = "a".upper()
''',
        Q7: '''
q7_answer = ["A", "B", "C", "D"][-1]
'''},
    # q1 with mm/t(); q2 with einsum and correction=1; q4 with torch.special.entr
    "mm_attention_entr_entropy": {
        ATT: '''
def attention(Q, K, V, d_k):
    weights = torch.softmax(torch.mm(Q, K.t()) * d_k ** -0.5, dim=1)
    return torch.mm(weights, V), weights
''',
        VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn((n_samples, d_k), generator=generator)
    k = torch.randn((n_samples, d_k), generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots * d_k ** -0.5
    return torch.var(dots, correction=1).item()
''',
        ENT: '''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)
''' + _TABLE},
}

WRONG = {
    "q1_functional_dropout_on": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores, dim=-1)
    weights = F.dropout(weights, p=0.1)      # regularise like in the paper
    return weights @ V, weights
'''}, {"mistake": "adds F.dropout, whose default training=True drops and rescales weights at every call: "
                  "the weights are random and the rows no longer sum to 1", "where": ["q1", "q8"]}),
    "q1_bmm_on_2d": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.bmm(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return torch.bmm(weights, V), weights
'''}, {"mistake": "uses torch.bmm, which needs 3-D batches, on the 2-D matrices of this question",
       "where": ["q1", "q8"]}),
    "q1_d_k_from_rows": ({ATT: '''
def attention(Q, K, V, d_k):
    d_k = Q.shape[0]
    scores = Q @ K.T / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
'''}, {"mistake": "overwrites the given d_k with Q.shape[0], the number of queries, so the scale is "
                  "sqrt(T_q) instead of sqrt(d_k)", "where": ["q1", "q8"]}),
    "q2_generator_positional": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator)
    k = torch.randn(n_samples, d_k, generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "passes the generator positionally to torch.randn, which takes it as a size and fails; "
                  "it must be passed as generator=...", "where": ["q2"]}),
    "q2_scaled_by_default": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=True):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "changes the signature's default to scaled=True, so a call without the flag returns the "
                  "scaled variance (about 1) instead of about d_k", "where": ["q2"]}),
    "q2_scaled_divides_by_d_k": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.sum(q * k, dim=1)
    if scaled:
        dots = dots / d_k            # "scale by d_k"
    return dots.var().item()
'''}, {"mistake": "divides the dot products by d_k instead of sqrt(d_k) when scaled, giving a variance of "
                  "about 1/d_k", "where": ["q2"]}),
    "q4_log1p_as_safe_log": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log1p(p)).sum(dim=-1)      # log1p never sees log(0)
''' + _TABLE}, {"mistake": "uses log1p(p) = ln(1 + p) as a NaN-free log; it is a different function, so "
                               "every entropy is wrong (and negative)", "where": ["q4"]}),
    "q4_entropy_of_flattened": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits.flatten(), dim=0)
    return -(p * torch.log(p + 1e-9)).sum()
''' + _TABLE}, {"mistake": "flattens the logits and returns one entropy for the whole tensor instead of one "
                               "per row", "where": ["q4"]}),
    "q4_table_keys_drawn_transposed": ({ENT: _ENT + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(d, 5)      # keys as columns
        raw = (q @ k)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''}, {"mistake": "draws the keys as a (d, 5) matrix, so the same seed gives different keys than the lesson's "
                  "(5, d) draw and every number in the table changes", "where": ["q4"]}),
    "q4_table_ten_keys": ({ENT: _ENT + _TABLE.replace("k = torch.randn(5, d)", "k = torch.randn(10, d)")},
                          {"mistake": "draws ten keys instead of the lesson's five", "where": ["q4"]}),
    "q5_answer_product_of_variances": ({Q5: '''
# Var(q k) = Var(q) Var(k) = d_k * d_k
q5_answer = "D"
'''}, {"mistake": "multiplies the variances of the two vectors (d_k times d_k) instead of summing d_k "
                  "unit-variance products", "where": ["q5"]}),
    "q7_answer_argmax_lookup": ({Q7: '''
q7_answer = "C"
'''}, {"mistake": "takes attention for a hard argmax over keys rather than a softmax-weighted mix of all "
                  "the values", "where": ["q7"]}),
    "q8_values_not_split": ({MHA: _mha(
        "        out_h, _ = attention(Q[:, cols], K[:, cols], V, d_k)\n"
        "        heads.append(out_h)")},
        {"mistake": "splits the queries and keys by head but hands every head the full-width V, so the "
                    "concatenation is n_heads times too wide for W_O", "where": ["q8"]}),
    "q8_sqrt_passed_as_d_k": ({MHA: _mha(
        "        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], math.sqrt(d_k))\n"
        "        heads.append(out_h)")},
        {"mistake": "passes sqrt(d_k) to attention, which takes the square root itself, so the scores are "
                    "divided by d_k ** 0.25", "where": ["q8"]}),
}
