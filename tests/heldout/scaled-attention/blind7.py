"""Seventh blind held-out set for scaled-attention (Lesson 79), written without reading the grader's
catalogue of misconceptions (`hidden/_misconceptions.py`), its hidden tests, the reference solution,
`variants.py`, the naming tests or the key mappings of `measure.py`. What was read: the master notebook's
student-facing text, `full_marks.ipynb` (whose cells these replace), `harness.py`, the registration lines
of `measure.py` and the names of the six earlier blind sets' variants, so that their kinds of mistake
are not repeated in the same form.

The class is mixed. Beginners: K used without its transpose, the "scaled" variance divided by the number
of samples, `d_k ** (1 // 2)` (integer division in the exponent, so no scaling at all), an entropy that
calls `.item()` and so returns one number, an entropy kept with `keepdim=True`, a hedged multiple-choice
answer ("A or D"), an answer given as a list. Intermediate: a Nadaraya-Watson Gaussian kernel (negative
squared distances) in place of dot products, the table's entropies taken of a softmax of probabilities
(softmax applied twice), a residual connection added to the multi-head output, the loop's Q overwritten
by its own head slice so that later heads slice an already cut tensor.

Each wrong variant changes one cell of an otherwise full-marks notebook and says its mistake in plain
words; `where` lists the questions that should lose points. Correct variants are really correct but
written differently. Every variant was checked against plain torch (`torch.softmax`, a loop over heads,
`torch.special.entr`) before it was graded.

    CORRECT = {name: {defined_name: cell_source}}                               # full marks
    WRONG = {name: ({defined_name: cell_source}, {"mistake": str, "where": [q, ...]})}
"""

ATT = "attention"
VAR = "dot_product_variance"
ENT = "softmax_entropy"       # the q4 cell (also defines entropy_table)
MHA = "multi_head_attention"
Q5, Q6, Q7 = "q5_answer", "q6_answer", "q7_answer"


def _att(scores: str = "scores = Q @ K.T / d_k ** 0.5") -> str:
    return f'''
def attention(Q, K, V, d_k):
    {scores}
    weights = F.softmax(scores, dim=-1)
    out = weights @ V
    return out, weights
'''


def _var(scale: str = "dots = dots / math.sqrt(d_k)") -> str:
    return f'''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(1)
    if scaled:
        {scale}
    return dots.var().item()
'''


def _ent(entropy: str = "return -(p * torch.log(p + 1e-9)).sum(dim=-1)",
         h: str = '"H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()') -> str:
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
        results.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        {h}}})
    return results
'''


def _mha(loop: str = '''    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)''', ret: str = "return torch.cat(heads, dim=1) @ W_O") -> str:
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
{loop}
    {ret}
'''


CORRECT = {
    # mm with K.t(), a multiplied reciprocal scale, softmax over dim 1 of a 2-D matrix
    "attention_mm_reciprocal_scale": {ATT: '''
def attention(Q, K, V, d_k):
    weights = torch.softmax(torch.mm(Q, K.t()) * (1.0 / math.sqrt(d_k)), dim=1)
    return torch.mm(weights, V), weights
'''},
    # dots by einsum; the sample variance written out with n - 1
    "variance_einsum_manual_unbiased": {VAR: '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    qk = torch.randn(2, n_samples, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", qk[0], qk[1])
    if scaled:
        dots = dots * d_k ** -0.5
    centred = dots - dots.mean()
    return (centred.pow(2).sum() / (n_samples - 1)).item()
'''},
    # entropy from log_softmax alone; the table built by a helper per d
    "entropy_log_softmax_row_helper": {ENT: '''
def softmax_entropy(logits):
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1)


def _row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d)
    k = torch.randn(5, d)
    raw = torch.mv(k, q[0])
    scaled = raw / math.sqrt(d)
    return {"d": d, "raw_std": float(raw.std()), "scaled_std": float(scaled.std()),
            "H_raw": float(softmax_entropy(raw)), "H_scaled": float(softmax_entropy(scaled))}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return [_row(d, seed) for d in dims]
