"""Thirteenth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
and the mistakes of blind.py .. blind12.py, so that theirs are not repeated in the same form; and
public student code found with the `search` tool (hand-written softmaxes with exp and a mask, nanoGPT-style
heads concatenated with torch.cat(dim=-1), views to (B, T, H, d) then transpose(1, 2), a scale taken from
the model width), whose slips are carried over into this notebook's signatures in new code.

A class as it comes: the commonest slips written in new forms (the scale as d_k ** -1; an nn.Softmax
module built on dim 0; torch.normal with no generator; the 1e-9 added outside the log by a misplaced
parenthesis; each head scaled with the model width read from X) beside new kinds (the scale applied
after the softmax; a max-shift taken per column; `sum / n_samples - 1` without parentheses; the scaled
dot products multiplied by sqrt(d_k); a table keyed by d; heads permuted so attention runs over features;
a layer norm added after the output projection) and three letter answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and has exactly one mistake, said
the way a TA would say what to fix; `where` lists the questions whose tests may lose points. Correct
variants are really correct but written differently (torch.distributions.Categorical, torch.xlogy, a
logsumexp softmax with the scale folded into Q, one generator draw unpacked into q and k with a
hand-written variance, torch.chunk heads). Every variant was checked against plain torch before grading.

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

_ENT = '''
def softmax_entropy(logits):
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)
'''


def _att(body: str) -> str:
    return "\ndef attention(Q, K, V, d_k):\n" + body


def _var(body: str) -> str:
    return "\ndef dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + body


def _mha(body: str) -> str:
    return "\ndef multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n" + body


_HEADS_LOOP = '''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        outs.append(o)
'''

CORRECT = {
    # q1: the scale folded into the queries, the softmax written as exp(s - logsumexp(s))
    "scale_in_queries_logsumexp": {ATT: _att('''    Qs = Q * d_k ** -0.5
    scores = torch.matmul(Qs, K.transpose(-1, -2))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    return torch.matmul(weights, V), weights
''')},
    # q4 through torch.distributions (0 log 0 handled by the library)
    "categorical_entropy": {ENT: '''
def softmax_entropy(logits):
    return torch.distributions.Categorical(logits=logits).entropy()
''' + _TABLE},
    # q4 with xlogy (xlogy(0, 0) = 0), the table's scaled std derived from the raw one
    "xlogy_entropy_std_divided": {ENT: '''
def softmax_entropy(logits):
    p = torch.softmax(logits, dim=-1)
    return -torch.xlogy(p, p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        raw_std = raw.std().item()
        table.append(dict(d=d, raw_std=raw_std, scaled_std=raw_std / math.sqrt(d),
                          H_raw=softmax_entropy(raw).item(),
                          H_scaled=softmax_entropy(raw / math.sqrt(d)).item()))
    return table
'''},
    # q2 with one draw unpacked into q and k and a hand-written (population) variance
    "one_draw_manual_variance": {VAR: _var('''    q, k = torch.randn(2, n_samples, d_k, generator=generator)
    dots = torch.sum(q * k, dim=1)
    if scaled:
        dots = dots / d_k ** 0.5
    centred = dots - dots.mean()
    return (centred ** 2).mean().item()
''')},
    # q8 nanoGPT-style: torch.chunk over the columns, a list of heads, cat along the last dim
    "chunk_heads_list": {MHA: _mha('''    d_k = X.shape[1] // n_heads
    qs = torch.chunk(X @ W_Q, n_heads, dim=-1)
    ks = torch.chunk(X @ W_K, n_heads, dim=-1)
    vs = torch.chunk(X @ W_V, n_heads, dim=-1)
    out = torch.cat([attention(q, k, v, d_k)[0] for q, k, v in zip(qs, ks, vs)], dim=-1)
    return out @ W_O
''')},
    # q5-q7 written in lower case and upper-cased
    "answers_upper_cased": {
        Q5: 'q5_answer = "c".upper()\n',
        Q6: 'q6_answer = "a".upper()\n',
        Q7: 'q7_answer = "d".upper()\n',
    },
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q1_power_minus_one": ({ATT: _att('''    scale = d_k ** -1
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale
    weights = F.softmax(scores, dim=-1)
    return weights @ V, weights
''')}, {"mistake": "the scale should be d_k ** -0.5 (one over the square root); d_k ** -1 divides the "
                   "scores by d_k itself", "where": ["q1", "q8"]}),
    "q1_softmax_module_dim0": ({ATT: _att('''    softmax = torch.nn.Softmax(dim=0)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = softmax(scores)
    return weights @ V, weights
''')}, {"mistake": "the Softmax module is built with dim=0, so it normalises down the columns (over the "
                   "queries); it must normalise each row over the keys, dim=-1", "where": ["q1", "q8"]}),
    "q2_torch_normal_global": ({VAR: _var('''    q = torch.normal(0.0, 1.0, size=(n_samples, d_k))
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k))
    dots = (q * k).sum(dim=-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "torch.normal is called without generator=generator, so the numbers come from the global "
                   "RNG and the same seeded generator does not give the same result", "where": ["q2"]}),
    "q4_epsilon_outside_log": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p) + 1e-9).sum(dim=-1)
''' + _TABLE}, {"mistake": "misplaced parenthesis: the 1e-9 is added after p * log(p) instead of inside the "
                           "log, so a saturated row still computes 0 * log 0 = NaN", "where": ["q4"]}),
    "q8_head_scale_model_width": ({MHA: _mha('''    head_dim = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for i in range(n_heads):
        lo, hi = i * head_dim, (i + 1) * head_dim
        out, _ = attention(Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi], X.shape[-1])
        heads.append(out)
    return torch.cat(heads, dim=-1) @ W_O
''')}, {"mistake": "passes X.shape[-1] (d_model) to attention as d_k; each head must be scaled by its own "
                   "width d_model // n_heads", "where": ["q8"]}),
    # --- other ordinary slips and new kinds
    "q1_scale_after_softmax": ({ATT: _att('''    scores = Q @ K.transpose(-2, -1)
    weights = F.softmax(scores, dim=-1) / math.sqrt(d_k)
    return weights @ V, weights
''')}, {"mistake": "divides by sqrt(d_k) after the softmax instead of dividing the scores before it: the "
                   "rows no longer sum to 1 and the sharpness is unchanged", "where": ["q1", "q8"]}),
    "q1_shift_by_column_max": ({ATT: _att('''    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores - scores.max(dim=-2, keepdim=True).values
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ V, weights
''')}, {"mistake": "for stability subtracts each column's max (over the queries) instead of each row's: a "
                   "different constant per key changes the weights; subtract the max over dim=-1",
        "where": ["q1", "q8"]}),
    "q2_precedence_n_minus_1": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    mean = dots.mean()
    return (((dots - mean) ** 2).sum() / n_samples - 1).item()
''')}, {"mistake": "writes sum / n_samples - 1 without parentheses, so Python subtracts 1 from the variance "
                   "instead of dividing by (n_samples - 1)", "where": ["q2"]}),
    "q2_scaled_multiplies": ({VAR: _var('''    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("ij,ij->i", q, k)
    if scaled:
        dots = dots * math.sqrt(d_k)
    return dots.var().item()
''')}, {"mistake": "with scaled=True multiplies the dot products by sqrt(d_k) instead of dividing, so the "
                   "variance grows to d_k^2 instead of falling to 1", "where": ["q2"]}),
    "q4_table_keyed_by_d": ({ENT: _ENT + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = {}
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        table[d] = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
    return table
'''}, {"mistake": "returns a dict keyed by d instead of the list of row dicts, in the order of dims, that "
                  "the question asks for", "where": ["q4"]}),
    "q8_permute_features_as_tokens": ({MHA: _mha('''    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = (X @ W_Q).reshape(T, n_heads, d_k).permute(1, 2, 0)
    K = (X @ W_K).reshape(T, n_heads, d_k).permute(1, 2, 0)
    V = (X @ W_V).reshape(T, n_heads, d_k).permute(1, 2, 0)
    outs = [attention(Q[h], K[h], V[h], d_k)[0] for h in range(n_heads)]
    return torch.stack(outs).permute(2, 0, 1).reshape(T, d_model) @ W_O
''')}, {"mistake": "permutes the heads to (n_heads, d_k, T), so each head's attention treats the d_k "
                   "features as the tokens; the split must be (n_heads, T, d_k), i.e. transpose(0, 1)", "where": ["q8"]}),
    "q8_layer_norm_after": ({MHA: _mha(_HEADS_LOOP + '''    Y = torch.cat(outs, dim=-1) @ W_O
    return F.layer_norm(Y, Y.shape[-1:])
''')}, {"mistake": "adds a layer norm after the output projection (the transformer block's habit); the "
                   "question asks for concat @ W_O only", "where": ["q8"]}),
    "q5_answer_with_period": ({Q5: 'q5_answer = "C."\n'},
                              {"mistake": "writes the letter with a full stop, 'C.', which is not one of "
                                          "\"A\", \"B\", \"C\", \"D\": give the letter alone",
                               "where": ["q5"]}),
    "q6_answer_plain_mean": ({Q6: "q6_answer = 'D'  # every row of X gets averaged\n"},
                             {"mistake": "answers D, the plain mean of the rows: the weights are the softmax "
                                         "of X_i . X_j / sqrt(d_k), not uniform (answer A)", "where": ["q6"]}),
    "q7_answer_exact_match": ({Q7: "q7_answer = 'a'\n"},
                              {"mistake": "answers A, an exact-match lookup like a hash table; attention "
                                          "returns a softmax-weighted mix of every value (answer D)",
                               "where": ["q7"]}),
}
