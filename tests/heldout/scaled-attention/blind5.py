"""Fifth blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py` or the naming tests. What was read: the three lessons, the master notebook's student-facing
text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the four earlier blind sets, so that none of their kinds of mistake is repeated here.

The students vary. Beginners: the scores scaled twice (once by hand, once more inside the softmax
call), the variance of the sample mean returned for the variance, the logits used as the probabilities
in the entropy, the table's std filled with a variance, and a multiple-choice answer given as the
option's number. Intermediate: `F.normalize` used to make rows sum to 1 (its default is p=2, unit
length), `torch.randn_like` for the keys (it has no generator argument, so the draws are not
reproducible), an entropy in log10, the table reseeded with `seed + d` "for fresh numbers", heads
stacked on the last axis before the reshape (columns interleaved head by head), the output projection
applied transposed, and the nanoGPT habit of a causal mask inside a multi-head attention that asks for
none. Public code searched for the multi-head habits (nanoGPT and Raschka-style `view`/`transpose`
splits, `torch.cat([h(x) for h in heads], dim=-1)`).

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points (a broken `attention` also costs q8). Correct
variants are really correct but written differently from `full_marks.ipynb`. Every variant was checked
against plain torch (`torch.softmax`, `F.scaled_dot_product_attention`, `torch.nn.MultiheadAttention`)
before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"       # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"

_ENTROPY = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _table(seed: str = "torch.manual_seed(seed)", raw_std: str = "raw.std().item()") -> str:
    return f'''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        {seed}
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        results.append({{"d": d, "raw_std": {raw_std}, "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''


def _var(body: str, k: str = "k = torch.randn(n_samples, d_k, generator=generator)") -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    {k}
    dots = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
{body}
'''


def _mha(merge: str = "concat = torch.cat(heads, dim=1)", project: str = "return concat @ W_O") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    {merge}
    {project}
'''


CORRECT = {
    # the 1/sqrt(d_k) split evenly between Q and K (d_k ** -0.25 each); Tensor.softmax
    "attention_scale_split_between_q_and_k": {ATT: '''
def attention(Q, K, V, d_k):
    r = d_k ** -0.25
    weights = ((Q * r) @ (K * r).T).softmax(dim=-1)
    return weights @ V, weights
'''},
    # addmm with alpha for the scale (beta=0 ignores the zeros), log_softmax then exp
    "attention_addmm_alpha_log_softmax": {ATT: '''
def attention(Q, K, V, d_k):
    scores = torch.addmm(Q.new_zeros(Q.shape[0], K.shape[0]), Q, K.t(), beta=0, alpha=1.0 / math.sqrt(d_k))
    weights = F.log_softmax(scores, dim=1).exp()
    return weights.mm(V), weights
'''},
    # both vectors drawn in one torch.normal call from the generator; linalg.vecdot; float()
    "variance_one_normal_call_vecdot": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    qk = torch.normal(0.0, 1.0, size=(2, n_samples, d_k), generator=generator)
    dots = torch.linalg.vecdot(qk[0], qk[1])
    if scaled:
        dots = dots * d_k ** -0.5
    return float(torch.var(dots))
'''},
    # entropy from a hand-written log-softmax; the table from a private generator seeded the same way
    "entropy_logsumexp_private_generator": {ENT: '''
def softmax_entropy(logits):
    log_p = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    return -(log_p.exp() * log_p).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)      # the same stream torch.manual_seed(seed) would give
        q = torch.randn(1, d, generator=g)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        table.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                          H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return table
'''},
    # all heads at once: unflatten the columns into (n_heads, d_k), batched scores, flatten back
    "mha_unflatten_batched": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(W):
        return (X @ W).unflatten(1, (n_heads, d_k)).permute(1, 0, 2)   # (n_heads, T, d_k)

    q, k, v = split(W_Q), split(W_K), split(W_V)
    w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    merged = (w @ v).permute(1, 0, 2).flatten(1)                         # (T, d_model), head 0 first
    return merged @ W_O
'''},
    # the letters computed or normalised
    "answers_normalised": {
        "q5_answer": 'q5_answer = " c ".strip().upper()\n',
        "q6_answer": 'q6_answer = "ABCD"[0]\n',
        "q7_answer": 'q7_answer = chr(ord("A") + 3)\n'},
}

WRONG = {
    "q1_scaled_twice": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / d_k ** 0.5
    weights = F.softmax(scores / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''}, {"mistake": "scales the scores twice (once when they are computed, again inside the softmax call), "
                  "so they are divided by d_k", "where": ["q1", "q8"]}),
    "q1_normalize_default_p2": ({ATT: '''
def attention(Q, K, V, d_k):
    scores = Q @ K.T / math.sqrt(d_k)
    e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
    weights = F.normalize(e, dim=-1)          # rows scaled to sum to 1
    return weights @ V, weights
'''}, {"mistake": "normalises the exponentials with F.normalize, whose default p=2 gives rows of unit "
                  "length, not rows that sum to 1", "where": ["q1", "q8"]}),
    "q2_variance_of_the_mean": ({VAR: _var("    return (dots.var() / n_samples).item()")},
                                {"mistake": "returns the variance of the sample mean (var / n_samples, the "
                                            "squared standard error) instead of the variance of the dot products",
                                 "where": ["q2"]}),
    "q2_randn_like_ignores_generator": ({VAR: _var("    return dots.var().item()", k="k = torch.randn_like(q)")},
                                        {"mistake": "draws the keys with torch.randn_like(q), which takes no "
                                                    "generator: k comes from the global RNG, so two calls with "
                                                    "generators seeded alike give different numbers",
                                         "where": ["q2"]}),
    "q4_entropy_log10": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log10(p + 1e-9)).sum(dim=-1)
''' + _table()}, {"mistake": "takes the entropy with log10 (bans) instead of the natural log (nats)",
                  "where": ["q4"]}),
    "q4_logits_used_as_probabilities": ({ENT: '''
def softmax_entropy(logits):
    return -(logits * torch.log(logits + 1e-9)).sum(dim=-1)
''' + _table()}, {"mistake": "forgets the softmax: uses the logits themselves as the probabilities (negative "
                              "logits give log of a negative number, NaN)", "where": ["q4"]}),
    "q4_table_variance_as_std": ({ENT: _ENTROPY + _table(raw_std="raw.var().item()")},
                                 {"mistake": "fills the table's raw_std with the variance of the raw scores "
                                             "instead of their standard deviation", "where": ["q4"]}),
    "q4_table_seed_offset_by_d": ({ENT: _ENTROPY + _table(seed="torch.manual_seed(seed + d)   # fresh numbers per d")},
                                  {"mistake": "reseeds with seed + d 'for fresh numbers per d' instead of seed "
                                              "itself, so the draws are not the lesson's", "where": ["q4"]}),
    "q5_answer_option_number": ({"q5_answer": "q5_answer = 3\n"},
                                {"mistake": "answers with the option's position (3, for the third option, C) "
                                            "instead of the letter as a string", "where": ["q5"]}),
    "q8_heads_stacked_on_last_axis": ({MHA: _mha(merge="concat = torch.stack(heads, dim=-1).reshape(T, d_model)")},
                                      {"mistake": "stacks the heads on a new last axis, (T, d_k, n_heads), before "
                                                  "the reshape: the merged columns interleave the heads instead of "
                                                  "putting head 0's block first", "where": ["q8"]}),
    "q8_output_projection_transposed": ({MHA: _mha(project="return concat @ W_O.T")},
                                        {"mistake": "applies the output projection as concat @ W_O.T (the nn.Linear "
                                                    "convention) while the input projections use X @ W",
                                         "where": ["q8"]}),
    "q8_causal_mask_added": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        s = (Q[:, c] @ K[:, c].T / math.sqrt(d_k)).masked_fill(~causal, float("-inf"))
        heads.append(torch.softmax(s, dim=-1) @ V[:, c])
    return torch.cat(heads, dim=1) @ W_O
'''}, {"mistake": "adds a causal mask (the nanoGPT decoder habit) to a multi-head attention that asks for "
                  "none: every token only sees the tokens before it", "where": ["q8"]}),
}