'''},
    # heads batched by reshape/permute, merged back by permute/reshape
    "mha_permute_batched": {MHA: '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    T, d_model = X.shape
    d_k = d_model // n_heads

    def split(M):
        return (X @ M).reshape(T, n_heads, d_k).permute(1, 0, 2)      # (heads, T, d_k)

    Qh, Kh, Vh = split(W_Q), split(W_K), split(W_V)
    w = torch.softmax(Qh @ Kh.transpose(1, 2) / math.sqrt(d_k), dim=-1)
    merged = (w @ Vh).permute(1, 0, 2).reshape(T, d_model)
    return merged @ W_O
'''},
    # the letters picked out of "ABCD" by position
    "answers_indexed": {Q5: 'q5_answer = "ABCD"[2]', Q6: 'q6_answer = "ABCD"[0]', Q7: 'q7_answer = "ABCD"[3]'},
}

WRONG = {
    "q1_keys_not_transposed": ({ATT: _att(scores="scores = Q @ K / d_k ** 0.5")},
                               {"mistake": "forgets to transpose K: Q @ K only runs when d_k == T_k, and then "
                                           "dots each query with the columns of K instead of its rows",
                                "where": ["q1", "q8"]}),
    "q1_gaussian_kernel": ({ATT: _att(
        scores="scores = -torch.cdist(Q, K) ** 2 / (2 * d_k ** 0.5)")},
        {"mistake": "scores the keys with a Nadaraya-Watson Gaussian kernel (minus the squared distance) "
                    "instead of the dot product: the weights differ whenever the keys' norms differ",
         "where": ["q1", "q8"]}),
    "q2_scaled_by_sample_count": ({VAR: _var(scale="dots = dots / math.sqrt(n_samples)")},
                                  {"mistake": "with scaled=True divides by sqrt(n_samples) (the standard-error "
                                              "habit) instead of sqrt(d_k)", "where": ["q2"]}),
    "q2_integer_exponent": ({VAR: _var(scale="dots = dots / d_k ** (1 // 2)")},
                            {"mistake": "writes the square root as d_k ** (1 // 2): 1 // 2 is 0, so it divides "
                                        "by 1 and the scaled variance stays d_k", "where": ["q2"]}),
    "q4_entropy_item": ({ENT: _ent(entropy="return -(p * torch.log(p + 1e-9)).sum(dim=-1).item()")},
                        {"mistake": "ends the entropy with .item(): one Python float instead of one value per "
                                    "row (raises for a batch of rows, loses the dtype)", "where": ["q4"]}),
    "q4_entropy_keepdim": ({ENT: _ent(entropy="return -(p * torch.log(p + 1e-9)).sum(dim=-1, keepdim=True)")},
                           {"mistake": "keeps the summed axis (keepdim=True): shape (..., 1) instead of (...)",
                            "where": ["q4"]}),
    "q4_table_softmax_twice": ({ENT: _ent(
        h='"H_raw": softmax_entropy(F.softmax(raw, dim=-1)).item(), '
          '"H_scaled": softmax_entropy(F.softmax(scaled, dim=-1)).item()')},
        {"mistake": "in the table passes probabilities (softmax of the scores) to softmax_entropy, which "
                    "applies the softmax again: both entropies come out near ln 5", "where": ["q4"]}),
    "q6_hedged_answer": ({Q6: 'q6_answer = "A or D"'},
                         {"mistake": "hedges between the weighted average and the plain mean instead of "
                                     "choosing one letter", "where": ["q6"]}),
    "q7_answer_in_a_list": ({Q7: 'q7_answer = ["D"]'},
                            {"mistake": "gives the answer as a list holding the letter, not the string the "
                                        "question asks for", "where": ["q7"]}),
    "q8_residual_added": ({MHA: _mha(ret="return torch.cat(heads, dim=1) @ W_O + X")},
                          {"mistake": "adds the input back (a transformer block's residual connection) to the "
                                      "multi-head output, which the question does not ask for", "where": ["q8"]}),
    "q8_q_overwritten_in_loop": ({MHA: _mha(loop='''    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        Q = Q[:, cols]
        out_h, _ = attention(Q, K[:, cols], V[:, cols], d_k)
        heads.append(out_h)''')},
        {"mistake": "overwrites Q with its head slice inside the loop: from head 1 on it slices an already "
                    "cut (T, d_k) tensor, so the queries are empty or wrong", "where": ["q8"]}),
    "q8_unpacks_weights_as_output": ({MHA: _mha(loop='''    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        _, out_h = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)''')},
        {"mistake": "unpacks attention's pair the wrong way round and concatenates each head's (T, T) "
                    "weights instead of its (T, d_k) output", "where": ["q8"]}),
}
