"""Twelfth blind held-out set for scaled-attention, written without reading the grader's catalogue of
misconceptions, its hidden tests, the reference solution, `variants.py`, the naming tests or the key
comments of `measure.py`. What was read: the student-facing text of the master notebook, `harness.py`,
the registration lines of `measure.py` and the variant names and code of blind.py .. blind11.py, so
that their mistakes are not repeated in the same form.

A realistic class: the commonest slips (scores divided by d_k, here in an ellipsis einsum; the softmax
over the queries, here by computing the axis from the rank; the generator bypassed, here through an
in-place normal_; 0 * log 0 in the entropy, here with Tensor.log().neg()) written in new forms, beside
new kinds: an unshifted exp softmax in float16, the scaled variance divided by sqrt(d_k) after the
fact, one projection matrix reused for Q, K and V, W_O used only through its diagonal blocks, K
transposed on axes 0 and 1, the entropy sign lost behind a clamp, the table's keys drawn before the
query, and three multiple-choice answers.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in words;
`where` lists the questions that may lose points. Correct variants are really correct but written
differently (an explicit loop over queries, torch.special.entr, logsumexp, unbind/cat heads, a
per-sample sum of products). Every variant was checked against plain torch before it was graded.

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


def _var(draw: str = ("q = torch.randn(n_samples, d_k, generator=generator)\n"
                      "    k = torch.randn(n_samples, d_k, generator=generator)"),
         tail: str = ("dots = (q * k).sum(dim=-1)\n    if scaled:\n        dots = dots / math.sqrt(d_k)\n"
                      "    return dots.var().item()")) -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    {draw}
    {tail}
'''


CORRECT = {
    # q1 with an explicit loop over the query rows (any leading axes kept by the ellipsis)
    "loop_over_queries_attention": {ATT: '''
def attention(Q, K, V, d_k):
    rows = []
    for i in range(Q.shape[-2]):
        s = (K @ Q[..., i, :].unsqueeze(-1)).squeeze(-1) / math.sqrt(d_k)
        rows.append(F.softmax(s, dim=-1))
    weights = torch.stack(rows, dim=-2)
    return weights @ V, weights
'''},
    # q4 with torch.special.entr (0 log 0 = 0 built in), the table from a dict comprehension per row
    "special_entr_entropy": {ENT: '''
def softmax_entropy(logits):
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)
''' + _TABLE},
    # q2 drawing both vectors in one call on the generator and summing products with einsum
    "one_draw_einsum_rows": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
    return float(torch.var(dots * scale))
'''},
    # q8 with unbind over a head axis and cat back, output projection applied once
    "unbind_heads_cat": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Qh = (X @ W_Q).reshape(T, n_heads, d_k).unbind(dim=1)
    Kh = (X @ W_K).reshape(T, n_heads, d_k).unbind(dim=1)
    Vh = (X @ W_V).reshape(T, n_heads, d_k).unbind(dim=1)
    heads = [attention(q, k, v, d_k)[0] for q, k, v in zip(Qh, Kh, Vh)]
    return torch.cat(heads, dim=1) @ W_O
'''},
    # q5-q7 from a tuple of options indexed, q4 through logsumexp
    "answers_by_index_logsumexp_entropy": {
        Q5: 'q5_answer = ("A", "B", "C", "D")[2]\n',
        Q6: 'q6_answer = ("A", "B", "C", "D")[0]\n',
        Q7: 'q7_answer = ("A", "B", "C", "D")[3]\n',
        ENT: '''
def softmax_entropy(logits):
    lse = torch.logsumexp(logits, dim=-1, keepdim=True)
    p = torch.exp(logits - lse)
    return (lse.squeeze(-1) - (p * logits).sum(dim=-1))
''' + _TABLE},
}

WRONG = {
    # --- the commonest slips, written in new forms
    "q1_einsum_over_d_k": ({ATT: _att(scores='scores = torch.einsum("...id,...jd->...ij", Q, K) / d_k')},
                           {"mistake": "divides the scores by d_k instead of sqrt(d_k)", "where": ["q1", "q8"]}),
    "q1_softmax_axis_from_rank": ({ATT: _att(soft="weights = F.softmax(scores, dim=scores.dim() - 2)")},
                                  {"mistake": "normalises over axis ndim-2, the queries: each key's column "
                                              "sums to 1 instead of each query's row", "where": ["q1", "q8"]}),
    "q2_normal_inplace_no_generator": ({VAR: _var(draw=(
        "q = torch.empty(n_samples, d_k).normal_()\n    k = torch.empty(n_samples, d_k).normal_()"))},
        {"mistake": "draws with Tensor.normal_() from the global RNG, never using the given generator, so "
                    "results do not depend on (and are not reproducible from) the generator",
         "where": ["q2"]}),
    "q4_log_neg_of_zero": ({ENT: '''
def softmax_entropy(logits):
    p = logits.softmax(dim=-1)
    return (p * p.log().neg()).sum(dim=-1)
''' + _TABLE}, {"mistake": "takes log of probabilities that underflow to 0: 0 * inf is NaN instead of "
                           "counting 0 log 0 as 0", "where": ["q4"]}),
    # --- other ordinary slips and new kinds
    "q1_unshifted_exp_softmax": ({ATT: _att(
        soft="e = torch.exp(scores)\n    weights = e / e.sum(dim=-1, keepdim=True)")},
        {"mistake": "writes the softmax by hand without subtracting the row max: large (or float16) "
                    "scores overflow to inf and the weights become NaN", "where": ["q1", "q8"]}),
    "q1_transpose_0_1_batched": ({ATT: _att(scores="scores = Q @ K.transpose(0, 1) / math.sqrt(d_k)")},
                                 {"mistake": "transposes axes 0 and 1 of K: right for a 2-D matrix, but on "
                                             "batched input it swaps the batch and token axes instead of "
                                             "the last two", "where": ["q1"]}),
    "q2_variance_divided_by_sqrt": ({VAR: _var(tail=(
        "v = (q * k).sum(dim=-1).var().item()\n    return v / math.sqrt(d_k) if scaled else v"))},
        {"mistake": "scales the variance by 1/sqrt(d_k) instead of the dot products: the scaled variance "
                    "comes out sqrt(d_k) instead of 1", "where": ["q2"]}),
    "q8_one_projection_for_qkv": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q = K = V = X @ W_Q
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, c], K[:, c], V[:, c], d_k)[0])
    return torch.cat(heads, dim=-1) @ W_O
'''}, {"mistake": "copy-paste slip: projects Q, K and V all with W_Q, so W_K and W_V are never used",
       "where": ["q8"]}),
    "q8_w_o_diagonal_blocks": ({MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    out = torch.zeros(T, d_model, dtype=X.dtype)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        o, _ = attention(Q[:, c], K[:, c], V[:, c], d_k)
        out[:, c] = o @ W_O[c, c]
    return out
'''}, {"mistake": "projects each head only through the diagonal block W_O[c, c], so head h writes only "
                  "its own output columns: the cross terms of the output projection are dropped",
       "where": ["q8"]}),
    "q4_sign_lost_with_clamp": ({ENT: '''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return (p * torch.log(p.clamp(min=1e-12))).sum(dim=-1)
''' + _TABLE}, {"mistake": "forgets the minus sign: returns sum p log p, which is <= 0, instead of the "
                           "entropy", "where": ["q4"]}),
    "q4_table_key_drawn_before_query": ({ENT: _ENT + '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        k = torch.randn(5, d)
        q = torch.randn(1, d)
        raw = (q @ k.T).flatten()
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''}, {"mistake": "draws the keys before the query after seeding, so the numbers are not the ones the "
                  "question prescribes (q first, then k)", "where": ["q4"]}),
    "q5_answer_b_lower": ({Q5: 'q5_answer = "b"\n'},
                          {"mistake": "answers b (sqrt(d_k)): gives the standard deviation of q.k for its "
                                      "variance", "where": ["q5"]}),
    "q6_answer_itself": ({Q6: 'q6_answer = "B"   # Q = K = V so it attends to itself\n'},
                         {"mistake": "answers B: believes each token only attends to itself when Q = K = V",
                          "where": ["q6"]}),
    "q7_answer_sorted": ({Q7: 'q7_answer = "B"\n'},
                         {"mistake": "answers B: thinks attention needs the keys sorted, like a binary "
                                     "search", "where": ["q7"]}),
}
