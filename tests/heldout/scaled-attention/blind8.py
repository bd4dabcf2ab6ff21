"""Eighth blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the student-facing
text of `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines of
`measure.py` and the names of the seven earlier blind sets' variants, so that their kinds of mistake are
not repeated in the same form.

The class is mixed. Beginners: a sanity assert on the total of the weights (which is T_q, not 1), scores
negated as if they were distances, the dot product averaged instead of summed, uniform draws for
standard normals, a misnamed answer variable, a stray comma that makes the answer a tuple, the head width taken from the
number of tokens. Intermediate: the entropy divided by log T (a normalised entropy), the population
standard deviation in the table, keys and values swapped inside the heads, heads stacked head-first and
reshaped to (T, d_model) without moving the head axis.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch (`F.softmax`, `torch.distributions`)
before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"       # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"
Q5, Q6, Q7 = "q5_answer", "q6_answer", "q7_answer"


def _att(scores: str = "scores = Q @ K.T / d_k ** 0.5",
         weights: str = "weights = F.softmax(scores, dim=-1)",
         check: str = "assert abs(weights.sum(-1) - 1).max() < 1e-5") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    {weights}
    {check}
    out = weights @ V
    return out, weights
'''


def _var(draw: str = "q = torch.randn(n_samples, d_k, generator=generator)\n"
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


def _ent(entropy: str = "return -(p * torch.log(p + 1e-9)).sum(dim=-1)",
         std: str = '"raw_std": raw.std().item(), "scaled_std": scaled.std().item()') -> str:
    return f'''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    {entropy}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({{"d": d, {std},
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''


def _mha(body: str) -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    {body}
'''


CORRECT = {
    # q1 with a manual softmax shifted by each row's max
    "attention_row_shift_manual_softmax": {ATT: '''
def attention(Q, K, V, d_k):
    s = torch.mm(Q, K.t()) / math.sqrt(d_k)
    e = torch.exp(s - s.amax(dim=1, keepdim=True))
    w = e / e.sum(dim=1, keepdim=True)
    return torch.mm(w, V), w
'''},
    # q2 one dot product at a time with torch.dot, in a loop
    "variance_loop_of_dots": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.stack([torch.dot(q[i], k[i]) for i in range(n_samples)])
    if scaled:
        dots = dots * d_k ** -0.5
    return float(dots.var())
'''},
    # q4 with torch.distributions.Categorical; the table with a 1-D query (the same random stream)
    "entropy_categorical_table_1d_query": {ENT: '''
def softmax_entropy(logits):
    return torch.distributions.Categorical(logits=logits).entropy()


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(d)
        k = torch.randn(5, d)
        raw = k @ q
        scaled = raw / math.sqrt(d)
        rows.append(dict(d=d, raw_std=float(raw.std()), scaled_std=float(scaled.std()),
                         H_raw=float(softmax_entropy(raw)), H_scaled=float(softmax_entropy(scaled))))
    return rows
'''},
    # q8 batched: view to (T, h, d_k), heads first, attention per head, back to (T, d_model)
    "mha_view_transpose_batched": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads
    split = lambda M: (X @ M).view(T, n_heads, d_k).transpose(0, 1)
    Q, K, V = split(W_Q), split(W_K), split(W_V)
    w = torch.softmax(Q @ K.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    heads = (w @ V).transpose(0, 1).reshape(T, d_model)
    return heads @ W_O
'''},
    # q8 with the output projection split into row blocks, one per head, summed
    "mha_output_projection_by_blocks": {MHA: _mha('''d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    total = torch.zeros(X.shape[0], W_O.shape[1], dtype=X.dtype)
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, c], K[:, c], V[:, c], d_k)
        total = total + out_h @ W_O[c, :]
    return total''')},
}

WRONG = {
    "q1_asserts_total_weight": ({ATT: _att(check="assert abs(weights.sum() - 1) < 1e-5")},
                                {"mistake": "checks that the whole weight matrix sums to 1 instead of each "
                                            "row: the total is T_q, so the assert fails for any T_q > 1",
                                 "where": ["q1", "q8"]}),
    "q1_scores_negated_as_distances": ({ATT: _att(weights="weights = F.softmax(-scores, dim=-1)")},
                                       {"mistake": "negates the scores before the softmax, as if they were "
                                                   "distances (small = close): the key that matches worst "
                                                   "gets the most weight", "where": ["q1", "q8"]}),
    "q1_weights_rounded": ({ATT: _att(weights="weights = F.softmax(scores, dim=-1).round(decimals=4)",
                                      check="# rounded so that the printout is readable")},
                           {"mistake": "rounds the weights to 4 decimals (for a readable printout) and "
                                       "returns the rounded ones: the weights and the output are off by up "
                                       "to 5e-5 and the rows no longer sum to 1 exactly",
                            "where": ["q1", "q8"]}),
    "q2_dot_averaged_not_summed": ({VAR: _var(dots="dots = (q * k).mean(dim=1)")},
                                   {"mistake": "averages the d_k products instead of summing them: the "
                                               "'dot product' is divided by d_k, so the variance comes out "
                                               "near 1/d_k (and 1/d_k^2 scaled) instead of d_k and 1",
                                    "where": ["q2"]}),
    "q2_uniform_draws": ({VAR: _var(draw="q = torch.rand(n_samples, d_k, generator=generator)\n"
                                         "    k = torch.rand(n_samples, d_k, generator=generator)")},
                         {"mistake": "draws the coordinates with torch.rand (uniform on [0, 1)) instead of "
                                     "torch.randn: the variance is d_k (1/9 - 1/16), about 0.05 d_k",
                          "where": ["q2"]}),
    "q4_entropy_divided_by_log_T": ({ENT: _ent(
        entropy="H = -(p * torch.log(p + 1e-9)).sum(dim=-1)\n    return H / math.log(logits.shape[-1])")},
        {"mistake": "divides the entropy by log T (a normalised entropy between 0 and 1) instead of "
                    "returning the entropy in nats", "where": ["q4"]}),
    "q4_table_population_std": ({ENT: _ent(
        std='"raw_std": raw.std(unbiased=False).item(), "scaled_std": scaled.std(unbiased=False).item()')},
        {"mistake": "reports the population standard deviation (divides by n = 5) in the table instead of "
                    "torch's default sample standard deviation (n - 1): about 11% too small", "where": ["q4"]}),
    "q5_answer_variable_misnamed": ({Q5: 'q5_ans = "C"\n'},
                                    {"mistake": "stores the answer in `q5_ans` instead of `q5_answer`, so "
                                                "the asked variable is never set", "where": ["q5"]}),
    "q6_trailing_comma_tuple": ({Q6: 'q6_answer = "A",\n'},
                                {"mistake": "ends the line with a comma, so q6_answer is the tuple (\"A\",) "
                                            "instead of the string \"A\"", "where": ["q6"]}),
    "q8_keys_and_values_swapped": ({MHA: _mha('''d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], V[:, cols], K[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "passes each head's value slice as the keys and its key slice as the values: the "
                    "scores are Q V^T and the heads mix the keys", "where": ["q8"]}),
    "q8_heads_stacked_first_then_reshaped": ({MHA: _mha('''d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    outs = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                      V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
    return torch.stack(outs).reshape(X.shape[0], d_model) @ W_O''')},
        {"mistake": "stacks the head outputs head-first, (n_heads, T, d_k), and reshapes that straight to "
                    "(T, d_model) without moving the head axis behind the token axis: rows of the result "
                    "mix several tokens of one head", "where": ["q8"]}),
    "q8_head_width_from_tokens": ({MHA: _mha('''d_k = X.shape[0] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(Q[:, cols], K[:, cols], V[:, cols], d_k)[0])
    return torch.cat(heads, dim=1) @ W_O''')},
        {"mistake": "takes the head width from the number of tokens, X.shape[0] // n_heads, instead of "
                    "d_model // n_heads: wrong slices and scale whenever T != d_model", "where": ["q8"]}),
}
