"""Eleventh blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names of blind.py .. blind10.py, so that their
mistakes are not repeated in the same form.

A realistic class: the commonest slips (scores divided by d_k, here with torch.mm(...).div; the softmax
over the queries, here through a helper that sums without a dim; the generator bypassed, here by
seeding the global RNG; 0 * log 0 in the entropy, here after a logsumexp) written in new forms, beside
new kinds: torch.split given the head count as chunk size, a float64 softmax dtype that breaks the
product with V, the keys mixed instead of the values, the raw entropy copied into the
scaled column, every head projected through the same block of W_O, and three multiple-choice answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently (broadcast products, torch.normal with bmm, a clamped log, permuted heads). Every variant
was checked against plain torch before it was graded.

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
    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        out.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return out
'''

_ENT = '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
'''


def _att(scores: str = "scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)",
         soft: str = "weights = F.softmax(scores, dim=-1)",
         out: str = "output = weights @ V") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    {soft}
    {out}
    return output, weights
'''


def _mha(proj: str = "out = torch.cat(heads, dim=-1) @ W_O", split: str = "") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(Q[:, c], K[:, c], V[:, c], d_k){split}
        heads.append(o)
    {proj}
    return out
'''


CORRECT = {
    # q1 from broadcast elementwise products summed over the features (any leading axes)
    "broadcast_products_attention": {ATT: '''
def attention(Q, K, V, d_k):
    scores = (Q.unsqueeze(-2) * K.unsqueeze(-3)).sum(dim=-1) / math.sqrt(d_k)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''},
    # q2 with torch.normal on the generator and a batch of 1x1 products
    "normal_draws_bmm_dots": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    k = torch.normal(0.0, 1.0, size=(n_samples, d_k), generator=generator)
    dots = torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()
    if scaled:
        dots = dots * d_k ** -0.5
    return float(dots.var().item())
'''},
    # q4 with the log clamped at the smallest normal number of the dtype
    "clamped_log_entropy": {ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p.clamp_min(torch.finfo(p.dtype).tiny))).sum(dim=-1)
''' + _TABLE},
    # q8 with all heads at once: view, permute, one call of (a batch-ready) attention, permute back
    "permuted_heads_one_call": {ATT: '''
def attention(Q, K, V, d_k):
    weights = F.softmax(torch.matmul(Q, K.mT) / math.sqrt(d_k), dim=-1)
    return torch.matmul(weights, V), weights
''', MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):
        return M.view(T, n_heads, d_k).permute(1, 0, 2)

    o, _ = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), d_k)
    return o.permute(1, 0, 2).flatten(start_dim=1) @ W_O
'''},
    # q5-q7 answers written in lower case and normalised
    "answers_upper_cased": {
        Q5: 'q5_answer = "c".upper()\n',
        Q6: 'q6_answer = " a ".strip().upper()\n',
        Q7: 'q7_answer = "abcd"[-1].upper()\n'},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q1_mm_div_d_k": ({ATT: _att(scores="scores = torch.mm(Q, K.t()).div(d_k)")},
                      {"mistake": "divides the scores by d_k instead of sqrt(d_k)", "where": ["q1", "q8"]}),
    "q1_normaliser_helper_over_queries": ({ATT: '''
def _normalise(s):
    e = torch.exp(s - s.max())
    return e / e.sum(0)


def attention(Q, K, V, d_k):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    weights = _normalise(scores)
    return weights @ V, weights
'''}, {"mistake": "its own softmax helper sums over axis 0, the queries: the columns sum to 1, not "
                  "the rows", "where": ["q1", "q8"]}),
    "q2_global_seed_not_generator": ({VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    torch.manual_seed(0)            # for reproducibility
    q = torch.randn(n_samples, d_k)
    k = torch.randn(n_samples, d_k)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''}, {"mistake": "seeds the global RNG and draws from it instead of the given generator, so the "
                  "generator is never used and every call gives the same numbers", "where": ["q2"]}),
    "q4_logsumexp_probs_log_zero": ({ENT: '''
def softmax_entropy(logits):
    log_z = torch.logsumexp(logits, dim=-1, keepdim=True)
    p = torch.exp(logits - log_z)
    return -(p * torch.log(p)).sum(dim=-1)
''' + _TABLE}, {"mistake": "takes log of the probabilities themselves: a saturated row has p = 0 "
                           "entries and 0 * log 0 gives NaN instead of 0", "where": ["q4"]}),
    # --- new kinds
    "q8_split_given_head_count": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    Qs = torch.split(X @ W_Q, n_heads, dim=1)
    Ks = torch.split(X @ W_K, n_heads, dim=1)
    Vs = torch.split(X @ W_V, n_heads, dim=1)
    outs = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qs, Ks, Vs)]
    return torch.cat(outs, dim=1) @ W_O
'''}, {"mistake": "passes n_heads to torch.split, which takes the chunk size: the columns are cut "
                  "into pieces of width n_heads instead of n_heads pieces of width d_k",
       "where": ["q8"]}),
    "q1_softmax_dtype_float64": ({ATT: _att(soft="weights = F.softmax(scores, dim=-1, dtype=torch.float64)")},
                                 {"mistake": "asks the softmax for float64 'for accuracy': the weights "
                                             "change dtype and the product with a float32 V fails",
                                  "where": ["q1", "q8"]}),
    "q1_keys_as_values": ({ATT: _att(out="output = weights @ K")},
                          {"mistake": "mixes the keys instead of the values: the output is weights @ K, "
                                      "of width d_k instead of d_v", "where": ["q1", "q8"]}),
    "q4_table_raw_entropy_copied": ({ENT: _ENT + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    table = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T).squeeze(0)
        scaled = raw / math.sqrt(d)
        table.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                      "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(raw).item()})
    return table
'''}, {"mistake": "copy-paste slip: H_scaled is the entropy of the raw scores again", "where": ["q4"]}),
    "q8_same_block_of_w_o": ({MHA: _mha(
        proj="out = sum(o @ W_O[:d_k] for o in heads)")},
        {"mistake": "projects every head through the first d_k rows of W_O instead of its own block "
                    "(or the concatenation through all of W_O)", "where": ["q8"]}),
    "q5_answer_sqrt_by_index": ({Q5: 'options = ["A", "B", "C", "D"]\nq5_answer = options[1]\n'},
                                {"mistake": "answers B (sqrt(d_k)): confuses the standard deviation of "
                                            "q.k with its variance", "where": ["q5"]}),
    "q6_answer_best_match_row": ({Q6: 'q6_answer = "C"\n'},
                                 {"mistake": "answers C: believes each token copies the single row it "
                                             "matches best (a hard argmax) instead of a weighted average",
                                  "where": ["q6"]}),
    "q7_answer_best_key_only": ({Q7: 'q7_answer = "C"  # picks the best key\n'},
                                {"mistake": "answers C: thinks attention returns only the best-scoring "
                                            "key's value", "where": ["q7"]}),
}
