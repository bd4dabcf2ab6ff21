"""Fifteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
and the names and "mistake" words of blind.py .. blind14.py, so that their mistakes are not repeated in
the same form.

Written as a first attention course hands it in, not exotic code. The commonest slips in new forms: the
softmax normalised over the queries by a loop over key columns, the scale forgotten in an einsum version,
a loop over query rows that divides by d_k, an epsilon added to the logits (not inside the log) to stop
the NaN, the heads merged with a view and no permute, a copy-paste K projected with W_Q, and two letters
(q5 the squared width, q6 the best-matching row) picked from lists. New kinds: a causal mask in plain
attention (d2l masked_softmax carried over), an "off-by-one" softmax with 1 added to the denominator,
`.var().item` returned without calling it, the table's scaled scores made by an in-place division of an
alias of raw, and head slices stepping by n_heads instead of d_k.

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake, said
the way a TA would say what to fix; `where` lists the questions whose tests may lose points. Correct
variants are really correct but written differently (einsum with a logsumexp softmax, plain Python loops,
heads from column slices of the weight matrices, a torch.Generator for the table with torch.special.entr,
batched bmm dot products, letters from a dict). Every variant was checked against plain torch before
grading.

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

_TABLE_OK = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''


def _att(body: str) -> str:
    return "\ndef attention(Q, K, V, d_k):\n" + body


def _var(body: str) -> str:
    return "\ndef dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + body


def _mha(body: str) -> str:
    return "\ndef multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n" + body


CORRECT = {
    # q1: einsum scores, softmax as exp(s - logsumexp(s)) over the keys
    "einsum_logsumexp": {ATT: _att('''    s = torch.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k)
    w = torch.exp(s - torch.logsumexp(s, dim=-1, keepdim=True))
    out = torch.einsum("qk,kv->qv", w, V)
    return out, w
''')},
    # q1: explicit Python loops over queries and keys, stable softmax per row
    "plain_loops": {ATT: _att('''    T_q, T_k = Q.shape[0], K.shape[0]
    weights = torch.zeros(T_q, T_k, dtype=Q.dtype)
    for i in range(T_q):
        row = torch.stack([torch.dot(Q[i], K[j]) for j in range(T_k)]) / math.sqrt(d_k)
        row = torch.exp(row - row.max())
        weights[i] = row / row.sum()
    output = weights @ V
    return output, weights
''')},
    # q8: each head projects X with a column slice of the weight matrices (same as slicing Q)
    "heads_from_weight_slices": {MHA: _mha('''    d_model = X.shape[-1]
    d_k = d_model // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(X @ W_Q[:, cols], X @ W_K[:, cols], X @ W_V[:, cols], d_k)
        outs.append(o)
    return torch.cat(outs, dim=-1) @ W_O
''')},
    # q4: torch.special.entr for p ln p (0 at p = 0); the table draws from a Generator seeded the same way
    "entr_and_generator_table": {ENT: '''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = []
    for d in dims:
        torch.manual_seed(seed)
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        table.append(dict(d=d, raw_std=float(torch.std(raw)), scaled_std=float(torch.std(scaled)),
                          H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    # q2: dot products as a batch of (1, d) @ (d, 1) products
    "bmm_dot_products": {VAR: _var('''    qs = torch.randn(n_samples, 1, d_k, generator=generator)
    ks = torch.randn(n_samples, d_k, 1, generator=generator)
    dots = torch.bmm(qs, ks).flatten()
    if scaled:
        dots = dots * d_k ** -0.5
    return torch.var(dots).item()
''')},
    # q5-q7 looked up in a dict of what each option says
    "answers_from_dict": {
        Q5: 'meaning = {"one": "A", "root": "B", "d_k": "C", "square": "D"}\nq5_answer = meaning["d_k"]\n',
        Q6: 'q6_answer = {"weighted average": "A", "itself": "B"}["weighted average"]\n',
        Q7: 'q7_answer = "ABCD"[-1]\n',
    },
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q1_column_loop_over_queries": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    weights = torch.empty_like(scores)
    for j in range(scores.shape[1]):
        col = torch.exp(scores[:, j])
        weights[:, j] = col / col.sum()
    return weights @ V, weights
''')}, {"mistake": "the loop normalises each key's column over the queries; each query's row must sum to 1, "
                   "so normalise over the keys (softmax along dim=-1)", "where": ["q1"]}),
    "q1_einsum_without_scale": ({ATT: _att('''    scores = torch.einsum("id,jd->ij", Q, K)
    weights = scores.softmax(dim=-1)
    return torch.einsum("ij,jv->iv", weights, V), weights
''')}, {"mistake": "the scores are never divided by sqrt(d_k); scale them by 1/math.sqrt(d_k) before the "
                   "softmax", "where": ["q1"]}),
    "q1_row_loop_divides_by_d_k": ({ATT: _att('''    rows = []
    for i in range(Q.shape[0]):
        s = (K @ Q[i]) / d_k
        rows.append(torch.softmax(s, dim=0))
    weights = torch.stack(rows)
    return weights @ V, weights
''')}, {"mistake": "each row of scores is divided by d_k; the formula divides by its square root, "
                   "math.sqrt(d_k)", "where": ["q1"]}),
    "q4_epsilon_added_to_logits": ({ENT: '''
def softmax_entropy(logits):
    p = torch.softmax(logits + 1e-9, dim=-1)
    return -(p * torch.log(p)).sum(dim=-1)
''' + _TABLE_OK}, {"mistake": "the 1e-9 is added to the logits, which changes nothing: a saturated row still "
                               "has p = 0 and 0 * log 0 is NaN; put the epsilon inside the log, "
                               "torch.log(p + 1e-9), or use F.log_softmax", "where": ["q4"]}),
    "q8_merge_view_without_permute": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).view(T, n_heads, d_k).permute(1, 0, 2)
    K = (X @ W_K).view(T, n_heads, d_k).permute(1, 0, 2)
    V = (X @ W_V).view(T, n_heads, d_k).permute(1, 0, 2)
    heads = []
    for h in range(n_heads):
        o, _ = attention(Q[h], K[h], V[h], d_k)
        heads.append(o)
    merged = torch.stack(heads).contiguous().view(T, d_model)
    return merged @ W_O
''')}, {"mistake": "the stacked heads are (n_heads, T, d_k); viewing that as (T, d_model) mixes tokens and "
                   "heads; permute to (T, n_heads, d_k) first (or torch.cat(heads, dim=1))", "where": ["q8"]}),
    "q8_keys_projected_with_w_q": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = X @ W_Q
    K = X @ W_Q
    V = X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
''')}, {"mistake": "K is projected with W_Q (a copy-paste slip); the keys are X @ W_K", "where": ["q8"]}),
    "q5_answer_squared_width": ({Q5: 'options = ["A", "B", "C", "D"]\nq5_answer = options[3]  # d_k * d_k\n'},
                                {"mistake": "answers D, d_k squared; the variance of a sum of d_k independent "
                                            "products, each of variance 1, is d_k (answer C)",
                                 "where": ["q5"]}),
    "q6_answer_best_match": ({Q6: 'letters = "ABCD"\nq6_answer = letters[2]\n'},
                             {"mistake": "answers C, the single best-matching row; the softmax gives every row "
                                         "some weight, so the output is a weighted average of all rows (A)",
                              "where": ["q6"]}),
    # --- new kinds
    "q1_causal_mask": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    mask = torch.triu(torch.ones(Q.shape[0], K.shape[0]), diagonal=1).bool()
    scores = scores.masked_fill(mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''')}, {"mistake": "masks out the future keys as in a decoder; plain attention lets every query see every "
                   "key, so drop the triu mask", "where": ["q1"]}),
    "q1_softmax_plus_one": ({ATT: _att('''    scores = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(scores)
    weights = e / (1 + e.sum(dim=-1, keepdim=True))
    return weights @ V, weights
''')}, {"mistake": "the 1 added to the denominator makes each row sum to less than 1; the softmax "
                   "denominator is only the sum of the exponentials", "where": ["q1"]}),
    "q2_item_not_called": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item
''')}, {"mistake": "returns the method .item instead of calling it; write .item() so a float comes back",
        "where": ["q2"]}),
    "q4_table_scaled_in_place_alias": ({ENT: _ENT + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw
        scaled /= d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "scaled = raw is the same tensor, so /= scales raw too and the raw columns show the scaled "
                  "numbers; make a new tensor, scaled = raw / d ** 0.5", "where": ["q4"]}),
    "q8_head_stride_n_heads": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for start in range(0, n_heads * n_heads, n_heads):
        o, _ = attention(Q[:, start:start + d_k], K[:, start:start + d_k], V[:, start:start + d_k], d_k)
        outs.append(o)
    return torch.cat(outs, dim=1) @ W_O
''')}, {"mistake": "the head slices start every n_heads columns instead of every d_k columns, so heads "
                   "overlap or leave columns out; head h starts at h * d_k", "where": ["q8"]}),
}
