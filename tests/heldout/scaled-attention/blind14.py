"""Fourteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
and the mistakes of blind.py .. blind13.py (by their names and "mistake" words), so that theirs are not
repeated in the same form; and public student code found with the `search` tool (attention layers whose
scale is taken from `k.dim()`, CS231n-style softmax helpers with a hard-coded `dim=1`, hand-written
stable softmaxes with `max(...)`), whose slips are carried over into this notebook's signatures in new code.

What a first attention course hands in, not exotic code. The commonest slips in new forms: the softmax
taken over the queries by transposing around it, the scores divided by d_k inside a small helper, each
head scaled by the model width read off W_Q, the row max taken without keepdim, log of softmax with no
guard written as a loop over rows, a q5 letter confusing the raw and scaled variance. New kinds: the scale
read from the rank of K (k.dim()), a helper softmax hard-coded to dim=1 (right for 2-D, the query axis
when batched), the scale taken from the value width d_v, the weighted values averaged instead of summed,
cosine similarities instead of dot products, the absolute value of the dot products, the seed reset
between the two draws of the table, a temperature sqrt(T) folded into the entropy, the table ignoring its
`dims`, the multi-head function returning a pair, the queries pre-scaled nanoGPT-style and scaled again.

Each wrong variant changes one cell (q1_softmax_helper_dim1: q1 and its batched q8) of an otherwise
full-marks notebook and has exactly one mistake, said
the way a TA would say what to fix; `where` lists the questions whose tests may lose points. Correct
variants are really correct but written differently (one global max shift, torch.where for 0 log 0 with a
1-D query, a population variance of dot products made with a matrix-vector product, batched heads cut
from Q.T beside a q1 that transposes the last two axes,
torch.tensor_split heads, letters built with str methods). Every variant was checked against plain torch
before grading.

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

_ENT = '''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)
'''


def _table(body: str, head: str = "def entropy_table(dims=(4, 16, 64, 256), seed=0):\n") -> str:
    return "\n\n" + head + body


_TABLE_OK = _table('''    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''')


def _att(body: str) -> str:
    return "\ndef attention(Q, K, V, d_k):\n" + body


def _var(body: str) -> str:
    return "\ndef dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + body


def _mha(body: str) -> str:
    return "\ndef multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n" + body


_HEADS = '''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    head_outputs = []
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
'''

_ATT_BATCHED = _att('''    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
''')

_MHA_BATCHED = _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):
        return M.T.reshape(n_heads, d_k, T).transpose(1, 2)

    heads, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    concat = heads.transpose(1, 2).reshape(d_model, T).T
    return concat @ W_O
''')

CORRECT = {
    # q1: one constant (the max over the whole score block) subtracted before exp: still exact per row
    "global_max_shift": {ATT: _att('''    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores - scores.amax(dim=(-2, -1), keepdim=True)
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    return torch.matmul(weights, V), weights
''')},
    # q4 with torch.where for the 0 log 0 terms; the table with a 1-D query (same random numbers)
    "where_entropy_vector_query": {ENT: '''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    plogp = torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))
    return -plogp.sum(dim=-1)
''' + _table('''    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)
        k = torch.randn(5, d)
        raw = k @ q
        scaled = raw / math.sqrt(d)
        out.append({"d": d, "raw_std": torch.std(raw).item(), "scaled_std": torch.std(scaled).item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return out
''')},
    # q2: dot products as a matrix-vector product with a ones vector, population variance via float()
    "ones_vector_population_variance": {VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k) @ torch.ones(d_k)
    if scaled:
        dots /= math.sqrt(d_k)
    return float(torch.var(dots, correction=0))
''')},
    # q8: heads cut from Q.T (rows of Q.T are columns of Q), so (n_heads, d_k, T) then swap the last two;
    # batched heads need a q1 that transposes the last two axes (K.T only works on 2-D), so both cells
    "heads_from_transposed_projections": {ATT: _ATT_BATCHED, MHA: _MHA_BATCHED},
    # q8: torch.tensor_split into n_heads pieces and an explicit loop
    "tensor_split_loop": {MHA: _mha('''    d_k = X.shape[1] // n_heads
    qs = torch.tensor_split(X @ W_Q, n_heads, dim=1)
    ks = torch.tensor_split(X @ W_K, n_heads, dim=1)
    vs = torch.tensor_split(X @ W_V, n_heads, dim=1)
    pieces = []
    for i in range(n_heads):
        o, w = attention(qs[i], ks[i], vs[i], d_k)
        pieces.append(o)
    return torch.hstack(pieces) @ W_O
''')},
    # q5-q7 written with str methods
    "answers_str_methods": {
        Q5: 'q5_answer = " C ".strip()\n',
        Q6: 'q6_answer = "a".capitalize()\n',
        Q7: 'q7_answer = "D" * 1\n',
    },
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q1_softmax_around_transpose": ({ATT: _att('''    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = F.softmax(scores.transpose(-2, -1), dim=-1).transpose(-2, -1)
    return weights @ V, weights
''')}, {"mistake": "the transposes around the softmax make it normalise each key's column over the queries; "
                   "apply the softmax to the scores themselves along dim=-1, so each query's row sums to 1",
        "where": ["q1"]}),
    "q1_scale_helper_divides_by_d_k": ({ATT: '''
def scale_scores(s, d_k):
    return torch.div(s, d_k)


def attention(Q, K, V, d_k):
    scores = scale_scores(torch.matmul(Q, K.transpose(-2, -1)), d_k)
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, {"mistake": "scale_scores divides the scores by d_k; the formula divides by the square root, "
                  "math.sqrt(d_k)", "where": ["q1"]}),
    "q8_head_scale_from_w_q": ({MHA: _mha(_HEADS + '''        out_h, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], W_Q.shape[0])
        head_outputs.append(out_h)
    return torch.cat(head_outputs, dim=1) @ W_O
''')}, {"mistake": "passes W_Q.shape[0] (d_model) as each head's d_k; a head is scaled by its own width, "
                   "d_model // n_heads", "where": ["q8"]}),
    "q1_row_max_without_keepdim": ({ATT: _att('''    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    row_max = scores.max(dim=-1).values
    e = torch.exp(scores - row_max)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
''')}, {"mistake": "the row max is taken without keepdim=True, so its (T_q,) shape broadcasts along the keys "
                   "and every key gets a different shift (a crash when T_q != T_k); use "
                   "scores.max(dim=-1, keepdim=True).values", "where": ["q1"]}),
    "q4_log_softmax_rows_unguarded": ({ENT: '''
def softmax_entropy(logits):
    flat = logits.reshape(-1, logits.shape[-1])
    ents = []
    for row in flat:
        p = torch.softmax(row, dim=0)
        ents.append(-(p * torch.log(p)).sum())
    return torch.stack(ents).reshape(logits.shape[:-1])
''' + _TABLE_OK}, {"mistake": "log of the probabilities with no guard: a saturated row has p = 0 entries and "
                               "0 * log 0 is NaN; add 1e-9 inside the log or use F.log_softmax",
                    "where": ["q4"]}),
    "q5_answer_scaled_variance": ({Q5: 'q5_answer = "A"  # dividing by sqrt(d_k) makes it 1\n'},
                                  {"mistake": "answers A, the variance after dividing by sqrt(d_k); the raw "
                                              "q^T k has variance d_k (answer C)", "where": ["q5"]}),
    # --- new kinds
    "q1_scale_from_rank_of_k": ({ATT: _att('''    d = K.dim()
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
''')}, {"mistake": "K.dim() is the number of axes of K (2), not its width; scale by the d_k you are given",
        "where": ["q1"]}),
    "q1_softmax_helper_dim1": ({ATT: '''
def softmax(x):
    x = x - torch.max(x, dim=1, keepdim=True)[0]
    e = torch.exp(x)
    return e / torch.sum(e, dim=1, keepdim=True)


def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = softmax(scores)
    return weights @ V, weights
''', MHA: _MHA_BATCHED}, {"mistake": "the softmax helper hard-codes dim=1: right for one 2-D score matrix, but "
                                 "this q8 runs the heads as one batch of (n_heads, T, T) scores, where dim 1 is "
                                 "the query axis; normalise over dim=-1",
       "where": ["q8"]}),
    "q1_scale_from_value_width": ({ATT: _att('''    scale = 1.0 / math.sqrt(V.shape[-1])
    weights = torch.softmax(Q @ K.transpose(-2, -1) * scale, dim=-1)
    return weights @ V, weights
''')}, {"mistake": "the scale is taken from the width of V (d_v); the scores are dot products of width "
                   "d_k, so divide by sqrt(d_k)", "where": ["q1"]}),
    "q1_weighted_values_averaged": ({ATT: _att('''    weights = F.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    output = (weights.unsqueeze(-1) * V.unsqueeze(-3)).mean(dim=-2)
    return output, weights
''')}, {"mistake": "averages the weighted value rows over the keys instead of summing them: the weights "
                   "already sum to 1, so .mean divides the output by T_k; use .sum (or weights @ V)",
        "where": ["q1"]}),
    "q2_cosine_instead_of_dot": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = F.cosine_similarity(q, k, dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "cosine_similarity divides each dot product by |q| |k| (about d_k), so the variance is "
                   "about 1/d_k; the question wants the plain dot product (q * k).sum(-1)", "where": ["q2"]}),
    "q2_abs_of_dots": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    size = torch.abs((q * k).sum(dim=1))
    if scaled:
        size = size / math.sqrt(d_k)
    return size.var().item()
''')}, {"mistake": "takes the absolute value of the dot products before the variance; |q.k| has variance "
                   "about (1 - 2/pi) d_k, so return the variance of the signed dot products",
        "where": ["q2"]}),
    "q4_table_seed_between_draws": ({ENT: _ENT + _table('''    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        torch.manual_seed(seed)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''')}, {"mistake": "reseeds between the two draws, so k's first row repeats q; seed once per d, before "
                   "drawing q and then k", "where": ["q4"]}),
    "q4_entropy_with_temperature": ({ENT: '''
def softmax_entropy(logits):
    logits = logits / math.sqrt(logits.shape[-1])
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)
''' + _TABLE_OK}, {"mistake": "softmax_entropy divides the logits by sqrt(T) before the softmax; the "
                               "entropy is of softmax(logits) as given, the scaling belongs to the caller",
                    "where": ["q4"]}),
    "q4_table_ignores_dims": ({ENT: _ENT + _table('''    rows = []
    for d in [4, 16, 64, 256]:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
''')}, {"mistake": "loops over a hard-coded [4, 16, 64, 256] instead of the dims argument, so any other "
                   "dims give the default table; loop over dims", "where": ["q4"]}),
    "q8_returns_pair": ({MHA: _mha(_HEADS + '''        out_h, w_h = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)
        head_outputs.append(out_h)
    return torch.cat(head_outputs, dim=1) @ W_O, w_h
''')}, {"mistake": "returns (output, weights) like attention does; multi_head_attention must return only "
                   "the (T, d_model) tensor concat @ W_O", "where": ["q8"]}),
    "q8_queries_prescaled_and_scaled": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q) * d_k ** -0.5
    K, V = X @ W_K, X @ W_V
    head_outputs = []
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
        out_h, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], d_k)
        head_outputs.append(out_h)
    return torch.cat(head_outputs, dim=1) @ W_O
''')}, {"mistake": "pre-scales Q by 1/sqrt(d_k) and then attention scales again, so the scores are divided "
                   "by d_k; attention already does the scaling, drop the pre-scale", "where": ["q8"]}),
    "q7_answer_best_key": ({Q7: 'answer_options = ["A", "B", "C", "D"]\nq7_answer = answer_options[2]\n'},
                           {"mistake": "answers C, the value of the best-scoring key alone (an argmax); "
                                       "attention returns a softmax-weighted mix of all the values (D)",
                            "where": ["q7"]}),
}
